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
