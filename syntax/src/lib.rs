//! VoxScript syntax: lexer, error-tolerant parser, lossless syntax tree, typed accessors, line index.
//!
//! Parsing never fails: [`parse`] always returns a tree that holds every byte of the input, plus the
//! diagnostics found. No I/O, no salsa, no editor types here.

pub mod ast;
mod chunked;
mod diagnostic;
mod gapped;
mod kind;
pub mod lexer;
mod line_index;
mod parser;
pub mod strings;
mod syntax_node;
#[cfg(test)]
mod test_rng;
mod text_diff;
mod text_range;
mod tree;
mod tree_builder;
mod tree_edit;
mod validate;

pub use diagnostic::{Diagnostic, Fix, Severity, TextEdit};
pub use kind::SyntaxKind;
pub use line_index::{count_newlines, line_starts, ColumnUnit, LineCol, LineCounter, LineIndex};
pub use parser::MAX_DEPTH;
pub use syntax_node::{SyntaxElement, SyntaxNode, SyntaxToken};
pub use text_diff::{common_ends, note_edit};
pub use text_range::TextRange;
pub use tree::SyntaxTree;

use std::sync::Arc;

/// Parses a file's bytes into a lossless tree with its diagnostics (sorted by position).
///
/// A large file is cut into chunks at top-level functions and the chunks are parsed on several
/// threads when the process may use more than one core (`chunked.rs`); the result is the same
/// tree, byte for byte, as the one-thread parse.
pub fn parse(text: &[u8]) -> SyntaxTree {
    if let Some((tree, threads)) = chunked::parse_parallel(text) {
        return finish_parse(tree, Vec::new(), threads);
    }
    parse_sequential(text)
}

/// [`parse`] on the calling thread alone, whatever the size of the file.
#[doc(hidden)]
pub fn parse_sequential(text: &[u8]) -> SyntaxTree {
    parse_checking_on(text, 1)
}

/// [`parse`] with the file cut at `splits` (byte offsets, increasing), each chunk parsed alone
/// on one of up to `threads` threads; `None` when a split is not one `parse` could choose or
/// when the chunks cannot be joined (a chunk with a diagnostic), where `parse` parses the whole
/// file at once instead. For tests.
#[doc(hidden)]
pub fn parse_with_splits(text: &[u8], splits: &[usize], threads: usize) -> Option<SyntaxTree> {
    chunked::parse_at(text, splits, threads).map(|tree| finish_parse(tree, Vec::new(), threads))
}

/// The whole file parsed at once, then checked on `threads` threads (more than one: for tests).
#[doc(hidden)]
pub fn parse_checking_on(text: &[u8], threads: usize) -> SyntaxTree {
    let (tree, diags) = parse_unchecked(text);
    finish_parse(tree, diags, threads)
}

/// How many threads [`parse`] uses on a text of `len` bytes: more than one only for a large
/// text in a process that may use several cores. Callers that walk a whole tree can split
/// their own work on the same terms.
pub fn parse_threads(len: usize) -> usize {
    chunked::threads_for(len)
}

/// The size in bytes from which [`parse`] cuts a file into chunks when it may use several
/// cores: a file this large makes a tree of tens of megabytes.
pub const LARGE_FILE: usize = chunked::LARGE;

/// Every offset at which [`parse`] may cut `text` (for tests).
#[doc(hidden)]
pub fn split_candidates(text: &[u8]) -> Vec<usize> {
    chunked::candidates(text)
}

/// The whole-file checks on a freshly built tree (on up to `threads` threads), then its
/// diagnostics, sorted.
fn finish_parse(mut tree: SyntaxTree, mut diags: Vec<Diagnostic>, threads: usize) -> SyntaxTree {
    let mut extra = Vec::new();
    let has_not_a_script = diags.iter().any(|d| d.code == "syntax.not-a-script");
    validate::validate_on(tree.root(), has_not_a_script, true, &mut extra, threads);
    diags.extend(extra);
    if has_not_a_script || extra_has_nas(&diags) {
        drop_after_not_a_script(&tree, &mut diags);
    }
    diags.sort_by_key(|d| (d.range.start, d.range.end));
    tree.set_diagnostics(diags);
    tree
}

