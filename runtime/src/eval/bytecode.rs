//! The compiled tier's data: a function body as a list of register instructions ([`Chunk`]).
//!
//! Registers are the frame's slots on the value stack: the function's locals first (`Slot`s, as the
//! tree-walker numbers them), then the chunk's temporaries. An operand names a local, a temporary,
//! a constant or a global (globals never change after linking). Each instruction carries the steps
//! the tree-walker counts between the previous instruction's action and its own (`ticks`, with the
//! location of each in `Chunk::tick_at`, read only when a ceiling or a periodic check falls inside
//! the run), and the location its own errors get (`at`). See docs/compiled-tier.md.

use std::rc::Rc;

use vox_hir::{BinOp, ExprId, PatId, Slot, StmtId, UnOp};
use vox_syntax::TextRange;

use crate::value::{BuiltinDef, Value};

pub type Reg = u32;
/// The register of a value nobody reads (a call's result in statement position): not written.
pub const DROP: Reg = u32::MAX;
pub type Label = u32;

#[derive(Clone, Copy, Debug)]
pub enum Opnd {
    /// A local (a parameter, `let` or pattern binding): read by clone.
    Local(Slot),
    /// A temporary: read by move where a value is consumed, so it holds no second reference.
    Temp(Reg),
    Const(u32),
    /// The current module's global (a function or variant value).
    Global(u32),
}

#[derive(Clone, Copy, Debug)]
pub enum TemplatePiece {
    Lit(u32),
    Value(Opnd),
}

#[derive(Debug)]
pub enum PathStep {
    Field(Rc<str>),
    Index(Opnd),
}

