//! `vox test FILE|DIR [--test NAME]` (decisions.md 28): each `@test` function of each script, in
//! a fresh interpreter, with the capability set and ceilings `vox run` would choose.

use std::path::{Path, PathBuf};

use vox_runtime::eval::Interp;
use vox_runtime::exc::{Exc, Loc};
use vox_runtime::program::Program;

use crate::run::{deadline, load_program, prepare, stopped, Reporter, RunFlags, STACK_SIZE};

/// One test's result.
struct TestResult {
    name: String,
    failure: Option<String>,
    output: (String, String),
}

fn vox_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            vox_files(&e, out);
        }
    } else if path.extension().is_some_and(|e| e == "vox") {
        out.push(path.to_path_buf());
    }
}

/// `vox test FILE|DIR [--test NAME]`: each `@test` in a fresh interpreter (decisions.md 28).
pub fn test(flags: RunFlags, target: PathBuf, only: Option<String>) -> i32 {
    let mut files = Vec::new();
    if !target.exists() {
        eprintln!("vox: {}", crate::read_error::not_found(target.display()));
        return 2;
    }
    vox_files(&target, &mut files);
    let handle = std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .name("vox-test".into())
        .spawn(move || {
            let mut passed = 0usize;
            let mut failed = 0usize;
            let silent = Reporter { json: false };
            // Background children of tests that ended normally outlive their test (and the run).
            let mut survivors: Vec<u32> = Vec::new();
            vox_runtime::context::install_interrupt_handlers();
            'files: for file in files {
                let mut prepared = match prepare(&flags, &file, &[], true) {
                    Ok(p) => p,
                    Err((_, msg)) => {
                        println!("test {} ... FAILED: {msg}", file.display());
                        failed += 1;
                        continue;
                    }
                };
                let prog = match load_program(&mut prepared, &silent) {
                    Ok(p) => p,
                    Err(_) => {
                        println!(
                            "test {} ... FAILED: the file could not be loaded (see above)",
                            file.display()
                        );
                        failed += 1;
                        continue;
                    }
                };
                let entry = prog.files.last().expect("loaded");
                let names: Vec<String> = entry
                    .hir
                    .tests
                    .iter()
                    .filter_map(|&id| {
                        entry.hir.functions[id as usize]
                            .name
                            .as_deref()
                            .map(str::to_string)
                    })
                    .filter(|n| only.as_deref().is_none_or(|o| o == n))
                    .collect();
                for name in names {
                    let fresh = match prepare(&flags, &file, &[], true) {
                        Ok(p) => p,
                        Err((_, msg)) => {
                            println!("test {name} ... FAILED: {msg}");
                            failed += 1;
                            continue;
                        }
                    };
                    let mut ctx = fresh.ctx;
                    if let Some(secs) = ctx.limits.timeout_secs {
                        ctx.deadline = deadline(secs);
                    }
                    ctx.spared = survivors.clone();
                    let mut interp = Interp::new(&prog, ctx);
                    let r = interp.run_test(&name);
                    // Each test is a run: its processes end with it (decision 48).
                    vox_runtime::effects::end_run(&mut interp.ctx, stopped(&r));
                    survivors = std::mem::take(&mut interp.ctx.spared);
                    survivors.extend_from_slice(&interp.ctx.background);
                    let output = interp.ctx.captured();
                    let failure = match r {
                        Ok(()) => None,
                        Err(Exc::Exit(0)) => None,
                        Err(e) => Some(describe_failure(&e, &prog)),
                    };
                    let result = TestResult {
                        name,
                        failure,
                        output,
                    };
                    match &result.failure {
                        None => {
                            passed += 1;
                            println!("test {} ... ok", result.name);
                        }
                        Some(why) => {
                            failed += 1;
                            println!("test {} ... FAILED: {why}", result.name);
                            let (out, err) = &result.output;
                            if !out.is_empty() {
                                println!("---- {} stdout ----\n{}", result.name, out.trim_end());
                            }
                            if !err.is_empty() {
                                println!("---- {} stderr ----\n{}", result.name, err.trim_end());
                            }
                        }
                    }
                    if vox_runtime::context::interrupted() {
                        break 'files;
                    }
                }
            }
            println!("{passed} passed, {failed} failed");
            if vox_runtime::context::interrupted() {
                // The whole `vox test` run is stopped: the survivors of earlier tests end too.
                vox_jail::lifetime::end_descendants(&[]);
                eprintln!("vox: interrupted");
                return 130;
            }
            if failed > 0 {
                1
            } else {
                0
            }
        });
    match handle {
        Ok(h) => h.join().unwrap_or_else(|_| {
            vox_jail::lifetime::end_descendants(&[]);
            101
        }),
        Err(_) => 101,
    }
}

fn describe_failure(e: &Exc, prog: &Program) -> String {
    let at = |loc: &Option<Loc>| {
        loc.map(|l| {
            let (f, line, col) = prog.loc_text(l);
            format!(" at {f}:{line}:{col}")
        })
        .unwrap_or_default()
    };
    match e {
        Exc::Error { message, loc } | Exc::Panic { message, loc } => {
            format!("{message}{}", at(loc))
        }
        Exc::Denied { what, token, loc } => {
            format!("capability denied: {what} \u{2014} {token}{}", at(loc))
        }
        Exc::Quota { hint, loc, .. } => {
            format!("capability denied: fs.quota \u{2014} {hint}{}", at(loc))
        }
        Exc::Ceiling { kind, limit, .. } => crate::run::ceiling_message(*kind, *limit),
        Exc::Unconfinable { reason, .. } => format!("cannot confine child: {reason}"),
        Exc::Exit(n) => format!("process.exit({n})"),
        Exc::Interrupted => "interrupted".to_string(),
    }
}
