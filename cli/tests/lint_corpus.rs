//! The labelled lint corpus (tests/lint/README.md): for every rule, the lines `vox lint` reports
//! must be exactly the lines marked `//~ CODE` in that rule's folder. Precision and recall are
//! computed per rule and printed; both must be 100%.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::vox_in;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/lint")
}

fn vox_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            vox_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "vox") {
            out.push(p);
        }
    }
}

/// `(relative file, line)` of every `//~ CODE` marker in the folder.
fn expected(dir: &Path, code: &str) -> BTreeSet<(String, u32)> {
    let mut files = Vec::new();
    vox_files(dir, &mut files);
    let mut out = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let rel = f.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
        for (i, line) in text.lines().enumerate() {
            if let Some(pos) = line.find("//~") {
                if line[pos + 3..].split_whitespace().any(|c| c == code) {
                    out.insert((rel.clone(), i as u32 + 1));
                }
            }
        }
    }
    out
}

fn reported(dir: &Path, code: &str) -> BTreeSet<(String, u32)> {
    let select = code.to_string();
    let (status, stdout, stderr) =
        vox_in(dir, &["lint", "--format", "json", "--select", &select, "."]);
    assert!(
        status == 0 || status == 1,
        "vox lint failed in {}: {stderr}",
        dir.display()
    );
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code && f["file"].as_str().unwrap().ends_with(".vox"))
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["range"]["start"]["line"].as_u64().unwrap() as u32,
            )
        })
        .collect()
}

const RULES: &[&str] = &[
    "D001", "D002", "D003", "D004", "D005", "D006", "D007", "I001", "I002", "I003", "I004", "C001",
    "C002", "C003", "C004", "C005",
];

#[test]
fn every_rule_has_full_precision_and_recall() {
    let mut report = String::new();
    let mut failures = Vec::new();
    for code in RULES {
        let dir = corpus().join(code);
        let (mut flag, mut ok) = (0, 0);
        for e in std::fs::read_dir(&dir).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".vox") {
                if name.starts_with("flag_") {
                    flag += 1;
                } else if name.starts_with("ok_") {
                    ok += 1;
                }
            }
        }
        assert!(
            flag >= 10 && ok >= 10,
            "{code}: {flag} flag and {ok} ok scripts (10 each needed)"
        );
        let want = expected(&dir, code);
        let got = reported(&dir, code);
        let tp = want.intersection(&got).count();
        let fp: Vec<_> = got.difference(&want).collect();
        let fn_: Vec<_> = want.difference(&got).collect();
        let precision = if got.is_empty() {
            1.0
        } else {
            tp as f64 / got.len() as f64
        };
        let recall = if want.is_empty() {
            1.0
        } else {
            tp as f64 / want.len() as f64
        };
        report.push_str(&format!(
            "{code}: {flag} flag / {ok} ok scripts, {} markers, precision {:.1}%, recall {:.1}%\n",
            want.len(),
            precision * 100.0,
            recall * 100.0
        ));
        for (f, l) in &fp {
            failures.push(format!("{code}: reported but not marked: {f}:{l}"));
        }
        for (f, l) in &fn_ {
            failures.push(format!("{code}: marked but not reported: {f}:{l}"));
        }
    }
    println!("{report}");
    assert!(failures.is_empty(), "{report}\n{}", failures.join("\n"));
}
