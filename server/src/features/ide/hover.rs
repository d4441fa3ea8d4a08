//! Hover: builtins (signature, doc, capability, nondeterminism), methods (by the receiver's
//! inferred kind), user functions (signature, `///` doc, effect summary), types and variants
//! (declaration and doc), locals with their inferred kind, parameters with their annotation,
//! builtin type names, and the legacy `// vox:caps` directive.

use std::path::Path;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_syntax::{SyntaxKind as K, SyntaxToken, SyntaxTree, TextRange};

use crate::session::Snapshot;

use super::defs::*;
use super::docs::*;
use super::kinds;

fn directive_hover(snap: &Snapshot, view: &FileView, offset: u32) -> Option<String> {
    let text = String::from_utf8_lossy(&view.file.text(&snap.db).get()).into_owned();
    let d = vox_caps::parse_legacy_directive(&text)?;
    if !(d.range.start as u32 <= offset && offset <= d.range.end as u32) {
        return None;
    }
    let tokens = d.caps().tokens();
    let denied = snap
        .findings(&view.path)
        .into_iter()
        .find(|f| f.code == "C003" && f.message.contains("exit 77"));
    let mut s = format!(
        "**`// vox:caps` directive** (legacy)\n\nGrants, when nothing else does: `{}`.\n\nIt is documentation, never enforced over `--caps` or a run configuration: both override it, and on any other line than the first it is ignored.",
        tokens.join(" ")
    );
    match denied {
        Some(f) => s.push_str(&format!(
            "\n\nUnder it this script would be denied: {}",
            f.message
        )),
        None => s.push_str("\n\nUnder it this script would not be denied."),
    }
    s.push_str("\n\nPrefer a run configuration (code action: \"Replace `// vox:caps` directive with a run configuration\").");
    Some(s)
}

fn md(value: String, range: Option<Range>) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range,
    }
}

/// The builtin type names an annotation may use (voxscript.md §4.1).
const BUILTIN_TYPES: &[&str] = &[
    "int", "float", "dec", "str", "bool", "list", "map", "Option", "Result", "Unit", "null", "any",
];

/// The declaration text of a type (at most 20 lines) or a variant.
fn decl_text(tree: &SyntaxTree, node: TextRange) -> String {
    let bytes = tree.bytes();
    let text = String::from_utf8_lossy(&bytes[node.start as usize..node.end as usize]);
    let lines: Vec<&str> = text.trim().lines().collect();
    let mut s = lines
        .iter()
        .take(20)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    if lines.len() > 20 {
        s.push_str("\n…");
    }
    s
}

/// The type declaration a variant's node lies in.
fn enclosing_type(tree: &SyntaxTree, variant: TextRange) -> Option<(String, TextRange)> {
    let t = tree.token_at_offset(variant.start)?;
    let decl = t.parent().ancestors().find(|n| n.kind() == K::TypeDecl)?;
    let name = decl.first_token_of(K::TypeIdent)?;
    Some((name.text().into_owned(), decl.range()))
}

fn from_file(file: &Path, view: &FileView) -> String {
    if file == view.path {
        return String::new();
    }
    format!(
        "\n\nfrom `{}`",
        file.file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned())
    )
}

fn with_doc(mut s: String, doc: Option<String>) -> String {
    if let Some(d) = doc {
        s.push_str("\n\n");
        s.push_str(&d);
    }
    s
}

/// A method call's hover: `x.sin()`, `s.split(",")`, by the receiver's inferred kind.
fn method_hover(snap: &Snapshot, view: &FileView, tok: SyntaxToken<'_>) -> Option<String> {
    let field = tok.parent();
    if field.kind() != K::FieldExpr {
        return None;
    }
    let recv = field.children().next()?;
    let name = tok.text();
    let kind = kinds::receiver_kind(snap, view, recv);
    let owners: Vec<&str> = match kinds::method_table(kind) {
        Some(k) => vec![k],
        None => [
            "str", "list", "map", "int", "float", "dec", "bool", "option", "result",
        ]
        .into_iter()
        .filter(|k| vox_runtime::methods::method_names(k).contains(&&*name))
        .collect(),
    };
    let owners: Vec<&str> = owners
        .into_iter()
        .filter(|k| vox_runtime::methods::method_names(k).contains(&&*name))
        .collect();
    let json = vox_runtime::methods::JSON_HELPERS.contains(&&*name);
    if owners.is_empty() && !json {
        return None;
    }
    let (sig, doc) = method_doc(&name).unwrap_or(("", ""));
    let sig = if sig.is_empty() {
        format!("{name}(…)")
    } else {
        sig.to_string()
    };
    let on = if owners.is_empty() {
        "every value".to_string()
    } else {
        owners.join(", ")
    };
    let mut s = format!("```voxscript\n.{sig}\n```\nmethod of {on}");
    if !doc.is_empty() {
        s.push_str(&format!("\n\n{doc}"));
    }
    if owners.contains(&"float") && vox_analysis::facts::HOST_MATH.contains(&&*name) {
        s.push_str(&format!(
            "\n\nnondeterministic source: uses the host's math library, results may differ between machines (D001); `math.{name}` is the portable form"
        ));
    }
    s.push_str("\n\nneeds no capability");
    Some(s)
}

