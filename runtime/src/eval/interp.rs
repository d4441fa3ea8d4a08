//! The evaluator's state ([`Interp`]), its non-local control flow ([`Flow`]), the step, depth and
//! host-stack ceilings, the entry points (`run_main`, `run_test`) and the [`Host`] the builtins call
//! back through.

use std::rc::Rc;

use vox_hir::{ExprId, Main, Module};

use crate::context::RunContext;
use crate::display;
use crate::exc::{CeilingKind, Exc, Loc, Res};
use crate::program::Program;
use crate::value::{CodeFn, Func, Host, Value};

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

pub(super) type R = Result<Value, Flow>;

/// Below this much host stack, a call is refused as a depth ceiling rather than risking overflow.
pub(super) const STACK_RESERVE: usize = 4 * 1024 * 1024;
/// Expression nesting inside one function body (a flat chain of 300,000 `+` is that deep) grows
/// the host stack onto the heap: checked every `GROW_EVERY` levels, when less than `GROW_RED_ZONE`
/// is left, onto a new segment of `GROW_SEGMENT` (mapped lazily). The red zone exceeds the call
/// guard's reserve, so a call right after a growth never trips it. Calls do not accumulate
/// nesting (each body starts at 0): deep recursion still meets the host stack guard (decision 60).
pub(super) const GROW_EVERY: u32 = 32;
pub(super) const GROW_RED_ZONE: usize = 8 * 1024 * 1024;
pub(super) const GROW_SEGMENT: usize = 64 * 1024 * 1024;
/// Arguments a new vector from [`Interp::args_vec`] has room for.
const ARGS_ROOM: usize = 4;
/// How often (in steps) the memory flag and the wall clock are checked.
pub(super) const CHECK_PERIOD: u64 = 1024;

