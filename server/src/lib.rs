//! The VoxScript language server (`vox lsp`, editors.md §2): tower-lsp-server glue over the
//! analysis database and the rules. Thin: documents are ropes, the analysis is
//! `vox_analysis`/`vox_lints` as the CLI uses it, and runs spawn `vox run` (this executable).
//!
//! Lifecycle: `initialize` loads the workspace (every script under the root, the files they
//! import, the three configuration files through `vox_caps::config`); `initialized` registers
//! file watchers; document notifications change the [`session::Session`] under a lock (the
//! database write cancels analyses still running on older handles) and schedule diagnostics;
//! every request runs on a [`session::Snapshot`] on a blocking thread, inside `catch_unwind`, so
//! a bug answers an error for that request only and a cancelled query answers `ContentModified`.

mod actions;
mod base;
mod convert;
mod diagnostics;
mod handlers;
mod ide;
mod prove;
pub mod render;
mod runs;
pub mod session;
mod transport;
pub mod work;

pub use convert::Encoding;
pub use diagnostics::to_diagnostics;
pub use transport::check_message;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService};

use base::{internal, invalid_params, lock, panic_message};
use session::{path_of, Session, Settings, Snapshot};

/// What the client said it can do (set once in `initialize`).
#[derive(Clone, Debug, Default)]
pub struct ClientCaps {
    /// `textDocument.diagnostic`: serve pull diagnostics only (decision 40).
    pub pull: bool,
    pub diagnostic_refresh: bool,
    pub document_changes: bool,
    pub create_files: bool,
    pub change_annotations: bool,
    pub show_document: bool,
    /// `experimental.vox.showCaps: "client"`: the client presents `vox.showCaps`'s result
    /// itself (the VS Code extension, the Neovim plugin); no `window/showMessage` repeats it.
    pub presents_caps: bool,
    pub work_done_progress: bool,
    pub watch_dynamic: bool,
    pub code_lens_refresh: bool,
    pub semantic_tokens_refresh: bool,
    pub inlay_hint_refresh: bool,
    pub hierarchical_symbols: bool,
    pub snippet_edits: bool,
    /// `codeActionLiteralSupport` and `resolveSupport` naming `edit`: code actions are sent
    /// without their edit, which `codeAction/resolve` computes.
    pub code_action_resolve: bool,
    /// `codeActionLiteralSupport`: without it, code actions are sent as `Command`s
    /// ([`runs::as_command`]), and `codeActionProvider` is `true`, not options (LSP 3.17).
    pub code_action_literals: bool,
    /// `textDocument.codeAction.isPreferredSupport`: code actions may say `isPreferred`.
    pub is_preferred: bool,
    /// `textDocument.rename.prepareSupport`: `renameProvider` may be options
    /// (`prepareProvider`); without it, `true` (LSP 3.17).
    pub prepare_rename: bool,
    /// `textDocument.completion.completionItem.snippetSupport`: completion may insert call
    /// snippets (`name(${1:a})`).
    pub snippet_completion: bool,
    /// `textDocument.hover.contentFormat` names formats without markdown: hovers are sent as
    /// plain text.
    pub plaintext_hover: bool,
    /// `completionItem.documentationFormat` likewise, for completion documentation.
    pub plaintext_docs: bool,
}

/// State shared by the handlers.
pub struct Shared {
    /// The workspace of each folder the client named ([`session::Workspaces`]).
    session: Mutex<Option<session::Workspaces>>,
    caps: OnceLock<ClientCaps>,
    /// Diagnostics of the last run of each script (decision 41), with what their fixes need.
    run_diags: Mutex<HashMap<PathBuf, Vec<runs::RunDiagnostic>>>,
    /// What was last published per file (push mode), as JSON, to publish only changes.
    published: Mutex<HashMap<PathBuf, Arc<Vec<Arc<str>>>>>,
    /// Each open script's diagnostics as JSON templates, kept between publishes
    /// ([`render`]).
    rendered: Mutex<HashMap<PathBuf, render::RenderCache>>,
    /// The writer of the stdio edge: publishes are written there directly, as JSON put
    /// together from [`render`]'s pieces (in process, without it, they go through the client).
    direct: OnceLock<tokio::sync::mpsc::UnboundedSender<Vec<u8>>>,
    /// Requests the stdio edge answers itself (by their id's JSON), with their cancel flags.
    direct_requests: Mutex<HashMap<String, work::CancelFlag>>,
    runs: runs::Runs,
    shutdown: AtomicBool,
    /// Orders document changes before the requests that follow them: a notification that
    /// changes the session takes it for writing, a request for reading while it snapshots
    /// (tokio's lock is fair, and handlers take it on their first poll, in arrival order).
    order: tokio::sync::RwLock<()>,
    /// Semantic tokens last sent per document, for deltas.
    semantic: Mutex<HashMap<PathBuf, (String, Vec<SemanticToken>)>>,
    /// The inferred capabilities last seen per open script (as text), to ask the client for
    /// new code lenses, inlay hints and semantic tokens when another file's change alters them.
    caps_seen: Mutex<HashMap<PathBuf, String>>,
}

