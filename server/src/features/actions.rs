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

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use vox_caps::config::{ConfigKind, RunConfig};
use vox_lints::{Applicability, Finding};
use vox_syntax::TextRange;

use crate::base::{internal, lock};
use crate::convert::{self, admits};
use crate::diagnostics::{to_diagnostic, uri_of, Ropes};
use crate::run_registry::RunDiagnostic;
use crate::session::path_of;
use crate::session::{config_kind, config_path, inferred_tokens, is_script, Snapshot};
use crate::state::{ClientCaps, Shared};

pub const FIX_ALL: &str = "source.fixAll.vox";
pub const RUN_CONFIG_TITLE: &str = "Run with inferred capabilities: add to";
const GRANT: &str = "vox.grant";

/// One file's change in byte terms.
pub enum Change {
    Edit {
        path: PathBuf,
        edits: Vec<(TextRange, String)>,
    },
    Create {
        path: PathBuf,
        text: String,
    },
}

/// Builds the protocol edit the client can apply.
///
/// A file that does not exist is only created for a client that can create files
/// (`resourceOperations` with `create`, in `documentChanges`): to any other, an edit of it is
/// invalid (LSP 3.17), and this says so instead. Actions that would need one are left out for
/// such a client ([`can_edit`]); this is the guard behind them.
pub fn workspace_edit(
    snap: &Snapshot,
    caps: &ClientCaps,
    changes: Vec<Change>,
    grant: Option<String>,
) -> std::result::Result<WorkspaceEdit, String> {
    if !caps.create_files {
        if let Some(Change::Create { path, .. }) =
            changes.iter().find(|c| matches!(c, Change::Create { .. }))
        {
            return Err(format!(
                "{} does not exist, and the client cannot create files (its workspace.workspaceEdit has no documentChanges with resourceOperations [\"create\"])",
                path.display()
            ));
        }
    }
    let enc = snap.encoding;
    let annotate = grant.is_some() && caps.change_annotations && caps.document_changes;
    let text_edits = |path: &Path, edits: &[(TextRange, String)]| -> Vec<TextEdit> {
        let rope = snap.rope(path);
        edits
            .iter()
            .map(|(r, t)| TextEdit::new(convert::range(&rope, enc, *r), t.clone()))
            .collect()
    };
    let wrap = |edits: Vec<TextEdit>| -> Vec<OneOf<TextEdit, AnnotatedTextEdit>> {
        edits
            .into_iter()
            .map(|e| {
                if annotate {
                    OneOf::Right(AnnotatedTextEdit {
                        text_edit: e,
                        annotation_id: GRANT.into(),
                    })
                } else {
                    OneOf::Left(e)
                }
            })
            .collect()
    };
    let annotations = annotate.then(|| {
        let mut m = HashMap::new();
        m.insert(
            GRANT.to_string(),
            ChangeAnnotation {
                label: "Grant capabilities".into(),
                needs_confirmation: Some(true),
                description: grant.clone(),
            },
        );
        m
    });
    if caps.document_changes {
        let mut ops: Vec<DocumentChangeOperation> = Vec::new();
        for c in changes {
            match c {
                Change::Edit { path, edits } => {
                    let Some(uri) = uri_of(&path) else { continue };
                    let version = snap.docs.get(&path).map(|d| d.version);
                    ops.push(DocumentChangeOperation::Edit(TextDocumentEdit {
                        text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
                        edits: wrap(text_edits(&path, &edits)),
                    }));
                }
                Change::Create { path, text } => {
                    let Some(uri) = uri_of(&path) else { continue };
                    // The client can create files (checked above).
                    ops.push(DocumentChangeOperation::Op(ResourceOp::Create(
                        CreateFile {
                            uri: uri.clone(),
                            options: Some(CreateFileOptions {
                                overwrite: Some(false),
                                ignore_if_exists: Some(true),
                            }),
                            annotation_id: annotate.then(|| GRANT.to_string()),
                        },
                    )));
                    let insert = TextEdit::new(Range::default(), text);
                    ops.push(DocumentChangeOperation::Edit(TextDocumentEdit {
                        text_document: OptionalVersionedTextDocumentIdentifier {
                            uri,
                            version: None,
                        },
                        edits: wrap(vec![insert]),
                    }));
                }
            }
        }
        Ok(WorkspaceEdit {
            changes: None,
            document_changes: Some(DocumentChanges::Operations(ops)),
            change_annotations: annotations,
        })
    } else {
        let mut map: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
        for c in changes {
            match c {
                Change::Edit { path, edits } => {
                    if let Some(uri) = uri_of(&path) {
                        map.entry(uri)
                            .or_default()
                            .extend(text_edits(&path, &edits));
                    }
                }
                Change::Create { path, text } => {
                    if let Some(uri) = uri_of(&path) {
                        map.entry(uri)
                            .or_default()
                            .push(TextEdit::new(Range::default(), text));
                    }
                }
            }
        }
        Ok(WorkspaceEdit {
            changes: Some(map),
            document_changes: None,
            change_annotations: None,
        })
    }
}

