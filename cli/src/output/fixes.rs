//! `--fix` and `--diff`: apply the fixes of the findings (safe ones, unsafe ones too with
//! `--unsafe-fixes`), at most one fix per finding, skipping any edit that overlaps one already
//! taken in the same file.

use std::collections::BTreeMap;
use std::path::PathBuf;

use vox_lints::{Applicability, Edit, Finding};

use crate::workspace::Loaded;

/// Applies the fixes (or, with `diff`, prints them as a diff): `Ok(how many)`, or `Err(exit
/// code)` when a file could not be written.
pub fn apply(
    loaded: &Loaded,
    findings: &[Finding],
    unsafe_ok: bool,
    diff: bool,
) -> Result<usize, i32> {
    let mut per_file: BTreeMap<PathBuf, Vec<Edit>> = BTreeMap::new();
    let mut applied = 0usize;
    for f in findings {
        let Some(fix) = f
            .fixes
            .iter()
            .find(|x| unsafe_ok || x.applicability == Applicability::Safe)
        else {
            continue;
        };
        // A fix applies whole or not at all.
        let clash = fix.edits.iter().any(|e| {
            per_file.get(e.file.as_path()).is_some_and(|taken| {
                taken.iter().any(|t| {
                    t.range.start < e.range.end.max(e.range.start + 1)
                        && e.range.start < t.range.end.max(t.range.start + 1)
                })
            })
        });
        if clash {
            continue;
        }
        for e in &fix.edits {
            per_file
                .entry(e.file.to_path_buf())
                .or_default()
                .push(e.clone());
        }
        applied += 1;
    }
    let files = loaded.ws.files(&loaded.db);
    let mut out = String::new();
    for (path, mut edits) in per_file {
        // Run configurations (C001, C002, D003, D006 fixes) are not in the database: read them.
        let old = match files.get(&path) {
            Some(src) => src.text(&loaded.db).peek().to_vec(),
            None => match std::fs::read(&path) {
                Ok(t) => t,
                // A fix that creates the file (a new run configuration in Vox.toml).
                Err(e)
                    if e.kind() == std::io::ErrorKind::NotFound
                        && edits
                            .iter()
                            .all(|e| e.range.is_empty() && e.range.start == 0) =>
                {
                    Vec::new()
                }
                Err(_) => continue,
            },
        };
        edits.sort_by_key(|e| std::cmp::Reverse((e.range.start, e.range.end)));
        let mut new = old.clone();
        for e in &edits {
            let (s, t) = (e.range.start as usize, e.range.end as usize);
            if t <= new.len() && s <= t {
                new.splice(s..t, e.new_text.bytes());
            }
        }
        if diff {
            out.push_str(&unified_diff(&path, &old, &new));
        } else if let Err(e) = std::fs::write(&path, &new) {
            eprintln!("vox: cannot write {}: {e}", path.display());
            return Err(2);
        }
    }
    if diff {
        print!("{out}");
    }
    Ok(applied)
}

/// A minimal unified diff (whole-line hunks with 3 lines of context).
fn unified_diff(path: &std::path::Path, old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let mut pre = 0;
    while pre < a.len() && pre < b.len() && a[pre] == b[pre] {
        pre += 1;
    }
    let mut suf = 0;
    while suf < a.len() - pre && suf < b.len() - pre && a[a.len() - 1 - suf] == b[b.len() - 1 - suf]
    {
        suf += 1;
    }
    if pre == a.len() && pre == b.len() {
        return String::new();
    }
    let ctx = 3;
    let start = pre.saturating_sub(ctx);
    let a_end = (a.len() - suf + ctx).min(a.len());
    let b_end = (b.len() - suf + ctx).min(b.len());
    let mut s = format!(
        "--- {p}\n+++ {p}\n@@ -{},{} +{},{} @@\n",
        start + 1,
        a_end - start,
        start + 1,
        b_end - start,
        p = path.display()
    );
    let line = |s: &mut String, prefix: char, l: &str| {
        s.push(prefix);
        s.push_str(l);
        if !l.ends_with('\n') {
            s.push_str("\n\\ No newline at end of file\n");
        }
    };
    for l in &a[start..pre] {
        line(&mut s, ' ', l);
    }
    for l in &a[pre..a.len() - suf] {
        line(&mut s, '-', l);
    }
    for l in &b[pre..b.len() - suf] {
        line(&mut s, '+', l);
    }
    for l in &a[a.len() - suf..a_end] {
        line(&mut s, ' ', l);
    }
    s
}
