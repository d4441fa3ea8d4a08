//! Sets of order sources: one machine word for up to 64 sources (the usual case), words on
//! demand past that.

/// A set of source ids. Nearly every function has at most 64 sources (its parameters, map
/// iterations and listings): its sets are single words, and a propagation round allocates
/// nothing. More sources take a vector of words.
pub(super) trait SourceSet: Clone {
    fn empty(n_sources: usize) -> Self;
    fn insert(&mut self, id: u32);
    /// Adds `other`'s ids; whether that added any.
    fn add(&mut self, other: &Self) -> bool;
    /// Adds the ids of `other` that `mask` has.
    fn add_masked(&mut self, other: &Self, mask: &Self);
    fn words(&self) -> &[u64];
    fn is_empty(&self) -> bool {
        self.words().iter().all(|w| *w == 0)
    }
}

impl SourceSet for u64 {
    fn empty(_: usize) -> u64 {
        0
    }
    fn insert(&mut self, id: u32) {
        *self |= 1 << id;
    }
    fn add(&mut self, other: &u64) -> bool {
        let grew = other & !*self != 0;
        *self |= other;
        grew
    }
    fn add_masked(&mut self, other: &u64, mask: &u64) {
        *self |= other & mask;
    }
    fn words(&self) -> &[u64] {
        std::slice::from_ref(self)
    }
}

/// Grown on demand: most expressions of a large function carry no order, and an empty vector
/// allocates nothing (one allocation per expression and slot was most of the cost of a function
/// with many calls).
impl SourceSet for Vec<u64> {
    fn empty(_: usize) -> Vec<u64> {
        Vec::new()
    }
    fn insert(&mut self, id: u32) {
        let w = id as usize / 64;
        if self.len() <= w {
            self.resize(w + 1, 0);
        }
        self[w] |= 1 << (id % 64);
    }
    fn add(&mut self, other: &Vec<u64>) -> bool {
        let used = other.iter().rposition(|w| *w != 0).map_or(0, |i| i + 1);
        if self.len() < used {
            self.resize(used, 0);
        }
        let mut grew = false;
        for (d, s) in self.iter_mut().zip(&other[..used]) {
            grew |= s & !*d != 0;
            *d |= s;
        }
        grew
    }
    fn add_masked(&mut self, other: &Vec<u64>, mask: &Vec<u64>) {
        let used = other
            .iter()
            .zip(mask)
            .rposition(|(s, k)| s & k != 0)
            .map_or(0, |i| i + 1);
        if self.len() < used {
            self.resize(used, 0);
        }
        for ((d, s), k) in self.iter_mut().zip(&other[..used]).zip(mask) {
            *d |= s & k;
        }
    }
    fn words(&self) -> &[u64] {
        self
    }
}

/// The ids in a set, ascending (the order leaks are reported in).
pub(super) fn ids<S: SourceSet>(set: &S) -> impl Iterator<Item = u32> + '_ {
    set.words().iter().enumerate().flat_map(|(wi, &word)| {
        let mut rest = word;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let bit = rest.trailing_zeros();
                rest &= rest - 1;
                wi as u32 * 64 + bit
            })
        })
    })
}