pub struct Backend {
    client: Client,
    shared: Arc<Shared>,
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        Backend {
            client,
            shared: Arc::new(Shared {
                session: Mutex::new(None),
                caps: OnceLock::new(),
                run_diags: Mutex::new(HashMap::new()),
                published: Mutex::new(HashMap::new()),
                rendered: Mutex::new(HashMap::new()),
                direct: OnceLock::new(),
                direct_requests: Mutex::new(HashMap::new()),
                runs: runs::Runs::default(),
                shutdown: AtomicBool::new(false),
                semantic: Mutex::new(HashMap::new()),
                caps_seen: Mutex::new(HashMap::new()),
                order: tokio::sync::RwLock::new(()),
            }),
        }
    }

    pub(crate) fn caps(&self) -> ClientCaps {
        self.shared.caps.get().cloned().unwrap_or_default()
    }

    /// Runs `f` on the session under the lock, on a thread allowed to block (a database write
    /// waits for older handles to unwind). A panic is contained.
    async fn mutate<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut session::Workspaces) -> T + Send + 'static,
    ) -> Option<T> {
        let _order = self.shared.order.write().await;
        let shared = self.shared.clone();
        let r = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                let mut guard = lock(&shared.session);
                guard.as_mut().map(f)
            }))
        })
        .await;
        match r {
            Ok(Ok(v)) => v,
            Ok(Err(p)) => {
                self.log_error(format!(
                    "internal error while updating the workspace: {}",
                    panic_message(&*p)
                ))
                .await;
                None
            }
            Err(_) => None,
        }
    }

    /// Whether `path` is a configuration file of the workspace it belongs to.
    fn is_config(&self, path: &Path) -> bool {
        lock(&self.shared.session)
            .as_ref()
            .is_some_and(|w| session::config_kind(&w.for_path(path).root, path).is_some())
    }

    /// A snapshot of the workspace `path` belongs to (the first without a path).
    fn snapshot_at(&self, path: Option<&Path>) -> Result<Snapshot> {
        let guard = lock(&self.shared.session);
        match guard.as_ref() {
            Some(w) => Ok(match path {
                Some(p) => w.for_path(p).snapshot(),
                None => w.first().snapshot(),
            }),
            None => Err(Error {
                code: ErrorCode::ServerError(-32002),
                message: "the server is not initialized".into(),
                data: None,
            }),
        }
    }

    /// Runs a request on a snapshot, on a blocking thread: a salsa cancellation answers
    /// `ContentModified`, a panic an internal error (for this request only).
    /// The snapshot is of the workspace the file `at` belongs to.
    pub(crate) async fn on_snapshot<T: Send + 'static>(
        &self,
        what: &'static str,
        at: Option<PathBuf>,
        f: impl FnOnce(&Snapshot) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.on_snapshot_with(what, at, None, f).await
    }

    /// Parses an open document for a request that reads its whole tree, before the request
    /// takes a snapshot and with no database handle held ([`session::Trees`]).
    async fn pretree(&self, uri: &Uri) {
        let Some(path) = path_of(uri).filter(|p| session::is_script(p)) else {
            return;
        };
        let (text, trees) = {
            let _order = self.shared.order.read().await;
            let guard = lock(&self.shared.session);
            let Some(w) = guard.as_ref() else { return };
            let s = w.for_path(&path);
            let Some(d) = s.docs.get(&path) else { return };
            // Small files parse in no time inside the request.
            if d.rope.len_bytes() < (256 << 10) {
                return;
            }
            let text: Arc<[u8]> = match s.files.get(&path) {
                Some(f) => f.text(&s.db).get(),
                None => return,
            };
            (text, s.trees.clone())
        };
        if lock(&trees)
            .iter()
            .any(|(p, t, _)| *p == path && Arc::ptr_eq(t, &text))
        {
            return;
        }
        let _ = tokio::task::spawn_blocking(move || {
            let r = std::panic::catch_unwind(AssertUnwindSafe(|| vox_syntax::parse(&text)));
            if let Ok(tree) = r {
                let mut trees = lock(&trees);
                trees.retain(|(p, _, _)| *p != path);
                if trees.len() >= session::KEPT_TREES {
                    trees.remove(0);
                }
                trees.push((path, text, Arc::new(tree)));
            }
        })
        .await;
    }

    /// [`Self::on_snapshot`], stopped by `cancel` too (a request the stdio edge answers itself).
    async fn on_snapshot_with<T: Send + 'static>(
        &self,
        what: &'static str,
        at: Option<PathBuf>,
        cancel: Option<work::CancelFlag>,
        f: impl FnOnce(&Snapshot) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        if cancel.as_ref().is_some_and(|c| c.load(Ordering::SeqCst)) {
            return Err(Error::request_cancelled());
        }
        let mut snap = {
            let _order = self.shared.order.read().await;
            self.snapshot_at(at.as_deref())?
        };
        if let Some(c) = cancel {
            snap.cancel = c;
        }
        // `$/cancelRequest` drops this future: the guard raises the flag the work checks.
        let guard = work::CancelOnDrop::new(snap.cancel.clone());
        let r = tokio::task::spawn_blocking(move || {
            work::take();
            let r = std::panic::catch_unwind(AssertUnwindSafe(|| f(&snap)));
            drop(snap);
            let outcome = match &r {
                Ok(_) => work::Outcome::Completed,
                Err(p) if p.is::<work::Stopped>() => work::Outcome::Stopped,
                Err(p) if p.is::<salsa::Cancelled>() => work::Outcome::ContentModified,
                Err(_) => work::Outcome::Failed,
            };
            work::record(what, work::take(), outcome);
            r
        })
        .await;
        guard.disarm();
        match r {
            Ok(Ok(v)) => v,
            Ok(Err(p)) => {
                if p.is::<salsa::Cancelled>() {
                    Err(Error::content_modified())
                } else if p.is::<work::Stopped>() {
                    Err(Error::request_cancelled())
                } else {
                    let msg = format!("{what} failed: {}", panic_message(&*p));
                    self.log_error(msg.clone()).await;
                    Err(internal(msg))
                }
            }
            Err(e) => Err(internal(format!("{what} failed: {e}"))),
        }
    }

    async fn log_error(&self, msg: String) {
        self.client.log_message(MessageType::ERROR, msg).await;
    }

    /// Recomputes diagnostics after a change: the changed file first, then every other open
    /// script (their findings may depend on it). Push mode publishes; pull mode asks the client
    /// to pull again. Configuration files are always pushed (clients only pull documents of
    /// their own language).
    pub(crate) fn schedule_diagnostics(&self, first: Option<PathBuf>) {
        self.schedule_diagnostics_from(first, None);
    }

    /// As [`Self::schedule_diagnostics`]; with `VOX_LSP_TIMING` set, prints on stderr how long
    /// it took from `since` (a `didChange` arriving) to publishing the changed file.
    /// A file's change is analysed in its own workspace only (each folder's workspace has its
    /// own database); a change of no one file, in every workspace.
    fn schedule_diagnostics_from(&self, first: Option<PathBuf>, since: Option<std::time::Instant>) {
        let snaps: Vec<Snapshot> = {
            let guard = lock(&self.shared.session);
            let Some(w) = guard.as_ref() else { return };
            match &first {
                Some(p) => vec![w.for_path(p).snapshot()],
                None => w.list.iter().map(Session::snapshot).collect(),
            }
        };
        for snap in snaps {
            self.diagnostics_pass(snap, first.clone(), since);
        }
    }

    /// One workspace's diagnostics pass: its configuration files, then (push mode) its open
    /// scripts, `first` first.
    fn diagnostics_pass(
        &self,
        snap: Snapshot,
        first: Option<PathBuf>,
        since: Option<std::time::Instant>,
    ) {
        let generation = snap.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let current = snap.generation.clone();
        // Opening a file: its functions' facts are computed on every core first.
        let warm = since.is_some()
            && first
                .as_ref()
                .is_some_and(|p| lock(&self.shared.rendered).get(p).is_none());
        let caps = self.caps();
        let refresh =
            caps.code_lens_refresh || caps.inlay_hint_refresh || caps.semantic_tokens_refresh;
        let shared = self.shared.clone();
        let client = self.client.clone();
        tokio::spawn(async move {
            let pull = caps.pull;
            let s2 = snap;
            let shared2 = shared.clone();
            let current2 = current.clone();
            let timed_path = first.clone();
            // The results come back through `done` so that the analysis thread can free what the
            // renders let go of while they are published: on the thread that allocated it, which
            // keeps the allocator's free lists local (freed elsewhere, the next edit's allocations
            // took its slow path: 13% of the rules' time).
            let (done, results) = tokio::sync::oneshot::channel();
            let _analysis = tokio::task::spawn_blocking(move || {
                let started = since.map(|t| t.elapsed());
                let mut out: Vec<(PathBuf, Option<i32>, Vec<Arc<str>>)> = Vec::new();
                let mut spent = Vec::new();
                // Configuration files.
                for kind in [
                    vox_caps::config::ConfigKind::VoxToml,
                    vox_caps::config::ConfigKind::Tasks,
                    vox_caps::config::ConfigKind::Launch,
                ] {
                    let p = session::config_path(&s2.root, kind);
                    let d = diagnostics::config_diagnostics(&s2, &p)
                        .iter()
                        .filter_map(|d| serde_json::to_string(d).ok())
                        .map(Arc::from)
                        .collect();
                    out.push((p.clone(), s2.docs.get(&p).map(|d| d.version), d));
                }
                if let (Some(started), Some(t), true) = (started, since, timing()) {
                    eprintln!(
                        "vox-lsp-timing: analysis started {:.3} ms, configuration files done {:.3} ms after the change",
                        started.as_secs_f64() * 1e3,
                        t.elapsed().as_secs_f64() * 1e3
                    );
                }
                if !pull {
                    let mut scripts: Vec<PathBuf> = s2
                        .docs
                        .keys()
                        .filter(|p| session::is_script(p))
                        .cloned()
                        .collect();
                    scripts.sort();
                    if let Some(f) = &first {
                        if let Some(i) = scripts.iter().position(|p| p == f) {
                            let p = scripts.remove(i);
                            scripts.insert(0, p);
                        }
                        // With many open scripts, only those related to the changed one by
                        // imports are analysed again (a workspace-wide D005 collision in an
                        // unrelated open file is refreshed on its own next change).
                        if scripts.len() > MAX_OPEN_RELINT {
                            let related = s2.related(f);
                            scripts.retain(|p| p == f || related.contains(p));
                        }
                    }
                    if warm {
                        if let Some(file) = first.as_ref().and_then(|f| s2.file(f)) {
                            let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
                                warm_facts(&s2.db, file)
                            }));
                        }
                    }
                    for p in scripts {
                        if current2.load(Ordering::SeqCst) != generation {
                            break;
                        }
                        let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            file_rendered(&s2, &shared2, &p)
                        }));
                        match r {
                            Ok((d, gone)) => {
                                out.push((p.clone(), s2.docs.get(&p).map(|d| d.version), d));
                                spent.push(gone);
                            }
                            Err(_) => break,
                        }
                    }
                }
                // Kept for the capability check, which runs after publishing: diagnostics never
                // wait for it.
                let _ = done.send((out, refresh.then_some(s2)));
                drop(spent);
            });
            let Ok((computed, kept)) = results.await else {
                return;
            };
            for (path, version, diags) in computed {
                if current.load(Ordering::SeqCst) != generation {
                    return;
                }
                let timed = since.filter(|_| timed_path.as_deref() == Some(path.as_path()));
                let n = diags.len();
                let force = timed_path.as_deref() == Some(path.as_path());
                let tp = std::time::Instant::now();
                publish(&client, &shared, &path, version, diags, force).await;
                // Both measured when the publish was handed to the writer, before printing.
                let (publish_ms, total_ms) = (
                    tp.elapsed().as_secs_f64() * 1e3,
                    timed.map(|t| t.elapsed().as_secs_f64() * 1e3),
                );
                if let Some(total) = total_ms.filter(|_| timing()) {
                    eprintln!("vox-lsp-timing: publish {publish_ms:.3} ms");
                    eprintln!(
                        "vox-lsp-timing: change-to-publish {total:.3} ms ({n} diagnostics, version {})",
                        version.unwrap_or(0)
                    );
                }
            }
            if pull && caps.diagnostic_refresh {
                let c = client.clone();
                tokio::spawn(async move {
                    let _ = c.workspace_diagnostic_refresh().await;
                });
            }
            if let Some(s2) = kept {
                if current.load(Ordering::SeqCst) != generation {
                    return;
                }
                let changed = timed_path.clone();
                let shared3 = shared.clone();
                let caps_changed = tokio::task::spawn_blocking(move || {
                    std::panic::catch_unwind(AssertUnwindSafe(|| {
                        caps_changed(&s2, &shared3, changed.as_deref())
                    }))
                    .unwrap_or(false)
                })
                .await
                .unwrap_or(false);
                if caps_changed {
                    refresh_views(&client, &caps);
                }
            }
        });
    }

    /// Asks the client to request code lenses again (the inferred caps or the run
    /// configurations changed).
    fn refresh_lenses(&self) {
        if self.caps().code_lens_refresh {
            let c = self.client.clone();
            tokio::spawn(async move {
                let _ = c.code_lens_refresh().await;
            });
        }
    }

    /// Re-publishes (push) or asks for a pull, after run diagnostics of `path` changed.
    pub(crate) fn refresh_file(&self, path: PathBuf) {
        self.schedule_diagnostics(Some(path));
    }
}

