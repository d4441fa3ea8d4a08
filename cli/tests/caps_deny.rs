//! Deny inside a grant (issue 39 item 1): `fs:ro=DIR` inside an `fs:rw=` root makes that subtree
//! read-only, `fs:none=PATH` makes a file or directory unreadable and unwritable, `exec:none=PATH`
//! readable but not executable. The most specific path decides, a deny wins over an allow of the
//! same path, and symlinks are resolved first. These tests drive the interpreter's gate
//! (`fs.*`, `io.*`, imports); `escape.rs` drives the same rules through jailed children.

use std::os::unix::fs::{symlink, PermissionsExt as _};
use std::path::{Path, PathBuf};

mod common;

use common::{run_script as run, Out};

/// A project directory: `.git/hooks/`, `.git/config`, `.env` (a secret), `secrets/` (a
/// directory with a JSON file and a module), `src/lib.vox`, `bin/tool` (an executable script),
/// and symlinks `env-link -> .env`, `hooks-link -> .git/hooks`, `secrets-link -> secrets`.
fn project(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vox-deny-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(d.join("secrets")).unwrap();
    std::fs::create_dir_all(d.join("src")).unwrap();
    std::fs::create_dir_all(d.join("bin")).unwrap();
    std::fs::write(d.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(d.join(".env"), "API_KEY=deny-test-secret\n").unwrap();
    std::fs::write(
        d.join("secrets/k.json"),
        "{\"key\": \"deny-test-secret\"}\n",
    )
    .unwrap();
    std::fs::write(d.join("secrets/lib.vox"), "pub fn f() { 1 }\n").unwrap();
    std::fs::write(d.join("src/lib.vox"), "pub fn g() { 2 }\n").unwrap();
    std::fs::write(d.join("bin/tool"), "#!/bin/sh\necho tool ran\n").unwrap();
    std::fs::set_permissions(d.join("bin/tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
    symlink(".env", d.join("env-link")).unwrap();
    symlink(".git/hooks", d.join("hooks-link")).unwrap();
    symlink("secrets", d.join("secrets-link")).unwrap();
    d.canonicalize().unwrap()
}

/// The flags of the issue's example: the project writable, `.git` read-only, `.env` hidden.
const PROTECT: &[&str] = &[
    "--caps",
    "fs:rw=.",
    "--caps",
    "fs:ro=.git",
    "--caps",
    "fs:none=.env",
];

fn ok(o: &Out, stdout: &str) {
    assert_eq!(o.code, 0, "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    assert_eq!(o.stdout, stdout, "stderr: {}", o.stderr);
}

/// Exit 77 with exactly the one denial line.
fn denied(o: &Out, line: &str) {
    assert_eq!(
        o.code, 77,
        "expected a denial, got {}: {}{}",
        o.code, o.stdout, o.stderr
    );
    assert_eq!(o.stderr, format!("{line}\n"));
}

fn none_line(what: &str, path: &Path) -> String {
    format!(
        "vox: capability denied: {what} \u{2014} denied by --caps fs:none={}",
        path.display()
    )
}

#[test]
fn the_issue_example_writes_the_root_but_not_git_or_env() {
    let d = project("example");
    ok(
        &run(
            &d,
            "fs.write(\"out.txt\", \"x\")?\nprint(\"wrote\")\n",
            PROTECT,
        ),
        "wrote\n",
    );
    assert_eq!(std::fs::read_to_string(d.join("out.txt")).unwrap(), "x");
    // `.git` stays readable.
    ok(
        &run(&d, "print(fs.read(\".git/config\")?.trim())\n", PROTECT),
        "[core]\n",
    );
    denied(
        &run(
            &d,
            "fs.write(\".git/hooks/pre-commit\", \"#!/bin/sh\\n\")?\n",
            PROTECT,
        ),
        &format!(
            "vox: capability denied: fs.write \u{2014} grant with --caps fs:rw={}",
            d.join(".git/hooks").display()
        ),
    );
    assert!(!d.join(".git/hooks/pre-commit").exists());
    denied(
        &run(&d, "print(fs.read(\".env\")?)\n", PROTECT),
        &none_line("fs.read", &d.join(".env")),
    );
    denied(
        &run(&d, "fs.write(\".env\", \"API_KEY=mine\")?\n", PROTECT),
        &none_line("fs.write", &d.join(".env")),
    );
    assert_eq!(
        std::fs::read_to_string(d.join(".env")).unwrap(),
        "API_KEY=deny-test-secret\n"
    );
}

#[test]
fn symlinks_into_a_denied_place_are_resolved_first() {
    let d = project("symlink");
    denied(
        &run(&d, "print(fs.read(\"env-link\")?)\n", PROTECT),
        &none_line("fs.read", &d.join(".env")),
    );
    denied(
        &run(&d, "fs.write(\"hooks-link/pre-commit\", \"x\")?\n", PROTECT),
        &format!(
            "vox: capability denied: fs.write \u{2014} grant with --caps fs:rw={}",
            d.join(".git/hooks").display()
        ),
    );
    assert!(!d.join(".git/hooks/pre-commit").exists());
    // A symlink the script cannot see through is still resolved: `..` after it, doubled slashes.
    denied(
        &run(&d, "print(fs.read(\"src/../.env\")?)\n", PROTECT),
        &none_line("fs.read", &d.join(".env")),
    );
    // The deny token may itself name a symlink: its target is what is denied.
    let flags = ["--caps", "fs:rw=.", "--caps", "fs:none=env-link"];
    denied(
        &run(&d, "print(fs.read(\".env\")?)\n", &flags),
        &none_line("fs.read", &d.join(".env")),
    );
}

#[test]
fn a_hard_link_made_before_the_run_is_denied_too() {
    let d = project("hardlink");
    std::fs::hard_link(d.join(".env"), d.join("env-copy")).unwrap();
    denied(
        &run(&d, "print(fs.read(\"env-copy\")?)\n", PROTECT),
        &none_line("fs.read", &d.join(".env")),
    );
}

#[test]
fn a_denied_directory_is_closed_to_every_fs_and_io_call_and_imports() {
    let d = project("dir");
    let flags = ["--caps", "fs:rw=.", "--caps", "fs:none=secrets"];
    let line = |what: &str| none_line(what, &d.join("secrets"));
    let cases: &[(&str, &str)] = &[
        ("print(fs.read(\"secrets/k.json\")?)\n", "fs.read"),
        (
            "print(fs.read_bytes(\"secrets/k.json\")?)\n",
            "fs.read_bytes",
        ),
        ("print(fs.exists(\"secrets/k.json\"))\n", "fs.exists"),
        ("print(fs.list_dir(\"secrets\")?)\n", "fs.list_dir"),
        ("print(fs.list_dir(\"secrets-link\")?)\n", "fs.list_dir"),
        ("print(fs.stat(\"secrets/k.json\")?)\n", "fs.stat"),
        ("print(fs.walk(\"secrets\")?)\n", "fs.walk"),
        ("fs.copy(\"secrets/k.json\", \"stolen.json\")?\n", "fs.copy"),
        ("fs.write(\"secrets/new.txt\", \"x\")?\n", "fs.write"),
        ("fs.mkdir(\"secrets/sub\")?\n", "fs.mkdir"),
        ("fs.remove(\"secrets/k.json\")?\n", "fs.remove"),
        ("print(io.open(\"secrets/k.json\")?)\n", "io.open"),
        ("io.save(\"secrets/out.json\", {\"a\": 1})?\n", "io.save"),
    ];
    for (src, what) in cases {
        let o = run(&d, src, &flags);
        assert!(
            o.code == 77 && o.stderr.starts_with(&line(what)),
            "{src}: exit {} {}{}",
            o.code,
            o.stdout,
            o.stderr
        );
        assert!(!o.stdout.contains("deny-test-secret"), "{src}");
    }
    assert!(!d.join("stolen.json").exists());
    assert!(d.join("secrets/k.json").exists());
    let import = run(
        &d,
        "import \"./secrets/lib.vox\" as l\nprint(l.f())\n",
        &flags,
    );
    assert_eq!(import.code, 77, "{}{}", import.stdout, import.stderr);
    assert!(
        import.stderr.contains(&line("fs.import")),
        "{}",
        import.stderr
    );
    // Other imports still work.
    ok(
        &run(&d, "import \"./src/lib.vox\" as l\nprint(l.g())\n", &flags),
        "2\n",
    );
    // Listings of the parent leave the denied place out of what they read.
    ok(
        &run(
            &d,
            "let w = fs.walk(\".\")?\nprint(w.filter(fn(p) { p.contains(\"k.json\") }))\n\
             print(fs.glob(\"**/*.json\")?)\n",
            &flags,
        ),
        "[]\n[]\n",
    );
}

#[test]
fn removing_a_tree_that_holds_a_deny_is_denied() {
    let d = project("rmtree");
    std::fs::create_dir_all(d.join("sub/.git")).unwrap();
    std::fs::write(d.join("sub/.git/config"), "x").unwrap();
    let flags = ["--caps", "fs:rw=.", "--caps", "fs:ro=sub/.git"];
    let o = run(&d, "fs.remove_dir_all(\"sub\")?\n", &flags);
    assert_eq!(o.code, 77, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr
            .starts_with("vox: capability denied: fs.remove_dir_all \u{2014} "),
        "{}",
        o.stderr
    );
    assert!(d.join("sub/.git/config").exists());
    // The tree beside it goes.
    std::fs::create_dir_all(d.join("other/x")).unwrap();
    ok(
        &run(
            &d,
            "fs.remove_dir_all(\"other\")?\nprint(\"gone\")\n",
            &flags,
        ),
        "gone\n",
    );
}

#[test]
fn the_most_specific_path_decides_and_a_deny_wins_at_the_same_path() {
    let d = project("specific");
    // rw inside ro inside rw: hooks is writable again.
    let flags = [
        "--caps",
        "fs:rw=.",
        "--caps",
        "fs:ro=.git",
        "--caps",
        "fs:rw=.git/hooks",
    ];
    ok(
        &run(&d, "fs.write(\".git/hooks/h\", \"x\")?\nprint(1)\n", &flags),
        "1\n",
    );
    let o = run(&d, "fs.write(\".git/config\", \"x\")?\n", &flags);
    assert_eq!(o.code, 77, "{}", o.stderr);
    // A grant inside a denied directory opens that part again.
    std::fs::create_dir_all(d.join("secrets/public")).unwrap();
    std::fs::write(d.join("secrets/public/p.txt"), "public\n").unwrap();
    let flags = [
        "--caps",
        "fs:rw=.",
        "--caps",
        "fs:none=secrets",
        "--caps",
        "fs:ro=secrets/public",
    ];
    ok(
        &run(
            &d,
            "print(fs.read(\"secrets/public/p.txt\")?.trim())\n",
            &flags,
        ),
        "public\n",
    );
    denied(
        &run(&d, "print(fs.read(\"secrets/k.json\")?)\n", &flags),
        &none_line("fs.read", &d.join("secrets")),
    );
    // The same path granted and denied: the deny wins, whatever the order.
    for flags in [
        ["--caps", "fs:none=src", "--caps", "fs:rw=src"],
        ["--caps", "fs:rw=src", "--caps", "fs:none=src"],
    ] {
        denied(
            &run(&d, "print(fs.read(\"src/lib.vox\")?)\n", &flags),
            &none_line("fs.read", &d.join("src")),
        );
    }
    // ro and rw on one directory still combine to rw (decision 13).
    let flags = ["--caps", "fs:ro=src", "--caps", "fs:rw=src"];
    ok(
        &run(&d, "fs.write(\"src/x.txt\", \"x\")?\nprint(1)\n", &flags),
        "1\n",
    );
}

#[test]
fn exec_none_keeps_files_readable() {
    let d = project("exec");
    let flags = ["--caps", "fs:rw=.", "--caps", "exec:none=bin"];
    ok(
        &run(&d, "print(fs.read(\"bin/tool\")?.len() > 0)\n", &flags),
        "true\n",
    );
    ok(
        &run(&d, "fs.write(\"bin/other\", \"x\")?\nprint(1)\n", &flags),
        "1\n",
    );
}

#[test]
fn tokens_parse_print_and_refuse() {
    let d = project("tokens");
    // --verbose prints the set, denies included.
    let o = run(
        &d,
        "print(1)\n",
        &[
            "--verbose",
            "--caps",
            "fs:rw=.",
            "--caps",
            "fs:none=.env",
            "--caps",
            "exec:none=bin",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains(&format!(
            "exec:none={} fs:none={} fs:rw={}",
            d.join("bin").display(),
            d.join(".env").display(),
            d.display()
        )),
        "{}",
        o.stderr
    );
    for (token, why) in [
        ("fs:none", "fs:none needs a path, e.g. fs:none=.env"),
        ("exec:none", "exec:none needs a path, e.g. exec:none=bin"),
        ("exec:allow", "write exec:none=<path>"),
        ("fs:none=", "the path is empty"),
    ] {
        let o = run(&d, "print(1)\n", &["--caps", token]);
        assert_eq!(o.code, 1, "{token}: {}", o.stderr);
        assert!(
            o.stderr
                .starts_with(&format!("vox: invalid --caps token {token:?}: {why}")),
            "{token}: {}",
            o.stderr
        );
    }
    // A deny may name a path that does not exist yet: it is denied when created.
    let flags = ["--caps", "fs:rw=.", "--caps", "fs:none=later.txt"];
    denied(
        &run(&d, "fs.write(\"later.txt\", \"x\")?\n", &flags),
        &none_line("fs.write", &d.join("later.txt")),
    );
    assert!(!d.join("later.txt").exists());
}

#[test]
fn a_deny_outside_every_grant_is_a_warning() {
    let d = project("pointless");
    let elsewhere = std::env::temp_dir()
        .canonicalize()
        .unwrap()
        .join(format!("vox-deny-elsewhere-{}", std::process::id()));
    std::fs::create_dir_all(&elsewhere).unwrap();
    let token = format!("fs:none={}", elsewhere.display());
    let o = run(&d, "print(1)\n", &["--caps", "fs:rw=src", "--caps", &token]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "1\n");
    assert_eq!(
        o.stderr,
        format!(
            "vox: warning: --caps {token} denies nothing: it lies outside every fs:ro and fs:rw \
             root, where everything is denied anyway\n"
        )
    );
    let token = format!("exec:none={}", elsewhere.display());
    let o = run(&d, "print(1)\n", &["--caps", "fs:rw=src", "--caps", &token]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .starts_with(&format!("vox: warning: --caps {token} denies nothing")),
        "{}",
        o.stderr
    );
    // Inside a grant: no warning.
    let o = run(&d, "print(1)\n", PROTECT);
    assert_eq!(o.stderr, "");
    let _ = std::fs::remove_dir_all(&elsewhere);
}

/// The jail holds children to the same rules (issue 39 item 2; `escape.rs` has the hostile
/// cases): `.env` cannot be read, `.git` cannot be written, `bin/` cannot be executed, the rest
/// of the root is writable.
#[test]
fn children_are_held_by_the_same_rules() {
    let d = project("children");
    let mut flags = PROTECT.to_vec();
    flags.extend(["--caps", "exec:none=bin", "--caps", "process:allow"]);
    let src = r#"
let steps = [
    "cat .env",
    "cat env-link",
    "echo x > .git/hooks/pre-commit",
    "./bin/tool",
    "head -c 9 bin/tool",
    "echo ok > out.txt && cat out.txt",
    "cat .git/config",
]
for s in steps {
    let r = process.run_capture("sh", ["-c", s]).unwrap()
    let code = r.exit
    let out = r.stdout.trim()
    let err = r.stderr.trim()
    print("{s}: {code} {out} {err}")
}
"#;
    let o = run(&d, src, &flags);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let want = [
        "cat .env: 1  cat: .env: Permission denied",
        "cat env-link: 1  cat: env-link: Permission denied",
        "echo x > .git/hooks/pre-commit: 2  sh: 1: cannot create .git/hooks/pre-commit: Read-only file system",
        "./bin/tool: 126  sh: 1: ./bin/tool: Permission denied",
        "head -c 9 bin/tool: 0 #!/bin/sh ",
        "echo ok > out.txt && cat out.txt: 0 ok ",
        "cat .git/config: 0 [core] ",
    ];
    assert_eq!(o.stdout.lines().collect::<Vec<_>>(), want, "{}", o.stderr);
    assert!(!d.join(".git/hooks/pre-commit").exists());
}

#[test]
fn a_program_under_exec_none_is_denied_at_the_call() {
    let d = project("execgate");
    let flags = [
        "--caps",
        "fs:rw=.",
        "--caps",
        "exec:none=bin",
        "--caps",
        "process:allow",
    ];
    denied(
        &run(&d, "print(process.run_capture(\"bin/tool\", []))\n", &flags),
        &format!(
            "vox: capability denied: process.run_capture \u{2014} {} lies in --caps exec:none={}: \
             children may read it but not execute it",
            d.join("bin/tool").display(),
            d.join("bin").display()
        ),
    );
    // Beside it, programs run.
    ok(
        &run(
            &d,
            "print(process.run_capture(\"true\", []).unwrap().exit)\n",
            &flags,
        ),
        "0\n",
    );
}

#[test]
fn what_the_jail_cannot_mount_is_refused_with_exit_77() {
    let d = project("refuse");
    let spawn = "print(process.run_capture(\"true\", []))\n";
    // A deny on a path that does not exist: a child could create it, and nothing can be
    // mounted over it. The interpreter alone is fine with it.
    let o = run(
        &d,
        spawn,
        &[
            "--caps",
            "fs:rw=.",
            "--caps",
            "fs:none=missing.env",
            "--caps",
            "process:allow",
        ],
    );
    assert_eq!(o.code, 77, "{}{}", o.stdout, o.stderr);
    assert_eq!(
        o.stderr,
        format!(
            "vox: cannot confine child: fs:none={} does not exist (No such file or directory (os \
             error 2)); the jail can only mount over what exists, and a child could create it: \
             create it (an empty file will do) or drop the token\n",
            d.join("missing.env").display()
        )
    );
    // A grant inside a masked directory.
    std::fs::create_dir_all(d.join("secrets/public")).unwrap();
    let o = run(
        &d,
        spawn,
        &[
            "--caps",
            "fs:rw=.",
            "--caps",
            "fs:none=secrets",
            "--caps",
            "fs:ro=secrets/public",
            "--caps",
            "process:allow",
        ],
    );
    assert_eq!(o.code, 77, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr.starts_with(&format!(
            "vox: cannot confine child: {} lies inside fs:none={}",
            d.join("secrets/public").display(),
            d.join("secrets").display()
        )),
        "{}",
        o.stderr
    );
}

/// With the whole filesystem writable nothing is made read-only, but the denies still are.
#[test]
fn denies_hold_under_a_writable_root_directory() {
    let d = project("slash");
    let flags = [
        "--caps",
        "fs:rw=/",
        "--caps",
        "fs:none=.env",
        "--caps",
        "fs:ro=.git",
        "--caps",
        "process:allow",
    ];
    let src = r#"
for s in ["cat .env", "touch .git/x", "touch out2.txt"] {
    let r = process.run_capture("sh", ["-c", s]).unwrap()
    let code = r.exit
    let err = r.stderr.trim()
    print("{s}: {code} {err}")
}
"#;
    ok(
        &run(&d, src, &flags),
        "cat .env: 1 cat: .env: Permission denied\n\
         touch .git/x: 1 touch: cannot touch '.git/x': Read-only file system\n\
         touch out2.txt: 0 \n",
    );
}
