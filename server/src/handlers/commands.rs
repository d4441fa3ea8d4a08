//! `workspace/executeCommand`: `vox.applyEdit`, `vox.run`, `vox.runTest`, `vox.prove`,
//! `vox.stop`, `vox.showCaps`, `vox.revealSuppression` and the debug commands of the tests.

use std::path::Path;

use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use crate::base::invalid_params;
use crate::features::prove;
use crate::features::runs::{arg_config, arg_obj, arg_path, plan, start, APPLY_EDIT};
use crate::session::inferred_tokens;
use crate::state::Backend;

/// `vox.showCaps`'s result in one message: `greet.vox needs env:ro (env.get), time:real
/// (time.now_ms) — run from /ws`, then its notes.
fn caps_message(v: &Value) -> String {
    let file = v["file"].as_str().unwrap_or("");
    let name = Path::new(file)
        .file_name()
        .map_or_else(|| file.into(), |n| n.to_string_lossy());
    let tokens: Vec<String> = v["tokens"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|t| {
            let by: Vec<&str> = v["needed_by"][t]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if by.is_empty() {
                t.to_string()
            } else {
                format!("{t} ({})", by.join(", "))
            }
        })
        .collect();
    let mut text = if tokens.is_empty() {
        format!("{name} needs no capabilities (--caps none)")
    } else {
        format!("{name} needs {}", tokens.join(", "))
    };
    text.push_str(&format!(" — run from {}", v["cwd"].as_str().unwrap_or("")));
    for n in v["notes"].as_array().into_iter().flatten() {
        text.push_str(&format!("\nnote: {}", n.as_str().unwrap_or("")));
    }
    text
}

