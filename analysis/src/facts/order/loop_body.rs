//! What a `for` body does with the order it iterates in: where it shows it (a print, a
//! `break`, an outer assignment), what it collects, and the functions it calls.

use vox_hir::{BinOp, Expr, Global, Module, PlaceRoot, Stmt};
use vox_syntax::TextRange;

use crate::body::{
    for_each_child, for_each_stmt_child, pat_slots, Body, CallTarget, ClosureIndex, Node,
};
use crate::facts::model::is_output;
use crate::kind::Kind;
use crate::kinds::Kinds;

/// The first output call (`print`, `fs.write`, …) in closure `func`'s body, by name.
pub(super) fn closure_output(body: &Body<'_>, func: u32) -> Option<String> {
    let m = body.m;
    let mut found = None;
    visit(m, m.functions[func as usize].body, &mut |n| {
        if let (Node::Expr(x), None) = (n, &found) {
            if let Some((ns, name, _)) = body.builtin_call(x) {
                if is_output(ns, name) {
                    found = Some(vox_hir::catalog::qualified(ns, name));
                }
            }
        }
    });
    found
}

/// Visits a body (not entering closures), expressions and statements.
pub(super) fn visit(m: &Module, e: u32, f: &mut dyn FnMut(Node)) {
    let mut stack = vec![Node::Expr(e)];
    while let Some(n) = stack.pop() {
        f(n);
        match n {
            Node::Expr(x) => {
                if matches!(m.exprs[x as usize], Expr::Closure { .. }) {
                    continue;
                }
                for_each_child(m, x, |c| stack.push(c));
            }
            Node::Stmt(s) => for_each_stmt_child(m, s, |c| stack.push(c)),
        }
    }
}

/// What a `for` loop's body does, from one walk over it (not entering closures).
pub(super) struct LoopBody {
    /// Outer variables it collects into (pushes, appends): they carry the loop's order.
    pub(super) collects: Vec<u32>,
    /// Where it makes the iteration order visible, if it does: its first `break`, `return` or
    /// output call, else its first assignment of an outer variable.
    pub(super) sink: Option<(TextRange, String)>,
    /// User functions it calls (their output would show the order).
    pub(super) calls: Vec<CallTarget>,
}

