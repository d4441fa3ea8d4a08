//! Fixes never break a script (decision 52). For every script of the labelled lint corpus
//! (`tests/lint/<CODE>/`) and of `examples/`, `vox lint --fix` and, separately,
//! `vox lint --fix --unsafe-fixes` are applied to a copy. Every script a fix changed must then
//! pass `vox check`, exit as before under the same capabilities, and, after safe fixes, print
//! what it printed before, unless a sort fix (D002, D007) changed the order on purpose.

mod common;

use std::path::{Path, PathBuf};

use common::{copy_tree, scratch, vox_in};

/// One working directory to fix: where its files come from and which scripts it holds.
struct Case {
    name: String,
    /// Copied whole into each working copy.
    from: Vec<(PathBuf, PathBuf)>,
    scripts: Vec<String>,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cases() -> Vec<Case> {
    let root = workspace();
    let mut out = Vec::new();
    let lint = root.join("tests/lint");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&lint)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "review"))
        .collect();
    dirs.sort();
    for d in dirs {
        let mut scripts: Vec<String> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".vox"))
            .collect();
        scripts.sort();
        out.push(Case {
            name: d.file_name().unwrap().to_string_lossy().into_owned(),
            from: vec![(d.clone(), PathBuf::new())],
            scripts,
        });
    }
    let ex = root.join("examples");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&ex)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vox"))
        .collect();
    scripts.sort();
    for s in scripts {
        let stem = s.file_stem().unwrap().to_string_lossy().into_owned();
        let name = s.file_name().unwrap().to_string_lossy().into_owned();
        let mut from = vec![(s.clone(), PathBuf::from(&name))];
        let fixtures = ex.join("fixtures").join(&stem);
        if fixtures.is_dir() {
            from.push((fixtures, PathBuf::new()));
        }
        out.push(Case {
            name: format!("examples/{name}"),
            from,
            scripts: vec![name],
        });
    }
    out
}

fn lay_out(case: &Case) -> PathBuf {
    let d = scratch();
    for (src, rel) in &case.from {
        if src.is_dir() {
            copy_tree(src, &d.join(rel));
        } else {
            std::fs::copy(src, d.join(rel)).unwrap();
        }
    }
    d
}

/// The script's capabilities: its `.caps` file, else what `vox caps` infers for it.
fn caps(dir: &Path, script: &str) -> Vec<String> {
    let file = dir.join(script.replace(".vox", ".caps"));
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(_) => vox_in(dir, &["caps", script]).1,
    };
    let tokens: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    if tokens.is_empty() {
        vec!["none".into()]
    } else {
        tokens
    }
}

