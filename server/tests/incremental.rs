//! The property test of issue 8: after any sequence of edits, the diagnostics the server's
//! session computes incrementally (rope edits, salsa inputs set one change at a time) equal a
//! from-scratch analysis of the final text. 1,200 random sequences over the lint corpus. After
//! every edit, the findings of a lint that keeps untouched functions' findings from its memo
//! (issue 20) equal a whole lint of the same snapshot.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};
use vox_lints::{Finding, Placed};
use vox_server::session::{Session, Settings, Snapshot};
use vox_server::Encoding;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SNIPPETS: &[&str] = &[
    "time.now_ms()",
    "x.sin()",
    "fs.read(\"data/a.txt\")",
    "\n",
    "    ",
    "let y = 1\n",
    "print(y)\n",
    "}",
    "{",
    "(",
    ")",
    "fn helper() {\n    return random.int(0, 9)\n}\n",
    "for k, v in m {\n",
    "\"",
    "// vox:allow(D003): on purpose\n",
    "env.get(\"HOME\")",
    "é",
    "😀",
    "+ 1",
    ", ",
    "import \"./lib.vox\"\n",
    "@test\n",
    "a * b",
    "process.run(\"ls\", [])",
    "m.keys()",
    "fs.list_dir(\".\")",
    "\r\n",
    ";",
];

fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/lint");
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "vox"))
            .collect();
        files.sort();
        out.extend(files.into_iter().take(4));
    }
    out
}

/// LSP position (UTF-16 columns) of a byte offset.
fn position(text: &str, offset: usize) -> Position {
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = text[start..offset].encode_utf16().count() as u32;
    Position::new(line, col)
}

