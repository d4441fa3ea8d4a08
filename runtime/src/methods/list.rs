//! list methods (§5.10). Results are new lists; when the receiver is the only reference (W1 with an
//! owned receiver) `Rc::make_mut` mutates in place, which is indistinguishable from a copy.

use std::cmp::Ordering;
use std::rc::Rc;

use crate::display::{display_into, json_render};
use crate::equality::equals;
use crate::exc::{Exc, Res};
use crate::kind::type_of;
use crate::native::{
    alloc_string, alloc_values, call_pred, extreme, not_found, rc_str, sum, VALUE_SIZE,
};
use crate::order::sort_by;
use crate::value::{Args, Host, List, Value};

pub(super) fn call(host: &mut dyn Host, mut l: Rc<List>, name: &str, mut args: Args) -> Res<Value> {
    let zero = |args: &Args| args.arity(0, 0);
    Ok(match name {
        "len" => {
            zero(&args)?;
            Value::Int(l.len() as i64)
        }
        "length" => {
            zero(&args)?;
            Value::some(Value::Int(l.len() as i64))
        }
        "is_empty" => {
            zero(&args)?;
            Value::Bool(l.is_empty())
        }
        "push" => {
            args.arity(1, 1)?;
            let x = args.values.pop().unwrap_or(Value::Null);
            push(host, &mut l, x)?;
            Value::List(l)
        }
        "pop" => {
            zero(&args)?;
            l.last().cloned().unwrap_or(Value::Null)
        }
        "get" | "at" => {
            args.arity(1, 1)?;
            let i = args.int(0)?;
            usize::try_from(i)
                .ok()
                .and_then(|p| l.get(p))
                .map_or(Value::none(), |v| Value::some(v.clone()))
        }
        "first" => {
            zero(&args)?;
            l.first().map_or(Value::none(), |v| Value::some(v.clone()))
        }
        "last" => {
            zero(&args)?;
            l.last().map_or(Value::none(), |v| Value::some(v.clone()))
        }
        "contains" => {
            args.arity(1, 1)?;
            let x = args.get(0);
            Value::Bool(l.iter().any(|v| equals(v, x)))
        }
        "index" | "find_index" => {
            args.arity(1, 1)?;
            let x = args.get(0);
            Value::Int(l.iter().position(|v| equals(v, x)).map_or(-1, |p| p as i64))
        }
        "count" => {
            args.arity(1, 1)?;
            let x = args.get(0);
            Value::Int(l.iter().filter(|v| equals(v, x)).count() as i64)
        }
        "extend" => {
            args.arity(1, 1)?;
            let ys = args.list(0)?;
            host.reserve(growth(&l, ys.len()))?;
            let extra = ys.to_vec();
            let v = Rc::make_mut(&mut l);
            v.try_reserve(extra.len())
                .map_err(|_| Exc::error("out of memory"))?;
            v.extend(extra);
            Value::List(l)
        }
        "remove" => {
            args.arity(1, 1)?;
            if let Some(p) = l.iter().position(|v| equals(v, args.get(0))) {
                Rc::make_mut(&mut l).remove(p);
            }
            Value::List(l)
        }
        "remove_at" => {
            args.arity(1, 1)?;
            let i = args.int(0)?;
            if let Some(p) = usize::try_from(i).ok().filter(|p| *p < l.len()) {
                Rc::make_mut(&mut l).remove(p);
            }
            Value::List(l)
        }
        "zip" => {
            args.arity(1, 1)?;
            let ys = args.list(0)?;
            let n = l.len().min(ys.len());
            let mut out = alloc_values(host, n.saturating_mul(3))?;
            out.extend(
                l.iter()
                    .zip(ys)
                    .map(|(a, b)| Value::list(vec![a.clone(), b.clone()])),
            );
            Value::list(out)
        }
        "enumerate" => {
            zero(&args)?;
            let mut out = alloc_values(host, l.len().saturating_mul(3))?;
            out.extend(
                l.iter()
                    .enumerate()
                    .map(|(i, x)| Value::list(vec![Value::Int(i as i64), x.clone()])),
            );
            Value::list(out)
        }
        "slice_list" => {
            args.arity(1, 2)?;
            let n = l.len();
            let a = clamp(args.int(0)?, n);
            let b = if args.len() > 1 {
                clamp(args.int(1)?, n)
            } else {
                n
            };
            if a >= b {
                Value::list(vec![])
            } else {
                Value::list(l[a..b].to_vec())
            }
        }
        "join" => {
            args.arity(1, 1)?;
            let sep = args.str(0)?;
            let mut out = String::new();
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                display_into(&mut out, x);
            }
            alloc_string(host, out.len())?;
            rc_str(out)
        }
        "flatten" => {
            zero(&args)?;
            let n: usize = l
                .iter()
                .map(|x| {
                    if let Value::List(inner) = x {
                        inner.len()
                    } else {
                        1
                    }
                })
                .sum();
            let mut out = alloc_values(host, n)?;
            for x in l.iter() {
                match x {
                    Value::List(inner) => out.extend(inner.iter().cloned()),
                    other => out.push(other.clone()),
                }
            }
            Value::list(out)
        }
        "reverse" | "reversed" => {
            zero(&args)?;
            Rc::make_mut(&mut l).shrink_or_reorder().reverse();
            Value::List(l)
        }
        "sorted" => {
            zero(&args)?;
            let v = Rc::make_mut(&mut l).shrink_or_reorder();
            crate::order::sort_total(v);
            Value::List(l)
        }
        "sorted_by_key" | "sort_by_key" => {
            args.arity(1, 1)?;
            let f = args.get(0).clone();
            let mut keys = alloc_values(host, l.len())?;
            for x in l.iter() {
                keys.push(host.call1(&f, x.clone())?);
            }
            let order = crate::order::sort_indices_total(&keys)?;
            Value::list(order.iter().map(|&i| l[i as usize].clone()).collect())
        }
        "sorted_by" | "sort_by" => {
            args.arity(1, 1)?;
            let f = args.get(0).clone();
            let v = Rc::make_mut(&mut l).shrink_or_reorder();
            sort_by(v, |a, b| {
                let r = host.call2(&f, a.clone(), b.clone())?;
                match r {
                    Value::Int(i) => Ok(i.cmp(&0)),
                    other => Err(Exc::error(format!(
                        "type error: list.sorted_by comparator: expected int, found {}",
                        type_of(&other)
                    ))),
                }
            })?;
            Value::List(l)
        }
        "sum" => {
            zero(&args)?;
            sum(&l)?
        }
        "max" => {
            zero(&args)?;
            extreme(&l, Ordering::Greater).map_or(Value::none(), Value::some)
        }
        "min" => {
            zero(&args)?;
            extreme(&l, Ordering::Less).map_or(Value::none(), Value::some)
        }
        "map" => {
            args.arity(1, 1)?;
            let f = args.get(0).clone();
            let mut out = alloc_values(host, l.len())?;
            for x in l.iter() {
                out.push(host.call1(&f, x.clone())?);
            }
            Value::list(out)
        }
        "filter" => {
            args.arity(1, 1)?;
            let f = args.get(0).clone();
            let mut out = Vec::new();
            for x in l.iter() {
                if call_pred(host, &f, x.clone())? {
                    out.push(x.clone());
                }
            }
            Value::list(out)
        }
        "for_each" => {
            args.arity(1, 1)?;
            let f = args.get(0).clone();
            for x in l.iter() {
                host.call1(&f, x.clone())?;
            }
            Value::Null
        }
        "any" => {
            args.arity(1, 1)?;
            let f = args.get(0).clone();
            let mut found = false;
            for x in l.iter() {
                if call_pred(host, &f, x.clone())? {
                    found = true;
                    break;
                }
            }
            Value::Bool(found)
        }
        "all" => {
            args.arity(1, 1)?;
            let f = args.get(0).clone();
            let mut ok = true;
            for x in l.iter() {
                if !call_pred(host, &f, x.clone())? {
                    ok = false;
                    break;
                }
            }
            Value::Bool(ok)
        }
        "fold" => {
            args.arity(2, 2)?;
            let f = args.get(1).clone();
            let mut acc = args.get(0).clone();
            for x in l.iter() {
                acc = host.call2(&f, acc, x.clone())?;
            }
            acc
        }
        "to_string" => {
            zero(&args)?;
            let text = json_render(&Value::List(l))
                .map_err(|why| Exc::error(format!("list.to_string: {why}")))?;
            rc_str(text)
        }
        _ => return Err(not_found(name)),
    })
}

