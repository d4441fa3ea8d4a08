//! Definition, references and rename.

use std::collections::HashMap;
use std::path::PathBuf;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_syntax::{SyntaxKind as K, TextRange};

use crate::session::path_of;
use crate::session::Snapshot;

use super::defs::*;

pub fn definition(
    snap: &Snapshot,
    p: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>> {
    let pp = p.text_document_position_params;
    let Some((view, offset)) = FileView::at(snap, &pp) else {
        return Ok(None);
    };
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    match resolve(snap, &view, tok) {
        Some(Target::Def(file, d)) => {
            Ok(location(snap, &file, d.range).map(GotoDefinitionResponse::Scalar))
        }
        _ => Ok(None),
    }
}

/// Every reference to `target` (with its definition): in its file, and for a `pub fn` in the
/// workspace files that import it.
pub(crate) fn find_references(snap: &Snapshot, target: &Target) -> Vec<(PathBuf, TextRange)> {
    let Target::Def(def_file, def) = target else {
        return Vec::new();
    };
    let mut files = vec![def_file.clone()];
    if def.is_pub && matches!(def.kind, DefKind::Fn | DefKind::Type | DefKind::Variant) {
        for (p, f) in snap.files.iter() {
            if p != def_file
                && import_targets(snap, *f)
                    .iter()
                    .flatten()
                    .any(|t| t.path(&snap.db) == def_file)
            {
                files.push(p.clone());
            }
        }
    }
    let mut out = Vec::new();
    for path in files {
        let Some(view) = FileView::new(snap, &path) else {
            continue;
        };
        for tok in view.tree.root().descendant_tokens() {
            if !matches!(tok.kind(), K::Ident | K::TypeIdent) || tok.text() != def.name.as_str() {
                continue;
            }
            if resolve(snap, &view, tok).as_ref() == Some(target) {
                out.push((path.clone(), tok.range()));
            }
        }
    }
    out
}

pub fn references(snap: &Snapshot, p: ReferenceParams) -> Result<Option<Vec<Location>>> {
    let pp = p.text_document_position;
    let Some((view, offset)) = FileView::at(snap, &pp) else {
        return Ok(None);
    };
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    let Some(target) = resolve(snap, &view, tok) else {
        return Ok(None);
    };
    let def_range = match &target {
        Target::Def(f, d) => Some((f.clone(), d.range)),
        _ => None,
    };
    let locs = find_references(snap, &target)
        .into_iter()
        .filter(|r| p.context.include_declaration || Some(r) != def_range.as_ref())
        .filter_map(|(f, r)| location(snap, &f, r))
        .collect();
    Ok(Some(locs))
}

pub fn prepare_rename(
    snap: &Snapshot,
    p: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let offset = view.offset(snap.encoding, p.position);
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    match resolve(snap, &view, tok) {
        Some(Target::Def(..)) => Ok(Some(PrepareRenameResponse::Range(
            view.range(snap.encoding, tok.range()),
        ))),
        _ => Ok(None),
    }
}

pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && vox_syntax::lexer::lex(s.as_bytes())
            .tokens
            .iter()
            .filter(|t| !t.kind.is_trivia() && t.kind != K::Eof)
            .all(|t| matches!(t.kind, K::Ident | K::TypeIdent))
}

/// The edit renaming a definition and its references: versioned `documentChanges` (the open
/// document's version, null for a file that is not open) for a client that supports them
/// (`document_changes`), else `changes`.
pub fn rename(
    snap: &Snapshot,
    p: RenameParams,
    document_changes: bool,
) -> Result<Option<WorkspaceEdit>> {
    let pp = p.text_document_position;
    let Some(path) = path_of(&pp.text_document.uri) else {
        return Ok(None);
    };
    if !is_identifier(&p.new_name) {
        return Err(crate::base::invalid_params(format!(
            "`{}` is not a valid name",
            p.new_name
        )));
    }
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let offset = view.offset(snap.encoding, pp.position);
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    let Some(target @ Target::Def(..)) = resolve(snap, &view, tok) else {
        return Ok(None);
    };
    if let Target::Def(_, d) = &target {
        // Types and variants are capitalised names, everything else lower-case ones: the
        // lexer tells them apart, so a rename must keep the form.
        let capitalised = p.new_name.chars().next().is_some_and(|c| c.is_uppercase());
        let wants_type = matches!(d.kind, DefKind::Type | DefKind::Variant);
        if wants_type != capitalised {
            return Err(crate::base::invalid_params(format!(
                "cannot rename `{}` to `{}`: {} names must start with {} letter",
                d.name,
                p.new_name,
                if wants_type {
                    "type and variant"
                } else {
                    "function and variable"
                },
                if wants_type {
                    "a capital"
                } else {
                    "a lower-case"
                },
            )));
        }
    }
    let mut per_file: std::collections::BTreeMap<PathBuf, (Uri, Vec<TextEdit>)> =
        std::collections::BTreeMap::new();
    for (f, r) in find_references(snap, &target) {
        if let Some(loc) = location(snap, &f, r) {
            per_file
                .entry(f)
                .or_insert_with(|| (loc.uri, Vec::new()))
                .1
                .push(TextEdit::new(loc.range, p.new_name.clone()));
        }
    }
    if document_changes {
        let edits = per_file
            .into_iter()
            .map(|(path, (uri, edits))| TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri,
                    version: snap.docs.get(&path).map(|d| d.version),
                },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            })
            .collect();
        return Ok(Some(WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(edits)),
            ..WorkspaceEdit::default()
        }));
    }
    let changes: HashMap<Uri, Vec<TextEdit>> = per_file.into_values().collect();
    Ok(Some(WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    }))
}
