//! The child-process jail: confinement of programs started by a VoxScript run (and, optionally,
//! of the interpreter itself), following `runtime.md` §4 and decisions 16, 21, 24–26.
//!
//! The crate takes plain data and knows nothing about the interpreter:
//!
//! - [`ChildPolicy`] is a **value computed per spawn** (never process-global state): read roots,
//!   write roots, the program's directory, network on/off, the private temp dir, resource limits
//!   and the [`EnvPolicy`].
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

mod doctor;
mod env;
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

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
mod mounts;
#[cfg(target_os = "linux")]
pub mod proof;
#[cfg(target_os = "linux")]
pub mod seccomp;
#[cfg(target_os = "linux")]
use linux as platform;

// Compiled on Linux test builds too, so the non-Linux code path is at least type-checked here.
#[cfg(any(not(target_os = "linux"), test))]
#[cfg_attr(target_os = "linux", allow(dead_code))]
mod unsupported;
#[cfg(not(target_os = "linux"))]
use unsupported as platform;

use std::fmt;
use std::process::Command;

pub use doctor::{doctor_lines, doctor_lines_for, lifetime_line, DoctorLine, DoctorStatus};
pub use env::{
    child_env, env_fingerprint, fingerprint_digest, is_credential_name, is_hijack_name, EnvPolicy,
    ENV_ALLOWLIST, HIJACK_NAMES, HIJACK_PREFIXES,
};
pub use policy::{ChildPolicy, FsAccess, Grant, ProcessGroup, SelfPolicy};
pub use tempdir::TempDir;

/// Name of the testing hook that makes the probe report missing host support.
pub const SIMULATE_ENV: &str = "VOX_JAIL_SIMULATE_UNSUPPORTED";

/// Whether [`confine_command`] must enforce the policy or only apply the cheap parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Enforce the whole policy; refuse the spawn if the host cannot.
    Confined,
    /// The explicit opt-out (`--unconfined-children`): only the environment scrub, resource
    /// limits and process group apply; no Landlock, no network namespace.
    Unconfined,
}

/// Why confinement was refused or could not be set up.
#[derive(Debug)]
pub enum JailError {
    /// The host cannot enforce what the child policy needs (fail closed).
    CannotConfine { reason: String },
    /// The host cannot enforce what the interpreter's own policy needs.
    CannotConfineSelf { reason: String },
}

impl JailError {
    /// The reason without the `cannot confine …:` prefix.
    pub fn reason(&self) -> &str {
        match self {
            JailError::CannotConfine { reason } | JailError::CannotConfineSelf { reason } => reason,
        }
    }
}

impl fmt::Display for JailError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JailError::CannotConfine { reason } => write!(f, "cannot confine child: {reason}"),
            JailError::CannotConfineSelf { reason } => {
                write!(f, "cannot confine the interpreter: {reason}")
            }
        }
    }
}

impl std::error::Error for JailError {}

/// One kind of restriction that was (or will be, at spawn) applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// The environment was rebuilt from the allowlist ([`child_env`]).
    EnvScrub,
    /// The child gets its own process group.
    ProcessGroup,
    /// The child starts a new session (`setsid`) and is a child subreaper, so what it starts
    /// stays beneath it ([`lifetime`]).
    NewSession,
    /// `RLIMIT_DATA` set to this many bytes.
    RlimitData(u64),
    /// `RLIMIT_FSIZE` set to this many bytes.
    RlimitFsize(u64),
    /// `RLIMIT_CORE` set to 0 (no core dumps outside the quota) — confined children only.
    RlimitCoreZero,
    /// Every capability dropped, the bounding set included (confined children only): a child
    /// of a root interpreter cannot create device nodes, raise its limits, reconfigure the
    /// network, … (Landlock does not cover what capabilities allow).
    DropCapabilities,
    /// `PR_SET_NO_NEW_PRIVS` (setuid binaries cannot gain privileges).
    NoNewPrivs,
    /// Landlock filesystem rules (read/exec on read roots, read-write on write roots).
    LandlockFs,
    /// A user and mount namespace in which every mount is read-only except the write roots and
    /// the temp dir: no `chmod`, `touch`, `setxattr` elsewhere (Landlock does not cover them).
    ReadOnlyMounts,
    /// Landlock denies TCP bind and connect (ABI ≥ 4).
    LandlockTcp,
    /// A fresh, empty network namespace (covers every socket family: UDP, raw, netlink, …).
    NetworkNamespace,
    /// Landlock scoping: no connecting to abstract unix sockets outside the sandbox (ABI ≥ 6).
    ScopeAbstractUnix,
    /// Landlock scoping: no signals to processes outside the sandbox (ABI ≥ 6).
    ScopeSignal,
    /// A fresh IPC namespace: no SysV shared memory, semaphores or message queues of the host,
    /// and the child's own vanish with it.
    IpcNamespace,
    /// The seccomp filter ([`seccomp`]): no terminal injection, no setuid/setgid bits, no new
    /// namespaces or mounts, no `perf_event_open`, `bpf`, `userfaultfd`, keyrings, `io_uring`.
    Seccomp,
    /// With the network off, the filter also refuses unix (and every non-IP) socket.
    NoUnixSockets,
    /// A captured child starts a session of its own: no controlling terminal.
    NewSessionNoTty,
    /// Every descriptor but the standard streams is closed at `exec`.
    CloseDescriptors,
    /// The Landlock domain covers every thread of the process (ABI ≥ 8; `confine_self` only).
    AllThreads,
}

