//! Syntax facts from voxscript.md (§2, §3 and the conformance checklist items 36–51), each checked
//! through one helper that parses and lists diagnostic codes.

use vox_syntax::{parse, SyntaxKind};

/// Parses `src` and returns the diagnostic codes in source order, after checking the round trip.
fn codes(src: &str) -> Vec<&'static str> {
    let tree = parse(src.as_bytes());
    assert_eq!(
        tree.print(),
        src.as_bytes(),
        "the tree must print back the input"
    );
    tree.diagnostics().iter().map(|d| d.code).collect()
}

fn clean(src: &str) {
    let tree = parse(src.as_bytes());
    let diags: Vec<_> = tree
        .diagnostics()
        .iter()
        .map(|d| format!("{} {:?} {}", d.code, d.range, d.message))
        .collect();
    assert!(
        diags.is_empty(),
        "expected no diagnostics for {src:?}, got {diags:#?}"
    );
}

/// The kinds of the top-level items.
fn items(src: &str) -> Vec<SyntaxKind> {
    parse(src.as_bytes())
        .root()
        .children()
        .map(|n| n.kind())
        .collect()
}

#[test]
fn template_strings_interpolate_only_bare_names() {
    clean("let name = \"Ada\"\nlet s = \"hi {name}!\"\nlet t = 'hi {name}'\nlet u = \"{1} {} {\\\"k\\\": 1}\"\n");
    assert_eq!(codes("let s = \"{a.b}\"\n"), ["syntax.interp-complex"]);
    let tree = parse(b"let s = \"{a.b}\"\nlet t = \"{ name }\"\n");
    let d = tree.diagnostics();
    assert_eq!(d.len(), 2);
    assert!(d[0].fix.is_none(), "`{{a.b}}` has no fix");
    let fix = d[1].fix.as_ref().expect("`{ name }` has a fix");
    assert_eq!(fix.edits[0].new_text, "{name}");
    assert_eq!(codes("let s = \"{oops\"\n"), ["syntax.interp-unclosed"]);
}

#[test]
fn unknown_escapes_warn_and_raw_strings_do_not() {
    let tree = parse(b"let a = \"\\d\"\n");
    let d = &tree.diagnostics()[0];
    assert_eq!(d.code, "syntax.unknown-escape");
    assert_eq!(d.fix.as_ref().unwrap().edits[0].new_text, "\\\\");
    clean("let b = r\"\\d\"\nlet c = r#\"a \"quoted\" \\d\"#\nlet d = r##\"x\"#y\"##\n");
    clean("let e = \"\\n \\t \\r \\\\ \\\" \\' \\0\"\n");
}

#[test]
fn semicolons_and_c_operators_are_warned_with_fixes() {
    assert_eq!(codes("let x = 1;\n"), ["syntax.semicolon"]);
    assert_eq!(codes("let t = true && false\n"), ["syntax.and-and"]);
    assert_eq!(codes("let t = true || false\n"), ["syntax.or-or"]);
    assert_eq!(codes("let t = !true\n"), ["syntax.bang"]);
    // `x = 5; -2` is one expression, 5 - 2.
    let tree = parse(b"let x = 5; -2\n");
    assert_eq!(tree.root().children().count(), 1);
}

#[test]
fn unknown_characters_do_not_stop_lexing() {
    assert_eq!(
        codes("let p = 1 $ 2\nlet big = 9223372036854775808\n"),
        ["syntax.unknown-char", "syntax.int-too-large"]
    );
    clean("let max = 9223372036854775807\n");
    assert_eq!(codes("let r = 0..10\n"), ["syntax.range"]);
    assert_eq!(
        codes("let d = 12345678901234567890123456789dec\n"),
        ["syntax.decimal"]
    );
    clean("let d = 12.50dec\nlet e = 3dec\nlet f = 3.abs()\n");
}

#[test]
fn ret_was_removed_but_is_a_valid_name() {
    let tree = parse(b"fn f() { ret 1 }\n");
    let d = &tree.diagnostics()[0];
    assert_eq!(d.code, "syntax.ret");
    assert_eq!(d.fix.as_ref().unwrap().edits[0].new_text, "return");
    clean("let ret = 2\nprint(ret)\n");
}

