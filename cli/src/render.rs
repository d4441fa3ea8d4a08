//! Human-readable diagnostics with source excerpts (codespan-reporting).

use std::borrow::Cow;
use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, Config};
use vox_syntax::{Diagnostic, Severity, TextRange};

/// A file's text for display: invalid UTF-8 is replaced, and offsets are mapped to match.
pub struct DisplaySource<'a> {
    /// The file's own text when it is UTF-8 (no copy).
    pub text: Cow<'a, str>,
    /// Pairs of (original offset, display offset) at each replaced run; empty when the file is UTF-8.
    shifts: Vec<(u32, u32, u32)>,
}

impl<'a> DisplaySource<'a> {
    pub fn new(bytes: &'a [u8]) -> DisplaySource<'a> {
        if let Ok(s) = std::str::from_utf8(bytes) {
            return DisplaySource {
                text: Cow::Borrowed(s),
                shifts: Vec::new(),
            };
        }
        let mut text = String::with_capacity(bytes.len() + 16);
        let mut shifts = Vec::new();
        let mut orig = 0u32;
        for chunk in bytes.utf8_chunks() {
            text.push_str(chunk.valid());
            orig += chunk.valid().len() as u32;
            if !chunk.invalid().is_empty() {
                let bad = chunk.invalid().len() as u32;
                // (original start, original length, display start)
                shifts.push((orig, bad, text.len() as u32));
                text.push('\u{FFFD}');
                orig += bad;
            }
        }
        DisplaySource {
            text: Cow::Owned(text),
            shifts,
        }
    }

    /// Maps an offset into the original bytes to an offset into `text`.
    pub fn map(&self, offset: u32) -> usize {
        let mut delta: i64 = 0;
        for &(start, len, display) in &self.shifts {
            if offset < start {
                break;
            }
            if offset < start + len {
                return display as usize;
            }
            delta = display as i64 + 3 - (start + len) as i64;
        }
        (offset as i64 + delta).max(0) as usize
    }

    pub fn map_range(&self, r: TextRange) -> std::ops::Range<usize> {
        let start = self.map(r.start);
        let end = self.map(r.end).max(start);
        start..end
    }
}

/// One file as codespan reads it: what `SimpleFile` gives, without copying the text (a lint run
/// shows excerpts of hundreds of files).
pub struct ShownFile<'a> {
    name: String,
    text: &'a str,
    line_starts: Vec<u32>,
}

impl<'a> ShownFile<'a> {
    pub fn new(name: String, text: &'a str) -> ShownFile<'a> {
        ShownFile {
            name,
            text,
            line_starts: vox_syntax::line_starts(text.as_bytes()),
        }
    }

    /// The index of the line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        // Texts are below 4 GiB (offsets are `u32` throughout).
        self.line_starts.partition_point(|&s| s as usize <= offset) - 1
    }

    fn line_start(&self, line: usize) -> Result<usize, FilesError> {
        match self.line_starts.get(line) {
            Some(&start) => Ok(start as usize),
            None if line == self.line_starts.len() => Ok(self.text.len()),
            None => Err(FilesError::LineTooLarge {
                given: line,
                max: self.line_starts.len() - 1,
            }),
        }
    }
}

impl<'a> Files<'a> for ShownFile<'_> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(&self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(self.text)
    }

    fn line_index(&'a self, (): (), byte: usize) -> Result<usize, FilesError> {
        Ok(self.line_of(byte))
    }

    fn line_range(&'a self, (): (), line: usize) -> Result<Range<usize>, FilesError> {
        Ok(self.line_start(line)?..self.line_start(line + 1)?)
    }
}

/// A label for [`plain_excerpt`]: a range of the file, whether it is the primary one (`^`) or
/// a secondary one (`-`), and its message (empty for none).
pub struct PlainLabel<'m> {
    pub range: Range<usize>,
    pub primary: bool,
    pub message: &'m str,
}

