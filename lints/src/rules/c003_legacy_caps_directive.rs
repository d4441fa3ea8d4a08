//! C003 legacy-caps-directive: `// vox:caps WORD...` is documentation, never enforced when
//! `--caps` or a run configuration is given, and ignored entirely below line 1 (line 2 after a
//! `#!` line). Flagged when it is ignored (wrong line), overridden (the script has a run
//! configuration), or too narrow: it is the only grant, is exhaustive, and does not name a
//! namespace the script needs, so the run exits 77 (the message names the call). Fixes: add the
//! missing words, or move the grant to a run configuration with the inferred set.

use std::path::Path;

use vox_analysis::{inferred_caps, EffectKind};
use vox_syntax::TextRange;

use super::caps_check::satisfies;
use super::sites::W;
use crate::context::FileCx;
use crate::finding::{Applicability, Finding, Fix};

fn word_for(kind: EffectKind) -> &'static str {
    match kind {
        EffectKind::EnvRo | EffectKind::EnvRw => "env",
        EffectKind::Net => "net",
        EffectKind::Process => "process",
        EffectKind::Secrets => "secrets",
        EffectKind::Time => "time",
        EffectKind::Random => "random",
        EffectKind::Agentos => "agentos",
        _ => "fs",
    }
}

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    // Runs on every edit in the editor: one vectorised search of the bytes (checking the text
    // was UTF-8 first doubled the pass over a half-megabyte file).
    if memchr::memmem::find(&cx.text, b"vox:caps").is_none() {
        return;
    }
    let text = String::from_utf8_lossy(&cx.text);
    let directive = vox_caps::parse_legacy_directive(&text);
    // Directives on other lines are ignored by the runtime.
    let mut offset = 0u32;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim_start();
        let is_directive = trimmed
            .strip_prefix("//")
            .map(|r| r.trim_start())
            .is_some_and(|r| r.starts_with("vox:caps") && !r.starts_with("vox:capsule"));
        let recognised = directive.as_ref().is_some_and(|d| d.line as usize == i + 1);
        if is_directive && !recognised {
            let end = offset + line.trim_end_matches(['\n', '\r']).len() as u32;
            let mut f = cx.finding(
                "C003",
                W,
                TextRange::new(offset, end),
                format!(
                    "`// vox:caps` on line {} is ignored: the directive is only read on line 1",
                    i + 1
                ),
            );
            f.help =
                Some("move it to line 1, or better, give the script a run configuration".into());
            out.push(f);
        }
        offset += line.len() as u32;
    }
    let Some(d) = directive else { return };
    let range = TextRange::new(d.range.start as u32, d.range.end as u32);
    let runs = cx.runs();
    if let Some(run) = runs.first() {
        out.push(cx.finding(
            "C003",
            W,
            range,
            format!("this `// vox:caps` directive is never consulted: run configuration `{}` decides what the script may do", run.name),
        ));
        return;
    }
    let set = d.caps();
    let caps = inferred_caps(cx.db, cx.file);
    let cwd = std::env::current_dir().unwrap_or_else(|_| Path::new("/").to_path_buf());
    let mut missing: Vec<(&'static str, String)> = Vec::new();
    for need in &caps.needs {
        if !satisfies(&set, &cwd, need) {
            let w = word_for(need.effect.kind);
            if !missing.iter().any(|(m, _)| *m == w) {
                missing.push((w, need.effect.builtin.qualified()));
            }
        }
    }
    if !caps.imports.is_empty() && !set.fs_any() && !missing.iter().any(|(m, _)| *m == "fs") {
        missing.push(("fs", "fs.import".into()));
    }
    if missing.is_empty() {
        return;
    }
    let words: Vec<&str> = missing.iter().map(|(w, _)| *w).collect();
    let (w0, call0) = &missing[0];
    let mut f = cx.finding(
        "C003",
        W,
        range,
        format!(
            "`{call0}` needs `{w0}`, which this `// vox:caps` directive does not name: the directive is exhaustive, so the run would exit 77"
        ),
    );
    let line = cx.slice(range);
    let new_line = format!("{} {}", line.trim_end(), words.join(" "));
    f.fixes.push(Fix {
        title: format!("Add {} to the directive", words.join(", ")).into(),
        applicability: Applicability::Unsafe,
        edits: vec![cx.edit(range, new_line)],
    });
    out.push(f);
}