/// Parses `new_text` knowing `old`, a parse of an earlier version of the same file: when the
/// change lies inside one top-level function, only that function is parsed again and spliced
/// in. Syntax errors may lie in that function (in either version) but nowhere else, and the new
/// function must end where it did, at its closing `}`, with no error at its end (an unclosed
/// bracket or comment would run on into the next function in the whole file). Otherwise (a
/// change between functions, in a top-level statement, or one that breaks the function it is
/// in), the top-level elements from the last function before the change to the first one after
/// it are parsed again and spliced in, on the same terms at that last function's end.
/// The result is what [`parse`] gives for `new_text` (`syntax/tests/reparse.rs` checks it over
/// random edits), only sooner; `None` when this cannot be done, and the caller parses in full.
pub fn reparse(old: &SyntaxTree, new_text: &[u8]) -> Option<SyntaxTree> {
    match plan(old, new_text)? {
        Planned::Function(mut plan) => {
            let (diags, across_clean) = (plan.diagnostics.take(), plan.across_clean);
            let mut tree = old.clone();
            let spliced = apply_splice(&mut tree, plan, new_text.into())?;
            Some(finish_splice(tree, diags, spliced.new_range, across_clean))
        }
        Planned::Top(plan) => Some(apply_top(old.clone(), plan, new_text.into()).0),
    }
}

/// A spliced tree with diagnostics in either version: its diagnostics as a parse makes them.
/// Only the new function's lexer and parser diagnostics are new (the old ones all lay in the
/// function it replaced), and only its inside and the checks across items can have changed
/// (no variant is declared by a function). With `across_clean` ([`Plan::across_clean`]) the
/// checks across items find nothing again, and the function's inside is checked first as if
/// the file declared no variant (stricter: a known variant only silences a view call), which
/// spares reading every item's name on a keystroke; when that finds something, the variants
/// are read and it is checked in place.
fn finish_splice(
    mut tree: SyntaxTree,
    diags: Option<Vec<Diagnostic>>,
    new: TextRange,
    across_clean: bool,
) -> SyntaxTree {
    let Some(mut diags) = diags else {
        return tree;
    };
    // The item, and where its subtree's post-order ids start (after the item before it).
    let mut first = 0;
    let item = tree.root().children().find_map(|n| {
        if n.range() == new {
            Some((first, n.id()))
        } else {
            first = n.id() + 1;
            None
        }
    });
    match item {
        Some((first, id)) => {
            let mut inside = Vec::new();
            if across_clean {
                validate::check_without_variants(tree.root(), first..=id, &mut inside);
            }
            if !across_clean || !inside.is_empty() {
                validate::validate_some(tree.root(), id..=id, &mut diags);
            }
        }
        None => return finish_parse(tree, diags, 1),
    }
    diags.sort_by_key(|d| (d.range.start, d.range.end));
    tree.set_diagnostics(diags);
    tree
}

/// [`reparse`] on a tree the caller gives up: spliced in place, so that what lies outside the
/// changed function is not copied. Also says what was replaced. On `None`, the tree is gone and
/// the caller parses in full.
pub fn reparse_owned(tree: SyntaxTree, new_text: &[u8]) -> Option<(SyntaxTree, Spliced)> {
    reparse_shared(tree, new_text.into())
}

/// [`reparse_owned`] with the new text in a buffer the tree can share (an editor's text input):
/// the tree holds it as it is, where a copy of half a megabyte was made on every keystroke.
pub fn reparse_shared(mut tree: SyntaxTree, new_text: Arc<[u8]>) -> Option<(SyntaxTree, Spliced)> {
    match plan(&tree, &new_text)? {
        Planned::Function(mut plan) => {
            let (diags, across_clean) = (plan.diagnostics.take(), plan.across_clean);
            let spliced = apply_splice(&mut tree, plan, new_text)?;
            Some((
                finish_splice(tree, diags, spliced.new_range, across_clean),
                spliced,
            ))
        }
        Planned::Top(plan) => Some(apply_top(tree, plan, new_text)),
    }
}

