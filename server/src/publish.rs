//! Diagnostics after a change: each workspace's pass over its configuration files and open
//! scripts, published (push mode, only what changed) or asked for again (pull mode), and the
//! views the client is asked to refresh when a script's inferred capabilities change.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tower_lsp_server::ls_types::*;
use tower_lsp_server::Client;

use crate::base::{lock, timing};
use crate::diag_json::DiagnosticsJson;
use crate::diagnostics;
use crate::render;
use crate::session::{self, inferred_tokens, Session, Snapshot};
use crate::state::{update_failed, Backend, ClientCaps, Shared};

/// Open scripts analysed again after any change; past this, only the related ones.
const MAX_OPEN_RELINT: usize = 32;

impl Backend {
    /// Recomputes diagnostics after a change: the changed file first, then every other open
    /// script (their findings may depend on it). Push mode publishes; pull mode asks the client
    /// to pull again. Configuration files are always pushed (clients only pull documents of
    /// their own language).
    pub(crate) fn schedule_diagnostics(&self, first: Option<PathBuf>) {
        self.schedule_diagnostics_from(first, None);
    }

    /// As [`Self::schedule_diagnostics`]; with `VOX_LSP_TIMING` set, prints on stderr how long
    /// it took from `since` (a `didOpen` arriving) to publishing the file. A change's pass runs
    /// on the thread that applied it instead ([`Self::change_then_diagnose`]).
    /// A file's change is analysed in its own workspace only (each folder's workspace has its
    /// own database); a change of no one file, in every workspace.
    pub(crate) fn schedule_diagnostics_from(
        &self,
        first: Option<PathBuf>,
        since: Option<std::time::Instant>,
    ) {
        let snaps: Vec<Snapshot> = {
            let guard = lock(&self.shared.session);
            let Some(w) = guard.as_ref() else { return };
            match &first {
                Some(p) => vec![w.for_path(p).snapshot()],
                None => w.list.iter().map(Session::snapshot).collect(),
            }
        };
        for snap in snaps {
            let pass = self.pass();
            let first = first.clone();
            tokio::task::spawn_blocking(move || pass.run(snap, first, since));
        }
    }

    /// Applies a document change (`f`, which says whether it changed anything) and then, on the
    /// same thread, the diagnostics pass of the changed file's workspace. The order lock is
    /// taken here, on the handler's first poll, and let go once the change is applied: the
    /// handler returns at once, so that the next change can cancel this pass.
    pub(crate) async fn change_then_diagnose(
        &self,
        path: PathBuf,
        since: std::time::Instant,
        f: impl FnOnce(&mut session::Workspaces) -> bool + Send + 'static,
    ) {
        let order = self.shared.order.clone().write_owned().await;
        let pass = self.pass();
        let config_lenses = self.caps().code_lens_refresh;
        tokio::task::spawn_blocking(move || {
            let applied = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let mut guard = lock(&pass.shared.session);
                let w = guard.as_mut()?;
                f(w).then(|| (w.for_path(&path).snapshot(), w.is_config(&path)))
            }));
            drop(order);
            if timing() {
                eprintln!(
                    "vox-lsp-timing: change applied {:.3} ms",
                    since.elapsed().as_secs_f64() * 1e3
                );
            }
            match applied {
                Ok(Some((snap, is_config))) => {
                    if is_config && config_lenses {
                        ask_code_lenses(&pass.client);
                    }
                    lock(&pass.shared.run_diags).remove(&path);
                    pass.run(snap, Some(path), Some(since));
                }
                Ok(None) => {}
                Err(p) => {
                    let (c, msg) = (pass.client.clone(), update_failed(&*p));
                    tokio::spawn(async move { c.log_message(MessageType::ERROR, msg).await });
                }
            }
        });
    }

    /// What a diagnostics pass needs of the backend.
    pub(crate) fn pass(&self) -> Pass {
        Pass {
            client: self.client.clone(),
            shared: self.shared.clone(),
            caps: self.caps(),
        }
    }

    /// Asks the client to request code lenses again (the inferred caps or the run
    /// configurations changed).
    pub(crate) fn refresh_lenses(&self) {
        if self.caps().code_lens_refresh {
            ask_code_lenses(&self.client);
        }
    }

    /// Re-publishes (push) or asks for a pull, after run diagnostics of `path` changed.
    pub(crate) fn refresh_file(&self, path: PathBuf) {
        self.schedule_diagnostics(Some(path));
    }
}

/// One workspace's diagnostics pass: its open scripts (push mode, `first` first, each published
/// as soon as it is rendered) and its configuration files; then, off the path to the publish,
/// whether the views of other scripts need refreshing. Runs on a thread that may block, all of
/// it: a change's pass follows the change on the thread that applied it
/// ([`Backend::change_then_diagnose`]), with no hand-over between the analysis and the writer.
pub(crate) struct Pass {
    client: Client,
    shared: Arc<Shared>,
    caps: ClientCaps,
}

