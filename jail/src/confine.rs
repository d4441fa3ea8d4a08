//! The entry points that confine (a child's [`Command`], its between-fork-and-exec hook, the
//! calling process) and the probe, each handed to this platform's implementation (`linux.rs`, or
//! `unsupported.rs` elsewhere).

use std::process::Command;

use crate::host::HostSupport;
#[cfg(target_os = "linux")]
use crate::linux as platform;
use crate::policy::{ChildPolicy, SelfPolicy};
use crate::types::{Applied, Hook, JailError, Mode};
#[cfg(not(target_os = "linux"))]
use crate::unsupported as platform;

/// Probes what this host can enforce: the Landlock ABI, its rule kinds, user namespaces.
///
/// Honours the `VOX_JAIL_SIMULATE_UNSUPPORTED` testing hook (see the crate docs).
pub fn probe() -> HostSupport {
    platform::probe()
}

/// Makes `cmd` spawn its child under `policy`.
///
/// Replaces the command's environment with [`child_env`](crate::child_env) of this process's environment (so set
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
