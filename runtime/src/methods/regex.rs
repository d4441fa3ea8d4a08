//! Methods on compiled regexes and their matches (§5.11).

use std::rc::Rc;

use crate::exc::Res;
use crate::native::{alloc_values, not_found, rc_str};
use crate::value::{Args, Host, MatchValue, RegexValue, Value};

/// A match value from capture groups (group 0 is the whole match).
pub(crate) fn match_value(caps: &regex::Captures<'_>) -> Value {
    let groups: Vec<Option<Rc<str>>> = caps
        .iter()
        .map(|g| g.map(|m| Rc::from(m.as_str())))
        .collect();
    let text = groups
        .first()
        .cloned()
        .flatten()
        .unwrap_or_else(|| Rc::from(""));
    Value::Match(Rc::new(MatchValue { text, groups }))
}

pub(super) fn call_regex(
    host: &mut dyn Host,
    r: &RegexValue,
    name: &str,
    args: Args,
) -> Res<Value> {
    Ok(match name {
        "matches" | "is_match" => {
            args.arity(1, 1)?;
            Value::Bool(r.regex.is_match(args.str(0)?))
        }
        "find" => {
            args.arity(1, 1)?;
            r.regex
                .captures(args.str(0)?)
                .map_or(Value::none(), |c| Value::some(match_value(&c)))
        }
        "find_all" => {
            args.arity(1, 1)?;
            let hay = args.str(0)?;
            let mut out = alloc_values(host, 0)?;
            for c in r.regex.captures_iter(hay) {
                host.reserve(
                    hay.len()
                        .min(1 << 20)
                        .saturating_add(crate::native::VALUE_SIZE),
                )?;
                out.push(match_value(&c));
            }
            Value::list(out)
        }
        _ => return Err(not_found(name)),
    })
}

pub(super) fn call_match(m: &MatchValue, name: &str, args: Args) -> Res<Value> {
    Ok(match name {
        "group" => {
            args.arity(1, 1)?;
            let i = args.int(0)?;
            match usize::try_from(i)
                .ok()
                .and_then(|p| m.groups.get(p))
                .cloned()
                .flatten()
            {
                Some(g) => Value::some(Value::Str(g)),
                None => Value::none(),
            }
        }
        "groups" => {
            args.arity(0, 0)?;
            Value::list(
                m.groups
                    .iter()
                    .skip(1)
                    .map(|g| g.clone().map_or_else(|| rc_str(""), Value::Str))
                    .collect(),
            )
        }
        _ => return Err(not_found(name)),
    })
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::super::testutil::*;
    use crate::test_host::MockHost;
    use crate::value::{RegexValue, Value};
    use Value::Int as I;

    #[test]
    fn regex_and_match() {
        let mut h = MockHost::new();
        let r = Value::Regex(Rc::new(RegexValue {
            pattern: Rc::from(r"(\d+)(x)?"),
            regex: regex::Regex::new(r"(\d+)(x)?").unwrap(),
        }));
        assert_eq!(m(&mut h, &r, "matches", vec![s("a1")]), "true");
        assert_eq!(m(&mut h, &r, "is_match", vec![s("a")]), "false");
        assert_eq!(m(&mut h, &r, "find", vec![s("a12 3x")]), "Some(<match 12>)");
        assert_eq!(m(&mut h, &r, "find", vec![s("a")]), "None");
        assert_eq!(
            m(&mut h, &r, "find_all", vec![s("a12 3x")]),
            "[<match 12>, <match 3x>]"
        );
        assert_eq!(crate::display::display(&r), r"<regex (\d+)(x)?>");
        let found = crate::methods::call_method(&mut h, &r, "find", vec![s("a12")]).unwrap();
        let Value::Opt(Some(mv)) = found else {
            panic!()
        };
        assert_eq!(m(&mut h, &mv, "group", vec![I(0)]), "Some(12)");
        assert_eq!(m(&mut h, &mv, "group", vec![I(1)]), "Some(12)");
        assert_eq!(m(&mut h, &mv, "group", vec![I(2)]), "None");
        assert_eq!(m(&mut h, &mv, "group", vec![I(9)]), "None");
        assert_eq!(m(&mut h, &mv, "groups", vec![]), "[12, ]");
    }
}
