//! Expressions: `eval` and its cases, method calls, namespace members and field reads, `for`
//! loops.

use std::rc::Rc;

use vox_hir::{Expr, ExprId, Literal, TemplatePart, UnOp};

use crate::catalog::{Catalog, CTOR_ROWS};
use crate::exc::Exc;
use crate::kind::message_name;
use crate::ops;
use crate::value::{char_str, CodeFn, Func, Namespace, NamespaceKind, Value};
use crate::{display, field, methods, native};

use super::interp::{Flow, Interp, GROW_EVERY, GROW_RED_ZONE, GROW_SEGMENT, R};

impl<'p> Interp<'p> {
    pub(super) fn eval(&mut self, id: ExprId) -> R {
        self.nesting += 1;
        if self.nesting.is_multiple_of(GROW_EVERY) {
            return self.eval_checking_stack(id);
        }
        let r = self.eval_inner(id);
        self.nesting -= 1;
        match r {
            Ok(v) => Ok(v),
            Err(f) => Err(self.locate(f, self.loc(id))),
        }
    }

    /// Every [`GROW_EVERY`] levels: when the host stack runs low, the evaluation goes on on a new
    /// segment. Cold and out of line, and through [`Self::eval`] again (with the count moved
    /// past the check), so that `eval_inner` keeps its one call site in the hot path.
    #[cold]
    #[inline(never)]
    pub(super) fn eval_checking_stack(&mut self, id: ExprId) -> R {
        self.nesting -= 1;
        let low = stacker::remaining_stack().is_none_or(|r| r < GROW_RED_ZONE);
        let saved = self.nesting;
        // The nested `eval` counts two more than `saved`, not a multiple of GROW_EVERY: no check
        // again for this expression (the levels below shift by one, which only moves the checks).
        self.nesting = saved + 1;
        let r = if low {
            stacker::grow(GROW_SEGMENT, || self.eval(id))
        } else {
            self.eval(id)
        };
        self.nesting = saved;
        r
    }

    pub(super) fn eval_args(&mut self, args: &[ExprId]) -> Result<Vec<Value>, Flow> {
        let mut out = Vec::with_capacity(args.len());
        for &a in args {
            out.push(self.eval(a)?);
        }
        Ok(out)
    }

    pub(super) fn eval_named(
        &mut self,
        named: &[(Rc<str>, ExprId)],
    ) -> Result<Vec<(Rc<str>, Value)>, Flow> {
        let mut out = Vec::with_capacity(named.len());
        for (n, e) in named {
            out.push((n.clone(), self.eval(*e)?));
        }
        Ok(out)
    }

