//! Methods on int, float, dec and bool (§5.11). Float transcendental methods use the host's math library
//! (Rust `f64` methods) on purpose: they are the forms the determinism lint flags; `math.*` is portable.

use std::cmp::Ordering;

use rust_decimal::{Decimal, RoundingStrategy};

use crate::display::display_float;
use crate::exc::{Exc, Res};
use crate::native::{not_found, rc_str};
use crate::ops::int_abs;
use crate::order::total_cmp;
use crate::value::{Args, Value};

fn number_arg(args: &Args, i: usize) -> Res<Value> {
    match args.get(i) {
        v @ (Value::Int(_) | Value::Float(_) | Value::Dec(_)) => Ok(v.clone()),
        _ => Err(args.type_error(i, "number")),
    }
}

/// `a.min(b)` / `a.max(b)`: the original argument wins by the total order (ties keep the receiver).
fn pick(recv: Value, other: Value, want: Ordering) -> Value {
    if total_cmp(&other, &recv) == want {
        other
    } else {
        recv
    }
}

fn div_zero() -> Exc {
    Exc::error("integer division by zero")
}

pub(super) fn call_int(i: i64, name: &str, args: Args) -> Res<Value> {
    let zero = |args: &Args| args.arity(0, 0);
    let one = |args: &Args| -> Res<i64> {
        args.arity(1, 1)?;
        args.int(0)
    };
    let opt = |r: Option<i64>| r.map_or(Value::none(), |v| Value::some(Value::Int(v)));
    Ok(match name {
        "to_str" | "to_string" => {
            zero(&args)?;
            rc_str(i.to_string())
        }
        "abs" => {
            zero(&args)?;
            Value::Int(int_abs(i)?)
        }
        "min" | "max" => {
            args.arity(1, 1)?;
            let o = number_arg(&args, 0)?;
            let want = if name == "min" {
                Ordering::Less
            } else {
                Ordering::Greater
            };
            pick(Value::Int(i), o, want)
        }
        "checked_add" => opt(i.checked_add(one(&args)?)),
        "checked_sub" => opt(i.checked_sub(one(&args)?)),
        "checked_mul" => opt(i.checked_mul(one(&args)?)),
        "checked_div" => opt(i.checked_div(one(&args)?)),
        "checked_neg" => {
            zero(&args)?;
            opt(i.checked_neg())
        }
        "checked_abs" => {
            zero(&args)?;
            opt(i.checked_abs())
        }
        "wrapping_add" => Value::Int(i.wrapping_add(one(&args)?)),
        "wrapping_sub" => Value::Int(i.wrapping_sub(one(&args)?)),
        "wrapping_mul" => Value::Int(i.wrapping_mul(one(&args)?)),
        "wrapping_div" => {
            let o = one(&args)?;
            if o == 0 {
                return Err(div_zero());
            }
            Value::Int(i.wrapping_div(o))
        }
        "wrapping_neg" => {
            zero(&args)?;
            Value::Int(i.wrapping_neg())
        }
        "wrapping_abs" => {
            zero(&args)?;
            Value::Int(i.wrapping_abs())
        }
        "saturating_add" => Value::Int(i.saturating_add(one(&args)?)),
        "saturating_sub" => Value::Int(i.saturating_sub(one(&args)?)),
        "saturating_mul" => Value::Int(i.saturating_mul(one(&args)?)),
        "saturating_div" => {
            let o = one(&args)?;
            if o == 0 {
                return Err(div_zero());
            }
            Value::Int(i.saturating_div(o))
        }
        "saturating_neg" => {
            zero(&args)?;
            Value::Int(i.saturating_neg())
        }
        "saturating_abs" => {
            zero(&args)?;
            Value::Int(i.saturating_abs())
        }
        _ => return Err(not_found(name)),
    })
}

