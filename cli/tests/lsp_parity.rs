//! Decision 54, the editor runs what the CLI runs: `vox.run` resolves the run configuration
//! with `vox run`'s code (an invalid Vox.toml refuses the run with the CLI's message; without a
//! workspace folder, Vox.toml is found above the script as the CLI finds it). Also the views
//! that follow another file's change (code lens, inlay hint and semantic token refreshes) and
//! pull diagnostics that answer `unchanged`.

mod lsp_common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use lsp_common::{client_fixture, uri, Lsp, TempDir, TIMEOUT};
use serde_json::{json, Value};

/// `vox run SCRIPT` in `dir`: (exit code, stderr).
fn cli_run(dir: &Path, script: &str) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args(["run", script])
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn execute(lsp: &mut Lsp, command: &str, args: Value) -> Result<Value, Value> {
    lsp.request(
        "workspace/executeCommand",
        json!({"command": command, "arguments": [args]}),
    )
}

/// Collects a run's `vox/runOutput` until its `vox/runExit`: (stdout, stderr, code).
fn collect(lsp: &mut Lsp, id: u64) -> (String, String, i64) {
    let (mut out, mut err) = (String::new(), String::new());
    loop {
        let m = lsp.wait_for("run notifications", |m| {
            (m["method"] == "vox/runOutput" || m["method"] == "vox/runExit")
                && m["params"]["runId"] == id
        });
        let p = &m["params"];
        if m["method"] == "vox/runExit" {
            return (out, err, p["code"].as_i64().unwrap());
        }
        match p["stream"].as_str().unwrap() {
            "stdout" => out.push_str(p["text"].as_str().unwrap()),
            _ => err.push_str(p["text"].as_str().unwrap()),
        }
    }
}

