//! The total order of decisions.md item 6 (used by `sorted`, `min`, `max` and map-key ordering) and the
//! stable merge sort every sort by a user comparator goes through, so an inconsistent one can never
//! panic (lists of ints alone or strs alone sort by the total order through the standard library's
//! sorts: [`sort_total`]).

use std::cmp::Ordering;

use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use rust_decimal::Decimal;

use crate::exc::Res;
use crate::kind::message_name;
use crate::value::{depth, with_stack, Value};

/// Rank of a kind in the total order: numbers, str, bool, null, list, map, tuple, Option, Result, others.
fn rank(v: &Value) -> u8 {
    match v {
        Value::Int(_) | Value::Float(_) | Value::Dec(_) => 0,
        Value::Str(_) => 1,
        Value::Bool(_) => 2,
        Value::Null => 3,
        Value::List(_) => 4,
        Value::Map(_) => 5,
        Value::Tuple(_) => 6,
        Value::Opt(_) => 7,
        Value::Res(_) => 8,
        _ => 9,
    }
}

/// Among numbers of equal value: int < dec < float.
fn num_kind(v: &Value) -> u8 {
    match v {
        Value::Int(_) => 0,
        Value::Dec(_) => 1,
        _ => 2,
    }
}

/// The total order of decisions.md item 6. Never fails.
pub fn total_cmp(a: &Value, b: &Value) -> Ordering {
    if depth(a) == 0 {
        cmp_node(a, b)
    } else {
        with_stack(|| cmp_node(a, b))
    }
}

fn cmp_node(a: &Value, b: &Value) -> Ordering {
    let (ra, rb) = (rank(a), rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => float_cmp(*x, *y),
        (Value::Int(_) | Value::Float(_) | Value::Dec(_), _) => {
            num_value_cmp(a, b).then_with(|| num_kind(a).cmp(&num_kind(b)))
        }
        (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::List(x), Value::List(y)) | (Value::Tuple(x), Value::Tuple(y)) => seq_cmp(x, y),
        (Value::Map(x), Value::Map(y)) => {
            for ((ka, va), (kb, vb)) in x.iter().zip(y.iter()) {
                let c = ka
                    .as_bytes()
                    .cmp(kb.as_bytes())
                    .then_with(|| total_cmp(va, vb));
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Opt(x), Value::Opt(y)) => match (x, y) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(x), Some(y)) => total_cmp(x, y),
        },
        (Value::Res(x), Value::Res(y)) => match (x, y) {
            (Err(x), Err(y)) | (Ok(x), Ok(y)) => total_cmp(x, y),
            (Err(_), Ok(_)) => Ordering::Less,
            (Ok(_), Err(_)) => Ordering::Greater,
        },
        _ => {
            let c = message_name(a).cmp(message_name(b));
            if c != Ordering::Equal {
                return c;
            }
            // Same "other" kind: tagged values order by variant then fields, so sorting stays deterministic.
            match (a, b) {
                (Value::Tagged(x), Value::Tagged(y)) => x
                    .variant
                    .as_bytes()
                    .cmp(y.variant.as_bytes())
                    .then_with(|| seq_cmp(&x.values, &y.values)),
                (Value::Match(x), Value::Match(y)) => x.text.as_bytes().cmp(y.text.as_bytes()),
                (Value::Regex(x), Value::Regex(y)) => {
                    x.pattern.as_bytes().cmp(y.pattern.as_bytes())
                }
                (Value::Namespace(x), Value::Namespace(y)) => {
                    x.name.as_bytes().cmp(y.name.as_bytes())
                }
                _ => Ordering::Equal,
            }
        }
    }
}

fn seq_cmp(x: &[Value], y: &[Value]) -> Ordering {
    for (a, b) in x.iter().zip(y) {
        let c = total_cmp(a, b);
        if c != Ordering::Equal {
            return c;
        }
    }
    x.len().cmp(&y.len())
}

