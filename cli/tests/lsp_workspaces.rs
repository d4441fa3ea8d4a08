//! Multi-root workspaces (issue item 11): each folder the client names is a workspace of its
//! own. A script in the second folder, named at `initialize` or added later with
//! `workspace/didChangeWorkspaceFolders`, gets that folder's findings (as `vox lint` run there
//! reports them), its C001 fix edits that folder's Vox.toml, and `vox.showCaps` and `vox.run`
//! work from that folder. A removed folder is no longer analysed: its diagnostics are cleared.

mod lsp_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use lsp_common::{apply_workspace_edit, uri, Lsp, TempDir};
use serde_json::{json, Value};

/// `one/` ignores D003 and has no run configuration; `two/` has a run configuration `job`
/// that grants nothing to a script reading the clock and the environment.
struct Folders {
    base: TempDir,
    one: PathBuf,
    two: PathBuf,
    a: PathBuf,
    job: PathBuf,
}

const A: &str =
    "fn main() {\n    print(time.now_ms())\n    print(env.get(\"HOME\").is_some())\n}\n";
const JOB: &str = "fn main() {\n    print(\"start\")\n    print(time.now_ms())\n    print(env.get(\"HOME\").is_some())\n}\n";
const TWO_TOML: &str = "# the job\n[run.job]\nscript = \"job.vox\"\ncaps = []\n";

fn folders() -> Folders {
    let base = TempDir::new("folders");
    base.write("one/Vox.toml", "[lint]\nignore = [\"D003\"]\n");
    let a = base.write("one/a.vox", A);
    base.write("two/Vox.toml", TWO_TOML);
    let job = base.write("two/job.vox", JOB);
    Folders {
        one: base.path("one"),
        two: base.path("two"),
        a,
        job,
        base,
    }
}

/// What `vox lint` run in `dir` reports in `file` (a name relative to `dir`): (code, line from
/// 0, message), sorted.
fn cli_lint(dir: &Path, file: &str) -> Vec<(String, u64, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args(["lint", "--format", "json"])
        .current_dir(dir)
        .output()
        .unwrap();
    let all: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut v: Vec<(String, u64, String)> = all
        .iter()
        .filter(|f| f["file"] == file)
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["range"]["start"]["line"].as_u64().unwrap() - 1,
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Diagnostics as (code, line, first line of the message), sorted.
fn shown(diags: &[Value]) -> Vec<(String, u64, String)> {
    let mut v: Vec<(String, u64, String)> = diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["message"]
                    .as_str()
                    .unwrap()
                    .lines()
                    .next()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

fn execute(lsp: &mut Lsp, command: &str, args: Value) -> Result<Value, Value> {
    lsp.request(
        "workspace/executeCommand",
        json!({"command": command, "arguments": [args]}),
    )
}

/// Collects a run's output until its `vox/runExit`: (stdout, stderr, code).
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

fn code_actions(lsp: &mut Lsp, path: &Path, line: u32) -> Vec<Value> {
    lsp.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": uri(path)},
            "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 80}},
            "context": {"diagnostics": [], "only": ["quickfix"]},
        }),
    )
    .unwrap()
    .as_array()
    .unwrap()
    .clone()
}

