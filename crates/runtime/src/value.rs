//! Runtime values. Values never alias (voxscript.md §4.3): containers are `Rc`-shared and copied on
//! write with `Rc::make_mut`, which is indistinguishable from copying.

use std::rc::Rc;

use indexmap::IndexMap;
use rust_decimal::Decimal;

/// A map with str keys in insertion order (records are maps too).
pub type VMap = IndexMap<Rc<str>, Value>;

#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Dec(Decimal),
    Str(Rc<str>),
    List(Rc<Vec<Value>>),
    Map(Rc<VMap>),
    /// Two or more elements.
    Tuple(Rc<Vec<Value>>),
    /// `Some(v)` is `Opt(Some(..))`, `None` is `Opt(None)`.
    Opt(Option<Rc<Value>>),
    /// `Ok(v)` is `Res(Ok(..))`, `Err(e)` / `Error(e)` is `Res(Err(..))`.
    Res(Result<Rc<Value>, Rc<Value>>),
    Tagged(Rc<Tagged>),
    Func(Rc<Func>),
    Namespace(Rc<Namespace>),
    Regex(Rc<RegexValue>),
    Match(Rc<MatchValue>),
}

/// A value of an ADT variant: `Circle(2.0)`, `Empty`.
#[derive(Debug)]
pub struct Tagged {
    pub variant: Rc<str>,
    /// Declared field names, by position.
    pub fields: Rc<[Rc<str>]>,
    pub values: Vec<Value>,
}

/// Anything callable.
#[derive(Debug)]
pub enum Func {
    /// A builtin from the table in `builtins`.
    Builtin(&'static crate::builtin::BuiltinDef),
    /// An ADT variant constructor (`Circle`), with its declared field names.
    Ctor { variant: Rc<str>, fields: Rc<[Rc<str>]> },
    /// A named user function or a closure; opaque outside the evaluator.
    Code(Rc<CodeFn>),
}

/// A user function or closure. The evaluator owns the meaning of `module` and `func`.
#[derive(Debug)]
pub struct CodeFn {
    /// `Some(name)` for a named function, `None` for a closure.
    pub name: Option<Rc<str>>,
    pub module: u32,
    pub func: u32,
    /// The closure's snapshot of visible locals (empty for named functions).
    pub captures: Vec<Value>,
}

#[derive(Debug)]
pub struct Namespace {
    pub name: Rc<str>,
    pub kind: NamespaceKind,
}

#[derive(Debug)]
pub enum NamespaceKind {
    /// `fs`, `math`, …: members come from the builtin table.
    Builtin,
    /// `std`: its members are the builtin namespaces.
    Std,
    /// `import "./x.vox" as x`: the imported file's public functions and variants.
    Module(VMap),
}

#[derive(Debug)]
pub struct RegexValue {
    pub pattern: Rc<str>,
    pub regex: regex::Regex,
}

#[derive(Debug)]
pub struct MatchValue {
    /// The whole match.
    pub text: Rc<str>,
    /// Group 0 is the whole match; `None` when a group did not take part.
    pub groups: Vec<Option<Rc<str>>>,
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }
    pub fn some(v: Value) -> Value {
        Value::Opt(Some(Rc::new(v)))
    }
    pub fn none() -> Value {
        Value::Opt(None)
    }
    pub fn ok(v: Value) -> Value {
        Value::Res(Ok(Rc::new(v)))
    }
    pub fn err(v: Value) -> Value {
        Value::Res(Err(Rc::new(v)))
    }
    pub fn list(v: Vec<Value>) -> Value {
        Value::List(Rc::new(v))
    }
}
