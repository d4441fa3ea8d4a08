//! Navigation and completion (issue 21, acceptance 3), over stdio against `vox lsp`: types
//! navigate (definition, references, rename, hover) through annotations, patterns and an
//! import; completion offers only names usable at the cursor, with `///` docs, call snippets and
//! `textEdit`s, and only the methods of the receiver's inferred kind; hover on methods, module
//! functions and locals' inferred kinds; inferred-kind inlay hints behind a setting; builtin
//! signature help with parameters; document highlights, selection ranges, import links; call
//! hierarchy across files; fuzzy workspace symbols.

mod lsp_common;

use lsp_common::{apply_edits, at, hover_text, path_of, pos, uri, Lsp, TempDir};
use serde_json::{json, Value};

/// (line, character) of the first occurrence of `needle` in `text` (ASCII texts).
fn find(text: &str, needle: &str) -> (u32, u32) {
    let i = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} in {text}"));
    let line = text[..i].matches('\n').count() as u32;
    let col = (i - text[..i].rfind('\n').map_or(0, |n| n + 1)) as u32;
    (line, col)
}

fn labels(v: &Value) -> Vec<String> {
    let items = if v.is_array() { v } else { &v["items"] };
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

fn item<'a>(v: &'a Value, label: &str) -> &'a Value {
    v.as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == label)
        .unwrap_or_else(|| panic!("no item {label}: {v}"))
}

const SHAPES: &str = "/// A shape to measure.\n/// Every variant has an area.\npub type Shape = | Circle(r: float) | Rect(w: float, h: float)\n\ntype Point { x: int, y: int }\n\n/// The area of a shape.\npub fn area(s: Shape) to float {\n    match s {\n        Circle(r) => 3.0 * r * r\n        Rect(w, h) => w * h\n    }\n}\n\nfn all(xs: list[Shape]) to list[Shape] {\n    return xs\n}\n\nfn origin() to Point {\n    return { x: 0, y: 0 }\n}\n";
const USES: &str = "import \"./shapes.vox\"\n\nfn twice(s: Shape) to float {\n    return area(s) * 2.0\n}\n\nfn main() {\n    print(twice(Circle(1.0)))\n}\n";

