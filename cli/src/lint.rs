//! `vox lint [PATHS...]` (analysis.md §5): every file's findings, in parallel over files on
//! cloned database handles, written in path order as each file's turn comes, so threads never
//! change the output and no format holds every finding.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use vox_lints::{Finding, LintOptions, Severity, WorkspaceInfo};

use crate::output::{self, Format};
use crate::parallel::{parallel, parallel_in_order, threads, worker};
use crate::workspace;

#[derive(Args, Debug)]
pub struct LintFlags {
    /// Files or directories to lint (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// Enable every determinism rule (D) at error severity.
    #[arg(long)]
    pub determinism: bool,
    /// Also enable the input rules (I) at error severity.
    #[arg(long)]
    pub strict: bool,
    /// Only these rules or prefixes (comma-separated: `D,I001`).
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Skip these rules or prefixes (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Apply safe fixes in place.
    #[arg(long)]
    pub fix: bool,
    /// With --fix or --diff: also apply fixes that may change behaviour.
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of applying them.
    #[arg(long)]
    pub diff: bool,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// Facts of every function of `files`, a file at a time on every core: a function's facts read
/// its own file only (its body and the file's globals), so no import orders them, and a file's
/// functions, which share its parse, are lowered together right after it (the parse then goes;
/// see `vox_analysis::FnSource`). Then the file's text goes too, until its rules run: nothing
/// between reads it (see `vox_analysis::Text`).
fn all_facts(db: &vox_analysis::AnalysisDb, files: &[vox_analysis::SourceFile], threads: usize) {
    parallel(db, files, threads, |db, f| {
        for def in vox_analysis::file_items(db, *f).all() {
            let _ = vox_analysis::fn_facts(db, def);
        }
        f.text(db).release();
    });
}

/// For each of `files`, the indices of the files among them it imports.
fn import_graph(
    db: &vox_analysis::AnalysisDb,
    files: &[vox_analysis::SourceFile],
) -> Vec<Vec<usize>> {
    let index: std::collections::HashMap<vox_analysis::SourceFile, usize> =
        files.iter().enumerate().map(|(i, f)| (*f, i)).collect();
    files
        .iter()
        .map(|f| {
            let mut v: Vec<usize> = vox_analysis::resolve_imports(db, *f)
                .targets
                .iter()
                .filter_map(|t| match t {
                    vox_analysis::ImportTarget::File(t) => index.get(t).copied(),
                    _ => None,
                })
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect()
}

/// The reverse of [`import_graph`]: for each file, the files that import it.
fn reversed(graph: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); graph.len()];
    for (i, targets) in graph.iter().enumerate() {
        for &j in targets {
            out[j].push(i);
        }
    }
    out
}

/// Summaries and resolved calls of every function of `files` (their facts made), a file as
/// soon as every file it imports is done ([`after_imports`]): a summary reads its callees', so
/// no core waits on another's, and a deep import chain (each file importing the next) leaves
/// only its summaries, the small part, to one core.
fn summaries_in_import_order(
    db: &vox_analysis::AnalysisDb,
    files: &[vox_analysis::SourceFile],
    imports: &[Vec<usize>],
    threads: usize,
    phases: &mut Phases,
) {
    after_imports(db, files, imports, threads, |db, f| {
        for def in vox_analysis::file_items(db, f).all() {
            let _ = vox_analysis::summary(db, def);
        }
        // What the per-file tables and the chains walk, resolved here on every core.
        let _ = vox_analysis::file_calls(db, f);
        // What the lint's plan asks of every file (below a deep chain, the longest walk).
        let _ = vox_analysis::import_errors(db, f);
    });
    phases.mark("summaries");
}

/// Runs `f` on every file on `threads` workers, each file once every file it imports
/// (`imports[i]`: indices into `files`) is done; given the [`reversed`] graph, once every file
/// importing it is. Files left waiting on an import cycle run when nothing else can (salsa
/// resolves the cycle).
fn after_imports(
    db: &vox_analysis::AnalysisDb,
    files: &[vox_analysis::SourceFile],
    imports: &[Vec<usize>],
    threads: usize,
    f: impl Fn(&vox_analysis::AnalysisDb, vox_analysis::SourceFile) + Sync,
) {
    struct Queue {
        ready: Vec<usize>,
        waiting: Vec<usize>,
        started: Vec<bool>,
        busy: usize,
        done: usize,
    }
    struct Done<'q> {
        queue: &'q std::sync::Mutex<Queue>,
        wake: &'q std::sync::Condvar,
        importers: &'q [usize],
    }
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            let mut q = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            q.busy -= 1;
            q.done += 1;
            for &k in self.importers {
                q.waiting[k] -= 1;
                if q.waiting[k] == 0 {
                    q.ready.push(k);
                }
            }
            self.wake.notify_all();
        }
    }
    let n = files.len();
    let mut importers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, imp) in imports.iter().enumerate() {
        for &j in imp {
            importers[j].push(i);
        }
    }
    let waiting: Vec<usize> = imports.iter().map(Vec::len).collect();
    // Reversed so that workers pop files in their given order.
    let ready: Vec<usize> = (0..n).rev().filter(|&i| waiting[i] == 0).collect();
    let queue = std::sync::Mutex::new(Queue {
        ready,
        waiting,
        started: vec![false; n],
        busy: 0,
        done: 0,
    });
    let wake = std::sync::Condvar::new();
    let work = |db: &vox_analysis::AnalysisDb| loop {
        let i = {
            let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(i) = q.ready.pop() {
                    if !q.started[i] {
                        q.started[i] = true;
                        q.busy += 1;
                        break i;
                    }
                    continue;
                }
                if q.done == n {
                    return;
                }
                if q.busy == 0 {
                    // Only files on (or behind) an import cycle are left.
                    let rest: Vec<usize> = (0..n).rev().filter(|&i| !q.started[i]).collect();
                    q.ready = rest;
                    continue;
                }
                q = wake.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        // Done even when `f` panics: the other workers go on, and the panic reaches the caller
        // when the scope joins (instead of workers waiting forever for this file).
        let _done = Done {
            queue: &queue,
            wake: &wake,
            importers: &importers[i],
        };
        f(db, files[i]);
    };
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            worker(s, db, work);
        }
    });
}