/// Whether the inferred capabilities of an open script other than `changed` differ from those
/// last seen (a change in a file it imports); records what it sees. Only the open scripts
/// related to `changed` by imports are looked at (all of them after a change of no one file).
/// A script with nothing recorded counts as changed: the check that would have recorded it can
/// be cut short by an edit (a cancelled snapshot), and then what the client shows is unknown.
fn caps_changed(snap: &Snapshot, shared: &Shared, changed: Option<&Path>) -> bool {
    let related = changed.map(|c| snap.related(c));
    let mut scripts: Vec<&PathBuf> = snap
        .docs
        .keys()
        .filter(|p| session::is_script(p))
        .filter(|p| match (&related, changed) {
            (Some(r), Some(c)) => p.as_path() == c || r.contains(*p),
            _ => true,
        })
        .collect();
    scripts.sort();
    let mut now = Vec::new();
    for p in scripts {
        let tokens = runs::inferred_tokens(snap, p, &snap.root);
        now.push((p.clone(), format!("{tokens:?}")));
    }
    // Closed scripts are forgotten by `did_close` (this snapshot sees one workspace only).
    let mut seen = lock(&shared.caps_seen);
    let mut any = false;
    for (p, text) in now {
        let old = seen.insert(p.clone(), text.clone());
        any |= Some(p.as_path()) != changed && old.is_none_or(|o| o != text);
    }
    any
}

