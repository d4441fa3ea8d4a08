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
    let mut files: Vec<(String, Vec<u8>)> = corpus(&["tests/corpus", "examples", "tests/lint"])
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read(p).unwrap()))
        .collect();
    // Files of many functions, with top-level statements among them in one: most edits land
    // in a function, some between two, where a run of elements is parsed again.
    for (k, with_statements) in [(0, false), (1, true), (2, false)] {
        let mut text = String::new();
        for i in 0..24 {
            text.push_str(&format!(
                "fn f{i}(x: int) to int {{\n    let y = x + {k}{i}\n    if y > 3 {{\n        print(\"big\", y)\n    }}\n    return y\n}}\n\n"
            ));
            if with_statements && i % 5 == 0 {
                text.push_str(&format!("let v{i} = f{i}({i})\nprint(v{i})\n\n"));
            }
        }
        if !with_statements {
            text.push_str("fn main() {\n    print(f1(2))\n}\n");
        }
        files.push((format!("generated {k}"), text.into_bytes()));
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut spliced, mut steps, mut with_errors) = (0usize, 0usize, 0usize);
    // Runs of top-level elements spliced; of them, those with the file's text on both sides.
    let (mut runs, mut inner) = (0usize, 0usize);
    for (path, original) in &files {
        let original = original.clone();
        let clean = parse(&original);
        if !clean.diagnostics().is_empty() || original.is_empty() {
            continue;
        }
        let (mut text, mut tree) = (original.clone(), clean.clone());
        // Edits in a row that left diagnostics: typing goes on from a broken file for a while.
        let mut broken = 0;
        let edits = if path.starts_with("generated") {
            1500
        } else {
            40
        };
        for _ in 0..edits {
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
            let incremental = vox_syntax::reparse_owned(tree.clone(), &next).map(|(inc, how)| {
                runs += usize::from(!how.one_function);
                inner += usize::from(
                    !how.one_function
                        && how.new_range.start > 0
                        && (how.new_range.end as usize) < next.len(),
                );
                inc
            });
            if let Some(inc) = &incremental {
                spliced += 1;
                with_errors +=
                    usize::from(!tree.diagnostics().is_empty() || !inc.diagnostics().is_empty());
                assert!(
                    *inc == full,
                    "{}: reparse differs after an edit at {at}\n{}\n---\n{}",
                    path,
                    inc.debug_dump(),
                    full.debug_dump()
                );
                assert_eq!(shape(inc), shape(&full), "{path}: edit at {at}");
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
    eprintln!(
        "{spliced} of {steps} edits spliced, {with_errors} with diagnostics, {runs} as a run of top-level elements ({inner} inside the file)"
    );
    assert!(
        inner > steps / 60,
        "only {inner} of {steps} edits were spliced as a run with text on both sides"
    );
    assert!(
        runs > steps / 20,
        "only {runs} of {steps} edits were spliced as a run of top-level elements"
    );
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
fn an_edit_outside_one_function_replaces_the_run_of_elements_around_it() {
    let old = parse(b"fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n\nfn c() {\n    3\n}\n");
    let run = |new: &[u8]| {
        let (inc, how) = vox_syntax::reparse_owned(old.clone(), new)
            .unwrap_or_else(|| panic!("not spliced: {}", String::from_utf8_lossy(new)));
        assert!(inc == parse(new), "{}", String::from_utf8_lossy(new));
        assert_eq!(shape(&inc), shape(&parse(new)));
        (how.one_function, how.new_range.as_usize())
    };
    // Inside a body: that function alone.
    assert_eq!(
        run(b"fn a() {\n    12\n}\n\nfn b() {\n    2\n}\n\nfn c() {\n    3\n}\n"),
        (true, 0..17)
    );
    // Between b and c: from b (the last function before) to c (the first after).
    assert_eq!(
        run(b"fn a() {\n    1\n}\n\nfn b() {\n    2\n}\nf\nfn c() {\n    3\n}\n"),
        (false, 18..53)
    );
    // A statement at the top, before any function: from the file's start to a.
    assert_eq!(
        run(b"print(0)\nfn a() {\n    1\n}\n\nfn b() {\n    2\n}\n\nfn c() {\n    3\n}\n"),
        (false, 0..43)
    );
    // An error whose recovery runs to b's last `}` (which b alone cannot tell from running
    // on into c): from a to c, which still closes with its own `}`.
    assert_eq!(
        run(b"fn a() {\n    1\n}\n\nfn b() {\n    2 +\n}\n\nfn c() {\n    3\n}\n"),
        (false, 0..54)
    );
    // An error inside, the body still closed by its own `}`: that function, with the file's
    // diagnostics.
    let broken = b"fn a() {\n    let = 1\n    2\n}\n\nfn b() {\n    2\n}\n\nfn c() {\n    3\n}\n";
    assert_eq!(run(broken), (true, 0..28));
    assert!(!parse(broken).diagnostics().is_empty());
    // A renamed function that clashes with another: left to a full parse when validation
    // speaks.
    assert!(reparse(
        &old,
        b"fn a() {\n    1\n}\n\nfn a() {\n    2\n}\n\nfn c() {\n    3\n}\n"
    )
    .is_none());
    // A brace left open in b: the parser stops b at c's `fn` and c still closes where it did.
    assert_eq!(
        run(b"fn a() {\n    1\n}\n\nfn b() {\n    {2\n}\n\nfn c() {\n    3\n}\n"),
        (false, 0..53)
    );
    // One left open in c, the last function: the run goes to the file's end.
    assert_eq!(
        run(b"fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n\nfn c() {\n    {3\n}\n"),
        (false, 18..54)
    );
}

/// In a large file (40,000 tokens), edits between functions, at the top and breaking a
/// function, each moving the arrays' gap from where the last left it, still give a full parse's
/// tree, parents included, and a base as good for the next edit.
#[test]
fn a_run_spliced_into_a_large_file_equals_a_full_parse() {
    let mut text = String::new();
    for i in 0..1200 {
        text.push_str(&format!(
            "fn w{i}(x: int) to int {{\n    let y = x + {i}\n    return y * 2\n}}\n\n"
        ));
    }
    let mut tree = parse(text.as_bytes());
    assert!(tree.token_count() > 40_000, "{}", tree.token_count());
    let gap = text.find("fn w40(").unwrap();
    let edits: Vec<String> = vec![
        format!("{}f\n{}", &text[..gap], &text[gap..]),
        format!(
            "{}fn new(a: int) {{\n    print(a)\n}}\n{}",
            &text[..gap],
            &text[gap..]
        ),
        format!("print(0)\n{text}"),
        text.replacen(
            "fn w3(x: int) to int {\n",
            "fn w3(x: int) to int {\n    {\n",
            1,
        ),
        text.clone(),
    ];
    for new in &edits {
        let (inc, how) = vox_syntax::reparse_owned(tree, new.as_bytes())
            .unwrap_or_else(|| panic!("not spliced: {}", &new[..200]));
        assert!(!how.one_function, "{:?}", how);
        let full = parse(new.as_bytes());
        assert!(inc == full, "reparse differs from a full parse");
        assert_eq!(shape(&inc), shape(&full));
        tree = inc;
    }
}

/// A run that declares (or no longer declares) a variant changes the checks inside every item:
/// a call of a capitalised name that is no variant is a view call, not a script.
#[test]
fn a_run_that_changes_a_types_variants_checks_every_item_again() {
    let old = parse(
        b"fn a() {\n    1\n}\n\ntype Pay = | Card | Cash\n\nfn b() {\n    2\n}\n\nfn c() {\n    print(Cash())\n}\n",
    );
    assert!(old.diagnostics().is_empty(), "{:?}", old.diagnostics());
    let new: &[u8] =
        b"fn a() {\n    1\n}\n\ntype Pay = | Card | Coin\n\nfn b() {\n    2\n}\n\nfn c() {\n    print(Cash())\n}\n";
    let full = parse(new);
    assert!(
        !full.diagnostics().is_empty(),
        "c's call is now a view call"
    );
    let inc = reparse(&old, new).expect("spliced: the run from a to b");
    assert_eq!(shape(&inc), shape(&full));
}

/// An edit that leaves (or mends) a syntax error inside one function splices that function in,
/// and its diagnostics are a full parse's: the checks across items when the function kept its
/// name and none failed before, else again (a name declared twice, `main`), and a call that is a
/// view call only to a file without variants.
#[test]
fn a_splice_with_an_error_in_its_function_reports_what_a_parse_does() {
    let cases: &[(&str, &str, &str)] = &[
        // A plain function.
        (
            "fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n",
            "    2\n",
            "    let = 0\n    2\n",
        ),
        // A name declared twice: the duplicate is reported on the second one's name.
        (
            "fn a() {\n    1\n}\n\nfn a() {\n    2\n}\n",
            "    2\n",
            "    let = 0\n    2\n",
        ),
        // A variant's constructor, which a file without variants would take for a view call.
        (
            "type Pay = | Card | Cash\n\nfn c() {\n    print(Cash())\n}\n",
            "    print(Cash())\n",
            "    let = 0\n    print(Cash())\n",
        ),
        // `main`, given a parameter it may not take.
        (
            "fn main() {\n    1\n}\n\nfn d() {\n    2\n}\n",
            "main() {\n    1\n",
            "main(x: int) {\n    let = 0\n    1\n",
        ),
        // A view call typed in: reported whatever the file declares.
        (
            "fn a() {\n    1\n}\n\nfn e() {\n    2\n}\n",
            "    2\n",
            "    let = 0\n    Page()\n",
        ),
    ];
    for (text, from, to) in cases {
        let broken = text.replacen(from, to, 1);
        // Broken, then mended: errors in the new version, then in the old one only.
        for (old, new) in [(*text, broken.as_str()), (broken.as_str(), *text)] {
            let full = parse(new.as_bytes());
            let (inc, spliced) = vox_syntax::reparse_owned(parse(old.as_bytes()), new.as_bytes())
                .unwrap_or_else(|| panic!("not spliced: {new:?}"));
            assert!(spliced.one_function, "{new:?}");
            assert_eq!(shape(&inc), shape(&full), "{old:?} -> {new:?}");
        }
        assert!(
            !parse(broken.as_bytes()).diagnostics().is_empty(),
            "{broken:?} has an error"
        );
    }
    // The cases mean what they say: the codes a parse of each broken file reports.
    let codes = |i: usize| -> Vec<String> {
        let (text, from, to) = cases[i];
        let tree = parse(text.replacen(from, to, 1).as_bytes());
        tree.diagnostics()
            .iter()
            .map(|d| d.code.to_string())
            .collect()
    };
    assert!(codes(1).iter().any(|c| c == "syntax.duplicate"));
    assert!(codes(2).iter().all(|c| c != "syntax.not-a-script"));
    assert!(codes(3).iter().any(|c| c == "syntax.main-params"));
    assert!(codes(4).iter().any(|c| c == "syntax.not-a-script"));
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

/// A shared reparse keeps the buffer it is given as the tree's text (an editor's keystroke
/// copies no text), inside one function and between functions alike.
#[test]
fn a_shared_reparse_holds_the_text_it_is_given() {
    use std::sync::Arc;
    let old = parse(b"fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n");
    let inside: Arc<[u8]> = Arc::from(&b"fn a() {\n    1\n}\n\nfn b() {\n    2345\n}\n"[..]);
    let (tree, spliced) = vox_syntax::reparse_shared(old, inside.clone()).unwrap();
    assert!(spliced.one_function);
    assert!(tree == parse(&inside));
    assert_eq!(tree.bytes().as_ptr(), inside.as_ptr(), "inside a function");
    let between: Arc<[u8]> = Arc::from(&b"fn a() {\n    1\n}\nx\nfn b() {\n    2345\n}\n"[..]);
    let (tree, spliced) = vox_syntax::reparse_shared(tree, between.clone()).unwrap();
    assert!(!spliced.one_function);
    assert!(tree == parse(&between));
    assert_eq!(tree.bytes().as_ptr(), between.as_ptr(), "between functions");
}
