//! The workspace around the file being linted: its root and run configurations. What a lint
//! reads of other files (importers, D005's literals, parameter ranges) comes from the analysis
//! database's queries, so nothing here depends on the files' texts.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use vox_caps::config::RunConfig;
use vox_syntax::{LineIndex, TextRange};

/// The workspace around the file being linted: its root and run configurations.
pub struct WorkspaceInfo {
    pub root: PathBuf,
    pub runs: Vec<RunConfig>,
    /// Each run configuration's script, canonical, computed once (every file asks).
    run_scripts: OnceLock<Vec<SameFile>>,
}

impl WorkspaceInfo {
    pub fn new(root: PathBuf, runs: Vec<RunConfig>) -> WorkspaceInfo {
        WorkspaceInfo {
            root,
            runs,
            run_scripts: OnceLock::new(),
        }
    }

    /// The range of a run configuration's entry in its file (C001/C002 are reported there too).
    pub fn entry_range(&self, run: &RunConfig) -> TextRange {
        let text = std::fs::read(&run.origin.file).unwrap_or_default();
        let offset = LineIndex::new(&text).offset(
            vox_syntax::LineCol {
                line: run.origin.line.saturating_sub(1),
                col: run.origin.column.saturating_sub(1),
            },
            vox_syntax::ColumnUnit::Char,
        );
        TextRange::new(offset, offset)
    }

    /// The run configurations whose `script` is `path`.
    pub fn runs_for(&self, path: &Path) -> Vec<&RunConfig> {
        if self.runs.is_empty() {
            return Vec::new();
        }
        let scripts = self
            .run_scripts
            .get_or_init(|| self.runs.iter().map(|r| SameFile::of(&r.script)).collect());
        let want = SameFile::of(path);
        self.runs
            .iter()
            .zip(scripts)
            .filter(|(_, s)| **s == want)
            .map(|(r, _)| r)
            .collect()
    }
}

/// What makes two paths the same file: its device and inode when it exists (one `stat`, where
/// resolving every symbolic link of a path reads each directory on the way), else the path.
#[derive(PartialEq, Eq)]
enum SameFile {
    Inode(u64, u64),
    Path(PathBuf),
}

impl SameFile {
    fn of(path: &Path) -> SameFile {
        use std::os::unix::fs::MetadataExt;
        match std::fs::metadata(path) {
            Ok(m) => SameFile::Inode(m.dev(), m.ino()),
            Err(_) => SameFile::Path(path.to_path_buf()),
        }
    }
}
