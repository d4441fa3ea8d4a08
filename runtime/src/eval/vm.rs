//! The compiled tier's executor: runs a [`Chunk`] in the current frame (registers are the frame's
//! slots on the value stack, then its temporaries). Each action is the tree-walker's own code
//! (`ops`, `call_value`, `method_call`, `match_pat`, …) so results, messages and effects are the
//! same; steps are added per instruction and counted one by one (with their locations) only when
//! a ceiling or a periodic check falls inside an instruction's run.

use std::rc::Rc;

use vox_hir::UnOp;

use crate::display;
use crate::exc::{Exc, Loc};
use crate::kind::message_name;
use crate::ops::{self, int_cmp, int_op, IntResult};
use crate::value::{
    char_str, is_scalar, Args, BuiltinDef, CallName, CodeFn, Func, List, Map, VMap, Value,
};

use super::bytecode::{
    Builtin1, Callee, Chunk, Ins, IntMethod, Op, Opnd, PathStep, Reg, TemplatePiece, Tier, DROP,
};
use super::interp::{Flow, Interp, R};
use super::place::{read_path, write_path, Step};

/// Where a `for` loop is in what it iterates.
enum Iter {
    Idle,
    List(Rc<List>, usize),
    Map(Vec<usize>, Rc<Map>, usize),
    Str(Rc<str>, usize, i64),
    /// `range`'s next value, its end, and the next index.
    Range(i64, i64, i64),
}

/// Installs `it` as iterator `state` (the chunk's iterators are made as loops first start).
fn start_iter(iters: &mut Vec<Iter>, state: u32, it: Iter) {
    let k = state as usize;
    if iters.len() <= k {
        iters.resize_with(k + 1, || Iter::Idle);
    }
    iters[k] = it;
}

impl<'p> Interp<'p> {
    /// The chunk of `func` in `module`, compiled on its first call; `None` when the compiled tier
    /// is off (`VOX_TIER=tree`).
    pub(super) fn chunk(&mut self, module: u32, func: u32) -> Option<Rc<Chunk>> {
        let tiers = self.tiers.as_mut()?;
        let slot = &mut tiers[module as usize][func as usize];
        if let Tier::Compiled(c) = slot {
            return Some(c.clone());
        }
        let m = &self.prog.files[module as usize].hir;
        let c = Rc::new(super::compile::compile(m, &m.functions[func as usize]));
        *slot = Tier::Compiled(c.clone());
        Some(c)
    }

    #[inline(always)]
    fn reg(&self, r: u32) -> &Value {
        &self.stack[self.base + r as usize]
    }

    #[inline(always)]
    fn peek<'a>(&'a self, c: &'a Chunk, o: Opnd) -> &'a Value {
        match o {
            Opnd::Local(r) | Opnd::Temp(r) => self.reg(r),
            Opnd::Const(k) => &c.consts[k as usize],
            Opnd::Global(g) => &self.globals[self.module as usize][g as usize],
        }
    }

    /// The operand's value; a temporary gives its value up.
    #[inline(always)]
    fn take(&mut self, c: &Chunk, o: Opnd) -> Value {
        match o {
            Opnd::Temp(r) => {
                std::mem::replace(&mut self.stack[self.base + r as usize], Value::Null)
            }
            _ => self.peek(c, o).clone(),
        }
    }

    /// Lets a temporary's value go once it has been read in place. A scalar holds no reference,
    /// so it stays (the register is written before it is read again): writing `Null` over it
    /// went through the machine stack and stalled on store forwarding, as `put_int` explains.
    #[inline(always)]
    fn release(&mut self, o: Opnd) {
        if let Opnd::Temp(r) = o {
            let slot = &mut self.stack[self.base + r as usize];
            if !is_scalar(slot) {
                *slot = Value::Null;
            }
        }
    }

    /// Writes an int to register `r` (never [`DROP`]: only operators write ints in place).
    #[inline(always)]
    fn put_int(&mut self, r: u32, n: i64) {
        let slot = &mut self.stack[self.base + r as usize];
        match slot {
            Value::Int(x) => *x = n,
            // Written into the slot itself: made on the machine stack and then copied (`put`), the
            // value was read back in one 16-byte load spanning the two stores that had just
            // written it, which the processor cannot forward (a stall at every such write).
            _ if is_scalar(slot) => {
                // SAFETY: `slot` is a valid `Value`; the old one, a scalar, owns nothing to drop.
                unsafe { std::ptr::write(slot, Value::Int(n)) }
            }
            _ => *slot = Value::Int(n),
        }
    }

