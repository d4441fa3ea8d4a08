//! `vox run` and `vox test`: choose the capability set, load the program, run it under the
//! ceilings, and map the outcome to the exit codes and messages of runtime.md §3.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use vox_caps::CapSet;
use vox_runtime::context::{CapsSource, Limits, RunContext, Sink};
use vox_runtime::eval::Interp;
use vox_runtime::exc::{CeilingKind, Exc, Loc, QuotaKind};
use vox_runtime::program::{self, LoadError, Program};

/// What a run over a ceiling prints (after `vox: `), naming the flag that set it: the same words
/// for `vox run` and for a `vox test` case.
pub(crate) fn ceiling_message(kind: CeilingKind, limit: u64) -> String {
    let flag = match kind {
        CeilingKind::Steps => "--max-steps",
        CeilingKind::Depth => "--max-depth",
        CeilingKind::Output => "--max-output",
        CeilingKind::Timeout => "--timeout",
        CeilingKind::Memory => "--max-memory",
        CeilingKind::HostStack => {
            return format!("execution budget exceeded: host stack limit ({limit} nested calls)")
        }
    };
    if kind == CeilingKind::Memory {
        format!("memory limit exceeded: {flag} {limit}")
    } else {
        format!("execution budget exceeded: {flag} {limit}")
    }
}

/// Flags shared by `vox run` and `vox test`.
#[derive(clap::Args, Clone, Debug)]
pub struct RunFlags {
    /// Grant one capability token (repeatable); a namespace no token mentions is denied.
    ///
    /// fs:ro=DIR, fs:rw=DIR (read, or read and write, under DIR); net:none, net:allow (http: is
    /// an alias); process:none, process:allow; env:none, env:ro, env:rw; secrets:none,
    /// secrets:allow; time:real, time:frozen=MS; random:seed=N, random:deny; agentos:none,
    /// agentos:allow; deterministic (time:frozen=0 random:seed=0 process:none net:none
    /// env:none); none (nothing).
    ///
    /// Narrow a root: fs:ro=DIR (read-only inside an fs:rw root), fs:none=PATH (neither read
    /// nor written), exec:none=PATH (children may not execute it); the most specific path
    /// decides. net:listen=PORT lets children accept TCP connections on PORT. See docs/caps.md.
    #[arg(long = "caps", value_name = "TOKEN")]
    pub caps: Vec<String>,
    /// Run with the named `[run.NAME]` entry of Vox.toml (its caps, cwd, ceilings and args).
    #[arg(long, value_name = "NAME", conflicts_with = "caps")]
    pub config: Option<String>,
    /// Refuse to run unless capabilities are given explicitly.
    #[arg(long)]
    pub require_caps: bool,
    /// Receiver mode: --caps mandatory, --max-disk 32MiB and --max-files 4096 by default, children jailed.
    #[arg(long)]
    pub mesh: bool,
    /// Evaluated expressions and statements [default: 10000000] (0 = unlimited).
    #[arg(long, value_name = "N")]
    pub max_steps: Option<String>,
    /// Nesting of function and closure calls [default: 1024] (0 = unlimited).
    #[arg(long, value_name = "N")]
    pub max_depth: Option<String>,
    /// Live heap bytes, e.g. 64MiB (0 = unlimited).
    #[arg(long, value_name = "BYTES")]
    pub max_memory: Option<String>,
    /// Bytes written by fs.write, fs.copy and io.save.
    #[arg(long, value_name = "BYTES")]
    pub max_disk: Option<String>,
    /// Files and directories created.
    #[arg(long, value_name = "N")]
    pub max_files: Option<String>,
    /// Bytes the script prints to stdout and stderr.
    #[arg(long, value_name = "BYTES")]
    pub max_output: Option<String>,
    /// Wall clock of the whole run, children included: 90 or 90s (seconds), 5m (minutes), 1h
    /// (hours); 0 = unlimited. When it passes, every process the run started is killed.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// Append one JSON line per capability check to FILE.
    #[arg(long, value_name = "FILE")]
    pub caps_audit: Option<PathBuf>,
    /// Run with different but legal choices (map order, listings, clock, random seed).
    #[arg(long, value_name = "SEED")]
    pub perturb: Option<String>,
    /// `human` (default) or `json`: one JSON line per terminal event on stderr.
    #[arg(long, value_name = "FORMAT", default_value = "human")]
    pub error_format: String,
    /// Start children without the jail (refused under --mesh).
    #[arg(long)]
    pub unconfined_children: bool,
    /// Print which capabilities and configuration were used.
    #[arg(long)]
    pub verbose: bool,
}

