//! The human format: codespan-style excerpts, with the chain and help as notes and the fix
//! titles after them. Colour never (stable, pipe-friendly output; the CLI is read in CI logs).

use std::path::Path;

use codespan_reporting::diagnostic::{Diagnostic, Label, Severity as CsSeverity};
use codespan_reporting::term::{self, Config};
use vox_lints::{Finding, Severity};

use super::texts::{by_file, shown, Texts};
use crate::render::{self, DisplaySource, ShownFile};

/// Hands each finding's excerpt to `emit` as soon as it is made (a workspace's output is never
/// held whole).
pub fn write(findings: &[Finding], texts: &Texts, root: &Path, emit: &mut dyn FnMut(&str)) {
    let config = Config::default();
    // Findings come sorted by file: each file's display text and line starts are built once.
    for run in by_file(findings) {
        let file = &run[0].file;
        let text = texts.text(file);
        let src = DisplaySource::new(&text);
        let shown_file = ShownFile::new(shown(file, root), &src.text);
        for f in run {
            write_one(f, &src, &shown_file, &config, root, emit);
        }
    }
}

/// One finding's excerpt, notes and fixes.
fn write_one(
    f: &Finding,
    src: &DisplaySource,
    files: &ShownFile,
    config: &Config,
    root: &Path,
    emit: &mut dyn FnMut(&str),
) {
    // One file per `ShownFile`: its id is `()`.
    let id = ();
    let severity = match f.severity {
        Severity::Error => CsSeverity::Error,
        Severity::Warning => CsSeverity::Warning,
    };
    let mut notes = Vec::new();
    if let Some(help) = &f.help {
        for line in help.lines() {
            if line.starts_with("reached from") {
                notes.push(line.to_string());
            } else {
                notes.push(format!("help: {line}"));
            }
        }
    }
    for fix in &f.fixes {
        let kind = match fix.applicability {
            vox_lints::Applicability::Safe => "fix",
            vox_lints::Applicability::Unsafe => "unsafe fix",
        };
        notes.push(format!("{kind}: {}", fix.title));
    }
    // The finding's range, then each step of its chain in this file.
    let called: Vec<(std::ops::Range<usize>, String)> = f
        .chain
        .iter()
        .filter(|step| step.file == f.file)
        .map(|step| {
            let message = format!("called from `{}`", step.function);
            (src.map_range(step.range), message)
        })
        .collect();
    let primary = src.map_range(f.range);
    let mut plain = vec![render::PlainLabel {
        range: primary.clone(),
        primary: true,
        message: "",
    }];
    plain.extend(called.iter().map(|(range, message)| render::PlainLabel {
        range: range.clone(),
        primary: false,
        message,
    }));
    let mut out = String::new();
    let (sev, code) = (f.severity.as_str(), f.code.as_str());
    if render::plain_excerpt(&mut out, files, sev, code, &f.message, &plain, &notes) {
        emit(&out);
        return;
    }
    let mut labels = vec![Label::primary(id, primary)];
    for (range, message) in called {
        labels.push(Label::secondary(id, range).with_message(message));
    }
    let d = Diagnostic::new(severity)
        .with_code(f.code.clone())
        .with_message(f.message.clone())
        .with_labels(labels)
        .with_notes(notes);
    match term::emit_into_string(config, files, &d) {
        Ok(s) => emit(&s),
        Err(e) => emit(&format!(
            "{}[{}]: {} ({}: excerpt unavailable: {e})\n",
            f.severity.as_str(),
            f.code,
            f.message,
            shown(&f.file, root)
        )),
    }
}
