//! What a rule reports: plain data with absolute file offsets, shared by every output (CLI
//! formats, the language server).

use std::path::PathBuf;

use vox_syntax::TextRange;

pub use vox_syntax::Severity;

/// One step of an explanation chain: `main → write_report → stamp → time.now_ms()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainStep {
    pub file: PathBuf,
    /// The call made at this step (the entry function's name for the first step).
    pub range: TextRange,
    /// The function this step is in.
    pub function: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub file: PathBuf,
    pub range: TextRange,
    pub new_text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Applicability {
    /// Keeps behaviour; `--fix` applies it.
    Safe,
    /// May change behaviour or types; only with `--unsafe-fixes`.
    Unsafe,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// `D003`, `check.arity`, `syntax.semicolon`, `config.invalid`.
    pub code: String,
    pub severity: Severity,
    pub file: PathBuf,
    /// Byte offsets in the file.
    pub range: TextRange,
    pub message: String,
    /// An extra line saying what to do.
    pub help: Option<String>,
    /// One shortest call chain from an entry point to the source, when the finding is reached
    /// through calls (empty otherwise).
    pub chain: Vec<ChainStep>,
    pub fixes: Vec<Fix>,
}

impl Finding {
    pub fn new(
        code: impl Into<String>,
        severity: Severity,
        file: PathBuf,
        range: TextRange,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            code: code.into(),
            severity,
            file,
            range,
            message: message.into(),
            help: None,
            chain: Vec::new(),
            fixes: Vec::new(),
        }
    }

    /// Orders findings as users see them: by file, then [`Finding::order_in_file`].
    pub fn order(a: &Finding, b: &Finding) -> std::cmp::Ordering {
        // Most comparisons are of one file's findings: equal bytes need no walk of components.
        let files = if a.file.as_os_str() == b.file.as_os_str() {
            std::cmp::Ordering::Equal
        } else {
            a.file.cmp(&b.file)
        };
        files.then_with(|| Finding::order_in_file(a, b))
    }

    /// Sorts findings as users see them ([`Finding::order`]) and drops repeats: the same code at
    /// the same range of the same file.
    pub fn sort_unique(findings: &mut Vec<Finding>) {
        findings.sort_by(Finding::order);
        findings.dedup_by(|a, b| a.code == b.code && a.range == b.range && a.file == b.file);
    }

    /// Orders one file's findings: by position, then code.
    pub fn order_in_file(a: &Finding, b: &Finding) -> std::cmp::Ordering {
        (a.range.start, a.range.end, &a.code).cmp(&(b.range.start, b.range.end, &b.code))
    }
}
