//! What a parse leaves behind for the queries above it, below both the database and the
//! queries: a file's syntax facts ([`FileSyntax`]) and what an editor's database keeps of a
//! file's latest parse ([`KeptParse`]).

use std::sync::Arc;

use vox_hir::ItemTree;
use vox_syntax::{Diagnostic, SyntaxTree, TextRange};

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
