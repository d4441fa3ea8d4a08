//! `confine_self` confines the calling process irreversibly, so the checks run in a fresh copy
//! of this test binary (`inner_confined_process`, a no-op unless the outer test starts it).
#![cfg(target_os = "linux")]

mod common;

use std::io::ErrorKind;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;

use common::*;
use vox_jail::{
    confine_command, confine_self, ChildPolicy, EnvPolicy, Mode, RuleKind, SelfPolicy, TempDir,
};

const INNER: &str = "VOX_JAIL_TEST_SELF_INNER";

#[test]
fn interpreter_confines_itself() {
    let d = Dirs::new();
    let secret = d.outside_file("secret");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let arg = format!("{}|{}|{port}", s(d.rw.path()), s(&secret));
    let o = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "inner_confined_process", "--nocapture"])
        .env(INNER, arg)
        .output()
        .unwrap();
    assert_ok(&o, "inner test");
    assert!(stdout(&o).contains("1 passed"), "{}", stdout(&o));
    assert!(d.rw.path().join("x").exists());
    assert!(d.rw.path().join("from-child").exists());
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the confined process connected");
}

#[test]
fn inner_confined_process() {
    let Ok(arg) = std::env::var(INNER) else {
        return; // only meaningful when started by `interpreter_confines_itself`
    };
    let parts: Vec<&str> = arg.split('|').collect();
    let (rw, secret, port) = (PathBuf::from(parts[0]), PathBuf::from(parts[1]), parts[2]);

    let policy = SelfPolicy::new(vec![], vec![rw.clone()], false);
    let applied = confine_self(&policy).expect("confine_self");
    assert!(applied.has(&RuleKind::LandlockFs) && applied.has(&RuleKind::LandlockTcp));

    std::fs::write(rw.join("x"), "x").expect("write in the write root");
    let err = std::fs::read(&secret).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
    let err = std::fs::write(secret.with_file_name("new"), "x").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
    let err = TcpStream::connect(format!("127.0.0.1:{port}")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);

    // A jailed child of the confined interpreter: both domains apply.
    let tmp = TempDir::new_in(&rw).unwrap();
    let child = ChildPolicy::new(
        vec![],
        vec![rw.clone()],
        false,
        tmp.path(),
        EnvPolicy::new(),
    );
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(format!(
        "echo hi > {0}/from-child && ! cat {1}",
        rw.display(),
        secret.display()
    ));
    confine_command(&mut cmd, &child, Mode::Confined).unwrap();
    let o = cmd.output().unwrap();
    assert_ok(&o, "child of the confined interpreter");
    // The child's own /proc entry is readable through both domains.
    let mut cmd = Command::new("/bin/cat");
    cmd.arg("/proc/self/status");
    confine_command(&mut cmd, &child, Mode::Confined).unwrap();
    assert_ok(&cmd.output().unwrap(), "/proc/self under both domains");
}
