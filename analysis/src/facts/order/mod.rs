//! Order flows for D002 (map iteration) and D007 (directory listings): which values carry an
//! iteration order, and where that order becomes observable (output, a return value, an early
//! exit, a user function that uses it, a loop body that prints or assigns outside itself).
//! Sorting keys or a listing removes the order; counting, summing, min/max, membership and
//! building a map never observe it.

use vox_hir::{BinOp, Expr, PlaceRoot, Stmt, TemplatePart};
use vox_syntax::TextRange;

use crate::body::{builtin_name, pat_slots, Body, CallTarget, ClosureIndex};
use crate::facts::model::{is_output, FactsBuilder, OrderArg, OrderKind, OrderLeak};
use crate::kind::Kind;
use crate::kinds::Kinds;

mod loop_body;
mod sets;

use loop_body::{closure_output, LoopBody};
use sets::{ids, SourceSet};

struct Src {
    kind: OrderKind,
    range: TextRange,
    /// Sorting removes this order (keys and listings; not values or items, decision 33).
    cleanable: bool,
    /// A pseudo-source standing for the function's parameter `i`.
    param: Option<u32>,
    /// A pseudo-source standing for whatever order the user function called here returns.
    call: Option<CallTarget>,
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

struct Flow<'a, 'b, S> {
    body: &'a Body<'b>,
    kinds: &'a Kinds,
    srcs: Vec<Src>,
    /// Source id of each expression that is itself a source.
    src_of: Vec<Option<u32>>,
    /// The sources sorting does not remove.
    uncleanable: S,
    expr: Vec<S>,
    slot: Vec<S>,
    /// Where values flow into slots, as `(slot, expression)`: the same in every round.
    binds: Vec<(u32, u32)>,
    /// For each `for` loop whose order was met: what its body does (found once).
    loops: Vec<Option<Box<LoopBody>>>,
    /// Locals bound once to a closure, with the closure's body: calling the local gives what
    /// the body gives.
    closures: Vec<(u32, u32)>,
    /// Closures kept in variables, record fields and lists.
    kept: ClosureIndex,
}

pub(super) fn order_facts(body: &Body<'_>, kinds: &Kinds, facts: &mut FactsBuilder) {
    let m = body.m;
    let mut srcs = Vec::new();
    let mut src_of = vec![None; m.exprs.len()];
    // Calls whose value is thrown away (`step()` as a statement) carry no order anywhere.
    let mut discarded: Vec<u32> = m
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Expr {
                expr,
                writeback: None,
            } => Some(*expr),
            _ => None,
        })
        .collect();
    discarded.sort_unstable();
    // …except a block's last statement: it is the block's value.
    for e in &m.exprs {
        if let Expr::Block(stmts) = e {
            if let Some(Stmt::Expr { expr, .. }) = stmts.last().map(|s| &m.stmts[*s as usize]) {
                if let Ok(i) = discarded.binary_search(expr) {
                    discarded.remove(i);
                }
            }
        }
    }
    // Sources.
    for (i, e) in m.exprs.iter().enumerate() {
        let id = i as u32;
        let r = m.expr_ranges[i];
        let src = match e {
            // Only maps have these methods, so a receiver of unclear kind (a JSON value, a
            // record field, `get_or(k, {})`, an element of a list of maps, an untyped
            // parameter) is a map wherever the call succeeds.
            Expr::MethodCall { recv, name, .. }
                if matches!(kinds.expr(*recv), Kind::Map | Kind::Unknown)
                    && !matches!(m.exprs[*recv as usize], Expr::Namespace(_) | Expr::Std) =>
            {
                match &**name {
                    "keys" => Some((OrderKind::Map, true)),
                    "values" | "items" | "entries" => Some((OrderKind::Map, false)),
                    _ => None,
                }
            }
            Expr::For { iter, .. } if kinds.expr(*iter) == Kind::Map => {
                Some((OrderKind::Map, true))
            }
            Expr::Call { callee, .. } => match body.builtin_call(id) {
                Some(("fs", "list_dir" | "list_dir_detailed", _)) => {
                    Some((OrderKind::Listing, true))
                }
                Some(_) => None,
                None if discarded.binary_search(&id).is_ok() => None,
                None => {
                    if let Some(target) = returns_order(body, *callee) {
                        src_of[i] = Some(srcs.len() as u32);
                        srcs.push(Src {
                            kind: OrderKind::Map,
                            range: r,
                            cleanable: true,
                            param: None,
                            call: Some(target),
                        });
                    }
                    None
                }
            },
            _ => None,
        };
        if let Some((kind, cleanable)) = src {
            src_of[i] = Some(srcs.len() as u32);
            srcs.push(Src {
                kind,
                range: r,
                cleanable,
                param: None,
                call: None,
            });
        }
    }
    // The function's parameters carry whatever order their callers give them.
    let root = &m.functions[body.root as usize];
    let first_param = srcs.len() as u32;
    for i in 0..root.params.len() as u32 {
        srcs.push(Src {
            kind: OrderKind::Map,
            range: root.range,
            cleanable: true,
            param: Some(i),
            call: None,
        });
    }
    facts.param_order_sensitive = vec![false; root.params.len()];
    facts.param_iterated = vec![false; root.params.len()];
    if srcs.is_empty() {
        return;
    }
    let params = first_param..srcs.len() as u32;
    if srcs.len() <= 64 {
        flow::<u64>(body, kinds, srcs, src_of, params, facts);
    } else {
        flow::<Vec<u64>>(body, kinds, srcs, src_of, params, facts);
    }
}

