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

/// Whether this kernel gives huge pages to memory that asks for them (mimalloc's arenas do): else
/// nothing a test looks at could tell the settings apart.
fn kernel_gives_huge_pages() -> bool {
    let enabled =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    let own = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    !enabled.contains("[never]") && own.contains("THP_enabled:\t1")
}

/// They are off from before `main`: turned off there, the runtime's and argument parsing's first
/// allocations had already faulted three 2 MiB pages (6 MiB of `AnonHugePages` in a hello world).
#[test]
fn the_interpreter_never_has_a_huge_page() {
    if !kernel_gives_huge_pages() {
        eprintln!("skipped: this kernel gives no huge pages here");
        return;
    }
    let dir = common::scratch_in("vox-thp-rollup");
    let script = r#"let rollup = fs.read("/proc/self/smaps_rollup").unwrap().split("\n").filter(fn(l) l.starts_with("AnonHugePages"))
print(rollup[0].unwrap().split(":")[1].unwrap().trim())
"#;
    let o = run_script(&dir, script, &["--caps", "fs:ro=/proc"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "0 kB\n", "{}", o.stderr);
}

/// A command that does not choose a setting (`vox test`) gives its scripts' children the one `vox`
/// started with, although the start-up turned huge pages off for every command.
#[test]
fn vox_test_children_keep_the_setting_vox_started_with() {
    if !kernel_gives_huge_pages() {
        eprintln!("skipped: this kernel gives no huge pages here");
        return;
    }
    let dir = common::scratch_in("vox-thp-test");
    let script = r#"@test
fn child_has_huge_pages() {
    let r = process.run_capture("grep", ["THP_enabled", "/proc/self/status"]).unwrap()
    assert(r.stdout.trim() == "THP_enabled:\t1")
}
"#;
    std::fs::write(dir.join("t.vox"), script).unwrap();
    let (code, out, err) = common::vox_in(&dir, &["test", "t.vox"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 passed, 0 failed"), "{out}{err}");
}
