//! `vox lint` and `vox caps` as a user drives them: fixes (`--fix`, `--unsafe-fixes`, `--diff`),
//! suppressions (L001, L002), `[lint]` configuration, `config.invalid`, exit codes, and the
//! `vox caps` formats and `--check`.

mod common;

use std::path::Path;

use common::{scratch, vox_in};

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(p, text).unwrap();
}

const HOST_MATH: &str = "fn main() {\n    let x = 0.5\n    print(x.sin())\n}\n";

#[test]
fn fix_applies_safe_fixes_and_diff_only_prints_them() {
    let d = scratch();
    write(&d, "a.vox", HOST_MATH);
    let (code, out, _) = vox_in(&d, &["lint", "--diff", "a.vox"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("-    print(x.sin())\n+    print(math.sin(x))\n"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("a.vox")).unwrap(),
        HOST_MATH,
        "--diff changed the file"
    );
    let (code, _, err) = vox_in(&d, &["lint", "--fix", "a.vox"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("applied 1 fix"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("a.vox")).unwrap(),
        "fn main() {\n    let x = 0.5\n    print(math.sin(x))\n}\n"
    );
    let (code, out, _) = vox_in(&d, &["lint", "--determinism", "a.vox"]);
    assert_eq!(code, 0, "still flagged after the fix: {out}");
}

#[test]
fn unsafe_fixes_only_with_the_flag() {
    let d = scratch();
    let src = "pub fn area(a: int, b: int) to int {\n    a * b\n}\n";
    write(&d, "b.vox", src);
    let _ = vox_in(&d, &["lint", "--fix", "b.vox"]);
    assert_eq!(std::fs::read_to_string(d.join("b.vox")).unwrap(), src);
    let _ = vox_in(&d, &["lint", "--fix", "--unsafe-fixes", "b.vox"]);
    assert_eq!(
        std::fs::read_to_string(d.join("b.vox")).unwrap(),
        "pub fn area(a: int, b: int) to int {\n    a.checked_mul(b).expect(\"`a * b` overflows i64\")\n}\n"
    );
}

#[test]
fn determinism_makes_d_rules_errors_and_sets_the_exit_code() {
    let d = scratch();
    write(&d, "c.vox", "print(time.now_ms())\n");
    let (code, out, _) = vox_in(&d, &["lint", "--format", "compact", "c.vox"]);
    assert_eq!(code, 0, "D rules are warnings by default: {out}");
    assert_eq!(
        out,
        "c.vox:1:7: D003 `time.now_ms()` reads the clock: its value differs on every run\n"
    );
    let (code, _, _) = vox_in(&d, &["lint", "--determinism", "c.vox"]);
    assert_eq!(code, 1);
    let (code, out, _) = vox_in(&d, &["lint", "--determinism", "--ignore", "D003", "c.vox"]);
    assert_eq!((code, out.as_str()), (0, ""));
    let (code, _, err) = vox_in(&d, &["lint", "--format", "nope", "c.vox"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn suppressions_need_a_reason_and_unused_ones_are_reported() {
    let d = scratch();
    write(
        &d,
        "s.vox",
        "// vox:allow(D003): the banner is dated on purpose\nprint(time.now_ms())\nprint(time.now_ms()) // vox:allow(D003)\nlet x = 1 // vox:allow(D006): nothing random here\nprint(x)\n",
    );
    let (_, out, _) = vox_in(&d, &["lint", "--format", "compact", "s.vox"]);
    let codes: Vec<&str> = out.lines().map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(codes, ["D003", "L001", "L002"], "{out}");
    assert!(
        out.contains("s.vox:3:7: D003"),
        "a suppression without a reason suppresses nothing: {out}"
    );
    // L002's fix deletes the comment.
    let _ = vox_in(&d, &["lint", "--fix", "s.vox"]);
    let fixed = std::fs::read_to_string(d.join("s.vox")).unwrap();
    assert!(fixed.contains("let x = 1\n"), "{fixed}");
}

#[test]
fn lint_config_selects_ignores_and_sets_severity() {
    let d = scratch();
    write(&d, "Vox.toml", "[lint]\nignore = [\"D001\"]\nexclude = [\"vendor/**\"]\n\n[lint.severity]\nD003 = \"error\"\n");
    write(&d, "m.vox", "let x = 0.5\nprint(x.sin(), time.now_ms())\n");
    write(&d, "vendor/v.vox", "print(time.now_ms())\n");
    let (code, out, _) = vox_in(&d, &["lint", "--format", "compact", "."]);
    assert_eq!(code, 1, "D003 is an error by [lint.severity]: {out}");
    assert_eq!(
        out.lines().count(),
        1,
        "D001 ignored and vendor/ excluded: {out}"
    );
    assert!(out.starts_with("m.vox:2:"), "{out}");
}

#[test]
fn an_invalid_configuration_is_config_invalid_with_exit_2() {
    let d = scratch();
    write(&d, "Vox.toml", "[run.x]\nscript = 3\n");
    write(&d, "m.vox", "print(1)\n");
    let (code, out, _) = vox_in(&d, &["lint", "--format", "compact", "."]);
    assert_eq!(code, 2);
    assert!(out.starts_with("Vox.toml:2:10: config.invalid "), "{out}");
    write(
        &d,
        ".vscode/tasks.json",
        "{ \"tasks\": [ { \"type\": \"vox\", \"script\": 7 } ] }",
    );
    write(&d, "Vox.toml", "");
    let (code, out, _) = vox_in(&d, &["lint", "--format", "compact", "."]);
    assert_eq!(code, 2);
    assert!(out.contains(".vscode/tasks.json:1:"), "{out}");
}

#[test]
fn caps_formats() {
    let d = scratch();
    std::fs::create_dir_all(d.join("data")).unwrap();
    write(&d, "data/in.txt", "x");
    write(
        &d,
        "j.vox",
        "print(fs.read(\"data/in.txt\").unwrap(), env.get(\"HOME\").is_some())\n",
    );
    let (code, out, _) = vox_in(&d, &["caps", "j.vox"]);
    assert_eq!((code, out.as_str()), (0, "env:ro\nfs:ro=data\n"));
    let (_, out, _) = vox_in(&d, &["caps", "--format", "cli", "j.vox"]);
    assert_eq!(out, "--caps env:ro --caps fs:ro=data\n");
    let (_, out, _) = vox_in(&d, &["caps", "--format", "toml", "j.vox"]);
    assert_eq!(
        out,
        "[run.j]\nscript = \"j.vox\"\ncaps = [\"env:ro\", \"fs:ro=data\"]\n"
    );
    write(&d, "p.vox", "print(1 + 1)\n");
    let (_, out, _) = vox_in(&d, &["caps", "p.vox"]);
    assert_eq!(out, "none\n");
}

#[test]
fn caps_check_gates_on_drift() {
    let d = scratch();
    std::fs::create_dir_all(d.join("data")).unwrap();
    write(&d, "data/in.txt", "x");
    write(&d, "j.vox", "print(fs.read(\"data/in.txt\").unwrap())\n");
    write(
        &d,
        "Vox.toml",
        "[run.j]\nscript = \"j.vox\"\ncaps = [\"fs:ro=data\"]\n",
    );
    let (code, _, err) = vox_in(&d, &["caps", "--check"]);
    assert_eq!(code, 0, "{err}");
    write(
        &d,
        "Vox.toml",
        "[run.j]\nscript = \"j.vox\"\ncaps = [\"net:allow\"]\n",
    );
    let (code, out, _) = vox_in(&d, &["caps", "--check"]);
    assert_eq!(code, 1);
    assert!(out.contains("C001") && out.contains("C002"), "{out}");
    // Reported at the call in the script and on the configuration entry (decision 39).
    let (_, out, _) = vox_in(&d, &["lint", "--format", "compact", "."]);
    assert_eq!(
        out,
        "Vox.toml:1:1: C001 run configuration `j` lacks `fs:ro=data`, which j.vox needs: that run would exit 77\n\
         Vox.toml:1:1: C002 run configuration `j` grants `net:allow`, which j.vox never uses\n\
         j.vox:1:1: C002 run configuration `j` grants `net:allow`, which this script never uses\n\
         j.vox:1:7: C001 run configuration `j` lacks `fs:ro=data`, which `fs.read` needs: that run would exit 77\n"
    );
}

/// A finding the linted script reaches through an import is reported (at its source, with the
/// chain from the script), and counts for the exit status; what the script does not reach in the
/// imported file is not.
#[test]
fn findings_reached_through_imports_are_reported() {
    let d = scratch();
    std::fs::create_dir_all(d.join("lib")).unwrap();
    write(
        &d,
        "lib/util.vox",
        "pub fn stamp() to str {\n    str(time.now_ms())\n}\npub fn unused() to str {\n    str(random.int(0, 9))\n}\n",
    );
    write(
        &d,
        "main.vox",
        "import \"./lib/util.vox\" as util\nfn main() {\n    print(\"built at\", util.stamp())\n}\n",
    );
    let (code, out, err) = vox_in(
        &d,
        &["lint", "--determinism", "--format", "compact", "main.vox"],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        out,
        "lib/util.vox:2:9: D003 `time.now_ms()` reads the clock: its value differs on every run\n"
    );
    let (_, json, _) = vox_in(
        &d,
        &["lint", "--determinism", "--format", "json", "main.vox"],
    );
    assert!(
        json.contains("\"main.vox\"") && json.contains("stamp"),
        "{json}"
    );
}

/// Decision 53: a syntax error costs only the function it is in; from 16 errors on, the file's
/// semantic findings are skipped with one note; `vox caps` infers from what parses and says
/// `incomplete` for the rest.
#[test]
fn a_syntax_error_costs_only_its_function() {
    let d = scratch();
    write(
        &d,
        "a.vox",
        "fn broken() {\n    let x = (1 +\n    print(random.int(0, 9))\n}\n\nfn main() {\n    print(time.now_ms())\n}\n",
    );
    let (code, out, err) = vox_in(&d, &["lint", "--format", "compact", "a.vox"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("a.vox:7:11: D003"), "{out}");
    assert!(
        !out.contains("D006"),
        "the broken function is not analysed: {out}"
    );
    let (code, out, err) = vox_in(&d, &["caps", "a.vox"]);
    assert_eq!((code, out.as_str()), (1, "time:real\n"), "{err}");
    assert!(
        err.contains("incomplete: a.vox:4:1: a syntax error in `broken`"),
        "{err}"
    );

    let many: String = (0..16)
        .map(|i| format!("fn f{i}() {{\n    let x = (1 +\n}}\n"))
        .collect::<String>()
        + "fn main() {\n    print(time.now_ms())\n}\n";
    write(&d, "b.vox", &many);
    let (_, out, _) = vox_in(&d, &["lint", "--format", "compact", "b.vox"]);
    assert!(!out.contains("D003"), "{out}");
    assert!(
        out.contains("b.vox:1:1: syntax.too-many-errors 16 syntax errors"),
        "{out}"
    );
}

/// The hooks of `.pre-commit-hooks.yaml` run as pre-commit would run them: the entry with the
/// changed files (or none), failing on a finding.
#[test]
fn pre_commit_hooks_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let hooks = std::fs::read_to_string(root.join(".pre-commit-hooks.yaml")).unwrap();
    let mut entries = std::collections::BTreeMap::new();
    let mut id = String::new();
    for line in hooks.lines() {
        if let Some(v) = line.trim_start().strip_prefix("- id: ") {
            id = v.trim().to_string();
        } else if let Some(v) = line.trim_start().strip_prefix("entry: ") {
            entries.insert(id.clone(), v.trim().to_string());
        }
    }
    assert_eq!(
        entries.keys().collect::<Vec<_>>(),
        ["vox-caps-check", "vox-lint"],
        "{hooks}"
    );
    let d = scratch();
    write(&d, "ok.vox", "fn main() {\n    print(1)\n}\n");
    let run = |entry: &str, files: &[&str]| {
        let words: Vec<&str> = entry.split_whitespace().collect();
        assert_eq!(words[0], "vox");
        let mut args: Vec<&str> = words[1..].to_vec();
        args.extend_from_slice(files);
        vox_in(&d, &args)
    };
    assert_eq!(run(&entries["vox-lint"], &["ok.vox"]).0, 0);
    assert_eq!(run(&entries["vox-caps-check"], &[]).0, 0);
    write(&d, "late.vox", "fn main() {\n    print(time.now_ms())\n}\n");
    assert_eq!(run(&entries["vox-lint"], &["late.vox"]).0, 1);
}

/// A run configuration `vox run` would refuse (a root that does not exist) is a C001 finding at
/// its entry, for `vox lint` and `vox caps --check` alike, never skipped in silence.
#[test]
fn a_run_configuration_vox_run_refuses_is_a_finding() {
    let d = scratch();
    std::fs::create_dir_all(d.join("data")).unwrap();
    write(&d, "data/a.txt", "a\n");
    write(&d, "job.vox", "print(fs.read(\"data/a.txt\").unwrap())\n");
    write(
        &d,
        "Vox.toml",
        "[run.job]\nscript = \"job.vox\"\ncaps = [\"fs:ro=data\", \"fs:ro=missing\"]\n",
    );
    let (code, out, err) = vox_in(&d, &["lint", "--format", "compact", "job.vox"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.starts_with(
            "Vox.toml:1:1: C001 run configuration `job` cannot run: no such directory: missing"
        ),
        "{out}"
    );
    let (code, _, err) = vox_in(&d, &["caps", "--check"]);
    assert_eq!(code, 1, "{err}");
    let (code, _, err) = vox_in(&d, &["run", "--config", "job", "job.vox"]);
    assert_ne!(code, 0, "vox run refuses it too: {err}");
    let (_, out, _) = vox_in(&d, &["lint", "job.vox"]);
    assert!(out.contains("help: create the directory"), "{out}");
    // A misspelled token that is not a path gets no hint about directories (issue 41 item 15).
    write(
        &d,
        "Vox.toml",
        "[run.job]\nscript = \"job.vox\"\ncaps = [\"fs:ro=data\", \"time:rea\"]\n",
    );
    let (_, out, _) = vox_in(&d, &["lint", "job.vox"]);
    assert!(out.contains("write time:real or time:frozen=<ms>"), "{out}");
    assert!(
        out.contains("help: correct the token") && !out.contains("create the directory"),
        "{out}"
    );
}

/// D006's fix pins the seed in the script's run configuration (unsafe: another stream), after
/// which D006 is no longer reported.
#[test]
fn d006_fix_pins_the_seed() {
    let d = scratch();
    write(&d, "roll.vox", "print(random.int(1, 7))\n");
    write(
        &d,
        "Vox.toml",
        "# dice\n[run.roll]\nscript = \"roll.vox\" # the script\ncaps = [\"fs:ro=.\"]\n",
    );
    let (_, out, _) = vox_in(&d, &["lint", "--format", "json", "roll.vox"]);
    assert!(
        out.contains("Add `random:seed=0` to run configuration `roll`"),
        "{out}"
    );
    let (_, _, err) = vox_in(&d, &["lint", "--fix", "--unsafe-fixes", "roll.vox"]);
    let toml = std::fs::read_to_string(d.join("Vox.toml")).unwrap();
    assert!(
        toml.contains("\"random:seed=0\"") && toml.contains("# the script"),
        "{toml}\n{err}"
    );
    let (_, out, _) = vox_in(&d, &["lint", "--format", "compact", "roll.vox"]);
    assert!(!out.contains("D006"), "{out}");
}

/// The narrowest grant for a path piped into a builtin and for `path.join_many` of constants.
#[test]
fn piped_paths_and_join_many_get_narrow_grants() {
    let d = scratch();
    std::fs::create_dir_all(d.join("data/sub")).unwrap();
    write(&d, "data/sub/x.txt", "x\n");
    write(
        &d,
        "n.vox",
        "print(\"data/sub/x.txt\" |> fs.read)\nprint(fs.read(path.join_many([\"data\", \"sub\", \"x.txt\"])).unwrap())\n",
    );
    let (code, out, err) = vox_in(&d, &["caps", "n.vox"]);
    assert_eq!((code, out.as_str()), (0, "fs:ro=data/sub\n"), "{err}");
    let (code, _, err) = vox_in(&d, &["run", "--caps", "fs:ro=data/sub", "n.vox"]);
    assert_eq!(code, 0, "{err}");
}

/// A function with more orders than one machine word holds (its sets grow on demand): the
/// leaks at both ends, through variables, are found; the order-insensitive uses between them
/// are not.
#[test]
fn a_function_with_more_than_64_orders_is_analysed_whole() {
    let d = scratch();
    let mut text = String::from("fn main() {\n    let m = {b: 1, a: 2}\n    let first = m.keys()\n    print(first)\n    let mut n = 0\n");
    for _ in 0..70 {
        text.push_str("    for k in m.keys() {\n        n += 1\n    }\n");
    }
    text.push_str("    let last = m.values()\n    let shown = last.map(fn(v) { str(v) })\n    print(shown.join(\",\"), n)\n}\n");
    write(&d, "many.vox", &text);
    let (_, out, err) = vox_in(
        &d,
        &[
            "lint", "--format", "compact", "--select", "D002", "many.vox",
        ],
    );
    let lines: Vec<&str> = out
        .lines()
        .map(|l| l.split(": D002").next().unwrap())
        .collect();
    let last = 6 + 70 * 3;
    assert_eq!(
        lines,
        ["many.vox:3:17".to_string(), format!("many.vox:{last}:16")],
        "{out}{err}"
    );
}

/// Issue 36 item 18: `--select`, `--ignore` and `[lint]` apply to every code (`syntax.*`,
/// `check.*`, the capability rules); the style note `syntax.semicolon` is not in the default set
/// (`vox check` still reports it); an error that stops the script shows whatever is selected;
/// the summary says how many findings each family contributed.
#[test]
fn select_and_ignore_apply_to_every_code() {
    let d = scratch();
    let text = "fn main() {\n    let x = 1;\n    print(fs.read(\"data/\" + env.get(\"F\").unwrap()))\n    print(time.now_ms())\n}\n";
    write(&d, "a.vox", text);
    let codes = |out: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(out).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect()
    };
    let (_, out, err) = vox_in(&d, &["lint", "--format", "json", "a.vox"]);
    let all = codes(&out);
    assert!(
        !all.iter().any(|c| c == "syntax.semicolon"),
        "{all:?} {err}"
    );
    assert!(
        all.iter().any(|c| c == "C004") && all.iter().any(|c| c == "D003"),
        "{all:?}"
    );
    let (_, out, _) = vox_in(&d, &["lint", "--format", "json", "--select", "D", "a.vox"]);
    assert_eq!(codes(&out), ["D005", "D003"]);
    let (_, out, _) = vox_in(
        &d,
        &["lint", "--format", "json", "--select", "syntax", "a.vox"],
    );
    assert_eq!(codes(&out), ["syntax.semicolon"]);
    let (_, out, _) = vox_in(
        &d,
        &[
            "lint",
            "--format",
            "json",
            "--select",
            "syntax",
            "--ignore",
            "syntax.semicolon",
            "a.vox",
        ],
    );
    assert!(codes(&out).is_empty());
    write(
        &d,
        "Vox.toml",
        "[lint]\nselect = [\"syntax\", \"D\"]\nignore = [\"syntax.semicolon\"]\n",
    );
    let (_, out, _) = vox_in(&d, &["lint", "--format", "json", "a.vox"]);
    assert_eq!(codes(&out), ["D005", "D003"]);
    std::fs::remove_file(d.join("Vox.toml")).unwrap();
    let (_, _, err) = vox_in(&d, &["lint", "a.vox"]);
    assert!(err.contains("(C: 1, D: 2)"), "{err}");
    let (_, out, _) = vox_in(&d, &["check", "a.vox"]);
    assert!(out.contains("syntax.semicolon"), "{out}");
    // A syntax error shows under any selection.
    write(&d, "b.vox", "fn main() {\n    let x = (1\n}\n");
    let (code, out, _) = vox_in(&d, &["lint", "--format", "json", "--select", "D", "b.vox"]);
    assert_eq!(code, 1);
    assert!(
        codes(&out).iter().any(|c| c.starts_with("syntax.")),
        "{out}"
    );
}

/// Issue 36 item 9: a misplaced `vox:allow-file` (after code) suppresses nothing: L002 (unused),
/// not L001 (which means "no reason").
#[test]
fn a_misplaced_allow_file_is_l002() {
    let d = scratch();
    write(
        &d,
        "a.vox",
        "fn main() {\n    // vox:allow-file(D003): the report is dated on purpose\n    print(time.now_ms())\n}\n",
    );
    let (_, out, _) = vox_in(&d, &["lint", "--format", "json", "a.vox"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let codes: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["L002", "D003"], "{out}");
    assert!(out.contains("after code suppresses nothing"), "{out}");
}

/// Issue 36 item 8: a C001 caused by reading an import is reported on the run configuration's
/// entry too, as every other C001 is (decision 39), and both carry the fix that adds the token.
#[test]
fn a_c001_from_an_import_is_also_on_the_configuration_entry() {
    let d = scratch();
    std::fs::create_dir_all(d.join("lib")).unwrap();
    write(&d, "lib/util.vox", "pub fn greet(n) { \"hi \" + n }\n");
    write(
        &d,
        "main.vox",
        "import \"lib/util.vox\" as util\nfn main() {\n    print(util.greet(\"x\"))\n}\n",
    );
    write(
        &d,
        "Vox.toml",
        "[run.main]\nscript = \"main.vox\"\ncaps = [\"none\"]\n",
    );
    let (code, out, err) = vox_in(
        &d,
        &["lint", "--format", "compact", "--select", "C001", "."],
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        "Vox.toml:1:1: C001 run configuration `main` lacks `fs:ro=lib`, which main.vox needs: that run would exit 77\n\
         main.vox:1:1: C001 run configuration `main` lacks `fs:ro=lib`, which reading the import needs: that run would exit 77\n"
    );
    let (_, _, err) = vox_in(
        &d,
        &["lint", "--fix", "--unsafe-fixes", "--select", "C001", "."],
    );
    let toml = std::fs::read_to_string(d.join("Vox.toml")).unwrap();
    assert!(toml.contains("fs:ro=lib"), "{toml}\n{err}");
    let (code, out, err) = vox_in(&d, &["run", "--config", "main", "main.vox"]);
    assert_eq!((code, out.as_str()), (0, "hi x\n"), "{err}");
}

/// Issue 36 item 10: D003 and D006 on a script that no run configuration runs offer a fix that
/// creates one (Vox.toml made when missing) with the inferred caps and the clock or the stream
/// pinned; `--fix --unsafe-fixes` applies both (the second in its next round), and the run of
/// that configuration is the same on every run.
#[test]
fn d003_and_d006_create_a_run_configuration_where_there_is_none() {
    let d = scratch();
    write(
        &d,
        "dice.vox",
        "let x = random.int(1, 1000000)\nprint(x)\nprint(time.now_ms())\nprint(env.get(\"HOME\").is_some())\n",
    );
    let (_, out, _) = vox_in(&d, &["lint", "dice.vox"]);
    assert!(
        out.contains(
            "unsafe fix: Create run configuration `dice` in Vox.toml with `random:seed=0`"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "unsafe fix: Create run configuration `dice` in Vox.toml with `time:frozen=0`"
        ),
        "{out}"
    );
    let (code, out, err) = vox_in(&d, &["lint", "--fix", "--unsafe-fixes", "dice.vox"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("Vox.toml")).unwrap(),
        "[run.dice]\nscript = \"dice.vox\"\ncaps = [\"env:ro\", \"random:seed=0\", \"time:frozen=0\"]\n"
    );
    let first = vox_in(&d, &["run", "--config", "dice", "dice.vox"]);
    assert_eq!(first.0, 0, "{}", first.2);
    assert_eq!(first, vox_in(&d, &["run", "--config", "dice", "dice.vox"]));
    // A library (no entry) gets no run configuration.
    let lib = scratch();
    write(&lib, "lib.vox", "pub fn roll() { random.int(1, 7) }\n");
    let (_, out, _) = vox_in(&lib, &["lint", "lib.vox"]);
    assert!(
        out.contains("D006") && !out.contains("Create run configuration"),
        "{out}"
    );
}

/// Issue 41 items 3 and 15: `vox caps --check` shows a finding on a configuration's entry at its
/// line with the line's text (it showed `Vox.toml:1:1` and an empty line), as `vox lint` does;
/// `--format json` gives the findings as JSON.
#[test]
fn caps_check_shows_the_entry_line_and_honours_json() {
    let d = scratch();
    std::fs::create_dir_all(d.join("data")).unwrap();
    write(&d, "data/in.txt", "x");
    write(&d, "j.vox", "print(fs.read(\"data/in.txt\").unwrap())\n");
    write(
        &d,
        "Vox.toml",
        "# runs\n\n[run.j]\nscript = \"j.vox\"\ncaps = [\"net:allow\"]\n",
    );
    let (code, out, _) = vox_in(&d, &["caps", "--check"]);
    assert_eq!(code, 1);
    assert!(out.contains("┌─ Vox.toml:3:1\n  │\n3 │ [run.j]\n"), "{out}");
    assert!(!out.contains("Vox.toml:1:1"), "{out}");
    let (code, out, _) = vox_in(&d, &["caps", "--check", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let codes: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"C001") && codes.contains(&"C002"),
        "{codes:?}"
    );
}

/// Issue 41 item 15: a table a letter away from `[lint]` or `[run.*]` in Vox.toml (`[lnt]`) is a
/// config.invalid finding, not silently ignored; other Vox tools' tables (`[web]`) stay allowed.
#[test]
fn a_misspelled_table_in_vox_toml_is_config_invalid() {
    let d = scratch();
    write(&d, "a.vox", "print(1)\n");
    write(&d, "Vox.toml", "[lnt]\nselect = [\"D\"]\n");
    let (code, out, err) = vox_in(&d, &["lint", "."]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains("config.invalid") && out.contains("did you mean `[lint]`?"),
        "{out}{err}"
    );
    write(&d, "Vox.toml", "[runs.a]\nscript = \"a.vox\"\n");
    let (code, out, _) = vox_in(&d, &["lint", "."]);
    assert_eq!(code, 2);
    assert!(out.contains("did you mean `[run]`?"), "{out}");
    write(&d, "Vox.toml", "[web]\nrun_mode = \"script\"\n");
    let (code, out, err) = vox_in(&d, &["lint", "."]);
    assert_eq!(code, 0, "{out}{err}");
}
