//! The driver: one lint of one file (syntax, checks, imports, the enabled rules, suppressions,
//! `--select`/`--ignore` and severities), the tables a workspace's lint shares, and `vox check`'s
//! subset.

use std::sync::Arc;

use vox_analysis::{Db, SourceFile};

use crate::context::FileCx;
use crate::finding::{Finding, Held, Placed};
use crate::memo::FileMemo;
use crate::options::LintOptions;
use crate::run::{Run, Shown};
use crate::workspace::WorkspaceInfo;
use crate::{rules, suppress};

/// Every finding for one file: syntax, checks, imports and the enabled rules, suppressions
/// applied, sorted by position then code.
/// From this many syntax errors in one file on, its semantic findings are skipped (decision 53).
pub const MANY_ERRORS: usize = 16;

pub fn lint_file(
    db: &dyn Db,
    file: SourceFile,
    ws: &WorkspaceInfo,
    opts: &LintOptions,
) -> Vec<Finding> {
    let (out, runs) = lint(db, file, ws, opts, |cx, errors, out: &mut Vec<Finding>| {
        run_per_function(cx, opts, errors, out);
        Vec::new()
    });
    debug_assert!(runs.is_empty());
    out
}

/// As [`lint_file`], for a caller that lints one file again and again (the language server,
/// after each edit): the findings of functions an edit did not touch come from `memo`, which
/// is then replaced by this lint's ([`FileMemo`]), and are shared with it. `stamp` must change
/// whenever any input but this file's text changes (other files, configuration, options).
pub fn lint_file_memo(
    db: &dyn Db,
    file: SourceFile,
    ws: &WorkspaceInfo,
    opts: &LintOptions,
    memo: &mut Option<FileMemo>,
    stamp: u64,
) -> Shown {
    let prev = memo.take();
    let (ones, runs) = lint(db, file, ws, opts, |cx, errors, out: &mut Vec<Placed>| {
        let n = cx.items.all().count();
        let (prev, lint) = match prev.and_then(|m| m.plan(cx, opts, stamp)) {
            Some((m, lint)) => (Some(m), lint),
            None => (None, vec![true; n]),
        };
        cx.only = Some(lint);
        let mut fresh = Vec::new();
        run_per_function(cx, opts, errors, &mut fresh);
        let lint = cx.only.take().unwrap_or_default();
        let mut runs = Vec::new();
        *memo = FileMemo::update(cx, prev, &lint, fresh, opts, stamp, out, &mut runs);
        runs
    });
    Shown::new(ones, runs)
}

/// Whether a rule reports inside one function only, from what [`FileMemo`] follows (the
/// others compare the whole file with its run configurations, or are suppressions).
fn per_function(code: &str) -> bool {
    !matches!(code, "C001" | "C002" | "C003" | "L001" | "L002")
}

/// Decision 53: capability rules compare the whole file's needs with its run configurations,
/// which a broken function would make incomplete: they wait for a clean parse.
fn enabled(opts: &LintOptions, errors: usize, code: &str) -> bool {
    opts.enabled(code) && (errors == 0 || !code.starts_with('C'))
}

/// The rules that report inside one function, over the functions `cx` lints.
fn run_per_function(cx: &FileCx<'_>, opts: &LintOptions, errors: usize, out: &mut Vec<Finding>) {
    rules::check::per_function(cx, out, true);
    for rule in rules::ALL.iter().filter(|r| per_function(r.code)) {
        if enabled(opts, errors, rule.code) {
            (rule.run)(cx, out);
        }
    }
}

/// One lint of `file`, with `per_fn` reporting what the per-function rules find (given the
/// number of syntax errors), some of it as runs (the lint memo's functions). The findings come
/// back sorted, apart from the runs, which pass the suppressions, the selection and the
/// severities whole when none can change one of their findings (see [`Shown`]).
fn lint<T: Held>(
    db: &dyn Db,
    file: SourceFile,
    ws: &WorkspaceInfo,
    opts: &LintOptions,
    per_fn: impl FnOnce(&mut FileCx<'_>, usize, &mut Vec<T>) -> Vec<(Arc<Run>, i64)>,
) -> (Vec<T>, Vec<(Arc<Run>, i64)>) {
    let mut cx = FileCx::new(db, file, ws);
    cx.fixes = !opts.skip_fixes;
    let mut out = Vec::new();
    T::report_into(&mut out, |o| rules::syntax::check(&cx, o));
    // Decision 53: a syntax error costs only the function it is in (`FileCx::functions` leaves
    // it out); from [`MANY_ERRORS`] on, the file's semantic findings are skipped with one note.
    let errors = cx.syntax_errors();
    let sups = suppress::collect(&cx);
    let mut runs = Vec::new();
    if errors >= MANY_ERRORS {
        T::report_into(&mut out, |o| {
            o.push(cx.finding(
                "syntax.too-many-errors",
                vox_syntax::Severity::Warning,
                vox_syntax::TextRange::new(0, 0),
                format!("{errors} syntax errors: the determinism, input and capability rules skip this file until it parses"),
            ))
        });
    } else {
        runs = per_fn(&mut cx, errors, &mut out);
        // A suppression may apply to any finding (and counts as used by one whose code is not
        // selected): the runs are taken apart when the file has one, where they lay.
        runs.retain(|(run, shift)| {
            let whole = run.plain && sups.is_empty();
            if !whole {
                out.extend(run.placed(*shift).map(T::from_placed));
            }
            whole
        });
        T::report_into(&mut out, |o| {
            rules::check::imports(&cx, o);
            for rule in rules::ALL.iter().filter(|r| !per_function(r.code)) {
                if enabled(opts, errors, rule.code) {
                    (rule.run)(&cx, o);
                }
            }
        });
    }
    let mut out = suppress::apply(&cx, out, opts, sups);
    // `--select`/`--ignore` apply to every code; an error that stops the script always shows.
    out.retain(|f| {
        let b = f.finding();
        opts.shows(&b.code, b.severity)
    });
    for f in &mut out {
        let b = f.finding();
        let severity = opts.severity(&b.code, b.severity);
        if severity != b.severity {
            f.to_change().severity = severity;
        }
    }
    T::sort_unique(&mut out);
    (out, runs)
}

/// Computes what the enabled rules read of `file` beside its own facts: D004's parameter
/// bounds and D002/D007's observed results (which read the files importing it) and D005's
/// colliding literals. [`lint_file`] computes them when it first needs them; a caller linting
/// many files on several cores may ask for them first, importers before the files they import.
pub fn prepare_file(db: &dyn Db, file: SourceFile, opts: &LintOptions) {
    if opts.enabled("D004") {
        let _ = vox_analysis::file_param_tiers(db, file);
    }
    if opts.enabled("D002") || opts.enabled("D007") {
        let _ = vox_analysis::file_observed(db, file);
    }
    if opts.enabled("D005") {
        let _ = rules::literal_index::file_collisions(db, file);
    }
}

/// `syntax.*` and `check.*` findings only (what `vox check` reports, decision 38).
pub fn check_file(db: &dyn Db, file: SourceFile, ws: &WorkspaceInfo) -> Vec<Finding> {
    let cx = FileCx::new(db, file, ws);
    let mut out = Vec::new();
    rules::syntax::check(&cx, &mut out);
    if !cx.syntax.has_errors {
        rules::check::check(&cx, &mut out, false);
    }
    out.sort_by(Finding::order);
    out
}