/// `xs.push(x)`'s work: room under `--max-memory` (the whole list when it must be copied), then
/// `x` at the end, in place when `l` is the only reference. The interpreter's write-back calls it
/// directly for `xs.push(x)` on a local list, without dispatching on the name.
pub fn push(host: &mut dyn Host, l: &mut Rc<List>, x: Value) -> Res<()> {
    host.reserve(growth(l, 1))?;
    Rc::make_mut(l).push(x);
    Ok(())
}

/// Bytes a growth method adds: only the new elements when the list is uniquely owned (it grows in
/// place), else a whole copy.
fn growth(l: &Rc<List>, extra: usize) -> usize {
    let n = if Rc::strong_count(l) == 1 {
        extra
    } else {
        l.len().saturating_add(extra)
    };
    VALUE_SIZE.saturating_mul(n)
}

fn clamp(i: i64, n: usize) -> usize {
    usize::try_from(i.max(0)).unwrap_or(usize::MAX).min(n)
}

#[cfg(test)]
mod tests {
    use super::super::call_method_owned;
    use super::super::testutil::*;
    use crate::exc::Exc;
    use crate::test_host::MockHost;
    use crate::value::Value;
    use Value::Int as I;

    fn add_one(h: &mut MockHost) -> Value {
        h.hook(|_, a| match a.first() {
            Some(Value::Int(i)) => Ok(Value::Int(i + 1)),
            _ => Err(Exc::error("bad")),
        })
    }

