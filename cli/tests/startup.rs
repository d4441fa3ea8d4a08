//! Properties of the build that `vox run`'s start-up depends on (bench/interp.py measures the
//! time; these only check that what it relies on is still there).

use std::io::Read;

mod common;

/// Linked position-dependent (ELF type EXEC, not a PIE's DYN): a PIE has the dynamic loader apply
/// its 17,000 relative relocations at every start (cli/build.rs).
#[test]
fn the_executable_is_position_dependent() {
    let mut header = [0u8; 18];
    std::fs::File::open(env!("CARGO_BIN_EXE_vox"))
        .and_then(|mut f| f.read_exact(&mut header))
        .expect("read vox's ELF header");
    assert_eq!(&header[..4], b"\x7fELF");
    let e_type = u16::from_le_bytes([header[16], header[17]]);
    assert_eq!(
        e_type, 2,
        "vox is linked as a position-independent executable (ELF type {e_type}); cli/build.rs passes -no-pie"
    );
}

/// The unwinder is linked in from libgcc_eh, not loaded from libgcc_s.so at every start (its
/// loading and constructor took 0.12 ms of a hello world's; cli/build.rs). Where the C compiler
/// has no libgcc_eh, the build keeps libgcc_s and there is nothing to check.
#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn the_unwinder_is_linked_in_not_loaded() {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let found = std::process::Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    if !std::path::Path::new(&found).is_absolute() {
        eprintln!("no libgcc_eh.a here: the build loads libgcc_s");
        return;
    }
    // The dynamic loader lists what it would load, and runs nothing (what `ldd` does).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vox"))
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .output()
        .expect("run vox under LD_TRACE_LOADED_OBJECTS");
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains("libc.so"),
        "the loader listed nothing: {listed}"
    );
    assert!(
        !listed.contains("libgcc_s"),
        "vox loads libgcc_s at start-up; cli/build.rs links libgcc_eh instead:\n{listed}"
    );
}

// What the standard library's set-up before `main` did, done by vox's own entry (`main` in
// cli/src/main.rs, which leaves that set-up out).

/// `src` written as a script in a directory of its own; its path.
fn script(src: &str) -> std::path::PathBuf {
    let path = common::scratch_in("startup").join("s.vox");
    std::fs::write(&path, src).unwrap();
    path
}

/// A closed standard stream is opened on /dev/null before anything else is opened: otherwise the
/// first file `vox` keeps open (here the `--caps-audit` log) would be given its number, and the
/// script's output would be written into that file.
#[test]
#[cfg(unix)]
fn a_closed_stdout_is_not_taken_by_the_next_file_opened() {
    use std::os::unix::process::CommandExt;
    let script = script("fn main() { print(\"MARKER\") }\n");
    let audit = script.with_file_name("audit.jsonl");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_vox"));
    cmd.arg("run").arg("--caps-audit").arg(&audit).arg(&script);
    // SAFETY: only close(2) between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::close(1);
            Ok(())
        });
    }
    let status = cmd.status().expect("run vox");
    let log = std::fs::read_to_string(&audit).unwrap_or_default();
    assert!(status.success(), "{status}");
    assert!(
        !log.contains("MARKER"),
        "the script's output went into the audit log:\n{log}"
    );
}

/// SIGPIPE is ignored: a reader that goes away is a write error `vox` handles, not a signal that
/// kills it.
#[test]
#[cfg(unix)]
fn a_reader_that_goes_away_does_not_kill_vox_with_sigpipe() {
    use std::os::unix::process::ExitStatusExt;
    let script = script("fn main() { for i in range(0, 1000000) { print(i) } }\n");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vox"))
        .args(["run", "--max-steps", "0"])
        .arg(&script)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run vox");
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe's read end is closed here; the script goes on printing.
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        None,
        "vox was killed by a signal: {status}"
    );
}
