//! "Prove it" (issue 21, acceptance 6): on a D002/D003/D006/D007 finding a code action and a code
//! lens call `vox.prove`, which runs the script twice with `--perturb 1` and `--perturb 2` under
//! the caps `vox.run` would use, and reports the first differing output line side by side (the
//! command's result, `window/showMessage` and `window/logMessage`), or that the perturbation did
//! not reach the finding.

mod lsp_common;

use std::process::Command;

use lsp_common::{uri, Lsp, TempDir};
use serde_json::{json, Value};

/// Ties go to whichever tied language comes first in map order: the seeds pick different winners.
const VOTES: &str = "fn main() {\n    let votes = {rust: 5, go: 7, zig: 7, nim: 7, odin: 7, gleam: 7, roc: 7, hare: 7}\n    let mut best = 0\n    let mut best_name = \"\"\n    for lang, n in votes {\n        if n > best {\n            best = n\n            best_name = lang\n        }\n    }\n    print(\"languages:\", votes.len())\n    print(\"winner:\", best_name)\n}\n";

fn prove(lsp: &mut Lsp, args: Value) -> Value {
    lsp.request(
        "workspace/executeCommand",
        json!({"command": "vox.prove", "arguments": [args]}),
    )
    .unwrap_or_else(|e| panic!("vox.prove failed: {e}"))
}

/// `vox run --perturb SEED ARGS FILE` from the CLI, stdout and stderr together (the script
/// prints only to stdout in these tests).
fn cli_run(dir: &std::path::Path, seed: u64, args: &[&str], file: &str) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_vox"))
        .current_dir(dir)
        .arg("run")
        .args(["--perturb", &seed.to_string()])
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (text, out.status.code().unwrap_or(-1))
}

fn lenses(lsp: &mut Lsp, path: &std::path::Path) -> Vec<Value> {
    lsp.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri(path)}}),
    )
    .unwrap()
    .as_array()
    .unwrap()
    .iter()
    .filter(|l| l["command"]["command"] == "vox.prove")
    .cloned()
    .collect()
}

fn actions_at(
    lsp: &mut Lsp,
    path: &std::path::Path,
    line: u32,
    only: Option<&[&str]>,
) -> Vec<Value> {
    actions_at_col(lsp, path, line, 4, only)
}

fn actions_at_col(
    lsp: &mut Lsp,
    path: &std::path::Path,
    line: u32,
    character: u32,
    only: Option<&[&str]>,
) -> Vec<Value> {
    let mut context = json!({"diagnostics": []});
    if let Some(o) = only {
        context["only"] = json!(o);
    }
    let r = lsp
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri(path)},
                "range": {"start": {"line": line, "character": character}, "end": {"line": line, "character": character}},
                "context": context,
            }),
        )
        .unwrap();
    r.as_array().cloned().unwrap_or_default()
}

fn prove_actions(actions: &[Value]) -> Vec<&Value> {
    actions
        .iter()
        .filter(|a| a["command"]["command"] == "vox.prove")
        .collect()
}

