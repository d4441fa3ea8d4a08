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

use std::collections::{BTreeMap, BTreeSet};

use vox_hir::{BinOp, Expr, Literal, Module, Pat, PlaceRoot, Stmt, UnOp};
use vox_syntax::TextRange;

use super::model::{FactsBuilder, IntCall, Overflow};
use crate::body::{Body, CallTarget};
use crate::kind::Kind;
use crate::kinds::Kinds;

const MIN: i128 = i64::MIN as i128;
const MAX: i128 = i64::MAX as i128;
/// Steps of a run at most: no statement runs more often (decision 51).
const STEPS: i128 = 1 << 48;
/// What `len` and its relatives return at most; also indices and positions.
const LEN_MAX: i128 = 1 << 40;
/// An amount an accumulation may add or subtract per step and stay in i64 for [`STEPS`] steps.
const SMALL: i128 = 1 << 12;
/// Sums of sizes accumulated in loops stay below this (the one assumption).
const SIZE_SUM: i128 = 1 << 62;
/// `time.*` milliseconds lie in `[0, TIME_MAX]`.
const TIME_MAX: i128 = 1 << 45;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Iv {
    lo: i128,
    hi: i128,
    /// Parsed from input (or computed from such a value).
    input: bool,
}

impl Iv {
    const TOP: Iv = Iv {
        lo: MIN,
        hi: MAX,
        input: false,
    };
    const INPUT: Iv = Iv {
        lo: MIN,
        hi: MAX,
        input: true,
    };
    fn new(lo: i128, hi: i128) -> Iv {
        Iv {
            lo,
            hi,
            input: false,
        }
    }
    fn exact(v: i128) -> Iv {
        Iv::new(v, v)
    }
    fn join(self, o: Iv) -> Iv {
        Iv {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            input: self.input || o.input,
        }
    }
    fn fits(self) -> bool {
        self.lo >= MIN && self.hi <= MAX
    }
    fn clamp(self) -> Iv {
        if self.fits() {
            self
        } else {
            Iv {
                input: self.input,
                ..Iv::TOP
            }
        }
    }
    /// A length, count, index or position (or a small non-negative constant).
    fn is_size(self) -> bool {
        !self.input && self.lo >= 0 && self.hi <= LEN_MAX
    }
    fn tainted(self, input: bool) -> Iv {
        Iv {
            input: self.input || input,
            ..self
        }
    }
}

type Env = Vec<Option<Iv>>;

struct Ctx<'a, 'b> {
    body: &'a Body<'b>,
    kinds: &'a Kinds,
    /// Report overflows (off while probing a loop body).
    report: bool,
    found: BTreeSet<(u32, u32, &'static str)>,
    out: Vec<Overflow>,
    /// Direct calls of user functions seen while reporting: range → (target, int arguments).
    calls: Calls,
    /// The int an Option expression just evaluated holds (`a.checked_mul(b)`, `xs[0]` of an int
    /// list literal), for the `unwrap`/`expect` right around it.
    held: Option<(u32, Iv)>,
    /// The intervals of record literals' int fields (by value expression), joined over every
    /// evaluation: `sz.w` of `let sz = {w: 3, h: 4}` is 3.
    fields: std::collections::HashMap<u32, Iv>,
}

/// Calls by range: the target and the int arguments' intervals.
type Calls = BTreeMap<(u32, u32), (CallTarget, Vec<Option<Iv>>)>;

/// Joins `b` into `a`, slot by slot.
fn join_into(a: &mut Env, b: &Env) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = match (*x, y) {
            (Some(x), Some(y)) => Some(x.join(*y)),
            _ => None,
        };
    }
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
        eval(&mut cx, f.body, &mut env);
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

/// The hull of an int list literal's elements (`for b in [1, 2, 3]` binds `b` in [1, 3]).
fn literal_bounds(cx: &Ctx<'_, '_>, iter: u32) -> Option<Iv> {
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

/// Every recursive step goes through here: a flat chain of 80,000 `+` is 80,000 levels deep,
/// so the stack grows on the heap as needed (issue 36).
fn eval(cx: &mut Ctx<'_, '_>, e: u32, env: &mut Env) -> Option<Iv> {
    stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || eval_node(cx, e, env))
}

/// The length of a list: exact for a list literal (or a local bound once to one, never pushed
/// to), else any length.
fn list_len(cx: &Ctx<'_, '_>, x: u32) -> Iv {
    match cx.kinds.list_items(cx.body, x) {
        Some(items) => Iv::exact(items.len() as i128),
        None => Iv::new(0, LEN_MAX),
    }
}

fn is_int(cx: &Ctx<'_, '_>, e: u32) -> bool {
    cx.kinds.expr(e) == Kind::Int
}

