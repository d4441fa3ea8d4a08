//! Running scripts from the editor over stdio (decision 41): `vox.run` streams output and
//! exit, `vox.stop` leaves no process behind (decision 48), a denial becomes a diagnostic with
//! its grant fix, `vox.runTest`, `vox.showCaps`, and the code lenses that call them.

mod common;
mod lsp_common;

use std::time::{Duration, Instant};

use lsp_common::{apply_workspace_edit, uri, Lsp, TempDir};
use serde_json::{json, Value};

fn run(lsp: &mut Lsp, command: &str, args: Value) -> u64 {
    let r = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": command, "arguments": [args]}),
        )
        .unwrap();
    r["runId"].as_u64().unwrap()
}

/// Collects `vox/runOutput` of a run until its `vox/runExit`: (stdout, stderr, code).
fn collect(lsp: &mut Lsp, id: u64) -> (String, String, i64) {
    let (mut out, mut err) = (String::new(), String::new());
    loop {
        let m = lsp.wait_for("run notifications", |m| {
            (m["method"] == "vox/runOutput" || m["method"] == "vox/runExit")
                && m["params"]["runId"] == id
        });
        let p = &m["params"];
        // Every vox/* notification matches its schema (decision 37).
        let schema = if m["method"] == "vox/runExit" {
            "lsp-run-exit"
        } else {
            "lsp-run-output"
        };
        let schema: Value = serde_json::from_str(
            &std::fs::read_to_string(
                lsp_common::repo().join(format!("docs/schemas/{schema}.schema.json")),
            )
            .unwrap(),
        )
        .unwrap();
        common::validate(&schema, p).unwrap();
        if m["method"] == "vox/runExit" {
            return (out, err, p["code"].as_i64().unwrap());
        }
        match p["stream"].as_str().unwrap() {
            "stdout" => out.push_str(p["text"].as_str().unwrap()),
            "stderr" => err.push_str(p["text"].as_str().unwrap()),
            s => panic!("unknown stream {s}"),
        }
    }
}

/// Processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(needle) {
                out.push(pid);
            }
        }
    }
    out
}

#[test]
fn run_streams_output_and_exit() {
    let ws = TempDir::new("run");
    ws.write("data/input.txt", "hello from data\n");
    let text = "fn main() {\n    print(\"one\")\n    let t = fs.read(\"data/input.txt\")\n    print(t.unwrap().trim())\n    log.warn(\"careful\")\n    process.exit(3)\n}\n";
    let a = ws.write("a.vox", text);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&a, text);
    // No run configuration: the inferred caps (fs:ro=data), never allow-all.
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&a)}));
    let (out, err, code) = collect(&mut lsp, id);
    assert_eq!(out, "one\nhello from data\n");
    assert_eq!(err, "warn: careful\n");
    assert_eq!(code, 3);
    // Progress while it ran.
    assert!(lsp
        .server_requests
        .iter()
        .any(|(m, _)| m == "window/workDoneProgress/create"));
    assert_eq!(lsp.shutdown(), Some(0));
}

