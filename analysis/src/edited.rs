//! What an editor's database keeps of a file's latest parse ([`KeptParse`]) and reads again
//! after an edit: everything, from a whole tree; or, after a splice, only the function or the
//! run of top-level elements that was parsed again, the rest taken over (moved when after it).
//! And the synthetic main's text in an editor.

use std::sync::Arc;

use vox_hir::ItemTree;
use vox_syntax::{Spliced, SyntaxKind, SyntaxNode, SyntaxTree, TextRange};

use crate::parsed::{
    is_layout, scan_allow_comments, syntax_facts, FileSyntax, ImportSite, KeptParse,
};
use crate::text::Text;

/// The synthetic main's text in an editor, and where it starts in the file: the file's from the
/// element before its first top-level statement to the one after its last, with each top-level
/// function next to a statement (or an import or type) replaced by an empty one of the same
/// length (`fn j(){}` and spaces) and every other function by spaces. Its lowering parses this
/// text again (the editor's tree is not shared) and reads only the top-level statements, at the
/// same offsets from its start; the window and the blanks make that parse a fraction of the
/// file's (a character typed between two functions of a 10,000-line, 240 KB file made its main
/// parse the whole file again, then a copy of it in blanks) while a statement's error recovery
/// still stops where a function starts, as in the file.
pub(crate) fn main_text(tree: &SyntaxTree) -> (Text, u32) {
    let items: Vec<SyntaxNode<'_>> = tree.root().children().collect();
    let is_stmt = |i: &usize| vox_hir::is_top_level_stmt(items[*i].kind());
    let (Some(first), Some(last)) = (
        (0..items.len()).find(is_stmt),
        (0..items.len()).rev().find(is_stmt),
    ) else {
        return (Text::new(Arc::from(&[][..])), 0);
    };
    let (i0, i1) = (first.saturating_sub(1), (last + 1).min(items.len() - 1));
    let lo = items[i0].range().start as usize;
    let mut bytes = tree.bytes()[lo..items[i1].range().end as usize].to_vec();
    let is_fn = |i: usize| items.get(i).is_some_and(|n| n.kind() == SyntaxKind::FnDecl);
    let mut k = 0usize;
    for (i, item) in items.iter().enumerate().take(i1 + 1).skip(i0) {
        let r = item.range().as_usize();
        let r = r.start - lo..r.end - lo;
        if !is_fn(i) {
            continue;
        }
        let next_to_other = (i > 0 && !is_fn(i - 1)) || (i + 1 < items.len() && !is_fn(i + 1));
        if !next_to_other {
            bytes[r].fill(b' ');
            continue;
        }
        // Each empty function has a name of its own where it fits (`fn j(){}`, `fn k(){}`, …,
        // `fn kj(){}`): 500 functions all named `a` were 499 duplicate declarations to report.
        let name = stub_name(k, r.len().saturating_sub(STUB_LEN - 1));
        if r.len() >= STUB_LEN - 1 + name.len() {
            k += 1;
            let stub = [&b"fn "[..], &name, b"(){}"].concat();
            bytes[r.start..r.start + stub.len()].copy_from_slice(&stub);
            bytes[r.start + stub.len()..r.end].fill(b' ');
        }
    }
    (Text::new(Arc::from(bytes)), lo as u32)
}

/// The length of an empty function with a one-letter name (`fn j(){}`).
const STUB_LEN: usize = 8;

/// The `k`-th name in the order `j`, `k`, `q`, `x`, `z`, `kj`, …: letters for digits, from
/// letters no keyword is made of only; at most `room` of them (names that would not fit are
/// cut, and may repeat).
fn stub_name(k: usize, room: usize) -> Vec<u8> {
    let mut digits = Vec::new();
    let mut k = k;
    loop {
        const LETTERS: &[u8; 5] = b"jkqxz";
        digits.push(LETTERS[k % 5]);
        k /= 5;
        if k == 0 || digits.len() >= room.max(1) {
            break;
        }
    }
    digits.reverse();
    digits
}

/// Everything an editor keeps, read from a whole tree.
pub(crate) fn read_all(tree: SyntaxTree) -> KeptParse {
    let (items, nodes) = vox_hir::item_tree(&tree);
    let fn_texts = nodes
        .iter()
        .map(|n| Text::new(Arc::from(&tree.bytes()[n.range().as_usize()])))
        .collect();
    let syntax = syntax_facts(&tree, &nodes);
    drop(nodes);
    KeptParse {
        items: Arc::new(items),
        fn_texts,
        syntax: Arc::new(syntax),
        tree,
    }
}

