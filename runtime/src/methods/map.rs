//! map methods (§5.10). Maps keep insertion order: an existing key keeps its position, a new key goes last.

use std::rc::Rc;

use crate::display::json_render;
use crate::exc::{Exc, Res};
use crate::native::{alloc_values, not_found, rc_str};
use crate::value::{Args, Host, Map, Value};

pub(super) fn call(host: &mut dyn Host, mut m: Rc<Map>, name: &str, mut args: Args) -> Res<Value> {
    let zero = |args: &Args| args.arity(0, 0);
    Ok(match name {
        "get" => {
            args.arity(1, 1)?;
            m.get(args.str(0)?)
                .map_or(Value::none(), |v| Value::some(v.clone()))
        }
        "get_or" => {
            args.arity(2, 2)?;
            match m.get(args.str(0)?) {
                Some(v) => v.clone(),
                None => args.get(1).clone(),
            }
        }
        "contains_key" | "has_key" | "has" => {
            args.arity(1, 1)?;
            Value::Bool(m.contains_key(args.str(0)?))
        }
        "len" => {
            zero(&args)?;
            Value::Int(m.len() as i64)
        }
        "is_empty" => {
            zero(&args)?;
            Value::Bool(m.is_empty())
        }
        "keys" => {
            zero(&args)?;
            let mut out = alloc_values(host, m.len())?;
            out.extend(m.keys().map(|k| Value::Str(k.clone())));
            perturb(host, &mut out);
            Value::list(out)
        }
        "values" => {
            zero(&args)?;
            let mut out = alloc_values(host, m.len())?;
            out.extend(m.values().cloned());
            perturb(host, &mut out);
            Value::list(out)
        }
        "items" | "entries" => {
            zero(&args)?;
            let mut out = alloc_values(host, m.len().saturating_mul(3))?;
            out.extend(
                m.iter()
                    .map(|(k, v)| Value::list(vec![Value::Str(k.clone()), v.clone()])),
            );
            perturb(host, &mut out);
            Value::list(out)
        }
        "insert" | "set" => {
            args.arity(2, 2)?;
            let key: Rc<str> = Rc::from(args.str(0)?);
            let v = args.values.pop().unwrap_or(Value::Null);
            host.reserve(growth(&m, 1))?;
            Rc::make_mut(&mut m).insert(key, v);
            Value::Map(m)
        }
        "remove" | "delete" => {
            args.arity(1, 1)?;
            let key = args.str(0)?;
            if m.contains_key(key) {
                Rc::make_mut(&mut m).shift_remove(key);
            }
            Value::Map(m)
        }
        "update" => {
            args.arity(1, 1)?;
            let Value::Map(other) = args.get(0) else {
                return Err(args.type_error(0, "map"));
            };
            host.reserve(growth(&m, other.len()))?;
            let target = Rc::make_mut(&mut m);
            for (k, v) in other.iter() {
                target.insert(k.clone(), v.clone());
            }
            Value::Map(m)
        }
        "pointer" => {
            args.arity(1, 1)?;
            pointer(&Value::Map(m.clone()), args.str(0)?).map_or(Value::none(), Value::some)
        }
        "to_string" => {
            zero(&args)?;
            let text = json_render(&Value::Map(m))
                .map_err(|why| Exc::error(format!("map.to_string: {why}")))?;
            rc_str(text)
        }
        _ => return Err(not_found(name)),
    })
}

/// Bytes a growth method adds (an entry is a key and a value): only the new entries when the map is
/// uniquely owned, else a whole copy.
fn growth(m: &Rc<Map>, extra: usize) -> usize {
    let n = if Rc::strong_count(m) == 1 {
        extra
    } else {
        m.len().saturating_add(extra)
    };
    crate::native::VALUE_SIZE
        .saturating_mul(2)
        .saturating_mul(n)
}