/// The server runs without transparent huge pages (an edit must not wait on the kernel making
/// one); so does the `vox run` it starts (start-up and peak memory, cli/src/memory.rs), but the
/// programs that run starts get the kernel's default back (allowed), as from a shell.
#[test]
fn the_server_runs_without_huge_pages_and_its_runs_with_the_default() {
    let thp = |status: &str| {
        status
            .lines()
            .find(|l| l.starts_with("THP_enabled:"))
            .map(|l| l["THP_enabled:".len()..].trim().to_string())
    };
    let shown = thp(&std::fs::read_to_string("/proc/self/status").unwrap()).is_some();
    if !shown || !std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists() {
        eprintln!(
            "this kernel has no transparent huge pages or does not show THP_enabled: skipped"
        );
        return;
    }
    let ws = TempDir::new("thp");
    let text = "fn main() {\n    let r = process.run_capture(\"grep\", [\"THP_enabled\", \"/proc/self/status\"]).unwrap()\n    print(r.stdout.trim())\n}\n";
    let a = ws.write("a.vox", text);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    let server = std::fs::read_to_string(format!("/proc/{}/status", lsp.pid())).unwrap();
    assert_eq!(thp(&server).as_deref(), Some("0"));
    lsp.open(&a, text);
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&a)}));
    let (out, err, code) = collect(&mut lsp, id);
    assert_eq!((out, code), ("THP_enabled:\t1\n".to_string(), 0), "{err}");
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn run_test_and_show_caps_and_lenses() {
    let ws = TempDir::new("lens");
    let text = "fn main() {\n    print(env.get(\"HOME\").is_some())\n}\n\n@test\nfn adds() {\n    assert(1 + 1 == 2)\n}\n";
    let a = ws.write("a.vox", text);
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open(&a, text);
    let lenses = lsp
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri(&a)}}),
        )
        .unwrap();
    let lenses = lenses.as_array().unwrap();
    let titles: Vec<&str> = lenses
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["▶ Run", "caps: env:ro", "▶ Run test"]);
    assert_eq!(lenses[0]["range"]["start"]["line"], 0);
    assert_eq!(lenses[1]["command"]["command"], "vox.showCaps");
    assert_eq!(lenses[2]["range"]["start"]["line"], 4);
    assert_eq!(lenses[2]["command"]["arguments"][0]["test"], "adds");
    let caps = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "vox.showCaps", "arguments": [{"uri": uri(&a)}]}),
        )
        .unwrap();
    assert_eq!(caps["tokens"], json!(["env:ro"]));
    assert_eq!(caps["needed_by"], json!({"env:ro": ["env.get"]}));
    assert_eq!(caps["notes"], json!([]));
    let id = run(
        &mut lsp,
        "vox.runTest",
        json!({"uri": uri(&a), "test": "adds"}),
    );
    let (out, _err, code) = collect(&mut lsp, id);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("adds"), "{out}");
    // The log names a test run as such.
    let end = format!("vox test {id} ended: exit 0");
    lsp.wait_for("the test run's last log line", |m| {
        m["method"] == "window/logMessage" && m["params"]["message"] == end.as_str()
    });
    let start = format!("vox test {id}: a.vox with the inferred capabilities: --caps env:ro");
    assert!(
        lsp.notes
            .iter()
            .any(|m| m["method"] == "window/logMessage" && m["params"]["message"] == start.as_str()),
        "no {start:?} in {:?}",
        lsp.notes
    );
    assert_eq!(lsp.shutdown(), Some(0));
}