impl Pass {
    pub(crate) fn run(
        &self,
        snap: Snapshot,
        first: Option<PathBuf>,
        since: Option<std::time::Instant>,
    ) {
        let generation = snap.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let current = || snap.generation.load(Ordering::SeqCst) == generation;
        let (shared, caps) = (&*self.shared, &self.caps);
        if let (Some(t), true) = (since, timing()) {
            eprintln!(
                "vox-lsp-timing: analysis started {:.3} ms after the change",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        let publish_one = |path: &Path, diags: Arc<DiagnosticsJson>| {
            let force = first.as_deref() == Some(path);
            let version = snap.docs.get(path).map(|d| d.version);
            let n = diags.len();
            let tp = std::time::Instant::now();
            publish(&self.client, shared, path, version, diags, force);
            if let (Some(t), true) = (since.filter(|_| force), timing()) {
                eprintln!(
                    "vox-lsp-timing: publish {:.3} ms",
                    tp.elapsed().as_secs_f64() * 1e3
                );
                eprintln!(
                    "vox-lsp-timing: change-to-publish {:.3} ms ({n} diagnostics, version {})",
                    t.elapsed().as_secs_f64() * 1e3,
                    version.unwrap_or(0)
                );
            }
        };
        if !caps.pull {
            let mut scripts: Vec<PathBuf> = snap
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
                // With many open scripts, only those related to the changed one by imports are
                // analysed again (a workspace-wide D005 collision in an unrelated open file is
                // refreshed on its own next change).
                if scripts.len() > MAX_OPEN_RELINT {
                    let related = snap.related(f);
                    scripts.retain(|p| p == f || related.contains(p));
                }
            }
            // Opening a file: its functions' facts are computed on every core first.
            let warm = since.is_some()
                && first
                    .as_ref()
                    .is_some_and(|p| lock(&shared.rendered).get(p).is_none());
            if warm {
                if let Some(file) = first.as_ref().and_then(|f| snap.file(f)) {
                    let _ =
                        std::panic::catch_unwind(AssertUnwindSafe(|| warm_facts(&snap.db, file)));
                }
            }
            for p in scripts {
                if !current() {
                    return;
                }
                let r =
                    std::panic::catch_unwind(AssertUnwindSafe(|| file_rendered(&snap, shared, &p)));
                // A failed script (a cancelled snapshot, a bug) leaves the rest to the next
                // pass; the configuration files are still published.
                let Ok((diags, spent)) = r else { break };
                if !current() {
                    return;
                }
                publish_one(&p, diags);
                // Freed after the publish, on the thread that rendered (see `render::Spent`).
                drop(spent);
            }
        }
        // Configuration files (always pushed: clients only pull documents of their own
        // language).
        for kind in [
            vox_caps::config::ConfigKind::VoxToml,
            vox_caps::config::ConfigKind::Tasks,
            vox_caps::config::ConfigKind::Launch,
        ] {
            let p = session::config_path(&snap.root, kind);
            let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
                diagnostics::config_diagnostics(&snap, &p)
                    .iter()
                    .filter_map(|d| serde_json::to_string(d).ok())
                    .collect::<DiagnosticsJson>()
            }));
            let Ok(d) = r else { return };
            if !current() {
                return;
            }
            publish_one(&p, Arc::new(d));
        }
        if caps.pull && caps.diagnostic_refresh {
            let c = self.client.clone();
            tokio::spawn(async move {
                let _ = c.workspace_diagnostic_refresh().await;
            });
        }
        let refresh =
            caps.code_lens_refresh || caps.inlay_hint_refresh || caps.semantic_tokens_refresh;
        if refresh && current() {
            let changed = std::panic::catch_unwind(AssertUnwindSafe(|| {
                caps_changed(&snap, shared, first.as_deref())
            }))
            .unwrap_or(false);
            if changed {
                refresh_views(&self.client, caps);
            }
        }
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
        let tokens = inferred_tokens(snap, p, &snap.root);
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

/// Asks the client to request code lenses again, without waiting for its answer.
fn ask_code_lenses(client: &Client) {
    let c = client.clone();
    tokio::spawn(async move {
        let _ = c.code_lens_refresh().await;
    });
}

