//! Incrementality, read from salsa's event log (analysis issue, acceptance 5): a workspace of
//! three files and 24 functions; an edit inside one body near the top of a file (shifting every
//! later offset) re-runs only that function's facts and summary; a summary that stays equal does
//! not re-run its callers; adding a clock read deep down re-runs the chain up to `main`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use salsa::plumbing::AsId;
use salsa::Setter;

use vox_analysis::{
    file_items, fn_base, fn_facts, inferred_caps, summary, AnalysisDb, EventLog, FnFacts,
    SourceFile, Text, Workspace,
};

mod common;
use common::in_file;

const MAIN: &str = r#"import "./lib/util.vox"
import "./lib/report.vox"

fn a1(n: int) to int {
    let x = n * 2
    x
}

fn a2(n: int) to int { a1(n) + 1 }
fn a3() to str { "a3" }
fn a4() to str { a3() }
fn a5(xs: list[int]) to int { len(xs) }
fn a6() to int { a2(3) }
fn a7() to str { fmt_line("x") }
fn a8() to str { a7() }

fn main() {
    print(a6(), a4(), a8(), a5([1, 2]))
    write_report()
}
"#;

const UTIL: &str = r#"pub fn fmt_line(s: str) to str { "- " + s }
pub fn u2() to str { fmt_line("u2") }
pub fn u3() to int { 3 }
fn u4() to int { u3() }
pub fn u5() to int { u4() }
pub fn stamp() to str { "2024-01-01" }
pub fn u7() to str { stamp() }
pub fn u8() to str { "u8" }
"#;

const REPORT: &str = r#"import "./util.vox"

pub fn header() to str { "report" }
fn body_line() to str { u7() }
fn section() to str { body_line() }
pub fn write_report() {
    print(header())
    print(section())
}
fn r5() to int { u5() }
fn r6() to int { r5() }
"#;

struct Ws {
    db: AnalysisDb,
    log: EventLog,
    files: BTreeMap<&'static str, SourceFile>,
}

fn setup() -> Ws {
    let (mut db, log) = AnalysisDb::with_log(vox_runtime::catalog::Catalog::get());
    let mut files = BTreeMap::new();
    let mut map = BTreeMap::new();
    for (name, path, text) in [
        ("main", "/ws/main.vox", MAIN),
        ("util", "/ws/lib/util.vox", UTIL),
        ("report", "/ws/lib/report.vox", REPORT),
    ] {
        // As an editor has them once it changed them: each function lowered with its scope.
        let f = SourceFile::builder(PathBuf::from(path), Text::new(Arc::from(text.as_bytes())))
            .edited(true)
            .new(&db);
        files.insert(name, f);
        map.insert(PathBuf::from(path), f);
    }
    let ws = Workspace::create(&db, PathBuf::from("/ws"), Arc::new(map));
    db.set_workspace(ws);
    Ws { db, log, files }
}

/// Computes every function's facts and summary and the main file's capabilities.
fn analyse(w: &Ws) -> usize {
    let mut n = 0;
    for f in w.files.values() {
        for def in file_items(&w.db, *f).all() {
            let _ = fn_facts(&w.db, def);
            let _ = summary(&w.db, def);
            n += 1;
        }
    }
    let _ = inferred_caps(&w.db, w.files["main"]);
    n
}

/// The functions whose `query` ran, by name, from the log.
fn ran(w: &Ws, lines: &[String], query: &str) -> Vec<String> {
    let mut ids = BTreeMap::new();
    for f in w.files.values() {
        for def in file_items(&w.db, *f).all() {
            ids.insert(format!("{:?}", def.as_id()), def.name(&w.db).to_string());
        }
    }
    let mut out: Vec<String> = lines
        .iter()
        .filter_map(|l| {
            let rest = l.strip_prefix(query)?.strip_prefix('(')?;
            let id = rest.strip_suffix(')')?;
            ids.get(id).cloned()
        })
        .collect();
    out.sort();
    out
}

fn edit(w: &mut Ws, file: &str, from: &str, to: &str) {
    let f = w.files[file];
    let text = String::from_utf8(f.text(&w.db).get().to_vec()).unwrap();
    assert!(text.contains(from), "{from:?} not in {file}");
    let new = text.replacen(from, to, 1);
    f.set_text(&mut w.db)
        .to(Text::new(Arc::from(new.as_bytes())));
}

