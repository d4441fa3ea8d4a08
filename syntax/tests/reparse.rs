//! `reparse` gives exactly what `parse` gives: random edit sequences over the corpus, each
//! step re-parsed incrementally from the previous step's tree (spliced or not) and compared with
//! a full parse of the new text: nodes, tokens, parents, ranges and diagnostics.

mod common;

use common::{corpus, Rng};

use vox_syntax::{parse, reparse, SyntaxTree};

/// Every node and token with its kind, range and parent's range, in id order, plus diagnostics.
fn shape(tree: &SyntaxTree) -> Vec<String> {
    let mut out = Vec::new();
    for id in 0..tree.node_count() as u32 {
        let n = tree.node(id);
        out.push(format!(
            "{:?}@{:?} parent {:?} kids {}",
            n.kind(),
            n.range(),
            n.parent().map(|p| (p.id(), p.range())),
            n.children_with_tokens().count()
        ));
    }
    for t in tree.root().descendant_tokens() {
        out.push(format!(
            "{:?}@{:?} in {}",
            t.kind(),
            t.range(),
            t.parent().id()
        ));
    }
    for d in tree.diagnostics() {
        out.push(format!("{d:?}"));
    }
    out
}

const PIECES: &[&str] = &[
    "1",
    "x",
    "a",
    " ",
    "\n",
    "{",
    "}",
    "(",
    ")",
    "\"",
    "+",
    "-",
    "*",
    "/",
    "//",
    "/*",
    ",",
    ".",
    "let y = 2\n",
    "print(1)\n",
    "if x { 1 } else { 2 }",
    "fn",
    "return",
    "\"{x}\"",
    "[",
    "]",
];

#[test]
fn reparse_equals_a_full_parse_over_random_edit_sequences() {
    let files = corpus(&["tests/corpus", "examples", "tests/lint"]);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut spliced, mut steps, mut with_errors) = (0usize, 0usize, 0usize);
    for path in &files {
        let original = std::fs::read(path).unwrap();
        let clean = parse(&original);
        if !clean.diagnostics().is_empty() || original.is_empty() {
            continue;
        }
        let (mut text, mut tree) = (original.clone(), clean.clone());
        // Edits in a row that left diagnostics: typing goes on from a broken file for a while.
        let mut broken = 0;
        for _ in 0..40 {
            let at = rng.below(text.len());
            let mut next = text.clone();
            match rng.below(5) {
                // Edits that usually keep the file valid: a digit for a digit, a letter into a
                // name, a space after a space.
                3 | 4 if text[at].is_ascii_digit() => next[at] = b'0' + rng.below(10) as u8,
                3 | 4 if text[at].is_ascii_alphabetic() => next.insert(at, b'q'),
                3 | 4 if text[at] == b' ' => next.insert(at, b' '),
                3 | 4 => {}
                0 => {
                    let p = PIECES[rng.below(PIECES.len())].as_bytes();
                    next.splice(at..at, p.iter().copied());
                }
                1 => {
                    let end = (at + 1 + rng.below(3)).min(next.len());
                    next.drain(at..end);
                }
                _ => {
                    let end = (at + 1).min(next.len());
                    let p = PIECES[rng.below(PIECES.len())].as_bytes();
                    next.splice(at..end, p.iter().copied());
                }
            }
            let full = parse(&next);
            steps += 1;
            let incremental = reparse(&tree, &next);
            if let Some(inc) = &incremental {
                spliced += 1;
                with_errors +=
                    usize::from(!tree.diagnostics().is_empty() || !inc.diagnostics().is_empty());
                assert!(
                    *inc == full,
                    "{}: reparse differs after an edit at {at}\n{}\n---\n{}",
                    path.display(),
                    inc.debug_dump(),
                    full.debug_dump()
                );
                assert_eq!(shape(inc), shape(&full), "{}: edit at {at}", path.display());
                assert_eq!(inc.print(), next);
            }
            // Go on from the incremental tree when there is one (a spliced tree must be as good
            // a base for the next edit as a parsed one), with diagnostics for up to four edits
            // in a row, then from the clean file again.
            broken = if full.diagnostics().is_empty() {
                0
            } else {
                broken + 1
            };
            if broken <= 4 {
                tree = incremental.unwrap_or(full);
                text = next;
            } else {
                (text, tree, broken) = (original.clone(), clean.clone(), 0);
            }
        }
    }
    assert!(steps > 1000, "only {steps} edits tried");
    eprintln!("{spliced} of {steps} edits spliced, {with_errors} with diagnostics");
    assert!(
        with_errors > steps / 40,
        "only {with_errors} spliced edits had diagnostics"
    );
    assert!(
        spliced > steps / 15,
        "only {spliced} of {steps} edits were spliced"
    );
}

#[test]
fn an_edit_outside_any_function_or_whose_error_reaches_its_end_is_not_spliced() {
    let old = parse(b"fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n");
    // Between the functions.
    assert!(reparse(&old, b"fn a() {\n    1\n}\n\n\nfn b() {\n    2\n}\n").is_none());
    // Inside a body: spliced.
    let inc = reparse(&old, b"fn a() {\n    12\n}\n\nfn b() {\n    2\n}\n").unwrap();
    assert!(inc == parse(b"fn a() {\n    12\n}\n\nfn b() {\n    2\n}\n"));
    // An edit that breaks the function where the error runs on to its last `}`: a full parse
    // decides (in the whole file, the recovery could run into the next function).
    assert!(reparse(&old, b"fn a() {\n    1 +\n}\n\nfn b() {\n    2\n}\n").is_none());
    // An error inside, the body still closed by its own `}`: spliced, with the file's diagnostics.
    let broken = b"fn a() {\n    let = 1\n    2\n}\n\nfn b() {\n    2\n}\n";
    let inc = reparse(&old, broken).unwrap();
    assert!(!inc.diagnostics().is_empty());
    assert!(inc == parse(broken));
    // A renamed function may clash with another: left to a full parse when validation speaks.
    let old = parse(b"fn a() {\n    1\n}\n\nfn bb() {\n    2\n}\n");
    assert!(reparse(&old, b"fn a() {\n    1\n}\n\nfn a() {\n    2\n}\n").is_none());
}

#[test]
fn an_owned_reparse_says_which_function_it_replaced() {
    let old = parse(b"fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n");
    let new = b"fn a() {\n    1\n}\n\nfn b() {\n    2345\n}\n";
    let (tree, spliced) = vox_syntax::reparse_owned(old, new).unwrap();
    assert!(tree == parse(new));
    assert_eq!(spliced.old_range.as_usize(), 18..34);
    assert_eq!(spliced.new_range.as_usize(), 18..37);
    assert!(!spliced.renamed);
    let (_, spliced) =
        vox_syntax::reparse_owned(tree, b"fn a() {\n    1\n}\n\nfn c() {\n    2345\n}\n").unwrap();
    assert!(spliced.renamed);
    // The same text again: nothing to splice.
    assert!(vox_syntax::reparse_owned(parse(new), new).is_none());
}
