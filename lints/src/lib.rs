//! The VoxScript rules (analysis.md §1): one file per rule under `rules/`, each reading the
//! analysis facts of a file and reporting [`Finding`]s with messages, chains and fixes; plus
//! suppressions (§3) and the options that enable rules and set severities (decision 29). The CLI
//! and the language server both call [`lint_file`], so they report the same findings.

mod chain;
mod context;
mod finding;
mod options;
mod registry;
mod rules;
mod suppress;

pub use context::{FileCx, WorkspaceInfo};
pub use finding::{Applicability, ChainStep, Edit, Finding, Fix, Severity};
pub use options::{known_codes, known_pattern, LintOptions};
pub use registry::{rule, RuleInfo, RULES};

use vox_analysis::{Db, SourceFile};

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
    let mut cx = FileCx::new(db, file, ws);
    cx.fixes = !opts.skip_fixes;
    let mut out = Vec::new();
    rules::syntax::check(&cx, &mut out);
    // Decision 53: a syntax error costs only the function it is in (`FileCx::functions` leaves
    // it out); from [`MANY_ERRORS`] on, the file's semantic findings are skipped with one note.
    // Capability rules compare the whole file's needs with its run configurations, which a
    // broken function would make incomplete: they wait for a clean parse.
    let errors = cx.syntax_errors();
    if errors >= MANY_ERRORS {
        out.push(cx.finding(
            "syntax.too-many-errors",
            vox_syntax::Severity::Warning,
            vox_syntax::TextRange::new(0, 0),
            format!("{errors} syntax errors: the determinism, input and capability rules skip this file until it parses"),
        ));
    } else {
        rules::check::check(&cx, &mut out, true);
        for rule in rules::ALL {
            if opts.enabled(rule.code) && (errors == 0 || !rule.code.starts_with('C')) {
                (rule.run)(&cx, &mut out);
            }
        }
    }
    let mut out = suppress::apply(&cx, out, opts);
    for f in &mut out {
        f.severity = opts.severity(&f.code, f.severity);
    }
    Finding::sort_unique(&mut out);
    out
}

/// The parts of [`prepare_workspace`] that read every function's facts only.
pub const FACTS_PARTS: std::ops::Range<usize> = 0..1;
/// The parts that also read resolved calls (`vox_analysis::file_calls`, which follows
/// summaries).
pub const CALLS_PARTS: std::ops::Range<usize> = 1..3;

/// Computes part `part` of the workspace-wide tables that the enabled rules read: D005's
/// literal collisions ([`FACTS_PARTS`]), D004's parameter bounds and D002/D007's observed
/// results ([`CALLS_PARTS`]). Each looks at every function of the workspace. [`lint_file`]
/// computes a table when a file first needs it, on one core while the other lints wait for
/// it; a caller linting many files on several cores asks for the parts on other threads first.
pub fn prepare_workspace(db: &dyn Db, ws: &WorkspaceInfo, opts: &LintOptions, part: usize) {
    match part {
        0 if opts.enabled("D005") => {
            let _ = rules::d005_unnormalised_path::collisions(db, ws);
        }
        1 if opts.enabled("D004") => {
            let _ = vox_analysis::param_tiers(db, db.workspace());
        }
        2 if opts.enabled("D002") || opts.enabled("D007") => {
            let _ = vox_analysis::observed_returns(db, db.workspace());
        }
        _ => {}
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
