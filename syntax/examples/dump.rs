//! Prints the syntax tree and diagnostics of a file: `cargo run -p vox-syntax --example dump FILE`.
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: dump FILE");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let tree = vox_syntax::parse(&bytes);
    print!("{}", tree.debug_dump());
    for d in tree.diagnostics() {
        println!(
            "{} {:?} {}: {}",
            d.code,
            d.range,
            d.severity.as_str(),
            d.message
        );
    }
    assert_eq!(tree.print(), bytes, "round trip");
}
