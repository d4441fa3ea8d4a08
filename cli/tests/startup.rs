//! Properties of the build that `vox run`'s start-up depends on (bench/interp.py measures the
//! time; these only check that what it relies on is still there).

use std::io::Read;

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