/// With `VOX_LINT_TIMING` set, prints on stderr how long each phase of a lint took, with the
/// process's CPU time, peak RSS so far and live heap bytes (what runs on one core, and where
/// memory peaks; counting the heap costs time on several cores, so time it without).
pub struct Phases {
    on: bool,
    start: std::time::Instant,
    last: std::time::Instant,
}

impl Phases {
    pub fn new() -> Phases {
        let now = std::time::Instant::now();
        Phases {
            on: std::env::var_os("VOX_LINT_TIMING").is_some(),
            start: now,
            last: now,
        }
    }

    pub fn mark(&mut self, what: &str) {
        if !self.on {
            return;
        }
        let now = std::time::Instant::now();
        // SAFETY: `getrusage` only fills the struct it is given.
        let (cpu, peak) = unsafe {
            let mut u: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_SELF, &mut u);
            let ms = |v: libc::timeval| v.tv_sec as f64 * 1e3 + v.tv_usec as f64 / 1e3;
            (ms(u.ru_utime) + ms(u.ru_stime), u.ru_maxrss as f64 / 1024.0)
        };
        eprintln!(
            "vox lint timing: {what:<20} {:8.1} ms (at {:8.1} ms, cpu {:8.1} ms, peak {peak:6.1} MiB, live {:6.1} MiB, texts read again {})",
            (now - self.last).as_secs_f64() * 1e3,
            (now - self.start).as_secs_f64() * 1e3,
            cpu,
            vox_runtime::alloc::used() as f64 / (1024.0 * 1024.0),
            vox_analysis::Text::read_again()
        );
        self.last = now;
    }
}