#[test]
fn types_navigate_through_annotations_patterns_and_imports() {
    let ws = TempDir::new("nav-types");
    let shapes = ws.write("shapes.vox", SHAPES);
    let uses = ws.write("uses.vox", USES);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&shapes, SHAPES);
    lsp.open(&uses, USES);
    let decl = find(SHAPES, "Shape =");
    // Definition from an annotation, a nested annotation, a return type and another file.
    for (path, text, needle, skip) in [
        (&shapes, SHAPES, "s: Shape", 3),
        (&shapes, SHAPES, "xs: list[Shape]", 9),
        (&shapes, SHAPES, "to list[Shape]", 8),
        (&uses, USES, "s: Shape", 3),
    ] {
        let (l, c) = find(text, needle);
        let d = lsp
            .request("textDocument/definition", at(path, l, c + skip + 1))
            .unwrap();
        assert_eq!(d["uri"], uri(&shapes), "{needle}: {d}");
        assert_eq!(d["range"]["start"], pos(decl.0, decl.1), "{needle}: {d}");
    }
    // A record type named in a return type; a variant in a pattern.
    let (l, c) = find(SHAPES, "to Point");
    let d = lsp
        .request("textDocument/definition", at(&shapes, l, c + 4))
        .unwrap();
    let p = find(SHAPES, "Point {");
    assert_eq!(d["range"]["start"], pos(p.0, p.1));
    let (l, c) = find(SHAPES, "Circle(r) =>");
    let d = lsp
        .request("textDocument/definition", at(&shapes, l, c + 1))
        .unwrap();
    let v = find(SHAPES, "Circle(r: float)");
    assert_eq!(d["range"]["start"], pos(v.0, v.1));
    // References: the declaration, three annotations here and one in the importing file.
    let r = lsp
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": uri(&shapes)}, "position": pos(decl.0, decl.1 + 1), "context": {"includeDeclaration": true}}),
        )
        .unwrap();
    let mut got: Vec<(String, u64)> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["uri"].as_str().unwrap().to_string(),
                l["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    let mut want = vec![
        (uri(&shapes), 2),
        (uri(&shapes), 7),
        (uri(&shapes), 14),
        (uri(&shapes), 14),
        (uri(&uses), 2),
    ];
    want.sort();
    assert_eq!(got, want);
    // Hover on a type name in an annotation: its declaration and its doc comment.
    let (l, c) = find(SHAPES, "s: Shape");
    let h = hover_text(&mut lsp, &shapes, l, c + 4);
    assert!(
        h.contains("pub type Shape = | Circle(r: float) | Rect(w: float, h: float)")
            && h.contains("A shape to measure.\nEvery variant has an area."),
        "{h}"
    );
    let h = hover_text(&mut lsp, &uses, 2, 14);
    assert!(
        h.contains("type Shape") && h.contains("from `shapes.vox`"),
        "{h}"
    );
    let h = hover_text(&mut lsp, &shapes, p.0, p.1 + 1);
    assert!(h.contains("type Point { x: int, y: int }"), "{h}");
    // The function's doc comment in its hover.
    let h = hover_text(&mut lsp, &uses, 3, 12);
    assert!(
        h.contains("fn area(s: Shape) to float") && h.contains("The area of a shape."),
        "{h}"
    );
    // Rename the type: every annotation changes, in both files.
    let e = lsp
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri(&uses)}, "position": pos(2, 14), "newName": "Form"}),
        )
        .unwrap();
    // VS Code supports `documentChanges`: versioned edits, of the open documents' versions.
    let (version, edits) = lsp_common::document_edits(&e, &uri(&shapes));
    assert_eq!(version, 1);
    let here = apply_edits(SHAPES, &edits, false);
    assert!(
        here.contains("pub type Form = |")
            && here.contains("fn area(s: Form) to float")
            && here.contains("fn all(xs: list[Form]) to list[Form]")
            && !here.contains("Shape"),
        "{here}"
    );
    let (version, edits) = lsp_common::document_edits(&e, &uri(&uses));
    assert_eq!(version, 1);
    let there = apply_edits(USES, &edits, false);
    assert!(there.contains("fn twice(s: Form) to float"), "{there}");
    // A type renamed to a lower-case name is refused, with the reason.
    let err = lsp
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri(&shapes)}, "position": pos(decl.0, decl.1), "newName": "shape"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], -32602);
    assert!(
        err["message"].as_str().unwrap().contains("capital"),
        "{err}"
    );
    assert_eq!(lsp.shutdown(), Some(0));
}

const UTIL: &str = "/// Turns a title into a URL slug.\npub fn slug(title: str, sep: str) to str {\n    return title.to_lower().replace(\" \", sep)\n}\n\npub fn stamp() to int {\n    return 1\n}\n";
const MAIN: &str = "import \"./lib/util.vox\" as util\n\nfn label() to str {\n    return \"x\"\n}\n\nfn other() {\n    let hidden = 1\n    print(hidden)\n}\n\nfn main() {\n    let early = 1\n    // sl\n    print(sl)\n    let late = 2\n    print(util.s)\n    let name = label()\n    print(name.t)\n    print(util.slug(\"a b\", \"-\").t)\n    print(early, late, le)\n}\n";

fn complete(lsp: &mut Lsp, path: &std::path::Path, line: u32, ch: u32) -> Value {
    lsp.request("textDocument/completion", at(path, line, ch))
        .unwrap()
}