fn run(dir: &Path, script: &str, caps: &[String]) -> (i32, String, String) {
    let mut args = vec!["run".to_string()];
    for c in caps {
        args.push("--caps".into());
        args.push(c.clone());
    }
    args.push(script.into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    vox_in(dir, &args)
}

#[test]
fn fixes_keep_every_script_working() {
    let mut failures = Vec::new();
    let (mut changed_safe, mut changed_unsafe) = (0, 0);
    for case in cases() {
        let base = lay_out(&case);
        for (unsafe_fixes, counter) in [(false, &mut changed_safe), (true, &mut changed_unsafe)] {
            let fixed = lay_out(&case);
            let mut args = vec!["lint", "--fix"];
            if unsafe_fixes {
                args.push("--unsafe-fixes");
            }
            args.push(".");
            let (code, _, err) = vox_in(&fixed, &args);
            if code == 2 {
                failures.push(format!(
                    "{}: vox {} failed: {err}",
                    case.name,
                    args.join(" ")
                ));
                continue;
            }
            let mode = if unsafe_fixes {
                "--fix --unsafe-fixes"
            } else {
                "--fix"
            };
            for script in &case.scripts {
                let before = std::fs::read_to_string(base.join(script)).unwrap();
                let after = std::fs::read_to_string(fixed.join(script)).unwrap();
                if before == after {
                    continue;
                }
                *counter += 1;
                let what = format!("{}/{script} after {mode}", case.name);
                let (code, out, err) = vox_in(&fixed, &["check", script]);
                if code != 0 {
                    failures.push(format!("{what}: vox check exits {code}:\n{out}{err}"));
                    continue;
                }
                let caps = caps(&base, script);
                let (c0, o0, e0) = run(&base, script, &caps);
                let (c1, o1, e1) = run(&fixed, script, &caps);
                if c0 != c1 {
                    failures.push(format!(
                        "{what}: exit {c0} before, {c1} after\n--- before\n{o0}{e0}--- after\n{o1}{e1}--- fixed script\n{after}"
                    ));
                    continue;
                }
                let deterministic = base.join(script.replace(".vox", ".stdout")).exists();
                let sorted_on_purpose =
                    after.matches("sorted(").count() > before.matches("sorted(").count();
                if !unsafe_fixes && deterministic && !sorted_on_purpose && o0 != o1 {
                    failures.push(format!(
                        "{what}: the output changed\n--- before\n{o0}--- after\n{o1}--- fixed script\n{after}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The corpus exercises fixes at all (a fix that stopped applying would pass vacuously).
    assert!(
        changed_safe >= 20 && changed_unsafe > changed_safe,
        "only {changed_safe} scripts changed by safe fixes, {changed_unsafe} by unsafe ones"
    );
    println!("{changed_safe} scripts changed by --fix, {changed_unsafe} by --fix --unsafe-fixes");
}

/// Every rule whose page in docs/rules offers a fix produces one somewhere in the labelled corpus
/// or the examples (a documented fix nobody exercises would go unverified above).
#[test]
fn every_documented_fix_is_produced_in_the_corpus() {
    let root = workspace();
    let mut documented = Vec::new();
    for e in std::fs::read_dir(root.join("docs/rules")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "README" {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let Some(section) = text.split("## Fix offered").nth(1) else {
            continue;
        };
        if !section.trim_start().starts_with("None") {
            documented.push(name);
        }
    }
    documented.sort();
    let mut produced = std::collections::BTreeSet::new();
    for case in cases() {
        let dir = lay_out(&case);
        let (_, out, err) = vox_in(&dir, &["lint", "--strict", "--format", "json", "."]);
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{}: {e}: {err}", case.name));
        for f in v.as_array().unwrap() {
            if f["fixes"].as_array().is_some_and(|x| !x.is_empty()) {
                produced.insert(f["code"].as_str().unwrap().to_string());
            }
        }
    }
    let missing: Vec<&String> = documented
        .iter()
        .filter(|c| !produced.contains(*c))
        .collect();
    assert!(
        missing.is_empty(),
        "documented fixes never produced in tests/lint or examples: {missing:?} (produced: {produced:?})"
    );
}

/// Issue 36 item 3: the D002 fix of `for _, v in m {` binds a fresh key name that the loop does
/// not read (it wrote `m[_]`, an undefined name, and the fixed script failed `vox check` and
/// `vox run`). A name the body reads (`key`) is not shadowed.
#[test]
fn the_d002_fix_of_an_underscore_key_binds_a_fresh_name() {
    let dir = scratch();
    let src = "fn main() {\n    let key = \"unit\"\n    let totals = {west: 12, east: 7}\n    for _, v in totals {\n        print(v + \" \" + key)\n    }\n}\n";
    std::fs::write(dir.join("s.vox"), src).unwrap();
    let (code, out, err) = vox_in(&dir, &["lint", "--fix", "s.vox"]);
    assert!(
        err.contains("applied 1 fix") || out.contains("applied 1 fix"),
        "{out}{err}"
    );
    let fixed = std::fs::read_to_string(dir.join("s.vox")).unwrap();
    assert!(
        fixed.contains("for key_2 in sorted(totals.keys()) {"),
        "{fixed}"
    );
    assert!(fixed.contains("let v = totals[key_2].unwrap()"), "{fixed}");
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = vox_in(&dir, &["check", "s.vox"]);
    assert_eq!(code, 0, "{out}{err}\n{fixed}");
    let (code, out, err) = vox_in(&dir, &["run", "s.vox"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "7 unit\n12 unit\n"),
        "{err}\n{fixed}"
    );
}

/// Issue 36 item 4: the unsafe D004 fix of `x * y * z` and `-d * 10` reaches every operation of
/// the chain. The result of `a.checked_mul(b).expect(…)` is a known int, so the outer operation
/// stays flagged after the inner one is fixed, and `--fix` rounds fix it too; afterwards the
/// lint is clean, and an overflowing input stops the run at the outer operation with the fix's
/// message (not the interpreter's).
#[test]
fn the_d004_fix_reaches_the_whole_chain() {
    let dir = scratch();
    let src = "let x = int(env.get(\"X\").unwrap_or(\"3\"))\nlet y = int(env.get(\"Y\").unwrap_or(\"4\"))\nlet z = int(env.get(\"Z\").unwrap_or(\"5\"))\nprint(x * y * z)\nlet d = int(env.get(\"D\").unwrap_or(\"2\"))\nprint(-d * 10)\n";
    std::fs::write(dir.join("s.vox"), src).unwrap();
    let (code, out, err) = vox_in(&dir, &["lint", "--fix", "--unsafe-fixes", "s.vox"]);
    assert!(err.contains("applied 4 fixes"), "{out}{err}");
    assert_eq!(code, 0, "{out}{err}");
    let fixed = std::fs::read_to_string(dir.join("s.vox")).unwrap();
    assert_eq!(fixed.matches("checked_mul").count(), 3, "{fixed}");
    assert_eq!(fixed.matches("checked_neg").count(), 1, "{fixed}");
    let (code, out, err) = vox_in(&dir, &["lint", "s.vox"]);
    assert_eq!(code, 0, "{out}{err}\n{fixed}");
    assert!(!out.contains("D004"), "{out}\n{fixed}");
    let run = |z: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vox"))
            .args(["run", "--caps", "env:ro", "s.vox"])
            .current_dir(&dir)
            .env("Z", z)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(run("5"), (0, "60\n-20\n".to_string(), String::new()));
    let (code, _, err) = run("922337203685477580");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("overflows i64"), "{err}");
}

/// Issue 41 item 13: the D002 example of its own page (a comment after the `for` line's `{`)
/// gets the fix; the comment stays on the `for` line.
#[test]
fn the_d002_fix_keeps_a_comment_after_the_brace() {
    let dir = scratch();
    let page = std::fs::read_to_string(workspace().join("docs/rules/D002.md")).unwrap();
    let example = page
        .split("## Example (flagged)")
        .nth(1)
        .and_then(|s| s.split("```vox\n").nth(1))
        .and_then(|s| s.split("\n```").next())
        .unwrap();
    assert!(example.contains("{          // a tie"), "{example}");
    std::fs::write(dir.join("s.vox"), format!("{example}\n")).unwrap();
    let (_, out, err) = vox_in(&dir, &["lint", "--fix", "s.vox"]);
    assert!(err.contains("applied 1 fix"), "{out}{err}");
    let fixed = std::fs::read_to_string(dir.join("s.vox")).unwrap();
    assert!(
        fixed.contains("for lang in sorted(votes.keys()) {          // a tie")
            && fixed.contains("\n    let n = votes[lang].unwrap()\n    if n > best {"),
        "{fixed}"
    );
    let (code, out, err) = vox_in(&dir, &["run", "s.vox"]);
    assert_eq!((code, out.as_str()), (0, "winner: go\n"), "{err}");
}
