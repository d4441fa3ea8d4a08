//! Methods on values (voxscript.md §5.10, §5.11). Every method returns a new value; the evaluator applies
//! the write-back rules (W1/W2). Closures passed to methods are called through `Host::call`.

use std::rc::Rc;

use crate::exc::Res;
use crate::native::not_found;
use crate::value::{Args, CallName, Host, Value};

pub(crate) mod list;
mod map;
mod number;
pub(crate) mod option_result;
pub(crate) mod regex;
#[path = "str.rs"]
mod strs;

/// The receiver-kind prefix used in argument messages (`str.split`, `list.map`, …).
pub fn kind_prefix(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::Dec(_) => "dec",
        Value::Str(_) => "str",
        Value::List(_) => "list",
        Value::Map(_) => "map",
        Value::Tuple(_) => "tuple",
        Value::Opt(_) => "option",
        Value::Res(_) => "result",
        Value::Func(_) => "fn",
        Value::Tagged(_) => "tagged",
        Value::Namespace(_) => "namespace",
        Value::Regex(_) => "regex",
        Value::Match(_) => "match",
    }
}

pub use vox_hir::catalog::{is_method_of, method_names, JSON_HELPERS};

/// Calls method `name` on `recv` with positional arguments.
pub fn call_method(host: &mut dyn Host, recv: &Value, name: &str, args: Vec<Value>) -> Res<Value> {
    call_method_owned(host, recv.clone(), &Rc::from(name), args)
}

/// As `call_method`, taking the receiver by value: when the caller gives up its only reference (a W1
/// statement such as `xs.push(x)`), growth methods mutate in place instead of copying the container.
pub fn call_method_owned(
    host: &mut dyn Host,
    recv: Value,
    name: &Rc<str>,
    args: Vec<Value>,
) -> Res<Value> {
    let args = Args::new(CallName::method(kind_prefix(&recv), name.clone()), args);
    let name: &str = name;
    if let Some(v) = json_helper(&recv, name, &args)? {
        return Ok(v);
    }
    match recv {
        Value::Str(s) => strs::call(host, s, name, args),
        Value::List(l) => list::call(host, l, name, args),
        Value::Map(m) => map::call(host, m, name, args),
        Value::Opt(o) => option_result::call_option(host, o, name, args),
        Value::Res(r) => option_result::call_result(host, r, name, args),
        Value::Int(i) => number::call_int(i, name, args),
        Value::Float(f) => number::call_float(f, name, args),
        Value::Dec(d) => number::call_dec(d, name, args),
        Value::Bool(b) => number::call_bool(b, name, args),
        Value::Regex(r) => regex::call_regex(host, &r, name, args),
        Value::Match(m) => regex::call_match(&m, name, args),
        _ => Err(not_found(name)),
    }
}

/// The JSON helpers every kind has (`as_str()` … `as_object()`, `is_null()`); they never fail.
fn json_helper(recv: &Value, name: &str, args: &Args) -> Res<Option<Value>> {
    let pick = |ok: bool| {
        if ok {
            Value::some(recv.clone())
        } else {
            Value::none()
        }
    };
    let v = match name {
        "as_str" => pick(matches!(recv, Value::Str(_))),
        "as_int" => pick(matches!(recv, Value::Int(_))),
        "as_float" => pick(matches!(recv, Value::Float(_))),
        "as_bool" => pick(matches!(recv, Value::Bool(_))),
        "as_array" => pick(matches!(recv, Value::List(_))),
        "as_object" => pick(matches!(recv, Value::Map(_))),
        "is_null" => Value::Bool(matches!(recv, Value::Null | Value::Opt(None))),
        _ => return Ok(None),
    };
    args.arity(0, 0)?;
    Ok(Some(v))
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;
    use crate::display::display;
    use crate::exc::Exc;
    use crate::test_host::MockHost;

    /// Calls a method and renders the result (or the error message) for compact assertions.
    pub fn m(host: &mut MockHost, recv: &Value, name: &str, args: Vec<Value>) -> String {
        match call_method(host, recv, name, args) {
            Ok(v) => display(&v),
            Err(Exc::Error { message, .. }) => format!("error: {message}"),
            Err(e) => format!("exc: {e:?}"),
        }
    }

    pub fn s(x: &str) -> Value {
        Value::str(x)
    }

    pub fn ints(xs: &[i64]) -> Value {
        Value::list(xs.iter().map(|i| Value::Int(*i)).collect())
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::testutil::*;
    use super::*;
    use crate::test_host::MockHost;

    #[test]
    fn json_helpers_on_every_kind() {
        let mut h = MockHost::new();
        assert_eq!(m(&mut h, &Value::Int(1), "as_int", vec![]), "Some(1)");
        assert_eq!(m(&mut h, &Value::Int(1), "as_str", vec![]), "None");
        assert_eq!(m(&mut h, &Value::Null, "as_array", vec![]), "None");
        assert_eq!(m(&mut h, &ints(&[1]), "as_array", vec![]), "Some([1])");
        assert_eq!(m(&mut h, &Value::none(), "as_object", vec![]), "None");
        assert_eq!(m(&mut h, &Value::Null, "is_null", vec![]), "true");
        assert_eq!(
            m(&mut h, &Value::Null, "frobnicate", vec![]),
            "error: Method frobnicate not found"
        );
        assert_eq!(
            m(&mut h, &Value::Int(1), "push", vec![]),
            "error: Method push not found"
        );
    }

    /// `method_names` matches the dispatch: every listed name exists, so the lists cannot drift.
    #[test]
    fn method_lists_match_dispatch() {
        let mut h = MockHost::new();
        let re = ::regex::Regex::new("a").unwrap();
        let samples = [
            s("x"),
            ints(&[1]),
            Value::map(crate::value::VMap::new()),
            Value::some(Value::Int(1)),
            Value::ok(Value::Int(1)),
            Value::Int(1),
            Value::Float(1.0),
            Value::Dec(rust_decimal::Decimal::ONE),
            Value::Bool(true),
            Value::Regex(Rc::new(crate::value::RegexValue {
                pattern: Rc::from("a"),
                regex: re,
            })),
            Value::Match(Rc::new(crate::value::MatchValue {
                text: Rc::from("a"),
                groups: vec![],
            })),
        ];
        for recv in samples {
            let kind = kind_prefix(&recv);
            assert!(!method_names(kind).is_empty(), "{kind}");
            for name in method_names(kind) {
                // Wrong arguments give arity or type errors, never "not found".
                let out = m(
                    &mut h,
                    &recv,
                    name,
                    vec![Value::Null, Value::Null, Value::Null, Value::Null],
                );
                assert!(!out.contains("not found"), "{kind}.{name}: {out}");
            }
            assert!(is_method_of(kind, "as_str"));
        }
    }
}
