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
    // Every function, numbered; (file, index) from positions (no tracked-field reads).
    let mut ids: HashMap<FnDef<'_>, usize> = HashMap::new();
    let mut fns: Vec<(FnDef<'_>, SourceFile, u32)> = Vec::new();
    for file in files.values() {
        let items = file_items(db, *file);
        let all = items
            .fns
            .iter()
            .copied()
            .enumerate()
            .map(|(i, f)| (f, i as u32));
        for (f, index) in all.chain(items.main.map(|m| (m, u32::MAX))) {
            ids.insert(f, fns.len());
            fns.push((f, *file, index));
        }
    }
    let mut observed = vec![false; fns.len()];
    let mut work: Vec<usize> = Vec::new();
    let mark = |k: usize, observed: &mut Vec<bool>, work: &mut Vec<usize>| {
        if !observed[k] {
            observed[k] = true;
            work.push(k);
        }
    };
    // callee → the callers whose result its returned order reaches.
    let mut fed_by: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut resolver = Resolver::new(db);
    for (id, &(f, file, index)) in fns.iter().enumerate() {
        let items = resolver.items(file);
        if let Some(item) = items.items.fns.get(index as usize) {
            if &*item.name == "main" || (item.is_pub && !imported.contains(&file)) {
                mark(id, &mut observed, &mut work);
            }
        }
        let facts = fn_facts(db, f);
        let mut callee = |t| resolver.callee(file, t).and_then(|g| ids.get(&g).copied());
        for c in facts.calls.iter().filter(|c| !c.direct) {
            if let Some(g) = callee(&c.target) {
                mark(g, &mut observed, &mut work);
            }
        }
        for (t, _) in facts.observed_calls.iter() {
            if let Some(g) = callee(t) {
                mark(g, &mut observed, &mut work);
            }
        }
        for (t, _) in facts.returned_calls.iter() {
            if let Some(g) = callee(t) {
                fed_by.entry(id).or_default().push(g);
            }
        }
    }
    // A callee whose order reaches an observed caller's result is observed.
    while let Some(c) = work.pop() {
        if let Some(gs) = fed_by.get(&c) {
            for g in gs.clone() {
                mark(g, &mut observed, &mut work);
            }
        }
    }
    let observed = fns
        .iter()
        .zip(&observed)
        .filter(|(_, o)| **o)
        .map(|((_, file, index), _)| (*file, *index))
        .collect();
    ObservedReturns(observed)
}
