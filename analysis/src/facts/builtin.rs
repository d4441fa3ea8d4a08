//! [`Builtin`]: a builtin's names in one word.

use std::cell::RefCell;
use std::sync::Mutex;

use rustc_hash::FxHashMap as HashMap;

/// A builtin's namespace and name (`("fs", "read")`, `("", "print")` for a global), in one word:
/// every effect site, path argument and summary entry of a workspace names one. Ordered and
/// hashed by the names (as the two strings were), so output order is unchanged; equal exactly
/// when it is the same pair, since [`Builtin::new`] makes one pair per names (summaries compare
/// effects in every lookup, and most compares are of equal builtins).
#[derive(Clone, Copy, Debug)]
pub struct Builtin(&'static (&'static str, &'static str));

impl std::hash::Hash for Builtin {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // By the names: equal builtins are the same pair, so they hash alike.
        self.0.hash(state);
    }
}

impl PartialEq for Builtin {
    fn eq(&self, other: &Builtin) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Builtin {}

impl Ord for Builtin {
    fn cmp(&self, other: &Builtin) -> std::cmp::Ordering {
        if self == other {
            std::cmp::Ordering::Equal
        } else {
            self.0.cmp(other.0)
        }
    }
}

impl PartialOrd for Builtin {
    fn partial_cmp(&self, other: &Builtin) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Builtin {
    /// The one pair for these names. Builtin names are the catalog's, a fixed set, so each pair
    /// is made once and kept for the life of the process.
    pub fn new(ns: &'static str, name: &'static str) -> Builtin {
        type Pairs = HashMap<(&'static str, &'static str), &'static (&'static str, &'static str)>;
        static ALL: Mutex<Option<Pairs>> = Mutex::new(None);
        thread_local! {
            static SEEN: RefCell<Pairs> = RefCell::new(HashMap::default());
        }
        let pair = SEEN.with_borrow_mut(|seen| {
            *seen.entry((ns, name)).or_insert_with(|| {
                let mut all = ALL.lock().unwrap_or_else(|e| e.into_inner());
                *all.get_or_insert_with(HashMap::default)
                    .entry((ns, name))
                    .or_insert_with(|| Box::leak(Box::new((ns, name))))
            })
        });
        Builtin(pair)
    }

    pub fn ns(self) -> &'static str {
        self.0 .0
    }

    pub fn name(self) -> &'static str {
        self.0 .1
    }

    /// `fs.read`, or `print` for a global.
    pub fn qualified(self) -> String {
        vox_hir::catalog::qualified(self.ns(), self.name())
    }
}

/// As [`Builtin::qualified`], written into a message without a string of its own.
impl std::fmt::Display for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        vox_hir::catalog::write_qualified(f, self.ns(), self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Builtin;

    #[test]
    fn one_pair_per_names_on_every_thread_ordered_by_the_names() {
        let here = Builtin::new("fs", "read");
        let there = std::thread::spawn(|| Builtin::new("fs", "read"))
            .join()
            .expect("thread");
        assert!(std::ptr::eq(here.0, there.0));
        assert_eq!(here, there);
        assert_ne!(here, Builtin::new("fs", "write"));
        assert_eq!(here.cmp(&there), std::cmp::Ordering::Equal);
        assert_eq!((here.ns(), here.name()), ("fs", "read"));
        // Made in the opposite order of their names: the order is still the names'.
        let last = Builtin::new("zz", "aa");
        let first = Builtin::new("aa", "zz");
        assert!(first < last && here < last && first < here);
        assert!(Builtin::new("", "print") < Builtin::new("env", "get"));
    }
}