/// Prints one terminal event (human or JSON) on stderr.
pub(crate) struct Reporter {
    pub(crate) json: bool,
}

impl Reporter {
    fn event(
        &self,
        kind: &str,
        message: &str,
        place: Option<(String, u32, u32)>,
        extra: &[(&str, String)],
    ) {
        let mut err = std::io::stderr().lock();
        if self.json {
            let event = vox_runtime::context::event_json(kind, message, place.as_ref(), extra);
            let _ = writeln!(err, "{event}");
        } else {
            let _ = writeln!(err, "{message}");
            if kind == "runtime.error" || kind == "panic" {
                if let Some((f, l, c)) = place {
                    let _ = writeln!(err, "  --> {f}:{l}:{c}");
                }
            }
        }
    }
}

/// A ceiling value: sizes accept suffixes (`64MiB`); `--timeout` takes a duration (`90`, `90s`,
/// `5m`, `1h`, in seconds); counts are whole numbers. `0` is unlimited (`None`).
fn parse_limit(flag: &str, value: Option<&str>) -> Result<Option<u64>, String> {
    let Some(v) = value else { return Ok(None) };
    if flag == "--timeout" {
        return vox_caps::parse_duration_secs(v)
            .map(|secs| (secs != 0).then_some(secs))
            .map_err(|_| {
                format!(
                    "vox: invalid --timeout value \"{v}\": expected a whole number of {} \
                     (0 means no limit), e.g. --timeout 90s",
                    vox_caps::DURATION_FORMS
                )
            });
    }
    let is_size = matches!(flag, "--max-memory" | "--max-disk" | "--max-output");
    if is_size {
        return vox_caps::parse_limit(v)
            .map_err(|e| format!("vox: invalid {flag} value \"{v}\": {e}"));
    }
    // Counts also accept the size suffixes (`1K`), as run configurations may write them.
    vox_caps::parse_limit(v).map_err(|_| {
        format!("vox: invalid {flag} value \"{v}\": expected a whole number (0 means unlimited)")
    })
}

/// Ceilings: command-line flags, else the run configuration's, else the defaults.
fn limits(flags: &RunFlags, config: Option<&RunConfig>) -> Result<Limits, String> {
    let from_config = |key: &str| {
        config.and_then(|c| {
            c.ceilings
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        })
    };
    let pick = |flag: &Option<String>, key: &str, default: Option<&str>| -> Option<String> {
        flag.clone()
            .or_else(|| from_config(key))
            .or_else(|| default.map(str::to_string))
    };
    let mut l = Limits {
        max_steps: parse_limit(
            "--max-steps",
            pick(&flags.max_steps, "max-steps", Some("10000000")).as_deref(),
        )?,
        max_depth: parse_limit(
            "--max-depth",
            pick(&flags.max_depth, "max-depth", Some("1024")).as_deref(),
        )?,
        max_memory: parse_limit(
            "--max-memory",
            pick(&flags.max_memory, "max-memory", None).as_deref(),
        )?,
        max_disk: parse_limit(
            "--max-disk",
            pick(&flags.max_disk, "max-disk", None).as_deref(),
        )?,
        max_files: parse_limit(
            "--max-files",
            pick(&flags.max_files, "max-files", None).as_deref(),
        )?,
        max_output: parse_limit(
            "--max-output",
            pick(&flags.max_output, "max-output", None).as_deref(),
        )?,
        timeout_secs: parse_limit(
            "--timeout",
            pick(&flags.timeout, "timeout", None).as_deref(),
        )?,
    };
    if flags.mesh {
        if flags.max_disk.is_none() {
            l.max_disk = Some(32 << 20);
        }
        if flags.max_files.is_none() {
            l.max_files = Some(4096);
        }
    }
    Ok(l)
}

