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
