//! `initialize` (the client's capabilities, the workspaces, what the server offers),
//! `initialized` (file watchers) and `shutdown`.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::base::{internal, lock};
use crate::convert::Encoding;
use crate::features::{actions, ide, prove, runs};
use crate::session::{self, path_of, Session, Settings};
use crate::state::{client_caps, Backend};

pub const COMMANDS: &[&str] = &[
    "vox.run",
    "vox.runTest",
    "vox.stop",
    "vox.showCaps",
    "vox.revealSuppression",
    runs::APPLY_EDIT,
    prove::COMMAND,
];

pub(crate) async fn initialize(b: &Backend, params: InitializeParams) -> Result<InitializeResult> {
    let caps = client_caps(&params);
    let _ = b.shared.caps.set(caps.clone());
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
        Ok(Ok(s)) => *lock(&b.shared.session) = Some(s),
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
                SemanticTokensServerCapabilities::SemanticTokensOptions(SemanticTokensOptions {
                    legend: ide::semantic_legend(),
                    full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                    range: Some(true),
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
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

pub(crate) async fn initialized(b: &Backend, _params: InitializedParams) {
    let caps = b.caps();
    if caps.watch_dynamic {
        let client = b.client.clone();
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
    b.schedule_diagnostics(None);
}

pub(crate) async fn shutdown(b: &Backend) -> Result<()> {
    b.shared.shutdown.store(true, Ordering::SeqCst);
    b.shared.runs.stop_all();
    Ok(())
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
