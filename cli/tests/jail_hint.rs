//! A child's denial explained (issue 39 item 4): when a jailed child fails and its captured stderr
//! shows `Permission denied`, `Operation not permitted` or `Read-only file system` on a path
//! outside its grants (or inside a deny), `vox run` adds one line on stderr naming what the jail
//! refused and the token that would grant it (or the deny that refused it). Nothing when the jail
//! is off, when the path is granted, or when the failure is not a denial.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

mod common;

use common::{run_script as run, Out};

/// `root/` (the rw root, with `.git/hooks/`, `.env`, `bin/tool`, `locked.txt` of mode 000) and
/// `outside/secret.txt` beside it.
fn world(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vox-hint-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    for sub in ["root/.git/hooks", "root/bin", "outside"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    std::fs::write(d.join("root/.env"), "API_KEY=x\n").unwrap();
    std::fs::write(d.join("root/bin/tool"), "#!/bin/sh\necho ran\n").unwrap();
    std::fs::set_permissions(
        d.join("root/bin/tool"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::write(d.join("root/locked.txt"), "x\n").unwrap();
    std::fs::set_permissions(
        d.join("root/locked.txt"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    std::fs::write(d.join("outside/secret.txt"), "s\n").unwrap();
    d.canonicalize().unwrap()
}

const JAIL: &[&str] = &[
    "--caps",
    "fs:rw=root",
    "--caps",
    "fs:ro=root/.git",
    "--caps",
    "fs:none=root/.env",
    "--caps",
    "exec:none=root/bin",
    "--caps",
    "process:allow",
];

/// Runs `sh -c cmd` captured and prints its exit status only.
fn sh(cmd: &str) -> String {
    format!(
        "let r = process.run_capture(\"sh\", [\"-c\", {cmd:?}]).unwrap()\nlet code = r.exit\nprint(\"exit {{code}}\")\n"
    )
}

fn hint(o: &Out) -> Vec<&str> {
    o.stderr
        .lines()
        .filter(|l| l.starts_with("vox: the jail refused "))
        .collect()
}

#[test]
fn a_refused_read_outside_the_roots_names_the_token() {
    let d = world("read");
    let o = run(&d, &sh("cat outside/secret.txt"), JAIL);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "exit 1\n");
    assert_eq!(
        o.stderr,
        format!(
            "vox: the jail refused sh reading {} \u{2014} grant with --caps fs:ro={}\n",
            d.join("outside/secret.txt").display(),
            d.join("outside").display()
        )
    );
}

#[test]
fn a_refusal_inside_a_deny_names_the_deny_or_the_narrower_grant() {
    let d = world("deny");
    let o = run(&d, &sh("cat root/.env"), JAIL);
    assert_eq!(
        hint(&o),
        [format!(
            "vox: the jail refused sh reading {} \u{2014} denied by --caps fs:none={}",
            d.join("root/.env").display(),
            d.join("root/.env").display()
        )
        .as_str()]
    );
    let o = run(&d, &sh("echo x > root/.git/hooks/pre-commit"), JAIL);
    assert_eq!(
        hint(&o),
        [format!(
            "vox: the jail refused sh writing {} \u{2014} grant with --caps fs:rw={}",
            d.join("root/.git/hooks/pre-commit").display(),
            d.join("root/.git/hooks").display()
        )
        .as_str()]
    );
    let o = run(&d, &sh("./root/bin/tool"), JAIL);
    assert_eq!(
        hint(&o),
        [format!(
            "vox: the jail refused sh executing {} \u{2014} it lies in --caps exec:none={}",
            d.join("root/bin/tool").display(),
            d.join("root/bin").display()
        )
        .as_str()]
    );
}

#[test]
fn one_line_however_many_refusals() {
    let d = world("one");
    let o = run(
        &d,
        &sh("cat outside/secret.txt; cat root/.env; touch root/.git/x; exit 1"),
        JAIL,
    );
    assert_eq!(hint(&o).len(), 1, "{}", o.stderr);
    assert!(hint(&o)[0].contains("outside/secret.txt"), "{}", o.stderr);
}

#[test]
fn no_line_when_the_failure_is_not_the_jails() {
    let d = world("none");
    // Not a denial at all.
    for cmd in ["cat root/missing.txt", "exit 3", "ls /nonexistent-vox-hint"] {
        let o = run(&d, &sh(cmd), JAIL);
        assert_eq!(o.code, 0, "{cmd}: {}", o.stderr);
        assert!(hint(&o).is_empty(), "{cmd}: {}", o.stderr);
        assert_eq!(o.stderr, "", "{cmd}");
    }
    // A denial on a granted path: the file's own mode refuses (capabilities are dropped).
    let o = run(&d, &sh("cat root/locked.txt"), JAIL);
    assert_eq!(o.stdout, "exit 1\n", "{}", o.stderr);
    assert!(hint(&o).is_empty(), "{}", o.stderr);
    // The child succeeded: whatever it printed, no line.
    let o = run(&d, &sh("cat outside/secret.txt; true"), JAIL);
    assert_eq!(o.stdout, "exit 0\n", "{}", o.stderr);
    assert!(hint(&o).is_empty(), "{}", o.stderr);
}

#[test]
fn no_line_when_the_jail_is_off() {
    let d = world("off");
    // The child's words alone (it prints them itself): jailed, they name a refused path.
    let fake = "echo 'cat: outside/secret.txt: Permission denied' >&2; exit 1";
    let o = run(&d, &sh(fake), JAIL);
    assert_eq!(hint(&o).len(), 1, "{}", o.stderr);
    // The developer default and --unconfined-children start children without the jail.
    let o = run(&d, &sh(fake), &[]);
    assert_eq!(o.stdout, "exit 1\n", "{}", o.stderr);
    assert!(hint(&o).is_empty(), "{}", o.stderr);
    let mut flags = JAIL.to_vec();
    flags.push("--unconfined-children");
    let o = run(&d, &sh(fake), &flags);
    assert_eq!(o.stdout, "exit 1\n", "{}", o.stderr);
    assert!(hint(&o).is_empty(), "{}", o.stderr);
}

/// Under `--error-format json` the line is a `jail.refused` event at the `process.*` call, with
/// the token that would grant the path (what the editor's quick fix adds); a deny gives none.
#[test]
fn under_json_errors_the_line_is_an_event_at_the_call_with_its_token() {
    let d = world("json");
    let mut flags = JAIL.to_vec();
    flags.extend(["--error-format", "json"]);
    let o = run(&d, &sh("cat outside/secret.txt"), &flags);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let ev: serde_json::Value = serde_json::from_str(o.stderr.trim()).expect(&o.stderr);
    assert_eq!(ev["kind"], "jail.refused");
    assert_eq!(ev["file"], "s.vox");
    assert_eq!(ev["line"], 1);
    assert_eq!(ev["column"], 9, "{ev}");
    assert_eq!(
        ev["token"],
        format!("fs:ro={}", d.join("outside").display()).as_str()
    );
    assert!(ev["message"]
        .as_str()
        .unwrap()
        .starts_with("vox: the jail refused sh reading "));
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schemas/error-event.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let kinds = schema["properties"]["kind"]["enum"].as_array().unwrap();
    assert!(kinds.iter().any(|k| k == "jail.refused"));
    let o = run(&d, &sh("cat root/.env"), &flags);
    let ev: serde_json::Value = serde_json::from_str(o.stderr.trim()).expect(&o.stderr);
    assert_eq!(ev["kind"], "jail.refused");
    assert!(ev.get("token").is_none(), "{ev}");
}