#[test]
fn thin_arrows() {
    assert_eq!(codes("fn f() -> int { 1 }\n"), ["syntax.arrow-return"]);
    assert_eq!(
        codes("fn f(n) { match n { 1 -> \"a\" } }\n"),
        ["syntax.arrow-arm"]
    );
}

#[test]
fn is_not_is_one_token() {
    let tree = parse(b"let b = x is not null\n");
    assert!(tree
        .root()
        .descendant_tokens()
        .any(|t| t.kind() == SyntaxKind::IsntKw && t.text() == "is not"));
    clean("let b = x is not null\n");
}

#[test]
fn newlines_end_expressions_outside_brackets() {
    // `+ 2` on the next line is an error at `+`.
    let tree = parse(b"let x = 1\n+ 2\n");
    assert_eq!(tree.diagnostics()[0].code, "syntax.unexpected");
    assert_eq!(tree.diagnostics()[0].range.start, 10);
    // `- 2` on the next line is a second statement.
    clean("let x = 1\n- 2\n");
    // A method chain on the next line gets the hint.
    let tree = parse(b"let items = []\nitems\n.len()\n");
    let d = &tree.diagnostics()[0];
    assert_eq!(d.code, "syntax.unexpected");
    assert!(d.help.as_deref().unwrap().contains("method chain"));
    // Inside brackets, newlines are ignored; after a binary operator, skipped.
    clean("let xs = [\n  1,\n  2\n]\nlet y = f(\n  1,\n  2)\nlet ok = true and\n  false\nif ok and\n  true {\n}\n");
    clean("let v =\n  5\n");
}

#[test]
fn else_may_start_a_new_line() {
    clean("if c { a() }\nelse { b() }\n");
    clean("let s = if n < 0 { \"-\" } else if n == 0 { \"0\" } else { \"+\" }\n");
}

#[test]
fn braces_must_be_on_the_header_line() {
    assert_eq!(codes("if c\n{\n}\n"), ["syntax.brace-newline"]);
    assert_eq!(codes("fn f()\n{\n}\n"), ["syntax.brace-newline"]);
}

#[test]
fn match_arms_separate_by_comma_newline_or_nothing() {
    clean("let s = match n { 1 => \"a\", 2 => \"b\" 3 => \"c\" }\n");
    clean("let s = match n {\n  1 => \"a\"\n  _ => { \"b\" }\n}\n");
    clean("fn f(r) { match r { Ok(0) => \"clean\", Ok(c) => \"exit \" + c\n Err(e) => { return \"x\" } } }\n");
    clean("fn f(x) { for i in x { match i { 1 => break, 2 => continue, _ => return } } }\n");
    assert_eq!(
        codes("let s = match b { true => 1 }\n"),
        ["syntax.expected"]
    );
}

#[test]
fn main_conflicts_and_params() {
    assert_eq!(codes("fn main() { }\nprint(1)\n"), ["syntax.main-conflict"]);
    assert_eq!(codes("fn main(args) { }\n"), ["syntax.main-params"]);
    clean("pub fn main() { }\n");
}

#[test]
fn service_surfaces_give_one_diagnostic_per_item() {
    assert_eq!(
        codes("table Users { id: int }\n@page(\"/\") fn home() { }\n"),
        ["syntax.not-a-script", "syntax.not-a-script"]
    );
    assert_eq!(
        codes("actor Counter {\n  state n: int = 0\n  on inc() { n += 1 }\n}\n"),
        ["syntax.not-a-script"]
    );
    assert_eq!(
        codes("fn f() {\n  spawn worker()\n  let x = !!!\n}\n"),
        ["syntax.not-a-script"]
    );
    assert_eq!(codes("env API_KEY = \"x\"\n"), ["syntax.not-a-script"]);
    clean("env.get(\"HOME\")\nlet to = 1\nprint(env)\nlet http_ok = http.get_text(\"u\")\n");
    assert_eq!(codes("let v = Card()\n"), ["syntax.not-a-script"]);
    assert_eq!(
        codes("let v = Card(title = \"x\")\n"),
        ["syntax.not-a-script"]
    );
    clean("type S = | Empty | Circle(r: float)\nlet a = Some(1)\nlet b = Ok(2)\nlet c = Circle(1.0)\nlet d = Empty\n");
    assert_eq!(codes("let v = <div>hi</div>\n"), ["syntax.not-a-script"]);
    assert_eq!(codes("import rust:serde\n"), ["syntax.not-a-script"]);
    assert_eq!(codes("import react\n"), ["syntax.not-a-script"]);
}

