//! The server's state: the workspace's files in the analysis database, the open documents
//! (ropes), the run configurations read through the one resolver (unsaved buffers included), and
//! the lint options. Notifications change it under a lock and do no I/O beyond reading files
//! that are not open; every other request works on a [`Snapshot`] (a database handle and
//! immutable copies), so a newer edit cancels it without waiting for the lock.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ropey::Rope;
use salsa::Setter;
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};
use vox_analysis::{AnalysisDb, ImportTarget, SourceFile, Text, Workspace};
use vox_caps::config::{ConfigKind, WorkspaceConfig};
use vox_lints::{Finding, LintOptions, Severity, WorkspaceInfo};

use crate::base::lock;
use crate::convert::{self, Encoding};

/// One open document.
#[derive(Clone)]
pub struct Doc {
    pub uri: Uri,
    pub rope: Rope,
    pub version: i32,
    /// Changes that set only this script's text (counted in [`Session::revision`] too): what
    /// [`Snapshot::stamp`] leaves out.
    pub keystrokes: u64,
}

/// Settings the client gives (initialization options or `workspace/didChangeConfiguration`).
#[derive(Clone, Debug)]
pub struct Settings {
    /// `vox.lint.determinism`: every D rule at error severity.
    pub determinism: bool,
    /// `vox.lint.strict`: the I rules too.
    pub strict: bool,
    /// `vox.inlayHints.capabilities`: the capability a gated call consumes.
    pub inlay_caps: bool,
    /// `vox.inlayHints.parameterNames`.
    pub inlay_params: bool,
    /// `vox.inlayHints.inferredTypes`: the inferred kind of a `let` without annotation (off by
    /// default).
    pub inlay_types: bool,
    /// Ceilings for runs without a run configuration (`vox.run.maxSteps` …), as flag/value.
    pub run_ceilings: Vec<(String, String)>,
}

impl Settings {
    pub fn defaults() -> Settings {
        Settings {
            determinism: false,
            strict: false,
            inlay_caps: true,
            inlay_params: true,
            inlay_types: false,
            run_ceilings: Vec::new(),
        }
    }

    /// Reads `{"lint": {...}, "inlayHints": {...}, "run": {...}}`, optionally under `"vox"`.
    pub fn update(&mut self, v: &serde_json::Value) {
        let v = v.get("vox").unwrap_or(v);
        let flag = |path: &[&str]| {
            let mut cur = v;
            for p in path {
                cur = cur.get(*p)?;
            }
            cur.as_bool()
        };
        if let Some(b) = flag(&["lint", "determinism"]) {
            self.determinism = b;
        }
        if let Some(b) = flag(&["lint", "strict"]) {
            self.strict = b;
        }
        if let Some(b) = flag(&["inlayHints", "capabilities"]) {
            self.inlay_caps = b;
        }
        if let Some(b) = flag(&["inlayHints", "parameterNames"]) {
            self.inlay_params = b;
        }
        if let Some(b) = flag(&["inlayHints", "inferredTypes"]) {
            self.inlay_types = b;
        }
        if let Some(run) = v.get("run").and_then(|r| r.as_object()) {
            let mut out = Vec::new();
            for (key, flag) in [
                ("maxSteps", "max-steps"),
                ("maxDepth", "max-depth"),
                ("maxMemory", "max-memory"),
                ("maxOutput", "max-output"),
                ("timeout", "timeout"),
            ] {
                match run.get(key) {
                    Some(serde_json::Value::String(s)) if !s.is_empty() => {
                        out.push((flag.to_string(), s.clone()))
                    }
                    Some(serde_json::Value::Number(n)) => {
                        out.push((flag.to_string(), n.to_string()))
                    }
                    _ => {}
                }
            }
            self.run_ceilings = out;
        }
    }
}

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

/// Which configuration file a path is, if any.
pub fn config_kind(root: &Path, path: &Path) -> Option<ConfigKind> {
    if path == root.join("Vox.toml") {
        Some(ConfigKind::VoxToml)
    } else if path == root.join(".vscode").join("tasks.json") {
        Some(ConfigKind::Tasks)
    } else if path == root.join(".vscode").join("launch.json") {
        Some(ConfigKind::Launch)
    } else {
        None
    }
}

