//! The parallel parse gives exactly the sequential one: every `.vox` file of the repository and
//! many generated and mutated files are cut at every candidate (one cut at a time, then all at
//! once) and the joined tree is compared with the whole file's parse in every array (parents,
//! capacities and diagnostics included) and in its dump. Cuts that cannot be joined (inside a
//! string, a block, an unfinished item) must be refused, and `parse` then parses the file whole.

mod common;

use common::{corpus, Rng};
use vox_syntax::{
    parse, parse_checking_on, parse_sequential, parse_with_splits, split_candidates, SyntaxTree,
};

#[derive(Default, Debug)]
struct Count {
    files: usize,
    cuts: usize,
    joined: usize,
    all_at_once_joined: usize,
}

fn same(joined: &SyntaxTree, whole: &SyntaxTree, what: &dyn Fn() -> String) {
    assert!(
        joined == whole,
        "{}: the joined tree differs\n{}\n--- whole ---\n{}",
        what(),
        joined.debug_dump(),
        whole.debug_dump()
    );
    assert_eq!(joined.debug_dump(), whole.debug_dump(), "{}", what());
    assert_eq!(joined.diagnostics(), whole.diagnostics(), "{}", what());
    assert!(
        joined.identical(whole),
        "{}: same tree, different arrays (parents, flags or capacities)",
        what()
    );
}

/// Cuts `text` at each candidate alone, then at all of them, and compares what joins.
fn check_file(text: &[u8], name: &str, count: &mut Count) {
    let whole = parse_sequential(text);
    assert!(
        whole.identical(&parse(text)),
        "{name}: parse is not parse_sequential"
    );
    // The whole-tree checks on several threads, errors or not.
    for threads in [2, 3] {
        same(&parse_checking_on(text, threads), &whole, &|| {
            format!("{name} checked on {threads} threads")
        });
    }
    let cands = split_candidates(text);
    count.files += 1;
    for &c in &cands {
        count.cuts += 1;
        if let Some(joined) = parse_with_splits(text, &[c], 2) {
            count.joined += 1;
            same(&joined, &whole, &|| format!("{name} cut at {c}"));
        }
    }
    if cands.len() > 1 {
        if let Some(joined) = parse_with_splits(text, &cands, 3) {
            count.all_at_once_joined += 1;
            same(&joined, &whole, &|| format!("{name} cut at {cands:?}"));
        }
    }
}

#[test]
fn every_repository_file_cut_at_every_candidate_parses_as_a_whole() {
    let files = corpus(&["tests", "examples", "bench", "cli", "editors", "docs"]);
    assert!(files.len() > 500, "only {} files found", files.len());
    let mut count = Count::default();
    for path in &files {
        let text = std::fs::read(path).unwrap();
        check_file(&text, &path.display().to_string(), &mut count);
    }
    eprintln!("{count:?}");
    assert!(count.cuts > 400, "{count:?}");
    assert!(count.joined > count.cuts / 2, "{count:?}");
    assert!(count.all_at_once_joined > 40, "{count:?}");
}

