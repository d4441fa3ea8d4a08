//! Issue 20, acceptance 3: the server on a generated 5 MB file. No timing assertion: the server
//! counts the steps of each request (`vox.debug.work`, with `VOX_LSP_DEBUG`), and holds requests
//! at a check (`vox.debug.hold`) so that the order of messages shows what waits for what.

mod lsp_common;

use std::time::Duration;

use lsp_common::{uri, Lsp, TempDir};
use serde_json::{json, Value};

/// A script of about `bytes` bytes: many small functions with parameters, locals, calls of user
/// functions and builtins, comments and strings, and a type with variants. No findings.
fn generate(bytes: usize) -> String {
    let mut out = String::from(
        "type Shape =\n    | Circle(r: int)\n    | Square(side: int)\n\nfn work_0(items: list[int], scale: int) to int {\n    return scale\n}\n\n",
    );
    let mut i = 1;
    while out.len() < bytes {
        out.push_str(&format!(
            "// work_{i} counts the small items.
fn work_{i}(items: list[int], scale: int) to int {{
    let mut total = 0
    for x in items {{
        if x > 0 and x < 1000 {{
            total = total + 1
        }}
    }}
    let label = \"run-\" + str(scale)
    print(label)
    let inner = work_{prev}(items, scale + 1)
    return total + inner
}}

",
            prev = i - 1
        ));
        i += 1;
    }
    out.push_str("fn main() {\n    print(work_1([1, 2], 3))\n}\n");
    out
}

fn command(lsp: &mut Lsp, name: &str, args: Value) -> Value {
    lsp.request(
        "workspace/executeCommand",
        json!({"command": name, "arguments": [args]}),
    )
    .unwrap_or_else(|e| panic!("{name} failed: {e}"))
}

fn work(lsp: &mut Lsp) -> Value {
    lsp.request(
        "workspace/executeCommand",
        json!({"command": "vox.debug.work", "arguments": []}),
    )
    .expect("vox.debug.work")
}

fn steps(lsp: &mut Lsp, what: &str) -> u64 {
    let w = work(lsp);
    w["requests"][what]["steps"]
        .as_u64()
        .unwrap_or_else(|| panic!("no steps recorded for {what}: {w}"))
}

/// The reply to request `id`, whether it arrived while waiting for something else or not yet.
fn reply(lsp: &mut Lsp, id: i64) -> Result<Value, Value> {
    if let Some(i) = lsp
        .notes
        .iter()
        .position(|m| m["id"] == id && m.get("method").is_none())
    {
        let m = lsp.notes.remove(i).unwrap();
        return match m.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(m["result"].clone()),
        };
    }
    lsp.response(json!(id))
}

