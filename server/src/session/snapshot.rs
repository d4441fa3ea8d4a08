//! A snapshot of one workspace: a database handle and immutable copies, which a request works
//! on while newer edits go on (and cancel it).

use super::settings::*;
use crate::base::lock;
use crate::convert::{self, Encoding};
use ropey::Rope;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use vox_analysis::{AnalysisDb, ImportTarget, SourceFile};
use vox_caps::config::WorkspaceConfig;
use vox_lints::{Finding, LintOptions, Placed, Shown, WorkspaceInfo};

/// Per open script and kind of lint (with fixes or without), what its last lint found in each
/// function ([`vox_lints::FileMemo`]), so that the next lint after an edit inside one function
/// lints only that function again.
pub type Memos = Arc<std::sync::Mutex<HashMap<(PathBuf, bool), vox_lints::FileMemo>>>;

/// Syntax trees of open documents, parsed with no database handle held (`Backend::pretree`), so
/// that an edit arriving while a large file is parsed for a request does not wait for the parse:
/// a database handle is only let go between queries. A request's view uses the tree whose text is
/// the analysed text, else the database's own parse.
pub type Trees = Arc<std::sync::Mutex<Vec<(PathBuf, Arc<[u8]>, Arc<vox_syntax::SyntaxTree>)>>>;

/// Trees kept (the documents a client asks about at once).
pub const KEPT_TREES: usize = 2;

/// The inferred tokens of a script for a run from `cwd`.
pub fn inferred_tokens(snap: &Snapshot, path: &Path, cwd: &Path) -> Option<vox_analysis::Tokens> {
    let file = snap.file(path)?;
    // The parse's facts, not its tree: a code action or lens asked for after each keystroke
    // parsed the whole file again here.
    if vox_analysis::file_syntax(&snap.db, file).has_errors {
        return None;
    }
    let inferred = vox_analysis::inferred_caps(&snap.db, file);
    Some(vox_analysis::render_tokens(inferred, cwd))
}

pub fn rope_bytes(rope: &Rope) -> Vec<u8> {
    let mut out = Vec::with_capacity(rope.len_bytes());
    for chunk in rope.chunks() {
        out.extend_from_slice(chunk.as_bytes());
    }
    out
}

/// [`rope_bytes`] written straight into the shared buffer a text input holds (through a `Vec`,
/// a half-megabyte file was copied twice per keystroke).
pub fn rope_shared(rope: &Rope) -> Arc<[u8]> {
    shared_of(rope.len_bytes(), rope.chunks().map(str::as_bytes))
}

/// `old` with `old[a..b]` replaced by `ins`, in a new shared buffer (two copies from one buffer,
/// where [`rope_shared`] gathers the rope's chunks).
pub fn spliced_shared(old: &[u8], a: usize, b: usize, ins: &[u8]) -> Arc<[u8]> {
    let n = old.len() - (b - a) + ins.len();
    shared_of(n, [&old[..a], ins, &old[b..]].into_iter())
}

/// A shared buffer of `len` bytes written from `pieces` in order, which must fill it exactly.
fn shared_of<'a>(len: usize, pieces: impl Iterator<Item = &'a [u8]>) -> Arc<[u8]> {
    let mut out = Arc::<[u8]>::new_uninit_slice(len);
    let slots = Arc::get_mut(&mut out).expect("a new buffer has no other owner");
    let mut at = 0;
    for p in pieces {
        slots[at..at + p.len()].write_copy_of_slice(p);
        at += p.len();
    }
    assert_eq!(at, slots.len(), "the pieces fill the buffer");
    // SAFETY: the pieces, whose lengths add up to the buffer's (checked above), wrote every slot.
    unsafe { out.assume_init() }
}

/// What a request needs, independent of later edits: a database handle (cancelled by the next
/// write) and immutable copies of the rest.
pub struct Snapshot {
    pub db: AnalysisDb,
    pub root: PathBuf,
    pub files: Arc<BTreeMap<PathBuf, SourceFile>>,
    pub docs: Arc<HashMap<PathBuf, Doc>>,
    pub config: Arc<WorkspaceConfig>,
    pub info: Arc<WorkspaceInfo>,
    pub opts: LintOptions,
    pub settings: Settings,
    pub exclude: Arc<Option<ignore::overrides::Override>>,
    pub encoding: Encoding,
    pub revision: u64,
    /// Raised when the client cancels the request this snapshot serves.
    pub cancel: crate::work::CancelFlag,
    pub trees: Trees,
    pub memos: Memos,
    /// The workspace's diagnostics generation ([`Session::generation`]).
    pub generation: Arc<std::sync::atomic::AtomicU64>,
}

