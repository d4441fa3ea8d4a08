//! Code actions over stdio: the run-configuration actions applied to a Vox.toml and a
//! tasks.json full of comments (checked byte for byte against tests/lsp/golden/), CreateFile
//! for a missing launch.json, change annotations on grants, `changes` for clients without
//! `documentChanges`, C001 fixes that edit the run configuration, quick fixes, fix-all and
//! suppress-with-reason.

mod lsp_common;

use std::path::Path;

use lsp_common::{apply_edits, apply_workspace_edit, uri, Lsp, TempDir};
use serde_json::{json, Value};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let t = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &t);
        } else {
            std::fs::copy(&p, &t).unwrap();
        }
    }
}

fn workspace() -> TempDir {
    let ws = TempDir::new("actions");
    copy_dir(
        &lsp_common::repo().join("tests/lsp/workspaces/actions"),
        &ws.0,
    );
    ws
}

/// Compares with a golden file; `UPDATE_EXPECT=1` writes it.
fn golden(name: &str, actual: &str) {
    let p = lsp_common::repo().join("tests/lsp/golden").join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() || !p.exists() {
        std::fs::write(&p, actual).unwrap();
    }
    let want = std::fs::read_to_string(&p).unwrap();
    assert_eq!(actual, want, "{name} differs from the golden file");
}

fn actions(lsp: &mut Lsp, path: &Path, line: u32, only: Option<Vec<&str>>) -> Vec<Value> {
    let mut ctx = json!({"diagnostics": []});
    if let Some(o) = only {
        ctx["only"] = json!(o);
    }
    lsp.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri(path)},
            "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 200}},
            "context": ctx,
        }),
    )
    .unwrap()
    .as_array()
    .unwrap()
    .clone()
}