impl fmt::Display for RuleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleKind::EnvScrub => f.write_str("env-scrub"),
            RuleKind::ProcessGroup => f.write_str("process-group"),
            RuleKind::NewSession => f.write_str("new-session"),
            RuleKind::RlimitData(n) => write!(f, "rlimit-data={n}"),
            RuleKind::RlimitFsize(n) => write!(f, "rlimit-fsize={n}"),
            RuleKind::RlimitCoreZero => f.write_str("rlimit-core=0"),
            RuleKind::DropCapabilities => f.write_str("drop-caps"),
            RuleKind::NoNewPrivs => f.write_str("no-new-privs"),
            RuleKind::LandlockFs => f.write_str("landlock-fs"),
            RuleKind::ReadOnlyMounts => f.write_str("ro-mounts"),
            RuleKind::LandlockTcp => f.write_str("landlock-tcp"),
            RuleKind::NetworkNamespace => f.write_str("netns"),
            RuleKind::ScopeAbstractUnix => f.write_str("scope-abstract-unix"),
            RuleKind::ScopeSignal => f.write_str("scope-signal"),
            RuleKind::IpcNamespace => f.write_str("ipcns"),
            RuleKind::Seccomp => f.write_str("seccomp"),
            RuleKind::NoUnixSockets => f.write_str("no-unix-sockets"),
            RuleKind::NewSessionNoTty => f.write_str("new-session-no-tty"),
            RuleKind::CloseDescriptors => f.write_str("close-fds"),
            RuleKind::AllThreads => f.write_str("all-threads"),
        }
    }
}

/// What [`confine_command`] / [`confine_self`] applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The mode that was honoured.
    pub mode: Mode,
    /// The Landlock ABI the rules were written for (`None` when no Landlock was used).
    pub landlock_abi: Option<u32>,
    /// The restrictions, in the order they take effect.
    pub kinds: Vec<RuleKind>,
}

impl Applied {
    /// Whether a restriction of this kind was applied.
    pub fn has(&self, kind: &RuleKind) -> bool {
        self.kinds.contains(kind)
    }

    /// One line for `--verbose`: `landlock ABI 7: landlock-fs, landlock-tcp, netns, …`.
    pub fn describe(&self) -> String {
        let kinds: Vec<String> = self.kinds.iter().map(ToString::to_string).collect();
        match (self.mode, self.landlock_abi) {
            (Mode::Unconfined, _) => format!("unconfined (opt-out): {}", kinds.join(", ")),
            (Mode::Confined, Some(abi)) => format!("landlock ABI {abi}: {}", kinds.join(", ")),
            (Mode::Confined, None) => kinds.join(", "),
        }
    }
}

/// What this host can enforce ([`probe`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostSupport {
    /// Whether this platform has a jail implementation at all (Linux only).
    pub platform_supported: bool,
    /// The Landlock ABI version the kernel offers, if any.
    pub landlock_abi: Option<u32>,
    /// Why Landlock is unavailable (when `landlock_abi` is `None`).
    pub landlock_missing: Option<String>,
    /// Filesystem rules are available (ABI ≥ 1).
    pub fs_rules: bool,
    /// TCP bind/connect rules are available (ABI ≥ 4).
    pub tcp_rules: bool,
    /// Scoping of abstract unix sockets and signals is available (ABI ≥ 6).
    pub scoping: bool,
    /// A child can create user, mount and network namespaces (every confined child needs the
    /// first two for its read-only mounts, a child with the network off the third).
    pub user_namespaces: bool,
    /// The outcome of the namespace probe, in words.
    pub user_namespaces_detail: String,
    /// Seccomp filters can be installed (every confined child gets one).
    pub seccomp: bool,
    /// The value of the simulation hook, when it is set.
    pub simulated: Option<String>,
}