/// Command-line flags over `[lint]`: `--select`/`--ignore` replace and extend the file's lists.
/// The workspace files the targets import, directly or not, that are not targets.
fn imported_by_targets(loaded: &workspace::Loaded) -> Vec<vox_analysis::SourceFile> {
    let targets: std::collections::HashSet<_> = loaded.targets.iter().copied().collect();
    let mut seen = targets.clone();
    let mut stack: Vec<_> = loaded.targets.clone();
    let mut out = Vec::new();
    while let Some(f) = stack.pop() {
        for t in &vox_analysis::resolve_imports(&loaded.db, f).targets {
            if let vox_analysis::ImportTarget::File(t) = t {
                if seen.insert(*t) {
                    out.push(*t);
                    stack.push(*t);
                }
            }
        }
    }
    out.sort_by_key(|f| f.path(&loaded.db).clone());
    out
}

/// A determinism or input finding in an imported file whose chain starts in a target.
fn reached_from_targets(f: &Finding, targets: &std::collections::BTreeSet<PathBuf>) -> bool {
    (f.code.starts_with('D') || f.code.starts_with('I'))
        && f.chain
            .first()
            .is_some_and(|s| targets.contains(s.file.as_path()))
}

/// Every code or prefix in `--select`, `--ignore` and `[lint]` must match some rule (as ruff
/// refuses an unknown selector): a typo would otherwise silently select or ignore nothing.
fn check_codes(flags: &LintFlags, lint: &vox_caps::config::LintConfig) -> Result<(), String> {
    let sources = [
        ("--select", flags.select.clone()),
        ("--ignore", flags.ignore.clone()),
        ("`select` in [lint] of Vox.toml", lint.select.clone()),
        ("`ignore` in [lint] of Vox.toml", lint.ignore.clone()),
        (
            "[lint.severity] of Vox.toml",
            lint.severity.iter().map(|(c, _)| c.clone()).collect(),
        ),
    ];
    for (place, codes) in sources {
        if let Some(bad) = codes.iter().find(|c| !vox_lints::known_pattern(c)) {
            return Err(format!(
                "vox: unknown rule code `{bad}` in {place}; known codes: {} (or a prefix such as `D`, or `syntax`, `check`)",
                vox_lints::known_codes()
            ));
        }
    }
    Ok(())
}

fn options(flags: &LintFlags, lint: &vox_caps::config::LintConfig) -> LintOptions {
    let select = if flags.select.is_empty() {
        lint.select.clone()
    } else {
        flags.select.clone()
    };
    let mut ignore = lint.ignore.clone();
    ignore.extend(flags.ignore.iter().cloned());
    let severity = lint
        .severity
        .iter()
        .map(|(code, s)| {
            let sev = if s == "error" {
                Severity::Error
            } else {
                Severity::Warning
            };
            (code.clone(), sev)
        })
        .collect();
    LintOptions {
        determinism: flags.determinism,
        strict: flags.strict,
        select,
        ignore,
        severity,
        skip_fixes: false,
    }
}

/// An invalid configuration file as a finding at the error's line and column.
pub fn config_finding(e: &vox_caps::config::ConfigError, texts: &output::Texts) -> Finding {
    let offset = texts.offset(&e.file, e.line, e.column);
    Finding::new(
        "config.invalid",
        Severity::Error,
        e.file.clone(),
        vox_syntax::TextRange::new(offset, offset),
        e.message.clone(),
    )
}

/// Rounds of `--fix` at most: a fix that overlaps another waits for the next round.
const FIX_ROUNDS: usize = 8;

pub fn run(flags: LintFlags) -> i32 {
    run_round(flags, 0, 0)
}

