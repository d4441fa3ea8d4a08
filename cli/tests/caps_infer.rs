//! Capability inference is sound and minimal (analysis issue, acceptance 3): every lint-corpus
//! script runs with exactly `vox caps` of it under `--caps-audit`; no run is denied, the audit
//! lies inside the inferred set (`vox caps --audit` agrees), and the inferred set equals the
//! script's `.caps` snapshot. Scripts with a `.stdout` print exactly that.

mod common;

use std::path::{Path, PathBuf};

use common::{copy_tree, scratch, vox_in};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/lint")
}

#[test]
fn every_corpus_script_runs_with_exactly_its_inferred_caps() {
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut scripts: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".vox") && (n.starts_with("flag_") || n.starts_with("ok_")))
            .collect();
        scripts.sort();
        let rule = dir.file_name().unwrap().to_string_lossy().into_owned();
        for s in scripts {
            let stem = s.trim_end_matches(".vox");
            let work = scratch();
            copy_tree(&dir, &work);
            let (code, tokens, err) = vox_in(&work, &["caps", &s]);
            if code != 0 {
                failures.push(format!("{rule}/{s}: vox caps exited {code}: {err}"));
                continue;
            }
            let want =
                std::fs::read_to_string(dir.join(format!("{stem}.caps"))).unwrap_or_default();
            if tokens.trim() != want.trim() {
                failures.push(format!(
                    "{rule}/{s}: inferred {:?}, snapshot {:?}",
                    tokens.trim(),
                    want.trim()
                ));
            }
            let mut args: Vec<String> = vec!["run".into()];
            for t in tokens.lines().filter(|t| !t.is_empty()) {
                args.push("--caps".into());
                args.push(t.to_string());
            }
            args.push("--caps-audit".into());
            args.push("audit.jsonl".into());
            args.push(s.clone());
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let (rc, stdout, stderr) = vox_in(&work, &argv);
            ran += 1;
            if rc == 77 {
                failures.push(format!(
                    "{rule}/{s}: denied under its inferred caps: {stderr}"
                ));
            }
            if let Ok(expected) = std::fs::read_to_string(dir.join(format!("{stem}.stdout"))) {
                if stdout != expected {
                    failures.push(format!(
                        "{rule}/{s}: stdout differs:\n{stdout}\n--- expected\n{expected}"
                    ));
                }
            }
            if work.join("audit.jsonl").exists() {
                let (ac, aout, aerr) = vox_in(&work, &["caps", &s, "--audit", "audit.jsonl"]);
                if ac != 0 {
                    failures.push(format!("{rule}/{s}: used but not inferred: {aout}{aerr}"));
                }
            }
            let _ = std::fs::remove_dir_all(&work);
        }
    }
    assert!(ran >= 400, "only {ran} scripts ran");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
