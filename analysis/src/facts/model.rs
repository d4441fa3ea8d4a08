//! The facts of one function, as data: what the rules and the workspace queries read
//! ([`FnFacts`]), the builder the passes fill, and the small shared predicates they use.

use std::sync::Arc;

use vox_hir::{Cap, Nondet};
use vox_syntax::TextRange;

use super::builtin::Builtin;
use super::list::List;
use crate::body::CallTarget;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Access {
    Read,
    Write,
    /// Listing, globbing or walking a directory.
    List,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathFact {
    /// The whole path, lexically normalised.
    Const(String),
    /// The longest constant directory prefix of a partly constant path (`"data/" + name`).
    Prefix(String),
    Dynamic,
    /// Not known statically, and comes from input (`env`, arguments, file contents, JSON): it
    /// may be absolute and lie anywhere, so a widened grant may not cover it.
    Input,
    /// From input, or this constant path where the input is absent (its default:
    /// `path.join(env.get("CONF").unwrap_or("/etc"), "hostname")` is `/etc/hostname`).
    InputOr(String),
    /// From input, or somewhere under this constant directory where the input is absent
    /// (`path.join(env.get("DATA").unwrap_or("data"), name)`).
    InputUnder(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathShape {
    /// A string literal, directly or through a local bound once to it (the literal's range).
    Literal(String, TextRange),
    /// Built with `+` and a literal starting or ending with `/`.
    SlashConcat,
    /// Comes from input (`env`, `args`, process output, listings, file contents, JSON) without
    /// `path.normalize`.
    Input,
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathArg {
    pub builtin: Builtin,
    pub access: Access,
    /// The argument (the call, when the argument is the default `"."`).
    pub range: TextRange,
    /// The whole call.
    pub call: TextRange,
    pub fact: PathFact,
    pub shape: PathShape,
    /// Whether the call is `fs.glob` (the fact is then the pattern's base directory).
    pub glob: bool,
}

impl PathArg {
    pub fn ns(&self) -> &'static str {
        self.builtin.ns()
    }

    pub fn name(&self) -> &'static str {
        self.builtin.name()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OrderKind {
    /// Iteration over a map (D002).
    Map,
    /// A directory listing (D007).
    Listing,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderLeak {
    pub kind: OrderKind,
    /// The iteration or listing.
    pub source: TextRange,
    /// Where its order becomes observable.
    pub sink: TextRange,
    /// What the sink is (`print`, `return`, `break`, …), for the message.
    pub what: String,
}

/// Boxed slices, not vectors, and [`List`] for the lists that are mostly empty: the facts of
/// every function of a workspace stay in memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FnFacts {
    /// User functions this body calls or passes as values.
    pub calls: Box<[CallFact]>,
    /// Builtin calls that need a capability or vary between runs, in source order.
    pub effects: List<EffectSite>,
    /// Host-math method calls (D001).
    pub host_math: List<HostMath>,
    /// Reads of `modified_ms` (D003).
    pub mtime_reads: List<TextRange>,
    /// Integer operations whose result may leave i64 (D004), each with the parameter tiers it
    /// holds under.
    pub overflows: List<Overflow>,
    /// Direct calls of user functions with their int arguments' tiers (D004's parameter
    /// ranges, `param_tiers`).
    pub int_calls: List<IntCall>,
    /// Path arguments of fs, io and process calls (D005, C004, capability inference).
    pub paths: List<PathArg>,
    /// Map iterations and directory listings whose order reaches output (D002, D007).
    pub order_leaks: List<OrderLeak>,
    /// Order-carrying values passed to user functions: resolved against the callee's
    /// `param_order_sensitive` by the rules.
    pub order_args: List<OrderArg>,
    /// Iterations and listings whose order reaches the function's result: they show where a
    /// caller uses the result's order (`observed_returns`).
    pub returned_order: List<OrderLeak>,
    /// User functions whose result's order this body shows (prints, writes, …): each once, at
    /// its first such call.
    pub observed_calls: List<(CallTarget, TextRange)>,
    /// User functions whose result's order reaches this function's own result: each once, at
    /// its first such call.
    pub returned_calls: List<(CallTarget, TextRange)>,
    /// Whether the body prints, logs or writes anything itself.
    pub writes_output: bool,
    /// Per parameter of the function: whether the body uses its order.
    pub param_order_sensitive: List<bool>,
    /// Per parameter: whether the body iterates it (`for k, v in p`) where the order shows, so
    /// a map passed to it shows its order (`OrderArg::map_value`).
    pub param_iterated: List<bool>,
    /// `check.*` findings.
    pub checks: List<CheckFact>,
}

#[derive(Default)]
/// [`FnFacts`] while it is computed.
pub(crate) struct FactsBuilder {
    /// User functions this body calls or passes as values.
    pub calls: Vec<CallFact>,
    /// Builtin calls that need a capability or vary between runs, in source order.
    pub effects: Vec<EffectSite>,
    /// Host-math method calls (D001).
    pub host_math: Vec<HostMath>,
    /// Reads of `modified_ms` (D003).
    pub mtime_reads: Vec<TextRange>,
    /// Integer operations whose result may leave i64 (D004).
    pub overflows: Vec<Overflow>,
    /// Direct calls of user functions with their int arguments' intervals per tier.
    pub int_calls: Vec<IntCall>,
    /// Path arguments of fs, io and process calls (D005, C004, capability inference).
    pub paths: Vec<PathArg>,
    /// Map iterations and directory listings whose order reaches output (D002, D007).
    pub order_leaks: Vec<OrderLeak>,
    /// Order-carrying values passed to user functions: resolved against the callee's
    /// `param_order_sensitive` by the rules.
    pub order_args: Vec<OrderArg>,
    pub returned_order: Vec<OrderLeak>,
    pub observed_calls: Vec<(CallTarget, TextRange)>,
    pub returned_calls: Vec<(CallTarget, TextRange)>,
    /// Whether the body prints, logs or writes anything itself.
    pub writes_output: bool,
    /// Per parameter of the function: whether the body uses its order.
    pub param_order_sensitive: Vec<bool>,
    pub param_iterated: Vec<bool>,
    /// `check.*` findings.
    pub checks: Vec<CheckFact>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallFact {
    pub target: CallTarget,
    pub range: TextRange,
    /// Called here (`f(x)`, `x |> f`), not passed on as a value: its arguments are then the
    /// ones at this site.
    pub direct: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EffectSite {
    pub builtin: Builtin,
    pub cap: Cap,
    pub nondet: Nondet,
    /// The call.
    pub range: TextRange,
}

impl EffectSite {
    pub fn ns(&self) -> &'static str {
        self.builtin.ns()
    }

    pub fn name(&self) -> &'static str {
        self.builtin.name()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostMath {
    pub range: TextRange,
    pub method: Arc<str>,
    pub recv: TextRange,
    pub args: Vec<TextRange>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The operation (for `x += 1`, the statement).
    pub range: TextRange,
    /// `+`, `-`, `*`, `neg`, `abs`.
    pub op: &'static str,
    pub operands: Vec<TextRange>,
    /// `+=` and friends.
    pub compound: bool,
    /// Bit `t` set: reported when the function's int parameters are bounded as tier `t` of
    /// [`intervals::TIERS`] says (bit 0: unbounded).
    pub tiers: u8,
}

/// A direct call of a user function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntCall {
    pub target: CallTarget,
    /// The call (equal to the [`CallFact`] range of the same call).
    pub range: TextRange,
    /// Per positional argument, per tier of the caller: the tightest tier ([`tier_of`]) the
    /// argument's interval fits (0: unbounded, or not an int).
    pub args: Box<[ArgTiers]>,
}

/// One argument's tier under each tier of the caller (0: not a bounded int). Tiers, not
/// intervals: `param_tiers` needs no more, and every call of the workspace keeps one.
pub type ArgTiers = [u8; 4];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderArg {
    pub kind: OrderKind,
    /// The iteration or listing the value comes from.
    pub source: TextRange,
    pub call: CallTarget,
    pub arg: u32,
    /// A map itself passed (`show({b: 1, a: 2})`): its order shows where the callee iterates
    /// the parameter (`param_iterated`), not wherever it uses the parameter's order.
    pub map_value: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckFact {
    pub code: &'static str,
    pub range: TextRange,
    pub message: String,
    pub error: bool,
}

impl FactsBuilder {
    pub(super) fn finish(self) -> FnFacts {
        FnFacts {
            calls: self.calls.into(),
            effects: self.effects.into(),
            host_math: self.host_math.into(),
            mtime_reads: self.mtime_reads.into(),
            overflows: self.overflows.into(),
            int_calls: self.int_calls.into(),
            paths: self.paths.into(),
            order_leaks: self.order_leaks.into(),
            order_args: self.order_args.into(),
            returned_order: self.returned_order.into(),
            observed_calls: self.observed_calls.into(),
            returned_calls: self.returned_calls.into(),
            writes_output: self.writes_output,
            param_order_sensitive: self.param_order_sensitive.into(),
            param_iterated: self.param_iterated.into(),
            checks: self.checks.into(),
        }
    }
}

/// Host-math method names (voxscript.md §5.11): results may differ between machines.
pub const HOST_MATH: &[&str] = &[
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "exp", "exp2", "exp_m1", "ln", "log2", "log10", "ln_1p", "cbrt", "log", "powf", "powi",
    "hypot", "atan2",
];

/// Output-producing builtins: what makes a loop body's order visible.
pub fn is_output(ns: &str, name: &str) -> bool {
    matches!(
        (ns, name),
        ("", "print") | ("log", _) | ("io", "save") | ("process", _) | ("http", _)
    ) || (ns == "fs"
        && matches!(
            name,
            "write"
                | "write_file"
                | "write_to_file"
                | "copy"
                | "remove"
                | "remove_dir_all"
                | "mkdir"
        ))
}
