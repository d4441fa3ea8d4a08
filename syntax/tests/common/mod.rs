//! Helpers shared by the syntax crate's integration tests.

use std::path::{Path, PathBuf};

/// Every `.vox` file under `dir`, recursively.
pub fn vox_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
