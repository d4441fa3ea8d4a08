//! Per-function findings kept from one lint of a file for the next (issue 20: the language server
//! lints the file being edited after every keystroke, and typing in one function should not cost
//! every other function's rules again).
//!
//! The rules that report inside one function (D, I, C004, C005 and the function's `check.*`) read
//! its facts and position, and a little of the rest of the workspace:
//! - the calls of the file's functions (the chains);
//! - the order-related facts of the local functions it passes order to (D002/D007, `order_args`);
//! - the bound of its int parameters (D004, `param_tier`) and whether some caller observes its
//!   result's order (`return_observed`);
//! - path literals colliding with another (D005).
//!
//! After an edit, a function the edit did not touch keeps its findings, moved with the text, when
//! each of these is unchanged; whatever the memo cannot vouch for is linted again. An edit that
//! changes the file's items (a function typed, renamed, given parameters; a synthetic main come
//! or gone) is followed function by function, by identity: a function is touched when its text
//! or its scope (what its lowering read of the items) changed; the memo gives up when the entry
//! points moved or a function a chain reached is gone. Everything
//! outside the file (other files, configuration, options) is vouched for by the caller's stamp,
//! which changes whenever any input but this file's text does. Line numbers in messages stay true
//! because, after an edit that adds or removes lines, the lines named by the findings of a
//! function at or after it are renumbered ([`Renumber`]), and the function is linted again when
//! one names a line the edit touched.

use std::sync::Arc;

use salsa::plumbing::AsId;
use vox_analysis::facts::{CallTarget, FnFacts, PathShape};
use vox_analysis::{fn_base, fn_facts, FnDef, SourceFile};
use vox_syntax::TextRange;

use crate::context::FileCx;
use crate::finding::{Finding, Placed};
use crate::options::LintOptions;
use crate::run::Run;

/// What [`crate::lint_file_memo`] keeps of one lint of a file for the next.
pub struct FileMemo {
    file: SourceFile,
    stamp: u64,
    opts: LintOptions,
    text: Arc<[u8]>,
    items: Arc<vox_hir::ItemTree>,
    /// In `FileItems::all` order.
    fns: Vec<FnMemo>,
    /// The functions a syntax error lay in (left out of the lint).
    broken: Vec<salsa::Id>,
    /// The file's entry points (chains start there).
    entries: Vec<salsa::Id>,
    /// The chains the lint that made this searched for, if it did: the next lint takes them
    /// when the file's items are as they were (the calls of a function a chain reached are
    /// compared, and the lint gives up when they changed), so that a finding in the function
    /// being typed costs no search over the file's calls.
    chains: Option<Arc<crate::chain::Chains>>,
    /// How many functions the lint that made this memo linted, and how many it kept.
    pub linted: usize,
    pub kept: usize,
}

struct FnMemo {
    id: salsa::Id,
    /// Where the function lies in `text`.
    start: u32,
    len: u32,
    /// Its calls of user functions (ranges relative to `start`), and whether each is direct
    /// (chains).
    calls: Vec<(CallTarget, TextRange, bool)>,
    /// The file's functions (by name) whose parameters' order or output its D002/D007
    /// findings read.
    order_callees: Vec<Arc<str>>,
    /// Whether a chain reached it, when the lint that made this knew (it searches only when
    /// something needs it: finding the chains costs a walk over the file's calls).
    reached: Option<bool>,
    /// What its lowering read of the file's items (none for the synthetic main, which reads them
    /// all): its facts are as they were when its text and this are.
    scope: Option<Arc<vox_analysis::FnScope>>,
    /// Whether it has a path literal (D005 collisions).
    literals: bool,
    /// Its int parameters' bound, when a D004 finding depends on it.
    tier: Option<u8>,
    /// Whether a caller observes its result's order, when D002/D007 depend on it.
    observed: Option<bool>,
    /// What the per-function rules reported in it (shared with the lints' output), each
    /// `shift` bytes before where it lies now (see [`Placed`]). An edit that lies wholly before
    /// or after the offsets they hold ([`Run::extent`]) moves all of them alike.
    run: Arc<Run>,
    shift: i64,
}

