//! What a parse leaves behind for the queries above it, below both the database and the
//! queries: a file's syntax facts ([`FileSyntax`], read from a tree here) and what an editor's
//! database keeps of a file's latest parse ([`KeptParse`]).

use std::sync::Arc;

use vox_hir::ItemTree;
use vox_syntax::{Diagnostic, SyntaxKind, SyntaxTree, TextRange};

/// An import as written, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportSite {
    pub path: String,
    pub alias: Option<String>,
    pub range: TextRange,
}

/// What the rules need of a file's syntax, without its tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSyntax {
    pub diagnostics: Vec<Diagnostic>,
    pub has_errors: bool,
    pub imports: Vec<ImportSite>,
    /// Top-level declared names with their ranges (import clashes).
    pub local_names: Vec<vox_hir::LocalName>,
    /// Comments that mention `vox:allow`, and whether each is in the leading comment block.
    pub allow_comments: Vec<(TextRange, bool)>,
    /// Where each function starts (in `ItemTree::fns` order).
    pub fn_starts: Vec<u32>,
}

impl FileSyntax {
    /// The imports as the HIR's `FileImport`s (for clash detection).
    pub fn file_imports(&self) -> Vec<vox_hir::FileImport> {
        self.imports
            .iter()
            .map(|i| vox_hir::FileImport {
                path: i.path.clone(),
                alias: i.alias.as_deref().map(std::rc::Rc::from),
                range: i.range,
            })
            .collect()
    }
}

/// What an editor's database keeps of a file's latest parse: with it, an edit inside one
/// function re-parses that function alone ([`vox_syntax::reparse_owned`]) and re-reads only its
/// item, text and comments; everything else is taken over (shifted when it lies after).
pub struct KeptParse {
    pub tree: SyntaxTree,
    pub items: Arc<ItemTree>,
    /// Each function's text, in `items.fns` order.
    pub fn_texts: Vec<crate::text::Text>,
    pub syntax: Arc<FileSyntax>,
}

/// The item tree (with each function's node) and the syntax facts of a whole file. Where
/// `parse` uses several threads (a large file, several cores), the two are read on two: each
/// walks every top-level item, and the walks cost as much as lowering a few hundred functions.
#[allow(clippy::type_complexity)]
pub(crate) fn items_and_facts(
    tree: &SyntaxTree,
) -> ((ItemTree, Vec<vox_syntax::SyntaxNode<'_>>), FileSyntax) {
    if vox_syntax::parse_threads(tree.bytes().len()) < 2 {
        let (items, nodes) = vox_hir::item_tree(tree);
        let syntax = syntax_facts(tree, &nodes);
        return ((items, nodes), syntax);
    }
    std::thread::scope(|s| {
        let facts = s.spawn(|| syntax_facts(tree, &[]));
        let (items, nodes) = vox_hir::item_tree(tree);
        let mut syntax = match facts.join() {
            Ok(f) => f,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        syntax.fn_starts = nodes.iter().map(|n| n.range().start).collect();
        ((items, nodes), syntax)
    })
}

/// The syntax facts of a whole tree (`fns`: its functions' nodes, in item-tree order).
pub(crate) fn syntax_facts(tree: &SyntaxTree, fns: &[vox_syntax::SyntaxNode<'_>]) -> FileSyntax {
    let allow_comments = allow_comments_of_file(tree);
    let imports = vox_hir::file_imports(tree)
        .into_iter()
        .map(|i| ImportSite {
            path: i.path,
            alias: i.alias.map(|a| a.to_string()),
            range: i.range,
        })
        .collect();
    FileSyntax {
        diagnostics: tree.diagnostics().to_vec(),
        has_errors: tree.has_errors(),
        imports,
        local_names: vox_hir::local_names(tree),
        allow_comments,
        fn_starts: fns.iter().map(|n| n.range().start).collect(),
    }
}

/// The comments of a whole file that mention `vox:allow`, found from the text's occurrences
/// (a few in a file that has any) rather than by visiting every token: what
/// [`scan_allow_comments`] gives over all the tokens.
pub(crate) fn allow_comments_of_file(tree: &SyntaxTree) -> Vec<(TextRange, bool)> {
    let mut out: Vec<(TextRange, bool)> = Vec::new();
    let mut hits = memchr::memmem::find_iter(tree.bytes(), b"vox:allow").peekable();
    if hits.peek().is_none() {
        return out;
    }
    // The leading comment block ends at the first token that is not layout.
    let leading_end = (0..tree.token_count())
        .map(|i| tree.token(i))
        .find(|t| !is_layout(t.kind()))
        .map_or(u32::MAX, |t| t.range().start);
    for at in hits {
        let Some(tok) = tree.token_at_offset(at as u32) else {
            continue;
        };
        let r = tok.range();
        // A comment that mentions it twice is listed once.
        if tok.kind() == SyntaxKind::Comment && out.last().is_none_or(|(last, _)| *last != r) {
            out.push((r, r.start < leading_end));
        }
    }
    out
}

/// Tokens that do not end the leading comment block.
pub(crate) fn is_layout(kind: SyntaxKind) -> bool {
    kind.is_trivia() || kind == SyntaxKind::Newline
}

/// The comments among `tokens` that mention `vox:allow`, each with whether it is still in the
/// leading comment block (`leading`: whether it is at the first of `tokens`).
pub(crate) fn scan_allow_comments<'t>(
    tokens: impl Iterator<Item = vox_syntax::SyntaxToken<'t>>,
    mut leading: bool,
    out: &mut Vec<(TextRange, bool)>,
) {
    for tok in tokens {
        let kind = tok.kind();
        if kind == SyntaxKind::Comment {
            if memchr_allow(tok.bytes()) {
                out.push((tok.range(), leading));
            }
        } else if !is_layout(kind) {
            leading = false;
        }
    }
}

pub(crate) fn memchr_allow(b: &[u8]) -> bool {
    memchr::memmem::find(b, b"vox:allow").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The occurrence-driven search finds what a visit of every token finds: comments only,
    /// each once, and whether it is in the leading block.
    #[test]
    fn allow_comments_from_occurrences_match_a_full_scan() {
        let texts = [
            "// vox:allow(D001) reason: header\n\n// vox:allow(D002) reason: also leading\nfn main() {}\n",
            "#!/usr/bin/env vox\n# vox:allow(D003) reason: hash comment\nfn main() {\n    let s = \"vox:allow in a string\"\n    // vox:allow(D001) reason: inside // and again vox:allow\n    print(s)\n}\n",
            "fn main() {\n    print(1) // vox:allow(D004) reason: trailing\n}\n// vox:allow(D005) reason: last line, no newline",
            "fn main() { print(\"no suppressions here\") }\n",
            "",
        ];
        for text in texts {
            let tree = vox_syntax::parse(text.as_bytes());
            let mut full = Vec::new();
            scan_allow_comments(
                (0..tree.token_count()).map(|i| tree.token(i)),
                true,
                &mut full,
            );
            assert_eq!(allow_comments_of_file(&tree), full, "{text:?}");
        }
        let tree = vox_syntax::parse(texts[0].as_bytes());
        assert_eq!(
            allow_comments_of_file(&tree)
                .iter()
                .map(|c| c.1)
                .collect::<Vec<_>>(),
            [true, true]
        );
    }
}
