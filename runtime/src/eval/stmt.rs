//! Statements: blocks, `let`, assignment (in place when the place is the only reference), and the
//! W1 method statements (`xs.push(x)`).

use std::rc::Rc;

use vox_hir::{Expr, ExprId, Pat, PatId, Place, PlaceRoot, PlaceStep, Stmt, StmtId};

use crate::exc::{Exc, Loc};
use crate::kind::message_name;
use crate::methods;
use crate::ops::{self};
use crate::value::Value;

use super::expr::{field_function, same_kind, same_kind_method};
use super::interp::{Flow, Interp, R};
use super::place::{put_fields, read_fields, read_path, take_if_same, write_path, Step};

impl<'p> Interp<'p> {
    /// A block's value is its last statement's. The others' values are dropped at once: a W1
    /// statement's value is the variable's new list, and holding it while the next statement
    /// runs made `xs[0] = x` after `xs.push(y)` copy the whole list (quadratic in a loop).
    pub(super) fn block(&mut self, stmts: &[StmtId]) -> R {
        let Some((last, init)) = stmts.split_last() else {
            return Ok(Value::Null);
        };
        for &s in init {
            self.stmt(s)?;
        }
        self.stmt(*last)
    }

    pub(super) fn stmt(&mut self, id: StmtId) -> R {
        match self.stmt_inner(id) {
            Ok(v) => Ok(v),
            Err(f) => {
                let loc = Loc {
                    file: self.module,
                    range: self.m().stmt_ranges[id as usize],
                };
                Err(self.locate(f, loc))
            }
        }
    }

    pub(super) fn stmt_inner(&mut self, id: StmtId) -> R {
        self.tick()?;
        let m = self.m();
        match &m.stmts[id as usize] {
            Stmt::Let { pat, init } => {
                let v = self.eval(*init)?;
                self.bind_let(*pat, v)?;
                Ok(Value::Null)
            }
            Stmt::Expr { expr, writeback } => match (writeback, &m.exprs[*expr as usize]) {
                (
                    Some(slot),
                    Expr::MethodCall {
                        recv,
                        name,
                        args,
                        named,
                    },
                ) if named.is_empty() => {
                    self.tick()?;
                    let _ = recv;
                    let args = match self.eval_args(args) {
                        Ok(a) => a,
                        Err(f) => return Err(self.locate(f, self.loc(*expr))),
                    };
                    self.write_back(*expr, *slot, name, args)
                }
                _ => self.eval(*expr),
            },
            Stmt::Assign { place, op, value } => {
                if op.is_none() {
                    if let Some(done) = self.assign_method_in_place(place, *value) {
                        return done.map(|()| Value::Null);
                    }
                }
                // Index expressions of the place are evaluated once, before the value. (The kept
                // list is empty; an error drops it: the next assignment makes another.)
                let mut steps: Vec<Step> = std::mem::take(&mut self.place_steps);
                for s in &place.steps {
                    steps.push(match s {
                        PlaceStep::Field(n) => Step::Field(n.clone()),
                        PlaceStep::Index(e) => Step::Index(self.eval(*e)?),
                    });
                }
                let v = self.eval(*value)?;
                let slot = match &place.root {
                    PlaceRoot::Local(s) => *s,
                    PlaceRoot::Invalid(name) => {
                        return Err(Exc::error(format!("undefined variable: {name}")).into());
                    }
                };
                let i = self.base + slot as usize;
                let v = match op {
                    None => v,
                    Some(op) => {
                        let old = read_path(&self.stack[i], &steps)?;
                        ops::binary_host(self, *op, &old, &v)?
                    }
                };
                write_path(&mut self.stack[i], &steps, v)?;
                steps.clear();
                self.place_steps = steps;
                self.check_depth(&self.stack[i])?;
                Ok(Value::Null)
            }
            Stmt::While { cond, body } => {
                loop {
                    let c = self.eval(*cond)?;
                    if !ops::truthy_bool(&c)? {
                        break;
                    }
                    match self.eval(*body) {
                        Ok(_) | Err(Flow::Continue) => {}
                        Err(Flow::Break) => break,
                        Err(e) => return Err(e),
                    }
                }
                Ok(Value::Null)
            }
            Stmt::Loop { body } => {
                loop {
                    self.tick()?;
                    match self.eval(*body) {
                        Ok(_) | Err(Flow::Continue) => {}
                        Err(Flow::Break) => break,
                        Err(e) => return Err(e),
                    }
                }
                Ok(Value::Null)
            }
        }
    }

