//! str methods (§5.10). `len` counts bytes; `slice`, `char_at`, `index_of`, `chars` count characters.

use std::rc::Rc;

use crate::exc::{Exc, Res};
use crate::native::{alloc_string, alloc_values, not_found, rc_str, VALUE_SIZE};
use crate::value::{char_str, Args, Host, Value};

pub(super) fn call(host: &mut dyn Host, s: Rc<str>, name: &str, args: Args) -> Res<Value> {
    let zero = |args: &Args| args.arity(0, 0);
    Ok(match name {
        "len" => {
            zero(&args)?;
            Value::Int(s.len() as i64)
        }
        "chars_count" => {
            zero(&args)?;
            Value::Int(s.chars().count() as i64)
        }
        "is_empty" => {
            zero(&args)?;
            Value::Bool(s.is_empty())
        }
        "to_upper" | "to_uppercase" => {
            zero(&args)?;
            host.reserve(s.len().saturating_mul(3))?;
            rc_str(s.to_uppercase())
        }
        "to_lower" | "to_lowercase" => {
            zero(&args)?;
            host.reserve(s.len().saturating_mul(3))?;
            rc_str(s.to_lowercase())
        }
        "trim" => {
            zero(&args)?;
            rc_str(s.trim())
        }
        "trim_start" => {
            zero(&args)?;
            rc_str(s.trim_start())
        }
        "trim_end" => {
            zero(&args)?;
            rc_str(s.trim_end())
        }
        "contains" => {
            args.arity(1, 1)?;
            Value::Bool(s.contains(args.str(0)?))
        }
        "starts_with" => {
            args.arity(1, 1)?;
            Value::Bool(s.starts_with(args.str(0)?))
        }
        "ends_with" => {
            args.arity(1, 1)?;
            Value::Bool(s.ends_with(args.str(0)?))
        }
        "split" => {
            args.arity(0, 1)?;
            let sep = if args.is_empty() { " " } else { args.str(0)? };
            // A one-byte separator (the usual `,` or ` `) as a char: the same pieces, found with
            // `memchr` instead of a general substring search.
            let byte = match sep.as_bytes() {
                [b] => Some(char::from(*b)),
                _ => None,
            };
            let n = match byte {
                Some(c) => s.matches(c).count(),
                None => s.matches(sep).count(),
            }
            .saturating_add(1);
            host.reserve(s.len().saturating_add(n.saturating_mul(VALUE_SIZE * 2)))?;
            let mut out = alloc_values(host, n)?;
            match byte {
                Some(c) => out.extend(s.split(c).map(rc_str)),
                None => out.extend(s.split(sep).map(rc_str)),
            }
            Value::list(out)
        }
        "replace" => {
            args.arity(2, 2)?;
            let (from, to) = (args.str(0)?, args.str(1)?);
            let n = s.matches(from).count();
            let size = s.len().saturating_add(n.saturating_mul(to.len()));
            alloc_string(host, size)?;
            rc_str(s.replace(from, to))
        }
        "repeat" => {
            args.arity(1, 1)?;
            let n = args.int(0)?;
            let n = usize::try_from(n).map_err(|_| {
                Exc::error(format!("str.repeat: count must not be negative, got {n}"))
            })?;
            if s.is_empty() || n == 0 {
                return Ok(rc_str(""));
            }
            let size = s
                .len()
                .checked_mul(n)
                .filter(|size| *size <= isize::MAX as usize)
                .ok_or_else(|| Exc::error("str.repeat: result too large"))?;
            host.reserve(size)?;
            // Doubling copies: each step appends whole copies of `s`, so the bytes stay valid UTF-8.
            let mut out: Vec<u8> = Vec::new();
            out.try_reserve_exact(size)
                .map_err(|_| Exc::error(format!("out of memory: {size} bytes")))?;
            out.extend_from_slice(s.as_bytes());
            while out.len() < size {
                let take = out.len().min(size - out.len());
                out.extend_from_within(..take);
            }
            rc_str(String::from_utf8(out).map_err(|_| Exc::error("str.repeat: invalid text"))?)
        }
        "count" => {
            args.arity(1, 1)?;
            Value::Int(s.matches(args.str(0)?).count() as i64)
        }
        "is_alpha" => {
            zero(&args)?;
            Value::Bool(all_chars(&s, char::is_alphabetic))
        }
        "is_digit" => {
            zero(&args)?;
            Value::Bool(all_chars(&s, |c| c.is_ascii_digit()))
        }
        "is_alnum" => {
            zero(&args)?;
            Value::Bool(all_chars(&s, |c| c.is_alphabetic() || c.is_ascii_digit()))
        }
        "is_upper" => {
            zero(&args)?;
            Value::Bool(all_chars(&s, char::is_uppercase))
        }
        "is_lower" => {
            zero(&args)?;
            Value::Bool(all_chars(&s, char::is_lowercase))
        }
        "ord" => {
            zero(&args)?;
            match s.chars().next() {
                Some(c) => Value::Int(c as i64),
                None => return Err(Exc::error("str.ord: empty string")),
            }
        }
        "chars" => {
            zero(&args)?;
            let n = s.chars().count();
            host.reserve(n.saturating_mul(VALUE_SIZE + 24))?;
            let mut out = alloc_values(host, n)?;
            out.extend(s.chars().map(|c| Value::Str(char_str(c))));
            Value::list(out)
        }
        "to_str" | "to_string" => {
            zero(&args)?;
            Value::Str(s)
        }
        "slice" => {
            args.arity(1, 2)?;
            let n = s.chars().count();
            let start = clamp(args.int(0)?, n);
            let end = if args.len() > 1 {
                clamp(args.int(1)?, n)
            } else {
                n
            };
            if start >= end {
                rc_str("")
            } else {
                let a = byte_offset(&s, start);
                let b = byte_offset(&s, end);
                rc_str(&s[a..b])
            }
        }
        "char_at" => {
            args.arity(1, 1)?;
            let i = args.int(0)?;
            match usize::try_from(i).ok().and_then(|p| s.chars().nth(p)) {
                Some(c) => Value::some(Value::Str(char_str(c))),
                None => Value::none(),
            }
        }
        "index_of" => {
            args.arity(1, 1)?;
            match s.find(args.str(0)?) {
                Some(pos) => Value::some(Value::Int(s[..pos].chars().count() as i64)),
                None => Value::none(),
            }
        }
        "to_int" => {
            zero(&args)?;
            s.trim()
                .parse::<i64>()
                .map_or(Value::none(), |i| Value::some(Value::Int(i)))
        }
        "to_float" => {
            zero(&args)?;
            s.trim()
                .parse::<f64>()
                .map_or(Value::none(), |f| Value::some(Value::Float(f)))
        }
        _ => return Err(not_found(name)),
    })
}

