//! The workspace around the file being linted: its root and run configurations, with the
//! tables every file's lint shares (importers, run scripts, D005's colliding literals).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use vox_analysis::{Db, SourceFile};
use vox_caps::config::RunConfig;
use vox_syntax::{LineIndex, TextRange};

/// D005's literals that collide with an earlier one: by file, then the literal's range → the
/// earlier literal's file, text and range.
pub(crate) type Collisions = HashMap<PathBuf, HashMap<(u32, u32), (PathBuf, String, TextRange)>>;

/// The workspace around the file being linted: its root and run configurations.
pub struct WorkspaceInfo {
    pub root: PathBuf,
    pub runs: Vec<RunConfig>,
    /// Path literals colliding by case or normalisation with an earlier one, built once (D005).
    pub(crate) path_literals: OnceLock<Arc<Collisions>>,
    /// For each file, the workspace files that import it, built once (chains).
    importers: OnceLock<HashMap<SourceFile, Vec<SourceFile>>>,
    /// Each run configuration's script, canonical, computed once (every file asks).
    run_scripts: OnceLock<Vec<SameFile>>,
}

impl WorkspaceInfo {
    pub fn new(root: PathBuf, runs: Vec<RunConfig>) -> WorkspaceInfo {
        WorkspaceInfo {
            root,
            runs,
            path_literals: OnceLock::new(),
            importers: OnceLock::new(),
            run_scripts: OnceLock::new(),
        }
    }

    /// The workspace files that import `file` directly, in path order.
    pub fn importers(&self, db: &dyn Db, file: SourceFile) -> Vec<SourceFile> {
        let map = self.importers.get_or_init(|| {
            let mut map: HashMap<SourceFile, Vec<SourceFile>> = HashMap::new();
            for f in db.workspace().files(db).values() {
                for t in &vox_analysis::resolve_imports(db, *f).targets {
                    if let vox_analysis::ImportTarget::File(target) = t {
                        let v = map.entry(*target).or_default();
                        if !v.contains(f) {
                            v.push(*f);
                        }
                    }
                }
            }
            map
        });
        map.get(&file).cloned().unwrap_or_default()
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
