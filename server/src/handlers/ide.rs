//! The IDE requests (hover, navigation, rename, symbols, folding, completion, signature help,
//! semantic tokens, inlay hints, highlights, selection ranges, links, call hierarchy): each takes
//! a snapshot and calls [`crate::features::ide`].

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::convert;
use crate::features::ide;
use crate::session::path_of;
use crate::state::Backend;

pub(crate) async fn hover(b: &Backend, params: HoverParams) -> Result<Option<Hover>> {
    let plain = b.caps().plaintext_hover;
    let hover = b
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

pub(crate) async fn goto_definition(
    b: &Backend,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>> {
    b.on_snapshot(
        "definition",
        path_of(&params.text_document_position_params.text_document.uri),
        move |snap| ide::definition(snap, params),
    )
    .await
}

pub(crate) async fn references(
    b: &Backend,
    params: ReferenceParams,
) -> Result<Option<Vec<Location>>> {
    b.on_snapshot(
        "references",
        path_of(&params.text_document_position.text_document.uri),
        move |snap| ide::references(snap, params),
    )
    .await
}

pub(crate) async fn prepare_rename(
    b: &Backend,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    b.on_snapshot(
        "prepare rename",
        path_of(&params.text_document.uri),
        move |snap| ide::prepare_rename(snap, params),
    )
    .await
}

pub(crate) async fn rename(b: &Backend, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let document_changes = b.caps().document_changes;
    b.on_snapshot(
        "rename",
        path_of(&params.text_document_position.text_document.uri),
        move |snap| ide::rename(snap, params, document_changes),
    )
    .await
}

pub(crate) async fn document_symbol(
    b: &Backend,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>> {
    let caps = b.caps();
    b.pretree(&params.text_document.uri).await;
    b.on_snapshot(
        "document symbols",
        path_of(&params.text_document.uri),
        move |snap| ide::document_symbols(snap, params, caps.hierarchical_symbols),
    )
    .await
}

pub(crate) async fn symbol(
    b: &Backend,
    params: WorkspaceSymbolParams,
) -> Result<Option<WorkspaceSymbolResponse>> {
    b.on_snapshot("workspace symbols", None, move |snap| {
        ide::workspace_symbols(snap, params)
    })
    .await
}

pub(crate) async fn folding_range(
    b: &Backend,
    params: FoldingRangeParams,
) -> Result<Option<Vec<FoldingRange>>> {
    b.pretree(&params.text_document.uri).await;
    b.on_snapshot("folding", path_of(&params.text_document.uri), move |snap| {
        ide::folding(snap, params)
    })
    .await
}

pub(crate) async fn completion(
    b: &Backend,
    params: CompletionParams,
) -> Result<Option<CompletionResponse>> {
    let caps = b.caps();
    let snippets = caps.snippet_completion;
    let mut r = b
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

pub(crate) async fn signature_help(
    b: &Backend,
    params: SignatureHelpParams,
) -> Result<Option<SignatureHelp>> {
    b.on_snapshot(
        "signature help",
        path_of(&params.text_document_position_params.text_document.uri),
        move |snap| ide::signature_help(snap, params),
    )
    .await
}

pub(crate) async fn semantic_tokens_full(
    b: &Backend,
    params: SemanticTokensParams,
) -> Result<Option<SemanticTokensResult>> {
    let shared = b.shared.clone();
    b.on_snapshot(
        "semantic tokens",
        path_of(&params.text_document.uri),
        move |snap| ide::semantic_full(snap, &shared, params),
    )
    .await
}

pub(crate) async fn semantic_tokens_full_delta(
    b: &Backend,
    params: SemanticTokensDeltaParams,
) -> Result<Option<SemanticTokensFullDeltaResult>> {
    let shared = b.shared.clone();
    b.on_snapshot(
        "semantic tokens delta",
        path_of(&params.text_document.uri),
        move |snap| ide::semantic_delta(snap, &shared, params),
    )
    .await
}

pub(crate) async fn semantic_tokens_range(
    b: &Backend,
    params: SemanticTokensRangeParams,
) -> Result<Option<SemanticTokensRangeResult>> {
    b.on_snapshot(
        "semantic tokens range",
        path_of(&params.text_document.uri),
        move |snap| ide::semantic_range(snap, params),
    )
    .await
}

pub(crate) async fn inlay_hint(
    b: &Backend,
    params: InlayHintParams,
) -> Result<Option<Vec<InlayHint>>> {
    b.pretree(&params.text_document.uri).await;
    b.on_snapshot(
        "inlay hints",
        path_of(&params.text_document.uri),
        move |snap| ide::inlay_hints(snap, params),
    )
    .await
}

pub(crate) async fn document_highlight(
    b: &Backend,
    params: DocumentHighlightParams,
) -> Result<Option<Vec<DocumentHighlight>>> {
    b.on_snapshot(
        "document highlight",
        path_of(&params.text_document_position_params.text_document.uri),
        move |snap| ide::document_highlight(snap, params),
    )
    .await
}

pub(crate) async fn selection_range(
    b: &Backend,
    params: SelectionRangeParams,
) -> Result<Option<Vec<SelectionRange>>> {
    b.on_snapshot(
        "selection range",
        path_of(&params.text_document.uri),
        move |snap| ide::selection_ranges(snap, params),
    )
    .await
}

pub(crate) async fn document_link(
    b: &Backend,
    params: DocumentLinkParams,
) -> Result<Option<Vec<DocumentLink>>> {
    b.on_snapshot(
        "document links",
        path_of(&params.text_document.uri),
        move |snap| ide::document_links(snap, params),
    )
    .await
}

pub(crate) async fn prepare_call_hierarchy(
    b: &Backend,
    params: CallHierarchyPrepareParams,
) -> Result<Option<Vec<CallHierarchyItem>>> {
    b.on_snapshot(
        "call hierarchy",
        path_of(&params.text_document_position_params.text_document.uri),
        move |snap| ide::prepare_call_hierarchy(snap, params),
    )
    .await
}

pub(crate) async fn incoming_calls(
    b: &Backend,
    params: CallHierarchyIncomingCallsParams,
) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
    b.on_snapshot("incoming calls", path_of(&params.item.uri), move |snap| {
        ide::incoming_calls(snap, params)
    })
    .await
}

pub(crate) async fn outgoing_calls(
    b: &Backend,
    params: CallHierarchyOutgoingCallsParams,
) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
    b.on_snapshot("outgoing calls", path_of(&params.item.uri), move |snap| {
        ide::outgoing_calls(snap, params)
    })
    .await
}
