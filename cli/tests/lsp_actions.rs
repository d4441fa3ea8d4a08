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
    let edit = &lsp.action_edit(a);
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
    apply_workspace_edit(&lsp.action_edit(a), false);
    golden("tasks.json.report", &read(&ws.path(".vscode/tasks.json")));

    // launch.json does not exist: CreateFile, then its text.
    let a = find(
        &all,
        "Run with inferred capabilities: add to .vscode/launch.json",
    );
    let edit = lsp.action_edit(a);
    let ops = edit["documentChanges"].as_array().unwrap();
    assert_eq!(ops[0]["kind"], "create");
    assert_eq!(ops[0]["annotationId"], "vox.grant");
    apply_workspace_edit(&edit, false);
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
        let edit = lsp.action_edit(find(&again, title));
        let ops = edit["documentChanges"].as_array().unwrap();
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
    // An existing file that is not Vox.toml: edited with `changes` too.
    let a = find(
        &all,
        "Run with inferred capabilities: add to .vscode/tasks.json",
    );
    assert!(a["edit"]["documentChanges"].is_null());
    assert!(a["edit"]["changes"][uri(&ws.path(".vscode/tasks.json"))].is_array());
    // A file that does not exist (.vscode/launch.json): LSP 3.17 lets a server create a file
    // only with a `CreateFile` operation in `documentChanges`, for a client whose
    // `workspace.workspaceEdit.resourceOperations` lists `create`, and a text edit of a file that
    // does not exist is invalid (a strict client rejects the whole edit). This client can do
    // neither, so the action carries no edit: its command `vox.applyEdit` has the server create
    // the empty file, then ask the client to apply an edit of a file that exists by then.
    assert!(!ws.path(".vscode/launch.json").exists());
    let a = find(
        &all,
        "Run with inferred capabilities: add to .vscode/launch.json",
    );
    assert!(a["edit"].is_null(), "an edit of a missing file: {a}");
    assert_eq!(a["command"]["command"], "vox.applyEdit", "{a}");
    let launch = uri(&ws.path(".vscode/launch.json"));
    assert_eq!(
        a["command"]["arguments"][0]["create"],
        json!([launch]),
        "{a}"
    );
    let r = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": a["command"]["command"], "arguments": a["command"]["arguments"]}),
        )
        .unwrap();
    assert_eq!(r["applied"], true, "{r}");
    assert_eq!(
        read(&ws.path(".vscode/launch.json")),
        "",
        "created empty first"
    );
    let (method, params) = lsp.server_requests.last().unwrap().clone();
    assert_eq!(method, "workspace/applyEdit");
    let edits = params["edit"]["changes"][&launch]
        .as_array()
        .unwrap()
        .clone();
    let filled = apply_edits("", &edits, false);
    assert!(filled.contains("\"type\": \"vox\""), "{filled}");
    // Only run configuration files are created that way.
    let err = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "vox.applyEdit", "arguments": [{"create": [uri(&ws.path("evil.sh"))], "edit": {}}]}),
        )
        .expect_err("not a configuration file");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("not a run configuration file"),
        "{err}"
    );
    assert!(!ws.path("evil.sh").exists());
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
    apply_workspace_edit(&lsp.action_edit(a), true);
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
    let edit = lsp.action_edit(fix);
    let edits = edit["documentChanges"][0]["edits"].as_array().unwrap();
    let fixed = apply_edits(text, edits, false);
    assert!(fixed.contains("print(math.sin(x))"), "{fixed}");
    // Fix all: both D001 at once.
    let all = actions(&mut lsp, &a, 0, Some(vec!["source.fixAll.vox"]));
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["kind"], "source.fixAll.vox");
    let edit = lsp.action_edit(&all[0]);
    let edits = edit["documentChanges"][0]["edits"].as_array().unwrap();
    let fixed = apply_edits(text, edits, false);
    assert!(
        fixed.contains("math.sin(x)") && fixed.contains("math.cos(x)"),
        "{fixed}"
    );
    // Suppress with a reason: the comment above, and the cursor after it.
    let all = actions(&mut lsp, &a, 4, Some(vec!["quickfix"]));
    let s = find(&all, "Suppress D003 with a reason");
    let edit = lsp.action_edit(s);
    let edits = edit["documentChanges"][0]["edits"].as_array().unwrap();
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

