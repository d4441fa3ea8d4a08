//! Structural equality (voxscript.md §4.7, decisions.md 5): `==` never fails, kinds must match
//! (`1 == 1.0` is false), except that `None == null`.

use crate::value::{depth, with_stack, Value};

/// `a == b` as the language defines it.
pub fn equals(a: &Value, b: &Value) -> bool {
    if depth(a) == 0 {
        equals_node(a, b)
    } else {
        with_stack(|| equals_node(a, b))
    }
}

fn equals_node(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        // `None == null` lets scripts guard Options with `v is null`.
        (Value::Null, Value::Opt(None)) | (Value::Opt(None), Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        // IEEE: NaN != NaN, 0.0 == -0.0.
        (Value::Float(x), Value::Float(y)) => x == y,
        // Decimal equality compares values, not scales.
        (Value::Dec(x), Value::Dec(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::List(x), Value::List(y)) | (Value::Tuple(x), Value::Tuple(y)) => seq_equals(x, y),
        // Maps compare as ordered key/value sequences.
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && equals(va, vb))
        }
        (Value::Opt(Some(x)), Value::Opt(Some(y))) => equals(x, y),
        (Value::Opt(None), Value::Opt(None)) => true,
        (Value::Res(Ok(x)), Value::Res(Ok(y))) | (Value::Res(Err(x)), Value::Res(Err(y))) => {
            equals(x, y)
        }
        (Value::Tagged(x), Value::Tagged(y)) => {
            x.variant == y.variant && seq_equals(&x.values, &y.values)
        }
        (Value::Match(x), Value::Match(y)) => x.groups == y.groups,
        // Functions, namespaces and regexes equal nothing, not even themselves.
        _ => false,
    }
}

fn seq_equals(x: &[Value], y: &[Value]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equals(a, b))
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;
    use std::str::FromStr;

    use rust_decimal::Decimal;

    use super::*;
    use crate::value::VMap;

    fn map(pairs: &[(&str, i64)]) -> Value {
        let mut m = VMap::new();
        for (k, v) in pairs {
            m.insert(Rc::from(*k), Value::Int(*v));
        }
        Value::map(m)
    }

    fn dec(s: &str) -> Value {
        Value::Dec(Decimal::from_str(s).unwrap())
    }

    #[test]
    fn kinds_must_match() {
        assert!(!equals(&Value::Int(1), &Value::Float(1.0)));
        assert!(!equals(&dec("1"), &Value::Int(1)));
        assert!(equals(&dec("8.250000"), &dec("8.25")));
        assert!(equals(&Value::none(), &Value::Null));
        assert!(!equals(&Value::some(Value::Int(1)), &Value::Null));
        assert!(!equals(&Value::Float(f64::NAN), &Value::Float(f64::NAN)));
        assert!(equals(&Value::Float(0.0), &Value::Float(-0.0)));
    }

    #[test]
    fn containers() {
        let l = Value::list(vec![Value::Int(1), Value::Int(2)]);
        assert!(equals(&l, &l.clone()));
        assert!(!equals(
            &map(&[("a", 1), ("b", 2)]),
            &map(&[("b", 2), ("a", 1)])
        ));
        assert!(equals(
            &map(&[("a", 1), ("b", 2)]),
            &map(&[("a", 1), ("b", 2)])
        ));
        assert!(equals(
            &Value::err(Value::Int(2)),
            &Value::err(Value::Int(2))
        ));
        assert!(!equals(
            &Value::err(Value::Int(2)),
            &Value::ok(Value::Int(2))
        ));
        let tuple = Value::tuple(vec![Value::Int(1), Value::Int(2)]);
        assert!(!equals(&tuple, &l));
    }
}
