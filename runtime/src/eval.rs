//! The evaluator: walks the resolved form (vox-hir). Locals live in one value stack, framed per
//! call; every expression and statement evaluation counts one step (decisions.md 22).

use std::rc::Rc;

use vox_hir::{
    Cap, Ctor, Expr, ExprId, Literal, Main, Module, Pat, PatId, Place, PlaceRoot, PlaceStep, Stmt,
    StmtId, TemplatePart, UnOp,
};

use crate::catalog::{Catalog, CTOR_ROWS};
use crate::context::RunContext;
use crate::exc::{CeilingKind, Exc, Loc, Res};
use crate::kind::message_name;
use crate::ops::{self, BinOp};
use crate::program::Program;
use crate::value::{Args, BuiltinDef, CodeFn, Func, Host, Namespace, NamespaceKind, Value};
use crate::{display, equality, field, methods, native};

/// Non-local control flow: errors and the three jumps.
pub enum Flow {
    Exc(Box<Exc>),
    Return(Value),
    Break,
    Continue,
}

impl From<Exc> for Flow {
    fn from(e: Exc) -> Flow {
        Flow::Exc(Box::new(e))
    }
}

type R = Result<Value, Flow>;

/// Below this much host stack, a call is refused as a depth ceiling rather than risking overflow.
const STACK_RESERVE: usize = 4 * 1024 * 1024;
/// Expression nesting inside one function body (a flat chain of 300,000 `+` is that deep) grows
/// the host stack onto the heap: checked every `GROW_EVERY` levels, when less than `GROW_RED_ZONE`
/// is left, onto a new segment of `GROW_SEGMENT` (mapped lazily). The red zone exceeds the call
/// guard's reserve, so a call right after a growth never trips it. Calls do not accumulate
/// nesting (each body starts at 0): deep recursion still meets the host stack guard (decision 60).
const GROW_EVERY: u32 = 32;
const GROW_RED_ZONE: usize = 8 * 1024 * 1024;
const GROW_SEGMENT: usize = 64 * 1024 * 1024;
/// How often (in steps) the memory flag and the wall clock are checked.
const CHECK_PERIOD: u64 = 1024;

pub struct Interp<'p> {
    prog: &'p Program,
    globals: Vec<Vec<Value>>,
    pub ctx: RunContext,
    stack: Vec<Value>,
    base: usize,
    module: u32,
    pub steps: u64,
    max_steps: u64,
    depth: u64,
    max_depth: u64,
    next_check: u64,
    /// Expression nesting in the current function body (see [`GROW_EVERY`]).
    nesting: u32,
}

