//! Option and Result methods (§5.11) with upstream's unwrap texts (§4.10).

use std::rc::Rc;

use crate::display::display;
use crate::exc::{Exc, Res};
use crate::native::{call_pred, not_found};
use crate::value::{Args, Host, Value, Wrapped};

pub(super) fn call_option(
    host: &mut dyn Host,
    o: Option<Rc<Wrapped>>,
    name: &str,
    args: Args,
) -> Res<Value> {
    let zero = |args: &Args| args.arity(0, 0);
    Ok(match name {
        "is_some" => {
            zero(&args)?;
            Value::Bool(o.is_some())
        }
        "is_none" => {
            zero(&args)?;
            Value::Bool(o.is_none())
        }
        "unwrap" => {
            zero(&args)?;
            match o {
                Some(v) => (*v).clone(),
                None => return Err(unwrap_none()),
            }
        }
        "unwrap_or" => {
            args.arity(1, 1)?;
            o.map_or_else(|| args.get(0).clone(), |v| (*v).clone())
        }
        "unwrap_or_default" => {
            zero(&args)?;
            o.map_or(Value::Null, |v| (*v).clone())
        }
        "expect" => {
            args.arity(1, 1)?;
            match o {
                Some(v) => (*v).clone(),
                None => return Err(Exc::error(display(args.get(0)))),
            }
        }
        "map" => {
            args.arity(1, 1)?;
            match o {
                Some(v) => Value::some(host.call1(args.get(0), (*v).clone())?),
                None => Value::none(),
            }
        }
        "and_then" => {
            args.arity(1, 1)?;
            match o {
                Some(v) => host.call1(args.get(0), (*v).clone())?,
                None => Value::none(),
            }
        }
        "filter" => {
            args.arity(1, 1)?;
            match o {
                Some(v) if call_pred(host, args.get(0), (*v).clone())? => Value::Opt(Some(v)),
                _ => Value::none(),
            }
        }
        _ => return Err(not_found(name)),
    })
}

pub(super) fn call_result(
    host: &mut dyn Host,
    r: Result<Rc<Wrapped>, Rc<Wrapped>>,
    name: &str,
    args: Args,
) -> Res<Value> {
    let zero = |args: &Args| args.arity(0, 0);
    Ok(match name {
        "is_ok" => {
            zero(&args)?;
            Value::Bool(r.is_ok())
        }
        "is_err" => {
            zero(&args)?;
            Value::Bool(r.is_err())
        }
        "ok" => {
            zero(&args)?;
            Value::Opt(r.ok())
        }
        "err" => {
            zero(&args)?;
            Value::Opt(r.err())
        }
        "unwrap" => {
            zero(&args)?;
            match r {
                Ok(v) => (*v).clone(),
                Err(e) => {
                    return Err(Exc::error(format!(
                        "called `Result.unwrap()` on an Err value: {}",
                        display(&e)
                    )))
                }
            }
        }
        "unwrap_err" => {
            zero(&args)?;
            match r {
                Err(e) => (*e).clone(),
                Ok(v) => {
                    return Err(Exc::error(format!(
                        "called `Result.unwrap_err()` on an Ok value: {}",
                        display(&v)
                    )))
                }
            }
        }
        "unwrap_or" => {
            args.arity(1, 1)?;
            r.map_or_else(|_| args.get(0).clone(), |v| (*v).clone())
        }
        "unwrap_or_default" => {
            zero(&args)?;
            r.map_or(Value::Null, |v| (*v).clone())
        }
        "expect" => {
            args.arity(1, 1)?;
            match r {
                Ok(v) => (*v).clone(),
                Err(e) => {
                    return Err(Exc::error(format!(
                        "{}: {}",
                        display(args.get(0)),
                        display(&e)
                    )))
                }
            }
        }
        "map" => {
            args.arity(1, 1)?;
            match r {
                Ok(v) => Value::ok(host.call1(args.get(0), (*v).clone())?),
                Err(e) => Value::Res(Err(e)),
            }
        }
        "map_err" => {
            args.arity(1, 1)?;
            match r {
                Err(e) => Value::err(host.call1(args.get(0), (*e).clone())?),
                Ok(v) => Value::Res(Ok(v)),
            }
        }
        "and_then" => {
            args.arity(1, 1)?;
            match r {
                Ok(v) => host.call1(args.get(0), (*v).clone())?,
                Err(e) => Value::Res(Err(e)),
            }
        }
        _ => return Err(not_found(name)),
    })
}