    #[inline(always)]
    fn put_bool(&mut self, r: u32, t: bool) {
        let slot = &mut self.stack[self.base + r as usize];
        match slot {
            Value::Bool(x) => *x = t,
            // In place, as `put_int` does.
            _ if is_scalar(slot) => {
                // SAFETY: as in `put_int`.
                unsafe { std::ptr::write(slot, Value::Bool(t)) }
            }
            _ => *slot = Value::Bool(t),
        }
    }

    /// Writes register `r` (nothing for [`DROP`]); an old scalar needs no drop.
    #[inline(always)]
    fn put(&mut self, r: u32, v: Value) {
        if r == DROP {
            return;
        }
        let slot = &mut self.stack[self.base + r as usize];
        if is_scalar(slot) {
            std::mem::forget(std::mem::replace(slot, v));
        } else {
            *slot = v;
        }
    }

    fn here(&self, at: vox_syntax::TextRange) -> Loc {
        Loc {
            file: self.module,
            range: at,
        }
    }

    /// The instruction's steps one at a time, as the tree-walker counts them.
    #[cold]
    fn ticks_one_by_one(&mut self, c: &Chunk, ins: &Ins) -> Result<(), Flow> {
        for k in 0..ins.ticks {
            if let Err(f) = self.tick() {
                let loc = self.here(c.tick_at[(ins.first + k) as usize]);
                return Err(self.locate(f, loc));
            }
        }
        Ok(())
    }

    fn set_call_site(&mut self, at: vox_syntax::TextRange) {
        if self.ctx.wants_call_site() {
            self.ctx.call_site = Some(self.prog.loc_text(self.here(at)));
        }
    }

    /// `for x in range(args)`: the builtin's own checks (under its name, so its messages are the
    /// call's), then the depth check the flat list it would have built gets.
    fn range_bounds(
        &mut self,
        range: &'static BuiltinDef,
        args: Vec<Value>,
    ) -> Result<(i64, i64), Flow> {
        let mut args = Args::new(CallName::builtin(range), args);
        let bounds = crate::builtins::globals::range_bounds(self, &mut args)?;
        self.check_depth_of(1)?;
        Ok(bounds)
    }

    fn take_all(&mut self, c: &Chunk, os: &[Opnd]) -> Vec<Value> {
        let mut out = self.args_vec(os.len());
        for &o in os {
            out.push(self.take(c, o));
        }
        out
    }

    /// Runs `c` in the current frame (its slots and temporaries already on the stack).
    pub(super) fn run_chunk(&mut self, c: &Chunk) -> R {
        let mut iters: Vec<Iter> = Vec::with_capacity(c.n_iters as usize);
        let mut pc = 0usize;
        while let Some(ins) = c.code.get(pc) {
            pc += 1;
            if ins.ticks != 0 {
                let s = self.steps + u64::from(ins.ticks);
                if s >= self.next_check || s > self.max_steps {
                    self.ticks_one_by_one(c, ins)?;
                } else {
                    self.steps = s;
                }
            }
            match self.step(c, ins, &mut iters, &mut pc) {
                Ok(()) => {}
                Err(f) => {
                    let loc = self.here(ins.at);
                    return Err(self.locate(f, loc));
                }
            }
        }
        Ok(self.take(c, c.result))
    }