/// Whether an edit of `file` can be sent to the client: the file exists (on disk or as an open
/// document), or the client can create it.
fn can_edit(snap: &Snapshot, caps: &ClientCaps, file: &Path) -> bool {
    caps.create_files || snap.docs.contains_key(file) || file.is_file()
}

/// The smallest single edit turning `old` into `new`.
pub fn minimal_edit(old: &str, new: &str) -> (TextRange, String) {
    let mut pre = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(pre) || !new.is_char_boundary(pre) {
        pre -= 1;
    }
    let max_suf = old.len().min(new.len()) - pre;
    let mut suf = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suf)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suf) || !new.is_char_boundary(new.len() - suf) {
        suf -= 1;
    }
    (
        TextRange::new(pre as u32, (old.len() - suf) as u32),
        new[pre..new.len() - suf].to_string(),
    )
}

/// The script's path as run configurations write it: relative to the root, with `/`.
pub fn script_rel(root: &Path, script: &Path) -> String {
    let rel = script.strip_prefix(root).unwrap_or(script);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The edit setting the caps of the run configuration of `script` in the file of `kind`
/// (created if missing): the entry `entry` in Vox.toml, the entry for the script in the JSON
/// files (a new one labelled `entry`).
pub fn config_change(
    snap: &Snapshot,
    kind: ConfigKind,
    file: &Path,
    script: &Path,
    entry: &str,
    caps: &[String],
) -> std::result::Result<Change, String> {
    let old = snap.text(file);
    let exists = old.is_some();
    let old = old.unwrap_or_default();
    let rel = script_rel(&snap.root, script);
    let new = match kind {
        ConfigKind::VoxToml => vox_caps::config::set_caps_vox_toml(&old, entry, &rel, caps),
        ConfigKind::Tasks => vox_caps::config::set_caps_tasks_json(&old, &rel, entry, caps),
        ConfigKind::Launch => vox_caps::config::set_caps_launch_json(&old, &rel, entry, caps),
    }
    .map_err(|e| e.message)?;
    Ok(text_change(file, exists, &old, new))
}

fn text_change(file: &Path, exists: bool, old: &str, new: String) -> Change {
    if exists {
        let (r, t) = minimal_edit(old, &new);
        Change::Edit {
            path: file.to_path_buf(),
            edits: vec![(r, t)],
        }
    } else {
        Change::Create {
            path: file.to_path_buf(),
            text: new,
        }
    }
}

/// The entry name for a new run configuration of `script` in the file of `kind`, or the name of
/// the one it has there.
fn entry_for(snap: &Snapshot, kind: ConfigKind, script: &Path) -> String {
    if let Some(r) = snap
        .info
        .runs_for(script)
        .into_iter()
        .find(|r| r.origin.kind == kind)
    {
        return r.name.clone();
    }
    let names: Vec<String> = snap
        .config
        .runs
        .iter()
        .filter(|r| r.origin.kind == kind)
        .map(|r| r.name.clone())
        .collect();
    vox_caps::config::entry_name_for(script, &names)
}

/// Computes an action's edit, or says why it cannot be made.
type EditFn<'a> = Box<dyn FnOnce() -> std::result::Result<WorkspaceEdit, String> + 'a>;

/// An action whose edit is computed only when needed: while answering `codeAction` for
/// clients that cannot resolve, in `codeAction/resolve` for the others. `edit: None`: an
/// action that only runs a command, sent as it is.
struct Lazy<'a> {
    action: CodeAction,
    edit: Option<EditFn<'a>>,
}

fn action<'a>(
    title: String,
    kind: CodeActionKind,
    edit: impl FnOnce() -> std::result::Result<WorkspaceEdit, String> + 'a,
) -> Lazy<'a> {
    Lazy {
        action: CodeAction {
            title,
            kind: Some(kind),
            ..CodeAction::default()
        },
        edit: Some(Box::new(edit)),
    }
}

