//! Explanation chains (analysis.md §2): one shortest call chain from an entry point to the
//! function holding a finding, rebuilt on demand from the facts' call lists (summaries keep no
//! chains, so they stay equal when a path elsewhere changes). One breadth-first search per linted
//! file serves every finding in it.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};
use salsa::plumbing::{AsId, FromId};

use vox_analysis::{entry_points, file_calls, fn_base, Db, FnDef, SourceFile};
use vox_syntax::TextRange;

use crate::finding::ChainStep;

fn fn_name(db: &dyn Db, f: FnDef<'_>) -> String {
    let n = f.name(db);
    if &**n == "<main>" {
        "main".to_string()
    } else {
        n.to_string()
    }
}

/// Who reached each function first, searching from a file's entry points and, for a library, from
/// those of the files that import it (their `main`s reach its `pub fn`s). Held by id, so that
/// the lint memo can keep it for the next lint when no edit changed what it read (the file's
/// items and the calls of the functions it reached).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chains {
    starts: Vec<salsa::Id>,
    prev: FxHashMap<salsa::Id, (salsa::Id, TextRange)>,
}

impl Chains {
    pub fn new(db: &dyn Db, file: SourceFile) -> Chains {
        let mut starts = entry_points(db, file);
        for importer in vox_analysis::importers_of(db, file).iter() {
            starts.extend(entry_points(db, *importer));
        }
        // The search reaches at least the file's functions: sized for them up front.
        let items = vox_analysis::file_items(db, file);
        let room = starts.len() + items.all().count();
        let mut prev = FxHashMap::with_capacity_and_hasher(room, Default::default());
        let mut seen: FxHashSet<FnDef<'_>> =
            FxHashSet::with_capacity_and_hasher(room, Default::default());
        seen.extend(starts.iter().copied());
        let mut queue: VecDeque<FnDef<'_>> = starts.iter().copied().collect();
        // Chains are only asked for this file's functions, and a function's chain is fixed once
        // the search reaches it: the search stops when it has reached them all (a library
        // imported by many scripts would otherwise walk every script's calls for each library).
        let mut unreached = items.all().filter(|f| !seen.contains(f)).count();
        while let Some(f) = queue.pop_front() {
            if seen.len() > 200_000 || unreached == 0 {
                break;
            }
            for call in file_calls(db, f.file(db)).of(db, f) {
                let g = call.callee;
                if seen.insert(g) {
                    prev.insert(g.as_id(), (f.as_id(), call.range));
                    queue.push_back(g);
                    if g.file(db) == file {
                        unreached -= 1;
                    }
                }
            }
        }
        Chains {
            starts: starts.iter().map(|f| f.as_id()).collect(),
            prev,
        }
    }

    /// These chains after the calls of some functions moved inside them (ranges relative to the
    /// function, old and new, call by call): each step through one of those calls moves.
    pub fn with_calls_moved(&self, moved: &[(salsa::Id, Vec<(TextRange, TextRange)>)]) -> Chains {
        let mut out = self.clone();
        for (caller, range) in out.prev.values_mut() {
            if let Some((_, pairs)) = moved.iter().find(|(f, _)| f == caller) {
                if let Some((_, new)) = pairs.iter().find(|(old, _)| old == range) {
                    *range = *new;
                }
            }
        }
        out
    }

    /// Whether the search reached `f` (an entry point, or called from one).
    pub fn reaches(&self, f: FnDef<'_>) -> bool {
        let id = f.as_id();
        self.starts.contains(&id) || self.prev.contains_key(&id)
    }

    /// The chain ending in `target` (each step: a function and the call it makes); empty when
    /// `target` is an entry point or unreachable.
    pub fn to(&self, db: &dyn Db, target: FnDef<'_>) -> Vec<ChainStep> {
        let target = target.as_id();
        if self.starts.contains(&target) || !self.prev.contains_key(&target) {
            return Vec::new();
        }
        let mut steps = Vec::new();
        let mut cur = target;
        while let Some(&(caller_id, range)) = self.prev.get(&cur) {
            // A function this search reached: its file's items are as they were (see the type).
            let caller = FnDef::from_id(caller_id);
            let base = fn_base(db, caller);
            steps.push(ChainStep {
                file: crate::finding::SharedPath::from(caller.file(db).path(db).as_path()),
                range: TextRange::new(base + range.start, base + range.end),
                function: fn_name(db, caller).into(),
            });
            cur = caller_id;
            if steps.len() > 10_000 {
                break;
            }
        }
        steps.reverse();
        steps
    }
}

/// `main → write_report → stamp` for the human format.
pub fn describe(steps: &[ChainStep], last: &str) -> String {
    let mut names: Vec<&str> = steps.iter().map(|s| s.function.as_str()).collect();
    names.push(last);
    names.join(" → ")
}
