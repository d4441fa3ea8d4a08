//! What the native functions (the builtin rows in `builtins/` and the methods in `methods/`) share:
//! vectors and strings reserved with the host before they are built, string values, the `Method …
//! not found` error, predicate calls, and the `min`/`max`/`sum` folds over a list.

use std::cmp::Ordering;
use std::rc::Rc;

use crate::exc::{Exc, Res};
use crate::kind::type_of;
use crate::ops::{binary, truthy_bool, BinOp};
use crate::order::total_cmp;
use crate::value::{Host, Value};

/// Bytes one list element takes, for `Host::reserve` estimates.
pub(crate) const VALUE_SIZE: usize = std::mem::size_of::<Value>();

/// `Method m not found`.
pub fn not_found(name: &str) -> Exc {
    Exc::error(format!("Method {name} not found"))
}

/// A function argument called with one value, requiring a Bool result (`filter`, `any`, `all`).
pub(crate) fn call_pred(host: &mut dyn Host, f: &Value, x: Value) -> Res<bool> {
    truthy_bool(&host.call1(f, x)?)
}

/// A vector with room for `n` values, reserved with the host first and without aborting on failure.
pub(crate) fn alloc_values(host: &mut dyn Host, n: usize) -> Res<Vec<Value>> {
    host.reserve(n.saturating_mul(VALUE_SIZE))?;
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Exc::error(format!("out of memory: {n} values")))?;
    Ok(v)
}

/// A string with room for `n` bytes, reserved with the host first and without aborting on failure.
pub(crate) fn alloc_string(host: &mut dyn Host, n: usize) -> Res<String> {
    host.reserve(n)?;
    let mut s = String::new();
    s.try_reserve_exact(n)
        .map_err(|_| Exc::error(format!("out of memory: {n} bytes")))?;
    Ok(s)
}

pub(crate) fn rc_str(s: impl AsRef<str>) -> Value {
    Value::Str(Rc::from(s.as_ref()))
}

/// The first element that is extreme in the total order (`Greater` for max, `Less` for min).
pub(crate) fn extreme(items: &[Value], want: Ordering) -> Option<Value> {
    let mut best: Option<&Value> = None;
    for x in items {
        match best {
            Some(b) if total_cmp(x, b) != want => {}
            _ => best = Some(x),
        }
    }
    best.cloned()
}

/// `sum`: a checked int sum; a float if any element is a float; decimals with int promotion; 0 for `[]`.
pub(crate) fn sum(items: &[Value]) -> Res<Value> {
    for x in items {
        if !matches!(x, Value::Int(_) | Value::Float(_) | Value::Dec(_)) {
            return Err(Exc::error(format!(
                "type error: sum: expected number, found {}",
                type_of(x)
            )));
        }
    }
    let has_float = items.iter().any(|x| matches!(x, Value::Float(_)));
    let has_dec = items.iter().any(|x| matches!(x, Value::Dec(_)));
    if has_float && !has_dec {
        let mut total = 0.0f64;
        for x in items {
            total += match x {
                Value::Int(i) => *i as f64,
                Value::Float(f) => *f,
                _ => 0.0,
            };
        }
        return Ok(Value::Float(total));
    }
    let mut acc = Value::Int(0);
    for x in items {
        acc = binary(BinOp::Add, &acc, x)?;
    }
    Ok(acc)
}
