//! What the formats read about the files they report: texts and line indexes ([`Texts`]), the
//! path as shown, and findings grouped by file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use vox_lints::Finding;
use vox_syntax::{ColumnUnit, LineIndex, TextRange};

use crate::workspace::Loaded;

/// File texts (the database's handles, not copies) and their line indexes, built on first use:
/// most files of a large workspace never need one. An index keeps no ASCII text: the texts stay
/// released (see [`vox_analysis::Text`]) once their files are reported.
pub struct Texts {
    /// Hashed, not ordered: every position of every finding looks its file up, and ordered
    /// lookups compare paths component by component (2% of `vox lint` on the bench workspace).
    files: HashMap<PathBuf, (vox_analysis::Text, OnceLock<LineIndex>)>,
    /// The text last asked for: a file's findings ask for it one after another (SARIF's
    /// fingerprints), and a released text is read again from disk each time it is asked for.
    recent: std::sync::Mutex<Option<(PathBuf, Arc<[u8]>)>>,
}

impl Texts {
    pub fn new(loaded: &Loaded) -> Texts {
        let mut files = HashMap::new();
        for (p, f) in loaded.ws.files(&loaded.db).iter() {
            files.insert(p.clone(), (f.text(&loaded.db).clone(), OnceLock::new()));
        }
        Texts {
            files,
            recent: std::sync::Mutex::new(None),
        }
    }

    /// The workspace texts plus other files (configuration files) read from disk.
    pub fn with_files(loaded: &Loaded, extra: impl Iterator<Item = PathBuf>) -> Texts {
        let mut t = Texts::new(loaded);
        for p in extra {
            if let Ok(text) = std::fs::read(&p) {
                let text = vox_analysis::Text::new(Arc::from(text));
                t.files.insert(p, (text, OnceLock::new()));
            }
        }
        t
    }

    pub(super) fn index(&self, p: &Path) -> Option<&LineIndex> {
        self.files
            .get(p)
            .map(|(text, idx)| idx.get_or_init(|| LineIndex::shared(text.peek())))
    }

    /// The offset of a 1-based line and column.
    pub fn offset(&self, p: &Path, line: u32, column: u32) -> u32 {
        match self.index(p) {
            Some(idx) => idx.offset(
                vox_syntax::LineCol {
                    line: line.saturating_sub(1),
                    col: column.saturating_sub(1),
                },
                ColumnUnit::Char,
            ),
            None => 0,
        }
    }

    pub fn text(&self, p: &Path) -> Arc<[u8]> {
        let Some((t, _)) = self.files.get(p) else {
            return Arc::from(&[][..]);
        };
        let lock = || self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((rp, text)) = &*lock() {
            if rp == p {
                return text.clone();
            }
        }
        let text = t.peek();
        *lock() = Some((p.to_path_buf(), text.clone()));
        text
    }

    /// Builds `p`'s line index now (on a worker, while its text is in memory), so that writing
    /// its findings later reads nothing again.
    pub fn prepare(&self, p: &Path) {
        let _ = self.index(p);
    }

    /// 1-based line and column (Unicode scalars) of an offset.
    pub fn pos(&self, p: &Path, offset: u32) -> (u32, u32) {
        match self.index(p) {
            Some(idx) => {
                let lc = idx.line_col(offset, ColumnUnit::Char);
                (lc.line + 1, lc.col + 1)
            }
            None => (1, 1),
        }
    }

    pub fn range(&self, p: &Path, r: TextRange) -> ((u32, u32), (u32, u32)) {
        (self.pos(p, r.start), self.pos(p, r.end))
    }
}

/// A path as shown: relative to the root when beneath it.
pub fn shown(p: &Path, root: &Path) -> String {
    match p.strip_prefix(root) {
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => p.to_string_lossy().into_owned(),
    }
}

/// The runs of findings of one file, in order (findings come sorted by file; paths are compared
/// as bytes).
pub(super) fn by_file(findings: &[Finding]) -> impl Iterator<Item = &[Finding]> {
    findings.chunk_by(|a, b| a.file.as_os_str() == b.file.as_os_str())
}
