//! An editor's parse of an edited file (re-parsing one function and taking the rest of the last
//! parse over, shifted) gives the same item tree, syntax facts and function texts as a parse of
//! the new text from scratch: random edit sequences over the corpus, one database kept across
//! each sequence, compared at every step with a fresh database. Each function's facts, lowered
//! in the edited database with its scope (the part of the file's globals its names reach), are
//! those the command line's whole-table lowering gives.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use salsa::Setter;

use vox_analysis::{
    file_items, file_syntax, fn_base, fn_facts, AnalysisDb, SourceFile, Text, Workspace,
};

mod common;
use common::in_file;

fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = ["tests/corpus", "examples", "tests/lint"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "vox") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn database(text: &[u8]) -> (AnalysisDb, SourceFile) {
    database_with(text, false)
}

/// With `fixed`, as the command line makes it (no text ever changes).
fn database_with(text: &[u8], fixed: bool) -> (AnalysisDb, SourceFile) {
    let mut db = AnalysisDb::new(vox_runtime::catalog::Catalog::get());
    if fixed {
        db.set_fixed_texts();
    }
    let path = PathBuf::from("/ws/script.vox");
    let f = SourceFile::builder(path.clone(), Text::new(Arc::from(text)))
        .edited(!fixed)
        .new(&db);
    let ws = Workspace::create(&db, PathBuf::from("/ws"), Arc::new([(path, f)].into()));
    db.set_workspace(ws);
    (db, f)
}

/// What the queries above the parse see of a file.
fn products(db: &AnalysisDb, f: SourceFile) -> String {
    let items = file_items(db, f);
    let texts: Vec<(String, String)> = items
        .all()
        .map(|d| {
            (
                d.name(db).to_string(),
                String::from_utf8_lossy(&d.text(db).bytes()).into_owned(),
            )
        })
        .collect();
    format!(
        "{:#?}\n{:#?}\n{:#?}",
        items.items,
        file_syntax(db, f),
        texts
    )
}

/// Every function's facts, by name, with their ranges (`start..end`, relative to where the
/// function's text starts) in file offsets: an editor's synthetic main starts around the
/// statements, the command line's at the file's start.
fn facts(db: &AnalysisDb, f: SourceFile) -> String {
    file_items(db, f)
        .all()
        .map(|d| {
            let shown = format!("{:?}", fn_facts(db, d));
            format!("{}: {}\n", d.name(db), in_file(&shown, fn_base(db, d)))
        })
        .collect()
}

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

const PIECES: &[&str] = &[
    "1",
    "x",
    " ",
    "\n",
    "let y = 2\n",
    "    // vox:allow(D003) a comment that suppresses\n",
    "// note\n",
    "print(1)\n",
    "{",
    "}",
    "(",
    ")",
    ", n: int",
    "\"",
    "\nfn extra(n: int) to int {\n    return n\n}\n",
    "extra(2)",
];

#[test]
fn an_edited_parse_equals_a_parse_from_scratch() {
    let files = corpus();
    assert!(files.len() > 20, "corpus not found");
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut steps = 0;
    for path in &files {
        let mut text = std::fs::read(path).unwrap();
        if text.is_empty() {
            continue;
        }
        let (mut db, f) = database(&text);
        let _ = products(&db, f);
        for _ in 0..25 {
            let at = rng.below(text.len());
            match rng.below(4) {
                0 | 1 if text[at].is_ascii_digit() => text[at] = b'0' + rng.below(10) as u8,
                0 | 1 if text[at].is_ascii_alphabetic() => text.insert(at, b'q'),
                2 => {
                    let end = (at + 1 + rng.below(2)).min(text.len());
                    text.drain(at..end);
                }
                _ => {
                    let p = PIECES[rng.below(PIECES.len())].as_bytes();
                    text.splice(at..at, p.iter().copied());
                }
            }
            f.set_text(&mut db).to(Text::new(Arc::from(&text[..])));
            let (fresh, g) = database(&text);
            assert_eq!(
                products(&db, f),
                products(&fresh, g),
                "{}: after an edit at {at}",
                path.display()
            );
            let (cli, h) = database_with(&text, true);
            assert_eq!(
                facts(&db, f),
                facts(&cli, h),
                "{}: facts after an edit at {at}",
                path.display()
            );
            steps += 1;
        }
    }
    assert!(steps > 1000, "only {steps} edits");
}

/// After a parse that copies every function's text anew (here, one read whole after a rename),
/// an edit inside one function compares only that function's text byte by byte: the others
/// took the new copies over when they were found equal, and share them with the next parse.
#[test]
fn an_edit_compares_only_its_function_byte_by_byte() {
    let text: String = (0..40)
        .map(|i| format!("fn f{i}(x: int) to int {{\n    return x + {i}\n}}\n\n"))
        .collect::<String>()
        + "fn main() {\n    print(f1(2))\n}\n";
    let (mut db, f) = database(text.as_bytes());
    file_items(&db, f);
    let mut set = |text: &str| {
        f.set_text(&mut db)
            .to(Text::new(Arc::from(text.as_bytes())));
        let (bytes, read) = (
            vox_analysis::compared_by_bytes(),
            vox_analysis::read_to_compare(),
        );
        file_items(&db, f);
        (
            vox_analysis::compared_by_bytes() - bytes,
            vox_analysis::read_to_compare() - read,
        )
    };
    let renamed = text.replace("fn f3(", "fn g3(");
    set(&renamed);
    let edited = renamed.replace("x + 20", "x + 27");
    assert_eq!(
        set(&edited),
        (1, 1),
        "functions compared byte by byte, and read to be compared, after the edit"
    );
    assert_eq!(set(&renamed), (1, 1), "and after it is taken back");
}