    pub(super) fn eval_inner(&mut self, id: ExprId) -> R {
        self.tick()?;
        let m = self.m();
        match &m.exprs[id as usize] {
            Expr::Lit(l) => Ok(lit_value(l)),
            Expr::Template(parts) => {
                let mut s = String::new();
                for p in parts {
                    match p {
                        TemplatePart::Lit(t) => s.push_str(t),
                        TemplatePart::Var(e) => {
                            let v = self.eval(*e)?;
                            display::display_into(&mut s, &v);
                        }
                    }
                }
                Ok(Value::Str(Rc::from(s)))
            }
            Expr::Local(slot) => Ok(self.stack[self.base + *slot as usize].clone()),
            Expr::Global(g) => Ok(self.globals[self.module as usize][*g as usize].clone()),
            Expr::Builtin(b) => Ok(Value::Func(Rc::new(Func::Builtin(Catalog::get().row(*b))))),
            Expr::Namespace(ns) => Ok(namespace_value(ns)),
            Expr::NsMember { ns, name } => match crate::builtins::namespace_constant(ns, name) {
                Some(v) => Ok(v),
                None => Err(native::not_found(name).into()),
            },
            Expr::Std => Ok(Value::Namespace(Rc::new(Namespace {
                name: Rc::from("std"),
                kind: NamespaceKind::Std,
            }))),
            Expr::Ctor(c) => Ok(Value::Func(Rc::new(Func::Builtin(&CTOR_ROWS[*c as usize])))),
            Expr::NoneValue => Ok(Value::none()),
            Expr::Undefined(name) => Err(Exc::error(format!("undefined variable: {name}")).into()),
            Expr::List(items) => {
                let v = self.eval_args(items)?;
                let v = Value::list(v);
                self.check_depth(&v)?;
                Ok(v)
            }
            Expr::Tuple(items) => {
                let v = self.eval_args(items)?;
                let v = Value::tuple(v);
                self.check_depth(&v)?;
                Ok(v)
            }
            Expr::Map(entries) => {
                let mut map = crate::value::VMap::with_capacity(entries.len());
                for (k, e) in entries {
                    let v = self.eval(*e)?;
                    map.insert(k.clone(), v);
                }
                let v = Value::map(map);
                self.check_depth(&v)?;
                Ok(v)
            }
            Expr::Unary(op, e) => {
                let v = self.eval(*e)?;
                Ok(match op {
                    UnOp::Neg => ops::neg(&v)?,
                    UnOp::Not => ops::not(&v)?,
                })
            }
            Expr::Binary(op, a, b) => {
                let a = self.eval(*a)?;
                let b = self.eval(*b)?;
                if let (Value::Int(x), Value::Int(y)) = (&a, &b) {
                    // The common case, inline; overflow and a zero divisor go the general way
                    // for their exact messages.
                    match ops::int_op(*op, *x, *y) {
                        ops::IntResult::Int(n) => return Ok(Value::Int(n)),
                        ops::IntResult::Bool(t) => return Ok(Value::Bool(t)),
                        ops::IntResult::General => {}
                    }
                }
                if let (Value::Str(x), Value::Str(y)) = (&a, &b) {
                    if let Some(t) = ops::str_cmp(*op, x, y) {
                        return Ok(Value::Bool(t));
                    }
                }
                Ok(ops::binary_host(self, *op, &a, &b)?)
            }
            Expr::And(a, b) => {
                let l = self.eval(*a)?;
                if !ops::truthy_bool(&l)? {
                    return Ok(Value::Bool(false));
                }
                let r = self.eval(*b)?;
                Ok(Value::Bool(ops::truthy_bool(&r)?))
            }
            Expr::Or(a, b) => {
                let l = self.eval(*a)?;
                if ops::truthy_bool(&l)? {
                    return Ok(Value::Bool(true));
                }
                let r = self.eval(*b)?;
                Ok(Value::Bool(ops::truthy_bool(&r)?))
            }
            Expr::Pipe(x, f) => {
                let x = self.eval(*x)?;
                let f = self.eval(*f)?;
                self.call_value(&f, vec![x], Vec::new())
            }
            Expr::Call {
                callee,
                args,
                named,
            } => {
                if let Expr::Builtin(b) = &m.exprs[*callee as usize] {
                    self.tick()?;
                    let def = Catalog::get().row(*b);
                    let args = self.eval_args(args)?;
                    if self.ctx.wants_call_site() {
                        // After the arguments: a nested call must not take this call's place.
                        self.ctx.call_site = Some(self.prog.loc_text(self.loc(id)));
                    }
                    if !named.is_empty() {
                        return Err(Exc::error(format!(
                            "builtin `{}` takes no named arguments",
                            def.qualified()
                        ))
                        .into());
                    }
                    return self.call_builtin(def, args);
                }
                let f = self.eval(*callee)?;
                let args = self.eval_args(args)?;
                let named = self.eval_named(named)?;
                if self.ctx.wants_call_site() {
                    self.ctx.call_site = Some(self.prog.loc_text(self.loc(id)));
                }
                self.call_value(&f, args, named)
            }
            Expr::MethodCall {
                recv,
                name,
                args,
                named,
            } => {
                if args.is_empty() && named.is_empty() && &**name == "unwrap" {
                    if let Expr::Index(l, i) = &m.exprs[*recv as usize] {
                        if let Some(r) = self.index_unwrapped(*recv, *l, *i, id) {
                            return r;
                        }
                    }
                }
                let r = self.eval(*recv)?;
                let args = self.eval_args(args)?;
                let named = self.eval_named(named)?;
                if self.ctx.wants_call_site() {
                    self.ctx.call_site = Some(self.prog.loc_text(self.loc(id)));
                }
                self.method_call(r, name, args, named)
            }
            Expr::PopWriteBack { slot, call } => {
                let i = self.base + *slot as usize;
                if matches!(self.stack[i], Value::List(_)) {
                    self.tick()?;
                    if let Value::List(list) = &mut self.stack[i] {
                        return Ok(Rc::make_mut(list).pop().unwrap_or(Value::Null));
                    }
                }
                self.eval(*call)
            }
            Expr::Field(recv, name) => {
                let v = self.eval(*recv)?;
                self.field(&v, name)
            }
            Expr::Index(recv, idx) => {
                let r = self.eval(*recv)?;
                let i = self.eval(*idx)?;
                Ok(ops::index(&r, &i)?)
            }
            Expr::Try(e) => {
                let v = self.eval(*e)?;
                self.try_value(v)
            }
            Expr::Block(stmts) => self.block(stmts),
            Expr::If { cond, then, els } => {
                let c = self.eval(*cond)?;
                if ops::truthy_bool(&c)? {
                    self.eval(*then)
                } else if let Some(e) = els {
                    self.eval(*e)
                } else {
                    Ok(Value::Null)
                }
            }
            Expr::Match { scrutinee, arms } => {
                let v = self.eval(*scrutinee)?;
                for (pat, body) in arms {
                    if self.match_pat(*pat, &v)? {
                        return self.eval(*body);
                    }
                }
                Err(Exc::error("No match arm found").into())
            }
            Expr::For {
                iter,
                value,
                index,
                body,
            } => {
                let it = self.eval(*iter)?;
                self.for_loop(it, *value, *index, *body)
            }
            Expr::Closure { func, captures } => {
                let caps = captures
                    .iter()
                    .map(|s| self.stack[self.base + *s as usize].clone())
                    .collect();
                Ok(Value::Func(Rc::new(Func::Code(Rc::new(CodeFn {
                    name: None,
                    module: self.module,
                    func: *func,
                    captures: caps,
                })))))
            }
            Expr::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(*e)?,
                    None => Value::Null,
                };
                Err(Flow::Return(v))
            }
            Expr::Break => Err(Flow::Break),
            Expr::Continue => Err(Flow::Continue),
            Expr::Missing => Err(Exc::error("this code has syntax errors and cannot run").into()),
        }
    }

    /// `xs[i].unwrap()` (the method call `call` on the index expression `index`): the element
    /// itself, without the `Some` the index builds and the method then opens (an allocation per
    /// element read). The steps, locations, call site and messages are the general path's; `None`
    /// (declined) where `eval` would check the host stack for the index expression.
    fn index_unwrapped(&mut self, index: ExprId, l: ExprId, i: ExprId, call: ExprId) -> Option<R> {
        if (self.nesting + 1).is_multiple_of(GROW_EVERY) {
            return None;
        }
        self.nesting += 1;
        let got = self.index_get(l, i);
        self.nesting -= 1;
        let got = match got {
            Ok(g) => g,
            Err(f) => return Some(Err(self.locate(f, self.loc(index)))),
        };
        if self.ctx.wants_call_site() {
            self.ctx.call_site = Some(self.prog.loc_text(self.loc(call)));
        }
        Some(match got {
            Some(v) => self.check_depth(&v).map(|()| v),
            None => Err(crate::methods::option_result::unwrap_none().into()),
        })
    }

    /// The index expression's own step, its operands, and the element (as `eval` of it would).
    fn index_get(&mut self, l: ExprId, i: ExprId) -> Result<Option<Value>, Flow> {
        self.tick()?;
        let r = self.eval(l)?;
        let k = self.eval(i)?;
        Ok(ops::index_get(&r, &k)?)
    }

    /// `v?` once `v` is evaluated: the value inside `Ok`/`Some`; `Err`/`None` returned from the
    /// function, or, at the entry, a failure (decision 58: exit 1 with the error at the `?`,
    /// nothing on stdout, as Rust's `main` returning `Err`); anything else a type error.
    pub(super) fn try_value(&self, v: Value) -> R {
        match &v {
            Value::Res(Ok(x)) | Value::Opt(Some(x)) => Ok((**x).clone()),
            Value::Res(Err(_)) | Value::Opt(None) if self.depth == 0 => Err(Exc::error(format!(
                "`?` ended the script with {}",
                display::display(&v)
            ))
            .into()),
            Value::Res(Err(_)) | Value::Opt(None) => Err(Flow::Return(v)),
            other => Err(Exc::error(format!(
                "the `?` operator needs an Option or Result, found {}",
                message_name(other)
            ))
            .into()),
        }
    }

    /// The order a `for` loop visits a map's `len` entries: insertion order, or under
    /// `--perturb` the order `keys()` gives with the same seed.
    pub(super) fn map_order(&self, len: usize) -> Vec<usize> {
        let mut keys: Vec<usize> = (0..len).collect();
        if let Some(seed) = self.ctx.perturb {
            crate::perturb::shuffle(&mut keys, seed ^ len as u64);
        }
        keys
    }

    pub(super) fn method_call(
        &mut self,
        r: Value,
        name: &Rc<str>,
        args: Vec<Value>,
        named: Vec<(Rc<str>, Value)>,
    ) -> R {
        if let Value::Namespace(ns) = &r {
            let f = self.namespace_member(ns, name)?;
            return self.call_value(&f, args, named);
        }
        if let Some(f) = field_function(&r, name) {
            return self.call_value(&f, args, named);
        }
        if let Some(e) = method_as_function(&r, name) {
            return Err(e.into());
        }
        if !named.is_empty() {
            return Err(Exc::error(format!("method `{name}` takes no named arguments")).into());
        }
        let v = methods::call_method_owned(self, r, name, args)?;
        self.check_depth(&v)?;
        Ok(v)
    }

    pub(super) fn namespace_member(&self, ns: &Namespace, name: &str) -> R {
        match &ns.kind {
            NamespaceKind::Builtin => match Catalog::get().lookup(&ns.name, name) {
                Some(def) => Ok(Value::Func(Rc::new(Func::Builtin(def)))),
                None => match crate::builtins::namespace_constant(&ns.name, name) {
                    Some(v) => Ok(v),
                    None => Err(native::not_found(name).into()),
                },
            },
            NamespaceKind::Std => {
                if crate::builtins::NAMESPACES.contains(&name) {
                    Ok(namespace_value(name))
                } else {
                    Err(native::not_found(name).into())
                }
            }
            NamespaceKind::Module(members) => match members.get(name) {
                Some(v) => Ok(v.clone()),
                None => Err(native::not_found(name).into()),
            },
        }
    }

    pub(super) fn field(&self, v: &Value, name: &str) -> R {
        match v {
            Value::Namespace(ns) => self.namespace_member(ns, name),
            _ => match method_as_function(v, name) {
                Some(e) => Err(e.into()),
                None => Ok(field::field(v, name)?),
            },
        }
    }

    pub(super) fn for_loop(
        &mut self,
        it: Value,
        value: Option<u32>,
        index: Option<u32>,
        body: ExprId,
    ) -> R {
        let base = self.base;
        macro_rules! run_body {
            ($v:expr, $i:expr) => {{
                if let Some(s) = value {
                    self.stack[base + s as usize] = $v;
                }
                if let Some(s) = index {
                    self.stack[base + s as usize] = $i;
                }
                match self.eval(body) {
                    Ok(_) | Err(Flow::Continue) => {}
                    Err(Flow::Break) => break,
                    Err(e) => return Err(e),
                }
            }};
        }
        match it {
            Value::List(list) => {
                for (i, v) in list.iter().enumerate() {
                    run_body!(v.clone(), Value::Int(i as i64));
                }
            }
            Value::Map(map) => {
                let keys = self.map_order(map.len());
                for i in keys {
                    let Some((k, v)) = map.get_index(i) else {
                        continue;
                    };
                    run_body!(Value::Str(k.clone()), v.clone());
                }
            }
            Value::Str(s) => {
                for (i, c) in s.chars().enumerate() {
                    run_body!(Value::Str(char_str(c)), Value::Int(i as i64));
                }
            }
            other => {
                return Err(
                    Exc::error(format!("cannot iterate over {}", message_name(&other))).into(),
                )
            }
        }
        Ok(Value::Null)
    }
}