pub struct Interp<'p> {
    pub(super) prog: &'p Program,
    pub(super) globals: Vec<Vec<Value>>,
    pub ctx: RunContext,
    pub(super) stack: Vec<Value>,
    pub(super) base: usize,
    pub(super) module: u32,
    pub steps: u64,
    pub(super) max_steps: u64,
    pub(super) depth: u64,
    pub(super) max_depth: u64,
    pub(super) next_check: u64,
    /// Expression nesting in the current function body (see [`GROW_EVERY`]).
    pub(super) nesting: u32,
    /// The steps of the last assignment place, kept for the next (`m[k] = v` allocated a list
    /// of one step per assignment).
    pub(super) place_steps: Vec<super::place::Step>,
    /// Per module and function, its compiled form; `None` runs everything on the tree-walker
    /// (`VOX_TIER=tree`, the compiled tier's test oracle).
    pub(super) tiers: Option<Vec<Vec<super::bytecode::Tier>>>,
    /// Emptied argument vectors of finished builtin calls and `xs.push(x)`s, for the next call's
    /// arguments ([`Interp::recycle_args`]): one allocation and free fewer per call.
    pub(super) spare_args: Vec<Vec<Value>>,
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
            place_steps: Vec::new(),
            tiers: tiers_for(prog),
            spare_args: Vec::new(),
        }
    }

    /// An empty vector for a call's arguments, with room from an earlier call when there is one.
    pub(super) fn args_vec(&mut self, n: usize) -> Vec<Value> {
        if n == 0 {
            // Nothing to hold: a method's arguments vector is not given back (it drops with its
            // `Args`), so one with room cost an allocation and a free per `xs.keys()`.
            return Vec::new();
        }
        match self.spare_args.pop() {
            Some(mut v) => {
                v.reserve(n);
                v
            }
            // Room for the common arities, so a vector kept for later rarely grows (a call with
            // no arguments made vectors of no room that the next call with two reallocated).
            None => Vec::with_capacity(n.max(ARGS_ROOM)),
        }
    }

    /// Takes back a call's argument vector once the call is done with it (a few small ones are
    /// kept; what is left in it is dropped now, as it would have been).
    pub(super) fn recycle_args(&mut self, mut v: Vec<Value>) {
        v.clear();
        if self.spare_args.len() < 8 && (1..=8).contains(&v.capacity()) {
            self.spare_args.push(v);
        }
    }

    /// decisions.md 12: building a value nested deeper than `--max-depth` is exit 78 (the stored
    /// depth is O(1) to read; see `value::depth`).
    pub(super) fn check_depth(&self, v: &Value) -> Result<(), Flow> {
        self.check_depth_of(crate::value::depth(v))
    }

    /// [`Interp::check_depth`] for a value of nesting depth `d` not built (yet, or at all).
    pub(super) fn check_depth_of(&self, d: u32) -> Result<(), Flow> {
        if u64::from(d) > self.max_depth {
            return Err(Exc::Ceiling {
                kind: CeilingKind::Depth,
                limit: self.max_depth,
                loc: None,
            }
            .into());
        }
        Ok(())
    }

    pub(super) fn m(&self) -> &'p Module {
        &self.prog.files[self.module as usize].hir
    }

    pub(super) fn loc(&self, e: ExprId) -> Loc {
        Loc {
            file: self.module,
            range: self.m().expr_ranges[e as usize],
        }
    }

    /// Fills in the location of an error that has none yet.
    pub(super) fn locate(&self, mut f: Flow, loc: Loc) -> Flow {
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
    pub(super) fn tick(&mut self) -> Result<(), Flow> {
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

    pub(super) fn periodic_checks(&mut self) -> Result<(), Flow> {
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
                    self.base = 0;
                    match self.run_body(self.module, id, &[]) {
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
                self.base = 0;
                match self.run_body(self.module, id, &[]) {
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

    /// Lets the run's values go without freeing them, for a process about to exit: the entry
    /// frame's locals are often the script's whole data (freeing a JSON document's nodes one by
    /// one took 3% of such a run). Values own only memory, never an open file or a process.
    pub fn leak_values(&mut self) {
        std::mem::forget(std::mem::take(&mut self.stack));
        std::mem::forget(std::mem::take(&mut self.globals));
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

    pub(super) fn globals_fn(&self, module: u32, id: u32) -> Value {
        let f = &self.prog.files[module as usize].hir.functions[id as usize];
        Value::Func(Rc::new(Func::Code(Rc::new(CodeFn {
            name: f.name.clone(),
            module,
            func: id,
            captures: Vec::new(),
        }))))
    }

    /// Prints the entry's result unless it is `null` or `None` (decision 59).
    pub(super) fn print_result(&mut self, v: &Value) -> Result<(), Flow> {
        if !matches!(v, Value::Null | Value::Opt(None)) {
            let mut s = display::display(v);
            s.push('\n');
            self.ctx.write_stdout(&s)?;
        }
        Ok(())
    }

    // ---- calls --------------------------------------------------------------------------------
}

/// Whether the compiled tier runs function bodies: on unless `VOX_TIER=tree`.
fn tiers_for(prog: &Program) -> Option<Vec<Vec<super::bytecode::Tier>>> {
    if std::env::var_os("VOX_TIER").is_some_and(|v| v == "tree") {
        return None;
    }
    Some(
        prog.files
            .iter()
            .map(|f| {
                (0..f.hir.functions.len())
                    .map(|_| super::bytecode::Tier::Unknown)
                    .collect()
            })
            .collect(),
    )
}

pub(super) fn flow_to_res(r: R) -> Res<Value> {
    match r {
        Ok(v) | Err(Flow::Return(v)) => Ok(v),
        Err(Flow::Exc(e)) => Err(*e),
        Err(_) => Ok(Value::Null),
    }
}

impl Interp<'_> {
    /// The step a builtin's call of a function value costs. Checked directly: made into a
    /// `Res<Value>` first (`flow_to_res`), the result went through memory in pieces that the next
    /// load could not take from the stores (a stall on half of `call1`'s samples; `map`, `filter`
    /// and `fold` call it for every element).
    #[inline(always)]
    fn host_call_step(&mut self) -> Res<()> {
        match self.tick() {
            Err(Flow::Exc(e)) => Err(*e),
            // `tick` stops a run with nothing but an exception.
            _ => Ok(()),
        }
    }
}

impl Host for Interp<'_> {
    // A call a builtin makes (`map`, `sorted_by`, `fold`, …) costs one step, as a direct call's
    // call node does, plus the callee's body; there is no callee expression (decision 56).
    fn call(&mut self, f: &Value, args: Vec<Value>) -> Res<Value> {
        self.host_call_step()?;
        flow_to_res(self.call_value(f, args, Vec::new()))
    }
    fn call1(&mut self, f: &Value, a: Value) -> Res<Value> {
        self.host_call_step()?;
        if let Value::Func(func) = f {
            if let Func::Code(code) = &**func {
                return flow_to_res(self.call_code_positional(code, std::iter::once(a)));
            }
        }
        flow_to_res(self.call_value(f, vec![a], Vec::new()))
    }
    fn call2(&mut self, f: &Value, a: Value, b: Value) -> Res<Value> {
        self.host_call_step()?;
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
