//! The children of a run: spawning (under a keeper or directly), waiting with the deadline and
//! signals in view, holding and reaping them, and ending them with the run ([`end_run`]).

use std::io::{self, Read};
use std::os::unix::process::ExitStatusExt as _;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use vox_jail::lifetime::{Line, Status};

use super::command::{
    bound_lifetime, command, find_program, timeout_exc, unconfined_hook, with_kernel_defaults,
    Spec, Streams,
};
use crate::context::RunContext;
use crate::exc::{Exc, Res};

/// How a started program is held (decision 55).
pub(super) enum Held {
    /// Under a keeper (the `Child`, a direct child of the interpreter), whose line reports the
    /// program's pid and end: every jailed child, and background children.
    Kept { child: Child, line: Line },
    /// A direct child with the parent-death signal: the developer default's ordinary children
    /// (started as cheaply as `posix_spawn` does; [`vox_jail::lifetime::spawn_direct`]).
    Direct {
        pid: libc::pid_t,
        pidfd: PidFd,
        pause: Duration,
        status: Option<ExitStatus>,
    },
}

/// A started child and its piped output.
pub(super) struct Kid {
    pub(super) held: Held,
    pub(super) stdout: Option<Box<dyn Read + Send>>,
    pub(super) stderr: Option<Box<dyn Read + Send>>,
}

impl Kid {
    /// The pid that signals meant for the program go to.
    pub(super) fn program(&self) -> Option<libc::pid_t> {
        match &self.held {
            Held::Kept { line, .. } => line.program().and_then(|p| libc::pid_t::try_from(p).ok()),
            Held::Direct { pid, .. } => Some(*pid),
        }
    }

    /// The pid of the interpreter's own child (the keeper, or the program itself), which leads
    /// the child's process group when it has one.
    pub(super) fn leader(&self) -> libc::pid_t {
        match &self.held {
            Held::Kept { child, .. } => libc::pid_t::try_from(child.id()).unwrap_or(0),
            Held::Direct { pid, .. } => *pid,
        }
    }

    /// Waits up to `limit` for the program's end: `None` while it runs.
    pub(super) fn poll(&mut self, limit: Duration) -> Option<io::Result<ExitStatus>> {
        match &mut self.held {
            Held::Kept { child, line } => match line.poll_status(limit) {
                Status::Running => None,
                Status::Ended(st) => Some(Ok(ExitStatus::from_raw(st))),
                // The keeper was killed (with its program): its own status says how.
                Status::Lost => Some(child.wait()),
            },
            Held::Direct {
                pid,
                pidfd,
                pause,
                status,
            } => {
                for round in 0..2 {
                    if let Some(st) = status {
                        return Some(Ok(*st));
                    }
                    let mut st = 0;
                    // SAFETY: a non-blocking wait for our own child.
                    let r = unsafe { libc::waitpid(*pid, &mut st, libc::WNOHANG | libc::__WALL) };
                    if r == *pid {
                        *status = Some(ExitStatus::from_raw(st));
                        continue;
                    }
                    if r < 0 {
                        return Some(Err(io::Error::last_os_error()));
                    }
                    if round == 0 {
                        pidfd.sleep(limit, pause);
                    }
                }
                None
            }
        }
    }

    pub(super) fn running(&mut self) -> bool {
        self.poll(Duration::ZERO).is_none()
    }

    /// Kills the child (a keeper takes its program along by its parent-death signal), and its
    /// whole group when it leads one, and reaps it. What a keeper held is re-parented to the
    /// interpreter and ended with the rest of the run ([`end_all`]).
    pub(super) fn kill(&mut self, group: bool) {
        match &mut self.held {
            Held::Kept { child, .. } => {
                // Only while the keeper is unreaped is its pid (and so its group id) still ours
                // to signal.
                if group && matches!(child.try_wait(), Ok(None)) {
                    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
                        // SAFETY: plain syscall on the group our unreaped child leads.
                        unsafe {
                            libc::kill(-pid, libc::SIGKILL);
                        }
                    }
                }
                let _ = child.kill();
                let _ = child.wait();
            }
            Held::Direct { pid, status, .. } => {
                if status.is_some() {
                    return;
                }
                let mut st = 0;
                // SAFETY: our own unreaped child and the group it may lead.
                unsafe {
                    if group {
                        libc::kill(-*pid, libc::SIGKILL);
                    }
                    libc::kill(*pid, libc::SIGKILL);
                    while libc::waitpid(*pid, &mut st, libc::__WALL) < 0
                        && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
                    {
                    }
                }
                *status = Some(ExitStatus::from_raw(st));
            }
        }
    }
}

