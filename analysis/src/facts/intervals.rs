//! Integer intervals for D004 (analysis.md §1.1, decision 31): an abstract interpretation of one
//! body in statement order. Literals are exact, `len`-like results lie in `[0, 2^32]`, range loop
//! variables in their range, comparisons narrow the branch they guard, and a `for` loop runs at
//! most 2^32 times, so an accumulation `v += e` with bounded `e` stays bounded (nested loops
//! multiply). Parameters, parsed input and call results are unbounded. An operation on two known
//! ints whose result interval leaves i64 is reported.

use std::collections::BTreeSet;

use vox_hir::{BinOp, Expr, Literal, Module, Pat, PlaceRoot, Stmt, UnOp};

use super::walk::Body;
use super::{FactsBuilder, Overflow};
use crate::kinds::{Kind, Kinds};

const MIN: i128 = i64::MIN as i128;
const MAX: i128 = i64::MAX as i128;
/// Iterations of one `for` loop at most (decision 31).
const LOOP_BOUND: i128 = 1 << 32;
/// What `len` and its relatives return at most.
const LEN_MAX: i128 = 1 << 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Iv {
    lo: i128,
    hi: i128,
}

impl Iv {
    const TOP: Iv = Iv { lo: MIN, hi: MAX };
    fn exact(v: i128) -> Iv {
        Iv { lo: v, hi: v }
    }
    fn join(self, o: Iv) -> Iv {
        Iv {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }
    fn fits(self) -> bool {
        self.lo >= MIN && self.hi <= MAX
    }
    fn clamp(self) -> Iv {
        if self.fits() {
            self
        } else {
            Iv::TOP
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
}

/// Joins `b` into `a`, slot by slot.
fn join_into(a: &mut Env, b: &Env) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = match (*x, y) {
            (Some(x), Some(y)) => Some(x.join(*y)),
            _ => None,
        };
    }
}

pub(super) fn overflows(body: &Body<'_>, kinds: &Kinds, facts: &mut FactsBuilder) {
    let m = body.m;
    let mut cx = Ctx {
        body,
        kinds,
        report: true,
        found: BTreeSet::new(),
        out: Vec::new(),
    };
    for (fi, f) in m.functions.iter().enumerate() {
        // Each frame starts with every int slot unknown (parameters and captures unbounded).
        let mut env: Env = vec![None; body.n_slots as usize];
        let base = body.slot_base[fi] as usize;
        for s in 0..f.n_slots as usize {
            if kinds.slots.get(base + s) == Some(&Kind::Int) {
                env[base + s] = Some(Iv::TOP);
            }
        }
        stacker_eval(&mut cx, f.body, &mut env);
    }
    let mut out = cx.out;
    out.sort_by_key(|o| (o.range.start, o.range.end));
    facts.overflows = out;
}

fn stacker_eval(cx: &mut Ctx<'_, '_>, e: u32, env: &mut Env) -> Option<Iv> {
    stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || eval(cx, e, env))
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
        });
    }
}

fn arith(op: BinOp, a: Iv, b: Iv) -> Option<Iv> {
    Some(match op {
        BinOp::Add => Iv {
            lo: a.lo + b.lo,
            hi: a.hi + b.hi,
        },
        BinOp::Sub => Iv {
            lo: a.lo - b.hi,
            hi: a.hi - b.lo,
        },
        BinOp::Mul => {
            let c = [
                a.lo.saturating_mul(b.lo),
                a.lo.saturating_mul(b.hi),
                a.hi.saturating_mul(b.lo),
                a.hi.saturating_mul(b.hi),
            ];
            Iv {
                lo: *c.iter().min()?,
                hi: *c.iter().max()?,
            }
        }
        _ => return None,
    })
}