/// What a [`reparse_owned`] replaced: one top-level function, or a run of top-level elements
/// (which callers read again in full).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spliced {
    /// Its range in the old text, and in the new one (same start).
    pub old_range: TextRange,
    pub new_range: TextRange,
    /// Whether one function was replaced (else a run of top-level elements).
    pub one_function: bool,
    /// Whether its name changed (always, for a run of elements).
    pub renamed: bool,
}

enum Planned {
    Function(Plan),
    Top(TopPlan),
}

/// The bytes an edit changed, in the old text: everything between the common prefix and the
/// common suffix. `None` when the texts are equal.
fn changed(old_text: &[u8], new_text: &[u8]) -> Option<(u32, u32)> {
    let (prefix, suffix) = common_ends(old_text, new_text);
    if prefix == old_text.len() && prefix == new_text.len() {
        return None;
    }
    Some((prefix as u32, (old_text.len() - suffix) as u32))
}

fn plan(old: &SyntaxTree, new_text: &[u8]) -> Option<Planned> {
    let (start, end) = changed(old.bytes(), new_text)?;
    if let Some(p) = plan_splice(old, new_text, start, end) {
        return Some(Planned::Function(p));
    }
    plan_top(old, new_text, start, end).map(Planned::Top)
}

/// A run of top-level elements to replace: the root's children `elements`, holding
/// `old_range`, by those of `piece`, a parse of the new text from the same start.
struct TopPlan {
    elements: (usize, usize),
    old_range: TextRange,
    piece: SyntaxTree,
    /// The piece's lexer and parser diagnostics, in file offsets: the file's, since the old
    /// ones all lay in the replaced run.
    diagnostics: Vec<Diagnostic>,
    /// Whether a type is declared in the run, old or new: its variants are known inside every
    /// item, which are then all checked again.
    types: bool,
}

/// The top-level elements from the last function that ends before the change (or the file's
/// start) to the first that starts after it (or the file's end), parsed again: the parser
/// comes to that first function's start at top level in both versions, and the piece must end
/// at the last one's closing `}` (its body a block closed by its own `}`, no error at the
/// piece's end), where the whole file's parse comes back to top level too.
fn plan_top(old: &SyntaxTree, new_text: &[u8], start: u32, end: u32) -> Option<TopPlan> {
    let delta = new_text.len() as i64 - old.bytes().len() as i64;
    let (mut from, mut to) = ((0usize, 0u32), None);
    // Type declarations from `from` on (those before it are counted out when `from` moves).
    let mut types = 0;
    for (i, e) in old.root().children_with_tokens().enumerate() {
        let Some(n) = e.as_node() else {
            continue;
        };
        if n.kind() == SyntaxKind::TypeDecl {
            types += 1;
        }
        if n.kind() != SyntaxKind::FnDecl {
            continue;
        }
        let r = n.range();
        if r.end < start {
            from = (i, r.start);
            types = 0;
        } else if r.start > end {
            to = Some((i, r));
            break;
        }
    }
    let (e0, s) = from;
    if s == 0 && to.is_none() {
        // The whole file: the caller's full parse is as cheap (and may use several cores).
        return None;
    }
    let old_end = to.map_or(old.bytes().len() as u32, |(_, r)| r.end);
    // Diagnostics of the old version only in the run (one at its first token may be the
    // previous element's).
    if old.diagnostics().iter().any(|d| {
        (s > 0 && d.range.start <= s) || d.range.end > old_end || d.code == "syntax.not-a-script"
    }) {
        return None;
    }
    let new_end = (old_end as i64 + delta) as usize;
    let piece_text = &new_text[s as usize..new_end];
    let (piece, diags) = parse_unchecked(piece_text);
    if diags.iter().any(|d| d.code == "syntax.not-a-script") {
        return None;
    }
    let e1 = match to {
        Some((i, r)) => {
            let want = (r.start as i64 + delta) as usize - s as usize..piece_text.len();
            let last = piece.root().children().last()?;
            if last.kind() != SyntaxKind::FnDecl
                || last.range().as_usize() != want
                || !closed_by_own_brace(last, piece_text.len())
                || diags
                    .iter()
                    .any(|d| d.range.end as usize >= piece_text.len())
            {
                return None;
            }
            i + 1
        }
        None => old.root().children_with_tokens().count(),
    };
    let diagnostics = diags.into_iter().map(|d| shifted(d, s)).collect();
    let types = types > 0
        || piece
            .root()
            .children()
            .any(|n| n.kind() == SyntaxKind::TypeDecl);
    Some(TopPlan {
        elements: (e0, e1),
        old_range: TextRange::new(s, old_end),
        piece,
        diagnostics,
        types,
    })
}

