//! `check.*` (analysis.md §1.4, decision 34): names, arity and conditions the body shows wrong,
//! `fn main() to int`, and imports that would stop `vox run` (missing, cyclic, with errors, or
//! clashing with a declaration), each reported where the runtime would report it.

use vox_analysis::{import_errors, ImportError};
use vox_syntax::Severity;

use crate::context::FileCx;
use crate::finding::Finding;

/// Every check: [`per_function`], then [`imports`].
pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>, full: bool) {
    per_function(cx, out, full);
    imports(cx, out);
}

/// The checks of each function the rules look at. `full`: the rules' facts are computed anyway
/// (`vox lint`), so read the checks from them; otherwise (`vox check`) compute only the checks.
pub fn per_function(cx: &FileCx<'_>, out: &mut Vec<Finding>, full: bool) {
    let broken = cx.broken_functions();
    for (_, f) in cx
        .items
        .all()
        .enumerate()
        .filter(|(i, _)| cx.linted(*i, broken))
    {
        let base = vox_analysis::fn_base(cx.db, f);
        let checks: &[vox_analysis::facts::CheckFact] = if full {
            &vox_analysis::fn_facts(cx.db, f).checks
        } else {
            vox_analysis::fn_checks(cx.db, f)
        };
        for c in checks {
            let sev = if c.error {
                Severity::Error
            } else {
                Severity::Warning
            };
            out.push(cx.finding(c.code, sev, cx.abs(base, c.range), c.message.clone()));
        }
    }
}

/// Import errors and clashes, where the runtime reports them (not in a file with syntax errors:
/// it already has its diagnostic at a broken import).
pub fn imports(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    if cx.syntax.has_errors {
        return;
    }
    let imports = cx.syntax.file_imports();
    // Clashes between imported names and this file's declarations (syntax.duplicate).
    let names = vox_analysis::facts::imported_names(cx.db, cx.file);
    if let Some(c) =
        vox_hir::clashes_with(&cx.text, &cx.syntax.local_names, &imports, &names).first()
    {
        let imp = &imports[c.import];
        let message = match &c.with {
            vox_hir::ClashWith::Local(range) => {
                let line = cx.line(range.start);
                if imp.alias.is_some() {
                    format!("`{}` is declared twice at the top level: as the alias of import {} and on line {line}; rename the alias or the declaration", c.name, imp.path)
                } else {
                    format!("`{}` is declared twice at the top level: imported from {} and declared on line {line}; rename one, or import the file with `as NAME`", c.name, imp.path)
                }
            }
            vox_hir::ClashWith::Import(j) => format!(
                "`{}` is declared twice at the top level: imported from {} and from {}; import one of the files with `as NAME`",
                c.name, imports[*j].path, imp.path
            ),
        };
        out.push(cx.finding("syntax.duplicate", Severity::Error, imp.range, message));
    }
    let Some(at) = import_errors(cx.db, cx.file) else {
        return;
    };
    let path = at.file.path(cx.db).clone();
    let target_imports = &vox_analysis::file_syntax(cx.db, at.file).imports;
    let Some(imp) = target_imports.get(at.import as usize) else {
        return;
    };
    let (code, message) = match &at.error {
        ImportError::Missing { .. } => (
            "check.import-missing",
            format!(
                "cannot import {}: no such file; the path is relative to the importing file's directory",
                imp.path
            ),
        ),
        ImportError::Cycle { chain } => (
            "check.import-cycle",
            format!("import cycle: {}", chain.join(" -> ")),
        ),
        ImportError::Errors { .. } => (
            "check.import-errors",
            format!("imported file {} has errors", imp.path),
        ),
    };
    out.push(Finding::new(
        code,
        Severity::Error,
        path,
        imp.range,
        message,
    ));
}