fn overlaps(a: TextRange, b: TextRange) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// `run configuration \`NAME\`` in a C001/C002 message.
fn run_name(message: &str) -> Option<&str> {
    let rest = message.split_once("run configuration `")?.1;
    rest.split_once('`').map(|(n, _)| n)
}

/// `add "TOKEN"` / `remove "TOKEN"` in a C001/C002 help.
fn quoted_token<'a>(help: &'a str, verb: &str) -> Option<&'a str> {
    let rest = help.split_once(&format!("{verb} \""))?.1;
    rest.split_once('"').map(|(t, _)| t)
}

fn config_of<'a>(snap: &'a Snapshot, script: &Path, name: &str) -> Option<&'a RunConfig> {
    snap.info
        .runs_for(script)
        .into_iter()
        .find(|r| r.name == name)
}

/// The C001/C002 fix: the caps of the named run configuration with a token added or removed.
/// `entry_file`: the configuration file the finding is in (the fix at a configuration entry
/// edits that file's entry).
fn caps_fix<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    f: &Finding,
    script: &Path,
    entry_file: Option<&Path>,
) -> Option<Lazy<'a>> {
    let name = run_name(&f.message)?;
    let help = f.help.as_deref()?;
    let run = match entry_file {
        Some(file) => snap
            .config
            .runs
            .iter()
            .find(|r| r.name == name && r.origin.file == file && r.script == script),
        None => config_of(snap, script, name),
    }?;
    let mut list = run.caps.clone().unwrap_or_default();
    let (title, grant) = if f.code == "C001" {
        let token = quoted_token(help, "add")?;
        if !list.iter().any(|t| t == token) {
            list.push(token.to_string());
        }
        (
            format!(
                "Add \"{token}\" to run configuration `{name}` ({})",
                run.origin.kind.file_name()
            ),
            Some(format!("grants {token} to `{name}`")),
        )
    } else {
        let token = quoted_token(help, "remove")?;
        list.retain(|t| t != token);
        (
            format!(
                "Remove \"{token}\" from run configuration `{name}` ({})",
                run.origin.kind.file_name()
            ),
            None,
        )
    };
    let (kind, file, name) = (run.origin.kind, run.origin.file.clone(), name.to_string());
    let script = script.to_path_buf();
    let mut a = action(title, CodeActionKind::QUICKFIX, move || {
        let change = config_change(snap, kind, &file, &script, &name, &list)?;
        workspace_edit(snap, caps, vec![change], grant)
    });
    // Removing an unused token is safe; granting one is not (docs/rules/C001.md, C002.md).
    a.action.is_preferred = Some(f.code == "C002");
    Some(a)
}

/// `Add \`TOKEN\` to run configuration \`NAME\`` (the D003/D006 fix title): the token and the
/// run configuration's name.
fn pin_title(title: &str) -> Option<(&str, &str)> {
    let rest = title.strip_prefix("Add `")?;
    let (token, rest) = rest.split_once('`')?;
    let name = rest
        .strip_prefix(" to run configuration `")?
        .strip_suffix('`')?;
    Some((token, name))
}

/// The D003/D006 fix (pin the clock or the stream in a run configuration), computed on the
/// editor's text of the configuration file, which may be unsaved: the configuration's
/// `time:*` (or `random:*`) tokens replaced by the pinned one, as `vox lint --fix
/// --unsafe-fixes` does on the saved file.
fn pin_fix<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    script: &Path,
    fix: &vox_lints::Fix,
) -> Option<Lazy<'a>> {
    if let Some(rest) = fix.title.strip_prefix(vox_lints::NEW_RUN_TITLE) {
        return new_run_fix(snap, caps, script, rest, &fix.title);
    }
    let (token, name) = pin_title(&fix.title)?;
    let namespace = token.split(':').next()?.to_string();
    let run = config_of(snap, script, name)?;
    let mut list: Vec<String> = run
        .caps
        .iter()
        .flatten()
        .filter(|t| t.split(':').next() != Some(namespace.as_str()))
        .cloned()
        .collect();
    list.push(token.to_string());
    let (kind, file, name) = (run.origin.kind, run.origin.file.clone(), name.to_string());
    let script = script.to_path_buf();
    let mut a = action(fix.title.clone(), CodeActionKind::QUICKFIX, move || {
        let change = config_change(snap, kind, &file, &script, &name, &list)?;
        workspace_edit(snap, caps, vec![change], None)
    });
    a.action.is_preferred = Some(false);
    Some(a)
}

