//! The server's state: the workspace's files in the analysis database, the open documents
//! (ropes), the run configurations read through the one resolver (unsaved buffers included), and
//! the lint options. Notifications change it under a lock and do no I/O beyond reading files
//! that are not open; every other request works on a [`Snapshot`] (a database handle and
//! immutable copies), so a newer edit cancels it without waiting for the lock.

use super::paths::*;
use super::settings::*;
use super::snapshot::*;
use crate::base::lock;
use crate::convert::{self, Encoding};
use ropey::Rope;
use salsa::{Durability, Setter};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};
use vox_analysis::{AnalysisDb, ImportTarget, SourceFile, Text, Workspace};
use vox_caps::config::{ConfigKind, WorkspaceConfig};
use vox_lints::{LintOptions, Severity, WorkspaceInfo};

pub struct Session {
    pub db: AnalysisDb,
    pub ws: Workspace,
    pub root: PathBuf,
    /// The folder the client named (the directory the server started in when it named none):
    /// the documents under it belong to this session ([`Workspaces::index_for`]).
    pub folder: PathBuf,
    /// Whether the client named the workspace folder. Without one, the root follows the
    /// `Vox.toml` found above the script opened last, as `vox run` and `vox lint` find it
    /// (decision 54).
    pub named: bool,
    pub files: Arc<BTreeMap<PathBuf, SourceFile>>,
    /// Open documents by path (any language: scripts and configuration files).
    pub docs: HashMap<PathBuf, Doc>,
    pub config: Arc<WorkspaceConfig>,
    pub info: Arc<WorkspaceInfo>,
    pub opts: LintOptions,
    pub settings: Settings,
    pub exclude: Arc<Option<ignore::overrides::Override>>,
    pub encoding: Encoding,
    /// Bumped on every change of a text or of the configuration.
    pub revision: u64,
    /// Trees of open documents parsed outside the database ([`Trees`]).
    pub trees: Trees,
    /// The lint memos of open scripts ([`Memos`]).
    pub memos: Memos,
    /// Bumped by every diagnostics pass of this workspace; a pass publishes only while it is
    /// current (a change in another folder's workspace does not stop it).
    pub generation: Arc<std::sync::atomic::AtomicU64>,
}

impl Session {
    /// Loads every script of the workspace at `root` (and the files they import) from disk.
    pub fn load(root: PathBuf, settings: Settings, encoding: Encoding) -> Session {
        Self::load_with(root.clone(), root, settings, encoding, true)
    }

    /// [`Self::load`] for the client's `folder` (whose workspace is at `root`); without `walk`
    /// (no folder named), no script is read until one is opened.
    pub fn load_with(
        folder: PathBuf,
        root: PathBuf,
        settings: Settings,
        encoding: Encoding,
        walk_root: bool,
    ) -> Session {
        let db = AnalysisDb::new(vox_runtime::catalog::Catalog::get());
        Self::load_into(db, folder, root, settings, encoding, walk_root)
    }

    /// [`Self::load`] with a database that logs what each query run executes and checks
    /// (tests count the work of an edit).
    pub fn load_logged(
        root: PathBuf,
        settings: Settings,
        encoding: Encoding,
    ) -> (Session, vox_analysis::EventLog) {
        let (db, log) = AnalysisDb::with_log(vox_runtime::catalog::Catalog::get());
        let s = Self::load_into(db, root.clone(), root, settings, encoding, true);
        (s, log)
    }