/// Decision 54: a client that knows no `vox/*` notification still sees a run, in its log
/// (`window/logMessage`, whole lines), and the inferred caps, as a message
/// (`window/showMessage`); the `vox/*` notifications and the command's result are unchanged.
#[test]
fn run_output_and_caps_reach_the_log_and_messages() {
    let ws = TempDir::new("log");
    let text = "fn main() {\n    print(\"first line\")\n    print(env.get(\"VOX_NO_SUCH_VARIABLE\").is_some())\n    log.warn(\"careful\")\n    print(\"last line\")\n    process.exit(3)\n}\n";
    let a = ws.write("a.vox", text);
    let mut lsp = Lsp::start(&ws.0, "push-only");
    lsp.open(&a, text);
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&a)}));
    let (out, err, code) = collect(&mut lsp, id);
    assert_eq!(out, "first line\nfalse\nlast line\n");
    assert_eq!(err, "warn: careful\n");
    assert_eq!(code, 3);
    let end = format!("vox run {id} ended: exit 3");
    lsp.wait_for("the run's last log line", |m| {
        m["method"] == "window/logMessage" && m["params"]["message"] == end.as_str()
    });
    let logs: Vec<(i64, String)> = lsp
        .notes
        .iter()
        .filter(|m| m["method"] == "window/logMessage")
        .map(|m| {
            let p = &m["params"];
            (
                p["type"].as_i64().unwrap(),
                p["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let start = logs
        .iter()
        .position(|(_, l)| l.starts_with(&format!("vox run {id}: ")))
        .unwrap_or_else(|| panic!("no log line opens run {id}: {logs:?}"));
    assert_eq!(
        logs[start],
        (
            3,
            format!("vox run {id}: a.vox with the inferred capabilities: --caps env:ro")
        )
    );
    // The output, line by line, at type Log; stdout and stderr are read apart, so only each
    // stream's own order is fixed.
    let output = &logs[start + 1..];
    assert!(output.iter().all(|(t, _)| *t == 4), "{output:?}");
    let mut lines: Vec<&str> = output.iter().flat_map(|(_, l)| l.lines()).collect();
    let warn = lines.iter().position(|l| *l == "warn: careful");
    assert!(warn.is_some(), "stderr is not in the log: {lines:?}");
    lines.remove(warn.unwrap());
    assert_eq!(lines, ["first line", "false", "last line"]);

    let caps = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "vox.showCaps", "arguments": [{"uri": uri(&a)}]}),
        )
        .unwrap();
    assert_eq!(caps["tokens"], json!(["env:ro"]));
    let shown = lsp.wait_for("window/showMessage", |m| {
        m["method"] == "window/showMessage"
    });
    assert_eq!(shown["params"]["type"], 3);
    assert_eq!(
        shown["params"]["message"],
        format!(
            "a.vox needs env:ro (env.get) — run from {}",
            caps["cwd"].as_str().unwrap()
        )
    );
    assert_eq!(lsp.shutdown(), Some(0));

    // A client that presents the result itself (`experimental.vox.showCaps: "client"`, as the
    // Neovim plugin and the VS Code extension declare) gets no message repeating it: none has
    // come by the time `shutdown` is answered, long after the command's own answer.
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open(&a, text);
    let caps = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "vox.showCaps", "arguments": [{"uri": uri(&a)}]}),
        )
        .unwrap();
    assert_eq!(caps["tokens"], json!(["env:ro"]));
    assert_eq!(lsp.shutdown(), Some(0));
    let shown: Vec<&Value> = lsp
        .notes
        .iter()
        .filter(|m| m["method"] == "window/showMessage")
        .collect();
    assert!(shown.is_empty(), "{shown:?}");
}

#[test]
fn stop_leaves_no_process_behind() {
    let ws = TempDir::new("stop");
    let marker = format!("{}", 900000 + std::process::id() % 99999);
    let text = format!(
        "fn main() {{\n    process.spawn_background(\"sleep\", [\"{marker}\"])\n    let r = process.run_capture(\"sh\", [\"-c\", \"sleep {marker} & sleep {marker}\"])\n    loop {{\n    }}\n}}\n"
    );
    let a = ws.write("spin.vox", &text);
    ws.write(
        "Vox.toml",
        "[run.spin]\nscript = \"spin.vox\"\ncaps = [\"process:allow\"]\nmax-steps = 0\n",
    );
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&a, &text);
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&a)}));
    // Wait until the grandchildren run.
    let deadline = Instant::now() + Duration::from_secs(20);
    while processes_with(&format!("sleep {marker}")).len() < 2 {
        assert!(
            Instant::now() < deadline,
            "the script's children never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!processes_with(&ws.0.to_string_lossy()).is_empty());
    let r = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "vox.stop", "arguments": [{"runId": id}]}),
        )
        .unwrap();
    assert_eq!(r["stopped"], true);
    let (_, _, code) = collect(&mut lsp, id);
    assert_ne!(code, 0);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = processes_with(&format!("sleep {marker}"));
        let runs = processes_with(&ws.0.to_string_lossy());
        if left.is_empty() && runs.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "processes left behind: {left:?} {runs:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Stopping a finished run says so.
    let r = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "vox.stop", "arguments": [{"runId": id}]}),
        )
        .unwrap();
    assert_eq!(r["stopped"], false);
    assert_eq!(lsp.shutdown(), Some(0));
}