#[test]
fn an_edit_in_one_body_reruns_only_that_function() {
    let mut w = setup();
    assert!(analyse(&w) >= 20, "the workspace has 20 or more functions");
    let _ = w.log.take();
    // Inside a1's body near the top of main.vox; every later offset shifts by one.
    edit(&mut w, "main", "n * 2", "n * 22");
    analyse(&w);
    let log = w.log.take();
    assert_eq!(ran(&w, &log, "fn_facts"), ["a1"], "log: {log:#?}");
    assert_eq!(ran(&w, &log, "summary"), ["a1"], "log: {log:#?}");
    // a1's summary is equal, so a2, a6 and main did not re-run theirs.
    assert!(!ran(&w, &log, "summary").contains(&"a2".to_string()));
}

#[test]
fn a_comment_above_every_function_reruns_no_facts() {
    let mut w = setup();
    analyse(&w);
    let _ = w.log.take();
    // A line inserted above every function of main.vox shifts all of them.
    edit(
        &mut w,
        "main",
        "fn a1(",
        "// moved down by a comment\nfn a1(",
    );
    analyse(&w);
    let log = w.log.take();
    assert!(ran(&w, &log, "fn_facts").is_empty(), "log: {log:#?}");
    assert!(ran(&w, &log, "summary").is_empty(), "log: {log:#?}");
}

#[test]
fn a_new_clock_read_reruns_the_chain_up_to_main() {
    let mut w = setup();
    analyse(&w);
    let _ = w.log.take();
    // stamp() now reads the clock: stamp ← u7 ← body_line ← section ← write_report ← main.
    edit(
        &mut w,
        "util",
        r#"pub fn stamp() to str { "2024-01-01" }"#,
        "pub fn stamp() to str { str(time.now_ms()) }",
    );
    analyse(&w);
    let log = w.log.take();
    assert_eq!(ran(&w, &log, "fn_facts"), ["stamp"], "log: {log:#?}");
    assert_eq!(
        ran(&w, &log, "summary"),
        [
            "body_line",
            "main",
            "section",
            "stamp",
            "u7",
            "write_report"
        ],
        "log: {log:#?}"
    );
    let caps = inferred_caps(&w.db, w.files["main"]);
    assert!(caps
        .needs
        .iter()
        .any(|n| n.effect.kind == vox_analysis::EffectKind::Time));
}

/// A statement typed between two functions of a file with `fn main` (what starting to type
/// there looks like: a synthetic main appears, with its error) lowers no function again but the
/// synthetic main.
#[test]
fn a_statement_typed_between_functions_lowers_no_function_again() {
    let mut w = setup();
    analyse(&w);
    let _ = w.log.take();
    edit(&mut w, "main", "fn a3()", "f\nfn a3()");
    analyse(&w);
    let log = w.log.take();
    assert_eq!(
        ran(&w, &log, "fn_facts"),
        vec!["<main>".to_string()],
        "{log:#?}"
    );
}

/// A function being typed between two others (its name and parameters growing, one keystroke
/// at a time) changes the file's items at every step; the other functions' facts stay equal
/// and are not computed again (each is lowered with the part of the items its names reach).
#[test]
fn a_new_function_typed_between_others_lowers_only_itself() {
    let mut w = setup();
    analyse(&w);
    edit(&mut w, "main", "fn a3()", "fn fresh() {\n}\n\nfn a3()");
    analyse(&w);
    let _ = w.log.take();
    for (from, to) in [
        ("fn fresh()", "fn fresher()"),
        ("fn fresher()", "fn fresher(n: int)"),
        ("fn fresher(n: int)", "fn fresher(n: int) to int"),
    ] {
        edit(&mut w, "main", from, to);
        analyse(&w);
        let log = w.log.take();
        assert_eq!(
            ran(&w, &log, "fn_facts"),
            vec!["fresher".to_string()],
            "{to}: {log:#?}"
        );
    }
}