/// Pieces of files, each ending in a newline so that the next piece may start a candidate. First
/// clean items, including constructs that look past a newline for a continuation (`else`, `|`,
/// `=>`, a `{` on the next line) ...
const CLEAN: &[&str] = &[
    "fn f() {\n    1\n}\n",
    "fn g(a: int, b) to int {\n    a + b\n}\n",
    "fn main() {\n    print(\"hi\")\n}\n",
    "fn  spaced() {\n}\n",
    "fn\ttabbed() {\n}\n",
    "fn (v) v\n",
    "fn(v) v\n",
    "pub fn p() {\n}\n",
    "fn t<T>(x: T) to T {\n    x\n}\n",
    "fn h() {\n    if x { 1 }\n}\n",
    "fn looped() {\n    for x in xs {\n        break\n    }\n}\n",
    "fn m(s) {\n    match s {\n        A => 1\n        B(x) => { x }\n    }\n}\n",
    "fn closures() {\n    let f = fn(v) v + 1\n    let g = (a, b) => a\n    let h = x => x\n}\n",
    "fn strs() {\n    let s = \"a {x} b\"\n    let r = r#\"raw\"#\n}\n",
    "fn maps() {\n    let m = { a: 1, \"b\": 2 }\n    let e = {}\n}\n",
    "fn ret() {\n    return\n}\n",
    "fn bin() {\n    let x = 1 +\n        2\n}\n",
    "fn assign() {\n    f() = 1\n}\n",
    "Card()\n",
    "fn viewer() {\n    Card(title = 1)\n}\n",
    "fn main() {\n}\n",
    "fn deep() {\n    ((((((((((1))))))))))\n}\n",
    "if x { 1 }\n",
    "if x {\n} else {\n}\n",
    "if x {\n}\n",
    "type T = | A | B(x: int)\n",
    "type U = | A\n",
    "type U2 =\n    | A\n    | B\n",
    "type V = X(a: int)\n",
    "type W = list[int]\n",
    "type R { a: int, b: str }\n",
    "let f = (a, b)\n",
    "let x = 1\n",
    "x = 2\n",
    "print(x)\n",
    "return\n",
    "// a comment\n",
    "# a comment\n",
    "\n",
    "\n\n",
    "@json_as(T)\ntype J { a: int }\n",
    "import \"./lib.vox\"\n",
    "import fs, path\n",
    "env.args()\n",
    "let e = a is not b\n",
];

/// ... then pieces with errors, left open, or whose next line would continue them.
const TRICKY: &[&str] = &[
    "fn view() {\n    Card()\n}\n",
    "fn brace()\n{\n}\n",
    "fn and() {\n    a && b\n}\n",
    "fn semi() {\n    1;\n}\n",
    "fn nested() {\nfn inner() {\n}\n}\n",
    "fn chain() {\n    let y = a\n        .b()\n}\n",
    "async fn a() {\n}\n",
    "fn Upper() {\n}\n",
    "fn if() {\n}\n",
    "fn unclosed() {\n",
    "fn params(\n",
    "}\n",
    "{\n",
    "(\n",
    ")\n",
    "[\n",
    "]\n",
    "\n",
    "\n\n",
    "// a comment\n",
    "# a comment\n",
    "#!/usr/bin/env vox\n",
    "\u{FEFF}",
    "let x = 1\n",
    "let y = x +\n",
    "let z =\n",
    "x = 2\n",
    "x += 1\n",
    "print(x)\n",
    "foo(\n",
    "if x { 1 }\n",
    "if x {\n} else {\n}\n",
    "if x {\n}\n",
    "else {\n}\n",
    "while x {\n}\n",
    "loop {\n    break\n}\n",
    "match x {\n",
    "for x in xs {\n",
    "type T = | A | B(x: int)\n",
    "type U = | A\n",
    "| C\n",
    "type V = X(a: int)\n",
    "type W = list[int]\n",
    "type Y = (int,\n",
    "type R { a: int, b: str }\n",
    "type R2 {\n    a: int\n",
    "type E =\n",
    "@test\n",
    "@test\nfn tested() {\n}\n",
    "@json_as(T)\ntype J { a: int }\n",
    "@page\nfn page() {\n}\n",
    "@weird(\n",
    "import \"./lib.vox\"\n",
    "import fs, path\n",
    "import rust:std\n",
    "table T {}\n",
    "spawn x\n",
    "env\n",
    "http\n",
    "env.args()\n",
    "let s = \"open\n",
    "\"\n",
    "let r = r#\"open\n",
    "\"#\n",
    "let t = 'open\n",
    "'\n",
    "let u = \"esc \\\n",
    "let f = (a, b)\n",
    "let g = (a, b) =>\n",
    "let h = fn(v)\n",
    "=> 1\n",
    "return\n",
    "ret 1\n",
    "let x: fn(int) to int = f\n",
    "let q = <div>\n",
    "let bad = 1 2\n",
    "x. \n",
    ".y()\n",
    "let big = 99999999999999999999\n",
    "let d = 1.5dec\n",
    "is not\n",
    "let e = a is not b\n",
    "\u{e9}\n",
    "\u{0}\n",
    "with x\n",
];