/// The D003/D006 fix for a script no configuration runs: a Vox.toml entry for it with the
/// inferred caps, the clock or the stream pinned (title: "Create run configuration `NAME` in
/// Vox.toml with `TOKEN`"), made as "Run with inferred capabilities: add to Vox.toml" makes its
/// entry (the file created when missing).
fn new_run_fix<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    script: &Path,
    rest: &str,
    title: &str,
) -> Option<Lazy<'a>> {
    let token = rest.rsplit('`').nth(1)?.to_string();
    let namespace = token.split(':').next()?.to_string();
    let tokens = inferred_tokens(snap, script, &snap.root)?;
    let mut list: Vec<String> = tokens
        .tokens
        .iter()
        .map(|t| t.token.clone())
        .filter(|t| t.split(':').next() != Some(namespace.as_str()))
        .collect();
    list.push(token);
    let entry = entry_for(snap, ConfigKind::VoxToml, script);
    let file = config_path(&snap.root, ConfigKind::VoxToml);
    if !can_edit(snap, caps, &file) {
        return None;
    }
    let grant = format!("grants {} to `{entry}`", list.join(", "));
    let script = script.to_path_buf();
    let mut a = action(title.to_string(), CodeActionKind::QUICKFIX, move || {
        let change = config_change(snap, ConfigKind::VoxToml, &file, &script, &entry, &list)?;
        workspace_edit(snap, caps, vec![change], Some(grant))
    });
    a.action.is_preferred = Some(false);
    Some(a)
}

fn suppressible(code: &str) -> bool {
    vox_lints::rule(code).is_some() && !code.starts_with('L')
}

/// Inserts `// vox:allow(CODE): ` on a line of its own above the finding's line.
fn suppress_action<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    f: &Finding,
    diag: &Diagnostic,
) -> Option<Lazy<'a>> {
    let rope = snap.rope(&f.file);
    let pos = convert::position(&rope, convert::Encoding::Utf8, f.range.start);
    let line = pos.line as usize;
    let line_start = rope.line_to_byte(line.min(rope.len_lines().saturating_sub(1)));
    let line_text: String = rope
        .line(line.min(rope.len_lines().saturating_sub(1)))
        .to_string();
    let indent: String = line_text
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let comment = format!("{indent}// vox:allow({}): ", f.code);
    let nl = if line_text.ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let at = TextRange::new(line_start as u32, line_start as u32);
    let uri = uri_of(&f.file)?;
    // The cursor goes after the colon, where the reason is written.
    let cursor_col = match snap.encoding {
        convert::Encoding::Utf8 => comment.len(),
        convert::Encoding::Utf16 => comment.encode_utf16().count(),
    };
    let cursor = Position::new(line as u32, cursor_col as u32);
    let file = f.file.clone();
    let mut a = action(
        format!("Suppress {} with a reason", f.code),
        CodeActionKind::QUICKFIX,
        move || {
            workspace_edit(
                snap,
                caps,
                vec![Change::Edit {
                    path: file,
                    edits: vec![(at, format!("{comment}{nl}"))],
                }],
                None,
            )
        },
    );
    a.action.diagnostics = Some(vec![diag.clone()]);
    a.action.command = Some(Command {
        title: "Write the reason".into(),
        command: "vox.revealSuppression".into(),
        arguments: Some(vec![
            serde_json::json!({"uri": uri.as_str(), "position": cursor}),
        ]),
    });
    Some(a)
}

/// The safe fixes of a file, as `vox lint --fix` takes them: at most one per finding, none
/// overlapping an edit already taken.
pub fn fix_all_changes(findings: &[std::sync::Arc<Finding>]) -> Vec<Change> {
    let mut per_file: BTreeMap<PathBuf, Vec<(TextRange, String)>> = BTreeMap::new();
    for f in findings {
        let Some(fix) = f
            .fixes
            .iter()
            .find(|x| x.applicability == Applicability::Safe)
        else {
            continue;
        };
        let clash = fix.edits.iter().any(|e| {
            per_file.get(&e.file).is_some_and(|taken| {
                taken.iter().any(|(t, _)| {
                    t.start < e.range.end.max(e.range.start + 1)
                        && e.range.start < t.end.max(t.start + 1)
                })
            })
        });
        if clash {
            continue;
        }
        for e in &fix.edits {
            per_file
                .entry(e.file.clone())
                .or_default()
                .push((e.range, e.new_text.clone()));
        }
    }
    per_file
        .into_iter()
        .map(|(path, mut edits)| {
            edits.sort_by_key(|(r, _)| (r.start, r.end));
            Change::Edit { path, edits }
        })
        .collect()
}