fn codes(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The script writes a marker file when it runs: with the inferred capabilities (the old
/// fallback) it would be allowed to.
const MARKER: &str =
    "fn main() {\n    fs.write(\"ran.txt\", \"ran\").unwrap()\n    print(\"ran\")\n}\n";

#[test]
fn an_invalid_vox_toml_refuses_the_run_with_the_cli_message() {
    for (what, toml, invalid) in [
        (
            "syntax error",
            "[run.main]\nscript = \"a.vox\"\ncaps = [\"fs:rw=.\"\n",
            true,
        ),
        (
            "unknown key",
            "[run.main]\nscript = \"a.vox\"\ncapz = [\"fs:rw=.\"]\n",
            true,
        ),
        (
            "bad caps token",
            "[run.main]\nscript = \"a.vox\"\ncaps = [\"fs:sometimes=.\"]\n",
            false,
        ),
        (
            "two entries for the script",
            "[run.one]\nscript = \"a.vox\"\ncaps = []\n\n[run.two]\nscript = \"a.vox\"\ncaps = []\n",
            false,
        ),
    ] {
        let ws = TempDir::new("parity-bad");
        let a = ws.write("a.vox", MARKER);
        let toml_path = ws.write("Vox.toml", toml);
        // The editor names the script by its absolute path.
        let (code, stderr) = cli_run(&ws.0, a.to_str().unwrap());
        assert_eq!(code, 1, "{what}: {stderr}");
        assert!(!ws.path("ran.txt").exists(), "{what}");

        let mut lsp = Lsp::start(&ws.0, "vscode");
        lsp.open(&a, MARKER);
        let err = execute(&mut lsp, "vox.run", json!({"uri": uri(&a)}))
            .expect_err(&format!("{what}: vox.run must refuse"));
        assert_eq!(err["message"], stderr.trim_end(), "{what}");
        assert_eq!(err["code"], -32803, "{what}");
        if invalid {
            let diags = lsp.pushed(&toml_path);
            assert_eq!(codes(&diags), ["config.invalid"], "{what}");
        }
        assert_eq!(lsp.shutdown(), Some(0));
        // No run was started (the refusal came before any process, and none wrote the marker).
        assert!(!ws.path("ran.txt").exists(), "{what}");
    }
}

/// `initialize` with `rootUri: null` and no workspace folders, the server started elsewhere.
fn start_without_folder(cwd: &Path, client: &str) -> Lsp {
    let mut lsp = Lsp::spawn(cwd);
    let mut params = client_fixture(client);
    let obj = params.as_object_mut().unwrap();
    obj.remove("comment");
    obj.remove("workspaceFolders");
    obj.insert("processId".into(), json!(std::process::id()));
    obj.insert("rootUri".into(), Value::Null);
    obj.insert("rootPath".into(), Value::Null);
    lsp.client = client.to_string();
    lsp.pull = params["capabilities"]["textDocument"]["diagnostic"].is_object();
    let result = lsp.request("initialize", params).expect("initialize");
    lsp.utf8 = result["capabilities"]["positionEncoding"] == "utf-8";
    lsp.notify("initialized", json!({}));
    lsp
}

#[test]
fn without_a_workspace_folder_vox_toml_is_found_as_the_cli_finds_it() {
    let ws = TempDir::new("parity-nofolder");
    let elsewhere = TempDir::new("parity-cwd");
    let text = "fn main() {\n    print(\"start\")\n    print(env.get(\"HOME\").is_some())\n}\n";
    let toml = ws.write(
        "Vox.toml",
        "[run.main]\nscript = \"tools/a.vox\"\ncaps = []\n",
    );
    let a = ws.write("tools/a.vox", text);
    let (cli_code, cli_err) = cli_run(&ws.path("tools"), "a.vox");
    assert_eq!(cli_code, 77, "{cli_err}");
    // What a client with the folder open sees in Vox.toml.
    let mut with_folder = Lsp::start(&ws.0, "push-only");
    with_folder.open(&a, text);
    let toml_codes = codes(&with_folder.pushed(&toml));
    assert!(toml_codes.contains(&"C001".to_string()), "{toml_codes:?}");
    assert_eq!(with_folder.shutdown(), Some(0));

    for client in ["vscode", "push-only"] {
        let mut lsp = start_without_folder(&elsewhere.0, client);
        lsp.open(&a, text);
        // C001: the entry grants less than the script needs, as `vox lint` reports it.
        let diags = lsp.diagnostics(&a);
        assert!(
            codes(&diags).contains(&"C001".to_string()),
            "{client}: {diags:?}"
        );
        // And at the entry, as with the folder open.
        assert_eq!(codes(&lsp.pushed(&toml)), toml_codes, "{client}");
        let r = execute(&mut lsp, "vox.run", json!({"uri": uri(&a)})).unwrap();
        let (out, err, code) = collect(&mut lsp, r["runId"].as_u64().unwrap());
        assert_eq!(out, "start\n", "{client}");
        assert_eq!(code, 77, "{client}: {err}");
        assert_eq!(
            err.lines().next(),
            cli_err.lines().next(),
            "{client}: the denial as `vox run` prints it"
        );
        assert_eq!(lsp.shutdown(), Some(0));
    }

    // An invalid Vox.toml found that way: config.invalid, and the run refused as `vox run` refuses.
    std::fs::write(&toml, "[run.main]\nscript = \"tools/a.vox\"\ncaps = [\n").unwrap();
    let (cli_code, cli_err) = cli_run(&ws.path("tools"), a.to_str().unwrap());
    assert_eq!(cli_code, 1, "{cli_err}");
    let mut lsp = start_without_folder(&elsewhere.0, "push-only");
    lsp.open(&a, text);
    assert_eq!(codes(&lsp.pushed(&toml)), ["config.invalid"]);
    let err = execute(&mut lsp, "vox.run", json!({"uri": uri(&a)})).unwrap_err();
    assert_eq!(err["message"], cli_err.trim_end());
    assert_eq!(lsp.shutdown(), Some(0));
}

const LIB: &str = "pub fn slug(s: str) to str {\n    return s.trim()\n}\n";
const MAIN: &str = "import \"./lib.vox\" as lib\n\nfn main() {\n    print(lib.slug(\" x \"))\n}\n";
const LIB_READS: &str =
    "pub fn slug(s: str) to str {\n    let home = env.get(\"HOME\")\n    return s.trim()\n}\n";

/// The server's requests seen so far with `method`.
fn asked(lsp: &Lsp, method: &str) -> usize {
    lsp.server_requests
        .iter()
        .filter(|(m, _)| m == method)
        .count()
}

const REFRESHES: [&str; 3] = [
    "workspace/codeLens/refresh",
    "workspace/inlayHint/refresh",
    "workspace/semanticTokens/refresh",
];

fn caps_lens(lsp: &mut Lsp, path: &Path) -> String {
    let lenses = lsp
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri(path)}}),
        )
        .unwrap();
    lenses
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["command"]["title"].as_str())
        .find(|t| t.starts_with("caps:"))
        .unwrap_or("")
        .to_string()
}