#[test]
fn completion_offers_what_is_usable_with_docs_snippets_and_edits() {
    let ws = TempDir::new("nav-complete");
    let util = ws.write("lib/util.vox", UTIL);
    let main = ws.write("main.vox", MAIN);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&util, UTIL);
    lsp.open(&main, MAIN);
    // `print(sl|)`: the earlier local, the file's functions and the alias; not the later local,
    // another function's local, nor the aliased import's bare names.
    let (l, c) = find(MAIN, "print(sl)");
    let got = complete(&mut lsp, &main, l, c + 8);
    let names = labels(&got);
    for want in [
        "early", "label", "other", "util", "print", "len", "fs", "let",
    ] {
        assert!(names.contains(&want.to_string()), "{want} in {names:?}");
    }
    for unwanted in ["late", "hidden", "slug", "stamp", "name"] {
        assert!(
            !names.contains(&unwanted.to_string()),
            "{unwanted} in {names:?}"
        );
    }
    // Every item replaces the prefix `sl`.
    for it in got.as_array().unwrap() {
        assert_eq!(
            it["textEdit"]["range"],
            json!({"start": pos(l, c + 6), "end": pos(l, c + 8)}),
            "{it}"
        );
    }
    // A user function: a snippet with its parameters (none here), its signature.
    let label = item(&got, "label");
    assert_eq!(label["insertTextFormat"], 2);
    assert_eq!(label["textEdit"]["newText"], "label()");
    assert_eq!(label["detail"], "fn label() to str");
    // A builtin: a snippet with its documented parameter.
    assert_eq!(item(&got, "len")["textEdit"]["newText"], "len(${1:x})");
    // A local is inserted as is.
    assert_eq!(item(&got, "early")["textEdit"]["newText"], "early");
    assert_eq!(item(&got, "early")["insertTextFormat"], 1);
    // Nothing inside a comment or a string.
    let (l3, c3) = find(MAIN, "// sl");
    assert_eq!(complete(&mut lsp, &main, l3, c3 + 5), json!([]));
    let (l3, c3) = find(MAIN, "a b");
    assert_eq!(complete(&mut lsp, &main, l3, c3 + 1), json!([]));
    // Later in the body the later local is offered.
    let (l2, c2) = find(MAIN, "late, le)");
    let names = labels(&complete(&mut lsp, &main, l2, c2 + 8));
    assert!(names.contains(&"late".to_string()), "{names:?}");
    // `util.s|`: the import's public functions, with docs and parameter snippets.
    let (l, c) = find(MAIN, "util.s)");
    let got = complete(&mut lsp, &main, l, c + 6);
    assert_eq!(labels(&got), vec!["slug", "stamp"]);
    let slug = item(&got, "slug");
    assert_eq!(
        slug["documentation"]["value"],
        "Turns a title into a URL slug."
    );
    assert_eq!(slug["detail"], "fn slug(title: str, sep: str) to str");
    assert_eq!(slug["insertTextFormat"], 2);
    assert_eq!(slug["textEdit"]["newText"], "slug(${1:title}, ${2:sep})");
    assert_eq!(
        slug["textEdit"]["range"],
        json!({"start": pos(l, c + 5), "end": pos(l, c + 6)})
    );
    // A str returned by a user function (a local bound to it, or the call itself, through the
    // import): only str methods.
    for (needle, skip) in [("name.t)", 6), (".t)\n    print(early", 2)] {
        let (l, c) = find(MAIN, needle);
        let names = labels(&complete(&mut lsp, &main, l, c + skip));
        for want in ["trim", "to_upper", "split", "starts_with"] {
            assert!(names.contains(&want.to_string()), "{want} in {names:?}");
        }
        let got = complete(&mut lsp, &main, l, c + skip);
        // A method's snippet comes from its own signature, not a global builtin's of the
        // same name (`len(x)`).
        assert_ne!(item(&got, "len")["textEdit"]["newText"], "len(${1:x})");
        assert_eq!(item(&got, "split")["textEdit"]["newText"], "split()");
        for unwanted in ["push", "keys", "sorted", "checked_add", "sin"] {
            assert!(
                !names.contains(&unwanted.to_string()),
                "{needle}: {unwanted} in {names:?}"
            );
        }
    }
    assert_eq!(lsp.shutdown(), Some(0));

    // A client without snippet support gets plain names.
    let mut lsp = Lsp::start(&ws.0, "push-only");
    lsp.open(&main, MAIN);
    let (l, c) = find(MAIN, "util.s)");
    let got = complete(&mut lsp, &main, l, c + 6);
    let slug = item(&got, "slug");
    assert_eq!(slug["textEdit"]["newText"], "slug");
    assert_eq!(slug["insertTextFormat"], 1);
    assert_eq!(lsp.shutdown(), Some(0));
}

