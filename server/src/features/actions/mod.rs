//! Code actions (editors.md §2): every fix of a finding as a quick fix; `source.fixAll.vox`
//! (the safe fixes, as `vox lint --fix` applies them); "Suppress CODE with a reason"; C001 and
//! C002 fixes that edit the run configuration; the three "Run with inferred capabilities"
//! actions; replacing the legacy directive; and the fixes of run diagnostics (grant the token,
//! raise the ceiling). Configuration edits go through `vox_caps::config` (comments and layout
//! kept). Edits that grant capabilities carry a `needsConfirmation` change annotation when the
//! client supports them; other files are edited with `documentChanges` (and `CreateFile`) when
//! the client supports them, else with `changes`.
//!
//! Every fix docs/rules lists is offered (tests/lsp/fixes); C001 and C002 also at the run
//! configuration entry in Vox.toml, tasks.json or launch.json, and D003/D006's pins are computed
//! on the editor's text of the configuration file. `context.only` filters kinds hierarchically.
//! Each action is built with its edit as a function ([`Lazy`]): clients that resolve code
//! actions get `data` instead, and the edit from `codeAction/resolve` ([`resolve`]).

mod edit;
mod fixes;

use crate::base::{internal, lock};
use crate::convert::{self, admits};
use crate::diagnostics::{to_diagnostic, Ropes};
use crate::run_registry::RunDiagnostic;
use crate::session::path_of;
use crate::session::{config_kind, is_script, Snapshot};
use crate::state::{ClientCaps, Shared};
use edit::*;
use fixes::*;
use std::path::Path;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use vox_lints::Applicability;

pub use edit::{workspace_edit, Change};
pub use fixes::fix_all_changes;

pub const FIX_ALL: &str = "source.fixAll.vox";

/// Whether any kind beneath `family` may be wanted: `only: ["refactor.rewrite"]` needs the
/// refactors computed, and filters them afterwards.
fn may_want(only: Option<&[CodeActionKind]>, family: &str) -> bool {
    admits(only, family)
        || only.is_some_and(|o| {
            o.iter()
                .any(|w| w.as_str().starts_with(&format!("{family}.")))
        })
}

/// What a lazily sent action carries in `data`, to compute its edit in `codeAction/resolve`:
/// the request it came from (document, version, range, kinds) and its place in the answer,
/// with its title, finding code and fix index to check that it is still the same action.
struct ResolveData {
    uri: Uri,
    version: Option<i32>,
    range: Range,
    only: Option<Vec<CodeActionKind>>,
    index: usize,
    title: String,
    code: Option<String>,
    fix: Option<usize>,
}

impl ResolveData {
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "uri": self.uri,
            "version": self.version,
            "range": self.range,
            "only": self.only,
            "index": self.index,
            "title": self.title,
            "code": self.code,
            "fix": self.fix,
        })
    }

    fn from_json(v: &serde_json::Value) -> std::result::Result<ResolveData, String> {
        let field = |k: &str| v.get(k).cloned().ok_or_else(|| format!("no `{k}`"));
        let parse = |k: &str| -> std::result::Result<serde_json::Value, String> { field(k) };
        Ok(ResolveData {
            uri: serde_json::from_value(parse("uri")?).map_err(|e| format!("`uri`: {e}"))?,
            version: serde_json::from_value(parse("version")?)
                .map_err(|e| format!("`version`: {e}"))?,
            range: serde_json::from_value(parse("range")?).map_err(|e| format!("`range`: {e}"))?,
            only: serde_json::from_value(v.get("only").cloned().unwrap_or_default())
                .map_err(|e| format!("`only`: {e}"))?,
            index: v["index"]
                .as_u64()
                .ok_or_else(|| "no `index`".to_string())? as usize,
            title: v["title"]
                .as_str()
                .ok_or_else(|| "no `title`".to_string())?
                .to_string(),
            code: v["code"].as_str().map(str::to_string),
            fix: v["fix"].as_u64().map(|i| i as usize),
        })
    }
}