/// The run configuration that applies (runtime.md §1 rule 2, decisions.md 15); errors exit 1.
/// The resolver is the one the language server's `vox.run` uses (decision 54).
fn choose_config(flags: &RunFlags, script: &Path) -> Result<Option<RunConfig>, String> {
    if !flags.caps.is_empty() {
        return Ok(None);
    }
    vox_caps::config::resolve_run(script, flags.config.as_deref())
}

/// The capability set and how it was chosen (runtime.md §1); errors are printed lines, exit 1.
fn choose_caps(
    flags: &RunFlags,
    config: Option<&RunConfig>,
    source_text: &str,
    cwd: &Path,
) -> Result<(CapSet, CapsSource), String> {
    if let Some(c) = config {
        let tokens = vox_caps::config::run_tokens(c)?;
        if flags.mesh {
            return Err("vox: --mesh requires explicit --caps tokens; a run configuration does not satisfy it".into());
        }
        return CapSet::from_tokens(&tokens)
            .map(|s| (warned(s), CapsSource::Config(c.name.clone())))
            .map_err(|e| e.render());
    }
    if !flags.caps.is_empty() {
        let mut tokens = Vec::new();
        for t in &flags.caps {
            match vox_caps::parse_token(t, cwd) {
                Ok(tok) => tokens.push(tok),
                Err(e) => return Err(e.render()),
            }
        }
        return CapSet::from_tokens(&tokens)
            .map(|s| (warned(s), CapsSource::Flags))
            .map_err(|e| e.render());
    }
    if flags.mesh {
        return Err(
            "vox: --mesh requires explicit --caps tokens (the receiver decides what a job may do)"
                .into(),
        );
    }
    if flags.require_caps {
        return Err("vox: --require-caps is set but no --caps tokens were given; add --caps TOKEN (or --caps none)".into());
    }
    if let Some(directive) = vox_caps::parse_legacy_directive(source_text) {
        for w in directive.warnings() {
            eprintln!("{w}");
        }
        return Ok((directive.caps(), CapsSource::Legacy));
    }
    Ok((CapSet::developer_default(), CapsSource::DeveloperDefault))
}

/// Prints the set's warnings (a deny that denies nothing) on stderr and passes it on.
fn warned(set: CapSet) -> CapSet {
    for w in set.warnings() {
        eprintln!("{w}");
    }
    set
}

fn denial_token(remedy: &str) -> String {
    remedy
        .strip_prefix("grant with --caps ")
        .unwrap_or(remedy)
        .to_string()
}

/// Maps a terminal `Exc` to its exit code, printing its lines.
fn report_exc(exc: &Exc, prog: &Program, rep: &Reporter) -> i32 {
    let place = |loc: &Option<Loc>| loc.map(|l| prog.loc_text(l));
    match exc {
        Exc::Error { message, loc } => {
            rep.event(
                "runtime.error",
                &format!("vox: error: {message}"),
                place(loc),
                &[],
            );
            1
        }
        Exc::Panic { message, loc } => {
            rep.event("panic", &format!("vox: error: {message}"), place(loc), &[]);
            1
        }
        Exc::Denied { what, token, loc } => {
            let (ns, method) = what.split_once('.').unwrap_or((what.as_str(), ""));
            rep.event(
                "caps.denied",
                &format!("vox: capability denied: {what} \u{2014} {token}"),
                place(loc),
                &[
                    ("ns", ns.into()),
                    ("method", method.into()),
                    ("token", denial_token(token)),
                ],
            );
            77
        }
        Exc::Quota { kind, hint, loc } => {
            let k = if *kind == QuotaKind::Disk {
                "quota.disk"
            } else {
                "quota.files"
            };
            rep.event(
                k,
                &format!("vox: capability denied: fs.quota \u{2014} {hint}"),
                place(loc),
                &[],
            );
            77
        }
        Exc::Ceiling { kind, limit, loc } => {
            let (k, code) = match kind {
                CeilingKind::Steps => ("ceiling.steps", 78),
                CeilingKind::Depth => ("ceiling.depth", 78),
                CeilingKind::HostStack => ("ceiling.stack", 78),
                CeilingKind::Output => ("ceiling.output", 78),
                CeilingKind::Timeout => ("ceiling.timeout", 78),
                CeilingKind::Memory => ("ceiling.memory", 79),
            };
            // The hard cap may be ending the process on another thread with the same message.
            if *kind == CeilingKind::Memory && !vox_runtime::alloc::claim_report() {
                loop {
                    std::thread::park();
                }
            }
            let msg = format!("vox: {}", ceiling_message(*kind, *limit));
            rep.event(k, &msg, place(loc), &[]);
            code
        }
        Exc::Unconfinable { reason, loc } => {
            rep.event(
                "caps.denied",
                &format!("vox: cannot confine child: {reason}"),
                place(loc),
                &[],
            );
            77
        }
        Exc::Exit(n) => *n,
        Exc::Interrupted => {
            rep.event("runtime.error", "vox: interrupted", None, &[]);
            130
        }
    }
}