    fn load_into(
        mut db: AnalysisDb,
        folder: PathBuf,
        root: PathBuf,
        settings: Settings,
        encoding: Encoding,
        walk_root: bool,
    ) -> Session {
        let config = Arc::new(vox_caps::config::load_workspace(&root));
        let exclude = exclude_override(&root, &config.lint.exclude);
        let mut files = BTreeMap::new();
        let mut todo: Vec<PathBuf> = if walk_root {
            walk(&root, exclude.as_ref())
        } else {
            Vec::new()
        };
        // Imported files outside the walk (as the CLI's loader adds them), found with a plain
        // parse: nothing of the analysis is computed before a file is looked at.
        while let Some(p) = todo.pop() {
            if files.contains_key(&p) {
                continue;
            }
            let Ok(text) = std::fs::read(&p) else {
                continue;
            };
            if text.windows(6).any(|w| w == b"import") {
                let tree = vox_syntax::parse(&text);
                for imp in vox_hir::file_imports(&tree) {
                    let target = vox_analysis::import_path(&p, &imp.path);
                    if !files.contains_key(&target) && target.is_file() {
                        todo.push(target);
                    }
                }
            }
            files.insert(p.clone(), disk_file(&db, p, text));
        }
        let files = Arc::new(files);
        let ws = Workspace::create(&db, root.clone(), files.clone());
        db.set_workspace(ws);
        let info = Arc::new(WorkspaceInfo::new(root.clone(), config.runs.clone()));
        let mut s = Session {
            db,
            ws,
            root,
            folder,
            named: walk_root,
            files,
            docs: HashMap::new(),
            config,
            info,
            opts: LintOptions::default(),
            settings,
            exclude: Arc::new(exclude),
            encoding,
            revision: 0,
            trees: Trees::default(),
            memos: Memos::default(),
            generation: Default::default(),
        };
        s.opts = s.lint_options();
        s
    }

    fn lint_options(&self) -> LintOptions {
        let lint = &self.config.lint;
        LintOptions {
            determinism: self.settings.determinism,
            strict: self.settings.strict,
            select: lint.select.clone(),
            ignore: lint.ignore.clone(),
            severity: lint
                .severity
                .iter()
                .map(|(c, s)| {
                    let sev = if s == "error" {
                        Severity::Error
                    } else {
                        Severity::Warning
                    };
                    (c.clone(), sev)
                })
                .collect(),
            skip_fixes: false,
        }
    }

    pub fn set_settings(&mut self, settings: Settings) {
        self.settings = settings;
        self.opts = self.lint_options();
        self.touch();
    }

    /// Adds imported files that exist on disk but are not in the workspace yet (as the CLI's
    /// loader does), until nothing new is imported.
    fn follow_imports(&mut self, start: &[SourceFile]) {
        let mut todo: Vec<SourceFile> = start.to_vec();
        let mut added = false;
        let mut files = (*self.files).clone();
        while let Some(f) = todo.pop() {
            let targets = vox_analysis::resolve_imports(&self.db, f).targets.clone();
            for t in targets {
                if let ImportTarget::Missing(p) = t {
                    if files.contains_key(&p) {
                        continue;
                    }
                    if let Ok(text) = std::fs::read(&p) {
                        let nf = disk_file(&self.db, p.clone(), text);
                        files.insert(p, nf);
                        todo.push(nf);
                        added = true;
                    }
                }
            }
            if added {
                // Later resolutions must see the files added so far.
                self.files = Arc::new(files.clone());
                self.ws.replace_files(&mut self.db, self.files.clone());
                added = false;
            }
        }
    }

    /// Gives a script its new text (an editor buffer, or the disk after a close). An edited
    /// document's text is of low durability, a file on disk's of medium: typing changes only
    /// low-durability inputs, so salsa checks what reads other files alone at once
    /// (`Durability` in salsa's documentation).
    pub fn set_script_text(&mut self, path: &Path, text: Arc<[u8]>) {
        let durability = self.durability(path);
        let file = match self.files.get(path) {
            // Opening or closing a document whose text is the file's on disk changes nothing
            // (a write of a medium-durability input would make salsa check every memo that
            // reads a file from disk once more; the first edit makes the text low-durability).
            Some(f) if *f.text(&self.db).get() == *text => *f,
            Some(f) => {
                let f = *f;
                f.set_text(&mut self.db)
                    .with_durability(durability)
                    .to(Text::new(text));
                f
            }
            None => {
                let f = SourceFile::builder(path.to_path_buf(), Text::new(text))
                    .durability(durability)
                    .new(&self.db);
                let mut files = (*self.files).clone();
                files.insert(path.to_path_buf(), f);
                self.files = Arc::new(files);
                self.ws.replace_files(&mut self.db, self.files.clone());
                f
            }
        };
        self.follow_imports(&[file]);
        self.touch();
    }

    /// Forgets a script that no longer exists.
    pub fn remove_script(&mut self, path: &Path) {
        if self.files.contains_key(path) {
            let mut files = (*self.files).clone();
            files.remove(path);
            self.files = Arc::new(files);
            self.ws.replace_files(&mut self.db, self.files.clone());
            self.touch();
        }
    }

