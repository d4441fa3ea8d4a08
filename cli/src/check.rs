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
        if !tree.has_errors() {
            if let Some(finding) = import_finding(path, &shown) {
                errors += 1;
                let d = vox_syntax::Diagnostic::error(finding.code, finding.range, finding.message);
                let _ =
                    out.write_all(render::render(&finding.file, &finding.bytes, &[d]).as_bytes());
            }
        }
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

/// An import that would stop `vox run` (decisions.md 34): a missing target, a cycle, or a target
/// with errors, reported where the import is written.
struct ImportFinding {
    file: String,
    bytes: Vec<u8>,
    code: &'static str,
    message: String,
    range: vox_syntax::TextRange,
}

fn import_finding(path: &std::path::Path, shown: &str) -> Option<ImportFinding> {
    let path = path.to_path_buf();
    let shown = shown.to_string();
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            // Checking reads imports without a capability gate: it runs nothing.
            let mut allow = |p: &std::path::Path| Ok(p.to_path_buf());
            match vox_runtime::program::load(&path, &shown, &mut allow) {
                Err(vox_runtime::program::LoadError::Import {
                    files,
                    file,
                    code,
                    message,
                    range,
                }) => {
                    let f = &files[file];
                    Some(ImportFinding {
                        file: f.shown.clone(),
                        bytes: f.bytes.clone(),
                        code,
                        message,
                        range,
                    })
                }
                _ => None,
            }
        });
    handle.ok()?.join().ok()?
}
