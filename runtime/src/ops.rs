//! Operators, indexing, field reads and place assignment (voxscript.md §4.4–§4.6, §4.10, §4.13), with
//! the exact messages the spec pins. `and`/`or` short-circuit in the evaluator, so they are not here.

use std::cmp::Ordering;
use std::rc::Rc;

use rust_decimal::{Decimal, RoundingStrategy};

use crate::display::display_into;
use crate::equality::equals;
use crate::exc::{Exc, Res};
use crate::kind::{message_name, type_of};
use crate::order::dec_from_int;
use crate::value::{char_str, Host, Tagged, Value};

/// The operators are the resolved form's own (one enum for the analysis and the runtime); the
/// names appear in messages: ``unsupported binary op `Add` …``.
pub use vox_hir::BinOp;

/// Tagged values are copied on write (`tagged.f = v`), which needs `Clone`.
impl Clone for Tagged {
    fn clone(&self) -> Tagged {
        Tagged {
            variant: self.variant.clone(),
            fields: self.fields.clone(),
            values: self.values.clone(),
        }
    }
}

fn unsupported(op: BinOp, a: &Value, b: &Value) -> Exc {
    Exc::error(format!(
        "unsupported binary op `{}` for operands {} and {}",
        op.name(),
        message_name(a),
        message_name(b)
    ))
}

/// Evaluates `a op b`.
pub fn binary(op: BinOp, a: &Value, b: &Value) -> Res<Value> {
    match op {
        BinOp::Eq => return Ok(Value::Bool(equals(a, b))),
        BinOp::Ne => return Ok(Value::Bool(!equals(a, b))),
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge => return compare(op, a, b).map(Value::Bool),
        _ => {}
    }
    if op == BinOp::Add && (matches!(a, Value::Str(_)) || matches!(b, Value::Str(_))) {
        let cap = |v: &Value| match v {
            Value::Str(s) => s.len(),
            _ => 0,
        };
        let mut s = String::with_capacity(cap(a).saturating_add(cap(b)));
        display_into(&mut s, a);
        display_into(&mut s, b);
        return Ok(Value::Str(Rc::from(s)));
    }
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => int_arith(op, *x, *y).map(Value::Int),
        (Value::Int(x), Value::Float(y)) => float_arith(op, *x as f64, *y, a, b),
        (Value::Float(x), Value::Int(y)) => float_arith(op, *x, *y as f64, a, b),
        (Value::Float(x), Value::Float(y)) => float_arith(op, *x, *y, a, b),
        (Value::Dec(x), Value::Dec(y)) => dec_arith(op, *x, *y).map(Value::Dec),
        (Value::Dec(x), Value::Int(y)) => dec_arith(op, *x, dec_from_int(*y)).map(Value::Dec),
        (Value::Int(x), Value::Dec(y)) => dec_arith(op, dec_from_int(*x), *y).map(Value::Dec),
        _ => Err(unsupported(op, a, b)),
    }
}

/// `binary`, first telling the host about the size of a concatenation so `--max-memory` trips before
/// the allocation (decisions.md 21).
pub fn binary_host(host: &mut dyn Host, op: BinOp, a: &Value, b: &Value) -> Res<Value> {
    if let Some(bytes) = concat_reservation(op, a, b) {
        host.reserve(bytes)?;
    }
    binary(op, a, b)
}

/// `binary_host` for the interpreter, whose host reserves through `alloc::reserve`: with no host
/// borrowed, the operands can be read where they lie.
pub fn binary_reserving(op: BinOp, a: &Value, b: &Value) -> Res<Value> {
    if let Some(bytes) = concat_reservation(op, a, b) {
        crate::alloc::reserve(bytes)?;
    }
    binary(op, a, b)
}

/// The bytes a concatenation holds at its peak, when `op` is one.
fn concat_reservation(op: BinOp, a: &Value, b: &Value) -> Option<usize> {
    if op == BinOp::Add && (matches!(a, Value::Str(_)) || matches!(b, Value::Str(_))) {
        let size = |v: &Value| match v {
            Value::Str(s) => s.len(),
            _ => 32,
        };
        // The text is built in a `String`, then copied into the `Rc<str>`: both are live at once.
        return Some(size(a).saturating_add(size(b)).saturating_mul(2));
    }
    None
}