fn lit_value(l: &Literal) -> Value {
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
fn same_kind_method(recv: &Value, name: &str) -> bool {
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

fn same_kind(a: &Value, b: &Value) -> bool {
    matches!(
        (a, b),
        (Value::List(_), Value::List(_))
            | (Value::Map(_), Value::Map(_))
            | (Value::Str(_), Value::Str(_))
    )
}

impl<'p> Interp<'p> {
    pub fn new(prog: &'p Program, ctx: RunContext) -> Interp<'p> {
        let globals = crate::program::link(prog);
        let max_steps = ctx.limits.max_steps.unwrap_or(u64::MAX);
        let max_depth = ctx.limits.max_depth.unwrap_or(u64::MAX);
        Interp {
            prog,
            globals,
            ctx,
            stack: Vec::with_capacity(1024),
            base: 0,
            module: prog.entry(),
            steps: 0,
            max_steps,
            depth: 0,
            max_depth,
            next_check: CHECK_PERIOD,
            nesting: 0,
        }
    }

    /// decisions.md 12: building a value nested deeper than `--max-depth` is exit 78 (the stored
    /// depth is O(1) to read; see `value::depth`).
    fn check_depth(&self, v: &Value) -> Result<(), Flow> {
        if u64::from(crate::value::depth(v)) > self.max_depth {
            return Err(Exc::Ceiling {
                kind: CeilingKind::Depth,
                limit: self.max_depth,
                loc: None,
            }
            .into());
        }
        Ok(())
    }

    fn m(&self) -> &'p Module {
        &self.prog.files[self.module as usize].hir
    }

    fn loc(&self, e: ExprId) -> Loc {
        Loc {
            file: self.module,
            range: self.m().expr_ranges[e as usize],
        }
    }

    /// Fills in the location of an error that has none yet.
    fn locate(&self, mut f: Flow, loc: Loc) -> Flow {
        if let Flow::Exc(e) = &mut f {
            match &mut **e {
                Exc::Error { loc: l, .. }
                | Exc::Panic { loc: l, .. }
                | Exc::Denied { loc: l, .. }
                | Exc::Quota { loc: l, .. }
                | Exc::Ceiling { loc: l, .. }
                | Exc::Unconfinable { loc: l, .. }
                    if l.is_none() =>
                {
                    *l = Some(loc);
                }
                _ => {}
            }
        }
        f
    }

    #[inline(always)]
    fn tick(&mut self) -> Result<(), Flow> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(Exc::Ceiling {
                kind: CeilingKind::Steps,
                limit: self.max_steps,
                loc: None,
            }
            .into());
        }
        if self.steps >= self.next_check {
            self.next_check = self.steps + CHECK_PERIOD;
            self.periodic_checks()?;
        }
        Ok(())
    }

    fn periodic_checks(&mut self) -> Result<(), Flow> {
        if crate::context::interrupted() {
            return Err(Exc::Interrupted.into());
        }
        self.ctx.flush_if_stale();
        if crate::alloc::over_limit() {
            return Err(crate::alloc::ceiling().into());
        }
        if let Some(deadline) = self.ctx.deadline {
            if std::time::Instant::now() >= deadline {
                let limit = self.ctx.limits.timeout_secs.unwrap_or(0);
                return Err(Exc::Ceiling {
                    kind: CeilingKind::Timeout,
                    limit,
                    loc: None,
                }
                .into());
            }
        }
        Ok(())
    }

    // ---- entry points -------------------------------------------------------------------------

    /// Runs `main` (explicit or synthetic) and prints its result as voxscript.md §4.12 says.
    pub fn run_main(&mut self) -> Result<(), Exc> {
        let flow = match self.m().main {
            None => {
                return Err(Exc::error(
                    "nothing to run: add fn main() or top-level statements",
                ))
            }
            // Both forms run at depth 0 (decision 60): `fn main`'s body is the entry's frame, as
            // the top-level statements are, so the same recursion has the same budget in both.
            Some(Main::Explicit(id)) => {
                let func = &self.m().functions[id as usize];
                if func.params.is_empty() {
                    self.stack.resize(func.n_slots as usize, Value::Null);
                    self.base = 0;
                    match self.eval(func.body) {
                        Ok(v) | Err(Flow::Return(v)) => self.print_result(&v),
                        Err(e) => Err(e),
                    }
                } else {
                    // The call reports the arity error.
                    let f = self.globals_fn(self.module, id);
                    self.call_value(&f, Vec::new(), Vec::new()).map(|_| ())
                }
            }
            Some(Main::Synthetic(id)) => {
                let func = &self.m().functions[id as usize];
                self.stack.resize(func.n_slots as usize, Value::Null);
                self.base = 0;
                match self.eval(func.body) {
                    Ok(_) => Ok(()),
                    Err(Flow::Return(v)) => self.print_result(&v),
                    Err(e) => Err(e),
                }
            }
        };
        match flow {
            Ok(()) => Ok(()),
            Err(Flow::Exc(e)) => Err(*e),
            Err(_) => Ok(()),
        }
    }

    /// Calls one `@test` function of the entry file by name.
    pub fn run_test(&mut self, name: &str) -> Result<(), Exc> {
        let m = self.m();
        let Some(&id) = m
            .tests
            .iter()
            .find(|&&id| m.functions[id as usize].name.as_deref() == Some(name))
        else {
            return Err(Exc::error(format!("no test named `{name}`")));
        };
        let f = self.globals_fn(self.module, id);
        match self.call_value(&f, Vec::new(), Vec::new()) {
            Ok(_) | Err(Flow::Return(_)) | Err(Flow::Break) | Err(Flow::Continue) => Ok(()),
            Err(Flow::Exc(e)) => Err(*e),
        }
    }

    fn globals_fn(&self, module: u32, id: u32) -> Value {
        let f = &self.prog.files[module as usize].hir.functions[id as usize];
        Value::Func(Rc::new(Func::Code(Rc::new(CodeFn {
            name: f.name.clone(),
            module,
            func: id,
            captures: Vec::new(),
        }))))
    }

    /// Prints the entry's result unless it is `null` or `None` (decision 59).
    fn print_result(&mut self, v: &Value) -> Result<(), Flow> {
        if !matches!(v, Value::Null | Value::Opt(None)) {
            let mut s = display::display(v);
            s.push('\n');
            self.ctx.write_stdout(&s)?;
        }
        Ok(())
    }

    // ---- calls --------------------------------------------------------------------------------

    fn call_builtin(&mut self, def: &'static BuiltinDef, args: Vec<Value>) -> R {
        use vox_caps::Need;
        let need = match def.cap {
            Cap::Net => Some(Need::Net),
            Cap::Process => Some(Need::Process),
            Cap::EnvRo => Some(Need::EnvRo),
            Cap::EnvRw => Some(Need::EnvRw),
            Cap::Secrets => Some(Need::Secrets),
            Cap::Time => Some(Need::Time),
            Cap::Random => Some(Need::Random),
            Cap::Agentos => Some(Need::Agentos),
            // Filesystem rows check each path through `RunContext::fs_path`.
            Cap::None | Cap::FsRead | Cap::FsWrite => None,
        };
        let what = def.qualified();
        if let Some(need) = need {
            self.ctx.gate(&what, need)?;
        }
        let mut args = Args::new(what, args);
        let v = (def.f)(self, &mut args)?;
        self.check_depth(&v)?;
        Ok(v)
    }

    pub fn call_value(&mut self, f: &Value, args: Vec<Value>, named: Vec<(Rc<str>, Value)>) -> R {
        let Value::Func(func) = f else {
            return Err(
                Exc::error(format!("cannot call a value of type {}", message_name(f))).into(),
            );
        };
        match &**func {
            Func::Builtin(def) => {
                if !named.is_empty() {
                    return Err(Exc::error(format!(
                        "builtin `{}` takes no named arguments",
                        def.qualified()
                    ))
                    .into());
                }
                self.call_builtin(def, args)
            }
            Func::Ctor { variant, fields } => {
                if !named.is_empty() {
                    return Err(Exc::error(format!(
                        "constructor `{variant}` takes no named arguments"
                    ))
                    .into());
                }
                if args.len() != fields.len() {
                    let noun = if fields.len() == 1 {
                        "argument"
                    } else {
                        "arguments"
                    };
                    return Err(Exc::error(format!(
                        "constructor `{variant}` expects {} {noun}, got {}",
                        fields.len(),
                        args.len()
                    ))
                    .into());
                }
                let v = Value::tagged(variant.clone(), fields.clone(), args);
                self.check_depth(&v)?;
                Ok(v)
            }
            Func::Code(code) => self.call_code(code, args, named),
            Func::JsonCodec {
                module,
                ty,
                to_json,
                name,
            } => {
                if args.len() != 1 || !named.is_empty() {
                    return Err(Exc::error(format!(
                        "function `{name}` expects 1 argument, got {}",
                        args.len()
                    ))
                    .into());
                }
                let types = &self.prog.files[*module as usize].hir.types;
                let def = &types[*ty as usize];
                let arg = args.into_iter().next().unwrap_or(Value::Null);
                let v = if *to_json {
                    crate::json_as::to_json(types, def, &arg)?
                } else {
                    crate::json_as::from_json(types, def, &arg)
                };
                self.check_depth(&v)?;
                Ok(v)
            }
        }
    }

    fn arity_error(&self, code: &CodeFn, given: usize) -> Flow {
        let func = &self.prog.files[code.module as usize].hir.functions[code.func as usize];
        let n = func.params.len();
        let noun = if n == 1 { "argument" } else { "arguments" };
        let name = match &func.name {
            Some(f) => format!("`{f}`"),
            None => "`<closure>`".to_string(),
        };
        Flow::from(Exc::error(format!(
            "function {name} expects {n} {noun}, got {given}"
        )))
    }

    fn call_code(&mut self, code: &CodeFn, args: Vec<Value>, named: Vec<(Rc<str>, Value)>) -> R {
        if named.is_empty() {
            return self.call_code_positional(code, args.into_iter());
        }
        let func = &self.prog.files[code.module as usize].hir.functions[code.func as usize];
        let n_params = func.params.len();
        let positional = args.len();
        if positional > n_params {
            return Err(self.arity_error(code, positional + named.len()));
        }
        let mut slots: Vec<Option<Value>> = args.into_iter().map(Some).collect();
        slots.resize(n_params, None);
        for (name, v) in named {
            let Some(i) = func.params.iter().position(|p| *p == name) else {
                let fname = func.name.as_deref().unwrap_or("<closure>");
                return Err(
                    Exc::error(format!("function `{fname}` has no parameter `{name}`")).into(),
                );
            };
            if i < positional || slots[i].is_some() {
                return Err(Exc::error(format!("parameter `{name}` given twice")).into());
            }
            slots[i] = Some(v);
        }
        if slots.iter().any(Option::is_none) {
            let given = slots.iter().filter(|s| s.is_some()).count();
            return Err(self.arity_error(code, given));
        }
        let args: Vec<Value> = slots.into_iter().flatten().collect();
        self.call_code_positional(code, args.into_iter())
    }

    /// Calls a user function or closure with positional arguments (no allocation for them).
    fn call_code_positional(
        &mut self,
        code: &CodeFn,
        args: impl ExactSizeIterator<Item = Value>,
    ) -> R {
        let func = &self.prog.files[code.module as usize].hir.functions[code.func as usize];
        if args.len() != func.params.len() {
            return Err(self.arity_error(code, args.len()));
        }
        self.depth += 1;
        // The host stack is probed every 16 levels; the reserve covers the frames in between.
        let stack_low = self.depth.is_multiple_of(16)
            && stacker::remaining_stack().is_some_and(|r| r < STACK_RESERVE);
        if self.depth > self.max_depth || stack_low {
            self.depth -= 1;
            // The host stack's guard names no flag value the user did not give (decision 60).
            let (kind, limit) = if self.depth >= self.max_depth {
                (CeilingKind::Depth, self.max_depth)
            } else {
                (CeilingKind::HostStack, self.depth + 1)
            };
            return Err(Exc::Ceiling {
                kind,
                limit,
                loc: None,
            }
            .into());
        }
        let base = self.stack.len();
        self.stack.extend(args);
        self.stack.resize(base + func.n_slots as usize, Value::Null);
        for (slot, v) in func.capture_slots.iter().zip(code.captures.iter()) {
            self.stack[base + *slot as usize] = v.clone();
        }
        let saved = (self.base, self.module, self.nesting);
        self.base = base;
        self.module = code.module;
        self.nesting = 0;
        let r = self.eval(func.body);
        self.base = saved.0;
        self.module = saved.1;
        self.nesting = saved.2;
        self.stack.truncate(base);
        self.depth -= 1;
        match r {
            Ok(v) | Err(Flow::Return(v)) => Ok(v),
            Err(Flow::Break) | Err(Flow::Continue) => Ok(Value::Null),
            Err(e) => Err(e),
        }
    }

    // ---- expressions --------------------------------------------------------------------------

    fn eval(&mut self, id: ExprId) -> R {
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
    fn eval_checking_stack(&mut self, id: ExprId) -> R {
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

    fn eval_args(&mut self, args: &[ExprId]) -> Result<Vec<Value>, Flow> {
        let mut out = Vec::with_capacity(args.len());
        for &a in args {
            out.push(self.eval(a)?);
        }
        Ok(out)
    }

    fn eval_named(&mut self, named: &[(Rc<str>, ExprId)]) -> Result<Vec<(Rc<str>, Value)>, Flow> {
        let mut out = Vec::with_capacity(named.len());
        for (n, e) in named {
            out.push((n.clone(), self.eval(*e)?));
        }
        Ok(out)
    }

    fn eval_inner(&mut self, id: ExprId) -> R {
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
                    // The common case, inline; overflow and division go the general way for
                    // their exact messages.
                    let (x, y) = (*x, *y);
                    let fast = match op {
                        BinOp::Add => x.checked_add(y).map(Value::Int),
                        BinOp::Sub => x.checked_sub(y).map(Value::Int),
                        BinOp::Mul => x.checked_mul(y).map(Value::Int),
                        BinOp::Lt => Some(Value::Bool(x < y)),
                        BinOp::Le => Some(Value::Bool(x <= y)),
                        BinOp::Gt => Some(Value::Bool(x > y)),
                        BinOp::Ge => Some(Value::Bool(x >= y)),
                        BinOp::Eq => Some(Value::Bool(x == y)),
                        BinOp::Ne => Some(Value::Bool(x != y)),
                        BinOp::Div | BinOp::Mod => None,
                    };
                    if let Some(v) = fast {
                        return Ok(v);
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
                    if self.ctx.audit.is_some() {
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
                if self.ctx.audit.is_some() {
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
                let r = self.eval(*recv)?;
                let args = self.eval_args(args)?;
                let named = self.eval_named(named)?;
                if self.ctx.audit.is_some() {
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
                match &v {
                    Value::Res(Ok(x)) | Value::Opt(Some(x)) => Ok((**x).clone()),
                    // A `?` that ends the entry is a failure, as Rust's `main` returning `Err` is
                    // (decision 58): exit 1 with the error at the `?`, nothing on stdout.
                    Value::Res(Err(_)) | Value::Opt(None) if self.depth == 0 => Err(Exc::error(
                        format!("`?` ended the script with {}", display::display(&v)),
                    )
                    .into()),
                    Value::Res(Err(_)) | Value::Opt(None) => Err(Flow::Return(v)),
                    other => Err(Exc::error(format!(
                        "the `?` operator needs an Option or Result, found {}",
                        message_name(other)
                    ))
                    .into()),
                }
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

    fn method_call(
        &mut self,
        r: Value,
        name: &str,
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

    fn namespace_member(&self, ns: &Namespace, name: &str) -> R {
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

    fn field(&mut self, v: &Value, name: &str) -> R {
        match v {
            Value::Namespace(ns) => self.namespace_member(ns, name),
            _ => match method_as_function(v, name) {
                Some(e) => Err(e.into()),
                None => Ok(field::field(v, name)?),
            },
        }
    }

    fn for_loop(&mut self, it: Value, value: Option<u32>, index: Option<u32>, body: ExprId) -> R {
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
                let mut keys: Vec<usize> = (0..map.len()).collect();
                if let Some(seed) = self.ctx.perturb {
                    // The same order as `keys()` under the same seed.
                    let n = keys.len() as u64;
                    crate::perturb::shuffle(&mut keys, seed ^ n);
                }
                for i in keys {
                    let Some((k, v)) = map.get_index(i) else {
                        continue;
                    };
                    run_body!(Value::Str(k.clone()), v.clone());
                }
            }
            Value::Str(s) => {
                for (i, c) in s.chars().enumerate() {
                    let mut buf = [0u8; 4];
                    run_body!(
                        Value::Str(Rc::from(&*c.encode_utf8(&mut buf))),
                        Value::Int(i as i64)
                    );
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

    fn match_pat(&mut self, pat: PatId, v: &Value) -> Result<bool, Flow> {
        let m = self.m();
        Ok(match &m.pats[pat as usize] {
            Pat::Wild => true,
            Pat::Bind(slot) => {
                self.stack[self.base + *slot as usize] = v.clone();
                true
            }
            Pat::Lit(l) => equality::equals(v, &lit_value(l)),
            Pat::Tuple(ps) => {
                let items = match v {
                    Value::Tuple(t) => t.clone(),
                    Value::List(l) => l.clone(),
                    _ => return Ok(false),
                };
                if items.len() != ps.len() {
                    return Ok(false);
                }
                for (p, item) in ps.iter().zip(items.iter()) {
                    if !self.match_pat(*p, item)? {
                        return Ok(false);
                    }
                }
                true
            }
            Pat::Builtin(ctor, sub) => {
                let inner = match (ctor, v) {
                    (Ctor::Some, Value::Opt(Some(x))) => x.clone(),
                    (Ctor::Ok, Value::Res(Ok(x))) => x.clone(),
                    (Ctor::Err, Value::Res(Err(x))) => x.clone(),
                    _ => return Ok(false),
                };
                match sub {
                    Some(p) => self.match_pat(*p, &inner)?,
                    None => true,
                }
            }
            Pat::NoneCtor => matches!(v, Value::Opt(None) | Value::Null),
            Pat::Variant { name, fields } => {
                let Value::Tagged(t) = v else {
                    return Ok(false);
                };
                if t.variant != *name {
                    return Ok(false);
                }
                let subs: &[PatId] = fields.as_deref().unwrap_or(&[]);
                if subs.len() != t.values.len() {
                    return Ok(false);
                }
                let t = t.clone();
                for (p, item) in subs.iter().zip(t.values.iter()) {
                    if !self.match_pat(*p, item)? {
                        return Ok(false);
                    }
                }
                true
            }
            Pat::UnknownCtor(name) => {
                return Err(Exc::error(format!("unknown constructor `{name}` in pattern")).into())
            }
        })
    }

    // ---- statements ---------------------------------------------------------------------------

    fn block(&mut self, stmts: &[StmtId]) -> R {
        let mut last = Value::Null;
        for &s in stmts {
            last = self.stmt(s)?;
        }
        Ok(last)
    }

    fn stmt(&mut self, id: StmtId) -> R {
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

    fn stmt_inner(&mut self, id: StmtId) -> R {
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
                    let i = self.base + *slot as usize;
                    let current = &self.stack[i];
                    let result = if same_kind_method(current, name) {
                        // The only reference moves into the call: growth happens in place.
                        let taken = std::mem::replace(&mut self.stack[i], Value::Null);
                        let r = methods::call_method_owned(self, taken, name, args);
                        match r {
                            Ok(v) => {
                                if let Err(e) = self.check_depth(&v) {
                                    return Err(self.locate(e, self.loc(*expr)));
                                }
                                self.stack[i] = v.clone();
                                v
                            }
                            Err(e) => return Err(self.locate(e.into(), self.loc(*expr))),
                        }
                    } else {
                        let recv_value = current.clone();
                        // A function held in a field is a call, never written back (decision 61).
                        if let Some(f) = field_function(&recv_value, name) {
                            return self
                                .call_value(&f, args, Vec::new())
                                .map_err(|e| self.locate(e, self.loc(*expr)));
                        }
                        let r = match &recv_value {
                            Value::Namespace(_) => {
                                self.method_call(recv_value.clone(), name, args, Vec::new())
                            }
                            _ => methods::call_method_owned(self, recv_value.clone(), name, args)
                                .map_err(Flow::from),
                        };
                        let v = match r.and_then(|v| self.check_depth(&v).map(|()| v)) {
                            Ok(v) => v,
                            Err(e) => return Err(self.locate(e, self.loc(*expr))),
                        };
                        if same_kind(&recv_value, &v) {
                            self.stack[i] = v.clone();
                        }
                        v
                    };
                    Ok(result)
                }
                _ => self.eval(*expr),
            },
            Stmt::Assign { place, op, value } => {
                if op.is_none() {
                    if let Some(done) = self.assign_method_in_place(place, *value) {
                        return done.map(|()| Value::Null);
                    }
                }
                // Index expressions of the place are evaluated once, before the value.
                let mut steps: Vec<Step> = Vec::with_capacity(place.steps.len());
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

    /// `p = p.m(args)` where `p` is a local or a chain of fields on one (`xs = xs.push(x)`,
    /// `m = m.insert(k, v)`, `o.items = o.items.push(x)`), `m` returns the receiver's kind, and the
    /// receiver is a list, map or str: the call gets the place's value by move when nothing else
    /// holds it, so growth is amortised O(1) instead of a copy per call (voxscript.md §4.3 allows
    /// copy-on-write sharing). Evaluation order, step counts and results are those of the general
    /// path. `None` when the statement is not of this shape; the caller evaluates it normally.
    fn assign_method_in_place(
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

    fn assign_method_in_place_run(
        &mut self,
        call: ExprId,
        recv_value: Value,
        i: usize,
        steps: &[PlaceStep],
        name: &str,
        args: &[ExprId],
    ) -> Result<(), Flow> {
        // The steps the general path counts: the call, the local and each field read.
        for _ in 0..steps.len() + 2 {
            self.tick().map_err(|f| self.locate(f, self.loc(call)))?;
        }
        let args = self
            .eval_args(args)
            .map_err(|f| self.locate(f, self.loc(call)))?;
        if self.ctx.audit.is_some() {
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

    fn bind_let(&mut self, pat: PatId, v: Value) -> Result<(), Flow> {
        let m = self.m();
        match &m.pats[pat as usize] {
            Pat::Wild => Ok(()),
            Pat::Bind(slot) => {
                self.stack[self.base + *slot as usize] = v;
                Ok(())
            }
            Pat::Tuple(ps) => {
                let items = match &v {
                    Value::Tuple(t) => t.clone(),
                    Value::List(l) => l.clone(),
                    other => {
                        return Err(Exc::error(format!(
                            "cannot destructure {} into {} names",
                            message_name(other),
                            ps.len()
                        ))
                        .into())
                    }
                };
                if items.len() != ps.len() {
                    return Err(Exc::error(format!(
                        "cannot destructure a {} of {} elements into {} names",
                        message_name(&v),
                        items.len(),
                        ps.len()
                    ))
                    .into());
                }
                for (p, item) in ps.iter().zip(items.iter()) {
                    self.bind_let(*p, item.clone())?;
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

enum Step {
    Field(Rc<str>),
    Index(Value),
}

/// The value under `root.f1.f2…` (field steps only) by reference: maps by key, tagged values by
/// field. `None` if a step is missing, is an index, or meets a value without fields.
fn read_fields<'v>(root: &'v Value, steps: &[PlaceStep]) -> Option<&'v Value> {
    let mut cur = root;
    for s in steps {
        let PlaceStep::Field(n) = s else { return None };
        cur = match cur {
            Value::Map(m) => m.get(&**n)?,
            Value::Tagged(t) => {
                let i = t.fields.iter().position(|f| f == n)?;
                t.values.get(i)?
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// Whether two values are the same shared container (or str) allocation.
fn same_allocation(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => Rc::ptr_eq(x, y),
        (Value::Map(x), Value::Map(y)) => Rc::ptr_eq(x, y),
        (Value::Str(x), Value::Str(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

/// Runs `f` on the value under `root.f1.f2…` in place, making the containers on the path unique
/// first (copy-on-write, as assigning into the place does anyway). `None` if a step is missing.
fn with_field_mut<R>(
    root: &mut Value,
    steps: &[PlaceStep],
    f: impl FnOnce(&mut Value) -> R,
) -> Option<R> {
    let Some((first, rest)) = steps.split_first() else {
        return Some(f(root));
    };
    let PlaceStep::Field(n) = first else {
        return None;
    };
    match root {
        Value::Map(m) => Rc::make_mut(m)
            .update(n, |v| with_field_mut(v, rest, f))
            .flatten(),
        Value::Tagged(t) => {
            let i = t.fields.iter().position(|x| x == n)?;
            Rc::make_mut(t)
                .values
                .update(i, |v| with_field_mut(v, rest, f))
                .flatten()
        }
        _ => None,
    }
}

/// Replaces the value at `root.f1.f2…` with null when it is the same allocation as `held`, so
/// `held` becomes its only owner. (Containers on the path are made unique, which storing the
/// result right after does anyway.)
fn take_if_same(root: &mut Value, steps: &[PlaceStep], held: &Value) {
    with_field_mut(root, steps, |v| {
        if same_allocation(v, held) {
            *v = Value::Null;
        }
    });
}

/// Stores `v` at `root.f1.f2…`, which exists (it was read before the call).
fn put_fields(root: &mut Value, steps: &[PlaceStep], v: Value) -> Res<()> {
    let mut v = Some(v);
    match with_field_mut(root, steps, |slot| *slot = v.take().unwrap_or(Value::Null)) {
        Some(()) => Ok(()),
        None => Err(Exc::error(match steps.last() {
            Some(PlaceStep::Field(n)) => format!("Field {n} not found on object"),
            _ => "cannot assign into this place".to_string(),
        })),
    }
}

fn read_path(root: &Value, steps: &[Step]) -> Res<Value> {
    let mut cur = root.clone();
    for s in steps {
        cur = match s {
            Step::Field(n) => field::field(&cur, n)?,
            Step::Index(i) => ops::index(&cur, i)?,
        };
    }
    Ok(cur)
}

/// Assigns into a place: `xs[0] = 9`, `m["k"] = v`, `cfg.port = 80`, `rows[2].name = "x"`. Each
/// container on the path raises its stored depth to cover what it now holds (`List::update`).
fn write_path(target: &mut Value, steps: &[Step], v: Value) -> Res<()> {
    let Some((first, rest)) = steps.split_first() else {
        *target = v;
        return Ok(());
    };
    if rest.is_empty() {
        return match first {
            Step::Field(n) => ops::set_field(target, n, v),
            Step::Index(i) => ops::set_index(target, i, v),
        };
    }
    // One frame per place step; the stack grows if a place is absurdly long.
    let inner =
        |x: &mut Value| stacker::maybe_grow(64 * 1024, 1024 * 1024, || write_path(x, rest, v));
    let done = match (first, target) {
        (Step::Field(n), Value::Map(m)) => match Rc::make_mut(m).update(n, inner) {
            Some(r) => Some(r),
            None => return Err(Exc::error(format!("Field {n} not found on object"))),
        },
        (Step::Field(n), Value::Tagged(t)) => {
            let t = Rc::make_mut(t);
            match t.fields.iter().position(|f| **f == **n) {
                Some(i) => t.values.update(i, inner),
                None => return Err(Exc::error(format!("Field {n} not found on object"))),
            }
        }
        (Step::Index(Value::Int(i)), Value::List(l)) => {
            if *i < 0 {
                None
            } else {
                Rc::make_mut(l).update(*i as usize, inner)
            }
        }
        (Step::Index(Value::Str(k)), Value::Map(m)) => Rc::make_mut(m).update(k, inner),
        (Step::Index(_), Value::List(_)) => {
            return Err(Exc::error("type error: expected int, found str"))
        }
        (_, other) => {
            return Err(Exc::error(format!(
                "cannot assign into {}",
                message_name(other)
            )))
        }
    };
    // An out-of-range index or missing key: a silent no-op, as for `xs[i] = v`.
    done.unwrap_or(Ok(()))
}

/// ``str.trim is not a function; use the method form `x.trim()` `` (voxscript.md §4.13): a
/// method named through a global conversion builtin (`str`, `int`, `float`, …), read or called.
/// The function `o.name(args)` calls on a map or record `o` whose key `name` holds one and which
/// has no method of that name (decision 61: methods win; `(o.f)(args)` works too). The key is
/// looked up first: it is rarely there, and the method list is longer.
fn field_function(o: &Value, name: &str) -> Option<Value> {
    let Value::Map(m) = o else { return None };
    match m.get(name) {
        Some(f @ Value::Func(_)) if !methods::is_method_of("map", name) => Some(f.clone()),
        _ => None,
    }
}

fn method_as_function(v: &Value, name: &str) -> Option<Exc> {
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

fn namespace_value(ns: &str) -> Value {
    Value::Namespace(Rc::new(Namespace {
        name: Rc::from(ns),
        kind: NamespaceKind::Builtin,
    }))
}

fn flow_to_res(r: R) -> Res<Value> {
    match r {
        Ok(v) | Err(Flow::Return(v)) => Ok(v),
        Err(Flow::Exc(e)) => Err(*e),
        Err(_) => Ok(Value::Null),
    }
}

impl Host for Interp<'_> {
    // A call a builtin makes (`map`, `sorted_by`, `fold`, …) costs one step, as a direct call's
    // call node does, plus the callee's body; there is no callee expression (decision 56).
    fn call(&mut self, f: &Value, args: Vec<Value>) -> Res<Value> {
        flow_to_res(self.tick().map(|()| Value::Null))?;
        flow_to_res(self.call_value(f, args, Vec::new()))
    }
    fn call1(&mut self, f: &Value, a: Value) -> Res<Value> {
        flow_to_res(self.tick().map(|()| Value::Null))?;
        if let Value::Func(func) = f {
            if let Func::Code(code) = &**func {
                return flow_to_res(self.call_code_positional(code, std::iter::once(a)));
            }
        }
        flow_to_res(self.call_value(f, vec![a], Vec::new()))
    }
    fn call2(&mut self, f: &Value, a: Value, b: Value) -> Res<Value> {
        flow_to_res(self.tick().map(|()| Value::Null))?;
        if let Value::Func(func) = f {
            if let Func::Code(code) = &**func {
                return flow_to_res(self.call_code_positional(code, [a, b].into_iter()));
            }
        }
        flow_to_res(self.call_value(f, vec![a, b], Vec::new()))
    }
    fn next_random(&mut self) -> u64 {
        self.ctx.next_random()
    }
    fn write_stdout(&mut self, text: &str) -> Res<()> {
        self.ctx.write_stdout(text)
    }
    fn write_stderr(&mut self, text: &str) -> Res<()> {
        self.ctx.write_stderr(text)
    }
    fn reserve(&mut self, bytes: usize) -> Res<()> {
        crate::alloc::reserve(bytes)
    }
    fn ctx(&mut self) -> Option<&mut RunContext> {
        Some(&mut self.ctx)
    }
}
