//! A file's findings as the language server shows them after an edit ([`Shown`]): in order, each
//! piece one finding or a whole function's findings as the lint memo keeps them ([`Run`]).
//!
//! Typing in one function of a finding-dense file changes one function's findings, yet every
//! stage after the rules (suppressions, the selection, severities, the sort, the server's filter
//! by file, its render) read each of the file's findings, after a typist's pause in cold memory:
//! a count, a code and a range per finding, a few times over. A run passes those stages whole
//! when nothing in them can change one of its findings (no suppression in the file; each selected
//! and at its final severity), sorts by its first and last finding's places, and the render
//! takes its last publish's JSON whole when the edit did not move it in lines and columns.

use std::cmp::Ordering;
use std::path::Path;
use std::sync::Arc;

use vox_syntax::TextRange;

use crate::finding::{order_paths, shifted, Finding, Held, Placed, SharedPath, SharedStr};
use crate::options::LintOptions;

/// One function's findings as the lint memo keeps them: sorted, without repeats, all in one
/// file, with what the stages after the rules ask of them as a whole.
#[derive(Clone, Debug)]
pub struct Run {
    findings: Vec<Arc<Finding>>,
    file: SharedPath,
    /// The first and the last finding's range (kept here: the merge reads them for every run,
    /// and the findings themselves lie apart, in memory a keystroke does not otherwise touch).
    first: TextRange,
    last: TextRange,
    /// The least and greatest offset they hold in `file` (ranges, chain steps, fixes' edits).
    lo: u32,
    hi: u32,
    /// Each shows as it is under the options it was linted with: selected, at its final
    /// severity.
    pub(crate) plain: bool,
    /// Each chain step lies in `file`.
    local: bool,
}

impl Run {
    /// `findings` (of one function, in `file`) as a run, under `opts`.
    pub(crate) fn new(
        mut findings: Vec<Arc<Finding>>,
        file: SharedPath,
        opts: &LintOptions,
    ) -> Run {
        Finding::sort_unique(&mut findings);
        let plain = findings.iter().all(|f| {
            opts.shows(&f.code, f.severity) && opts.severity(&f.code, f.severity) == f.severity
        });
        let local = findings
            .iter()
            .all(|f| f.file == file && f.chain.iter().all(|s| s.file == file));
        let mut run = Run {
            findings,
            file,
            first: TextRange::new(0, 0),
            last: TextRange::new(0, 0),
            lo: u32::MAX,
            hi: 0,
            plain,
            local,
        };
        run.refresh();
        run
    }

    /// Its findings, in order, each as far from where it lies now as the run's shift says.
    pub fn findings(&self) -> &[Arc<Finding>] {
        &self.findings
    }

    pub fn len(&self) -> usize {
        self.findings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.findings.is_empty()
    }

    /// The file its findings (and their chains, when [`Run::local`]) lie in.
    pub fn file(&self) -> &SharedPath {
        &self.file
    }

    /// The least and greatest offset its findings hold in their file, `shift` bytes on (it has
    /// findings).
    pub fn extent(&self, shift: i64) -> TextRange {
        shifted(TextRange::new(self.lo, self.hi.max(self.lo)), shift)
    }

    /// Whether every chain step lies in the findings' file (so that the whole run moves with
    /// that file's text).
    pub fn local(&self) -> bool {
        self.local
    }

    /// Its findings placed `shift` bytes on.
    pub fn placed(&self, shift: i64) -> impl Iterator<Item = Placed> + '_ {
        self.findings.iter().map(move |f| Placed {
            finding: f.clone(),
            shift,
        })
    }

    /// Its findings to change (renumbered; or moved, then [`Run::refresh`]).
    pub(crate) fn findings_mut(&mut self) -> &mut [Arc<Finding>] {
        &mut self.findings
    }

    /// Takes what it knows of its findings' places afresh (after they changed, keeping their
    /// order: an edit moves a function's offsets alike or the function is linted again).
    pub(crate) fn refresh(&mut self) {
        if let (Some(a), Some(b)) = (self.findings.first(), self.findings.last()) {
            (self.first, self.last) = (a.range, b.range);
        }
        (self.lo, self.hi) = (u32::MAX, 0);
        for r in self.findings.iter().flat_map(|f| f.offsets_in(&self.file)) {
            self.lo = self.lo.min(r.start);
            self.hi = self.hi.max(r.end);
        }
    }
}

/// One piece of [`Shown`]: a finding, or a run of them `shift` bytes on.
#[derive(Clone, Debug)]
pub enum Piece {
    One(Placed),
    Run(Arc<Run>, i64),
}

