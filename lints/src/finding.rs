//! What a rule reports: plain data with absolute file offsets, shared by every output (CLI
//! formats, the language server).

use std::borrow::Borrow;
use std::path::Path;
use std::sync::Arc;

use vox_syntax::TextRange;

pub use vox_syntax::Severity;

pub use crate::shared::{SamePath, SharedPath, SharedStr};

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
        Finding::order_files(a, b).then_with(|| Finding::order_in_file(a, b))
    }

    /// Orders two findings' files.
    fn order_files(a: &Finding, b: &Finding) -> std::cmp::Ordering {
        order_paths(&a.file, &b.file)
    }

    /// Sorts findings as users see them ([`Finding::order`]) and drops repeats: the same code at
    /// the same range of the same file.
    pub fn sort_unique<T: Borrow<Finding>>(findings: &mut Vec<T>) {
        sort_unique_by(findings, |t| t.borrow(), |t| t.borrow().range);
    }

    /// The offsets it holds in `file`: its own range, and its chain's steps' and fixes' edits'
    /// there.
    pub(crate) fn offsets_in<'a>(&'a self, file: &'a Path) -> impl Iterator<Item = TextRange> + 'a {
        let steps = self.chain.iter().filter(move |s| s.file == file);
        let edits = self.fixes.iter().flat_map(|x| &x.edits);
        std::iter::once(self.range)
            .chain(steps.map(|s| s.range))
            .chain(edits.filter(move |e| e.file == file).map(|e| e.range))
    }

    /// Changes each offset [`Finding::offsets_in`] gives.
    pub(crate) fn offsets_in_mut(&mut self, file: &Path, mut change: impl FnMut(&mut TextRange)) {
        change(&mut self.range);
        for s in self.chain.iter_mut().filter(|s| s.file == file) {
            change(&mut s.range);
        }
        for e in self.fixes.iter_mut().flat_map(|x| x.edits.iter_mut()) {
            if e.file == file {
                change(&mut e.range);
            }
        }
    }

    /// Orders one file's findings: by position, then code.
    pub fn order_in_file(a: &Finding, b: &Finding) -> std::cmp::Ordering {
        (a.range.start, a.range.end, &a.code).cmp(&(b.range.start, b.range.end, &b.code))
    }
}

/// Orders findings' files as users see them.
pub(crate) fn order_paths(a: &SharedPath, b: &SharedPath) -> std::cmp::Ordering {
    // Most comparisons are of one file's findings, which share the path (no bytes to compare);
    // equal bytes need no walk of components.
    if a.ptr_eq(b) || a.as_os_str() == b.as_os_str() {
        std::cmp::Ordering::Equal
    } else {
        a.cmp(b)
    }
}

/// A finding as a lint hands it out: owned (`vox lint`), shared with the memo that keeps it for
/// the next lint of the file (`Arc<Finding>`), or shared and moved ([`Placed`]). Its text is
/// [`Held::finding`]'s; its positions in its own file are [`Held::range`]'s (a placed finding's
/// own fields may lag behind).
pub trait Held: From<Finding> + Sized {
    /// The finding's text: code, severity, message, file. Its offsets in its own file are
    /// [`Held::range`]'s, not this one's `range`.
    fn finding(&self) -> &Finding;

    /// Where it lies in its file now.
    fn range(&self) -> TextRange {
        self.finding().range
    }

    /// The finding to change (a shared one is copied first if the memo still holds it; a moved
    /// one is put in place first).
    fn to_change(&mut self) -> &mut Finding;

    /// A placed finding as this kind (a run of findings taken apart: [`crate::Shown`]).
    fn from_placed(p: Placed) -> Self;

    /// Runs `report`, which pushes findings as rules do, and adds them to `out`.
    fn report_into(out: &mut Vec<Self>, report: impl FnOnce(&mut Vec<Finding>)) {
        let mut found = Vec::new();
        report(&mut found);
        out.extend(found.into_iter().map(Self::from));
    }

    /// Sorts as [`Finding::sort_unique`] does, by [`Held::range`].
    fn sort_unique(findings: &mut Vec<Self>) {
        sort_unique_by(findings, Self::finding, Self::range);
    }
}