/// Asks the client for new code lenses, inlay hints and semantic tokens, each only where it
/// declared `refreshSupport`: a script's capabilities changed from another file.
fn refresh_views(client: &Client, caps: &ClientCaps) {
    if caps.code_lens_refresh {
        let c = client.clone();
        tokio::spawn(async move {
            let _ = c.code_lens_refresh().await;
        });
    }
    if caps.inlay_hint_refresh {
        let c = client.clone();
        tokio::spawn(async move {
            let _ = c.inlay_hint_refresh().await;
        });
    }
    if caps.semantic_tokens_refresh {
        let c = client.clone();
        tokio::spawn(async move {
            let _ = c.semantic_tokens_refresh().await;
        });
    }
}

fn timing() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("VOX_LSP_TIMING").is_some())
}

/// Publishes when the set differs from what was last published (and always the first time, and
/// for the file that changed). `diags` are diagnostics as JSON.
async fn publish(
    client: &Client,
    shared: &Shared,
    path: &Path,
    version: Option<i32>,
    diags: Vec<Arc<str>>,
    force: bool,
) {
    let diags = Arc::new(diags);
    {
        let mut published = lock(&shared.published);
        match published.get(path) {
            // The changed file is always published: its version moved on.
            Some(old) if !force && **old == *diags => return,
            None if diags.is_empty() && !session::is_script(path) => return,
            _ => {}
        }
        published.insert(path.to_path_buf(), diags.clone());
    }
    send_diagnostics(client, shared, path, version, &diags).await;
}

/// Sends `textDocument/publishDiagnostics` for `path` with diagnostics given as JSON: written
/// straight to the output when the stdio edge is there, else through the client.
pub(crate) async fn send_diagnostics(
    client: &Client,
    shared: &Shared,
    path: &Path,
    version: Option<i32>,
    diags: &[Arc<str>],
) {
    let Some(uri) = diagnostics::uri_of(path) else {
        return;
    };
    if let Some(tx) = shared.direct.get() {
        let uri_json = serde_json::to_string(uri.as_str()).unwrap_or_default();
        let len: usize = diags.iter().map(|d| d.len() + 1).sum();
        let mut body = String::with_capacity(len + uri_json.len() + 128);
        body.push_str(
            "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":",
        );
        body.push_str(&uri_json);
        body.push_str(",\"diagnostics\":[");
        for (i, d) in diags.iter().enumerate() {
            if i > 0 {
                body.push(',');
            }
            body.push_str(d);
        }
        body.push(']');
        if let Some(v) = version {
            body.push_str(&format!(",\"version\":{v}"));
        }
        body.push_str("}}");
        let _ = tx.send(transport::encode(body.as_bytes()));
        return;
    }
    let items: Vec<Diagnostic> = diags
        .iter()
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect();
    client.publish_diagnostics(uri, items, version).await;
}

/// Computes the facts and summaries of every function of `file` on two threads (each with its
/// own database handle), so that opening a large file uses both cores; what the lint then reads
/// is memoized.
fn warm_facts(db: &vox_analysis::AnalysisDb, file: vox_analysis::SourceFile) {
    if vox_analysis::file_items(db, file).all().nth(63).is_none() {
        return;
    }
    let next = AtomicU64::new(0);
    let work = |db: &vox_analysis::AnalysisDb| {
        let defs: Vec<_> = vox_analysis::file_items(db, file).all().collect();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed) as usize;
            let Some(def) = defs.get(i) else { break };
            let _ = vox_analysis::fn_facts(db, *def);
        }
    };
    std::thread::scope(|s| {
        let other = db.clone();
        let helper = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn_scoped(s, || {
                let other = other;
                let _ = std::panic::catch_unwind(AssertUnwindSafe(|| work(&other)));
            });
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| work(db)));
        if let Ok(h) = helper {
            let _ = h.join();
        }
    });
}

/// Every diagnostic of one script as JSON (push mode): its findings through the script's
/// [`render::RenderCache`], then those of its last run.
/// What the render let go of comes back too, to be freed after the publish.
pub(crate) fn file_rendered(
    snap: &Snapshot,
    shared: &Shared,
    path: &Path,
) -> (Vec<Arc<str>>, render::Spent) {
    let t0 = std::time::Instant::now();
    let findings = snap.shown_findings(path);
    let t1 = std::time::Instant::now();
    let mut cache = lock(&shared.rendered).remove(path).unwrap_or_default();
    let mut out = cache.render(snap, path, findings);
    if timing() {
        eprintln!(
            "vox-lsp-timing: findings {:.3} ms, conversion {:.3} ms ({} converted, {} reused)",
            (t1 - t0).as_secs_f64() * 1e3,
            t1.elapsed().as_secs_f64() * 1e3,
            cache.made,
            cache.reused
        );
    }
    let spent = cache.take_spent();
    if snap.docs.contains_key(path) {
        lock(&shared.rendered).insert(path.to_path_buf(), cache);
    }
    if let Some(rd) = lock(&shared.run_diags).get(path) {
        out.extend(
            rd.iter()
                .filter_map(|r| serde_json::to_string(&r.diagnostic).ok())
                .map(Arc::from),
        );
    }
    (out, spent)
}

/// Every diagnostic of one script: its findings as `vox lint` reports them, then those of its
/// last run.
pub(crate) fn file_diagnostics(snap: &Snapshot, shared: &Shared, path: &Path) -> Vec<Diagnostic> {
    let t0 = std::time::Instant::now();
    let findings = snap.shown_findings(path);
    let t1 = std::time::Instant::now();
    let mut ropes = diagnostics::Ropes::new(snap);
    let mut out: Vec<Diagnostic> = findings
        .iter()
        .map(|f| diagnostics::to_diagnostic(f, &mut ropes))
        .collect();
    if timing() {
        eprintln!(
            "vox-lsp-timing: findings {:.3} ms, conversion {:.3} ms",
            (t1 - t0).as_secs_f64() * 1e3,
            t1.elapsed().as_secs_f64() * 1e3
        );
    }
    if let Some(rd) = lock(&shared.run_diags).get(path) {
        out.extend(rd.iter().map(|r| r.diagnostic.clone()));
    }
    out
}