impl HostSupport {
    /// Why a child with this network setting cannot be confined here, or `None` if it can.
    pub fn child_gap(&self, net_allowed: bool) -> Option<String> {
        if !self.platform_supported {
            return Some(
                "the child jail needs Linux Landlock; this platform is not supported".to_string(),
            );
        }
        if self.landlock_abi.is_none() {
            let why = self.landlock_missing.as_deref().unwrap_or("unknown reason");
            return Some(format!(
                "Landlock is not available on this host ({why}); use a kernel with Landlock \
                 enabled, or opt out explicitly"
            ));
        }
        if !net_allowed && !self.tcp_rules {
            return Some(format!(
                "the network is off for this child but Landlock ABI {} has no network rules \
                 (needs ABI 4, Linux 6.7 or newer)",
                self.landlock_abi.unwrap_or(0)
            ));
        }
        if !net_allowed && !self.user_namespaces {
            return Some(format!(
                "the network is off for this child but a network namespace cannot be created \
                 ({}); allow user namespaces on this host",
                self.user_namespaces_detail
            ));
        }
        if !self.seccomp {
            return Some(
                "seccomp filters are not available on this host (the child's system-call \
                 filter refuses terminal injection, setuid bits, unix sockets with the network \
                 off, new namespaces); use a kernel with CONFIG_SECCOMP_FILTER, or opt out \
                 explicitly"
                    .to_string(),
            );
        }
        if !self.user_namespaces {
            return Some(format!(
                "the read-only mount namespace of a child cannot be created ({}); allow user \
                 namespaces on this host",
                self.user_namespaces_detail
            ));
        }
        None
    }
}

/// Probes what this host can enforce: the Landlock ABI, its rule kinds, user namespaces.
///
/// Honours the `VOX_JAIL_SIMULATE_UNSUPPORTED` testing hook (see the crate docs).
pub fn probe() -> HostSupport {
    platform::probe()
}

/// Makes `cmd` spawn its child under `policy`.
///
/// Replaces the command's environment with [`child_env`] of this process's environment (so set
/// variables through `policy.env`, not on the command), and installs a `pre_exec` hook (prepared before the fork, async-signal-safe in the child) that
/// applies resource limits and, in [`Mode::Confined`], `RLIMIT_CORE` 0, the read-only mount
/// namespace, the network namespace and the Landlock domain. Put the program's directory in the policy's exec paths
/// ([`ChildPolicy::with_exec_path`]) so the child may run it. Use the command for one spawn.
///
/// Errors: [`JailError::CannotConfine`] when the host cannot enforce the policy (Landlock
/// missing, no user namespaces, no network rules while the network is off, a rule that cannot be
/// added, a read-only mount namespace that cannot be built). A failure inside the child after the fork makes `spawn()` return that step's OS error.
pub fn confine_command(
    cmd: &mut Command,
    policy: &ChildPolicy,
    mode: Mode,
) -> Result<Applied, JailError> {
    platform::confine_command(cmd, policy, mode)
}

/// What runs in a child between fork and exec (syscalls only): the jail's setup, for
/// [`lifetime::guard`] to run in the program rather than in its keeper.
pub type Hook = Box<dyn FnMut() -> std::io::Result<()> + Send + Sync>;

/// [`confine_command`] without the `pre_exec` hook: the command's environment and process group
/// are set, and the setup the child must make before `exec` is returned instead, for the caller
/// to run in the child (it must be called there, between fork and exec, and nowhere else).
pub fn confine_hook(
    cmd: &mut Command,
    policy: &ChildPolicy,
    mode: Mode,
) -> Result<(Applied, Hook), JailError> {
    platform::confine_hook(cmd, policy, mode)
}

/// Confines the calling process (the interpreter) with `policy`, irreversibly.
///
/// On Landlock ABI < 8 only the calling thread (and threads and children it starts afterwards)
/// is confined: call this before starting other threads, or from the thread that runs the script.
///
/// Before confining, it builds the read-only mount namespace for children whose writable places
/// are the policy's write roots and temp dir (a confined process cannot mount): give the policy
/// the temp dir its children will use.
pub fn confine_self(policy: &SelfPolicy) -> Result<Applied, JailError> {
    platform::confine_self(policy)
}

/// Reads the simulation hook: `None` when unset or empty.
fn simulated() -> Option<String> {
    std::env::var(SIMULATE_ENV)
        .ok()
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty() && v != "0")
}
