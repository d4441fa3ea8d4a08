//! Output checks (analysis issue, acceptance 4): SARIF validates against the vendored SARIF 2.1.0
//! schema and carries what code scanning reads; JSON validates against docs/schemas; every format
//! is byte-identical across two runs and between one thread and all threads.

mod common;

use std::path::{Path, PathBuf};

use common::vox_in;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn schema(rel: &str) -> jsonschema::Validator {
    // The SARIF schema (draft-04) has one `pattern` with an unescaped `]`, a literal in ECMA-262
    // but rejected by the validator's regex check: escape it (same meaning) before building.
    let text = std::fs::read_to_string(root().join(rel))
        .unwrap()
        .replace("[a-zA-Z]{2}]?$", "[a-zA-Z]{2}\\\\]?$");
    let v: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&v).unwrap()
}

fn lint(dir: &Path, extra: &[&str]) -> String {
    let mut args = vec!["lint", "--strict"];
    args.extend_from_slice(extra);
    args.push(".");
    let (code, out, err) = vox_in(dir, &args);
    assert!(code == 0 || code == 1, "vox lint exited {code}: {err}");
    out
}

fn corpus(rule: &str) -> PathBuf {
    root().join("tests/lint").join(rule)
}

#[test]
fn sarif_is_valid_and_has_what_code_scanning_reads() {
    let validator = schema("tests/schemas/sarif-2.1.0-rtm.5.json");
    for rule in ["D001", "D003", "D005", "C001"] {
        let out = lint(&corpus(rule), &["--format", "sarif"]);
        let doc: Value = serde_json::from_str(&out).unwrap();
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{rule}: SARIF invalid: {errors:#?}");
        let run = &doc["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        assert!(!rules.is_empty());
        for r in rules {
            assert!(r["helpUri"].as_str().unwrap().ends_with(".md"), "{r}");
            assert!(!r["help"]["markdown"].as_str().unwrap().is_empty());
        }
        let results = run["results"].as_array().unwrap();
        assert!(!results.is_empty(), "{rule}: no results");
        for res in results {
            let loc = &res["locations"][0]["physicalLocation"]["artifactLocation"];
            assert_eq!(loc["uriBaseId"], "%SRCROOT%");
            assert!(!loc["uri"].as_str().unwrap().starts_with('/'));
            assert!(res["partialFingerprints"]["voxFinding/v1"].is_string());
        }
        assert_eq!(run["columnKind"], "unicodeCodePoints");
    }
    // Chains become codeFlows (D003's clock read three calls deep), fixes become SARIF fixes.
    let d003: Value = serde_json::from_str(&lint(&corpus("D003"), &["--format", "sarif"])).unwrap();
    let flows = d003["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["codeFlows"][0]["threadFlows"][0]["locations"].as_array())
        .max_by_key(|l| l.len())
        .unwrap()
        .clone();
    assert!(
        flows.len() >= 4,
        "a chain main → … → stamp has at least four steps: {flows:#?}"
    );
    let d001: Value = serde_json::from_str(&lint(&corpus("D001"), &["--format", "sarif"])).unwrap();
    let fixed = d001["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["fixes"].is_array())
        .unwrap();
    let repl = &fixed["fixes"][0]["artifactChanges"][0]["replacements"][0];
    assert!(repl["insertedContent"]["text"]
        .as_str()
        .unwrap()
        .starts_with("math."));
}

#[test]
fn json_validates_against_its_schema() {
    let validator = schema("docs/schemas/lint.schema.json");
    let mut total = 0;
    for rule in [
        "D001", "D002", "D003", "D004", "D005", "D007", "I001", "C001", "C003",
    ] {
        let out = lint(&corpus(rule), &["--format", "json"]);
        let doc: Value = serde_json::from_str(&out).unwrap();
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{rule}: {errors:#?}");
        total += doc.as_array().unwrap().len();
    }
    assert!(total > 100, "only {total} findings validated");
    let caps = schema("docs/schemas/caps.schema.json");
    let (code, out, err) = vox_in(
        &corpus("C001"),
        &["caps", "--format", "json", "flag_06_import_missing.vox"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let errors: Vec<String> = caps.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(doc["tokens"][1]["needed_by"][0], "fs.import");
}

#[test]
fn every_format_is_identical_across_runs_and_thread_counts() {
    let dir = root().join("tests/lint");
    for format in ["human", "json", "sarif", "github", "compact"] {
        let a = lint(&dir, &["--format", format]);
        let b = lint(&dir, &["--format", format]);
        let one = lint(&dir, &["--format", format, "--threads", "1"]);
        let many = lint(&dir, &["--format", format, "--threads", "8"]);
        assert!(!a.is_empty(), "{format}: empty output");
        assert_eq!(a, b, "{format}: two runs differ");
        assert_eq!(a, one, "{format}: one thread differs");
        assert_eq!(a, many, "{format}: eight threads differ");
    }
}

/// Files are written as their turn comes (issue 20): a run configuration's script, which sorts
/// last, reports C001 on a call in a library that sorts first, and on its Vox.toml entry, which
/// sorts before another script (rendered by its worker, it waits for Vox.toml's finding). Each
/// must land in its file's place, in order, in every format and thread count.
#[test]
fn findings_in_other_files_keep_their_place() {
    let dir = common::scratch().join("order-other-files");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(
        dir.join("lib/a_lib.vox"),
        "pub fn stamp() to str {\n    str(time.now_ms())\n}\n\npub fn load() to str {\n    fs.read(\"notes.txt\").unwrap_or(\"\")\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("m_mid.vox"),
        "fn main() {\n    print(time.now_ms())\n}\n",
    )
    .unwrap();
    // Sorts after Vox.toml and before the library: written once Vox.toml's finding is.
    std::fs::write(
        dir.join("W_mid.vox"),
        "fn main() {\n    print(time.now_ms())\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("z_job.vox"),
        "import \"./lib/a_lib.vox\"\n\nfn main() {\n    print(stamp(), load())\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("Vox.toml"),
        "[run.job]\nscript = \"z_job.vox\"\ncaps = [\"time:real\"]\n",
    )
    .unwrap();
    let compact = lint(&dir, &["--format", "compact", "--threads", "1"]);
    let keys: Vec<(String, u32, u32)> = compact
        .lines()
        .map(|l| {
            let mut it = l.splitn(4, ':');
            let file = it.next().unwrap().to_string();
            let line = it.next().unwrap().parse().unwrap();
            let col = it.next().unwrap().parse().unwrap();
            (file, line, col)
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "findings out of order:\n{compact}");
    for (file, code) in [
        ("lib/a_lib.vox", "C001"),
        ("Vox.toml", "C001"),
        ("m_mid.vox", "D003"),
        ("W_mid.vox", "D003"),
    ] {
        assert!(
            compact
                .lines()
                .any(|l| l.starts_with(&format!("{file}:")) && l.contains(code)),
            "no {code} in {file}:\n{compact}"
        );
    }
    for format in ["human", "json", "sarif", "github", "compact"] {
        let one = lint(&dir, &["--format", format, "--threads", "1"]);
        let many = lint(&dir, &["--format", format, "--threads", "4"]);
        assert_eq!(one, many, "{format}: thread counts differ");
    }
}

/// An import cycle is reported at the failing import, in another file than the one linted (here
/// `main.vox` reports it in `b.vox`, which sorts before it): written once, in its place.
#[test]
fn import_errors_in_other_files_keep_their_place() {
    let dir = common::scratch().join("order-import-errors");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("a.vox"),
        "import \"./b.vox\"\npub fn fa() to int {\n    fb() + 1\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.vox"),
        "import \"./a.vox\"\npub fn fb() to int {\n    time.now_ms()\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("main.vox"),
        "import \"./a.vox\"\nfn main() {\n    print(fa())\n}\n",
    )
    .unwrap();
    let want = "a.vox:1:1: check.import-cycle import cycle: b.vox -> a.vox -> b.vox\n\
                b.vox:1:1: check.import-cycle import cycle: a.vox -> b.vox -> a.vox\n\
                b.vox:3:5: D003 `time.now_ms()` reads the clock: its value differs on every run\n";
    for threads in ["1", "4"] {
        let out = lint(
            &dir,
            &["--determinism", "--format", "compact", "--threads", threads],
        );
        assert_eq!(out, want, "--threads {threads}");
    }
}

/// The compact and GitHub formats lint without building fixes (they show none): they must list
/// exactly the findings the JSON output lists, which carries the fixes.
#[test]
fn formats_without_fixes_list_the_same_findings() {
    for rule in ["D001", "D002", "D004", "D005", "D007"] {
        let dir = corpus(rule);
        let json: Value = serde_json::from_str(&lint(&dir, &["--format", "json"])).unwrap();
        let findings = json.as_array().unwrap();
        assert!(
            findings
                .iter()
                .any(|f| !f["fixes"].as_array().unwrap().is_empty()),
            "{rule}: no finding with a fix in the JSON output"
        );
        let from_json: Vec<String> = findings
            .iter()
            .map(|f| {
                format!(
                    "{}:{}:{}: {} {}",
                    f["file"].as_str().unwrap(),
                    f["range"]["start"]["line"],
                    f["range"]["start"]["column"],
                    f["code"].as_str().unwrap(),
                    f["message"].as_str().unwrap()
                )
            })
            .collect();
        let compact: Vec<String> = lint(&dir, &["--format", "compact"])
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(compact, from_json, "{rule}: compact and JSON differ");
        let github = lint(&dir, &["--format", "github"]);
        assert_eq!(
            github.lines().filter(|l| l.starts_with("::")).count(),
            from_json.len(),
            "{rule}: GitHub output lists another number of findings:\n{github}"
        );
    }
}

/// A file's text is let go once its facts are made and read again once for its rules and
/// output (issue 20: a workspace's texts are never all held). `VOX_LINT_TIMING` counts the
/// reads: none between the facts and the rules; one per file for the rules (which render the
/// file's output or index its lines meanwhile); SARIF's fingerprints, written after, read each
/// file once more, not once per finding. The output is the same whatever the thread count
/// (the test above), and equal to the texts-kept output (the corpus tests).
#[test]
fn texts_are_let_go_and_read_again_once_per_file() {
    let dir = common::scratch().join("texts-read-again");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let files = 6;
    for i in 0..files {
        let calls: String = (0..20)
            .map(|k| format!("    print(x.sin() + {k}.0)\n"))
            .collect();
        std::fs::write(
            dir.join(format!("s{i}.vox")),
            format!("fn main() {{\n    let x = 0.5\n{calls}}}\n"),
        )
        .unwrap();
    }
    for format in ["human", "json", "sarif", "github", "compact"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vox"))
            .args(["lint", "--format", format, "."])
            .current_dir(&dir)
            .env("VOX_LINT_TIMING", "1")
            .output()
            .unwrap();
        let (stdout, err) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            stdout.matches("D001").count() >= files * 20,
            "{format}: {stdout}"
        );
        let read_again = |phase: &str| -> usize {
            let line = err
                .lines()
                .find(|l| l.starts_with(&format!("vox lint timing: {phase} ")))
                .unwrap_or_else(|| panic!("{format}: no {phase} line in {err}"));
            let n = line.rsplit("texts read again ").next().unwrap();
            n.trim_end_matches(')').parse().unwrap()
        };
        assert_eq!(read_again("summaries"), 0, "{format}: {err}");
        let per_file = if format == "sarif" { 2 } else { 1 };
        assert_eq!(
            read_again("lint and write"),
            per_file * files,
            "{format}: {err}"
        );
    }
}
