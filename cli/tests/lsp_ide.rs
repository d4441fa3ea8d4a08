//! Navigation and editing features over stdio: hover (builtin capability and nondeterminism,
//! a user function's effect summary, the legacy directive), definition, references and rename
//! across an import, document and workspace symbols, folding, completion, signature help,
//! semantic tokens (full and delta) and inlay hints.

mod lsp_common;

use lsp_common::{apply_edits, at, hover_text, pos, uri, Lsp, TempDir};
use serde_json::json;

const LIB: &str = "pub fn stamp(label: str) to str {\n    let t = time.now_ms()\n    return label + fs.read(\"data/x.txt\").unwrap()\n}\n";
const MAIN: &str = "import \"./lib.vox\" as lib\n\nfn report(name: str, count: int) {\n    let msg = lib.stamp(name)\n    print(msg, count)\n}\n\nfn main() {\n    let n = 3\n    report(\"a\", n)\n    report(\"b\", n + 1)\n}\n";

fn setup() -> (TempDir, std::path::PathBuf, std::path::PathBuf) {
    let ws = TempDir::new("ide");
    ws.write("data/x.txt", "x");
    let lib = ws.write("lib.vox", LIB);
    let main = ws.write("main.vox", MAIN);
    (ws, lib, main)
}

#[test]
fn hover_definition_references_rename() {
    let (ws, lib, main) = setup();
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&main, MAIN);
    lsp.open(&lib, LIB);
    // A builtin: capability and nondeterminism.
    let h = hover_text(&mut lsp, &lib, 1, 18);
    assert!(
        h.contains("time.now_ms()") && h.contains("`time:real`") && h.contains("clock"),
        "{h}"
    );
    // Its one-line doc, from the language reference.
    assert!(h.contains("milliseconds since the Unix epoch"), "{h}");
    // A user function: signature and effect summary, through the import.
    let h = hover_text(&mut lsp, &main, 3, 19);
    assert!(h.contains("fn stamp(label: str) to str"), "{h}");
    assert!(h.contains("needs: fs:ro=data, time:real"), "{h}");
    let h = hover_text(&mut lsp, &main, 9, 5);
    assert!(
        h.contains("fn report(name: str, count: int)")
            && h.contains("needs: fs:ro=data, time:real"),
        "{h}"
    );
    // Definition across the import.
    let d = lsp
        .request("textDocument/definition", at(&main, 3, 19))
        .unwrap();
    assert_eq!(d["uri"], uri(&lib));
    assert_eq!(d["range"]["start"], pos(0, 7));
    // A local.
    let d = lsp
        .request("textDocument/definition", at(&main, 10, 17))
        .unwrap();
    assert_eq!(d["range"]["start"], pos(8, 8));
    // References of a pub fn: its definition and the call in main.vox.
    let r = lsp
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": uri(&lib)}, "position": pos(0, 8), "context": {"includeDeclaration": true}}),
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
    let mut want = vec![(uri(&lib), 0), (uri(&main), 3)];
    want.sort();
    assert_eq!(got, want);
    // Rename a parameter: its uses change, nothing else.
    let prep = lsp
        .request("textDocument/prepareRename", at(&main, 2, 11))
        .unwrap();
    assert_eq!(prep["start"], pos(2, 10));
    let e = lsp
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri(&main)}, "position": pos(2, 11), "newName": "who"}),
        )
        .unwrap();
    // VS Code supports `documentChanges`: versioned edits, of the open document's version.
    let (version, edits) = lsp_common::document_edits(&e, &uri(&main));
    assert_eq!(version, 1);
    let renamed = apply_edits(MAIN, &edits, false);
    assert!(
        renamed.contains("fn report(who: str, count: int)") && renamed.contains("lib.stamp(who)"),
        "{renamed}"
    );
    // Renaming to a keyword is refused.
    let err = lsp
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri(&main)}, "position": pos(2, 11), "newName": "while"}),
        )
        .unwrap_err();
    assert_eq!(err["code"], -32602);
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn legacy_directive_hover() {
    let ws = TempDir::new("directive");
    let text = "// vox:caps fs\nfn main() {\n    print(env.get(\"HOME\"))\n}\n";
    let a = ws.write("a.vox", text);
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open(&a, text);
    let h = hover_text(&mut lsp, &a, 0, 5);
    assert!(
        h.contains("never enforced over `--caps` or a run configuration"),
        "{h}"
    );
    assert!(h.contains("would be denied"), "{h}");
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn symbols_folding_completion_signature() {
    let (ws, lib, main) = setup();
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&main, MAIN);
    let s = lsp
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri(&main)}}),
        )
        .unwrap();
    let names: Vec<&str> = s
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["lib", "report", "main"]);
    let w = lsp
        .request("workspace/symbol", json!({"query": "sta"}))
        .unwrap();
    let w = w.as_array().unwrap();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0]["name"], "stamp");
    assert_eq!(w[0]["location"]["uri"], uri(&lib));
    let f = lsp
        .request(
            "textDocument/foldingRange",
            json!({"textDocument": {"uri": uri(&main)}}),
        )
        .unwrap();
    let folds: Vec<(u64, u64)> = f
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["startLine"].as_u64().unwrap(),
                x["endLine"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(folds, [(2, 4), (7, 10)]);
    // Completion: namespace members with their capability, import members, names in scope.
    let c = lsp
        .request("textDocument/completion", at(&main, 3, 18))
        .unwrap();
    let labels: Vec<&str> = c
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["stamp"]);
    lsp.change(
        &main,
        Some(json!({"start": pos(9, 4), "end": pos(9, 4)})),
        "fs.\n    ",
    );
    let c = lsp
        .request("textDocument/completion", at(&main, 9, 7))
        .unwrap();
    let items = c.as_array().unwrap();
    let read = items
        .iter()
        .find(|x| x["label"] == "read")
        .expect("fs.read");
    assert!(read["detail"].as_str().unwrap().contains("needs fs:ro"));
    let c = lsp
        .request("textDocument/completion", at(&main, 10, 4))
        .unwrap();
    let labels: Vec<&str> = c
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["label"].as_str().unwrap())
        .collect();
    for want in ["n", "report", "main", "lib", "fs", "print", "while"] {
        assert!(labels.contains(&want), "{want} missing from {labels:?}");
    }
    assert!(!labels.contains(&"msg"), "msg is out of scope: {labels:?}");
    lsp.change(&main, None, MAIN);
    // Signature help inside `report("a", n)` at the second argument.
    let s = lsp
        .request("textDocument/signatureHelp", at(&main, 9, 16))
        .unwrap();
    assert_eq!(
        s["signatures"][0]["label"],
        "fn report(name: str, count: int)"
    );
    assert_eq!(s["activeParameter"], 1);
    let s = lsp.request("textDocument/signatureHelp", at(&lib, 2, 27));
    assert!(s.is_ok());
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn semantic_tokens_and_inlay_hints() {
    let (ws, lib, main) = setup();
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open(&main, MAIN);
    lsp.open(&lib, LIB);
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
    assert_eq!(data.len() % 5, 0);
    // The first token: `import`, a keyword (index 8 in the legend).
    assert_eq!(&data[..5], &[0, 0, 6, 8, 0]);
    // `report` declared on line 2 col 3: a function (3) with the declaration modifier (1).
    let mut line = 0;
    let mut col = 0;
    let mut decoded = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            line += t[0];
            col = t[1];
        } else {
            col += t[1];
        }
        decoded.push((line, col, t[2], t[3], t[4]));
    }
    assert!(decoded.contains(&(2, 3, 6, 3, 1)), "{decoded:?}");
    let id = full["resultId"].as_str().unwrap().to_string();
    // An edit, then a delta against the previous result.
    lsp.change(
        &main,
        Some(json!({"start": pos(8, 8), "end": pos(8, 9)})),
        "count",
    );
    let delta = lsp
        .request(
            "textDocument/semanticTokens/full/delta",
            json!({"textDocument": {"uri": uri(&main)}, "previousResultId": id}),
        )
        .unwrap();
    assert!(delta["edits"].is_array(), "{delta}");
    assert!(!delta["edits"].as_array().unwrap().is_empty());
    lsp.change(&main, None, MAIN);
    // Inlay hints: the capability of gated calls, parameter names at calls.
    let h = lsp
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri(&lib)}, "range": {"start": pos(0, 0), "end": pos(4, 0)}}),
        )
        .unwrap();
    let labels: Vec<&str> = h
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["time:real", "fs:ro"]);
    let h = lsp
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri(&main)}, "range": {"start": pos(0, 0), "end": pos(12, 0)}}),
        )
        .unwrap();
    let labels: Vec<(u64, String)> = h
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["position"]["line"].as_u64().unwrap(),
                x["label"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(labels.contains(&(3, "label:".into())), "{labels:?}");
    assert!(
        labels.contains(&(9, "name:".into())) && labels.contains(&(9, "count:".into())),
        "{labels:?}"
    );
    assert_eq!(lsp.shutdown(), Some(0));
}