/// Asks the client for new code lenses, inlay hints and semantic tokens, each only where it
/// declared `refreshSupport`: a script's capabilities changed from another file.
fn refresh_views(client: &Client, caps: &ClientCaps) {
    if caps.code_lens_refresh {
        ask_code_lenses(client);
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

/// Publishes when the set differs from what was last published (and always the first time, and
/// for the file that changed). `diags` are diagnostics as JSON.
fn publish(
    client: &Client,
    shared: &Shared,
    path: &Path,
    version: Option<i32>,
    diags: Arc<DiagnosticsJson>,
    force: bool,
) {
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
    if let Some(sending) = send_diagnostics(client, shared, path, version, diags) {
        // In process (no stdio edge), on a thread that may block.
        tokio::runtime::Handle::current().block_on(sending);
    }
}

/// Sends `textDocument/publishDiagnostics` for `path` with diagnostics given as JSON: written
/// straight to the output when the stdio edge is there; else what sends it through the client,
/// for the caller to run.
pub(crate) fn send_diagnostics(
    client: &Client,
    shared: &Shared,
    path: &Path,
    version: Option<i32>,
    diags: Arc<DiagnosticsJson>,
) -> Option<impl std::future::Future<Output = ()> + use<>> {
    let uri = diagnostics::uri_of(path)?;
    if let Some(tx) = shared.direct.out.get() {
        let uri_json = serde_json::to_string(uri.as_str()).unwrap_or_default();
        let _ = tx.send(publish_message(&uri_json, version, diags));
        return None;
    }
    let items: Vec<Diagnostic> = diags
        .iter()
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect();
    let client = client.clone();
    Some(async move { client.publish_diagnostics(uri, items, version).await })
}

/// Publishes no diagnostics for `path` (a closed script, a file of a folder gone), through
/// [`send_diagnostics`].
pub(crate) async fn clear_diagnostics(client: &Client, shared: &Shared, path: &Path) {
    if let Some(sending) = send_diagnostics(client, shared, path, None, Default::default()) {
        sending.await;
    }
}

/// The framed `publishDiagnostics` notification for `diags`: the body's length is known before
/// it is written, so the header goes first, and the diagnostics (half a megabyte on a
/// finding-dense file) are written from the render's own buffer, between the notification's
/// head and tail, without a copy.
fn publish_message(
    uri_json: &str,
    version: Option<i32>,
    diags: Arc<DiagnosticsJson>,
) -> crate::transport::Outgoing {
    const HEAD: &str =
        "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":";
    const LIST: &str = ",\"diagnostics\":[";
    let version = version
        .map(|v| format!(",\"version\":{v}"))
        .unwrap_or_default();
    let items = diags.body_len();
    let len = HEAD.len() + uri_json.len() + LIST.len() + items + 1 + version.len() + 2;
    let mut head = crate::transport::header(len).into_bytes();
    head.extend_from_slice(HEAD.as_bytes());
    head.extend_from_slice(uri_json.as_bytes());
    head.extend_from_slice(LIST.as_bytes());
    let mut tail = b"]".to_vec();
    tail.extend_from_slice(version.as_bytes());
    tail.extend_from_slice(b"}}");
    crate::transport::Outgoing::Parts(head, diags, tail)
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
) -> (Arc<DiagnosticsJson>, render::Spent) {
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
    if let Some(rd) = lock(&shared.run_diags)
        .get(path)
        .filter(|rd| !rd.is_empty())
    {
        Arc::make_mut(&mut out).extend(
            rd.iter()
                .filter_map(|r| serde_json::to_string(&r.diagnostic).ok()),
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
        .into_placed()
        .into_iter()
        .map(|f| diagnostics::to_diagnostic(&f.into_finding(), &mut ropes))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The header's length is the body's, and the body is the notification, with or without a
    /// version and for any number of diagnostics.
    #[test]
    fn publish_message_frames_its_body() {
        let d = [
            r#"{"message":"a"}"#,
            r#"{"message":"é, \"b\""}"#,
            r#"{"message":"c"}"#,
        ];
        for n in 0..=d.len() {
            for version in [None, Some(7), Some(-12345)] {
                // In one buffer, or in runs of several (a render's, after an edit).
                let list: DiagnosticsJson = if version == Some(7) {
                    let all: DiagnosticsJson = d.iter().collect();
                    let mut runs = DiagnosticsJson::default();
                    runs.extend_from(&all, 0..n.min(1));
                    if n >= 2 {
                        runs.push(d[1]);
                        runs.extend_from(&all, 2..n);
                    }
                    runs
                } else {
                    d[..n].iter().collect()
                };
                let msg = publish_message("\"file:///a%20b.vox\"", version, Arc::new(list));
                let msg = msg.bytes();
                let text = std::str::from_utf8(&msg).unwrap();
                let (head, body) = text.split_once("\r\n\r\n").unwrap();
                let len: usize = head
                    .strip_prefix("Content-Length: ")
                    .unwrap()
                    .parse()
                    .unwrap();
                assert_eq!(len, body.len(), "{text}");
                let v: serde_json::Value = serde_json::from_str(body).unwrap();
                assert_eq!(v["method"], "textDocument/publishDiagnostics");
                assert_eq!(v["params"]["uri"], "file:///a%20b.vox");
                let got = v["params"]["diagnostics"].as_array().unwrap();
                let want: Vec<serde_json::Value> = d[..n]
                    .iter()
                    .map(|x| serde_json::from_str(x).unwrap())
                    .collect();
                assert_eq!(got, &want);
                assert_eq!(v["params"]["version"].as_i64(), version.map(i64::from));
            }
        }
    }
}