pub fn config_path(root: &Path, kind: ConfigKind) -> PathBuf {
    match kind {
        ConfigKind::VoxToml => root.join("Vox.toml"),
        ConfigKind::Tasks => root.join(".vscode").join("tasks.json"),
        ConfigKind::Launch => root.join(".vscode").join("launch.json"),
    }
}

pub fn is_script(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "vox")
}

/// Lexically clean absolute path.
pub fn clean(p: &Path) -> PathBuf {
    vox_analysis::clean_path(p)
}

/// The path of a `file:` URI, lexically clean.
pub(crate) fn path_of(uri: &Uri) -> Option<PathBuf> {
    let p = uri.to_file_path()?;
    if !p.is_absolute() {
        return None;
    }
    Some(clean(&p))
}

/// The workspace root for a folder the client names: the nearest directory above it holding
/// `Vox.toml` (as `vox lint` finds it), else the folder itself.
pub fn find_root(folder: &Path) -> PathBuf {
    match vox_caps::config::find_vox_toml(folder) {
        Some(t) => t.parent().map_or(folder.to_path_buf(), Path::to_path_buf),
        None => folder.to_path_buf(),
    }
}

/// Every `*.vox` under `root`, honouring `.gitignore` and `[lint] exclude` (as `vox lint .`).
pub fn walk(root: &Path, exclude: Option<&ignore::overrides::Override>) -> Vec<PathBuf> {
    let mut builder = ignore::WalkBuilder::new(root);
    builder.require_git(false).hidden(true);
    if let Some(o) = exclude {
        builder.overrides(o.clone());
    }
    let mut out = Vec::new();
    for entry in builder.build().flatten() {
        let path = entry.path();
        if entry.file_type().is_some_and(|t| t.is_file()) && is_script(path) {
            out.push(clean(path));
        }
    }
    out.sort();
    out.dedup();
    out
}

