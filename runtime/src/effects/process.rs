//! `process.*` (§5.6; runtime.md §4; decisions 9, 16, 20, 24, 26).
//!
//! Programs are looked up on `PATH` (the script's view of it, `env.set` included) and started
//! without a shell. Stdout is flushed before every call so output keeps program order (§4.11).
//!
//! When the capability set is receiver-imposed (`--caps`, a run configuration, `--mesh`) every
//! child is **jailed** through `vox_jail` with a policy computed from the capabilities; a host
//! that cannot enforce it refuses the spawn ([`Exc::Unconfinable`], exit 77). Otherwise (the
//! developer default, the legacy directive) children inherit the environment, unconfined, plus
//! what the script set with `env.set` and passed as the `env` argument.
//!
//! Captured children get an empty stdin and their own process group; `run_ex` and `exec` children
//! inherit the three streams and stay in the terminal's group. Under `--timeout` the child (its
//! whole group when it has one) is killed when the run's deadline passes. `--max-output` counts
//! every byte the run writes: captured output once the script prints it, and under the ceiling
//! the stdout and stderr of `run_ex`/`exec` children go through pipes the interpreter counts
//! and passes on ([`pass_on`]; stdin stays the terminal).
//!
//! Run lifetime (decisions 48, 55): before its first spawn the interpreter becomes a child
//! subreaper ([`vox_jail::lifetime`]), and every jailed or background child runs under a keeper
//! ([`vox_jail::lifetime::guard`]; the developer default's others are started directly with
//! SIGKILL as parent-death signal, [`vox_jail::lifetime::spawn_direct`]), so a descendant that leaves its group or session (`setsid`, a
//! double fork, `nohup … &`) is re-parented to its keeper or the interpreter instead of `init`,
//! and dies with the keeper's tree when the interpreter dies. Waits read the program's end from
//! the keeper's line; the line is held until the keeper is reaped or the run ends. When the run is stopped (a ceiling,
//! `--timeout`, SIGINT/SIGTERM) every process it started is killed; when it ends
//! normally, every one but its `spawn_background` children ([`end_run`]). A host without a
//! subreaper refuses jailed spawns like a host without Landlock ([`Exc::Unconfinable`], exit 77)
//! unless the run passed `--unconfined-children`. While the interpreter waits for a child it
//! notices SIGINT/SIGTERM within 100 ms: the signal is forwarded to the child (its group), which
//! gets a short grace period before everything is killed. Under `--mesh` the leftovers of each
//! child are also killed as soon as it ends (decision 24). Exit commands are children like any
//! other: jailed under the same policy ([`run_exit_commands`]).

use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::rc::Rc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use vox_jail::lifetime::{Line, Status};
use vox_jail::{ChildPolicy, EnvPolicy, Mode, ProcessGroup, TempDir};

use super::{err_str, str_list, str_value};
use crate::builtins::data;
use crate::context::RunContext;
use crate::exc::{CeilingKind, Exc, Res};
use crate::value::{Args, Host, VMap, Value};

/// The run's context, with script output flushed: every `process.*` call flushes stdout first,
/// so the program's lines and a child's inherited output appear in program order (§4.11).
fn ctx<'a>(host: &'a mut dyn Host, what: &str) -> Res<&'a mut RunContext> {
    let ctx = super::ctx(host, what)?;
    ctx.flush_stdout();
    Ok(ctx)
}

/// What the child's three streams are connected to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Streams {
    /// Empty stdin, stdout and stderr captured; own process group.
    Capture,
    /// All three inherited; the terminal's process group (`run_ex`, `exec`).
    Inherit,
    /// All three to `/dev/null`; a new session (`spawn_background`): the child outlives the run
    /// and must not hold the run's pipes open (an editor waiting for EOF would hang).
    Background,
    /// `run_ex`/`exec` under `--max-output`: stdin inherited, stdout and stderr through pipes
    /// that the interpreter counts and passes on; the terminal's process group.
    Counted,
}

/// One child to start.
#[derive(Clone)]
struct Spec<'a> {
    program: &'a str,
    argv: Vec<String>,
    /// The working directory, relative to the run's; `None` or `""` means the run's own.
    cwd: Option<&'a str>,
    /// Variables passed by name (the `env` argument of `run_ex`/`run_capture_ex`).
    env: Vec<(String, String)>,
    streams: Streams,
}

