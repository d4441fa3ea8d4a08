//! Issue 43: the work an edit costs does not grow with the workspace. An edit inside one
//! function of a script, in a workspace of N generated scripts importing shared libraries, is
//! followed by what the server computes for it (the script's published findings and its
//! inferred capabilities); salsa's event log counts the queries that ran again and the memos
//! that were checked. The same edit in workspaces of 10 and 1,000 scripts runs the same queries,
//! and checks memos in proportion to the workspace's groups, not its files (a loop over every
//! file would check a thousand more).

use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};
use vox_server::session::{inferred_tokens, Session, Settings};
use vox_server::Encoding;

const LIBS: usize = 5;

fn lib(k: usize) -> String {
    format!(
        "pub fn scale_{k}(x: int, by: int) to int {{\n    return x * by + {k}\n}}\n\n\
         pub fn names_{k}(dir: str) to list[str] {{\n    let mut out = []\n    for name in fs.list_dir(dir).unwrap() {{\n        out.push(name)\n    }}\n    return out\n}}\n"
    )
}

fn script(i: usize) -> String {
    let (a, b) = (i % LIBS, (i * 3 + 1) % LIBS);
    format!(
        "import \"../libs/lib_{a}.vox\" as la\nimport \"../libs/lib_{b}.vox\" as lb\n\n\
         fn step_{i}(n: int) to int {{\n    return lb.scale_{b}(la.scale_{a}(n, 2), 3)\n}}\n\n\
         fn main() {{\n    print(step_{i}({i}))\n    for name in la.names_{a}(\"data/In_{i}\") {{\n        print(name)\n    }}\n    print(fs.read_text(\"data/config.txt\").unwrap_or(\"\"))\n}}\n"
    )
}

/// The script being edited: functions with findings of every workspace-wide kind (D004 through
/// parameter ranges, D002/D007 through observed results, D005 literals, chains into a library).
fn edited() -> String {
    let mut s = String::from("import \"./libs/lib_0.vox\" as lib0\n\n");
    for i in 0..30 {
        s += &format!(
            "fn work_{i}(items: list[int], scale: int) to int {{\n    let mut total = 0\n    let base = 1{i}\n    for x in items {{\n        total = total + x * base * scale\n    }}\n    let m = {{\"a\": 1, \"b\": 2}}\n    for k in m.keys() {{\n        print(k)\n    }}\n    print(fs.read_text(\"Data/config.txt\").unwrap_or(\"\"))\n    return total + lib0.scale_0(scale, 2)\n}}\n\n"
        );
    }
    s += "fn main() {\n";
    for i in 0..30 {
        s += &format!("    print(work_{i}([1, 2, 3], {i}))\n");
    }
    s += "    print(lib0.names_0(\"data\"))\n}\n";
    s
}

fn workspace(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vox-edit-cost-{n}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("libs")).unwrap();
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    for k in 0..LIBS {
        std::fs::write(dir.join(format!("libs/lib_{k}.vox")), lib(k)).unwrap();
    }
    for i in 0..n {
        std::fs::write(dir.join(format!("scripts/s_{i}.vox")), script(i)).unwrap();
    }
    std::fs::write(dir.join("edited.vox"), edited()).unwrap();
    dir.canonicalize().unwrap()
}

fn position(text: &str, offset: usize) -> Position {
    let line = text[..offset].matches('\n').count() as u32;
    let col = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1);
    Position::new(line, col as u32)
}

/// What the server computes after a change of `path`: its published findings and its
/// inferred capabilities.
fn after_change(s: &Session, path: &Path) -> usize {
    let snap = s.snapshot();
    let n = snap.shown_findings(path).len();
    let _ = inferred_tokens(&snap, path, &snap.root);
    n
}

/// (queries executed, memos checked) by the third of three edits inside `work_12`'s body, and
/// how many findings the script has.
fn edit_cost(n: usize) -> (Vec<String>, usize, usize) {
    let dir = workspace(n);
    let path = dir.join("edited.vox");
    let (mut s, log) = Session::load_logged(dir.clone(), Settings::defaults(), Encoding::Utf16);
    let mut text = edited();
    let uri: Uri = format!("file://{}", path.display()).parse().unwrap();
    s.open(path.clone(), uri, text.clone(), 1);
    let findings = after_change(&s, &path);
    let at = text.find("let base = 112").unwrap() + "let base = 1".len();
    let mut cost = (Vec::new(), 0);
    for (version, digit) in [(2, "7"), (3, "8"), (4, "9")] {
        let range = Range::new(position(&text, at), position(&text, at + 1));
        text.replace_range(at..at + 1, digit);
        let change = TextDocumentContentChangeEvent {
            range: Some(range),
            range_length: None,
            text: digit.to_string(),
        };
        log.take();
        log.take_validated();
        assert!(s.change(&path, vec![change], version));
        assert_eq!(
            after_change(&s, &path),
            findings,
            "an edit of a literal changed the findings"
        );
        cost = (log.take(), log.take_validated());
    }
    let _ = std::fs::remove_dir_all(&dir);
    (cost.0, cost.1, findings)
}

