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

mod base;
mod convert;
pub mod diag_json;
mod diagnostics;
mod features;
mod handlers;
mod publish;
pub mod render;
mod run_registry;
pub mod session;
mod state;
mod stdin;
mod transport;
pub mod work;

pub use convert::Encoding;
pub use diagnostics::to_diagnostics;
pub use handlers::lifecycle::COMMANDS;
pub use state::{Backend, ClientCaps, Shared};
pub use transport::check_message;

use std::sync::atomic::Ordering;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{LanguageServer, LspService};

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        handlers::lifecycle::initialize(self, params).await
    }

    async fn initialized(&self, params: InitializedParams) {
        handlers::lifecycle::initialized(self, params).await
    }

    async fn shutdown(&self) -> Result<()> {
        handlers::lifecycle::shutdown(self).await
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        handlers::documents::did_open(self, params).await
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        handlers::documents::did_change(self, params).await
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        handlers::documents::did_save(self, params).await
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        handlers::documents::did_close(self, params).await
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        handlers::documents::did_change_watched_files(self, params).await
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        handlers::documents::did_change_configuration(self, params).await
    }

    /// Folders added get a workspace of their own (loaded outside the lock), the open documents
    /// inside them moving to it; folders removed stop being analysed, and what their workspace
    /// published is cleared.
    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        handlers::documents::did_change_workspace_folders(self, params).await
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        handlers::diagnostic::diagnostic(self, params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        handlers::actions::code_action(self, params).await
    }

    async fn code_action_resolve(&self, params: CodeAction) -> Result<CodeAction> {
        handlers::actions::code_action_resolve(self, params).await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        handlers::actions::code_lens(self, params).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        handlers::actions::execute_command(self, params).await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        handlers::ide::hover(self, params).await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        handlers::ide::goto_definition(self, params).await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        handlers::ide::references(self, params).await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        handlers::ide::prepare_rename(self, params).await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        handlers::ide::rename(self, params).await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        handlers::ide::document_symbol(self, params).await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        handlers::ide::symbol(self, params).await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        handlers::ide::folding_range(self, params).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        handlers::ide::completion(self, params).await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        handlers::ide::signature_help(self, params).await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        handlers::ide::semantic_tokens_full(self, params).await
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        handlers::ide::semantic_tokens_full_delta(self, params).await
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        handlers::ide::semantic_tokens_range(self, params).await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        handlers::ide::inlay_hint(self, params).await
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        handlers::ide::document_highlight(self, params).await
    }

    async fn selection_range(
        &self,
        params: SelectionRangeParams,
    ) -> Result<Option<Vec<SelectionRange>>> {
        handlers::ide::selection_range(self, params).await
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        handlers::ide::document_link(self, params).await
    }

    async fn prepare_call_hierarchy(
        &self,
        params: CallHierarchyPrepareParams,
    ) -> Result<Option<Vec<CallHierarchyItem>>> {
        handlers::ide::prepare_call_hierarchy(self, params).await
    }

    async fn incoming_calls(
        &self,
        params: CallHierarchyIncomingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
        handlers::ide::incoming_calls(self, params).await
    }

    async fn outgoing_calls(
        &self,
        params: CallHierarchyOutgoingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
        handlers::ide::outgoing_calls(self, params).await
    }
}

/// Serves the protocol on stdin/stdout until `exit`; returns the process exit code (0 after a
/// `shutdown`, else 1, as the protocol says).
///
/// The protocol is served on one thread (a current-thread runtime, on a thread of its own with
/// the large stack the blocking threads have): a message passes from the reader to
/// `tower-lsp-server` to its handler as tasks of that one thread, where a runtime of two
/// workers woke the other worker at each hand-over (about 0.05 ms per keystroke on the
/// 2-core machine bench/lsp_typing.py runs on). Whatever takes time runs on the blocking
/// threads (changes, analysis, requests on a snapshot), as before. Runs are spawned from this
/// thread, which lives as long as the server (their parent-death signal, `runs::child_command`).
pub fn run_stdio() -> i32 {
    let serving = std::thread::Builder::new()
        .name("vox-lsp".into())
        .stack_size(64 << 20)
        .spawn(serve_stdio);
    match serving.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => 1,
        Err(e) => {
            eprintln!("vox lsp: cannot start the thread that serves the protocol: {e}");
            1
        }
    }
}

fn serve_stdio() -> i32 {
    let rt = match tokio::runtime::Builder::new_current_thread()
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
        let direct = shared.direct.clone();
        transport::serve(stdin::open(), stdout, service, socket, direct).await;
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