fn piece(rng: &mut Rng) -> &'static str {
    if rng.below(12) == 0 {
        TRICKY[rng.below(TRICKY.len())]
    } else {
        CLEAN[rng.below(CLEAN.len())]
    }
}

fn generated(rng: &mut Rng) -> Vec<u8> {
    let n = 2 + rng.below(24);
    let mut out = Vec::new();
    for _ in 0..n {
        out.extend_from_slice(piece(rng).as_bytes());
        if rng.below(4) == 0 {
            // A clean function right after: a candidate right after the piece.
            out.extend_from_slice(format!("fn q{}() {{\n}}\n", rng.below(5)).as_bytes());
        }
    }
    if rng.below(8) == 0 {
        out.pop();
    }
    out
}

#[test]
fn generated_files_cut_at_every_candidate_parse_as_a_whole() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut count = Count::default();
    for i in 0..3000 {
        let text = generated(&mut rng);
        check_file(
            &text,
            &format!("generated #{i} {:?}", String::from_utf8_lossy(&text)),
            &mut count,
        );
    }
    eprintln!("{count:?}");
    assert!(count.joined > 5000, "{count:?}");
    assert!(count.joined < count.cuts, "{count:?}");
    assert!(count.all_at_once_joined > 500, "{count:?}");
}

/// Random edits of repository files, with functions and their pieces inserted anywhere (in
/// strings, comments, blocks, argument lists).
#[test]
fn mutated_files_cut_at_every_candidate_parse_as_a_whole() {
    let files = corpus(&["tests/corpus", "examples", "tests/lint"]);
    let texts: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut count = Count::default();
    for i in 0..2000 {
        let mut text = texts[rng.below(texts.len())].clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(text.len() + 1);
            match rng.below(6) {
                0 => {
                    let name = format!("\nfn ins{}() {{\n    1\n}}\n", rng.below(3));
                    text.splice(at..at, name.bytes());
                }
                1 => {
                    text.splice(at..at, b"\nfn ".iter().copied());
                }
                2 => {
                    // A piece at a line start.
                    let line = text[..at]
                        .iter()
                        .rposition(|&b| b == b'\n')
                        .map_or(0, |i| i + 1);
                    text.splice(line..line, piece(&mut rng).bytes());
                }
                3 => {
                    // A function before another one.
                    let cands = split_candidates(&text);
                    if !cands.is_empty() {
                        let c = cands[rng.below(cands.len())];
                        let f = format!("fn ins{}(a) {{\n    a\n}}\n", rng.below(3));
                        text.splice(c..c, f.bytes());
                    }
                }
                _ => {
                    let end = (at + 1 + rng.below(8)).min(text.len());
                    text.drain(at.min(end)..end);
                }
            }
        }
        check_file(
            &text,
            &format!("mutated #{i} {:?}", String::from_utf8_lossy(&text)),
            &mut count,
        );
    }
    eprintln!("{count:?}");
    assert!(count.joined > 250, "{count:?}");
}

/// The offset of the `n`-th candidate line `fn name` (0-based).
fn nth_fn(text: &str, name: &str) -> usize {
    text.find(&format!("\nfn {name}")).unwrap() + 1
}

fn refused_and_whole(text: &str, cut: usize) {
    assert!(split_candidates(text.as_bytes()).contains(&cut));
    assert!(
        parse_with_splits(text.as_bytes(), &[cut], 2).is_none(),
        "cut at {cut} joined"
    );
    assert!(parse(text.as_bytes()).identical(&parse_sequential(text.as_bytes())));
}

#[test]
fn a_cut_inside_a_multi_line_string_is_refused() {
    let text = "fn a() {\n    let s = \"one\nfn inside() {\n}\n\"\n}\n\nfn b() {\n}\n";
    refused_and_whole(text, nth_fn(text, "inside"));
    let raw = "fn a() {\n    let s = r#\"one\nfn inside() {\n}\n\"#\n}\n";
    refused_and_whole(raw, nth_fn(raw, "inside"));
    // The cut at `b` is fine.
    let joined = parse_with_splits(text.as_bytes(), &[nth_fn(text, "b")], 2).unwrap();
    same(&joined, &parse_sequential(text.as_bytes()), &|| {
        "cut at b".into()
    });
}

