//! The interval domain: bounds as `i128` so sums and products of i64 bounds cannot overflow,
//! with the input mark, and the arithmetic the passes do on them.

use vox_hir::BinOp;

pub(super) const MIN: i128 = i64::MIN as i128;

pub(super) const MAX: i128 = i64::MAX as i128;

/// Steps of a run at most: no statement runs more often (decision 51).
pub(super) const STEPS: i128 = 1 << 48;

/// What `len` and its relatives return at most; also indices and positions.
pub(super) const LEN_MAX: i128 = 1 << 40;

/// An amount an accumulation may add or subtract per step and stay in i64 for [`STEPS`] steps.
pub(super) const SMALL: i128 = 1 << 12;

/// Sums of sizes accumulated in loops stay below this (the one assumption).
pub(super) const SIZE_SUM: i128 = 1 << 62;

/// `time.*` milliseconds lie in `[0, TIME_MAX]`.
pub(super) const TIME_MAX: i128 = 1 << 45;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Iv {
    pub(super) lo: i128,
    pub(super) hi: i128,
    /// Parsed from input (or computed from such a value).
    pub(super) input: bool,
}

impl Iv {
    pub(super) const TOP: Iv = Iv {
        lo: MIN,
        hi: MAX,
        input: false,
    };
    pub(super) const INPUT: Iv = Iv {
        lo: MIN,
        hi: MAX,
        input: true,
    };
    pub(super) fn new(lo: i128, hi: i128) -> Iv {
        Iv {
            lo,
            hi,
            input: false,
        }
    }
    pub(super) fn exact(v: i128) -> Iv {
        Iv::new(v, v)
    }
    pub(super) fn join(self, o: Iv) -> Iv {
        Iv {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            input: self.input || o.input,
        }
    }
    pub(super) fn fits(self) -> bool {
        self.lo >= MIN && self.hi <= MAX
    }
    pub(super) fn clamp(self) -> Iv {
        if self.fits() {
            self
        } else {
            Iv {
                input: self.input,
                ..Iv::TOP
            }
        }
    }
    /// A length, count, index or position (or a small non-negative constant).
    pub(super) fn is_size(self) -> bool {
        !self.input && self.lo >= 0 && self.hi <= LEN_MAX
    }
    pub(super) fn tainted(self, input: bool) -> Iv {
        Iv {
            input: self.input || input,
            ..self
        }
    }
}

pub(super) type Env = Vec<Option<Iv>>;

/// Joins `b` into `a`, slot by slot.
pub(super) fn join_into(a: &mut Env, b: &Env) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = match (*x, y) {
            (Some(x), Some(y)) => Some(x.join(*y)),
            _ => None,
        };
    }
}

/// Whether an operation whose result may leave i64 is reported: a product always, a sum,
/// difference, negation or `abs` only when an operand is parsed input (decision 51).
pub(super) fn hazard(op: &str, operands: &[Iv]) -> bool {
    op == "*" || operands.iter().any(|v| v.input)
}

pub(super) fn arith(op: BinOp, a: Iv, b: Iv) -> Option<Iv> {
    let r = match op {
        BinOp::Add => Iv::new(a.lo + b.lo, a.hi + b.hi),
        BinOp::Sub => Iv::new(a.lo - b.hi, a.hi - b.lo),
        BinOp::Mul => {
            let c = [
                a.lo.saturating_mul(b.lo),
                a.lo.saturating_mul(b.hi),
                a.hi.saturating_mul(b.lo),
                a.hi.saturating_mul(b.hi),
            ];
            Iv::new(*c.iter().min()?, *c.iter().max()?)
        }
        _ => return None,
    };
    Some(r.tainted(a.input || b.input))
}

/// How far an accumulation can move its slot over a whole run: every term runs at most
/// [`STEPS`] times. Terms bounded by [`SMALL`] move it by at most `2^60`; sizes (lengths,
/// counts, indices) by at most [`SIZE_SUM`] in each direction (the assumption); anything else
/// leaves it unbounded (`None`).
pub(super) fn growth(terms: &[Iv]) -> Option<(i128, i128)> {
    let (mut small_lo, mut small_hi, mut size_lo, mut size_hi) = (0i128, 0i128, 0i128, 0i128);
    for t in terms {
        if t.lo >= -SMALL && t.hi <= SMALL && !t.input {
            small_lo += t.lo.min(0) * STEPS;
            small_hi += t.hi.max(0) * STEPS;
        } else if t.is_size() {
            size_hi = SIZE_SUM;
        } else if !t.input && t.lo >= -LEN_MAX && t.hi <= 0 {
            // A size subtracted.
            size_lo = -SIZE_SUM;
        } else {
            return None;
        }
    }
    Some((small_lo + size_lo, small_hi + size_hi))
}

/// The largest `r` with `r * r <= n` (`0 <= n <= i64::MAX`).
pub(super) fn isqrt(n: i128) -> i128 {
    let mut r = (n as f64).sqrt() as i128;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

pub(super) fn apply(env: &mut Env, g: u32, op: BinOp, k: Iv) {
    let Some(Some(v)) = env.get(g as usize).copied() else {
        return;
    };
    let n = match op {
        BinOp::Lt => Iv::new(v.lo, v.hi.min(k.hi - 1)),
        BinOp::Le => Iv::new(v.lo, v.hi.min(k.hi)),
        BinOp::Gt => Iv::new(v.lo.max(k.lo + 1), v.hi),
        _ => Iv::new(v.lo.max(k.lo), v.hi),
    };
    if n.lo <= n.hi {
        env[g as usize] = Some(n);
    }
}