/// RFC 6901 JSON pointer lookup (`""` is the whole value; `~1` is `/`, `~0` is `~`).
pub(crate) fn pointer(root: &Value, ptr: &str) -> Option<Value> {
    if ptr.is_empty() {
        return Some(root.clone());
    }
    let rest = ptr.strip_prefix('/')?;
    let mut cur = root.clone();
    for token in rest.split('/') {
        let token = token.replace("~1", "/").replace("~0", "~");
        cur = match &cur {
            Value::Map(m) => m.get(token.as_str())?.clone(),
            Value::List(l) => {
                // Array indices are decimal without leading zeros.
                if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
                    return None;
                }
                if !token.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let i: usize = token.parse().ok()?;
                l.get(i)?.clone()
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// `--perturb SEED` reorders what the language leaves open: the order of `keys()`, `values()` and
/// `items()` (decisions.md 27; display, `==` and `json.render` keep insertion order).
fn perturb(host: &mut dyn Host, out: &mut [Value]) {
    if let Some(seed) = host.ctx().and_then(|c| c.perturb) {
        // The same seed and map size give the same order for keys, values and items alike.
        crate::perturb::shuffle(out, seed ^ out.len() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use crate::test_host::MockHost;
    use crate::value::Value;
    use Value::Int as I;

    use crate::test_host::map_of as map;

    #[test]
    fn methods() {
        let mut h = MockHost::new();
        let o = map(&[("b", I(1)), ("a", I(2))]);
        assert_eq!(m(&mut h, &o, "get", vec![s("a")]), "Some(2)");
        assert_eq!(m(&mut h, &o, "get", vec![s("z")]), "None");
        assert_eq!(
            m(&mut h, &o, "get", vec![I(1)]),
            "error: type error: map.get argument 1: expected str, found int"
        );
        assert_eq!(m(&mut h, &o, "get_or", vec![s("z"), I(9)]), "9");
        assert_eq!(m(&mut h, &o, "has", vec![s("b")]), "true");
        assert_eq!(m(&mut h, &o, "contains_key", vec![s("q")]), "false");
        assert_eq!(m(&mut h, &o, "len", vec![]), "2");
        assert_eq!(m(&mut h, &o, "keys", vec![]), "[b, a]");
        assert_eq!(m(&mut h, &o, "values", vec![]), "[1, 2]");
        assert_eq!(m(&mut h, &o, "items", vec![]), "[[b, 1], [a, 2]]");
        assert_eq!(m(&mut h, &o, "insert", vec![s("b"), I(5)]), "{b: 5, a: 2}");
        assert_eq!(
            m(&mut h, &o, "set", vec![s("c"), I(5)]),
            "{b: 1, a: 2, c: 5}"
        );
        assert_eq!(m(&mut h, &o, "remove", vec![s("b")]), "{a: 2}");
        assert_eq!(
            m(&mut h, &o, "update", vec![map(&[("a", I(7)), ("z", I(0))])]),
            "{b: 1, a: 7, z: 0}"
        );
        assert_eq!(m(&mut h, &o, "to_string", vec![]), r#"{"b":1,"a":2}"#);
        assert_eq!(m(&mut h, &o, "is_null", vec![]), "false");
        assert_eq!(m(&mut h, &o, "as_object", vec![]), "Some({b: 1, a: 2})");
        assert_eq!(crate::display::display(&o), "{b: 1, a: 2}");
    }

    #[test]
    fn pointers() {
        let mut h = MockHost::new();
        let inner = map(&[("b", I(3)), ("x/y", I(4)), ("t~", I(5))]);
        let o = map(&[("a", Value::list(vec![inner]))]);
        assert_eq!(m(&mut h, &o, "pointer", vec![s("/a/0/b")]), "Some(3)");
        assert_eq!(m(&mut h, &o, "pointer", vec![s("/a/0/x~1y")]), "Some(4)");
        assert_eq!(m(&mut h, &o, "pointer", vec![s("/a/0/t~0")]), "Some(5)");
        assert_eq!(m(&mut h, &o, "pointer", vec![s("/a/01/b")]), "None");
        assert_eq!(m(&mut h, &o, "pointer", vec![s("/a/1")]), "None");
        assert_eq!(m(&mut h, &o, "pointer", vec![s("a")]), "None");
        assert!(m(&mut h, &o, "pointer", vec![s("")]).starts_with("Some({a:"));
    }
}