impl LoopBody {
    pub(super) fn new(body: &Body<'_>, kinds: &Kinds, kept: &ClosureIndex, e: u32) -> LoopBody {
        let m = body.m;
        // Slots bound inside the body (its own `let`s, loop variables, match bindings).
        let mut locals = Vec::new();
        let mut updates = Vec::new();
        let mut hit: Option<(TextRange, String)> = None;
        let mut calls = Vec::new();
        let mut slots = Vec::new();
        // The walk is not in source order: the first place is the one that starts first.
        let earlier = |hit: &Option<(TextRange, String)>, r: TextRange| {
            hit.as_ref().is_none_or(|(h, _)| r.start < h.start)
        };
        visit(m, e, &mut |n| match n {
            Node::Stmt(s) => {
                if let Stmt::Let { pat, .. } = &m.stmts[s as usize] {
                    slots.clear();
                    pat_slots(m, *pat, &mut slots);
                    locals.extend(slots.iter().map(|x| body.gslot_stmt(s, *x)));
                }
                if let Some((g, how)) = outer_update(body, kinds, s) {
                    updates.push((g, how, m.stmt_ranges[s as usize]));
                }
            }
            Node::Expr(x) => {
                let r = m.expr_ranges[x as usize];
                match &m.exprs[x as usize] {
                    Expr::For { value, index, .. } => {
                        locals.extend(value.iter().chain(index.iter()).map(|v| body.gslot(x, *v)));
                    }
                    Expr::Match { arms, .. } => {
                        for (p, _) in arms {
                            slots.clear();
                            pat_slots(m, *p, &mut slots);
                            locals.extend(slots.iter().map(|v| body.gslot(x, *v)));
                        }
                    }
                    Expr::Break if earlier(&hit, r) => hit = Some((r, "break".into())),
                    // `o.show(k)` where field `show` holds a closure that prints (decision 61).
                    Expr::MethodCall { recv, name, .. } if earlier(&hit, r) => {
                        if let Some(out) = kept
                            .field_closures(body, *recv, name)
                            .into_iter()
                            .find_map(|f| closure_output(body, f))
                        {
                            hit = Some((r, format!("closure:{out}")));
                        }
                    }
                    Expr::Return(_) if earlier(&hit, r) => hit = Some((r, "return".into())),
                    Expr::Call { callee, .. } => {
                        if let Some((ns, name, _)) = body.builtin_call(x) {
                            if earlier(&hit, r) && is_output(ns, name) {
                                hit = Some((r, vox_hir::catalog::qualified(ns, name)));
                            }
                        } else if earlier(&hit, r) {
                            // A closure that prints, called through a variable, a field or a list.
                            if let Some(out) = kept
                                .closures(body, *callee)
                                .into_iter()
                                .find_map(|f| closure_output(body, f))
                            {
                                hit = Some((r, format!("closure:{out}")));
                            }
                        }
                        if let Expr::Global(g) = m.exprs[*callee as usize] {
                            match m.globals.get(g as usize) {
                                Some(Global::Fn(k)) => calls.push(body.local(*k)),
                                Some(Global::Imported { import, name }) => {
                                    calls.push(CallTarget::Imported {
                                        import: *import,
                                        name: std::sync::Arc::from(&**name),
                                    })
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
        });
        locals.sort_unstable();
        updates.retain(|(g, _, _)| locals.binary_search(g).is_err());
        let sink = hit.or_else(|| {
            updates
                .iter()
                .filter(|(_, how, _)| *how == Update::Other)
                .map(|(_, _, r)| *r)
                .min_by_key(|r| r.start)
                .map(|r| (r, "an assignment outside the loop".into()))
        });
        LoopBody {
            collects: updates
                .into_iter()
                .filter(|(_, how, _)| *how == Update::Collect)
                .map(|(g, _, _)| g)
                .collect(),
            sink,
            calls,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Update {
    /// Counting, summing, min/max, a constant, building a map: the order does not show.
    Insensitive,
    /// Pushing to a list or appending to a str: the variable now carries the order.
    Collect,
    /// Anything else (`last = k`): the order shows.
    Other,
}

/// How statement `s` updates a variable, if it does (`None` also for a method call whose result
/// is not written back).
pub(super) fn outer_update(body: &Body<'_>, kinds: &Kinds, s: u32) -> Option<(u32, Update)> {
    let m = body.m;
    let is_self =
        |x: u32, g: u32| matches!(m.exprs[x as usize], Expr::Local(l) if body.gslot(x, l) == g);
    match &m.stmts[s as usize] {
        Stmt::Assign { place, op, value } => {
            let PlaceRoot::Local(l) = place.root else {
                return None;
            };
            let g = body.gslot_stmt(s, l);
            let k = kinds.slot(g);
            let how = if !place.steps.is_empty() {
                // `m2[k] = v`, `m2.count = …`: building a map.
                if k == Kind::List {
                    Update::Collect
                } else {
                    Update::Insensitive
                }
            } else {
                match (op, &m.exprs[*value as usize]) {
                    (Some(BinOp::Add), _) if matches!(k, Kind::Str | Kind::List) => Update::Collect,
                    (Some(BinOp::Add | BinOp::Sub), _) => Update::Insensitive,
                    (Some(_), _) => Update::Other,
                    (None, Expr::Binary(BinOp::Add, a, b)) if is_self(*a, g) || is_self(*b, g) => {
                        if matches!(k, Kind::Str | Kind::List) {
                            Update::Collect
                        } else {
                            Update::Insensitive
                        }
                    }
                    (None, Expr::Binary(BinOp::Sub, a, _)) if is_self(*a, g) => Update::Insensitive,
                    (None, Expr::Lit(_)) => Update::Insensitive,
                    (None, Expr::MethodCall { recv, name, .. }) if is_self(*recv, g) => {
                        match &**name {
                            "insert" | "set" | "update" | "remove" | "delete" => {
                                Update::Insensitive
                            }
                            "push" | "extend" => Update::Collect,
                            "max" | "min" => Update::Insensitive,
                            _ => Update::Other,
                        }
                    }
                    (None, Expr::Call { args, .. })
                        if body.builtin_call(*value).is_some_and(|(ns, n, _)| {
                            ns.is_empty() && (n == "max" || n == "min")
                        }) && args.iter().any(|a| is_self(*a, g)) =>
                    {
                        Update::Insensitive
                    }
                    _ => Update::Other,
                }
            };
            Some((g, how))
        }
        Stmt::Expr {
            expr,
            writeback: Some(l),
        } => {
            let g = body.gslot_stmt(s, *l);
            let Expr::MethodCall { name, .. } = &m.exprs[*expr as usize] else {
                return None;
            };
            let how = match &**name {
                "insert" | "set" | "update" | "remove" | "delete" => Update::Insensitive,
                "push" | "extend" => Update::Collect,
                // A method whose result is not written back changes nothing.
                _ if kinds.expr(*expr) != kinds.slot(g) => return None,
                _ => Update::Other,
            };
            Some((g, how))
        }
        _ => None,
    }
}
