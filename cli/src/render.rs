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
        // Texts are below 4 GiB (offsets are `u32` throughout).
        Ok(self.line_starts.partition_point(|&s| s as usize <= byte) - 1)
    }

    fn line_range(&'a self, (): (), line: usize) -> Result<Range<usize>, FilesError> {
        Ok(self.line_start(line)?..self.line_start(line + 1)?)
    }
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
        let mut cs = CsDiagnostic::new(severity)
            .with_code(d.code)
            .with_message(d.message.clone())
            .with_labels(vec![Label::primary(id, src.map_range(d.range))]);
        let mut notes = Vec::new();
        if let Some(help) = &d.help {
            notes.push(format!("help: {help}"));
        }
        if let Some(fix) = &d.fix {
            notes.push(format!("fix: {}", fix.title));
        }
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
