//! Which functions' results are used in order (D002, D007): an iteration or listing whose order
//! reaches a function's result shows only where a caller uses that result's order, so that a
//! helper returning a listing its only caller sorts is not reported.
//!
//! A function's returned order is observed when a caller shows it (prints it, writes it, returns
//! it from an observed function, passes it to another function), and, conservatively, when the
//! function is `main` (its value is printed), is named other than as a direct callee (passed as
//! a value), or is `pub` in a file that no workspace file imports (callers outside the
//! workspace).

use std::collections::HashSet;

use crate::call_graph::file_calls;
use crate::db::Db;
use crate::inputs::{SourceFile, Workspace};
use crate::items::file_items;
use crate::items::FnDef;
use crate::resolver::{imported_files, numbered_functions, numbers};

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
    let files: Vec<SourceFile> = ws.files(db).values().copied().collect();
    let imported = imported_files(db, &files);
    let fns = numbered_functions(db, &files);
    let ids = numbers(&fns);
    let mut observed = vec![false; fns.len()];
    let mut work: Vec<usize> = Vec::new();
    let mark = |k: usize, observed: &mut Vec<bool>, work: &mut Vec<usize>| {
        if !observed[k] {
            observed[k] = true;
            work.push(k);
        }
    };
    // (callee, a caller whose result its returned order reaches): flat, not a map of vectors
    // (a workspace has tens of thousands of functions).
    let mut fed_by: Vec<(u32, u32)> = Vec::new();
    let mut first = 0;
    for file in &files {
        let items = &file_items(db, *file).items;
        let fc = file_calls(db, *file);
        for k in 0..fc.functions() {
            let id = first + k;
            if let Some(item) = items.fns.get(fns[id].2 as usize) {
                if &*item.name == "main" || (item.is_pub && !imported.contains(file)) {
                    mark(id, &mut observed, &mut work);
                }
            }
            for c in fc.calls(k).iter().filter(|c| !c.direct) {
                if let Some(&g) = ids.get(&c.callee) {
                    mark(g as usize, &mut observed, &mut work);
                }
            }
        }
        for (_, g) in fc.observed() {
            if let Some(&g) = ids.get(g) {
                mark(g as usize, &mut observed, &mut work);
            }
        }
        for (k, g) in fc.returned() {
            if let Some(&g) = ids.get(g) {
                fed_by.push(((first + *k as usize) as u32, g));
            }
        }
        first += fc.functions();
    }
    drop(ids);
    // A callee whose order reaches an observed caller's result is observed.
    fed_by.sort_unstable();
    while let Some(c) = work.pop() {
        let from = fed_by.partition_point(|&(callee, _)| (callee as usize) < c);
        for &(callee, g) in &fed_by[from..] {
            if callee as usize != c {
                break;
            }
            mark(g as usize, &mut observed, &mut work);
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