/// Waits (10 s at most) for a `vox run` diagnostic with `code` on `path`.
fn run_diagnostic(lsp: &mut Lsp, path: &std::path::Path, code: &str, context: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let diags = lsp.diagnostics(path);
        if let Some(d) = diags.iter().find(|d| d["code"] == code) {
            return d.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no run diagnostic {code}: {diags:?} {context}"
        );
    }
}

/// The quick fix titled `title` for the diagnostic `d` on `path`.
fn quick_fix(lsp: &mut Lsp, path: &std::path::Path, d: &Value, title: &str) -> Value {
    let actions = lsp
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri(path)}, "range": d["range"], "context": {"diagnostics": [d], "only": ["quickfix"]}}),
        )
        .unwrap();
    actions
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["title"] == title)
        .cloned()
        .unwrap_or_else(|| panic!("{actions:#}"))
}

/// Waits (10 s at most) until `path` has no `vox run` diagnostic.
fn run_diagnostics_gone(lsp: &mut Lsp, path: &std::path::Path) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let diags = lsp.diagnostics(path);
        if diags.iter().all(|d| d["source"] != "vox run") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the run diagnostic stayed: {diags:?}"
        );
    }
}

fn denial(client: &str) {
    let ws = TempDir::new("deny");
    ws.write("data/input.txt", "x\n");
    let text = "fn main() {\n    print(\"start\")\n    let t = fs.read(\"data/input.txt\")\n    print(t)\n}\n";
    let a = ws.write("deny.vox", text);
    let toml =
        "# runs of the denial test\n[run.deny]\nscript = \"deny.vox\"\ncaps = []  # nothing yet\n";
    ws.write("Vox.toml", toml);
    let mut lsp = Lsp::start(&ws.0, client);
    lsp.open(&a, text);
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&a)}));
    let (out, err, code) = collect(&mut lsp, id);
    assert_eq!(code, 77, "{out}{err}");
    assert_eq!(out, "start\n");
    assert!(err.contains("capability denied: fs.read"), "{err}");
    // The denial is a diagnostic at the call, from the run.
    let d = run_diagnostic(&mut lsp, &a, "caps.denied", "");
    assert_eq!(d["source"], "vox run");
    assert_eq!(d["range"]["start"], json!({"line": 2, "character": 12}));
    assert_eq!(d["range"]["end"], json!({"line": 2, "character": 37}));
    // Its quick fix grants the token in the run configuration.
    let grant = quick_fix(
        &mut lsp,
        &a,
        &d,
        "Grant `fs:ro=data` in run configuration `deny` (Vox.toml)",
    );
    assert_eq!(grant["diagnostics"][0]["code"], "caps.denied");
    let edit = lsp.action_edit(&grant);
    apply_workspace_edit(&edit, lsp.utf8);
    assert_eq!(
        std::fs::read_to_string(ws.path("Vox.toml")).unwrap(),
        "# runs of the denial test\n[run.deny]\nscript = \"deny.vox\"\ncaps = [\"fs:ro=data\"]  # nothing yet\n"
    );
    // Run again with the grant: no denial, and the run diagnostic is gone.
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&ws.path("Vox.toml")), "type": 2}]}),
    );
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&a)}));
    let (out, _, code) = collect(&mut lsp, id);
    assert_eq!((out.as_str(), code), ("start\nOk(x\n)\n", 0));
    run_diagnostics_gone(&mut lsp, &a);
    assert_eq!(lsp.shutdown(), Some(0));
}