pub(super) fn lit_value(l: &Literal) -> Value {
    match l {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(i) => Value::Int(*i),
        Literal::Float(f) => Value::Float(*f),
        Literal::Dec(d) => Value::Dec(*d),
        Literal::Str(s) => Value::Str(s.clone()),
    }
}

/// Methods whose result always has the receiver's kind: a W1 statement may hand them the
/// variable's value by move, so growth happens in place.
pub(super) fn same_kind_method(recv: &Value, name: &str) -> bool {
    match recv {
        Value::List(_) => matches!(
            name,
            "push"
                | "extend"
                | "remove"
                | "remove_at"
                | "reverse"
                | "reversed"
                | "sorted"
                | "sort_by_key"
                | "sorted_by_key"
                | "sort_by"
                | "sorted_by"
                | "map"
                | "filter"
                | "slice_list"
        ),
        Value::Map(_) => matches!(name, "insert" | "set" | "remove" | "delete" | "update"),
        Value::Str(_) => matches!(
            name,
            "trim"
                | "trim_start"
                | "trim_end"
                | "to_upper"
                | "to_uppercase"
                | "to_lower"
                | "to_lowercase"
                | "replace"
        ),
        _ => false,
    }
}

pub(super) fn same_kind(a: &Value, b: &Value) -> bool {
    matches!(
        (a, b),
        (Value::List(_), Value::List(_))
            | (Value::Map(_), Value::Map(_))
            | (Value::Str(_), Value::Str(_))
    )
}

