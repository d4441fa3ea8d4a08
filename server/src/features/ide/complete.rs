//! Completion: the names usable at the cursor (locals declared before it and in scope, the
//! file's items, an unaliased import's public names, namespaces, global builtins, keywords);
//! after a dot, a namespace's or an import alias's members, or the methods of the receiver's
//! inferred kind. Items carry `///` docs, call snippets with the parameters (when the client
//! takes snippets) and a `textEdit` over the identifier prefix at the cursor.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_hir::BuiltinCatalog;
use vox_syntax::{SyntaxKind as K, SyntaxTree, TextRange};

use crate::session::Snapshot;

use super::defs::*;
use super::docs::*;
use super::kinds;

const KEYWORDS: &[&str] = &[
    "fn", "let", "mut", "if", "else", "while", "loop", "break", "continue", "match", "for", "in",
    "return", "type", "import", "pub", "and", "or", "not", "is", "isnt", "true", "false", "null",
];

/// The parameters of a builtin's documented signature (`split(sep = " ")`,
/// `assert(cond[, msg])`): each name and whether it may be left out.
pub fn sig_params(sig: &str) -> Vec<(String, bool)> {
    let (Some(open), Some(close)) = (sig.find('('), sig.rfind(')')) else {
        return Vec::new();
    };
    if close <= open {
        return Vec::new();
    }
    let inner = &sig[open + 1..close];
    let mut out = Vec::new();
    let (mut depth, mut optional_depth, mut quoted) = (0i32, 0i32, false);
    let mut piece = String::new();
    let mut piece_optional = false;
    let flush = |piece: &mut String, optional: bool, out: &mut Vec<(String, bool)>| {
        let text = piece.trim();
        let name: String = text
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.push((name, optional || text.contains('=')));
        }
        piece.clear();
    };
    for c in inner.chars() {
        match c {
            '"' => quoted = !quoted,
            _ if quoted => {}
            '[' => {
                optional_depth += 1;
                continue;
            }
            ']' => {
                optional_depth -= 1;
                continue;
            }
            '(' | '{' => depth += 1,
            ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                flush(&mut piece, piece_optional, &mut out);
                piece_optional = optional_depth > 0;
                continue;
            }
            _ => {}
        }
        if piece.trim().is_empty() && !c.is_whitespace() {
            piece_optional = piece_optional || optional_depth > 0;
        }
        piece.push(c);
    }
    flush(&mut piece, piece_optional, &mut out);
    out
}

/// `name(${1:a}, ${2:b})`: a call snippet with a tab stop per parameter.
fn call_snippet(name: &str, params: &[String]) -> String {
    let stops: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, p)| format!("${{{}:{}}}", i + 1, p))
        .collect();
    format!("{name}({})", stops.join(", "))
}