#[test]
fn prove_shows_the_first_differing_line_of_a_map_order_finding() {
    let ws = TempDir::new("prove-votes");
    let a = ws.write("votes.vox", VOTES);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&a, VOTES);
    let diags = lsp.diagnostics(&a);
    let d002 = diags
        .iter()
        .find(|d| d["code"] == "D002")
        .unwrap_or_else(|| panic!("no D002: {diags:#?}"));
    assert_eq!(d002["range"]["start"]["line"], 4);

    // The lens sits on the finding's line and carries the script, the rule and the line.
    let ls = lenses(&mut lsp, &a);
    assert_eq!(ls.len(), 1, "{ls:#?}");
    assert_eq!(
        ls[0]["command"]["title"],
        "Prove: run twice with different perturbation"
    );
    assert_eq!(ls[0]["range"]["start"]["line"], 4);
    let args = ls[0]["command"]["arguments"][0].clone();
    assert_eq!(args, json!({"uri": uri(&a), "rule": "D002", "line": 5}));

    // The code action: at the finding, of kind source.prove.vox (found under `source` too, not
    // under `quickfix`), nowhere else.
    let all = actions_at(&mut lsp, &a, 4, None);
    let p = prove_actions(&all);
    assert_eq!(p.len(), 1, "{all:#?}");
    assert_eq!(p[0]["kind"], "source.prove.vox");
    assert_eq!(
        p[0]["title"],
        "Prove: run twice with different perturbation"
    );
    assert_eq!(p[0]["diagnostics"][0]["code"], "D002");
    assert_eq!(p[0]["command"]["arguments"][0], args);
    assert!(p[0].get("edit").is_none_or(Value::is_null));
    for only in [
        &["source"][..],
        &["source.prove"][..],
        &["source.prove.vox"][..],
    ] {
        assert_eq!(
            prove_actions(&actions_at(&mut lsp, &a, 4, Some(only))).len(),
            1,
            "{only:?}"
        );
    }
    for only in [&["quickfix"][..], &["refactor"][..], &["source.fixAll"][..]] {
        assert!(
            prove_actions(&actions_at(&mut lsp, &a, 4, Some(only))).is_empty(),
            "{only:?}"
        );
    }
    assert!(prove_actions(&actions_at(&mut lsp, &a, 1, None)).is_empty());
    // Anywhere on the finding's lines: the start of its line, a line inside the loop.
    assert_eq!(
        prove_actions(&actions_at_col(&mut lsp, &a, 4, 0, None)).len(),
        1
    );
    assert_eq!(
        prove_actions(&actions_at_col(&mut lsp, &a, 7, 0, None)).len(),
        1
    );
    assert!(prove_actions(&actions_at_col(&mut lsp, &a, 10, 0, None)).is_empty());

    // The command: what `vox run --perturb N --caps none` prints (no run configuration: the
    // inferred caps, none here), the first differing line side by side.
    let r = prove(&mut lsp, args);
    let (one, c1) = cli_run(&ws.0, 1, &["--caps", "none"], "votes.vox");
    let (two, c2) = cli_run(&ws.0, 2, &["--caps", "none"], "votes.vox");
    assert_eq!((c1, c2), (0, 0));
    assert_ne!(one, two, "the seeds must pick different winners");
    assert_eq!(r["run1"]["output"], one);
    assert_eq!(r["run2"]["output"], two);
    assert_eq!(r["run1"]["exit"], 0);
    assert_eq!(r["run2"]["exit"], 0);
    assert_eq!(r["differs"], true);
    let (l1, l2): (Vec<&str>, Vec<&str>) = (one.lines().collect(), two.lines().collect());
    let i = (0..l1.len()).find(|&i| l1[i] != l2[i]).unwrap();
    assert_eq!(i, 1, "languages: 8 is the same in both runs");
    assert_eq!(r["line"], 2);
    assert_eq!(r["first"], l1[1]);
    assert_eq!(r["second"], l2[1]);
    assert!(r["first"].as_str().unwrap().starts_with("winner: "));
    assert_eq!(r["caps"], json!([]));
    assert_eq!(r["config"], Value::Null);
    assert_eq!(r["rule"], "D002");
    assert_eq!(
        r["run1"]["command"],
        format!("vox run --perturb 1 --caps none {}", a.display())
    );

    // Any client sees it: a warning with both lines, and both outputs in the log.
    let shown = lsp.wait_for("window/showMessage", |m| {
        m["method"] == "window/showMessage"
    });
    let text = shown["params"]["message"].as_str().unwrap();
    assert_eq!(shown["params"]["type"], 2, "a warning: {text}");
    assert!(text.contains("differ at output line 2"), "{text}");
    assert!(
        text.contains(&format!("line 2, run 1 (--perturb 1): {:?}", l1[1])),
        "{text}"
    );
    assert!(
        text.contains(&format!("line 2, run 2 (--perturb 2): {:?}", l2[1])),
        "{text}"
    );
    assert!(text.contains("the D002 finding at line 5"), "{text}");
    let logged = lsp.wait_for("window/logMessage", |m| {
        m["method"] == "window/logMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.starts_with("vox prove votes.vox"))
    });
    let log = logged["params"]["message"].as_str().unwrap();
    for want in [
        "--- run 1 `vox run --perturb 1 --caps none",
        "--- run 2 `vox run --perturb 2 --caps none",
        l1[1],
        l2[1],
        "Both runs used the inferred capabilities (caps: none)",
    ] {
        assert!(log.contains(want), "{want:?} missing from the log:\n{log}");
    }
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn prove_says_when_the_perturbation_did_not_reach_the_finding() {
    // The clock is read only in a branch the run does not take.
    let text = "fn stamp() to int {\n    return time.now_ms()\n}\n\nfn main() {\n    let sizes = [1, 2]\n    print(\"start\")\n    if sizes.len() > 3 {\n        print(\"at\", stamp())\n    }\n    print(\"done\")\n}\n";
    let ws = TempDir::new("prove-steady");
    let a = ws.write("steady.vox", text);
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open(&a, text);
    let ls = lenses(&mut lsp, &a);
    assert_eq!(ls.len(), 1, "{ls:#?}");
    assert_eq!(ls[0]["range"]["start"]["line"], 1);
    let r = prove(&mut lsp, ls[0]["command"]["arguments"][0].clone());
    assert_eq!(r["differs"], false, "{r:#}");
    assert_eq!(r["line"], Value::Null);
    assert_eq!(r["run1"]["output"], "start\ndone\n");
    assert_eq!(r["run2"]["output"], "start\ndone\n");
    assert_eq!(r["caps"], json!(["time:real"]));
    let msg = r["message"].as_str().unwrap();
    assert!(
        msg.contains("the perturbation did not reach the D003 finding at line 2"),
        "{msg}"
    );
    let shown = lsp.wait_for("window/showMessage", |m| {
        m["method"] == "window/showMessage"
    });
    assert_eq!(shown["params"]["message"], msg);
    assert_eq!(shown["params"]["type"], 3, "information");
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn prove_uses_no_capability_the_run_configuration_does_not_grant() {
    // The script reads a file; its run configuration grants nothing. The inferred caps would
    // grant fs:ro=data (and the runs would then print the two map orders): prove must not.
    let text = "fn main() {\n    print(\"reading\")\n    let totals = {b: 2, a: 1, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8}\n    let t = fs.read(\"data/input.txt\")\n    print(totals.keys().join(\",\"), t)\n}\n";
    let ws = TempDir::new("prove-caps");
    ws.write("data/input.txt", "x\n");
    let a = ws.write("reader.vox", text);
    ws.write(
        "Vox.toml",
        "[run.reader]\nscript = \"reader.vox\"\ncaps = []  # nothing\n",
    );
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&a, text);
    let caps = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "vox.showCaps", "arguments": [{"uri": uri(&a)}]}),
        )
        .unwrap();
    assert_eq!(caps["tokens"], json!(["fs:ro=data"]));
    let ls = lenses(&mut lsp, &a);
    assert_eq!(ls.len(), 1, "{ls:#?}");
    assert_eq!(ls[0]["command"]["arguments"][0]["rule"], "D002");
    let r = prove(&mut lsp, ls[0]["command"]["arguments"][0].clone());
    for run in ["run1", "run2"] {
        assert_eq!(r[run]["exit"], 77, "{r:#}");
        let out = r[run]["output"].as_str().unwrap();
        assert!(out.starts_with("reading\n"), "{out}");
        assert!(out.contains("capability denied: fs.read"), "{out}");
        assert!(
            r[run]["command"]
                .as_str()
                .unwrap()
                .contains("--config reader"),
            "{r:#}"
        );
    }
    assert_eq!(r["config"], "reader");
    assert_eq!(r["caps"], json!([]));
    assert_eq!(r["differs"], false);
    let msg = r["message"].as_str().unwrap();
    assert!(
        msg.contains("the perturbation did not reach the D002 finding"),
        "{msg}"
    );
    assert!(
        msg.contains(
            "Both runs were denied a capability (run configuration `reader` grants: none)"
        ),
        "{msg}"
    );
    // A configuration that does not exist is refused, as vox.run refuses it.
    let e = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "vox.prove", "arguments": [{"uri": uri(&a), "config": "nope"}]}),
        )
        .unwrap_err();
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("no run configuration named `nope`"),
        "{e}"
    );
    // A rule --perturb does not vary is refused with a message.
    let e = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "vox.prove", "arguments": [{"uri": uri(&a), "rule": "D004"}]}),
        )
        .unwrap_err();
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("D002, D003, D006, D007"),
        "{e}"
    );
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn every_perturbed_rule_gets_a_lens_and_others_do_not() {
    let text = "fn main() {\n    print(time.now_ms())\n    print(random.int(0, 9))\n    for name in fs.list_dir(\".\").unwrap() {\n        print(name)\n    }\n    let m = {a: 1, b: 2}\n    print(m.keys())\n    let x = 1\n}\n";
    let ws = TempDir::new("prove-rules");
    let a = ws.write("all.vox", text);
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open(&a, text);
    let codes: Vec<String> = lsp
        .diagnostics(&a)
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect();
    let ls = lenses(&mut lsp, &a);
    let got: Vec<(u64, String)> = ls
        .iter()
        .map(|l| {
            (
                l["range"]["start"]["line"].as_u64().unwrap(),
                l["command"]["arguments"][0]["rule"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, "D003".to_string()),
            (2, "D006".to_string()),
            (3, "D007".to_string()),
            (7, "D002".to_string())
        ],
        "diagnostics: {codes:?}"
    );
    assert_eq!(lsp.shutdown(), Some(0));
}

#[test]
fn prove_refuses_what_run_refuses() {
    // vox.prove plans its runs with vox.run's plan: whatever vox.run refuses (a configuration that
    // does not exist, a Vox.toml that does not parse, syntax errors), vox.prove refuses with the
    // same message, and never runs with more.
    let ws = TempDir::new("prove-refuse");
    let a = ws.write("votes.vox", VOTES);
    ws.write(
        "Vox.toml",
        "[run.votes\nscript = \"votes.vox\"\ncaps = []\n",
    );
    let broken =
        "fn main() {\n    let m = {a: 1, b: 2}\n    for k in m { print(k) }\n    let = \n}\n";
    let b = ws.write("broken.vox", broken);
    let mut lsp = Lsp::start(&ws.0, "vscode");
    lsp.open(&a, VOTES);
    lsp.open(&b, broken);
    for (path, config) in [(&a, None), (&a, Some("nope")), (&b, None)] {
        let mut args = json!({"uri": uri(path)});
        if let Some(c) = config {
            args["config"] = json!(c);
        }
        let run = lsp.request(
            "workspace/executeCommand",
            json!({"command": "vox.run", "arguments": [args.clone()]}),
        );
        let proved = lsp.request(
            "workspace/executeCommand",
            json!({"command": "vox.prove", "arguments": [args.clone()]}),
        );
        match (&run, &proved) {
            (Err(r), Err(p)) => assert_eq!(r["message"], p["message"], "{args}"),
            (Ok(_), Ok(p)) => {
                // Both ran: with the same configuration's caps (none here, whichever plan).
                assert_eq!(p["caps"], json!([]), "{args}: {p:#}");
            }
            _ => panic!("vox.run {run:?} but vox.prove {proved:?} for {args}"),
        }
    }
    assert_eq!(lsp.shutdown(), Some(0));
}