/// What `None.unwrap()` fails with (upstream's text).
pub(crate) fn unwrap_none() -> Exc {
    Exc::error("called `Option.unwrap()` on a None value")
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use crate::test_host::MockHost;
    use crate::value::Value;
    use Value::Int as I;

    #[test]
    fn options() {
        let mut h = MockHost::new();
        let some = Value::some(I(2));
        let none = Value::none();
        assert_eq!(m(&mut h, &some, "is_some", vec![]), "true");
        assert_eq!(m(&mut h, &none, "is_none", vec![]), "true");
        assert_eq!(m(&mut h, &some, "unwrap", vec![]), "2");
        assert_eq!(
            m(&mut h, &none, "unwrap", vec![]),
            "error: called `Option.unwrap()` on a None value"
        );
        assert_eq!(m(&mut h, &none, "unwrap_or", vec![I(7)]), "7");
        assert_eq!(m(&mut h, &none, "unwrap_or_default", vec![]), "null");
        assert_eq!(
            m(&mut h, &none, "expect", vec![s("need it")]),
            "error: need it"
        );
        let dbl = h.hook(|_, a| match a[0] {
            Value::Int(i) => Ok(Value::Int(i * 2)),
            _ => Ok(Value::Null),
        });
        assert_eq!(m(&mut h, &some, "map", vec![dbl.clone()]), "Some(4)");
        assert_eq!(m(&mut h, &none, "map", vec![dbl]), "None");
        let wrap = h.hook(|_, a| Ok(Value::some(a[0].clone())));
        assert_eq!(m(&mut h, &some, "and_then", vec![wrap]), "Some(2)");
        let big = h.hook(|_, a| Ok(Value::Bool(matches!(a[0], Value::Int(i) if i > 5))));
        assert_eq!(m(&mut h, &some, "filter", vec![big]), "None");
    }

    #[test]
    fn results() {
        let mut h = MockHost::new();
        let ok = Value::ok(I(1));
        let err = Value::err(s("e"));
        assert_eq!(m(&mut h, &ok, "is_ok", vec![]), "true");
        assert_eq!(m(&mut h, &err, "is_err", vec![]), "true");
        assert_eq!(m(&mut h, &ok, "ok", vec![]), "Some(1)");
        assert_eq!(m(&mut h, &ok, "err", vec![]), "None");
        assert_eq!(m(&mut h, &err, "err", vec![]), "Some(e)");
        assert_eq!(
            m(&mut h, &err, "unwrap", vec![]),
            "error: called `Result.unwrap()` on an Err value: e"
        );
        assert_eq!(
            m(&mut h, &ok, "unwrap_err", vec![]),
            "error: called `Result.unwrap_err()` on an Ok value: 1"
        );
        assert_eq!(m(&mut h, &err, "unwrap_err", vec![]), "e");
        assert_eq!(m(&mut h, &err, "unwrap_or", vec![I(3)]), "3");
        assert_eq!(m(&mut h, &err, "unwrap_or_default", vec![]), "null");
        assert_eq!(m(&mut h, &err, "expect", vec![s("load")]), "error: load: e");
        let up = h.hook(|_, a| Ok(Value::str(&format!("{}!", crate::display::display(&a[0])))));
        assert_eq!(m(&mut h, &err, "map_err", vec![up.clone()]), "Err(e!)");
        assert_eq!(m(&mut h, &ok, "map", vec![up.clone()]), "Ok(1!)");
        assert_eq!(m(&mut h, &err, "map", vec![up.clone()]), "Err(e)");
        assert_eq!(m(&mut h, &ok, "and_then", vec![up]), "1!");
    }
}