/// Whether the run was stopped rather than ended (decision 48): a ceiling (`--timeout`
/// included) or SIGINT/SIGTERM cut it short. Then every process it started is ended; after any
/// other end (its last statement, `process.exit`, a runtime error, a denial) its
/// `spawn_background` children survive.
pub(crate) fn stopped(result: &Result<(), Exc>) -> bool {
    matches!(result, Err(Exc::Ceiling { .. } | Exc::Interrupted))
}

/// The run's deadline, `secs` from now (none when that is past what the clock can represent).
pub(crate) fn deadline(secs: u64) -> Option<Instant> {
    Instant::now().checked_add(Duration::from_secs(secs))
}

/// Runs the queued exit commands (decisions.md 20: after exits 0, 1, 78 and 130).
/// Exit commands are the script's children: they go through `process.*`'s spawning, and so
/// through the jail when the capabilities are receiver-imposed.
fn run_exit_commands(ctx: &mut RunContext) {
    vox_runtime::effects::run_exit_commands(ctx);
}

pub(crate) struct Prepared {
    pub(crate) ctx: RunContext,
    shown: String,
    path: PathBuf,
}

use vox_caps::config::RunConfig;

pub(crate) fn prepare(
    flags: &RunFlags,
    file: &Path,
    user_args: &[String],
    capture: bool,
) -> Result<Prepared, (i32, String)> {
    let shown = file.display().to_string();
    let text = match std::fs::read(file) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return Err((
                1,
                format!("vox: {}", crate::read_error::cannot_read(&shown, &e)),
            ))
        }
    };
    let cwd = std::env::current_dir()
        .map_err(|e| (1, format!("vox: cannot read the working directory: {e}")))?;
    if flags.mesh && flags.unconfined_children {
        return Err((
            1,
            "vox: --unconfined-children is refused under --mesh".into(),
        ));
    }
    // A bad flag value is a fault (exit 1), as for every other flag; 2 is for usage errors.
    if flags.error_format != "human" && flags.error_format != "json" {
        return Err((
            1,
            format!(
                "vox: invalid --error-format \"{}\": use human or json",
                flags.error_format
            ),
        ));
    }
    let config = choose_config(flags, file).map_err(|m| (1, m))?;
    let cwd = match &config {
        Some(c) => c.cwd.canonicalize().map_err(|e| {
            (
                1,
                format!(
                    "vox: run configuration `{}`: cwd {}: {e}",
                    c.name,
                    c.cwd.display()
                ),
            )
        })?,
        None => cwd,
    };
    let (caps, source) = choose_caps(flags, config.as_ref(), &text, &cwd).map_err(|m| (1, m))?;
    let limits = limits(flags, config.as_ref()).map_err(|m| (1, m))?;
    let mut args = vec![shown.clone()];
    if let Some(c) = &config {
        args.extend(c.args.iter().cloned());
        if flags.verbose {
            eprintln!("vox: using run configuration `{}`", c.name);
        }
    }
    args.extend(user_args.iter().cloned());
    let mut ctx = RunContext::new(caps, source, cwd, args);
    ctx.limits = limits;
    ctx.mesh = flags.mesh;
    ctx.unconfined_children = flags.unconfined_children;
    ctx.verbose = flags.verbose;
    ctx.json_events = flags.error_format == "json";
    if let Some(seed) = &flags.perturb {
        let seed = seed.parse::<u64>().map_err(|_| {
            (
                1,
                format!(
                    "vox: invalid --perturb value \"{seed}\": expected a whole number (the seed)"
                ),
            )
        })?;
        ctx.perturb = Some(seed);
        if matches!(ctx.caps.random(), vox_caps::RandomGrant::Entropy) {
            ctx.rng_state = seed.rotate_left(17) ^ 0x5DEECE66D;
        }
    }
    if let Some(path) = &flags.caps_audit {
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            Ok(f) => ctx.audit = Some(f),
            Err(e) => {
                return Err((
                    1,
                    format!("vox: cannot open --caps-audit file {}: {e}", path.display()),
                ))
            }
        }
    }
    if capture {
        ctx.stdout = Sink::Buffer(Vec::new());
        ctx.stderr = Sink::Buffer(Vec::new());
    }
    if flags.unconfined_children && !capture {
        eprintln!("vox: warning: --unconfined-children: child processes run without the jail");
    }
    if flags.verbose {
        let from = match &ctx.source {
            CapsSource::Flags => "from --caps".to_string(),
            CapsSource::Config(name) => format!("from run configuration `{name}`"),
            CapsSource::Legacy => "from the `// vox:caps` directive".to_string(),
            CapsSource::DeveloperDefault => "the developer default: nothing was given".to_string(),
        };
        let tokens = ctx.caps.tokens().join(" ");
        eprintln!(
            "vox: capabilities ({from}): {}",
            if tokens.is_empty() { "none" } else { &tokens }
        );
    }
    // Relative paths in the script resolve against the run's working directory.
    let path = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    if ctx.cwd != std::env::current_dir().unwrap_or_default() {
        if let Err(e) = std::env::set_current_dir(&ctx.cwd) {
            return Err((1, format!("vox: cannot enter {}: {e}", ctx.cwd.display())));
        }
    }
    Ok(Prepared { ctx, shown, path })
}