impl Piece {
    /// Where its first (or last) finding lies, and its file.
    fn end(&self, last: bool) -> (&SharedPath, TextRange) {
        match self {
            Piece::One(p) => (&p.finding.file, p.range()),
            Piece::Run(r, shift) => (
                &r.file,
                shifted(if last { r.last } else { r.first }, *shift),
            ),
        }
    }

    fn end_code(&self, last: bool) -> &SharedStr {
        match self {
            Piece::One(p) => &p.finding.code,
            Piece::Run(r, _) => {
                let f = if last {
                    r.findings.last()
                } else {
                    r.findings.first()
                };
                &f.expect("a piece's run has findings").code
            }
        }
    }

    /// Whether `self`'s last finding comes strictly before `next`'s first.
    fn before(&self, next: &Piece) -> bool {
        before(
            self.end(true),
            || self.end_code(true),
            next.end(false),
            || next.end_code(false),
        )
    }

    fn len(&self) -> usize {
        match self {
            Piece::One(_) => 1,
            Piece::Run(r, _) => r.len(),
        }
    }

    fn into_placed(self, out: &mut Vec<Placed>) {
        match self {
            Piece::One(p) => out.push(p),
            Piece::Run(r, shift) => out.extend(r.placed(shift)),
        }
    }
}

/// Whether the finding at `a` comes strictly before the one at `b` as [`Finding::sort_unique`]
/// orders them (equal: a repeat); their codes are read only when their places are equal.
fn before<'a, 'b>(
    a: (&SharedPath, TextRange),
    a_code: impl FnOnce() -> &'a SharedStr,
    b: (&SharedPath, TextRange),
    b_code: impl FnOnce() -> &'b SharedStr,
) -> bool {
    let ((fa, a), (fb, b)) = (a, b);
    order_paths(fa, fb)
        .then((a.start, a.end).cmp(&(b.start, b.end)))
        .then_with(|| a_code().cmp(b_code()))
        == Ordering::Less
}

/// A lint's findings in order (as [`Finding::sort_unique`] leaves them), with the lint memo's
/// runs whole.
#[derive(Clone, Debug, Default)]
pub struct Shown {
    pieces: Vec<Piece>,
    len: usize,
}

impl Shown {
    /// `ones` and `runs` (of one file each, none empty counted) merged in order. Runs that the
    /// order would interleave with another piece, or that repeat a finding, are taken apart.
    pub fn new(mut ones: Vec<Placed>, mut runs: Vec<(Arc<Run>, i64)>) -> Shown {
        runs.retain(|(r, _)| !r.is_empty());
        Held::sort_unique(&mut ones);
        if runs.is_empty() {
            return Shown::flat(ones);
        }
        runs.sort_by(|(a, sa), (b, sb)| {
            let (x, y) = (shifted(a.first, *sa), shifted(b.first, *sb));
            order_paths(&a.file, &b.file).then((x.start, x.end).cmp(&(y.start, y.end)))
        });
        let mut pieces = Vec::with_capacity(ones.len() + runs.len());
        let mut ones = ones.into_iter().peekable();
        for (run, shift) in runs {
            let piece = Piece::Run(run, shift);
            let first = piece.end(false);
            let one_first = |o: &Placed| {
                before(
                    (&o.finding.file, o.range()),
                    || &o.finding.code,
                    first,
                    || piece.end_code(false),
                )
            };
            while let Some(one) = ones.next_if(one_first) {
                pieces.push(Piece::One(one));
            }
            pieces.push(piece);
        }
        pieces.extend(ones.map(Piece::One));
        if pieces.windows(2).all(|w| w[0].before(&w[1])) {
            let len = pieces.iter().map(Piece::len).sum();
            return Shown { pieces, len };
        }
        let mut all = Vec::new();
        for p in pieces {
            p.into_placed(&mut all);
        }
        Held::sort_unique(&mut all);
        Shown::flat(all)
    }

    fn flat(ones: Vec<Placed>) -> Shown {
        Shown {
            len: ones.len(),
            pieces: ones.into_iter().map(Piece::One).collect(),
        }
    }

    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// How many findings.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every finding, in order.
    pub fn iter(&self) -> impl Iterator<Item = Placed> + '_ {
        self.pieces.iter().flat_map(|p| {
            let (one, run) = match p {
                Piece::One(o) => (Some(o.clone()), None),
                Piece::Run(r, shift) => (None, Some(r.placed(*shift))),
            };
            one.into_iter().chain(run.into_iter().flatten())
        })
    }

    /// Every finding, in order.
    pub fn into_placed(self) -> Vec<Placed> {
        let mut out = Vec::with_capacity(self.len);
        for p in self.pieces {
            p.into_placed(&mut out);
        }
        out
    }

    /// Its single findings and its runs, apart (to merge with others: [`Shown::new`]).
    pub fn into_parts(self) -> (Vec<Placed>, Vec<(Arc<Run>, i64)>) {
        let (mut ones, mut runs) = (Vec::new(), Vec::new());
        for p in self.pieces {
            match p {
                Piece::One(o) => ones.push(o),
                Piece::Run(r, shift) => runs.push((r, shift)),
            }
        }
        (ones, runs)
    }

    /// Keeps the findings in `file` (a run's file tells for all of it).
    pub fn retain_file(&mut self, file: &Path) {
        let mut same = crate::shared::SamePath::new(file);
        self.pieces.retain(|p| match p {
            Piece::One(o) => same.is(&o.finding.file),
            Piece::Run(r, _) => same.is(&r.file),
        });
        self.len = self.pieces.iter().map(Piece::len).sum();
    }
}