/// An integer comparison (`op` is one of the six comparisons).
#[inline(always)]
pub fn int_cmp(op: BinOp, x: i64, y: i64) -> bool {
    match op {
        BinOp::Lt => x < y,
        BinOp::Le => x <= y,
        BinOp::Gt => x > y,
        BinOp::Ge => x >= y,
        BinOp::Eq => x == y,
        _ => x != y,
    }
}

/// A comparison of two strs, inline (both tiers' fast path; `binary` compares them the same way,
/// by their bytes); `None` when `op` is not a comparison. A JSON or CSV scan compares one-character
/// strs this way at every character.
#[inline(always)]
pub fn str_cmp(op: BinOp, x: &str, y: &str) -> Option<bool> {
    match (x.as_bytes(), y.as_bytes()) {
        // One character each: the bytes themselves, without a call to `memcmp`.
        ([a], [b]) => ordered(op, a, b),
        (x, y) => ordered(op, x, y),
    }
}

#[inline(always)]
fn ordered<T: Ord + ?Sized>(op: BinOp, x: &T, y: &T) -> Option<bool> {
    Some(match op {
        BinOp::Eq => x == y,
        BinOp::Ne => x != y,
        BinOp::Lt => x < y,
        BinOp::Le => x <= y,
        BinOp::Gt => x > y,
        BinOp::Ge => x >= y,
        _ => return None,
    })
}

/// An operator on two ints, inline (both tiers' fast path).
pub enum IntResult {
    Int(i64),
    Bool(bool),
    /// Overflow or a zero divisor: the general path gives the message.
    General,
}

#[inline(always)]
pub fn int_op(op: BinOp, x: i64, y: i64) -> IntResult {
    let n = match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mul => x.checked_mul(y),
        BinOp::Div => x.checked_div(y),
        BinOp::Mod => x.checked_rem(y),
        _ => return IntResult::Bool(int_cmp(op, x, y)),
    };
    match n {
        Some(n) => IntResult::Int(n),
        None => IntResult::General,
    }
}

/// Checked i64 arithmetic with the spec's messages.
pub fn int_arith(op: BinOp, x: i64, y: i64) -> Res<i64> {
    let r = match op {
        BinOp::Add => x.checked_add(y),
        // Subtraction always says "underflow" (upstream's wording).
        BinOp::Sub => {
            return x
                .checked_sub(y)
                .ok_or_else(|| Exc::error(format!("integer underflow: {x} - {y}")))
        }
        BinOp::Mul => x.checked_mul(y),
        BinOp::Div => {
            if y == 0 {
                return Err(Exc::error("integer division by zero"));
            }
            x.checked_div(y)
        }
        BinOp::Mod => {
            if y == 0 {
                return Err(Exc::error("integer modulo by zero"));
            }
            if y == -1 && x == i64::MIN {
                return Err(Exc::error(format!("integer overflow: {x} % {y}")));
            }
            x.checked_rem(y)
        }
        _ => None,
    };
    r.ok_or_else(|| Exc::error(format!("integer overflow: {x} {} {y}", op.symbol())))
}

fn float_arith(op: BinOp, x: f64, y: f64, a: &Value, b: &Value) -> Res<Value> {
    Ok(Value::Float(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        // `%` with a float operand is an error (use `math.fmod`); the message names both operands.
        _ => return Err(unsupported(op, a, b)),
    }))
}

/// Exact decimal arithmetic: natural scale for `+ - * %`, division rounded to 28 significant digits.
pub fn dec_arith(op: BinOp, x: Decimal, y: Decimal) -> Res<Decimal> {
    let overflow = || Exc::error(format!("decimal overflow: {x} {} {y}", op.symbol()));
    match op {
        BinOp::Add => x.checked_add(y).ok_or_else(overflow),
        BinOp::Sub => x.checked_sub(y).ok_or_else(overflow),
        BinOp::Mul => x.checked_mul(y).ok_or_else(overflow),
        BinOp::Div => {
            if y.is_zero() {
                return Err(Exc::error("decimal division by zero"));
            }
            let q = x
                .checked_div(y)
                .map(round_significant)
                .ok_or_else(overflow)?;
            Ok(natural_quotient(x, y, q))
        }
        BinOp::Mod => {
            if y.is_zero() {
                return Err(Exc::error("decimal division by zero"));
            }
            x.checked_rem(y).ok_or_else(overflow)
        }
        _ => Err(Exc::error(format!(
            "unsupported binary op `{}` for operands Decimal and Decimal",
            op.name()
        ))),
    }
}