/// Starts the child: `Ok(Err(msg))` when it could not start. Jailed and background children go
/// under a keeper; the developer default's others are started directly.
pub(super) fn spawn(ctx: &mut RunContext, spec: &Spec) -> Res<Result<Kid, String>> {
    ctx.flush_stdout();
    let jailed = ctx.receiver_imposed() || ctx.mesh;
    if !jailed && spec.streams != Streams::Background {
        return spawn_direct(ctx, spec);
    }
    let (mut cmd, line) = match command(ctx, spec, true)? {
        Ok((cmd, Some(line))) => (cmd, line),
        Ok((_, None)) => return Ok(Err(format!("{}: no keeper", spec.program))),
        Err(msg) => return Ok(Err(msg)),
    };
    bound_lifetime(ctx)?;
    // From here on `process.exec` no longer replaces the interpreter: the run has processes to
    // end when it ends.
    ctx.children_started = true;
    let mut line = line;
    match cmd.spawn() {
        Ok(mut child) => {
            line.started(child.id());
            let stdout = child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>);
            let stderr = child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>);
            Ok(Ok(Kid {
                held: Held::Kept { child, line },
                stdout,
                stderr,
            }))
        }
        Err(e) => Ok(Err(format!("{}: {e}", spec.program))),
    }
}

/// Starts a developer-default child directly ([`Held::Direct`]).
pub(super) fn spawn_direct(ctx: &mut RunContext, spec: &Spec) -> Res<Result<Kid, String>> {
    use vox_jail::lifetime::Stream;
    let Some(program) = find_program(ctx, spec.program) else {
        return Ok(Err(format!("{}: program not found", spec.program)));
    };
    let cwd = match spec.cwd {
        Some(dir) if !dir.is_empty() => ctx.cwd.join(dir),
        _ => ctx.cwd.clone(),
    };
    let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os().collect();
    for (name, value) in ctx.env_overrides.iter().chain(&spec.env) {
        env.retain(|(k, _)| k.as_os_str() != name.as_str());
        env.push((name.into(), value.into()));
    }
    let args = std::iter::once(spec.program).chain(spec.argv.iter().map(String::as_str));
    let exec = match vox_jail::lifetime::Exec::new(&program, args, env) {
        Ok(exec) => exec,
        Err(e) => return Ok(Err(format!("{}: {e}", spec.program))),
    };
    let (streams, group) = match spec.streams {
        Streams::Capture => ([Stream::Null, Stream::Pipe, Stream::Pipe], true),
        Streams::Inherit => ([Stream::Inherit; 3], false),
        Streams::Counted => ([Stream::Inherit, Stream::Pipe, Stream::Pipe], false),
        Streams::Background => ([Stream::Null; 3], false),
    };
    let hook = with_kernel_defaults(unconfined_hook(
        false,
        ctx.limits.max_memory,
        ctx.limits.max_disk,
    ));
    bound_lifetime(ctx)?;
    ctx.children_started = true;
    match vox_jail::lifetime::spawn_direct(&exec, &cwd, streams, group, hook) {
        Ok(d) => {
            let pid = libc::pid_t::try_from(d.pid).unwrap_or(0);
            Ok(Ok(Kid {
                held: Held::Direct {
                    pid,
                    pidfd: PidFd::open(d.pid),
                    pause: Duration::from_millis(1),
                    status: None,
                },
                stdout: d.stdout.map(|p| Box::new(p) as Box<dyn Read + Send>),
                stderr: d.stderr.map(|p| Box::new(p) as Box<dyn Read + Send>),
            }))
        }
        Err(e) => Ok(Err(format!("{}: {e}", spec.program))),
    }
}

/// A pidfd for a direct child: readable once it has exited, so a wait can sleep in `poll` and
/// still wake up for signals and the deadline. `None` on kernels without `pidfd_open` (before
/// 5.3): the wait then sleeps in short steps.
pub(super) struct PidFd(Option<std::os::fd::OwnedFd>);

impl PidFd {
    pub(super) fn open(pid: u32) -> PidFd {
        use std::os::fd::FromRawFd as _;
        // SAFETY: pidfd_open on our own unreaped child; the result is a new fd we own.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        PidFd(
            libc::c_int::try_from(fd)
                .ok()
                .filter(|&fd| fd >= 0)
                .map(|fd| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }),
        )
    }

    /// Sleeps until the child exits or `limit` passes; `pause` grows the fallback's steps.
    pub(super) fn sleep(&self, limit: Duration, pause: &mut Duration) {
        use std::os::fd::AsRawFd as _;
        match &self.0 {
            Some(fd) => {
                let mut p = libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                let ms = libc::c_int::try_from(limit.as_millis()).unwrap_or(i32::MAX);
                // SAFETY: one pollfd on the stack.
                unsafe {
                    libc::poll(&mut p, 1, ms);
                }
            }
            None => {
                std::thread::sleep((*pause).min(limit));
                *pause = (*pause * 2).min(Duration::from_millis(20));
            }
        }
    }
}

/// Keeps the line of a kept child whose call is over: its keeper may still hold processes the
/// program left, which must end with the run however it ends.
pub(super) fn hold(ctx: &mut RunContext, kid: Kid) {
    if let Held::Kept { line, .. } = kid.held {
        ctx.lines.push(line);
    }
}

/// The exit code; a child killed by signal `n` reports `128 + n`.
pub(super) fn exit_code(status: ExitStatus) -> i64 {
    match status.code() {
        Some(code) => i64::from(code),
        None => 128 + i64::from(status.signal().unwrap_or(0)),
    }
}

