//! Helpers shared by the syntax crate's integration tests.

use std::path::{Path, PathBuf};

/// Every `.vox` file under these directories of the repository, sorted.
pub fn corpus(dirs: &[&str]) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for d in dirs {
        vox_files(&root.join(d), &mut files);
    }
    files.sort();
    files
}

/// Every `.vox` file under `dir`, recursively.
fn vox_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            vox_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "vox") {
            out.push(p);
        }
    }
}

/// A small seeded generator (xorshift): random inputs that reproduce.
#[allow(dead_code)] // not every test file draws random inputs
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
