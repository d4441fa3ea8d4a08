//! The analysis knows the deny-inside-a-grant policy (issue 39 item 5): `vox caps` never infers
//! a deny, C001 reports a run configuration whose deny refuses what the script needs, naming the
//! deny, with the fix that removes it (no added grant could help), and C002 never calls a deny
//! unused.

use std::path::{Path, PathBuf};

mod common;
use common::vox_in as vox;

fn project(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vox-deny-lint-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join(".git/hooks")).unwrap();
    std::fs::write(d.join(".env"), "K=1\n").unwrap();
    std::fs::write(
        d.join("b.vox"),
        "print(fs.read(\".env\").unwrap_or(\"\"))\nfs.write(\".git/hooks/pre-commit\", \"x\").unwrap()\nfs.write(\"out.txt\", \"y\").unwrap()\n",
    )
    .unwrap();
    std::fs::write(
        d.join("Vox.toml"),
        "[run.b]\nscript = \"b.vox\"\ncaps = [\"fs:rw=.\", \"fs:none=.env\", \"fs:ro=.git\"]\n",
    )
    .unwrap();
    d
}

#[test]
fn c001_names_the_deny_and_its_fix_removes_it() {
    let d = project("c001");
    let (code, out, err) = vox(&d, &["lint", "--format", "json", "b.vox"]);
    assert_eq!(code, 1, "{out}{err}");
    let found: serde_json::Value = serde_json::from_str(&out).unwrap();
    let c001: Vec<&serde_json::Value> = found
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "C001" && f["file"] == "b.vox")
        .collect();
    let messages: Vec<&str> = c001
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "run configuration `b` refuses what `fs.read` needs with `fs:none=.env`: that run would exit 77",
            "run configuration `b` refuses what `fs.write` needs with `fs:ro=.git`: that run would exit 77",
        ],
        "{out}"
    );
    assert_eq!(
        c001[0]["fixes"][0]["title"],
        "Remove `fs:none=.env` from run configuration `b`"
    );
    // C002 does not call the narrowing `fs:ro=.git` unused.
    assert!(
        !found
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "C002"),
        "{out}"
    );
    // The fix applied, the read is granted and only the .git write is refused.
    let (_, _, _) = vox(
        &d,
        &[
            "lint",
            "--fix",
            "--unsafe-fixes",
            "--select",
            "C001",
            "b.vox",
        ],
    );
    let toml = std::fs::read_to_string(d.join("Vox.toml")).unwrap();
    assert!(!toml.contains("fs:none=.env"), "{toml}");
    // `vox caps` infers no deny: it prints what the script needs.
    let (_, caps, _) = vox(&d, &["caps", "b.vox"]);
    assert!(!caps.contains("none") && !caps.contains("exec:"), "{caps}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn caps_check_says_which_rule_decided() {
    let d = project("check");
    let (code, out, err) = vox(&d, &["caps", "--check"]);
    assert_eq!(code, 1, "{out}{err}");
    let text = format!("{out}{err}");
    assert!(text.contains("with `fs:none=.env`"), "{text}");
    assert!(text.contains("with `fs:ro=.git`"), "{text}");
    assert!(!text.contains("C002"), "{text}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `--caps-audit` names the rule that decided each filesystem check: the root, or the deny
/// inside it.
#[test]
fn the_audit_names_the_rule_that_decided() {
    let d = project("audit");
    let audit = d.join("audit.jsonl");
    let (code, _, err) = vox(
        &d,
        &[
            "run",
            "--caps",
            "fs:rw=.",
            "--caps",
            "fs:none=.env",
            "--caps",
            "fs:ro=.git",
            "--caps-audit",
            audit.to_str().unwrap(),
            "b.vox",
        ],
    );
    assert_eq!(code, 77, "{err}");
    let root = d.canonicalize().unwrap();
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let read = lines.iter().find(|l| l["method"] == "read").unwrap();
    assert_eq!(read["allowed"], false);
    assert_eq!(
        read["rule"],
        format!("fs:none={}", root.join(".env").display()).as_str()
    );
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schemas/caps-audit.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(schema["properties"]["rule"].is_object());
    let _ = std::fs::remove_dir_all(&d);
}
