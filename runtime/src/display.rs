//! Display forms (voxscript.md §4.11, §4.4) and the compact JSON rendering used by `json.render` and
//! `to_string()` on lists and maps (§5.9). Both live here because they walk the same value shapes.

use std::fmt::Write;

use crate::kind::message_name;
use crate::value::{depth, with_stack, Func, Value};

/// The display form of `v`: what `print` writes and `str(x)` returns.
pub fn display(v: &Value) -> String {
    let mut out = String::new();
    display_into(&mut out, v);
    out
}

/// Appends the display form of `v` to `out` (avoids intermediate strings for containers).
pub fn display_into(out: &mut String, v: &Value) {
    if depth(v) == 0 {
        display_node(out, v)
    } else {
        with_stack(|| display_node(out, v))
    }
}

fn display_node(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => float_into(out, *f),
        // rust_decimal's Display keeps the scale and never uses exponent notation.
        Value::Dec(d) => {
            let _ = write!(out, "{d}");
        }
        Value::Str(s) => out.push_str(s),
        Value::List(items) => {
            out.push('[');
            join_into(out, items);
            out.push(']');
        }
        Value::Map(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(k);
                out.push_str(": ");
                display_into(out, v);
            }
            out.push('}');
        }
        Value::Tuple(items) => {
            out.push('(');
            join_into(out, items);
            out.push(')');
        }
        Value::Opt(None) => out.push_str("None"),
        Value::Opt(Some(x)) => wrapped_into(out, "Some", x),
        Value::Res(Ok(x)) => wrapped_into(out, "Ok", x),
        // `Error(e)` is the same value as `Err(e)`, so it shows as `Err(…)`.
        Value::Res(Err(x)) => wrapped_into(out, "Err", x),
        Value::Tagged(t) => {
            out.push_str(&t.variant);
            if !t.values.is_empty() {
                out.push('(');
                join_into(out, &t.values);
                out.push(')');
            }
        }
        Value::Func(f) => match &**f {
            Func::Builtin(def) => {
                let _ = write!(out, "<builtin {}>", def.qualified());
            }
            Func::Ctor { variant, .. } => {
                let _ = write!(out, "<fn {variant}>");
            }
            Func::Code(code) => match &code.name {
                Some(name) => {
                    let _ = write!(out, "<fn {name}>");
                }
                None => out.push_str("<closure>"),
            },
            Func::JsonCodec { name, .. } => {
                let _ = write!(out, "<fn {name}>");
            }
        },
        Value::Namespace(ns) => {
            let _ = write!(out, "<namespace {}>", ns.name);
        }
        Value::Regex(r) => {
            let _ = write!(out, "<regex {}>", r.pattern);
        }
        Value::Match(m) => {
            let _ = write!(out, "<match {}>", m.text);
        }
    }
}

fn wrapped_into(out: &mut String, tag: &str, inner: &Value) {
    out.push_str(tag);
    out.push('(');
    display_into(out, inner);
    out.push(')');
}

fn join_into(out: &mut String, items: &[Value]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        display_into(out, item);
    }
}

/// Rust's `Display` for f64 is exactly the spec's float form: shortest round-trip, no exponent, no `.0`.
pub fn float_into(out: &mut String, f: f64) {
    let _ = write!(out, "{f}");
}

/// The display form of a float (`3`, `-0`, `inf`, `NaN`).
pub fn display_float(f: f64) -> String {
    format!("{f}")
}

/// Compact JSON text of `v`, or the reason it cannot be rendered (the caller wraps it in `Err`).
pub fn json_render(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    json_into(&mut out, v)?;
    Ok(out)
}

/// Appends the compact JSON text of `v` to `out`.
pub fn json_into(out: &mut String, v: &Value) -> Result<(), String> {
    if depth(v) == 0 {
        json_node(out, v)
    } else {
        with_stack(|| json_node(out, v))
    }
}

fn json_node(out: &mut String, v: &Value) -> Result<(), String> {
    match v {
        Value::Null | Value::Opt(None) => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => json_float_into(out, *f),
        Value::Dec(d) => {
            let _ = write!(out, "{d}");
        }
        Value::Str(s) => json_str_into(out, s),
        Value::List(items) | Value::Tuple(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_into(out, item)?;
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_str_into(out, k);
                out.push(':');
                json_into(out, v)?;
            }
            out.push('}');
        }
        Value::Opt(Some(x)) => json_into(out, x)?,
        other => return Err(format!("cannot render {} as JSON", message_name(other))),
    }
    Ok(())
}

/// JSON form of a float: finite values keep serde_json's form (`2.0`, `1e21`); NaN and inf are `null`.
pub fn json_float_into(out: &mut String, f: f64) {
    if f.is_finite() {
        match serde_json::to_string(&f) {
            Ok(s) => out.push_str(&s),
            Err(_) => out.push_str("null"),
        }
    } else {
        out.push_str("null");
    }
}

