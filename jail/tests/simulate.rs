//! The `VOX_JAIL_SIMULATE_UNSUPPORTED` hook makes the host look unable to confine, and the jail
//! fails closed. One test: it changes this process's environment.
#![cfg(target_os = "linux")]

mod common;

use std::process::Command;

use common::*;
use vox_jail::{
    confine_command, confine_self, doctor_lines, probe, DoctorStatus, JailError, Mode, SelfPolicy,
    SIMULATE_ENV,
};

fn refusal(policy: &vox_jail::ChildPolicy) -> String {
    let mut cmd = Command::new("/bin/true");
    match confine_command(&mut cmd, policy, Mode::Confined) {
        Err(e @ JailError::CannotConfine { .. }) => e.to_string(),
        other => panic!("expected CannotConfine, got {other:?}"),
    }
}

#[test]
fn simulated_unsupported_host_fails_closed() {
    let d = Dirs::new();

    std::env::set_var(SIMULATE_ENV, "1");
    assert_eq!(probe().landlock_abi, None);
    let msg = refusal(&d.policy(true));
    assert!(
        msg.starts_with("cannot confine child: Landlock is not available on this host"),
        "{msg}"
    );
    assert!(msg.contains(SIMULATE_ENV), "{msg}");
    let err = confine_self(&SelfPolicy::new(vec![], vec![], true)).unwrap_err();
    assert!(err
        .to_string()
        .starts_with("cannot confine the interpreter:"));
    // The explicit opt-out still works (and still scrubs the environment).
    let o = run_mode(&d.policy(false), Mode::Unconfined, "/bin/true", &[]);
    assert_ok(&o, "unconfined");
    let lines = doctor_lines();
    assert!(lines
        .iter()
        .any(|l| l.status == DoctorStatus::Fail && l.check == "landlock"));
    assert!(lines.iter().any(|l| l.status == DoctorStatus::Warn));

    // No seccomp filters: every confined child is refused (its filter cannot be installed).
    std::env::set_var(SIMULATE_ENV, "seccomp");
    assert!(!probe().seccomp);
    for net in [true, false] {
        let msg = refusal(&d.policy(net));
        assert!(
            msg.starts_with("cannot confine child: seccomp filters are not available"),
            "{msg}"
        );
    }
    assert!(doctor_lines()
        .iter()
        .any(|l| l.status == DoctorStatus::Fail && l.check == "seccomp"));

    // Too old for network rules: net-off children are refused, net-on ones are confined.
    std::env::set_var(SIMULATE_ENV, "net");
    assert_eq!(probe().landlock_abi, Some(3));
    let msg = refusal(&d.policy(false));
    assert!(msg.contains("has no network rules"), "{msg}");
    let secret = d.outside_file("secret");
    let o = run(&d.policy(true), "/bin/cat", &[&s(&secret)]);
    assert_denied(&o, "cat outside at ABI 3");
    assert_ok(
        &sh(&d.policy(true), &format!("echo x > {}/f", s(d.rw.path()))),
        "w",
    );

    // No user namespaces: every child is refused (net-on ones need their read-only mounts).
    std::env::set_var(SIMULATE_ENV, "userns");
    let msg = refusal(&d.policy(false));
    assert!(msg.contains("network namespace cannot be created"), "{msg}");
    let msg = refusal(&d.policy(true));
    assert!(
        msg.starts_with(
            "cannot confine child: the read-only mount namespace of a child cannot be created"
        ),
        "{msg}"
    );
    assert!(doctor_lines()
        .iter()
        .any(|l| l.status == DoctorStatus::Fail && l.check == "user namespaces"));

    std::env::remove_var(SIMULATE_ENV);
    assert!(probe().child_gap(false).is_none());
}