/// One lint of the paths. With `--fix`, applies what it can and lints again (as ruff does), until
/// nothing more applies; then prints what remains and exits as a plain run would.
fn run_round(flags: LintFlags, round: usize, fixed: usize) -> i32 {
    let paths = if flags.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        flags.paths.clone()
    };
    let mut phases = Phases::new();
    let root = workspace::find_root(&paths[0]);
    let lint_config = vox_caps::config::load_workspace(&root).lint;
    let files = match workspace::walk(&paths, &lint_config.exclude, &root) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("vox: {e}");
            return 2;
        }
    };
    phases.mark("walk");
    // Imports are followed after the first pass over the files (below), not before: the pass
    // parses each file once, and a file imported from outside the paths is rare.
    let (mut loaded, _) = match workspace::load_files(files, root.clone(), false) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("vox: {e}");
            return 2;
        }
    };
    phases.mark("read");
    if !loaded.config_errors.is_empty() {
        // `config.invalid` at the error's place in its file (decision 39), then exit 2.
        let texts =
            output::Texts::with_files(&loaded, loaded.config_errors.iter().map(|e| e.file.clone()));
        let findings: Vec<Finding> = loaded
            .config_errors
            .iter()
            .map(|e| config_finding(e, &texts))
            .collect();
        print!("{}", output::render(flags.format, &findings, &texts, &root));
        return 2;
    }
    if let Err(msg) = check_codes(&flags, &loaded.lint) {
        eprintln!("{msg}");
        return 2;
    }
    let mut opts = options(&flags, &loaded.lint);
    // The compact and GitHub formats show no fix; --fix and --diff apply them.
    opts.skip_fixes =
        matches!(flags.format, Format::Compact | Format::Github) && !(flags.fix || flags.diff);
    let info = WorkspaceInfo::new(root.clone(), loaded.runs.clone());
    // Asked once: on Linux the answer reads the affinity mask and the cgroup's CPU quota.
    let threads = threads(flags.threads);
    // Facts and summaries of every function first, on all cores, so that workspace-wide rules
    // (D005's collisions) find them computed instead of computing them on one thread: facts of
    // the files, and of those they import from outside the paths (found by the parse), then
    // summaries of them all.
    let all = loop {
        let all: Vec<vox_analysis::SourceFile> =
            loaded.ws.files(&loaded.db).values().copied().collect();
        all_facts(&loaded.db, &all, threads);
        phases.mark("parse and facts");
        crate::memory::purge_freed_at_once(threads == 1);
        if !workspace::add_imported(&mut loaded) {
            break all;
        }
    };
    let graph = import_graph(&loaded.db, &all);
    phases.mark("import graph");
    summaries_in_import_order(&loaded.db, &all, &graph, threads, &mut phases);
    // Files the targets import (directly or not) that are not targets themselves: what the
    // targets reach there is reported too, with its chain (a script's output depends on it).
    let reached = imported_by_targets(&loaded);
    let target_paths: std::collections::BTreeSet<PathBuf> = loaded
        .targets
        .iter()
        .map(|f| f.path(&loaded.db).clone())
        .collect();
    let mut to_lint = loaded.targets.clone();
    to_lint.extend(reached.iter().copied());
    to_lint.sort_by(|a, b| a.path(&loaded.db).cmp(b.path(&loaded.db)));
    let progress = output::Progress::new(loaded.targets.len());
    let lint_one = |db: &vox_analysis::AnalysisDb, f: &vox_analysis::SourceFile| {
        let mut r = vox_lints::lint_file(db, *f, &info, &opts);
        if reached.contains(f) {
            r.retain(|x| reached_from_targets(x, &target_paths));
        } else {
            progress.tick();
        }
        r
    };
    // Its text, read again for the rules, goes once they have run (when nothing renders it).
    let lint_and_release = |db: &vox_analysis::AnalysisDb, f: &vox_analysis::SourceFile| {
        let r = lint_one(db, f);
        f.text(db).release();
        r
    };
    // A file's findings lie in the file, except those of a run configuration's script (C001 and
    // C002 on the configuration's entry, and C001 on each call that needs a missing token,
    // wherever the script reaches it) and of a file whose imports fail in another file (the
    // error is reported at the failing import). Those files are linted first; every other
    // file's findings are then written as soon as the files before it are done (`Held`).
    let (early, streamed): (Vec<_>, Vec<_>) = to_lint.iter().partition(|f| {
        !info.runs_for(f.path(&loaded.db)).is_empty()
            || vox_analysis::import_errors(&loaded.db, **f)
                .as_ref()
                .is_some_and(|at| at.file != **f)
    });
    phases.mark("plan");
    // A file's parameter ranges and observed results read its importers': importers first, so
    // that no core waits on another and no import chain recurses deeply.
    after_imports(&loaded.db, &all, &reversed(&graph), threads, |db, f| {
        vox_lints::prepare_file(db, f, &opts)
    });
    phases.mark("per-file tables");
    let mut held = Held::default();
    for r in parallel(&loaded.db, &early, threads, lint_and_release) {
        held.add(r);
    }
    // Findings may sit in configuration files (C001/C002 on their entries).
    let texts = output::Texts::with_files(&loaded, held.config_files());
    phases.mark("lint early files");
    let mut counts = Counts::default();
    if flags.fix || flags.diff {
        let mut findings = Vec::new();
        for r in parallel(&loaded.db, &streamed, threads, lint_and_release) {
            held.add(r);
        }
        held.drain_before(None, &mut |g| {
            findings.extend(g);
        });
        progress.done();
        if flags.diff {
            return match output::fixes::apply(&loaded, &findings, flags.unsafe_fixes, true) {
                Ok(_) => 0,
                Err(code) => code,
            };
        }
        if round < FIX_ROUNDS {
            match output::fixes::apply(&loaded, &findings, flags.unsafe_fixes, false) {
                Err(code) => return code,
                Ok(0) => {}
                Ok(n) => {
                    std::mem::forget(loaded);
                    return run_round(flags, round + 1, fixed + n);
                }
            }
        }
        eprintln!(
            "vox lint: applied {fixed} fix{}",
            if fixed == 1 { "" } else { "es" }
        );
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        output::write(flags.format, &findings, &texts, &root, &mut |s| {
            let _ = out.write_all(s.as_bytes());
        });
        let _ = out.flush();
        counts.add(&findings);
    } else {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let mut emit = |s: &str| {
            let _ = out.write_all(s.as_bytes());
        };
        let mut writer = output::Writer::new(flags.format, &texts, &root);
        // One file's findings, with their text when a worker rendered it.
        let mut write = |g: &[Finding], text: Option<&str>| {
            counts.add(g);
            match text {
                Some(text) => emit(text),
                None => writer.findings(g, &mut emit),
            }
        };
        // A file's text is rendered on the worker that linted it, when the format writes each
        // file alone (human, compact, GitHub): only copying it out stays on this thread.
        // `lint_file` returns one file's findings sorted and without duplicates already.
        let lint_and_render = |db: &vox_analysis::AnalysisDb, f: &vox_analysis::SourceFile| {
            let r = lint_one(db, f);
            let path = f.path(db);
            // Rendered here, or its line index made here: either way the text, read again
            // for the rules, goes afterwards.
            let text = if r.iter().all(|x| x.file.as_os_str() == path.as_os_str()) {
                output::render_alone(flags.format, &r, &texts, &root)
            } else {
                None
            };
            if text.is_none() && !r.is_empty() {
                texts.prepare(path);
            }
            f.text(db).release();
            (r, text)
        };
        parallel_in_order(
            &loaded.db,
            &streamed,
            threads,
            lint_and_render,
            |i, (r, text)| {
                let path = streamed[i].path(&loaded.db);
                match text {
                    // Nothing else waits for this file (findings of early files in it would).
                    Some(text) if !held.0.contains_key(path) => {
                        held.drain_before(Some(path), &mut |g| write(&g, None));
                        write(&r, Some(&text));
                    }
                    _ => {
                        held.add(r);
                        held.drain_before(Some(path), &mut |g| write(&g, None));
                    }
                }
            },
        );
        held.drain_before(None, &mut |g| write(&g, None));
        progress.done();
        writer.finish(&mut emit);
        let _ = out.flush();
        phases.mark("lint and write");
    }
    if flags.format == Format::Human {
        eprintln!(
            "vox lint: {} error{}, {} warning{} in {} file{}{}",
            counts.errors,
            if counts.errors == 1 { "" } else { "s" },
            counts.warnings,
            if counts.warnings == 1 { "" } else { "s" },
            loaded.targets.len(),
            if loaded.targets.len() == 1 { "" } else { "s" },
            counts.by_family()
        );
    }
    // The process exits next: freeing every memo of the database one by one would only cost
    // time.
    std::mem::forget(texts);
    std::mem::forget(loaded);
    i32::from(counts.errors > 0)
}

