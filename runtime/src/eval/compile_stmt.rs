//! The compiled tier's statements, and expressions in statement position (`effect`: no register
//! receives a value nobody reads). Same rules as `compile.rs`: actions in the tree-walker's order,
//! each with the steps counted before it.

use vox_hir::{BinOp, Expr, ExprId, Pat, PlaceRoot, PlaceStep, Stmt, StmtId};
use vox_syntax::TextRange;

use super::bytecode::{Label, Op, Opnd, PathStep, DROP};
use super::compile::{result, Compiler, MAX_DEPTH};

impl Compiler<'_> {
    /// A block's statements; its value is the last one's when `want`.
    pub(super) fn block(&mut self, stmts: &[StmtId], want: bool) -> Opnd {
        let t0 = self.temps;
        let mut last = Opnd::Const(0);
        for (i, &s) in stmts.iter().enumerate() {
            self.temps = t0;
            last = self.stmt(s, want && i + 1 == stmts.len());
        }
        last
    }

    /// Compiles `e` for its effects alone: no register receives the value of an `if`, `match`
    /// or block in statement position, and a call's result is not kept.
    pub(super) fn effect(&mut self, e: ExprId) {
        if self.depth >= MAX_DEPTH {
            let o = self.fallback(e);
            let at = self.m.expr_ranges[e as usize];
            return self.discard(o, at);
        }
        self.depth += 1;
        let saved = self.temps;
        let m = self.m;
        let at = m.expr_ranges[e as usize];
        match &m.exprs[e as usize] {
            Expr::Block(stmts) => {
                self.tick_expr(e);
                self.block(stmts, false);
            }
            Expr::If { cond, then, els } => {
                self.tick_expr(e);
                let other = self.label();
                self.cond_branch(*cond, false, other, at);
                self.effect(*then);
                match els {
                    Some(x) => {
                        let end = self.label();
                        self.emit(Op::Jump(end), at);
                        self.place(other, at);
                        self.effect(*x);
                        self.place(end, at);
                    }
                    None => self.place(other, at),
                }
            }
            _ => {
                let o = self.expr_inner(e, false);
                self.discard(o, at);
            }
        }
        self.temps = saved;
        self.depth -= 1;
    }

    /// `let x = e` where `e`'s value is in temporary `v`, just written by the last instruction:
    /// that instruction writes `slot` instead (one `Move` less). Not when a jump lands after it
    /// (the value may come from elsewhere) or steps are pending (the `Move` would carry them).
    fn retarget_last(&mut self, v: Opnd, slot: u32) -> bool {
        let Opnd::Temp(t) = v else { return false };
        let here = self.code.len() as u32;
        if !self.pending.is_empty() || self.labels.contains(&here) {
            return false;
        }
        let Some(last) = self.code.last_mut() else {
            return false;
        };
        let dst = match &mut last.op {
            Op::Move { dst, .. }
            | Op::Binary { dst, .. }
            | Op::Unary { dst, .. }
            | Op::Call { dst, .. }
            | Op::Method { dst, .. }
            | Op::IntMethod { dst, .. }
            | Op::Builtin1 { dst, .. }
            | Op::Index { dst, .. }
            | Op::IndexUnwrap { dst, .. }
            | Op::Field { dst, .. }
            | Op::List { dst, .. }
            | Op::Tuple { dst, .. }
            | Op::Map { dst, .. }
            | Op::Template { dst, .. }
            | Op::Closure { dst, .. }
            | Op::Try { dst, .. } => dst,
            _ => return false,
        };
        if *dst != t {
            return false;
        }
        *dst = slot;
        true
    }

    /// Jumps to `target` when the condition `cond` is `when`; a comparison is tested without
    /// building its bool (its errors are the comparison's: its result is always a bool).
    pub(super) fn cond_branch(&mut self, cond: ExprId, when: bool, target: Label, at: TextRange) {
        let m = self.m;
        // `a or b` / `a and b` as jumps: no bool is built for either side. The steps, their order
        // and the truthiness errors (at the `and`/`or`) are those of building it.
        if let Expr::And(a, b) | Expr::Or(a, b) = &m.exprs[cond as usize] {
            if self.depth < MAX_DEPTH {
                let is_or = matches!(m.exprs[cond as usize], Expr::Or(..));
                let own = m.expr_ranges[cond as usize];
                let saved = self.temps;
                self.depth += 1;
                self.tick_expr(cond);
                if when == is_or {
                    // The first side alone can decide it as `when`; else the second does.
                    self.cond_branch(*a, when, target, own);
                    self.cond_branch(*b, when, target, own);
                } else {
                    // The first side can only decide it the other way: then past the second.
                    let decided = self.label();
                    self.cond_branch(*a, is_or, decided, own);
                    self.cond_branch(*b, when, target, own);
                    self.place(decided, own);
                }
                self.depth -= 1;
                self.temps = saved;
                return;
            }
        }
        if let Expr::Binary(op, a, b) = &m.exprs[cond as usize] {
            if matches!(
                op,
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
            ) && self.depth < MAX_DEPTH
            {
                let saved = self.temps;
                self.tick_expr(cond);
                let ab = self.operands(&[*a, *b]);
                self.emit(
                    Op::BranchCmp {
                        op: *op,
                        a: ab[0],
                        b: ab[1],
                        when,
                        target,
                    },
                    m.expr_ranges[cond as usize],
                );
                self.temps = saved;
                return;
            }
        }
        let c = self.expr(cond);
        self.emit(
            Op::Branch {
                a: c,
                when,
                set: None,
                target,
            },
            at,
        );
    }

    pub(super) fn stmt(&mut self, s: StmtId, want: bool) -> Opnd {
        let m = self.m;
        let at = m.stmt_ranges[s as usize];
        match &m.stmts[s as usize] {
            Stmt::Let { pat, init } => {
                self.pending.push(at);
                let v = self.expr(*init);
                match m.pats[*pat as usize] {
                    Pat::Bind(slot) => {
                        if !self.retarget_last(v, slot) {
                            self.emit(Op::Move { dst: slot, src: v }, at)
                        }
                    }
                    Pat::Wild => self.discard(v, at),
                    _ => self.emit(Op::Let { pat: *pat, a: v }, at),
                }
                Opnd::Const(0)
            }
            Stmt::Expr {
                expr,
                writeback: None,
            } => {
                self.pending.push(at);
                if want {
                    self.expr(*expr)
                } else {
                    self.effect(*expr);
                    Opnd::Const(0)
                }
            }
            Stmt::Expr {
                expr,
                writeback: Some(slot),
            } if matches!(&m.exprs[*expr as usize], Expr::MethodCall { named, .. } if named.is_empty()) =>
            {
                let Expr::MethodCall { name, args, .. } = &m.exprs[*expr as usize] else {
                    unreachable!()
                };
                // The statement's step and the call's (the receiver is the variable: no step).
                self.pending.push(at);
                self.pending.push(at);
                let dst = if want { self.temp() } else { DROP };
                let args: Vec<_> = self.operands(args);
                if &**name == "push" && args.len() == 1 {
                    self.emit(
                        Op::Push {
                            dst,
                            slot: *slot,
                            name: name.clone(),
                            a: args[0],
                            expr: *expr,
                        },
                        m.expr_ranges[*expr as usize],
                    );
                    return result(dst);
                }
                let args = args.into();
                self.emit(
                    Op::WriteBack {
                        dst,
                        slot: *slot,
                        name: name.clone(),
                        args,
                        expr: *expr,
                    },
                    m.expr_ranges[*expr as usize],
                );
                result(dst)
            }
            Stmt::Assign { place, op, value }
                if !place.steps.is_empty()
                    && matches!(place.root, PlaceRoot::Local(_))
                    && (op.is_some()
                        || !matches!(m.exprs[*value as usize], Expr::MethodCall { .. })) =>
            {
                let PlaceRoot::Local(slot) = place.root else {
                    unreachable!()
                };
                self.pending.push(at);
                let mut exprs: Vec<ExprId> = place
                    .steps
                    .iter()
                    .filter_map(|s| match s {
                        PlaceStep::Index(e) => Some(*e),
                        PlaceStep::Field(_) => None,
                    })
                    .collect();
                exprs.push(*value);
                let mut ops = self.operands(&exprs).into_iter();
                let path = place
                    .steps
                    .iter()
                    .map(|s| match s {
                        PlaceStep::Field(n) => PathStep::Field(n.clone()),
                        PlaceStep::Index(_) => PathStep::Index(ops.next().unwrap_or_default()),
                    })
                    .collect();
                let a = ops.next().unwrap_or_default();
                self.emit(
                    Op::AssignPath {
                        slot,
                        path,
                        op: *op,
                        a,
                    },
                    at,
                );
                Opnd::Const(0)
            }
            Stmt::Assign { place, op, value }
                if place.steps.is_empty()
                    && !matches!(m.exprs[*value as usize], Expr::MethodCall { .. }) =>
            {
                let PlaceRoot::Local(slot) = place.root else {
                    return self.stmt_fallback(s, want);
                };
                self.pending.push(at);
                let a = self.expr(*value);
                self.emit(Op::Assign { slot, op: *op, a }, at);
                Opnd::Const(0)
            }
            Stmt::While { cond, body } => {
                self.pending.push(at);
                let top = self.label();
                let done = self.label();
                self.place(top, at);
                self.cond_branch(*cond, false, done, at);
                self.loop_body(*body, done, top, at);
                Opnd::Const(0)
            }
            Stmt::Loop { body } => {
                self.pending.push(at);
                let top = self.label();
                let done = self.label();
                self.place(top, at);
                // Each round's own step, at the statement.
                self.pending.push(at);
                self.loop_body(*body, done, top, at);
                Opnd::Const(0)
            }
            _ => self.stmt_fallback(s, want),
        }
    }

    /// A loop's body for its effects, `break` going to `done` and `continue` to `next`, then the
    /// jump back to `next` and `done` placed after it (`while`, `loop`, `for`).
    pub(super) fn loop_body(&mut self, body: ExprId, done: Label, next: Label, at: TextRange) {
        self.loops.push((done, next));
        self.effect(body);
        self.loops.pop();
        self.emit(Op::Jump(next), at);
        self.place(done, at);
    }

    /// Leaves statement `s` to the tree-walker. A value nobody reads is not kept: a write-back
    /// statement's result is the variable's new list, and a second reference to it would make the
    /// next `xs.push(x)` copy the list.
    pub(super) fn stmt_fallback(&mut self, s: StmtId, want: bool) -> Opnd {
        let dst = if want { self.temp() } else { DROP };
        let (brk, cont) = self.loop_targets();
        let at = self.m.stmt_ranges[s as usize];
        self.emit(
            Op::Stmt {
                dst,
                stmt: s,
                brk,
                cont,
            },
            at,
        );
        result(dst)
    }
}
