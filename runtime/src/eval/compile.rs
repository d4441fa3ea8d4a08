//! HIR → register instructions ([`Chunk`]), one function body at a time.
//!
//! The compiler emits actions (anything that can fail, has an effect or jumps) in the order the
//! tree-walker performs them, and gives each the steps the tree-walker counts before it (a node's
//! step comes before its operands are evaluated, its action after). Reading a local or a constant
//! is no action: the operand names the local, unless an operand evaluated later could assign it
//! (a block, loop or `match` among the later operands), in which case it is copied first.
//! Expressions the tier does not compile, and those nested deeper than [`MAX_DEPTH`], are left
//! to the tree-walker (`Op::Eval`), which counts their steps itself.

use std::rc::Rc;

use vox_hir::{Expr, ExprId, Function, Global, Module, TemplatePart};
use vox_syntax::TextRange;

use crate::catalog::Catalog;
use crate::value::{BuiltinDef, Value};

use super::bytecode::{
    Builtin1, Callee, Chunk, Ins, IntMethod, Label, Op, Opnd, Reg, TemplatePiece, DROP,
};
use super::expr::lit_value;

/// Expression nesting the compiler follows; deeper subtrees are evaluated by the tree-walker
/// (which grows the host stack for them).
pub(super) const MAX_DEPTH: u32 = 48;
/// Nodes `writes_locals` looks at before answering "maybe".
const WRITE_SCAN: u32 = 64;

pub(super) struct Compiler<'m> {
    pub(super) m: &'m Module,
    pub(super) n_slots: u32,
    pub(super) code: Vec<Ins>,
    pub(super) tick_at: Vec<TextRange>,
    pub(super) pending: Vec<TextRange>,
    pub(super) consts: Vec<Value>,
    pub(super) strs: Vec<Rc<str>>,
    pub(super) labels: Vec<u32>,
    pub(super) temps: u32,
    pub(super) max_temps: u32,
    /// (break, continue) targets of the loops around the code being compiled.
    pub(super) loops: Vec<(Label, Label)>,
    pub(super) iters: u32,
    pub(super) max_iters: u32,
    pub(super) depth: u32,
}

pub(super) fn compile(m: &Module, func: &Function) -> Chunk {
    let mut c = Compiler {
        m,
        n_slots: func.n_slots,
        code: Vec::new(),
        tick_at: Vec::new(),
        pending: Vec::new(),
        consts: vec![Value::Null],
        strs: Vec::new(),
        labels: Vec::new(),
        temps: 0,
        max_temps: 0,
        loops: Vec::new(),
        iters: 0,
        max_iters: 0,
        depth: 0,
    };
    let result = c.expr(func.body);
    if !c.pending.is_empty() {
        c.emit(Op::Tick, func.range);
    }
    c.finish(result)
}

/// A jump or branch whose target is a `Jump` without steps goes to that jump's target
/// directly (a loop's `continue` point, the end of an `if` inside a loop): the same steps, one
/// dispatch less.
fn thread_jumps(code: &mut [Ins]) {
    let hop = |code: &[Ins], mut l: Label| {
        // Bounded: a cycle of empty jumps (an empty `loop {}`) keeps its own target.
        for _ in 0..8 {
            match code.get(l as usize) {
                Some(Ins {
                    op: Op::Jump(next),
                    ticks: 0,
                    ..
                }) if *next != l => l = *next,
                _ => break,
            }
        }
        l
    };
    for k in 0..code.len() {
        let target = match &code[k].op {
            Op::Jump(l) | Op::Branch { target: l, .. } | Op::BranchCmp { target: l, .. } => *l,
            _ => continue,
        };
        let to = hop(code, target);
        match &mut code[k].op {
            Op::Jump(l) | Op::Branch { target: l, .. } | Op::BranchCmp { target: l, .. } => *l = to,
            _ => {}
        }
    }
}

