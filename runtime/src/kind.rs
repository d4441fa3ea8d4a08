//! Kind names of values: `type_of` results and the names used in operator messages (voxscript.md §4.1).

use std::rc::Rc;

use crate::value::{Func, Value};

/// The `type_of` result.
pub fn type_of(v: &Value) -> &'static str {
    TYPE_NAMES[type_index(v)]
}

/// What `type_of` answers, by [`type_index`].
const TYPE_NAMES: [&str; 13] = [
    "null", "bool", "int", "float", "dec", "str", "List", "Object", "Tuple", "Option", "Result",
    "fn", "unknown",
];

fn type_index(v: &Value) -> usize {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Int(_) => 2,
        Value::Float(_) => 3,
        Value::Dec(_) => 4,
        Value::Str(_) => 5,
        Value::List(_) => 6,
        Value::Map(_) => 7,
        Value::Tuple(_) => 8,
        Value::Opt(_) => 9,
        Value::Res(_) => 10,
        Value::Func(_) => 11,
        Value::Tagged(_) | Value::Namespace(_) | Value::Regex(_) | Value::Match(_) => 12,
    }
}

/// [`type_of`] as a str shared per name and thread: a script that dispatches on `type_of(v)` (a
/// JSON walk) made a new str at every call.
pub fn type_of_str(v: &Value) -> Rc<str> {
    thread_local! {
        static SHARED: [Rc<str>; 13] = TYPE_NAMES.map(Rc::from);
    }
    SHARED.with(|t| t[type_index(v)].clone())
}

/// The name used in messages such as ``unsupported binary op `Add` for operands Int and Bool``.
pub fn message_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "Null",
        Value::Bool(_) => "Bool",
        Value::Int(_) => "Int",
        Value::Float(_) => "Float",
        Value::Dec(_) => "Decimal",
        Value::Str(_) => "Str",
        Value::List(_) => "List",
        Value::Map(_) => "Object",
        Value::Tuple(_) => "Tuple",
        Value::Opt(_) => "Option",
        Value::Res(_) => "Result",
        Value::Func(f) => match **f {
            Func::Builtin(_) | Func::Ctor { .. } | Func::Code(_) | Func::JsonCodec { .. } => "Fn",
        },
        Value::Tagged(_) => "Tagged",
        Value::Namespace(_) => "Namespace",
        Value::Regex(_) => "Regex",
        Value::Match(_) => "Match",
    }
}