/// The parameter names of a user function's signature (`a: int` → `a`).
fn param_names(params: &[String]) -> Vec<String> {
    params
        .iter()
        .map(|p| p.split(':').next().unwrap_or("").trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

struct Items {
    out: Vec<CompletionItem>,
    seen: std::collections::BTreeSet<String>,
    /// The identifier prefix the items replace.
    range: Range,
    snippets: bool,
    /// The trees of the files whose definitions are offered (each fetched once).
    trees: HashMap<PathBuf, Option<std::sync::Arc<SyntaxTree>>>,
}

impl Items {
    fn push(
        &mut self,
        label: &str,
        kind: CompletionItemKind,
        detail: Option<String>,
        doc: Option<String>,
        call: Option<Vec<String>>,
    ) {
        if !self.seen.insert(label.to_string()) {
            return;
        }
        let (text, format) = match call {
            Some(params) if self.snippets => {
                (call_snippet(label, &params), InsertTextFormat::SNIPPET)
            }
            _ => (label.to_string(), InsertTextFormat::PLAIN_TEXT),
        };
        self.out.push(CompletionItem {
            label: label.to_string(),
            kind: Some(kind),
            detail,
            documentation: doc.filter(|d| !d.is_empty()).map(|d| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: d,
                })
            }),
            insert_text_format: Some(format),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(self.range, text))),
            ..CompletionItem::default()
        });
    }

    /// A builtin (`len`, `fs.read`, a method): its documented signature and doc.
    fn builtin(
        &mut self,
        label: &str,
        qualified: &str,
        kind: CompletionItemKind,
        cap: Option<&str>,
        owner: Option<&str>,
    ) {
        let (sig, doc) = match owner {
            Some(_) => method_doc(qualified),
            None => builtin_doc(qualified),
        }
        .unwrap_or(("", ""));
        let call = (!sig.is_empty()).then(|| {
            sig_params(sig)
                .into_iter()
                .filter(|(_, optional)| !optional)
                .map(|(n, _)| n)
                .collect()
        });
        let sig = if sig.is_empty() {
            format!("{qualified}(…)")
        } else {
            sig.to_string()
        };
        let sig = match owner {
            Some(o) => format!("{o}.{sig}"),
            None => sig,
        };
        let detail = match cap {
            Some(c) => format!("{sig} — needs {c}"),
            None => sig,
        };
        self.push(label, kind, Some(detail), Some(doc.to_string()), call);
    }

    /// A user definition of the file at `file` (this one or an imported one).
    fn def(&mut self, snap: &Snapshot, view: &FileView, file: &Path, d: &Def) {
        let kind = match d.kind {
            DefKind::Fn => CompletionItemKind::FUNCTION,
            DefKind::Type => CompletionItemKind::STRUCT,
            DefKind::Variant => CompletionItemKind::ENUM_MEMBER,
            DefKind::ImportAlias => CompletionItemKind::MODULE,
            DefKind::Param | DefKind::Local => CompletionItemKind::VARIABLE,
        };
        let tree = match d.kind {
            DefKind::Fn | DefKind::Type | DefKind::Variant => self
                .trees
                .entry(file.to_path_buf())
                .or_insert_with(|| tree_of(snap, view, file))
                .clone(),
            _ => None,
        };
        let (detail, call) = match (&tree, d.kind) {
            (Some(tree), DefKind::Fn) => match signature(tree, d.node) {
                Some((sig, params)) => (Some(sig), Some(param_names(&params))),
                None => (None, None),
            },
            _ => (None, None),
        };
        let doc = tree.as_ref().and_then(|t| doc_comment(t, d.node));
        self.push(&d.name, kind, detail, doc, call);
    }
}

