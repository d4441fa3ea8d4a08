//! The checks every builtin shares on its positional arguments ([`Args`], defined with the value
//! model in `value.rs` because a builtin function is a value).

use crate::exc::{Exc, Res};
use crate::value::{Args, CallName, Value};

impl Args {
    pub fn new(name: impl Into<CallName>, values: Vec<Value>) -> Args {
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