/// What an editor keeps, after `spliced` replaced one function of the tree: that function's
/// item, text, name and comments are read again; whatever lies after it moves by the change in
/// length. A renamed function (or one that is not an item), or a run of top-level elements
/// parsed again, gives the tree back to be read in full.
pub(crate) fn after_splice(
    tree: SyntaxTree,
    spliced: Spliced,
    items: Arc<ItemTree>,
    mut fn_texts: Vec<Text>,
    syntax: &FileSyntax,
) -> Result<KeptParse, Box<SyntaxTree>> {
    let (old, new) = (spliced.old_range, spliced.new_range);
    let Some(k) = (spliced.one_function && !spliced.renamed)
        .then(|| syntax.fn_starts.binary_search(&old.start).ok())
        .flatten()
    else {
        return Err(Box::new(tree));
    };
    let Some(node) = tree.root().children().find(|n| n.range() == new) else {
        return Err(Box::new(tree));
    };
    let (Some(item), Some(name)) = (
        vox_hir::fn_item(node),
        <vox_syntax::ast::FnDecl as vox_syntax::ast::AstNode>::cast(node).and_then(|f| f.name()),
    ) else {
        return Err(Box::new(tree));
    };
    let items = if *items.fns[k] == item {
        items
    } else {
        let mut changed = (*items).clone();
        changed.fns[k] = Arc::new(item);
        Arc::new(changed)
    };
    fn_texts[k] = Text::new(Arc::from(&tree.bytes()[new.as_usize()]));

    let moved = mover(old, new);
    let inside = |r: TextRange| old.start <= r.start && r.end <= old.end;
    let allow_comments =
        comments_reread(&tree, syntax, (old, new), node.descendant_tokens(), &moved);
    let facts = FileSyntax {
        diagnostics: tree.diagnostics().to_vec(),
        has_errors: tree.has_errors(),
        imports: moved_imports(syntax, &moved),
        local_names: syntax
            .local_names
            .iter()
            .map(|l| vox_hir::LocalName {
                range: if inside(l.range) {
                    name.range()
                } else {
                    moved(l.range)
                },
                ..*l
            })
            .collect(),
        allow_comments,
        fn_starts: syntax
            .fn_starts
            .iter()
            .map(|&s| moved(TextRange::new(s, s)).start)
            .collect(),
    };
    Ok(KeptParse {
        tree,
        items,
        fn_texts,
        syntax: Arc::new(facts),
    })
}