#[test]
fn decorators() {
    clean("@test\nfn adds() to Unit { assert(1 + 1 == 2) }\n@uses(fs, env) @pure\nfn g() { }\n");
    assert_eq!(
        codes("@frobnicate\nfn f() { }\n"),
        ["syntax.unknown-decorator"]
    );
    assert_eq!(
        codes("fn f() {\n  @test\n  let x = 1\n}\n"),
        ["syntax.decorator-position"]
    );
    assert_eq!(codes("@test\nlet x = 1\n"), ["syntax.decorator-position"]);
    clean("@json_as(Order, naming: \"camelCase\")\ntype Order {\n  @field_name(\"id\") order_id: int\n  @default(0) qty: int,\n  @skip_if_none note: Option[str]\n}\n");
}

#[test]
fn declarations_and_names() {
    assert_eq!(codes("fn f() { }\nfn f() { }\n"), ["syntax.duplicate"]);
    assert_eq!(codes("async fn f() { }\n"), ["syntax.async"]);
    assert_eq!(codes("fn f() {\n  fn g() { }\n}\n"), ["syntax.nested-fn"]);
    assert_eq!(codes("let empty = 1\n"), ["syntax.reserved"]);
    assert_eq!(codes("let Some(x) = y\n"), ["syntax.let-pattern"]);
    assert_eq!(codes("f() = 1\n"), ["syntax.assign-target"]);
    clean("let (a, (b, _)) = t\nxs[0] = 9\nm[\"k\"] = v\ncfg.port = 80\nrows[2].name = \"x\"\nn += 1\n");
    assert_eq!(codes("break\n"), ["syntax.break-outside-loop"]);
    assert_eq!(
        codes("while true { let f = fn() { break } }\n"),
        ["syntax.break-outside-loop"]
    );
    clean("while true { for x in [1, 2] { break } print(\"w\") break }\n");
}

#[test]
fn imports() {
    clean("import fs\nimport fs, path\nimport std/io\nimport a/b as { C, D as E }\nimport \"./lib/util.vox\" as util\n");
    assert_eq!(codes("import \"./util.txt\"\n"), ["syntax.import-ext"]);
    assert_eq!(
        codes("fn f() {\n  import fs\n}\n"),
        ["syntax.import-position"]
    );
}

#[test]
fn types_and_adts() {
    clean("type Point { x: int, y: int }\ntype P2 {\n  x: int\n  y: int\n}\n");
    clean("type Shape = | Circle(r: float) | Rect(w: float, h: float) | Empty\n");
    clean("type Shape =\n  | Circle(r: float)\n  | Rect { w: float, h: float }\n  | Empty\n");
    clean("type Dir = North | South\ntype Id = str\ntype F = fn(int, str) to list[int]\ntype T = (int, str)\n");
    let tree = parse(b"type Dir = North | South\ntype Id = str\n");
    let kinds: Vec<_> = tree
        .root()
        .children()
        .map(|n| n.children().map(|c| c.kind()).collect::<Vec<_>>())
        .collect();
    assert!(kinds[0].contains(&SyntaxKind::AdtBody));
    assert!(kinds[1].contains(&SyntaxKind::AliasBody));
}

#[test]
fn closures_and_arrow_functions() {
    clean("let a = fn(x: int) to int { x * 2 }\nlet b = fn(x) { x * 2 }\nlet c = fn(x) x * 2\nlet d = x => x * 2\nlet e = (a, b) => a + b\nlet f = () => 1\n");
    clean(
        "let r = xs.map(x => x + 1).filter(fn(x) { x > 2 })\nlet s = x |> f\nlet t = x |> g(1)\n",
    );
    clean("f(a, retries = 3)\nlet v = parse(x)?.y\nlet m = { type: \"x\", \"two words\": 2 }\nlet e = {}\n");
}

