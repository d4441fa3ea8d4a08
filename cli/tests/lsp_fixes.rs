//! Every fix docs/rules documents is a quick fix of the server. Each rule page lists its fixes
//! in a table under "## Fix offered" (`| \`id\` | safe or unsafe | what |`); for each
//! (rule, fix) tests/lsp/fixes/ holds at least one fixture `CODE.id[.variant].txt` that
//! triggers it. The test opens the fixture in a fresh workspace, asks the server for the code
//! actions at the finding (in the script, or at the run configuration entry for `ask:
//! Vox.toml`), and checks that the fix is there as a `quickfix` for that diagnostic, preferred
//! exactly when it is safe, and that applying its edit (resolved when the client resolves)
//! gives the expected files.
//!
//! Fixture format (txtar-like): header lines `key: value` (`title:` the action's title,
//! required; `ask:` the file to ask in, default the first script; `line:` the 1-based line of
//! the finding when there are several), then `-- FILE --` sections for the workspace and
//! `-- expect FILE --` sections for the files after the fix (files without one must not
//! change).

mod lsp_common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lsp_common::{apply_workspace_edit, uri, Lsp, TempDir};
use serde_json::{json, Value};

/// (rule, fix id) → "safe" / "unsafe", from the tables in docs/rules/*.md.
fn documented() -> BTreeMap<(String, String), String> {
    let dir = lsp_common::repo().join("docs/rules");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let code = p.file_stem().unwrap().to_string_lossy().into_owned();
        if code == "README" {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let Some(section) = text.split("\n## Fix offered\n").nth(1) else {
            panic!("{}: no \"## Fix offered\" section", p.display());
        };
        let section = section.split("\n## ").next().unwrap();
        let mut rows = 0;
        for line in section.lines() {
            let Some(rest) = line.strip_prefix("| `") else {
                continue;
            };
            let (id, rest) = rest.split_once('`').unwrap();
            let cells: Vec<&str> = rest.split('|').map(str::trim).collect();
            let safety = cells.get(1).copied().unwrap_or("");
            assert!(
                safety == "safe" || safety == "unsafe",
                "{}: fix `{id}` says {safety:?}, not safe or unsafe",
                p.display()
            );
            out.insert((code.clone(), id.to_string()), safety.to_string());
            rows += 1;
        }
        // A page says either "None" or lists its fixes.
        let none = section.trim_start().starts_with("None");
        assert!(
            none != (rows > 0),
            "{}: the \"Fix offered\" section must start with None or list the fixes in a table",
            p.display()
        );
    }
    out
}

struct Fixture {
    name: String,
    rule: String,
    fix: String,
    header: BTreeMap<String, String>,
    files: Vec<(String, String)>,
    expect: BTreeMap<String, String>,
}

fn fixtures() -> Vec<Fixture> {
    let dir = lsp_common::repo().join("tests/lsp/fixes");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    paths.iter().map(|p| parse_fixture(p)).collect()
}

fn parse_fixture(p: &Path) -> Fixture {
    let name = p.file_stem().unwrap().to_string_lossy().into_owned();
    let mut parts = name.splitn(3, '.');
    let rule = parts.next().unwrap().to_string();
    let fix = parts
        .next()
        .unwrap_or_else(|| panic!("{name}: name it CODE.fix[.variant].txt"))
        .to_string();
    let text = std::fs::read_to_string(p).unwrap();
    let mut header = BTreeMap::new();
    let mut files = Vec::new();
    let mut expect = BTreeMap::new();
    let mut current: Option<(bool, String, String)> = None;
    let mut flush = |c: Option<(bool, String, String)>| {
        if let Some((is_expect, file, body)) = c {
            if is_expect {
                expect.insert(file, body);
            } else {
                files.push((file, body));
            }
        }
    };
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        if let Some(h) = bare.strip_prefix("-- ").and_then(|x| x.strip_suffix(" --")) {
            flush(current.take());
            current = Some(match h.strip_prefix("expect ") {
                Some(f) => (true, f.to_string(), String::new()),
                None => (false, h.to_string(), String::new()),
            });
        } else if let Some((_, _, body)) = current.as_mut() {
            body.push_str(line);
        } else if let Some((k, v)) = bare.split_once(": ") {
            header.insert(k.to_string(), v.to_string());
        }
    }
    flush(current.take());
    assert!(header.contains_key("title"), "{name}: no `title:` line");
    assert!(!expect.is_empty(), "{name}: no `-- expect FILE --` section");
    Fixture {
        name,
        rule,
        fix,
        header,
        files,
        expect,
    }
}