/// Splices the run in; then the checks across items run again, and those inside items for the
/// run's own items only (all, when a type is declared in it).
fn apply_top(mut tree: SyntaxTree, plan: TopPlan, new_text: Arc<[u8]>) -> (SyntaxTree, Spliced) {
    let new_len = plan.piece.bytes().len() as u32;
    let (e0, _) = plan.elements;
    let n_top = plan.piece.root().children_with_tokens().count();
    tree.splice_top(plan.elements, plan.old_range, &plan.piece, new_text);
    let start = plan.old_range.start;
    let spliced = Spliced {
        old_range: plan.old_range,
        new_range: TextRange::new(start, start + new_len),
        one_function: false,
        renamed: true,
    };
    // The run's items in the new tree: post-order ids from after the last node before it.
    let root = tree.root();
    let before = root
        .children_with_tokens()
        .take(e0)
        .filter_map(|e| e.as_node())
        .last();
    let first = before.map_or(0, |n| n.id() + 1);
    let last = root
        .children_with_tokens()
        .skip(e0)
        .take(n_top)
        .filter_map(|e| e.as_node())
        .last()
        .map(|n| n.id());
    let mut diags = plan.diagnostics;
    if plan.types || diags.iter().any(|d| d.code == "syntax.not-a-script") {
        return (finish_parse(tree, diags, 1), spliced);
    }
    match last {
        Some(last) => validate::validate_some(tree.root(), first..=last, &mut diags),
        None => validate::validate(tree.root(), false, false, &mut diags),
    }
    diags.sort_by_key(|d| (d.range.start, d.range.end));
    tree.set_diagnostics(diags);
    (tree, spliced)
}

/// Whether a function's body is a block ending at `end` with its own `}`.
fn closed_by_own_brace(f: SyntaxNode<'_>, end: usize) -> bool {
    f.children().last().is_some_and(|b| {
        b.kind() == SyntaxKind::Block
            && b.range().end as usize == end
            && b.children_with_tokens()
                .last()
                .is_some_and(|t| t.kind() == SyntaxKind::RBrace)
    })
}

/// A diagnostic of a piece of the file that starts at `base`, in file offsets.
fn shifted(mut d: Diagnostic, base: u32) -> Diagnostic {
    let at = |x: TextRange| TextRange::new(x.start + base, x.end + base);
    d.range = at(d.range);
    for e in d.fix.iter_mut().flat_map(|f| f.edits.iter_mut()) {
        e.range = at(e.range);
    }
    d
}

struct Plan {
    item: u32,
    old_range: TextRange,
    /// The new function, alone, rooted at its `FnDecl`.
    function: SyntaxTree,
    renamed: bool,
    /// Whether the checks across items find nothing, as they found before: the function kept
    /// its name, is not `main`, and no top-level name was declared twice (see [`finish_splice`]).
    across_clean: bool,
    /// When either version has a diagnostic: the new function's lexer and parser diagnostics,
    /// in file offsets (taken by the caller for [`finish_splice`]).
    diagnostics: Option<Vec<Diagnostic>>,
}

