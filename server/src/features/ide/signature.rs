//! Signature help at a call.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_syntax::{SyntaxKind as K, SyntaxNode, SyntaxTree};

use crate::session::Snapshot;

use super::complete;
use super::defs::*;
use super::docs::*;

/// The innermost call whose argument list holds `offset`, and the argument index there.
pub(crate) fn call_at(tree: &SyntaxTree, offset: u32) -> Option<(SyntaxNode<'_>, u32)> {
    let tok = tree
        .token_at_offset(offset)
        .or_else(|| tree.token_at_offset(offset.checked_sub(1)?))?;
    let mut node = Some(tok.parent());
    while let Some(n) = node {
        if n.kind() == K::ArgList {
            let r = n.range();
            if r.start < offset && (offset < r.end || !n.text().ends_with(')')) {
                let call = n.parent()?;
                let commas = n
                    .children_with_tokens()
                    .filter_map(|e| e.as_token())
                    .filter(|t| t.kind() == K::Comma && t.range().end <= offset)
                    .count() as u32;
                return Some((call, commas));
            }
        }
        node = n.parent();
    }
    None
}

pub fn signature_help(snap: &Snapshot, p: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
    let pp = p.text_document_position_params;
    let Some((view, offset)) = FileView::at(snap, &pp) else {
        return Ok(None);
    };
    let Some((call, active)) = call_at(&view.tree, offset) else {
        return Ok(None);
    };
    let Some(callee) = call.children().next() else {
        return Ok(None);
    };
    let Some(name_tok) = callee_name(callee) else {
        return Ok(None);
    };
    let (label, params, doc) = match resolve(snap, &view, name_tok) {
        Some(Target::Def(file, d)) if d.kind == DefKind::Fn => {
            let tree = match snap.file(&file) {
                Some(f) => vox_analysis::parse(&snap.db, f).clone(),
                None => return Ok(None),
            };
            let Some((sig, params)) = signature(&tree, d.node) else {
                return Ok(None);
            };
            let doc = [
                doc_comment(&tree, d.node),
                effect_summary(snap, &file, &d.name),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n\n");
            (sig, params, Some(doc).filter(|d| !d.is_empty()))
        }
        Some(Target::Builtin(ns, name)) => {
            let q = vox_hir::catalog::qualified(ns, name);
            let needs = catalog()
                .lookup(ns, name)
                .and_then(|r| r.cap.label())
                .map(|c| format!("needs {c}"));
            let (sig, line) = builtin_doc(&q).unwrap_or(("", ""));
            let doc = [Some(line.to_string()).filter(|l| !l.is_empty()), needs]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("\n\n");
            if sig.is_empty() {
                (
                    format!("{q}(…)"),
                    Vec::new(),
                    Some(doc).filter(|d| !d.is_empty()),
                )
            } else {
                let params = complete::sig_params(sig)
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect();
                (sig.to_string(), params, Some(doc).filter(|d| !d.is_empty()))
            }
        }
        // A method (`s.split(`): its documented signature.
        None if name_tok.parent().kind() == K::FieldExpr => {
            let name = name_tok.text();
            let Some((sig, line)) = method_doc(&name) else {
                return Ok(None);
            };
            let params = complete::sig_params(sig)
                .into_iter()
                .map(|(n, _)| n)
                .collect();
            (
                format!(".{sig}"),
                params,
                Some(line.to_string()).filter(|l| !l.is_empty()),
            )
        }
        _ => return Ok(None),
    };
    let parameters = (!params.is_empty()).then(|| {
        params
            .iter()
            .map(|p| ParameterInformation {
                label: ParameterLabel::Simple(p.clone()),
                documentation: None,
            })
            .collect()
    });
    Ok(Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            label,
            documentation: doc.map(Documentation::String),
            parameters,
            active_parameter: Some(active),
        }],
        active_signature: Some(0),
        active_parameter: Some(active),
    }))
}
