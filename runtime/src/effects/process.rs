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
//! normally, every one but its `spawn_background` children ([`end_run`](super::children::end_run)). A host without a
//! subreaper refuses jailed spawns like a host without Landlock ([`Exc::Unconfinable`], exit 77)
//! unless the run passed `--unconfined-children`. While the interpreter waits for a child it
//! notices SIGINT/SIGTERM within 100 ms: the signal is forwarded to the child (its group), which
//! gets a short grace period before everything is killed. Under `--mesh` the leftovers of each
//! child are also killed as soon as it ends (decision 24). Exit commands are children like any
//! other: jailed under the same policy ([`run_exit_commands`]).

use std::io::{self, Read};
use std::os::unix::process::CommandExt as _;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::Instant;

use super::base::{err_str, str_list, str_value};
use super::children::{after_child, end_all, exit_code, hold, interrupt, spawn, wait, Kid, POLL};
use super::command::{command, find_program, timeout_exc, Spec, Streams};
use super::refusal;
use crate::builtins::data;
use crate::context::RunContext;
use crate::exc::{Exc, Res};
use crate::value::{Args, Host, VMap, Value};

/// The run's context, with script output flushed: every `process.*` call flushes stdout first,
/// so the program's lines and a child's inherited output appear in program order (§4.11).
fn ctx<'a>(host: &'a mut dyn Host, what: &str) -> Res<&'a mut RunContext> {
    let ctx = super::base::ctx(host, what)?;
    ctx.flush_stdout();
    Ok(ctx)
}

/// A finished captured child.
struct Captured {
    code: i64,
    stdout: String,
    stderr: String,
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
    let captured = Captured {
        code: exit_code(status),
        stdout: text(stdout),
        stderr: text(stderr),
    };
    explain_refusal(ctx, spec, &captured);
    Ok(Ok(captured))
}

/// One line on stderr when a jailed child failed on a path the jail refused
/// ([`refusal::explain`]).
fn explain_refusal(ctx: &mut RunContext, spec: &Spec, c: &Captured) {
    let jailed = (ctx.receiver_imposed() || ctx.mesh) && !ctx.unconfined_children;
    if !jailed || c.code == 0 {
        return;
    }
    let cwd = match spec.cwd {
        Some(dir) if !dir.is_empty() => ctx.cwd.join(dir),
        _ => ctx.cwd.clone(),
    };
    let temp = ctx.child_tmp.as_ref().map(|t| t.path().to_path_buf());
    let found = refusal::explain(
        &ctx.caps,
        spec.program,
        &cwd,
        temp.as_deref(),
        c.code,
        &c.stderr,
    );
    if let Some(refusal) = found {
        // The token that would grant it, for the editor's quick fix (none when a deny decided).
        let extra: Vec<(&str, String)> = refusal.token.into_iter().map(|t| ("token", t)).collect();
        ctx.notice_event("jail.refused", &refusal.line, &extra);
    }
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
    let spec = Spec::new(
        &args.name,
        args.str(0)?,
        str_list(args, 1)?,
        Streams::Capture,
    );
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
    let spec = Spec::new(
        &args.name,
        args.str(0)?,
        str_list(args, 1)?,
        Streams::Capture,
    );
    let ctx = ctx(host, &args.name)?;
    Ok(captured_map(capture(ctx, &spec)?))
}

/// The `(cmd, args, cwd[, env])` form of `run_ex` and `run_capture_ex`.
fn spec_ex(args: &Args, streams: Streams) -> Res<Spec<'_>> {
    args.arity(3, 4)?;
    let mut spec = Spec::new(&args.name, args.str(0)?, str_list(args, 1)?, streams);
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
    let spec = Spec::new(
        &args.name,
        args.str(0)?,
        str_list(args, 1)?,
        Streams::Capture,
    );
    let ctx = ctx(host, &args.name)?;
    Ok(match capture(ctx, &spec)? {
        Ok(c) => Value::ok(Value::list(c.stdout.lines().map(str_value).collect())),
        Err(msg) => err_str(msg),
    })
}

pub(super) fn run_capture_json(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let spec = Spec::new(
        &args.name,
        args.str(0)?,
        str_list(args, 1)?,
        Streams::Capture,
    );
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
        let spec = Spec::new(
            "process.register_exit_command",
            &program,
            argv,
            Streams::Inherit,
        );
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
    let spec = Spec::new(
        &args.name,
        args.str(0)?,
        str_list(args, 1)?,
        Streams::Background,
    );
    let ctx = ctx(host, &args.name)?;
    if ctx.mesh {
        return Err(Exc::Denied {
            what: args.name.to_string(),
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
    let spec = Spec::new(
        &args.name,
        args.str(0)?,
        str_list(args, 1)?,
        Streams::Inherit,
    );
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
