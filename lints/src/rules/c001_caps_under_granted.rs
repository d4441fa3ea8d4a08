//! C001 caps-under-granted: a run configuration of this script (Vox.toml, .vscode/tasks.json,
//! .vscode/launch.json) lacks a token the script needs, so that run would exit 77. Reported at
//! the call in the script that needs it (or the import that reads a file); fix: add the token.

use vox_analysis::inferred_caps;
use vox_syntax::{Severity, TextRange};

use super::caps_check::{imports_ok, run_caps, satisfies, token_for};
use crate::{FileCx, Finding};

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    let runs = cx.runs();
    if runs.is_empty() {
        return;
    }
    let caps = inferred_caps(cx.db, cx.file);
    for run in runs {
        let Some(set) = run_caps(run) else { continue };
        for need in &caps.needs {
            if satisfies(&set, &run.cwd, need) {
                continue;
            }
            let base = entry_base(cx, need.entry);
            let range = TextRange::new(base + need.range.start, base + need.range.end);
            let token = token_for(need, &run.cwd);
            let mut f = cx.finding(
                "C001",
                Severity::Error,
                range,
                format!(
                    "run configuration `{}` lacks `{token}`, which `{}` needs: that run would exit 77",
                    run.name,
                    need.effect.builtin_name()
                ),
            );
            f.help = Some(format!("add \"{token}\" to its caps"));
            out.push(f);
        }
        if let Some(i) = imports_ok(&set, caps) {
            let (path, import) = &caps.imports[i];
            let imports = vox_hir::file_imports(cx.tree);
            if let Some(imp) = imports.get(*import as usize) {
                let dir = path
                    .parent()
                    .map_or_else(String::new, |d| vox_analysis::show_dir(d, &run.cwd));
                out.push(cx.finding(
                    "C001",
                    Severity::Error,
                    imp.range,
                    format!(
                        "run configuration `{}` lacks `fs:ro={dir}`, which reading the import needs: that run would exit 77",
                        run.name
                    ),
                ));
            }
        }
    }
}

/// Where an entry function's relative ranges start.
pub fn entry_base(cx: &FileCx<'_>, entry: u32) -> u32 {
    if entry == u32::MAX {
        0
    } else {
        vox_analysis::fn_starts(cx.db, cx.file)
            .get(entry as usize)
            .copied()
            .unwrap_or(0)
    }
}
