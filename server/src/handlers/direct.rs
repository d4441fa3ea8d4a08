//! Requests the stdio edge answers itself (`vox/directRequest`, the semantic tokens): run like
//! any request, their result serialised once and written straight to the output.

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use crate::base::{internal, invalid_params, lock};
use crate::features::ide;
use crate::session::path_of;
use crate::state::Backend;
use crate::transport;

impl Backend {
    /// A request the stdio edge took over (`transport::DIRECT_METHOD`): computed like any
    /// request, in order with the notifications before it, and answered straight to the output
    /// with its result serialised once (through the client, a 5 MB file's semantic tokens were
    /// first built as a JSON value of several million numbers).
    pub(crate) async fn direct_request(&self, p: serde_json::Value) {
        let id = p.get("id").cloned().unwrap_or(serde_json::Value::Null);
        let key = id.to_string();
        let method = p
            .get("method")
            .and_then(|m| m.as_str())
            .unwrap_or("")
            .to_string();
        let params = p.get("params").cloned().unwrap_or(serde_json::Value::Null);
        let Some(flag) = lock(&self.shared.direct.requests).get(&key).cloned() else {
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
        if lock(&self.shared.direct.requests).remove(&key).is_none() {
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
        if let Some(tx) = self.shared.direct.out.get() {
            let _ = tx.send(transport::encode(body.as_bytes()).into());
        }
    }
}