fn find<'a>(actions: &'a [Value], title: &str) -> &'a Value {
    actions
        .iter()
        .find(|a| a["title"] == title)
        .unwrap_or_else(|| {
            let titles: Vec<&Value> = actions.iter().map(|a| &a["title"]).collect();
            panic!("no action {title:?} in {titles:?}")
        })
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn run_configuration_actions_keep_comments_byte_for_byte() {
    let ws = workspace();
    let report = ws.path("report.vox");
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open_file(&report);
    let all = actions(&mut lsp, &report, 1, None);

    // Vox.toml: a new [run.report] entry appended; every comment stays.
    let a = find(&all, "Run with inferred capabilities: add to Vox.toml");
    let edit = &a["edit"];
    let ann = &edit["changeAnnotations"]["vox.grant"];
    assert_eq!(ann["needsConfirmation"], true, "{edit}");
    let ops = edit["documentChanges"].as_array().unwrap();
    assert_eq!(ops.len(), 1);
    assert_eq!(ops[0]["edits"][0]["annotationId"], "vox.grant");
    apply_workspace_edit(edit, false);
    golden("Vox.toml.report", &read(&ws.path("Vox.toml")));

    // tasks.json with comments and a trailing comma: a vox task appended.
    let a = find(
        &all,
        "Run with inferred capabilities: add to .vscode/tasks.json",
    );
    apply_workspace_edit(&a["edit"], false);
    golden("tasks.json.report", &read(&ws.path(".vscode/tasks.json")));

    // launch.json does not exist: CreateFile, then its text.
    let a = find(
        &all,
        "Run with inferred capabilities: add to .vscode/launch.json",
    );
    let ops = a["edit"]["documentChanges"].as_array().unwrap();
    assert_eq!(ops[0]["kind"], "create");
    assert_eq!(ops[0]["annotationId"], "vox.grant");
    apply_workspace_edit(&a["edit"], false);
    golden("launch.json.report", &read(&ws.path(".vscode/launch.json")));

    // The new run configurations are read back from disk through the watchers (and the
    // actions now update the same entries instead of adding new ones).
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [
            {"uri": uri(&ws.path("Vox.toml")), "type": 2},
            {"uri": uri(&ws.path(".vscode/tasks.json")), "type": 2},
            {"uri": uri(&ws.path(".vscode/launch.json")), "type": 1},
        ]}),
    );
    let again = actions(&mut lsp, &report, 1, Some(vec!["refactor"]));
    for title in [
        "Run with inferred capabilities: add to Vox.toml",
        "Run with inferred capabilities: add to .vscode/tasks.json",
        "Run with inferred capabilities: add to .vscode/launch.json",
    ] {
        let a = find(&again, title);
        let ops = a["edit"]["documentChanges"].as_array().unwrap();
        // Already up to date: an empty edit.
        let edits = ops[0]["edits"].as_array().unwrap();
        assert!(edits.iter().all(|e| e["newText"] == ""), "{title}: {a}");
    }
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn clients_without_document_changes_get_changes() {
    let ws = workspace();
    let report = ws.path("report.vox");
    let mut lsp = Lsp::start(&ws.0, "push-only");
    lsp.open_file(&report);
    let all = actions(&mut lsp, &report, 1, None);
    let a = find(&all, "Run with inferred capabilities: add to Vox.toml");
    assert!(a["edit"]["documentChanges"].is_null());
    assert!(a["edit"]["changeAnnotations"].is_null());
    let changes = a["edit"]["changes"].as_object().unwrap();
    let edits = changes[&uri(&ws.path("Vox.toml"))].as_array().unwrap();
    let new = apply_edits(&read(&ws.path("Vox.toml")), edits, false);
    golden("Vox.toml.report", &new);
    // A file that does not exist: one insertion at its start.
    let a = find(
        &all,
        "Run with inferred capabilities: add to .vscode/launch.json",
    );
    let edits = a["edit"]["changes"][uri(&ws.path(".vscode/launch.json"))]
        .as_array()
        .unwrap();
    golden("launch.json.report", &apply_edits("", edits, false));
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn c001_fix_edits_the_run_configuration() {
    let ws = workspace();
    let build = ws.path("build.vox");
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open_file(&build);
    let diags = lsp.diagnostics(&build);
    let c001 = diags.iter().find(|d| d["code"] == "C001").expect("C001");
    assert_eq!(c001["range"]["start"]["line"], 2);
    let all = actions(&mut lsp, &build, 2, Some(vec!["quickfix"]));
    let a = find(
        &all,
        "Add \"env:ro\" to run configuration `build` (Vox.toml)",
    );
    assert_eq!(a["diagnostics"][0]["code"], "C001");
    apply_workspace_edit(&a["edit"], true);
    golden("Vox.toml.build-env", &read(&ws.path("Vox.toml")));
    // The configuration changed on disk: C001 is gone.
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&ws.path("Vox.toml")), "type": 2}]}),
    );
    let diags = lsp.diagnostics(&build);
    assert!(diags.iter().all(|d| d["code"] != "C001"), "{diags:?}");
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn quick_fixes_fix_all_and_suppression() {
    let ws = TempDir::new("fixes");
    let text = "fn main() {\n    let x = 0.5\n    print(x.sin())\n    print(x.cos())\n    let t = time.now_ms()\n    print(t)\n}\n";
    let a = ws.write("a.vox", text);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&a, text);
    let d = lsp.diagnostics(&a);
    assert_eq!(
        d.iter()
            .map(|x| x["code"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["D001", "D001", "D003"]
    );
    // The rule's own fix as a quick fix.
    let all = actions(&mut lsp, &a, 2, Some(vec!["quickfix"]));
    let fix = all
        .iter()
        .find(|x| x["diagnostics"][0]["code"] == "D001" && x["isPreferred"] == true)
        .expect("D001 fix");
    let edits = fix["edit"]["documentChanges"][0]["edits"]
        .as_array()
        .unwrap();
    let fixed = apply_edits(text, edits, false);
    assert!(fixed.contains("print(math.sin(x))"), "{fixed}");
    // Fix all: both D001 at once.
    let all = actions(&mut lsp, &a, 0, Some(vec!["source.fixAll.vox"]));
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["kind"], "source.fixAll.vox");
    let edits = all[0]["edit"]["documentChanges"][0]["edits"]
        .as_array()
        .unwrap();
    let fixed = apply_edits(text, edits, false);
    assert!(
        fixed.contains("math.sin(x)") && fixed.contains("math.cos(x)"),
        "{fixed}"
    );
    // Suppress with a reason: the comment above, and the cursor after it.
    let all = actions(&mut lsp, &a, 4, Some(vec!["quickfix"]));
    let s = find(&all, "Suppress D003 with a reason");
    let edits = s["edit"]["documentChanges"][0]["edits"].as_array().unwrap();
    let suppressed = apply_edits(text, edits, false);
    assert!(
        suppressed.contains("\n    // vox:allow(D003): \n    let t = time.now_ms()"),
        "{suppressed}"
    );
    assert_eq!(s["command"]["command"], "vox.revealSuppression");
    let args = s["command"]["arguments"][0].clone();
    assert_eq!(args["position"], json!({"line": 4, "character": 24}));
    let r = lsp.request(
        "workspace/executeCommand",
        json!({"command": "vox.revealSuppression", "arguments": [args]}),
    );
    assert!(r.is_ok());
    // The server asked the client to show the document with the cursor there.
    for _ in 0..50 {
        if lsp
            .server_requests
            .iter()
            .any(|(m, _)| m == "window/showDocument")
        {
            break;
        }
        let _ = lsp.request("workspace/symbol", json!({"query": ""}));
    }
    let (_, p) = lsp
        .server_requests
        .iter()
        .find(|(m, _)| m == "window/showDocument")
        .expect("showDocument");
    assert_eq!(p["selection"]["start"], json!({"line": 4, "character": 24}));
    assert_eq!(lsp.shutdown(), Some(0));
}