#[test]
fn another_files_change_to_capabilities_refreshes_lenses_hints_and_tokens() {
    let ws = TempDir::new("parity-refresh");
    let lib = ws.write("lib.vox", LIB);
    let main = ws.write("main.vox", MAIN);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&main, MAIN);
    lsp.open(&lib, LIB);
    // Reading the imported file is the one need.
    assert_eq!(caps_lens(&mut lsp, &main), "caps: fs:ro=.");
    lsp.diagnostics(&main);
    let before: Vec<usize> = REFRESHES.iter().map(|m| asked(&lsp, m)).collect();
    // Editing the library adds an environment read to what main.vox needs.
    lsp.change(&lib, None, LIB_READS);
    let deadline = Instant::now() + TIMEOUT;
    while REFRESHES
        .iter()
        .zip(&before)
        .any(|(m, b)| asked(&lsp, m) == *b)
    {
        assert!(
            Instant::now() < deadline,
            "no refresh after the import changed: {:?}",
            lsp.server_requests
        );
        lsp.maybe(Duration::from_millis(100), |_| false);
    }
    assert_eq!(caps_lens(&mut lsp, &main), "caps: env:ro fs:ro=.");
    assert_eq!(lsp.shutdown(), Some(0));

    // A client that declared no refresh support is not asked.
    let mut lsp = Lsp::start(&ws.0, "push-only");
    lsp.open(&main, MAIN);
    lsp.open(&lib, LIB_READS);
    lsp.pushed(&main);
    lsp.change(&lib, None, LIB);
    assert_eq!(caps_lens(&mut lsp, &main), "caps: fs:ro=.");
    for m in REFRESHES {
        assert_eq!(asked(&lsp, m), 0, "{m}");
    }
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn pull_diagnostics_answer_unchanged_with_a_result_id() {
    let ws = TempDir::new("parity-pull");
    let text = "fn main() {\n    print(time.now_ms())\n}\n";
    let a = ws.write("a.vox", text);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&a, text);
    let pull = |lsp: &mut Lsp, previous: Option<&str>| {
        let mut params = json!({"textDocument": {"uri": uri(&a)}});
        if let Some(p) = previous {
            params["previousResultId"] = json!(p);
        }
        lsp.request("textDocument/diagnostic", params).unwrap()
    };
    let first = pull(&mut lsp, None);
    assert_eq!(first["kind"], "full");
    assert_eq!(codes(first["items"].as_array().unwrap()), ["D003"]);
    let id = first["resultId"].as_str().unwrap().to_string();
    // Nothing changed: unchanged, with the same id.
    let again = pull(&mut lsp, Some(&id));
    assert_eq!(again, json!({"kind": "unchanged", "resultId": id}));
    // An edit elsewhere in the workspace keeps this file's diagnostics, and so its id.
    let b = ws.write("b.vox", "fn main() {\n}\n");
    lsp.open(&b, "fn main() {\n}\n");
    lsp.change(&b, None, "fn main() {\n    print(1)\n}\n");
    assert_eq!(pull(&mut lsp, Some(&id))["kind"], "unchanged");
    // A stale or unknown id: the full report.
    assert_eq!(pull(&mut lsp, Some("stale"))["kind"], "full");
    // The diagnostics changed: full, with a new id.
    lsp.change(&a, None, "fn main() {\n    print(1)\n}\n");
    let fixed = pull(&mut lsp, Some(&id));
    assert_eq!(fixed["kind"], "full");
    assert_eq!(fixed["items"], json!([]));
    assert_ne!(fixed["resultId"].as_str().unwrap(), id);
    assert_eq!(lsp.shutdown(), Some(0));
}
