//! The shape of the builtin table. Every builtin is a row that names its capability; the evaluator
//! calls `Host::gate` with that capability before running the function, which makes the table the
//! single choke point (a test enumerates the table).

use crate::exc::{Exc, Res};
use crate::value::Value;

pub use vox_hir::{Cap, Nondet};

pub type BuiltinFn = fn(&mut dyn Host, &mut Args) -> Res<Value>;

#[derive(Debug)]
pub struct BuiltinDef {
    /// Namespace (`"fs"`), or `""` for a global function (`print`).
    pub ns: &'static str,
    pub name: &'static str,
    pub cap: Cap,
    pub nondet: Nondet,
    pub f: BuiltinFn,
}

impl BuiltinDef {
    /// `fs.read`, or `print` for a global.
    pub fn qualified(&self) -> String {
        if self.ns.is_empty() {
            self.name.to_string()
        } else {
            format!("{}.{}", self.ns, self.name)
        }
    }
}

/// What builtins need from the evaluator.
pub trait Host {
    /// Calls any function value with positional arguments (closures passed to `map`, `sorted_by`, …).
    fn call(&mut self, f: &Value, args: Vec<Value>) -> Res<Value>;
    /// `call` with one argument; hosts may avoid building a `Vec` (closures in `map`, `filter`).
    fn call1(&mut self, f: &Value, a: Value) -> Res<Value> {
        self.call(f, vec![a])
    }
    /// `call` with two arguments (`fold`, `sorted_by`).
    fn call2(&mut self, f: &Value, a: Value, b: Value) -> Res<Value> {
        self.call(f, vec![a, b])
    }
    /// The next value of the run's SplitMix64 stream (voxscript.md §5.7). The capability was checked
    /// already, through the builtin's `Cap::Random`.
    fn next_random(&mut self) -> u64;
    /// Writes script output (counted against `--max-output`).
    fn write_stdout(&mut self, text: &str) -> Res<()>;
    fn write_stderr(&mut self, text: &str) -> Res<()>;
    /// Called before a builtin builds a value of about `bytes` bytes, so `--max-memory` trips before
    /// the allocation instead of after it.
    fn reserve(&mut self, bytes: usize) -> Res<()>;
    /// The run's state, for builtins with effects (filesystem, processes, clock). `None` in
    /// hosts that only run pure code (unit tests).
    fn ctx(&mut self) -> Option<&mut crate::context::RunContext> {
        None
    }
}

/// Positional arguments of a builtin call, with the checks every builtin shares.
pub struct Args {
    /// The qualified name used in messages (`fs.read`, `len`, `str.split`).
    pub name: String,
    pub values: Vec<Value>,
}

impl Args {
    pub fn new(name: impl Into<String>, values: Vec<Value>) -> Args {
        Args {
            name: name.into(),
            values,
        }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// ``function `fs.read` expects 1 argument, got 2`` unless `min <= len <= max`.
    pub fn arity(&self, min: usize, max: usize) -> Res<()> {
        let n = self.values.len();
        if n >= min && n <= max {
            return Ok(());
        }
        let expected = if n < min { min } else { max };
        let noun = if expected == 1 {
            "argument"
        } else {
            "arguments"
        };
        Err(Exc::error(format!(
            "function `{}` expects {expected} {noun}, got {n}",
            self.name
        )))
    }

    /// `type error: <builtin> argument <n>: expected <what>, found <type_of>` (n is 1-based).
    pub fn type_error(&self, index: usize, expected: &str) -> Exc {
        let found = self
            .values
            .get(index)
            .map(crate::kind::type_of)
            .unwrap_or("null");
        Exc::error(format!(
            "type error: {} argument {}: expected {expected}, found {found}",
            self.name,
            index + 1
        ))
    }

    pub fn get(&self, index: usize) -> &Value {
        self.values.get(index).unwrap_or(&Value::Null)
    }

    pub fn str(&self, index: usize) -> Res<&str> {
        match self.values.get(index) {
            Some(Value::Str(s)) => Ok(s),
            _ => Err(self.type_error(index, "str")),
        }
    }

    pub fn int(&self, index: usize) -> Res<i64> {
        match self.values.get(index) {
            Some(Value::Int(i)) => Ok(*i),
            _ => Err(self.type_error(index, "int")),
        }
    }

    /// A number as f64 (int or float; math functions convert ints).
    pub fn number(&self, index: usize) -> Res<f64> {
        match self.values.get(index) {
            Some(Value::Int(i)) => Ok(*i as f64),
            Some(Value::Float(f)) => Ok(*f),
            _ => Err(self.type_error(index, "number")),
        }
    }

    pub fn list(&self, index: usize) -> Res<&[Value]> {
        match self.values.get(index) {
            Some(Value::List(l)) => Ok(l),
            _ => Err(self.type_error(index, "list")),
        }
    }
}