impl FnMemo {
    /// A function with no memo yet (linted again: its findings are never taken from here).
    fn placeholder(id: salsa::Id, run: Arc<Run>) -> FnMemo {
        FnMemo {
            id,
            start: 0,
            len: 0,
            calls: Vec::new(),
            order_callees: Vec::new(),
            literals: false,
            tier: None,
            observed: None,
            reached: None,
            scope: None,
            run,
            shift: 0,
        }
    }

    /// Hands out its findings where they lie now: as a run, or one by one for the synthetic
    /// main (whose findings lie between the other functions).
    fn hand_out(&self, synthetic: bool, out: &mut Vec<Placed>, runs: &mut Vec<(Arc<Run>, i64)>) {
        if synthetic {
            out.extend(self.run.placed(self.shift));
        } else if !self.run.is_empty() {
            runs.push((self.run.clone(), self.shift));
        }
    }

    /// Moves its findings with the edit; false when one cannot be moved (an offset inside what
    /// changed). When the edit lies wholly before or after every offset they hold, only
    /// `shift` changes; otherwise each is put in place and moved ([`Moved::finding`]).
    fn follow(&mut self, moved: &Moved, path: &std::path::Path) -> bool {
        if self.run.is_empty() || moved.delta == 0 {
            return true;
        }
        let e = self.run.extent(0);
        let (lo, hi) = (e.start as i64 + self.shift, e.end as i64 + self.shift);
        if hi <= moved.a as i64 {
            return true;
        }
        if lo >= moved.b_old as i64 {
            self.shift += moved.delta;
            return true;
        }
        let shift = std::mem::take(&mut self.shift);
        let run = Arc::make_mut(&mut self.run);
        let ok = run.findings_mut().iter_mut().all(|f| {
            if shift != 0 {
                let p = Placed {
                    finding: f.clone(),
                    shift,
                };
                *f = p.into_finding();
            }
            moved.finding(f, path)
        });
        run.refresh();
        ok
    }

    /// Renumbers the lines its findings name; false when one cannot be.
    fn renumber(&mut self, r: Renumber) -> bool {
        if !self.run.findings().iter().any(names_a_line) {
            return true;
        }
        let run = Arc::make_mut(&mut self.run);
        run.findings_mut().iter_mut().all(|f| r.finding(f))
    }
}

/// `f` with the severity the options give it, for the memo to keep: the lint's own pass over
/// severities (after suppressions and the selection) then changes no kept finding, where it
/// copied each one on every keystroke under a setting such as `vox.lint.determinism`. A
/// `syntax.` or `check.` finding keeps its rule's severity: whether it shows when its code is not
/// selected depends on it. (`LintOptions::severity` of its own answer is that answer.)
fn settled(mut f: Finding, opts: &LintOptions) -> Finding {
    if !f.code.starts_with("syntax.") && !f.code.starts_with("check.") {
        f.severity = opts.severity(&f.code, f.severity);
    }
    f
}

/// How an edit moved the text: `old[a..b_old]` became `new[a..b_new]`.
struct Moved {
    a: u32,
    b_old: u32,
    delta: i64,
}

impl Moved {
    /// Where a range of the old text lies in the new one; `None` when an end lies inside what
    /// changed.
    fn range(&self, r: TextRange) -> Option<TextRange> {
        let shift = |p: u32| (p as i64 + self.delta) as u32;
        if r.end <= self.a {
            Some(r)
        } else if r.start >= self.b_old {
            Some(TextRange::new(shift(r.start), shift(r.end)))
        } else if r.start < self.a && r.end >= self.b_old {
            Some(TextRange::new(r.start, shift(r.end)))
        } else {
            None
        }
    }

    /// Moves every range of `f` that lies in `path`; false when one cannot be moved. A finding
    /// that lies before the edit is left as it is (not copied out of what shares it).
    fn finding(&self, f: &mut Arc<Finding>, path: &std::path::Path) -> bool {
        if self.delta == 0 || f.offsets_in(path).all(|r| r.end <= self.a) {
            return true;
        }
        let mut ok = true;
        Arc::make_mut(f).offsets_in_mut(path, |r| match self.range(*r) {
            Some(m) => *r = m,
            None => ok = false,
        });
        ok
    }
}

/// Whether a finding's text names a line ([`FileCx::line`]'s numbers: where an order shows,
/// a colliding literal's place). Only an earlier place of the same file is named, so a function
/// before an edit keeps its findings when lines move.
fn names_a_line(f: &Arc<Finding>) -> bool {
    f.message.contains("line") || f.help.as_deref().is_some_and(|h| h.contains("line"))
}