/// Non-empty and every character satisfies `f`.
fn all_chars(s: &str, f: impl Fn(char) -> bool) -> bool {
    !s.is_empty() && s.chars().all(f)
}

/// Clamps a character index to `[0, n]`.
fn clamp(i: i64, n: usize) -> usize {
    usize::try_from(i.max(0)).unwrap_or(usize::MAX).min(n)
}

/// The byte offset of character `i` (or the length when `i` is the character count).
fn byte_offset(s: &str, i: usize) -> usize {
    s.char_indices().nth(i).map_or(s.len(), |(b, _)| b)
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use crate::test_host::MockHost;
    use crate::value::Value;
    use Value::Int as I;

    #[test]
    fn basics() {
        let mut h = MockHost::new();
        let he = s("héllo");
        assert_eq!(m(&mut h, &he, "len", vec![]), "6");
        assert_eq!(m(&mut h, &he, "chars_count", vec![]), "5");
        assert_eq!(m(&mut h, &he, "slice", vec![I(1), I(3)]), "él");
        assert_eq!(m(&mut h, &he, "slice", vec![I(-5), I(99)]), "héllo");
        assert_eq!(m(&mut h, &he, "slice", vec![I(3), I(1)]), "");
        assert_eq!(m(&mut h, &he, "slice", vec![I(4)]), "o");
        assert_eq!(m(&mut h, &he, "char_at", vec![I(1)]), "Some(é)");
        assert_eq!(m(&mut h, &he, "char_at", vec![I(9)]), "None");
        assert_eq!(m(&mut h, &he, "index_of", vec![s("l")]), "Some(2)");
        assert_eq!(m(&mut h, &he, "index_of", vec![s("z")]), "None");
        assert_eq!(m(&mut h, &s("ß"), "to_upper", vec![]), "SS");
        assert_eq!(m(&mut h, &s("ABC"), "to_lowercase", vec![]), "abc");
        assert_eq!(m(&mut h, &s(" \u{3000}x\t"), "trim", vec![]), "x");
        assert_eq!(m(&mut h, &s(" x "), "trim_start", vec![]), "x ");
        assert_eq!(m(&mut h, &s(" x "), "trim_end", vec![]), " x");
        assert_eq!(m(&mut h, &s("abc"), "contains", vec![s("b")]), "true");
        assert_eq!(m(&mut h, &s("abc"), "starts_with", vec![s("ab")]), "true");
        assert_eq!(m(&mut h, &s("abc"), "ends_with", vec![s("x")]), "false");
        assert_eq!(m(&mut h, &s(""), "is_empty", vec![]), "true");
        assert_eq!(m(&mut h, &s("x"), "to_string", vec![]), "x");
    }

    #[test]
    fn split_replace_count_repeat() {
        let mut h = MockHost::new();
        assert_eq!(m(&mut h, &s("a,,b"), "split", vec![s(",")]), "[a, , b]");
        assert_eq!(m(&mut h, &s("a b"), "split", vec![]), "[a, b]");
        // One-byte separators go the char way, longer ones the substring way: the same pieces.
        assert_eq!(m(&mut h, &s(",a,"), "split", vec![s(",")]), "[, a, ]");
        assert_eq!(m(&mut h, &s(""), "split", vec![s(",")]), "[]");
        assert_eq!(m(&mut h, &s("a->b->"), "split", vec![s("->")]), "[a, b, ]");
        assert_eq!(m(&mut h, &s("é,ü"), "split", vec![s(",")]), "[é, ü]");
        assert_eq!(
            m(&mut h, &s("a,b"), "split", vec![I(1)]),
            "error: type error: str.split argument 1: expected str, found int"
        );
        assert_eq!(
            m(&mut h, &s("a,b"), "split", vec![s(","), s(",")]),
            "error: function `str.split` expects 1 argument, got 2"
        );
        assert_eq!(
            m(&mut h, &s("aXbX"), "replace", vec![s("X"), s("yy")]),
            "ayybyy"
        );
        assert_eq!(m(&mut h, &s("aaa"), "count", vec![s("aa")]), "1");
        assert_eq!(m(&mut h, &s("héllo"), "count", vec![s("")]), "6");
        assert_eq!(m(&mut h, &s("ab"), "repeat", vec![I(3)]), "ababab");
        assert_eq!(m(&mut h, &s("ab"), "repeat", vec![I(0)]), "");
        assert_eq!(m(&mut h, &s("é"), "repeat", vec![I(5)]), "ééééé");
        assert_eq!(m(&mut h, &s(""), "repeat", vec![I(i64::MAX)]), "");
        assert_eq!(
            m(&mut h, &s("ab"), "repeat", vec![I(-1)]),
            "error: str.repeat: count must not be negative, got -1"
        );
        assert_eq!(
            m(&mut h, &s("ab"), "repeat", vec![I(i64::MAX)]),
            "error: str.repeat: result too large"
        );
        h.limit = Some(1000);
        assert!(m(&mut h, &s("ab"), "repeat", vec![I(1_000_000)]).starts_with("exc: Ceiling"));
    }

    #[test]
    fn classes_and_parsing() {
        let mut h = MockHost::new();
        assert_eq!(m(&mut h, &s(""), "is_alpha", vec![]), "false");
        assert_eq!(m(&mut h, &s("é"), "is_alpha", vec![]), "true");
        assert_eq!(m(&mut h, &s("12"), "is_digit", vec![]), "true");
        assert_eq!(m(&mut h, &s("a1"), "is_alnum", vec![]), "true");
        assert_eq!(m(&mut h, &s("AB"), "is_upper", vec![]), "true");
        assert_eq!(m(&mut h, &s("aB"), "is_lower", vec![]), "false");
        assert_eq!(m(&mut h, &s("é"), "ord", vec![]), "233");
        assert_eq!(
            m(&mut h, &s(""), "ord", vec![]),
            "error: str.ord: empty string"
        );
        assert_eq!(m(&mut h, &s("hé"), "chars", vec![]), "[h, é]");
        assert_eq!(m(&mut h, &s(" 42 "), "to_int", vec![]), "Some(42)");
        assert_eq!(m(&mut h, &s("4x"), "to_int", vec![]), "None");
        assert_eq!(m(&mut h, &s(" 2.5"), "to_float", vec![]), "Some(2.5)");
        assert_eq!(m(&mut h, &s("x"), "to_float", vec![]), "None");
    }
}