/// Every action for a range, each with its edit still to compute, in answer order (already
/// filtered by `only`); an action built by a [`Lazy`] has its edit function beside it.
fn action_list<'a>(
    snap: &'a Snapshot,
    shared: &Shared,
    caps: &'a ClientCaps,
    params: &CodeActionParams,
) -> Vec<(Lazy<'a>, Option<(String, usize)>)> {
    let Some(path) = path_of(&params.text_document.uri) else {
        return Vec::new();
    };
    let only = params.context.only.as_deref();
    if config_kind(&snap.root, &path).is_some() {
        return config_actions(snap, caps, &path, params.range, only);
    }
    if !is_script(&path) || snap.file(&path).is_none() {
        return Vec::new();
    }
    let rope = snap.rope(&path);
    let range = convert::text_range(&rope, snap.encoding, params.range);
    let findings = snap.findings(&path);
    let mut ropes = Ropes::new(snap);
    // Each action, with the code and fix index of the finding's fix it applies.
    let mut out: Vec<(Lazy<'a>, Option<(String, usize)>)> = Vec::new();
    let mut directive_fixed = false;
    if may_want(only, CodeActionKind::QUICKFIX.as_str()) {
        for f in findings.iter().filter(|f| overlaps(f.range, range)) {
            let diag = to_diagnostic(f, &mut ropes);
            // C001 and C002 get the server's own configuration edit below (computed from the
            // editor's text of the configuration file, which may be unsaved); so do the D003
            // and D006 fixes that pin the clock or the stream there.
            let own_caps_fix = f.code == "C001" || f.code == "C002";
            for (i, fix) in f.fixes.iter().enumerate().filter(|_| !own_caps_fix) {
                let pinned = if f.code == "D003" || f.code == "D006" {
                    pin_fix(snap, caps, &path, fix)
                } else {
                    None
                };
                // A new run configuration is the server's own edit or none (a client that
                // cannot create Vox.toml gets none).
                if pinned.is_none() && fix.title.starts_with(vox_lints::NEW_RUN_TITLE) {
                    continue;
                }
                let mut a = pinned.unwrap_or_else(|| {
                    let changes: Vec<Change> = fix
                        .edits
                        .iter()
                        .map(|e| Change::Edit {
                            path: e.file.to_path_buf(),
                            edits: vec![(e.range, e.new_text.to_string())],
                        })
                        .collect();
                    let mut a =
                        action(fix.title.to_string(), CodeActionKind::QUICKFIX, move || {
                            workspace_edit(snap, caps, changes, None)
                        });
                    a.action.is_preferred =
                        Some(i == 0 && fix.applicability == Applicability::Safe);
                    a
                });
                a.action.diagnostics = Some(vec![diag.clone()]);
                out.push((a, Some((f.code.to_string(), i))));
            }
            if own_caps_fix {
                if let Some(mut a) = caps_fix(snap, caps, f, &path, None) {
                    a.action.diagnostics = Some(vec![diag.clone()]);
                    out.push((a, Some((f.code.to_string(), 0))));
                }
            }
            if f.code == "C003" && !directive_fixed {
                if let Some(mut a) = replace_directive(snap, caps, &path, CodeActionKind::QUICKFIX)
                {
                    a.action.diagnostics = Some(vec![diag.clone()]);
                    a.action.is_preferred = Some(false);
                    out.push((a, Some((f.code.to_string(), f.fixes.len()))));
                    directive_fixed = true;
                }
            }
            if suppressible(&f.code) {
                if let Some(a) = suppress_action(snap, caps, f, &diag) {
                    out.push((a, None));
                }
            }
        }
        let run_diags: Vec<RunDiagnostic> = lock(&shared.run_diags)
            .get(&path)
            .cloned()
            .unwrap_or_default();
        for rd in &run_diags {
            let r = convert::text_range(&rope, snap.encoding, rd.diagnostic.range);
            if overlaps(r, range) {
                out.extend(
                    run_fixes(snap, caps, &path, rd)
                        .into_iter()
                        .map(|a| (a, None)),
                );
            }
        }
    }
    for a in super::prove::actions(
        snap,
        &path,
        params.text_document.uri.as_str(),
        &findings,
        range,
        only,
        &mut ropes,
    ) {
        // Command only: nothing to resolve.
        if let CodeActionOrCommand::CodeAction(action) = a {
            out.push((Lazy { action, edit: None }, None));
        }
    }
    if may_want(only, FIX_ALL) {
        let changes = fix_all_changes(&findings);
        if !changes.is_empty() {
            out.push((
                action(
                    "Fix all safe vox findings".into(),
                    CodeActionKind::new(FIX_ALL),
                    move || workspace_edit(snap, caps, changes, None),
                ),
                None,
            ));
        }
    }
    if may_want(only, CodeActionKind::REFACTOR.as_str()) {
        out.extend(
            run_config_actions(snap, caps, &path)
                .into_iter()
                .map(|a| (a, None)),
        );
        // At a C003 finding the replacement is already offered as its quick fix.
        if !directive_fixed {
            if let Some(a) = replace_directive(snap, caps, &path, CodeActionKind::REFACTOR_REWRITE)
            {
                out.push((a, None));
            }
        }
    }
    out.retain(|(a, _)| {
        a.action
            .kind
            .as_ref()
            .is_none_or(|k| admits(only, k.as_str()))
    });
    out
}

/// The C001 and C002 fixes at a run configuration entry in a configuration file (decision 39
/// reports them there too): they edit that entry.
fn config_actions<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    path: &Path,
    range: Range,
    only: Option<&[CodeActionKind]>,
) -> Vec<(Lazy<'a>, Option<(String, usize)>)> {
    if !admits(only, CodeActionKind::QUICKFIX.as_str()) {
        return Vec::new();
    }
    let rope = snap.rope(path);
    let range = convert::text_range(&rope, snap.encoding, range);
    let mut ropes = Ropes::new(snap);
    let mut out = Vec::new();
    for f in snap
        .config_findings(path)
        .iter()
        .filter(|f| (f.code == "C001" || f.code == "C002") && overlaps(f.range, range))
    {
        let Some(name) = run_name(&f.message) else {
            continue;
        };
        // The script whose finding this is: the entry's.
        let Some(run) = snap
            .config
            .runs
            .iter()
            .find(|r| r.name == name && r.origin.file == path)
        else {
            continue;
        };
        let diag = to_diagnostic(f, &mut ropes);
        if let Some(mut a) = caps_fix(snap, caps, f, &run.script, Some(path)) {
            a.action.diagnostics = Some(vec![diag]);
            out.push((a, Some((f.code.to_string(), 0))));
        }
    }
    out
}