const CALLS: &str = "fn main() {\n    let x = 2.5\n    let y = x.sin()\n    let s = \"a,b\"\n    let parts = s.split(\",\")\n    let p = process.spawn(\"ls\", [])\n    let n = len(parts)\n    let mut total = 0\n    total += n\n    let annotated: int = 1\n    print(y, p, total, annotated)\n}\n";

#[test]
fn hover_methods_modules_locals_and_builtin_signature_help() {
    let ws = TempDir::new("nav-hover");
    let main = ws.write("main.vox", CALLS);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&main, CALLS);
    let (l, c) = find(CALLS, "sin()");
    let h = hover_text(&mut lsp, &main, l, c + 1);
    assert!(
        h.contains(".sin(") && h.contains("method of float") && h.contains("D001"),
        "{h}"
    );
    let (l, c) = find(CALLS, "split(");
    let h = hover_text(&mut lsp, &main, l, c + 1);
    assert!(
        h.contains(".split([sep: str]) to list[str]") && h.contains("method of str"),
        "{h}"
    );
    let (l, c) = find(CALLS, "spawn(");
    let h = hover_text(&mut lsp, &main, l, c + 1);
    assert!(
        h.contains("process.spawn(cmd: str, args: list[str])") && h.contains("`process:allow`"),
        "{h}"
    );
    // Its semantic token: a builtin function (3, defaultLibrary), not the reserved word.
    let full = lsp
        .request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": uri(&main)}}),
        )
        .unwrap();
    let data: Vec<u64> = full["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let (mut line, mut col, mut decoded) = (0, 0, Vec::new());
    for t in data.chunks(5) {
        if t[0] > 0 {
            line += t[0];
            col = t[1];
        } else {
            col += t[1];
        }
        decoded.push((line, col, t[2], t[3], t[4]));
    }
    assert!(decoded.contains(&(5, 20, 5, 3, 2)), "{decoded:?}");
    // Locals: their inferred kinds.
    for (needle, want) in [
        ("x = 2.5", "x: float"),
        ("s = \"a", "s: str"),
        ("parts = ", "parts: list"),
        ("n = len", "n: int"),
        ("y = x", "y: float"),
    ] {
        let (l, c) = find(CALLS, needle);
        let h = hover_text(&mut lsp, &main, l, c);
        assert!(h.contains(want), "{needle}: {h}");
    }
    // Builtin signature help: the documented parameters, the active one by commas.
    let (l, c) = find(CALLS, "[])");
    let sh = lsp
        .request("textDocument/signatureHelp", at(&main, l, c))
        .unwrap();
    let sig = &sh["signatures"][0];
    assert_eq!(
        sig["label"],
        "process.spawn(cmd: str, args: list[str]) to Option[map]"
    );
    assert_eq!(
        sig["parameters"],
        json!([{"label": "cmd"}, {"label": "args"}])
    );
    assert_eq!(sh["activeParameter"], 1);
    let (l, c) = find(CALLS, "parts)");
    let sh = lsp
        .request("textDocument/signatureHelp", at(&main, l, c))
        .unwrap();
    assert_eq!(sh["signatures"][0]["parameters"], json!([{"label": "x"}]));
    assert_eq!(sh["activeParameter"], 0);
    // A method's signature.
    let (l, c) = find(CALLS, "\",\")");
    let sh = lsp
        .request("textDocument/signatureHelp", at(&main, l, c))
        .unwrap();
    assert_eq!(sh["signatures"][0]["parameters"], json!([{"label": "sep"}]));
    assert_eq!(lsp.shutdown(), Some(0));
}