    fn is_even(h: &mut MockHost) -> Value {
        h.hook(|_, a| match a.first() {
            Some(Value::Int(i)) => Ok(Value::Bool(i % 2 == 0)),
            _ => Ok(Value::Int(1)),
        })
    }

    #[test]
    fn basics() {
        let mut h = MockHost::new();
        let xs = ints(&[1, 2, 3]);
        assert_eq!(m(&mut h, &xs, "len", vec![]), "3");
        assert_eq!(m(&mut h, &xs, "length", vec![]), "Some(3)");
        assert_eq!(m(&mut h, &xs, "push", vec![I(4)]), "[1, 2, 3, 4]");
        assert_eq!(m(&mut h, &xs, "pop", vec![]), "3");
        assert_eq!(m(&mut h, &ints(&[]), "pop", vec![]), "null");
        assert_eq!(m(&mut h, &xs, "get", vec![I(1)]), "Some(2)");
        assert_eq!(m(&mut h, &xs, "at", vec![I(-1)]), "None");
        assert_eq!(m(&mut h, &xs, "first", vec![]), "Some(1)");
        assert_eq!(m(&mut h, &ints(&[]), "last", vec![]), "None");
        assert_eq!(m(&mut h, &xs, "contains", vec![I(2)]), "true");
        assert_eq!(m(&mut h, &xs, "contains", vec![Value::Float(2.0)]), "false");
        assert_eq!(m(&mut h, &xs, "index", vec![I(3)]), "2");
        assert_eq!(m(&mut h, &xs, "find_index", vec![I(9)]), "-1");
        assert_eq!(m(&mut h, &ints(&[1, 1, 2]), "count", vec![I(1)]), "2");
        assert_eq!(m(&mut h, &xs, "extend", vec![ints(&[4])]), "[1, 2, 3, 4]");
        assert_eq!(m(&mut h, &ints(&[1, 2, 1]), "remove", vec![I(1)]), "[2, 1]");
        assert_eq!(m(&mut h, &xs, "remove_at", vec![I(0)]), "[2, 3]");
        assert_eq!(m(&mut h, &xs, "remove_at", vec![I(7)]), "[1, 2, 3]");
        assert_eq!(
            m(&mut h, &xs, "zip", vec![Value::list(vec![s("a"), s("b")])]),
            "[[1, a], [2, b]]"
        );
        assert_eq!(
            m(&mut h, &xs, "enumerate", vec![]),
            "[[0, 1], [1, 2], [2, 3]]"
        );
        assert_eq!(m(&mut h, &xs, "slice_list", vec![I(1)]), "[2, 3]");
        assert_eq!(m(&mut h, &xs, "slice_list", vec![I(-3), I(2)]), "[1, 2]");
        assert_eq!(m(&mut h, &xs, "slice_list", vec![I(2), I(1)]), "[]");
        assert_eq!(
            m(
                &mut h,
                &Value::list(vec![s("a"), I(1)]),
                "join",
                vec![s(", ")]
            ),
            "a, 1"
        );
        let nested = Value::list(vec![ints(&[1, 2]), I(3), ints(&[])]);
        assert_eq!(m(&mut h, &nested, "flatten", vec![]), "[1, 2, 3]");
        assert_eq!(m(&mut h, &xs, "reversed", vec![]), "[3, 2, 1]");
        assert_eq!(
            m(
                &mut h,
                &Value::list(vec![s("a"), I(1)]),
                "to_string",
                vec![]
            ),
            r#"["a",1]"#
        );
        // The receiver is untouched (values never alias).
        assert_eq!(crate::display::display(&xs), "[1, 2, 3]");
    }