pub fn code_actions(
    snap: &Snapshot,
    shared: &Shared,
    caps: &ClientCaps,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let Some(path) = path_of(&params.text_document.uri) else {
        return Ok(None);
    };
    if config_kind(&snap.root, &path).is_none() && (!is_script(&path) || snap.file(&path).is_none())
    {
        return Ok(None);
    }
    let list = action_list(snap, shared, caps, &params);
    let version = snap.docs.get(&path).map(|d| d.version);
    let mut out: Vec<CodeActionOrCommand> = Vec::new();
    for (index, (lazy, fix)) in list.into_iter().enumerate() {
        let mut a = lazy.action;
        // `isPreferred` only for a client that says it reads it.
        if !caps.is_preferred {
            a.is_preferred = None;
        }
        let Some(edit) = lazy.edit else {
            out.push(CodeActionOrCommand::CodeAction(a));
            continue;
        };
        if caps.code_action_resolve {
            // The edit is computed in `codeAction/resolve`, from this.
            let data = ResolveData {
                uri: params.text_document.uri.clone(),
                version,
                range: params.range,
                only: params.context.only.clone(),
                index,
                title: a.title.clone(),
                code: fix.as_ref().map(|(c, _)| c.clone()),
                fix: fix.map(|(_, i)| i),
            };
            a.data = Some(data.to_json());
        } else {
            // An action whose edit cannot be made (a configuration file that does not parse)
            // is not offered.
            match edit() {
                Ok(e) => a.edit = Some(e),
                Err(_) => continue,
            }
        }
        out.push(CodeActionOrCommand::CodeAction(a));
    }
    if !caps.code_action_literals {
        // A client that cannot take code-action literals takes commands that do the same.
        out = out
            .into_iter()
            .filter_map(|a| match a {
                CodeActionOrCommand::CodeAction(a) => {
                    super::runs::as_command(a).map(CodeActionOrCommand::Command)
                }
                c => Some(c),
            })
            .collect();
    }
    Ok(Some(out))
}

fn content_modified(message: &str) -> Error {
    Error {
        code: ErrorCode::ContentModified,
        message: message.to_string().into(),
        data: None,
    }
}

/// `codeAction/resolve`: the edit of an action sent without one. The actions of the request
/// are listed again on the current text; a document edited since (another version) answers
/// ContentModified, so the client asks for the actions again instead of applying an edit
/// computed for text that is gone.
pub fn resolve(
    snap: &Snapshot,
    shared: &Shared,
    caps: &ClientCaps,
    mut action: CodeAction,
) -> Result<CodeAction> {
    if action.edit.is_some() {
        return Ok(action);
    }
    let Some(data) = action.data.clone() else {
        // Nothing was left to compute: an action that only runs a command (`vox.prove`) is
        // complete as sent, and VS Code resolves every action it is about to apply.
        if action.command.is_some() {
            return Ok(action);
        }
        return Err(Error::invalid_params(format!(
            "code action `{}` has no `data`: only actions this server sent without an edit can be resolved",
            action.title
        )));
    };
    let data = ResolveData::from_json(&data).map_err(|e| {
        Error::invalid_params(format!(
            "the `data` of code action `{}` is not what this server sent ({e}); ask for the code actions again",
            action.title
        ))
    })?;
    let Some(path) = path_of(&data.uri) else {
        return Err(Error::invalid_params(format!(
            "code action `{}`: {} is not a file URI",
            action.title,
            data.uri.as_str()
        )));
    };
    let now = snap.docs.get(&path).map(|d| d.version);
    if now != data.version {
        return Err(content_modified(&format!(
            "{} changed since the code actions were listed (version {} now, {} then); ask for them again",
            path.display(),
            now.map_or("closed".to_string(), |v| v.to_string()),
            data.version.map_or("closed".to_string(), |v| v.to_string()),
        )));
    }
    let params = CodeActionParams {
        text_document: TextDocumentIdentifier {
            uri: data.uri.clone(),
        },
        range: data.range,
        context: CodeActionContext {
            diagnostics: Vec::new(),
            only: data.only.clone(),
            trigger_kind: None,
        },
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let mut list = action_list(snap, shared, caps, &params);
    if data.index >= list.len() || list[data.index].0.action.title != data.title {
        return Err(content_modified(&format!(
            "code action `{}` no longer applies (the findings or the run configurations changed); ask for the code actions again",
            data.title
        )));
    }
    let (lazy, _) = list.swap_remove(data.index);
    let Some(edit) = lazy.edit else {
        return Ok(action);
    };
    let edit = edit().map_err(|e| {
        internal(format!(
            "code action `{}`: cannot compute its edit: {e}",
            data.title
        ))
    })?;
    action.edit = Some(edit);
    Ok(action)
}