/// Everything the second folder's script gets comes from that folder.
fn second_folder(client: &str) {
    let f = folders();
    let want = cli_lint(&f.two, "job.vox");
    assert!(
        want.iter().any(|(c, _, _)| c == "C001") && want.iter().any(|(c, _, _)| c == "D003"),
        "the fixture: {want:?}"
    );
    let mut lsp = Lsp::start_folders(&f.base.0, client, &[&f.one, &f.two]);
    lsp.open(&f.job, JOB);
    assert_eq!(
        shown(&lsp.diagnostics(&f.job)),
        want,
        "{client}: the findings of `vox lint` in two/"
    );
    // The entry in two/Vox.toml, as `vox lint` reports it there.
    let toml = f.two.join("Vox.toml");
    assert_eq!(
        shown(&lsp.pushed(&toml)),
        cli_lint(&f.two, "Vox.toml"),
        "{client}"
    );
    // The first folder keeps its own configuration (D003 ignored, no run configuration).
    lsp.open(&f.a, A);
    assert_eq!(
        shown(&lsp.diagnostics(&f.a)),
        cli_lint(&f.one, "a.vox"),
        "{client}"
    );

    // vox.showCaps works from two/.
    let caps = execute(&mut lsp, "vox.showCaps", json!({"uri": uri(&f.job)})).unwrap();
    assert_eq!(caps["cwd"], f.two.to_str().unwrap(), "{client}");
    assert_eq!(caps["tokens"], json!(["env:ro", "time:real"]), "{client}");

    // vox.run runs the entry `job` of two/Vox.toml from two/, as `vox run job.vox` there.
    let cli = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args(["run", "job.vox"])
        .current_dir(&f.two)
        .output()
        .unwrap();
    assert_eq!(cli.status.code(), Some(77));
    let r = execute(&mut lsp, "vox.run", json!({"uri": uri(&f.job)})).unwrap();
    let (out, err, code) = collect(&mut lsp, r["runId"].as_u64().unwrap());
    assert_eq!(
        (out.as_str(), code),
        ("start\n", 77),
        "{client}: the denial of an empty caps list: {err}"
    );
    assert_eq!(
        err.lines().next(),
        String::from_utf8_lossy(&cli.stderr).lines().next(),
        "{client}"
    );

    // The C001 fix at the env.get call writes into two/Vox.toml.
    let all = code_actions(&mut lsp, &f.job, 3);
    let fix = all
        .iter()
        .find(|a| a["title"] == "Add \"env:ro\" to run configuration `job` (Vox.toml)")
        .unwrap_or_else(|| panic!("{client}: no C001 fix in {all:?}"));
    let edit = lsp.action_edit(fix);
    let changed = apply_workspace_edit(&edit, lsp.utf8);
    assert_eq!(changed, std::slice::from_ref(&toml), "{client}");
    let text = std::fs::read_to_string(&toml).unwrap();
    assert!(text.contains("caps = [\"env:ro\"]"), "{client}: {text}");
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn the_second_folder_has_its_own_findings_fixes_caps_and_runs_pull() {
    second_folder("vscode");
}

#[test]
fn the_second_folder_has_its_own_findings_fixes_caps_and_runs_push() {
    second_folder("push-only");
}

#[test]
fn a_folder_added_later_is_its_own_workspace_and_a_removed_one_is_cleared() {
    let f = folders();
    let mut lsp = Lsp::start_folders(&f.base.0, "push-only", &[&f.one]);
    let caps = &lsp.init_result["capabilities"]["workspace"]["workspaceFolders"];
    assert_eq!(
        caps,
        &json!({"supported": true, "changeNotifications": true})
    );
    lsp.open(&f.job, JOB);
    // Outside every folder: the first folder's workspace lints it (D003 ignored there, and no
    // run configuration for it).
    assert_eq!(shown(&lsp.pushed(&f.job)), []);
    let folder = |p: &Path| json!([{"uri": uri(p), "name": "two"}]);
    lsp.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": folder(&f.two), "removed": []}}),
    );
    let want = cli_lint(&f.two, "job.vox");
    let is_job = |m: &Value| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri(&f.job)
    };
    let got = lsp.wait_for("job.vox's diagnostics from two/", |m| {
        is_job(m) && shown(m["params"]["diagnostics"].as_array().unwrap()) == want
    });
    assert_eq!(got["params"]["version"], 1, "the open document's version");
    let caps = execute(&mut lsp, "vox.showCaps", json!({"uri": uri(&f.job)})).unwrap();
    assert_eq!(caps["cwd"], f.two.to_str().unwrap());
    // two/Vox.toml's C001 is published too.
    let toml = f.two.join("Vox.toml");
    assert_eq!(shown(&lsp.pushed(&toml)), cli_lint(&f.two, "Vox.toml"));

    // Removed: no longer analysed, its diagnostics cleared (the script's and Vox.toml's).
    lsp.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": [], "removed": folder(&f.two)}}),
    );
    lsp.wait_for("job.vox cleared", |m| {
        is_job(m) && m["params"]["diagnostics"] == json!([])
    });
    let toml_uri = uri(&toml);
    lsp.wait_for("two/Vox.toml cleared", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == toml_uri.as_str()
            && m["params"]["diagnostics"] == json!([])
    });
    // Edits to it are not analysed any more.
    lsp.change(&f.job, None, "fn main() {\n    print(time.now_ms())\n}\n");
    let again = lsp.maybe(std::time::Duration::from_millis(1500), |m| {
        is_job(m) && m["params"]["diagnostics"] != json!([])
    });
    assert!(again.is_none(), "diagnostics after removal: {again:?}");
    // The first folder is analysed as before.
    lsp.open(&f.a, A);
    assert_eq!(shown(&lsp.pushed(&f.a)), cli_lint(&f.one, "a.vox"));
    assert_eq!(lsp.shutdown(), Some(0));
}