fn client_caps(p: &InitializeParams) -> ClientCaps {
    let c = &p.capabilities;
    let td = c.text_document.as_ref();
    let ws = c.workspace.as_ref();
    let wse = ws.and_then(|w| w.workspace_edit.as_ref());
    let code_action_literals = td
        .and_then(|t| t.code_action.as_ref())
        .is_some_and(|ca| ca.code_action_literal_support.is_some());
    ClientCaps {
        pull: td.is_some_and(|t| t.diagnostic.is_some()),
        diagnostic_refresh: ws
            .and_then(|w| w.diagnostics.as_ref())
            .and_then(|d| d.refresh_support)
            .unwrap_or(false),
        // Only a client that says `documentChanges` is sent them (LSP 3.17); resource
        // operations are only expressible there.
        document_changes: wse.and_then(|e| e.document_changes).unwrap_or(false),
        create_files: wse.and_then(|e| e.document_changes).unwrap_or(false)
            && wse
                .and_then(|e| e.resource_operations.as_ref())
                .is_some_and(|ops| ops.contains(&ResourceOperationKind::Create)),
        change_annotations: wse
            .and_then(|e| e.change_annotation_support.as_ref())
            .is_some(),
        show_document: c
            .window
            .as_ref()
            .and_then(|w| w.show_document.as_ref())
            .is_some_and(|s| s.support),
        presents_caps: c
            .experimental
            .as_ref()
            .and_then(|e| e.pointer("/vox/showCaps"))
            .and_then(serde_json::Value::as_str)
            == Some("client"),
        work_done_progress: c
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false),
        watch_dynamic: ws
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false),
        code_lens_refresh: ws
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|d| d.refresh_support)
            .unwrap_or(false),
        semantic_tokens_refresh: ws
            .and_then(|w| w.semantic_tokens.as_ref())
            .and_then(|d| d.refresh_support)
            .unwrap_or(false),
        inlay_hint_refresh: ws
            .and_then(|w| w.inlay_hint.as_ref())
            .and_then(|d| d.refresh_support)
            .unwrap_or(false),
        hierarchical_symbols: td
            .and_then(|t| t.document_symbol.as_ref())
            .and_then(|d| d.hierarchical_document_symbol_support)
            .unwrap_or(false),
        snippet_edits: false,
        code_action_literals,
        is_preferred: td
            .and_then(|t| t.code_action.as_ref())
            .and_then(|ca| ca.is_preferred_support)
            .unwrap_or(false),
        prepare_rename: td
            .and_then(|t| t.rename.as_ref())
            .and_then(|r| r.prepare_support)
            .unwrap_or(false),
        code_action_resolve: code_action_literals
            && td
                .and_then(|t| t.code_action.as_ref())
                .and_then(|ca| ca.resolve_support.as_ref())
                .is_some_and(|r| r.properties.iter().any(|p| p == "edit")),
        snippet_completion: td
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.snippet_support)
            .unwrap_or(false),
        // A client that lists its formats without markdown shows plain text only.
        plaintext_hover: td
            .and_then(|t| t.hover.as_ref())
            .and_then(|h| h.content_format.as_ref())
            .is_some_and(|f| !f.contains(&MarkupKind::Markdown)),
        plaintext_docs: td
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.documentation_format.as_ref())
            .is_some_and(|f| !f.contains(&MarkupKind::Markdown)),
    }
}

/// The folders the client names, in its order and each once (`workspaceFolders`, else the
/// deprecated `rootUri`); empty if it names none.
fn workspace_folders(p: &InitializeParams) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for f in p.workspace_folders.iter().flatten() {
        if let Some(path) = path_of(&f.uri) {
            if !out.contains(&path) {
                out.push(path);
            }
        }
    }
    #[allow(deprecated)]
    if out.is_empty() {
        out.extend(p.root_uri.as_ref().and_then(path_of));
    }
    out
}

/// Loads the workspace of each folder the client names; with none, one workspace at the
/// current directory, which is not walked (a client that names no folder may have been started
/// anywhere, even in `/`).
fn load_workspaces(
    folders: Vec<PathBuf>,
    settings: Settings,
    encoding: Encoding,
) -> session::Workspaces {
    if folders.is_empty() {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        return session::Workspaces::new(Session::load_with(
            cwd.clone(),
            cwd,
            settings,
            encoding,
            false,
        ));
    }
    let mut list = folders.into_iter().map(|folder| {
        let root = session::find_root(&folder);
        Session::load_with(folder, root, settings.clone(), encoding, true)
    });
    let mut w = session::Workspaces::new(list.next().expect("a folder"));
    for s in list {
        w.add(s);
    }
    w
}

/// Open scripts analysed again after any change; past this, only the related ones.
const MAX_OPEN_RELINT: usize = 32;

