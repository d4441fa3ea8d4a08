//! `--perturb SEED`: legal but different choices where the language leaves order open.

/// One SplitMix64 step over `s`.
fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E3779B97F4A7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
    z ^ (z >> 31)
}

/// The earliest clock `--perturb` picks: 2020-09-13T12:26:40Z, in ms since the Unix epoch.
const CLOCK_FROM_MS: u64 = 1_600_000_000_000;
/// The span it picks from: about ten years.
const CLOCK_SPAN_MS: u64 = 10 * 365 * 24 * 3600 * 1000;

/// The frozen clock of a `--perturb SEED` run without a `time:frozen` grant (runtime.md §5,
/// decisions.md 27): a plausible instant derived from the seed alone, so every run with that seed
/// reads the same time and different seeds read different times.
pub fn clock_ms(seed: u64) -> i64 {
    let mut s = seed ^ 0x636C_6F63_6B00_0000; // "clock": a stream apart from the shuffles'
    (CLOCK_FROM_MS + splitmix(&mut s) % CLOCK_SPAN_MS) as i64
}

/// Shuffles deterministically from `seed` (Fisher–Yates over a SplitMix64 stream).
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut s = seed;
    let mut next = || splitmix(&mut s);
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::clock_ms;

    #[test]
    fn clock_is_a_function_of_the_seed() {
        assert_eq!(clock_ms(1), clock_ms(1));
        assert_ne!(clock_ms(1), clock_ms(2));
        for seed in [0, 1, 2, u64::MAX] {
            let ms = clock_ms(seed);
            assert!((1_600_000_000_000..1_915_360_000_000).contains(&ms), "{ms}");
        }
    }
}
