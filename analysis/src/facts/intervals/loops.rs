//! Loops and guards: how often a loop body may run, how far an accumulation can grow in it,
//! and what a condition says about the variables it compares.

use std::collections::BTreeSet;

use vox_hir::{BinOp, Expr, PlaceRoot, Stmt, UnOp};

use super::context::Ctx;
use super::domain::{apply, growth, isqrt, Env, Iv, MAX, MIN};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum LoopKind {
    /// `trips`: how many times at most, when known (a list literal's length).
    For {
        trips: Option<i128>,
    },
    While,
}

/// The accumulations into one slot: each term added (or, when marked, subtracted) per run of
/// its statement.
pub(super) type Deltas = Vec<(u32, bool)>;

/// Slots a loop body assigns (not counting its own `let`s), with how each is updated.
pub(super) struct Updates {
    /// Slot → the terms of its accumulation statements.
    pub(super) acc: Vec<(u32, Deltas)>,
    /// Slots assigned some other way.
    pub(super) other: Vec<u32>,
}

pub(super) fn collect_updates(cx: &Ctx<'_, '_>, body: u32) -> Updates {
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
pub(super) fn accumulation(
    cx: &Ctx<'_, '_>,
    g: u32,
    op: Option<BinOp>,
    value: u32,
) -> Option<Deltas> {
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
pub(super) fn mentions(cx: &Ctx<'_, '_>, x: u32, slots: &BTreeSet<u32>) -> bool {
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

pub(super) fn run_loop(
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
            let dv = (cx.eval)(cx, *d, &mut delta_env).unwrap_or(Iv::TOP);
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
    (cx.eval)(cx, body, &mut body_env);
    // What the body assigned from input stays input after the loop.
    for g in &assigned {
        if let (Some(v), Some(after)) = (env[*g as usize], body_env[*g as usize]) {
            env[*g as usize] = Some(v.tainted(after.input));
        }
    }
}

pub(super) struct Bound {
    pub(super) lo: Option<i128>,
    pub(super) hi: Option<i128>,
}

/// What a `while` condition says about slot `g` (`g < k` gives `hi = k - 1`).
pub(super) fn guard_bound(cx: &mut Ctx<'_, '_>, cond: u32, g: u32, env: &Env) -> Option<Bound> {
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
pub(super) fn narrow(cx: &mut Ctx<'_, '_>, c: u32, env: &mut Env, truth: bool) {
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
                Expr::Local(_) | Expr::Lit(_) => (cx.eval)(cx, x, env),
                _ => (cx.eval)(cx, x, &mut env.clone()),
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
