//! Long and deep inputs never crash the tools (issue 36, item 1; decision 12): generated shapes
//! (flat binary chains, string concatenations, `else if` chains, method chains, `and` chains,
//! pipes, nested calls, nested literals) go through `vox check`, `lint`, `caps`, `run` and the
//! language server (open, diagnostics, hover, semantic tokens, code actions). Every command ends
//! with an exit code and every request with an answer, never a signal. Before, `vox caps` aborted
//! on 8,000 `+` terms and a 20,000-arm `else if` chain, and `vox lint` on 80,000 terms.

mod common;
mod lsp_common;

use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::Command;

use lsp_common::{uri, Lsp, TempDir};
use serde_json::json;

/// `(name, script)` for each shape, at sizes past the old crash points (within the parser's
/// limits: nesting is at most 4096 deep, chains are flat in the tree's builder).
fn shapes() -> Vec<(&'static str, String)> {
    let main = |body: String| format!("fn main() {{\n{body}}}\n");
    let mut elif = String::from("fn f(n: int) -> int {\n    if n == 0 {\n        0\n");
    for i in 1..20_000 {
        elif.push_str(&format!("    }} else if n == {i} {{\n        {i}\n"));
    }
    elif.push_str("    } else {\n        -1\n    }\n}\nfn main() {\n    print(f(19999))\n}\n");
    vec![
        (
            "plus",
            main(format!(
                "    let x = {}\n    print(x)\n",
                vec!["1"; 80_000].join(" + ")
            )),
        ),
        (
            "concat",
            main(format!(
                "    let a = \"x\"\n    let q = {}\n    print(len(q))\n",
                vec!["\"s\" + a"; 6_000].join(" + ")
            )),
        ),
        ("elif", elif),
        (
            "methods",
            main(format!(
                "    let s = \"a\"{}\n    print(s)\n",
                ".trim()".repeat(30_000)
            )),
        ),
        (
            "and",
            main(format!(
                "    let b = {}\n    print(b)\n",
                vec!["true"; 50_000].join(" and ")
            )),
        ),
        (
            "pipe",
            format!(
                "fn id(x: int) -> int {{\n    x\n}}\nfn main() {{\n    print(1{})\n}}\n",
                " |> id".repeat(30_000)
            ),
        ),
        (
            "calls",
            format!(
                "fn g(x: int) -> int {{\n    x\n}}\nfn main() {{\n    print({}1{})\n}}\n",
                "g(".repeat(3_000),
                ")".repeat(3_000)
            ),
        ),
        (
            "lists",
            main(format!(
                "    let x = {}1{}\n    print(len(x))\n",
                "[".repeat(3_000),
                "]".repeat(3_000)
            )),
        ),
    ]
}

#[test]
fn long_and_deep_inputs_end_with_an_exit_code() {
    let dir = common::scratch();
    let mut failures = Vec::new();
    for (name, text) in shapes() {
        let file = format!("{name}.vox");
        std::fs::write(dir.join(&file), &text).unwrap();
        for cmd in ["check", "lint", "caps", "run"] {
            let out = Command::new(env!("CARGO_BIN_EXE_vox"))
                .args([cmd, &file])
                .current_dir(&dir)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            match out.status.code() {
                // 78: `run` of 3,000 nested lists is a --max-depth ceiling, as it should be.
                Some(0..=2 | 78) => {}
                Some(c) => failures.push(format!("vox {cmd} {file}: exit {c}: {stderr}")),
                None => failures.push(format!(
                    "vox {cmd} {file}: killed by signal {:?}: {stderr}",
                    out.status.signal()
                )),
            }
            if stderr.contains("overflowed its stack") || stderr.contains("panicked") {
                failures.push(format!("vox {cmd} {file}: {stderr}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_language_server_answers_on_long_and_deep_inputs() {
    let ws = TempDir::new("robust");
    let mut lsp = Lsp::start(&ws.0, "vscode");
    for (name, text) in shapes() {
        let path = ws.write(&format!("{name}.vox"), &text);
        lsp.open(&path, &text);
        let _ = lsp.diagnostics(&path);
        let doc = json!({"uri": uri(&path)});
        let at = json!({"line": 5, "character": 10});
        for (method, params) in [
            (
                "textDocument/hover",
                json!({"textDocument": doc, "position": at}),
            ),
            (
                "textDocument/semanticTokens/full",
                json!({"textDocument": doc}),
            ),
            (
                "textDocument/codeAction",
                json!({"textDocument": doc, "range": {"start": at, "end": at},
                       "context": {"diagnostics": []}}),
            ),
            ("textDocument/documentSymbol", json!({"textDocument": doc})),
        ] {
            let r = lsp.request(method, params);
            assert!(r.is_ok(), "{name}: {method}: {r:?}");
        }
        lsp.notify("textDocument/didClose", json!({"textDocument": doc}));
    }
    assert_eq!(lsp.shutdown(), Some(0), "the server must still be alive");
    let _ = Path::new(".");
}
