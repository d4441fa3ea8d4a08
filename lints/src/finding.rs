//! What a rule reports: plain data with absolute file offsets, shared by every output (CLI
//! formats, the language server).

use std::borrow::Borrow;
use std::sync::Arc;

use vox_syntax::TextRange;

pub use vox_syntax::Severity;

pub use crate::shared::{SharedPath, SharedStr};

/// One step of an explanation chain: `main → write_report → stamp → time.now_ms()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainStep {
    pub file: SharedPath,
    /// The call made at this step (the entry function's name for the first step).
    pub range: TextRange,
    /// The function this step is in.
    pub function: SharedStr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub file: SharedPath,
    pub range: TextRange,
    pub new_text: SharedStr,
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
    pub title: SharedStr,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// `D003`, `check.arity`, `syntax.semicolon`, `config.invalid`.
    pub code: SharedStr,
    pub severity: Severity,
    pub file: SharedPath,
    /// Byte offsets in the file.
    pub range: TextRange,
    pub message: SharedStr,
    /// An extra line saying what to do.
    pub help: Option<SharedStr>,
    /// One shortest call chain from an entry point to the source, when the finding is reached
    /// through calls (empty otherwise).
    pub chain: Vec<ChainStep>,
    pub fixes: Vec<Fix>,
}

impl Finding {
    pub fn new(
        code: impl Into<SharedStr>,
        severity: Severity,
        file: impl Into<SharedPath>,
        range: TextRange,
        message: impl Into<SharedStr>,
    ) -> Finding {
        Finding {
            code: code.into(),
            severity,
            file: file.into(),
            range,
            message: message.into(),
            help: None,
            chain: Vec::new(),
            fixes: Vec::new(),
        }
    }

    /// Orders findings as users see them: by file, then [`Finding::order_in_file`].
    pub fn order(a: &Finding, b: &Finding) -> std::cmp::Ordering {
        // Most comparisons are of one file's findings, which share the path (no bytes to
        // compare); equal bytes need no walk of components.
        let files = if a.file.ptr_eq(&b.file) || a.file.as_os_str() == b.file.as_os_str() {
            std::cmp::Ordering::Equal
        } else {
            a.file.cmp(&b.file)
        };
        files.then_with(|| Finding::order_in_file(a, b))
    }

    /// Sorts findings as users see them ([`Finding::order`]) and drops repeats: the same code at
    /// the same range of the same file.
    pub fn sort_unique<T: Borrow<Finding>>(findings: &mut Vec<T>) {
        findings.sort_by(|a, b| Finding::order(a.borrow(), b.borrow()));
        findings.dedup_by(|a, b| {
            let (a, b): (&Finding, &Finding) = ((*a).borrow(), (*b).borrow());
            a.code == b.code && a.range == b.range && a.file == b.file
        });
    }

    /// Orders one file's findings: by position, then code.
    pub fn order_in_file(a: &Finding, b: &Finding) -> std::cmp::Ordering {
        (a.range.start, a.range.end, &a.code).cmp(&(b.range.start, b.range.end, &b.code))
    }
}

/// A finding as a lint hands it out: owned (`vox lint`), or shared with the memo that keeps it
/// for the next lint of the file (`crate::lint_file_memo`, the language server).
pub trait Held: Borrow<Finding> + From<Finding> + Sized {
    /// The finding to change (a shared one is copied first if the memo still holds it).
    fn to_change(&mut self) -> &mut Finding;

    /// Runs `report`, which pushes findings as rules do, and adds them to `out`.
    fn report_into(out: &mut Vec<Self>, report: impl FnOnce(&mut Vec<Finding>));
}

impl Held for Finding {
    fn to_change(&mut self) -> &mut Finding {
        self
    }

    fn report_into(out: &mut Vec<Finding>, report: impl FnOnce(&mut Vec<Finding>)) {
        report(out)
    }
}

impl Held for Arc<Finding> {
    fn to_change(&mut self) -> &mut Finding {
        Arc::make_mut(self)
    }

    fn report_into(out: &mut Vec<Arc<Finding>>, report: impl FnOnce(&mut Vec<Finding>)) {
        let mut found = Vec::new();
        report(&mut found);
        out.extend(found.into_iter().map(Arc::new));
    }
}