/// The three "Run with inferred capabilities" actions.
fn run_config_actions<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    script: &Path,
) -> Vec<Lazy<'a>> {
    let mut out = Vec::new();
    for (kind, shown) in [
        (ConfigKind::VoxToml, "Vox.toml"),
        (ConfigKind::Tasks, ".vscode/tasks.json"),
        (ConfigKind::Launch, ".vscode/launch.json"),
    ] {
        let existing = snap
            .info
            .runs_for(script)
            .into_iter()
            .find(|r| r.origin.kind == kind)
            .cloned();
        let cwd = existing
            .as_ref()
            .map_or(snap.root.clone(), |r| r.cwd.clone());
        let Some(tokens) = inferred_tokens(snap, script, &cwd) else {
            continue;
        };
        let list: Vec<String> = tokens.tokens.iter().map(|t| t.token.clone()).collect();
        let file = existing
            .as_ref()
            .map_or_else(|| config_path(&snap.root, kind), |r| r.origin.file.clone());
        // A missing file only for a client that can create it.
        if !can_edit(snap, caps, &file) {
            continue;
        }
        let entry = entry_for(snap, kind, script);
        let grant = format!(
            "grants {} to `{entry}`",
            if list.is_empty() {
                "nothing".to_string()
            } else {
                list.join(", ")
            }
        );
        let script = script.to_path_buf();
        out.push(action(
            format!("{RUN_CONFIG_TITLE} {shown}"),
            CodeActionKind::REFACTOR,
            move || {
                let change = config_change(snap, kind, &file, &script, &entry, &list)?;
                workspace_edit(snap, caps, vec![change], Some(grant))
            },
        ));
    }
    out
}

/// "Replace `// vox:caps` directive with a run configuration": a Vox.toml entry with the
/// inferred set, and the directive line removed. `kind`: `refactor.rewrite`, or `quickfix` at
/// a C003 finding (docs/rules/C003.md lists it among C003's fixes).
fn replace_directive<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    script: &Path,
    kind: CodeActionKind,
) -> Option<Lazy<'a>> {
    let text = snap.text(script)?;
    let d = vox_caps::parse_legacy_directive(&text)?;
    let tokens = inferred_tokens(snap, script, &snap.root)?;
    let list: Vec<String> = tokens.tokens.iter().map(|t| t.token.clone()).collect();
    let entry = entry_for(snap, ConfigKind::VoxToml, script);
    let file = config_path(&snap.root, ConfigKind::VoxToml);
    if !can_edit(snap, caps, &file) {
        return None;
    }
    let end = text[d.range.end..]
        .find('\n')
        .map_or(text.len(), |i| d.range.end + i + 1);
    let start = d.range.start;
    let script = script.to_path_buf();
    Some(action(
        "Replace `// vox:caps` directive with a run configuration".into(),
        kind,
        move || {
            let change = config_change(snap, ConfigKind::VoxToml, &file, &script, &entry, &list)?;
            let del = Change::Edit {
                path: script,
                edits: vec![(TextRange::new(start as u32, end as u32), String::new())],
            };
            workspace_edit(
                snap,
                caps,
                vec![change, del],
                Some(format!("grants {}", list.join(", "))),
            )
        },
    ))
}

/// Sets a ceiling of `[run.NAME]` in Vox.toml text (toml_edit keeps the rest as written).
fn set_ceiling_toml(text: &str, entry: &str, key: &str, value: i64) -> Option<String> {
    let mut doc: toml_edit::DocumentMut = text.parse().ok()?;
    let run = doc.get_mut("run")?.as_table_like_mut()?;
    let t = run.get_mut(entry)?.as_table_like_mut()?;
    t.insert(key, toml_edit::value(value));
    Some(doc.to_string())
}

/// A raised ceiling: ten times the limit that was hit.
fn raised(flag: &str, limit: &str) -> Option<i64> {
    let n: i64 = if flag == "timeout" {
        vox_caps::parse_duration_secs(limit).ok()? as i64
    } else {
        vox_caps::parse_size(limit).ok()? as i64
    };
    n.checked_mul(10).filter(|v| *v > 0)
}

