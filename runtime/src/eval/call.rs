//! Calls: builtin rows (gated by their capability), constructors, JSON codecs and user functions
//! (frames on the value stack, named arguments, defaults).

use std::rc::Rc;

use vox_hir::Cap;

use crate::exc::{CeilingKind, Exc};
use crate::kind::message_name;
use crate::value::{Args, BuiltinDef, CallName, CodeFn, Func, Value};

use super::interp::{Flow, Interp, R, STACK_RESERVE};

impl<'p> Interp<'p> {
    pub(super) fn call_builtin(&mut self, def: &'static BuiltinDef, args: Vec<Value>) -> R {
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
        let what = CallName::builtin(def);
        if let Some(need) = need {
            self.ctx.gate(&what, need)?;
        }
        let mut args = Args::new(what, args);
        let v = (def.f)(self, &mut args);
        self.recycle_args(std::mem::take(&mut args.values));
        let v = v?;
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

    pub(super) fn arity_error(&self, code: &CodeFn, given: usize) -> Flow {
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

    pub(super) fn call_code(
        &mut self,
        code: &CodeFn,
        args: Vec<Value>,
        named: Vec<(Rc<str>, Value)>,
    ) -> R {
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
    pub(super) fn call_code_positional(
        &mut self,
        code: &CodeFn,
        args: impl ExactSizeIterator<Item = Value>,
    ) -> R {
        let func = &self.prog.files[code.module as usize].hir.functions[code.func as usize];
        if args.len() != func.params.len() {
            return Err(self.arity_error(code, args.len()));
        }
        let base = self.stack.len();
        self.stack.extend(args);
        self.enter_frame(code.module, code.func, &code.captures, base)
    }

    /// Runs function `func` of `module` on a new frame at `base`, where its arguments already
    /// are: the depth and host-stack ceilings, the frame's slots and captures, its body (compiled
    /// or walked), and the frame's end.
    pub(super) fn enter_frame(
        &mut self,
        module: u32,
        func: u32,
        captures: &[Value],
        base: usize,
    ) -> R {
        self.depth += 1;
        // The host stack is probed every 16 levels; the reserve covers the frames in between.
        let stack_low = self.depth.is_multiple_of(16)
            && stacker::remaining_stack().is_some_and(|r| r < STACK_RESERVE);
        if self.depth > self.max_depth || stack_low {
            self.depth -= 1;
            self.stack.truncate(base);
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
        let saved = (self.base, self.module, self.nesting);
        self.base = base;
        self.module = module;
        self.nesting = 0;
        let r = self.run_body(module, func, captures);
        self.base = saved.0;
        self.module = saved.1;
        self.nesting = saved.2;
        self.pop_frame(base);
        self.depth -= 1;
        match r {
            Ok(v) | Err(Flow::Return(v)) => Ok(v),
            Err(Flow::Break) | Err(Flow::Continue) => Ok(Value::Null),
            Err(e) => Err(e),
        }
    }

    /// Drops the frame above `base`: only the values that own something are dropped (a frame of
    /// ints was a call of `drop_in_place` per slot, 6% of fib).
    fn pop_frame(&mut self, base: usize) {
        let len = self.stack.len();
        if base >= len {
            return;
        }
        // The length first: a drop that panicked would leave the rest leaked, never dropped twice.
        // SAFETY: `base < len`, so the slots `base..len` are initialised values the vector no
        // longer owns after `set_len`; each is dropped at most once, here.
        unsafe {
            self.stack.set_len(base);
            let tail =
                std::slice::from_raw_parts_mut(self.stack.as_mut_ptr().add(base), len - base);
            for v in tail {
                if !crate::value::is_scalar(v) {
                    std::ptr::drop_in_place(v);
                }
            }
        }
    }

    /// The body of `func` in the frame at `self.base` (its arguments in place): slots and
    /// temporaries made, captures written, the chunk run when the compiled tier is on.
    pub(super) fn run_body(&mut self, module: u32, func: u32, captures: &[Value]) -> R {
        let chunk = self.chunk(module, func);
        let f = &self.prog.files[module as usize].hir.functions[func as usize];
        let temps = chunk.as_ref().map_or(0, |c| c.n_temps as usize);
        self.stack
            .resize_with(self.base + f.n_slots as usize + temps, || Value::Null);
        for (slot, v) in f.capture_slots.iter().zip(captures.iter()) {
            self.stack[self.base + *slot as usize] = v.clone();
        }
        match chunk {
            Some(c) => self.run_chunk(&c),
            None => self.eval(f.body),
        }
    }

    // ---- expressions --------------------------------------------------------------------------
}
