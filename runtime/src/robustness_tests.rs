//! Every builtin row and every method, called with awkward argument combinations, must return a value
//! or an error and never panic (the quality bar: no input crashes the interpreter).

use std::rc::Rc;
use std::str::FromStr;

use rust_decimal::Decimal;

use crate::builtins::table;
use crate::methods::{call_method, kind_prefix, method_names, JSON_HELPERS};
use crate::test_host::MockHost;
use crate::value::{Args, Host, VMap, Value};

fn samples(h: &mut MockHost) -> Vec<Value> {
    let mut m = VMap::new();
    m.insert(Rc::from("k"), Value::list(vec![Value::Int(1)]));
    let ident = h.hook(|_, a| Ok(a.into_iter().next().unwrap_or(Value::Null)));
    let failing = h.hook(|_, _| Err(crate::exc::Exc::error("hook failed")));
    vec![
        Value::Null,
        Value::Bool(true),
        Value::Int(0),
        Value::Int(-1),
        Value::Int(i64::MIN),
        Value::Int(i64::MAX),
        Value::Float(f64::NAN),
        Value::Float(-0.0),
        Value::Float(1e308),
        Value::Dec(Decimal::MAX),
        Value::Dec(Decimal::from_str("-0.0000000000000000000000000001").unwrap_or_default()),
        Value::str(""),
        Value::str("é\u{301}/../a.b"),
        Value::str("(["),
        Value::list(vec![
            Value::Int(3),
            Value::str("x"),
            Value::Null,
            Value::Float(f64::NAN),
        ]),
        Value::list(vec![]),
        Value::map(m),
        Value::tuple(vec![Value::Int(1), Value::Int(2)]),
        Value::some(Value::Int(1)),
        Value::none(),
        Value::err(Value::str("e")),
        ident,
        failing,
    ]
}

fn arg_lists(s: &[Value]) -> Vec<Vec<Value>> {
    let mut out = vec![vec![]];
    for a in s {
        out.push(vec![a.clone()]);
        for b in s {
            out.push(vec![a.clone(), b.clone()]);
        }
    }
    // A few three-argument calls.
    for a in s.iter().take(8) {
        out.push(vec![a.clone(), Value::Int(2), Value::str("$1")]);
    }
    out
}

#[test]
fn builtins_never_panic() {
    let mut h = MockHost::new();
    h.limit = Some(1 << 24);
    let s = samples(&mut h);
    let lists = arg_lists(&s);
    for def in table() {
        for args in &lists {
            let host: &mut dyn Host = &mut h;
            let _ = (def.f)(host, &mut Args::new(def.qualified(), args.clone()));
        }
    }
}

#[test]
fn methods_never_panic() {
    let mut h = MockHost::new();
    h.limit = Some(1 << 24);
    let s = samples(&mut h);
    let lists = arg_lists(&s);
    let mut receivers = s.clone();
    receivers.push(Value::Regex(Rc::new(crate::value::RegexValue {
        pattern: Rc::from("(a)|b"),
        regex: ::regex::Regex::new("(a)|b").unwrap(),
    })));
    for recv in &receivers {
        let kind = kind_prefix(recv);
        for name in method_names(kind).iter().chain(JSON_HELPERS) {
            for args in &lists {
                let _ = call_method(&mut h, recv, name, args.clone());
            }
        }
    }
}
