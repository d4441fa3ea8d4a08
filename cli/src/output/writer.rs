//! The formats' one entry: a [`Writer`] takes sorted findings a slice at a time and hands each
//! format's text to `emit`; GitHub annotations and the compact lines are written here, human,
//! JSON and SARIF by their modules.

use std::path::Path;

use vox_lints::Finding;
use vox_syntax::ColumnUnit;

use super::texts::{by_file, shown, Texts};
use super::{human, json, sarif};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
    Compact,
}

pub fn render(format: Format, findings: &[Finding], texts: &Texts, root: &Path) -> String {
    let mut out = String::new();
    write(format, findings, texts, root, &mut |s| out.push_str(s));
    out
}

/// [`render`], handing the text to `emit` piece by piece, one finding at a time in every
/// format (a workspace's output is never held whole, as text or as JSON values).
pub fn write(
    format: Format,
    findings: &[Finding],
    texts: &Texts,
    root: &Path,
    emit: &mut dyn FnMut(&str),
) {
    let mut w = Writer::new(format, texts, root);
    w.findings(findings, emit);
    w.finish(emit);
}

/// One file's findings (sorted) as a format that writes each finding alone gives them (human,
/// compact, GitHub), so that a worker can render them; `None` for JSON and SARIF, whose items
/// depend on what was written before.
pub fn render_alone(
    format: Format,
    findings: &[Finding],
    texts: &Texts,
    root: &Path,
) -> Option<String> {
    match format {
        Format::Human | Format::Compact | Format::Github => {
            let mut out = String::new();
            Writer::new(format, texts, root).findings(findings, &mut |s| out.push_str(s));
            Some(out)
        }
        Format::Json | Format::Sarif => None,
    }
}

/// Writes findings as they come, in the order given (sorted by [`Finding::order`]), a slice at a
/// time: `vox lint` hands it each file's findings as soon as every file before it is linted, so
/// no format holds a workspace's findings. The text equals [`write`] over all of them at once.
pub struct Writer<'a> {
    format: Format,
    texts: &'a Texts,
    root: &'a Path,
    written: usize,
    /// SARIF: the rule ids in order of first appearance (the rules follow the results).
    rule_ids: Vec<String>,
}

impl<'a> Writer<'a> {
    pub fn new(format: Format, texts: &'a Texts, root: &'a Path) -> Writer<'a> {
        Writer {
            format,
            texts,
            root,
            written: 0,
            rule_ids: Vec::new(),
        }
    }

    /// The next findings, sorted, all after the ones written before.
    pub fn findings(&mut self, findings: &[Finding], emit: &mut dyn FnMut(&str)) {
        let (texts, root) = (self.texts, self.root);
        match self.format {
            Format::Human => human::write(findings, texts, root, emit),
            Format::Json => {
                for f in findings {
                    json::item(f, self.written, texts, root, emit);
                    self.written += 1;
                }
            }
            Format::Sarif => {
                for f in findings {
                    sarif::item(f, self.written, &mut self.rule_ids, texts, root, emit);
                    self.written += 1;
                }
            }
            Format::Github => {
                for f in findings {
                    let ((l, c), (el, ec)) = texts.range(&f.file, f.range);
                    let level = match f.severity {
                        vox_lints::Severity::Error => "error",
                        vox_lints::Severity::Warning => "warning",
                    };
                    let msg = escape_github(&f.message);
                    emit(&format!(
                        "::{level} file={},line={l},col={c},endLine={el},endColumn={ec},title={}::{msg}\n",
                        escape_github_prop(&shown(&f.file, root)),
                        escape_github_prop(&f.code)
                    ));
                }
            }
            Format::Compact => {
                use std::fmt::Write;
                // Findings come sorted by file: each file's shown path and line index once, and
                // its lines written together.
                let mut out = String::new();
                for run in by_file(findings) {
                    let file = &run[0].file;
                    let name = shown(file, root);
                    let index = texts.index(file);
                    for f in run {
                        let (l, c) = index.map_or((1, 1), |idx| {
                            let lc = idx.line_col(f.range.start, ColumnUnit::Char);
                            (lc.line + 1, lc.col + 1)
                        });
                        let _ = writeln!(out, "{name}:{l}:{c}: {} {}", f.code, f.message);
                    }
                }
                emit(&out);
            }
        }
    }

    /// What follows the last finding (closing brackets, SARIF's rules).
    pub fn finish(self, emit: &mut dyn FnMut(&str)) {
        match self.format {
            Format::Json => json::finish(self.written, emit),
            Format::Sarif => sarif::finish(self.written, &self.rule_ids, emit),
            Format::Human | Format::Github | Format::Compact => {}
        }
    }
}

fn escape_github(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_github_prop(s: &str) -> String {
    escape_github(s).replace(':', "%3A").replace(',', "%2C")
}