pub fn hover(snap: &Snapshot, p: HoverParams) -> Result<Option<Hover>> {
    let pp = p.text_document_position_params;
    let Some((view, offset)) = FileView::at(snap, &pp) else {
        return Ok(None);
    };
    let enc = snap.encoding;
    if let Some(s) = directive_hover(snap, &view, offset) {
        return Ok(Some(md(s, None)));
    }
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    let range = Some(view.range(enc, tok.range()));
    let Some(target) = resolve(snap, &view, tok) else {
        if let Some(s) = method_hover(snap, &view, tok) {
            return Ok(Some(md(s, range)));
        }
        if tok.parent().kind() == K::NameType && BUILTIN_TYPES.contains(&&*tok.text()) {
            let s = format!(
                "```voxscript\n{}\n```\nbuiltin type (annotations are not checked at run time)",
                tok.text()
            );
            return Ok(Some(md(s, range)));
        }
        return Ok(None);
    };
    let text = match target {
        Target::Builtin(ns, name) => builtin_markdown(ns, name),
        Target::Namespace(ns) => format!("```voxscript\n{ns}\n```\nbuiltin namespace"),
        Target::Def(file, d) => {
            let Some(tree) = tree_of(snap, &view, &file) else {
                return Ok(None);
            };
            match d.kind {
                DefKind::Fn => {
                    let sig =
                        signature(&tree, d.node).map_or_else(|| format!("fn {}", d.name), |s| s.0);
                    let mut s = with_doc(
                        format!("```voxscript\n{sig}\n```"),
                        doc_comment(&tree, d.node),
                    );
                    if let Some(e) = effect_summary(snap, &file, &d.name) {
                        s.push_str(&format!("\n\n{e}"));
                    }
                    s + &from_file(&file, &view)
                }
                DefKind::Param => {
                    // `name: annotation` as written.
                    let written = tree
                        .token_at_offset(d.range.start)
                        .map(|t| t.parent())
                        .filter(|n| n.kind() == K::Param)
                        .map(|n| n.text().trim().to_string())
                        .unwrap_or_else(|| d.name.clone());
                    format!("```voxscript\n{written}\n```\nparameter")
                }
                DefKind::Local => {
                    let kind = kinds::kinds_at(snap, &view, d.range.start)
                        .map(|(k, base)| kinds::let_kind(&k, base, d.node))
                        .and_then(|k| k.name());
                    match kind {
                        Some(k) => format!(
                            "```voxscript\n{}: {k}\n```\nlocal variable (inferred kind)",
                            d.name
                        ),
                        None => format!("```voxscript\nlet {}\n```\nlocal variable", d.name),
                    }
                }
                DefKind::Type => {
                    with_doc(
                        format!("```voxscript\n{}\n```", decl_text(&tree, d.node)),
                        doc_comment(&tree, d.node),
                    ) + &from_file(&file, &view)
                }
                DefKind::Variant => {
                    let (ty, decl) =
                        enclosing_type(&tree, d.node).unwrap_or_else(|| (String::new(), d.node));
                    let of = if ty.is_empty() {
                        String::new()
                    } else {
                        format!(" of `{ty}`")
                    };
                    with_doc(
                        format!(
                            "```voxscript\n{}\n```\nvariant{of}",
                            decl_text(&tree, d.node)
                        ),
                        doc_comment(&tree, decl),
                    ) + &from_file(&file, &view)
                }
                DefKind::ImportAlias => format!("```voxscript\nimport … as {}\n```", d.name),
            }
        }
    };
    Ok(Some(md(text, range)))
}
