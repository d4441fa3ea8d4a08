//! Document and workspace notifications: they change the session (under the order lock, on a
//! blocking thread) and schedule diagnostics.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::base::lock;
use crate::publish::clear_diagnostics;
use crate::session::{self, path_of, Session};
use crate::state::Backend;

pub(crate) async fn did_open(b: &Backend, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    let Some(path) = path_of(&doc.uri) else {
        return;
    };
    let p2 = path.clone();
    let since = std::time::Instant::now();
    b.mutate(move |w| {
        w.for_path_mut(&p2)
            .open(p2.clone(), doc.uri, doc.text, doc.version)
    })
    .await;
    b.schedule_diagnostics_from(Some(path), Some(since));
}

pub(crate) async fn did_change(b: &Backend, params: DidChangeTextDocumentParams) {
    let since = std::time::Instant::now();
    let Some(path) = path_of(&params.text_document.uri) else {
        return;
    };
    let p2 = path.clone();
    let version = params.text_document.version;
    let changes = params.content_changes;
    b.change_then_diagnose(path, since, move |w| {
        w.for_path_mut(&p2).change(&p2, changes, version)
    })
    .await;
}

pub(crate) async fn did_save(b: &Backend, params: DidSaveTextDocumentParams) {
    if let Some(path) = path_of(&params.text_document.uri) {
        b.schedule_diagnostics(Some(path));
    }
}

pub(crate) async fn did_close(b: &Backend, params: DidCloseTextDocumentParams) {
    let Some(path) = path_of(&params.text_document.uri) else {
        return;
    };
    let p2 = path.clone();
    b.mutate(move |w| w.for_path_mut(&p2).close(&p2)).await;
    lock(&b.shared.semantic).remove(&path);
    lock(&b.shared.caps_seen).remove(&path);
    if session::is_script(&path) {
        // Closed: an empty set (decision 40), in push mode.
        lock(&b.shared.rendered).remove(&path);
        lock(&b.shared.published).insert(path.clone(), Arc::default());
        if !b.caps().pull {
            clear_diagnostics(&b.client, &b.shared, &path).await;
        }
    }
    b.schedule_diagnostics(None);
}

pub(crate) async fn did_change_watched_files(b: &Backend, params: DidChangeWatchedFilesParams) {
    let events: Vec<(PathBuf, bool)> = params
        .changes
        .iter()
        .filter_map(|e| Some((path_of(&e.uri)?, e.typ == FileChangeType::DELETED)))
        .collect();
    if events.is_empty() {
        return;
    }
    b.mutate(move |w| {
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
    b.refresh_lenses();
    b.schedule_diagnostics(None);
}

pub(crate) async fn did_change_configuration(b: &Backend, params: DidChangeConfigurationParams) {
    let v = params.settings;
    b.mutate(move |w| {
        for s in &mut w.list {
            let mut settings = s.settings.clone();
            settings.update(&v);
            s.set_settings(settings);
        }
    })
    .await;
    b.schedule_diagnostics(None);
}

/// Folders added get a workspace of their own (loaded outside the lock), the open documents
/// inside them moving to it; folders removed stop being analysed, and what their workspace
/// published is cleared.
pub(crate) async fn did_change_workspace_folders(
    b: &Backend,
    params: DidChangeWorkspaceFoldersParams,
) {
    let folders = |fs: &[WorkspaceFolder]| -> Vec<PathBuf> {
        fs.iter().filter_map(|f| path_of(&f.uri)).collect()
    };
    let added = folders(&params.event.added);
    let removed = folders(&params.event.removed);
    let Some((settings, encoding)) = lock(&b.shared.session)
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
            b.log_error("cannot load the added workspace folders".into())
                .await;
            Vec::new()
        }
    };
    // Added first: removing the only folder in the same change leaves no empty workspace.
    let cleared = b
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
    let pull = b.caps().pull;
    for path in cleared {
        lock(&b.shared.rendered).remove(&path);
        lock(&b.shared.semantic).remove(&path);
        lock(&b.shared.caps_seen).remove(&path);
        lock(&b.shared.run_diags).remove(&path);
        let had = lock(&b.shared.published)
            .insert(path.clone(), Arc::default())
            .is_some_and(|d| !d.is_empty());
        // Configuration files are pushed in either mode; scripts in push mode.
        let script = session::is_script(&path);
        if (script && !pull) || (!script && had) {
            clear_diagnostics(&b.client, &b.shared, &path).await;
        }
    }
    b.refresh_lenses();
    b.schedule_diagnostics(None);
}
