//! A lowered body with the bookkeeping every fact needs: which function frame (the function or
//! one of its closures) owns each expression, statement and slot, and child enumeration.

use vox_hir::{BuiltinCatalog, Expr, Global, ItemTree, Module, Pat, PlaceStep, Stmt, TemplatePart};

use std::sync::Arc;

use crate::kind::Kind;

pub struct Body<'a> {
    pub m: &'a Module,
    pub catalog: &'a dyn BuiltinCatalog,
    pub items: &'a ItemTree,
    /// Kinds of the function's own parameters, from their annotations.
    pub param_kinds: Vec<Kind>,
    /// The function itself in `m.functions`.
    pub root: u32,
    /// The frame (index in `m.functions`) owning each expression and statement.
    pub expr_owner: Vec<u32>,
    pub stmt_owner: Vec<u32>,
    /// First global slot number of each frame: frames number their slots from 0.
    pub slot_base: Vec<u32>,
    pub n_slots: u32,
    /// For each expression that is a call's callee, that call (`u32::MAX` otherwise).
    pub call_of: Vec<u32>,
}

impl<'a> Body<'a> {
    pub fn new(
        m: &'a Module,
        catalog: &'a dyn BuiltinCatalog,
        items: &'a ItemTree,
        root: u32,
        param_kinds: Vec<Kind>,
    ) -> Body<'a> {
        let mut expr_owner = vec![root; m.exprs.len()];
        let mut stmt_owner = vec![root; m.stmts.len()];
        let mut slot_base = Vec::with_capacity(m.functions.len());
        let mut n = 0;
        for f in &m.functions {
            slot_base.push(n);
            n += f.n_slots;
        }
        for (fi, f) in m.functions.iter().enumerate() {
            // Everything starts owned by the root, and its walk would stop at closures anyway:
            // only closures' own bodies need walking.
            if fi as u32 == root {
                continue;
            }
            let mut stack = vec![Node::Expr(f.body)];
            while let Some(node) = stack.pop() {
                match node {
                    Node::Expr(e) => {
                        expr_owner[e as usize] = fi as u32;
                        if let Expr::Closure { .. } = m.exprs[e as usize] {
                            continue;
                        }
                        for_each_child(m, e, |c| stack.push(c));
                    }
                    Node::Stmt(s) => {
                        stmt_owner[s as usize] = fi as u32;
                        for_each_stmt_child(m, s, |c| stack.push(c));
                    }
                }
            }
        }
        let mut call_of = vec![u32::MAX; m.exprs.len()];
        for (i, e) in m.exprs.iter().enumerate() {
            if let Expr::Call { callee, .. } = e {
                call_of[*callee as usize] = i as u32;
            }
        }
        Body {
            call_of,
            m,
            catalog,
            items,
            param_kinds,
            root,
            expr_owner,
            stmt_owner,
            slot_base,
            n_slots: n,
        }
    }

    /// The global number of `slot` as seen from expression `e`'s frame.
    pub fn gslot(&self, e: u32, slot: u32) -> u32 {
        self.slot_base[self.expr_owner[e as usize] as usize] + slot
    }

    pub fn gslot_stmt(&self, s: u32, slot: u32) -> u32 {
        self.slot_base[self.stmt_owner[s as usize] as usize] + slot
    }

    /// `(ns, name)` of a builtin call's callee, if `e` is one.
    pub fn builtin_call(&self, e: u32) -> Option<(&'static str, &'static str, &'a [u32])> {
        match &self.m.exprs[e as usize] {
            Expr::Call { callee, args, .. } => match self.m.exprs[*callee as usize] {
                Expr::Builtin(id) => {
                    let (ns, name) = builtin_name(self.catalog, id);
                    Some((ns, name, args.as_slice()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The call target of the file's function `k` (an index in [`Self::items`]).
    pub fn local(&self, k: u32) -> CallTarget {
        CallTarget::Local(
            self.items
                .fns
                .get(k as usize)
                .map_or_else(|| Arc::from(""), |f| f.name.clone()),
        )
    }

    /// The file's function a callee expression names, as an index in [`Self::items`].
    pub fn local_index(&self, callee: u32) -> Option<u32> {
        match &self.m.exprs[callee as usize] {
            Expr::Global(g) => match self.m.globals.get(*g as usize)? {
                Global::Fn(k) => Some(*k),
                _ => None,
            },
            _ => None,
        }
    }

    /// The user function a callee expression names: a function of the file, an imported one,
    /// or `alias.name` of an aliased import.
    pub fn user_callee(&self, callee: u32) -> Option<CallTarget> {
        let m = self.m;
        let imported = |import: u32, name: &str| CallTarget::Imported {
            import,
            name: std::sync::Arc::from(name),
        };
        match &m.exprs[callee as usize] {
            Expr::Global(g) => match m.globals.get(*g as usize)? {
                Global::Fn(k) => Some(self.local(*k)),
                Global::Imported { import, name } => Some(imported(*import, name)),
                _ => None,
            },
            Expr::Field(recv, name) => match m.exprs[*recv as usize] {
                Expr::Global(g) => match m.globals.get(g as usize)? {
                    Global::ImportAlias { import } => Some(imported(*import, name)),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    pub fn is_builtin_call(&self, e: u32, ns: &str, name: &str) -> bool {
        self.builtin_call(e)
            .is_some_and(|(n, m, _)| n == ns && m == name)
    }

    pub fn fn_return_kind(&self, item: u32) -> Kind {
        self.items
            .fns
            .get(item as usize)
            .and_then(|f| f.ret.as_deref())
            .map_or(Kind::Unknown, Kind::from_annotation)
    }
}

pub fn builtin_name(catalog: &dyn BuiltinCatalog, id: u32) -> (&'static str, &'static str) {
    let info = catalog.info(id);
    (info.ns, info.name)
}

#[derive(Clone, Copy, Debug)]
pub enum Node {
    Expr(u32),
    Stmt(u32),
}

/// Calls `f` with every direct child of expression `e` (closure bodies are separate frames and
/// are not children).
pub fn for_each_child(m: &Module, e: u32, mut f: impl FnMut(Node)) {
    let mut ex = |x: u32| f(Node::Expr(x));
    match &m.exprs[e as usize] {
        Expr::Template(parts) => {
            for p in parts {
                if let TemplatePart::Var(x) = p {
                    ex(*x);
                }
            }
        }
        Expr::List(xs) | Expr::Tuple(xs) => xs.iter().for_each(|x| ex(*x)),
        Expr::Map(entries) => entries.iter().for_each(|(_, x)| ex(*x)),
        Expr::Unary(_, x) | Expr::Try(x) | Expr::Field(x, _) => ex(*x),
        Expr::Binary(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) | Expr::Pipe(a, b) => {
            ex(*a);
            ex(*b);
        }
        Expr::Index(a, b) => {
            ex(*a);
            ex(*b);
        }
        Expr::Call {
            callee,
            args,
            named,
        } => {
            ex(*callee);
            args.iter().for_each(|x| ex(*x));
            named.iter().for_each(|(_, x)| ex(*x));
        }
        Expr::MethodCall {
            recv, args, named, ..
        } => {
            ex(*recv);
            args.iter().for_each(|x| ex(*x));
            named.iter().for_each(|(_, x)| ex(*x));
        }
        Expr::PopWriteBack { call, .. } => ex(*call),
        Expr::Block(stmts) => {
            for s in stmts {
                f(Node::Stmt(*s));
            }
        }
        Expr::If { cond, then, els } => {
            ex(*cond);
            ex(*then);
            if let Some(x) = els {
                ex(*x);
            }
        }
        Expr::Match { scrutinee, arms } => {
            ex(*scrutinee);
            arms.iter().for_each(|(_, x)| ex(*x));
        }
        Expr::For { iter, body, .. } => {
            ex(*iter);
            ex(*body);
        }
        Expr::Return(Some(x)) => ex(*x),
        _ => {}
    }
}

pub fn for_each_stmt_child(m: &Module, s: u32, mut f: impl FnMut(Node)) {
    match &m.stmts[s as usize] {
        Stmt::Let { init, .. } => f(Node::Expr(*init)),
        Stmt::Expr { expr, .. } => f(Node::Expr(*expr)),
        Stmt::Assign { place, value, .. } => {
            for step in &place.steps {
                if let PlaceStep::Index(x) = step {
                    f(Node::Expr(*x));
                }
            }
            f(Node::Expr(*value));
        }
        Stmt::While { cond, body } => {
            f(Node::Expr(*cond));
            f(Node::Expr(*body));
        }
        Stmt::Loop { body } => f(Node::Expr(*body)),
    }
}

/// The slots a pattern binds.
pub(crate) fn pat_slots(m: &Module, p: u32, out: &mut Vec<u32>) {
    // Most patterns are one name: no stack for those.
    if let Pat::Bind(s) = &m.pats[p as usize] {
        out.push(*s);
        return;
    }
    let mut stack = vec![p];
    while let Some(p) = stack.pop() {
        match &m.pats[p as usize] {
            Pat::Bind(s) => out.push(*s),
            Pat::Tuple(ps) => stack.extend(ps.iter().copied()),
            Pat::Builtin(_, Some(q)) => stack.push(*q),
            Pat::Variant {
                fields: Some(ps), ..
            } => stack.extend(ps.iter().copied()),
            _ => {}
        }
    }
}

/// Single-assignment locals: the initialiser of every global slot bound once by `let` and never
/// assigned again (`None` otherwise).
pub(crate) fn single_inits(body: &Body<'_>) -> Vec<Option<u32>> {
    single_inits_but(body, |_, _| true)
}

/// [`single_inits`], where a write-back statement `v.m(…)` counts as an assignment of `v` only
/// when `writes(init of v, the call)` says it may.
fn single_inits_but(
    body: &Body<'_>,
    writes: impl Fn(Option<u32>, u32) -> bool,
) -> Vec<Option<u32>> {
    let m = body.m;
    let mut init: Vec<Option<u32>> = vec![None; body.n_slots as usize];
    let mut count = vec![0u32; body.n_slots as usize];
    let mut writebacks = Vec::new();
    for (si, st) in m.stmts.iter().enumerate() {
        match st {
            Stmt::Let { pat, init: e } => {
                let mut slots = Vec::new();
                pat_slots(m, *pat, &mut slots);
                let single = matches!(m.pats[*pat as usize], Pat::Bind(_));
                for s in slots {
                    let g = body.gslot_stmt(si as u32, s) as usize;
                    count[g] += 1;
                    init[g] = single.then_some(*e);
                }
            }
            Stmt::Assign { place, .. } => {
                if let vox_hir::PlaceRoot::Local(s) = place.root {
                    count[body.gslot_stmt(si as u32, s) as usize] += 2;
                }
            }
            Stmt::Expr {
                writeback: Some(s),
                expr,
            } => writebacks.push((body.gslot_stmt(si as u32, *s) as usize, *expr)),
            _ => {}
        }
    }
    for (g, expr) in writebacks {
        if writes((count[g] == 1).then_some(init[g]).flatten(), expr) {
            count[g] += 2;
        }
    }
    for (i, e) in m.exprs.iter().enumerate() {
        match e {
            Expr::For { value, index, .. } => {
                for s in value.iter().chain(index.iter()) {
                    count[body.gslot(i as u32, *s) as usize] += 2;
                }
            }
            Expr::PopWriteBack { slot, .. } => count[body.gslot(i as u32, *slot) as usize] += 2,
            _ => {}
        }
    }
    for (i, c) in count.iter().enumerate() {
        if *c != 1 {
            init[i] = None;
        }
    }
    init
}

/// Where closures are kept, to find which closures an expression may be (issue 36: map order
/// reaching output through a closure kept in a list, a record field or a variable).
pub(crate) struct ClosureIndex {
    inits: Vec<Option<u32>>,
    /// The iterable of each `for` loop's value slot (`for f in checks`).
    loop_iters: Vec<Option<u32>>,
}

impl ClosureIndex {
    pub(crate) fn new(body: &Body<'_>) -> ClosureIndex {
        let m = body.m;
        let mut loop_iters = vec![None; body.n_slots as usize];
        for (i, e) in m.exprs.iter().enumerate() {
            if let Expr::For {
                iter,
                value: Some(v),
                ..
            } = e
            {
                if let Some(s) = loop_iters.get_mut(body.gslot(i as u32, *v) as usize) {
                    *s = Some(*iter);
                }
            }
        }
        // `o.show(k)` on a record whose field `show` holds a function calls it (decision 61):
        // its result is not a record, so nothing is written back to `o`.
        let calls_field = |init: Option<u32>, call: u32| match (init, &m.exprs[call as usize]) {
            (Some(init), Expr::MethodCall { name, .. }) => {
                matches!(&m.exprs[init as usize], Expr::Map(entries)
                    if entries.iter().any(|(k, v)| k == name
                        && matches!(m.exprs[*v as usize], Expr::Closure { .. })))
            }
            _ => false,
        };
        ClosureIndex {
            inits: single_inits_but(body, |init, call| !calls_field(init, call)),
            loop_iters,
        }
    }

    /// The functions of the closures `e` may be: a closure itself, or one reached through a
    /// local bound once, a field of a map literal, an element of a list literal (`xs[0]`,
    /// `get`, `first`, `last`, then `unwrap`/`expect`) or a `for` variable over such a list.
    pub(crate) fn closures(&self, body: &Body<'_>, e: u32) -> Vec<u32> {
        let mut out = Vec::new();
        self.walk(body, e, &mut out, 0);
        out
    }

    /// The closures `o.name(…)` calls when `o` is a map literal whose key `name` holds one.
    pub(crate) fn field_closures(&self, body: &Body<'_>, recv: u32, name: &str) -> Vec<u32> {
        let mut out = Vec::new();
        self.field(body, recv, name, &mut out, 0);
        out
    }

    const DEPTH: u32 = 8;

    fn walk(&self, body: &Body<'_>, e: u32, out: &mut Vec<u32>, depth: u32) {
        if depth > Self::DEPTH {
            return;
        }
        let m = body.m;
        match &m.exprs[e as usize] {
            Expr::Closure { func, .. } => out.push(*func),
            Expr::Local(s) => {
                let g = body.gslot(e, *s) as usize;
                if let Some(init) = self.inits.get(g).copied().flatten() {
                    self.walk(body, init, out, depth + 1);
                } else if let Some(iter) = self.loop_iters.get(g).copied().flatten() {
                    self.elements(body, iter, out, depth + 1);
                }
            }
            Expr::Field(x, name) => self.field(body, *x, name, out, depth + 1),
            Expr::MethodCall { recv, name, .. } if matches!(&**name, "unwrap" | "expect") => {
                match &m.exprs[*recv as usize] {
                    Expr::Index(list, _) => self.elements(body, *list, out, depth + 1),
                    Expr::MethodCall {
                        recv: list, name, ..
                    } if matches!(&**name, "get" | "first" | "last") => {
                        self.elements(body, *list, out, depth + 1)
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// The literal `e` is, through locals bound once.
    fn literal(&self, body: &Body<'_>, e: u32) -> u32 {
        through_inits(body, &self.inits, e)
    }

    fn field(&self, body: &Body<'_>, x: u32, name: &str, out: &mut Vec<u32>, depth: u32) {
        if let Expr::Map(entries) = &body.m.exprs[self.literal(body, x) as usize] {
            for (k, v) in entries {
                if &**k == name {
                    self.walk(body, *v, out, depth);
                }
            }
        }
    }

    fn elements(&self, body: &Body<'_>, list: u32, out: &mut Vec<u32>, depth: u32) {
        if let Expr::List(items) = &body.m.exprs[self.literal(body, list) as usize] {
            for x in items {
                self.walk(body, *x, out, depth);
            }
        }
    }
}

/// What a call in a body calls: one of the file's own functions or an imported one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallTarget {
    /// The file's own function, by name (the first of that name): not by position, so that a
    /// function added or removed elsewhere in the file leaves the facts of the others equal.
    Local(Arc<str>),
    /// A public function of the file's `import`-th import.
    Imported { import: u32, name: Arc<str> },
}

/// The expression `e` stands for, following locals bound once (`inits`, from
/// [`single_inits`]) at most 8 deep: `job` in `let job = {…}` is the literal.
pub(crate) fn through_inits(body: &Body<'_>, inits: &[Option<u32>], mut e: u32) -> u32 {
    for _ in 0..8 {
        match &body.m.exprs[e as usize] {
            Expr::Local(s) => match inits.get(body.gslot(e, *s) as usize) {
                Some(Some(init)) => e = *init,
                _ => break,
            },
            _ => break,
        }
    }
    e
}
