//! Which functions' results are used in order (D002, D007): an iteration or listing whose order
//! reaches a function's result shows only where a caller uses that result's order, so that a
//! helper returning a listing its only caller sorts is not reported.
//!
//! A function's returned order is observed when a caller shows it (prints it, writes it, returns
//! it from an observed function, passes it to another function), and, conservatively, when the
//! function is `main` (its value is printed), is named other than as a direct callee (passed as
//! a value), or is `pub` in a file that no workspace file imports (callers outside the
//! workspace). Callers are in the function's file or in the files importing it, so one file's
//! answer reads its own calls and its importers' calls and answers (cyclic only through import
//! cycles, iterated to a fixpoint by salsa from "not observed").

use rustc_hash::FxHashMap;

use crate::call_graph::{file_calls, FileCalls};
use crate::db::Db;
use crate::importers::importers_of;
use crate::inputs::SourceFile;
use crate::items::{file_items, position, FnDef};

/// Per function of a file, in [`crate::FileItems::all`] order: whether its returned order is
/// observed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileObserved(Box<[bool]>);

/// Whether some use shows `f`'s returned order.
pub fn return_observed(db: &dyn Db, f: FnDef<'_>) -> bool {
    let observed = &file_observed(db, f.file(db)).0;
    let k = position(db, f, observed.len());
    observed.get(k).copied().unwrap_or(true)
}

fn unobserved(db: &dyn Db, _id: salsa::Id, file: SourceFile) -> FileObserved {
    FileObserved(vec![false; file_items(db, file).all().count()].into())
}

#[salsa::tracked(returns(ref), cycle_initial = unobserved)]
pub fn file_observed(db: &dyn Db, file: SourceFile) -> FileObserved {
    let items = file_items(db, file);
    let n = items.all().count();
    let importers = importers_of(db, file);
    let position: FxHashMap<FnDef<'_>, u32> = items
        .all()
        .enumerate()
        .map(|(k, f)| (f, k as u32))
        .collect();
    let mut observed = vec![false; n];
    let mut work: Vec<usize> = Vec::new();
    let mark = |k: usize, observed: &mut Vec<bool>, work: &mut Vec<usize>| {
        if !observed[k] {
            observed[k] = true;
            work.push(k);
        }
    };
    for (k, item) in items.items.fns.iter().enumerate() {
        if &*item.name == "main" || (item.is_pub && importers.is_empty()) {
            mark(k, &mut observed, &mut work);
        }
    }
    // (callee, caller here) where the callee's returned order reaches the caller's result.
    let mut fed_by: Vec<(u32, u32)> = Vec::new();
    // What a file's calls say of this file's functions; `caller_observed` is known for an
    // importer's functions (`None` for this file's own, which the propagation below decides).
    let mut read = |fc: &FileCalls<'_>,
                    caller_observed: Option<&[bool]>,
                    observed: &mut Vec<bool>,
                    work: &mut Vec<usize>| {
        for k in 0..fc.functions() {
            for c in fc.calls(k).iter().filter(|c| !c.direct) {
                if let Some(&g) = position.get(&c.callee) {
                    mark(g as usize, observed, work);
                }
            }
        }
        for (_, g) in fc.observed() {
            if let Some(&g) = position.get(g) {
                mark(g as usize, observed, work);
            }
        }
        for (k, g) in fc.returned() {
            if let Some(&g) = position.get(g) {
                match caller_observed {
                    None => fed_by.push((g, *k)),
                    Some(o) if o.get(*k as usize).copied().unwrap_or(true) => {
                        mark(g as usize, observed, work)
                    }
                    Some(_) => {}
                }
            }
        }
    };
    read(file_calls(db, file), None, &mut observed, &mut work);
    for importer in importers.iter() {
        let theirs = &file_observed(db, *importer).0;
        read(
            file_calls(db, *importer),
            Some(theirs),
            &mut observed,
            &mut work,
        );
    }
    // A callee whose order reaches an observed caller's result is observed.
    fed_by.sort_unstable_by_key(|&(g, k)| (k, g));
    while let Some(c) = work.pop() {
        let from = fed_by.partition_point(|&(_, k)| (k as usize) < c);
        for &(g, k) in &fed_by[from..] {
            if k as usize != c {
                break;
            }
            mark(g as usize, &mut observed, &mut work);
        }
    }
    FileObserved(observed.into())
}