impl Compiler<'_> {
    fn finish(mut self, result: Opnd) -> Chunk {
        let labels = std::mem::take(&mut self.labels);
        for ins in &mut self.code {
            let fix = |l: &mut Label| *l = labels[*l as usize];
            match &mut ins.op {
                Op::Branch { target, .. } | Op::BranchCmp { target, .. } => fix(target),
                Op::Jump(l) => fix(l),
                Op::MatchPat { fail, .. } => fix(fail),
                Op::ForNext { done, .. } => fix(done),
                Op::Eval { brk, cont, .. } | Op::Stmt { brk, cont, .. } => {
                    brk.iter_mut().for_each(fix);
                    cont.iter_mut().for_each(fix);
                }
                _ => {}
            }
        }
        thread_jumps(&mut self.code);
        Chunk {
            code: self.code,
            tick_at: self.tick_at,
            consts: self.consts,
            strs: self.strs,
            n_temps: self.max_temps,
            n_iters: self.max_iters,
            result,
        }
    }

    // ---- emission -----------------------------------------------------------------------------

    pub(super) fn emit(&mut self, op: Op, at: TextRange) {
        let first = self.tick_at.len() as u32;
        let ticks = self.pending.len() as u32;
        self.tick_at.append(&mut self.pending);
        self.code.push(Ins {
            op,
            ticks,
            first,
            at,
        });
    }

    pub(super) fn tick_expr(&mut self, e: ExprId) {
        self.pending.push(self.m.expr_ranges[e as usize]);
    }

    pub(super) fn label(&mut self) -> Label {
        self.labels.push(u32::MAX);
        (self.labels.len() - 1) as Label
    }

    /// Places `l` here; steps still pending belong before it, so they get an instruction of their own.
    pub(super) fn place(&mut self, l: Label, at: TextRange) {
        if !self.pending.is_empty() {
            self.emit(Op::Tick, at);
        }
        self.labels[l as usize] = self.code.len() as u32;
    }

    pub(super) fn temp(&mut self) -> Reg {
        let r = self.n_slots + self.temps;
        self.temps += 1;
        self.max_temps = self.max_temps.max(self.temps);
        r
    }

    fn konst(&mut self, v: Value) -> Opnd {
        self.consts.push(v);
        Opnd::Const((self.consts.len() - 1) as u32)
    }

    pub(super) fn discard(&mut self, o: Opnd, at: TextRange) {
        if let Opnd::Temp(r) = o {
            self.emit(Op::Clear(r), at);
        }
    }

    fn copy_to_temp(&mut self, o: Opnd, at: TextRange) -> Reg {
        match o {
            Opnd::Temp(r) => r,
            _ => {
                let r = self.temp();
                self.emit(Op::Move { dst: r, src: o }, at);
                r
            }
        }
    }

    pub(super) fn loop_targets(&self) -> (Option<Label>, Option<Label>) {
        match self.loops.last() {
            Some(&(b, c)) => (Some(b), Some(c)),
            None => (None, None),
        }
    }

    /// Leaves `e` to the tree-walker.
    pub(super) fn fallback(&mut self, e: ExprId) -> Opnd {
        let dst = self.temp();
        let (brk, cont) = self.loop_targets();
        let at = self.m.expr_ranges[e as usize];
        self.emit(
            Op::Eval {
                dst,
                expr: e,
                brk,
                cont,
            },
            at,
        );
        Opnd::Temp(dst)
    }

    /// `range(a)` or `range(a, b)` called as the builtin, as a `for` loop's iterable: its steps and
    /// operands as the call's own (see `Expr::Call`), for `Op::ForRange`; `None` for anything else.
    fn range_call(&mut self, e: ExprId) -> Option<(&'static BuiltinDef, Box<[Opnd]>, TextRange)> {
        let m = self.m;
        let Expr::Call {
            callee,
            args,
            named,
        } = &m.exprs[e as usize]
        else {
            return None;
        };
        let Expr::Builtin(b) = m.exprs[*callee as usize] else {
            return None;
        };
        let def = Catalog::get().row(b);
        if !named.is_empty() || !def.ns.is_empty() || def.name != "range" {
            return None;
        }
        let at = m.expr_ranges[e as usize];
        self.tick_expr(e);
        self.pending.push(at);
        Some((def, self.operands(args).into(), at))
    }

    // ---- operands -----------------------------------------------------------------------------

    /// Compiles `es` in order; a local read is copied when a later operand may assign locals.
    pub(super) fn operands(&mut self, es: &[ExprId]) -> Vec<Opnd> {
        let mut later_writes = vec![false; es.len() + 1];
        for i in (0..es.len()).rev() {
            later_writes[i] = later_writes[i + 1] || writes_locals(self.m, es[i]);
        }
        let mut out = Vec::with_capacity(es.len());
        for (i, &e) in es.iter().enumerate() {
            let o = self.expr(e);
            let o = if later_writes[i + 1] && matches!(o, Opnd::Local(_)) {
                Opnd::Temp(self.copy_to_temp(o, self.m.expr_ranges[e as usize]))
            } else {
                o
            };
            out.push(o);
        }
        out
    }

    // ---- expressions --------------------------------------------------------------------------

    pub(super) fn expr(&mut self, e: ExprId) -> Opnd {
        if self.depth >= MAX_DEPTH {
            return self.fallback(e);
        }
        self.depth += 1;
        let saved = self.temps;
        let o = self.expr_inner(e, true);
        self.depth -= 1;
        // The result's own temporary is the one the parent reads; everything above it is free.
        self.temps = match o {
            Opnd::Temp(r) => r + 1 - self.n_slots,
            _ => saved,
        };
        debug_assert!(self.temps <= saved + 1);
        o
    }

    /// `want`: the value is read (else a call's result goes to [`DROP`]).
    pub(super) fn expr_inner(&mut self, e: ExprId, want: bool) -> Opnd {
        let m = self.m;
        let at = m.expr_ranges[e as usize];
        match &m.exprs[e as usize] {
            Expr::Lit(l) => {
                self.tick_expr(e);
                self.konst(lit_value(l))
            }
            Expr::Local(s) => {
                self.tick_expr(e);
                Opnd::Local(*s)
            }
            Expr::Global(g) => {
                self.tick_expr(e);
                Opnd::Global(*g)
            }
            Expr::NoneValue => {
                self.tick_expr(e);
                self.konst(Value::none())
            }
            Expr::Template(parts) => {
                self.tick_expr(e);
                let dst = self.temp();
                let exprs: Vec<ExprId> = parts
                    .iter()
                    .filter_map(|p| match p {
                        TemplatePart::Var(x) => Some(*x),
                        TemplatePart::Lit(_) => None,
                    })
                    .collect();
                let mut values = self.operands(&exprs).into_iter();
                let mut pieces = Vec::with_capacity(parts.len());
                for p in parts {
                    pieces.push(match p {
                        TemplatePart::Lit(t) => {
                            self.strs.push(t.clone());
                            TemplatePiece::Lit((self.strs.len() - 1) as u32)
                        }
                        TemplatePart::Var(_) => {
                            TemplatePiece::Value(values.next().unwrap_or_default())
                        }
                    });
                }
                self.emit(
                    Op::Template {
                        dst,
                        pieces: pieces.into(),
                    },
                    at,
                );
                Opnd::Temp(dst)
            }
            Expr::List(items) | Expr::Tuple(items) => {
                self.tick_expr(e);
                let dst = self.temp();
                let items = self.operands(items).into();
                let op = if matches!(m.exprs[e as usize], Expr::List(_)) {
                    Op::List { dst, items }
                } else {
                    Op::Tuple { dst, items }
                };
                self.emit(op, at);
                Opnd::Temp(dst)
            }
            Expr::Map(entries) => {
                self.tick_expr(e);
                let dst = self.temp();
                let exprs: Vec<ExprId> = entries.iter().map(|(_, x)| *x).collect();
                let values = self.operands(&exprs).into();
                let keys = entries.iter().map(|(k, _)| k.clone()).collect();
                self.emit(Op::Map { dst, keys, values }, at);
                Opnd::Temp(dst)
            }
            Expr::Unary(op, a) => {
                self.tick_expr(e);
                let dst = self.temp();
                let a = self.expr(*a);
                self.emit(Op::Unary { op: *op, dst, a }, at);
                Opnd::Temp(dst)
            }
            Expr::Binary(op, a, b) => {
                self.tick_expr(e);
                let dst = self.temp();
                let ab = self.operands(&[*a, *b]);
                self.emit(
                    Op::Binary {
                        op: *op,
                        dst,
                        a: ab[0],
                        b: ab[1],
                    },
                    at,
                );
                Opnd::Temp(dst)
            }
            Expr::And(a, b) | Expr::Or(a, b) => {
                let when = matches!(m.exprs[e as usize], Expr::Or(..));
                self.tick_expr(e);
                let dst = self.temp();
                let end = self.label();
                let l = self.expr(*a);
                self.emit(
                    Op::Branch {
                        a: l,
                        when,
                        set: Some(dst),
                        target: end,
                    },
                    at,
                );
                let r = self.expr(*b);
                self.emit(Op::ToBool { dst, a: r }, at);
                self.place(end, at);
                Opnd::Temp(dst)
            }
            Expr::Call {
                callee,
                args,
                named,
            } if named.is_empty() => {
                self.tick_expr(e);
                let dst = if want { self.temp() } else { DROP };
                let callee = match &m.exprs[*callee as usize] {
                    Expr::Builtin(b) => {
                        // The builtin callee's step, at the call (as the tree-walker counts it).
                        self.pending.push(at);
                        let args: Vec<Opnd> = self.operands(args);
                        let def = Catalog::get().row(*b);
                        let which = match (def.ns, def.name) {
                            ("", "len") => Some(Builtin1::Len),
                            ("", "type_of") => Some(Builtin1::TypeOf),
                            _ => None,
                        };
                        if let (Some(which), [a], true) = (which, &args[..], want) {
                            let a = *a;
                            self.emit(Op::Builtin1 { dst, which, def, a }, at);
                            return result(dst);
                        }
                        let callee = Callee::Builtin(def);
                        let args = args.into();
                        self.emit(Op::Call { dst, callee, args }, at);
                        return result(dst);
                    }
                    Expr::Global(g) if matches!(m.globals[*g as usize], Global::Fn(_)) => {
                        let Global::Fn(id) = m.globals[*g as usize] else {
                            unreachable!()
                        };
                        self.tick_expr(*callee);
                        Callee::Local(id)
                    }
                    _ => {
                        let mut all = vec![*callee];
                        all.extend_from_slice(args);
                        let mut ops = self.operands(&all);
                        let f = ops.remove(0);
                        self.emit(
                            Op::Call {
                                dst,
                                callee: Callee::Value(f),
                                args: ops.into(),
                            },
                            at,
                        );
                        return result(dst);
                    }
                };
                let args = self.operands(args).into();
                self.emit(Op::Call { dst, callee, args }, at);
                result(dst)
            }
            Expr::MethodCall {
                recv,
                name,
                args,
                named,
            } if named.is_empty() => {
                self.tick_expr(e);
                let dst = if want { self.temp() } else { DROP };
                if args.is_empty() && &**name == "unwrap" {
                    if let Expr::Index(l, i) = &m.exprs[*recv as usize] {
                        self.tick_expr(*recv);
                        let li = self.operands(&[*l, *i]);
                        let index_at = m.expr_ranges[*recv as usize];
                        self.emit(
                            Op::IndexUnwrap {
                                dst,
                                a: li[0],
                                i: li[1],
                                index_at,
                            },
                            at,
                        );
                        return result(dst);
                    }
                }
                let which = match &**name {
                    "len" => Some(IntMethod::Len),
                    "ord" => Some(IntMethod::Ord),
                    _ => None,
                };
                if let (Some(which), true, true) = (which, args.is_empty(), want) {
                    let r = self.expr(*recv);
                    self.emit(
                        Op::IntMethod {
                            dst,
                            recv: r,
                            which,
                            name: name.clone(),
                        },
                        at,
                    );
                    return result(dst);
                }
                let mut all = vec![*recv];
                all.extend_from_slice(args);
                let mut ops = self.operands(&all);
                let r = ops.remove(0);
                self.emit(
                    Op::Method {
                        dst,
                        recv: r,
                        name: name.clone(),
                        args: ops.into(),
                    },
                    at,
                );
                result(dst)
            }
            Expr::Field(recv, name) => {
                self.tick_expr(e);
                let dst = self.temp();
                let a = self.expr(*recv);
                self.emit(
                    Op::Field {
                        dst,
                        a,
                        name: name.clone(),
                    },
                    at,
                );
                Opnd::Temp(dst)
            }
            Expr::Index(recv, idx) => {
                self.tick_expr(e);
                let dst = self.temp();
                let ai = self.operands(&[*recv, *idx]);
                self.emit(
                    Op::Index {
                        dst,
                        a: ai[0],
                        i: ai[1],
                    },
                    at,
                );
                Opnd::Temp(dst)
            }
            Expr::Try(x) => {
                self.tick_expr(e);
                let dst = self.temp();
                let a = self.expr(*x);
                self.emit(Op::Try { dst, a }, at);
                Opnd::Temp(dst)
            }
            Expr::Block(stmts) => {
                self.tick_expr(e);
                self.block(stmts, true)
            }
            Expr::If { cond, then, els } => {
                self.tick_expr(e);
                let dst = self.temp();
                let other = self.label();
                let end = self.label();
                self.cond_branch(*cond, false, other, at);
                let t = self.expr(*then);
                self.emit(Op::Move { dst, src: t }, at);
                self.emit(Op::Jump(end), at);
                self.place(other, at);
                let f = match els {
                    Some(x) => self.expr(*x),
                    None => Opnd::Const(0),
                };
                self.emit(Op::Move { dst, src: f }, at);
                self.place(end, at);
                Opnd::Temp(dst)
            }
            Expr::Match { scrutinee, arms } => {
                self.tick_expr(e);
                let dst = self.temp();
                let end = self.label();
                let v = self.expr(*scrutinee);
                // Its own register: arms bind names, which could be the scrutinee's local.
                let s = match v {
                    Opnd::Temp(r) => r,
                    _ => {
                        let r = self.temp();
                        self.emit(Op::Move { dst: r, src: v }, at);
                        r
                    }
                };
                for (pat, body) in arms {
                    let next = self.label();
                    self.emit(
                        Op::MatchPat {
                            pat: *pat,
                            a: Opnd::Temp(s),
                            fail: next,
                        },
                        at,
                    );
                    let b = self.expr(*body);
                    self.emit(Op::Move { dst, src: b }, at);
                    self.emit(Op::Jump(end), at);
                    self.place(next, at);
                }
                self.emit(Op::NoArm, at);
                self.place(end, at);
                Opnd::Temp(dst)
            }
            Expr::For {
                iter,
                value,
                index,
                body,
            } => {
                self.tick_expr(e);
                let state = self.iters;
                self.iters += 1;
                self.max_iters = self.max_iters.max(self.iters);
                match self.range_call(*iter) {
                    Some((range, args, call_at)) => {
                        let saved = self.temps;
                        self.emit(Op::ForRange { state, range, args }, call_at);
                        // Its operands are taken by the op: free for the body.
                        self.temps = saved;
                    }
                    None => {
                        let a = self.expr(*iter);
                        self.emit(Op::ForStart { state, a }, at);
                    }
                }
                let next = self.label();
                let done = self.label();
                self.place(next, at);
                self.emit(
                    Op::ForNext {
                        state,
                        value: *value,
                        index: *index,
                        done,
                    },
                    at,
                );
                self.loop_body(*body, done, next, at);
                // A `break` leaves the iterated value behind: let it go (a later `xs.push(x)`
                // would copy a list still held here).
                self.emit(Op::ForEnd { state }, at);
                self.iters -= 1;
                Opnd::Const(0)
            }
            Expr::Closure { func, captures } => {
                self.tick_expr(e);
                let dst = self.temp();
                self.emit(
                    Op::Closure {
                        dst,
                        func: *func,
                        captures: captures.clone().into(),
                    },
                    at,
                );
                Opnd::Temp(dst)
            }
            Expr::Return(x) => {
                self.tick_expr(e);
                let v = match x {
                    Some(x) => self.expr(*x),
                    None => Opnd::Const(0),
                };
                self.emit(Op::Return(v), at);
                Opnd::Const(0)
            }
            Expr::Break | Expr::Continue => {
                let brk = matches!(m.exprs[e as usize], Expr::Break);
                self.tick_expr(e);
                match self.loops.last() {
                    Some(&(b, c)) => self.emit(Op::Jump(if brk { b } else { c }), at),
                    None => self.emit(Op::Escape { brk }, at),
                }
                Opnd::Const(0)
            }
            _ => self.fallback(e),
        }
    }
}

