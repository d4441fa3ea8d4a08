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
    validate::validate(tree.root(), has_not_a_script, true, &mut extra);
    diags.extend(extra);
    if has_not_a_script || extra_has_nas(&diags) {
        drop_after_not_a_script(&tree, &mut diags);
    }
    diags.sort_by_key(|d| (d.range.start, d.range.end));
    tree.set_diagnostics(diags);
    tree
}

/// Parses `new_text` knowing `old`, a parse of an earlier version of the same file: when the
/// change lies inside one top-level function and neither version has any diagnostic, only that
/// function is parsed again and spliced in. The result is what [`parse`] gives for `new_text`
/// (`syntax/tests/reparse.rs` checks it over random edits), only sooner; `None` when this cannot
/// be done, and the caller parses in full.
pub fn reparse(old: &SyntaxTree, new_text: &[u8]) -> Option<SyntaxTree> {
    if !old.diagnostics().is_empty() {
        return None;
    }
    let old_text = old.bytes();
    let prefix = old_text
        .iter()
        .zip(new_text)
        .take_while(|(a, b)| a == b)
        .count();
    let max_suffix = old_text.len().min(new_text.len()) - prefix;
    let suffix = old_text
        .iter()
        .rev()
        .zip(new_text.iter().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    if prefix == old_text.len() && prefix == new_text.len() {
        return None;
    }
    let (changed_start, changed_end) = (prefix as u32, (old_text.len() - suffix) as u32);
    // The function whose inside holds the whole change (its first and last bytes unchanged).
    let item = old.root().children().find(|n| {
        let r = n.range();
        r.start < changed_start && changed_end < r.end
    })?;
    if item.kind() != SyntaxKind::FnDecl {
        return None;
    }
    let r = item.range();
    let new_end = (r.end as i64 + new_text.len() as i64 - old_text.len() as i64) as usize;
    let alone = parse(&new_text[r.start as usize..new_end]);
    if !alone.diagnostics().is_empty() {
        return None;
    }
    let mut items = alone.root().children();
    let f = items.next()?;
    if items.next().is_some()
        || f.kind() != SyntaxKind::FnDecl
        || f.range().as_usize() != (0..new_end - r.start as usize)
    {
        return None;
    }
    let renamed = fn_name(item) != fn_name(f);
    let tree = old.splice_item(item, &alone.subtree(f), new_text.into());
    // Inside items there is nothing new to check: the others are unchanged, and the new function
    // passed the checks alone, where they are stricter (no variant of the file's types is known
    // to it; as `main`, no other statement could conflict). Across items, only a new name can
    // change anything (a clash).
    if renamed {
        let mut diags = Vec::new();
        validate::validate(tree.root(), false, false, &mut diags);
        if !diags.is_empty() {
            return None;
        }
    }
    Some(tree)
}

fn fn_name(item: SyntaxNode<'_>) -> Option<std::borrow::Cow<'_, str>> {
    use ast::AstNode;
    ast::FnDecl::cast(item)?.name().map(|n| n.text())
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