    /// One instruction's action.
    #[inline(always)]
    fn step(
        &mut self,
        c: &Chunk,
        ins: &Ins,
        iters: &mut Vec<Iter>,
        pc: &mut usize,
    ) -> Result<(), Flow> {
        match &ins.op {
            Op::Tick => {}
            Op::Move { dst, src } => {
                let v = self.take(c, *src);
                self.put(*dst, v);
            }
            Op::Binary { op, dst, a, b } => {
                let (x, y) = (self.peek(c, *a), self.peek(c, *b));
                // Two ints: the result is written in place (moving a whole `Value` through
                // memory stalled on store forwarding).
                if let (Value::Int(x), Value::Int(y)) = (x, y) {
                    match int_op(*op, *x, *y) {
                        IntResult::Int(n) => {
                            self.put_int(*dst, n);
                            return Ok(());
                        }
                        IntResult::Bool(t) => {
                            self.put_bool(*dst, t);
                            return Ok(());
                        }
                        IntResult::General => {}
                    }
                }
                if let (Value::Str(p), Value::Str(q)) = (x, y) {
                    if let Some(t) = ops::str_cmp(*op, p, q) {
                        self.release(*a);
                        self.release(*b);
                        self.put_bool(*dst, t);
                        return Ok(());
                    }
                }
                let v = ops::binary_reserving(*op, x, y)?;
                self.release(*a);
                self.release(*b);
                self.put(*dst, v);
            }
            Op::Unary { op, dst, a } => {
                let x = self.peek(c, *a);
                let v = match op {
                    UnOp::Neg => ops::neg(x)?,
                    UnOp::Not => ops::not(x)?,
                };
                self.release(*a);
                self.put(*dst, v);
            }
            Op::Branch {
                a,
                when,
                set,
                target,
            } => {
                let t = ops::truthy_bool(self.peek(c, *a))?;
                self.release(*a);
                if t == *when {
                    if let Some(d) = set {
                        self.put(*d, Value::Bool(*when));
                    }
                    *pc = *target as usize;
                }
            }
            Op::BranchCmp {
                op,
                a,
                b,
                when,
                target,
            } => {
                let t = {
                    let (x, y) = (self.peek(c, *a), self.peek(c, *b));
                    let fast = match (x, y) {
                        (Value::Int(p), Value::Int(q)) => Some(int_cmp(*op, *p, *q)),
                        (Value::Str(p), Value::Str(q)) => ops::str_cmp(*op, p, q),
                        _ => None,
                    };
                    match fast {
                        Some(t) => t,
                        None => ops::truthy_bool(&ops::binary_reserving(*op, x, y)?)?,
                    }
                };
                self.release(*a);
                self.release(*b);
                if t == *when {
                    *pc = *target as usize;
                }
            }
            Op::ToBool { dst, a } => {
                let t = ops::truthy_bool(self.peek(c, *a))?;
                self.release(*a);
                self.put(*dst, Value::Bool(t));
            }
            Op::Jump(l) => *pc = *l as usize,
            Op::Call { dst, callee, args } => {
                let v = match callee {
                    Callee::Local(id) => {
                        self.set_call_site(ins.at);
                        let f = &self.prog.files[self.module as usize].hir.functions[*id as usize];
                        if f.params.len() != args.len() {
                            let code = CodeFn {
                                name: f.name.clone(),
                                module: self.module,
                                func: *id,
                                captures: Vec::new(),
                            };
                            return Err(self.arity_error(&code, args.len()));
                        }
                        let base = self.stack.len();
                        for &o in args.iter() {
                            let v = self.take(c, o);
                            self.stack.push(v);
                        }
                        self.enter_frame(self.module, *id, &[], base)?
                    }
                    Callee::Builtin(def) => {
                        let args = self.take_all(c, args);
                        self.set_call_site(ins.at);
                        self.call_builtin(def, args)?
                    }
                    Callee::Value(f) => {
                        let f = self.take(c, *f);
                        let args = self.take_all(c, args);
                        self.set_call_site(ins.at);
                        self.call_value(&f, args, Vec::new())?
                    }
                };
                self.put(*dst, v);
            }
            Op::Builtin1 { dst, which, def, a } => {
                self.builtin1(c, *dst, *which, def, *a, ins.at)?
            }
            Op::Method {
                dst,
                recv,
                name,
                args,
            } => {
                let r = self.take(c, *recv);
                let args = self.take_all(c, args);
                self.set_call_site(ins.at);
                let v = self.method_call(r, name, args, Vec::new())?;
                self.put(*dst, v);
            }
            Op::IntMethod {
                dst,
                recv,
                which,
                name,
            } => self.int_method(c, *dst, *recv, *which, name, ins.at)?,
            Op::WriteBack {
                dst,
                slot,
                name,
                args,
                expr,
            } => {
                let args = self.take_all(c, args);
                let v = self.write_back(*expr, *slot, name, args)?;
                self.put(*dst, v);
            }
            Op::Push {
                dst,
                slot,
                name,
                a,
                expr,
            } => {
                let x = self.take(c, *a);
                let i = self.base + *slot as usize;
                let Value::List(_) = &self.stack[i] else {
                    let mut args = self.args_vec(1);
                    args.push(x);
                    let v = self.write_back(*expr, *slot, name, args)?;
                    self.put(*dst, v);
                    return Ok(());
                };
                // write_back's own steps for a list: the list moves into the push (growth in
                // place), its depth is checked, and it goes back to the variable.
                let Value::List(mut l) = std::mem::replace(&mut self.stack[i], Value::Null) else {
                    unreachable!("checked above")
                };
                let pushed = crate::methods::list::push(self, &mut l, x)
                    .map_err(Flow::from)
                    .and_then(|()| self.check_depth_of(l.depth()));
                if let Err(e) = pushed {
                    return Err(self.locate(e, self.loc(*expr)));
                }
                if *dst != DROP {
                    self.put(*dst, Value::List(l.clone()));
                }
                self.stack[i] = Value::List(l);
            }
            Op::Index { dst, a, i } => {
                let v = ops::index(self.peek(c, *a), self.peek(c, *i))?;
                self.release(*a);
                self.release(*i);
                self.put(*dst, v);
            }
            Op::IndexUnwrap {
                dst,
                a,
                i,
                index_at,
            } => self.index_unwrap(c, *dst, *a, *i, *index_at, ins.at)?,
            Op::Field { dst, a, name } => {
                let v = self.field(self.peek(c, *a), name)?;
                self.release(*a);
                self.put(*dst, v);
            }
            Op::List { dst, items } => {
                let v = Value::list(self.take_all(c, items));
                self.check_depth(&v)?;
                self.put(*dst, v);
            }
            Op::Tuple { dst, items } => {
                let v = Value::tuple(self.take_all(c, items));
                self.check_depth(&v)?;
                self.put(*dst, v);
            }
            Op::Map { dst, keys, values } => {
                let mut map = VMap::with_capacity(keys.len());
                for (k, &o) in keys.iter().zip(values.iter()) {
                    let v = self.take(c, o);
                    map.insert(k.clone(), v);
                }
                let v = Value::map(map);
                self.check_depth(&v)?;
                self.put(*dst, v);
            }
            Op::Template { dst, pieces } => {
                let mut s = String::new();
                for p in pieces.iter() {
                    match p {
                        TemplatePiece::Lit(k) => s.push_str(&c.strs[*k as usize]),
                        TemplatePiece::Value(o) => {
                            display::display_into(&mut s, self.peek(c, *o));
                            self.release(*o);
                        }
                    }
                }
                self.put(*dst, Value::Str(Rc::from(s)));
            }
            Op::Closure {
                dst,
                func,
                captures,
            } => {
                let caps = captures.iter().map(|s| self.reg(*s).clone()).collect();
                let v = Value::Func(Rc::new(Func::Code(Rc::new(CodeFn {
                    name: None,
                    module: self.module,
                    func: *func,
                    captures: caps,
                }))));
                self.put(*dst, v);
            }
            Op::Try { dst, a } => {
                let v = self.take(c, *a);
                let out = self.try_value(v)?;
                self.put(*dst, out);
            }
            Op::MatchPat { pat, a, fail } => {
                let v = self.peek(c, *a).clone();
                if self.match_pat(*pat, &v)? {
                    self.release(*a);
                } else {
                    *pc = *fail as usize;
                }
            }
            Op::NoArm => return Err(Exc::error("No match arm found").into()),
            Op::Let { pat, a } => {
                let v = self.take(c, *a);
                self.bind_let(*pat, v)?;
            }
            Op::Clear(r) => self.put(*r, Value::Null),
            Op::Assign { slot, op, a } => {
                if let Some(op) = op {
                    if let (Value::Int(x), Value::Int(y)) = (self.reg(*slot), self.peek(c, *a)) {
                        if let IntResult::Int(n) = int_op(*op, *x, *y) {
                            self.put_int(*slot, n);
                            return Ok(());
                        }
                    }
                }
                let v = self.take(c, *a);
                let v = match op {
                    None => v,
                    Some(op) => {
                        let old = self.reg(*slot);
                        ops::binary_reserving(*op, old, &v)?
                    }
                };
                self.put(*slot, v);
                self.check_depth(self.reg(*slot))?;
            }
            Op::AssignPath { slot, path, op, a } => {
                let mut steps = std::mem::take(&mut self.place_steps);
                for p in path.iter() {
                    steps.push(match p {
                        PathStep::Field(n) => Step::Field(n.clone()),
                        PathStep::Index(o) => Step::Index(self.take(c, *o)),
                    });
                }
                let v = self.take(c, *a);
                let v = match op {
                    None => v,
                    Some(op) => {
                        let old = read_path(self.reg(*slot), &steps)?;
                        ops::binary_reserving(*op, &old, &v)?
                    }
                };
                let i = self.base + *slot as usize;
                write_path(&mut self.stack[i], &steps, v)?;
                // Kept for the next assignment (an error drops the list: the next makes another).
                steps.clear();
                self.place_steps = steps;
                self.check_depth(self.reg(*slot))?;
            }
            Op::ForStart { state, a } => {
                let it = match self.take(c, *a) {
                    Value::List(list) => Iter::List(list, 0),
                    Value::Map(map) => Iter::Map(self.map_order(map.len()), map, 0),
                    Value::Str(s) => Iter::Str(s, 0, 0),
                    other => {
                        return Err(Exc::error(format!(
                            "cannot iterate over {}",
                            message_name(&other)
                        ))
                        .into())
                    }
                };
                start_iter(iters, *state, it);
            }
            Op::ForRange { state, range, args } => {
                let args = self.take_all(c, args);
                self.set_call_site(ins.at);
                let (start, end) = self.range_bounds(range, args)?;
                start_iter(iters, *state, Iter::Range(start, end, 0));
            }
            Op::ForNext {
                state,
                value,
                index,
                done,
            } => {
                // The element and its index (for a map: the key and its value, which may be null).
                let next = match &mut iters[*state as usize] {
                    Iter::List(list, at) => list.get(*at).map(|v| {
                        *at += 1;
                        (v.clone(), Value::Int(*at as i64 - 1))
                    }),
                    Iter::Map(keys, map, at) => loop {
                        let Some(&k) = keys.get(*at) else {
                            break None;
                        };
                        *at += 1;
                        if let Some((k, v)) = map.get_index(k) {
                            break Some((Value::Str(k.clone()), v.clone()));
                        }
                    },
                    Iter::Str(s, at, n) => s[*at..].chars().next().map(|ch| {
                        *at += ch.len_utf8();
                        *n += 1;
                        (Value::Str(char_str(ch)), Value::Int(*n - 1))
                    }),
                    // Ints written in place (`put_int`): a `Value` made here and then copied
                    // stalled on store forwarding, a third of a counting loop's time.
                    Iter::Range(next, end, n) if *next < *end => {
                        let (v, i) = (*next, *n);
                        *next += 1;
                        *n += 1;
                        if let Some(s) = value {
                            self.put_int(*s, v);
                        }
                        if let Some(s) = index {
                            self.put_int(*s, i);
                        }
                        return Ok(());
                    }
                    Iter::Range(..) | Iter::Idle => None,
                };
                match next {
                    Some((v, i)) => {
                        if let Some(s) = value {
                            self.put(*s, v);
                        }
                        if let Some(s) = index {
                            self.put(*s, i);
                        }
                    }
                    None => {
                        iters[*state as usize] = Iter::Idle;
                        *pc = *done as usize;
                    }
                }
            }
            Op::ForEnd { state } => iters[*state as usize] = Iter::Idle,
            Op::Return(a) => {
                let v = self.take(c, *a);
                return Err(Flow::Return(v));
            }
            Op::Escape { brk } => {
                return Err(if *brk { Flow::Break } else { Flow::Continue });
            }
            Op::Eval {
                dst,
                expr,
                brk,
                cont,
            } => {
                let r = self.eval(*expr);
                self.land(r, *dst, *brk, *cont, pc)?;
            }
            Op::Stmt {
                dst,
                stmt,
                brk,
                cont,
            } => {
                let r = self.stmt(*stmt);
                self.land(r, *dst, *brk, *cont, pc)?;
            }
        }
        Ok(())
    }