    fn touch(&mut self) {
        self.revision += 1;
    }

    /// Low for an open document's text, medium for a file read from disk.
    fn durability(&self, path: &Path) -> Durability {
        if self.docs.contains_key(path) {
            Durability::LOW
        } else {
            Durability::MEDIUM
        }
    }

    /// Reads the three configuration files again (open buffers first, else the disk).
    pub fn reload_config(&mut self) {
        let text = |kind: ConfigKind| -> Option<String> {
            let p = config_path(&self.root, kind);
            match self.docs.get(&p) {
                Some(d) => Some(d.rope.to_string()),
                None => std::fs::read(&p)
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into_owned()),
            }
        };
        let (t, k, l) = (
            text(ConfigKind::VoxToml),
            text(ConfigKind::Tasks),
            text(ConfigKind::Launch),
        );
        let config = vox_caps::config::workspace_from_texts(
            &self.root,
            t.as_deref(),
            k.as_deref(),
            l.as_deref(),
        );
        let old_exclude = self.config.lint.exclude.clone();
        self.config = Arc::new(config);
        if self.config.lint.exclude != old_exclude {
            self.exclude = Arc::new(exclude_override(&self.root, &self.config.lint.exclude));
        }
        self.opts = self.lint_options();
        self.info = Arc::new(WorkspaceInfo::new(
            self.root.clone(),
            self.config.runs.clone(),
        ));
        self.touch();
    }

    pub fn open(&mut self, path: PathBuf, uri: Uri, text: String, version: i32) {
        if !self.named && is_script(&path) {
            self.follow_vox_toml(&path);
        }
        let rope = Rope::from_str(&text);
        self.docs.insert(
            path.clone(),
            Doc {
                uri,
                rope,
                version,
                keystrokes: 0,
                shared: None,
            },
        );
        self.after_text_change(&path);
    }

    /// Without a workspace folder: makes the directory of the `Vox.toml` that `vox run` finds
    /// for `script` (its directory, then the parents) the root, so that its run configurations,
    /// `[lint]` table, `config.invalid` and C001/C002 apply as with that folder open.
    fn follow_vox_toml(&mut self, script: &Path) {
        let Some(dir) = script.parent() else { return };
        let Some(toml) = vox_caps::config::find_vox_toml(dir) else {
            return;
        };
        let Some(root) = toml.parent() else { return };
        if root == self.root {
            return;
        }
        self.root = root.to_path_buf();
        self.ws
            .set_root(&mut self.db)
            .with_durability(Durability::MEDIUM)
            .to(self.root.clone());
        self.reload_config();
    }

    /// Applies `changes` in order (a change without a range replaces the whole text).
    pub fn change(
        &mut self,
        path: &Path,
        changes: Vec<TextDocumentContentChangeEvent>,
        version: i32,
    ) -> bool {
        let enc = self.encoding;
        let Some(doc) = self.docs.get_mut(path) else {
            return false;
        };
        // Whether the edit may have changed the imports: it touched a line with `import`.
        let mut imports_may_change = false;
        let touches_import = |rope: &Rope, a: usize, b: usize| {
            let (la, lb) = (rope.byte_to_line(a), rope.byte_to_line(b));
            (la..=lb.min(rope.len_lines().saturating_sub(1)))
                .any(|l| rope.line(l).to_string().contains("import"))
        };
        // The buffer the last change made from the rope: one change of a range is made from
        // it (and noted, for what compares the two versions), not from the rope.
        let last = doc.shared.take();
        let one = changes.len() == 1;
        let mut splice = None;
        for c in changes {
            match c.range {
                None => {
                    doc.rope = Rope::from_str(&c.text);
                    imports_may_change = true;
                }
                Some(r) => {
                    let a = convert::offset(&doc.rope, enc, r.start);
                    let b = convert::offset(&doc.rope, enc, r.end);
                    let (a, b) = (a.min(b), a.max(b));
                    imports_may_change |= touches_import(&doc.rope, a, b);
                    let (ca, cb) = (doc.rope.byte_to_char(a), doc.rope.byte_to_char(b));
                    doc.rope.remove(ca..cb);
                    doc.rope.insert(ca, &c.text);
                    let end = a + c.text.len();
                    imports_may_change |=
                        touches_import(&doc.rope, a, end.min(doc.rope.len_bytes()));
                    splice = Some((a, b, c.text));
                }
            }
        }
        doc.version = version;
        self.mark_edited(path);
        if !imports_may_change && is_script(path) && self.files.contains_key(path) {
            // The common keystroke: only the text input changes; the analysis follows
            // imports when it runs.
            let doc = &self.docs[path];
            let text = match (last, splice.filter(|_| one)) {
                (Some(old), Some((a, b, ins)))
                    if b <= old.len()
                        && old.len() - (b - a) + ins.len() == doc.rope.len_bytes() =>
                {
                    let new = spliced_shared(&old, a, b, ins.as_bytes());
                    // The rope's own bytes, made another way (every LSP test checks it).
                    debug_assert!(*new == *rope_bytes(&doc.rope));
                    vox_syntax::note_edit(&old, &new, a, b, a + ins.len());
                    new
                }
                _ => rope_shared(&doc.rope),
            };
            if let Some(d) = self.docs.get_mut(path) {
                d.shared = Some(text.clone());
            }
            if let Some(f) = self.files.get(path).copied() {
                f.set_text(&mut self.db)
                    .with_durability(Durability::LOW)
                    .to(Text::new(text));
            }
            self.touch();
            if let Some(d) = self.docs.get_mut(path) {
                d.keystrokes += 1;
            }
            return true;
        }
        self.after_text_change(path);
        true
    }

    /// From its first change in the editor on, a script's functions are lowered with their own
    /// scopes ([`SourceFile::edited`]): once, at that change, its functions are lowered again.
    fn mark_edited(&mut self, path: &Path) {
        if let Some(f) = self.files.get(path).copied() {
            if !f.edited(&self.db) {
                f.set_edited(&mut self.db)
                    .with_durability(Durability::LOW)
                    .to(true);
            }
        }
    }

    fn after_text_change(&mut self, path: &Path) {
        if config_kind(&self.root, path).is_some() {
            self.reload_config();
        } else if is_script(path) {
            let text = self
                .docs
                .get(path)
                .map(|d| rope_shared(&d.rope))
                .unwrap_or_default();
            self.set_script_text(path, text);
        }
    }

    pub fn close(&mut self, path: &Path) {
        if self.docs.remove(path).is_none() {
            return;
        }
        lock(&self.memos).retain(|(p, _), _| p != path);
        lock(&self.trees).retain(|(p, _, _)| p != path);
        if config_kind(&self.root, path).is_some() {
            self.reload_config();
        } else if is_script(path) {
            match std::fs::read(path) {
                Ok(text) => self.set_script_text(path, Arc::from(text)),
                Err(_) => self.remove_script(path),
            }
        }
    }

    /// A file changed on disk (a watcher event): read it again unless it is open.
    pub fn disk_changed(&mut self, path: &Path, deleted: bool) {
        if self.docs.contains_key(path) {
            return;
        }
        if config_kind(&self.root, path).is_some() {
            self.reload_config();
        } else if is_script(path) {
            if deleted {
                self.remove_script(path);
            } else if let Ok(text) = std::fs::read(path) {
                let same = self
                    .files
                    .get(path)
                    .is_some_and(|f| *f.text(&self.db).get() == *text);
                if !same {
                    self.set_script_text(path, Arc::from(text));
                }
            }
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            db: self.db.clone(),
            root: self.root.clone(),
            files: self.files.clone(),
            docs: Arc::new(self.docs.clone()),
            config: self.config.clone(),
            info: self.info.clone(),
            opts: self.opts.clone(),
            settings: self.settings.clone(),
            exclude: self.exclude.clone(),
            encoding: self.encoding,
            revision: self.revision,
            cancel: Default::default(),
            trees: self.trees.clone(),
            memos: self.memos.clone(),
            generation: self.generation.clone(),
        }
    }
}

/// A workspace file read from disk: medium durability (see [`Session::set_script_text`]).
fn disk_file(db: &AnalysisDb, path: PathBuf, text: Vec<u8>) -> SourceFile {
    SourceFile::builder(path, Text::new(Arc::from(text)))
        .durability(Durability::MEDIUM)
        .new(db)
}