/// Compares two numbers by value (exactly across kinds; ±0 are the same value across kinds). Callers
/// guarantee both are numbers; anything else compares equal.
fn num_value_cmp(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => float_cmp(*x, *y),
        (Value::Dec(x), Value::Dec(y)) => x.cmp(y),
        (Value::Int(x), Value::Dec(y)) => Decimal::from(*x).cmp(y),
        (Value::Dec(x), Value::Int(y)) => x.cmp(&Decimal::from(*y)),
        (Value::Int(x), Value::Float(y)) => cmp_i64_f64(*x, *y),
        (Value::Float(x), Value::Int(y)) => cmp_i64_f64(*y, *x).reverse(),
        (Value::Dec(x), Value::Float(y)) => cmp_dec_f64(*x, *y),
        (Value::Float(x), Value::Dec(y)) => cmp_dec_f64(*y, *x).reverse(),
        _ => Ordering::Equal,
    }
}

/// Floats in the total order: `f64::total_cmp` with every NaN (sign and payload) made one
/// value first, so NaN sorts after `+inf` on every machine (decision 57: `0.0 / 0.0` is a
/// negative NaN on x86-64 and a positive one on aarch64).
pub fn float_cmp(x: f64, y: f64) -> Ordering {
    canonical(x).total_cmp(&canonical(y))
}

/// The one NaN.
fn canonical(f: f64) -> f64 {
    if f.is_nan() {
        f64::NAN
    } else {
        f
    }
}

/// Exact comparison of an int with a float. NaN sorts after every number (decision 57).
pub fn cmp_i64_f64(i: i64, f: f64) -> Ordering {
    if f.is_nan() {
        return Ordering::Less;
    }
    // 2^63 is exactly representable; every float at or beyond it exceeds every i64.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f >= TWO_63 {
        return Ordering::Less;
    }
    if f < -TWO_63 {
        return Ordering::Greater;
    }
    let t = f.trunc();
    // In range, so the conversion is exact.
    let ti = t as i64;
    match i.cmp(&ti) {
        Ordering::Equal => {
            let frac = f - t;
            if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        c => c,
    }
}

/// Comparison of a decimal with a float: exact when the float converts to a decimal, otherwise through f64.
fn cmp_dec_f64(d: Decimal, f: f64) -> Ordering {
    if f.is_nan() {
        return Ordering::Less;
    }
    if f.is_infinite() {
        return if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    if let Some(fd) = Decimal::from_f64_retain(f) {
        let c = d.cmp(&fd);
        if c != Ordering::Equal {
            return c;
        }
    }
    match d.to_f64() {
        Some(df) if df == f => Ordering::Equal,
        Some(df) => df.total_cmp(&f),
        None => Ordering::Equal,
    }
}

/// A decimal from an i64, for promotion in arithmetic and comparisons.
pub fn dec_from_int(i: i64) -> Decimal {
    Decimal::from_i64(i).unwrap_or_default()
}

/// Stable merge sort of `0..n` by a fallible comparator on indices: the permutation that sorts.
/// Runs of 16 are insertion-sorted, then merged bottom-up; only `u32`s move, never the values.
/// `cmp(a, b) == Less` puts `a` first, and an element of the right run moves ahead of the left run
/// only when strictly less, which keeps equal elements in order. Any comparator (even an
/// inconsistent one) yields a permutation and never panics.
pub fn sort_indices_by<F>(n: usize, mut cmp: F) -> Res<Vec<u32>>
where
    F: FnMut(u32, u32) -> Res<Ordering>,
{
    const RUN: usize = 16;
    let mut src: Vec<u32> = (0..n as u32).collect();
    for chunk in src.chunks_mut(RUN) {
        for i in 1..chunk.len() {
            let mut j = i;
            while j > 0 && cmp(chunk[j], chunk[j - 1])? == Ordering::Less {
                chunk.swap(j, j - 1);
                j -= 1;
            }
        }
    }
    let mut dst: Vec<u32> = vec![0; n];
    let mut width = RUN;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                if cmp(src[j], src[i])? == Ordering::Less {
                    dst[k] = src[j];
                    j += 1;
                } else {
                    dst[k] = src[i];
                    i += 1;
                }
                k += 1;
            }
            dst[k..k + (mid - i)].copy_from_slice(&src[i..mid]);
            k += mid - i;
            dst[k..k + (end - j)].copy_from_slice(&src[j..end]);
            start = end;
        }
        std::mem::swap(&mut src, &mut dst);
        width = width.saturating_mul(2);
    }
    Ok(src)
}

