//! Building a child's `Command` for `process.*`: the program looked up on `PATH`, its streams,
//! the jail policy computed from the capabilities (or the unconfined setup), resource limits and
//! the run-lifetime bound (see `process.rs` for the whole story).

use std::io;
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use vox_jail::lifetime::Line;
use vox_jail::{ChildPolicy, Denies, EnvPolicy, Mode, ProcessGroup, TempDir};

use crate::context::RunContext;
use crate::exc::{CeilingKind, Exc, Res};

/// Whether this process turned transparent huge pages off for itself (`vox run`: see
/// cli/src/memory.rs). The setting is inherited, so each child then turns them back on before
/// `exec`: a script's programs get the kernel's default, as from a shell.
static RESTORE_HUGE_PAGES: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Declares that this process turned transparent huge pages off for itself (see
/// [`RESTORE_HUGE_PAGES`]). Called before any child starts.
pub fn restore_huge_pages_in_children() {
    RESTORE_HUGE_PAGES.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// `hook`, preceded (when this process turned huge pages off) by turning them back on: first,
/// before a jail's seccomp filter could refuse the `prctl`.
pub(super) fn with_kernel_defaults(hook: Option<vox_jail::Hook>) -> Option<vox_jail::Hook> {
    if !RESTORE_HUGE_PAGES.load(std::sync::atomic::Ordering::Relaxed) {
        return hook;
    }
    let mut hook = hook;
    Some(Box::new(move || {
        // SAFETY: a plain prctl in the child; a failure (an old kernel) leaves the setting as
        // it was, which is harmless.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
        }
        match hook.as_mut() {
            Some(h) => h(),
            None => Ok(()),
        }
    }))
}

/// What the child's three streams are connected to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Streams {
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
pub(super) struct Spec<'a> {
    /// The builtin that starts it (`process.run`), for a denial.
    pub(super) what: &'a str,
    pub(super) program: &'a str,
    pub(super) argv: Vec<String>,
    /// The working directory, relative to the run's; `None` or `""` means the run's own.
    pub(super) cwd: Option<&'a str>,
    /// Variables passed by name (the `env` argument of `run_ex`/`run_capture_ex`).
    pub(super) env: Vec<(String, String)>,
    pub(super) streams: Streams,
}

impl<'a> Spec<'a> {
    pub(super) fn new(
        what: &'a str,
        program: &'a str,
        argv: Vec<String>,
        streams: Streams,
    ) -> Spec<'a> {
        Spec {
            what,
            program,
            argv,
            cwd: None,
            env: Vec::new(),
            streams,
        }
    }
}

pub(super) fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The program's path: as given (relative to the run's cwd) when it contains `/`, else the first
/// executable match on the script's `PATH`.
pub(super) fn find_program(ctx: &RunContext, cmd: &str) -> Option<PathBuf> {
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

pub(super) fn timeout_exc(ctx: &RunContext) -> Exc {
    Exc::Ceiling {
        kind: CeilingKind::Timeout,
        limit: ctx.limits.timeout_secs.unwrap_or(0),
        loc: None,
    }
}

/// Builds the command for `spec`: `Ok(Err(msg))` when the program cannot be found. With
/// `keeper` the child is put under a keeper first ([`vox_jail::lifetime::guard`]; its hook must
/// run before the jail's), and the run's end of its line comes back too.
pub(super) fn command(
    ctx: &mut RunContext,
    spec: &Spec,
    keeper: bool,
) -> Res<Result<(Command, Option<Line>), String>> {
    let Some(program) = find_program(ctx, spec.program) else {
        return Ok(Err(format!("{}: program not found", spec.program)));
    };
    // `exec:none=`: the program itself may not be executed (the jail refuses it too, and what
    // the program starts in turn).
    let real = std::fs::canonicalize(&program).unwrap_or_else(|_| program.clone());
    if let Some(denied) = ctx.caps.exec_denied(&real) {
        return Err(Exc::Denied {
            what: spec.what.to_string(),
            token: format!(
                "{} lies in --caps exec:none={}: children may read it but not execute it",
                real.display(),
                denied.display()
            ),
            loc: None,
        });
    }
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
    let hook = with_kernel_defaults(hook);
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
pub(super) fn jail(
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
        .with_denies(run_denies(caps))
        .with_listen_ports(caps.listen_ports())
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

/// The denies of the capabilities, for the children's mount namespace: read-only subtrees of
/// writable roots, `fs:none=` and `exec:none=` paths.
pub fn run_denies(caps: &vox_caps::CapSet) -> Denies {
    Denies {
        write: caps.read_only_within(),
        read: caps
            .fs_denied()
            .into_iter()
            .map(Path::to_path_buf)
            .collect(),
        exec: caps.exec_denied_paths().to_vec(),
    }
}

/// The developer default: no jail, but the process group and the memory and file-size limits
/// still apply, so `--timeout` can kill the group and `--max-memory` bounds the child too.
/// Returns what the child must do before `exec` (none when nothing).
pub(super) fn unconfined(
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
pub(super) fn unconfined_hook(
    session: bool,
    data: Option<u64>,
    fsize: Option<u64>,
) -> Option<vox_jail::Hook> {
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
pub(super) fn clamp_limit(resource: libc::__rlimit_resource_t, value: u64) -> libc::rlimit {
    clamp_with(|lim| unsafe { libc::getrlimit(resource, lim) }, value)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(super) fn clamp_limit(resource: libc::c_int, value: u64) -> libc::rlimit {
    clamp_with(|lim| unsafe { libc::getrlimit(resource, lim) }, value)
}

pub(super) fn clamp_with(
    get: impl FnOnce(*mut libc::rlimit) -> libc::c_int,
    value: u64,
) -> libc::rlimit {
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
pub(super) fn bound_lifetime(ctx: &RunContext) -> Res<()> {
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