impl IntoIterator for Shown {
    type Item = Placed;
    type IntoIter = std::vec::IntoIter<Placed>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_placed().into_iter()
    }
}

/// Equal when they hold equal findings in the same order, wherever the runs lie (for tests: a
/// count each).
impl PartialEq for Shown {
    fn eq(&self, other: &Shown) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for Shown {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;

    fn finding(code: &str, at: u32, len: u32) -> Finding {
        Finding::new(
            code,
            Severity::Warning,
            Path::new("a.vox"),
            TextRange::new(at, at + len),
            format!("{code} at {at}"),
        )
    }

    fn run(found: &[(&str, u32, u32)]) -> Arc<Run> {
        let found = found
            .iter()
            .map(|&(c, a, l)| Arc::new(finding(c, a, l)))
            .collect();
        Arc::new(Run::new(
            found,
            Path::new("a.vox").into(),
            &LintOptions::default(),
        ))
    }

    fn one(code: &str, at: u32, len: u32) -> Placed {
        Placed::from(finding(code, at, len))
    }

    /// What `Shown` must show: every finding one by one, sorted and without repeats.
    fn flat(ones: &[Placed], runs: &[(Arc<Run>, i64)]) -> Vec<(String, u32, u32)> {
        let mut all: Vec<Placed> = ones.to_vec();
        for (r, shift) in runs {
            all.extend(r.placed(*shift));
        }
        Held::sort_unique(&mut all);
        all.iter()
            .map(|p| (p.finding.code.to_string(), p.range().start, p.range().end))
            .collect()
    }

    fn shown(s: &Shown) -> Vec<(String, u32, u32)> {
        s.iter()
            .map(|p| (p.finding.code.to_string(), p.range().start, p.range().end))
            .collect()
    }

    fn runs_in(s: &Shown) -> usize {
        s.pieces()
            .iter()
            .filter(|p| matches!(p, Piece::Run(..)))
            .count()
    }

    /// Runs stay whole between single findings, in the order of their (shifted) places.
    #[test]
    fn runs_stay_whole_in_order() {
        let a = run(&[("D003", 20, 5), ("D001", 10, 2)]);
        let b = run(&[("D001", 100, 10)]);
        let ones = vec![
            one("syntax.x", 5, 1),
            one("C001", 50, 1),
            one("L002", 2000, 1),
        ];
        // `a` shifted past `b` (an edit above it added 1,000 bytes).
        let runs = vec![(a.clone(), 1000), (b.clone(), 0)];
        let s = Shown::new(ones.clone(), runs.clone());
        assert_eq!(shown(&s), flat(&ones, &runs));
        assert_eq!(s.len(), 6);
        assert_eq!(runs_in(&s), 2);
        assert_eq!(shown(&s)[3], ("D001".to_string(), 1010, 1012));
    }

    /// A single finding between two of a run's, or one repeating a run's, takes the runs apart:
    /// the order and the repeat dropped are `Finding::sort_unique`'s.
    #[test]
    fn interleaved_or_repeated_findings_take_runs_apart() {
        let a = run(&[("D001", 10, 2), ("D003", 20, 5)]);
        let b = run(&[("D001", 100, 10)]);
        let runs = vec![(a, 0), (b, 0)];
        let inside = vec![one("C001", 15, 1)];
        let s = Shown::new(inside.clone(), runs.clone());
        assert_eq!(shown(&s), flat(&inside, &runs));
        assert_eq!(runs_in(&s), 0);
        let repeat = vec![one("D001", 100, 10)];
        let s = Shown::new(repeat.clone(), runs.clone());
        assert_eq!(shown(&s), flat(&repeat, &runs));
        assert_eq!(s.len(), 3);
        // Runs overlapping each other.
        let c = run(&[("D002", 12, 30)]);
        let runs = vec![(runs[0].0.clone(), 0), (c, 0)];
        let s = Shown::new(Vec::new(), runs.clone());
        assert_eq!(shown(&s), flat(&[], &runs));
        assert_eq!(runs_in(&s), 0);
    }
}
