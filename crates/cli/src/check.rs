//! `vox check FILE...`: syntax and check findings, exit 0 (no errors), 1 (errors) or 2 (usage).

use std::io::Write;
use std::path::PathBuf;

use crate::render;

pub fn run(files: &[PathBuf]) -> i32 {
    let mut errors = 0usize;
    let mut warnings = 0usize;
    let mut out = std::io::stdout().lock();
    for path in files {
        let shown = path.display().to_string();
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("vox: cannot read {shown}: {e}");
                eprintln!("  check that the file exists and is readable");
                return 2;
            }
        };
        let tree = crate::parse_on_big_stack(bytes.clone());
        let diags = tree.diagnostics();
        errors += diags.iter().filter(|d| d.is_error()).count();
        warnings += diags.iter().filter(|d| !d.is_error()).count();
        let text = render::render(&shown, &bytes, diags);
        let _ = out.write_all(text.as_bytes());
    }
    let _ = out.flush();
    let plural = |n: usize, w: &str| {
        if n == 1 {
            format!("{n} {w}")
        } else {
            format!("{n} {w}s")
        }
    };
    eprintln!(
        "checked {}: {}, {}",
        plural(files.len(), "file"),
        plural(errors, "error"),
        plural(warnings, "warning")
    );
    if errors > 0 {
        1
    } else {
        0
    }
}
