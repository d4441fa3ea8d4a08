//! Lowering a function's body: blocks, statements, places and patterns, expressions, calls
//! and closures (the declarations and scopes they use are in `lower.rs`).

use std::rc::Rc;

use vox_syntax::ast::{self, AstNode, CallArg};
use vox_syntax::strings::{self, StrPart};
use vox_syntax::{SyntaxKind as K, SyntaxNode, SyntaxTree, TextRange};

use crate::ir::*;
use crate::items::is_top_level_stmt;
use crate::lowerer::{literal, rc, trimmed_range, FnCtx, Lowerer};

impl Lowerer<'_> {
    pub(crate) fn lower_items(&mut self, tree: &SyntaxTree) {
        let mut has_top_stmts = false;
        let mut explicit_main = None;
        let mut fn_index = 0u32;
        for item in tree.root().children() {
            if let Some(f) = ast::FnDecl::cast(item) {
                if f.name().is_none() {
                    continue;
                }
                let id = fn_index;
                fn_index += 1;
                self.lower_fn_decl(id, f);
                if f.has_decorator("test") || f.has_decorator("example") {
                    self.m.tests.push(id);
                }
                if f.name().is_some_and(|n| n.text() == "main") {
                    explicit_main = Some(id);
                }
            } else if is_top_level_stmt(item.kind()) {
                has_top_stmts = true;
            }
        }
        if let Some(id) = explicit_main {
            self.m.main = Some(Main::Explicit(id));
        } else if has_top_stmts {
            self.lower_synthetic_main(tree);
        }
    }

    /// The top-level statements, in source order, as the body of a synthetic main.
    pub(crate) fn lower_synthetic_main(&mut self, tree: &SyntaxTree) {
        let top_stmts: Vec<SyntaxNode<'_>> = tree
            .root()
            .children()
            .filter(|item| is_top_level_stmt(item.kind()))
            .collect();
        {
            let range = tree.root().range();
            self.fns.push(FnCtx::new(false));
            self.push_scope();
            let stmts: Vec<StmtId> = top_stmts.iter().filter_map(|s| self.stmt(*s)).collect();
            self.pop_scope();
            let body = self.alloc(Expr::Block(stmts), range);
            let ctx = self.fns.pop().expect("pushed above");
            let id = self.m.functions.len() as FnId;
            self.m.functions.push(Function {
                name: None,
                params: Vec::new(),
                n_slots: ctx.n_slots,
                capture_slots: Vec::new(),
                body,
                range,
                is_pub: false,
                is_closure: false,
            });
            self.m.main = Some(Main::Synthetic(id));
        }
    }

    pub(crate) fn lower_fn_decl(&mut self, id: FnId, f: ast::FnDecl<'_>) {
        self.fns.push(FnCtx::new(false));
        self.push_scope();
        let mut params = Vec::new();
        if let Some(pl) = f.param_list() {
            params.reserve_exact(pl.params().count());
            for p in pl.params() {
                let name = p.name().map_or_else(|| rc("_"), |n| rc(&n.text()));
                self.bind(name.clone());
                params.push(name);
            }
        }
        let body = match f.body() {
            Some(b) => self.block(b.syntax()),
            None => self.alloc(Expr::Missing, f.syntax().range()),
        };
        self.pop_scope();
        let ctx = self.fns.pop().expect("pushed above");
        let func = &mut self.m.functions[id as usize];
        func.params = params;
        func.n_slots = ctx.n_slots;
        func.body = body;
    }

    // ---- scopes -------------------------------------------------------------------------------
}

