//! Order flows for D002 (map iteration) and D007 (directory listings): which values carry an
//! iteration order, and where that order becomes observable (output, a return value, an early
//! exit, a user function that uses it, a loop body that prints or assigns outside itself).
//! Sorting keys or a listing removes the order; counting, summing, min/max, membership and
//! building a map never observe it.

use std::collections::BTreeSet;

use vox_hir::{BinOp, Expr, Global, Module, PlaceRoot, Stmt, TemplatePart};
use vox_syntax::TextRange;

use super::paths::pat_slots;
use super::walk::{for_each_child, for_each_stmt_child, Body, Node};
use super::{is_output, CallTarget, FactsBuilder, OrderArg};
use crate::kinds::{Kind, Kinds};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OrderKind {
    /// Iteration over a map (D002).
    Map,
    /// A directory listing (D007).
    Listing,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderLeak {
    pub kind: OrderKind,
    /// The iteration or listing.
    pub source: TextRange,
    /// Where its order becomes observable.
    pub sink: TextRange,
    /// What the sink is (`print`, `return`, `break`, …), for the message.
    pub what: String,
}

struct Src {
    kind: OrderKind,
    range: TextRange,
    /// Sorting removes this order (keys and listings; not values or items, decision 33).
    cleanable: bool,
    /// A pseudo-source standing for the function's parameter `i`.
    param: Option<u32>,
}

/// Source ids, ascending: a sorted vector rather than a `BTreeSet` (most sets are empty or hold
/// a source or two; a tree allocates a node for the first and frees it on every round).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Set(Vec<u32>);

impl Set {
    fn new() -> Set {
        Set(Vec::new())
    }

    fn insert(&mut self, x: u32) {
        if let Err(i) = self.0.binary_search(&x) {
            self.0.insert(i, x);
        }
    }

    fn extend(&mut self, xs: impl IntoIterator<Item = u32>) {
        for x in xs {
            self.insert(x);
        }
    }

    fn union(&self, other: &Set) -> Set {
        let mut s = self.clone();
        s.extend(other.iter().copied());
        s
    }

    fn iter(&self) -> std::slice::Iter<'_, u32> {
        self.0.iter()
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<u32> for Set {
    fn from_iter<I: IntoIterator<Item = u32>>(xs: I) -> Set {
        let mut v: Vec<u32> = xs.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        Set(v)
    }
}

impl IntoIterator for Set {
    type Item = u32;
    type IntoIter = std::vec::IntoIter<u32>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Set {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

const CLEANERS: &[&str] = &[
    "sorted",
    "sorted_by_key",
    "sort_by_key",
    "sorted_by",
    "sort_by",
];
const INSENSITIVE: &[&str] = &[
    "len",
    "is_empty",
    "contains",
    "count",
    "sum",
    "min",
    "max",
    "any",
    "all",
    "contains_key",
    "has_key",
    "has",
    "for_each",
    "fold",
    "chars_count",
];

struct Flow<'a, 'b> {
    body: &'a Body<'b>,
    kinds: &'a Kinds,
    srcs: Vec<Src>,
    /// Source id of each expression that is itself a source.
    src_of: Vec<Option<u32>>,
    expr: Vec<Set>,
    slot: Vec<Set>,
    /// For each `for` loop met so far: the outer variables its body collects into (they do not
    /// change between rounds).
    collects: Vec<Option<Vec<u32>>>,
}

pub(super) fn order_facts(body: &Body<'_>, kinds: &Kinds, facts: &mut FactsBuilder) {
    let m = body.m;
    let mut fl = Flow {
        body,
        kinds,
        srcs: Vec::new(),
        src_of: vec![None; m.exprs.len()],
        expr: vec![Set::new(); m.exprs.len()],
        slot: vec![Set::new(); body.n_slots as usize],
        collects: Vec::new(),
    };
    // Sources.
    for (i, e) in m.exprs.iter().enumerate() {
        let id = i as u32;
        let r = m.expr_ranges[i];
        let src = match e {
            Expr::MethodCall { recv, name, .. } if kinds.expr(*recv) == Kind::Map => {
                match &**name {
                    "keys" => Some((OrderKind::Map, true)),
                    "values" | "items" | "entries" => Some((OrderKind::Map, false)),
                    _ => None,
                }
            }
            Expr::For { iter, .. } if kinds.expr(*iter) == Kind::Map => {
                Some((OrderKind::Map, true))
            }
            Expr::Call { .. } => match body.builtin_call(id) {
                Some(("fs", "list_dir" | "list_dir_detailed", _)) => {
                    Some((OrderKind::Listing, true))
                }
                _ => None,
            },
            _ => None,
        };
        if let Some((kind, cleanable)) = src {
            fl.src_of[i] = Some(fl.srcs.len() as u32);
            fl.srcs.push(Src {
                kind,
                range: r,
                cleanable,
                param: None,
            });
        }
    }
    // The function's parameters carry whatever order their callers give them.
    let root = &m.functions[body.root as usize];
    let base = body.slot_base[body.root as usize];
    for i in 0..root.params.len() as u32 {
        let id = fl.srcs.len() as u32;
        fl.srcs.push(Src {
            kind: OrderKind::Map,
            range: root.range,
            cleanable: true,
            param: Some(i),
        });
        if let Some(s) = fl.slot.get_mut((base + i) as usize) {
            s.insert(id);
        }
    }
    facts.param_order_sensitive = vec![false; root.params.len()];
    if fl.srcs.is_empty() {
        return;
    }
    for _round in 0..8 {
        let before: usize = fl.slot.iter().map(|s| s.len()).sum();
        fl.propagate();
        let after: usize = fl.slot.iter().map(|s| s.len()).sum();
        if after == before {
            break;
        }
    }
    fl.sinks(facts);
}

impl Flow<'_, '_> {
    fn t(&self, e: u32) -> &Set {
        &self.expr[e as usize]
    }

    fn clean(&self, s: &Set) -> Set {
        s.iter()
            .copied()
            .filter(|i| !self.srcs[*i as usize].cleanable)
            .collect()
    }

    fn propagate(&mut self) {
        let m = self.body.m;
        for i in 0..m.exprs.len() {
            let id = i as u32;
            let mut s: Set = match &m.exprs[i] {
                Expr::Local(l) => self.slot[self.body.gslot(id, *l) as usize].clone(),
                Expr::MethodCall {
                    recv, name, args, ..
                } => {
                    let n = &**name;
                    if CLEANERS.contains(&n) {
                        self.clean(self.t(*recv))
                    } else if INSENSITIVE.contains(&n) {
                        Set::new()
                    } else {
                        let mut s = self.t(*recv).clone();
                        for a in args {
                            s.extend(self.t(*a).iter().copied());
                        }
                        s
                    }
                }
                Expr::Call { callee, args, .. } => match self.body.builtin_call(id) {
                    Some(("", "sorted", [x])) => self.clean(self.t(*x)),
                    Some((
                        "",
                        "len" | "sum" | "min" | "max" | "abs" | "bool" | "type_of" | "print",
                        _,
                    )) => Set::new(),
                    Some((ns, name, _)) if is_output(ns, name) => Set::new(),
                    Some((_, _, a)) => a.iter().flat_map(|x| self.t(*x).iter().copied()).collect(),
                    None => match &m.exprs[*callee as usize] {
                        Expr::Ctor(_) => args
                            .iter()
                            .flat_map(|x| self.t(*x).iter().copied())
                            .collect(),
                        _ => Set::new(),
                    },
                },
                Expr::Try(x) | Expr::Field(x, _) | Expr::Unary(_, x) => self.t(*x).clone(),
                Expr::Index(a, _) => self.t(*a).clone(),
                Expr::Binary(BinOp::Add | BinOp::Eq | BinOp::Ne, a, b) => {
                    self.t(*a).union(self.t(*b))
                }
                Expr::Template(parts) => parts
                    .iter()
                    .filter_map(|p| match p {
                        TemplatePart::Var(v) => Some(*v),
                        _ => None,
                    })
                    .flat_map(|v| self.t(v).iter().copied())
                    .collect(),
                Expr::List(xs) | Expr::Tuple(xs) => {
                    xs.iter().flat_map(|x| self.t(*x).iter().copied()).collect()
                }
                Expr::Map(es) => es
                    .iter()
                    .flat_map(|(_, x)| self.t(*x).iter().copied())
                    .collect(),
                Expr::If { then, els, .. } => {
                    let mut s = self.t(*then).clone();
                    if let Some(x) = els {
                        s.extend(self.t(*x).iter().copied());
                    }
                    s
                }
                Expr::Match { arms, .. } => arms
                    .iter()
                    .flat_map(|(_, x)| self.t(*x).iter().copied())
                    .collect(),
                Expr::Block(stmts) => match stmts.last().map(|s| &m.stmts[*s as usize]) {
                    Some(Stmt::Expr { expr, .. }) => self.t(*expr).clone(),
                    _ => Set::new(),
                },
                _ => Set::new(),
            };
            if let Some(src) = self.src_of[i] {
                if !matches!(m.exprs[i], Expr::For { .. }) {
                    s.insert(src);
                }
            }
            self.expr[i] = s;
        }
        // Bindings.
        for (si, st) in m.stmts.iter().enumerate() {
            let si = si as u32;
            match st {
                Stmt::Let { pat, init } => {
                    let t = self.t(*init).clone();
                    let mut ss = Vec::new();
                    pat_slots(m, *pat, &mut ss);
                    for x in ss {
                        let g = self.body.gslot_stmt(si, x) as usize;
                        self.slot[g].extend(t.iter().copied());
                    }
                }
                Stmt::Assign { place, value, .. } => {
                    if let PlaceRoot::Local(x) = place.root {
                        let g = self.body.gslot_stmt(si, x) as usize;
                        let t = self.t(*value).clone();
                        self.slot[g].extend(t);
                    }
                }
                Stmt::Expr {
                    expr,
                    writeback: Some(x),
                } => {
                    let g = self.body.gslot_stmt(si, *x) as usize;
                    let t = self.t(*expr).clone();
                    self.slot[g].extend(t);
                }
                _ => {}
            }
        }
        for (i, e) in m.exprs.iter().enumerate() {
            match e {
                Expr::Match { scrutinee, arms } => {
                    let t = self.t(*scrutinee).clone();
                    if t.is_empty() {
                        continue;
                    }
                    for (p, _) in arms {
                        let mut ss = Vec::new();
                        pat_slots(m, *p, &mut ss);
                        for x in ss {
                            let g = self.body.gslot(i as u32, x) as usize;
                            self.slot[g].extend(t.iter().copied());
                        }
                    }
                }
                Expr::For { iter, body, .. } => {
                    // Collecting into an outer list or str inside the loop carries its order.
                    let order = self.loop_order(i as u32, *iter);
                    if order.is_empty() {
                        continue;
                    }
                    if self.collects.is_empty() {
                        self.collects = vec![None; m.exprs.len()];
                    }
                    let collects = self.collects[i].get_or_insert_with(|| {
                        let locals = loop_locals(self.body, *body);
                        outer_updates(self.body, self.kinds, *body, &locals)
                            .into_iter()
                            .filter(|(_, how)| *how == Update::Collect)
                            .map(|(g, _)| g)
                            .collect()
                    });
                    for &g in collects.iter() {
                        self.slot[g as usize].extend(order.iter().copied());
                    }
                }
                _ => {}
            }
        }
    }

    /// The orders a `for` loop iterates in: its iterable's, or its own when it walks a map.
    fn loop_order(&self, for_expr: u32, iter: u32) -> Set {
        let mut s = self.t(iter).clone();
        if let Some(src) = self.src_of[for_expr as usize] {
            s.insert(src);
        }
        s
    }

    fn leak(&self, facts: &mut FactsBuilder, set: &Set, sink: TextRange, what: &str) {
        for &i in set {
            let src = &self.srcs[i as usize];
            match src.param {
                Some(p) => facts.param_order_sensitive[p as usize] = true,
                None => facts.order_leaks.push(OrderLeak {
                    kind: src.kind,
                    source: src.range,
                    sink,
                    what: what.to_string(),
                }),
            }
        }
    }

    fn sinks(&self, facts: &mut FactsBuilder) {
        let m = self.body.m;
        let r = |e: u32| m.expr_ranges[e as usize];
        for (i, e) in m.exprs.iter().enumerate() {
            let id = i as u32;
            match e {
                Expr::Call { callee, args, .. } => {
                    if let Some((ns, name, a)) = self.body.builtin_call(id) {
                        if is_output(ns, name) {
                            for x in a {
                                let q = if ns.is_empty() {
                                    name.to_string()
                                } else {
                                    format!("{ns}.{name}")
                                };
                                self.leak(facts, self.t(*x), r(id), &q);
                            }
                        }
                        continue;
                    }
                    let target = match &m.exprs[*callee as usize] {
                        Expr::Global(g) => match m.globals.get(*g as usize) {
                            Some(Global::Fn(k)) => Some(CallTarget::Local(*k)),
                            Some(Global::Imported { import, name }) => Some(CallTarget::Imported {
                                import: *import,
                                name: std::sync::Arc::from(&**name),
                            }),
                            _ => None,
                        },
                        Expr::Field(recv, name) => match m.exprs[*recv as usize] {
                            Expr::Global(g) => match m.globals.get(g as usize) {
                                Some(Global::ImportAlias { import }) => {
                                    Some(CallTarget::Imported {
                                        import: *import,
                                        name: std::sync::Arc::from(&**name),
                                    })
                                }
                                _ => None,
                            },
                            _ => None,
                        },
                        _ => None,
                    };
                    if let Some(target) = target {
                        for (ai, x) in args.iter().enumerate() {
                            for &s in self.t(*x) {
                                let src = &self.srcs[s as usize];
                                match src.param {
                                    Some(p) => facts.param_order_sensitive[p as usize] = true,
                                    None => facts.order_args.push(OrderArg {
                                        kind: src.kind,
                                        source: src.range,
                                        call: target.clone(),
                                        arg: ai as u32,
                                    }),
                                }
                            }
                        }
                    }
                }
                Expr::MethodCall {
                    recv, name, args, ..
                } => {
                    let t = self.t(*recv);
                    if t.is_empty() {
                        continue;
                    }
                    match &**name {
                        "fold" => self.leak(facts, t, r(id), "fold"),
                        "for_each" | "map" | "filter" | "any" | "all" => {
                            if args.iter().any(|a| self.closure_outputs(*a)) {
                                self.leak(facts, t, r(id), name);
                            }
                        }
                        _ => {}
                    }
                }
                Expr::Return(Some(x)) if self.body.expr_owner[i] == self.body.root => {
                    self.leak(facts, self.t(*x), r(id), "return");
                }
                Expr::For { iter, body, .. } => {
                    let order = self.loop_order(id, *iter);
                    if order.is_empty() {
                        continue;
                    }
                    if let Some((sink, what)) = self.sensitive_body(*body) {
                        self.leak(facts, &order, sink, &what);
                    }
                    for call in calls_in(self.body, *body) {
                        for &s in &order {
                            let src = &self.srcs[s as usize];
                            match src.param {
                                Some(_) => {}
                                None => facts.order_args.push(OrderArg {
                                    kind: src.kind,
                                    source: src.range,
                                    call: call.clone(),
                                    arg: u32::MAX,
                                }),
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        // The function's own value.
        let root = &m.functions[self.body.root as usize];
        let t = self.t(root.body).clone();
        if !t.is_empty() {
            // Point at the value itself: the block's last expression.
            let at = match &m.exprs[root.body as usize] {
                Expr::Block(stmts) => match stmts.last().map(|s| &m.stmts[*s as usize]) {
                    Some(Stmt::Expr { expr, .. }) => r(*expr),
                    _ => r(root.body),
                },
                _ => r(root.body),
            };
            self.leak(facts, &t, at, "return");
        }
        facts
            .order_leaks
            .sort_by_key(|l| (l.source.start, l.sink.start));
        facts.order_leaks.dedup_by_key(|l| (l.source, l.kind));
    }

    fn closure_outputs(&self, e: u32) -> bool {
        let m = self.body.m;
        let Expr::Closure { func, .. } = m.exprs[e as usize] else {
            return false;
        };
        let f = &m.functions[func as usize];
        let mut found = false;
        visit(m, f.body, &mut |n| {
            if let Node::Expr(x) = n {
                if let Some((ns, name, _)) = self.body.builtin_call(x) {
                    found |= is_output(ns, name);
                }
            }
        });
        found
    }

    /// Where a loop body makes its iteration order visible, if it does.
    fn sensitive_body(&self, body: u32) -> Option<(TextRange, String)> {
        let m = self.body.m;
        let mut hit: Option<(TextRange, String)> = None;
        visit(m, body, &mut |n| {
            if hit.is_some() {
                return;
            }
            if let Node::Expr(x) = n {
                let r = m.expr_ranges[x as usize];
                match &m.exprs[x as usize] {
                    Expr::Break => hit = Some((r, "break".into())),
                    Expr::Return(_) => hit = Some((r, "return".into())),
                    _ => {
                        if let Some((ns, name, _)) = self.body.builtin_call(x) {
                            if is_output(ns, name) {
                                let q = if ns.is_empty() {
                                    name.to_string()
                                } else {
                                    format!("{ns}.{name}")
                                };
                                hit = Some((r, q));
                            }
                        }
                    }
                }
            }
        });
        if hit.is_some() {
            return hit;
        }
        let locals = loop_locals(self.body, body);
        for (g, how) in outer_updates(self.body, self.kinds, body, &locals) {
            if how == Update::Other {
                let _ = g;
                return Some((
                    m.expr_ranges[body as usize],
                    "an assignment outside the loop".into(),
                ));
            }
        }
        None
    }
}

/// Visits a body (not entering closures), expressions and statements.
fn visit(m: &Module, e: u32, f: &mut dyn FnMut(Node)) {
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

/// User functions a loop body calls (their output would show the order).
fn calls_in(body: &Body<'_>, e: u32) -> Vec<CallTarget> {
    let m = body.m;
    let mut out = Vec::new();
    visit(m, e, &mut |n| {
        if let Node::Expr(x) = n {
            if let Expr::Call { callee, .. } = &m.exprs[x as usize] {
                if let Expr::Global(g) = m.exprs[*callee as usize] {
                    match m.globals.get(g as usize) {
                        Some(Global::Fn(k)) => out.push(CallTarget::Local(*k)),
                        Some(Global::Imported { import, name }) => out.push(CallTarget::Imported {
                            import: *import,
                            name: std::sync::Arc::from(&**name),
                        }),
                        _ => {}
                    }
                }
            }
        }
    });
    out
}

/// Slots bound inside a loop body (its own `let`s and loop variables).
fn loop_locals(body: &Body<'_>, e: u32) -> BTreeSet<u32> {
    let m = body.m;
    let mut out = BTreeSet::new();
    visit(m, e, &mut |n| match n {
        Node::Stmt(s) => {
            if let Stmt::Let { pat, .. } = &m.stmts[s as usize] {
                let mut ss = Vec::new();
                pat_slots(m, *pat, &mut ss);
                out.extend(ss.into_iter().map(|x| body.gslot_stmt(s, x)));
            }
        }
        Node::Expr(x) => match &m.exprs[x as usize] {
            Expr::For { value, index, .. } => {
                for v in value.iter().chain(index.iter()) {
                    out.insert(body.gslot(x, *v));
                }
            }
            Expr::Match { arms, .. } => {
                for (p, _) in arms {
                    let mut ss = Vec::new();
                    pat_slots(m, *p, &mut ss);
                    out.extend(ss.into_iter().map(|v| body.gslot(x, v)));
                }
            }
            _ => {}
        },
    });
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Update {
    /// Counting, summing, min/max, a constant, building a map: the order does not show.
    Insensitive,
    /// Pushing to a list or appending to a str: the variable now carries the order.
    Collect,
    /// Anything else (`last = k`): the order shows.
    Other,
}

/// How a loop body updates variables declared outside it.
fn outer_updates(
    body: &Body<'_>,
    kinds: &Kinds,
    e: u32,
    locals: &BTreeSet<u32>,
) -> Vec<(u32, Update)> {
    let m = body.m;
    let mut out = Vec::new();
    let is_self =
        |x: u32, g: u32| matches!(m.exprs[x as usize], Expr::Local(l) if body.gslot(x, l) == g);
    visit(m, e, &mut |n| {
        let Node::Stmt(s) = n else { return };
        match &m.stmts[s as usize] {
            Stmt::Assign { place, op, value } => {
                let PlaceRoot::Local(l) = place.root else {
                    return;
                };
                let g = body.gslot_stmt(s, l);
                if locals.contains(&g) {
                    return;
                }
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
                        (Some(BinOp::Add), _) if matches!(k, Kind::Str | Kind::List) => {
                            Update::Collect
                        }
                        (Some(BinOp::Add | BinOp::Sub), _) => Update::Insensitive,
                        (Some(_), _) => Update::Other,
                        (None, Expr::Binary(BinOp::Add, a, b))
                            if is_self(*a, g) || is_self(*b, g) =>
                        {
                            if matches!(k, Kind::Str | Kind::List) {
                                Update::Collect
                            } else {
                                Update::Insensitive
                            }
                        }
                        (None, Expr::Binary(BinOp::Sub, a, _)) if is_self(*a, g) => {
                            Update::Insensitive
                        }
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
                out.push((g, how));
            }
            Stmt::Expr {
                expr,
                writeback: Some(l),
            } => {
                let g = body.gslot_stmt(s, *l);
                if locals.contains(&g) {
                    return;
                }
                if let Expr::MethodCall { name, .. } = &m.exprs[*expr as usize] {
                    let how = match &**name {
                        "insert" | "set" | "update" | "remove" | "delete" => Update::Insensitive,
                        "push" | "extend" => Update::Collect,
                        // A method whose result is not written back changes nothing.
                        _ if kinds.expr(*expr) != kinds.slot(g) => return,
                        _ => Update::Other,
                    };
                    out.push((g, how));
                }
            }
            _ => {}
        }
    });
    out
}