fn flow<S: SourceSet>(
    body: &Body<'_>,
    kinds: &Kinds,
    srcs: Vec<Src>,
    src_of: Vec<Option<u32>>,
    params: std::ops::Range<u32>,
    facts: &mut FactsBuilder,
) {
    let m = body.m;
    let n = srcs.len();
    let mut slot = vec![S::empty(n); body.n_slots as usize];
    let base = body.slot_base[body.root as usize];
    for (i, id) in params.enumerate() {
        if let Some(s) = slot.get_mut(base as usize + i) {
            s.insert(id);
        }
    }
    let mut uncleanable = S::empty(n);
    for (i, s) in srcs.iter().enumerate() {
        if !s.cleanable {
            uncleanable.insert(i as u32);
        }
    }
    let mut fl = Flow {
        body,
        kinds,
        srcs,
        src_of,
        uncleanable,
        expr: vec![S::empty(n); m.exprs.len()],
        slot,
        binds: bindings(body),
        loops: Vec::new(),
        closures: closure_locals(body),
        kept: ClosureIndex::new(body),
    };
    for _round in 0..8 {
        if !fl.propagate() {
            break;
        }
    }
    fl.sinks(facts);
}

/// Where values flow into slots, as `(slot, expression)`: `let`s, assignments, write-backs, and
/// the scrutinee into each match arm's bindings.
fn bindings(body: &Body<'_>) -> Vec<(u32, u32)> {
    let m = body.m;
    let mut out = Vec::new();
    let mut slots = Vec::new();
    for (si, st) in m.stmts.iter().enumerate() {
        let si = si as u32;
        match st {
            Stmt::Let { pat, init } => {
                slots.clear();
                pat_slots(m, *pat, &mut slots);
                out.extend(slots.iter().map(|x| (body.gslot_stmt(si, *x), *init)));
            }
            Stmt::Assign { place, value, .. } => {
                if let PlaceRoot::Local(x) = place.root {
                    out.push((body.gslot_stmt(si, x), *value));
                }
            }
            Stmt::Expr {
                expr,
                writeback: Some(x),
            } => out.push((body.gslot_stmt(si, *x), *expr)),
            _ => {}
        }
    }
    for (i, e) in m.exprs.iter().enumerate() {
        if let Expr::Match { scrutinee, arms } = e {
            for (p, _) in arms {
                // An error's payload is not the value whose order the `Ok` side carries.
                if matches!(
                    m.pats[*p as usize],
                    vox_hir::Pat::Builtin(vox_hir::Ctor::Err, _)
                ) {
                    continue;
                }
                slots.clear();
                pat_slots(m, *p, &mut slots);
                out.extend(slots.iter().map(|x| (body.gslot(i as u32, *x), *scrutinee)));
            }
        }
    }
    out
}

/// Locals bound by `let` to a closure and never assigned again: (global slot, the closure's
/// body).
fn closure_locals(body: &Body<'_>) -> Vec<(u32, u32)> {
    let m = body.m;
    let mut out = Vec::new();
    let mut assigned = Vec::new();
    for (si, st) in m.stmts.iter().enumerate() {
        match st {
            Stmt::Let { pat, init } => {
                if let (vox_hir::Pat::Bind(x), Expr::Closure { func, .. }) =
                    (&m.pats[*pat as usize], &m.exprs[*init as usize])
                {
                    out.push((
                        body.gslot_stmt(si as u32, *x),
                        m.functions[*func as usize].body,
                    ));
                }
            }
            Stmt::Assign { place, .. } => {
                if let PlaceRoot::Local(x) = place.root {
                    assigned.push(body.gslot_stmt(si as u32, x));
                }
            }
            _ => {}
        }
    }
    out.retain(|(g, _)| !assigned.contains(g));
    out
}