impl Lowerer<'_> {
    fn block(&mut self, block: SyntaxNode<'_>) -> ExprId {
        self.push_scope();
        // Sized once: `filter_map` gives no lower bound, and growing from empty reallocates.
        let mut stmts = Vec::with_capacity(block.children().count());
        for s in block.children() {
            if let Some(id) = self.stmt(s) {
                stmts.push(id);
            }
        }
        self.pop_scope();
        self.alloc(Expr::Block(stmts), block.range())
    }

    fn stmt(&mut self, node: SyntaxNode<'_>) -> Option<StmtId> {
        let range = trimmed_range(node);
        let stmt = match node.kind() {
            K::LetStmt => {
                let s = ast::LetStmt::cast(node)?;
                // The initialiser is lowered before the names are bound: `let f = fn…` cannot
                // see itself (voxscript.md §4.2).
                let init = match s.value() {
                    Some(v) => self.expr_w2(v),
                    None => self.alloc(Expr::Missing, range),
                };
                let pat = match s.pattern() {
                    Some(p) => self.let_pattern(p),
                    None => self.alloc_pat(Pat::Wild),
                };
                Stmt::Let { pat, init }
            }
            K::ExprStmt => {
                let s = ast::ExprStmt::cast(node)?;
                let e = s.expr()?;
                let (expr, writeback) = self.expr_statement(e);
                Stmt::Expr { expr, writeback }
            }
            K::AssignStmt => {
                let s = ast::AssignStmt::cast(node)?;
                let op = match s.op().map(|t| t.kind()) {
                    Some(K::PlusEq) => Some(BinOp::Add),
                    Some(K::MinusEq) => Some(BinOp::Sub),
                    Some(K::StarEq) => Some(BinOp::Mul),
                    Some(K::SlashEq) => Some(BinOp::Div),
                    _ => None,
                };
                let value = match s.value() {
                    Some(v) => self.expr_w2(v),
                    None => self.alloc(Expr::Missing, range),
                };
                let place = match s.target() {
                    Some(t) => self.place(t),
                    None => Place {
                        root: PlaceRoot::Invalid(rc("?")),
                        steps: Vec::new(),
                    },
                };
                Stmt::Assign { place, op, value }
            }
            K::WhileStmt => {
                let s = ast::WhileStmt::cast(node)?;
                let cond = self.opt_expr(s.cond(), range);
                let body = match s.body() {
                    Some(b) => self.block(b.syntax()),
                    None => self.alloc(Expr::Missing, range),
                };
                Stmt::While { cond, body }
            }
            K::LoopStmt => {
                let s = ast::LoopStmt::cast(node)?;
                let body = match s.body() {
                    Some(b) => self.block(b.syntax()),
                    None => self.alloc(Expr::Missing, range),
                };
                Stmt::Loop { body }
            }
            // Nested declarations and errors are syntax errors; they never run.
            _ => return None,
        };
        Some(self.alloc_stmt(stmt, range))
    }

    /// An expression statement, with the W1 write-back target when `v.m(…)` has a bare local `v`.
    fn expr_statement(&mut self, e: SyntaxNode<'_>) -> (ExprId, Option<Slot>) {
        let id = self.expr_w2(e);
        let writeback = match &self.m.exprs[id as usize] {
            Expr::MethodCall { recv, .. } => match self.m.exprs[*recv as usize] {
                Expr::Local(slot) => Some(slot),
                _ => None,
            },
            _ => None,
        };
        (id, writeback)
    }

    /// An expression in a W2 position: `v.pop()` with a bare local `v` removes the element.
    fn expr_w2(&mut self, e: SyntaxNode<'_>) -> ExprId {
        let id = self.expr(e);
        if let Expr::MethodCall {
            recv,
            name,
            args,
            named,
        } = &self.m.exprs[id as usize]
        {
            if &**name == "pop" && args.is_empty() && named.is_empty() {
                if let Expr::Local(slot) = self.m.exprs[*recv as usize] {
                    let range = self.m.expr_ranges[id as usize];
                    return self.alloc(Expr::PopWriteBack { slot, call: id }, range);
                }
            }
        }
        id
    }

    fn place(&mut self, target: SyntaxNode<'_>) -> Place {
        let mut steps = Vec::new();
        let mut cur = target;
        loop {
            match cur.kind() {
                K::FieldExpr => {
                    let f = ast::FieldExpr::cast(cur).expect("kind checked");
                    steps.push(PlaceStep::Field(
                        f.name().map_or_else(|| rc(""), |n| rc(&n.text())),
                    ));
                    match f.receiver() {
                        Some(r) => cur = r,
                        None => break,
                    }
                }
                K::IndexExpr => {
                    let ix = ast::IndexExpr::cast(cur).expect("kind checked");
                    let index = self.opt_expr(ix.index(), cur.range());
                    steps.push(PlaceStep::Index(index));
                    match ix.receiver() {
                        Some(r) => cur = r,
                        None => break,
                    }
                }
                _ => break,
            }
        }
        steps.reverse();
        let root = match ast::NameRef::cast(cur).and_then(|n| n.token()) {
            Some(tok) => {
                let name = tok.text();
                let depth = self.fns.len() - 1;
                match self.resolve_local(depth, &name) {
                    Some(slot) => PlaceRoot::Local(slot),
                    None => PlaceRoot::Invalid(rc(&name)),
                }
            }
            None => PlaceRoot::Invalid(rc("?")),
        };
        Place { root, steps }
    }

    // ---- patterns -----------------------------------------------------------------------------

    fn let_pattern(&mut self, p: SyntaxNode<'_>) -> PatId {
        self.pattern(p)
    }

    fn pattern(&mut self, p: SyntaxNode<'_>) -> PatId {
        let pat = match p.kind() {
            K::WildcardPat => Pat::Wild,
            K::IdentPat => {
                let name = ast::pattern_token(p).map_or_else(|| rc("_"), |t| rc(&t.text()));
                Pat::Bind(self.bind(name))
            }
            K::LiteralPat => match ast::pattern_token(p) {
                Some(t) => {
                    Pat::Lit(literal(t.kind(), t.bytes(), t.range()).unwrap_or(Literal::Null))
                }
                None => Pat::Wild,
            },
            K::TuplePat => {
                let subs: Vec<SyntaxNode<'_>> = ast::sub_patterns(p).collect();
                Pat::Tuple(subs.into_iter().map(|s| self.pattern(s)).collect())
            }
            K::CtorPat => {
                let name = ast::pattern_token(p).map_or(String::new(), |t| t.text().into_owned());
                let subs: Vec<SyntaxNode<'_>> = ast::sub_patterns(p).collect();
                let has_parens = ast::ctor_has_parens(p);
                let known_variant = self.is_variant(name.as_str());
                match name.as_str() {
                    _ if known_variant => {
                        let fields =
                            has_parens.then(|| subs.into_iter().map(|s| self.pattern(s)).collect());
                        Pat::Variant {
                            name: rc(&name),
                            fields,
                        }
                    }
                    "Some" | "Ok" | "Err" | "Error" => {
                        let ctor = match name.as_str() {
                            "Some" => Ctor::Some,
                            "Ok" => Ctor::Ok,
                            _ => Ctor::Err,
                        };
                        // `Some(a, b)` never matches; keep the first sub-pattern's bindings.
                        let sub = if subs.len() == 1 {
                            Some(self.pattern(subs[0]))
                        } else {
                            None
                        };
                        if subs.len() > 1 {
                            for s in subs {
                                self.pattern(s);
                            }
                            Pat::UnknownCtor(rc("Some"))
                        } else {
                            Pat::Builtin(ctor, sub)
                        }
                    }
                    "None" => Pat::NoneCtor,
                    _ => {
                        for s in subs {
                            self.pattern(s);
                        }
                        Pat::UnknownCtor(rc(&name))
                    }
                }
            }
            _ => Pat::Wild,
        };
        self.alloc_pat(pat)
    }

    // ---- expressions --------------------------------------------------------------------------

    fn opt_expr(&mut self, e: Option<SyntaxNode<'_>>, range: TextRange) -> ExprId {
        match e {
            Some(e) => self.expr(e),
            None => self.alloc(Expr::Missing, range),
        }
    }

    fn expr(&mut self, node: SyntaxNode<'_>) -> ExprId {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.expr_inner(node))
    }

    fn expr_inner(&mut self, node: SyntaxNode<'_>) -> ExprId {
        let range = trimmed_range(node);
        let e = match node.kind() {
            K::Literal => {
                let Some(tok) = ast::Literal::cast(node).and_then(|l| l.token()) else {
                    return self.alloc(Expr::Missing, range);
                };
                if tok.kind() == K::Str {
                    if let Some(s) = strings::plain_value(tok.bytes()) {
                        // Most literals: no escape or interpolation to decode.
                        return self.alloc(Expr::Lit(Literal::Str(rc(&s))), range);
                    }
                    let value = strings::decode(tok.bytes(), tok.range().start, None);
                    match value.plain() {
                        Some(s) => Expr::Lit(Literal::Str(rc(s))),
                        None => {
                            let mut parts = Vec::new();
                            for part in value.parts {
                                match part {
                                    StrPart::Lit(s) => parts.push(TemplatePart::Lit(rc(&s))),
                                    StrPart::Interp { name, range } => {
                                        let e = self.resolve_name(&name);
                                        let id = self.alloc(e, range);
                                        parts.push(TemplatePart::Var(id));
                                    }
                                }
                            }
                            Expr::Template(parts)
                        }
                    }
                } else {
                    Expr::Lit(
                        literal(tok.kind(), tok.bytes(), tok.range()).unwrap_or(Literal::Null),
                    )
                }
            }
            K::NameRef => {
                let Some(tok) = ast::NameRef::cast(node).and_then(|n| n.token()) else {
                    return self.alloc(Expr::Missing, range);
                };
                self.resolve_name(&tok.text())
            }
            K::ParenExpr => {
                let inner = ast::ParenExpr::cast(node).and_then(|p| p.inner());
                return self.opt_expr(inner, range);
            }
            // Their elements are the expression children.
            K::TupleExpr => Expr::Tuple(self.child_exprs(node)),
            K::ListExpr => Expr::List(self.child_exprs(node)),
            K::MapExpr => {
                let mut entries = Vec::new();
                for entry in ast::MapExpr::cast(node)
                    .into_iter()
                    .flat_map(|m| m.entries())
                {
                    let Some(key) = entry.key() else { continue };
                    let key = if key.kind() == K::Str {
                        rc(strings::decode(key.bytes(), key.range().start, None)
                            .plain()
                            .unwrap_or_default())
                    } else {
                        rc(&key.text())
                    };
                    let value = self.opt_expr(entry.value(), entry.syntax().range());
                    entries.push((key, value));
                }
                Expr::Map(entries)
            }
            K::PrefixExpr => {
                let p = ast::PrefixExpr::cast(node).expect("kind checked");
                let op = match p.op().map(|t| t.kind()) {
                    Some(K::Minus) => UnOp::Neg,
                    _ => UnOp::Not,
                };
                let operand = self.opt_expr(p.operand(), range);
                Expr::Unary(op, operand)
            }
            K::BinExpr => return self.binary(node, range),
            K::CallExpr => return self.call(node, range),
            K::FieldExpr => {
                let f = ast::FieldExpr::cast(node).expect("kind checked");
                let name = f.name().map_or_else(|| rc(""), |n| rc(&n.text()));
                let recv = self.opt_expr(f.receiver(), range);
                match &self.m.exprs[recv as usize] {
                    Expr::Namespace(ns) => {
                        let ns = ns.clone();
                        match self.catalog.member(&ns, &name) {
                            Some(id) => Expr::Builtin(id),
                            None => Expr::NsMember { ns, name },
                        }
                    }
                    Expr::Std if self.catalog.is_namespace(&name) => Expr::Namespace(name),
                    _ => Expr::Field(recv, name),
                }
            }
            K::IndexExpr => {
                let ix = ast::IndexExpr::cast(node).expect("kind checked");
                let recv = self.opt_expr(ix.receiver(), range);
                let index = self.opt_expr(ix.index(), range);
                Expr::Index(recv, index)
            }
            K::TryExpr => {
                let inner = ast::TryExpr::cast(node).and_then(|t| t.inner());
                Expr::Try(self.opt_expr(inner, range))
            }
            K::BlockExpr => match ast::BlockExpr::cast(node).and_then(|b| b.block()) {
                Some(b) => return self.block(b.syntax()),
                None => Expr::Missing,
            },
            K::IfExpr => return self.if_expr(ast::IfExpr::cast(node).expect("kind checked")),
            K::MatchExpr => {
                let m = ast::MatchExpr::cast(node).expect("kind checked");
                let scrutinee = self.opt_expr(m.scrutinee(), range);
                let mut arms = Vec::new();
                for arm in m.arms() {
                    self.push_scope();
                    let pat = match arm.pattern() {
                        Some(p) => self.pattern(p),
                        None => self.alloc_pat(Pat::Wild),
                    };
                    let body = self.opt_expr(arm.body(), arm.syntax().range());
                    self.pop_scope();
                    arms.push((pat, body));
                }
                Expr::Match { scrutinee, arms }
            }
            K::ForExpr => {
                let f = ast::ForExpr::cast(node).expect("kind checked");
                let iter = self.opt_expr(f.iterable(), range);
                self.push_scope();
                let bindings: Vec<SyntaxNode<'_>> = f.bindings().collect();
                let mut slots = bindings.iter().map(|b| match b.kind() {
                    K::IdentPat => {
                        let name =
                            ast::pattern_token(*b).map_or_else(|| rc("_"), |t| rc(&t.text()));
                        Some(self.bind(name))
                    }
                    _ => None,
                });
                let value = slots.next().flatten();
                let index = slots.next().flatten();
                drop(slots);
                let body = match f.body() {
                    Some(b) => self.block(b.syntax()),
                    None => self.alloc(Expr::Missing, range),
                };
                self.pop_scope();
                Expr::For {
                    iter,
                    value,
                    index,
                    body,
                }
            }
            K::Lambda => {
                let l = ast::Lambda::cast(node).expect("kind checked");
                let params: Vec<Rc<str>> = l
                    .param_list()
                    .map(|pl| {
                        pl.params()
                            .map(|p| p.name().map_or_else(|| rc("_"), |n| rc(&n.text())))
                            .collect()
                    })
                    .unwrap_or_default();
                return self.closure(params, l.body(), range);
            }
            K::ArrowFn => {
                let a = ast::ArrowFn::cast(node).expect("kind checked");
                let params: Vec<Rc<str>> = a.params().map(|t| rc(&t.text())).collect();
                return self.closure(params, a.body(), range);
            }
            K::ReturnExpr => {
                let value = ast::ReturnExpr::cast(node).and_then(|r| r.value());
                Expr::Return(value.map(|v| self.expr(v)))
            }
            K::BreakExpr => Expr::Break,
            K::ContinueExpr => Expr::Continue,
            _ => Expr::Missing,
        };
        self.alloc(e, range)
    }

    /// Lowers a node's expression children in order, into a vector allocated once.
    fn child_exprs(&mut self, node: SyntaxNode<'_>) -> Vec<ExprId> {
        let elems = || node.children().filter(|e| ast::is_expr(e.kind()));
        let mut out = Vec::with_capacity(elems().count());
        for e in elems() {
            out.push(self.expr(e));
        }
        out
    }

    fn binary(&mut self, node: SyntaxNode<'_>, range: TextRange) -> ExprId {
        let b = ast::BinExpr::cast(node).expect("kind checked");
        let op = b.op().map(|t| t.kind());
        let lhs = self.opt_expr(b.lhs(), range);
        let rhs = self.opt_expr(b.rhs(), range);
        let e = match op {
            Some(K::AndKw | K::AmpAmp) => Expr::And(lhs, rhs),
            Some(K::OrKw | K::PipePipe) => Expr::Or(lhs, rhs),
            Some(K::PipeGt) => Expr::Pipe(lhs, rhs),
            Some(k) => {
                let op = match k {
                    K::Plus => BinOp::Add,
                    K::Minus => BinOp::Sub,
                    K::Star => BinOp::Mul,
                    K::Slash => BinOp::Div,
                    K::Percent => BinOp::Mod,
                    K::EqEq | K::IsKw => BinOp::Eq,
                    K::BangEq | K::IsntKw => BinOp::Ne,
                    K::Lt => BinOp::Lt,
                    K::Gt => BinOp::Gt,
                    K::LtEq => BinOp::Le,
                    K::GtEq => BinOp::Ge,
                    _ => return self.alloc(Expr::Missing, range),
                };
                Expr::Binary(op, lhs, rhs)
            }
            None => Expr::Missing,
        };
        self.alloc(e, range)
    }

    fn call(&mut self, node: SyntaxNode<'_>, range: TextRange) -> ExprId {
        let c = ast::CallExpr::cast(node).expect("kind checked");
        let args_of = |this: &mut Self| -> (Vec<ExprId>, Vec<(Rc<str>, ExprId)>) {
            let Some(list) = c.arg_list() else {
                return (Vec::new(), Vec::new());
            };
            // Sized once for the positional arguments, the usual kind.
            let positional = list.syntax().children().filter(|a| a.kind() == K::Arg);
            let mut args = Vec::with_capacity(positional.count());
            let mut named = Vec::new();
            for a in list.args() {
                match a {
                    CallArg::Positional(e) => args.push(this.expr(e)),
                    CallArg::Named(name, e) => {
                        let v = this.expr(e);
                        named.push((rc(&name.text()), v));
                    }
                }
            }
            (args, named)
        };
        // `recv.name(…)` on a value is a method call; on a namespace it calls the member.
        if let Some(callee) = c.callee() {
            if callee.kind() == K::FieldExpr {
                let f = ast::FieldExpr::cast(callee).expect("kind checked");
                let name = f.name().map_or_else(|| rc(""), |n| rc(&n.text()));
                let recv = self.opt_expr(f.receiver(), range);
                let is_ns = matches!(self.m.exprs[recv as usize], Expr::Namespace(_) | Expr::Std)
                    || matches!(&self.m.exprs[recv as usize], Expr::Global(g) if matches!(self.m.globals[*g as usize], Global::ImportAlias { .. }));
                if !is_ns {
                    let (args, named) = args_of(self);
                    return self.alloc(
                        Expr::MethodCall {
                            recv,
                            name,
                            args,
                            named,
                        },
                        range,
                    );
                }
                let callee_expr = match &self.m.exprs[recv as usize] {
                    Expr::Namespace(ns) => {
                        let ns = ns.clone();
                        match self.catalog.member(&ns, &name) {
                            Some(id) => Expr::Builtin(id),
                            None => Expr::NsMember { ns, name },
                        }
                    }
                    Expr::Std if self.catalog.is_namespace(&name) => Expr::Namespace(name),
                    _ => Expr::Field(recv, name),
                };
                let callee_id = self.alloc(callee_expr, callee.range());
                let (args, named) = args_of(self);
                return self.alloc(
                    Expr::Call {
                        callee: callee_id,
                        args,
                        named,
                    },
                    range,
                );
            }
        }
        let callee = self.opt_expr(c.callee(), range);
        let (args, named) = args_of(self);
        self.alloc(
            Expr::Call {
                callee,
                args,
                named,
            },
            range,
        )
    }

    fn if_expr(&mut self, i: ast::IfExpr<'_>) -> ExprId {
        let range = trimmed_range(i.syntax());
        let cond = self.opt_expr(i.cond(), range);
        let then = match i.then_block() {
            Some(b) => self.block(b.syntax()),
            None => self.alloc(Expr::Missing, range),
        };
        let els = i.else_branch().map(|e| match (e.else_if(), e.block()) {
            // An `else if` chain of 20,000 arms nests as deep (issue 36).
            (Some(nested), _) => {
                stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.if_expr(nested))
            }
            (None, Some(b)) => self.block(b.syntax()),
            (None, None) => self.alloc(Expr::Missing, range),
        });
        self.alloc(Expr::If { cond, then, els }, range)
    }

    fn closure(
        &mut self,
        params: Vec<Rc<str>>,
        body: Option<SyntaxNode<'_>>,
        range: TextRange,
    ) -> ExprId {
        self.fns.push(FnCtx::new(true));
        self.push_scope();
        for p in &params {
            self.bind(p.clone());
        }
        let body = self.opt_expr(body, range);
        self.pop_scope();
        let ctx = self.fns.pop().expect("pushed above");
        let captures: Vec<Slot> = ctx.captures.iter().map(|(outer, _, _)| *outer).collect();
        let capture_slots: Vec<Slot> = ctx.captures.iter().map(|(_, inner, _)| *inner).collect();
        let func_id = self.m.functions.len() as FnId;
        self.m.functions.push(Function {
            name: None,
            params,
            n_slots: ctx.n_slots,
            capture_slots,
            body,
            range,
            is_pub: false,
            is_closure: true,
        });
        self.alloc(
            Expr::Closure {
                func: func_id,
                captures,
            },
            range,
        )
    }
}