/// Runs one fixture; `Err` says what is wrong.
fn check(fx: &Fixture, safety: &str) -> Result<(), String> {
    let ws = TempDir::new("fixes-doc");
    for (f, body) in &fx.files {
        ws.write(f, body);
    }
    let ask = fx.header.get("ask").cloned().unwrap_or_else(|| {
        fx.files
            .iter()
            .find(|(f, _)| f.ends_with(".vox"))
            .map(|(f, _)| f.clone())
            .expect("a script")
    });
    let ask_path = ws.path(&ask);
    // neovim resolves edits lazily (codeAction/resolve); the edit is the same either way.
    let mut lsp = Lsp::start(&ws.0, "neovim");
    lsp.open_file(&ask_path);
    let diags = lsp.diagnostics(&ask_path);
    let line: Option<u64> = fx.header.get("line").map(|l| l.parse::<u64>().unwrap() - 1);
    let Some(diag) = diags.iter().find(|d| {
        d["code"] == fx.rule.as_str()
            && line.is_none_or(|l| d["range"]["start"]["line"].as_u64() == Some(l))
    }) else {
        return Err(format!("no {} diagnostic in {ask}: {diags:#?}", fx.rule));
    };
    let actions = lsp
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri(&ask_path)},
                "range": diag["range"],
                "context": {"diagnostics": [diag], "only": ["quickfix"]},
            }),
        )
        .map_err(|e| format!("codeAction: {e}"))?;
    let actions = actions.as_array().cloned().unwrap_or_default();
    let title = &fx.header["title"];
    let Some(a) = actions.iter().find(|a| a["title"] == title.as_str()) else {
        let titles: Vec<&Value> = actions.iter().map(|a| &a["title"]).collect();
        return Err(format!(
            "no action {title:?} at the finding; got {titles:?}"
        ));
    };
    if a["kind"] != "quickfix" {
        return Err(format!("kind {}, not quickfix", a["kind"]));
    }
    if a["diagnostics"][0]["code"] != fx.rule.as_str() {
        return Err(format!("not attached to the {} diagnostic: {a}", fx.rule));
    }
    let preferred = a["isPreferred"] == true;
    if preferred != (safety == "safe") {
        return Err(format!(
            "isPreferred is {preferred} for a fix the docs call {safety}"
        ));
    }
    let edit = lsp.action_edit(a);
    apply_workspace_edit(&edit, lsp.utf8);
    let _ = lsp.shutdown();
    let mut wrong = Vec::new();
    for (f, before) in &fx.files {
        let now = std::fs::read_to_string(ws.path(f)).unwrap_or_default();
        let want = fx.expect.get(f).unwrap_or(before);
        if &now != want {
            wrong.push(format!("{f}:\n--- expected\n{want}--- got\n{now}"));
        }
    }
    for (f, want) in &fx.expect {
        if !fx.files.iter().any(|(g, _)| g == f) {
            let now = std::fs::read_to_string(ws.path(f)).unwrap_or_default();
            if &now != want {
                wrong.push(format!("{f} (new):\n--- expected\n{want}--- got\n{now}"));
            }
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n"))
    }
}

#[test]
fn every_documented_fix_is_a_quick_fix() {
    let docs = documented();
    let fixtures = fixtures();
    let covered: BTreeSet<(String, String)> = fixtures
        .iter()
        .map(|f| (f.rule.clone(), f.fix.clone()))
        .collect();
    let untested: Vec<_> = docs.keys().filter(|k| !covered.contains(*k)).collect();
    assert!(
        untested.is_empty(),
        "documented fixes without a fixture in tests/lsp/fixes: {untested:?}"
    );
    let mut failures = Vec::new();
    let mut runnable = Vec::new();
    for fx in &fixtures {
        let key = (fx.rule.clone(), fx.fix.clone());
        match docs.get(&key) {
            Some(safety) => runnable.push((fx, safety.as_str())),
            None => failures.push(format!(
                "{}: docs/rules/{}.md documents no fix `{}`",
                fx.name, fx.rule, fx.fix
            )),
        }
    }
    // A few servers at a time: most of a fixture's time is the server starting and ending.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((fx, safety)) = runnable.get(i) else {
                    return;
                };
                if let Err(e) = check(fx, safety) {
                    found.lock().unwrap().push(format!("{}: {e}", fx.name));
                }
            });
        }
    });
    failures.extend(found.into_inner().unwrap());
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n\n{}",
        failures.len(),
        fixtures.len(),
        failures.join("\n\n")
    );
    // Every rule that documents a fix was exercised (the table parse found them).
    let rules: BTreeSet<&String> = docs.keys().map(|(r, _)| r).collect();
    assert!(rules.len() >= 10, "only {rules:?} document fixes");
}
