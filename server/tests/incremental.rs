//! The property test of issue 8: after any sequence of edits, the diagnostics the server's
//! session computes incrementally (rope edits, salsa inputs set one change at a time) equal a
//! from-scratch analysis of the final text. 1,200 random sequences over the lint corpus.

use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};
use vox_server::session::{Session, Settings};
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

fn session(dir: &Path) -> Session {
    Session::load(dir.to_path_buf(), Settings::defaults(), Encoding::Utf16)
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
            let range = Range::new(position(&text, a), position(&text, b));
            text.replace_range(a..b, &insert);
            let change = TextDocumentContentChangeEvent {
                range: Some(range),
                range_length: None,
                text: insert,
            };
            assert!(incremental.change(&path, vec![change], 2 + v as i32));
        }
        let snap = incremental.snapshot();
        let got = snap.findings(&path);
        // The published JSON, from templates made for earlier texts, equals the diagnostics
        // converted afresh.
        let rendered: Vec<serde_json::Value> = render
            .render(&snap, &path, got.clone())
            .iter()
            .map(|j| serde_json::from_str(j).unwrap())
            .collect();
        let converted: Vec<serde_json::Value> = vox_server::to_diagnostics(&snap, &got)
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
    let _ = std::fs::remove_dir_all(&dir);
}
