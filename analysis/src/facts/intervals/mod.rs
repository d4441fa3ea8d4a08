//! Integer intervals for D004 (analysis.md §1.1, decisions 31 and 51): an abstract interpretation
//! of one body in statement order. The bounds come from what a run can do: it takes fewer than
//! 2^48 steps, so no statement runs more often than that, in any loop or nesting; no string, list
//! or map is longer than 2^40, so `len`-like results and indices lie in `[0, 2^40]`; `time.*`
//! milliseconds lie in `[0, 2^45]`. An accumulation `v += e` (also `v = v + a - b`) with `|e| <=
//! 2^12` therefore stays within `2^60` of its start; sums of sizes accumulated in loops are assumed
//! to stay below 2^62 (the one assumption, docs/rules/D004.md). Comparisons narrow the branch
//! they guard.
//!
//! Values parsed from input (`int(str)`) carry an `input` mark. A `*` whose result may leave i64
//! is reported whatever its operands; `+`, `-`, negation and `abs` only when an operand is input
//! (an unbounded value that is not input, such as a call result, is not evidence of overflow).
//!
//! Parameters typed `int` are evaluated under [`TIERS`] assumptions, from unbounded down to
//! `±2^12`; each finding and each call's argument intervals are kept per tier, and the workspace
//! query `param_tiers` picks the tier the call sites justify (decision 51).

mod context;
mod domain;
mod eval;
mod loops;

use std::collections::{BTreeMap, BTreeSet};

use vox_syntax::TextRange;

use super::model::{FactsBuilder, IntCall, Overflow};
use crate::body::Body;
use crate::kind::Kind;
use crate::kinds::Kinds;
use context::{Calls, Ctx};
use domain::{Env, Iv};

/// The assumptions about parameters typed `int`: unbounded, then `±bound`. A function is
/// checked under the tightest one its call sites justify ([`tier_of`]).
pub const TIERS: [Option<i64>; 4] = [None, Some(1 << 40), Some(1 << 24), Some(1 << 12)];

/// The tightest tier whose bound holds every value of `[lo, hi]`.
pub fn tier_of(lo: i64, hi: i64) -> u8 {
    let b = i128::from(lo).abs().max(i128::from(hi).abs());
    let mut tier = 0;
    for (t, bound) in TIERS.iter().enumerate() {
        if let Some(k) = bound {
            if b <= i128::from(*k) {
                tier = t as u8;
            }
        }
    }
    tier
}

/// What one pass under one tier's parameter bound finds: the overflows and the calls' int
/// arguments.
type Pass = (Vec<Overflow>, Calls);

fn pass(body: &Body<'_>, kinds: &Kinds, int_params: &[usize], bound: Option<i64>) -> Pass {
    let m = body.m;
    let mut cx = Ctx {
        body,
        kinds,
        report: true,
        found: BTreeSet::new(),
        out: Vec::new(),
        calls: BTreeMap::new(),
        held: None,
        fields: std::collections::HashMap::new(),
        eval: eval::eval,
    };
    for (fi, f) in m.functions.iter().enumerate() {
        // Each frame starts with every int slot unknown (closure parameters and captures
        // unbounded); the function's own int parameters get the tier's bound.
        let mut env: Env = vec![None; body.n_slots as usize];
        let base = body.slot_base[fi] as usize;
        for s in 0..f.n_slots as usize {
            if kinds.slots.get(base + s) == Some(&Kind::Int) {
                env[base + s] = Some(Iv::TOP);
            }
        }
        if fi as u32 == body.root {
            if let Some(k) = bound {
                let k = i128::from(k);
                for &g in int_params {
                    env[g] = Some(Iv::new(-k, k));
                }
            }
        }
        eval::eval(&mut cx, f.body, &mut env);
    }
    (cx.out, cx.calls)
}

/// Whether two passes found the same (ranges and operations; argument intervals).
fn same(a: &Pass, b: &Pass) -> bool {
    a.0.len() == b.0.len()
        && a.0
            .iter()
            .zip(&b.0)
            .all(|(x, y)| (x.range, x.op) == (y.range, y.op))
        && a.1.len() == b.1.len()
        && a.1.iter().zip(&b.1).all(|((k1, (_, v1)), (k2, (_, v2)))| {
            k1 == k2
                && v1.len() == v2.len()
                && v1
                    .iter()
                    .zip(v2)
                    .all(|(x, y)| x.map(|v| v.clamp()) == y.map(|v| v.clamp()))
        })
}

pub(super) fn overflows(body: &Body<'_>, kinds: &Kinds, facts: &mut FactsBuilder) {
    let root_base = body.slot_base[body.root as usize] as usize;
    let int_params: Vec<usize> = (0..body.param_kinds.len())
        .filter(|i| kinds.slots.get(root_base + i) == Some(&Kind::Int))
        .map(|i| root_base + i)
        .collect();
    // The loosest bound first. Without int parameters, or with nothing a bound could change
    // (no finding, no call with an int argument), every tier gives its answer. Otherwise the
    // tightest next: results are monotone in the bound, so when the two agree every tier in
    // between does too.
    let first = pass(body, kinds, &int_params, TIERS[0]);
    let mut passes: Vec<(u8, Pass)> = Vec::new();
    if int_params.is_empty() || (first.0.is_empty() && first.1.is_empty()) {
        passes.push((0b1111, first));
    } else {
        let last = TIERS.len() - 1;
        let tight = pass(body, kinds, &int_params, TIERS[last]);
        if same(&first, &tight) {
            passes.push((0b1111, first));
        } else {
            passes.push((1, first));
            for (t, bound) in TIERS.iter().enumerate().take(last).skip(1) {
                passes.push((1 << t, pass(body, kinds, &int_params, *bound)));
            }
            passes.push((1 << last, tight));
        }
    }
    let mut found: BTreeMap<(u32, u32, &'static str), Overflow> = BTreeMap::new();
    let mut calls: BTreeMap<(u32, u32), IntCall> = BTreeMap::new();
    for (mask, (out, pass_calls)) in passes {
        for o in out {
            found
                .entry((o.range.start, o.range.end, o.op))
                .or_insert(o)
                .tiers |= mask;
        }
        for ((start, end), (target, args)) in pass_calls {
            let call = calls.entry((start, end)).or_insert_with(|| IntCall {
                target,
                range: TextRange::new(start, end),
                args: vec![[0; 4]; args.len()].into(),
            });
            for (k, a) in args.iter().enumerate() {
                let Some(slot) = call.args.get_mut(k) else {
                    continue;
                };
                let v = a.map_or(0, |v| {
                    let v = v.clamp();
                    tier_of(v.lo as i64, v.hi as i64)
                });
                for (t, s) in slot.iter_mut().enumerate() {
                    if mask & (1 << t) != 0 {
                        *s = v;
                    }
                }
            }
        }
    }
    facts.overflows = found.into_values().collect();
    facts
        .overflows
        .sort_by_key(|o| (o.range.start, o.range.end));
    facts.int_calls = calls.into_values().collect();
}
