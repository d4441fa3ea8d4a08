//! The server's state: what the client can do ([`ClientCaps`]), what the handlers share
//! ([`Shared`]: the session, run state, caches of what was sent), and [`Backend`], which runs a
//! request on a snapshot or a change on the session. Below the features and the handlers; it
//! knows no LSP method.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::Client;

use crate::base::{internal, lock, panic_message};
use crate::render;
use crate::run_registry::{RunDiagnostic, Runs};
use crate::session::{self, path_of, Snapshot};
use crate::transport;
use crate::work;

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
    pub(crate) session: Mutex<Option<session::Workspaces>>,
    pub(crate) caps: OnceLock<ClientCaps>,
    /// Diagnostics of the last run of each script (decision 41), with what their fixes need.
    pub(crate) run_diags: Mutex<HashMap<PathBuf, Vec<RunDiagnostic>>>,
    /// What was last published per file (push mode), as JSON, to publish only changes.
    pub(crate) published: Mutex<HashMap<PathBuf, Arc<crate::diag_json::DiagnosticsJson>>>,
    /// Each open script's diagnostics as JSON templates, kept between publishes
    /// ([`render`]).
    pub(crate) rendered: Mutex<HashMap<PathBuf, render::RenderCache>>,
    /// The writer of the stdio edge: publishes are written there directly, as JSON put
    /// together from [`render`]'s pieces (in process, without it, they go through the client).
    pub(crate) direct: Arc<transport::Direct>,
    pub(crate) runs: Runs,
    pub(crate) shutdown: AtomicBool,
    /// Orders document changes before the requests that follow them: a notification that
    /// changes the session takes it for writing, a request for reading while it snapshots
    /// (tokio's lock is fair, and handlers take it on their first poll, in arrival order).
    pub(crate) order: Arc<tokio::sync::RwLock<()>>,
    /// Semantic tokens last sent per document, for deltas.
    pub(crate) semantic: Mutex<HashMap<PathBuf, (String, Vec<SemanticToken>)>>,
    /// The inferred capabilities last seen per open script (as text), to ask the client for
    /// new code lenses, inlay hints and semantic tokens when another file's change alters them.
    pub(crate) caps_seen: Mutex<HashMap<PathBuf, String>>,
}

pub struct Backend {
    pub(crate) client: Client,
    pub(crate) shared: Arc<Shared>,
}

/// What the client is told when a change to the session panicked.
pub(crate) fn update_failed(payload: &(dyn std::any::Any + Send)) -> String {
    format!(
        "internal error while updating the workspace: {}",
        panic_message(payload)
    )
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
                direct: Arc::default(),
                runs: Runs::default(),
                shutdown: AtomicBool::new(false),
                semantic: Mutex::new(HashMap::new()),
                caps_seen: Mutex::new(HashMap::new()),
                order: Arc::default(),
            }),
        }
    }

    pub(crate) fn caps(&self) -> ClientCaps {
        self.shared.caps.get().cloned().unwrap_or_default()
    }

    /// Runs `f` on the session under the lock, on a thread allowed to block (a database write
    /// waits for older handles to unwind). A panic is contained.
    pub(crate) async fn mutate<T: Send + 'static>(
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
                self.log_error(update_failed(&*p)).await;
                None
            }
            Err(_) => None,
        }
    }

    /// Whether `path` is a configuration file of the workspace it belongs to.
    pub(crate) fn is_config(&self, path: &Path) -> bool {
        lock(&self.shared.session)
            .as_ref()
            .is_some_and(|w| w.is_config(path))
    }

    /// A snapshot of the workspace `path` belongs to (the first without a path).
    pub(crate) fn snapshot_at(&self, path: Option<&Path>) -> Result<Snapshot> {
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
    pub(crate) async fn pretree(&self, uri: &Uri) {
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
    pub(crate) async fn on_snapshot_with<T: Send + 'static>(
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

    pub(crate) async fn log_error(&self, msg: String) {
        self.client.log_message(MessageType::ERROR, msg).await;
    }
}

pub(crate) fn client_caps(p: &InitializeParams) -> ClientCaps {
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