pub(super) fn call_float(f: f64, name: &str, args: Args) -> Res<Value> {
    let unary: Option<fn(f64) -> f64> = match name {
        "abs" => Some(f64::abs),
        "floor" => Some(f64::floor),
        "ceil" => Some(f64::ceil),
        "round" => Some(f64::round),
        "trunc" => Some(f64::trunc),
        "sqrt" => Some(f64::sqrt),
        "sin" => Some(f64::sin),
        "cos" => Some(f64::cos),
        "tan" => Some(f64::tan),
        "asin" => Some(f64::asin),
        "acos" => Some(f64::acos),
        "atan" => Some(f64::atan),
        "sinh" => Some(f64::sinh),
        "cosh" => Some(f64::cosh),
        "tanh" => Some(f64::tanh),
        "asinh" => Some(f64::asinh),
        "acosh" => Some(f64::acosh),
        "atanh" => Some(f64::atanh),
        "exp" => Some(f64::exp),
        "exp2" => Some(f64::exp2),
        "exp_m1" => Some(f64::exp_m1),
        "ln" => Some(f64::ln),
        "log2" => Some(f64::log2),
        "log10" => Some(f64::log10),
        "ln_1p" => Some(f64::ln_1p),
        "cbrt" => Some(f64::cbrt),
        _ => None,
    };
    if let Some(op) = unary {
        args.arity(0, 0)?;
        return Ok(Value::Float(op(f)));
    }
    let binary: Option<fn(f64, f64) -> f64> = match name {
        "log" => Some(f64::log),
        "powf" => Some(f64::powf),
        "hypot" => Some(f64::hypot),
        "atan2" => Some(f64::atan2),
        _ => None,
    };
    if let Some(op) = binary {
        args.arity(1, 1)?;
        return Ok(Value::Float(op(f, args.number(0)?)));
    }
    Ok(match name {
        "to_str" | "to_string" => {
            args.arity(0, 0)?;
            rc_str(display_float(f))
        }
        "powi" => {
            args.arity(1, 1)?;
            let n = args.int(0)?;
            // Exponents beyond i32 go through powf, which gives the same limits (0, 1, ±inf).
            match i32::try_from(n) {
                Ok(n) => Value::Float(f.powi(n)),
                Err(_) => Value::Float(f.powf(n as f64)),
            }
        }
        _ => return Err(not_found(name)),
    })
}

pub(super) fn call_dec(d: Decimal, name: &str, args: Args) -> Res<Value> {
    Ok(match name {
        "to_str" | "to_string" => {
            args.arity(0, 0)?;
            rc_str(d.to_string())
        }
        "abs" => {
            args.arity(0, 0)?;
            Value::Dec(d.abs())
        }
        "round" => {
            args.arity(0, 1)?;
            let n = if args.is_empty() { 0 } else { args.int(0)? };
            if n < 0 {
                return Err(Exc::error(format!(
                    "dec.round: places must not be negative, got {n}"
                )));
            }
            let places = u32::try_from(n.min(28)).unwrap_or(28);
            Value::Dec(d.round_dp_with_strategy(places, RoundingStrategy::MidpointNearestEven))
        }
        "min" | "max" => {
            args.arity(1, 1)?;
            let o = number_arg(&args, 0)?;
            let want = if name == "min" {
                Ordering::Less
            } else {
                Ordering::Greater
            };
            pick(Value::Dec(d), o, want)
        }
        _ => return Err(not_found(name)),
    })
}

