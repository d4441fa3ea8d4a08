//! `vox run --error-format json` prints one JSON object per terminal event; every object must
//! validate against docs/schemas/error-event.schema.json (decisions.md 19 and 37).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::validate;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vox-errfmt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn schema() -> Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schemas/error-event.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn events(dir: &Path, src: &str, flags: &[&str]) -> (i32, Vec<Value>) {
    std::fs::write(dir.join("s.vox"), src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vox"))
        .arg("run")
        .arg("--error-format")
        .arg("json")
        .args(flags)
        .arg("s.vox")
        .current_dir(dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<Value> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("stderr line is not JSON ({e}): {l}"))
        })
        .collect();
    (out.status.code().unwrap_or(-1), lines)
}

#[test]
fn every_terminal_event_validates_against_the_schema() {
    let schema = schema();
    let d = scratch("all");
    let cases: &[(&str, &[&str], &str, i32)] = &[
        ("let x = 1\nprint(x + true)\n", &[], "runtime.error", 1),
        ("panic(\"boom\")\n", &[], "panic", 1),
        (
            "print(env.get(\"HOME\"))\n",
            &["--caps", "none"],
            "caps.denied",
            77,
        ),
        ("loop { }\n", &["--max-steps", "500"], "ceiling.steps", 78),
        (
            "fn f(n) { f(n + 1) }\nf(0)\n",
            &["--max-depth", "20"],
            "ceiling.depth",
            78,
        ),
        (
            "loop { print(\"xxxxxxxx\") }\n",
            &["--max-output", "100"],
            "ceiling.output",
            78,
        ),
        ("let x = 1 $ 2\n", &[], "syntax.error", 1),
    ];
    for (src, flags, kind, code) in cases {
        let (got_code, lines) = events(&d, src, flags);
        assert_eq!(got_code, *code, "exit code for {src:?}");
        assert_eq!(lines.len(), 1, "one event line for {src:?}: {lines:?}");
        let ev = &lines[0];
        validate(&schema, ev).unwrap_or_else(|e| panic!("{src:?}: {e}"));
        assert_eq!(ev["kind"], *kind, "{src:?}: {ev}");
        assert!(
            ev["message"].as_str().unwrap().starts_with("vox: ") || *kind == "syntax.error",
            "{ev}"
        );
    }
}

#[test]
fn denial_events_name_namespace_method_and_token() {
    let d = scratch("denied");
    let (code, lines) = events(
        &d,
        "let a = 1\nlet h = env.get(\"HOME\")\n",
        &["--caps", "none"],
    );
    assert_eq!(code, 77);
    let ev = &lines[0];
    assert_eq!(ev["ns"], "env");
    assert_eq!(ev["method"], "get");
    assert_eq!(ev["token"], "env:ro");
    assert_eq!(ev["line"], 2);
    assert_eq!(ev["column"], 9);
    assert_eq!(ev["file"], "s.vox");
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    let schema = schema();
    let bad_kind = serde_json::json!({"kind": "nope", "message": "m", "file": null, "line": null, "column": null});
    assert!(validate(&schema, &bad_kind).is_err());
    let extra = serde_json::json!({"kind": "panic", "message": "m", "file": null, "line": null, "column": null, "x": 1});
    assert!(validate(&schema, &extra).is_err());
    let missing = serde_json::json!({"kind": "panic", "message": "m"});
    assert!(validate(&schema, &missing).is_err());
}