/// The lexer and the parser over `text`, without the whole-file checks: the tree and their
/// diagnostics.
fn parse_unchecked(text: &[u8]) -> (SyntaxTree, Vec<Diagnostic>) {
    let lexed = lexer::lex(text);
    let mut p = parser::Parser::new(text, lexed.tokens);
    p.source_file();
    let (builder, parse_diags) = p.into_parts();
    let mut diags = lexed.diagnostics;
    diags.extend(parse_diags);
    (builder.finish(text.into(), Vec::new()), diags)
}

fn plan_splice(
    old: &SyntaxTree,
    new_text: &[u8],
    changed_start: u32,
    changed_end: u32,
) -> Option<Plan> {
    let old_text = old.bytes();
    // The function whose inside holds the whole change (its first and last bytes unchanged).
    let item = old.root().children().find(|n| {
        let r = n.range();
        r.start < changed_start && changed_end < r.end
    })?;
    if item.kind() != SyntaxKind::FnDecl {
        return None;
    }
    let r = item.range();
    // Old diagnostics only inside the function; one at its first token may be the previous
    // item's ("expected `}`, found `fn`").
    if old
        .diagnostics()
        .iter()
        .any(|d| d.range.start <= r.start || d.range.end > r.end)
    {
        return None;
    }
    let new_end = (r.end as i64 + new_text.len() as i64 - old_text.len() as i64) as usize;
    let piece = &new_text[r.start as usize..new_end];
    let (alone, diags) = parse_unchecked(piece);
    let diagnostics = if diags.is_empty() && old.diagnostics().is_empty() {
        // The function passes the checks alone, where they are stricter, or the whole file
        // is checked again.
        let mut checked = Vec::new();
        validate::validate_on(alone.root(), false, true, &mut checked, 1);
        (!checked.is_empty()).then(Vec::new)
    } else {
        // An error's recovery may run to the end of the text it is given: here the function's
        // end, in the whole file the next functions. So the function must close normally: its
        // body is a block ending at the function's last byte with its own `}`.
        let closed = alone
            .root()
            .children()
            .next()
            .is_some_and(|f| closed_by_own_brace(f, piece.len()));
        if !closed
            || diags
                .iter()
                .any(|d| d.range.end as usize >= piece.len() || d.code == "syntax.not-a-script")
        {
            return None;
        }
        Some(diags.into_iter().map(|d| shifted(d, r.start)).collect())
    };
    let mut items = alone.root().children();
    let f = items.next()?;
    if items.next().is_some()
        || f.kind() != SyntaxKind::FnDecl
        || f.range().as_usize() != (0..new_end - r.start as usize)
    {
        return None;
    }
    let name = fn_name(f);
    let renamed = fn_name(item) != name;
    // The old version's diagnostics all lie in this function (above): none of the checks across
    // items reported on `main` or a top-level statement, and a duplicate would have been
    // reported on this function's name.
    let across_clean = !renamed
        && name.as_deref().is_some_and(|n| n != "main")
        && !old
            .diagnostics()
            .iter()
            .any(|d| d.code == "syntax.duplicate");
    Some(Plan {
        item: item.id(),
        old_range: r,
        renamed,
        across_clean,
        function: alone.subtree(f),
        diagnostics,
    })
}

fn apply_splice(tree: &mut SyntaxTree, plan: Plan, new_text: Arc<[u8]>) -> Option<Spliced> {
    let new_len = plan.function.bytes().len() as u32;
    tree.splice_item(plan.item, &plan.function, new_text);
    // Inside items there is nothing new to check: the others are unchanged, and the new function
    // passed the checks alone, where they are stricter (no variant of the file's types is known
    // to it; as `main`, no other statement could conflict), or, with diagnostics in either
    // version, is checked in place by [`finish_splice`]. Across items, only a new name can
    // change anything (a clash): left to a full parse when it does.
    if plan.renamed {
        let mut diags = Vec::new();
        validate::validate(tree.root(), false, false, &mut diags);
        if !diags.is_empty() {
            return None;
        }
    }
    Some(Spliced {
        old_range: plan.old_range,
        new_range: TextRange::new(plan.old_range.start, plan.old_range.start + new_len),
        one_function: true,
        renamed: plan.renamed,
    })
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
