//! Navigation and editing help: hover, definition, references, rename, symbols, folding,
//! completion, signature help, semantic tokens, inlay hints.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::session::Snapshot;
use crate::Shared;

pub fn semantic_legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: vec![],
        token_modifiers: vec![],
    }
}

pub fn hover(_s: &Snapshot, _p: HoverParams) -> Result<Option<Hover>> { Ok(None) }
pub fn definition(_s: &Snapshot, _p: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> { Ok(None) }
pub fn references(_s: &Snapshot, _p: ReferenceParams) -> Result<Option<Vec<Location>>> { Ok(None) }
pub fn prepare_rename(_s: &Snapshot, _p: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> { Ok(None) }
pub fn rename(_s: &Snapshot, _p: RenameParams) -> Result<Option<WorkspaceEdit>> { Ok(None) }
pub fn document_symbols(_s: &Snapshot, _p: DocumentSymbolParams, _h: bool) -> Result<Option<DocumentSymbolResponse>> { Ok(None) }
pub fn workspace_symbols(_s: &Snapshot, _p: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> { Ok(None) }
pub fn folding(_s: &Snapshot, _p: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> { Ok(None) }
pub fn completion(_s: &Snapshot, _p: CompletionParams) -> Result<Option<CompletionResponse>> { Ok(None) }
pub fn signature_help(_s: &Snapshot, _p: SignatureHelpParams) -> Result<Option<SignatureHelp>> { Ok(None) }
pub fn semantic_full(_s: &Snapshot, _sh: &Shared, _p: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> { Ok(None) }
pub fn semantic_delta(_s: &Snapshot, _sh: &Shared, _p: SemanticTokensDeltaParams) -> Result<Option<SemanticTokensFullDeltaResult>> { Ok(None) }
pub fn inlay_hints(_s: &Snapshot, _p: InlayHintParams) -> Result<Option<Vec<InlayHint>>> { Ok(None) }