fn type_hints(lsp: &mut Lsp, path: &std::path::Path) -> Vec<(u64, String)> {
    let hints = lsp
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri(path)}, "range": {"start": pos(0, 0), "end": pos(40, 0)}}),
        )
        .unwrap();
    hints
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["kind"] == 1)
        .map(|h| {
            (
                h["position"]["line"].as_u64().unwrap(),
                h["label"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn inferred_type_inlay_hints_are_a_setting_off_by_default() {
    let ws = TempDir::new("nav-inlay");
    let main = ws.write("main.vox", CALLS);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&main, CALLS);
    assert_eq!(type_hints(&mut lsp, &main), vec![]);
    assert_eq!(lsp.shutdown(), Some(0));

    let mut lsp = Lsp::start_with(
        &ws.0,
        "vscode",
        json!({"inlayHints": {"inferredTypes": true}}),
    );
    lsp.open(&main, CALLS);
    let got = type_hints(&mut lsp, &main);
    // After the name, kinds only where they are known; the annotated `let` gets none.
    let want: Vec<(u64, String)> = [
        (1, ": float"),
        (2, ": float"),
        (3, ": str"),
        (4, ": list"),
        (5, ": Option"),
        (6, ": int"),
        (7, ": int"),
    ]
    .into_iter()
    .map(|(l, s)| (l, s.to_string()))
    .collect();
    assert_eq!(got, want);
    let hints = lsp
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri(&main)}, "range": {"start": pos(1, 0), "end": pos(2, 0)}}),
        )
        .unwrap();
    let x = hints
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["kind"] == 1)
        .unwrap();
    assert_eq!(x["position"], pos(1, 9));
    // Turned off again by configuration.
    lsp.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"vox": {"inlayHints": {"inferredTypes": false}}}}),
    );
    assert_eq!(type_hints(&mut lsp, &main), vec![]);
    assert_eq!(lsp.shutdown(), Some(0));
}

