//! Parameter ranges for D004 (decision 51): a parameter typed `int` takes the union of its call
//! sites' intervals when every caller is in the workspace. Each function's facts hold its
//! findings and its calls' argument intervals under every tier of [`TIERS`] (unbounded, then
//! `±2^40`, `±2^24`, `±2^12`); this query picks, per function, the tightest tier its call sites
//! justify.
//!
//! The iteration descends from "every parameter unbounded", which is sound, and each round is
//! sound if the one before was: a callee's arguments are computed under its callers' current
//! tiers. So it may stop after any round; it stops when nothing changes (a few rounds).
//!
//! Unbounded (tier 0): a function named anywhere other than as a direct callee (passed as a
//! value, its arguments come from elsewhere), a
//! `pub` function of a file that no workspace file imports (callers outside the workspace), and a
//! call with named arguments or fewer arguments than parameters. A function nothing calls gets
//! the tightest tier: its own findings still show, none that only a huge argument could cause.

use std::collections::HashMap;

use crate::call_graph::file_calls;
use crate::db::Db;
use crate::facts::TIERS;
use crate::inputs::{SourceFile, Workspace};
use crate::items::{file_items, FnDef};
use crate::kind::Kind;
use crate::resolver::{imported_files, numbered_functions, numbers};

/// Per function (file, index among its functions) with an int parameter: the tier its
/// parameters are checked under. Absent: tier 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParamTiers(HashMap<(SourceFile, u32), u8>);

impl ParamTiers {
    pub fn get(&self, db: &dyn Db, f: FnDef<'_>) -> u8 {
        self.0.get(&(f.file(db), f.index(db))).copied().unwrap_or(0)
    }
}

/// Rounds of the descending iteration at most.
const ROUNDS: usize = 16;

/// A function with an int parameter.
struct Node {
    /// Its number among the workspace's functions.
    id: usize,
    /// Positions of the parameters typed `int`.
    int_params: Vec<u16>,
    /// Unbounded whatever the call sites say.
    pinned: bool,
}

#[salsa::tracked(returns(ref))]
pub fn param_tiers(db: &dyn Db, ws: Workspace) -> ParamTiers {
    let files: Vec<SourceFile> = ws.files(db).values().copied().collect();
    let imported = imported_files(db, &files);
    // Every function of the workspace, numbered; nodes for those with int parameters.
    let fns = numbered_functions(db, &files);
    let ids = numbers(&fns);
    // Flat tables, not a map of vectors: a workspace has tens of thousands of functions.
    let mut nodes: Vec<Node> = Vec::new();
    let mut node_of: Vec<u32> = vec![u32::MAX; fns.len()];
    let mut items = None;
    for (id, &(_, file, index)) in fns.iter().enumerate() {
        // One read per file: the functions come grouped by file.
        let its = match items {
            Some((f, it)) if f == file => it,
            _ => items.insert((file, file_items(db, file))).1,
        };
        let Some(item) = its.items.fns.get(index as usize) else {
            continue;
        };
        let int_params: Vec<u16> = item
            .params
            .iter()
            .enumerate()
            .filter(|(_, (_, ty))| ty.as_deref().map(Kind::from_annotation) == Some(Kind::Int))
            .map(|(i, _)| u16::try_from(i).unwrap_or(u16::MAX))
            .collect();
        if int_params.is_empty() {
            continue;
        }
        node_of[id] = nodes.len() as u32;
        nodes.push(Node {
            id,
            int_params,
            pinned: item.is_pub && !imported.contains(&file),
        });
    }
    if nodes.is_empty() {
        return ParamTiers::default();
    }
    // Every reference to a node: a direct call with its arguments (borrowed from the resolved
    // calls), or anything else (pinned). A direct call without int arguments gives the int
    // parameters values of unclear kind: unbounded, like a missing entry below.
    let mut calls: Vec<(u32, u32, &[crate::facts::ArgTiers])> = Vec::new();
    let mut caller = 0u32;
    for file in &files {
        let fc = file_calls(db, *file);
        for k in 0..fc.functions() {
            for c in fc.calls(k) {
                let Some(&n) = ids.get(&c.callee).map(|&g| &node_of[g as usize]) else {
                    continue;
                };
                if n == u32::MAX {
                    continue;
                }
                if c.direct {
                    calls.push((n, caller, &c.args));
                } else {
                    nodes[n as usize].pinned = true;
                }
            }
            caller += 1;
        }
    }
    drop(ids);
    // Each node's calls together: `first[n]..first[n + 1]`.
    calls.sort_by_key(|&(n, caller, _)| (n, caller));
    let mut first = vec![0usize; nodes.len() + 1];
    for &(n, _, _) in &calls {
        first[n as usize + 1] += 1;
    }
    for n in 0..nodes.len() {
        first[n + 1] += first[n];
    }
    let mut tier: Vec<u8> = vec![0; fns.len()];
    for _ in 0..ROUNDS {
        let mut changed = false;
        for (n, node) in nodes.iter().enumerate() {
            if node.pinned {
                continue;
            }
            let mut t = (TIERS.len() - 1) as u8;
            for &(_, caller, args) in &calls[first[n]..first[n + 1]] {
                let ct = tier[caller as usize] as usize;
                for &p in &node.int_params {
                    t = t.min(args.get(usize::from(p)).map_or(0, |a| a[ct]));
                }
            }
            if t != tier[node.id] {
                tier[node.id] = t;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    ParamTiers(
        nodes
            .iter()
            .filter(|node| tier[node.id] != 0)
            .map(|node| ((fns[node.id].1, fns[node.id].2), tier[node.id]))
            .collect(),
    )
}