/// The query names, without their keys.
fn names(executed: &[String]) -> Vec<String> {
    let mut v: Vec<String> = executed
        .iter()
        .map(|e| e.split('(').next().unwrap_or(e).to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn an_edit_costs_the_same_in_a_workspace_of_ten_and_of_a_thousand_scripts() {
    let (small, small_checked, small_findings) = edit_cost(10);
    let (large, large_checked, large_findings) = edit_cost(1000);
    assert!(small_findings >= 30, "the script has findings of its own");
    assert_eq!(small_findings, large_findings);
    assert!(
        !small.is_empty(),
        "the edit re-ran the edited function's queries"
    );
    assert_eq!(
        names(&small),
        names(&large),
        "the same edit re-ran other queries in the larger workspace"
    );
    // The function is parsed again, not the whole file (`parse` is the whole file's tree, which
    // the capabilities' check for syntax errors once asked for).
    assert!(
        !names(&small).iter().any(|n| n == "parse"),
        "the edit parsed the whole file: {small:?}"
    );
    // The edited file's group holds about 1000/64 files more in the larger workspace; a walk
    // over the workspace's files would check at least 1000 memos more.
    let groups = vox_analysis::GROUPS;
    eprintln!(
        "executed {:?}; checked {small_checked} among 10 scripts, {large_checked} among 1,000",
        names(&small)
    );
    assert!(
        large_checked <= small_checked + 2 * (1000 / groups + 1) * 4,
        "the edit checked {large_checked} memos among 1,000 scripts, {small_checked} among 10"
    );
}

/// A new function's name typed (the file's items change at each character): every function's
/// scope is computed again, from the words kept for its text (`fn_words`), which only the
/// renamed function's text makes again.
#[test]
fn typing_a_functions_name_reads_no_other_functions_text() {
    let dir = std::env::temp_dir().join(format!("vox-edit-cost-words-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut src: String = (0..20)
        .map(|i| format!("fn f{i}(x: float) to float {{\n    return x.sin() + {i}.0\n}}\n\n"))
        .collect();
    src.push_str("fn n() {\n}\n\nfn main() {\n    print(f0(1.0))\n}\n");
    std::fs::write(dir.join("main.vox"), &src).unwrap();
    let dir = dir.canonicalize().unwrap();
    let path = dir.join("main.vox");
    let (mut s, log) = Session::load_logged(dir.clone(), Settings::defaults(), Encoding::Utf16);
    let uri: Uri = format!("file://{}", path.display()).parse().unwrap();
    s.open(path.clone(), uri, src.clone(), 1);
    kept_after(&s, &path);
    let mut text = src;
    // A first edit makes the file an edited one (its functions lowered with their scopes).
    let at = text.find("+ 3.0").unwrap() + "+ ".len();
    change(&mut s, &path, &mut text, at, at, "1.0 + ", 2);
    kept_after(&s, &path);
    let at = text.find("fn n(").unwrap() + "fn n".len();
    for (version, c) in [(3, "e"), (4, "w")] {
        change(&mut s, &path, &mut text, at, at, c, version);
        log.take();
        kept_after(&s, &path);
        let ran = names(&log.take());
        let count = |q: &str| ran.iter().filter(|n| *n == q).count();
        assert!(count("fn_scope") >= 20, "every scope again: {ran:?}");
        assert!(
            count("fn_words") <= 1,
            "other functions' words again: {ran:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Replaces `text[a..b]` by `insert` in the open document, as an editor sends it.
fn change(
    s: &mut Session,
    path: &Path,
    text: &mut String,
    a: usize,
    b: usize,
    insert: &str,
    v: i32,
) {
    let range = Range::new(position(text, a), position(text, b));
    text.replace_range(a..b, insert);
    let change = TextDocumentContentChangeEvent {
        range: Some(range),
        range_length: None,
        text: insert.to_string(),
    };
    assert!(s.change(path, vec![change], v));
}

/// After each edit: the findings equal a lint without the memo, and how many functions' findings
/// the memo kept.
fn kept_after(s: &Session, path: &Path) -> usize {
    let snap = s.snapshot();
    let got = snap.shown_findings(path);
    let mut whole = s.snapshot();
    whole.memos = Default::default();
    assert_eq!(
        got,
        whole.shown_findings(path),
        "the memo's findings differ from a whole lint"
    );
    // And `vox lint`'s, where no file imports this one (which would report in it too).
    let file = snap.file(path).unwrap();
    if vox_analysis::importers_of(&snap.db, file).is_empty() {
        let opts = vox_lints::LintOptions {
            skip_fixes: true,
            ..snap.opts.clone()
        };
        let cli: Vec<vox_lints::Finding> = vox_lints::lint_file(&snap.db, file, &snap.info, &opts)
            .into_iter()
            .filter(|f| f.file == path)
            .collect();
        let got: Vec<vox_lints::Finding> = got
            .into_iter()
            .map(|p| std::sync::Arc::unwrap_or_clone(p.into_finding()))
            .collect();
        assert_eq!(got, cli, "the memo's findings differ from `vox lint`'s");
    }
    let memos = snap.memos.lock().unwrap();
    memos.get(&(path.to_path_buf(), true)).map_or(0, |m| m.kept)
}

/// The edited script opened in a workspace of three others, linted once: (workspace, its path,
/// the session, its text).
fn open_edited() -> (PathBuf, PathBuf, Session, String) {
    let dir = workspace(3);
    let path = dir.join("edited.vox");
    let mut s = Session::load(dir.clone(), Settings::defaults(), Encoding::Utf16);
    let text = edited();
    let uri: Uri = format!("file://{}", path.display()).parse().unwrap();
    s.open(path.clone(), uri, text.clone(), 1);
    kept_after(&s, &path);
    (dir, path, s, text)
}

/// A workspace of `files` (path, text) in a fresh directory named after `tag`, with `open`
/// opened and linted once: (workspace, the open file's path, the session, its text).
fn open_small(
    tag: &str,
    files: &[(&str, &str)],
    open: &str,
) -> (PathBuf, PathBuf, Session, String) {
    let dir = std::env::temp_dir().join(format!("vox-edit-cost-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (rel, text) in files {
        std::fs::write(dir.join(rel), text).unwrap();
    }
    let dir = dir.canonicalize().unwrap();
    let path = dir.join(open);
    let mut s = Session::load(dir.clone(), Settings::defaults(), Encoding::Utf16);
    let text = std::fs::read_to_string(&path).unwrap();
    let uri: Uri = format!("file://{}", path.display()).parse().unwrap();
    s.open(path.clone(), uri, text.clone(), 1);
    kept_after(&s, &path);
    (dir, path, s, text)
}

/// How many of the findings shown for `path` come as whole runs (a function's findings the
/// lint memo kept, passed through the lint's later stages and the render without being read one
/// by one), and as single findings.
fn pieces(s: &Session, path: &Path) -> (usize, usize) {
    let shown = s.snapshot().shown_findings(path);
    let runs = shown
        .pieces()
        .iter()
        .filter(|p| matches!(p, vox_lints::Piece::Run(..)))
        .count();
    (runs, shown.pieces().len() - runs)
}

/// Typing in one function hands out every function's findings as one run each; a suppression
/// in the file (which any finding may use) takes them apart, and the findings stay a whole
/// lint's (`kept_after` compares) either way.
#[test]
fn untouched_functions_findings_pass_as_runs_unless_a_suppression_may_apply() {
    let src = "fn a(x: float) to float {\n    return x.sin()\n}\n\nfn b(x: float) to float {\n    return x.cos()\n}\n\n\
               fn c() to int {\n    return time.now_ms()\n}\n\nfn main() {\n    print(a(1.0) + b(2.0))\n    print(c())\n}\n";
    let (dir, path, mut s, mut text) = open_small("runs", &[("main.vox", src)], "main.vox");
    let at = text.find("x.sin").unwrap();
    change(&mut s, &path, &mut text, at, at, "1.0 + ", 2);
    assert!(kept_after(&s, &path) >= 3);
    assert_eq!(pieces(&s, &path), (3, 0), "a run for each of a, b and c");
    let at = text.find("    return x.cos()").unwrap();
    change(
        &mut s,
        &path,
        &mut text,
        at,
        at,
        "    // vox:allow(D001): on purpose\n",
        3,
    );
    kept_after(&s, &path);
    let (runs, ones) = pieces(&s, &path);
    assert_eq!(
        runs, 0,
        "a suppression in the file: every finding one by one"
    );
    assert_eq!(ones, 2, "b's D001 suppressed, a's and c's shown");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run whose findings the options change (a `check.` warning raised to an error by
/// `[lint.severity]`, or not selected) is taken apart so that the lint's later stages change
/// them: the shown findings stay `vox lint`'s (`kept_after` compares).
#[test]
fn findings_the_options_change_are_not_passed_whole() {
    for (tag, lint) in [
        (
            "raised",
            "[lint.severity]\n\"check.main-return-code\" = \"error\"\n",
        ),
        ("ignored", "[lint]\nignore = [\"check.main-return-code\"]\n"),
    ] {
        let src = "fn a(x: float) to float {\n    return x.sin()\n}\n\nfn main() to int {\n    print(a(1.0))\n    return 0\n}\n";
        let (dir, path, mut s, mut text) =
            open_small(tag, &[("main.vox", src), ("Vox.toml", lint)], "main.vox");
        let at = text.find("x.sin").unwrap();
        change(&mut s, &path, &mut text, at, at, "1.0 + ", 2);
        kept_after(&s, &path);
        let shown = s.snapshot().shown_findings(&path);
        let check = shown
            .iter()
            .filter(|p| p.finding.code.starts_with("check."))
            .map(|p| p.finding.severity)
            .collect::<Vec<_>>();
        let want = if tag == "raised" {
            vec![vox_lints::Severity::Error]
        } else {
            vec![]
        };
        assert_eq!(check, want, "{tag}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// With every D rule at error severity (`vox.lint.determinism`), typing in the first function
/// hands out the other functions' kept findings themselves, not copies made to change their
/// severity on every keystroke.
#[test]
fn a_severity_setting_copies_no_kept_finding() {
    // (Four scripts: a workspace of its own, beside the other tests' of three.)
    let dir = workspace(4);
    let path = dir.join("edited.vox");
    let settings = Settings {
        determinism: true,
        ..Settings::defaults()
    };
    let mut s = Session::load(dir.clone(), settings, Encoding::Utf16);
    let mut text = edited();
    let uri: Uri = format!("file://{}", path.display()).parse().unwrap();
    s.open(path.clone(), uri, text.clone(), 1);
    kept_after(&s, &path);
    let before = s.snapshot().shown_findings(&path);
    let raised = |f: &vox_lints::Placed| {
        f.finding.code.starts_with('D') && f.finding.severity == vox_lints::Severity::Error
    };
    assert!(
        before.iter().filter(|f| raised(f)).count() >= 30,
        "D findings are errors"
    );
    let at = text.find("let base = 10").unwrap() + "let base = ".len();
    change(&mut s, &path, &mut text, at, at, "1", 2);
    assert!(kept_after(&s, &path) >= 29);
    let after = s.snapshot().shown_findings(&path);
    let shared = after
        .iter()
        .filter(|f| {
            before
                .iter()
                .any(|b| std::sync::Arc::ptr_eq(&b.finding, &f.finding))
        })
        .count();
    assert!(
        after.iter().filter(|f| raised(f)).count() >= 30 && shared + 5 >= after.len(),
        "{shared} of {} findings handed out as they were kept",
        after.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn typing_that_leaves_a_syntax_error_in_one_function_keeps_the_others_findings() {
    let (dir, path, mut s, mut text) = open_edited();
    // `let base = 112` loses its value: a syntax error in work_12 alone.
    let at = text.find("let base = 112").unwrap() + "let base = ".len();
    change(&mut s, &path, &mut text, at, at + 3, "", 2);
    assert!(
        kept_after(&s, &path) >= 29,
        "the other functions' findings are kept"
    );
    // Typing on in the broken function, then repairing it.
    change(&mut s, &path, &mut text, at, at, "(", 3);
    assert!(kept_after(&s, &path) >= 29);
    change(&mut s, &path, &mut text, at, at + 1, "112", 4);
    assert!(kept_after(&s, &path) >= 29);
    // A statement typed between two functions (a synthetic main comes, with its error, beside
    // `main`, which stays the entry point), then removed: every function keeps its findings.
    let blank = text.find("fn work_13(").unwrap() - 1;
    change(&mut s, &path, &mut text, blank, blank, "f", 5);
    let kept = kept_after(&s, &path);
    assert!(
        kept >= 30,
        "a statement typed between functions: {kept} kept"
    );
    change(&mut s, &path, &mut text, blank, blank + 1, "", 6);
    let kept = kept_after(&s, &path);
    assert!(kept >= 30, "the statement removed: {kept} kept");
    // A new function typed between two others, nobody calls it yet: its calls do not move
    // any chain.
    let gap = text.find("fn work_13(").unwrap();
    change(
        &mut s,
        &path,
        &mut text,
        gap,
        gap,
        "fn fresh(x: int) to int {\n    return work_3([x], x)\n}\n\n",
        7,
    );
    // New items: linted whole (the server lints after every change).
    kept_after(&s, &path);
    let body = text.find("return work_3([x], x)").unwrap() + "return work_3([x], x)".len();
    change(&mut s, &path, &mut text, body, body, " + work_4([x], 2)", 8);
    let kept = kept_after(&s, &path);
    assert!(
        kept >= 29,
        "a call typed in an unreached function keeps the memo: {kept} kept"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Enter typed inside a function near the top, then taken back: the D002 finding of every
/// function after it names a line, which moves; those findings are renumbered, not linted again,
/// and equal a whole lint's (`kept_after` compares).
#[test]
fn lines_added_above_keep_the_findings_that_name_a_line() {
    let (dir, path, mut s, mut text) = open_edited();
    let at = text.find("let base = 11\n").unwrap() + "let base = 11".len();
    change(&mut s, &path, &mut text, at, at, "\n    ", 2);
    let kept = kept_after(&s, &path);
    assert!(kept >= 29, "a line added in work_1: {kept} kept");
    change(&mut s, &path, &mut text, at, at + 5, "", 3);
    let kept = kept_after(&s, &path);
    assert!(kept >= 29, "the line removed: {kept} kept");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A new function typed character by character between two others (as an editor sends it:
/// brackets closed as they open): the file's items change at most keystrokes (a name, then
/// parameters, growing); every step's findings equal a whole lint, and the other functions keep
/// theirs at most steps.
#[test]
fn typing_a_new_function_keeps_the_other_functions_findings() {
    let (dir, path, mut s, mut text) = open_edited();
    let gap = text.find("fn work_13(").unwrap();
    change(&mut s, &path, &mut text, gap, gap, "\n", 2);
    kept_after(&s, &path);
    // Each state of the typing, closers already in place.
    let typed = "fn fresh(items: list[int], n: int) to int {\n    return work_3(items, n) + n\n}\n";
    let closers = |prefix: &str| -> String {
        let mut stack = Vec::new();
        for c in prefix.chars() {
            match c {
                '(' => stack.push(')'),
                '[' => stack.push(']'),
                '{' => stack.push('}'),
                ')' | ']' | '}' => {
                    stack.pop();
                }
                _ => {}
            }
        }
        stack.iter().rev().collect()
    };
    let (mut steps, mut kept_most) = (0, 0);
    let mut version = 3;
    let mut current = String::new();
    for end in 1..=typed.len() {
        let state = format!("{}{}", &typed[..end], closers(&typed[..end]));
        change(
            &mut s,
            &path,
            &mut text,
            gap,
            gap + current.len(),
            &state,
            version,
        );
        current = state;
        version += 1;
        steps += 1;
        if kept_after(&s, &path) >= 29 {
            kept_most += 1;
        }
    }
    eprintln!("{kept_most} of {steps} keystrokes kept the other functions' findings");
    assert!(
        kept_most * 10 >= steps * 8,
        "only {kept_most} of {steps} keystrokes kept the other functions' findings"
    );
    // Renaming a function that main calls (its call no longer resolves), and back: the findings
    // still equal a whole lint's (`kept_after` compares).
    let at = text.find("fn work_5(").unwrap() + "fn work_5".len();
    change(&mut s, &path, &mut text, at, at, "q", version);
    kept_after(&s, &path);
    change(&mut s, &path, &mut text, at, at + 1, "", version + 1);
    kept_after(&s, &path);
    // In a library that scripts import: a public function their chains go through renamed,
    // and back.
    let lib = dir.join("libs/lib_0.vox");
    let mut lib_text = std::fs::read_to_string(&lib).unwrap();
    let lib_uri: Uri = format!("file://{}", lib.display()).parse().unwrap();
    s.open(lib.clone(), lib_uri, lib_text.clone(), 1);
    kept_after(&s, &lib);
    let at = lib_text.find("pub fn names_0(").unwrap() + "pub fn names_0".len();
    change(&mut s, &lib, &mut lib_text, at, at, "q", 2);
    kept_after(&s, &lib);
    change(&mut s, &lib, &mut lib_text, at, at + 1, "", 3);
    kept_after(&s, &lib);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A library function that scripts' chains go through is renamed: what it called is no longer
/// reached from them, and the findings of a function the edit did not touch change with it.
#[test]
fn renaming_a_function_a_chain_went_through_relints_what_it_called() {
    let lib_src = "pub fn entry() to int {\n    return helper()\n}\n\nfn helper() to int {\n    return time.now_ms()\n}\n";
    let main_src = "import \"./lib.vox\" as lib\n\nfn main() {\n    print(lib.entry())\n}\n";
    let (dir, lib, mut s, mut text) = open_small(
        "chain",
        &[("lib.vox", lib_src), ("main.vox", main_src)],
        "lib.vox",
    );
    let before = s.snapshot().shown_findings(&lib);
    let at = "pub fn entry".len();
    change(&mut s, &lib, &mut text, at, at, "q", 2);
    kept_after(&s, &lib);
    let after = s.snapshot().shown_findings(&lib);
    assert_ne!(before, after, "helper is no longer reached from main");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The memo keeps the chains of one lint for the next while the file's items are as they were:
/// each step's findings (and their chains) equal a whole lint's, through edits that keep the
/// calls, change an unreached function's calls, change a reached one's (the chains are searched
/// again), move a reached one's calls inside it, and add a function a call already named.
#[test]
fn chains_kept_for_the_next_lint_follow_the_calls() {
    let src = "fn main() {\n    print(a())\n    print(helper())\n}\n\nfn a() to int {\n    return b()\n}\n\n\
               fn b() to int {\n    return time.now_ms() + 1\n}\n\nfn d() to int {\n    return 0\n}\n";
    let (dir, path, mut s, mut text) = open_small("chains", &[("main.vox", src)], "main.vox");
    let chain_of_b = |s: &Session| -> Vec<String> {
        let found = s.snapshot().shown_findings(&path);
        let f = found
            .iter()
            .find(|f| f.finding.code == "D003" && f.finding.message.contains("time.now_ms"))
            .expect("b's clock read is reported");
        f.finding
            .chain
            .iter()
            .map(|c| c.function.to_string())
            .collect()
    };
    let mut v = 2;
    let mut edit = |s: &mut Session, text: &mut String, from: &str, to: &str| {
        let a = text.find(from).unwrap();
        change(s, &path, text, a, a + from.len(), to, v);
        v += 1;
        kept_after(s, &path)
    };
    // In b: the calls are as they were.
    assert!(edit(&mut s, &mut text, "now_ms() + 1", "now_ms() + 2") > 0);
    assert_eq!(chain_of_b(&s), ["main", "a"]);
    // In d, which nothing reaches: its new call reaches nothing more.
    edit(&mut s, &mut text, "return 0", "return b()");
    assert_eq!(chain_of_b(&s), ["main", "a"]);
    // In main: b is now reached through d first.
    edit(&mut s, &mut text, "print(a())", "print(d())");
    assert_eq!(chain_of_b(&s), ["main", "d"]);
    edit(&mut s, &mut text, "now_ms() + 2", "now_ms() + 3");
    assert_eq!(chain_of_b(&s), ["main", "d"]);
    // In b, and in d before its call of b (one change: both are linted again): the chain's
    // step through d moves with the call.
    let (a, z) = (text.find("+ 3").unwrap(), text.rfind("return b()").unwrap());
    let to = text[a..z].replace("+ 3", "+ 4") + "let z = 1\n    ";
    change(&mut s, &path, &mut text, a, z, &to, v);
    v += 1;
    kept_after(&s, &path);
    assert_eq!(chain_of_b(&s), ["main", "d"]);
    // A function main already called comes: its own clock read is reached from main.
    let end = text.len();
    change(
        &mut s,
        &path,
        &mut text,
        end,
        end,
        "\nfn helper() to int {\n    return time.now_ms()\n}\n",
        v,
    );
    kept_after(&s, &path);
    let _ = std::fs::remove_dir_all(&dir);
}
