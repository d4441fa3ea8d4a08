//! `random` and `crypto` (§5.7, decisions.md 8): every draw comes from the run's one SplitMix64 stream
//! (`Host::next_random`), in program order, so seeded runs are reproducible.

use std::fmt::Write;

use crate::exc::{Exc, Res};
use crate::native::{alloc_values, rc_str};
use crate::value::{Args, Host, Value};

/// An int in `[lo, hi)` by rejection sampling: draw until `r >= 2^64 mod n`, then `lo + r mod n`.
pub fn draw_int(host: &mut dyn Host, lo: i64, hi: i64) -> Res<i64> {
    if hi <= lo {
        return Err(Exc::error("random.int: empty range"));
    }
    // hi > lo, so the difference fits in u64.
    let n = (i128::from(hi) - i128::from(lo)) as u64;
    let t = n.wrapping_neg() % n;
    loop {
        let r = host.next_random();
        if r >= t {
            return Ok((i128::from(lo) + i128::from(r % n)) as i64);
        }
    }
}

/// `(next() >> 11) * 2^-53`, in `[0, 1)`.
pub fn draw_float(host: &mut dyn Host) -> f64 {
    (host.next_random() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

pub(super) fn int(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let (lo, hi) = (args.int(0)?, args.int(1)?);
    draw_int(host, lo, hi).map(Value::Int)
}

pub(super) fn float(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(0, 0)?;
    Ok(Value::Float(draw_float(host)))
}

pub(super) fn choice(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let items = args.list(0)?.to_vec();
    if items.is_empty() {
        return Ok(Value::none());
    }
    let i = draw_int(host, 0, items.len() as i64)?;
    Ok(items
        .get(i as usize)
        .map_or(Value::none(), |v| Value::some(v.clone())))
}

/// Fisher–Yates from the end: for `i` from `len-1` down to 1, swap `i` with `random.int(0, i+1)`.
pub(super) fn shuffle(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let items = args.list(0)?;
    let mut out = alloc_values(host, items.len())?;
    out.extend_from_slice(items);
    for i in (1..out.len()).rev() {
        let j = draw_int(host, 0, i as i64 + 1)? as usize;
        out.swap(i, j);
    }
    Ok(Value::list(out))
}

/// RFC 4122 v4 text from two draws (`a` then `b`, big-endian).
pub(super) fn uuid(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(0, 0)?;
    let a = host.next_random();
    let b = host.next_random();
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&a.to_be_bytes());
    bytes[8..].copy_from_slice(&b.to_be_bytes());
    bytes[6] = (bytes[6] & 0x0F) | 0x40;
    bytes[8] = (bytes[8] & 0x3F) | 0x80;
    let mut out = String::with_capacity(36);
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        let _ = write!(out, "{byte:02x}");
    }
    Ok(rc_str(out))
}

/// XXH3-128 of the UTF-8 bytes, 32 lowercase hex digits, big-endian.
pub(super) fn hash_fast(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let h = xxhash_rust::xxh3::xxh3_128(args.str(0)?.as_bytes());
    Ok(rc_str(format!("{h:032x}")))
}

/// BLAKE3 of the UTF-8 bytes, 64 lowercase hex digits.
pub(super) fn hash_secure(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(rc_str(
        blake3::hash(args.str(0)?.as_bytes()).to_hex().as_str(),
    ))
}

#[cfg(test)]
mod tests {
    use crate::builtins::test_call as call;
    use crate::test_host::MockHost;
    use crate::value::Host;
    use crate::value::Value;
    use Value::Int as I;

    #[test]
    fn seed_zero_vectors() {
        let mut h = MockHost::new();
        assert_eq!(h.next_random(), 0xe220a8397b1dcdaf);
        assert_eq!(h.next_random(), 0x6e789e6aa1b965f4);
        let mut h = MockHost::new();
        assert_eq!(call(&mut h, "random.float", vec![]), "0.8833108082136426");
        let mut h = MockHost::new();
        let five: Vec<String> = (0..5)
            .map(|_| call(&mut h, "random.int", vec![I(0), I(10)]))
            .collect();
        assert_eq!(five.join(" "), "5 0 9 4 7");
        let mut h = MockHost::new();
        assert_eq!(
            call(&mut h, "crypto.uuid", vec![]),
            "e220a839-7b1d-4daf-ae78-9e6aa1b965f4"
        );
    }

    #[test]
    fn ranges_and_lists() {
        let mut h = MockHost::new();
        assert_eq!(
            call(&mut h, "random.int", vec![I(3), I(3)]),
            "error: random.int: empty range"
        );
        let full = call(&mut h, "random.int", vec![I(i64::MIN), I(i64::MAX)]);
        assert!(full.parse::<i64>().is_ok());
        assert_eq!(
            call(&mut h, "random.choice", vec![Value::list(vec![])]),
            "None"
        );
        let xs = Value::list((0..10).map(I).collect());
        assert!(call(&mut h, "random.choice", vec![xs.clone()]).starts_with("Some("));
        let shuffled = call(&mut h, "random.shuffle", vec![xs.clone()]);
        let mut got: Vec<i64> = shuffled
            .trim_matches(['[', ']'])
            .split(", ")
            .map(|x| x.parse().unwrap())
            .collect();
        got.sort();
        assert_eq!(got, (0..10).collect::<Vec<_>>());
        assert_eq!(
            crate::display::display(&xs),
            "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"
        );
    }

    #[test]
    fn shuffle_seed_zero_is_pinned() {
        // Fisher–Yates per §5.7 over [0..5) with seed 0: draws int(0,5), int(0,4), int(0,3), int(0,2).
        let mut h = MockHost::new();
        let mut expect: Vec<i64> = (0..5).collect();
        let mut probe = MockHost::new();
        for i in (1..5usize).rev() {
            let j = super::draw_int(&mut probe, 0, i as i64 + 1).unwrap() as usize;
            expect.swap(i, j);
        }
        let got = call(
            &mut h,
            "random.shuffle",
            vec![Value::list((0..5).map(I).collect())],
        );
        assert_eq!(
            got,
            crate::display::display(&Value::list(expect.into_iter().map(I).collect()))
        );
    }

    #[test]
    fn hashes() {
        let mut h = MockHost::new();
        assert_eq!(
            call(&mut h, "crypto.hash_fast", vec![Value::str("abc")]),
            "06b05ab6733a618578af5f94892f3950"
        );
        assert_eq!(
            call(&mut h, "crypto.hash_secure", vec![Value::str("abc")]),
            "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"
        );
        // Hashes draw nothing from the stream.
        assert_eq!(h.next_random(), 0xe220a8397b1dcdaf);
    }
}