/// What an editor keeps, after `spliced` replaced a run of top-level elements (a change between
/// functions, or one that broke the function it was in): the run's items, function texts and
/// comments are read again, the rest taken over (moved when after it). A run that declares
/// types or imports, in either version, gives the tree back to be read in full.
pub(crate) fn after_run(
    tree: SyntaxTree,
    spliced: Spliced,
    items: Arc<ItemTree>,
    fn_texts: Vec<Text>,
    syntax: &FileSyntax,
) -> Result<KeptParse, Box<SyntaxTree>> {
    use vox_syntax::ast::{self, AstNode};
    let (old, new) = (spliced.old_range, spliced.new_range);
    let moved = mover(old, new);
    let named_fn = |n: &SyntaxNode<'_>| ast::FnDecl::cast(*n).and_then(|f| f.name()).is_some();
    let named_type = |n: &SyntaxNode<'_>| ast::TypeDecl::cast(*n).and_then(|t| t.name()).is_some();
    let root = tree.root();
    let (mut fns_before, mut types_before, mut fns_after) = (0, 0, 0);
    let mut types = 0;
    let mut run = Vec::new();
    let mut has_stmts = false;
    for n in root.children() {
        let r = n.range();
        has_stmts |= vox_hir::is_top_level_stmt(n.kind());
        types += usize::from(named_type(&n));
        if r.end <= new.start {
            fns_before += usize::from(named_fn(&n));
            types_before += usize::from(named_type(&n));
        } else if r.start >= new.end {
            fns_after += usize::from(named_fn(&n));
        } else {
            run.push(n);
        }
    }
    // No type or import in the run now, and (as many as before outside it) none before.
    let imports_now = vox_hir::file_imports(&tree).len();
    if run
        .iter()
        .any(|n| matches!(n.kind(), SyntaxKind::TypeDecl | SyntaxKind::Import))
        || types != items.types.len()
        || imports_now != items.imports.len()
        || imports_now != syntax.imports.len()
        || fns_before + fns_after > items.fns.len()
        || fns_before + types_before > items.decls.len()
    {
        return Err(Box::new(tree));
    }
    let (run_items, run_nodes) = vox_hir::item_tree_of(run.iter().copied());
    let (old_run, new_run) = (
        items.fns.len() - fns_before - fns_after,
        run_items.fns.len(),
    );
    let keep = fns_before + types_before;
    let renumber = |d: &vox_hir::items::Decl| match *d {
        vox_hir::items::Decl::Fn(i) => {
            vox_hir::items::Decl::Fn(i - old_run as u32 + new_run as u32)
        }
        other => other,
    };
    let changed = ItemTree {
        decls: items.decls[..keep]
            .iter()
            .copied()
            .chain((0..new_run).map(|i| vox_hir::items::Decl::Fn((fns_before + i) as u32)))
            .chain(items.decls[keep + old_run..].iter().map(renumber))
            .collect(),
        fns: items.fns[..fns_before]
            .iter()
            .cloned()
            .chain(run_items.fns)
            .chain(items.fns[items.fns.len() - fns_after..].iter().cloned())
            .collect(),
        types: items.types.clone(),
        imports: items.imports.clone(),
        has_top_level_stmts: has_stmts,
    };
    let items = if changed == *items {
        items
    } else {
        Arc::new(changed)
    };
    let n_old = fn_texts.len();
    let mut texts = fn_texts;
    texts.splice(
        fns_before..n_old - fns_after,
        run_nodes
            .iter()
            .map(|n| Text::new(Arc::from(&tree.bytes()[n.range().as_usize()]))),
    );
    let first = tree
        .token_at_offset(new.start)
        .map_or(tree.token_count(), |t| t.index());
    let run_tokens = (first..tree.token_count())
        .map(|i| tree.token(i))
        .take_while(|t| t.range().start < new.end);
    let allow_comments = comments_reread(&tree, syntax, (old, new), run_tokens, &moved);
    let n_starts = syntax.fn_starts.len();
    let facts = FileSyntax {
        diagnostics: tree.diagnostics().to_vec(),
        has_errors: tree.has_errors(),
        imports: moved_imports(syntax, &moved),
        local_names: vox_hir::local_names(&tree),
        allow_comments,
        fn_starts: syntax.fn_starts[..fns_before]
            .iter()
            .copied()
            .chain(run_nodes.iter().map(|n| n.range().start))
            .chain(
                syntax.fn_starts[n_starts - fns_after..]
                    .iter()
                    .map(|&s| moved(TextRange::new(s, s)).start),
            )
            .collect(),
    };
    Ok(KeptParse {
        tree,
        items,
        fn_texts: texts,
        syntax: Arc::new(facts),
    })
}

/// The import sites of the last parse, moved with the text.
fn moved_imports(syntax: &FileSyntax, moved: &impl Fn(TextRange) -> TextRange) -> Vec<ImportSite> {
    syntax
        .imports
        .iter()
        .map(|i| ImportSite {
            range: moved(i.range),
            ..i.clone()
        })
        .collect()
}

/// The suppression comments after a splice that replaced `old` by `new`: the last parse's before
/// it, those among `tokens` (what was parsed again), and the last parse's after it, moved.
fn comments_reread<'t>(
    tree: &'t SyntaxTree,
    syntax: &FileSyntax,
    (old, new): (TextRange, TextRange),
    tokens: impl Iterator<Item = vox_syntax::SyntaxToken<'t>>,
    moved: &impl Fn(TextRange) -> TextRange,
) -> Vec<(TextRange, bool)> {
    let mut out: Vec<(TextRange, bool)> = syntax
        .allow_comments
        .iter()
        .take_while(|(r, _)| r.start < old.start)
        .copied()
        .collect();
    // Whether the parsed-again part starts in the leading comment block.
    let leading = (0..tree.token_count())
        .map(|i| tree.token(i))
        .take_while(|t| t.range().start < new.start)
        .all(|t| is_layout(t.kind()));
    scan_allow_comments(tokens, leading, &mut out);
    out.extend(
        syntax
            .allow_comments
            .iter()
            .filter(|(r, _)| r.start >= old.end)
            .map(|&(r, lead)| (moved(r), lead)),
    );
    out
}

