//! Text and paths a finding shares with its copies.
//!
//! The language server's lint memo copies every finding an edit moves (typing in a function
//! moves those of every function after it: hundreds per keystroke in a finding-dense file), and
//! the render compares each copy with the finding it was made from. With each string and path
//! behind a shared pointer, a copy is a few counts instead of a dozen allocations, and an
//! unchanged message compares by pointer.

use std::borrow::Borrow;
use std::ffi::OsStr;
use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An immutable string, cheap to copy. Reads as a `str` (it dereferences to one, compares
/// with one and prints as one).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedStr(Arc<str>);

impl SharedStr {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether both are the very same string (no bytes compared).
    pub fn ptr_eq(&self, other: &SharedStr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Default for SharedStr {
    fn default() -> Self {
        SharedStr::from("")
    }
}

impl Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl AsRef<OsStr> for SharedStr {
    fn as_ref(&self) -> &OsStr {
        OsStr::new(&*self.0)
    }
}

impl AsRef<Path> for SharedStr {
    fn as_ref(&self) -> &Path {
        Path::new(&*self.0)
    }
}

impl Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<String> for SharedStr {
    fn from(s: String) -> Self {
        SharedStr(Arc::from(s))
    }
}

impl From<&String> for SharedStr {
    fn from(s: &String) -> Self {
        SharedStr(Arc::from(s.as_str()))
    }
}

impl From<&str> for SharedStr {
    fn from(s: &str) -> Self {
        SharedStr(Arc::from(s))
    }
}

impl From<Box<str>> for SharedStr {
    fn from(s: Box<str>) -> Self {
        SharedStr(Arc::from(s))
    }
}

impl From<Arc<str>> for SharedStr {
    fn from(s: Arc<str>) -> Self {
        SharedStr(s)
    }
}

impl From<std::borrow::Cow<'_, str>> for SharedStr {
    fn from(s: std::borrow::Cow<'_, str>) -> Self {
        SharedStr(Arc::from(s))
    }
}

impl From<SharedStr> for String {
    fn from(s: SharedStr) -> Self {
        s.0.to_string()
    }
}

impl PartialEq<str> for SharedStr {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for SharedStr {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for SharedStr {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<SharedStr> for str {
    fn eq(&self, other: &SharedStr) -> bool {
        self == &*other.0
    }
}

impl PartialEq<SharedStr> for &str {
    fn eq(&self, other: &SharedStr) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<SharedStr> for String {
    fn eq(&self, other: &SharedStr) -> bool {
        **self == *other.0
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// An immutable path, cheap to copy. Reads as a `Path` (it dereferences to one, compares with
/// one and prints its `Debug` as one).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedPath(Arc<Path>);

impl SharedPath {
    pub fn as_path(&self) -> &Path {
        &self.0
    }

    /// Whether both are the very same path (no bytes compared).
    pub fn ptr_eq(&self, other: &SharedPath) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Default for SharedPath {
    fn default() -> Self {
        SharedPath::from(Path::new(""))
    }
}

impl Deref for SharedPath {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for SharedPath {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for SharedPath {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

impl Borrow<Path> for SharedPath {
    fn borrow(&self) -> &Path {
        &self.0
    }
}

impl From<PathBuf> for SharedPath {
    fn from(p: PathBuf) -> Self {
        SharedPath(Arc::from(p))
    }
}

impl From<&PathBuf> for SharedPath {
    fn from(p: &PathBuf) -> Self {
        SharedPath(Arc::from(p.as_path()))
    }
}

impl From<&Path> for SharedPath {
    fn from(p: &Path) -> Self {
        SharedPath(Arc::from(p))
    }
}

impl From<Arc<Path>> for SharedPath {
    fn from(p: Arc<Path>) -> Self {
        SharedPath(p)
    }
}

impl From<SharedPath> for PathBuf {
    fn from(p: SharedPath) -> Self {
        p.0.to_path_buf()
    }
}

impl PartialEq<Path> for SharedPath {
    fn eq(&self, other: &Path) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&Path> for SharedPath {
    fn eq(&self, other: &&Path) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<PathBuf> for SharedPath {
    fn eq(&self, other: &PathBuf) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<SharedPath> for Path {
    fn eq(&self, other: &SharedPath) -> bool {
        *self == *other.0
    }
}

impl PartialEq<SharedPath> for &Path {
    fn eq(&self, other: &SharedPath) -> bool {
        **self == *other.0
    }
}

impl PartialEq<SharedPath> for PathBuf {
    fn eq(&self, other: &SharedPath) -> bool {
        **self == *other.0
    }
}

impl fmt::Debug for SharedPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_text_reads_as_what_it_holds() {
        let s = SharedStr::from(format!("line {}", 3));
        assert_eq!(s, "line 3");
        assert_eq!("line 3", s);
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
}