/// A jailed child refused a path (the run itself succeeds): the `jail.refused` line becomes a
/// diagnostic at the `process.*` call whose fix grants the path in the run configuration; the
/// next run reads it and the diagnostic goes.
#[test]
fn a_childs_refusal_becomes_a_diagnostic_with_its_grant_fix() {
    let ws = TempDir::new("refused");
    ws.write("outside/secret.txt", "s\n");
    let text = "fn main() {\n    let r = process.run_capture(\"cat\", [\"outside/secret.txt\"]).unwrap()\n    print(r.exit, r.stdout.trim())\n}\n";
    let a = ws.write("peek.vox", text);
    ws.write(
        "Vox.toml",
        "[run.peek]\nscript = \"peek.vox\"\ncaps = [\"process:allow\"]\n",
    );
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&a, text);
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&a)}));
    let (out, err, code) = collect(&mut lsp, id);
    assert_eq!((out.as_str(), code), ("1 \n", 0), "{err}");
    let d = run_diagnostic(&mut lsp, &a, "jail.refused", &err);
    assert_eq!(d["source"], "vox run");
    assert_eq!(d["range"]["start"], json!({"line": 1, "character": 12}));
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("the jail refused cat reading "),
        "{d}"
    );
    let grant = quick_fix(
        &mut lsp,
        &a,
        &d,
        "Grant `fs:ro=outside` in run configuration `peek` (Vox.toml)",
    );
    apply_workspace_edit(&lsp.action_edit(&grant), lsp.utf8);
    assert_eq!(
        std::fs::read_to_string(ws.path("Vox.toml")).unwrap(),
        "[run.peek]\nscript = \"peek.vox\"\ncaps = [\"process:allow\", \"fs:ro=outside\"]\n"
    );
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&ws.path("Vox.toml")), "type": 2}]}),
    );
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&a)}));
    let (out, err, code) = collect(&mut lsp, id);
    assert_eq!((out.as_str(), code), ("0 s\n", 0), "{err}");
    run_diagnostics_gone(&mut lsp, &a);
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn denial_becomes_a_diagnostic_with_its_grant_fix_pull() {
    denial("vscode");
}

#[test]
fn denial_becomes_a_diagnostic_with_its_grant_fix_push() {
    denial("push-only");
}

#[test]
fn ceiling_becomes_a_diagnostic_with_a_raise_fix() {
    let ws = TempDir::new("ceiling");
    let text = "fn main() {\n    let mut i = 0\n    while i < 1000000 {\n        i = i + 1\n    }\n    print(i)\n}\n";
    let a = ws.write("spin.vox", text);
    ws.write(
        "Vox.toml",
        "[run.spin]\nscript = \"spin.vox\"\ncaps = []\nmax-steps = 1000\n",
    );
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open(&a, text);
    let id = run(
        &mut lsp,
        "vox.run",
        json!({"uri": uri(&a), "config": "spin"}),
    );
    let (_, err, code) = collect(&mut lsp, id);
    assert_eq!(code, 78, "{err}");
    let d = run_diagnostic(&mut lsp, &a, "ceiling.steps", "");
    let actions = lsp
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri(&a)}, "range": d["range"], "context": {"diagnostics": [d]}}),
        )
        .unwrap();
    let raise = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|x| {
            x["title"]
                == "Raise the ceiling: max-steps = 10000 in run configuration `spin` (Vox.toml)"
        })
        .unwrap_or_else(|| panic!("{actions:#}"));
    let edit = lsp.action_edit(raise);
    apply_workspace_edit(&edit, lsp.utf8);
    assert_eq!(
        std::fs::read_to_string(ws.path("Vox.toml")).unwrap(),
        "[run.spin]\nscript = \"spin.vox\"\ncaps = []\nmax-steps = 10000\n"
    );
    assert_eq!(lsp.shutdown(), Some(0));
}

/// How a run started from the editor ends.
#[derive(Clone, Copy, Debug)]
enum EditorEnd {
    /// `vox.stop`.
    Stop,
    /// The server killed with SIGKILL while the run is active.
    KillServer,
    /// The server's stdin closed while the run is active.
    CloseStdin,
}

const SAFE_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/// How long each survivor sleeps before writing its `late-` marker.
const DELAY: Duration = Duration::from_millis(2500);
const KINDS: [&str; 7] = [
    "setsid", "double", "nohup", "python", "noterm", "subshell", "pipe",
];

