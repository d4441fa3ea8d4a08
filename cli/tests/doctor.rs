//! `vox doctor` (decisions.md 38 and 48, runtime.md §4): one `ok`/`warn`/`fail` line per check,
//! the jail's host support and the run-lifetime mechanism named, exit 1 when a check fails.

use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vox-doctor-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn doctor(simulate: Option<&str>) -> (i32, String, String) {
    let dir = scratch(simulate.unwrap_or("host"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vox"));
    cmd.arg("doctor")
        .current_dir(&dir)
        .env_remove("VOX_JAIL_SIMULATE_UNSUPPORTED");
    if let Some(s) = simulate {
        cmd.env("VOX_JAIL_SIMULATE_UNSUPPORTED", s);
    }
    let out = cmd.output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every line is `ok   …`, `warn …` or `fail …` (the verdict padded to four columns).
fn assert_line_format(out: &str) {
    assert!(!out.trim().is_empty(), "no output");
    for line in out.lines() {
        assert!(
            line.starts_with("ok   ") || line.starts_with("warn ") || line.starts_with("fail "),
            "line without a verdict: {line:?}"
        );
    }
}

fn line<'a>(out: &'a str, check: &str) -> &'a str {
    out.lines()
        .find(|l| l[5..].starts_with(&format!("{check}:")))
        .unwrap_or_else(|| panic!("no `{check}` line in:\n{out}"))
}

#[test]
fn doctor_reports_what_this_host_enforces() {
    let (code, out, err) = doctor(None);
    assert_line_format(&out);
    assert_eq!(code, 0, "this host supports the jail:\n{out}{err}");
    assert!(
        line(&out, "landlock").starts_with("ok   landlock: ABI "),
        "{out}"
    );
    assert!(
        line(&out, "landlock network rules").starts_with("ok"),
        "{out}"
    );
    assert!(line(&out, "user namespaces").starts_with("ok"), "{out}");
    let net = line(&out, "network off");
    assert!(net.starts_with("ok"), "{out}");
    assert!(net.contains("network namespace"), "{net}");
    assert!(line(&out, "landlock scoping").starts_with("ok"), "{out}");
    assert!(
        line(&out, "interpreter self-confinement").starts_with("ok"),
        "{out}"
    );
    let lifetime = line(&out, "run lifetime");
    assert!(
        lifetime.starts_with("ok   run lifetime: child subreaper ("),
        "{lifetime}"
    );
    assert!(
        lifetime.contains("setsid, double fork and nohup"),
        "{lifetime}"
    );
    // What cli/tests/lifetime.rs proves on this host (decision 55).
    assert!(
        lifetime.contains("a keeper per jailed or background child")
            && lifetime.contains("vox itself killed with SIGKILL")
            && lifetime.contains("Without --caps, other children get only the parent-death"),
        "{lifetime}"
    );
    // Issue 35: each protection is proven by a probe child on this host.
    for check in [
        "jail descriptors",
        "jail terminal",
        "jail unix sockets",
        "jail ipc",
        "jail setuid",
        "jail seccomp",
        "jail deny within",
    ] {
        let l = line(&out, check);
        assert!(
            l.starts_with(&format!("ok   {check}: proven by a probe child: ")),
            "{l}"
        );
    }
    assert!(!out.contains("fail "), "{out}");
}

/// Without Landlock no probe child can be confined: the protections are reported unproven.
#[test]
fn doctor_says_the_protections_are_unproven_without_landlock() {
    let (code, out, _) = doctor(Some("landlock"));
    assert_eq!(code, 1, "{out}");
    let l = line(&out, "jail protections");
    assert!(
        l.starts_with("fail jail protections: no probe child could be confined"),
        "{l}"
    );
    assert!(l.contains("Landlock is not available"), "{l}");
    assert!(!l.contains("  "), "a run of spaces in the message: {l}");
}

#[test]
fn doctor_fails_without_a_child_subreaper() {
    let (code, out, _) = doctor(Some("lifetime"));
    assert_line_format(&out);
    assert_eq!(code, 1, "{out}");
    let lifetime = line(&out, "run lifetime");
    assert!(
        lifetime.starts_with("fail run lifetime: no child subreaper"),
        "{lifetime}"
    );
    assert!(lifetime.contains("--unconfined-children"), "{lifetime}");
    assert!(line(&out, "landlock").starts_with("ok"), "{out}");
    assert!(
        line(&out, "jail simulation hook").starts_with("warn"),
        "{out}"
    );
}

#[test]
fn doctor_fails_without_landlock() {
    let (code, out, _) = doctor(Some("1"));
    assert_line_format(&out);
    assert_eq!(code, 1, "{out}");
    let ll = line(&out, "landlock");
    assert!(ll.starts_with("fail landlock: not available"), "{ll}");
    assert!(ll.contains("--unconfined-children"), "{ll}");
    assert!(
        line(&out, "jail simulation hook").starts_with("warn"),
        "{out}"
    );
}

#[test]
fn doctor_fails_without_network_rules_or_namespaces() {
    let (code, out, _) = doctor(Some("net"));
    assert_line_format(&out);
    assert_eq!(code, 1, "{out}");
    assert!(
        line(&out, "landlock network rules").starts_with("fail"),
        "{out}"
    );
    assert!(!out.contains("network off:"), "{out}");

    let (code, out, _) = doctor(Some("userns"));
    assert_line_format(&out);
    assert_eq!(code, 1, "{out}");
    assert!(line(&out, "user namespaces").starts_with("fail"), "{out}");
    assert!(line(&out, "landlock").starts_with("ok"), "{out}");
}