pub async fn execute(backend: &Backend, params: ExecuteCommandParams) -> Result<Option<Value>> {
    match params.command.as_str() {
        APPLY_EDIT => {
            let obj = arg_obj(&params)?;
            let edit: WorkspaceEdit = obj
                .get("edit")
                .cloned()
                .and_then(|e| serde_json::from_value(e).ok())
                .ok_or_else(|| invalid_params("missing or invalid \"edit\""))?;
            // Files the edit fills that the client cannot create (it lacks resourceOperations
            // `create`): made here, empty, before the edit is sent. Only run configuration files
            // of a workspace (Vox.toml, .vscode/tasks.json, .vscode/launch.json).
            let create: Vec<String> = obj
                .get("create")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|u| u.as_str().map(String::from))
                .collect();
            for uri in &create {
                let path = uri
                    .parse::<Uri>()
                    .ok()
                    .and_then(|u| crate::session::path_of(&u))
                    .filter(|p| backend.is_config(p))
                    .ok_or_else(|| {
                        invalid_params(format!(
                            "{uri} is not a run configuration file of the workspace; only Vox.toml and .vscode/tasks.json or launch.json are created"
                        ))
                    })?;
                if !path.exists() {
                    let made = path
                        .parent()
                        .map_or(Ok(()), std::fs::create_dir_all)
                        .and_then(|_| std::fs::write(&path, ""));
                    if let Err(e) = made {
                        return Err(invalid_params(format!(
                            "cannot create {}: {e}",
                            path.display()
                        )));
                    }
                }
            }
            let then: Option<Command> = obj
                .get("then")
                .filter(|t| !t.is_null())
                .cloned()
                .map(serde_json::from_value)
                .transpose()
                .map_err(|e| invalid_params(format!("invalid \"then\": {e}")))?;
            let applied = backend
                .client
                .apply_edit(edit)
                .await
                .map(|r| r.applied)
                .unwrap_or(false);
            if let (true, Some(c)) = (applied, then) {
                let next = ExecuteCommandParams {
                    command: c.command,
                    arguments: c.arguments.unwrap_or_default(),
                    work_done_progress_params: Default::default(),
                };
                Box::pin(execute(backend, next)).await?;
            }
            Ok(Some(json!({ "applied": applied })))
        }
        "vox.run" | "vox.runTest" => {
            let obj = arg_obj(&params)?;
            let path = arg_path(obj)?;
            let config = arg_config(obj)?;
            let test = if params.command == "vox.runTest" {
                Some(
                    obj.get("test")
                        .and_then(Value::as_str)
                        .ok_or_else(|| invalid_params("missing \"test\""))?
                        .to_string(),
                )
            } else {
                None
            };
            let p2 = path.clone();
            let plan = backend
                .on_snapshot("run", Some(path.clone()), move |snap| {
                    plan(snap, &p2, config.as_deref(), test.as_deref())
                })
                .await?;
            let id = start(backend, path, plan)?;
            Ok(Some(json!({ "runId": id })))
        }
        "vox.prove" => prove::execute(backend, params).await,
        "vox.stop" => {
            let obj = arg_obj(&params)?;
            let id = obj
                .get("runId")
                .and_then(Value::as_u64)
                .ok_or_else(|| invalid_params("missing \"runId\""))?;
            let stopped = backend.shared.runs.stop(id);
            Ok(Some(json!({ "stopped": stopped })))
        }
        "vox.showCaps" => {
            let obj = arg_obj(&params)?;
            let path = arg_path(obj)?;
            let caps = backend
                .on_snapshot("showCaps", Some(path.clone()), move |snap| {
                    let cwd = snap
                        .info
                        .runs_for(&path)
                        .first()
                        .map_or(snap.root.clone(), |r| r.cwd.clone());
                    let Some(tokens) = inferred_tokens(snap, &path, &cwd) else {
                        return Err(invalid_params(
                            "the script has syntax errors (or is not in the workspace)",
                        ));
                    };
                    Ok(Some(json!({
                        "file": path.to_string_lossy(),
                        "cwd": cwd.to_string_lossy(),
                        // Token strings (what the clients show and copy), and per token the
                        // builtins that need it.
                        "tokens": tokens.tokens.iter().map(|t| t.token.clone()).collect::<Vec<_>>(),
                        "needed_by": tokens.tokens.iter().map(|t| (t.token.clone(), json!(t.needed_by))).collect::<serde_json::Map<_, _>>(),
                        "notes": tokens.notes,
                    })))
                })
                .await?;
            // Also as a message (decision 54): a client that does not know the command's
            // result (the `caps:` code lens in any editor) still shows it.
            if let Some(v) = caps.as_ref().filter(|_| !backend.caps().presents_caps) {
                backend
                    .client
                    .show_message(MessageType::INFO, caps_message(v))
                    .await;
            }
            Ok(caps)
        }
        "vox.revealSuppression" => {
            let obj = arg_obj(&params)?;
            let uri: Uri = obj
                .get("uri")
                .and_then(Value::as_str)
                .and_then(|u| u.parse().ok())
                .ok_or_else(|| invalid_params("missing \"uri\""))?;
            let pos: Position = obj
                .get("position")
                .cloned()
                .and_then(|p| serde_json::from_value(p).ok())
                .ok_or_else(|| invalid_params("missing \"position\""))?;
            if backend.caps().show_document {
                let client = backend.client.clone();
                tokio::spawn(async move {
                    let _ = client
                        .show_document(ShowDocumentParams {
                            uri,
                            external: None,
                            take_focus: Some(true),
                            selection: Some(Range::new(pos, pos)),
                        })
                        .await;
                });
            }
            Ok(None)
        }
        // For the isolation test only: a handler that panics must fail alone.
        "vox.debug.panic" if std::env::var_os("VOX_LSP_DEBUG").is_some() => {
            backend
                .on_snapshot("vox.debug.panic", None, |_| -> Result<Option<Value>> {
                    panic!("a deliberate panic (VOX_LSP_DEBUG)")
                })
                .await
        }
        // For the scale tests only (issue 20): what requests did, and holding them at a check.
        "vox.debug.work" if crate::work::debug::enabled() => Ok(Some(crate::work::debug::report())),
        "vox.debug.hold" if crate::work::debug::enabled() => {
            let on = params
                .arguments
                .first()
                .and_then(|v| v.get("on"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            crate::work::debug::HOLD.store(on, std::sync::atomic::Ordering::SeqCst);
            Ok(None)
        }
        other => Err(Error::invalid_params(format!("unknown command {other:?}"))),
    }
}
