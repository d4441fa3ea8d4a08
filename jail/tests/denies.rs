//! Deny inside a grant, enforced on real children (issue 39): read-only subtrees of a write
//! root, masked files and directories, no-exec places, and what a child tries against them.
#![cfg(target_os = "linux")]

mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::process::Command;

use common::*;
use vox_jail::{confine_command, Denies, Mode, RuleKind};

/// A write root holding `.git/{config,hooks/}`, `.env`, `keys/k`, `conf/deep/app.key` and an
/// executable `bin/tool`.
fn world(d: &Dirs) {
    let w = d.rw.path();
    std::fs::create_dir_all(w.join(".git/hooks")).unwrap();
    std::fs::write(w.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(w.join(".env"), "API_KEY=deny-secret\n").unwrap();
    std::fs::create_dir_all(w.join("keys")).unwrap();
    std::fs::write(w.join("keys/k"), "deny-secret\n").unwrap();
    std::fs::create_dir_all(w.join("conf/deep")).unwrap();
    std::fs::write(w.join("conf/deep/app.key"), "deny-secret\n").unwrap();
    std::fs::create_dir_all(w.join("bin")).unwrap();
    std::fs::write(w.join("bin/tool"), "#!/bin/sh\necho ran\n").unwrap();
    std::fs::set_permissions(w.join("bin/tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn denies(d: &Dirs) -> Denies {
    let w = d.rw.path();
    Denies {
        write: vec![w.join(".git")],
        read: vec![w.join(".env"), w.join("keys"), w.join("conf/deep/app.key")],
        exec: vec![w.join("bin")],
    }
}

#[test]
fn each_deny_holds_in_a_child() {
    let d = Dirs::new();
    world(&d);
    let policy = d.policy(false).with_denies(denies(&d));
    let mut cmd = Command::new("/bin/true");
    let applied = confine_command(&mut cmd, &policy, Mode::Confined).unwrap();
    assert!(applied.has(&RuleKind::DenyMounts), "{}", applied.describe());
    let w = s(d.rw.path());
    let steps = [
        ("cat .env", false),
        ("cat keys/k", false),
        ("ls keys", false),
        ("cat conf/deep/app.key", false),
        ("echo x > .env", false),
        ("echo x > .git/hooks/pre-commit", false),
        ("rm .git/config", false),
        ("mv .git g", false),
        ("mv conf conf2", false),
        ("mv conf/deep conf/d2", false),
        ("ln .env hl", false),
        ("./bin/tool", false),
        ("cat .git/config", true),
        ("head -c 9 bin/tool", true),
        (
            "echo ok > out.txt && mkdir -p new/dir && mv out.txt new/dir/",
            true,
        ),
        ("rm conf/deep/app.key", false),
    ];
    for (step, ok) in steps {
        let o = sh(&policy, &format!("cd {w} && {step}"));
        assert_eq!(
            o.status.success(),
            ok,
            "{step}: {} {}",
            stdout(&o),
            stderr(&o)
        );
        assert!(!stdout(&o).contains("deny-secret"), "{step}");
    }
    assert_eq!(
        std::fs::read_to_string(d.rw.path().join(".env")).unwrap(),
        "API_KEY=deny-secret\n"
    );
    assert!(d.rw.path().join("conf/deep/app.key").exists());
    assert!(d.rw.path().join("new/dir/out.txt").exists());
    assert!(!d.rw.path().join(".git/hooks/pre-commit").exists());
}

#[test]
fn a_write_root_inside_a_read_only_subtree_is_writable_again() {
    let d = Dirs::new();
    world(&d);
    let w = d.rw.path();
    let mut policy = d.policy(false).with_denies(Denies {
        write: vec![w.join(".git")],
        ..Denies::default()
    });
    policy.write_roots.push(w.join(".git/hooks"));
    let o = sh(
        &policy,
        &format!("echo h > {0}/.git/hooks/h && cat {0}/.git/hooks/h", s(w)),
    );
    assert_ok(&o, "hooks");
    assert_eq!(stdout(&o), "h\n");
    assert_denied(
        &sh(&policy, &format!("echo x >> {}/.git/config", s(w))),
        "config",
    );
}

#[test]
fn what_cannot_be_mounted_is_refused() {
    let d = Dirs::new();
    world(&d);
    let w = d.rw.path();
    let policy = d.policy(false).with_denies(Denies {
        read: vec![w.join("missing")],
        ..Denies::default()
    });
    let err = confine_command(&mut Command::new("/bin/true"), &policy, Mode::Confined)
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not exist"), "{err}");
    // Outside every grant there is nothing to mount, so nothing to refuse.
    let policy = d.policy(false).with_denies(Denies {
        read: vec![d.outside.path().join("missing")],
        ..Denies::default()
    });
    let mut cmd = Command::new("/bin/true");
    let applied = confine_command(&mut cmd, &policy, Mode::Confined).unwrap();
    assert!(!applied.has(&RuleKind::DenyMounts));
    assert!(cmd.status().unwrap().success());
}