/// The natural scale of an exact quotient (as in IEEE 754 decimal): the dividend's scale minus the
/// divisor's (at least 0), or the fewest digits that represent it exactly (`10dec / 4dec` is `2.5`).
/// An inexact quotient keeps its 28 significant digits.
fn natural_quotient(x: Decimal, y: Decimal, q: Decimal) -> Decimal {
    if q.checked_mul(y) != Some(x) {
        return q;
    }
    let ideal = x.scale().saturating_sub(y.scale());
    let mut n = q.normalize();
    if n.scale() < ideal {
        n.rescale(ideal);
    }
    n
}

/// Rounds to at most 28 significant digits, half to even (only fractional digits can be dropped).
fn round_significant(d: Decimal) -> Decimal {
    let digits = d
        .mantissa()
        .unsigned_abs()
        .checked_ilog10()
        .map_or(1, |l| l + 1);
    if digits <= 28 {
        return d;
    }
    let excess = digits - 28;
    let scale = d.scale();
    let keep = scale.saturating_sub(excess);
    d.round_dp_with_strategy(keep, RoundingStrategy::MidpointNearestEven)
}

/// Ordering comparisons: numbers with promotion, decimals with ints, strs by byte order.
fn compare(op: BinOp, a: &Value, b: &Value) -> Res<bool> {
    let ord: Option<Ordering> = match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        // An int meeting a float becomes the nearest float (IEEE comparison: NaN is unordered).
        (Value::Int(x), Value::Float(y)) => (*x as f64).partial_cmp(y),
        (Value::Float(x), Value::Int(y)) => x.partial_cmp(&(*y as f64)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Dec(x), Value::Dec(y)) => Some(x.cmp(y)),
        (Value::Dec(x), Value::Int(y)) => Some(x.cmp(&dec_from_int(*y))),
        (Value::Int(x), Value::Dec(y)) => Some(dec_from_int(*x).cmp(y)),
        (Value::Str(x), Value::Str(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        _ => return Err(unsupported(op, a, b)),
    };
    let Some(ord) = ord else { return Ok(false) };
    Ok(match op {
        BinOp::Lt => ord == Ordering::Less,
        BinOp::Gt => ord == Ordering::Greater,
        BinOp::Le => ord != Ordering::Greater,
        _ => ord != Ordering::Less,
    })
}

/// Unary `-`.
pub fn neg(v: &Value) -> Res<Value> {
    match v {
        Value::Int(i) => i
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| Exc::error(format!("integer overflow: -({i})"))),
        Value::Float(f) => Ok(Value::Float(-f)),
        Value::Dec(d) => Ok(Value::Dec(-*d)),
        other => Err(Exc::error(format!(
            "unsupported unary op `Neg` for operand {}",
            message_name(other)
        ))),
    }
}

/// `not v`: Bool only.
pub fn not(v: &Value) -> Res<Value> {
    truthy_bool(v).map(|b| Value::Bool(!b))
}

/// A condition (`if`, `while`, `and`, `or`): must be Bool, there is no truthiness.
pub fn truthy_bool(v: &Value) -> Res<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(Exc::error(format!(
            "type error: expected bool, found {}",
            type_of(other)
        ))),
    }
}

/// `abs` on an int, checked (`integer overflow: abs(-9223372036854775808)`).
pub fn int_abs(i: i64) -> Res<i64> {
    i.checked_abs()
        .ok_or_else(|| Exc::error(format!("integer overflow: abs({i})")))
}

fn index_type_error(expected: &str, idx: &Value) -> Exc {
    Exc::error(format!(
        "type error: expected {expected}, found {}",
        type_of(idx)
    ))
}

/// Converts an int index to a position when it is in `0..len`.
pub(crate) fn position(i: i64, len: usize) -> Option<usize> {
    usize::try_from(i).ok().filter(|p| *p < len)
}

/// `recv[idx]`: an Option (`None` for a negative or out-of-range index or a missing key).
pub fn index(recv: &Value, idx: &Value) -> Res<Value> {
    Ok(index_get(recv, idx)?.map_or(Value::none(), Value::some))
}

