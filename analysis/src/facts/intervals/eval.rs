//! The evaluator: each expression's interval in statement order, reporting the operations whose
//! result may leave i64.

use std::collections::{BTreeMap, BTreeSet};

use vox_hir::{BinOp, Expr, Literal, Module, Pat, PlaceRoot, Stmt, UnOp};

use super::context::{is_int, list_len, literal_bounds, report, Ctx};
use super::domain::{arith, hazard, join_into, Env, Iv, LEN_MAX, MAX, MIN, TIME_MAX};
use super::loops::{narrow, run_loop, LoopKind};
use crate::body::CallTarget;
use crate::kind::Kind;

/// Every recursive step goes through here: a flat chain of 80,000 `+` is 80,000 levels deep,
/// so the stack grows on the heap as needed (issue 36).
pub(super) fn eval(cx: &mut Ctx<'_, '_>, e: u32, env: &mut Env) -> Option<Iv> {
    stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || eval_node(cx, e, env))
}

pub(super) fn eval_node(cx: &mut Ctx<'_, '_>, e: u32, env: &mut Env) -> Option<Iv> {
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
pub(super) fn record_call(
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
pub(super) fn eval_args(cx: &mut Ctx<'_, '_>, args: &[u32], env: &mut Env) -> [Option<Iv>; 2] {
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
pub(super) fn range_bounds(cx: &mut Ctx<'_, '_>, iter: u32, env: &mut Env) -> Option<Iv> {
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
        eval,
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

pub(super) fn stmt(cx: &mut Ctx<'_, '_>, s: u32, env: &mut Env) -> Option<Iv> {
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
pub(super) fn diverges(m: &Module, e: u32) -> bool {
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
