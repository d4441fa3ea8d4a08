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
    // The child's chmod outside its roots was refused by its read-only mounts.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&secret).unwrap().permissions().mode();
    assert_ne!(
        mode & 0o777,
        0o666,
        "the child changed the mode of the secret"
    );
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
    let applied = confine_command(&mut cmd, &child, Mode::Confined).unwrap();
    assert!(
        applied.has(&RuleKind::ReadOnlyMounts),
        "{}",
        applied.describe()
    );
    let o = cmd.output().unwrap();
    assert_ok(&o, "child of the confined interpreter");
    // Its read-only mount namespace was prepared before the interpreter confined itself (it
    // cannot mount any more): metadata outside the roots stays out of reach, the ids are kept.
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(format!(
        "! chmod 666 {0} 2>{1}/err && grep -q 'Read-only file system' {1}/err && \
         chmod 600 {1}/err && id -u",
        secret.display(),
        rw.display()
    ));
    confine_command(&mut cmd, &child, Mode::Confined).unwrap();
    let o = cmd.output().unwrap();
    assert_ok(&o, "chmod outside under both domains");
    // SAFETY: a plain getter.
    let uid = unsafe { libc::geteuid() };
    assert_eq!(stdout(&o).trim(), uid.to_string());
    // A child that would write elsewhere than the interpreter's own places needs a namespace
    // that can no longer be built: refused, not run with writable mounts.
    let other = ChildPolicy::new(
        vec![],
        vec![],
        false,
        secret.parent().unwrap(),
        EnvPolicy::new(),
    );
    let mut cmd = Command::new("/bin/true");
    let err = confine_command(&mut cmd, &other, Mode::Confined).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot confine child: cannot prepare the read-only mount namespace"),
        "{err}"
    );
    // The child's own /proc entry is readable through both domains.
    let mut cmd = Command::new("/bin/cat");
    cmd.arg("/proc/self/status");
    confine_command(&mut cmd, &child, Mode::Confined).unwrap();
    assert_ok(&cmd.output().unwrap(), "/proc/self under both domains");
}
