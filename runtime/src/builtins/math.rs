//! `math` (§5.8): every function goes through the pinned software libm so results are bit-identical on
//! every platform. Ints convert to floats; results are always floats; domain errors give NaN or ±inf.

use crate::exc::Res;
use crate::value::{Args, Host, Value};

macro_rules! unary {
    ($($name:ident => $f:path),* $(,)?) => {$(
        pub(super) fn $name(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
            args.arity(1, 1)?;
            Ok(Value::Float($f(args.number(0)?)))
        }
    )*};
}

macro_rules! binary {
    ($($name:ident => $f:path),* $(,)?) => {$(
        pub(super) fn $name(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
            args.arity(2, 2)?;
            Ok(Value::Float($f(args.number(0)?, args.number(1)?)))
        }
    )*};
}

unary! {
    sin => libm::sin, cos => libm::cos, tan => libm::tan,
    asin => libm::asin, acos => libm::acos, atan => libm::atan,
    sinh => libm::sinh, cosh => libm::cosh, tanh => libm::tanh,
    asinh => libm::asinh, acosh => libm::acosh, atanh => libm::atanh,
    exp => libm::exp, exp2 => libm::exp2, expm1 => libm::expm1,
    ln => libm::log, log2 => libm::log2, log10 => libm::log10, log1p => libm::log1p,
    cbrt => libm::cbrt,
    floor => libm::floor, ceil => libm::ceil, trunc => libm::trunc, sqrt => libm::sqrt,
    abs => libm::fabs, round => libm::round,
}

binary! {
    atan2 => libm::atan2, pow => libm::pow, hypot => libm::hypot, fmod => libm::fmod,
    min => libm::fmin, max => libm::fmax,
}

/// `math.log(x, base)` = `libm::log(x) / libm::log(base)`; with one argument, the natural log.
pub(super) fn log(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 2)?;
    let x = args.number(0)?;
    if args.len() == 1 {
        return Ok(Value::Float(libm::log(x)));
    }
    Ok(Value::Float(libm::log(x) / libm::log(args.number(1)?)))
}

pub(super) fn fma(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(3, 3)?;
    Ok(Value::Float(libm::fma(
        args.number(0)?,
        args.number(1)?,
        args.number(2)?,
    )))
}

#[cfg(test)]
mod tests {
    use crate::builtins::{lookup, test_call as call};
    use crate::test_host::MockHost;
    use crate::value::Args;
    use crate::value::Value;
    use Value::{Float as F, Int as I};

    #[test]
    fn spec_vectors() {
        let mut h = MockHost::new();
        assert_eq!(call(&mut h, "math.exp", vec![I(1)]), "2.7182818284590455");
        assert_eq!(
            call(&mut h, "math.log", vec![I(1000), I(10)]),
            "2.9999999999999996"
        );
        assert_eq!(call(&mut h, "math.log", vec![I(8), I(2)]), "3");
        assert_eq!(call(&mut h, "math.round", vec![F(-2.5)]), "-3");
        assert_eq!(call(&mut h, "math.fmod", vec![F(-7.5), I(2)]), "-1.5");
        assert_eq!(call(&mut h, "math.fmod", vec![F(7.5), I(2)]), "1.5");
        assert_eq!(call(&mut h, "math.min", vec![F(f64::NAN), I(1)]), "1");
        assert_eq!(call(&mut h, "math.max", vec![I(1), F(f64::NAN)]), "1");
        assert_eq!(call(&mut h, "math.sqrt", vec![I(-1)]), "NaN");
        assert_eq!(call(&mut h, "math.ln", vec![I(0)]), "-inf");
        assert_eq!(call(&mut h, "math.fma", vec![I(2), I(3), I(4)]), "10");
        assert_eq!(
            call(&mut h, "math.sin", vec![Value::str("x")]),
            "error: type error: math.sin argument 1: expected number, found str"
        );
        assert_eq!(
            call(&mut h, "math.pow", vec![I(2)]),
            "error: function `math.pow` expects 2 arguments, got 1"
        );
    }

    fn bits(h: &mut MockHost, q: &str, args: &[f64]) -> u64 {
        let (ns, name) = q.split_once('.').unwrap();
        let def = lookup(ns, name).unwrap();
        match (def.f)(
            h,
            &mut Args::new(q.to_string(), args.iter().map(|x| F(*x)).collect()),
        ) {
            Ok(Value::Float(f)) => f.to_bits(),
            other => panic!("{q}: {other:?}"),
        }
    }