/// Stable sort with a fallible comparator (see [`sort_indices_by`]). On error the list is left
/// complete and unchanged.
pub fn sort_by<T, F>(v: &mut Vec<T>, mut cmp: F) -> Res<()>
where
    F: FnMut(&T, &T) -> Res<Ordering>,
{
    if v.len() < 2 {
        return Ok(());
    }
    let order = sort_indices_by(v.len(), |a, b| cmp(&v[a as usize], &v[b as usize]))?;
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    v.extend(order.iter().filter_map(|&i| slots[i as usize].take()));
    Ok(())
}

/// Sorts by the total order (never fails). Ints alone and strs alone, the commonest lists, go
/// through the standard library's sorts: among ints the total order is the ints' own, among strs
/// their bytes', both total, so the result is the one [`sort_by`] gives (equal ints or strs cannot
/// be told apart, so the unstable sort of ints is as good as a stable one). Everything else goes
/// through [`sort_by`], which an inconsistent order could not make panic. On `bench/interp.py`'s
/// sort, `sort_by` and its comparisons were two thirds of the run.
pub fn sort_total(v: &mut Vec<Value>) {
    match uniform(v) {
        Uniform::Ints => v.sort_unstable_by_key(int_key),
        Uniform::Strs => v.sort_by(|a, b| str_key(a).cmp(str_key(b))),
        Uniform::Mixed => {
            let _ = sort_by(v, |a, b| Ok(total_cmp(a, b)));
        }
    }
}

/// The permutation that sorts `keys` stably by the total order (see [`sort_total`]).
pub fn sort_indices_total(keys: &[Value]) -> Res<Vec<u32>> {
    let key = |i: &u32| &keys[*i as usize];
    let kind = uniform(keys);
    if let Uniform::Mixed = kind {
        return sort_indices_by(keys.len(), |a, b| Ok(total_cmp(key(&a), key(&b))));
    }
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    match kind {
        Uniform::Ints => order.sort_by_key(|i| int_key(key(i))),
        _ => order.sort_by(|a, b| str_key(key(a)).cmp(str_key(key(b)))),
    }
    Ok(order)
}

/// Whether a list's values are all ints, all strs, or anything else (empty counts as ints).
enum Uniform {
    Ints,
    Strs,
    Mixed,
}

fn uniform(v: &[Value]) -> Uniform {
    if v.iter().all(|x| matches!(x, Value::Int(_))) {
        Uniform::Ints
    } else if v.iter().all(|x| matches!(x, Value::Str(_))) {
        Uniform::Strs
    } else {
        Uniform::Mixed
    }
}

fn int_key(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        _ => 0,
    }
}