    /// [`Op::IndexUnwrap`], out of the executor's loop (inline, its list case slowed calls that
    /// never index: fib by a third). A list's element is read without `index_get`'s
    /// `Res<Option<Value>>` around it.
    #[inline(never)]
    fn index_unwrap(
        &mut self,
        c: &Chunk,
        dst: Reg,
        a: Opnd,
        i: Opnd,
        index_at: vox_syntax::TextRange,
        at: vox_syntax::TextRange,
    ) -> Result<(), Flow> {
        let got = match (self.peek(c, a), self.peek(c, i)) {
            (Value::List(items), Value::Int(k)) => {
                ops::position(*k, items.len()).map(|p| items[p].clone())
            }
            (x, y) => match ops::index_get(x, y) {
                Ok(g) => g,
                Err(e) => {
                    let loc = self.here(index_at);
                    return Err(self.locate(e.into(), loc));
                }
            },
        };
        self.release(a);
        self.release(i);
        self.set_call_site(at);
        let v = match got {
            Some(v) => {
                self.check_depth(&v)?;
                v
            }
            None => return Err(crate::methods::option_result::unwrap_none().into()),
        };
        self.put(dst, v);
        Ok(())
    }

    /// [`Op::Builtin1`], out of the executor's loop (as [`Interp::int_method`]).
    #[inline(never)]
    fn builtin1(
        &mut self,
        c: &Chunk,
        dst: Reg,
        which: Builtin1,
        def: &'static BuiltinDef,
        a: Opnd,
        at: vox_syntax::TextRange,
    ) -> Result<(), Flow> {
        let x = self.peek(c, a);
        let got = match which {
            Builtin1::Len => crate::builtins::globals::len_of(x).map(Value::Int),
            Builtin1::TypeOf => Some(Value::Str(crate::kind::type_of_str(x))),
        };
        let v = match got {
            Some(v) => {
                self.release(a);
                self.set_call_site(at);
                v
            }
            None => {
                let args = self.take_all(c, &[a]);
                self.set_call_site(at);
                self.call_builtin(def, args)?
            }
        };
        self.put(dst, v);
        Ok(())
    }

