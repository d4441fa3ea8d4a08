//! Text and paths a finding shares with its copies.
//!
//! The language server's lint memo copies every finding an edit moves (typing in a function
//! moves those of every function after it: hundreds per keystroke in a finding-dense file), and
//! the render compares each copy with the finding it was made from. With each string and path
//! behind a shared pointer, a copy is a few counts instead of a dozen allocations, and an
//! unchanged message compares by pointer (std's `Arc` equality tries the pointer first).

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An immutable `T`, cheap to copy, that reads as one: it dereferences to a `T`, compares with
/// one and prints as one.
#[derive(PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shared<T: ?Sized>(Arc<T>);

/// A finding's code, message, help, function name, fix title or replacement text.
pub type SharedStr = Shared<str>;

/// A finding's file (and its chain's and edits').
pub type SharedPath = Shared<Path>;

impl<T: ?Sized> Shared<T> {
    /// Whether both are the very same value (no bytes compared).
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl SharedStr {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl SharedPath {
    pub fn as_path(&self) -> &Path {
        &self.0
    }
}

impl<T: ?Sized> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T: ?Sized> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> AsRef<T> for Shared<T> {
    fn as_ref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Borrow<T> for Shared<T> {
    fn borrow(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

/// Tells whether findings' paths are one path, by pointer once one matched: a file's findings
/// share their path, and comparing its bytes for each of a finding-dense file's thousands of
/// findings was a visible share of a keystroke's publish.
pub struct SamePath<'p> {
    path: &'p Path,
    known: Option<SharedPath>,
}

impl<'p> SamePath<'p> {
    pub fn new(path: &'p Path) -> SamePath<'p> {
        SamePath { path, known: None }
    }

    /// Whether `p` is the path (written the same way).
    pub fn test(&mut self, p: &SharedPath) -> bool {
        if self.known.as_ref().is_some_and(|k| k.ptr_eq(p)) {
            return true;
        }
        let same = p.as_os_str() == self.path.as_os_str();
        if same {
            self.known = Some(p.clone());
        }
        same
    }

    /// Whether `p` is the path, written the same way ([`SamePath::test`]) or otherwise (compared
    /// as components).
    pub fn is(&mut self, p: &SharedPath) -> bool {
        self.test(p) || p.as_path() == self.path
    }
}

impl AsRef<Path> for SharedStr {
    fn as_ref(&self) -> &Path {
        Path::new(&*self.0)
    }
}

impl AsRef<std::ffi::OsStr> for SharedPath {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Default for SharedStr {
    fn default() -> Self {
        Shared(Arc::from(""))
    }
}

impl Default for SharedPath {
    fn default() -> Self {
        Shared(Arc::from(Path::new("")))
    }
}

// What a value is made from: a borrowed `T`, a box or an `Arc` of one, and the owned forms.
impl<T: ?Sized> From<&T> for Shared<T>
where
    for<'a> Arc<T>: From<&'a T>,
{
    fn from(v: &T) -> Self {
        Shared(Arc::from(v))
    }
}

impl<T: ?Sized> From<Arc<T>> for Shared<T> {
    fn from(v: Arc<T>) -> Self {
        Shared(v)
    }
}

impl<T: ?Sized> From<Box<T>> for Shared<T>
where
    Arc<T>: From<Box<T>>,
{
    fn from(v: Box<T>) -> Self {
        Shared(Arc::from(v))
    }
}

impl From<String> for SharedStr {
    fn from(s: String) -> Self {
        Shared(Arc::from(s))
    }
}

impl From<&String> for SharedStr {
    fn from(s: &String) -> Self {
        Shared(Arc::from(s.as_str()))
    }
}

impl From<Cow<'_, str>> for SharedStr {
    fn from(s: Cow<'_, str>) -> Self {
        Shared(Arc::from(s))
    }
}

impl From<PathBuf> for SharedPath {
    fn from(p: PathBuf) -> Self {
        Shared(Arc::from(p))
    }
}

impl From<&PathBuf> for SharedPath {
    fn from(p: &PathBuf) -> Self {
        Shared(Arc::from(p.as_path()))
    }
}

impl From<SharedStr> for String {
    fn from(s: SharedStr) -> Self {
        s.0.to_string()
    }
}

impl From<SharedPath> for PathBuf {
    fn from(p: SharedPath) -> Self {
        p.0.to_path_buf()
    }
}

// Comparisons with the plain forms, both ways.
impl<T: ?Sized + PartialEq> PartialEq<T> for Shared<T> {
    fn eq(&self, other: &T) -> bool {
        *self.0 == *other
    }
}

impl<T: ?Sized + PartialEq> PartialEq<&T> for Shared<T> {
    fn eq(&self, other: &&T) -> bool {
        *self.0 == **other
    }
}

/// `PartialEq` between a plain form (`$plain`, which derefs to `$t`) and `Shared<$t>`, both ways.
macro_rules! eq_plain {
    ($t:ty: $($plain:ty),*) => {$(
        impl PartialEq<$plain> for Shared<$t> {
            fn eq(&self, other: &$plain) -> bool {
                *self.0 == **other
            }
        }
        impl PartialEq<Shared<$t>> for $plain {
            fn eq(&self, other: &Shared<$t>) -> bool {
                **self == *other.0
            }
        }
    )*};
}
eq_plain!(str: String);
eq_plain!(Path: PathBuf);

/// `PartialEq` between `$t` itself (and a reference to it) and `Shared<$t>`.
macro_rules! eq_reversed {
    ($($t:ty),*) => {$(
        impl PartialEq<Shared<$t>> for $t {
            fn eq(&self, other: &Shared<$t>) -> bool {
                *self == *other.0
            }
        }
        impl PartialEq<Shared<$t>> for &$t {
            fn eq(&self, other: &Shared<$t>) -> bool {
                **self == *other.0
            }
        }
    )*};
}
eq_reversed!(str, Path);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_text_reads_as_what_it_holds() {
        let s = SharedStr::from(format!("line {}", 3));
        assert_eq!(s, "line 3");
        assert_eq!("line 3", s);
        assert_eq!(s, String::from("line 3"));
        assert_eq!(s.to_string(), "line 3");
        assert_eq!(format!("{s:?}"), format!("{:?}", "line 3"));
        assert!(s.ptr_eq(&s.clone()));
        assert!(!s.ptr_eq(&SharedStr::from("line 3")));
        assert_eq!(s, SharedStr::from("line 3"));
        let p = SharedPath::from(PathBuf::from("/a/b.vox"));
        assert_eq!(p, Path::new("/a/b.vox"));
        assert_eq!(p, PathBuf::from("/a/b.vox"));
        assert_eq!(format!("{p:?}"), format!("{:?}", Path::new("/a/b.vox")));
        let (a, b) = (
            SharedPath::from(Path::new("/a")),
            SharedPath::from(Path::new("/b")),
        );
        assert!(a < b);
    }

    /// The path is known by its bytes first, then by pointer; another path, or one known
    /// before, never passes for it.
    #[test]
    fn same_path_tells_paths_apart() {
        let here = Path::new("/w/a.vox");
        let mut same = SamePath::new(here);
        let (a, a2, b) = (
            SharedPath::from(here),
            SharedPath::from(Path::new("/w/a.vox")),
            SharedPath::from(Path::new("/w/b.vox")),
        );
        assert!(!same.test(&b));
        assert!(same.test(&a));
        assert!(same.test(&a), "by pointer");
        assert!(same.test(&a2), "another copy of the path");
        assert!(!same.test(&b), "after one is known");
    }
}