/// A JSON string literal for `s` (`json.quote`).
pub fn json_str_into(out: &mut String, s: &str) {
    match serde_json::to_string(s) {
        Ok(q) => out.push_str(&q),
        // Serialising a str cannot fail; keep a valid literal regardless.
        Err(_) => out.push_str("\"\""),
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;
    use std::str::FromStr;

    use rust_decimal::Decimal;

    use super::*;
    use crate::value::{CodeFn, Namespace, NamespaceKind, Tagged};

    use crate::test_host::map_of as map;

    #[test]
    fn scalars() {
        assert_eq!(display(&Value::Null), "null");
        assert_eq!(display(&Value::Bool(true)), "true");
        assert_eq!(display(&Value::Int(-5)), "-5");
        assert_eq!(display(&Value::Float(3.0)), "3");
        assert_eq!(display(&Value::Float(2.5)), "2.5");
        assert_eq!(display(&Value::Float(0.1 + 0.2)), "0.30000000000000004");
        assert_eq!(display(&Value::Float(-0.0)), "-0");
        assert_eq!(display(&Value::Float(f64::INFINITY)), "inf");
        assert_eq!(display(&Value::Float(f64::NEG_INFINITY)), "-inf");
        assert_eq!(display(&Value::Float(f64::NAN)), "NaN");
        assert_eq!(display(&Value::Float(1e21)), "1000000000000000000000");
        assert_eq!(display(&Value::Float(0.0000001)), "0.0000001");
    }

    #[test]
    fn decimals_keep_scale() {
        let d = Decimal::from_str("8.250000").unwrap();
        assert_eq!(display(&Value::Dec(d)), "8.250000");
        let tiny = Decimal::from_str("0.0000000000000000000000000001").unwrap();
        assert_eq!(display(&Value::Dec(tiny)), "0.0000000000000000000000000001");
        assert_eq!(json_render(&Value::Dec(d)).unwrap(), "8.250000");
    }

    #[test]
    fn containers() {
        let v = Value::list(vec![
            Value::Int(1),
            Value::str("a"),
            Value::list(vec![Value::Bool(true), Value::Null]),
        ]);
        assert_eq!(display(&v), "[1, a, [true, null]]");
        assert_eq!(display(&Value::list(vec![])), "[]");
        let m = map(&[("b", Value::Int(1)), ("a b", Value::str("x"))]);
        assert_eq!(display(&m), "{b: 1, a b: x}");
        assert_eq!(display(&map(&[])), "{}");
        let t = Value::tuple(vec![Value::Int(1), Value::str("z")]);
        assert_eq!(display(&t), "(1, z)");
    }

    #[test]
    fn options_results_tagged() {
        assert_eq!(display(&Value::some(Value::Int(3))), "Some(3)");
        assert_eq!(display(&Value::none()), "None");
        assert_eq!(display(&Value::ok(Value::str("x"))), "Ok(x)");
        assert_eq!(display(&Value::err(Value::str("bad"))), "Err(bad)");
        let fields: Rc<[Rc<str>]> = Rc::from(vec![Rc::from("r")]);
        let c = Tagged {
            variant: Rc::from("Circle"),
            fields,
            values: vec![Value::Float(2.5)].into(),
        };
        assert_eq!(display(&Value::Tagged(Rc::new(c))), "Circle(2.5)");
        let e = Tagged {
            variant: Rc::from("Empty"),
            fields: Rc::from(Vec::new()),
            values: Default::default(),
        };
        assert_eq!(display(&Value::Tagged(Rc::new(e))), "Empty");
    }

    #[test]
    fn functions_and_namespaces() {
        let named = CodeFn {
            name: Some(Rc::from("f")),
            module: 0,
            func: 0,
            captures: vec![],
        };
        assert_eq!(
            display(&Value::Func(Rc::new(Func::Code(Rc::new(named))))),
            "<fn f>"
        );
        let closure = CodeFn {
            name: None,
            module: 0,
            func: 0,
            captures: vec![],
        };
        assert_eq!(
            display(&Value::Func(Rc::new(Func::Code(Rc::new(closure))))),
            "<closure>"
        );
        let ns = Namespace {
            name: Rc::from("fs"),
            kind: NamespaceKind::Builtin,
        };
        assert_eq!(display(&Value::Namespace(Rc::new(ns))), "<namespace fs>");
    }

    #[test]
    fn json() {
        let v = map(&[
            ("a", Value::Int(1)),
            ("b", Value::list(vec![Value::Bool(true), Value::Null])),
        ]);
        assert_eq!(json_render(&v).unwrap(), r#"{"a":1,"b":[true,null]}"#);
        assert_eq!(json_render(&Value::Float(2.0)).unwrap(), "2.0");
        assert_eq!(json_render(&Value::Float(f64::NAN)).unwrap(), "null");
        assert_eq!(
            json_render(&Value::Float(f64::NEG_INFINITY)).unwrap(),
            "null"
        );
        assert_eq!(
            json_render(&Value::some(Value::str("q\""))).unwrap(),
            r#""q\"""#
        );
        assert_eq!(json_render(&Value::none()).unwrap(), "null");
        let t = Value::tuple(vec![Value::Int(1), Value::str("z")]);
        assert_eq!(json_render(&t).unwrap(), r#"[1,"z"]"#);
        assert!(json_render(&Value::ok(Value::Int(1))).is_err());
        assert!(json_render(&Value::list(vec![Value::err(Value::Int(1))])).is_err());
    }
}