/// `recv[idx]` without the Option around it (`xs[i].unwrap()` reads the element itself).
pub fn index_get(recv: &Value, idx: &Value) -> Res<Option<Value>> {
    match recv {
        Value::List(items) | Value::Tuple(items) => match idx {
            Value::Int(i) => Ok(position(*i, items.len()).map(|p| items[p].clone())),
            other => Err(index_type_error("int", other)),
        },
        Value::Str(s) => match idx {
            Value::Int(i) => Ok(usize::try_from(*i)
                .ok()
                .and_then(|p| s.chars().nth(p))
                .map(|c| Value::Str(char_str(c)))),
            other => Err(index_type_error("int", other)),
        },
        Value::Map(m) => match idx {
            Value::Str(k) => Ok(m.get(k).cloned()),
            other => Err(index_type_error("str", other)),
        },
        other => Err(Exc::error(format!(
            "cannot index into {}",
            message_name(other)
        ))),
    }
}

pub(crate) fn field_missing(name: &str) -> Exc {
    Exc::error(format!("Field {name} not found on object"))
}

fn cannot_assign(target: &Value) -> Exc {
    Exc::error(format!("cannot assign into {}", message_name(target)))
}

/// `target[idx] = v`: a list index out of range is a silent no-op; a map key replaces in place or appends.
pub fn set_index(target: &mut Value, idx: &Value, v: Value) -> Res<()> {
    match target {
        Value::List(items) => match idx {
            Value::Int(i) => {
                if let Some(p) = position(*i, items.len()) {
                    Rc::make_mut(items).set(p, v);
                }
                Ok(())
            }
            other => Err(index_type_error("int", other)),
        },
        Value::Map(m) => match idx {
            Value::Str(k) => {
                // IndexMap::insert keeps an existing key's position and appends a new one.
                Rc::make_mut(m).insert(k.clone(), v);
                Ok(())
            }
            other => Err(index_type_error("str", other)),
        },
        other => Err(cannot_assign(other)),
    }
}