pub const COMMANDS: &[&str] = &[
    "vox.run",
    "vox.runTest",
    "vox.stop",
    "vox.showCaps",
    "vox.revealSuppression",
    runs::APPLY_EDIT,
    prove::COMMAND,
];

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let caps = client_caps(&params);
        let _ = self.shared.caps.set(caps.clone());
        let offered = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref());
        let encoding = if offered.is_some_and(|o| o.contains(&PositionEncodingKind::UTF8)) {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        let mut settings = Settings::defaults();
        if let Some(opts) = &params.initialization_options {
            settings.update(opts);
        }
        let folders = workspace_folders(&params);
        let loaded = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                load_workspaces(folders, settings, encoding)
            }))
        })
        .await;
        match loaded {
            Ok(Ok(s)) => *lock(&self.shared.session) = Some(s),
            _ => return Err(internal("cannot load the workspace")),
        }
        let sync = TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            save: Some(TextDocumentSyncSaveOptions::Supported(true)),
            ..TextDocumentSyncOptions::default()
        };
        let diagnostic_provider = caps.pull.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("vox".into()),
                inter_file_dependencies: true,
                workspace_diagnostics: false,
                work_done_progress_options: WorkDoneProgressOptions::default(),
            })
        });
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(match encoding {
                    Encoding::Utf8 => PositionEncodingKind::UTF8,
                    Encoding::Utf16 => PositionEncodingKind::UTF16,
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(sync)),
                diagnostic_provider,
                // Options only for a client with code-action literals (LSP 3.17).
                code_action_provider: Some(if !caps.code_action_literals {
                    CodeActionProviderCapability::Simple(true)
                } else {
                    CodeActionProviderCapability::Options(CodeActionOptions {
                        code_action_kinds: Some(vec![
                            CodeActionKind::QUICKFIX,
                            CodeActionKind::new(actions::FIX_ALL),
                            CodeActionKind::REFACTOR,
                            CodeActionKind::REFACTOR_REWRITE,
                            CodeActionKind::new(prove::KIND),
                        ]),
                        work_done_progress_options: WorkDoneProgressOptions::default(),
                        resolve_provider: Some(true),
                    })
                }),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: COMMANDS.iter().map(|c| c.to_string()).collect(),
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                // Options (`prepareProvider`) only for a client with `prepareSupport` (LSP 3.17).
                rename_provider: Some(if caps.prepare_rename {
                    OneOf::Right(RenameOptions {
                        prepare_provider: Some(true),
                        work_done_progress_options: WorkDoneProgressOptions::default(),
                    })
                } else {
                    OneOf::Left(true)
                }),
                document_symbol_provider: Some(OneOf::Left(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![".".into()]),
                    ..CompletionOptions::default()
                }),
                signature_help_provider: Some(SignatureHelpOptions {
                    trigger_characters: Some(vec!["(".into(), ",".into()]),
                    retrigger_characters: None,
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
                semantic_tokens_provider: Some(
                    SemanticTokensServerCapabilities::SemanticTokensOptions(
                        SemanticTokensOptions {
                            legend: ide::semantic_legend(),
                            full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                            range: Some(true),
                            work_done_progress_options: WorkDoneProgressOptions::default(),
                        },
                    ),
                ),
                inlay_hint_provider: Some(OneOf::Left(true)),
                document_highlight_provider: Some(OneOf::Left(true)),
                selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
                document_link_provider: Some(DocumentLinkOptions {
                    resolve_provider: Some(false),
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
                call_hierarchy_provider: Some(CallHierarchyServerCapability::Simple(true)),
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: Some(OneOf::Left(true)),
                    }),
                    file_operations: None,
                }),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "vox".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let caps = self.caps();
        if caps.watch_dynamic {
            let client = self.client.clone();
            tokio::spawn(async move {
                let watchers: Vec<FileSystemWatcher> = [
                    "**/Vox.toml",
                    "**/.vscode/tasks.json",
                    "**/.vscode/launch.json",
                    "**/*.vox",
                ]
                .iter()
                .map(|g| FileSystemWatcher {
                    glob_pattern: GlobPattern::String(g.to_string()),
                    kind: None,
                })
                .collect();
                let opts = DidChangeWatchedFilesRegistrationOptions { watchers };
                let reg = Registration {
                    id: "vox-config-watch".into(),
                    method: "workspace/didChangeWatchedFiles".into(),
                    register_options: serde_json::to_value(opts).ok(),
                };
                let _ = client.register_capability(vec![reg]).await;
            });
        }
        // config.invalid in files that are not open yet.
        self.schedule_diagnostics(None);
    }

    async fn shutdown(&self) -> Result<()> {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        self.shared.runs.stop_all();
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let Some(path) = path_of(&doc.uri) else {
            return;
        };
        let p2 = path.clone();
        let since = std::time::Instant::now();
        self.mutate(move |w| {
            w.for_path_mut(&p2)
                .open(p2.clone(), doc.uri, doc.text, doc.version)
        })
        .await;
        self.schedule_diagnostics_from(Some(path), Some(since));
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let since = std::time::Instant::now();
        let Some(path) = path_of(&params.text_document.uri) else {
            return;
        };
        let p2 = path.clone();
        let version = params.text_document.version;
        let changes = params.content_changes;
        let changed = self
            .mutate(move |w| w.for_path_mut(&p2).change(&p2, changes, version))
            .await
            .unwrap_or(false);
        if timing() {
            eprintln!(
                "vox-lsp-timing: change applied {:.3} ms",
                since.elapsed().as_secs_f64() * 1e3
            );
        }
        if changed {
            if self.is_config(&path) {
                self.refresh_lenses();
            }
            lock(&self.shared.run_diags).remove(&path);
            self.schedule_diagnostics_from(Some(path), Some(since));
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        if let Some(path) = path_of(&params.text_document.uri) {
            self.schedule_diagnostics(Some(path));
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let Some(path) = path_of(&params.text_document.uri) else {
            return;
        };
        let p2 = path.clone();
        self.mutate(move |w| w.for_path_mut(&p2).close(&p2)).await;
        lock(&self.shared.semantic).remove(&path);
        lock(&self.shared.caps_seen).remove(&path);
        if session::is_script(&path) {
            // Closed: an empty set (decision 40), in push mode.
            lock(&self.shared.rendered).remove(&path);
            lock(&self.shared.published).insert(path.clone(), Arc::new(Vec::new()));
            if !self.caps().pull {
                send_diagnostics(&self.client, &self.shared, &path, None, &[]).await;
            }
        }
        self.schedule_diagnostics(None);
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let events: Vec<(PathBuf, bool)> = params
            .changes
            .iter()
            .filter_map(|e| Some((path_of(&e.uri)?, e.typ == FileChangeType::DELETED)))
            .collect();
        if events.is_empty() {
            return;
        }
        self.mutate(move |w| {
            for (p, deleted) in &events {
                // The workspace the file belongs to, and every other one that reads it (an
                // imported file) or whose root holds it.
                let own = w.index_for(p);
                for (i, s) in w.list.iter_mut().enumerate() {
                    if i == own || s.files.contains_key(p) || p.starts_with(&s.root) {
                        s.disk_changed(p, *deleted);
                    }
                }
            }
        })
        .await;
        self.refresh_lenses();
        self.schedule_diagnostics(None);
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let v = params.settings;
        self.mutate(move |w| {
            for s in &mut w.list {
                let mut settings = s.settings.clone();
                settings.update(&v);
                s.set_settings(settings);
            }
        })
        .await;
        self.schedule_diagnostics(None);
    }

    /// Folders added get a workspace of their own (loaded outside the lock), the open documents
    /// inside them moving to it; folders removed stop being analysed, and what their workspace
    /// published is cleared.
    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        let folders = |fs: &[WorkspaceFolder]| -> Vec<PathBuf> {
            fs.iter().filter_map(|f| path_of(&f.uri)).collect()
        };
        let added = folders(&params.event.added);
        let removed = folders(&params.event.removed);
        let Some((settings, encoding)) = lock(&self.shared.session)
            .as_ref()
            .map(|w| (w.first().settings.clone(), w.first().encoding))
        else {
            return;
        };
        let loaded = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                added
                    .into_iter()
                    .map(|folder| {
                        let root = session::find_root(&folder);
                        Session::load_with(folder, root, settings.clone(), encoding, true)
                    })
                    .collect::<Vec<_>>()
            }))
        })
        .await;
        let sessions = match loaded {
            Ok(Ok(v)) => v,
            _ => {
                self.log_error("cannot load the added workspace folders".into())
                    .await;
                Vec::new()
            }
        };
        // Added first: removing the only folder in the same change leaves no empty workspace.
        let cleared = self
            .mutate(move |w| {
                for s in sessions {
                    if !w.has_folder(&s.folder) {
                        w.add(s);
                    }
                }
                let mut cleared = Vec::new();
                for f in &removed {
                    cleared.extend(w.remove(f).unwrap_or_default());
                }
                cleared
            })
            .await
            .unwrap_or_default();
        let pull = self.caps().pull;
        for path in cleared {
            lock(&self.shared.rendered).remove(&path);
            lock(&self.shared.semantic).remove(&path);
            lock(&self.shared.caps_seen).remove(&path);
            lock(&self.shared.run_diags).remove(&path);
            let had = lock(&self.shared.published)
                .insert(path.clone(), Arc::new(Vec::new()))
                .is_some_and(|d| !d.is_empty());
            // Configuration files are pushed in either mode; scripts in push mode.
            let script = session::is_script(&path);
            if (script && !pull) || (!script && had) {
                send_diagnostics(&self.client, &self.shared, &path, None, &[]).await;
            }
        }
        self.refresh_lenses();
        self.schedule_diagnostics(None);
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        let Some(path) = path_of(&params.text_document.uri) else {
            return Ok(empty_report());
        };
        // A newer edit cancels the pass; answer for the newest text.
        for _ in 0..8 {
            let shared = self.shared.clone();
            let p = path.clone();
            let r = self
                .on_snapshot("diagnostics", Some(path.clone()), move |snap| {
                    let items = if session::config_kind(&snap.root, &p).is_some() {
                        diagnostics::config_diagnostics(snap, &p)
                    } else if snap.docs.contains_key(&p) && session::is_script(&p) {
                        file_diagnostics(snap, &shared, &p)
                    } else {
                        Vec::new()
                    };
                    Ok(items)
                })
                .await;
            match r {
                Ok(items) => {
                    // The result id names the items (a hash of their JSON): the same id, the
                    // same diagnostics, whatever changed elsewhere (run diagnostics included).
                    let id = result_id(&items);
                    if params.previous_result_id.as_deref() == Some(id.as_str()) {
                        return Ok(DocumentDiagnosticReportResult::Report(
                            DocumentDiagnosticReport::Unchanged(
                                RelatedUnchangedDocumentDiagnosticReport {
                                    related_documents: None,
                                    unchanged_document_diagnostic_report:
                                        UnchangedDocumentDiagnosticReport { result_id: id },
                                },
                            ),
                        ));
                    }
                    return Ok(DocumentDiagnosticReportResult::Report(
                        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                            related_documents: None,
                            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                                result_id: Some(id),
                                items,
                            },
                        }),
                    ));
                }
                Err(e) if e.code == ErrorCode::ContentModified => continue,
                Err(e) => return Err(e),
            }
        }
        Err(Error::content_modified())
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let caps = self.caps();
        let shared = self.shared.clone();
        self.on_snapshot(
            "code action",
            path_of(&params.text_document.uri),
            move |snap| actions::code_actions(snap, &shared, &caps, params),
        )
        .await
    }

    async fn code_action_resolve(&self, params: CodeAction) -> Result<CodeAction> {
        let caps = self.caps();
        let shared = self.shared.clone();
        self.on_snapshot(
            "code action resolve",
            params
                .data
                .as_ref()
                .and_then(|d| d.get("uri"))
                .and_then(|u| u.as_str())
                .and_then(|u| u.parse::<Uri>().ok())
                .and_then(|u| path_of(&u)),
            move |snap| actions::resolve(snap, &shared, &caps, params),
        )
        .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        self.on_snapshot(
            "code lens",
            path_of(&params.text_document.uri),
            move |snap| handlers::code_lens(snap, params),
        )
        .await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        runs::execute(self, params).await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let plain = self.caps().plaintext_hover;
        let hover = self
            .on_snapshot(
                "hover",
                path_of(&params.text_document_position_params.text_document.uri),
                move |snap| ide::hover(snap, params),
            )
            .await?;
        Ok(hover.map(|mut h| {
            if plain {
                if let HoverContents::Markup(m) = &mut h.contents {
                    *m = convert::plain_markup(m);
                }
            }
            h
        }))
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        self.on_snapshot(
            "definition",
            path_of(&params.text_document_position_params.text_document.uri),
            move |snap| ide::definition(snap, params),
        )
        .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        self.on_snapshot(
            "references",
            path_of(&params.text_document_position.text_document.uri),
            move |snap| ide::references(snap, params),
        )
        .await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        self.on_snapshot(
            "prepare rename",
            path_of(&params.text_document.uri),
            move |snap| ide::prepare_rename(snap, params),
        )
        .await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let document_changes = self.caps().document_changes;
        self.on_snapshot(
            "rename",
            path_of(&params.text_document_position.text_document.uri),
            move |snap| ide::rename(snap, params, document_changes),
        )
        .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let caps = self.caps();
        self.pretree(&params.text_document.uri).await;
        self.on_snapshot(
            "document symbols",
            path_of(&params.text_document.uri),
            move |snap| ide::document_symbols(snap, params, caps.hierarchical_symbols),
        )
        .await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        self.on_snapshot("workspace symbols", None, move |snap| {
            ide::workspace_symbols(snap, params)
        })
        .await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        self.pretree(&params.text_document.uri).await;
        self.on_snapshot("folding", path_of(&params.text_document.uri), move |snap| {
            ide::folding(snap, params)
        })
        .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let caps = self.caps();
        let snippets = caps.snippet_completion;
        let mut r = self
            .on_snapshot(
                "completion",
                path_of(&params.text_document_position.text_document.uri),
                move |snap| ide::completion(snap, params, snippets),
            )
            .await?;
        if caps.plaintext_docs {
            let items = match &mut r {
                Some(CompletionResponse::Array(items)) => items,
                Some(CompletionResponse::List(l)) => &mut l.items,
                None => return Ok(r),
            };
            for item in items {
                if let Some(Documentation::MarkupContent(m)) = &mut item.documentation {
                    *m = convert::plain_markup(m);
                }
            }
        }
        Ok(r)
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        self.on_snapshot(
            "signature help",
            path_of(&params.text_document_position_params.text_document.uri),
            move |snap| ide::signature_help(snap, params),
        )
        .await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        let shared = self.shared.clone();
        self.on_snapshot(
            "semantic tokens",
            path_of(&params.text_document.uri),
            move |snap| ide::semantic_full(snap, &shared, params),
        )
        .await
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        let shared = self.shared.clone();
        self.on_snapshot(
            "semantic tokens delta",
            path_of(&params.text_document.uri),
            move |snap| ide::semantic_delta(snap, &shared, params),
        )
        .await
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        self.on_snapshot(
            "semantic tokens range",
            path_of(&params.text_document.uri),
            move |snap| ide::semantic_range(snap, params),
        )
        .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        self.pretree(&params.text_document.uri).await;
        self.on_snapshot(
            "inlay hints",
            path_of(&params.text_document.uri),
            move |snap| ide::inlay_hints(snap, params),
        )
        .await
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        self.on_snapshot(
            "document highlight",
            path_of(&params.text_document_position_params.text_document.uri),
            move |snap| ide::document_highlight(snap, params),
        )
        .await
    }

    async fn selection_range(
        &self,
        params: SelectionRangeParams,
    ) -> Result<Option<Vec<SelectionRange>>> {
        self.on_snapshot(
            "selection range",
            path_of(&params.text_document.uri),
            move |snap| ide::selection_ranges(snap, params),
        )
        .await
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        self.on_snapshot(
            "document links",
            path_of(&params.text_document.uri),
            move |snap| ide::document_links(snap, params),
        )
        .await
    }

    async fn prepare_call_hierarchy(
        &self,
        params: CallHierarchyPrepareParams,
    ) -> Result<Option<Vec<CallHierarchyItem>>> {
        self.on_snapshot(
            "call hierarchy",
            path_of(&params.text_document_position_params.text_document.uri),
            move |snap| ide::prepare_call_hierarchy(snap, params),
        )
        .await
    }

    async fn incoming_calls(
        &self,
        params: CallHierarchyIncomingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
        self.on_snapshot("incoming calls", path_of(&params.item.uri), move |snap| {
            ide::incoming_calls(snap, params)
        })
        .await
    }

    async fn outgoing_calls(
        &self,
        params: CallHierarchyOutgoingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
        self.on_snapshot("outgoing calls", path_of(&params.item.uri), move |snap| {
            ide::outgoing_calls(snap, params)
        })
        .await
    }
}