fn report(
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

/// Whether an operation whose result may leave i64 is reported: a product always, a sum,
/// difference, negation or `abs` only when an operand is parsed input (decision 51).
fn hazard(op: &str, operands: &[Iv]) -> bool {
    op == "*" || operands.iter().any(|v| v.input)
}

fn arith(op: BinOp, a: Iv, b: Iv) -> Option<Iv> {
    let r = match op {
        BinOp::Add => Iv::new(a.lo + b.lo, a.hi + b.hi),
        BinOp::Sub => Iv::new(a.lo - b.hi, a.hi - b.lo),
        BinOp::Mul => {
            let c = [
                a.lo.saturating_mul(b.lo),
                a.lo.saturating_mul(b.hi),
                a.hi.saturating_mul(b.lo),
                a.hi.saturating_mul(b.hi),
            ];
            Iv::new(*c.iter().min()?, *c.iter().max()?)
        }
        _ => return None,
    };
    Some(r.tainted(a.input || b.input))
}

fn eval_node(cx: &mut Ctx<'_, '_>, e: u32, env: &mut Env) -> Option<Iv> {
    let m = cx.body.m;
    let range = m.expr_ranges[e as usize];
    let int = is_int(cx, e);
    let v = match &m.exprs[e as usize] {
        Expr::Lit(Literal::Int(v)) => Some(Iv::exact(*v as i128)),
        Expr::Local(s) => {
            let g = cx.body.gslot(e, *s) as usize;
            env.get(g).copied().flatten()
        }
        Expr::Unary(UnOp::Neg, x) => {
            let xv = eval(cx, *x, env);
            if is_int(cx, *x) {
                let xv = xv.unwrap_or(Iv::TOP);
                if xv.lo == MIN {
                    if hazard("neg", &[xv]) {
                        report(cx, range, "neg", vec![m.expr_ranges[*x as usize]], false);
                    }
                    Some(Iv::TOP.tainted(xv.input))
                } else {
                    Some(Iv::new(-xv.hi, -xv.lo).tainted(xv.input))
                }
            } else {
                None
            }
        }
        Expr::Binary(op, a, b) => {
            let av = eval(cx, *a, env);
            let bv = eval(cx, *b, env);
            if is_int(cx, *a) && is_int(cx, *b) {
                let av = av.unwrap_or(Iv::TOP);
                let bv = bv.unwrap_or(Iv::TOP);
                match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => {
                        let r = arith(*op, av, bv).unwrap_or(Iv::TOP);
                        let sym = match op {
                            BinOp::Add => "+",
                            BinOp::Sub => "-",
                            _ => "*",
                        };
                        if !r.fits() && hazard(sym, &[av, bv]) {
                            report(
                                cx,
                                range,
                                sym,
                                vec![m.expr_ranges[*a as usize], m.expr_ranges[*b as usize]],
                                false,
                            );
                        }
                        Some(r.clamp())
                    }
                    BinOp::Div => Some(
                        if bv.lo > 0 {
                            let c = [av.lo / bv.lo, av.lo / bv.hi, av.hi / bv.lo, av.hi / bv.hi];
                            Iv::new(
                                *c.iter().min().unwrap_or(&MIN),
                                *c.iter().max().unwrap_or(&MAX),
                            )
                        } else {
                            Iv::TOP
                        }
                        .tainted(av.input || bv.input),
                    ),
                    BinOp::Mod => Some(if bv.lo > 0 {
                        let k = bv.hi - 1;
                        if av.lo >= 0 {
                            Iv::new(0, k)
                        } else {
                            Iv::new(-k, k)
                        }
                    } else {
                        Iv::TOP
                    }),
                    _ => None,
                }
            } else {
                None
            }
        }
        Expr::Call {
            callee,
            args,
            named,
        } => {
            // Only a direct call of a user function with an int argument is recorded (for
            // `param_tiers`); the others need no argument vector.
            let target = if cx.report && named.is_empty() && args.iter().any(|a| is_int(cx, *a)) {
                cx.body.user_callee(*callee)
            } else {
                None
            };
            let vals = match target {
                Some(target) => {
                    let all: Vec<Option<Iv>> = args.iter().map(|a| eval(cx, *a, env)).collect();
                    record_call(cx, e, target, args, &all);
                    [
                        all.first().copied().flatten(),
                        all.get(1).copied().flatten(),
                    ]
                }
                None => eval_args(cx, args, env),
            };
            for (_, x) in named {
                eval(cx, *x, env);
            }
            eval(cx, *callee, env);
            match cx.body.builtin_call(e) {
                Some(("", "len", [x])) => Some(list_len(cx, *x)),
                Some(("", "len", _)) => Some(Iv::new(0, LEN_MAX)),
                // A bool as int, an int as itself; anything else is parsed (from input, as far as
                // the analysis knows).
                Some(("", "int", [x])) => Some(match cx.kinds.expr(*x) {
                    Kind::Bool => Iv::new(0, 1),
                    Kind::Int => vals[0].unwrap_or(Iv::TOP),
                    Kind::Float | Kind::Dec => Iv::TOP,
                    _ => Iv::INPUT,
                }),
                Some(("time", _, _)) => Some(Iv::new(0, TIME_MAX)),
                Some(("", "ord", _)) => Some(Iv::new(0, 0x10FFFF)),
                Some(("", "abs", [x])) if is_int(cx, *x) => {
                    let xv = vals[0].unwrap_or(Iv::TOP);
                    if xv.lo == MIN {
                        if hazard("abs", &[xv]) {
                            report(cx, range, "abs", vec![m.expr_ranges[*x as usize]], false);
                        }
                        Some(Iv::TOP.tainted(xv.input))
                    } else {
                        let hi = xv.hi.abs().max(xv.lo.abs());
                        let lo = if xv.lo <= 0 && xv.hi >= 0 {
                            0
                        } else {
                            xv.lo.abs().min(xv.hi.abs())
                        };
                        Some(Iv::new(lo, hi).tainted(xv.input))
                    }
                }
                Some(("", "min" | "max", [a, b])) if is_int(cx, *a) && is_int(cx, *b) => {
                    let (x, y) = (vals[0].unwrap_or(Iv::TOP), vals[1].unwrap_or(Iv::TOP));
                    Some(if cx.body.is_builtin_call(e, "", "min") {
                        Iv::new(x.lo.min(y.lo), x.hi.min(y.hi))
                    } else {
                        Iv::new(x.lo.max(y.lo), x.hi.max(y.hi))
                    })
                }
                Some(("random", "int", [_, _])) => {
                    let (lo, hi) = (vals[0].unwrap_or(Iv::TOP), vals[1].unwrap_or(Iv::TOP));
                    Some(Iv::new(lo.lo, (hi.hi - 1).max(lo.lo)).clamp())
                }
                _ => None,
            }
        }
        Expr::MethodCall {
            recv,
            name,
            args,
            named,
        } => {
            let rv = eval(cx, *recv, env);
            let held = cx.held.take().filter(|(x, _)| x == recv).map(|(_, v)| v);
            let vals = eval_args(cx, args, env);
            for (_, x) in named {
                eval(cx, *x, env);
            }
            match &**name {
                // The Option holds the result when it is in i64 (else `expect` stops the run).
                n if n.starts_with("checked_") && is_int(cx, *recv) => {
                    let x = rv.unwrap_or(Iv::TOP);
                    let y = || {
                        args.first()
                            .filter(|a| is_int(cx, **a))
                            .map(|_| vals[0].unwrap_or(Iv::TOP))
                    };
                    let r = match n {
                        "checked_add" => y().and_then(|y| arith(BinOp::Add, x, y)),
                        "checked_sub" => y().and_then(|y| arith(BinOp::Sub, x, y)),
                        "checked_mul" => y().and_then(|y| arith(BinOp::Mul, x, y)),
                        "checked_neg" => Some(Iv::new(-x.hi, -x.lo).tainted(x.input)),
                        "checked_abs" => Some(
                            Iv::new(
                                if x.lo <= 0 && x.hi >= 0 {
                                    0
                                } else {
                                    x.lo.abs().min(x.hi.abs())
                                },
                                x.lo.abs().max(x.hi.abs()),
                            )
                            .tainted(x.input),
                        ),
                        _ => None,
                    };
                    if let Some(r) = r {
                        cx.held = Some((e, Iv::new(r.lo.max(MIN), r.hi.min(MAX)).tainted(r.input)));
                    }
                    None
                }
                "get" | "first" | "last" => {
                    if let Some(lit) = crate::kinds::int_list_of(cx.body, cx.kinds, *recv) {
                        cx.held = literal_bounds(cx, lit).map(|v| (e, v));
                    }
                    None
                }
                "unwrap" | "expect" => held,
                "unwrap_or" => held.map(|h| h.join(vals[0].unwrap_or(Iv::TOP))),
                "len" => Some(list_len(cx, *recv)),
                "chars_count" | "count" => Some(Iv::new(0, LEN_MAX)),
                "ord" => Some(Iv::new(0, 0x10FFFF)),
                "abs" if is_int(cx, *recv) => {
                    let xv = rv.unwrap_or(Iv::TOP);
                    if xv.lo == MIN {
                        if hazard("abs", &[xv]) {
                            report(cx, range, "abs", vec![m.expr_ranges[*recv as usize]], false);
                        }
                        Some(Iv::TOP.tainted(xv.input))
                    } else {
                        Some(Iv::new(0, xv.hi.abs().max(xv.lo.abs())))
                    }
                }
                "min" | "max" if is_int(cx, *recv) && args.len() == 1 && is_int(cx, args[0]) => {
                    let (x, y) = (rv.unwrap_or(Iv::TOP), vals[0].unwrap_or(Iv::TOP));
                    Some(if &**name == "min" {
                        Iv::new(x.lo.min(y.lo), x.hi.min(y.hi))
                    } else {
                        Iv::new(x.lo.max(y.lo), x.hi.max(y.hi))
                    })
                }
                _ => None,
            }
        }
        Expr::Block(stmts) => {
            let mut last = None;
            for s in stmts {
                last = stmt(cx, *s, env);
            }
            last
        }
        Expr::If { cond, then, els } => {
            eval(cx, *cond, env);
            let mut t_env = env.clone();
            narrow(cx, *cond, &mut t_env, true);
            // `env` itself is the else branch's environment.
            narrow(cx, *cond, env, false);
            let tv = eval(cx, *then, &mut t_env);
            let ev = match els {
                Some(x) => eval(cx, *x, env),
                None => None,
            };
            let t_exits = diverges(m, *then);
            let e_exits = els.is_some_and(|x| diverges(m, x));
            match (t_exits, e_exits) {
                (true, false) => {}
                (false, true) => *env = t_env,
                _ => join_into(env, &t_env),
            }
            match (tv, ev) {
                (Some(a), Some(b)) => Some(a.join(b)),
                _ => None,
            }
        }
        Expr::Match { scrutinee, arms } => {
            eval(cx, *scrutinee, env);
            let mut joined: Option<Env> = None;
            let mut val: Option<Iv> = None;
            let mut all = true;
            for (k, (_, x)) in arms.iter().enumerate() {
                let v = if k + 1 < arms.len() {
                    let mut a_env = env.clone();
                    let v = eval(cx, *x, &mut a_env);
                    match &mut joined {
                        None => joined = Some(a_env),
                        Some(j) => join_into(j, &a_env),
                    }
                    v
                } else {
                    // The last arm runs in `env` itself, which then takes the join.
                    let v = eval(cx, *x, env);
                    if let Some(j) = &joined {
                        join_into(env, j);
                    }
                    v
                };
                match v {
                    Some(v) => val = Some(val.map_or(v, |o| o.join(v))),
                    None => all = false,
                }
            }
            if all {
                val
            } else {
                None
            }
        }
        Expr::For {
            iter,
            value,
            index,
            body,
        } => {
            eval(cx, *iter, env);
            let mut binds: Vec<(u32, Iv)> = Vec::new();
            if let Some(v) = value {
                if let Some(r) = range_bounds(cx, *iter, env).or_else(|| literal_bounds(cx, *iter))
                {
                    binds.push((cx.body.gslot(e, *v), r));
                }
            }
            if let Some(i) = index {
                if cx.kinds.slot(cx.body.gslot(e, *i)) == Kind::Int {
                    binds.push((cx.body.gslot(e, *i), Iv::new(0, LEN_MAX)));
                }
            }
            // A list literal that is never changed: the loop runs once per element.
            let trips = cx
                .kinds
                .list_items(cx.body, *iter)
                .map(|xs| xs.len() as i128);
            run_loop(cx, *body, env, &binds, LoopKind::For { trips }, None);
            None
        }
        Expr::Closure { .. } => None,
        Expr::Map(entries) => {
            for (_, v) in entries {
                if let Some(iv) = eval(cx, *v, env) {
                    let joined = cx.fields.get(v).map_or(iv, |o| o.join(iv));
                    cx.fields.insert(*v, joined);
                }
            }
            None
        }
        Expr::Field(x, name) => {
            eval(cx, *x, env);
            cx.kinds
                .field_value(cx.body, *x, name)
                .and_then(|v| cx.fields.get(&v).copied())
        }
        Expr::Index(list, i) => {
            eval(cx, *list, env);
            eval(cx, *i, env);
            if let Some(lit) = crate::kinds::int_list_of(cx.body, cx.kinds, *list) {
                cx.held = literal_bounds(cx, lit).map(|v| (e, v));
            }
            None
        }
        // `x |> f` calls `f(x)`; `x |> g(1)` calls what `g(1)` returns (g itself is called
        // with 1, recorded as any call).
        Expr::Pipe(lhs, rhs) => {
            let lv = eval(cx, *lhs, env);
            if cx.report && is_int(cx, *lhs) {
                if let Some(target) = cx.body.user_callee(*rhs) {
                    record_call(cx, *rhs, target, &[*lhs], &[lv]);
                }
            }
            eval(cx, *rhs, env);
            None
        }
        other => {
            // Everything else: evaluate children for their own findings.
            crate::body::for_each_child(m, e, |k| match k {
                crate::body::Node::Expr(x) => {
                    eval(cx, x, env);
                }
                crate::body::Node::Stmt(s) => {
                    stmt(cx, s, env);
                }
            });
            let _ = other;
            None
        }
    };
    if int {
        Some(v.unwrap_or(Iv::TOP))
    } else {
        None
    }
}