/// Top-level statements after functions: the synthetic main's text (in an editor, the part of
/// the file around them) starts at the function before them, and the kinds of its names are
/// found at their places in the file, after an edit as when opened.
#[test]
fn inlay_hints_reach_statements_after_functions() {
    const TEXT: &str = "fn first() {\n    print(0)\n}\nfn helper(n: int) to int {\n    return n * 2\n}\nlet a = helper(2)\nlet b = 1.5\nprint(a, b)\n";
    let ws = TempDir::new("nav-inlay-main");
    let main = ws.write("main.vox", TEXT);
    let mut lsp = Lsp::start_with(
        &ws.0,
        "vscode",
        json!({"inlayHints": {"inferredTypes": true}}),
    );
    lsp.open(&main, TEXT);
    let want = |first: u64| {
        vec![
            (first, ": int".to_string()),
            (first + 1, ": float".to_string()),
        ]
    };
    assert_eq!(type_hints(&mut lsp, &main), want(6));
    // A line typed into the first function moves the statements, and the window, down one.
    lsp.change(
        &main,
        Some(json!({"start": pos(1, 0), "end": pos(1, 0)})),
        "    print(9)\n",
    );
    assert_eq!(type_hints(&mut lsp, &main), want(7));
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn highlights_selection_ranges_and_import_links() {
    let ws = TempDir::new("nav-doc");
    let util = ws.write("lib/util.vox", UTIL);
    let main = ws.write("main.vox", MAIN);
    let calls = ws.write("calls.vox", CALLS);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&calls, CALLS);
    lsp.open(&main, MAIN);
    // `total`: written where declared and where assigned, read where printed.
    let (l, c) = find(CALLS, "total += n");
    let hl = lsp
        .request("textDocument/documentHighlight", at(&calls, l, c + 1))
        .unwrap();
    let got: Vec<(u64, u64, u64)> = hl
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["range"]["start"]["line"].as_u64().unwrap(),
                h["range"]["start"]["character"].as_u64().unwrap(),
                h["kind"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, vec![(7, 12, 3), (8, 4, 3), (10, 16, 2)]);
    // Selection ranges: the name, then each enclosing node out to the function, each holding
    // the one before.
    let (l, c) = find(CALLS, "len(parts)");
    let sel = lsp
        .request(
            "textDocument/selectionRange",
            json!({"textDocument": {"uri": uri(&calls)}, "positions": [pos(l, c + 5)]}),
        )
        .unwrap();
    let mut chain = Vec::new();
    let mut cur = &sel[0];
    while cur.is_object() {
        let r = &cur["range"];
        chain.push((
            (
                r["start"]["line"].as_u64().unwrap(),
                r["start"]["character"].as_u64().unwrap(),
            ),
            (
                r["end"]["line"].as_u64().unwrap(),
                r["end"]["character"].as_u64().unwrap(),
            ),
        ));
        cur = &cur["parent"];
    }
    let l = l as u64;
    let c = c as u64;
    assert_eq!(chain[0], ((l, c + 4), (l, c + 9)), "{chain:?}");
    assert!(
        chain.contains(&((l, c), (l, c + 10))),
        "the call: {chain:?}"
    );
    assert!(
        chain.contains(&((l, c - 8), (l, c + 10))),
        "the let: {chain:?}"
    );
    assert!(
        chain.contains(&((0, 0), (11, 1))),
        "the function: {chain:?}"
    );
    for w in chain.windows(2) {
        assert!(
            w[0] != w[1] && w[1].0 <= w[0].0 && w[0].1 <= w[1].1,
            "{chain:?}"
        );
    }
    // The import path links to the imported file.
    let links = lsp
        .request(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": uri(&main)}}),
        )
        .unwrap();
    let links = links.as_array().unwrap();
    assert_eq!(links.len(), 1, "{links:?}");
    assert_eq!(path_of(links[0]["target"].as_str().unwrap()), util);
    assert_eq!(
        links[0]["range"],
        json!({"start": pos(0, 8), "end": pos(0, 22)})
    );
    assert_eq!(lsp.shutdown(), Some(0));
}

const LIB: &str = "pub fn helper() {\n    print(\"h\")\n}\n";
const APP: &str = "import \"./lib.vox\" as lib\n\nfn a() {\n    lib.helper()\n    b()\n}\n\nfn b() {\n    lib.helper()\n}\n\nfn main() {\n    a()\n}\n";