    /// Results for edge inputs pinned as bit patterns (computed once with libm 0.2.16): a libm upgrade
    /// that changes any of them is a breaking change (§5.8).
    #[test]
    fn edge_bits() {
        let sub = f64::from_bits(1); // the smallest subnormal
        let inputs = [
            0.0,
            -0.0,
            sub,
            -sub,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.0,
            -1.0,
            0.5,
            1e300,
            2.2250738585072014e-308,
        ];
        let fns = [
            "math.sin",
            "math.cos",
            "math.tan",
            "math.asin",
            "math.acos",
            "math.atan",
            "math.sinh",
            "math.cosh",
            "math.tanh",
            "math.asinh",
            "math.acosh",
            "math.atanh",
            "math.exp",
            "math.exp2",
            "math.expm1",
            "math.ln",
            "math.log2",
            "math.log10",
            "math.log1p",
            "math.cbrt",
            "math.floor",
            "math.ceil",
            "math.trunc",
            "math.sqrt",
            "math.abs",
            "math.round",
        ];
        let mut h = MockHost::new();
        let mut got = Vec::new();
        for f in fns {
            for x in inputs {
                got.push(bits(&mut h, f, &[x]));
            }
        }
        for f in [
            "math.atan2",
            "math.pow",
            "math.hypot",
            "math.fmod",
            "math.min",
            "math.max",
        ] {
            for (x, y) in [
                (0.0, -0.0),
                (-0.0, 0.0),
                (1.0, f64::INFINITY),
                (f64::NAN, 1.0),
                (-8.0, 1.0 / 3.0),
                (sub, 2.0),
                (-1.0, f64::NEG_INFINITY),
            ] {
                got.push(bits(&mut h, f, &[x, y]));
            }
        }
        let expected: &[u64] = &EXPECTED_BITS;
        if got != expected {
            let rendered: Vec<String> = got.iter().map(|b| format!("0x{b:016x}")).collect();
            panic!("math bit patterns changed; now:\n{}", rendered.join(", "));
        }
    }

