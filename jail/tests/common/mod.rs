//! Shared helpers for the jail's integration tests (real processes).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use vox_jail::{confine_command, ChildPolicy, EnvPolicy, Mode, TempDir};

/// Directories for one test: a write root, a read-only root, a place outside every root and the
/// child's private temp dir. All are siblings under the system temp dir.
pub struct Dirs {
    pub rw: TempDir,
    pub ro: TempDir,
    pub outside: TempDir,
    pub tmp: TempDir,
}

impl Dirs {
    pub fn new() -> Dirs {
        Dirs {
            rw: TempDir::new().unwrap(),
            ro: TempDir::new().unwrap(),
            outside: TempDir::new().unwrap(),
            tmp: TempDir::new().unwrap(),
        }
    }

    pub fn policy(&self, net_allowed: bool) -> ChildPolicy {
        self.policy_env(net_allowed, EnvPolicy::new())
    }

    pub fn policy_env(&self, net_allowed: bool, env: EnvPolicy) -> ChildPolicy {
        ChildPolicy::new(
            vec![self.ro.path().to_path_buf()],
            vec![self.rw.path().to_path_buf()],
            net_allowed,
            self.tmp.path(),
            env,
        )
    }

    /// A file outside every root, with contents `secret`.
    pub fn outside_file(&self, name: &str) -> PathBuf {
        let p = self.outside.path().join(name);
        std::fs::write(&p, "secret\n").unwrap();
        p
    }
}

pub fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// Runs `prog args` confined by `policy`, capturing its output.
pub fn run(policy: &ChildPolicy, prog: &str, args: &[&str]) -> Output {
    run_mode(policy, Mode::Confined, prog, args)
}

pub fn run_mode(policy: &ChildPolicy, mode: Mode, prog: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(prog);
    cmd.args(args).stdin(Stdio::null());
    confine_command(&mut cmd, policy, mode).expect("confine_command");
    cmd.output().expect("spawn")
}

/// `sh -c script`, confined.
pub fn sh(policy: &ChildPolicy, script: &str) -> Output {
    run(policy, "/bin/sh", &["-c", script])
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts the child failed, showing its output otherwise.
pub fn assert_failed(o: &Output, what: &str) {
    if std::env::var_os("VOX_JAIL_TEST_SHOW").is_some() {
        eprintln!("[{what}] {} stderr: {}", o.status, stderr(o).trim_end());
    }
    assert!(
        !o.status.success(),
        "{what}: expected failure, got success\nstdout: {}\nstderr: {}",
        stdout(o),
        stderr(o)
    );
}

pub fn assert_ok(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: expected success, got {}\nstdout: {}\nstderr: {}",
        o.status,
        stdout(o),
        stderr(o)
    );
}

/// Asserts the child failed with a permission error (the jail's EACCES/EPERM, or EROFS: outside
/// the writable places every mount is read-only, which the kernel checks before Landlock).
pub fn assert_denied(o: &Output, what: &str) {
    assert_failed(o, what);
    let err = stderr(o);
    assert!(
        err.contains("Permission denied")
            || err.contains("Operation not permitted")
            || err.contains("Read-only file system"),
        "{what}: failed for another reason: {err}"
    );
}
