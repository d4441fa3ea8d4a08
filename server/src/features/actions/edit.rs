//! Workspace edits as the client can apply them: text changes and file creations, the minimal
//! edit between two texts, and the run-configuration change a code action makes.

use crate::convert::{self};
use crate::diagnostics::uri_of;
use crate::session::Snapshot;
use crate::state::ClientCaps;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tower_lsp_server::ls_types::*;
use vox_caps::config::ConfigKind;
use vox_syntax::TextRange;

pub(crate) const GRANT: &str = "vox.grant";

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
pub(crate) fn can_edit(snap: &Snapshot, caps: &ClientCaps, file: &Path) -> bool {
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

pub(crate) fn text_change(file: &Path, exists: bool, old: &str, new: String) -> Change {
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
pub(crate) fn entry_for(snap: &Snapshot, kind: ConfigKind, script: &Path) -> String {
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
pub(crate) type EditFn<'a> = Box<dyn FnOnce() -> std::result::Result<WorkspaceEdit, String> + 'a>;

/// An action whose edit is computed only when needed: while answering `codeAction` for
/// clients that cannot resolve, in `codeAction/resolve` for the others. `edit: None`: an
/// action that only runs a command, sent as it is.
pub(crate) struct Lazy<'a> {
    pub(crate) action: CodeAction,
    pub(crate) edit: Option<EditFn<'a>>,
}

pub(crate) fn action<'a>(
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

/// An action that makes `changes`: a lazy edit, or, when a file it writes does not exist and the
/// client cannot create files, a `vox.applyEdit` command that creates the missing files on the
/// server's side (empty) and then applies an edit of files that exist by then — never an edit
/// of a missing file (LSP 3.17), and the action is still there for that client (Emacs' eglot).
pub(crate) fn offer<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    title: String,
    kind: CodeActionKind,
    writes: &[PathBuf],
    grant: Option<String>,
    changes: impl FnOnce() -> std::result::Result<Vec<Change>, String> + 'a,
) -> Option<Lazy<'a>> {
    if writes.iter().all(|f| can_edit(snap, caps, f)) {
        return Some(action(title, kind, move || {
            workspace_edit(snap, caps, changes()?, grant)
        }));
    }
    let mut created = Vec::new();
    let edits: Vec<Change> = changes()
        .ok()?
        .into_iter()
        .map(|c| match c {
            Change::Create { path, text } => {
                created.push(path.clone());
                Change::Edit {
                    path,
                    edits: vec![(TextRange::new(0, 0), text)],
                }
            }
            edit => edit,
        })
        .collect();
    let edit = workspace_edit(snap, caps, edits, grant).ok()?;
    let uris: Vec<String> = created
        .iter()
        .filter_map(|p| uri_of(p).map(|u| u.as_str().to_string()))
        .collect();
    let mut a = Lazy {
        action: CodeAction {
            title: title.clone(),
            kind: Some(kind),
            ..CodeAction::default()
        },
        edit: None,
    };
    a.action.command = Some(Command {
        title,
        command: crate::features::runs::APPLY_EDIT.into(),
        arguments: Some(vec![serde_json::json!({"create": uris, "edit": edit})]),
    });
    Some(a)
}