/// Records a direct call of a user function (with positional arguments only) with the
/// intervals of its int arguments (`None` for another kind).
fn record_call(
    cx: &mut Ctx<'_, '_>,
    e: u32,
    target: CallTarget,
    args: &[u32],
    vals: &[Option<Iv>],
) {
    let m = cx.body.m;
    let vals: Vec<Option<Iv>> = args
        .iter()
        .zip(vals)
        .map(|(a, v)| if is_int(cx, *a) { *v } else { None })
        .collect();
    let r = m.expr_ranges[e as usize];
    let entry = cx
        .calls
        .entry((r.start, r.end))
        .or_insert_with(|| (target, vals.clone()));
    for (old, new) in entry.1.iter_mut().zip(&vals) {
        *old = match (*old, new) {
            (Some(a), Some(b)) => Some(a.join(*b)),
            _ => None,
        };
    }
}

/// Evaluates a call's arguments in order; the values of the first two (all the builtins below
/// look at).
fn eval_args(cx: &mut Ctx<'_, '_>, args: &[u32], env: &mut Env) -> [Option<Iv>; 2] {
    let mut vals = [None; 2];
    for (k, a) in args.iter().enumerate() {
        let v = eval(cx, *a, env);
        if let Some(slot) = vals.get_mut(k) {
            *slot = v;
        }
    }
    vals
}