/// Only the files an editor has changed lower their functions with scopes of their own: a
/// workspace's other files keep none (a scope per function of a large workspace is tens of
/// megabytes), and marking a file edited gives its functions theirs, with equal facts.
#[test]
fn only_edited_files_keep_function_scopes() {
    let (mut db, log) = AnalysisDb::with_log(vox_runtime::catalog::Catalog::get());
    let path = PathBuf::from("/ws/main.vox");
    let f = SourceFile::new(&db, path.clone(), Text::new(Arc::from(MAIN.as_bytes())));
    let ws = Workspace::create(&db, PathBuf::from("/ws"), Arc::new([(path, f)].into()));
    db.set_workspace(ws);
    let all = |db: &AnalysisDb| -> Vec<FnFacts> {
        file_items(db, f)
            .all()
            .map(|d| fn_facts(db, d).clone())
            .collect()
    };
    let before = all(&db);
    let named = file_items(&db, f)
        .all()
        .filter(|d| &**d.name(&db) != "<main>")
        .count();
    let scopes = |log: &EventLog| {
        log.take()
            .iter()
            .filter(|l| l.starts_with("fn_scope("))
            .count()
    };
    assert_eq!(
        scopes(&log),
        0,
        "an unedited file's functions keep no scope"
    );
    f.set_edited(&mut db).to(true);
    let after = all(&db);
    assert!(named >= 8);
    assert_eq!(
        scopes(&log),
        named,
        "each function but a synthetic main has one"
    );
    assert_eq!(before, after);
}

/// In an editor the synthetic main parses a copy of its file with everything but the top-level
/// statements blanked, not the whole file again; its facts are what the command line's whole
/// parse gives, for statements before, between and after functions, and after an edit.
#[test]
fn the_synthetic_main_reads_only_the_top_level_statements() {
    let texts = [
        "let t = time.now_ms()\nfn helper(n: int) to int {\n    return n * 2\n}\nprint(helper(3), t)\nfn other() {\n    for k in {\"a\": 1}.keys() {\n        print(k)\n    }\n}\nother()\nlet m = {\"x\": 1}\nfor k in m.keys() {\n    print(k, env.get(\"HOME\"))\n}\n",
        "fn a() {\n    print(1)\n}\n\nf\nfn main() {\n    a()\n}\n",
        "// lead\nprint(math.sin(1.0)) fn b() to float {\n    return math.cos(2.0)\n}\nprint(b())\n",
    ];
    for text in texts {
        // The editor's database sees an earlier version first, then the edit to `text`.
        let earlier = text.replacen("print(", "print(0, ", 1);
        let facts = |versions: &[&str]| {
            let mut db = AnalysisDb::new(vox_runtime::catalog::Catalog::get());
            if versions.len() == 1 {
                db.set_fixed_texts();
            }
            let bytes = |t: &str| Text::new(Arc::from(t.as_bytes()));
            let f = SourceFile::builder(PathBuf::from("/ws/s.vox"), bytes(versions[0]))
                .edited(versions.len() > 1)
                .new(&db);
            let mut map = BTreeMap::new();
            map.insert(PathBuf::from("/ws/s.vox"), f);
            let ws = Workspace::create(&db, PathBuf::from("/ws"), Arc::new(map));
            db.set_workspace(ws);
            let mut out = None;
            for (i, t) in versions.iter().enumerate() {
                if i > 0 {
                    f.set_text(&mut db).to(bytes(t));
                }
                let main = file_items(&db, f).main.expect("a synthetic main");
                let source = main.text(&db).bytes().to_vec();
                // In file offsets: an editor's main text starts at the first element.
                let shown = format!("{:?}", fn_facts(&db, main));
                let base = fn_base(&db, main) as usize;
                out = Some((in_file(&shown, base as u32), source, base));
            }
            out.expect("one version at least")
        };
        let (editor, source, base) = facts(&[&earlier, text]);
        let (cli, _, _) = facts(&[text]);
        assert_eq!(editor, cli, "{text}");
        assert_ne!(
            cli,
            facts(&[&earlier]).0,
            "the edit shows in the facts: {text}"
        );
        // From the file's first element (a statement, or the function before one; after the
        // comment that leads the third) to its last (one, or the function after one).
        let lead = if text.starts_with("// lead\n") { 8 } else { 0 };
        assert_eq!(base, lead);
        assert_eq!(source.len(), text.trim_end().len() - base);
        // Each function's text is gone from it (an empty function of the same length stands
        // in its place).
        let source = String::from_utf8_lossy(&source).into_owned();
        for f in text.split("\nfn ").skip(1) {
            let body = &f[f.find('{').unwrap()..];
            let body = &body[..body.find("\n}").unwrap() + 2];
            assert!(
                !source.contains(body),
                "the editor's main text still holds {body:?}: {source:?}"
            );
        }
    }
}