/// Waits (polling, bounded) until a request is held at a check.
fn wait_held(lsp: &mut Lsp) {
    for _ in 0..3000 {
        if work(lsp)["held"].as_u64().unwrap_or(0) > 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no request reached a check");
}

fn whole(text: &str) -> Value {
    let lines = text.lines().count() + 1;
    json!({"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}})
}

/// The work of every request that reads a whole file: run on a 5 MB file and on one of half
/// that size, each request's steps stay within a few per byte and double with the file, not
/// quadruple. Before issue 20, classifying a token scanned every definition of the file
/// (about 10^10 steps here).
#[test]
fn requests_grow_linearly_with_the_file() {
    let ws = TempDir::new("scale-linear");
    let big_text = generate(5 << 20);
    let half_text = generate(5 << 19);
    let big = ws.write("big.vox", &big_text);
    let half = ws.write("half.vox", &half_text);
    // A pull client: no diagnostics are computed unless asked for.
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&big, &big_text);
    lsp.open(&half, &half_text);
    let measure = |lsp: &mut Lsp, path: &std::path::Path, text: &str| -> Vec<(&str, u64)> {
        let u = uri(path);
        let doc = json!({"uri": u});
        let full = lsp
            .request(
                "textDocument/semanticTokens/full",
                json!({"textDocument": doc}),
            )
            .expect("semantic tokens");
        let n = full["data"].as_array().unwrap().len();
        assert!(n > text.len() / 10, "only {n} numbers of semantic tokens");
        let mut out = vec![("semantic tokens", steps(lsp, "semantic tokens"))];
        let delta = lsp
            .request(
                "textDocument/semanticTokens/full/delta",
                json!({"textDocument": doc, "previousResultId": full["resultId"]}),
            )
            .expect("semantic tokens delta");
        assert_eq!(delta["edits"], json!([]), "nothing changed");
        out.push(("semantic tokens delta", steps(lsp, "semantic tokens delta")));
        let range = lsp
            .request(
                "textDocument/semanticTokens/range",
                json!({"textDocument": doc, "range": whole(text)}),
            )
            .expect("semantic tokens range");
        assert_eq!(
            range["data"], full["data"],
            "the whole file's range is the full set"
        );
        out.push(("semantic tokens range", steps(lsp, "semantic tokens range")));
        let symbols = lsp
            .request("textDocument/documentSymbol", json!({"textDocument": doc}))
            .expect("symbols");
        assert!(symbols.as_array().unwrap().len() > 1000);
        out.push(("document symbols", steps(lsp, "document symbols")));
        let folds = lsp
            .request("textDocument/foldingRange", json!({"textDocument": doc}))
            .expect("folding");
        assert!(folds.as_array().unwrap().len() > 1000);
        out.push(("folding", steps(lsp, "folding")));
        let hints = lsp
            .request(
                "textDocument/inlayHint",
                json!({"textDocument": doc, "range": whole(text)}),
            )
            .expect("inlay hints");
        assert!(hints.as_array().unwrap().len() > 1000);
        out.push(("inlay hints", steps(lsp, "inlay hints")));
        out
    };
    let small = measure(&mut lsp, &half, &half_text);
    let large = measure(&mut lsp, &big, &big_text);
    for ((what, s), (_, l)) in small.iter().zip(&large) {
        eprintln!(
            "{what}: {s} steps at {} bytes, {l} at {}",
            half_text.len(),
            big_text.len()
        );
        assert!(
            *l <= 4 * big_text.len() as u64,
            "{what}: {l} steps for {} bytes",
            big_text.len()
        );
        assert!(
            *l * 10 <= *s * 22,
            "{what}: {s} steps at half the size, {l} at the full size: not linear"
        );
    }
    // A small range costs what it holds, not the file.
    let u = uri(&big);
    let r = lsp
        .request(
            "textDocument/semanticTokens/range",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": 20000, "character": 0}, "end": {"line": 20010, "character": 0}}}),
        )
        .expect("a small range");
    assert!(!r["data"].as_array().unwrap().is_empty());
    let s = steps(&mut lsp, "semantic tokens range");
    let full = large[0].1;
    assert!(
        s * 4 <= full,
        "ten lines cost {s} steps, the whole file {full}"
    );
}

/// An edit's diagnostics do not wait for a request that is still running: with the semantic
/// tokens request held at a check, the edit is published, and the request, overtaken by the
/// edit, answers `ContentModified`.
#[test]
fn an_edit_is_published_while_a_request_runs() {
    let ws = TempDir::new("scale-order");
    let text = generate(5 << 20);
    let path = ws.write("big.vox", &text);
    let mut lsp = Lsp::start(&ws.0, "push-only");
    lsp.open(&path, &text);
    let first = lsp.pushed(&path);
    assert!(
        first.is_empty(),
        "the generated file has findings: {first:?}"
    );
    command(&mut lsp, "vox.debug.hold", json!({"on": true}));
    let u = uri(&path);
    lsp.send(
        &json!({"jsonrpc": "2.0", "id": 9001, "method": "textDocument/semanticTokens/full",
        "params": {"textDocument": {"uri": u}}}),
    );
    wait_held(&mut lsp);
    // `let mut total = 0` of work_1 becomes `= 7`: a finding-free edit inside one function.
    let line = text
        .lines()
        .position(|l| l.contains("let mut total = 0"))
        .unwrap();
    let col = text.lines().nth(line).unwrap().find('0').unwrap();
    let v = lsp.change(
        &path,
        Some(json!({"start": {"line": line, "character": col}, "end": {"line": line, "character": col + 1}})),
        "7",
    );
    let published = lsp.wait_for("the edit's diagnostics while the request is held", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == u
            && m["params"]["version"] == v
    });
    assert_eq!(published["params"]["diagnostics"], json!([]));
    command(&mut lsp, "vox.debug.hold", json!({"on": false}));
    let reply = reply(&mut lsp, 9001);
    let err = reply.expect_err("the request was overtaken by the edit");
    assert_eq!(err["code"], -32801, "{err}");
}

/// `$/cancelRequest` stops the work itself, not only the reply: a request held at a check and
/// then cancelled answers -32800, and once released it stops at its next check instead of
/// running to the end.
#[test]
fn a_cancelled_request_stops_its_work() {
    let ws = TempDir::new("scale-cancel");
    let text = generate(5 << 20);
    let path = ws.write("big.vox", &text);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&path, &text);
    command(&mut lsp, "vox.debug.hold", json!({"on": true}));
    let u = uri(&path);
    lsp.send(
        &json!({"jsonrpc": "2.0", "id": 9002, "method": "textDocument/semanticTokens/full",
        "params": {"textDocument": {"uri": u}}}),
    );
    wait_held(&mut lsp);
    lsp.notify("$/cancelRequest", json!({"id": 9002}));
    let err = reply(&mut lsp, 9002).expect_err("a cancelled request answers an error");
    assert_eq!(err["code"], -32800, "{err}");
    command(&mut lsp, "vox.debug.hold", json!({"on": false}));
    let mut record = Value::Null;
    for _ in 0..3000 {
        record = work(&mut lsp)["requests"]["semantic tokens"].clone();
        let ended =
            record["stopped"].as_u64().unwrap_or(0) + record["completed"].as_u64().unwrap_or(0);
        if ended > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(record["stopped"], 1, "{record}");
    assert_eq!(record["completed"], 0, "the work ran to its end: {record}");
}