/// Loads the program, printing syntax or import errors.
pub(crate) fn load_program(p: &mut Prepared, rep: &Reporter) -> Result<Program, i32> {
    let ctx = &mut p.ctx;
    let mut gate = |path: &Path| -> Result<PathBuf, Exc> {
        ctx.fs_path("fs.import", &path.to_string_lossy(), vox_caps::Access::Read)
    };
    match program::load(&p.path, &p.shown, &mut gate) {
        Ok(prog) => Ok(prog),
        Err(LoadError::Read { path, error }) => {
            eprintln!("vox: cannot read {path}: {error}");
            Err(1)
        }
        Err(LoadError::Syntax { files, file }) => {
            let f = &files[file];
            let errors: Vec<_> = f
                .tree
                .diagnostics()
                .iter()
                .filter(|d| d.is_error())
                .cloned()
                .collect();
            if rep.json {
                for d in &errors {
                    let lc = f
                        .lines
                        .line_col(d.range.start, vox_syntax::ColumnUnit::Char);
                    rep.event(
                        "syntax.error",
                        &d.message,
                        Some((f.shown.clone(), lc.line + 1, lc.col + 1)),
                        &[("code", d.code.to_string())],
                    );
                }
            } else {
                eprint!("{}", crate::render::render(&f.shown, &f.bytes, &errors));
                eprintln!("vox: {} has syntax errors; nothing was run", f.shown);
            }
            Err(1)
        }
        Err(LoadError::Import {
            files,
            file,
            code,
            message,
            range,
        }) => {
            let f = &files[file];
            let lc = f.lines.line_col(range.start, vox_syntax::ColumnUnit::Char);
            rep.event(
                "runtime.error",
                &format!("vox: error: {message}"),
                Some((f.shown.clone(), lc.line + 1, lc.col + 1)),
                &[("code", code.into())],
            );
            Err(1)
        }
        Err(LoadError::Denied(exc)) => {
            let dummy = Program { files: Vec::new() };
            Err(report_exc(&exc, &dummy, rep))
        }
    }
}

/// Starts a watchdog that ends the process if a `--timeout` run is stuck outside the evaluator's
/// own checks (a blocked read, a child that ignores signals).
fn watchdog(secs: u64) {
    let _ = std::thread::Builder::new()
        .name("vox-watchdog".into())
        .spawn(move || {
            std::thread::sleep(
                Duration::from_secs(secs).saturating_add(Duration::from_millis(1500)),
            );
            let _ = std::io::stdout().flush();
            eprintln!("vox: execution budget exceeded: --timeout {secs}");
            // The run is stopped: nothing it started survives it (decision 48).
            vox_jail::lifetime::end_descendants(&[]);
            // SAFETY: ends the process; every process the run started was killed above.
            unsafe { libc::_exit(78) };
        });
}

