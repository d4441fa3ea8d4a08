//! An array with a gap: what is inserted or removed at the gap moves nothing else, and the gap
//! moves to where the next edit is. The tree keeps its arrays this way so that an edit in the
//! middle of a large file costs what it changes, not half of every array.

/// Elements `0..head` at the front of `buf`, the others at its back from `tail`; the slots
/// between are room. Element values are the caller's business: the tree stores those after the
/// gap counted from the end, so that an insertion at the gap leaves them right.
#[derive(Clone, Debug)]
pub(crate) struct Gapped<T> {
    buf: Vec<T>,
    head: usize,
    tail: usize,
}

impl<T: Copy> Gapped<T> {
    /// The elements of `v`, with the gap at the end (nothing after it).
    pub(crate) fn from_vec(v: Vec<T>) -> Gapped<T> {
        let n = v.len();
        Gapped {
            buf: v,
            head: n,
            tail: n,
        }
    }

    /// The elements as one vector, for an array whose gap is at its end (nothing after it,
    /// as a fresh parse's).
    pub(crate) fn into_vec(mut self) -> Vec<T> {
        debug_assert_eq!(self.tail, self.buf.len(), "elements after the gap");
        self.buf.truncate(self.head);
        self.buf
    }

    pub(crate) fn len(&self) -> usize {
        self.head + (self.buf.len() - self.tail)
    }

    /// Where the gap is: the number of elements before it.
    #[cfg(test)]
    pub(crate) fn gap(&self) -> usize {
        self.head
    }

    pub(crate) fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Element `i` as stored, and whether it lies after the gap.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> (T, bool) {
        let after = i >= self.head;
        // One index, one bounds check: the side only adds the gap's width.
        let at = i + if after { self.tail - self.head } else { 0 };
        (self.buf[at], after)
    }

    /// The elements `range` as stored, which must lie on one side of the gap, and whether that
    /// is after it.
    #[inline(always)]
    pub(crate) fn slice(&self, range: std::ops::Range<usize>) -> (&[T], bool) {
        let after = range.end > self.head;
        debug_assert!(!after || range.start >= self.head || range.is_empty());
        let at = if after { self.tail - self.head } else { 0 };
        (&self.buf[range.start + at..range.end + at], after)
    }

    /// The elements before the gap and those after it, as stored.
    pub(crate) fn sides(&self) -> (&[T], &[T]) {
        (&self.buf[..self.head], &self.buf[self.tail..])
    }

    /// Every element: those before the gap as stored, those after it through `after` (which
    /// reads them back).
    pub(crate) fn read_all<'a>(
        &'a self,
        after: impl Fn(T) -> T + 'a,
    ) -> impl Iterator<Item = T> + 'a {
        let (head, tail) = self.sides();
        head.iter()
            .copied()
            .chain(tail.iter().map(move |&x| after(x)))
    }

    /// Moves the gap to `to` (at most the length). Elements that cross it are stored again by
    /// `rebase(element, now_after_gap)`.
    pub(crate) fn move_gap(&mut self, to: usize, rebase: impl Fn(&mut T, bool)) {
        debug_assert!(to <= self.len());
        if to < self.head {
            let k = self.head - to;
            let dst = self.tail - k;
            if dst != to {
                self.buf.copy_within(to..self.head, dst);
            }
            self.head = to;
            self.tail = dst;
            for x in &mut self.buf[dst..dst + k] {
                rebase(x, true);
            }
        } else if to > self.head {
            let k = to - self.head;
            if self.tail != self.head {
                self.buf.copy_within(self.tail..self.tail + k, self.head);
            }
            for x in &mut self.buf[self.head..self.head + k] {
                rebase(x, false);
            }
            self.head = to;
            self.tail += k;
        }
    }

    /// Replaces the elements from `from` to the gap by `with` (stored as elements before the
    /// gap are); the gap then follows them. Grows the room when it is too small.
    pub(crate) fn replace_before_gap(&mut self, from: usize, with: &[T]) {
        debug_assert!(from <= self.head);
        if self.tail == self.buf.len() {
            // Nothing after the gap: the vector's own growth.
            self.buf.truncate(from);
            self.buf.extend_from_slice(with);
            self.head = self.buf.len();
            self.tail = self.head;
            return;
        }
        self.head = from;
        let room = self.tail - self.head;
        if with.len() > room {
            self.grow(with.len() - room);
        }
        self.buf[self.head..self.head + with.len()].copy_from_slice(with);
        self.head += with.len();
    }

    /// Makes the room at least `need` larger (and a sixteenth of the length at least, so that
    /// typing moves the elements after the gap once in many keystrokes).
    fn grow(&mut self, need: usize) {
        let extra = need.max(self.len() / 16).max(64);
        let old_len = self.buf.len();
        let filler = self.buf[old_len - 1];
        // Exactly: the room is the slack (a vector's doubling would double a large tree).
        self.buf.reserve_exact(extra);
        self.buf.resize(old_len + extra, filler);
        self.buf.copy_within(self.tail..old_len, self.tail + extra);
        self.tail += extra;
    }
}

#[cfg(test)]
mod tests {
    use super::Gapped;

    /// Against a plain vector: random gap moves (elements after the gap stored negated, as the
    /// tree stores them counted from the end) and replacements at the gap.
    #[test]
    fn a_gapped_array_reads_as_the_vector_it_stands_for() {
        let mut rng = crate::test_rng::Rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..200 {
            let len = [0, 1, 5, 100, 3000][round % 5];
            let mut want: Vec<i64> = (0..len as i64).collect();
            let mut g = Gapped::from_vec(want.clone());
            for step in 0..40 {
                let to = rng.below(want.len() + 1);
                g.move_gap(to, |x, _| *x = -*x - 1);
                let from = to - rng.below(to + 1).min(rng.below(50));
                let n = rng.below(if step % 7 == 0 { 400 } else { 8 });
                let with: Vec<i64> = (0..n as i64).map(|k| 1_000_000 + k).collect();
                g.replace_before_gap(from, &with);
                want.splice(from..to, with.iter().copied());
                assert_eq!(g.len(), want.len(), "round {round} step {step}");
                assert_eq!(g.gap(), from + n);
                for (i, &w) in want.iter().enumerate() {
                    let (x, after) = g.get(i);
                    let x = if after { -x - 1 } else { x };
                    assert_eq!(x, w, "round {round} step {step}: element {i}");
                }
            }
        }
    }
}
