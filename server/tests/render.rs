//! Issue 20, acceptance 4: on a file with findings in every function, an edit converts the
//! findings of what it changed, not the file's. Counted (`RenderCache::made`), not timed.

use std::path::Path;

use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};
use vox_lints::Placed;
use vox_server::render::RenderCache;
use vox_server::session::{Session, Settings};
use vox_server::Encoding;

/// `n` functions, each with clock reads, host math and unchecked arithmetic (D003, D001, D004),
/// and a `main` calling some of them (chains).
fn dense(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&format!(
            "fn work_{i}(items: list[int], scale: float) to int {{
    let mut total = 0
    let base = {lit}
    for x in items {{
        total = total + x * base
    }}
    let angle = scale.sin()
    print(\"ab\", scale.cos())
    let stamp = time.now_ms()
    print(angle, stamp, \"é😀\")
    return total
}}
",
            lit = 100 + i
        ));
    }
    out.push_str("fn main() {\n");
    for i in (0..n).step_by(10) {
        out.push_str(&format!("    print(work_{i}([1, 2, 3], 0.5))\n"));
    }
    out.push_str("}\n");
    out
}

fn pos(text: &str, offset: usize) -> Position {
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    Position::new(line, text[start..offset].encode_utf16().count() as u32)
}

fn check(session: &Session, cache: &mut RenderCache, path: &Path) -> usize {
    let snap = session.snapshot();
    // What a publish renders: the memo's findings, placed where an edit moved them.
    let findings = snap.shown_findings(path);
    let rendered: Vec<serde_json::Value> = cache
        .render(&snap, path, findings.clone())
        .iter()
        .map(|j| serde_json::from_str(j).unwrap())
        .collect();
    let findings: Vec<_> = findings.into_iter().map(Placed::into_finding).collect();
    let converted: Vec<serde_json::Value> = vox_server::to_diagnostics(&snap, &findings)
        .iter()
        .map(|d| serde_json::to_value(d).unwrap())
        .collect();
    assert_eq!(rendered, converted);
    findings.len()
}

/// A session on a new folder `vox-render-NAME-PID` holding `file`, opened with `text`; the
/// folder and the file's path.
fn open(name: &str, file: &str, text: &str) -> (Session, std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("vox-render-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let path = dir.join(file);
    let uri = Uri::from_file_path(&path).unwrap();
    let mut session = Session::load(dir.clone(), Settings::defaults(), Encoding::Utf16);
    session.open(path.clone(), uri, text.to_string(), 1);
    (session, dir, path)
}

#[test]
fn an_edit_converts_only_the_findings_of_what_it_changed() {
    let mut text = dense(200);
    let (mut session, dir, path) = open("dense", "dense.vox", &text);
    let mut cache = RenderCache::default();
    let total = check(&session, &mut cache, &path);
    assert!(total >= 400, "only {total} findings");
    // The first publish converts each distinct finding once (functions alike in everything but
    // their place share a template).
    assert!(cache.made > 0 && cache.made <= total);
    let mut version = 1;
    let mut edit = |session: &mut Session, text: &mut String, a: usize, b: usize, new: &str| {
        let range = Range::new(pos(text, a), pos(text, b));
        text.replace_range(a..b, new);
        version += 1;
        let change = TextDocumentContentChangeEvent {
            range: Some(range),
            range_length: None,
            text: new.to_string(),
        };
        assert!(session.change(&path, vec![change], version));
    };
    // A digit inside one function: that function's findings at most.
    let at = text.find("let base = 150").unwrap() + "let base = 1".len();
    edit(&mut session, &mut text, at, at + 1, "7");
    let total = check(&session, &mut cache, &path);
    assert!(cache.made <= 4, "{} of {total} converted again", cache.made);
    // Nothing moved: every other finding's JSON is the last publish's, taken whole.
    assert!(
        cache.reused + 4 >= total,
        "{} of {total} taken whole from the last publish",
        cache.reused
    );
    // Lines added above half the file: everything below moves down, nothing is converted
    // again but the edited function's findings.
    let at = text.find("fn work_100(").unwrap();
    let at = at + text[at..].find('\n').unwrap() + 1;
    edit(
        &mut session,
        &mut text,
        at,
        at,
        "    let extra = 1\n    print(extra)\n",
    );
    let total = check(&session, &mut cache, &path);
    assert!(
        cache.made <= 4,
        "{} of {total} converted again after a shift",
        cache.made
    );
    // What lies above the new lines is taken whole; what moved is not.
    assert!(
        cache.reused >= total / 3 && cache.reused < total * 2 / 3,
        "{} of {total} taken whole after a shift",
        cache.reused
    );
    // Typing on a line shifts columns on that line only.
    let at = text.find("let angle = scale.sin()").unwrap();
    edit(&mut session, &mut text, at, at, "  ");
    let total = check(&session, &mut cache, &path);
    assert!(
        cache.made <= 4,
        "{} of {total} converted again after typing",
        cache.made
    );
    // Every finding on another line keeps its line and column: its JSON is the last publish's,
    // taken whole, on either side of the edit.
    assert!(
        cache.reused + 4 >= total,
        "{} of {total} taken whole after typing on one line",
        cache.reused
    );
    // Edits of the same length that move what follows them without moving its bytes: a line
    // break where a space was (every later line moves down), and a two-byte character where two
    // one-byte ones were (later columns on that line move left in UTF-16). Nothing they moved may
    // be taken whole.
    let at = text.find("fn work_60(").unwrap();
    let at = at + text[at..].find("let mut total = 0").unwrap() + "let mut total".len();
    edit(&mut session, &mut text, at, at + 1, "\n");
    let total = check(&session, &mut cache, &path);
    assert!(
        cache.reused < total * 2 / 3,
        "{} of {total} taken whole",
        cache.reused
    );
    let at = text.find("fn work_70(").unwrap();
    let at = at + text[at..].find("print(\"ab\"").unwrap() + "print(\"".len();
    edit(&mut session, &mut text, at, at + 2, "á");
    check(&session, &mut cache, &path);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Published diagnostics show no fix, so the lint behind them builds none: not even the
/// run-configuration fixes of a clock read (D003), which code actions still get.
#[test]
fn published_findings_carry_no_fixes() {
    let (session, dir, path) = open(
        "fixes",
        "clock.vox",
        "fn main() {\n    print(time.now_ms())\n}\n",
    );
    let snap = session.snapshot();
    let d003 = |fs: Vec<std::sync::Arc<vox_lints::Finding>>| {
        fs.into_iter()
            .find(|f| f.code == "D003")
            .expect("a D003 finding")
    };
    assert!(!d003(snap.findings(&path)).fixes.is_empty());
    let shown = snap.shown_findings(&path);
    assert!(d003(shown.into_iter().map(Placed::into_finding).collect())
        .fixes
        .is_empty());
    drop(snap);
    let _ = std::fs::remove_dir_all(&dir);
}
