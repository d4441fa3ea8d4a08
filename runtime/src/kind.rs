//! Kind names of values: `type_of` results and the names used in operator messages (voxscript.md §4.1).

use crate::value::{Func, Value};

/// The `type_of` result.
pub fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::Dec(_) => "dec",
        Value::Str(_) => "str",
        Value::List(_) => "List",
        Value::Map(_) => "Object",
        Value::Tuple(_) => "Tuple",
        Value::Opt(_) => "Option",
        Value::Res(_) => "Result",
        Value::Func(_) => "fn",
        Value::Tagged(_) | Value::Namespace(_) | Value::Regex(_) | Value::Match(_) => "unknown",
    }
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