/// How an edit that adds or removes lines renumbers them: lines before `first` keep their
/// numbers, lines after `last` (the old text's) move by `delta`; a line from `first` to `last`
/// may hold places on both sides of the edit, or inside it.
#[derive(Clone, Copy)]
struct Renumber {
    first: u32,
    last: u32,
    delta: i64,
}

impl Renumber {
    /// `text` with each `line N` renumbered; `None` when one names a line the edit touched
    /// (then the finding's function is linted again). Messages name lines only as `line N`
    /// ([`FileCx::line`]'s 1-based numbers).
    fn text(self, text: &str) -> Option<String> {
        let mut out = String::with_capacity(text.len() + 4);
        let mut rest = text;
        while let Some(i) = rest.find("line ") {
            let (head, tail) = rest.split_at(i + "line ".len());
            out.push_str(head);
            let word = !head[..i]
                .bytes()
                .next_back()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
            let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
            if !word || digits == 0 {
                rest = tail;
                continue;
            }
            rest = &tail[digits..];
            let n: u32 = tail[..digits].parse().ok()?;
            let n = if n < self.first {
                n
            } else if n > self.last {
                u32::try_from(n as i64 + self.delta).ok()?
            } else {
                return None;
            };
            out.push_str(&n.to_string());
        }
        out.push_str(rest);
        Some(out)
    }

    /// Renumbers the lines `f`'s message and help name; false when one cannot be.
    fn finding(self, f: &mut Arc<Finding>) -> bool {
        if !names_a_line(f) {
            return true;
        }
        let Some(message) = self.text(&f.message) else {
            return false;
        };
        let help = match f.help.as_deref().map(|h| self.text(h)) {
            Some(None) => return false,
            Some(Some(h)) => Some(h),
            None => None,
        };
        if message == f.message && help.as_deref() == f.help.as_deref() {
            return true;
        }
        let f = Arc::make_mut(f);
        f.message = message.into();
        f.help = help.map(Into::into);
        true
    }
}

/// Where each function of `defs` (`FileItems::all` order) starts: the parse's table for the
/// functions (one query, where `fn_base` is one each), `fn_base` for the synthetic main.
fn bases(cx: &FileCx<'_>, defs: &[FnDef<'_>]) -> Vec<u32> {
    let starts = vox_analysis::fn_starts(cx.db, cx.file);
    let functions = cx.items.fns.len();
    defs.iter()
        .enumerate()
        .map(|(i, d)| match starts.get(i) {
            Some(&s) if i < functions => s,
            _ => fn_base(cx.db, *d),
        })
        .collect()
}

fn has_literals(facts: &FnFacts) -> bool {
    facts
        .paths
        .iter()
        .any(|p| matches!(p.shape, PathShape::Literal(..)))
}

fn at(base: u32, r: TextRange) -> TextRange {
    TextRange::new(base + r.start, base + r.end)
}

/// Whether `cx`'s file has literals colliding with another's (D005): their findings name
/// positions the memo does not follow, so such a file is linted whole.
fn collides(cx: &FileCx<'_>) -> bool {
    !crate::rules::literal_index::file_collisions(cx.db, cx.file).is_empty()
}