/// ``str.trim is not a function; use the method form `x.trim()` `` (voxscript.md §4.13): a
/// method named through a global conversion builtin (`str`, `int`, `float`, …), read or called.
/// The function `o.name(args)` calls on a map or record `o` whose key `name` holds one and which
/// has no method of that name (decision 61: methods win; `(o.f)(args)` works too). The key is
/// looked up first: it is rarely there, and the method list is longer.
pub(super) fn field_function(o: &Value, name: &str) -> Option<Value> {
    let Value::Map(m) = o else { return None };
    // A map method's name first: a few comparisons, where the lookup hashes the name.
    if methods::is_method_of("map", name) {
        return None;
    }
    match m.get(name) {
        Some(f @ Value::Func(_)) => Some(f.clone()),
        _ => None,
    }
}

pub(super) fn method_as_function(v: &Value, name: &str) -> Option<Exc> {
    let Value::Func(f) = v else { return None };
    match &**f {
        Func::Builtin(def) if def.ns.is_empty() && methods::is_method_of(def.name, name) => {
            Some(Exc::error(format!(
                "{}.{name} is not a function; use the method form `x.{name}()`",
                def.name
            )))
        }
        _ => None,
    }
}

pub(super) fn namespace_value(ns: &str) -> Value {
    Value::Namespace(Rc::new(Namespace {
        name: Rc::from(ns),
        kind: NamespaceKind::Builtin,
    }))
}