/// [`Finding::sort_unique`] over anything that gives a finding's text and its range.
fn sort_unique_by<T>(
    findings: &mut Vec<T>,
    finding: impl Fn(&T) -> &Finding,
    range: impl Fn(&T) -> TextRange,
) {
    let key = |t: &T| {
        let r = range(t);
        (r.start, r.end)
    };
    findings.sort_by(|a, b| {
        let (fa, fb) = (finding(a), finding(b));
        Finding::order_files(fa, fb).then_with(|| (key(a), &fa.code).cmp(&(key(b), &fb.code)))
    });
    findings.dedup_by(|a, b| {
        let (fa, fb) = (finding(a), finding(b));
        fa.code == fb.code && range(a) == range(b) && fa.file == fb.file
    });
}

impl Held for Finding {
    fn finding(&self) -> &Finding {
        self
    }

    fn from_placed(p: Placed) -> Finding {
        Arc::unwrap_or_clone(p.into_finding())
    }

    fn to_change(&mut self) -> &mut Finding {
        self
    }

    fn report_into(out: &mut Vec<Finding>, report: impl FnOnce(&mut Vec<Finding>)) {
        report(out)
    }
}

impl Held for Arc<Finding> {
    fn finding(&self) -> &Finding {
        self
    }

    fn from_placed(p: Placed) -> Arc<Finding> {
        p.into_finding()
    }

    fn to_change(&mut self) -> &mut Finding {
        Arc::make_mut(self)
    }
}

/// A finding the lint memo kept (`crate::lint_file_memo`), and how far an edit above it has moved
/// it since it was made: every offset it holds in its own file (its range, and its chain's and
/// fixes' there) lies `shift` bytes further now. Typing in one function of a finding-dense file
/// moves the findings of every function after it; moving them this way copies none (a copy
/// was a new allocation and a count on four shared strings per finding, after a pause all in
/// cold memory), and the language server's render compares them with its last publish by
/// pointer.
#[derive(Clone, Debug)]
pub struct Placed {
    pub finding: Arc<Finding>,
    pub shift: i64,
}

impl Placed {
    /// Where `r`, an offset range of the finding (its own, or a chain step's or an edit's in
    /// `file`), lies now.
    pub fn at(&self, file: &SharedPath, r: TextRange) -> TextRange {
        if self.shift == 0 || !(file.ptr_eq(&self.finding.file) || *file == self.finding.file) {
            return r;
        }
        shifted(r, self.shift)
    }

    /// The finding with its offsets where they lie now (a copy when it has moved).
    pub fn into_finding(mut self) -> Arc<Finding> {
        self.settle();
        self.finding
    }

    /// Puts the finding's own offsets where they lie now (copying it when it has moved and is
    /// shared).
    fn settle(&mut self) {
        if self.shift == 0 {
            return;
        }
        let shift = std::mem::take(&mut self.shift);
        let g = Arc::make_mut(&mut self.finding);
        let file = g.file.clone();
        g.offsets_in_mut(&file, |r| *r = shifted(*r, shift));
    }
}

pub(crate) fn shifted(r: TextRange, shift: i64) -> TextRange {
    let at = |p: u32| (p as i64 + shift) as u32;
    TextRange::new(at(r.start), at(r.end))
}

/// Equal when the findings are, where they lie now (a copy each: for tests, not hot paths).
impl PartialEq for Placed {
    fn eq(&self, other: &Placed) -> bool {
        (Arc::ptr_eq(&self.finding, &other.finding) && self.shift == other.shift)
            || self.clone().into_finding() == other.clone().into_finding()
    }
}

impl Eq for Placed {}

impl From<Finding> for Placed {
    fn from(f: Finding) -> Placed {
        Placed {
            finding: Arc::new(f),
            shift: 0,
        }
    }
}

impl Held for Placed {
    fn finding(&self) -> &Finding {
        &self.finding
    }

    fn from_placed(p: Placed) -> Placed {
        p
    }

    fn range(&self) -> TextRange {
        if self.shift == 0 {
            self.finding.range
        } else {
            shifted(self.finding.range, self.shift)
        }
    }

    fn to_change(&mut self) -> &mut Finding {
        self.settle();
        Arc::make_mut(&mut self.finding)
    }
}