/// Processes whose working directory is `dir` or beneath it, except `but`.
fn processes_in(dir: &std::path::Path, but: u32) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == but || pid == std::process::id() {
            continue;
        }
        if std::fs::read_link(e.path().join("cwd")).is_ok_and(|c| c.starts_with(dir)) {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            out.push(format!(
                "{pid}: {}",
                String::from_utf8_lossy(&cmd).replace('\0', " ")
            ));
        }
    }
    out
}

/// Decision 55 from the editor: a jailed run whose children start the survivors of
/// `tests/lifetime` (six ways to escape, a background child, a grandchild holding the stdout
/// pipe) ends in `end`; then no process of the run is alive and nothing writes later.
fn editor_ending(end: EditorEnd) {
    let ws = TempDir::new(&format!("end-{end:?}").to_lowercase());
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lifetime");
    for f in ["survivors.sh", "daemon.py", "holder.sh"] {
        ws.write(
            &format!("tools/{f}"),
            &std::fs::read_to_string(src.join(f)).unwrap(),
        );
    }
    std::fs::create_dir_all(ws.path("out")).unwrap();
    let secs = DELAY.as_secs_f64();
    let text = format!(
        "fn main() {{\n    process.run_capture(\"bash\", [\"tools/survivors.sh\", \"{secs}\", \"out\"])\n    \
         process.spawn_background(\"sh\", [\"-c\", \"sleep {secs}; echo > out/late-background\"])\n    \
         process.run(\"bash\", [\"tools/holder.sh\", \"{secs}\", \"out\"])\n    \
         process.run(\"sleep\", [\"30\"])\n}}\n"
    );
    let a = ws.write("job.vox", &text);
    ws.write(
        "Vox.toml",
        "[run.job]\nscript = \"job.vox\"\ncaps = [\"process:allow\", \"fs:rw=out\", \"fs:ro=tools\"]\n",
    );
    let mut lsp = Lsp::start_env(&ws.0, "vscode", Value::Null, &[("PATH", SAFE_PATH)]);
    lsp.open(&a, &text);
    let start = Instant::now();
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&a)}));
    let out = ws.path("out");
    while !KINDS
        .iter()
        .all(|k| out.join(format!("started-{k}")).exists())
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{end:?}: the survivors never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let server = lsp.pid();
    match end {
        EditorEnd::Stop => {
            let r = lsp
                .request(
                    "workspace/executeCommand",
                    json!({"command": "vox.stop", "arguments": [{"runId": id}]}),
                )
                .unwrap();
            assert_eq!(r["stopped"], true);
            let (_, _, code) = collect(&mut lsp, id);
            assert_eq!(code, 130, "{end:?}");
        }
        EditorEnd::KillServer => lsp.kill_server(),
        EditorEnd::CloseStdin => {
            lsp.close_stdin();
        }
    }
    let until = start + DELAY - Duration::from_millis(200);
    let left = loop {
        let left = processes_in(&ws.0, server);
        if left.is_empty() || Instant::now() >= until {
            break left;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        left.is_empty(),
        "{end:?}: processes of the run outlived it: {left:#?}"
    );
    let watch = start + DELAY + Duration::from_millis(1000);
    if let Some(d) = watch.checked_duration_since(Instant::now()) {
        std::thread::sleep(d);
    }
    let late: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("late-"))
        .collect();
    assert!(
        late.is_empty(),
        "{end:?}: written after the run ended: {late:?}"
    );
    if let EditorEnd::Stop = end {
        assert_eq!(lsp.shutdown(), Some(0));
    }
}

/// Decision 55: `vox.stop`, the server killed with SIGKILL, its stdin closed: in each, nothing
/// the run started survives (the three cases run side by side: they mostly wait).
#[test]
fn no_process_outlives_an_editor_run() {
    let cases = [
        EditorEnd::Stop,
        EditorEnd::KillServer,
        EditorEnd::CloseStdin,
    ];
    let handles: Vec<_> = cases
        .into_iter()
        .map(|e| (e, std::thread::spawn(move || editor_ending(e))))
        .collect();
    let failed: Vec<EditorEnd> = handles
        .into_iter()
        .filter_map(|(e, h)| h.join().err().map(|_| e))
        .collect();
    assert!(failed.is_empty(), "failed: {failed:?}");
}