impl<S: SourceSet> Flow<'_, '_, S> {
    fn t(&self, e: u32) -> &S {
        &self.expr[e as usize]
    }

    /// One round: every expression's set from its operands' and the slots', then the slots from
    /// what flows into them. Whether a slot grew.
    fn propagate(&mut self) -> bool {
        let m = self.body.m;
        for i in 0..m.exprs.len() {
            let mut s = self.expr_set(i as u32);
            if let Some(src) = self.src_of[i] {
                if !matches!(m.exprs[i], Expr::For { .. }) {
                    s.insert(src);
                }
            }
            self.expr[i] = s;
        }
        let mut grew = false;
        for &(g, e) in &self.binds {
            grew |= self.slot[g as usize].add(&self.expr[e as usize]);
        }
        for (i, e) in m.exprs.iter().enumerate() {
            let Expr::For { iter, body, .. } = e else {
                continue;
            };
            // Collecting into an outer list or str inside the loop carries its order.
            let order = self.loop_order(i as u32, *iter);
            if order.is_empty() {
                continue;
            }
            if self.loops.is_empty() {
                self.loops = (0..m.exprs.len()).map(|_| None).collect();
            }
            let lb = self.loops[i].get_or_insert_with(|| {
                Box::new(LoopBody::new(self.body, self.kinds, &self.kept, *body))
            });
            for &g in &lb.collects {
                grew |= self.slot[g as usize].add(&order);
            }
        }
        grew
    }

    /// The sources expression `id`'s value carries (besides its own).
    fn expr_set(&self, id: u32) -> S {
        let m = self.body.m;
        let mut s = S::empty(self.srcs.len());
        let mut add = |x: u32| {
            s.add(self.t(x));
        };
        match &m.exprs[id as usize] {
            Expr::Local(l) => {
                s.add(&self.slot[self.body.gslot(id, *l) as usize]);
            }
            Expr::MethodCall {
                recv, name, args, ..
            } => {
                let n = &**name;
                if CLEANERS.contains(&n) || self.sorts_payload(*recv, n, args) {
                    s.add_masked(self.t(*recv), &self.uncleanable);
                } else if !INSENSITIVE.contains(&n) {
                    add(*recv);
                    args.iter().for_each(|a| add(*a));
                }
            }
            Expr::Call { callee, args, .. } => match self.body.builtin_call(id) {
                Some(("", "sorted", [x])) => s.add_masked(self.t(*x), &self.uncleanable),
                Some((
                    "",
                    "len" | "sum" | "min" | "max" | "abs" | "bool" | "type_of" | "print",
                    _,
                )) => {}
                Some((ns, name, _)) if is_output(ns, name) => {}
                Some((_, _, a)) => a.iter().for_each(|x| add(*x)),
                None => match &m.exprs[*callee as usize] {
                    Expr::Ctor(_) => args.iter().for_each(|x| add(*x)),
                    Expr::Local(l) => {
                        let g = self.body.gslot(*callee, *l);
                        if let Some(&(_, b)) = self.closures.iter().find(|(s, _)| *s == g) {
                            add(b);
                        }
                    }
                    _ => {}
                },
            },
            Expr::Try(x) | Expr::Field(x, _) | Expr::Unary(_, x) | Expr::Index(x, _) => add(*x),
            Expr::Binary(BinOp::Add | BinOp::Eq | BinOp::Ne, a, b) => {
                add(*a);
                add(*b);
            }
            Expr::Template(parts) => {
                for p in parts {
                    if let TemplatePart::Var(v) = p {
                        add(*v);
                    }
                }
            }
            Expr::List(xs) | Expr::Tuple(xs) => xs.iter().for_each(|x| add(*x)),
            Expr::Map(es) => es.iter().for_each(|(_, x)| add(*x)),
            Expr::If { then, els, .. } => {
                add(*then);
                if let Some(x) = els {
                    add(*x);
                }
            }
            Expr::Match { arms, .. } => arms.iter().for_each(|(_, x)| add(*x)),
            Expr::Block(stmts) => {
                if let Some(Stmt::Expr { expr, .. }) = stmts.last().map(|s| &m.stmts[*s as usize]) {
                    add(*expr);
                }
            }
            _ => {}
        }
        s
    }