impl Backend {
    /// A request the stdio edge took over (`transport::DIRECT_METHOD`): computed like any
    /// request, in order with the notifications before it, and answered straight to the output
    /// with its result serialised once (through the client, a 5 MB file's semantic tokens were
    /// first built as a JSON value of several million numbers).
    async fn direct_request(&self, p: serde_json::Value) {
        let id = p.get("id").cloned().unwrap_or(serde_json::Value::Null);
        let key = id.to_string();
        let method = p
            .get("method")
            .and_then(|m| m.as_str())
            .unwrap_or("")
            .to_string();
        let params = p.get("params").cloned().unwrap_or(serde_json::Value::Null);
        let Some(flag) = lock(&self.shared.direct_requests).get(&key).cloned() else {
            return;
        };
        let uri = params
            .get("textDocument")
            .and_then(|d| d.get("uri"))
            .and_then(|u| u.as_str())
            .and_then(|u| u.parse::<Uri>().ok());
        if let Some(u) = &uri {
            self.pretree(u).await;
        }
        let at = uri.as_ref().and_then(path_of);
        let shared = self.shared.clone();
        let result: Result<String> = match method.as_str() {
            "textDocument/semanticTokens/full" => {
                match serde_json::from_value::<SemanticTokensParams>(params)
                    .map_err(|e| invalid_params(e.to_string()))
                {
                    Ok(params) => self
                        .on_snapshot_with("semantic tokens", at.clone(), Some(flag), move |snap| {
                            ide::semantic_full(snap, &shared, params)
                        })
                        .await
                        .and_then(|r| {
                            serde_json::to_string(&r).map_err(|e| internal(e.to_string()))
                        }),
                    Err(e) => Err(e),
                }
            }
            "textDocument/semanticTokens/full/delta" => {
                match serde_json::from_value::<SemanticTokensDeltaParams>(params)
                    .map_err(|e| invalid_params(e.to_string()))
                {
                    Ok(params) => self
                        .on_snapshot_with(
                            "semantic tokens delta",
                            at.clone(),
                            Some(flag),
                            move |snap| ide::semantic_delta(snap, &shared, params),
                        )
                        .await
                        .and_then(|r| {
                            serde_json::to_string(&r).map_err(|e| internal(e.to_string()))
                        }),
                    Err(e) => Err(e),
                }
            }
            "textDocument/semanticTokens/range" => {
                match serde_json::from_value::<SemanticTokensRangeParams>(params)
                    .map_err(|e| invalid_params(e.to_string()))
                {
                    Ok(params) => self
                        .on_snapshot_with(
                            "semantic tokens range",
                            at.clone(),
                            Some(flag),
                            move |snap| ide::semantic_range(snap, params),
                        )
                        .await
                        .and_then(|r| {
                            serde_json::to_string(&r).map_err(|e| internal(e.to_string()))
                        }),
                    Err(e) => Err(e),
                }
            }
            _ => Err(Error::method_not_found()),
        };
        // Cancelled meanwhile: the edge has answered already.
        if lock(&self.shared.direct_requests).remove(&key).is_none() {
            return;
        }
        let body = match result {
            Ok(json) => {
                let mut b = String::with_capacity(json.len() + key.len() + 32);
                b.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
                b.push_str(&key);
                b.push_str(",\"result\":");
                b.push_str(&json);
                b.push('}');
                b
            }
            Err(e) => serde_json::json!({"jsonrpc": "2.0", "id": id, "error": e}).to_string(),
        };
        if let Some(tx) = self.shared.direct.get() {
            let _ = tx.send(transport::encode(body.as_bytes()));
        }
    }
}

