//! Parameter ranges for D004 (decision 51): a parameter typed `int` takes the union of its call
//! sites' intervals when every caller is in the workspace. Each function's facts hold its
//! findings and its calls' argument intervals under every tier of [`TIERS`] (unbounded, then
//! `±2^40`, `±2^24`, `±2^12`); this query picks, per function, the tightest tier its call sites
//! justify.
//!
//! A function's callers are in its own file or in the files that import it
//! ([`importers_of`]), so one file's tiers read its own calls and its importers' calls and tiers
//! (a query per file, cyclic only through import cycles, iterated to a fixpoint by salsa from
//! "unbounded"). Within the file, the iteration ascends from "every parameter unbounded", which
//! is sound, and each round is sound if the one before was (a callee's arguments are computed
//! under its callers' current tiers); it stops when nothing changes.
//!
//! Unbounded (tier 0): a function named anywhere other than as a direct callee (passed as a
//! value, its arguments come from elsewhere), a
//! `pub` function of a file that no workspace file imports (callers outside the workspace), and a
//! call with named arguments or fewer arguments than parameters. A function nothing calls gets
//! the tightest tier: its own findings still show, none that only a huge argument could cause.

use rustc_hash::FxHashMap;

use crate::call_graph::{file_calls, FileCalls};
use crate::db::Db;
use crate::facts::{ArgTiers, TIERS};
use crate::importers::importers_of;
use crate::inputs::SourceFile;
use crate::items::{file_items, position, FnDef};
use crate::kind::Kind;

/// Per function of a file, in [`crate::FileItems::all`] order: the tier its int parameters are
/// checked under (0 for a function without one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileTiers(Box<[u8]>);

/// The tier `f`'s int parameters are checked under.
pub fn param_tier(db: &dyn Db, f: FnDef<'_>) -> u8 {
    let tiers = &file_param_tiers(db, f.file(db)).0;
    let k = position(db, f, tiers.len());
    tiers.get(k).copied().unwrap_or(0)
}

/// Who calls: a function of the file itself (by position), or of an importer, whose tier is
/// known.
#[derive(Clone, Copy)]
enum Caller {
    Here(u32),
    Known(u8),
}

/// What [`file_param_tiers`] gathers from a file's calls.
struct Reading<'r, 'a, 'db> {
    position: &'r FxHashMap<FnDef<'db>, u32>,
    int_params: &'r [Vec<u16>],
    pinned: &'r mut [bool],
    calls: &'r mut Vec<(u32, Caller, &'a [ArgTiers])>,
}

impl<'a, 'db> Reading<'_, 'a, 'db> {
    /// The calls `fc` makes of the file's functions with int parameters, each caller named by
    /// `caller` (from its position in its file).
    fn read(&mut self, fc: &'a FileCalls<'db>, caller: impl Fn(usize) -> Caller) {
        for k in 0..fc.functions() {
            for c in fc.calls(k) {
                let Some(&g) = self.position.get(&c.callee) else {
                    continue;
                };
                if self.int_params.get(g as usize).is_none_or(Vec::is_empty) {
                    continue;
                }
                if c.direct {
                    self.calls.push((g, caller(k), &c.args));
                } else {
                    self.pinned[g as usize] = true;
                }
            }
        }
    }
}

fn unbounded(db: &dyn Db, _id: salsa::Id, file: SourceFile) -> FileTiers {
    FileTiers(vec![0; file_items(db, file).all().count()].into())
}

#[salsa::tracked(returns(ref), cycle_initial = unbounded)]
pub fn file_param_tiers(db: &dyn Db, file: SourceFile) -> FileTiers {
    let items = file_items(db, file);
    let n = items.all().count();
    let importers = importers_of(db, file);
    let int_params: Vec<Vec<u16>> = items
        .items
        .fns
        .iter()
        .map(|item| {
            item.params
                .iter()
                .enumerate()
                .filter(|(_, (_, ty))| ty.as_deref().map(Kind::from_annotation) == Some(Kind::Int))
                .map(|(i, _)| u16::try_from(i).unwrap_or(u16::MAX))
                .collect()
        })
        .collect();
    if int_params.iter().all(Vec::is_empty) {
        return FileTiers(vec![0; n].into());
    }
    let position: FxHashMap<FnDef<'_>, u32> = items
        .all()
        .enumerate()
        .map(|(k, f)| (f, k as u32))
        .collect();
    let mut pinned: Vec<bool> = items
        .items
        .fns
        .iter()
        .map(|item| item.is_pub && importers.is_empty())
        .collect();
    // Every direct call of a function with int parameters: (callee, caller, its int arguments).
    let mut calls: Vec<(u32, Caller, &[ArgTiers])> = Vec::new();
    let mut cx = Reading {
        position: &position,
        int_params: &int_params,
        pinned: &mut pinned,
        calls: &mut calls,
    };
    cx.read(file_calls(db, file), |k| Caller::Here(k as u32));
    for importer in importers.iter() {
        let tiers = &file_param_tiers(db, *importer).0;
        cx.read(file_calls(db, *importer), |k| {
            Caller::Known(tiers.get(k).copied().unwrap_or(0))
        });
    }
    calls.sort_by_key(|&(g, _, _)| g);
    let mut tier: Vec<u8> = vec![0; n];
    // Ascends: a caller's tier only grows, and so do its arguments' tiers; at most a few rounds.
    for _ in 0..(TIERS.len() * n + 1) {
        let mut changed = false;
        let mut i = 0;
        for g in 0..int_params.len() {
            let from = i;
            while i < calls.len() && calls[i].0 as usize == g {
                i += 1;
            }
            if int_params[g].is_empty() || pinned[g] {
                continue;
            }
            let mut t = (TIERS.len() - 1) as u8;
            for &(_, caller, args) in &calls[from..i] {
                let ct = match caller {
                    Caller::Here(k) => tier[k as usize],
                    Caller::Known(t) => t,
                } as usize;
                for &p in &int_params[g] {
                    t = t.min(args.get(usize::from(p)).map_or(0, |a| a[ct]));
                }
            }
            if t != tier[g] {
                tier[g] = t;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    FileTiers(tier.into())
}
