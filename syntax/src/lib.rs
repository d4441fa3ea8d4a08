//! VoxScript syntax: lexer, error-tolerant parser, lossless syntax tree, typed accessors, line index.
//!
//! Parsing never fails: [`parse`] always returns a tree that holds every byte of the input, plus the
//! diagnostics found. No I/O, no salsa, no editor types here.

pub mod ast;
mod diagnostic;
mod kind;
pub mod lexer;
mod line_index;
mod parser;
pub mod strings;
mod text_range;
mod tree;
mod validate;

pub use diagnostic::{Diagnostic, Fix, Severity, TextEdit};
pub use kind::SyntaxKind;
pub use line_index::{ColumnUnit, LineCol, LineIndex};
pub use parser::MAX_DEPTH;
pub use text_range::TextRange;
pub use tree::{SyntaxElement, SyntaxNode, SyntaxToken, SyntaxTree};

/// Parses a file's bytes into a lossless tree with its diagnostics (sorted by position).
pub fn parse(text: &[u8]) -> SyntaxTree {
    let lexed = lexer::lex(text);
    let mut p = parser::Parser::new(text, lexed.tokens);
    p.source_file();
    let (builder, parse_diags) = p.into_parts();
    let mut diags = lexed.diagnostics;
    diags.extend(parse_diags);
    let mut tree = builder.finish(text.into(), Vec::new());
    let mut extra = Vec::new();
    let has_not_a_script = diags.iter().any(|d| d.code == "syntax.not-a-script");
    validate::validate(tree.root(), has_not_a_script, &mut extra);
    diags.extend(extra);
    if has_not_a_script || extra_has_nas(&diags) {
        drop_after_not_a_script(&tree, &mut diags);
    }
    diags.sort_by_key(|d| (d.range.start, d.range.end));
    tree.set_diagnostics(diags);
    tree
}

/// After a `syntax.not-a-script`, the rest of its top-level item is skipped without further
/// diagnostics (voxscript.md §1.2); lexer diagnostics in that stretch are dropped here.
fn drop_after_not_a_script(tree: &SyntaxTree, diags: &mut Vec<Diagnostic>) {
    let mut silent: Vec<TextRange> = Vec::new();
    let mut first_id = 0u32;
    for item in tree.root().children() {
        // Post-order ids: the item's subtree is `first_id..=item.id()`.
        let hit = (first_id..=item.id())
            .map(|id| tree.node(id))
            .find(|n| n.kind() == SyntaxKind::NotAScript);
        if let Some(n) = hit {
            silent.push(TextRange::new(n.range().start, item.range().end));
        }
        first_id = item.id() + 1;
    }
    if silent.is_empty() {
        return;
    }
    diags.retain(|d| {
        d.code == "syntax.not-a-script" || !silent.iter().any(|r| r.contains(d.range.start))
    });
}

fn extra_has_nas(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.code == "syntax.not-a-script")
}
