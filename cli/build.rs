//! Records the commit `vox --version` names (`vox 0.1.0 (abc123def456)`), so a bug report says
//! which build it came from. Outside a git checkout (a source archive) the commit is `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"])
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=VOX_COMMIT={commit}");
    // A position-dependent executable: as a PIE, every start had the dynamic loader apply 17,000
    // relative relocations to 330 KB of tables (clap's, the rules', vtables), a quarter of a
    // hello world's page faults and 0.45 ms of its 2.5 ms (bench/interp.py's start-up). The
    // code keeps being compiled position-independent, so only the link changes; shared
    // libraries, the heap, the stacks and mmap stay randomised, the executable's own addresses
    // do not.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bin=vox=-no-pie");
    }
    static_unwinder();
    // A new commit (or checkout) changes HEAD or the ref it names; a path that does not exist
    // would make cargo run this on every build, so only existing ones are named.
    println!("cargo:rerun-if-changed=build.rs");
    // In a linked worktree HEAD is the worktree's own, but the branches and packed-refs live in
    // the repository's common directory.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        let common = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"])
            .unwrap_or_else(|| dir.clone());
        let mut watch = vec![format!("{dir}/HEAD"), format!("{common}/packed-refs")];
        if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watch.push(format!("{common}/{head}"));
        }
        for p in watch
            .into_iter()
            .filter(|p| std::path::Path::new(p).exists())
        {
            println!("cargo:rerun-if-changed={p}");
        }
    }
}

/// The unwinder (panics unwind to the handlers that turn them into an internal error) linked in
/// from the C compiler's static libgcc_eh rather than loaded from libgcc_s.so at every start:
/// loading that library and its constructor (which asks the CPU for its features, each CPUID a
/// trip to the hypervisor in a VM) took 0.12 ms of a hello world's start-up. The standard library
/// still names libgcc_s, but it is linked `--as-needed`, so with every unwinding symbol already
/// defined the library is dropped. Not done under a linker chosen for the target (the release
/// artifacts' zig, which has its own unwinder), or where the C compiler has no libgcc_eh.
fn static_unwinder() {
    println!("cargo:rerun-if-env-changed=CC");
    let gnu_linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if !gnu_linux || std::env::var_os("RUSTC_LINKER").is_some() {
        return;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let Ok(out) = Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
    else {
        return;
    };
    let path = std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    // Without the library the compiler prints the bare name back.
    if let (true, Some(dir)) = (path.is_absolute() && path.exists(), path.parent()) {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static=gcc_eh");
    }
}