pub(super) fn call_bool(b: bool, name: &str, args: Args) -> Res<Value> {
    match name {
        "to_str" | "to_string" => {
            args.arity(0, 0)?;
            Ok(rc_str(if b { "true" } else { "false" }))
        }
        _ => Err(not_found(name)),
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use rust_decimal::Decimal;

    use super::super::testutil::*;
    use crate::test_host::MockHost;
    use crate::value::Value;
    use Value::{Float as F, Int as I};

    #[test]
    fn ints() {
        let mut h = MockHost::new();
        let max = I(i64::MAX);
        let min = I(i64::MIN);
        assert_eq!(m(&mut h, &max, "checked_add", vec![I(1)]), "None");
        assert_eq!(
            m(&mut h, &max, "wrapping_add", vec![I(1)]),
            "-9223372036854775808"
        );
        assert_eq!(
            m(&mut h, &max, "saturating_add", vec![I(1)]),
            "9223372036854775807"
        );
        assert_eq!(m(&mut h, &I(5), "checked_div", vec![I(0)]), "None");
        assert_eq!(m(&mut h, &min, "checked_div", vec![I(-1)]), "None");
        assert_eq!(
            m(&mut h, &min, "wrapping_div", vec![I(-1)]),
            "-9223372036854775808"
        );
        assert_eq!(
            m(&mut h, &min, "saturating_div", vec![I(-1)]),
            "9223372036854775807"
        );
        assert_eq!(
            m(&mut h, &I(1), "wrapping_div", vec![I(0)]),
            "error: integer division by zero"
        );
        assert_eq!(
            m(&mut h, &I(1), "saturating_div", vec![I(0)]),
            "error: integer division by zero"
        );
        assert_eq!(m(&mut h, &min, "checked_neg", vec![]), "None");
        assert_eq!(
            m(&mut h, &min, "wrapping_neg", vec![]),
            "-9223372036854775808"
        );
        assert_eq!(
            m(&mut h, &min, "saturating_neg", vec![]),
            "9223372036854775807"
        );
        assert_eq!(m(&mut h, &min, "checked_abs", vec![]), "None");
        assert_eq!(
            m(&mut h, &min, "wrapping_abs", vec![]),
            "-9223372036854775808"
        );
        assert_eq!(
            m(&mut h, &min, "saturating_abs", vec![]),
            "9223372036854775807"
        );
        assert_eq!(
            m(&mut h, &min, "abs", vec![]),
            "error: integer overflow: abs(-9223372036854775808)"
        );
        assert_eq!(
            m(&mut h, &I(3), "checked_sub", vec![F(1.0)]),
            "error: type error: int.checked_sub argument 1: expected int, found float"
        );
        assert_eq!(
            m(&mut h, &I(3), "saturating_mul", vec![I(i64::MAX)]),
            "9223372036854775807"
        );
        assert_eq!(m(&mut h, &I(3), "min", vec![F(2.5)]), "2.5");
        assert_eq!(m(&mut h, &I(3), "max", vec![F(2.5)]), "3");
        assert_eq!(m(&mut h, &I(3), "to_string", vec![]), "3");
    }

    #[test]
    fn floats() {
        let mut h = MockHost::new();
        assert_eq!(m(&mut h, &F(-2.5), "round", vec![]), "-3");
        assert_eq!(m(&mut h, &F(2.7), "trunc", vec![]), "2");
        assert_eq!(m(&mut h, &F(4.0), "sqrt", vec![]), "2");
        assert_eq!(m(&mut h, &F(-1.5), "abs", vec![]), "1.5");
        assert_eq!(m(&mut h, &F(2.0), "powi", vec![I(10)]), "1024");
        assert_eq!(m(&mut h, &F(2.0), "powf", vec![I(3)]), "8");
        assert_eq!(m(&mut h, &F(3.0), "hypot", vec![F(4.0)]), "5");
        assert_eq!(m(&mut h, &F(3.0), "to_str", vec![]), "3");
        assert_eq!(m(&mut h, &F(1.0), "powi", vec![I(i64::MAX)]), "1");
        assert_eq!(
            m(&mut h, &F(1.0), "powf", vec![s("x")]),
            "error: type error: float.powf argument 1: expected number, found str"
        );
    }

    #[test]
    fn decimals_and_bools() {
        let mut h = MockHost::new();
        let d = |x: &str| Value::Dec(Decimal::from_str(x).unwrap());
        assert_eq!(m(&mut h, &d("2.345"), "round", vec![I(2)]), "2.34");
        assert_eq!(m(&mut h, &d("2.355"), "round", vec![I(2)]), "2.36");
        assert_eq!(m(&mut h, &d("2.5"), "round", vec![I(0)]), "2");
        assert_eq!(m(&mut h, &d("-1.50"), "abs", vec![]), "1.50");
        assert_eq!(m(&mut h, &d("1.50"), "to_string", vec![]), "1.50");
        assert_eq!(m(&mut h, &Value::Bool(true), "to_str", vec![]), "true");
    }
}
