//! The findings review (tests/lint/review): every finding `vox lint --determinism` reports on the
//! repository's real scripts is listed with a verdict, and every code keeps at least 95%
//! precision on that list.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

#[test]
fn every_finding_on_the_real_scripts_is_reviewed_and_precise() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args([
            "lint",
            "--determinism",
            "--format",
            "compact",
            "tests/corpus",
            "examples",
        ])
        .current_dir(&root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let found: BTreeSet<(String, String)> = stdout
        .lines()
        .map(|l| {
            let (loc, rest) = l.split_once(": ").expect("compact line");
            let code = rest.split(' ').next().unwrap();
            (loc.to_string(), code.to_string())
        })
        .collect();
    assert!(!found.is_empty(), "no findings at all: {stdout}");

    let review = std::fs::read_to_string(root.join("tests/lint/review/findings.tsv")).unwrap();
    let mut reviewed = BTreeSet::new();
    let mut per_code: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (n, line) in review.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            cols.len(),
            4,
            "line {}: four tab-separated columns: {line}",
            n + 1
        );
        let (loc, code, verdict, reason) = (cols[0], cols[1], cols[2], cols[3]);
        assert!(
            matches!(verdict, "TP" | "FP"),
            "line {}: verdict TP or FP, not {verdict}",
            n + 1
        );
        assert!(
            reason.trim().len() >= 10,
            "line {}: a reason, please",
            n + 1
        );
        assert!(
            reviewed.insert((loc.to_string(), code.to_string())),
            "line {}: listed twice",
            n + 1
        );
        let e = per_code.entry(code.to_string()).or_default();
        if verdict == "TP" {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
    }
    let new: Vec<_> = found.difference(&reviewed).collect();
    let gone: Vec<_> = reviewed.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "the review is out of step with `vox lint --determinism tests/corpus examples`:\n\
         not reviewed yet: {new:#?}\nno longer reported: {gone:#?}"
    );
    for (code, (tp, fp)) in per_code {
        let precision = tp as f64 / (tp + fp) as f64;
        assert!(
            precision >= 0.95,
            "{code}: precision {precision:.2} ({tp} true, {fp} false positives) is below 0.95"
        );
    }
}