impl Snapshot {
    /// What changes whenever an input other than `path`'s text does (`None` for a script that
    /// is not open: only open scripts keep a lint memo).
    pub fn stamp(&self, path: &Path) -> Option<u64> {
        let d = self.docs.get(path)?;
        Some(self.revision - d.keystrokes)
    }

    /// Counts a request's steps and stops it when it was cancelled or an edit waits
    /// ([`crate::work`]).
    pub fn ticker(&self) -> crate::work::Ticker<'_> {
        crate::work::Ticker::new(&self.db, &self.cancel)
    }

    pub fn file(&self, path: &Path) -> Option<SourceFile> {
        self.files.get(path).copied()
    }

    /// The syntax tree of `file`: one parsed ahead for this text if there is one, else the
    /// database's.
    pub fn tree(&self, path: &Path, file: SourceFile) -> Arc<vox_syntax::SyntaxTree> {
        let text = file.text(&self.db).get();
        let trees = lock(&self.trees);
        if let Some((_, _, t)) = trees
            .iter()
            .find(|(p, t, _)| p == path && (Arc::ptr_eq(t, &text) || **t == *text))
        {
            return t.clone();
        }
        drop(trees);
        vox_analysis::parse(&self.db, file).clone()
    }

    pub fn excluded(&self, path: &Path) -> bool {
        match &*self.exclude {
            Some(o) => o.matched(path, false).is_ignore(),
            None => false,
        }
    }

    /// The rope of a file: the open buffer, else the analysed text.
    pub fn rope(&self, path: &Path) -> Rope {
        if let Some(d) = self.docs.get(path) {
            return d.rope.clone();
        }
        if let Some(f) = self.files.get(path) {
            return convert::rope_of(&f.text(&self.db).get());
        }
        match std::fs::read(path) {
            Ok(b) => convert::rope_of(&b),
            Err(_) => Rope::new(),
        }
    }

    pub fn text(&self, path: &Path) -> Option<String> {
        if let Some(d) = self.docs.get(path) {
            return Some(d.rope.to_string());
        }
        if let Some(f) = self.files.get(path) {
            return Some(String::from_utf8_lossy(&f.text(&self.db).get()).into_owned());
        }
        std::fs::read(path)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// The files related to `path` by imports, either way, transitively.
    pub fn related(&self, path: &Path) -> std::collections::BTreeSet<PathBuf> {
        let db = &self.db;
        let mut seen = std::collections::BTreeSet::new();
        let Some(file) = self.file(path) else {
            return seen;
        };
        let mut todo = vec![file];
        let mut files = std::collections::HashSet::from([file]);
        while let Some(f) = todo.pop() {
            let imported = vox_analysis::resolve_imports(db, f)
                .targets
                .iter()
                .filter_map(|t| match t {
                    ImportTarget::File(g) => Some(*g),
                    ImportTarget::Missing(_) => None,
                })
                .collect::<Vec<_>>();
            for g in imported
                .into_iter()
                .chain(vox_analysis::importers_of(db, f).iter().copied())
            {
                if files.insert(g) {
                    seen.insert(g.path(db).clone());
                    todo.push(g);
                }
            }
        }
        seen.remove(path);
        seen
    }

    /// `file`'s own findings, from its memo ([`Memos`]); the memo is taken out while the lint
    /// runs (a lint cancelled by an edit drops it, and the next lint is a whole one).
    fn lint_with_memo(
        &self,
        path: &Path,
        file: SourceFile,
        opts: &LintOptions,
        stamp: u64,
    ) -> Shown {
        let key = (path.to_path_buf(), opts.skip_fixes);
        let mut memo = lock(&self.memos).remove(&key);
        let found = vox_lints::lint_file_memo(&self.db, file, &self.info, opts, &mut memo, stamp);
        if crate::base::timing() {
            match &memo {
                Some(m) => eprintln!(
                    "vox-lsp-timing: lint memo: {} functions linted, {} kept",
                    m.linted, m.kept
                ),
                None => eprintln!("vox-lsp-timing: lint memo: none kept (a whole lint next)"),
            }
        }
        if let Some(m) = memo {
            lock(&self.memos).insert(key, m);
        }
        found
    }

    /// The findings scripts report on their run configuration entries in `path` (a Vox.toml,
    /// tasks.json or launch.json): C001 and C002 (decision 39).
    pub fn config_findings(&self, path: &Path) -> Vec<Finding> {
        self.config_findings_with(path, &self.opts)
    }

    /// As [`Self::config_findings`] for published diagnostics: the scripts' lints build no fix
    /// for their own findings, which are left out here anyway (the entries' C001/C002 fixes are
    /// still built: `caps_check::config_fix` does not follow `skip_fixes`).
    pub fn shown_config_findings(&self, path: &Path) -> Vec<Finding> {
        let opts = LintOptions {
            skip_fixes: true,
            ..self.opts.clone()
        };
        self.config_findings_with(path, &opts)
    }

    fn config_findings_with(&self, path: &Path, opts: &LintOptions) -> Vec<Finding> {
        let mut scripts: Vec<PathBuf> = self
            .config
            .runs
            .iter()
            .filter(|r| r.origin.file == path)
            .map(|r| r.script.clone())
            .collect();
        scripts.sort();
        scripts.dedup();
        let mut out = Vec::new();
        for script in scripts {
            let Some(file) = self.file(&script) else {
                continue;
            };
            out.extend(
                vox_lints::lint_file(&self.db, file, &self.info, opts)
                    .into_iter()
                    .filter(|f| f.file == path),
            );
        }
        Finding::sort_unique(&mut out);
        out
    }

    /// The findings `vox lint` reports in `path`: those of its own lint, and those the files
    /// importing it (directly or not) report there (C001 at an imported call, import errors),
    /// merged as the CLI merges them.
    pub fn findings(&self, path: &Path) -> Vec<Arc<Finding>> {
        self.findings_with(path, &self.opts)
            .into_placed()
            .into_iter()
            .map(Placed::into_finding)
            .collect()
    }

    /// As [`Self::findings`] without their fixes: what published diagnostics show (code actions,
    /// hovers and proofs ask [`Self::findings`]). Those the file's lint memo kept are its very
    /// findings, placed where they lie now, each function's as one run ([`Shown`]).
    pub fn shown_findings(&self, path: &Path) -> Shown {
        let opts = LintOptions {
            skip_fixes: true,
            ..self.opts.clone()
        };
        self.findings_with(path, &opts)
    }

    /// Shared with the file's lint memo: the findings of functions an edit did not touch are the
    /// memo's, not copies.
    fn findings_with(&self, path: &Path, opts: &LintOptions) -> Shown {
        let Some(file) = self.file(path) else {
            return Shown::default();
        };
        if self.excluded(path) {
            return Shown::default();
        }
        let db = &self.db;
        // `file` and the files importing it, directly or not: their lints report in `file`.
        let mut importers: BTreeMap<PathBuf, SourceFile> = BTreeMap::new();
        importers.insert(path.to_path_buf(), file);
        let mut frontier = vec![file];
        while let Some(g) = frontier.pop() {
            for f in vox_analysis::importers_of(db, g).iter() {
                let p = f.path(db);
                if !importers.contains_key(p) && !self.excluded(p) {
                    importers.insert(p.clone(), *f);
                    frontier.push(*f);
                }
            }
        }
        // The file's own lint (its memo's runs whole), alone when no file imports it.
        let own = match self.stamp(path) {
            Some(stamp) => self.lint_with_memo(path, file, opts, stamp),
            None => Shown::new(
                vox_lints::lint_file(db, file, &self.info, opts)
                    .into_iter()
                    .map(Placed::from)
                    .collect(),
                Vec::new(),
            ),
        };
        let mut own = own;
        own.retain_file(path);
        if importers.len() == 1 {
            return own;
        }
        let mut own = Some(own);
        // With importers, every finding one by one, in the order of the files' paths (which
        // of two equal findings shows is the first's, as in `vox lint`).
        let mut ones = Vec::new();
        // Nearly every finding is in `path` itself, written as it is: compared as bytes first.
        let mut same = vox_lints::SamePath::new(path);
        for z in importers.values() {
            if *z == file {
                ones.extend(own.take().unwrap_or_default().into_placed());
                continue;
            }
            ones.extend(
                vox_lints::lint_file(db, *z, &self.info, opts)
                    .into_iter()
                    .filter(|f| same.is(&f.file))
                    .map(Placed::from),
            );
        }
        Shown::new(ones, Vec::new())
    }
}