/// A descriptor the editor left open without close-on-exec reaches neither the run the server
/// starts nor the run's children (issue 35: only the standard streams pass on).
#[test]
fn runs_get_no_descriptor_the_editor_left_open() {
    const FD: i32 = 250;
    let ws = TempDir::new("fds");
    let leaked = ws.write("leaked.txt", "editor's file\n");
    let path = std::ffi::CString::new(leaked.to_string_lossy().as_bytes()).unwrap();
    // SAFETY: open and dup2 on a path we own; the descriptor is inherited by the server (and
    // by anything else this test process starts meanwhile, which is harmless) until closed.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_RDWR);
        assert!(fd >= 0);
        assert_eq!(libc::dup2(fd, FD), FD);
        libc::close(fd);
    }
    let text = "fn main() {\n    let own = fs.list_dir(\"/proc/self/fd\").unwrap()\n    print(\"run holds 250: \" + str(own.contains(\"250\")))\n    let r = process.run_capture(\"sh\", [\"-c\", \"[ -e /proc/self/fd/250 ] && echo child holds 250 || echo child closed\"])\n    print(r.unwrap().stdout.trim())\n}\n";
    let a = ws.write("a.vox", text);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    // SAFETY: the server has started: the test's copy goes.
    unsafe {
        libc::close(FD);
    }
    let held = std::fs::read_link(format!("/proc/{}/fd/{FD}", lsp.pid())).is_ok();
    lsp.open(&a, text);
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&a)}));
    let (out, err, code) = collect(&mut lsp, id);
    assert!(
        held,
        "the server did not inherit the descriptor: the test proves nothing"
    );
    assert_eq!(
        (out.as_str(), code),
        ("run holds 250: false\nchild closed\n", 0),
        "{err}"
    );
    assert_eq!(lsp.shutdown(), Some(0));
}

/// Decision 54, issue 36 item 15: a `config` argument of the wrong type is refused with a clear
/// error (it ran with the inferred capabilities before), for `vox.run` and `vox.prove`.
#[test]
fn a_config_of_the_wrong_type_is_refused() {
    let ws = TempDir::new("badconfig");
    let text = "fn main() {\n    print(1)\n}\n";
    let a = ws.write("a.vox", text);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&a, text);
    for (command, config) in [
        ("vox.run", json!(5)),
        ("vox.run", json!(["build"])),
        ("vox.prove", json!({"name": "build"})),
    ] {
        let e = lsp
            .request(
                "workspace/executeCommand",
                json!({"command": command, "arguments": [{"uri": uri(&a), "config": config}]}),
            )
            .unwrap_err();
        assert_eq!(e["code"], -32602, "{command} {config}: {e}");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("\"config\" must be the name"),
            "{e}"
        );
    }
    assert_eq!(lsp.shutdown(), Some(0));
}

/// Issue 36 item 16: `vox.run` on a script that is neither open nor in the workspace reads it
/// from disk and runs it as `vox run` would (from its directory); a missing file says "not found",
/// not "the script has syntax errors".
#[test]
fn an_unopened_script_outside_the_workspace_runs_from_disk() {
    let ws = TempDir::new("outside-ws");
    let elsewhere = TempDir::new("outside-script");
    let script = elsewhere.write("job.vox", "fn main() {\n    print(\"from disk\")\n}\n");
    let mut lsp = Lsp::start(&ws.0, "vscode");
    let id = run(&mut lsp, "vox.run", json!({"uri": uri(&script)}));
    let (out, err, code) = collect(&mut lsp, id);
    assert_eq!((out.as_str(), code), ("from disk\n", 0), "{err}");
    let missing = elsewhere.0.join("missing.vox");
    let e = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "vox.run", "arguments": [{"uri": uri(&missing)}]}),
        )
        .unwrap_err();
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("not found"), "{e}");
    assert!(!message.contains("syntax errors"), "{e}");
    assert_eq!(lsp.shutdown(), Some(0));
}