pub fn completion(
    snap: &Snapshot,
    p: CompletionParams,
    snippets: bool,
) -> Result<Option<CompletionResponse>> {
    let pp = p.text_document_position;
    let Some((view, offset)) = FileView::at(snap, &pp) else {
        return Ok(None);
    };
    let enc = snap.encoding;
    // The identifier prefix before the cursor, and a dot before it.
    let bytes = view.file.text(&snap.db).get();
    let bytes: &[u8] = &bytes;
    let offset = offset.min(bytes.len() as u32);
    // Nothing inside a comment or a string.
    if let Some(t) = offset
        .checked_sub(1)
        .and_then(|o| view.tree.token_at_offset(o))
    {
        let r = t.range();
        let inside = match t.kind() {
            K::Comment => r.start < offset,
            K::Str => r.start < offset && (offset < r.end || t.text().len() < 2),
            _ => false,
        };
        if inside {
            return Ok(Some(CompletionResponse::Array(Vec::new())));
        }
    }
    let mut i = offset as usize;
    while i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
        i -= 1;
    }
    let mut items = Items {
        out: Vec::new(),
        seen: Default::default(),
        range: view.range(enc, TextRange::new(i as u32, offset)),
        snippets,
        trees: HashMap::new(),
    };
    if i > 0 && bytes[i - 1] == b'.' {
        let dot = (i - 1) as u32;
        let mut j = dot as usize;
        while j > 0 && (bytes[j - 1].is_ascii_alphanumeric() || bytes[j - 1] == b'_') {
            j -= 1;
        }
        let recv = String::from_utf8_lossy(&bytes[j..dot as usize]).into_owned();
        let shadowed = view.local(&recv, dot).is_some();
        if recv == "std" {
            for ns in vox_runtime::builtins::NAMESPACES {
                items.push(ns, CompletionItemKind::MODULE, None, None, None);
            }
        } else if !shadowed && catalog().is_namespace(&recv) {
            for r in catalog().rows().iter().filter(|r| r.ns == recv) {
                items.builtin(
                    r.name,
                    &vox_hir::catalog::qualified(r.ns, r.name),
                    CompletionItemKind::FUNCTION,
                    r.cap.label(),
                    None,
                );
            }
        } else if !shadowed && view.is_import_alias(&recv) {
            if let Some((file, pubs)) = view
                .alias_import(&recv)
                .and_then(|i| view.imports.get(i)?.as_ref())
            {
                // Values only: a type is named bare in annotations, never as `alias.Type`.
                for d in pubs.iter().filter(|d| d.kind != DefKind::Type) {
                    items.def(snap, &view, file, d);
                }
            }
        } else {
            // Methods of the receiver's inferred kind, else of every kind.
            let recv_node = view
                .tree
                .token_at_offset(dot)
                .map(|t| t.parent())
                .filter(|n| n.kind() == K::FieldExpr)
                .and_then(|n| n.children().next());
            let kind = recv_node
                .map(|r| kinds::receiver_kind(snap, &view, r))
                .and_then(kinds::method_table);
            let tables: Vec<&str> = match kind {
                Some(k) => vec![k],
                None => vec!["str", "list", "map", "int", "float"],
            };
            for k in tables {
                for m in vox_runtime::methods::method_names(k) {
                    items.builtin(m, m, CompletionItemKind::METHOD, None, Some(k));
                }
            }
        }
        return Ok(Some(CompletionResponse::Array(items.out)));
    }
    // Locals and parameters in scope at the cursor, then the file's items.
    for d in &view.defs {
        if matches!(d.kind, DefKind::Local | DefKind::Param) && view.local_visible(d, offset) {
            items.def(snap, &view, &view.path, d);
        }
    }
    for d in &view.defs {
        if !matches!(d.kind, DefKind::Local | DefKind::Param) {
            items.def(snap, &view, &view.path, d);
        }
    }
    // Only unaliased imports bind bare names (an aliased one's are `alias.name`).
    for (k, imp) in view.imports.iter().enumerate() {
        if view.aliased.get(k).copied().unwrap_or(true) {
            continue;
        }
        if let Some((file, pubs)) = imp {
            for d in pubs {
                items.def(snap, &view, file, d);
            }
        }
    }
    for ns in vox_runtime::builtins::NAMESPACES {
        items.push(
            ns,
            CompletionItemKind::MODULE,
            Some("builtin namespace".into()),
            None,
            None,
        );
    }
    for r in catalog().rows().iter().filter(|r| r.ns.is_empty()) {
        items.builtin(
            r.name,
            r.name,
            CompletionItemKind::FUNCTION,
            r.cap.label(),
            None,
        );
    }
    for k in KEYWORDS {
        items.push(k, CompletionItemKind::KEYWORD, None, None, None);
    }
    Ok(Some(CompletionResponse::Array(items.out)))
}

#[cfg(test)]
mod tests {
    use super::sig_params;

    fn p(sig: &str) -> Vec<(String, bool)> {
        sig_params(sig)
    }

    #[test]
    fn documented_signatures_give_their_parameters() {
        let s = |n: &str, o: bool| (n.to_string(), o);
        assert_eq!(
            p("process.spawn(cmd, args)"),
            vec![s("cmd", false), s("args", false)]
        );
        assert_eq!(
            p("assert(cond[, msg])"),
            vec![s("cond", false), s("msg", true)]
        );
        assert_eq!(p("split(sep = \" \")"), vec![s("sep", true)]);
        assert_eq!(p("join(sep = \", \")"), vec![s("sep", true)]);
        assert_eq!(p("time.now()"), vec![]);
        assert_eq!(p("len"), vec![]);
    }
}
