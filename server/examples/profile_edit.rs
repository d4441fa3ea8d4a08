//! Times the parts of one edit-to-diagnostics cycle on a file, in process:
//! `cargo run --release -p vox-server --example profile_edit FILE LINE COL`.
use std::time::Instant;

use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent, Uri};
use vox_server::session::{Session, Settings};
use vox_server::Encoding;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::PathBuf::from(&args[1]).canonicalize().unwrap();
    let line: u32 = args[2].parse().unwrap();
    let col: u32 = args[3].parse().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let root = path.parent().unwrap().to_path_buf();
    let mut s = Session::load(root, Settings::defaults(), Encoding::Utf16);
    let uri = Uri::from_file_path(&path).unwrap();
    let t = Instant::now();
    s.open(path.clone(), uri, text, 1);
    let n = s.snapshot().findings(&path).len();
    eprintln!(
        "cold open + findings: {:.2} ms ({n} findings)",
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut parts = [0f64; 3];
    for i in 0..50 {
        let t0 = Instant::now();
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(
                Position::new(line, col),
                Position::new(line, col + 1),
            )),
            range_length: None,
            text: format!("{}", 1 + i % 9),
        };
        s.change(&path, vec![change], 2 + i);
        let t1 = Instant::now();
        let snap = s.snapshot();
        let _ = vox_analysis::parse(&snap.db, snap.file(&path).unwrap());
        let t2 = Instant::now();
        let f = snap.findings(&path);
        let t3 = Instant::now();
        assert_eq!(f.len(), n);
        parts[0] += (t1 - t0).as_secs_f64() * 1e3;
        parts[1] += (t2 - t1).as_secs_f64() * 1e3;
        parts[2] += (t3 - t2).as_secs_f64() * 1e3;
    }
    eprintln!(
        "per edit: change {:.2} ms, parse {:.2} ms, findings {:.2} ms",
        parts[0] / 50.0,
        parts[1] / 50.0,
        parts[2] / 50.0
    );
}