impl FileMemo {
    /// Which functions of `cx`'s file must be linted again (by position in `FileItems::all`);
    /// the others' findings in the returned memo are moved to the new text. `None`: lint all.
    pub(crate) fn plan(
        mut self,
        cx: &FileCx<'_>,
        opts: &LintOptions,
        stamp: u64,
    ) -> Option<(FileMemo, Vec<bool>)> {
        if self.file != cx.file || self.stamp != stamp || self.opts != *opts {
            return None;
        }
        let (old, new) = (&*self.text, &*cx.text);
        let (a, s) = vox_syntax::common_ends(old, new);
        let (b_old, b_new) = (old.len() - s, new.len() - s);
        // Findings after an edit that adds or removes lines stay where they were in the text,
        // but the lines their messages name move: those are renumbered (or, when one names a
        // line the edit touched, linted again).
        let (lines_old, lines_new) = (
            vox_syntax::count_newlines(&old[a..b_old]),
            vox_syntax::count_newlines(&new[a..b_new]),
        );
        let renumber = (lines_old != lines_new).then(|| {
            let first = vox_syntax::count_newlines(&old[..a]) as u32 + 1;
            Renumber {
                first,
                last: first + lines_old as u32,
                delta: lines_new as i64 - lines_old as i64,
            }
        });
        let moved = Moved {
            a: a as u32,
            b_old: b_old as u32,
            delta: b_new as i64 - b_old as i64,
        };
        let items = &cx.items.items;
        let db = cx.db;
        let defs: Vec<FnDef<'_>> = cx.items.all().collect();
        // Functions whose facts may differ though their text did not (their scope changed),
        // and those new since (no memo).
        let mut rescoped = vec![false; defs.len()];
        let mut new_fn = vec![false; defs.len()];
        if Arc::ptr_eq(&self.items, items) || *self.items == **items {
            if defs.len() != self.fns.len()
                || defs.iter().zip(&self.fns).any(|(d, m)| d.as_id() != m.id)
            {
                return None;
            }
        } else {
            // Functions added, removed, renamed or changed in signature, a synthetic main come
            // or gone: the memo follows each function by identity (file and name). Chains must
            // start where they did, and no function a chain reached may be gone.
            let entries: Vec<salsa::Id> = vox_analysis::entry_points(db, cx.file)
                .iter()
                .map(|d| d.as_id())
                .collect();
            if entries != self.entries {
                return None;
            }
            // With only the top-level statements' flag changed, no scope can have.
            let scopes_same = self.items.decls == items.decls
                && self.items.fns == items.fns
                && self.items.types == items.types
                && self.items.imports == items.imports;
            let mut by_id: rustc_hash::FxHashMap<salsa::Id, FnMemo> =
                self.fns.drain(..).map(|m| (m.id, m)).collect();
            for (i, d) in defs.iter().enumerate() {
                match by_id.remove(&d.as_id()) {
                    Some(m) => {
                        rescoped[i] = !scopes_same
                            && m.scope.as_ref().is_none_or(|s| {
                                let now = vox_analysis::fn_scope(db, *d);
                                !Arc::ptr_eq(s, now) && **s != **now
                            });
                        self.fns.push(m);
                    }
                    None => {
                        new_fn[i] = true;
                        let run = Arc::new(Run::new(Vec::new(), cx.path.clone(), opts));
                        self.fns.push(FnMemo::placeholder(d.as_id(), run));
                    }
                }
            }
            if by_id.values().any(|m| m.reached != Some(false)) {
                return None;
            }
        }
        // The functions the edit touched (the synthetic main spans the whole file; one that
        // just came has no memo).
        let bases = bases(cx, &defs);
        let functions = cx.items.fns.len();
        let touched: Vec<bool> = defs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let m = &self.fns[i];
                let span = TextRange::new(m.start, m.start + m.len);
                new_fn[i]
                    || rescoped[i]
                    || i >= functions
                    || moved.range(span).map(|r| r.start) != Some(bases[i])
                    || span.end > moved.a && span.start < moved.b_old
                    || d.text(db).len() != m.len
            })
            .collect();
        // Who reaches a function depends on its callers' calls, not its own: the old chains answer
        // for the touched functions below, and stay true unless a function they reached changed
        // its calls (the lint then gives up) or is gone (given up above). A new function is
        // asked of a new search: a call an untouched function made may name it now.
        let old_chains = self.chains.clone();
        let reached = |d| match &old_chains {
            Some(c) => c.reaches(d),
            None => cx.reached(d),
        };
        // What touched functions show the others must be as it was: their calls (the chains
        // through them, unless no chain reaches them: the items are as they were, so what
        // reaches a function is too), and no new or old path literal among them when the file
        // has collisions.
        let mut literals = false;
        let mut moved_calls = Vec::new();
        for (i, d) in defs.iter().enumerate().filter(|(i, _)| touched[*i]) {
            let facts = fn_facts(db, *d);
            literals |= has_literals(facts);
            let m = &self.fns[i];
            if new_fn[i] {
                // New: nothing reached it before, and only a call typed elsewhere could now. No
                // call can reach a synthetic main, and the entry points are as they were (it is
                // none of them beside `fn main`): no search for it.
                let synthetic = d.index(db) == u32::MAX;
                if (!synthetic || self.entries.contains(&d.as_id())) && cx.reached(*d) {
                    return None;
                }
                continue;
            }
            literals |= m.literals;
            let base = fn_base(db, *d);
            let same_calls = facts.calls.len() == m.calls.len()
                && facts
                    .calls
                    .iter()
                    .zip(&m.calls)
                    .all(|(c, (t0, r0, direct0))| {
                        c.target == *t0
                            && c.direct == *direct0
                            && moved.range(at(m.start, *r0)) == Some(at(base, c.range))
                    });
            if !same_calls && reached(*d) {
                return None;
            }
            // The same calls, moved inside the function (an edit before them in its body): the
            // kept chains' steps through it move with them.
            if old_chains.is_some()
                && m.calls
                    .iter()
                    .zip(&facts.calls)
                    .any(|(o, c)| o.1 != c.range)
                && reached(*d)
            {
                let pairs = m.calls.iter().zip(&facts.calls);
                moved_calls.push((d.as_id(), pairs.map(|(o, c)| (o.1, c.range)).collect()));
            }
        }
        if literals && opts.enabled("D005") && collides(cx) {
            return None;
        }
        // Untouched functions keep their findings unless what they read of others changed (an
        // untouched function's facts are as they were, so only touched ones count).
        let mut lint = touched.clone();
        // A function a syntax error now lies in, or no longer does, is linted again (left out,
        // or back in).
        let broken = cx.broken_functions();
        for (i, d) in defs.iter().enumerate() {
            if touched[i] || broken.contains(&i) != self.broken.contains(&d.as_id()) {
                lint[i] = true;
                continue;
            }
            let m = &mut self.fns[i];
            let stale = m
                .order_callees
                .iter()
                .any(|n| cx.items.position(n).is_none_or(|k| touched[k as usize]))
                || m.tier
                    .is_some_and(|t| t != vox_analysis::param_tier(db, *d))
                || m.observed
                    .is_some_and(|o| o != vox_analysis::return_observed(db, *d))
                || !m.follow(&moved, &cx.path)
                || renumber.is_some_and(|r| m.start + m.len > moved.a && !m.renumber(r));
            lint[i] = stale;
        }
        if let Some(mut c) = old_chains {
            if !moved_calls.is_empty() {
                c = Arc::new(c.with_calls_moved(&moved_calls));
            }
            let _ = cx.chains.set(c);
        }
        Some((self, lint))
    }

    /// The memo after a lint that linted the functions `lint` marks (all when `prev` is `None`)
    /// and reported `fresh` in them; hands out every function's findings, as a run to `runs`
    /// (the synthetic main's one by one to `out`). `None` when the file cannot be kept (a
    /// finding in no function, colliding literals).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn update(
        cx: &FileCx<'_>,
        prev: Option<FileMemo>,
        lint: &[bool],
        fresh: Vec<Finding>,
        opts: &LintOptions,
        stamp: u64,
        out: &mut Vec<Placed>,
        runs: &mut Vec<(Arc<Run>, i64)>,
    ) -> Option<FileMemo> {
        let db = cx.db;
        let defs: Vec<FnDef<'_>> = cx.items.all().collect();
        let entries: Vec<salsa::Id> = vox_analysis::entry_points(db, cx.file)
            .iter()
            .map(|d| d.as_id())
            .collect();
        let spans: Vec<(u32, u32)> = bases(cx, &defs)
            .into_iter()
            .zip(&defs)
            .map(|(base, d)| (base, d.text(db).len()))
            .collect();
        let has_main = cx.items.main.is_some();
        let fns_end = defs.len() - usize::from(has_main);
        // The function each fresh finding lies in: the functions (main aside) in source order,
        // and the synthetic main owns what lies in none.
        let owner = |f: &Finding| -> Option<usize> {
            let at = f.range.start;
            let k = spans[..fns_end].partition_point(|&(s, _)| s <= at);
            if k > 0 && at < spans[k - 1].0 + spans[k - 1].1 {
                Some(k - 1)
            } else if has_main {
                Some(fns_end)
            } else {
                None
            }
        };
        let mut by_fn: Vec<Vec<Arc<Finding>>> = (0..defs.len()).map(|_| Vec::new()).collect();
        let mut lost = false;
        for f in fresh {
            match owner(&f).filter(|&k| lint[k] && f.file == cx.path) {
                Some(k) => by_fn[k].push(Arc::new(settled(f, opts))),
                None => {
                    lost = true;
                    out.push(Placed::from(f));
                }
            }
        }
        let (mut old, opts_kept) = match prev {
            Some(m) => (m.fns.into_iter().map(Some).collect(), Some(m.opts)),
            None => (Vec::new(), None),
        };
        old.resize_with(defs.len(), || None);
        let mut literals = false;
        let mut fns = Vec::with_capacity(defs.len());
        for (k, d) in defs.iter().enumerate() {
            let (start, len) = spans[k];
            let synthetic = k >= fns_end;
            if let Some(m) = old[k].take().filter(|_| !lint[k]) {
                m.hand_out(synthetic, out, runs);
                fns.push(FnMemo { start, len, ..m });
                continue;
            }
            let facts = fn_facts(db, *d);
            let findings = std::mem::take(&mut by_fn[k]);
            let m = FnMemo {
                id: d.as_id(),
                start,
                len,
                calls: facts
                    .calls
                    .iter()
                    .map(|c| (c.target.clone(), c.range, c.direct))
                    .collect(),
                order_callees: facts
                    .order_args
                    .iter()
                    .filter_map(|a| match &a.call {
                        CallTarget::Local(name) => Some(name.clone()),
                        CallTarget::Imported { .. } => None,
                    })
                    .collect(),
                // A synthetic main is reached when it is an entry point, and only then.
                reached: if synthetic {
                    Some(entries.contains(&d.as_id()))
                } else {
                    cx.reached_if_known(*d)
                },
                // Without scopes each function reads the whole table (no scope kept: any change
                // of the items touches them all).
                scope: (!synthetic && vox_analysis::uses_scopes(db, cx.file))
                    .then(|| vox_analysis::fn_scope(db, *d).clone()),
                literals: has_literals(facts),
                tier: (opts.enabled("D004") && facts.overflows.iter().any(|o| o.tiers != 0b1111))
                    .then(|| vox_analysis::param_tier(db, *d)),
                observed: ((opts.enabled("D002") || opts.enabled("D007"))
                    && !facts.returned_order.is_empty())
                .then(|| vox_analysis::return_observed(db, *d)),
                run: Arc::new(Run::new(findings, cx.path.clone(), opts)),
                shift: 0,
            };
            literals |= m.literals;
            m.hand_out(synthetic, out, runs);
            fns.push(m);
        }
        // A plan checked collisions when a touched function had literals; a first lint checks.
        let linted = lint.iter().filter(|l| **l).count();
        if lost || (linted == lint.len() && literals && opts.enabled("D005") && collides(cx)) {
            return None;
        }
        Some(FileMemo {
            file: cx.file,
            stamp,
            opts: opts_kept.unwrap_or_else(|| opts.clone()),
            text: cx.text.clone(),
            items: cx.items.items.clone(),
            fns,
            // (An error outside every function with no synthetic main is no function's.)
            broken: cx
                .broken_functions()
                .iter()
                .filter_map(|&i| defs.get(i).map(|d| d.as_id()))
                .collect(),
            entries,
            chains: cx.chains.get().cloned(),
            linted,
            kept: lint.len() - linted,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Renumber;

    /// Lines before the edit keep their numbers, lines after it move, a line the edit touched
    /// gives up; words that merely contain "line" and numbers not after "line " are left alone.
    #[test]
    fn named_lines_are_renumbered() {
        // Lines 10 to 12 of the old text were edited into lines 10 to 14 (two added).
        let r = Renumber {
            first: 10,
            last: 12,
            delta: 2,
        };
        assert_eq!(
            r.text("reaches `print` on line 30; the loop on line 9")
                .as_deref(),
            Some("reaches `print` on line 32; the loop on line 9")
        );
        assert_eq!(
            r.text("a pipeline of 40 steps, outline 50").as_deref(),
            Some("a pipeline of 40 steps, outline 50")
        );
        assert_eq!(r.text("on line 13").as_deref(), Some("on line 15"));
        for touched in [10, 11, 12] {
            assert_eq!(r.text(&format!("on line {touched}")), None);
        }
        // Two lines removed: line 20 becomes 18.
        let r = Renumber {
            first: 5,
            last: 7,
            delta: -2,
        };
        assert_eq!(r.text("(line 20)").as_deref(), Some("(line 18)"));
        assert_eq!(r.text("line 4, line 8").as_deref(), Some("line 4, line 6"));
    }
}
