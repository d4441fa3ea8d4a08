//! Parses a generated 100,000-line script and prints lines per second (lex + parse + tree).
//! Run: `cargo bench -p vox-syntax --bench parse`.

use std::time::Instant;

fn generate(lines: usize) -> String {
    let chunk = r#"// A generated function exercising most of the grammar.
fn work_N(items: list[int], name: str) to int {
    let mut total = 0
    for x, i in items {
        if x % 2 == 0 and i > 3 { total += x * 2 } else { total -= 1 }
    }
    let label = "item {name}: done"
    let m = { name: name, "count": total, ok: true }
    match m.get("count") {
        Some(n) => log.info(label, n)
        None => print("none")
    }
    let f = fn(a) { a + 1 }
    let ys = items.map(x => x * 3).filter(fn(y) { y > 10 })
    while total > 100 { total = total / 2 }
    return total + len(ys) |> f
}
"#;
    let per = chunk.lines().count();
    let mut out = String::with_capacity(lines * 40);
    for i in 0..lines.div_ceil(per) {
        out.push_str(&chunk.replace("work_N", &format!("work_{i}")));
    }
    out
}

fn main() {
    let src = generate(100_000);
    let lines = src.lines().count();
    let bytes = src.len();
    // Warm up, then take the best of several runs.
    let tree = vox_syntax::parse(src.as_bytes());
    assert!(
        tree.diagnostics().is_empty(),
        "generated script must be clean: {:?}",
        &tree.diagnostics()[..1]
    );
    let mut best = f64::MAX;
    for _ in 0..15 {
        let t = Instant::now();
        let tree = vox_syntax::parse(src.as_bytes());
        let secs = t.elapsed().as_secs_f64();
        std::hint::black_box(&tree);
        best = best.min(secs);
    }
    println!(
        "parse: {lines} lines, {:.1} MiB in {:.1} ms: {:.0} lines/s ({:.0} MiB/s)",
        bytes as f64 / (1 << 20) as f64,
        best * 1e3,
        lines as f64 / best,
        bytes as f64 / (1 << 20) as f64 / best
    );
}