    /// A W1 statement `v.m(args)` once its arguments are evaluated: the method runs on the
    /// variable in `slot` (by move when its result keeps the kind, so growth happens in place) and
    /// the result is written back when it has the variable's kind. Errors are located at the call
    /// `expr`. Shared by both tiers.
    pub(super) fn write_back(
        &mut self,
        expr: ExprId,
        slot: u32,
        name: &Rc<str>,
        args: Vec<Value>,
    ) -> R {
        let i = self.base + slot as usize;
        let current = &self.stack[i];
        let result = if same_kind_method(current, name) {
            // The only reference moves into the call: growth happens in place.
            let taken = std::mem::replace(&mut self.stack[i], Value::Null);
            let r = match taken {
                // The commonest write-back: the method's own work, without the dispatch by name.
                // The compiled tier's `Op::Push` repeats these steps on the slot in place (one
                // shared function measured 12% slower on a push loop there).
                Value::List(mut l) if args.len() == 1 && &**name == "push" => {
                    let mut args = args;
                    let x = args.pop().unwrap_or(Value::Null);
                    self.recycle_args(args);
                    methods::list::push(self, &mut l, x).map(|()| Value::List(l))
                }
                taken => methods::call_method_owned(self, taken, name, args),
            };
            match r {
                Ok(v) => {
                    if let Err(e) = self.check_depth(&v) {
                        return Err(self.locate(e, self.loc(expr)));
                    }
                    self.stack[i] = v.clone();
                    v
                }
                Err(e) => return Err(self.locate(e.into(), self.loc(expr))),
            }
        } else {
            let recv_value = current.clone();
            // A function held in a field is a call, never written back (decision 61).
            if let Some(f) = field_function(&recv_value, name) {
                return self
                    .call_value(&f, args, Vec::new())
                    .map_err(|e| self.locate(e, self.loc(expr)));
            }
            let r = match &recv_value {
                Value::Namespace(_) => self.method_call(recv_value.clone(), name, args, Vec::new()),
                _ => methods::call_method_owned(self, recv_value.clone(), name, args)
                    .map_err(Flow::from),
            };
            let v = match r.and_then(|v| self.check_depth(&v).map(|()| v)) {
                Ok(v) => v,
                Err(e) => return Err(self.locate(e, self.loc(expr))),
            };
            if same_kind(&recv_value, &v) {
                self.stack[i] = v.clone();
            }
            v
        };
        Ok(result)
    }

