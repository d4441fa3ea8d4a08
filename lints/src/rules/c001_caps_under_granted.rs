//! C001 caps-under-granted: a run configuration of this script (Vox.toml, .vscode/tasks.json,
//! .vscode/launch.json) lacks a token the script needs, so that run would exit 77. Reported at
//! the call in the script that needs it (or the import that reads a file); fix: add the token.

use vox_analysis::inferred_caps;
use vox_syntax::{Severity, TextRange};

use vox_analysis::local_effects;

use super::caps_check::{blocking_rule, imports_ok, reachable, run_caps, satisfies, token_for};
use crate::context::FileCx;
use crate::finding::Finding;

/// `run` lacks `token`, which `by` needs; with the fix that adds it.
fn lacks(
    cx: &FileCx<'_>,
    run: &vox_caps::config::RunConfig,
    file: crate::finding::SharedPath,
    at: TextRange,
    token: &str,
    by: &str,
) -> Finding {
    let mut f = Finding::new(
        "C001",
        Severity::Error,
        file,
        at,
        format!(
            "run configuration `{}` lacks `{token}`, which {by} needs: that run would exit 77",
            run.name
        ),
    );
    f.help = Some(format!("add \"{token}\" to its caps").into());
    f.fixes.extend(add_fix(cx, run, token));
    f
}

/// `run` refuses what `by` needs with the narrowing rule `rule` (`fs:none=…`, or `fs:ro=…` inside
/// a writable root), which no added grant can undo; with the fix that removes it.
fn refused(
    cx: &FileCx<'_>,
    run: &vox_caps::config::RunConfig,
    file: std::path::PathBuf,
    at: TextRange,
    rule: &str,
    by: &str,
) -> Finding {
    // The rule as the configuration spells it (relative), else as the check resolved it.
    let written = run
        .caps
        .iter()
        .flatten()
        .find(|t| vox_caps::parse_token(t, &run.cwd).is_ok_and(|p| p.to_string() == rule))
        .cloned();
    let shown = written.clone().unwrap_or_else(|| rule.to_string());
    let mut f = Finding::new(
        "C001",
        Severity::Error,
        file,
        at,
        format!(
            "run configuration `{}` refuses what {by} needs with `{shown}`: that run would exit 77",
            run.name
        ),
    );
    f.help = Some(
        format!(
            "remove \"{shown}\" from its caps, or narrow it so that it no longer covers the path"
        )
        .into(),
    );
    if let Some(token) = written {
        let caps: Vec<String> = run
            .caps
            .iter()
            .flatten()
            .filter(|t| **t != token)
            .cloned()
            .collect();
        f.fixes.extend(super::caps_check::config_fix(
            cx,
            run,
            &caps,
            format!("Remove `{token}` from run configuration `{}`", run.name),
            crate::finding::Applicability::Unsafe,
        ));
    }
    f
}

/// Adds the missing token to the configuration (unsafe: it grants authority).
fn add_fix(
    cx: &FileCx<'_>,
    run: &vox_caps::config::RunConfig,
    token: &str,
) -> Option<crate::finding::Fix> {
    let mut caps: Vec<String> = run.caps.iter().flatten().cloned().collect();
    caps.push(token.to_string());
    super::caps_check::config_fix(
        cx,
        run,
        &caps,
        format!("Add `{token}` to run configuration `{}`", run.name),
        crate::finding::Applicability::Unsafe,
    )
}

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    let runs = cx.runs();
    if runs.is_empty() {
        return;
    }
    let caps = inferred_caps(cx.db, cx.file);
    let reach = reachable(cx);
    for run in runs {
        let set = match run_caps(run) {
            Ok(set) => set,
            Err(why) => {
                // `vox run --config` refuses such an entry: saying nothing would let a lint and
                // `vox caps --check` pass for a configuration that cannot run.
                let mut f = Finding::new(
                    "C001",
                    Severity::Error,
                    run.origin.file.clone(),
                    cx.ws.entry_range(run),
                    format!(
                        "run configuration `{}` cannot run: {why}; `vox run` refuses it",
                        run.name
                    ),
                );
                // A missing root wants the directory; any other refusal is the token's spelling.
                f.help = Some(if why.contains("no such directory") {
                    "create the directory, or correct the token (a root must exist when the run starts)"
                        .into()
                } else {
                    "correct the token in its caps (`vox run --help` lists them)".into()
                });
                out.push(f);
                continue;
            }
        };
        let missing: Vec<&vox_analysis::CapNeed> = caps
            .needs
            .iter()
            .filter(|n| !satisfies(&set, &run.cwd, n))
            .collect();
        // A need a deny refuses gets the deny named (adding a grant cannot help); the others, the
        // token to add.
        let blocker = |n: &vox_analysis::CapNeed| blocking_rule(&set, &run.cwd, n);
        let mut rules: Vec<String> = missing.iter().filter_map(|n| blocker(n)).collect();
        rules.sort();
        rules.dedup();
        // On the configuration entry too, once per missing token (decision 39).
        let mut tokens: Vec<String> = missing
            .iter()
            .filter(|n| blocker(n).is_none())
            .map(|n| token_for(n, &run.cwd))
            .collect();
        tokens.sort();
        tokens.dedup();
        let script = cx
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        // Reading an imported file needs its directory: a missing one is a missing token too.
        let import = imports_ok(&set, caps).and_then(|i| {
            let (path, import) = &caps.imports[i];
            let imp = cx.syntax.imports.get(*import as usize)?;
            let dir = path
                .parent()
                .map_or_else(String::new, |d| vox_analysis::show_dir(d, &run.cwd));
            Some((format!("fs:ro={dir}"), imp.range))
        });
        if let Some((token, _)) = &import {
            if !tokens.contains(token) {
                tokens.push(token.clone());
            }
        }
        for token in tokens {
            let (file, at) = (run.origin.file.clone(), cx.ws.entry_range(run));
            out.push(lacks(cx, run, file.into(), at, &token, &script));
        }
        for rule in &rules {
            let (file, at) = (run.origin.file.clone(), cx.ws.entry_range(run));
            out.push(refused(cx, run, file, at, rule, &script));
        }
        if !missing.is_empty() {
            // Each call that needs a missing token, wherever the script's entry points reach it.
            for f in &reach {
                let file = f.file(cx.db);
                let base = vox_analysis::fn_base(cx.db, *f);
                for (effect, r) in local_effects(cx.db, *f) {
                    let Some(need) = missing.iter().find(|n| n.effect == effect) else {
                        continue;
                    };
                    let at = TextRange::new(base + r.start, base + r.end);
                    let by = format!("`{}`", effect.builtin);
                    let path = file.path(cx.db).clone();
                    match blocker(need) {
                        Some(rule) => out.push(refused(cx, run, path, at, &rule, &by)),
                        None => {
                            let token = token_for(need, &run.cwd);
                            out.push(lacks(cx, run, path.into(), at, &token, &by));
                        }
                    }
                }
            }
        }
        if let Some((token, at)) = import {
            out.push(lacks(
                cx,
                run,
                cx.path.clone(),
                at,
                &token,
                "reading the import",
            ));
        }
    }
}