    /// The orders a `for` loop iterates in: its iterable's, or its own when it walks a map.
    fn loop_order(&self, for_expr: u32, iter: u32) -> S {
        let mut s = self.t(iter).clone();
        if let Some(src) = self.src_of[for_expr as usize] {
            s.insert(src);
        }
        s
    }

    /// Order reaching a sink. A returned order is kept apart: it shows only where a caller uses
    /// it (`returned_order`, `returned_calls`); a call's order that shows makes its callee's
    /// returned order observed (`observed_calls`).
    fn leak(&self, facts: &mut FactsBuilder, set: &S, sink: TextRange, what: &str) {
        let returned = what == "return";
        for i in ids(set) {
            let src = &self.srcs[i as usize];
            if let Some(p) = src.param {
                facts.param_order_sensitive[p as usize] = true;
                continue;
            }
            if let Some(target) = &src.call {
                let list = if returned {
                    &mut facts.returned_calls
                } else {
                    &mut facts.observed_calls
                };
                list.push((target.clone(), src.range));
                continue;
            }
            let leak = OrderLeak {
                kind: src.kind,
                source: src.range,
                sink,
                what: what.to_string(),
            };
            if returned {
                facts.returned_order.push(leak);
            } else {
                facts.order_leaks.push(leak);
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
                    // A map passed to a user function shows its order where the callee
                    // iterates that parameter (an untyped `for k, v in m`, issue 36).
                    if let Some(target) = self.body.user_callee(*callee) {
                        for (ai, x) in args.iter().enumerate() {
                            // A literal of one entry has one order.
                            let single = matches!(&m.exprs[*x as usize],
                                Expr::Map(entries) if entries.len() < 2);
                            if self.kinds.expr(*x) == Kind::Map && !single {
                                facts.order_args.push(OrderArg {
                                    kind: OrderKind::Map,
                                    source: r(*x),
                                    call: target.clone(),
                                    arg: ai as u32,
                                    map_value: true,
                                });
                            }
                        }
                    }
                    // Only arguments that carry an order matter.
                    if args.iter().all(|x| self.t(*x).is_empty()) {
                        continue;
                    }
                    if let Some((ns, name, a)) = self.body.builtin_call(id) {
                        // An assertion's outcome (and so the run's) shows the order it compares.
                        if is_output(ns, name)
                            || (ns.is_empty() && matches!(name, "assert" | "panic"))
                        {
                            for x in a {
                                let q = vox_hir::catalog::qualified(ns, name);
                                self.leak(facts, self.t(*x), r(id), &q);
                            }
                        }
                        continue;
                    }
                    let target = self.body.user_callee(*callee);
                    if let Some(target) = target {
                        for (ai, x) in args.iter().enumerate() {
                            for s in ids(self.t(*x)) {
                                let src = &self.srcs[s as usize];
                                match (src.param, &src.call) {
                                    (Some(p), _) => facts.param_order_sensitive[p as usize] = true,
                                    // Passed on: observed unless the callee ignores the order
                                    // (not known here; counted as observed).
                                    (None, Some(t)) => {
                                        facts.observed_calls.push((t.clone(), src.range))
                                    }
                                    (None, None) => facts.order_args.push(OrderArg {
                                        kind: src.kind,
                                        source: src.range,
                                        call: target.clone(),
                                        arg: ai as u32,
                                        map_value: false,
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
                        "for_each" | "map" | "filter" | "any" | "all"
                            if args.iter().any(|a| self.closure_outputs(*a)) =>
                        {
                            self.leak(facts, t, r(id), name);
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
                    // Propagation met every loop that has an order; walk any other anyway.
                    let walked;
                    let lb = match self.loops.get(i).and_then(Option::as_deref) {
                        Some(lb) => lb,
                        None => {
                            walked = LoopBody::new(self.body, self.kinds, &self.kept, *body);
                            &walked
                        }
                    };
                    if let Some((sink, what)) = &lb.sink {
                        self.leak(facts, &order, *sink, what);
                        // `for k, v in p` on the parameter itself, of unclear kind: a map
                        // passed shows its order (a loop over a known map, or over `p.keys()`,
                        // is reported here already).
                        let on_param = matches!(m.exprs[*iter as usize], Expr::Local(_))
                            && self.kinds.expr(*iter) != Kind::Map;
                        for s in ids(&order).filter(|_| on_param) {
                            if let Some(p) = self.srcs[s as usize].param {
                                facts.param_iterated[p as usize] = true;
                            }
                        }
                    }
                    for call in &lb.calls {
                        for s in ids(&order) {
                            let src = &self.srcs[s as usize];
                            match (src.param, &src.call) {
                                (Some(_), _) => {}
                                (None, Some(t)) => {
                                    facts.observed_calls.push((t.clone(), src.range))
                                }
                                (None, None) => facts.order_args.push(OrderArg {
                                    kind: src.kind,
                                    source: src.range,
                                    call: call.clone(),
                                    arg: u32::MAX,
                                    map_value: false,
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
        let t = self.t(root.body);
        if !t.is_empty() {
            // Point at the value itself: the block's last expression.
            let at = match &m.exprs[root.body as usize] {
                Expr::Block(stmts) => match stmts.last().map(|s| &m.stmts[*s as usize]) {
                    Some(Stmt::Expr { expr, .. }) => r(*expr),
                    _ => r(root.body),
                },
                _ => r(root.body),
            };
            self.leak(facts, t, at, "return");
        }
        facts
            .order_leaks
            .sort_by_key(|l| (l.source.start, l.sink.start));
        facts.order_leaks.dedup_by_key(|l| (l.source, l.kind));
        facts
            .returned_order
            .sort_by_key(|l| (l.source.start, l.sink.start));
        facts.returned_order.dedup_by_key(|l| (l.source, l.kind));
        // One entry per callee (its first call): the workspace queries ask only which callees
        // a body shows or returns the order of, and every function keeps these lists.
        for v in [&mut facts.observed_calls, &mut facts.returned_calls] {
            v.sort_by_key(|(_, r)| (r.start, r.end));
            let mut seen: Vec<CallTarget> = Vec::new();
            v.retain(|(t, _)| {
                let first = !seen.contains(t);
                if first {
                    seen.push(t.clone());
                }
                first
            });
        }
    }

    /// `r.map(sorted)` or `r.map(fn(xs) { xs.sorted_by_key(…) })` on a Result or Option: the
    /// payload comes out sorted (D007's fix for a listing matched on rather than unwrapped).
    fn sorts_payload(&self, recv: u32, method: &str, args: &[u32]) -> bool {
        let m = self.body.m;
        if !matches!(method, "map" | "and_then")
            || !matches!(self.kinds.expr(recv), Kind::Result | Kind::Option)
        {
            return false;
        }
        let [f] = args else {
            return false;
        };
        match &m.exprs[*f as usize] {
            Expr::Builtin(id) => builtin_name(self.body.catalog, *id) == ("", "sorted"),
            Expr::Closure { func, .. } => {
                let func = &m.functions[*func as usize];
                if func.params.len() != 1 {
                    return false;
                }
                let mut tail = func.body;
                while let Expr::Block(stmts) = &m.exprs[tail as usize] {
                    match stmts.last().map(|s| &m.stmts[*s as usize]) {
                        Some(Stmt::Expr { expr, .. }) => tail = *expr,
                        _ => return false,
                    }
                }
                // The closure's own parameter (slot 0), sorted.
                let is_param = |x: u32| matches!(m.exprs[x as usize], Expr::Local(0));
                match &m.exprs[tail as usize] {
                    Expr::MethodCall { recv, name, .. } => {
                        CLEANERS.contains(&&**name) && is_param(*recv)
                    }
                    _ => {
                        matches!(self.body.builtin_call(tail), Some(("", "sorted", [x])) if is_param(*x))
                    }
                }
            }
            _ => false,
        }
    }

    /// Whether `e` is (or names, keeps in a field or a list) a closure that prints or writes.
    fn closure_outputs(&self, e: u32) -> bool {
        self.kept
            .closures(self.body, e)
            .into_iter()
            .any(|f| closure_output(self.body, f).is_some())
    }
}

/// The user function a call names, when its result may carry an order: any result but a
/// number, bool or `Unit` (annotated on a function of this file).
fn returns_order(body: &Body<'_>, callee: u32) -> Option<CallTarget> {
    let target = body.user_callee(callee)?;
    if let Some(k) = body.local_index(callee) {
        let ret = body.items.fns.get(k as usize)?.ret.as_deref();
        let scalar = ret.is_some_and(|t| {
            matches!(
                t.split('[').next().unwrap_or("").trim(),
                "int" | "float" | "dec" | "bool" | "Unit"
            )
        });
        if scalar {
            return None;
        }
    }
    Some(target)
}