#[derive(Default)]
struct Counts {
    errors: usize,
    warnings: usize,
    /// Findings per family: `D`, `I`, `C`, `L`, `syntax`, `check`, `config`.
    families: std::collections::BTreeMap<String, usize>,
}

impl Counts {
    fn add(&mut self, findings: &[Finding]) {
        for f in findings {
            match f.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
            let family = match f.code.split_once('.') {
                Some((group, _)) => group,
                None => &f.code[..1],
            };
            *self.families.entry(family.to_string()).or_default() += 1;
        }
    }

    /// ` (D: 3, syntax: 1)`, or nothing when there are no findings.
    fn by_family(&self) -> String {
        if self.families.is_empty() {
            return String::new();
        }
        let parts: Vec<String> = self
            .families
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect();
        format!(" ({})", parts.join(", "))
    }
}

/// Findings not yet written, by file: what linted files reported, waiting for their file's turn
/// in path order.
#[derive(Default)]
struct Held(std::collections::BTreeMap<PathBuf, Vec<Finding>>);

impl Held {
    fn add(&mut self, findings: Vec<Finding>) {
        // A file's findings come together (nearly always all in the linted file): one lookup per
        // run of them, and a whole vector moved in when its file has none yet.
        let mut run: Vec<Finding> = Vec::new();
        for f in findings {
            if run
                .last()
                .is_some_and(|l| l.file.as_os_str() != f.file.as_os_str())
            {
                self.put(std::mem::take(&mut run));
            }
            run.push(f);
        }
        self.put(run);
    }

    /// Findings of one file.
    fn put(&mut self, run: Vec<Finding>) {
        let Some(first) = run.first() else { return };
        match self.0.get_mut(first.file.as_path()) {
            Some(v) => v.extend(run),
            None => {
                self.0.insert(first.file.to_path_buf(), run);
            }
        }
    }

    /// The files that are not VoxScript files (configuration files findings point into).
    fn config_files(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.0
            .keys()
            .filter(|p| p.extension().is_none_or(|e| e != "vox"))
            .cloned()
    }

    /// Hands `write` each file's findings, sorted and without duplicates, for every file up to
    /// and including `upto` (every file when `None`): a file's turn comes when every file before
    /// it is linted.
    fn drain_before(
        &mut self,
        upto: Option<&std::path::Path>,
        write: &mut dyn FnMut(Vec<Finding>),
    ) {
        while let Some(entry) = self.0.first_entry() {
            if upto.is_some_and(|u| entry.key().as_path() > u) {
                break;
            }
            let mut g = entry.remove();
            // One file's findings: no path to compare.
            g.sort_by(Finding::order_in_file);
            g.dedup_by(|a, b| a.range == b.range && a.code == b.code);
            write(g);
        }
    }
}
