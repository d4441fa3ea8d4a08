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
