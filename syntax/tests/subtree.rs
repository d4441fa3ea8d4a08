//! `SyntaxTree::subtree` gives, for every function of an error-free file, the same tree as
//! parsing that function's text alone: the analysis relies on it to lower functions from their
//! file's one parse and still get what a later re-parse of the function's text would give.

mod common;

use common::corpus;

use vox_syntax::{parse, SyntaxKind, SyntaxNode, SyntaxTree};

/// Kinds, ranges and parents of every node and token, in tree order.
fn shape(node: SyntaxNode<'_>) -> Vec<String> {
    let mut out = vec![format!(
        "{:?}@{:?} parent {:?}",
        node.kind(),
        node.range(),
        node.parent().map(|p| p.range())
    )];
    for t in node.descendant_tokens() {
        out.push(format!(
            "{:?}@{:?} in {:?}",
            t.kind(),
            t.range(),
            t.parent().range()
        ));
    }
    let tree = node.tree();
    for id in 0..tree.node_count() as u32 {
        let n = tree.node(id);
        out.push(format!(
            "{:?}@{:?} parent {:?} kids {}",
            n.kind(),
            n.range(),
            n.parent().map(|p| p.range()),
            n.children_with_tokens().count()
        ));
    }
    out
}

fn fn_nodes(tree: &SyntaxTree) -> Vec<SyntaxNode<'_>> {
    tree.root()
        .children()
        .filter(|n| n.kind() == SyntaxKind::FnDecl)
        .collect()
}

#[test]
fn every_function_subtree_equals_a_parse_of_its_text() {
    let files = corpus(&["tests", "examples", "docs"]);
    let (mut checked, mut skipped) = (0, 0);
    for path in &files {
        let text = std::fs::read(path).unwrap();
        let tree = parse(&text);
        if tree.has_errors() {
            skipped += 1;
            continue;
        }
        for node in fn_nodes(&tree) {
            let sub = tree.subtree(node);
            let alone = parse(&text[node.range().as_usize()]);
            let alone_fns = fn_nodes(&alone);
            assert_eq!(alone_fns.len(), 1, "{}: {:?}", path.display(), node);
            let expected = alone.subtree(alone_fns[0]);
            assert_eq!(sub.root().kind(), SyntaxKind::FnDecl);
            assert_eq!(
                sub.print(),
                &text[node.range().as_usize()],
                "{}",
                path.display()
            );
            assert!(
                sub == expected,
                "{}: {:?}\n{}\n---\n{}",
                path.display(),
                node,
                sub.debug_dump(),
                expected.debug_dump()
            );
            assert_eq!(
                shape(sub.root()),
                shape(expected.root()),
                "{}: {:?}",
                path.display(),
                node
            );
            // And the function as its own parse's child, which lowering also accepts.
            assert_eq!(sub.debug_dump(), alone.subtree(alone_fns[0]).debug_dump());
            checked += 1;
        }
    }
    assert!(
        checked > 400,
        "only {checked} functions checked ({skipped} files with errors skipped)"
    );
}