/// A pull report's `resultId`: a hash of its items' JSON.
fn result_id(items: &[Diagnostic]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(items)
        .unwrap_or_default()
        .hash(&mut h);
    format!("{:016x}", h.finish())
}

fn empty_report() -> DocumentDiagnosticReportResult {
    DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(
        RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: None,
                items: Vec::new(),
            },
        },
    ))
}

/// Serves the protocol on stdin/stdout until `exit`; returns the process exit code (0 after a
/// `shutdown`, else 1, as the protocol says).
pub fn run_stdio() -> i32 {
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(16)
        // Parsing and analysis recurse with the input; they also grow their stacks (stacker).
        .thread_stack_size(64 << 20)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("vox lsp: cannot start the runtime: {e}");
            return 1;
        }
    };
    let code = rt.block_on(async {
        let (service, socket) = LspService::build(Backend::new)
            .custom_method(transport::DIRECT_METHOD, Backend::direct_request)
            .finish();
        let shared = service.inner().shared.clone();
        transport::widen_output_pipe();
        // Standard output as a file of its own: every frame is written whole, unbuffered.
        let stdout = match std::os::fd::AsFd::as_fd(&std::io::stdout()).try_clone_to_owned() {
            Ok(fd) => std::fs::File::from(fd),
            Err(e) => {
                eprintln!("vox lsp: cannot use standard output: {e}");
                return 1;
            }
        };
        transport::serve(tokio::io::stdin(), stdout, service, socket).await;
        // Stdin closed or `exit`: active runs are stopped (SIGTERM: their exit commands run) and
        // given a moment to end; whatever remains dies with the server (its parent-death
        // signal, decision 55).
        shared.runs.stop_all();
        let until = tokio::time::Instant::now() + std::time::Duration::from_secs(2);
        while !shared.runs.idle() && tokio::time::Instant::now() < until {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        i32::from(!shared.shutdown.load(Ordering::SeqCst))
    });
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    code
}