fn str_key(v: &Value) -> &[u8] {
    match v {
        Value::Str(s) => s.as_bytes(),
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;
    use crate::display::display;
    use crate::exc::Exc;

    fn dec(s: &str) -> Value {
        Value::Dec(Decimal::from_str(s).unwrap())
    }

    fn sorted(mut v: Vec<Value>) -> String {
        sort_total(&mut v);
        display(&Value::list(v))
    }

    #[test]
    fn mixed_total_order() {
        let v = vec![
            Value::Null,
            Value::Bool(true),
            Value::str("b"),
            Value::Float(1.0),
            dec("1"),
            Value::Int(1),
            Value::str("B"),
            Value::Bool(false),
            Value::list(vec![]),
            Value::some(Value::Int(0)),
            Value::none(),
            Value::ok(Value::Int(0)),
            Value::err(Value::Int(9)),
            Value::Float(-0.5),
        ];
        assert_eq!(
            sorted(v),
            "[-0.5, 1, 1, 1, B, b, false, true, null, [], None, Some(0), Err(9), Ok(0)]"
        );
        // int < dec < float among equal values, checked by kind.
        let mut v = vec![Value::Float(1.0), dec("1.0"), Value::Int(1)];
        sort_total(&mut v);
        assert!(matches!(v[0], Value::Int(_)));
        assert!(matches!(v[1], Value::Dec(_)));
        assert!(matches!(v[2], Value::Float(_)));
    }

    #[test]
    fn floats_and_ints_exact() {
        assert_eq!(
            cmp_i64_f64(i64::MAX, 9_223_372_036_854_775_808.0),
            Ordering::Less
        );
        assert_eq!(
            cmp_i64_f64(i64::MIN, -9_223_372_036_854_775_808.0),
            Ordering::Equal
        );
        assert_eq!(cmp_i64_f64(1, 1.5), Ordering::Less);
        assert_eq!(cmp_i64_f64(-1, -1.5), Ordering::Greater);
        assert_eq!(cmp_i64_f64(3, f64::NAN), Ordering::Less);
        // Decision 57: every NaN sorts after every number, whatever its sign or payload.
        assert_eq!(cmp_i64_f64(3, -f64::NAN), Ordering::Less);
        assert_eq!(float_cmp(-f64::NAN, f64::INFINITY), Ordering::Greater);
        assert_eq!(float_cmp(-f64::NAN, f64::NAN), Ordering::Equal);
        assert_eq!(
            float_cmp(f64::from_bits(0x7ff8_0000_0000_0001), f64::NAN),
            Ordering::Equal
        );
        assert_eq!(total_cmp(&dec("0.1"), &Value::Float(0.1)), Ordering::Less);
        assert_eq!(
            total_cmp(&Value::Float(f64::INFINITY), &dec("5")),
            Ordering::Greater
        );
        // The int 0 comes first (equal value, int < float); then floats by total_cmp (-0 < 0).
        assert_eq!(
            sorted(vec![
                Value::Float(f64::NAN),
                Value::Float(-0.0),
                Value::Float(0.0),
                Value::Int(0)
            ]),
            "[0, -0, 0, NaN]"
        );
    }

    #[test]
    fn stable_and_never_panics() {
        let mut v: Vec<Value> = (0..50)
            .map(|i| Value::tuple(vec![Value::Int(i % 3), Value::Int(i)]))
            .collect();
        sort_by(&mut v, |a, b| match (a, b) {
            (Value::Tuple(x), Value::Tuple(y)) => Ok(total_cmp(&x[0], &y[0])),
            _ => Ok(Ordering::Equal),
        })
        .unwrap();
        let mut prev = (-1, -1);
        for item in &v {
            if let Value::Tuple(t) = item {
                if let (Value::Int(k), Value::Int(i)) = (&t[0], &t[1]) {
                    assert!((*k, *i) > prev);
                    prev = (*k, *i);
                }
            }
        }
        // An inconsistent comparator still yields a permutation.
        let mut v: Vec<Value> = (0..100).map(Value::Int).collect();
        let mut flip = false;
        sort_by(&mut v, |_, _| {
            flip = !flip;
            Ok(if flip {
                Ordering::Less
            } else {
                Ordering::Greater
            })
        })
        .unwrap();
        let mut seen: Vec<i64> = v
            .iter()
            .map(|x| if let Value::Int(i) = x { *i } else { -1 })
            .collect();
        seen.sort();
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
        // An erroring comparator leaves the list complete.
        let mut v: Vec<Value> = (0..10).map(Value::Int).collect();
        assert!(sort_by(&mut v, |_, _| Err(Exc::error("boom"))).is_err());
        assert_eq!(v.len(), 10);
    }

    /// The standard library's sorts of ints alone and strs alone give what the merge sort by the
    /// total order gives (values and, for the index sorts, the order of equal keys).
    #[test]
    fn fast_total_sorts_match_the_merge_sort() {
        let mut x: u64 = 7;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as i64
        };
        let ints: Vec<Value> = (0..500).map(|_| Value::Int(next() % 50 - 25)).collect();
        let strs: Vec<Value> = (0..500)
            .map(|_| Value::str(&format!("k{}", next() % 40)))
            .collect();
        let mut mixed = ints[..50].to_vec();
        mixed.extend_from_slice(&strs[..50]);
        mixed.push(Value::Float(0.5));
        for input in [ints, strs, mixed, Vec::new()] {
            let mut slow = input.clone();
            sort_by(&mut slow, |a, b| Ok(total_cmp(a, b))).unwrap();
            let mut fast = input.clone();
            sort_total(&mut fast);
            assert_eq!(display(&Value::list(fast)), display(&Value::list(slow)));
            let slow_order = sort_indices_by(input.len(), |a, b| {
                Ok(total_cmp(&input[a as usize], &input[b as usize]))
            })
            .unwrap();
            assert_eq!(sort_indices_total(&input).unwrap(), slow_order);
        }
    }
}
