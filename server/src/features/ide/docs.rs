//! Documentation shown for names: builtins' rows, capability and variation labels, a user
//! function's signature, effects and doc comment.

use std::path::Path;

use vox_hir::Nondet;
use vox_syntax::ast::{self, AstNode};
use vox_syntax::{SyntaxKind as K, SyntaxNode, SyntaxTree, TextRange};

use crate::session::Snapshot;

use super::defs::*;

pub(crate) fn nondet_text(n: Nondet) -> Option<&'static str> {
    Some(match n {
        Nondet::None => return None,
        Nondet::Clock => "reads the clock: results differ between runs (D003)",
        Nondet::Entropy => {
            "draws randomness: results differ between runs unless `random:seed=` is pinned (D006)"
        }
        Nondet::Order => "returns entries in OS order: sort before use (D007)",
        Nondet::Environment => "reads the environment: results differ between machines (I001)",
        Nondet::HostMath => "uses the host's math library: results differ between machines (D001)",
        Nondet::External => "talks to the outside world: results differ between runs",
    })
}

/// Signature and one-line doc of a builtin (`fs.read`, `print`), from the language reference.
pub fn builtin_doc(qualified: &str) -> Option<(&'static str, &'static str)> {
    super::reference::reference()
        .builtins
        .get(qualified)
        .map(|(s, d)| (s.as_str(), d.as_str()))
}

/// Signature (without the receiver: `trim() to str`) and doc of a method, from the language
/// reference; a name several kinds have gets the first kind's row.
pub fn method_doc(name: &str) -> Option<(&'static str, &'static str)> {
    super::reference::reference()
        .methods
        .get(name)
        .map(|(s, d)| (s.as_str(), d.as_str()))
}

pub(crate) fn builtin_markdown(ns: &str, name: &str) -> String {
    let q = vox_hir::catalog::qualified(ns, name);
    let Some(row) = catalog().lookup(ns, name) else {
        return format!("```voxscript\n{q}\n```");
    };
    let (sig, doc) = builtin_doc(&q).unwrap_or(("", ""));
    let sig = if sig.is_empty() {
        format!("{q}(…)")
    } else {
        sig.to_string()
    };
    let mut s = format!("```voxscript\n{sig}\n```\n{doc}");
    match row.cap.label() {
        Some(c) => s.push_str(&format!("\n\nneeds: `{c}`")),
        None => s.push_str("\n\nneeds no capability"),
    }
    if let Some(n) = nondet_text(row.nondet) {
        s.push_str(&format!("\n\nnondeterministic source: {n}"));
    }
    s
}

/// The top-level function item whose range is `node`: found from the token where it starts,
/// not by scanning the file's items.
pub(crate) fn fn_decl_at(tree: &SyntaxTree, node: TextRange) -> Option<SyntaxNode<'_>> {
    crate::work::add(1);
    let tok = tree.token_at_offset(node.start)?;
    tok.parent().ancestors().find(|n| {
        n.range() == node
            && n.kind() == K::FnDecl
            && n.parent().is_some_and(|p| p.parent().is_none())
    })
}

/// `fn name(a: int, b) to str` of a function item.
pub(crate) fn signature(tree: &SyntaxTree, node: TextRange) -> Option<(String, Vec<String>)> {
    let f = ast::FnDecl::cast(fn_decl_at(tree, node)?)?;
    let name = f.name()?.text().to_string();
    let params: Vec<String> = f
        .param_list()
        .map(|pl| {
            pl.params()
                .map(|p| p.syntax().text().trim().to_string())
                .collect()
        })
        .unwrap_or_default();
    let ret = f
        .ret_type()
        .map(|r| format!(" {}", r.syntax().text().trim()))
        .unwrap_or_default();
    Some((format!("fn {name}({}){ret}", params.join(", ")), params))
}

/// "needs: fs:ro=data, time:real" for a function: its effect summary as tokens.
pub fn effect_summary(snap: &Snapshot, path: &Path, name: &str) -> Option<String> {
    let file = snap.file(path)?;
    let fi = vox_analysis::file_items(&snap.db, file);
    let i = fi.items.fns.iter().position(|f| &*f.name == name)?;
    let f = *fi.fns.get(i)?;
    let summary = vox_analysis::summary(&snap.db, f);
    let needs: Vec<vox_analysis::CapNeed> = summary
        .effects
        .iter()
        .filter(|(e, _)| e.kind != vox_analysis::EffectKind::Output)
        .map(|(e, w)| vox_analysis::CapNeed {
            effect: e.clone(),
            entry: i as u32,
            range: w.range,
        })
        .collect();
    let caps = vox_analysis::InferredCaps {
        needs,
        imports: Vec::new(),
    };
    let tokens = vox_analysis::render_tokens(&caps, &snap.root);
    Some(if tokens.tokens.is_empty() {
        "needs: nothing".to_string()
    } else {
        format!(
            "needs: {}",
            tokens
                .tokens
                .iter()
                .map(|t| t.token.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// The `///` comment lines just above a declaration whose node is `node` (decorators may sit
/// between), joined; `None` without one. A blank line or another comment ends the block.
pub fn doc_comment(tree: &SyntaxTree, node: TextRange) -> Option<String> {
    crate::work::add(1);
    // The declaration's first significant token (its node may start with trivia).
    let mut i = tree.token_at_offset(node.start)?.index();
    while i < tree.token_count() {
        let t = tree.token(i);
        if !(t.kind().is_trivia() || t.kind() == K::Newline) {
            break;
        }
        i += 1;
    }
    let mut lines = Vec::new();
    let mut newlines = 0;
    while i > 0 {
        i -= 1;
        crate::work::add(1);
        let t = tree.token(i);
        match t.kind() {
            K::Whitespace => {}
            K::Newline => {
                newlines += 1;
                if newlines > 1 {
                    break;
                }
            }
            K::Comment => {
                let text = t.text();
                let Some(rest) = text.strip_prefix("///") else {
                    break;
                };
                if rest.starts_with('/') {
                    break;
                }
                lines.push(
                    rest.strip_prefix(' ')
                        .unwrap_or(rest)
                        .trim_end()
                        .to_string(),
                );
                newlines = 0;
            }
            _ => break,
        }
    }
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    Some(lines.join("\n"))
}