#[test]
fn precedence_shapes() {
    // `not a == b` is `(not a) == b`: the BinExpr's first child is the PrefixExpr.
    let tree = parse(b"let b = not a == b\n");
    let bin = tree
        .root()
        .descendants()
        .find(|n| n.kind() == SyntaxKind::BinExpr)
        .unwrap();
    assert_eq!(
        bin.children().next().unwrap().kind(),
        SyntaxKind::PrefixExpr
    );
    // `-x.abs()` is `-(x.abs())`.
    let tree = parse(b"let v = -x.abs()\n");
    let pre = tree
        .root()
        .descendants()
        .find(|n| n.kind() == SyntaxKind::PrefixExpr)
        .unwrap();
    assert_eq!(pre.children().next().unwrap().kind(), SyntaxKind::CallExpr);
    // `a + b * c`: the BinExpr's right child is the product.
    let tree = parse(b"let v = a + b * c\n");
    let bin = tree
        .root()
        .descendants()
        .find(|n| n.kind() == SyntaxKind::BinExpr)
        .unwrap();
    assert_eq!(bin.children().nth(1).unwrap().kind(), SyntaxKind::BinExpr);
}

#[test]
fn statements_need_no_separator() {
    let src = "fn f(c) { while c { c = false } return 1 }\nlet a = 1 let b = 2\n";
    clean(src);
    assert_eq!(items(src).len(), 3);
}

#[test]
fn a_missing_brace_does_not_swallow_the_next_functions() {
    let src = "fn a() {\n  let x = 1\n\nfn b() {\n  print(2)\n}\n\nfn c() { 3 }\n";
    assert_eq!(codes(src), ["syntax.expected"]);
    assert_eq!(
        items(src),
        [SyntaxKind::FnDecl, SyntaxKind::FnDecl, SyntaxKind::FnDecl]
    );
}

#[test]
fn deep_nesting_is_a_diagnostic() {
    let src = format!("let x = {}1{}\n", "(".repeat(10_000), ")".repeat(10_000));
    let tree = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let t = parse(src.as_bytes());
            assert_eq!(t.print(), src.as_bytes());
            t.diagnostics().iter().map(|d| d.code).collect::<Vec<_>>()
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(tree, ["syntax.too-deep"]);
    let ok = format!("let x = {}1{}\n", "(".repeat(1000), ")".repeat(1000));
    assert!(codes(&ok).is_empty());
}

#[test]
fn bom_crlf_and_invalid_utf8_round_trip() {
    let src = b"\xEF\xBB\xBFlet a = 1\r\nlet b = \"x\r\ny\"\r\n";
    let tree = parse(src);
    assert_eq!(tree.print(), src);
    assert!(tree.diagnostics().is_empty(), "{:?}", tree.diagnostics());
    let bad = b"let a = 1 \xFF\xFE\nlet s = \"\xC3\"\n";
    let tree = parse(bad);
    assert_eq!(tree.print(), bad);
    let codes: Vec<_> = tree.diagnostics().iter().map(|d| d.code).collect();
    assert_eq!(codes, ["syntax.utf8", "syntax.utf8"]);
}

#[test]
fn unterminated_string_runs_to_the_end() {
    assert_eq!(
        codes("let s = \"abc\nlet t = 1\n"),
        ["syntax.unterminated-string"]
    );
}

#[test]
fn line_index_columns() {
    use vox_syntax::{ColumnUnit, LineCol, LineIndex};
    let text = "ab\nh\u{e9}\u{1F600}x\n";
    let idx = LineIndex::new(text.as_bytes());
    let x = text.find('x').unwrap() as u32;
    assert_eq!(
        idx.line_col(x, ColumnUnit::Utf8),
        LineCol { line: 1, col: 7 }
    );
    assert_eq!(
        idx.line_col(x, ColumnUnit::Utf16),
        LineCol { line: 1, col: 4 }
    );
    assert_eq!(
        idx.line_col(x, ColumnUnit::Char),
        LineCol { line: 1, col: 3 }
    );
    for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Char] {
        assert_eq!(idx.offset(idx.line_col(x, unit), unit), x);
    }
}

/// Decision 62: a tuple has two or more elements, so `(x,)` is a syntax error that says so; a
/// trailing comma after two or more elements is fine.
#[test]
fn one_element_tuples_are_a_syntax_error() {
    assert_eq!(codes("let t = (1,)\n"), ["syntax.one-element-tuple"]);
    let tree = parse(b"let t = (1,)\n");
    assert!(tree.diagnostics()[0]
        .message
        .contains("two or more elements"));
    clean("let t = (1, 2,)\nlet u = (1, 2)\nlet v = (1)\n");
}
