//! Global functions (§5.2, decisions.md 5 and 10).

use std::cmp::Ordering;
use std::rc::Rc;
use std::str::FromStr;

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use crate::display::{display, display_float, display_into};
use crate::exc::{Exc, Res};
use crate::kind::type_of_str;
use crate::native::{alloc_values, rc_str, VALUE_SIZE};
use crate::native::{extreme, sum as sum_values};
use crate::ops::int_abs;
use crate::order::total_cmp;
use crate::value::{char_str, Args, Host, Value};

/// `print(a, b, …)`: display forms joined by spaces, then a newline.
pub(super) fn print(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    let mut out = String::new();
    for (i, v) in args.values.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        display_into(&mut out, v);
    }
    out.push('\n');
    host.write_stdout(&out)?;
    Ok(Value::Null)
}

/// `assert(cond[, msg])`: only exactly `true` passes.
pub(super) fn assert(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 2)?;
    if matches!(args.get(0), Value::Bool(true)) {
        return Ok(Value::Null);
    }
    if args.len() > 1 {
        Err(Exc::error(format!(
            "assertion failed: {}",
            display(args.get(1))
        )))
    } else {
        Err(Exc::error("assertion failed"))
    }
}

/// The `len` of a value (shared with callers that need it without a builtin call).
pub fn len_of(mut v: &Value) -> Option<i64> {
    // A loop, not recursion: `Some(Some(…))` may be nested arbitrarily deep.
    while let Value::Opt(Some(x)) | Value::Res(Ok(x)) = v {
        v = x;
    }
    Some(match v {
        Value::List(l) | Value::Tuple(l) => l.len() as i64,
        Value::Str(s) => s.len() as i64,
        Value::Map(m) => m.len() as i64,
        Value::Opt(None) | Value::Res(Err(_)) => 0,
        _ => return None,
    })
}

pub(super) fn len(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    len_of(args.get(0))
        .map(Value::Int)
        .ok_or_else(|| args.type_error(0, "str, list, map or tuple"))
}

pub(super) fn str_(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let s = match args.get(0) {
        // The same text: nothing new to hold.
        Value::Str(s) => return Ok(Value::Str(s.clone())),
        // Digits written once, into the str itself (not a String first, then copied).
        Value::Int(n) => {
            let mut digits = [0u8; 20];
            let text = int_text(*n, &mut digits);
            host.reserve(text.len())?;
            return Ok(Value::Str(Rc::from(text)));
        }
        v => display(v),
    };
    host.reserve(s.len())?;
    Ok(rc_str(s))
}