/// The operand of a result in `dst` (none for [`DROP`]).
pub(super) fn result(dst: Reg) -> Opnd {
    if dst == DROP {
        Opnd::Const(0)
    } else {
        Opnd::Temp(dst)
    }
}

/// Whether evaluating `e` may assign a local of this frame (conservative: "maybe" past
/// [`WRITE_SCAN`] nodes).
fn writes_locals(m: &Module, e: ExprId) -> bool {
    let mut budget = WRITE_SCAN;
    let mut work = vec![e];
    while let Some(e) = work.pop() {
        if budget == 0 {
            return true;
        }
        budget -= 1;
        match &m.exprs[e as usize] {
            Expr::Block(_)
            | Expr::For { .. }
            | Expr::Match { .. }
            | Expr::If { .. }
            | Expr::PopWriteBack { .. } => return true,
            Expr::List(items) | Expr::Tuple(items) => work.extend_from_slice(items),
            Expr::Map(entries) => work.extend(entries.iter().map(|(_, x)| *x)),
            Expr::Template(parts) => work.extend(parts.iter().filter_map(|p| match p {
                TemplatePart::Var(x) => Some(*x),
                TemplatePart::Lit(_) => None,
            })),
            Expr::Unary(_, a) | Expr::Field(a, _) | Expr::Try(a) | Expr::Return(Some(a)) => {
                work.push(*a)
            }
            Expr::Binary(_, a, b)
            | Expr::And(a, b)
            | Expr::Or(a, b)
            | Expr::Pipe(a, b)
            | Expr::Index(a, b) => work.extend_from_slice(&[*a, *b]),
            Expr::Call {
                callee,
                args,
                named,
            } => {
                work.push(*callee);
                work.extend_from_slice(args);
                work.extend(named.iter().map(|(_, x)| *x));
            }
            Expr::MethodCall {
                recv, args, named, ..
            } => {
                work.push(*recv);
                work.extend_from_slice(args);
                work.extend(named.iter().map(|(_, x)| *x));
            }
            _ => {}
        }
    }
    false
}