fn exclude_override(root: &Path, patterns: &[String]) -> Option<ignore::overrides::Override> {
    if patterns.is_empty() {
        return None;
    }
    let mut b = ignore::overrides::OverrideBuilder::new(root);
    for p in patterns {
        b.add(&format!("!{p}")).ok()?;
    }
    b.build().ok()
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
        let catalog: &'static (dyn vox_hir::BuiltinCatalog + Sync) =
            vox_runtime::catalog::Catalog::get();
        let mut db = AnalysisDb::new(catalog);
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
            files.insert(
                p.clone(),
                SourceFile::new(&db, p, Text::new(Arc::from(text))),
            );
        }
        let files = Arc::new(files);
        let ws = Workspace::new(&db, root.clone(), files.clone());
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
                        let nf = SourceFile::new(&self.db, p.clone(), Text::new(Arc::from(text)));
                        files.insert(p, nf);
                        todo.push(nf);
                        added = true;
                    }
                }
            }
            if added {
                // Later resolutions must see the files added so far.
                self.files = Arc::new(files.clone());
                self.ws.set_files(&mut self.db).to(self.files.clone());
                added = false;
            }
        }
    }

    /// Gives a script its new text (an editor buffer, or the disk after a close).
    pub fn set_script_text(&mut self, path: &Path, text: Vec<u8>) {
        let file = match self.files.get(path) {
            Some(f) => {
                let f = *f;
                f.set_text(&mut self.db).to(Text::new(Arc::from(text)));
                f
            }
            None => {
                let f = SourceFile::new(&self.db, path.to_path_buf(), Text::new(Arc::from(text)));
                let mut files = (*self.files).clone();
                files.insert(path.to_path_buf(), f);
                self.files = Arc::new(files);
                self.ws.set_files(&mut self.db).to(self.files.clone());
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
            self.ws.set_files(&mut self.db).to(self.files.clone());
            self.touch();
        }
    }

    fn touch(&mut self) {
        self.revision += 1;
        // The D005 cache of the workspace's path literals belongs to one revision.
        self.info = Arc::new(WorkspaceInfo::new(
            self.root.clone(),
            self.config.runs.clone(),
        ));
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
        self.ws.set_root(&mut self.db).to(self.root.clone());
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
                }
            }
        }
        doc.version = version;
        if !imports_may_change && is_script(path) && self.files.contains_key(path) {
            // The common keystroke: only the text input changes; the analysis follows
            // imports when it runs.
            let text = rope_bytes(&self.docs[path].rope);
            if let Some(f) = self.files.get(path).copied() {
                f.set_text(&mut self.db).to(Text::new(Arc::from(text)));
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

    fn after_text_change(&mut self, path: &Path) {
        if config_kind(&self.root, path).is_some() {
            self.reload_config();
        } else if is_script(path) {
            let text = self
                .docs
                .get(path)
                .map(|d| rope_bytes(&d.rope))
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
                Ok(text) => self.set_script_text(path, text),
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
                    self.set_script_text(path, text);
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

/// The workspaces of the client's folders, held as rust-analyzer holds them: each folder is a
/// workspace of its own (its root, configuration and analysis database), so that a script is
/// analysed, fixed and run with its own folder's `Vox.toml`, as `vox lint` run there does.
/// With one folder (the common case) every lookup is the first workspace, with no search.
pub struct Workspaces {
    /// Never empty; the first also serves documents in no folder.
    pub list: Vec<Session>,
}

impl Workspaces {
    pub fn new(first: Session) -> Workspaces {
        Workspaces { list: vec![first] }
    }

    /// The workspace `path` belongs to: the innermost folder the client named that contains
    /// it; else the innermost workspace root that does (a `Vox.toml` above its folder); else the
    /// first.
    pub fn index_for(&self, path: &Path) -> usize {
        if self.list.len() == 1 {
            return 0;
        }
        let innermost = |key: fn(&Session) -> &Path| {
            self.list
                .iter()
                .enumerate()
                .filter(|(_, s)| s.named && path.starts_with(key(s)))
                .max_by_key(|(_, s)| key(s).components().count())
                .map(|(i, _)| i)
        };
        innermost(|s| s.folder.as_path())
            .or_else(|| innermost(|s| s.root.as_path()))
            .unwrap_or(0)
    }

    pub fn for_path(&self, path: &Path) -> &Session {
        &self.list[self.index_for(path)]
    }

    pub fn for_path_mut(&mut self, path: &Path) -> &mut Session {
        let i = self.index_for(path);
        &mut self.list[i]
    }

    pub fn first(&self) -> &Session {
        &self.list[0]
    }

    /// Whether the client's folder `folder` has its workspace already.
    pub fn has_folder(&self, folder: &Path) -> bool {
        self.list.iter().any(|s| s.named && s.folder == folder)
    }

    /// Adds the workspace of a folder; the open documents that now belong to it move to it.
    pub fn add(&mut self, session: Session) {
        self.list.push(session);
        let new = self.list.len() - 1;
        let mut moving: Vec<(PathBuf, Doc)> = Vec::new();
        for i in 0..new {
            let paths: Vec<PathBuf> = self.list[i]
                .docs
                .keys()
                .filter(|p| self.index_for(p) == new)
                .cloned()
                .collect();
            for p in paths {
                if let Some(d) = self.list[i].docs.get(&p).cloned() {
                    self.list[i].close(&p);
                    moving.push((p, d));
                }
            }
        }
        for (p, d) in moving {
            self.reopen(p, d);
        }
    }

    /// Opens a document moved from another workspace in the one it belongs to now.
    fn reopen(&mut self, path: PathBuf, d: Doc) {
        let text = d.rope.to_string();
        self.for_path_mut(&path).open(path, d.uri, text, d.version);
    }

    /// Removes the workspace of the client's folder `folder`: it is no longer analysed. Its
    /// open documents move to the workspace of another folder containing them, if any; the
    /// others are forgotten. Returns the files whose diagnostics came from it and no longer
    /// will (its open documents that did not move, its configuration files), or `None` if no
    /// workspace has that folder. The last folder removed leaves a workspace of no folder, as
    /// when the client names none.
    pub fn remove(&mut self, folder: &Path) -> Option<Vec<PathBuf>> {
        let i = self
            .list
            .iter()
            .position(|s| s.named && s.folder == folder)?;
        let gone = self.list.remove(i);
        if self.list.is_empty() {
            let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
            self.list.push(Session::load_with(
                cwd.clone(),
                cwd,
                gone.settings.clone(),
                gone.encoding,
                false,
            ));
        }
        let mut cleared: Vec<PathBuf> =
            [ConfigKind::VoxToml, ConfigKind::Tasks, ConfigKind::Launch]
                .iter()
                .map(|k| config_path(&gone.root, *k))
                .collect();
        for (p, d) in gone.docs {
            let moves = self
                .list
                .iter()
                .any(|s| s.named && p.starts_with(&s.folder));
            if moves {
                self.reopen(p, d);
            } else {
                cleared.push(p);
            }
        }
        // Another folder's workspace may have the same root (a folder inside another).
        cleared.retain(|p| {
            !self
                .list
                .iter()
                .any(|s| s.named && config_kind(&s.root, p).is_some())
        });
        cleared.sort();
        cleared.dedup();
        Some(cleared)
    }
}

/// The inferred tokens of a script for a run from `cwd`.
pub fn inferred_tokens(snap: &Snapshot, path: &Path, cwd: &Path) -> Option<vox_analysis::Tokens> {
    let file = snap.file(path)?;
    if vox_analysis::parse(&snap.db, file).has_errors() {
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
        let mut edges: Vec<(PathBuf, PathBuf)> = Vec::new();
        for (p, f) in self.files.iter() {
            for t in &vox_analysis::resolve_imports(db, *f).targets {
                if let ImportTarget::File(g) = t {
                    edges.push((p.clone(), g.path(db).clone()));
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        let mut todo = vec![path.to_path_buf()];
        while let Some(p) = todo.pop() {
            for (a, b) in &edges {
                let next = if *a == p {
                    b
                } else if *b == p {
                    a
                } else {
                    continue;
                };
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
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
    ) -> Vec<Arc<Finding>> {
        let key = (path.to_path_buf(), opts.skip_fixes);
        let mut memo = lock(&self.memos).remove(&key);
        let found = vox_lints::lint_file_memo(&self.db, file, &self.info, opts, &mut memo, stamp);
        if let Some(m) = memo {
            lock(&self.memos).insert(key, m);
        }
        found
    }

    /// The findings scripts report on their run configuration entries in `path` (a Vox.toml,
    /// tasks.json or launch.json): C001 and C002 (decision 39).
    pub fn config_findings(&self, path: &Path) -> Vec<Finding> {
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
                vox_lints::lint_file(&self.db, file, &self.info, &self.opts)
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
    }

    /// As [`Self::findings`] without their fixes: what published diagnostics show (code actions,
    /// hovers and proofs ask [`Self::findings`]).
    pub fn shown_findings(&self, path: &Path) -> Vec<Arc<Finding>> {
        let opts = LintOptions {
            skip_fixes: true,
            ..self.opts.clone()
        };
        self.findings_with(path, &opts)
    }

    /// Shared with the file's lint memo: the findings of functions an edit did not touch are the
    /// memo's, not copies.
    fn findings_with(&self, path: &Path, opts: &LintOptions) -> Vec<Arc<Finding>> {
        let Some(file) = self.file(path) else {
            return Vec::new();
        };
        if self.excluded(path) {
            return Vec::new();
        }
        let db = &self.db;
        // Reverse import edges, followed from `file`.
        let mut importers: BTreeMap<PathBuf, SourceFile> = BTreeMap::new();
        importers.insert(path.to_path_buf(), file);
        let mut frontier = vec![file];
        let all: Vec<(PathBuf, SourceFile)> =
            self.files.iter().map(|(p, f)| (p.clone(), *f)).collect();
        let mut edges: Vec<(SourceFile, Vec<SourceFile>)> = Vec::new();
        for (_, f) in &all {
            let targets: Vec<SourceFile> = vox_analysis::resolve_imports(db, *f)
                .targets
                .iter()
                .filter_map(|t| match t {
                    ImportTarget::File(g) => Some(*g),
                    ImportTarget::Missing(_) => None,
                })
                .collect();
            if !targets.is_empty() {
                edges.push((*f, targets));
            }
        }
        while let Some(g) = frontier.pop() {
            for (f, targets) in &edges {
                if targets.contains(&g) {
                    let p = f.path(db).clone();
                    if !importers.contains_key(&p) && !self.excluded(&p) {
                        importers.insert(p, *f);
                        frontier.push(*f);
                    }
                }
            }
        }
        let mut out = Vec::new();
        for z in importers.values() {
            match self.stamp(path).filter(|_| *z == file) {
                Some(stamp) => out.extend(
                    self.lint_with_memo(path, file, opts, stamp)
                        .into_iter()
                        .filter(|f| f.file == path),
                ),
                None => out.extend(
                    vox_lints::lint_file(db, *z, &self.info, opts)
                        .into_iter()
                        .filter(|f| f.file == path)
                        .map(Arc::new),
                ),
            }
        }
        Finding::sort_unique(&mut out);
        out
    }
}