/// `n` in decimal, written at the end of `buf` (20 bytes hold `i64::MIN`).
fn int_text(n: i64, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    let mut u = n.unsigned_abs();
    loop {
        at -= 1;
        buf[at] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if n < 0 {
        at -= 1;
        buf[at] = b'-';
    }
    // Only ASCII digits and '-' were written.
    std::str::from_utf8(&buf[at..]).unwrap_or_default()
}

/// `int(x)`: never fails except for a decimal beyond i64 (decisions.md 5).
pub(super) fn int(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(Value::Int(match args.get(0) {
        Value::Int(i) => *i,
        // `as` truncates toward zero, saturates and maps NaN to 0, exactly the spec's rule.
        Value::Float(f) => *f as i64,
        Value::Str(s) => s.trim().parse::<i64>().unwrap_or(0),
        Value::Bool(b) => i64::from(*b),
        Value::Dec(d) => d
            .trunc()
            .to_i64()
            .ok_or_else(|| Exc::error(format!("decimal overflow: int({d})")))?,
        _ => 0,
    }))
}

pub(super) fn float(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(Value::Float(match args.get(0) {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Str(s) => s.trim().parse::<f64>().unwrap_or(0.0),
        Value::Bool(true) => 1.0,
        Value::Bool(false) => 0.0,
        Value::Dec(d) => d.to_f64().unwrap_or(0.0),
        _ => 0.0,
    }))
}

/// `bool(x)`: false for null, None, false, 0, 0.0, "" and []; a zero decimal is false like the other zeros.
pub(super) fn bool_(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(Value::Bool(match args.get(0) {
        Value::Null | Value::Opt(None) => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Dec(d) => !d.is_zero(),
        Value::Str(s) => !s.is_empty(),
        Value::List(l) => !l.is_empty(),
        _ => true,
    }))
}

/// `range(end)` / `range(start, end)`: reserves before building, so huge bounds trip `--max-memory`.
pub(super) fn range(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    let (start, end) = range_bounds(host, args)?;
    let mut out = alloc_values(host, (i128::from(end) - i128::from(start)) as usize)?;
    out.extend((start..end).map(Value::Int));
    Ok(Value::list(out))
}

/// `range`'s checks and bounds, `start..end` (empty as `start == end`): its arguments, and room
/// for the list under `--max-memory`. The compiled tier's `for x in range(…)` calls this alone and
/// counts from `start` to `end` without building the list, with the same errors as `range`.
pub fn range_bounds(host: &mut dyn Host, args: &mut Args) -> Res<(i64, i64)> {
    args.arity(1, 2)?;
    let (start, end) = if args.len() == 1 {
        (0, args.int(0)?)
    } else {
        (args.int(0)?, args.int(1)?)
    };
    if start >= end {
        return Ok((start, start));
    }
    let count = (i128::from(end) - i128::from(start)) as u128;
    let count = usize::try_from(count).map_err(|_| Exc::error("range: too many elements"))?;
    host.reserve(count.saturating_mul(VALUE_SIZE))?;
    Ok((start, end))
}

pub(super) fn type_of_(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(Value::Str(type_of_str(args.get(0))))
}

pub(super) fn abs(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    match args.get(0) {
        Value::Int(i) => Ok(Value::Int(int_abs(*i)?)),
        Value::Float(f) => Ok(Value::Float(f.abs())),
        Value::Dec(d) => Ok(Value::Dec(d.abs())),
        _ => Err(args.type_error(0, "number")),
    }
}

/// `min`/`max`: two values by the total order (the original argument is returned), or one list.
fn min_max(args: &Args, want: Ordering) -> Res<Value> {
    args.arity(1, 2)?;
    if args.len() == 1 {
        let items = args.list(0)?;
        return Ok(extreme(items, want).unwrap_or(Value::Null));
    }
    let (a, b) = (args.get(0), args.get(1));
    Ok(if total_cmp(b, a) == want {
        b.clone()
    } else {
        a.clone()
    })
}

pub(super) fn min(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    min_max(args, Ordering::Less)
}

pub(super) fn max(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    min_max(args, Ordering::Greater)
}

pub(super) fn sorted(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let items = args.list(0)?;
    let mut out = alloc_values(host, items.len())?;
    out.extend_from_slice(items);
    crate::order::sort_total(&mut out);
    Ok(Value::list(out))
}

pub(super) fn sum(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    sum_values(args.list(0)?)
}

pub(super) fn chr(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let n = args.int(0)?;
    match u32::try_from(n).ok().and_then(char::from_u32) {
        Some(c) => Ok(Value::Str(char_str(c))),
        None => Err(Exc::error(format!("chr: invalid code point {n}"))),
    }
}

/// `panic(msg)`: the message already carries the `panic: ` prefix the user sees.
pub(super) fn panic(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Err(Exc::Panic {
        message: format!("panic: {}", display(args.get(0))),
        loc: None,
    })
}

/// `dec(x)`: from an int, a decimal str, or a float's shortest display form.
pub(super) fn dec(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    match args.get(0) {
        Value::Dec(d) => Ok(Value::Dec(*d)),
        Value::Int(i) => Ok(Value::Dec(Decimal::from(*i))),
        Value::Str(s) => parse_dec(s.trim())
            .map(Value::Dec)
            .ok_or_else(|| args.type_error(0, "decimal str")),
        Value::Float(f) => {
            if !f.is_finite() {
                return Err(Exc::error(format!(
                    "decimal overflow: dec({})",
                    display_float(*f)
                )));
            }
            let text = display_float(*f);
            parse_dec(&text)
                .map(Value::Dec)
                .ok_or_else(|| Exc::error(format!("decimal overflow: dec({text})")))
        }
        _ => Err(args.type_error(0, "int, float or str")),
    }
}

/// Parses plain decimal text (`1.50`, `-3`); scientific notation is accepted too.
fn parse_dec(s: &str) -> Option<Decimal> {
    Decimal::from_str(s)
        .ok()
        .or_else(|| Decimal::from_scientific(s).ok())
}

#[cfg(test)]
mod tests {
    use crate::builtins::test_call as call;
    use crate::test_host::MockHost;
    use crate::value::Value;
    use Value::{Float as F, Int as I};

    fn s(x: &str) -> Value {
        Value::str(x)
    }

    fn ints(xs: &[i64]) -> Value {
        Value::list(xs.iter().map(|i| I(*i)).collect())
    }

    #[test]
    fn print_and_assert() {
        let mut h = MockHost::new();
        call(&mut h, "print", vec![I(1), s("a")]);
        call(&mut h, "print", vec![]);
        call(
            &mut h,
            "print",
            vec![Value::list(vec![
                I(1),
                s("a"),
                Value::list(vec![Value::Bool(true), Value::Null]),
            ])],
        );
        assert_eq!(h.stdout, "1 a\n\n[1, a, [true, null]]\n");
        assert_eq!(call(&mut h, "assert", vec![Value::Bool(true)]), "null");
        assert_eq!(
            call(&mut h, "assert", vec![Value::Bool(false), s("math")]),
            "error: assertion failed: math"
        );
        assert_eq!(
            call(&mut h, "assert", vec![I(1)]),
            "error: assertion failed"
        );
        assert_eq!(call(&mut h, "panic", vec![s("boom")]), "panic: panic: boom");
    }

    /// `str` of an int writes its digits itself; they must be the display form's, at the edges.
    #[test]
    fn str_of_an_int_is_its_display() {
        let mut h = MockHost::new();
        let mut cases = vec![
            0,
            1,
            -1,
            9,
            10,
            -10,
            99,
            100,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ];
        let mut x: i64 = 7;
        for _ in 0..200 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            cases.push(x >> (x as u64 % 60));
        }
        for n in cases {
            let got = call(&mut h, "str", vec![I(n)]);
            assert_eq!(got, crate::display::display(&I(n)), "{n}");
            assert_eq!(got, n.to_string(), "{n}");
        }
        assert_eq!(call(&mut h, "str", vec![s("x")]), "x");
    }

    #[test]
    fn conversions() {
        let mut h = MockHost::new();
        assert_eq!(call(&mut h, "len", vec![s("héllo")]), "6");
        assert_eq!(call(&mut h, "len", vec![Value::some(ints(&[1, 2]))]), "2");
        assert_eq!(call(&mut h, "len", vec![Value::none()]), "0");
        assert_eq!(
            call(&mut h, "len", vec![I(1)]),
            "error: type error: len argument 1: expected str, list, map or tuple, found int"
        );
        assert_eq!(call(&mut h, "str", vec![F(3.0)]), "3");
        assert_eq!(call(&mut h, "int", vec![s(" 42 ")]), "42");
        assert_eq!(call(&mut h, "int", vec![s("4x")]), "0");
        assert_eq!(call(&mut h, "int", vec![s("-7")]), "-7");
        assert_eq!(call(&mut h, "int", vec![F(-2.9)]), "-2");
        assert_eq!(call(&mut h, "int", vec![F(f64::NAN)]), "0");
        assert_eq!(call(&mut h, "int", vec![F(1e300)]), "9223372036854775807");
        assert_eq!(call(&mut h, "int", vec![Value::Bool(true)]), "1");
        assert_eq!(call(&mut h, "int", vec![Value::Null]), "0");
        assert_eq!(call(&mut h, "float", vec![s(" 2.5 ")]), "2.5");
        assert_eq!(call(&mut h, "float", vec![s("x")]), "0");
        assert_eq!(call(&mut h, "float", vec![I(3)]), "3");
        assert_eq!(call(&mut h, "bool", vec![ints(&[])]), "false");
        assert_eq!(call(&mut h, "bool", vec![Value::none()]), "false");
        assert_eq!(call(&mut h, "bool", vec![F(0.0)]), "false");
        assert_eq!(call(&mut h, "bool", vec![s("0")]), "true");
        assert_eq!(call(&mut h, "type_of", vec![ints(&[])]), "List");
        let print = crate::builtins::namespace_member("", "print").unwrap();
        assert_eq!(call(&mut h, "type_of", vec![print]), "fn");
        assert_eq!(call(&mut h, "chr", vec![I(233)]), "é");
        assert_eq!(
            call(&mut h, "chr", vec![I(0xD800)]),
            "error: chr: invalid code point 55296"
        );
        assert_eq!(
            call(&mut h, "chr", vec![I(-1)]),
            "error: chr: invalid code point -1"
        );
    }

    #[test]
    fn numbers_and_lists() {
        let mut h = MockHost::new();
        assert_eq!(call(&mut h, "range", vec![I(2), I(5)]), "[2, 3, 4]");
        assert_eq!(call(&mut h, "range", vec![I(3)]), "[0, 1, 2]");
        assert_eq!(call(&mut h, "range", vec![I(5), I(2)]), "[]");
        assert_eq!(
            call(&mut h, "range", vec![F(1.0)]),
            "error: type error: range argument 1: expected int, found float"
        );
        h.limit = Some(1 << 20);
        assert!(call(&mut h, "range", vec![I(i64::MIN), I(i64::MAX)]).starts_with("exc: Ceiling"));
        h.limit = None;
        assert_eq!(call(&mut h, "abs", vec![I(-3)]), "3");
        assert_eq!(
            call(&mut h, "abs", vec![I(i64::MIN)]),
            "error: integer overflow: abs(-9223372036854775808)"
        );
        assert_eq!(call(&mut h, "abs", vec![F(-0.5)]), "0.5");
        assert_eq!(call(&mut h, "min", vec![I(1), F(0.5)]), "0.5");
        assert_eq!(call(&mut h, "max", vec![I(1), F(0.5)]), "1");
        assert_eq!(call(&mut h, "max", vec![s("a"), s("b")]), "b");
        assert_eq!(call(&mut h, "min", vec![ints(&[3, 1, 2])]), "1");
        assert_eq!(call(&mut h, "max", vec![ints(&[])]), "null");
        assert_eq!(call(&mut h, "sorted", vec![ints(&[3, 1, 2])]), "[1, 2, 3]");
        assert_eq!(call(&mut h, "sum", vec![ints(&[1, 2, 3])]), "6");
        assert_eq!(
            call(&mut h, "sum", vec![Value::list(vec![I(1), F(2.5)])]),
            "3.5"
        );
    }

    #[test]
    fn decimals() {
        let mut h = MockHost::new();
        assert_eq!(call(&mut h, "dec", vec![s("1.50")]), "1.50");
        assert_eq!(call(&mut h, "dec", vec![I(3)]), "3");
        assert_eq!(call(&mut h, "dec", vec![F(0.1)]), "0.1");
        assert_eq!(
            call(&mut h, "dec", vec![s("abc")]),
            "error: type error: dec argument 1: expected decimal str, found str"
        );
        assert_eq!(
            call(&mut h, "dec", vec![F(f64::NAN)]),
            "error: decimal overflow: dec(NaN)"
        );
        assert_eq!(
            call(&mut h, "dec", vec![Value::Bool(true)]),
            "error: type error: dec argument 1: expected int, float or str, found bool"
        );
        let big = call(&mut h, "dec", vec![s("79228162514264337593543950335")]);
        assert_eq!(big, "79228162514264337593543950335");
        let d = crate::builtins::lookup("", "dec").unwrap();
        let v = (d.f)(
            &mut h,
            &mut crate::value::Args::new("dec", vec![s("79228162514264337593543950335")]),
        )
        .unwrap();
        assert_eq!(
            call(&mut h, "int", vec![v]),
            "error: decimal overflow: int(79228162514264337593543950335)"
        );
        let v = (d.f)(&mut h, &mut crate::value::Args::new("dec", vec![s("-2.7")])).unwrap();
        assert_eq!(call(&mut h, "int", vec![v.clone()]), "-2");
        assert_eq!(call(&mut h, "float", vec![v.clone()]), "-2.7");
        assert_eq!(call(&mut h, "abs", vec![v]), "2.7");
    }
}
