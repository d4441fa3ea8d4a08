use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let mode = std::env::args().nth(2).unwrap_or_default();
    let text = std::fs::read(path).unwrap();
    for _ in 0..5 {
        let t = Instant::now();
        let tree = match mode.as_str() {
            "seq" => vox_syntax::parse_sequential(&text),
            _ => vox_syntax::parse(&text),
        };
        let e = t.elapsed();
        println!(
            "{mode} {:.1} ms nodes {}",
            e.as_secs_f64() * 1e3,
            tree.node_count()
        );
    }
}