fn boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A new directory of this process for one test, by its canonical path (as the session keys
/// files).
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

fn session(dir: &Path) -> Session {
    Session::load(dir.to_path_buf(), Settings::defaults(), Encoding::Utf16)
}

/// Replaces `text[a..b]` with `insert` in the session's copy of `path` as an editor would, and
/// checks that the findings kept from the lint memo (shown and full) equal a lint without one.
/// Returns how many functions' findings the memo kept, and in how many lints it kept some.
fn edit_and_compare(
    s: &mut Session,
    path: &Path,
    text: &mut String,
    (a, b, insert): (usize, usize, String),
    version: i32,
    what: &str,
) -> (usize, usize) {
    let range = Range::new(position(text, a), position(text, b));
    text.replace_range(a..b, &insert);
    let change = TextDocumentContentChangeEvent {
        range: Some(range),
        range_length: None,
        text: insert,
    };
    assert!(s.change(path, vec![change], version));
    let snap = s.snapshot();
    let mut whole = s.snapshot();
    whole.memos = Default::default();
    let (mut kept, mut lints) = (0, 0);
    for shown in [false, true] {
        let (got, want) = if shown {
            let placed = |s: &Snapshot| -> Vec<Arc<Finding>> {
                let found = s.shown_findings(path);
                found.into_iter().map(Placed::into_finding).collect()
            };
            (placed(&snap), placed(&whole))
        } else {
            (snap.findings(path), whole.findings(path))
        };
        assert_eq!(
            got, want,
            "{what}: findings kept from the memo differ for:\n{text}"
        );
        if let Some(m) = snap.memos.lock().unwrap().get(&(path.to_path_buf(), shown)) {
            kept += m.kept;
            lints += usize::from(m.kept > 0);
        }
    }
    (kept, lints)
}

#[test]
fn incremental_diagnostics_equal_a_fresh_analysis() {
    let files = corpus();
    assert!(files.len() > 20);
    let dir = std::env::temp_dir().join(format!("vox-incr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    let path = dir.join("script.vox");
    let uri: Uri = Uri::from_file_path(&path).unwrap();
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let sequences = 1200;
    let mut incremental = session(&dir);
    // One cache for the whole run, as a server keeps it for an open script (issue 20).
    let mut render = vox_server::render::RenderCache::default();
    let mut checked = 0;
    // Functions whose findings lints kept from their memos, and lints that kept some (few:
    // most of these edits leave a syntax error, and a broken file is linted whole; the memo's
    // own test is `findings_kept_from_the_memo_equal_a_whole_lint`).
    let (mut kept, mut keeping) = (0, 0);
    for seq in 0..sequences {
        let seed = std::fs::read_to_string(&files[seq % files.len()]).unwrap();
        let mut text = seed.clone();
        // One long-lived session, as in an editor: open, edit, check, close.
        incremental.open(path.clone(), uri.clone(), seed, 1);
        let n = 1 + rng.below(8);
        for v in 0..n {
            let a = boundary(&text, rng.below(text.len() + 1));
            let b = match rng.below(3) {
                0 => a,
                _ => boundary(&text, a + rng.below(40)),
            };
            let insert = if rng.below(4) == 0 {
                String::new()
            } else {
                SNIPPETS[rng.below(SNIPPETS.len())].to_string()
            };
            let (k, l) = edit_and_compare(
                &mut incremental,
                &path,
                &mut text,
                (a, b, insert),
                2 + v as i32,
                &format!("sequence {seq}, edit {v}"),
            );
            kept += k;
            keeping += l;
        }
        let snap = incremental.snapshot();
        let got = snap.findings(&path);
        // The published JSON, from templates made for earlier texts and the memo's findings
        // placed where the edits moved them, equals the diagnostics converted afresh.
        let shown = snap.shown_findings(&path);
        let rendered: Vec<serde_json::Value> = render
            .render(&snap, &path, shown.clone())
            .iter()
            .map(|j| serde_json::from_str(j).unwrap())
            .collect();
        let shown: Vec<Arc<Finding>> = shown.into_iter().map(Placed::into_finding).collect();
        let converted: Vec<serde_json::Value> = vox_server::to_diagnostics(&snap, &shown)
            .iter()
            .map(|d| serde_json::to_value(d).unwrap())
            .collect();
        assert_eq!(
            rendered, converted,
            "sequence {seq}: rendered diagnostics differ for:\n{text}"
        );
        let rope_text = snap.docs.get(&path).unwrap().rope.to_string();
        drop(snap);
        assert_eq!(rope_text, text, "sequence {seq}: the document text drifted");
        let mut fresh = session(&dir);
        fresh.open(path.clone(), uri.clone(), text.clone(), 1);
        let want = fresh.snapshot().findings(&path);
        assert_eq!(
            got, want,
            "sequence {seq}: incremental findings differ for:\n{text}"
        );
        incremental.close(&path);
        checked += 1;
    }
    assert!(checked >= 1000);
    eprintln!("{keeping} lints kept {kept} functions' findings");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Functions that give every per-function rule something to report, and what links functions
/// (calls for chains, order passed to a callee, a result whose order a caller shows, int
/// arguments bounding a callee's parameters, path literals that may collide by case). `{n}` is
/// the function's number, `{k}` another's, `{d}` a digit.
const TEMPLATES: &[&str] = &[
    "fn clock_{n}(scale: float) to int {\n    let angle = scale.sin()\n    let stamp = time.now_ms()\n    print(\"clock\", angle, stamp)\n    return 1{d}\n}\n",
    "fn keys_{n}() to list[string] {\n    let m = {a: 1, b: 2, c: {d}}\n    return m.keys()\n}\n",
    "fn show_{n}(names: list[string]) {\n    for x in names {\n        print(x)\n    }\n}\n",
    "fn use_{n}() {\n    let m = {a: 1, b: {d}}\n    show_{k}(m.keys())\n    print(keys_{k}())\n    let total = add_{k}(4{d}, 2)\n    print(total)\n}\n",
    "fn add_{n}(a: int, b: int) to int {\n    return a * b + {d}\n}\n",
    "fn paths_{n}() {\n    let a = fs.read(\"data/Report{d}.txt\").unwrap()\n    let b = fs.read(\"data//x{d}.txt\").unwrap()\n    let items = fs.list_dir(\"data\").unwrap()\n    print(items, a, b)\n}\n",
    "fn rand_{n}() to int {\n    let r = random.int(0, {d})\n    let home = env.get(\"HOME\").unwrap_or(\"/\")\n    print(home)\n    clock_{k}(0.5)\n    return r\n}\n",
    "fn quiet_{n}(x: int) to int {\n    // vox:allow(D004): bounded by the caller\n    let y = x * x\n    return y + {d}\n}\n",
];

/// Edits that keep the file parsing (most of them), so that lints keep findings from their
/// memos, and some that do not.
fn memo_edit(text: &str, rng: &mut Rng) -> (usize, usize, String) {
    let digits: Vec<usize> = text
        .bytes()
        .enumerate()
        .filter(|&(i, b)| {
            // Digits of numbers, not of names (a renamed function may clash for good).
            let before = text.as_bytes()[i.saturating_sub(1)];
            b.is_ascii_digit() && !(before == b'_' || before.is_ascii_alphabetic())
        })
        .map(|(i, _)| i)
        .collect();
    let line_ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
    let pick = |v: &[usize], rng: &mut Rng| v[rng.below(v.len())];
    let find_any = |pats: &[&str], rng: &mut Rng| -> Option<(usize, usize, String)> {
        let pat = pats[rng.below(pats.len())];
        let hits: Vec<usize> = text.match_indices(pat).map(|(i, _)| i).collect();
        let at = *hits.get(rng.below(hits.len().max(1)))?;
        Some((at, pat.len(), String::new()))
    };
    // A syntax error is mended soon after it is made.
    if let Some(at) = text.find("(\n").filter(|_| rng.below(3) > 0) {
        return (at, at + 1, String::new());
    }
    loop {
        let edit = match rng.below(40) {
            0..=3 => {
                let at = pick(&digits, rng);
                Some((at, at + 1, (rng.below(10)).to_string()))
            }
            4 => {
                let at = pick(&digits, rng) + 1;
                Some((at, at, " + 1".to_string()))
            }
            5 => {
                let at = pick(&line_ends, rng);
                Some((at, at, "  // note".to_string()))
            }
            6 => {
                let at = pick(&line_ends, rng) + 1;
                Some((at, at, "    ".to_string()))
            }
            7 => find_any(&["    show_", "(keys_", "= add_", "    clock_"], rng).map(
                |(at, len, _)| {
                    let end = at + len + 1;
                    (end - 1, end, rng.below(6).to_string())
                },
            ),
            8 => find_any(&["Report", "report"], rng).map(|(at, len, _)| {
                let to = if &text[at..at + 1] == "R" {
                    "report"
                } else {
                    "Report"
                };
                (at, at + len, to.to_string())
            }),
            9 | 12..=20 => {
                // What other functions' findings read of this one: a callee's use of its
                // parameter's order, whether a caller shows a result's order, a callee's
                // parameter bound; and host math.
                const TOGGLES: &[(&str, &str)] = &[
                    ("print(x)", "let z = x"),
                    ("print(keys_", "let kk = (keys_"),
                    (", 2)", ", 2000000000000)"),
                    ("scale.sin()", "scale.abs()"),
                ];
                let (from, to) = TOGGLES[rng.below(TOGGLES.len())];
                let (from, to) = if rng.below(2) == 0 {
                    (from, to)
                } else {
                    (to, from)
                };
                let hits: Vec<usize> = text.match_indices(from).map(|(i, _)| i).collect();
                hits.get(rng.below(hits.len().max(1)))
                    .map(|&at| (at, at + from.len(), to.to_string()))
            }
            10 | 11 => {
                // A statement in a body (at the top level it would be an error for good).
                let at = pick(&line_ends, rng) + 1;
                text[at..]
                    .starts_with("    ")
                    .then(|| (at, at, "    print(time.now_ms())\n".to_string()))
            }
            21..=26 => {
                // Lines added and removed: a blank line, Enter inside a body, a statement
                // taken out again.
                match rng.below(4) {
                    0 => {
                        let at = pick(&line_ends, rng);
                        Some((at, at, "\n".to_string()))
                    }
                    1 => find_any(&["\n\n"], rng).map(|(at, _, _)| (at, at + 1, String::new())),
                    2 => find_any(&["    print(time.now_ms())\n"], rng)
                        .map(|(at, len, _)| (at, at + len, String::new())),
                    _ => {
                        let at = pick(&line_ends, rng);
                        text[at + 1..]
                            .starts_with("    ")
                            .then(|| (at, at, "\n    ".to_string()))
                    }
                }
            }
            27..=38 => {
                let at = pick(&digits, rng);
                Some((at, at + 1, (rng.below(10)).to_string()))
            }
            _ => {
                let at = pick(&line_ends, rng);
                Some((at, at, "(".to_string()))
            }
        };
        if let Some((a, b, t)) = edit {
            if a <= b && b <= text.len() && text.is_char_boundary(a) && text.is_char_boundary(b) {
                return (a, b, t);
            }
        }
    }
}

#[test]
fn findings_kept_from_the_memo_equal_a_whole_lint() {
    let dir = scratch("vox-memo");
    let path = dir.join("script.vox");
    let uri: Uri = Uri::from_file_path(&path).unwrap();
    let mut rng = Rng(0x2545f4914f6cdd1d);
    let mut s = session(&dir);
    let (mut kept, mut lints, mut edits, mut across_lines) = (0, 0, 0, 0);
    for seq in 0..60 {
        let functions = 8 + rng.below(12);
        let mut text = String::new();
        for n in 0..functions {
            let t = TEMPLATES[n % TEMPLATES.len()];
            // `{k}` names a function of the same kind: one before this one when there is.
            let k = if n >= TEMPLATES.len() {
                rng.below(n / TEMPLATES.len() + 1)
            } else {
                0
            };
            text += &t
                .replace("{n}", &(n / TEMPLATES.len()).to_string())
                .replace("{k}", &k.to_string())
                .replace("{d}", &rng.below(10).to_string());
        }
        text += "fn main() {\n    print(clock_0(1.5), rand_0())\n    use_0()\n    paths_0()\n}\n";
        s.open(path.clone(), uri.clone(), text.clone(), 1);
        for v in 0..40 {
            let edit = memo_edit(&text, &mut rng);
            let lines_move = edit.2.contains('\n') || text[edit.0..edit.1].contains('\n');
            let (k, l) = edit_and_compare(
                &mut s,
                &path,
                &mut text,
                edit,
                2 + v,
                &format!("sequence {seq}, edit {v}"),
            );
            edits += 1;
            kept += k;
            lints += l;
            across_lines += usize::from(lines_move && k > 0);
        }
        s.close(&path);
    }
    eprintln!(
        "{edits} edits: {lints} lints kept {kept} functions' findings; {across_lines} edits that moved lines kept some"
    );
    assert!(
        lints >= edits && kept >= edits * 10 && across_lines >= 100,
        "{lints} lints kept {kept} functions' findings; {across_lines} edits that moved lines kept some"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An edit in another open file (an imported library) reaches the script's next lint even though
/// the script's memo covers every one of its functions: the memo's stamp changes with any input
/// but the script's own text.
#[test]
fn an_edit_in_an_imported_file_reaches_a_memo_lint() {
    let dir = scratch("vox-memo-import");
    let lib = dir.join("lib.vox");
    let script = dir.join("script.vox");
    let lib_text = "pub fn show(k: str) {\n    print(k)\n}\n";
    let mut text = "import \"./lib.vox\"\n\nfn list_all(m: map[str, int]) {\n    for k, v in m {\n        show(k)\n    }\n}\n\nfn other(x: int) to int {\n    return x + 1\n}\n\nfn main() {\n    list_all({a: 1, b: 2})\n    print(other(2))\n}\n".to_string();
    std::fs::write(&lib, lib_text).unwrap();
    std::fs::write(&script, &text).unwrap();
    let mut s = session(&dir);
    s.open(
        lib.clone(),
        Uri::from_file_path(&lib).unwrap(),
        lib_text.into(),
        1,
    );
    s.open(
        script.clone(),
        Uri::from_file_path(&script).unwrap(),
        text.clone(),
        1,
    );
    let d002 = |s: &Session| {
        let found = s.snapshot().shown_findings(&script);
        found.iter().filter(|f| f.finding.code == "D002").count()
    };
    assert_eq!(
        d002(&s),
        1,
        "show prints its argument: the loop's order shows"
    );
    // An edit inside `other` keeps `list_all`'s findings.
    let at = text.find("x + 1").unwrap() + 4;
    let (kept, _) = edit_and_compare(
        &mut s,
        &script,
        &mut text,
        (at, at + 1, "2".into()),
        2,
        "an edit inside `other`",
    );
    assert!(kept > 0, "the memo kept the untouched functions");
    // `show` stops printing: the script's text is unchanged, its D002 goes.
    let print = lib_text.find("print(k)").unwrap();
    let change = TextDocumentContentChangeEvent {
        range: Some(Range::new(
            position(lib_text, print),
            position(lib_text, print + "print(k)".len()),
        )),
        range_length: None,
        text: "let n = k.len()".into(),
    };
    assert!(s.change(&lib, vec![change], 2));
    assert_eq!(
        d002(&s),
        0,
        "the memo kept a finding the library's edit removed"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