/// Quick fixes of a run diagnostic: grant the token, or raise the ceiling, in the run
/// configuration the run used (a new Vox.toml entry when it had none).
fn run_fixes<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    script: &Path,
    rd: &RunDiagnostic,
) -> Vec<Lazy<'a>> {
    let mut out = Vec::new();
    let diag = rd.diagnostic.clone();
    if let Some(token) = &rd.token {
        let mut list = rd.caps.clone();
        if !list.contains(token) {
            list.push(token.clone());
        }
        let (kind, file, entry, title) = match &rd.config {
            Some(c) => (
                c.origin.kind,
                c.origin.file.clone(),
                c.name.clone(),
                format!(
                    "Grant `{token}` in run configuration `{}` ({})",
                    c.name,
                    c.origin.kind.file_name()
                ),
            ),
            None => (
                ConfigKind::VoxToml,
                config_path(&snap.root, ConfigKind::VoxToml),
                entry_for(snap, ConfigKind::VoxToml, script),
                format!("Grant `{token}`: add a run configuration to Vox.toml"),
            ),
        };
        let grant = format!("grants {token} to `{entry}`");
        let script = script.to_path_buf();
        if can_edit(snap, caps, &file) {
            let mut a = action(title, CodeActionKind::QUICKFIX, move || {
                let change = config_change(snap, kind, &file, &script, &entry, &list)?;
                workspace_edit(snap, caps, vec![change], Some(grant))
            });
            a.action.diagnostics = Some(vec![diag.clone()]);
            a.action.is_preferred = Some(true);
            out.push(a);
        }
    }
    if let Some((flag, limit)) = &rd.ceiling {
        let Some(value) = raised(flag, limit) else {
            return out;
        };
        let (file, entry, base) = match &rd.config {
            Some(c) if c.origin.kind == ConfigKind::VoxToml => (
                c.origin.file.clone(),
                c.name.clone(),
                snap.text(&c.origin.file),
            ),
            Some(_) => return out,
            None => {
                let file = config_path(&snap.root, ConfigKind::VoxToml);
                let entry = entry_for(snap, ConfigKind::VoxToml, script);
                let old = snap.text(&file).unwrap_or_default();
                let rel = script_rel(&snap.root, script);
                let with_entry =
                    vox_caps::config::set_caps_vox_toml(&old, &entry, &rel, &rd.caps).ok();
                (file, entry, with_entry)
            }
        };
        let Some(base) = base else { return out };
        if !can_edit(snap, caps, &file) {
            return out;
        }
        let Some(new) = set_ceiling_toml(&base, &entry, flag, value) else {
            return out;
        };
        let title = format!(
            "Raise the ceiling: {flag} = {value} in run configuration `{entry}` (Vox.toml)"
        );
        let mut a = action(title, CodeActionKind::QUICKFIX, move || {
            let old = snap.text(&file);
            let change = text_change(&file, old.is_some(), &old.unwrap_or_default(), new);
            workspace_edit(snap, caps, vec![change], None)
        });
        a.action.diagnostics = Some(vec![diag]);
        out.push(a);
    }
    out
}

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
                            path: e.file.clone(),
                            edits: vec![(e.range, e.new_text.clone())],
                        })
                        .collect();
                    let mut a = action(fix.title.clone(), CodeActionKind::QUICKFIX, move || {
                        workspace_edit(snap, caps, changes, None)
                    });
                    a.action.is_preferred =
                        Some(i == 0 && fix.applicability == Applicability::Safe);
                    a
                });
                a.action.diagnostics = Some(vec![diag.clone()]);
                out.push((a, Some((f.code.clone(), i))));
            }
            if own_caps_fix {
                if let Some(mut a) = caps_fix(snap, caps, f, &path, None) {
                    a.action.diagnostics = Some(vec![diag.clone()]);
                    out.push((a, Some((f.code.clone(), 0))));
                }
            }
            if f.code == "C003" && !directive_fixed {
                if let Some(mut a) = replace_directive(snap, caps, &path, CodeActionKind::QUICKFIX)
                {
                    a.action.diagnostics = Some(vec![diag.clone()]);
                    a.action.is_preferred = Some(false);
                    out.push((a, Some((f.code.clone(), f.fixes.len()))));
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
            out.push((a, Some((f.code.clone(), 0))));
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