/// `target.name = v`: maps replace or append; tagged values need the field to exist.
pub fn set_field(target: &mut Value, name: &str, v: Value) -> Res<()> {
    match target {
        Value::Map(m) => {
            Rc::make_mut(m).insert(Rc::from(name), v);
            Ok(())
        }
        Value::Tagged(t) => {
            let Some(p) = t.fields.iter().position(|f| &**f == name) else {
                return Err(field_missing(name));
            };
            if Rc::make_mut(t).values.set(p, v) {
                Ok(())
            } else {
                Err(field_missing(name))
            }
        }
        other => Err(cannot_assign(other)),
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;
    use crate::display::display;
    use crate::field::field;
    use crate::value::VMap;

    fn err_of(r: Res<Value>) -> String {
        match r {
            Err(Exc::Error { message, .. }) => message,
            Err(other) => format!("{other:?}"),
            Ok(v) => format!("ok: {}", display(&v)),
        }
    }

    fn ok(r: Res<Value>) -> String {
        match r {
            Ok(v) => display(&v),
            Err(e) => format!("err: {e:?}"),
        }
    }

    fn dec(s: &str) -> Value {
        Value::Dec(Decimal::from_str(s).unwrap())
    }

    use Value::{Float as F, Int as I};

    #[test]
    fn int_messages() {
        assert_eq!(
            err_of(binary(BinOp::Add, &I(i64::MAX), &I(1))),
            "integer overflow: 9223372036854775807 + 1"
        );
        assert_eq!(
            err_of(binary(BinOp::Sub, &I(i64::MIN), &I(1))),
            "integer underflow: -9223372036854775808 - 1"
        );
        assert_eq!(
            err_of(binary(BinOp::Sub, &I(i64::MAX), &I(-1))),
            "integer underflow: 9223372036854775807 - -1"
        );
        assert_eq!(
            err_of(binary(BinOp::Mul, &I(4611686018427387904), &I(2))),
            "integer overflow: 4611686018427387904 * 2"
        );
        assert_eq!(
            err_of(binary(BinOp::Div, &I(1), &I(0))),
            "integer division by zero"
        );
        assert_eq!(
            err_of(binary(BinOp::Mod, &I(1), &I(0))),
            "integer modulo by zero"
        );
        assert_eq!(
            err_of(binary(BinOp::Div, &I(i64::MIN), &I(-1))),
            "integer overflow: -9223372036854775808 / -1"
        );
        assert_eq!(
            err_of(binary(BinOp::Mod, &I(i64::MIN), &I(-1))),
            "integer overflow: -9223372036854775808 % -1"
        );
        assert_eq!(
            err_of(neg(&I(i64::MIN))),
            "integer overflow: -(-9223372036854775808)"
        );
        assert_eq!(
            err_of(neg(&Value::str("x"))),
            "unsupported unary op `Neg` for operand Str"
        );
        assert_eq!(
            err_of(int_abs(i64::MIN).map(I)),
            "integer overflow: abs(-9223372036854775808)"
        );
    }

    #[test]
    fn arithmetic() {
        assert_eq!(ok(binary(BinOp::Div, &I(7), &I(2))), "3");
        assert_eq!(ok(binary(BinOp::Div, &I(-7), &I(2))), "-3");
        assert_eq!(ok(binary(BinOp::Mod, &I(-7), &I(2))), "-1");
        assert_eq!(ok(binary(BinOp::Mod, &I(7), &I(-2))), "1");
        assert_eq!(ok(binary(BinOp::Div, &I(7), &F(2.0))), "3.5");
        assert_eq!(ok(binary(BinOp::Div, &I(1), &F(0.0))), "inf");
        assert_eq!(ok(binary(BinOp::Div, &F(0.0), &F(0.0))), "NaN");
        assert_eq!(
            err_of(binary(BinOp::Mod, &F(7.5), &F(2.0))),
            "unsupported binary op `Mod` for operands Float and Float"
        );
        assert_eq!(
            err_of(binary(BinOp::Add, &I(1), &Value::Bool(true))),
            "unsupported binary op `Add` for operands Int and Bool"
        );
        assert_eq!(
            err_of(binary(
                BinOp::Add,
                &Value::list(vec![]),
                &Value::list(vec![])
            )),
            "unsupported binary op `Add` for operands List and List"
        );
    }

    #[test]
    fn concatenation() {
        assert_eq!(ok(binary(BinOp::Add, &Value::str("n="), &I(3))), "n=3");
        assert_eq!(ok(binary(BinOp::Add, &I(2), &Value::str("x"))), "2x");
        assert_eq!(ok(binary(BinOp::Add, &Value::str("v"), &F(1.0))), "v1");
        assert_eq!(
            ok(binary(BinOp::Add, &Value::str("a"), &Value::Null)),
            "anull"
        );
    }

    #[test]
    fn decimals() {
        assert_eq!(
            ok(binary(BinOp::Mul, &dec("100.00"), &dec("0.0825"))),
            "8.250000"
        );
        assert_eq!(ok(binary(BinOp::Add, &dec("0.1"), &dec("0.2"))), "0.3");
        assert_eq!(
            ok(binary(
                BinOp::Eq,
                &dec("0.3"),
                &binary(BinOp::Add, &dec("0.1"), &dec("0.2")).unwrap()
            )),
            "true"
        );
        assert_eq!(ok(binary(BinOp::Add, &dec("1.5"), &I(1))), "2.5");
        assert_eq!(
            err_of(binary(BinOp::Add, &dec("1"), &F(1.0))),
            "unsupported binary op `Add` for operands Decimal and Float"
        );
        assert_eq!(
            err_of(binary(BinOp::Lt, &F(1.0), &dec("1"))),
            "unsupported binary op `Lt` for operands Float and Decimal"
        );
        assert_eq!(
            err_of(binary(BinOp::Div, &dec("1"), &dec("0"))),
            "decimal division by zero"
        );
        let big = dec("79228162514264337593543950335");
        assert_eq!(
            err_of(binary(BinOp::Mul, &big, &I(2))),
            "decimal overflow: 79228162514264337593543950335 * 2"
        );
        assert_eq!(
            ok(binary(BinOp::Div, &dec("1"), &dec("3"))),
            "0.3333333333333333333333333333"
        );
        assert_eq!(
            ok(binary(BinOp::Div, &dec("2"), &dec("3"))),
            "0.6666666666666666666666666667"
        );
        assert_eq!(ok(binary(BinOp::Div, &dec("10"), &dec("4"))), "2.5");
        assert_eq!(ok(binary(BinOp::Div, &dec("10.00"), &dec("4"))), "2.50");
        assert_eq!(ok(binary(BinOp::Div, &dec("1"), &dec("0.25"))), "4");
        assert_eq!(ok(binary(BinOp::Div, &dec("-6.0"), &dec("3"))), "-2.0");
        assert_eq!(ok(binary(BinOp::Mod, &dec("7.5"), &I(2))), "1.5");
        assert_eq!(ok(binary(BinOp::Lt, &I(1), &dec("1.5"))), "true");
        assert_eq!(ok(neg(&dec("1.50"))), "-1.50");
    }

    #[test]
    fn comparisons() {
        assert_eq!(ok(binary(BinOp::Lt, &I(1), &F(1.5))), "true");
        assert_eq!(ok(binary(BinOp::Le, &I(1), &F(1.0))), "true");
        assert_eq!(ok(binary(BinOp::Eq, &I(1), &F(1.0))), "false");
        assert_eq!(
            ok(binary(BinOp::Lt, &Value::str("Z"), &Value::str("a"))),
            "true"
        );
        assert_eq!(
            ok(binary(BinOp::Lt, &Value::str(""), &Value::str("a"))),
            "true"
        );
        assert_eq!(ok(binary(BinOp::Ge, &F(f64::NAN), &F(f64::NAN))), "false");
        assert_eq!(ok(binary(BinOp::Ne, &F(f64::NAN), &F(f64::NAN))), "true");
        let l = |i| Value::list(vec![I(i)]);
        assert_eq!(
            err_of(binary(BinOp::Lt, &l(1), &l(2))),
            "unsupported binary op `Lt` for operands List and List"
        );
        assert_eq!(err_of(not(&I(1))), "type error: expected bool, found int");
        assert_eq!(ok(not(&Value::Bool(false))), "true");
    }

    #[test]
    fn indexing() {
        let xs = Value::list(vec![I(1), I(2), I(3)]);
        assert_eq!(ok(index(&xs, &I(10))), "None");
        assert_eq!(ok(index(&xs, &I(-1))), "None");
        assert_eq!(ok(index(&xs, &I(0))), "Some(1)");
        assert_eq!(
            err_of(index(&xs, &Value::str("a"))),
            "type error: expected int, found str"
        );
        assert_eq!(ok(index(&Value::str("héllo"), &I(1))), "Some(é)");
        assert_eq!(ok(index(&Value::str("h"), &I(5))), "None");
        assert_eq!(err_of(index(&I(1), &I(0))), "cannot index into Int");
        let mut m = VMap::new();
        m.insert(Rc::from("k"), I(1));
        let m = Value::map(m);
        assert_eq!(ok(index(&m, &Value::str("k"))), "Some(1)");
        assert_eq!(ok(index(&m, &Value::str("z"))), "None");
        assert_eq!(
            err_of(index(&m, &I(0))),
            "type error: expected str, found int"
        );
        assert_eq!(ok(field(&m, "k")), "1");
        assert_eq!(err_of(field(&m, "z")), "Field z not found on object");
    }

    #[test]
    fn places() {
        let mut xs = Value::list(vec![I(1), I(2)]);
        set_index(&mut xs, &I(5), I(9)).unwrap();
        set_index(&mut xs, &I(-1), I(9)).unwrap();
        assert_eq!(display(&xs), "[1, 2]");
        set_index(&mut xs, &I(1), I(9)).unwrap();
        assert_eq!(display(&xs), "[1, 9]");
        let mut o = Value::map(VMap::new());
        set_field(&mut o, "a", I(1)).unwrap();
        set_field(&mut o, "b", I(6)).unwrap();
        set_field(&mut o, "a", I(5)).unwrap();
        assert_eq!(display(&o), "{a: 5, b: 6}");
        set_index(&mut o, &Value::str("c"), I(7)).unwrap();
        assert_eq!(display(&o), "{a: 5, b: 6, c: 7}");
        let mut s = Value::str("x");
        assert_eq!(
            err_of(set_index(&mut s, &I(0), I(1)).map(|_| Value::Null)),
            "cannot assign into Str"
        );
        let fields: Rc<[Rc<str>]> = Rc::from(vec![Rc::from("r")]);
        let mut t = Value::Tagged(Rc::new(Tagged {
            variant: Rc::from("Circle"),
            fields,
            values: vec![F(1.0)].into(),
        }));
        let copy = t.clone();
        set_field(&mut t, "r", F(2.5)).unwrap();
        assert_eq!(display(&t), "Circle(2.5)");
        assert_eq!(display(&copy), "Circle(1)");
        assert_eq!(ok(field(&t, "r")), "2.5");
        assert_eq!(
            err_of(set_field(&mut t, "q", I(1)).map(|_| Value::Null)),
            "Field q not found on object"
        );
    }
}