    #[test]
    fn owned_receiver_mutates_in_place() {
        let mut h = MockHost::new();
        let v = call_method_owned(&mut h, ints(&[1]), &"push".into(), vec![I(2)]).unwrap();
        assert_eq!(crate::display::display(&v), "[1, 2]");
    }

    #[test]
    fn sorting_and_aggregates() {
        let mut h = MockHost::new();
        let mixed = Value::list(vec![s("b"), I(3), Value::Float(1.5), s("a"), I(1)]);
        assert_eq!(m(&mut h, &mixed, "sorted", vec![]), "[1, 1.5, 3, a, b]");
        let neg = h.hook(|_, a| match a.first() {
            Some(Value::Int(i)) => Ok(Value::Int(-i)),
            _ => Ok(Value::Null),
        });
        assert_eq!(
            m(&mut h, &ints(&[1, 3, 2]), "sorted_by_key", vec![neg]),
            "[3, 2, 1]"
        );
        let desc = h.hook(|_, a| match (&a[0], &a[1]) {
            (Value::Int(x), Value::Int(y)) => Ok(Value::Int(y - x)),
            _ => Ok(Value::Int(0)),
        });
        assert_eq!(
            m(&mut h, &ints(&[1, 3, 2]), "sort_by", vec![desc]),
            "[3, 2, 1]"
        );
        let bad = h.hook(|_, _| Ok(Value::str("x")));
        assert_eq!(
            m(&mut h, &ints(&[1, 3]), "sorted_by", vec![bad]),
            "error: type error: list.sorted_by comparator: expected int, found str"
        );
        assert_eq!(m(&mut h, &ints(&[1, 2]), "sum", vec![]), "3");
        assert_eq!(m(&mut h, &ints(&[]), "sum", vec![]), "0");
        assert_eq!(
            m(
                &mut h,
                &Value::list(vec![I(1), Value::Float(0.5)]),
                "sum",
                vec![]
            ),
            "1.5"
        );
        assert_eq!(
            m(&mut h, &ints(&[i64::MAX, 1]), "sum", vec![]),
            "error: integer overflow: 9223372036854775807 + 1"
        );
        assert_eq!(
            m(&mut h, &Value::list(vec![s("a")]), "sum", vec![]),
            "error: type error: sum: expected number, found str"
        );
        assert_eq!(m(&mut h, &ints(&[2, 5, 1]), "max", vec![]), "Some(5)");
        assert_eq!(m(&mut h, &ints(&[2, 5, 1]), "min", vec![]), "Some(1)");
        assert_eq!(m(&mut h, &ints(&[]), "min", vec![]), "None");
    }

    #[test]
    fn closures() {
        let mut h = MockHost::new();
        let xs = ints(&[1, 2, 3, 4]);
        let f = add_one(&mut h);
        assert_eq!(m(&mut h, &xs, "map", vec![f]), "[2, 3, 4, 5]");
        let even = is_even(&mut h);
        assert_eq!(m(&mut h, &xs, "filter", vec![even.clone()]), "[2, 4]");
        assert_eq!(m(&mut h, &xs, "any", vec![even.clone()]), "true");
        assert_eq!(m(&mut h, &xs, "all", vec![even.clone()]), "false");
        assert_eq!(
            m(&mut h, &Value::list(vec![s("x")]), "filter", vec![even]),
            "error: type error: expected bool, found int"
        );
        let add = h.hook(|_, a| crate::ops::binary(crate::ops::BinOp::Add, &a[0], &a[1]));
        assert_eq!(m(&mut h, &xs, "fold", vec![I(10), add]), "20");
        let f = add_one(&mut h);
        assert_eq!(m(&mut h, &xs, "for_each", vec![f]), "null");
    }
}