fn names_of(v: &Value, key: &str) -> Vec<(String, String, Vec<u64>)> {
    let mut out: Vec<(String, String, Vec<u64>)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c[key]["name"].as_str().unwrap().to_string(),
                path_of(c[key]["uri"].as_str().unwrap())
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                c["fromRanges"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| {
                        r["start"]["line"].as_u64().unwrap() * 1000
                            + r["start"]["character"].as_u64().unwrap()
                    })
                    .collect(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn call_hierarchy_across_files() {
    let ws = TempDir::new("nav-calls");
    let lib = ws.write("lib.vox", LIB);
    let app = ws.write("app.vox", APP);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&lib, LIB);
    lsp.open(&app, APP);
    let items = lsp
        .request("textDocument/prepareCallHierarchy", at(&lib, 0, 8))
        .unwrap();
    let helper = items[0].clone();
    assert_eq!(helper["name"], "helper");
    assert_eq!(helper["selectionRange"]["start"], pos(0, 7));
    let inc = lsp
        .request("callHierarchy/incomingCalls", json!({"item": helper}))
        .unwrap();
    assert_eq!(
        names_of(&inc, "from"),
        vec![
            ("a".into(), "app.vox".into(), vec![3008]),
            ("b".into(), "app.vox".into(), vec![8008]),
        ]
    );
    // Prepared at a call: the callee; its outgoing calls, through the import.
    let items = lsp
        .request("textDocument/prepareCallHierarchy", at(&app, 12, 4))
        .unwrap();
    let a = items[0].clone();
    assert_eq!(a["name"], "a");
    let out = lsp
        .request("callHierarchy/outgoingCalls", json!({"item": a}))
        .unwrap();
    assert_eq!(
        names_of(&out, "to"),
        vec![
            ("b".into(), "app.vox".into(), vec![4004]),
            ("helper".into(), "lib.vox".into(), vec![3008]),
        ]
    );
    let inc = lsp
        .request("callHierarchy/incomingCalls", json!({"item": a}))
        .unwrap();
    assert_eq!(
        names_of(&inc, "from"),
        vec![("main".into(), "app.vox".into(), vec![12004])]
    );
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn workspace_symbols_match_fuzzily_in_ranked_order() {
    let ws = TempDir::new("nav-symbols");
    let text =
        "fn unrelated() {}\nfn a_rifle() {}\nfn area_flat() {}\nfn arfl_x() {}\nfn arfl() {}\n";
    ws.write("a.vox", text);
    ws.write("b.vox", "fn area_flat() {}\n");
    let mut lsp = Lsp::start(&ws.0, "vscode");
    let names = |lsp: &mut Lsp, q: &str| -> Vec<String> {
        let r = lsp
            .request("workspace/symbol", json!({"query": q}))
            .unwrap();
        r.as_array()
            .unwrap()
            .iter()
            .map(|s| {
                format!(
                    "{}@{}",
                    s["name"].as_str().unwrap(),
                    s["containerName"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(
        names(&mut lsp, "arfl"),
        vec![
            "arfl@a.vox",
            "arfl_x@a.vox",
            "area_flat@a.vox",
            "area_flat@b.vox",
            "a_rifle@a.vox"
        ]
    );
    // The same answer every time.
    assert_eq!(names(&mut lsp, "arfl"), names(&mut lsp, "arfl"));
    assert_eq!(names(&mut lsp, "ARFL").len(), 5);
    assert!(names(&mut lsp, "zzz").is_empty());
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn top_level_lets_are_not_offered_in_named_functions_and_capabilities_are_declared() {
    let ws = TempDir::new("nav-top");
    let text = "let top = 1\n\nfn helper() {\n    print(top)\n}\n\nprint(top, helper())\n";
    let main = ws.write("main.vox", text);
    let mut lsp = Lsp::spawn(&ws.0);
    let mut params = lsp_common::client_fixture("vscode");
    let obj = params.as_object_mut().unwrap();
    obj.remove("comment");
    obj.insert("processId".into(), json!(std::process::id()));
    obj.insert("rootUri".into(), json!(uri(&ws.0)));
    let init = lsp.request("initialize", params).unwrap();
    let caps = &init["capabilities"];
    for cap in [
        "documentHighlightProvider",
        "selectionRangeProvider",
        "documentLinkProvider",
        "callHierarchyProvider",
        "workspaceSymbolProvider",
        "completionProvider",
        "signatureHelpProvider",
        "inlayHintProvider",
    ] {
        assert!(!caps[cap].is_null() && caps[cap] != false, "{cap}: {caps}");
    }
    lsp.notify("initialized", json!({}));
    lsp.open(&main, text);
    // Inside the named function the synthetic main's `let` is not visible (voxscript.md §3.3).
    let names = labels(&complete(&mut lsp, &main, 3, 12));
    assert!(!names.contains(&"top".to_string()), "{names:?}");
    let d = lsp
        .request("textDocument/definition", at(&main, 3, 11))
        .unwrap();
    assert!(d.is_null(), "{d}");
    // Among the top-level statements it is.
    let names = labels(&complete(&mut lsp, &main, 6, 8));
    assert!(names.contains(&"top".to_string()), "{names:?}");
    assert_eq!(lsp.shutdown(), Some(0));
}
