//! Code actions, their resolution, code lenses and `workspace/executeCommand`.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::features::{actions, lenses};
use crate::session::path_of;
use crate::state::Backend;

pub(crate) async fn code_action(
    b: &Backend,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let caps = b.caps();
    let shared = b.shared.clone();
    b.on_snapshot(
        "code action",
        path_of(&params.text_document.uri),
        move |snap| actions::code_actions(snap, &shared, &caps, params),
    )
    .await
}

pub(crate) async fn code_action_resolve(b: &Backend, params: CodeAction) -> Result<CodeAction> {
    let caps = b.caps();
    let shared = b.shared.clone();
    b.on_snapshot(
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

pub(crate) async fn code_lens(
    b: &Backend,
    params: CodeLensParams,
) -> Result<Option<Vec<CodeLens>>> {
    b.on_snapshot(
        "code lens",
        path_of(&params.text_document.uri),
        move |snap| lenses::code_lens(snap, params),
    )
    .await
}

pub(crate) async fn execute_command(
    b: &Backend,
    params: ExecuteCommandParams,
) -> Result<Option<LSPAny>> {
    super::commands::execute(b, params).await
}
