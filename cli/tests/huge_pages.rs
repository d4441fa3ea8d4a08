//! `vox run` turns transparent huge pages off for itself (start-up and peak memory:
//! cli/src/memory.rs), and the programs a script starts get the kernel's default back, jailed or
//! not, as from a shell (the setting is inherited across fork and exec).

mod common;

use common::run_script;

/// Prints the interpreter's `THP_enabled` line, then a child's (`grep` of its own status).
const SCRIPT: &str = r#"let own = fs.read("/proc/self/status").unwrap().split("\n").filter(fn(l) l.starts_with("THP_enabled"))
print("vox", own[0].unwrap())
let r = process.run_capture("grep", ["THP_enabled", "/proc/self/status"]).unwrap()
print("child", r.stdout.trim())
"#;

#[test]
fn a_scripts_children_get_huge_pages_back() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if !status.contains("THP_enabled:\t1") {
        // A kernel without the field, or a test run that has them off already (its children
        // then keep them off by design): nothing to tell apart.
        eprintln!("skipped: THP_enabled is not 1 in this process");
        return;
    }
    let dir = std::env::temp_dir().join(format!("vox-thp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The developer default (unconfined children), then a jail.
    for flags in [
        &[][..],
        &["--caps", "process:allow", "--caps", "fs:ro=/proc"][..],
    ] {
        let o = run_script(&dir, SCRIPT, flags);
        assert_eq!(o.code, 0, "{flags:?}: {}", o.stderr);
        assert_eq!(
            o.stdout, "vox THP_enabled:\t0\nchild THP_enabled:\t1\n",
            "{flags:?}: {}",
            o.stderr
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
