//! One pass's state over one body: the kinds, what it reports and the calls it records.

use std::collections::{BTreeMap, BTreeSet};

use vox_hir::{Expr, Literal, UnOp};

use super::domain::{Env, Iv, LEN_MAX};
use crate::body::{Body, CallTarget};
use crate::facts::model::Overflow;
use crate::kind::Kind;
use crate::kinds::Kinds;

/// The evaluator, passed down to the loop and guard logic (which it calls back into).
pub(super) type EvalFn = fn(&mut Ctx<'_, '_>, u32, &mut Env) -> Option<Iv>;

pub(super) struct Ctx<'a, 'b> {
    pub(super) body: &'a Body<'b>,
    pub(super) kinds: &'a Kinds,
    /// Report overflows (off while probing a loop body).
    pub(super) report: bool,
    pub(super) found: BTreeSet<(u32, u32, &'static str)>,
    pub(super) out: Vec<Overflow>,
    /// Direct calls of user functions seen while reporting: range → (target, int arguments).
    pub(super) calls: Calls,
    /// The int an Option expression just evaluated holds (`a.checked_mul(b)`, `xs[0]` of an int
    /// list literal), for the `unwrap`/`expect` right around it.
    pub(super) held: Option<(u32, Iv)>,
    /// The intervals of record literals' int fields (by value expression), joined over every
    /// evaluation: `sz.w` of `let sz = {w: 3, h: 4}` is 3.
    pub(super) fields: std::collections::HashMap<u32, Iv>,
    /// The evaluator ([`EvalFn`]): loops and guards call back into it.
    pub(super) eval: EvalFn,
}

/// Calls by range: the target and the int arguments' intervals.
pub(super) type Calls = BTreeMap<(u32, u32), (CallTarget, Vec<Option<Iv>>)>;

/// The hull of an int list literal's elements (`for b in [1, 2, 3]` binds `b` in [1, 3]).
pub(super) fn literal_bounds(cx: &Ctx<'_, '_>, iter: u32) -> Option<Iv> {
    let m = cx.body.m;
    let items = cx.kinds.list_items(cx.body, iter)?;
    let mut hull: Option<(i64, i64)> = None;
    for &x in items {
        let n = match &m.exprs[x as usize] {
            Expr::Lit(Literal::Int(n)) => *n,
            Expr::Unary(UnOp::Neg, y) => match m.exprs[*y as usize] {
                Expr::Lit(Literal::Int(n)) => n.checked_neg()?,
                _ => return None,
            },
            _ => return None,
        };
        hull = Some(hull.map_or((n, n), |(lo, hi)| (lo.min(n), hi.max(n))));
    }
    hull.map(|(lo, hi)| Iv::new(i128::from(lo), i128::from(hi)))
}

/// The length of a list: exact for a list literal (or a local bound once to one, never pushed
/// to), else any length.
pub(super) fn list_len(cx: &Ctx<'_, '_>, x: u32) -> Iv {
    match cx.kinds.list_items(cx.body, x) {
        Some(items) => Iv::exact(items.len() as i128),
        None => Iv::new(0, LEN_MAX),
    }
}

pub(super) fn is_int(cx: &Ctx<'_, '_>, e: u32) -> bool {
    cx.kinds.expr(e) == Kind::Int
}

pub(super) fn report(
    cx: &mut Ctx<'_, '_>,
    range: vox_syntax::TextRange,
    op: &'static str,
    operands: Vec<vox_syntax::TextRange>,
    compound: bool,
) {
    if cx.report && cx.found.insert((range.start, range.end, op)) {
        cx.out.push(Overflow {
            range,
            op,
            operands,
            compound,
            tiers: 0,
        });
    }
}