pub(crate) const STACK_SIZE: usize = 1 << 30;

/// `vox run FILE [-- ARGS]`.
pub fn run(flags: RunFlags, file: PathBuf, args: Vec<String>) -> i32 {
    let rep = Reporter {
        json: flags.error_format == "json",
    };
    let prepared = match prepare(&flags, &file, &args, false) {
        Ok(p) => p,
        Err((code, msg)) => {
            eprintln!("{msg}");
            return code;
        }
    };
    // On this thread, on a stack of its own: the interpreter's recursion needs more than the main
    // thread's (`remaining_stack` measures this one), and a second thread cost a hello world a
    // tenth of its start-up (a thread start, its own allocator pages, its own stack handler).
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        stacker::grow(STACK_SIZE, move || -> i32 {
            exit_now(run_on_this_thread(prepared, rep))
        })
    }));
    ran.unwrap_or_else(|_| {
        // An interpreter bug stops the run: nothing it started survives it.
        vox_jail::lifetime::end_descendants(&[]);
        101
    })
}

/// Ends the process with the run's exit code once the run has ended (its output flushed, its
/// private temp dir removed, the script's values left unfreed): not through `main`, whose way
/// out unmaps the 1 GiB stack `run` grew and has the allocator return freed pages to the
/// kernel, all for a process about to end (a tenth of a hello world's run).
fn exit_now(code: i32) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: ends the process; the run's children were ended or left by `end_run` as decision
    // 48 says, and no other thread holds work that must finish.
    unsafe { libc::_exit(code) }
}

/// The run, on the stack `run` grew for it. The program and the run's context are dropped when it
/// returns; the script's values are left to the process's exit (`Interp::leak_values`).
fn run_on_this_thread(mut prepared: Prepared, rep: Reporter) -> i32 {
    let prog = match load_program(&mut prepared, &rep) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if prog.files.last().is_some_and(|f| f.hir.main.is_none()) {
        let has_tests = prog.files.last().is_some_and(|f| !f.hir.tests.is_empty());
        let extra = if has_tests {
            format!("; to run its tests use vox test {}", prepared.shown)
        } else {
            String::new()
        };
        eprintln!("vox: error: nothing to run: add fn main() or top-level statements{extra}");
        return 1;
    }
    let mut ctx = prepared.ctx;
    match crate::confine::confine_self(&mut ctx) {
        Ok(crate::confine::SelfConfinement::Applied(how)) if ctx.verbose => {
            eprintln!("vox: self-confinement: {how}")
        }
        Ok(_) => {}
        Err(msg) => {
            eprintln!("{msg}");
            return 77;
        }
    }
    if let Some(secs) = ctx.limits.timeout_secs {
        ctx.deadline = deadline(secs);
        watchdog(secs);
    }
    if let Some(limit) = ctx.limits.max_memory {
        vox_runtime::alloc::arm(limit);
    }
    vox_runtime::context::install_interrupt_handlers();
    let mut interp = Interp::new(&prog, ctx);
    let result = interp.run_main();
    interp.ctx.flush_stdout();
    let code = match &result {
        Ok(()) => 0,
        Err(e) => report_exc(e, &prog, &rep),
    };
    // A stopped run ends its processes at once; exit commands still run after it.
    let stopped = stopped(&result);
    if stopped {
        vox_runtime::effects::end_run(&mut interp.ctx, true);
    }
    // Exit commands run after exits 0, 1, 78, 130 and `process.exit`; never after 77, 79 or
    // 101 (decisions.md 20).
    let exit_commands = matches!(code, 0 | 1 | 78 | 130) || matches!(result, Err(Exc::Exit(_)));
    if exit_commands && !matches!(code, 77 | 79 | 101) {
        run_exit_commands(&mut interp.ctx);
    }
    vox_runtime::effects::end_run(&mut interp.ctx, stopped);
    // The process exits next: its memory goes back to the kernel whole.
    interp.leak_values();
    code
}
