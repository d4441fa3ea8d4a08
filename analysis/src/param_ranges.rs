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
use crate::facts::TIERS;
use crate::items::{file_items, FnDef};
use crate::kinds::Kind;
use crate::resolver::{imported_files, numbered_functions};
use crate::{Db, SourceFile, Workspace};

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

struct Node {
    /// Positions of the parameters typed `int`.
    int_params: Vec<usize>,
    /// Unbounded whatever the call sites say.
    pinned: bool,
    /// Direct calls: (caller, the arguments' intervals per caller tier).
    calls: Vec<(usize, Vec<crate::facts::ArgTiers>)>,
}

#[salsa::tracked(returns(ref))]
pub fn param_tiers(db: &dyn Db, ws: Workspace) -> ParamTiers {
    let files: Vec<SourceFile> = ws.files(db).values().copied().collect();
    let imported = imported_files(db, &files);
    // Every function of the workspace, numbered; nodes for those with int parameters.
    let fns = numbered_functions(db, &files);
    let ids: HashMap<FnDef<'_>, usize> = fns.iter().enumerate().map(|(i, f)| (f.0, i)).collect();
    let mut nodes: HashMap<usize, Node> = HashMap::new();
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
        let int_params: Vec<usize> = item
            .params
            .iter()
            .enumerate()
            .filter(|(_, (_, ty))| ty.as_deref().map(Kind::from_annotation) == Some(Kind::Int))
            .map(|(i, _)| i)
            .collect();
        if int_params.is_empty() {
            continue;
        }
        let pinned = item.is_pub && !imported.contains(&file);
        nodes.insert(
            id,
            Node {
                int_params,
                pinned,
                calls: Vec::new(),
            },
        );
    }
    if nodes.is_empty() {
        return ParamTiers::default();
    }
    // Every reference to a node: a direct call with its arguments, or anything else (pinned).
    // A direct call without int arguments gives the int parameters values of unclear kind:
    // unbounded, like a missing entry below.
    let mut caller = 0;
    for file in &files {
        let fc = file_calls(db, *file);
        for k in 0..fc.functions() {
            for c in fc.calls(k) {
                let Some(node) = ids.get(&c.callee).and_then(|g| nodes.get_mut(g)) else {
                    continue;
                };
                if c.direct {
                    node.calls.push((caller, c.args.to_vec()));
                } else {
                    node.pinned = true;
                }
            }
            caller += 1;
        }
    }
    let mut tier: Vec<u8> = vec![0; fns.len()];
    let mut order: Vec<usize> = nodes.keys().copied().collect();
    order.sort_unstable();
    for _ in 0..ROUNDS {
        let mut changed = false;
        for &g in &order {
            let node = &nodes[&g];
            if node.pinned {
                continue;
            }
            let mut t = (TIERS.len() - 1) as u8;
            for (caller, args) in &node.calls {
                let ct = tier[*caller] as usize;
                for &p in &node.int_params {
                    t = t.min(args.get(p).map_or(0, |a| a[ct]));
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
    ParamTiers(
        order
            .iter()
            .filter(|g| tier[**g] != 0)
            .map(|&g| ((fns[g].1, fns[g].2), tier[g]))
            .collect(),
    )
}