/// The values a `for` over `range(…)` binds.
fn range_bounds(cx: &mut Ctx<'_, '_>, iter: u32, env: &mut Env) -> Option<Iv> {
    let (_, _, args) = cx
        .body
        .builtin_call(iter)
        .filter(|(ns, n, _)| ns.is_empty() && *n == "range")?;
    let args = args.to_vec();
    let mut probe = Ctx {
        body: cx.body,
        kinds: cx.kinds,
        report: false,
        found: BTreeSet::new(),
        out: Vec::new(),
        calls: BTreeMap::new(),
        held: None,
        fields: std::collections::HashMap::new(),
    };
    let vals: Vec<Iv> = args
        .iter()
        .map(|a| eval(&mut probe, *a, env).unwrap_or(Iv::TOP))
        .collect();
    match vals.as_slice() {
        [end] => Some(Iv::new(0, (end.hi - 1).max(0))),
        [start, end] => Some(Iv::new(start.lo, (end.hi - 1).max(start.lo))),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LoopKind {
    /// `trips`: how many times at most, when known (a list literal's length).
    For {
        trips: Option<i128>,
    },
    While,
}

/// The accumulations into one slot: each term added (or, when marked, subtracted) per run of
/// its statement.
type Deltas = Vec<(u32, bool)>;

/// Slots a loop body assigns (not counting its own `let`s), with how each is updated.
struct Updates {
    /// Slot → the terms of its accumulation statements.
    acc: Vec<(u32, Deltas)>,
    /// Slots assigned some other way.
    other: Vec<u32>,
}

fn collect_updates(cx: &Ctx<'_, '_>, body: u32) -> Updates {
    let m = cx.body.m;
    let mut lets = BTreeSet::new();
    let mut acc: Vec<(u32, Deltas)> = Vec::new();
    let mut other = BTreeSet::new();
    let mut stack: Vec<crate::body::Node> = vec![crate::body::Node::Expr(body)];
    while let Some(node) = stack.pop() {
        match node {
            crate::body::Node::Expr(x) => {
                match &m.exprs[x as usize] {
                    Expr::Closure { .. } => continue,
                    Expr::For { value, index, .. } => {
                        for s in value.iter().chain(index.iter()) {
                            lets.insert(cx.body.gslot(x, *s));
                        }
                    }
                    Expr::PopWriteBack { slot, .. } => {
                        other.insert(cx.body.gslot(x, *slot));
                    }
                    _ => {}
                }
                crate::body::for_each_child(m, x, |n| stack.push(n));
            }
            crate::body::Node::Stmt(s) => {
                match &m.stmts[s as usize] {
                    Stmt::Let { pat, .. } => {
                        let mut ss = Vec::new();
                        crate::body::pat_slots(m, *pat, &mut ss);
                        for x in ss {
                            lets.insert(cx.body.gslot_stmt(s, x));
                        }
                    }
                    Stmt::Assign { place, op, value } if place.steps.is_empty() => {
                        if let PlaceRoot::Local(slot) = place.root {
                            let g = cx.body.gslot_stmt(s, slot);
                            match accumulation(cx, g, *op, *value) {
                                Some(terms) => match acc.iter_mut().find(|(x, _)| *x == g) {
                                    Some((_, v)) => v.extend(terms),
                                    None => acc.push((g, terms)),
                                },
                                None => {
                                    other.insert(g);
                                }
                            }
                        }
                    }
                    Stmt::Expr {
                        writeback: Some(slot),
                        ..
                    } => {
                        other.insert(cx.body.gslot_stmt(s, *slot));
                    }
                    _ => {}
                }
                crate::body::for_each_stmt_child(m, s, |n| stack.push(n));
            }
        }
    }
    acc.retain(|(g, _)| !lets.contains(g) && !other.contains(g));
    let other = other.into_iter().filter(|g| !lets.contains(g)).collect();
    Updates { acc, other }
}

/// `v += e`, `v -= e`, and `v = …` where the value is a sum and difference of terms in which `v`
/// appears once, added (`v = v + a - b`, `v = a + v`): the other terms, each marked when it is
/// subtracted.
fn accumulation(cx: &Ctx<'_, '_>, g: u32, op: Option<BinOp>, value: u32) -> Option<Deltas> {
    let m = cx.body.m;
    match op {
        Some(BinOp::Add) => return Some(vec![(value, false)]),
        Some(BinOp::Sub) => return Some(vec![(value, true)]),
        Some(_) => return None,
        None => {}
    }
    let mut terms: Deltas = Vec::new();
    let mut selfs = 0;
    let mut stack = vec![(value, false)];
    while let Some((x, neg)) = stack.pop() {
        match &m.exprs[x as usize] {
            Expr::Binary(BinOp::Add, a, b) => {
                stack.push((*b, neg));
                stack.push((*a, neg));
            }
            Expr::Binary(BinOp::Sub, a, b) => {
                stack.push((*b, !neg));
                stack.push((*a, neg));
            }
            Expr::Local(l) if cx.body.gslot(x, *l) == g => {
                if neg {
                    return None;
                }
                selfs += 1;
            }
            _ => terms.push((x, neg)),
        }
        if terms.len() > 16 {
            return None;
        }
    }
    (selfs == 1).then_some(terms)
}

/// Whether expression `x` mentions any of `slots`.
fn mentions(cx: &Ctx<'_, '_>, x: u32, slots: &BTreeSet<u32>) -> bool {
    let m = cx.body.m;
    let mut stack = vec![crate::body::Node::Expr(x)];
    while let Some(n) = stack.pop() {
        match n {
            crate::body::Node::Expr(e) => {
                if let Expr::Local(l) = m.exprs[e as usize] {
                    if slots.contains(&cx.body.gslot(e, l)) {
                        return true;
                    }
                }
                crate::body::for_each_child(m, e, |c| stack.push(c));
            }
            crate::body::Node::Stmt(s) => crate::body::for_each_stmt_child(m, s, |c| stack.push(c)),
        }
    }
    false
}

/// How far an accumulation can move its slot over a whole run: every term runs at most
/// [`STEPS`] times. Terms bounded by [`SMALL`] move it by at most `2^60`; sizes (lengths,
/// counts, indices) by at most [`SIZE_SUM`] in each direction (the assumption); anything else
/// leaves it unbounded (`None`).
fn growth(terms: &[Iv]) -> Option<(i128, i128)> {
    let (mut small_lo, mut small_hi, mut size_lo, mut size_hi) = (0i128, 0i128, 0i128, 0i128);
    for t in terms {
        if t.lo >= -SMALL && t.hi <= SMALL && !t.input {
            small_lo += t.lo.min(0) * STEPS;
            small_hi += t.hi.max(0) * STEPS;
        } else if t.is_size() {
            size_hi = SIZE_SUM;
        } else if !t.input && t.lo >= -LEN_MAX && t.hi <= 0 {
            // A size subtracted.
            size_lo = -SIZE_SUM;
        } else {
            return None;
        }
    }
    Some((small_lo + size_lo, small_hi + size_hi))
}

fn run_loop(
    cx: &mut Ctx<'_, '_>,
    body: u32,
    env: &mut Env,
    binds: &[(u32, Iv)],
    kind: LoopKind,
    cond: Option<u32>,
) {
    let ups = collect_updates(cx, body);
    let assigned: BTreeSet<u32> = ups
        .acc
        .iter()
        .map(|(g, _)| *g)
        .chain(ups.other.iter().copied())
        .collect();
    // The deltas are evaluated with every assigned int unbounded. (No probe pass over the whole
    // body: with reports off it would leave nothing behind.)
    let mut delta_env = env.clone();
    for g in &assigned {
        if delta_env[*g as usize].is_some() {
            delta_env[*g as usize] = Some(Iv::TOP);
        }
    }
    for (g, iv) in binds {
        delta_env[*g as usize] = Some(*iv);
    }
    if let Some(c) = cond {
        narrow(cx, c, &mut delta_env, true);
    }
    let saved = cx.report;
    cx.report = false;
    let mut loop_env = env.clone();
    for (g, deltas) in &ups.acc {
        let g = *g;
        let Some(v0) = env[g as usize] else { continue };
        let mut terms = Vec::with_capacity(deltas.len());
        let mut unbounded = false;
        for (d, neg) in deltas {
            if mentions(cx, *d, &assigned) {
                unbounded = true;
                break;
            }
            let dv = eval(cx, *d, &mut delta_env).unwrap_or(Iv::TOP);
            terms.push(if *neg {
                Iv::new(-dv.hi, -dv.lo).tainted(dv.input)
            } else {
                dv
            });
        }
        let input = v0.input || terms.iter().any(|t| t.input);
        let by_steps = if unbounded {
            None
        } else {
            growth(&terms).map(|(lo, hi)| Iv::new(v0.lo + lo, v0.hi + hi))
        };
        // A `while` whose condition bounds the slot bounds it too.
        let by_guard = match kind {
            LoopKind::While if !unbounded => {
                let t = terms
                    .iter()
                    .fold(Iv::exact(0), |a, b| Iv::new(a.lo + b.lo, a.hi + b.hi));
                cond.and_then(|c| guard_bound(cx, c, g, env)).and_then(|b| {
                    if t.lo >= 0 {
                        b.hi.map(|hi| Iv::new(v0.lo, v0.hi.max(hi + t.hi)))
                    } else if t.hi <= 0 {
                        b.lo.map(|lo| Iv::new(v0.lo.min(lo + t.lo), v0.hi))
                    } else {
                        None
                    }
                })
            }
            LoopKind::For { trips: Some(n) } if !unbounded => {
                let t = terms
                    .iter()
                    .fold(Iv::exact(0), |a, b| Iv::new(a.lo + b.lo, a.hi + b.hi));
                Some(Iv::new(v0.lo + n * t.lo.min(0), v0.hi + n * t.hi.max(0)))
            }
            _ => None,
        };
        let grown = match (by_steps, by_guard) {
            (Some(a), Some(b)) => Some(Iv::new(a.lo.max(b.lo), a.hi.min(b.hi))),
            (a, b) => a.or(b),
        };
        loop_env[g as usize] = Some(grown.map_or(Iv::TOP, Iv::clamp).tainted(input));
    }
    // Other assignments: unbounded (their input marks are joined after the pass below).
    for g in &ups.other {
        if env[*g as usize].is_some() {
            loop_env[*g as usize] =
                Some(Iv::TOP.tainted(env[*g as usize].is_some_and(|v| v.input)));
        }
    }
    cx.report = saved;
    for g in &assigned {
        env[*g as usize] = loop_env[*g as usize].map(|v| v.join(env[*g as usize].unwrap_or(v)));
    }
    // The real pass, with the loop's ranges.
    let mut body_env = loop_env;
    for (g, iv) in binds {
        body_env[*g as usize] = Some(*iv);
    }
    if let Some(c) = cond {
        narrow(cx, c, &mut body_env, true);
    }
    eval(cx, body, &mut body_env);
    // What the body assigned from input stays input after the loop.
    for g in &assigned {
        if let (Some(v), Some(after)) = (env[*g as usize], body_env[*g as usize]) {
            env[*g as usize] = Some(v.tainted(after.input));
        }
    }
}

struct Bound {
    lo: Option<i128>,
    hi: Option<i128>,
}

/// What a `while` condition says about slot `g` (`g < k` gives `hi = k - 1`).
fn guard_bound(cx: &mut Ctx<'_, '_>, cond: u32, g: u32, env: &Env) -> Option<Bound> {
    let mut t = env.clone();
    for x in t.iter_mut() {
        if x.is_some() {
            *x = Some(x.unwrap_or(Iv::TOP));
        }
    }
    t[g as usize] = Some(Iv::TOP);
    narrow(cx, cond, &mut t, true);
    let v = t[g as usize]?;
    let b = Bound {
        lo: (v.lo > MIN).then_some(v.lo),
        hi: (v.hi < MAX).then_some(v.hi),
    };
    (b.lo.is_some() || b.hi.is_some()).then_some(b)
}

/// Narrows `env` by condition `c` being `truth`.
fn narrow(cx: &mut Ctx<'_, '_>, c: u32, env: &mut Env, truth: bool) {
    let m = cx.body.m;
    match &m.exprs[c as usize] {
        Expr::And(a, b) if truth => {
            narrow(cx, *a, env, true);
            narrow(cx, *b, env, true);
        }
        Expr::Or(a, b) if !truth => {
            narrow(cx, *a, env, false);
            narrow(cx, *b, env, false);
        }
        Expr::Unary(UnOp::Not, x) => narrow(cx, *x, env, !truth),
        Expr::Binary(op, a, b) => {
            let op = match (op, truth) {
                (BinOp::Lt, true) | (BinOp::Ge, false) => BinOp::Lt,
                (BinOp::Le, true) | (BinOp::Gt, false) => BinOp::Le,
                (BinOp::Gt, true) | (BinOp::Le, false) => BinOp::Gt,
                (BinOp::Ge, true) | (BinOp::Lt, false) => BinOp::Ge,
                _ => return,
            };
            let saved = cx.report;
            cx.report = false;
            // Probing must leave `env` as it is; a name or a literal never changes it, so only
            // other operands get a copy.
            let mut probe = |cx: &mut Ctx<'_, '_>, x: u32| match m.exprs[x as usize] {
                Expr::Local(_) | Expr::Lit(_) => eval(cx, x, env),
                _ => eval(cx, x, &mut env.clone()),
            };
            let av = probe(cx, *a);
            let bv = probe(cx, *b);
            cx.report = saved;
            let slot_of = |x: u32| match m.exprs[x as usize] {
                Expr::Local(l) => Some(cx.body.gslot(x, l)),
                _ => None,
            };
            // x OP k
            if let (Some(g), Some(k)) = (slot_of(*a), bv) {
                apply(env, g, op, k);
            }
            // x * x < k, x * x <= k: |x| is at most the square root.
            if let (Expr::Binary(BinOp::Mul, x, y), Some(k), BinOp::Lt | BinOp::Le) =
                (&m.exprs[*a as usize], bv, op)
            {
                if let (Some(g), Some(g2)) = (slot_of(*x), slot_of(*y)) {
                    let top = if op == BinOp::Lt { k.hi - 1 } else { k.hi };
                    if g == g2 && (0..=MAX).contains(&top) {
                        let r = isqrt(top);
                        apply(env, g, BinOp::Le, Iv::exact(r));
                        apply(env, g, BinOp::Ge, Iv::exact(-r));
                    }
                }
            }
            // k OP x  ==  x OP' k
            if let (Some(g), Some(k)) = (slot_of(*b), av) {
                let flipped = match op {
                    BinOp::Lt => BinOp::Gt,
                    BinOp::Le => BinOp::Ge,
                    BinOp::Gt => BinOp::Lt,
                    _ => BinOp::Le,
                };
                apply(env, g, flipped, k);
            }
        }
        _ => {}
    }
}

/// The largest `r` with `r * r <= n` (`0 <= n <= i64::MAX`).
fn isqrt(n: i128) -> i128 {
    let mut r = (n as f64).sqrt() as i128;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

fn apply(env: &mut Env, g: u32, op: BinOp, k: Iv) {
    let Some(Some(v)) = env.get(g as usize).copied() else {
        return;
    };
    let n = match op {
        BinOp::Lt => Iv::new(v.lo, v.hi.min(k.hi - 1)),
        BinOp::Le => Iv::new(v.lo, v.hi.min(k.hi)),
        BinOp::Gt => Iv::new(v.lo.max(k.lo + 1), v.hi),
        _ => Iv::new(v.lo.max(k.lo), v.hi),
    };
    if n.lo <= n.hi {
        env[g as usize] = Some(n);
    }
}

fn stmt(cx: &mut Ctx<'_, '_>, s: u32, env: &mut Env) -> Option<Iv> {
    let m = cx.body.m;
    match &m.stmts[s as usize] {
        Stmt::Let { pat, init } => {
            let v = eval(cx, *init, env);
            if let Pat::Bind(slot) = m.pats[*pat as usize] {
                let g = cx.body.gslot_stmt(s, slot) as usize;
                if cx.kinds.slots.get(g) == Some(&Kind::Int) {
                    env[g] = Some(v.unwrap_or(Iv::TOP));
                } else {
                    env[g] = None;
                }
            } else {
                let mut ss = Vec::new();
                crate::body::pat_slots(m, *pat, &mut ss);
                for x in ss {
                    let g = cx.body.gslot_stmt(s, x) as usize;
                    if cx.kinds.slots.get(g) == Some(&Kind::Int) {
                        env[g] = Some(Iv::TOP);
                    }
                }
            }
            None
        }
        Stmt::Expr { expr, .. } => eval(cx, *expr, env),
        Stmt::Assign { place, op, value } => {
            let v = eval(cx, *value, env);
            for step in &place.steps {
                if let vox_hir::PlaceStep::Index(x) = step {
                    eval(cx, *x, env);
                }
            }
            if let PlaceRoot::Local(slot) = place.root {
                let g = cx.body.gslot_stmt(s, slot) as usize;
                if place.steps.is_empty() && cx.kinds.slots.get(g) == Some(&Kind::Int) {
                    let cur = env[g].unwrap_or(Iv::TOP);
                    let new = match op {
                        None => v.unwrap_or(Iv::TOP),
                        Some(o @ (BinOp::Add | BinOp::Sub | BinOp::Mul)) if is_int(cx, *value) => {
                            let dv = v.unwrap_or(Iv::TOP);
                            let r = arith(*o, cur, dv).unwrap_or(Iv::TOP);
                            let sym = match o {
                                BinOp::Add => "+",
                                BinOp::Sub => "-",
                                _ => "*",
                            };
                            if !r.fits() && hazard(sym, &[cur, dv]) {
                                report(
                                    cx,
                                    m.stmt_ranges[s as usize],
                                    sym,
                                    vec![m.expr_ranges[*value as usize]],
                                    true,
                                );
                            }
                            r.clamp()
                        }
                        Some(_) => Iv::TOP,
                    };
                    env[g] = Some(new);
                }
            }
            None
        }
        Stmt::While { cond, body } => {
            eval(cx, *cond, env);
            run_loop(cx, *body, env, &[], LoopKind::While, Some(*cond));
            None
        }
        Stmt::Loop { body } => {
            run_loop(cx, *body, env, &[], LoopKind::While, None);
            None
        }
    }
}

/// Whether a branch always leaves (ends in `return`, `break`, `continue` or `panic`).
fn diverges(m: &Module, e: u32) -> bool {
    match &m.exprs[e as usize] {
        Expr::Return(_) | Expr::Break | Expr::Continue => true,
        Expr::Block(stmts) => stmts.last().is_some_and(|s| match &m.stmts[*s as usize] {
            Stmt::Expr { expr, .. } => diverges(m, *expr),
            _ => false,
        }),
        Expr::If {
            then,
            els: Some(els),
            ..
        } => diverges(m, *then) && diverges(m, *els),
        _ => false,
    }
}