/// `context.only` filters by kind hierarchically: `refactor` admits `refactor.rewrite`,
/// `refactor.rewrite` admits only that, `source` admits `source.fixAll.vox`, `quickfix` only
/// quick fixes.
#[test]
fn kinds_filter_hierarchically() {
    let ws = TempDir::new("kinds");
    // Line 1: a directive missing `env` (C003); line 3: a D001 with a safe fix.
    let text =
        "// vox:caps fs\nlet who = env.get(\"USER\").unwrap_or(\"ci\")\nlet x = 0.5\nprint(x.sin(), who)\n";
    let a = ws.write("a.vox", text);
    // This client cannot create files: the actions that write a run configuration are offered
    // for a Vox.toml that exists.
    ws.write("Vox.toml", "");
    let mut lsp = Lsp::start(&ws.0, "push-only");
    lsp.open(&a, text);
    let kinds = |lsp: &mut Lsp, line: u32, only: Option<Vec<&str>>| -> Vec<(String, String)> {
        actions(lsp, &a, line, only)
            .iter()
            .map(|x| {
                (
                    x["kind"].as_str().unwrap().to_string(),
                    x["title"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let directive = "Replace `// vox:caps` directive with a run configuration";
    let rewrite = kinds(&mut lsp, 1, Some(vec!["refactor.rewrite"]));
    assert_eq!(
        rewrite,
        [("refactor.rewrite".to_string(), directive.to_string())]
    );
    let refactor = kinds(&mut lsp, 1, Some(vec!["refactor"]));
    assert!(
        refactor.iter().all(|(k, _)| k.starts_with("refactor")),
        "{refactor:?}"
    );
    assert!(refactor.iter().any(|(k, _)| k == "refactor.rewrite"));
    assert!(refactor
        .iter()
        .any(|(_, t)| t == "Run with inferred capabilities: add to Vox.toml"));
    let source = kinds(&mut lsp, 3, Some(vec!["source"]));
    assert_eq!(
        source,
        [(
            "source.fixAll.vox".to_string(),
            "Fix all safe vox findings".to_string()
        )]
    );
    let quick = kinds(&mut lsp, 3, Some(vec!["quickfix"]));
    assert!(!quick.is_empty() && quick.iter().all(|(k, _)| k == "quickfix"));
    assert!(
        quick.iter().any(|(_, t)| t == "Use `math.sin(x)`"),
        "{quick:?}"
    );
    // At the C003 finding the directive's replacement is its quick fix, offered once.
    let all = kinds(&mut lsp, 0, None);
    let offered: Vec<&(String, String)> = all.iter().filter(|(_, t)| t == directive).collect();
    assert_eq!(
        offered,
        [&("quickfix".to_string(), directive.to_string())],
        "{all:?}"
    );
    // A kind the server has none of.
    assert!(kinds(&mut lsp, 3, Some(vec!["refactor.extract"])).is_empty());
    assert_eq!(lsp.shutdown(), Some(0));
}

/// A client declaring `resolveSupport` for `edit` gets actions with `data` and no edit, and the
/// edit from `codeAction/resolve`, the same one an eager client gets. A document edited in
/// between answers ContentModified.
#[test]
fn resolve_computes_edits_on_demand() {
    let ws = TempDir::new("resolve");
    ws.write(
        "Vox.toml",
        "# runs\n[run.report]\nscript = \"report.vox\"\ncaps = [\"time:real\"]  # real clock\n",
    );
    let text = "let t = time.now_ms()\nprint(t)\nlet x = 0.5\nprint(x.sin())\n";
    let a = ws.write("report.vox", text);
    let title = "Add `time:frozen=0` to run configuration `report`";

    // An eager client (no resolveSupport): the edit at once, and no resolve needed.
    let mut eager = Lsp::start(&ws.0, "push-only");
    eager.open(&a, text);
    let all = actions(&mut eager, &a, 0, None);
    let e = find(&all, title);
    assert!(e["data"].is_null(), "{e}");
    let eager_edit = e["edit"].clone();
    assert!(eager_edit["changes"].is_object(), "{e}");
    assert_eq!(eager.shutdown(), Some(0));

    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&a, text);
    let all = actions(&mut lsp, &a, 0, None);
    assert!(!all.is_empty());
    for x in all.iter().filter(|x| !x["data"].is_null()) {
        assert!(x["edit"].is_null(), "sent with its edit: {x}");
        assert_eq!(x["data"]["uri"], uri(&a), "{x}");
    }
    let lazy = find(&all, title).clone();
    assert_eq!(lazy["data"]["version"], 1);
    assert_eq!(lazy["data"]["code"], "D003");
    let resolved = lsp
        .request("codeAction/resolve", lazy.clone())
        .expect("resolve");
    assert_eq!(resolved["title"], title);
    let ops = resolved["edit"]["documentChanges"].as_array().unwrap();
    assert_eq!(ops[0]["textDocument"]["uri"], uri(&ws.path("Vox.toml")));
    // The same text edit the eager client got.
    assert_eq!(
        ops[0]["edits"],
        eager_edit["changes"][uri(&ws.path("Vox.toml"))],
        "{resolved}"
    );
    apply_workspace_edit(&resolved["edit"], false);
    assert_eq!(
        read(&ws.path("Vox.toml")),
        "# runs\n[run.report]\nscript = \"report.vox\"\ncaps = [\"time:frozen=0\"]  # real clock\n"
    );
    // Another fix of the same answer resolves too (the fix of D001, in the script).
    let d001 = actions(&mut lsp, &a, 3, Some(vec!["quickfix"]));
    let sin = find(&d001, "Use `math.sin(x)`").clone();
    assert!(sin["edit"].is_null());
    // The script changes before the action is resolved: ContentModified, not a stale edit.
    lsp.change(&a, None, &format!("// moved\n{text}"));
    let err = lsp
        .request("codeAction/resolve", sin)
        .expect_err("a stale action must not resolve");
    assert_eq!(err["code"], -32801, "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("ask for them again"),
        "{err}"
    );
    // Asked again on the new text, it resolves.
    let d001 = actions(&mut lsp, &a, 4, Some(vec!["quickfix"]));
    let sin = find(&d001, "Use `math.sin(x)`").clone();
    let r = lsp.request("codeAction/resolve", sin).expect("resolve");
    let edits = r["edit"]["documentChanges"][0]["edits"].as_array().unwrap();
    let fixed = apply_edits(&format!("// moved\n{text}"), edits, false);
    assert!(fixed.ends_with("print(math.sin(x))\n"), "{fixed}");
    // Data the server did not send: an error that says so, not a crash.
    let err = lsp
        .request(
            "codeAction/resolve",
            json!({"title": "bogus", "data": {"uri": 3}}),
        )
        .expect_err("bogus data");
    assert_eq!(err["code"], -32602, "{err}");
    // An action that only runs a command has nothing to resolve: it comes back as it was.
    let command_only = json!({
        "title": "Prove: run twice with different perturbation",
        "kind": "source.prove.vox",
        "command": {"title": "Prove", "command": "vox.prove", "arguments": [{"uri": uri(&a)}]},
    });
    let r = lsp
        .request("codeAction/resolve", command_only.clone())
        .expect("a command-only action resolves to itself");
    assert_eq!(r, command_only);
    assert!(lsp.is_alive());
    assert_eq!(lsp.shutdown(), Some(0));
}

/// The D003 fix edits the editor's text of an open, unsaved Vox.toml (not the file on disk).
#[test]
fn configuration_fixes_use_the_editor_text() {
    let ws = TempDir::new("pin-unsaved");
    let saved = "[run.report]\nscript = \"report.vox\"\ncaps = [\"time:real\"]\n";
    let toml = ws.write("Vox.toml", saved);
    let text = "print(time.now_ms(), env.get(\"CI\") isnt null)\n";
    let a = ws.write("report.vox", text);
    let mut lsp = Lsp::start(&ws.0, "push-only");
    lsp.open(&a, text);
    // Unsaved in the editor: a comment above, and the entry grants env:ro.
    let unsaved =
        "# edited, not saved\n[run.report]\nscript = \"report.vox\"\ncaps = [\"time:real\", \"env:ro\"]\n";
    lsp.open(&toml, unsaved);
    lsp.change(&toml, None, unsaved);
    let all = actions(&mut lsp, &a, 0, Some(vec!["quickfix"]));
    let pin = find(&all, "Add `time:frozen=0` to run configuration `report`");
    let edits = pin["edit"]["changes"][uri(&toml)].as_array().unwrap();
    assert_eq!(
        apply_edits(unsaved, edits, false),
        "# edited, not saved\n[run.report]\nscript = \"report.vox\"\ncaps = [\"env:ro\", \"time:frozen=0\"]\n"
    );
    assert_eq!(lsp.shutdown(), Some(0));
}

/// Issue 36 item 13: a client without `codeActionLiteralSupport` gets `Command`s that do what
/// the actions do: "Run with inferred capabilities: add to …" applies its edit through
/// `vox.applyEdit` (the server asks the client with `workspace/applyEdit`), and "Suppress … with
/// a reason" applies its edit, then reveals the place to write the reason.
#[test]
fn clients_without_action_literals_get_commands() {
    let ws = workspace();
    let report = ws.path("report.vox");
    let mut lsp = Lsp::start(&ws.0, "no-literals");
    lsp.open_file(&report);
    let all = actions(&mut lsp, &report, 1, None);
    assert!(!all.is_empty());
    for a in &all {
        // A Command has `command` as a string; a CodeAction never does.
        assert!(a["command"].is_string(), "not a Command: {a}");
        assert!(a.get("edit").is_none() && a.get("kind").is_none(), "{a}");
    }
    let grant = find(&all, "Run with inferred capabilities: add to Vox.toml");
    assert_eq!(grant["command"], "vox.applyEdit", "{grant}");
    let r = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": grant["command"], "arguments": grant["arguments"]}),
        )
        .unwrap();
    assert_eq!(r["applied"], true, "{r}");
    let (method, params) = lsp.server_requests.last().unwrap().clone();
    assert_eq!(method, "workspace/applyEdit");
    let changes = &params["edit"]["changes"];
    assert!(
        changes
            .as_object()
            .unwrap()
            .keys()
            .any(|k| k.ends_with("/Vox.toml")),
        "{params}"
    );
    let text = "fn main() {\n    let t = time.now_ms()\n    print(t)\n}\n";
    let clock = ws.write("clock.vox", text);
    lsp.open(&clock, text);
    let _ = lsp.diagnostics(&clock);
    let all = actions(&mut lsp, &clock, 1, None);
    let suppress = find(&all, "Suppress D003 with a reason");
    assert_eq!(suppress["command"], "vox.applyEdit", "{suppress}");
    assert_eq!(
        suppress["arguments"][0]["then"]["command"],
        "vox.revealSuppression"
    );
    lsp.request(
        "workspace/executeCommand",
        json!({"command": suppress["command"], "arguments": suppress["arguments"]}),
    )
    .unwrap();
    let methods: Vec<&str> = lsp
        .server_requests
        .iter()
        .map(|(m, _)| m.as_str())
        .collect();
    assert_eq!(
        methods
            .iter()
            .filter(|m| **m == "workspace/applyEdit")
            .count(),
        2,
        "{methods:?}"
    );
    assert_eq!(lsp.shutdown(), Some(0));
}

/// Issue 36 item 10: in the editor, D006 on a script no configuration runs offers the quick fix
/// that creates a run configuration for it (Vox.toml created: a `CreateFile` then its text), with
/// the inferred caps and the stream pinned, the same entry `vox lint --fix --unsafe-fixes` writes.
#[test]
fn d006_without_a_configuration_creates_one() {
    let ws = TempDir::new("new-run");
    let text = "let x = random.int(1, 7)\nprint(x)\nprint(env.get(\"HOME\").is_some())\n";
    let a = ws.write("dice.vox", text);
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open(&a, text);
    let all = actions(&mut lsp, &a, 0, Some(vec!["quickfix"]));
    let lazy = find(
        &all,
        "Create run configuration `dice` in Vox.toml with `random:seed=0`",
    );
    assert_eq!(lazy["kind"], "quickfix", "{lazy}");
    let create = lsp
        .request("codeAction/resolve", lazy.clone())
        .expect("resolve");
    let ops = create["edit"]["documentChanges"]
        .as_array()
        .unwrap_or_else(|| panic!("{create}"));
    assert_eq!(ops[0]["kind"], "create", "{create}");
    assert_eq!(ops[0]["uri"], uri(&ws.path("Vox.toml")));
    apply_workspace_edit(&create["edit"], false);
    assert_eq!(
        read(&ws.path("Vox.toml")),
        "[run.dice]\nscript = \"dice.vox\"\ncaps = [\"env:ro\", \"random:seed=0\"]\n"
    );
    assert_eq!(lsp.shutdown(), Some(0));
}
