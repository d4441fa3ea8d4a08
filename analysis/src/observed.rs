//! Which functions' results are used in order (D002, D007): an iteration or listing whose order
//! reaches a function's result shows only where a caller uses that result's order, so that a
//! helper returning a listing its only caller sorts is not reported.
//!
//! A function's returned order is observed when a caller shows it (prints it, writes it, returns
//! it from an observed function, passes it to another function), and, conservatively, when the
//! function is `main` (its value is printed), is named other than as a direct callee (passed as
//! a value), or is `pub` in a file that no workspace file imports (callers outside the
//! workspace).

use std::collections::{HashMap, HashSet};

use crate::facts::fn_facts;
use crate::imports::{resolve_imports, ImportTarget};
use crate::items::{file_items, FnDef};
use crate::resolver::Resolver;
use crate::{Db, SourceFile, Workspace};

/// The functions (file, index among its functions; `u32::MAX` for a synthetic main) whose
/// returned order some use shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObservedReturns(HashSet<(SourceFile, u32)>);

impl ObservedReturns {
    pub fn contains(&self, db: &dyn Db, f: FnDef<'_>) -> bool {
        self.0.contains(&(f.file(db), f.index(db)))
    }
}

#[salsa::tracked(returns(ref))]
pub fn observed_returns(db: &dyn Db, ws: Workspace) -> ObservedReturns {
    let files = ws.files(db);
    let mut imported: HashSet<SourceFile> = HashSet::new();
    for f in files.values() {
        for t in &resolve_imports(db, *f).targets {
            if let ImportTarget::File(t) = t {
                imported.insert(*t);
            }
        }
    }
    let key = |f: FnDef<'_>| (f.file(db), f.index(db));
    let mut observed: HashSet<(SourceFile, u32)> = HashSet::new();
    // callee → the callers whose result its returned order reaches.
    let mut feeds: HashMap<(SourceFile, u32), Vec<(SourceFile, u32)>> = HashMap::new();
    let mut work: Vec<(SourceFile, u32)> = Vec::new();
    let mark = |k: (SourceFile, u32),
                observed: &mut HashSet<(SourceFile, u32)>,
                work: &mut Vec<(SourceFile, u32)>| {
        if observed.insert(k) {
            work.push(k);
        }
    };
    let mut resolver = Resolver::new(db);
    for file in files.values() {
        let items = file_items(db, *file);
        for f in items.all() {
            if let Some(item) = items.items.fns.get(f.index(db) as usize) {
                if &*item.name == "main" || (item.is_pub && !imported.contains(file)) {
                    mark(key(f), &mut observed, &mut work);
                }
            }
            let facts = fn_facts(db, f);
            for c in facts.calls.iter() {
                if !c.direct {
                    if let Some(g) = resolver.callee(*file, &c.target) {
                        mark(key(g), &mut observed, &mut work);
                    }
                }
            }
            for (t, _) in facts.observed_calls.iter() {
                if let Some(g) = resolver.callee(*file, t) {
                    mark(key(g), &mut observed, &mut work);
                }
            }
            for (t, _) in facts.returned_calls.iter() {
                if let Some(g) = resolver.callee(*file, t) {
                    feeds.entry(key(g)).or_default().push(key(f));
                }
            }
        }
    }
    // A callee whose order reaches an observed caller's result is observed (the reverse edge).
    let mut fed_by: HashMap<(SourceFile, u32), Vec<(SourceFile, u32)>> = HashMap::new();
    for (g, callers) in &feeds {
        for c in callers {
            fed_by.entry(*c).or_default().push(*g);
        }
    }
    while let Some(c) = work.pop() {
        if let Some(gs) = fed_by.get(&c) {
            for g in gs.clone() {
                mark(g, &mut observed, &mut work);
            }
        }
    }
    ObservedReturns(observed)
}