    /// [`Op::IntMethod`], out of the executor's loop as [`Interp::index_unwrap`] is (the loop is
    /// register-allocated as a whole; a call here costs little next to a method). A receiver
    /// with no such method of its own (a tuple, a map's function field, a namespace), or a
    /// failing method, takes [`Op::Method`]'s way with no arguments.
    #[inline(never)]
    fn int_method(
        &mut self,
        c: &Chunk,
        dst: Reg,
        recv: Opnd,
        which: IntMethod,
        name: &Rc<str>,
        at: vox_syntax::TextRange,
    ) -> Result<(), Flow> {
        if let Some(n) = int_method(which, self.peek(c, recv)) {
            self.release(recv);
            self.set_call_site(at);
            self.put_int(dst, n);
            return Ok(());
        }
        let r = self.take(c, recv);
        self.set_call_site(at);
        let v = self.method_call(r, name, Vec::new(), Vec::new())?;
        self.put(dst, v);
        Ok(())
    }

    /// The result of code the tree-walker ran: its value, or its `break`/`continue` taken here.
    fn land(
        &mut self,
        r: R,
        dst: u32,
        brk: Option<u32>,
        cont: Option<u32>,
        pc: &mut usize,
    ) -> Result<(), Flow> {
        match r {
            Ok(v) => self.put(dst, v),
            Err(Flow::Break) if brk.is_some() => *pc = brk.unwrap_or(0) as usize,
            Err(Flow::Continue) if cont.is_some() => *pc = cont.unwrap_or(0) as usize,
            Err(e) => return Err(e),
        }
        Ok(())
    }
}

/// What [`Op::IntMethod`]'s method answers for `v` (as `methods::call_method_owned` would),
/// or `None` when `v` has no such method or it fails (that way reports it).
#[inline(always)]
fn int_method(which: IntMethod, v: &Value) -> Option<i64> {
    match (which, v) {
        (IntMethod::Len, Value::List(l)) => Some(l.len() as i64),
        // Bytes, as `str.len` counts.
        (IntMethod::Len, Value::Str(s)) => Some(s.len() as i64),
        // A map's own `len` comes before a field of that name (`field_function`).
        (IntMethod::Len, Value::Map(m)) => Some(m.len() as i64),
        (IntMethod::Ord, Value::Str(s)) => s.chars().next().map(|ch| ch as i64),
        _ => None,
    }
}