    /// `p = p.m(args)` where `p` is a local or a chain of fields on one (`xs = xs.push(x)`,
    /// `m = m.insert(k, v)`, `o.items = o.items.push(x)`), `m` returns the receiver's kind, and the
    /// receiver is a list, map or str: the call gets the place's value by move when nothing else
    /// holds it, so growth is amortised O(1) instead of a copy per call (voxscript.md §4.3 allows
    /// copy-on-write sharing). Evaluation order, step counts and results are those of the general
    /// path. `None` when the statement is not of this shape; the caller evaluates it normally.
    pub(super) fn assign_method_in_place(
        &mut self,
        place: &'p Place,
        value: ExprId,
    ) -> Option<Result<(), Flow>> {
        let m = self.m();
        let Expr::MethodCall {
            recv,
            name,
            args,
            named,
        } = &m.exprs[value as usize]
        else {
            return None;
        };
        let PlaceRoot::Local(slot) = place.root else {
            return None;
        };
        if !named.is_empty() {
            return None;
        }
        // The receiver must be the place itself: `Local(slot)` under the same `.field` steps.
        let mut e = *recv;
        for step in place.steps.iter().rev() {
            match (step, &m.exprs[e as usize]) {
                (PlaceStep::Field(n), Expr::Field(inner, f)) if f == n => e = *inner,
                _ => return None,
            }
        }
        if !matches!(&m.exprs[e as usize], Expr::Local(s) if *s == slot) {
            return None;
        }
        // Only when the receiver is readable and of a kind whose method keeps the kind; anything
        // else (a missing field, a namespace, a method that changes the kind) goes the general way.
        let i = self.base + slot as usize;
        let current = read_fields(&self.stack[i], &place.steps)?;
        if !matches!(current, Value::List(_) | Value::Map(_) | Value::Str(_))
            || !same_kind_method(current, name)
        {
            return None;
        }
        let recv_value = current.clone();
        Some(self.assign_method_in_place_run(value, recv_value, i, &place.steps, name, args))
    }

    pub(super) fn assign_method_in_place_run(
        &mut self,
        call: ExprId,
        recv_value: Value,
        i: usize,
        steps: &[PlaceStep],
        name: &Rc<str>,
        args: &[ExprId],
    ) -> Result<(), Flow> {
        // The steps the general path counts: the call, the local and each field read.
        for _ in 0..steps.len() + 2 {
            self.tick().map_err(|f| self.locate(f, self.loc(call)))?;
        }
        let args = self
            .eval_args(args)
            .map_err(|f| self.locate(f, self.loc(call)))?;
        if self.ctx.wants_call_site() {
            self.ctx.call_site = Some(self.prog.loc_text(self.loc(call)));
        }
        // Drop the place's own reference if it still holds the receiver (the arguments may have
        // reassigned it), so the call owns the only one and can grow it in place.
        take_if_same(&mut self.stack[i], steps, &recv_value);
        let result = methods::call_method_owned(self, recv_value, name, args)
            .map_err(Flow::from)
            .and_then(|v| self.check_depth(&v).map(|()| v))
            .map_err(|f| self.locate(f, self.loc(call)))?;
        put_fields(&mut self.stack[i], steps, result)?;
        self.check_depth(&self.stack[i])?;
        Ok(())
    }

    pub(super) fn bind_let(&mut self, pat: PatId, v: Value) -> Result<(), Flow> {
        let m = self.m();
        match &m.pats[pat as usize] {
            Pat::Wild => Ok(()),
            Pat::Bind(slot) => {
                self.stack[self.base + *slot as usize] = v;
                Ok(())
            }
            Pat::Tuple(ps) => {
                let kind = message_name(&v);
                let items = match v {
                    Value::Tuple(t) | Value::List(t) => t,
                    _ => {
                        return Err(Exc::error(format!(
                            "cannot destructure {kind} into {} names",
                            ps.len()
                        ))
                        .into())
                    }
                };
                if items.len() != ps.len() {
                    return Err(Exc::error(format!(
                        "cannot destructure a {kind} of {} elements into {} names",
                        items.len(),
                        ps.len()
                    ))
                    .into());
                }
                // A tuple nothing else holds (a function's `(v, i)` result) gives its values up.
                match Rc::try_unwrap(items) {
                    Ok(list) => {
                        for (p, item) in ps.iter().zip(list.into_vec()) {
                            self.bind_let(*p, item)?;
                        }
                    }
                    Err(shared) => {
                        for (p, item) in ps.iter().zip(shared.iter()) {
                            self.bind_let(*p, item.clone())?;
                        }
                    }
                }
                Ok(())
            }
            _ => {
                if self.match_pat(pat, &v)? {
                    Ok(())
                } else {
                    Err(Exc::error("let pattern does not match").into())
                }
            }
        }
    }
}
