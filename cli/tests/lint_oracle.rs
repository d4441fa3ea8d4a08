//! The dynamic oracle for D002, D003, D006 and D007 (analysis issue, acceptance 2): every corpus
//! script of those folders runs plainly and with `--perturb 1..8`, each run in a fresh copy of
//! its folder. A script the lint flags must not print the same thing on all nine runs; a script
//! it does not flag must print exactly the same thing on all of them.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{copy_tree, scratch, vox_in};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/lint")
}

/// Scripts the lint flags with a rule of `select` (`D002`, or prefixes such as `D,I`): a finding
/// in the script itself, or (for a script whose label says it reaches one through an import) a
/// finding in a file it imports. With `acknowledged`, a script whose `vox:allow` names such a
/// rule counts too.
fn flagged(dir: &Path, select: &str, acknowledged: bool) -> BTreeSet<String> {
    let prefixes: Vec<&str> = select.split(',').collect();
    let ours = |code: &str| prefixes.iter().any(|p| code.starts_with(p));
    let (status, stdout, stderr) =
        vox_in(dir, &["lint", "--format", "json", "--select", select, "."]);
    assert!(status == 0 || status == 1, "vox lint failed: {stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let files: BTreeSet<String> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"].as_str().is_some_and(ours))
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    let in_lib = files.iter().any(|f| f.starts_with("lib/"));
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if !name.ends_with(".vox") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        let reaches = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("// reaches: "))
            .any(ours);
        let allowed = acknowledged
            && prefixes.iter().any(|p| {
                text.contains(&format!("vox:allow({p}"))
                    || text.contains(&format!("vox:allow-file({p}"))
            });
        if files.contains(&name) || allowed || (reaches && in_lib) {
            out.insert(name);
        }
    }
    out
}

fn run_once(dir: &Path, script: &str, perturb: Option<u32>) -> String {
    let work = scratch();
    copy_tree(dir, &work);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vox"));
    cmd.arg("run");
    if let Some(n) = perturb {
        cmd.arg("--perturb").arg(n.to_string());
    }
    let out = cmd.arg(script).current_dir(&work).output().unwrap();
    let _ = std::fs::remove_dir_all(&work);
    format!(
        "exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout)
    )
}

#[test]
fn lint_and_runs_agree_on_every_oracle_script() {
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for code in ["D002", "D003", "D006", "D007"] {
        let dir = corpus().join(code);
        let flagged = flagged(&dir, code, false);
        let mut scripts: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".vox") && (n.starts_with("flag_") || n.starts_with("ok_")))
            .collect();
        scripts.sort();
        for s in scripts {
            let outputs: BTreeSet<String> = std::iter::once(None)
                .chain((1..=8).map(Some))
                .map(|p| run_once(&dir, &s, p))
                .collect();
            let varies = outputs.len() > 1;
            let is_flagged = flagged.contains(&s);
            checked += 1;
            if varies != is_flagged {
                disagreements.push(format!(
                    "{code}/{s}: lint {} but the nine runs {}",
                    if is_flagged {
                        "flags it"
                    } else {
                        "does not flag it"
                    },
                    if varies { "differ" } else { "agree" }
                ));
            }
        }
    }
    assert!(checked >= 80, "only {checked} oracle scripts");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// Acceptance 4 of the trust issue: the oracle as a recall check over the whole labelled corpus.
/// Every script, of every rule's folder, whose output some `--perturb` seed changes must be
/// flagged by a determinism or input rule (or carry a suppression that says why it may vary).
#[test]
fn every_script_that_perturbation_changes_is_flagged() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "review"))
        .collect();
    dirs.sort();
    let results: Vec<(usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = dirs
            .chunks(dirs.len().div_ceil(4))
            .map(|chunk| {
                s.spawn(move || {
                    let mut missed = Vec::new();
                    let mut checked = 0;
                    for dir in chunk {
                        // An input such as the working directory differs between the runs too: I rules count.
                        let flagged = flagged(dir, "D,I", true);
                        let mut scripts: Vec<String> = std::fs::read_dir(dir)
                            .unwrap()
                            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                            .filter(|n| {
                                n.ends_with(".vox") && (n.starts_with("flag_") || n.starts_with("ok_"))
                            })
                            .collect();
                        scripts.sort();
                        for sc in scripts {
                            checked += 1;
                            if flagged.contains(&sc) {
                                continue;
                            }
                            let plain = run_once(dir, &sc, None);
                            if let Some(seed) = (1..=8).find(|p| run_once(dir, &sc, Some(*p)) != plain) {
                                missed.push(format!(
                                    "{}/{sc}: --perturb {seed} changes its output, and no D rule flags it",
                                    dir.file_name().unwrap().to_string_lossy()
                                ));
                            }
                        }
                    }
                    (checked, missed)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let checked: usize = results.iter().map(|r| r.0).sum();
    let missed: Vec<String> = results.into_iter().flat_map(|r| r.1).collect();
    assert!(checked >= 300, "only {checked} labelled scripts");
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}
