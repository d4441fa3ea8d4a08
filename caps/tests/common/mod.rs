//! A scratch directory per test, removed when dropped (no `tempfile` dependency).

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

pub struct Scratch {
    root: PathBuf,
}

impl Scratch {
    /// A fresh, canonical directory: canonical because `/tmp` may itself be a symlink, and the
    /// checks compare canonical paths.
    pub fn new(name: &str) -> Scratch {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let unique = format!(
            "vox-caps-{name}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let dir = std::env::temp_dir().join(unique);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch {
            root: std::fs::canonicalize(&dir).unwrap(),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        if rel.is_empty() {
            return self.root.clone();
        }
        self.root.join(rel)
    }

    pub fn dir(&self, rel: &str) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(&path).unwrap();
        path
    }

    pub fn file(&self, rel: &str) -> PathBuf {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, "x").unwrap();
        path
    }

    /// Creates the symlink `rel` with the (possibly relative) `target`.
    pub fn link(&self, rel: &str, target: impl AsRef<Path>) -> PathBuf {
        let path = self.path(rel);
        std::os::unix::fs::symlink(target, &path).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