    /// Row-major: 26 unary functions × 12 inputs, then 6 binary functions × 7 input pairs.
    #[rustfmt::skip]
    const EXPECTED_BITS: [u64; 354] = [
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0xfff8000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x3feaed548f090cee, 0xbfeaed548f090cee, 0x3fdeaee8744b05f0, 0xbfea2c16b010e385, 0x0010000000000000,
        0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0xfff8000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x3fe14a280fb5068c, 0x3fe14a280fb5068c, 0x3fec1528065b7d50, 0xbfe2699022adc4c1, 0x3ff0000000000000,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0xfff8000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x3ff8eb245cbee3a6, 0xbff8eb245cbee3a6, 0x3fe17b4f5bf3474a, 0x3ff6be411f37ac77, 0x0010000000000000,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0xfff8000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x3ff921fb54442d18, 0xbff921fb54442d18, 0x3fe0c152382d7366, 0xfff8000000000000, 0x0010000000000000,
        0x3ff921fb54442d18, 0x3ff921fb54442d18, 0x3ff921fb54442d18, 0x3ff921fb54442d18, 0xfff8000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x0000000000000000, 0x400921fb54442d18, 0x3ff0c152382d7366, 0xfff8000000000000, 0x3ff921fb54442d18,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0x3ff921fb54442d18, 0xbff921fb54442d18,
        0x7ff8000000000000, 0x3fe921fb54442d18, 0xbfe921fb54442d18, 0x3fddac670561bb4f, 0x3ff921fb54442d18, 0x0010000000000000,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0x7ff0000000000000, 0xfff0000000000000,
        0x7ff8000000000000, 0x3ff2cd9fc44eb982, 0xbff2cd9fc44eb982, 0x3fe0acd00fe63b97, 0x7ff0000000000000, 0x0010000000000000,
        0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff8000000000000, 0x3ff8b07551d9f551, 0x3ff8b07551d9f551, 0x3ff20ac1862ae8d0, 0x7ff0000000000000, 0x3ff0000000000000,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0x3ff0000000000000, 0xbff0000000000000,
        0x7ff8000000000000, 0x3fe85efab514f394, 0xbfe85efab514f394, 0x3fdd9353d7568af3, 0x3ff0000000000000, 0x0010000000000000,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0x7ff0000000000000, 0xfff0000000000000,
        0x7ff8000000000000, 0x3fec34366179d427, 0xbfec34366179d427, 0x3fdecc2caec5160a, 0x40859bbfd8b83e43, 0x0010000000000000,
        0xfff8000000000000, 0xfff8000000000000, 0xfff8000000000000, 0xfff8000000000000, 0x7ff0000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x0000000000000000, 0xfff8000000000000, 0xfff8000000000000, 0x40859bbfd8b83e43, 0xfff8000000000000,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0xfff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x3fe193ea7aad030a, 0xfff8000000000000, 0x0010000000000000,
        0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x7ff0000000000000, 0x0000000000000000,
        0x7ff8000000000000, 0x4005bf0a8b14576a, 0x3fd78b56362cef38, 0x3ffa61298e1e069c, 0x7ff0000000000000, 0x3ff0000000000000,
        0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x7ff0000000000000, 0x0000000000000000,
        0x7ff8000000000000, 0x4000000000000000, 0x3fe0000000000000, 0x3ff6a09e667f3bcd, 0x7ff0000000000000, 0x3ff0000000000000,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0x7ff0000000000000, 0xbff0000000000000,
        0x7ff8000000000000, 0x3ffb7e151628aed2, 0xbfe43a54e4e98864, 0x3fe4c2531c3c0d38, 0x7ff0000000000000, 0x0010000000000000,
        0xfff0000000000000, 0xfff0000000000000, 0xc0874385446d71c3, 0xfff8000000000000, 0x7ff0000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x0000000000000000, 0xfff8000000000000, 0xbfe62e42fefa39ef, 0x4085963447f87fb5, 0xc086232bdd7abcd2,
        0xfff0000000000000, 0xfff0000000000000, 0xc090c80000000000, 0xfff8000000000000, 0x7ff0000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x0000000000000000, 0xfff8000000000000, 0xbff0000000000000, 0x408f24a09f1a8b89, 0xc08ff00000000000,
        0xfff0000000000000, 0xfff0000000000000, 0xc07434e6420f4374, 0xfff8000000000000, 0x7ff0000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x0000000000000000, 0xfff8000000000000, 0xbfd34413509f79ff, 0x4072c00000000000, 0xc0733a7146f72a42,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0x7ff0000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x3fe62e42fefa39ef, 0xfff0000000000000, 0x3fd9f323ecbf984c, 0x4085963447f87fb5, 0x0010000000000000,
        0x0000000000000000, 0x8000000000000000, 0x2990000000000000, 0xa990000000000000, 0x7ff0000000000000, 0xfff0000000000000,
        0x7ff8000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x3fe965fea53d6e3d, 0x54b249ad2594c37d, 0x2aa428a2f98d728b,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000000, 0xbff0000000000000, 0x7ff0000000000000, 0xfff0000000000000,
        0x7ff8000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x0000000000000000, 0x7e37e43c8800759c, 0x0000000000000000,
        0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000, 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000,
        0x7ff8000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x3ff0000000000000, 0x7e37e43c8800759c, 0x3ff0000000000000,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000000, 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000,
        0x7ff8000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x0000000000000000, 0x7e37e43c8800759c, 0x0000000000000000,
        0x0000000000000000, 0x8000000000000000, 0x1e60000000000000, 0xfff8000000000000, 0x7ff0000000000000, 0xfff8000000000000,
        0x7ff8000000000000, 0x3ff0000000000000, 0xfff8000000000000, 0x3fe6a09e667f3bcd, 0x5f138d352e5096af, 0x2000000000000000,
        0x0000000000000000, 0x0000000000000000, 0x0000000000000001, 0x0000000000000001, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff8000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x3fe0000000000000, 0x7e37e43c8800759c, 0x0010000000000000,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000000, 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000,
        0x7ff8000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x3ff0000000000000, 0x7e37e43c8800759c, 0x0000000000000000,
        0x400921fb54442d18, 0x8000000000000000, 0x0000000000000000, 0x7ff8000000000000, 0xbff87769eb8e956b, 0x0000000000000000,
        0xc00921fb54442d18, 0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000, 0x7ff8000000000000, 0xfff8000000000000,
        0x0000000000000000, 0x3ff0000000000000, 0x0000000000000000, 0x0000000000000000, 0x7ff0000000000000, 0x7ff8000000000000,
        0x4020038dd3d73d8a, 0x4000000000000000, 0x7ff0000000000000, 0xfff8000000000000, 0xfff8000000000000, 0x3ff0000000000000,
        0x7ff8000000000000, 0xbcc0000000000000, 0x0000000000000001, 0xbff0000000000000, 0x8000000000000000, 0x0000000000000000,
        0x3ff0000000000000, 0x3ff0000000000000, 0xc020000000000000, 0x0000000000000001, 0xfff0000000000000, 0x0000000000000000,
        0x8000000000000000, 0x7ff0000000000000, 0x3ff0000000000000, 0x3fd5555555555555, 0x4000000000000000, 0xbff0000000000000,
    ];
}
