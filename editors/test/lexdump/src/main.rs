//! `vox-lexdump FILE...`: one JSON line per file, `{"file": "...", "tokens": [["Kind", start], ...]}`,
//! with byte offsets; each token ends where the next starts (the last is the zero-length `Eof`).
use std::io::Write;

fn main() {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for file in std::env::args().skip(1) {
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let lexed = vox_syntax::lexer::lex(&bytes);
        let tokens: Vec<String> = lexed
            .tokens
            .iter()
            .map(|t| format!("[\"{:?}\",{}]", t.kind, t.start))
            .collect();
        let name = file.replace('\\', "\\\\").replace('"', "\\\"");
        writeln!(out, "{{\"file\":\"{name}\",\"tokens\":[{}]}}", tokens.join(",")).unwrap();
    }
}
