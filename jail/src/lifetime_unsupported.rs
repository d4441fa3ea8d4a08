//! Run lifetime on platforms without a child subreaper: nothing can bound a run's processes, so
//! jailed spawns are refused (fail closed) and the rest is best effort (process groups only).

/// What this host offers to bound a run's lifetime ([`support`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifetimeSupport {
    /// `Ok(how children are listed)` when a subreaper can end every descendant; `Err(why not)`.
    pub subreaper: Result<String, String>,
    /// A cgroup v2 hierarchy with `cgroup.kill` (never, off Linux).
    pub cgroup_kill: Option<String>,
}

const REASON: &str = "ending a run's processes with it needs a Linux child subreaper; this \
                      platform is not supported";

pub fn keep(_pid: u32) {}

pub fn unkeep(_pid: u32) {}

pub fn become_subreaper() -> Result<(), String> {
    Err(REASON.to_string())
}

pub fn is_subreaper() -> bool {
    false
}

pub fn support() -> LifetimeSupport {
    LifetimeSupport {
        subreaper: Err(REASON.to_string()),
        cgroup_kill: None,
    }
}

pub fn end_descendants(_spare: &[u32]) -> usize {
    0
}

pub fn reap_exited(_on_reaped: impl FnMut(u32)) {}

/// What [`Line::poll_status`] found (see the Linux module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Running,
    Ended(i32),
    Lost,
}

/// No keeper off Linux: [`guard`] always fails.
#[derive(Debug)]
pub struct Line(());

impl Line {
    pub fn keeper(&self) -> u32 {
        0
    }

    pub fn program(&self) -> Option<u32> {
        None
    }

    pub fn started(&mut self, _keeper: u32) {}

    pub fn poll_status(&mut self, _limit: std::time::Duration) -> Status {
        Status::Lost
    }

    pub fn release(&self) {}

    pub fn tree_empty(&self) -> bool {
        false
    }
}

pub fn guard(
    _cmd: &mut std::process::Command,
    _exec: Exec,
    _then: Option<crate::types::Hook>,
) -> std::io::Result<Line> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, REASON))
}

/// A program to execute (unused off Linux: [`guard`] fails).
pub struct Exec(());

impl Exec {
    pub fn new<A, K, V>(
        _path: &std::path::Path,
        _args: impl IntoIterator<Item = A>,
        _env: impl IntoIterator<Item = (K, V)>,
    ) -> std::io::Result<Exec>
    where
        A: AsRef<std::ffi::OsStr>,
        K: AsRef<std::ffi::OsStr>,
        V: AsRef<std::ffi::OsStr>,
    {
        Ok(Exec(()))
    }
}

pub use crate::spawned::{Direct, Stream};

pub fn spawn_direct(
    _exec: &Exec,
    _cwd: &std::path::Path,
    _streams: [Stream; 3],
    _group: bool,
    _then: Option<crate::types::Hook>,
) -> std::io::Result<Direct> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, REASON))
}
