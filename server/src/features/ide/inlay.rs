//! Inlay hints: the capability a call consumes, parameter names, inferred kinds of `let`s.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_syntax::ast::{self, AstNode};
use vox_syntax::SyntaxKind as K;

use crate::convert::{self};
use crate::session::path_of;
use crate::session::Snapshot;

use super::defs::*;
use super::docs::*;
use super::kinds;

pub fn inlay_hints(snap: &Snapshot, p: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let enc = snap.encoding;
    let want = convert::text_range(&view.rope, enc, p.range);
    let mut tick = snap.ticker();
    let mut out = Vec::new();
    // The calls that overlap the range: subtrees outside it are not entered.
    let mut calls = Vec::new();
    let mut lets = Vec::new();
    let mut stack = vec![view.tree.root()];
    while let Some(n) = stack.pop() {
        tick.step();
        let r = n.range();
        if r.end < want.start || r.start > want.end {
            continue;
        }
        if n.kind() == K::CallExpr {
            calls.push(n);
        }
        if n.kind() == K::LetStmt && snap.settings.inlay_types {
            lets.push(n);
        }
        let before = stack.len();
        stack.extend(n.children());
        stack[before..].reverse();
    }
    for call in calls {
        tick.step();
        let r = call.range();
        let Some(callee) = call.children().next() else {
            continue;
        };
        let Some(name_tok) = callee_name(callee) else {
            continue;
        };
        match resolve(snap, &view, name_tok) {
            Some(Target::Builtin(ns, name)) if snap.settings.inlay_caps => {
                let Some(c) = catalog().lookup(ns, name).and_then(|r| r.cap.label()) else {
                    continue;
                };
                out.push(InlayHint {
                    position: view.range(enc, r).end,
                    label: InlayHintLabel::String(c.to_string()),
                    kind: None,
                    text_edits: None,
                    tooltip: Some(InlayHintTooltip::String(format!(
                        "this call needs the `{c}` capability"
                    ))),
                    padding_left: Some(true),
                    padding_right: None,
                    data: None,
                });
            }
            Some(Target::Def(file, d)) if d.kind == DefKind::Fn && snap.settings.inlay_params => {
                let tree = if file == view.path {
                    view.tree.clone()
                } else {
                    match snap.file(&file) {
                        Some(f) => snap.tree(&file, f),
                        None => continue,
                    }
                };
                let Some((_, params)) = signature(&tree, d.node) else {
                    continue;
                };
                let Some(args) = call.child_of(K::ArgList) else {
                    continue;
                };
                for (i, arg) in args.children().filter(|a| a.kind() == K::Arg).enumerate() {
                    let Some(param) = params.get(i) else { break };
                    let pname = param.split(':').next().unwrap_or("").trim();
                    if pname.is_empty() || arg.text().trim() == pname {
                        continue;
                    }
                    out.push(InlayHint {
                        position: view.range(enc, arg.range()).start,
                        label: InlayHintLabel::String(format!("{pname}:")),
                        kind: Some(InlayHintKind::PARAMETER),
                        text_edits: None,
                        tooltip: None,
                        padding_left: None,
                        padding_right: Some(true),
                        data: None,
                    });
                }
            }
            _ => {}
        }
    }
    // Inferred kinds of `let`s without an annotation (`vox.inlayHints.inferredTypes`), from
    // one lowering per function.
    let mut fn_kinds: Option<(u32, vox_analysis::FnKinds)> = None;
    for stmt in lets {
        tick.step();
        let annotated = stmt
            .children_with_tokens()
            .filter_map(|e| e.as_token())
            .any(|t| t.kind() == K::Colon);
        let Some(pat) = ast::LetStmt::cast(stmt).and_then(|l| l.pattern()) else {
            continue;
        };
        if annotated || pat.kind() != K::IdentPat {
            continue;
        }
        let at = stmt.trimmed_range().start;
        let Some((f, base)) = kinds::fn_at(snap, &view, at) else {
            continue;
        };
        if fn_kinds.as_ref().is_none_or(|(b, _)| *b != base) {
            fn_kinds = Some((base, vox_analysis::fn_kinds(&snap.db, f)));
        }
        let Some((_, k)) = &fn_kinds else { continue };
        let Some(name) = kinds::let_kind(k, base, stmt.range()).name() else {
            continue;
        };
        out.push(InlayHint {
            position: view.range(enc, pat.trimmed_range()).end,
            label: InlayHintLabel::String(format!(": {name}")),
            kind: Some(InlayHintKind::TYPE),
            text_edits: None,
            tooltip: Some(InlayHintTooltip::String(
                "kind inferred from the body (not checked at run time)".into(),
            )),
            padding_left: None,
            padding_right: None,
            data: None,
        });
    }
    out.sort_by_key(|h| (h.position.line, h.position.character));
    Ok(Some(out))
}