fn eval(cx: &mut Ctx<'_, '_>, e: u32, env: &mut Env) -> Option<Iv> {
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
                    report(cx, range, "neg", vec![m.expr_ranges[*x as usize]], false);
                    Some(Iv::TOP)
                } else {
                    Some(Iv {
                        lo: -xv.hi,
                        hi: -xv.lo,
                    })
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
                        if !r.fits() {
                            let sym = match op {
                                BinOp::Add => "+",
                                BinOp::Sub => "-",
                                _ => "*",
                            };
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
                    BinOp::Div => Some(if bv.lo > 0 {
                        let c = [av.lo / bv.lo, av.lo / bv.hi, av.hi / bv.lo, av.hi / bv.hi];
                        Iv {
                            lo: *c.iter().min().unwrap_or(&MIN),
                            hi: *c.iter().max().unwrap_or(&MAX),
                        }
                    } else {
                        Iv::TOP
                    }),
                    BinOp::Mod => Some(if bv.lo > 0 {
                        let k = bv.hi - 1;
                        if av.lo >= 0 {
                            Iv { lo: 0, hi: k }
                        } else {
                            Iv { lo: -k, hi: k }
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
            let vals = eval_args(cx, args, env);
            for (_, x) in named {
                eval(cx, *x, env);
            }
            eval(cx, *callee, env);
            match cx.body.builtin_call(e) {
                Some(("", "len", _)) => Some(Iv { lo: 0, hi: LEN_MAX }),
                Some(("", "ord", _)) => Some(Iv {
                    lo: 0,
                    hi: 0x10FFFF,
                }),
                Some(("", "abs", [x])) if is_int(cx, *x) => {
                    let xv = vals[0].unwrap_or(Iv::TOP);
                    if xv.lo == MIN {
                        report(cx, range, "abs", vec![m.expr_ranges[*x as usize]], false);
                        Some(Iv::TOP)
                    } else {
                        let hi = xv.hi.abs().max(xv.lo.abs());
                        let lo = if xv.lo <= 0 && xv.hi >= 0 {
                            0
                        } else {
                            xv.lo.abs().min(xv.hi.abs())
                        };
                        Some(Iv { lo, hi })
                    }
                }
                Some(("", "min" | "max", [a, b])) if is_int(cx, *a) && is_int(cx, *b) => {
                    let (x, y) = (vals[0].unwrap_or(Iv::TOP), vals[1].unwrap_or(Iv::TOP));
                    Some(if cx.body.is_builtin_call(e, "", "min") {
                        Iv {
                            lo: x.lo.min(y.lo),
                            hi: x.hi.min(y.hi),
                        }
                    } else {
                        Iv {
                            lo: x.lo.max(y.lo),
                            hi: x.hi.max(y.hi),
                        }
                    })
                }
                Some(("random", "int", [_, _])) => {
                    let (lo, hi) = (vals[0].unwrap_or(Iv::TOP), vals[1].unwrap_or(Iv::TOP));
                    Some(
                        Iv {
                            lo: lo.lo,
                            hi: (hi.hi - 1).max(lo.lo),
                        }
                        .clamp(),
                    )
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
            let vals = eval_args(cx, args, env);
            for (_, x) in named {
                eval(cx, *x, env);
            }
            match &**name {
                "len" | "chars_count" | "count" => Some(Iv { lo: 0, hi: LEN_MAX }),
                "ord" => Some(Iv {
                    lo: 0,
                    hi: 0x10FFFF,
                }),
                "abs" if is_int(cx, *recv) => {
                    let xv = rv.unwrap_or(Iv::TOP);
                    if xv.lo == MIN {
                        report(cx, range, "abs", vec![m.expr_ranges[*recv as usize]], false);
                        Some(Iv::TOP)
                    } else {
                        Some(Iv {
                            lo: 0,
                            hi: xv.hi.abs().max(xv.lo.abs()),
                        })
                    }
                }
                "min" | "max" if is_int(cx, *recv) && args.len() == 1 && is_int(cx, args[0]) => {
                    let (x, y) = (rv.unwrap_or(Iv::TOP), vals[0].unwrap_or(Iv::TOP));
                    Some(if &**name == "min" {
                        Iv {
                            lo: x.lo.min(y.lo),
                            hi: x.hi.min(y.hi),
                        }
                    } else {
                        Iv {
                            lo: x.lo.max(y.lo),
                            hi: x.hi.max(y.hi),
                        }
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
                if let Some(r) = range_bounds(cx, *iter, env) {
                    binds.push((cx.body.gslot(e, *v), r));
                }
            }
            if let Some(i) = index {
                if cx.kinds.slot(cx.body.gslot(e, *i)) == Kind::Int {
                    binds.push((
                        cx.body.gslot(e, *i),
                        Iv {
                            lo: 0,
                            hi: LOOP_BOUND,
                        },
                    ));
                }
            }
            run_loop(cx, *body, env, &binds, LoopKind::For, None);
            None
        }
        Expr::Closure { .. } => None,
        other => {
            // Everything else: evaluate children for their own findings.
            super::walk::for_each_child(m, e, |k| match k {
                super::walk::Node::Expr(x) => {
                    eval(cx, x, env);
                }
                super::walk::Node::Stmt(s) => {
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
    };
    let vals: Vec<Iv> = args
        .iter()
        .map(|a| eval(&mut probe, *a, env).unwrap_or(Iv::TOP))
        .collect();
    match vals.as_slice() {
        [end] => Some(Iv {
            lo: 0,
            hi: (end.hi - 1).max(0),
        }),
        [start, end] => Some(Iv {
            lo: start.lo,
            hi: (end.hi - 1).max(start.lo),
        }),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LoopKind {
    For,
    While,
}

/// The accumulations into one slot: (the expression added, whether it is subtracted, how many
/// times the statement runs per iteration; `None`: unbounded).
type Deltas = Vec<(u32, bool, Option<i128>)>;

/// Slots a loop body assigns (not counting its own `let`s), with how each is updated.
struct Updates {
    /// Slot → deltas of accumulation statements, each with its multiplicity.
    acc: Vec<(u32, Deltas)>,
    /// Slots assigned some other way.
    other: Vec<u32>,
}

fn collect_updates(cx: &Ctx<'_, '_>, body: u32) -> Updates {
    let m = cx.body.m;
    let mut lets = BTreeSet::new();
    let mut acc: Vec<(u32, Deltas)> = Vec::new();
    let mut other = BTreeSet::new();
    // (expression or statement, multiplicity)
    let mut stack: Vec<(super::walk::Node, Option<i128>)> =
        vec![(super::walk::Node::Expr(body), Some(1))];
    while let Some((node, mult)) = stack.pop() {
        match node {
            super::walk::Node::Expr(x) => {
                let child_mult = match &m.exprs[x as usize] {
                    Expr::For { .. } => mult.and_then(|k| k.checked_mul(LOOP_BOUND)),
                    Expr::Closure { .. } => continue,
                    _ => mult,
                };
                if let Expr::For { value, index, .. } = &m.exprs[x as usize] {
                    for s in value.iter().chain(index.iter()) {
                        lets.insert(cx.body.gslot(x, *s));
                    }
                }
                if let Expr::PopWriteBack { slot, .. } = &m.exprs[x as usize] {
                    other.insert(cx.body.gslot(x, *slot));
                }
                super::walk::for_each_child(m, x, |n| stack.push((n, child_mult)));
            }
            super::walk::Node::Stmt(s) => {
                let st = &m.stmts[s as usize];
                let inner = match st {
                    Stmt::While { .. } | Stmt::Loop { .. } => None,
                    _ => mult,
                };
                match st {
                    Stmt::Let { pat, .. } => {
                        let mut ss = Vec::new();
                        super::paths::pat_slots(m, *pat, &mut ss);
                        for x in ss {
                            lets.insert(cx.body.gslot_stmt(s, x));
                        }
                    }
                    Stmt::Assign { place, op, value } if place.steps.is_empty() => {
                        if let PlaceRoot::Local(slot) = place.root {
                            let g = cx.body.gslot_stmt(s, slot);
                            match accumulation(cx, s, g, *op, *value) {
                                Some((delta, neg)) => match acc.iter_mut().find(|(x, _)| *x == g) {
                                    Some((_, v)) => v.push((delta, neg, mult)),
                                    None => acc.push((g, vec![(delta, neg, mult)])),
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
                super::walk::for_each_stmt_child(m, s, |n| stack.push((n, inner)));
            }
        }
    }
    acc.retain(|(g, _)| !lets.contains(g) && !other.contains(g));
    let other = other.into_iter().filter(|g| !lets.contains(g)).collect();
    Updates { acc, other }
}

/// `v += e`, `v -= e`, `v = v + e`, `v = e + v`, `v = v - e`: the delta expression and whether it
/// is subtracted.
fn accumulation(
    cx: &Ctx<'_, '_>,
    s: u32,
    g: u32,
    op: Option<BinOp>,
    value: u32,
) -> Option<(u32, bool)> {
    let m = cx.body.m;
    let is_self =
        |x: u32| matches!(m.exprs[x as usize], Expr::Local(l) if cx.body.gslot(x, l) == g);
    let _ = s;
    match op {
        Some(BinOp::Add) => Some((value, false)),
        Some(BinOp::Sub) => Some((value, true)),
        Some(_) => None,
        None => match &m.exprs[value as usize] {
            Expr::Binary(BinOp::Add, a, b) if is_self(*a) => Some((*b, false)),
            Expr::Binary(BinOp::Add, a, b) if is_self(*b) => Some((*a, false)),
            Expr::Binary(BinOp::Sub, a, b) if is_self(*a) => Some((*b, true)),
            _ => None,
        },
    }
}

/// Whether expression `x` mentions any of `slots`.
fn mentions(cx: &Ctx<'_, '_>, x: u32, slots: &BTreeSet<u32>) -> bool {
    let m = cx.body.m;
    let mut stack = vec![super::walk::Node::Expr(x)];
    while let Some(n) = stack.pop() {
        match n {
            super::walk::Node::Expr(e) => {
                if let Expr::Local(l) = m.exprs[e as usize] {
                    if slots.contains(&cx.body.gslot(e, l)) {
                        return true;
                    }
                }
                super::walk::for_each_child(m, e, |c| stack.push(c));
            }
            super::walk::Node::Stmt(s) => super::walk::for_each_stmt_child(m, s, |c| stack.push(c)),
        }
    }
    false
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
        let mut total = Some(Iv::exact(0));
        for (d, neg, mult) in deltas {
            if mentions(cx, *d, &assigned) {
                total = None;
                break;
            }
            let dv = eval(cx, *d, &mut delta_env).unwrap_or(Iv::TOP);
            let dv = if *neg {
                Iv {
                    lo: -dv.hi,
                    hi: -dv.lo,
                }
            } else {
                dv
            };
            total = match (total, mult) {
                (Some(t), Some(k)) => Some(Iv {
                    lo: t.lo.saturating_add(dv.lo.min(0).saturating_mul(*k)),
                    hi: t.hi.saturating_add(dv.hi.max(0).saturating_mul(*k)),
                }),
                _ => None,
            };
        }
        let grown = match (kind, total) {
            (LoopKind::For, Some(t)) => Some(Iv {
                lo: v0.lo.saturating_add(t.lo.saturating_mul(LOOP_BOUND)),
                hi: v0.hi.saturating_add(t.hi.saturating_mul(LOOP_BOUND)),
            }),
            (LoopKind::While, Some(t)) => {
                cond.and_then(|c| guard_bound(cx, c, g, env)).and_then(|b| {
                    if t.lo >= 0 {
                        b.hi.map(|hi| Iv {
                            lo: v0.lo,
                            hi: v0.hi.max(hi + t.hi),
                        })
                    } else if t.hi <= 0 {
                        b.lo.map(|lo| Iv {
                            lo: v0.lo.min(lo + t.lo),
                            hi: v0.hi,
                        })
                    } else {
                        None
                    }
                })
            }
            _ => None,
        };
        loop_env[g as usize] = Some(grown.map_or(Iv::TOP, Iv::clamp));
    }
    // Other assignments: join of every value assigned, computed with the loop's slots unbounded.
    for g in &ups.other {
        if env[*g as usize].is_some() {
            loop_env[*g as usize] = Some(Iv::TOP);
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

fn apply(env: &mut Env, g: u32, op: BinOp, k: Iv) {
    let Some(Some(v)) = env.get(g as usize).copied() else {
        return;
    };
    let n = match op {
        BinOp::Lt => Iv {
            lo: v.lo,
            hi: v.hi.min(k.hi - 1),
        },
        BinOp::Le => Iv {
            lo: v.lo,
            hi: v.hi.min(k.hi),
        },
        BinOp::Gt => Iv {
            lo: v.lo.max(k.lo + 1),
            hi: v.hi,
        },
        _ => Iv {
            lo: v.lo.max(k.lo),
            hi: v.hi,
        },
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
                super::paths::pat_slots(m, *pat, &mut ss);
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
                            let r = arith(*o, cur, v.unwrap_or(Iv::TOP)).unwrap_or(Iv::TOP);
                            if !r.fits() {
                                let sym = match o {
                                    BinOp::Add => "+",
                                    BinOp::Sub => "-",
                                    _ => "*",
                                };
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