/// How often a wait for a child looks at SIGINT/SIGTERM.
pub(super) const POLL: Duration = Duration::from_millis(100);
/// How long a child may take to end after a forwarded SIGINT/SIGTERM before it is killed.
pub(super) const GRACE: Duration = Duration::from_millis(250);

/// Ends every process of the run but the background children of earlier runs: the run is
/// stopped (decision 48).
pub(super) fn end_all(ctx: &RunContext) {
    vox_jail::lifetime::end_descendants(&ctx.spared);
}

/// Stops the run because SIGINT or SIGTERM arrived while `kid` ran: the signal is forwarded
/// to the program (its group), which gets [`GRACE`] to end; then everything is killed. The
/// keeper ignores both signals.
pub(super) fn interrupt(ctx: &RunContext, kid: &mut Kid, group: bool, sig: i32) -> Exc {
    if kid.running() {
        // SAFETY: plain syscalls on our unreaped child's group and on the program, which cannot
        // be reaped (and its pid reused) before its end was reported.
        unsafe {
            if group {
                libc::kill(-kid.leader(), sig);
            }
            if let Some(p) = kid.program() {
                libc::kill(p, sig);
                // A jailed captured program leads a session (and group) of its own.
                if group {
                    libc::kill(-p, sig);
                }
            }
        }
    }
    let until = Instant::now() + GRACE;
    loop {
        let now = Instant::now();
        if now >= until || kid.poll(until - now).is_some() {
            break;
        }
    }
    kid.kill(group);
    end_all(ctx);
    Exc::Interrupted
}

/// Waits for the program (its keeper reports its end). Past the run's deadline it is killed
/// with every other process of the run and the run stops with the `--timeout` ceiling; on
/// SIGINT/SIGTERM likewise, with exit 130 ([`interrupt`]).
pub(super) fn wait(ctx: &RunContext, kid: &mut Kid, group: bool) -> Res<io::Result<ExitStatus>> {
    loop {
        if !ctx.ending {
            if let Some(sig) = crate::context::interrupt_signal() {
                return Err(interrupt(ctx, kid, group, sig));
            }
        }
        let now = Instant::now();
        let mut limit = POLL;
        if let Some(deadline) = ctx.deadline {
            if now >= deadline {
                kid.kill(group);
                end_all(ctx);
                return Err(timeout_exc(ctx));
            }
            limit = limit.min(deadline - now);
        }
        if let Some(status) = kid.poll(limit) {
            return Ok(status);
        }
        // A capture that would cross --max-memory stopped keeping the child's output.
        if crate::alloc::over_limit() {
            kid.kill(group);
            end_all(ctx);
            return Err(crate::alloc::ceiling());
        }
    }
}

/// After a child ended: reaps the descendants that exited meanwhile (orphans come back to the
/// interpreter as zombies, keepers exit once their tree is empty) and, under `--mesh`, kills
/// what the child left running (decision 24: nothing outlives the call).
pub(super) fn after_child(ctx: &mut RunContext, kid: Kid) {
    // A keeper that reported an empty tree is exiting on its own: nothing to end there.
    let exiting = match &kid.held {
        Held::Kept { child, line } if line.tree_empty() => Some(child.id()),
        _ => None,
    };
    hold(ctx, kid);
    if ctx.mesh {
        let mut spare = ctx.spared.clone();
        spare.extend(exiting);
        vox_jail::lifetime::end_descendants(&spare);
    }
    reap(ctx);
}

/// Reaps the run's exited descendants, forgetting background children among them (so that a
/// recycled pid is never spared) and the lines of keepers that are gone.
pub(super) fn reap(ctx: &mut RunContext) {
    let (background, spared, lines) = (&mut ctx.background, &mut ctx.spared, &mut ctx.lines);
    vox_jail::lifetime::reap_exited(|pid| {
        background.retain(|&p| p != pid);
        spared.retain(|&p| p != pid);
        lines.retain(|l| l.keeper() != pid);
    });
}

/// Ends the run's processes (decisions 48, 55): all of them when the run was `stopped` (a
/// ceiling, `--timeout`, SIGINT/SIGTERM), all but its `spawn_background` children (with what
/// they started) when it ended normally: their keepers are released, so that their trees
/// outlive the interpreter too. Background children of earlier runs in this process
/// ([`RunContext::spared`]) are left alone. Call it when the run is over, after its exit
/// commands, and when it is stopped also before them.
pub fn end_run(ctx: &mut RunContext, stopped: bool) {
    if !ctx.children_started {
        return;
    }
    let mut spare = ctx.spared.clone();
    if !stopped {
        spare.extend_from_slice(&ctx.background);
        for line in &ctx.lines {
            if ctx.background.contains(&line.keeper()) {
                line.release();
            }
        }
    }
    vox_jail::lifetime::end_descendants(&spare);
    if stopped {
        ctx.background.clear();
    }
    reap(ctx);
    ctx.lines.clear();
}
