//! The child-process jail: confinement of programs started by a VoxScript run (and, optionally,
//! of the interpreter itself), following `runtime.md` §4 and decisions 16, 21, 24–26.
//!
//! The crate takes plain data and knows nothing about the interpreter:
//!
//! - [`ChildPolicy`] is a **value computed per spawn** (never process-global state): read roots,
//!   write roots, the [`Denies`] that narrow them, the program's directory, network on/off and the
//!   ports a child may listen on, the private temp dir, resource limits and the [`EnvPolicy`].
//! - [`child_env`] builds a child's environment from nothing; [`env_fingerprint`] shows its shape
//!   (names and digests, never values).
//! - [`TempDir`] is the private per-run temp dir (0700, removed on drop).
//! - [`confine_command`] makes a [`std::process::Command`] spawn its child confined: Landlock
//!   filesystem rules, a user and mount namespace in which every mount is read-only except the
//!   write roots and the temp dir (so `chmod`, `touch`, extended attributes, which Landlock does
//!   not cover, fail with `EROFS` elsewhere), Landlock TCP denial plus a fresh network namespace
//!   when the network is off, Landlock scoping (abstract unix sockets, signals), `RLIMIT_DATA`/`RLIMIT_FSIZE`, its own
//!   process group, a scrubbed environment. It **fails closed** with
//!   [`JailError::CannotConfine`] when the host cannot enforce the policy.
//! - [`confine_self`] confines the calling process (the interpreter) with a [`SelfPolicy`].
//! - [`lifetime`] bounds a run's processes by the run (decision 48): the interpreter is a child
//!   subreaper and [`lifetime::end_descendants`] ends everything it started.
//! - [`probe`] and [`doctor_lines`] report what this host can enforce, for `vox doctor`.
//!
//! Limits worth knowing (see the tests, which pin each one):
//!
//! - Landlock is path-based: a hard link that *already exists* beneath a root names its inode
//!   by an allowed path, so the child can use it. The child cannot create such a link itself
//!   (Landlock refuses to link a file into a place where it would gain rights: `EXDEV`).
//! - `/proc/self` is the spawned child's own `/proc/<pid>`, resolved in the child; processes it
//!   starts in turn cannot read their own `/proc/self` (a path rule names one process). `/dev/fd`
//!   on pipes keeps working. `/sys` and `$HOME` are not readable unless granted.
//! - Every confined child joins a user namespace mapping only the interpreter's own uid/gid (all
//!   a process may map for itself), so a root interpreter's child is uid 0 there and its files
//!   are owned by root as before. The namespaces are built once per set of writable places by a
//!   helper process (Landlock forbids mounting to a confined process): [`confine_self`] builds
//!   them for its own write roots and temp dir before confining itself; a confined interpreter
//!   cannot build new ones, so its children must write only where it may (as they do anyway).
//!   The mount namespace is a snapshot: mounts made on the host afterwards are not seen.
//!   When `/` itself is writable no mount namespace is made (nothing could be read-only).
//! - [`confine_self`] cannot enter a network namespace (the interpreter is multi-threaded): its
//!   network-off rule is Landlock TCP only; it grants read-only `/proc` so that children can
//!   read their own `/proc/self`.
//! - Rights are requested at Landlock ABI 7 at most (the newest tested); newer kernels work at
//!   that level.
//!
//! Testing hook: the environment variable `VOX_JAIL_SIMULATE_UNSUPPORTED` makes [`probe`] (and so
//! every confinement) behave as if the host lacked a feature: `1` or `landlock` (no Landlock at
//! all), `net` (a Landlock ABI too old for network rules, i.e. ABI 3), `userns` (user namespaces
//! fail), `lifetime` (no child subreaper: jailed spawns are refused, as without Landlock),
//! `seccomp` (no seccomp filters: jailed spawns are refused). It only
//! ever removes support, so it cannot weaken a jail.

// Floors, from the bottom (each imports only from floors below it):
// - types, host, env, policy (env), limits, spawned, seccomp: plain data and pure helpers;
// - descendants (host), keeper (descendants, types), direct (keeper, spawned, types), lifetime
//   (the face of those three, the same on every platform), tempdir (lifetime), mountinfo,
//   denies (mountinfo), mounts (denies, mountinfo);
// - linux / unsupported (the platform), then confine (the entry points, handed to the platform);
// - proof (confine, tempdir), doctor (confine, lifetime, proof);
// - this file: declarations and the public face only.
mod confine;
#[cfg(target_os = "linux")]
mod descendants;
#[cfg(target_os = "linux")]
mod direct;
mod doctor;
mod env;
mod host;
#[cfg(target_os = "linux")]
mod keeper;
#[cfg(target_os = "linux")]
pub mod lifetime;
#[cfg(not(target_os = "linux"))]
#[path = "lifetime_unsupported.rs"]
pub mod lifetime;
#[cfg(unix)]
mod limits;
mod policy;
mod spawned;
mod tempdir;
mod types;

#[cfg(target_os = "linux")]
mod denies;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
mod mountinfo;
#[cfg(target_os = "linux")]
mod mounts;
#[cfg(target_os = "linux")]
pub mod proof;
#[cfg(target_os = "linux")]
pub mod seccomp;

// Compiled on Linux test builds too, so the non-Linux code path is at least type-checked here.
#[cfg(any(not(target_os = "linux"), test))]
#[cfg_attr(target_os = "linux", allow(dead_code))]
mod unsupported;

pub use confine::{confine_command, confine_hook, confine_self, probe};
pub use doctor::{doctor_lines, doctor_lines_for, lifetime_line, DoctorLine, DoctorStatus};
pub use env::{
    child_env, env_fingerprint, fingerprint_digest, is_credential_name, is_hijack_name, EnvPolicy,
    ENV_ALLOWLIST, HIJACK_NAMES, HIJACK_PREFIXES,
};
pub use host::{HostSupport, SIMULATE_ENV};
pub use policy::{ChildPolicy, Denies, FsAccess, Grant, ProcessGroup, SelfPolicy};
pub use tempdir::TempDir;
pub use types::{Applied, Hook, JailError, Mode, RuleKind};
