//! Where two versions of a text differ: their common prefix and suffix. Each stage of an
//! editor's keystroke asks it of the text before and after (the parse's splice, the lint memo,
//! the render), and on a half-megabyte file each comparison was a pass over it. The editor knows
//! the answer, having applied the edit: it notes it ([`note_edit`]), and [`common_ends`] finds
//! it there for the very buffers noted.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};

/// An edit noted: `old[start..old_end]` was replaced by `new[start..new_end]`. The buffers are
/// held weakly, so they cannot be freed and their addresses reused by other texts while noted.
struct Noted {
    old: Weak<[u8]>,
    new: Weak<[u8]>,
    start: usize,
    old_end: usize,
    new_end: usize,
}

/// The last few edits noted (the latest edit's stages ask of it; one before covers a stage
/// that still compares with the version before).
static NOTED: Mutex<VecDeque<Noted>> = Mutex::new(VecDeque::new());
const KEEP: usize = 2;

/// Notes that `new` is `old` with `old[start..old_end]` replaced by `new[start..new_end]` (the
/// bytes outside are equal: what an editor's change does).
pub fn note_edit(old: &Arc<[u8]>, new: &Arc<[u8]>, start: usize, old_end: usize, new_end: usize) {
    let fits = start <= old_end
        && start <= new_end
        && old_end <= old.len()
        && new_end <= new.len()
        && old.len() - old_end == new.len() - new_end;
    if !fits {
        return;
    }
    debug_assert!(old[..start] == new[..start] && old[old_end..] == new[new_end..]);
    let mut noted = NOTED.lock().unwrap_or_else(|e| e.into_inner());
    if noted.len() == KEEP {
        noted.pop_front();
    }
    noted.push_back(Noted {
        old: Arc::downgrade(old),
        new: Arc::downgrade(new),
        start,
        old_end,
        new_end,
    });
}

/// Whether `w` holds the very bytes of `b` (a held allocation cannot be another's).
fn same_buffer(w: &Weak<[u8]>, b: &[u8]) -> bool {
    let p = w.as_ptr();
    std::ptr::eq(p as *const u8, b.as_ptr()) && p.len() == b.len()
}

/// How many leading and trailing bytes `old` and `new` share, the suffix counted in what
/// follows the prefix (so the two never overlap): `(common_prefix(old, new), common_suffix(
/// &old[p..], &new[p..]))`. For buffers an edit was noted between, only the bytes around the
/// edit are compared; the very same bytes are not compared at all.
pub fn common_ends(old: &[u8], new: &[u8]) -> (usize, usize) {
    if std::ptr::eq(old, new) {
        return (old.len(), 0);
    }
    let hint = {
        let noted = NOTED.lock().unwrap_or_else(|e| e.into_inner());
        noted
            .iter()
            .rev()
            .find(|n| same_buffer(&n.old, old) && same_buffer(&n.new, new))
            .map(|n| (n.start, n.old_end, n.new_end))
    };
    let Some((start, old_end, new_end)) = hint else {
        let p = common_prefix(old, new);
        return (p, common_suffix(&old[p..], &new[p..]));
    };
    // Equal before `start` and after the ends: the differences lie between.
    let p = start + common_prefix(&old[start..], &new[start..]);
    let s = if p <= old_end && p <= new_end {
        (old.len() - old_end) + common_suffix(&old[p..old_end], &new[p..new_end])
    } else {
        common_suffix(&old[p..], &new[p..])
    };
    (p, s)
}

/// How many leading bytes `a` and `b` share (compared a block at a time: files are long, edits
/// small).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many trailing bytes `a` and `b` share.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut k = 0;
    while k + BLOCK <= n && a[n - k - BLOCK..n - k] == b[n - k - BLOCK..n - k] {
        k += BLOCK;
    }
    k + a[..n - k]
        .iter()
        .rev()
        .zip(b[..n - k].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_compares_find_the_first_and_last_difference() {
        let naive_prefix = |a: &[u8], b: &[u8]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let naive_suffix = |a: &[u8], b: &[u8]| {
            a.iter()
                .rev()
                .zip(b.iter().rev())
                .take_while(|(x, y)| x == y)
                .count()
        };
        let base: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
        for len in [0, 1, 63, 64, 65, 128, 2999, 3000] {
            let a = &base[..len];
            for at in [0, 1, 31, 63, 64, 65, 127, 2000, 2998, 2999] {
                let mut b = a.to_vec();
                if let Some(x) = b.get_mut(at) {
                    *x ^= 1;
                }
                for (x, y) in [(a, &b[..]), (a, &b[..len.saturating_sub(7)])] {
                    assert_eq!(common_prefix(x, y), naive_prefix(x, y), "{len} {at}");
                    assert_eq!(common_suffix(x, y), naive_suffix(x, y), "{len} {at}");
                }
            }
        }
    }

    /// With an edit noted or not, `common_ends` gives what comparing every byte gives, also when
    /// the replacement matches the bytes around it (the prefix or suffix then runs past the
    /// edit); and a note is used only for the very buffers it was made for.
    #[test]
    fn noted_edits_give_the_ends_a_full_comparison_gives() {
        let full = |a: &[u8], b: &[u8]| {
            let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            let s = a[p..]
                .iter()
                .rev()
                .zip(b[p..].iter().rev())
                .take_while(|(x, y)| x == y)
                .count();
            (p, s)
        };
        let base: Vec<u8> = b"fn a() {\n    aaaa(1)\n}\n\nfn b() {\n    bbbb(2)\n}\n".repeat(40);
        let mut rng = crate::test_rng::Rng(0x2545_F491_4F6C_DD1D);
        let mut next = |n: usize| rng.below(n);
        for round in 0..2000 {
            let start = next(base.len() + 1);
            let old_end = (start + next(12)).min(base.len());
            // Replacements drawn from the text itself, so that they often match around them.
            let from = next(base.len());
            let ins = &base[from..(from + next(6)).min(base.len())];
            let mut new = base[..start].to_vec();
            new.extend_from_slice(ins);
            new.extend_from_slice(&base[old_end..]);
            let (old, new): (Arc<[u8]>, Arc<[u8]>) = (base.clone().into(), new.into());
            let want = full(&old, &new);
            assert_eq!(common_ends(&old, &new), want, "unnoted, round {round}");
            note_edit(&old, &new, start, old_end, start + ins.len());
            assert_eq!(common_ends(&old, &new), want, "noted, round {round}");
            // The same bytes in another buffer: the note is not theirs.
            let copy: Arc<[u8]> = new.to_vec().into();
            assert_eq!(common_ends(&old, &copy), want, "copy, round {round}");
            // One buffer against itself, and against an equal copy.
            assert_eq!(
                common_ends(&new, &new),
                full(&new, &new),
                "itself, round {round}"
            );
            assert_eq!(
                common_ends(&new, &copy),
                full(&new, &copy),
                "equal, round {round}"
            );
        }
    }
}