#[derive(Debug)]
pub enum Callee {
    /// A function of this module, called without building its value.
    Local(u32),
    Builtin(&'static BuiltinDef),
    Value(Opnd),
}

/// A method with no arguments whose answer is an int, known when the call is compiled.
#[derive(Clone, Copy, Debug)]
pub enum IntMethod {
    /// `len()` of a list, str (bytes) or map.
    Len,
    /// `ord()` of a non-empty str.
    Ord,
}

/// A builtin of one argument that neither fails on the common kinds nor needs a capability,
/// known when the call is compiled.
#[derive(Clone, Copy, Debug)]
pub enum Builtin1 {
    /// `len(v)`.
    Len,
    /// `type_of(v)`.
    TypeOf,
}

#[derive(Debug)]
pub enum Op {
    /// Only the steps.
    Tick,
    Move {
        dst: Reg,
        src: Opnd,
    },
    Binary {
        op: BinOp,
        dst: Reg,
        a: Opnd,
        b: Opnd,
    },
    Unary {
        op: UnOp,
        dst: Reg,
        a: Opnd,
    },
    /// `truthy_bool(a)`; when it equals `when`, writes `when` to `set` (if any) and jumps.
    Branch {
        a: Opnd,
        when: bool,
        set: Option<Reg>,
        target: Label,
    },
    /// `Branch` on the comparison `a op b` (no bool built): a condition `x < n`.
    BranchCmp {
        op: BinOp,
        a: Opnd,
        b: Opnd,
        when: bool,
        target: Label,
    },
    /// `dst = truthy_bool(a)` as a bool (the right side of `and`/`or`).
    ToBool {
        dst: Reg,
        a: Opnd,
    },
    Jump(Label),
    Call {
        dst: Reg,
        callee: Callee,
        args: Box<[Opnd]>,
    },
    /// `len(a)` or `type_of(a)` whose value is read: the answer straight into `dst`; a kind
    /// `len` has no answer for takes [`Op::Call`]'s way (the same message).
    Builtin1 {
        dst: Reg,
        which: Builtin1,
        def: &'static BuiltinDef,
        a: Opnd,
    },
    Method {
        dst: Reg,
        recv: Opnd,
        name: Rc<str>,
        args: Box<[Opnd]>,
    },
    /// `recv.len()` or `recv.ord()` whose value is read: the int written straight into `dst` when
    /// `recv` is a kind with that method and it succeeds; otherwise [`Op::Method`]'s way, with no
    /// arguments (the same dispatch, result and message).
    IntMethod {
        dst: Reg,
        recv: Opnd,
        which: IntMethod,
        name: Rc<str>,
    },
    /// A W1 statement `v.name(args)` (voxscript.md §4.3) on local `slot`; `expr` is the call.
    WriteBack {
        dst: Reg,
        slot: Slot,
        name: Rc<str>,
        args: Box<[Opnd]>,
        expr: ExprId,
    },
    /// The W1 statement `v.push(a)` on local `slot` ([`Op::WriteBack`] for `push` with one
    /// argument): when `v` holds a list, the push without dispatch by name, an arguments vector or
    /// a copy of the result nobody reads.
    Push {
        dst: Reg,
        slot: Slot,
        name: Rc<str>,
        a: Opnd,
        expr: ExprId,
    },
    Index {
        dst: Reg,
        a: Opnd,
        i: Opnd,
    },
    /// `a[i].unwrap()`: the element without the `Some`; index errors at `index_at`.
    IndexUnwrap {
        dst: Reg,
        a: Opnd,
        i: Opnd,
        index_at: TextRange,
    },
    Field {
        dst: Reg,
        a: Opnd,
        name: Rc<str>,
    },
    List {
        dst: Reg,
        items: Box<[Opnd]>,
    },
    Tuple {
        dst: Reg,
        items: Box<[Opnd]>,
    },
    Map {
        dst: Reg,
        keys: Box<[Rc<str>]>,
        values: Box<[Opnd]>,
    },
    Template {
        dst: Reg,
        pieces: Box<[TemplatePiece]>,
    },
    Closure {
        dst: Reg,
        func: u32,
        captures: Box<[Slot]>,
    },
    Try {
        dst: Reg,
        a: Opnd,
    },
    /// Tries `pat` on `a` (binding its names); jumps to `fail` when it does not match, and lets
    /// `a` go when it does (the arm reads its bindings).
    MatchPat {
        pat: PatId,
        a: Opnd,
        fail: Label,
    },
    NoArm,
    /// Drops a temporary's value (a `match` scrutinee after its arms).
    Clear(Reg),
    /// `dst = old (op) a` for `local op= a`, or `local = a`.
    Assign {
        slot: Slot,
        op: Option<BinOp>,
        a: Opnd,
    },
    /// `local.f[i]… (op)= a`: the place's index operands, then `a`, evaluated before it runs.
    AssignPath {
        slot: Slot,
        path: Box<[PathStep]>,
        op: Option<BinOp>,
        a: Opnd,
    },
    /// `let PAT = a` for a pattern other than a name or `_` (`let (v, q) = f()`): the tree-walker's
    /// `bind_let`, its errors at the statement.
    Let {
        pat: PatId,
        a: Opnd,
    },
    /// Starts iterating `a` in iterator `state`.
    ForStart {
        state: u32,
        a: Opnd,
    },
    /// `for x in range(args)`: `range`'s checks, then counts in iterator `state` without the list
    /// (at the call's location, like the call it stands for).
    ForRange {
        state: u32,
        range: &'static BuiltinDef,
        args: Box<[Opnd]>,
    },
    /// The next element into `value`/`index`, or a jump to `done`.
    ForNext {
        state: u32,
        value: Option<Slot>,
        index: Option<Slot>,
        done: Label,
    },
    /// Drops iterator `state`'s value.
    ForEnd {
        state: u32,
    },
    Return(Opnd),
    /// `break`/`continue` with no loop of this body around them: ends the body as the tree-walker's
    /// flow does.
    Escape {
        brk: bool,
    },
    /// An expression the tier does not compile, evaluated by the tree-walker; its `break` and
    /// `continue` reach the loop around it here.
    Eval {
        dst: Reg,
        expr: ExprId,
        brk: Option<Label>,
        cont: Option<Label>,
    },
    /// A statement the tier does not compile.
    Stmt {
        dst: Reg,
        stmt: StmtId,
        brk: Option<Label>,
        cont: Option<Label>,
    },
}

#[derive(Debug)]
pub struct Ins {
    pub op: Op,
    /// Steps counted before the action: `tick_at[first..first + ticks]`.
    pub ticks: u32,
    pub first: u32,
    /// Where the action's own errors are located.
    pub at: TextRange,
}

#[derive(Debug, Default)]
pub struct Chunk {
    pub code: Vec<Ins>,
    pub tick_at: Vec<TextRange>,
    pub consts: Vec<Value>,
    pub strs: Vec<Rc<str>>,
    /// Temporaries after the function's slots.
    pub n_temps: u32,
    /// Iterator states (one per `for` nesting level).
    pub n_iters: u32,
    /// The register holding the body's value when it ends without `return`.
    pub result: Opnd,
}

/// What the interpreter keeps per function: not yet looked at, or its chunk.
pub enum Tier {
    Unknown,
    Compiled(Rc<Chunk>),
}

impl Default for Opnd {
    fn default() -> Opnd {
        Opnd::Const(0)
    }
}
