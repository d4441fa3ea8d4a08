//! The conformance corpus (tests/corpus): every valid script parses without any diagnostic, every
//! malformed input gives exactly the codes its `// EXPECT:` line lists and the `vox check` output
//! in its `.snap` file, and every tree prints back its input. `UPDATE_SNAPSHOTS=1` rewrites snapshots.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

fn vox_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "vox"))
        .collect();
    out.sort();
    out
}

fn parse_big(bytes: Vec<u8>) -> vox_syntax::SyntaxTree {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || vox_syntax::parse(&bytes))
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn valid_scripts_parse_cleanly_and_round_trip() {
    let root = workspace().join("tests/corpus/valid");
    let mut files = vox_files(&root);
    files.extend(vox_files(&root.join("lib")));
    assert!(
        files.len() >= 80,
        "the corpus needs at least 80 valid scripts, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let tree = parse_big(bytes.clone());
        assert_eq!(tree.print(), bytes, "round trip of {}", path.display());
        for d in tree.diagnostics() {
            failures.push(format!(
                "{}: {} {:?} {}",
                path.display(),
                d.code,
                d.range,
                d.message
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "valid corpus scripts have diagnostics:\n{}",
        failures.join("\n")
    );
    println!("{} valid corpus scripts: clean", files.len());
}

fn expected_codes(text: &str) -> Option<Vec<String>> {
    let first = text.lines().next()?;
    let rest = first.strip_prefix("// EXPECT:")?;
    Some(
        rest.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
    )
}

#[test]
fn malformed_inputs_give_their_snapshotted_diagnostics() {
    let ws = workspace();
    let dir = ws.join("tests/corpus/malformed");
    let files = vox_files(&dir);
    assert!(
        files.len() >= 40,
        "the corpus needs at least 40 malformed inputs, found {}",
        files.len()
    );
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let rel = path.strip_prefix(&ws).unwrap();
        let Some(expected) = expected_codes(&text) else {
            failures.push(format!(
                "{}: first line must be `// EXPECT: code, …`",
                rel.display()
            ));
            continue;
        };
        let tree = parse_big(bytes.clone());
        assert_eq!(tree.print(), bytes, "round trip of {}", rel.display());
        let got: Vec<String> = tree
            .diagnostics()
            .iter()
            .map(|d| d.code.to_string())
            .collect();
        if got != expected {
            failures.push(format!(
                "{}: expected {:?}, got {:?}",
                rel.display(),
                expected,
                got
            ));
        }
        let out = Command::new(env!("CARGO_BIN_EXE_vox"))
            .arg("check")
            .arg(rel)
            .current_dir(&ws)
            .output()
            .unwrap();
        let has_errors = tree.has_errors();
        let code = out.status.code();
        if code != Some(if has_errors { 1 } else { 0 }) {
            failures.push(format!("{}: `vox check` exited {code:?}", rel.display()));
        }
        let rendered = String::from_utf8_lossy(&out.stdout).into_owned();
        let snap = path.with_extension("snap");
        if update || !snap.exists() {
            std::fs::write(&snap, &rendered).unwrap();
        } else {
            let want = std::fs::read_to_string(&snap).unwrap();
            if want != rendered {
                failures.push(format!(
                    "{}: `vox check` output differs from {} (UPDATE_SNAPSHOTS=1 to accept):\n--- want\n{want}\n--- got\n{rendered}",
                    rel.display(),
                    snap.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!(
        "{} malformed inputs: diagnostics and snapshots match",
        files.len()
    );
}