impl<'a> Spec<'a> {
    fn new(program: &'a str, argv: Vec<String>, streams: Streams) -> Spec<'a> {
        Spec {
            program,
            argv,
            cwd: None,
            env: Vec::new(),
            streams,
        }
    }
}

/// A finished captured child.
struct Captured {
    code: i64,
    stdout: String,
    stderr: String,
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The program's path: as given (relative to the run's cwd) when it contains `/`, else the first
/// executable match on the script's `PATH`.
fn find_program(ctx: &RunContext, cmd: &str) -> Option<PathBuf> {
    if cmd.is_empty() {
        return None;
    }
    if cmd.contains('/') {
        let p = ctx.cwd.join(cmd);
        return is_executable(&p).then_some(p);
    }
    let path = ctx
        .env_var("PATH")
        .unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".to_string());
    path.split(':')
        .map(|dir| {
            ctx.cwd
                .join(if dir.is_empty() { "." } else { dir })
                .join(cmd)
        })
        .find(|p| is_executable(p))
}

fn timeout_exc(ctx: &RunContext) -> Exc {
    Exc::Ceiling {
        kind: CeilingKind::Timeout,
        limit: ctx.limits.timeout_secs.unwrap_or(0),
        loc: None,
    }
}

/// Builds the command for `spec`: `Ok(Err(msg))` when the program cannot be found. With
/// `keeper` the child is put under a keeper first ([`vox_jail::lifetime::guard`]; its hook must
/// run before the jail's), and the run's end of its line comes back too.
fn command(
    ctx: &mut RunContext,
    spec: &Spec,
    keeper: bool,
) -> Res<Result<(Command, Option<Line>), String>> {
    let Some(program) = find_program(ctx, spec.program) else {
        return Ok(Err(format!("{}: program not found", spec.program)));
    };
    let mut cmd = Command::new(&program);
    cmd.arg0(spec.program).args(&spec.argv);
    cmd.current_dir(match spec.cwd {
        Some(dir) if !dir.is_empty() => ctx.cwd.join(dir),
        _ => ctx.cwd.clone(),
    });
    let group = match spec.streams {
        Streams::Capture => {
            cmd.stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            ProcessGroup::Own
        }
        Streams::Inherit => {
            cmd.stdin(Stdio::inherit())
                .stdout(Stdio::inherit())
                .stderr(Stdio::inherit());
            ProcessGroup::Inherit
        }
        Streams::Counted => {
            cmd.stdin(Stdio::inherit())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            ProcessGroup::Inherit
        }
        Streams::Background => {
            cmd.stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            ProcessGroup::Session
        }
    };
    let jailed = ctx.receiver_imposed() || ctx.mesh;
    let hook = if jailed {
        Some(jail(ctx, spec, &program, group, &mut cmd)?)
    } else {
        for (name, value) in ctx.env_overrides.iter().chain(&spec.env) {
            cmd.env(name, value);
        }
        unconfined(&mut cmd, group, ctx.limits.max_memory, ctx.limits.max_disk)
    };
    if !keeper {
        if let Some(hook) = hook {
            // SAFETY: the hook only makes async-signal-safe syscalls (vox_jail::confine_hook,
            // [`unconfined`]).
            unsafe {
                cmd.pre_exec(hook);
            }
        }
        return Ok(Ok((cmd, None)));
    }
    // The program is executed by the keeper's hook: the same path, arguments and environment
    // the command holds (a jailed command's environment was cleared and set in full).
    let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = if jailed {
        Vec::new()
    } else {
        std::env::vars_os().collect()
    };
    for (k, v) in cmd.get_envs() {
        env.retain(|(name, _)| name.as_os_str() != k);
        if let Some(v) = v {
            env.push((k.to_os_string(), v.to_os_string()));
        }
    }
    let args = std::iter::once(spec.program).chain(spec.argv.iter().map(String::as_str));
    let exec = match vox_jail::lifetime::Exec::new(&program, args, env) {
        Ok(exec) => exec,
        Err(e) => return Ok(Err(format!("{}: {e}", spec.program))),
    };
    match vox_jail::lifetime::guard(&mut cmd, exec, hook) {
        Ok(line) => Ok(Ok((cmd, Some(line)))),
        Err(e) => Ok(Err(format!("{}: cannot keep the child: {e}", spec.program))),
    }
}

/// Confines `cmd` with the policy the capabilities imply (runtime.md §4, decisions 16, 21, 26).
fn jail(
    ctx: &mut RunContext,
    spec: &Spec,
    program: &Path,
    group: ProcessGroup,
    cmd: &mut Command,
) -> Res<vox_jail::Hook> {
    let refuse = |reason: String| Exc::Unconfinable { reason, loc: None };
    if ctx.child_tmp.is_none() {
        let tmp = TempDir::new()
            .map_err(|e| refuse(format!("cannot create the private temp dir: {e}")))?;
        ctx.child_tmp = Some(tmp);
    }
    let temp_dir = match &ctx.child_tmp {
        Some(tmp) => tmp.path().to_path_buf(),
        None => return Err(refuse("no private temp dir".to_string())),
    };
    let caps = &ctx.caps;
    let (read_roots, write_roots): (Vec<PathBuf>, Vec<PathBuf>) = if caps.fs_unscoped() {
        (vec![PathBuf::from("/")], vec![PathBuf::from("/")])
    } else {
        let roots = caps.fs_roots();
        (
            roots.iter().map(|r| r.dir().to_path_buf()).collect(),
            roots
                .iter()
                .filter(|r| r.writable())
                .map(|r| r.dir().to_path_buf())
                .collect(),
        )
    };
    let mut env = EnvPolicy::new();
    for (name, value) in &ctx.env_overrides {
        env = env.set(name, value);
    }
    for (name, value) in &spec.env {
        env = env.pass(name, value);
    }
    // Landlock checks the file actually executed, so grant the directory of the resolved path.
    let real = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    let exec_dir = real.parent().unwrap_or(Path::new("/")).to_path_buf();
    let policy = ChildPolicy::new(read_roots, write_roots, caps.net(), &temp_dir, env)
        .with_exec_path(exec_dir)
        .with_rlimit_data(ctx.limits.max_memory)
        .with_rlimit_fsize(ctx.limits.max_disk)
        .with_process_group(group);
    let mode = if ctx.unconfined_children {
        Mode::Unconfined
    } else {
        Mode::Confined
    };
    let (applied, hook) =
        vox_jail::confine_hook(cmd, &policy, mode).map_err(|e| refuse(e.reason().to_string()))?;
    if ctx.verbose {
        // The shape of the child's environment: names and digests, never values.
        let env = vox_jail::child_env(std::env::vars_os(), &policy.env);
        let fingerprint = vox_jail::env_fingerprint(&env).replace('\n', ", ");
        eprintln!("vox: child {}: {}", spec.program, applied.describe());
        eprintln!("vox: child environment: {fingerprint}");
    }
    Ok(hook)
}

/// The developer default: no jail, but the process group and the memory and file-size limits
/// still apply, so `--timeout` can kill the group and `--max-memory` bounds the child too.
/// Returns what the child must do before `exec` (none when nothing).
fn unconfined(
    cmd: &mut Command,
    group: ProcessGroup,
    data: Option<u64>,
    fsize: Option<u64>,
) -> Option<vox_jail::Hook> {
    if group == ProcessGroup::Own {
        cmd.process_group(0);
    }
    unconfined_hook(group == ProcessGroup::Session, data, fsize)
}

/// What an unconfined child does before `exec`: a new session (a background child), the memory
/// and file-size limits (clamped here, before the fork); none when nothing.
fn unconfined_hook(session: bool, data: Option<u64>, fsize: Option<u64>) -> Option<vox_jail::Hook> {
    let data = data
        .filter(|&v| v > 0)
        .map(|v| clamp_limit(libc::RLIMIT_DATA, v));
    let fsize = fsize
        .filter(|&v| v > 0)
        .map(|v| clamp_limit(libc::RLIMIT_FSIZE, v));
    if !session && data.is_none() && fsize.is_none() {
        return None;
    }
    // The hook only makes async-signal-safe syscalls (setsid, prctl, setrlimit) on values
    // computed before the fork.
    Some(Box::new(move || {
        // SAFETY: plain syscalls on values computed before the fork.
        unsafe {
            if session {
                if libc::setsid() < 0 {
                    return Err(io::Error::last_os_error());
                }
                // A background child keeps what it starts beneath it (decision 48).
                if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if let Some(lim) = data {
                if libc::setrlimit(libc::RLIMIT_DATA, &lim) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if let Some(lim) = fsize {
                if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }))
}

/// A limit of `value` that an unprivileged process may set: never above the current hard limit.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn clamp_limit(resource: libc::__rlimit_resource_t, value: u64) -> libc::rlimit {
    clamp_with(|lim| unsafe { libc::getrlimit(resource, lim) }, value)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn clamp_limit(resource: libc::c_int, value: u64) -> libc::rlimit {
    clamp_with(|lim| unsafe { libc::getrlimit(resource, lim) }, value)
}

fn clamp_with(get: impl FnOnce(*mut libc::rlimit) -> libc::c_int, value: u64) -> libc::rlimit {
    let mut cur = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    if get(&mut cur) != 0 {
        cur.rlim_max = libc::RLIM_INFINITY;
    }
    let v = (value as libc::rlim_t).min(cur.rlim_max);
    libc::rlimit {
        rlim_cur: v,
        rlim_max: v,
    }
}

/// Makes the interpreter a child subreaper before its first spawn (decision 48). A jailed run
/// fails closed when the host cannot do it; the developer default goes on with process groups.
fn bound_lifetime(ctx: &RunContext) -> Res<()> {
    match vox_jail::lifetime::become_subreaper() {
        Ok(()) => Ok(()),
        Err(why) if (ctx.receiver_imposed() || ctx.mesh) && !ctx.unconfined_children => {
            Err(Exc::Unconfinable {
                reason: format!(
                    "this host cannot end the child's processes when the run ends ({why}); run \
                     on Linux 3.4 or newer with /proc mounted, or opt out explicitly with \
                     --unconfined-children"
                ),
                loc: None,
            })
        }
        Err(_) => Ok(()),
    }
}

/// How a started program is held (decision 55).
enum Held {
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
struct Kid {
    held: Held,
    stdout: Option<Box<dyn Read + Send>>,
    stderr: Option<Box<dyn Read + Send>>,
}

impl Kid {
    /// The pid that signals meant for the program go to.
    fn program(&self) -> Option<libc::pid_t> {
        match &self.held {
            Held::Kept { line, .. } => line.program().and_then(|p| libc::pid_t::try_from(p).ok()),
            Held::Direct { pid, .. } => Some(*pid),
        }
    }

    /// The pid of the interpreter's own child (the keeper, or the program itself), which leads
    /// the child's process group when it has one.
    fn leader(&self) -> libc::pid_t {
        match &self.held {
            Held::Kept { child, .. } => libc::pid_t::try_from(child.id()).unwrap_or(0),
            Held::Direct { pid, .. } => *pid,
        }
    }

    /// Waits up to `limit` for the program's end: `None` while it runs.
    fn poll(&mut self, limit: Duration) -> Option<io::Result<ExitStatus>> {
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

    fn running(&mut self) -> bool {
        self.poll(Duration::ZERO).is_none()
    }

    /// Kills the child (a keeper takes its program along by its parent-death signal), and its
    /// whole group when it leads one, and reaps it. What a keeper held is re-parented to the
    /// interpreter and ended with the rest of the run ([`end_all`]).
    fn kill(&mut self, group: bool) {
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
fn spawn(ctx: &mut RunContext, spec: &Spec) -> Res<Result<Kid, String>> {
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
fn spawn_direct(ctx: &mut RunContext, spec: &Spec) -> Res<Result<Kid, String>> {
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
    let hook = unconfined_hook(false, ctx.limits.max_memory, ctx.limits.max_disk);
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
struct PidFd(Option<std::os::fd::OwnedFd>);

impl PidFd {
    fn open(pid: u32) -> PidFd {
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
    fn sleep(&self, limit: Duration, pause: &mut Duration) {
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
fn hold(ctx: &mut RunContext, kid: Kid) {
    if let Held::Kept { line, .. } = kid.held {
        ctx.lines.push(line);
    }
}

/// The exit code; a child killed by signal `n` reports `128 + n`.
fn exit_code(status: ExitStatus) -> i64 {
    match status.code() {
        Some(code) => i64::from(code),
        None => 128 + i64::from(status.signal().unwrap_or(0)),
    }
}

/// How often a wait for a child looks at SIGINT/SIGTERM.
const POLL: Duration = Duration::from_millis(100);
/// How long a child may take to end after a forwarded SIGINT/SIGTERM before it is killed.
const GRACE: Duration = Duration::from_millis(250);

/// Ends every process of the run but the background children of earlier runs: the run is
/// stopped (decision 48).
fn end_all(ctx: &RunContext) {
    vox_jail::lifetime::end_descendants(&ctx.spared);
}

/// Stops the run because SIGINT or SIGTERM arrived while `kid` ran: the signal is forwarded
/// to the program (its group), which gets [`GRACE`] to end; then everything is killed. The
/// keeper ignores both signals.
fn interrupt(ctx: &RunContext, kid: &mut Kid, group: bool, sig: i32) -> Exc {
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
fn wait(ctx: &RunContext, kid: &mut Kid, group: bool) -> Res<io::Result<ExitStatus>> {
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
fn after_child(ctx: &mut RunContext, kid: Kid) {
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
fn reap(ctx: &mut RunContext) {
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

/// Runs a captured child to the end: both pipes are drained on their own threads (a child
/// blocked on a full stderr pipe cannot deadlock us), and the deadline also bounds the drain, in
/// case a grandchild keeps a pipe open.
fn capture(ctx: &mut RunContext, spec: &Spec) -> Res<Result<Captured, String>> {
    let mut kid = match spawn(ctx, spec)? {
        Ok(kid) => kid,
        Err(msg) => return Ok(Err(msg)),
    };
    let (tx, rx) = mpsc::channel::<(usize, Vec<u8>)>();
    let pipes: [Option<Box<dyn Read + Send>>; 2] = [kid.stdout.take(), kid.stderr.take()];
    let mut readers = 0;
    for (i, pipe) in pipes.into_iter().enumerate() {
        let Some(mut pipe) = pipe else { continue };
        let tx = tx.clone();
        let started = std::thread::Builder::new()
            .name("vox-child-pipe".into())
            .spawn(move || {
                let buf = read_within_memory(&mut pipe);
                let _ = tx.send((i, buf));
            });
        if let Err(e) = started {
            kid.kill(true);
            hold(ctx, kid);
            return Ok(Err(format!("{}: {e}", spec.program)));
        }
        readers += 1;
    }
    drop(tx);
    let waited = wait(ctx, &mut kid, true);
    // Before draining: under --mesh a daemonised grandchild holding the pipes is killed.
    after_child(ctx, kid);
    let status = match waited? {
        Ok(status) => status,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let mut out = [Vec::new(), Vec::new()];
    let mut received = 0;
    // A grandchild may hold the pipes open: the call returns when they close, like `$(…)` in a
    // shell. The drain is bounded by the deadline and stopped by SIGINT/SIGTERM like the wait,
    // and the grandchild stays under the keeper, so it ends with the run however it ends.
    while received < readers {
        if !ctx.ending && crate::context::interrupted() {
            end_all(ctx);
            return Err(Exc::Interrupted);
        }
        if crate::alloc::over_limit() {
            end_all(ctx);
            return Err(crate::alloc::ceiling());
        }
        let mut limit = POLL;
        if let Some(deadline) = ctx.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                end_all(ctx);
                return Err(timeout_exc(ctx));
            }
            limit = limit.min(left);
        }
        match rx.recv_timeout(limit) {
            Ok((i, bytes)) => {
                out[i] = bytes;
                received += 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    if crate::alloc::over_limit() {
        return Err(crate::alloc::ceiling());
    }
    let [stdout, stderr] = out;
    // The script's strings are copies: room for them first.
    crate::alloc::reserve(stdout.len() + stderr.len())?;
    Ok(Ok(Captured {
        code: exit_code(status),
        stdout: text(stdout),
        stderr: text(stderr),
    }))
}

/// Bytes as text, without a copy when they are UTF-8.
fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Reads `pipe` to its end, keeping what fits in `--max-memory`: a buffer that would cross it
/// is not grown (the run is marked over its limit, and the waiting call stops it with one
/// message, exit 79); the rest is drained and dropped, so the child never blocks on a full pipe.
fn read_within_memory(pipe: &mut dyn Read) -> Vec<u8> {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 64 << 10];
    let mut keeping = true;
    loop {
        let n = match pipe.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if !keeping {
            continue;
        }
        if buf.capacity() - buf.len() < n {
            let need = buf.len() + n;
            let doubled = need.max(buf.capacity().saturating_mul(2));
            // While a buffer grows, the old and the new one are both live.
            let grown = if crate::alloc::fits(buf.capacity() + doubled) {
                doubled
            } else if crate::alloc::fits(buf.capacity() + need) {
                need
            } else {
                keeping = false;
                buf = Vec::new();
                continue;
            };
            buf.reserve_exact(grown - buf.len());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    buf
}

/// The `env` argument of `run_ex`/`run_capture_ex` (decision 26): a map `{NAME: value}`, or a
/// list (upstream scripts pass `[]`) of `[name, value]` pairs; null or absent is empty.
fn env_arg(args: &Args, index: usize) -> Res<Vec<(String, String)>> {
    let bad = || args.type_error(index, "map of str");
    match args.values.get(index) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Map(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::Str(s) => Ok((k.to_string(), s.to_string())),
                _ => Err(bad()),
            })
            .collect(),
        Some(Value::List(items)) => items
            .iter()
            .map(|pair| match pair {
                Value::List(p) | Value::Tuple(p) => match &p[..] {
                    [Value::Str(k), Value::Str(v)] => Ok((k.to_string(), v.to_string())),
                    _ => Err(bad()),
                },
                _ => Err(bad()),
            })
            .collect(),
        Some(_) => Err(bad()),
    }
}

fn map_value(pairs: [(&str, Value); 3]) -> Value {
    let mut m = VMap::with_capacity(3);
    for (k, v) in pairs {
        m.insert(Rc::from(k), v);
    }
    Value::map(m)
}

/// `process.run(cmd, args)` = `spawn`: `Some({stdout, stderr, code})`, `None` if it could not start.
pub(super) fn run(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let spec = Spec::new(args.str(0)?, str_list(args, 1)?, Streams::Capture);
    let ctx = ctx(host, &args.name)?;
    Ok(match capture(ctx, &spec)? {
        Ok(c) => Value::some(map_value([
            ("stdout", str_value(c.stdout)),
            ("stderr", str_value(c.stderr)),
            ("code", Value::Int(c.code)),
        ])),
        Err(_) => Value::none(),
    })
}

/// `Ok({exit, stdout, stderr})` whatever the exit status; `Err` if it could not start.
fn captured_map(result: Result<Captured, String>) -> Value {
    match result {
        Ok(c) => Value::ok(map_value([
            ("exit", Value::Int(c.code)),
            ("stdout", str_value(c.stdout)),
            ("stderr", str_value(c.stderr)),
        ])),
        Err(msg) => err_str(msg),
    }
}

pub(super) fn run_capture(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let spec = Spec::new(args.str(0)?, str_list(args, 1)?, Streams::Capture);
    let ctx = ctx(host, &args.name)?;
    Ok(captured_map(capture(ctx, &spec)?))
}

/// The `(cmd, args, cwd[, env])` form of `run_ex` and `run_capture_ex`.
fn spec_ex(args: &Args, streams: Streams) -> Res<Spec<'_>> {
    args.arity(3, 4)?;
    let mut spec = Spec::new(args.str(0)?, str_list(args, 1)?, streams);
    spec.cwd = Some(args.str(2)?);
    spec.env = env_arg(args, 3)?;
    Ok(spec)
}

pub(super) fn run_capture_ex(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    let spec = spec_ex(args, Streams::Capture)?;
    let ctx = ctx(host, &args.name)?;
    Ok(captured_map(capture(ctx, &spec)?))
}

pub(super) fn run_capture_lines(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let spec = Spec::new(args.str(0)?, str_list(args, 1)?, Streams::Capture);
    let ctx = ctx(host, &args.name)?;
    Ok(match capture(ctx, &spec)? {
        Ok(c) => Value::ok(Value::list(c.stdout.lines().map(str_value).collect())),
        Err(msg) => err_str(msg),
    })
}

pub(super) fn run_capture_json(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let spec = Spec::new(args.str(0)?, str_list(args, 1)?, Streams::Capture);
    let ctx = ctx(host, &args.name)?;
    let c = match capture(ctx, &spec)? {
        Ok(c) => c,
        Err(msg) => return Ok(err_str(msg)),
    };
    host.reserve(c.stdout.len().saturating_mul(4))?;
    Ok(match data::parse_json_text(host, &c.stdout)? {
        Ok(v) => Value::ok(v),
        Err(why) => err_str(why),
    })
}

/// Runs a child with inherited streams to the end: `Ok(code)` or `Err(msg)` (as values). Under
/// `--max-output` its stdout and stderr go through the interpreter, which counts them
/// ([`pass_on`]).
fn run_inherited(ctx: &mut RunContext, spec: &Spec) -> Res<Result<i64, String>> {
    let mut spec = spec.clone();
    if ctx.limits.max_output.is_some() {
        spec.streams = Streams::Counted;
    }
    let mut kid = match spawn(ctx, &spec)? {
        Ok(kid) => kid,
        Err(msg) => return Ok(Err(msg)),
    };
    if spec.streams == Streams::Counted {
        if let Err(e) = pass_on(ctx, &mut kid) {
            after_child(ctx, kid);
            return Err(e);
        }
    }
    let waited = wait(ctx, &mut kid, false);
    after_child(ctx, kid);
    Ok(match waited? {
        Ok(status) => Ok(exit_code(status)),
        Err(e) => Err(e.to_string()),
    })
}

/// Passes a counted child's output on as it comes, charging it to `--max-output`: past the
/// ceiling the child and everything the run started are killed and the run stops (exit 78).
/// Returns when both pipes are closed; the deadline and SIGINT/SIGTERM stop it as they stop a
/// wait.
fn pass_on(ctx: &mut RunContext, kid: &mut Kid) -> Res<()> {
    // A few chunks in flight at most: a child that outpaces the terminal waits on its pipe.
    let (tx, rx) = mpsc::sync_channel::<(bool, Vec<u8>)>(8);
    let pipes = [(false, kid.stdout.take()), (true, kid.stderr.take())];
    for (to_stderr, pipe) in pipes {
        let Some(mut pipe) = pipe else { continue };
        let tx = tx.clone();
        std::thread::Builder::new()
            .name("vox-child-output".into())
            .spawn(move || {
                let mut chunk = vec![0u8; 64 << 10];
                loop {
                    match pipe.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(n) => {
                            if tx.send((to_stderr, chunk[..n].to_vec())).is_err() {
                                break;
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
            })
            .map_err(|e| Exc::error(format!("cannot read the child's output: {e}")))?;
    }
    drop(tx);
    loop {
        if !ctx.ending {
            if let Some(sig) = crate::context::interrupt_signal() {
                return Err(interrupt(ctx, kid, false, sig));
            }
        }
        let mut limit = POLL;
        if let Some(deadline) = ctx.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                kid.kill(false);
                end_all(ctx);
                return Err(timeout_exc(ctx));
            }
            limit = limit.min(left);
        }
        match rx.recv_timeout(limit) {
            Ok((to_stderr, bytes)) => {
                if let Err(e) = ctx.write_child_output(to_stderr, &bytes) {
                    kid.kill(false);
                    end_all(ctx);
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
        }
    }
}

/// Runs the commands queued with `register_exit_command`, in order, with inherited streams.
/// Each is a child like any other: jailed under the run's policy when the capabilities are
/// receiver-imposed (so it gets the scrubbed environment, the filesystem and network rules and
/// the limits), unconfined otherwise. The run's deadline no longer applies (decision 20: exit
/// commands run after a `--timeout` too; the watchdog still bounds a stuck one), nor does an
/// interruption (they run after exit 130 too). Failures are ignored: the run is over.
pub fn run_exit_commands(ctx: &mut RunContext) {
    ctx.flush_stdout();
    let deadline = ctx.deadline.take();
    let ending = std::mem::replace(&mut ctx.ending, true);
    for (program, argv) in std::mem::take(&mut ctx.exit_commands) {
        let spec = Spec::new(&program, argv, Streams::Inherit);
        let _ = run_inherited(ctx, &spec);
    }
    ctx.ending = ending;
    ctx.deadline = deadline;
}

pub(super) fn run_ex(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    let spec = spec_ex(args, Streams::Inherit)?;
    let ctx = ctx(host, &args.name)?;
    Ok(match run_inherited(ctx, &spec)? {
        Ok(code) => Value::ok(Value::Int(code)),
        Err(msg) => err_str(msg),
    })
}

/// `Ok(pid)`; the child gets a new session and outlives a normal end of the run, with what it
/// starts (it is a child subreaper, so its orphans stay beneath it); a stopped run ends it too
/// (decision 48). Denied under `--mesh` (decision 24): a receiver cannot let a job leave
/// processes behind.
pub(super) fn spawn_background(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let spec = Spec::new(args.str(0)?, str_list(args, 1)?, Streams::Background);
    let ctx = ctx(host, &args.name)?;
    if ctx.mesh {
        return Err(Exc::Denied {
            what: args.name.clone(),
            token: "not available under --mesh (the child would outlive the job)".to_string(),
            loc: None,
        });
    }
    Ok(match spawn(ctx, &spec)? {
        // The handle is dropped without waiting: the child is on its own under its keeper, which
        // is recorded so that a normal end of the run spares and releases it.
        Ok(kid) => {
            let pid = kid.program().unwrap_or(kid.leader());
            ctx.background
                .push(u32::try_from(kid.leader()).unwrap_or(0));
            hold(ctx, kid);
            Value::ok(Value::Int(i64::from(pid)))
        }
        Err(msg) => err_str(msg),
    })
}

/// Replaces the interpreter with the program (returning only on failure, as `Err(msg)`), unless
/// something must still happen after the child: a deadline, an output budget, an audit log,
/// exit commands, mesh mode, a jail (a multi-threaded interpreter cannot enter the child's
/// namespaces itself), or earlier children to end with the run (decision 48). Then the child
/// runs with inherited streams and the run exits with its code (decision 24).
pub(super) fn exec(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let spec = Spec::new(args.str(0)?, str_list(args, 1)?, Streams::Inherit);
    let ctx = ctx(host, &args.name)?;
    let run_instead = ctx.deadline.is_some()
        || ctx.limits.timeout_secs.is_some()
        || ctx.limits.max_output.is_some()
        || ctx.audit.is_some()
        || !ctx.exit_commands.is_empty()
        || ctx.mesh
        || ctx.children_started
        || ctx.receiver_imposed();
    if run_instead {
        return match run_inherited(ctx, &spec)? {
            Ok(code) => Err(Exc::Exit(i32::try_from(code).unwrap_or(255))),
            Err(msg) => Ok(err_str(msg)),
        };
    }
    ctx.flush_stdout();
    let mut cmd = match command(ctx, &spec, false)? {
        Ok((cmd, _)) => cmd,
        Err(msg) => return Ok(err_str(msg)),
    };
    let e = cmd.exec();
    Ok(err_str(format!("{}: {e}", spec.program)))
}

/// Queues a command for the end of the run (exceptions in decision 20). The capability was
/// checked now, at queue time.
pub(super) fn register_exit_command(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let program = args.str(0)?.to_string();
    let argv = str_list(args, 1)?;
    ctx(host, &args.name)?.exit_commands.push((program, argv));
    Ok(Value::ok(Value::Null))
}

/// Never returns: unwinds with [`Exc::Exit`]; the runner flushes, runs the exit commands and
/// exits. Needs no capability (decision 9).
pub(super) fn exit(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let code = args.int(0)?;
    if !(0..=255).contains(&code) {
        return Err(Exc::error("process.exit: code out of range"));
    }
    if let Some(ctx) = host.ctx() {
        ctx.flush_stdout();
    }
    Err(Exc::Exit(code as i32))
}

pub(super) fn cwd(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(0, 0)?;
    Ok(super::fs::cwd_text(ctx(host, &args.name)?))
}

pub(super) fn which(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let cmd = args.str(0)?;
    let ctx = ctx(host, &args.name)?;
    Ok(match find_program(ctx, cmd) {
        Some(p) => Value::some(str_value(p.to_string_lossy())),
        None => Value::none(),
    })
}
