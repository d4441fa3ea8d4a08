//! `vox check FILE...`: `syntax.*` and `check.*` findings only (decision 38), exit 0 (no errors),
//! 1 (errors) or 2 (usage). Read through the same analysis as `vox lint`.

use std::io::Write;
use std::path::PathBuf;

use vox_lints::{Finding, Severity, WorkspaceInfo};

use crate::{output, parallel, workspace};

pub fn run(files: &[PathBuf]) -> i32 {
    for path in files {
        if let Err(e) = std::fs::metadata(path) {
            eprintln!(
                "vox: {}",
                crate::read_error::cannot_read(path.display(), &e)
            );
            return 2;
        }
    }
    let root = workspace::absolute(std::path::Path::new("."));
    let abs: Vec<PathBuf> = files.iter().map(|p| workspace::absolute(p)).collect();
    let mut unique = abs.clone();
    unique.sort();
    unique.dedup();
    let (loaded, _) = match workspace::load(unique, root.clone(), false) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("vox: {e}");
            eprintln!("  check that the file exists and is readable");
            return 2;
        }
    };
    let info = WorkspaceInfo::new(root.clone(), Vec::new());
    let by_path: std::collections::BTreeMap<PathBuf, vox_analysis::SourceFile> = loaded
        .targets
        .iter()
        .map(|f| (f.path(&loaded.db).clone(), *f))
        .collect();
    let order: Vec<vox_analysis::SourceFile> =
        abs.iter().filter_map(|p| by_path.get(p).copied()).collect();
    let threads = parallel::threads(None);
    if threads > 1 {
        checks_in_parallel(&loaded.db, &order, threads);
    }
    let results = parallel::parallel(&loaded.db, &order, threads, |db, f| {
        vox_lints::check_file(db, *f, &info)
    });
    let texts = output::Texts::new(&loaded);
    let mut out = std::io::stdout().lock();
    let (mut errors, mut warnings) = (0usize, 0usize);
    for (path, findings) in files.iter().zip(results) {
        let findings: Vec<Finding> = findings;
        errors += findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        warnings += findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .count();
        let _ = path;
        let _ = out
            .write_all(output::render(output::Format::Human, &findings, &texts, &root).as_bytes());
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
    // The process exits next: freeing every tree, body and memo one by one would only cost time.
    std::mem::forget(texts);
    std::mem::forget(loaded);
    i32::from(errors > 0)
}

/// Computes the checks of every function of `files` on `threads` workers, a function at a time
/// rather than a file at a time, so that one large file keeps every core busy; the per-file pass
/// that follows reads them from the database.
fn checks_in_parallel(
    db: &vox_analysis::AnalysisDb,
    files: &[vox_analysis::SourceFile],
    threads: usize,
) {
    // `workspace::load` parsed every file on all cores: the functions are read from the memos.
    let mut fns: Vec<vox_analysis::FnDef<'_>> = files
        .iter()
        .flat_map(|f| vox_analysis::file_items(db, *f).all())
        .collect();
    // Longest first: a script's `main` can be a tenth of its file, and started last it would
    // leave the other workers idle.
    fns.sort_by_key(|f| std::cmp::Reverse(f.text(db).len()));
    parallel::parallel(db, &fns, threads, |db, f| {
        let _ = vox_analysis::fn_checks(db, *f);
    });
}