/// Where a range of the last parse lies after a splice that replaced `old` by `new` (same
/// start): moved by the change in length when it lies after `old`, else where it was.
fn mover(old: TextRange, new: TextRange) -> impl Fn(TextRange) -> TextRange {
    let delta = new.end as i64 - old.end as i64;
    move |r: TextRange| {
        if r.start >= old.end {
            let at = |x: u32| (x as i64 + delta) as u32;
            TextRange::new(at(r.start), at(r.end))
        } else {
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The synthetic main's text keeps the file's length and its top-level statements where they
    /// were; the functions next to one are empty functions with names of their own (it parses with
    /// no duplicate declaration: with the one name they had, one per function but the first), the
    /// others blank.
    #[test]
    fn main_text_keeps_places_and_names_each_empty_function() {
        let mut file = String::from("print(1)\n");
        for i in 0..600 {
            file.push_str(&format!(
                "fn work_{i}(x: int) to int {{\n    return x + {i}\n}}\n"
            ));
            if i % 100 == 50 {
                file.push_str(&format!("print({i})\n"));
            }
        }
        file.push_str("print(2)\nfn last(){}\n");
        let tree = vox_syntax::parse(file.as_bytes());
        let (text, base) = main_text(&tree);
        let text = text.get();
        // A statement is the file's first element, and one is next to its last: the window is the
        // whole file but the newline after the last element.
        assert_eq!((base, text.len()), (0, file.len() - 1));
        for stmt in ["print(1)", "print(2)"] {
            let at = file.find(stmt).unwrap();
            assert_eq!(&text[at..at + stmt.len()], stmt.as_bytes());
        }
        let parsed = vox_syntax::parse(&text);
        let dups = parsed
            .diagnostics()
            .iter()
            .filter(|d| d.code == "syntax.duplicate")
            .count();
        assert_eq!(dups, 0, "{:?}", parsed.diagnostics().first());
        assert!(
            parsed.diagnostics().is_empty(),
            "{:?}",
            parsed.diagnostics()
        );
        // Next to a statement: an empty function; elsewhere: nothing but spaces.
        let at = |name: &str| file.find(&format!("fn {name}(")).unwrap();
        assert!(text[at("work_0")..].starts_with(b"fn j(){}"));
        assert!(text[at("work_51")..].starts_with(b"fn "));
        let blank = at("work_300");
        assert!(text[blank..at("work_301")]
            .iter()
            .all(|&b| b == b' ' || b == b'\n'));
        let stubs = text.windows(3).filter(|w| w == b"fn ").count();
        assert_eq!(stubs, 2 + 6 * 2 + 1, "{}", String::from_utf8_lossy(&text));
    }
    /// Statements between functions: the text is the window from the function before the first
    /// to the one after the last, starting where that function does, and lowers the statements
    /// at the same offsets from its start as the file's whole text does from the file's.
    #[test]
    fn main_text_is_the_window_around_the_statements() {
        let mut file = String::new();
        for i in 0..300 {
            file.push_str(&format!(
                "fn work_{i}(x: int) to int {{\n    return x + {i}\n}}\n"
            ));
            if i == 150 || i == 152 {
                file.push_str(&format!("let v{i} = work_{i}(1)\nprint(v{i} + 1)\n"));
            }
        }
        let tree = vox_syntax::parse(file.as_bytes());
        let (text, base) = main_text(&tree);
        let text = text.get();
        let from = file.find("fn work_150(").unwrap();
        let to = file.find("fn work_154(").unwrap() - 1;
        assert_eq!((base as usize, text.len()), (from, to - from));
        assert!(text.starts_with(b"fn j(){}"));
        for stmt in ["let v150 = work_150(1)", "print(v152 + 1)"] {
            let at = file.find(stmt).unwrap() - from;
            assert_eq!(&text[at..at + stmt.len()], stmt.as_bytes());
        }
        // `work_151` lies between two statements: an empty function; `work_153`, after the last.
        let at = |name: &str| file.find(&format!("fn {name}(")).unwrap() - from;
        assert!(text[at("work_151")..].starts_with(b"fn "));
        assert!(text[at("work_153")..].starts_with(b"fn "));
        let whole = vox_syntax::parse(file.as_bytes());
        let window = vox_syntax::parse(&text);
        let stmts = |t: &SyntaxTree, shift: u32| -> Vec<(SyntaxKind, u32, u32)> {
            t.root()
                .children()
                .filter(|n| vox_hir::is_top_level_stmt(n.kind()))
                .map(|n| (n.kind(), n.range().start + shift, n.range().end + shift))
                .collect()
        };
        assert_eq!(stmts(&window, base), stmts(&whole, 0));
        assert_eq!(stmts(&whole, 0).len(), 4);
    }
}