#[test]
fn a_cut_inside_an_unclosed_or_unfinished_item_is_refused() {
    for text in [
        "fn a() {\n    if x {\nfn b() {\n}\n",
        "fn a() {\nfn b() {\n}\n}\n",
        "foo(1,\nfn b() {\n}\n)\n",
        "let x = 1 +\nfn b() {\n}\n",
        "@test\nfn b() {\n}\n",
        "type T = (int,\nfn b() {\n}\n",
        "fn a()\nfn b() {\n}\n",
        "let s = [\nfn b() {\n}\n]\n",
        "@weird(\nfn b() {\n}\n)\n",
        "match x {\nfn b() {\n}\n",
    ] {
        refused_and_whole(text, nth_fn(text, "b"));
    }
}

#[test]
fn cuts_that_are_not_candidates_are_refused() {
    let text = b"fn a() {\n    1\n}\nfn b() {\n}\nlet x = 1\nfn if() {\n}\nfn c() {\n}\n";
    for cut in [0, 1, 5, 17 + 1, 27, text.len()] {
        assert!(parse_with_splits(text, &[cut], 2).is_none(), "cut at {cut}");
    }
    let if_cut = text.windows(6).position(|w| w == b"fn if(").unwrap();
    assert!(parse_with_splits(text, &[if_cut], 2).is_none());
    // Out of order.
    let b = text.windows(4).position(|w| w == b"fn b").unwrap();
    assert!(parse_with_splits(text, &[b, b], 2).is_none());
    // `fn if` is an error: the chunk that holds it is refused.
    assert!(parse_with_splits(text, &[b], 2).is_none());
    let clean = b"fn a() {\n    1\n}\nfn b() {\n}\n";
    assert!(parse_with_splits(clean, &[b], 2).is_some());
}

/// A file large enough for `parse` to cut it by itself (when the machine has two cores).
#[test]
fn a_large_file_parses_in_chunks_as_a_whole() {
    let piece = "// doc\nfn work_N(items: list[int], name: str) to int {\n    let mut total = 0\n    for x, i in items {\n        if x % 2 == 0 and i > 3 { total += x * 2 } else { total -= 1 }\n    }\n    let m = { name: name, \"count\": total }\n    match m.get(\"count\") {\n        Some(n) => log.info(\"x {name}\", n)\n        None => print(\"none\")\n    }\n    return total |> fn(a) { a + 1 }\n}\n\n";
    let mut text = String::from("#!/usr/bin/env vox\n// header\nlet top = 1\n");
    let mut i = 0;
    while text.len() < 1_200_000 {
        text.push_str(&piece.replace("work_N", &format!("work_{i}")));
        i += 1;
    }
    text.push_str("print(top)\n");
    let whole = parse_sequential(text.as_bytes());
    assert!(whole.diagnostics().is_empty());
    same(&parse(text.as_bytes()), &whole, &|| "parse".into());
    let cands = split_candidates(text.as_bytes());
    for k in [2, 3, 4, 7] {
        let splits: Vec<usize> = (1..k).map(|j| cands[cands.len() * j / k]).collect();
        let joined = parse_with_splits(text.as_bytes(), &splits, k).expect("clean cuts join");
        same(&joined, &whole, &|| format!("{k} chunks"));
    }
    // With a duplicate across chunks and an error at the end: the checks run on the whole.
    let dup = format!("{text}fn work_0() {{\n}}\n");
    let joined = parse_with_splits(dup.as_bytes(), &[cands[cands.len() / 2]], 2).unwrap();
    assert!(!joined.diagnostics().is_empty());
    same(&joined, &parse_sequential(dup.as_bytes()), &|| {
        "duplicate".into()
    });
    let broken = format!("{text}fn z() {{\n");
    assert!(parse_with_splits(broken.as_bytes(), &[cands[cands.len() / 2]], 2).is_none());
    same(
        &parse(broken.as_bytes()),
        &parse_sequential(broken.as_bytes()),
        &|| "broken".into(),
    );
}
