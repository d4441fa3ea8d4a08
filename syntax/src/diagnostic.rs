//! Diagnostics: a code, a severity, a message, a range, and optional machine-applicable fixes.

use crate::text_range::TextRange;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Replace `range` with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub range: TextRange,
    pub new_text: String,
}

/// A quick fix: a title and the edits that apply it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<TextEdit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code such as `syntax.semicolon`.
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub range: TextRange,
    /// An extra line telling the user what to do, when the message alone is not enough.
    pub help: Option<String>,
    pub fix: Option<Fix>,
}

impl Diagnostic {
    pub fn error(code: &'static str, range: TextRange, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            range,
            help: None,
            fix: None,
        }
    }

    pub fn warning(code: &'static str, range: TextRange, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, range, message)
        }
    }

    /// Adds a fix that replaces `range` with `new_text`.
    pub fn with_fix(
        mut self,
        title: impl Into<String>,
        range: TextRange,
        new_text: impl Into<String>,
    ) -> Diagnostic {
        self.fix = Some(Fix {
            title: title.into(),
            edits: vec![TextEdit {
                range,
                new_text: new_text.into(),
            }],
        });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