/// One diagnostic as codespan's `term` writes it without colour, appended to `out`, when every
/// label lies within one line of printable ASCII and no two share a line (`labels[0]` is the
/// primary one); otherwise `false`, and nothing is written. Nearly every finding is of that
/// kind, and codespan spends tens of thousands of instructions on each (a tenth of `vox lint`
/// on a large workspace), measuring every character's display width. `plain_matches_codespan`
/// in the tests compares the two over generated lines, labels and notes.
pub fn plain_excerpt(
    out: &mut String,
    file: &ShownFile<'_>,
    severity: &str,
    code: &str,
    message: &str,
    labels: &[PlainLabel<'_>],
    notes: &[String],
) -> bool {
    use std::fmt::Write;
    // The shown line of a line index: its text without the line end, if printable ASCII.
    let shown = |line: usize| -> Option<(usize, usize, &str)> {
        let (start, next) = (file.line_start(line).ok()?, file.line_start(line + 1).ok()?);
        let source = file
            .text
            .get(start..next)?
            .trim_end_matches(['\n', '\r', '\0']);
        source
            .bytes()
            .all(|b| (0x20..0x7f).contains(&b))
            .then_some((start, next, source))
    };
    // (line, label) in line order.
    let mut lines: Vec<(usize, &PlainLabel<'_>)> = Vec::with_capacity(labels.len());
    for label in labels {
        let line = file.line_of(label.range.start);
        if label.range.end < label.range.start || file.line_of(label.range.end) != line {
            return false;
        }
        lines.push((line, label));
    }
    lines.sort_by_key(|&(line, _)| line);
    if lines.is_empty() || lines.windows(2).any(|w| w[0].0 == w[1].0) {
        return false;
    }
    // Every line shown, and the one line between two labelled lines when only one is.
    let mut sources = Vec::with_capacity(lines.len());
    for (i, &(line, _)) in lines.iter().enumerate() {
        let Some(source) = shown(line) else {
            return false;
        };
        let between = match lines.get(i + 1) {
            Some(&(next, _)) if next == line + 2 => match shown(line + 1) {
                Some((_, _, text)) => Some(text),
                None => return false,
            },
            _ => None,
        };
        sources.push((source, between));
    }
    let pad = (lines[lines.len() - 1].0 + 1).to_string().len();
    let gutter = |out: &mut String| out.extend(std::iter::repeat_n(' ', pad + 1));
    // The locus is the primary label's.
    let primary = &labels[0];
    let line = file.line_of(primary.range.start);
    let (start, next, _) = sources[lines.iter().position(|&(l, _)| l == line).unwrap_or(0)].0;
    let column = (primary.range.start - start).min(next - start) + 1;
    out.reserve(256 + message.len());
    out.push_str(severity);
    if !code.is_empty() {
        let _ = write!(out, "[{code}]");
    }
    let _ = writeln!(out, ": {message}");
    gutter(out);
    let _ = writeln!(out, "┌─ {}:{}:{column}", file.name, line + 1);
    gutter(out);
    out.push_str("│\n");
    for (i, (&(line, label), &((start, _, source), between))) in
        lines.iter().zip(&sources).enumerate()
    {
        let _ = writeln!(out, "{:>pad$} │ {source}", line + 1);
        gutter(out);
        out.push_str("│ ");
        let from = label.range.start - start;
        let to = (label.range.end - start).max(from + 1);
        let caret = if label.primary { '^' } else { '-' };
        // One column per byte, and one more after the line for a caret at its end.
        for col in 0..=source.len() {
            if from <= col && col < to {
                out.push(caret);
            } else if col < to {
                out.push(' ');
            }
        }
        if !label.message.is_empty() {
            out.push(' ');
            out.push_str(label.message);
        }
        out.push('\n');
        match (between, lines.get(i + 1)) {
            (Some(text), _) => {
                let _ = writeln!(out, "{:>pad$} │ {text}", line + 2);
            }
            (None, Some(&(next, _))) if next > line + 1 => {
                gutter(out);
                out.push_str("·\n");
            }
            _ => {}
        }
    }
    if !notes.is_empty() {
        gutter(out);
        out.push_str("│\n");
    }
    for note in notes {
        for (i, text) in note.lines().enumerate() {
            gutter(out);
            out.push(if i == 0 { '=' } else { ' ' });
            let _ = writeln!(out, " {text}");
        }
    }
    out.push('\n');
    true
}

/// Renders diagnostics of one file to a string, codespan style, without colour.
pub fn render(path: &str, bytes: &[u8], diags: &[Diagnostic]) -> String {
    let src = DisplaySource::new(bytes);
    let files = ShownFile::new(path.to_string(), &src.text);
    let id = ();
    let config = Config::default();
    let mut out = String::new();
    for d in diags {
        let severity = match d.severity {
            Severity::Error => CsSeverity::Error,
            Severity::Warning => CsSeverity::Warning,
        };
        let mut notes = Vec::new();
        if let Some(help) = &d.help {
            notes.push(format!("help: {help}"));
        }
        if let Some(fix) = &d.fix {
            notes.push(format!("fix: {}", fix.title));
        }
        let range = src.map_range(d.range);
        let (sev, code) = (d.severity.as_str(), d.code);
        let label = PlainLabel {
            range: range.clone(),
            primary: true,
            message: "",
        };
        if plain_excerpt(&mut out, &files, sev, code, &d.message, &[label], &notes) {
            continue;
        }
        let mut cs = CsDiagnostic::new(severity)
            .with_code(d.code)
            .with_message(d.message.clone())
            .with_labels(vec![Label::primary(id, range)]);
        cs = cs.with_notes(notes);
        match term::emit_into_string(&config, &files, &cs) {
            Ok(s) => out.push_str(&s),
            Err(e) => out.push_str(&format!(
                "{}[{}]: {} ({path}; excerpt unavailable: {e})\n",
                d.severity.as_str(),
                d.code,
                d.message
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// codespan's rendering of one primary label, for comparison.
    fn codespan(
        file: &ShownFile<'_>,
        error: bool,
        labels: &[PlainLabel<'_>],
        notes: &[String],
    ) -> String {
        let severity = if error {
            CsSeverity::Error
        } else {
            CsSeverity::Warning
        };
        let d = CsDiagnostic::new(severity)
            .with_code("D001")
            .with_message("a message, with `code`")
            .with_labels(
                labels
                    .iter()
                    .map(|l| {
                        let label = if l.primary {
                            Label::primary((), l.range.clone())
                        } else {
                            Label::secondary((), l.range.clone())
                        };
                        label.with_message(l.message)
                    })
                    .collect(),
            )
            .with_notes(notes.to_vec());
        term::emit_into_string(&Config::default(), file, &d).expect("renders")
    }

    /// A small deterministic generator (xorshift), so that a failure names its case.
    struct Gen(u64);
    impl Gen {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    #[test]
    fn plain_matches_codespan() {
        let pieces = [
            "let x = 1",
            "    ",
            "\t",
            "é",
            "\r",
            "",
            "math.sin(y)",
            " ",
            "\0",
            "// note",
            "{",
            "}",
        ];
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        let (mut plain, mut chained, mut total) = (0, 0, 0);
        for case in 0..6000 {
            // A text of a few lines, some of them long enough for two-digit line numbers.
            let lines = 1 + g.below(14);
            let mut text = String::new();
            for _ in 0..lines {
                for _ in 0..g.below(5) {
                    text.push_str(pieces[g.below(pieces.len())]);
                }
                text.push_str(if g.below(4) == 0 { "\r\n" } else { "\n" });
            }
            if g.below(3) == 0 {
                text.pop();
            }
            let boundaries: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            // Mostly short ranges, as findings have; sometimes any two offsets.
            let i = g.below(boundaries.len());
            let j = if g.below(5) == 0 {
                g.below(boundaries.len())
            } else {
                (i + g.below(8)).min(boundaries.len() - 1)
            };
            let mut ranges = Vec::with_capacity(3);
            ranges.push(boundaries[i.min(j)]..boundaries[i.max(j)]);
            // Up to two secondary labels elsewhere, as call chains in the same file add.
            for _ in 0..g.below(3) {
                let k = g.below(boundaries.len());
                let l = (k + g.below(6)).min(boundaries.len() - 1);
                ranges.push(boundaries[k]..boundaries[l]);
            }
            let notes: Vec<String> = (0..g.below(3))
                .map(|i| {
                    ["help: do this", "", "reached from `main`\nhelp: two lines"][i + g.below(2)]
                        .to_string()
                })
                .collect();
            let file = ShownFile::new("dir/a.vox".to_string(), &text);
            let error = g.below(2) == 0;
            let mut out = String::new();
            let severity = if error { "error" } else { "warning" };
            total += 1;
            let messages = ["called from `main`", ""];
            let labels: Vec<PlainLabel<'_>> = ranges
                .iter()
                .enumerate()
                .map(|(n, r)| PlainLabel {
                    range: r.clone(),
                    primary: n == 0,
                    message: if n == 0 { "" } else { messages[n % 2] },
                })
                .collect();
            let message = "a message, with `code`";
            if plain_excerpt(&mut out, &file, severity, "D001", message, &labels, &notes) {
                plain += 1;
                chained += usize::from(labels.len() > 1);
                let expected = codespan(&file, error, &labels, &notes);
                assert_eq!(
                    out, expected,
                    "case {case}: text {text:?}, ranges {ranges:?}, notes {notes:?}"
                );
            } else {
                assert!(
                    out.is_empty(),
                    "case {case}: nothing is written when it declines"
                );
            }
        }
        // Both paths are exercised, and the direct one with secondary labels too.
        assert!(
            plain > total / 10 && plain < total && chained > 100,
            "{plain} of {total} cases were plain, {chained} of them with several labels"
        );
    }
}
