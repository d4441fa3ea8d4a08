//! `--caps` end to end (runtime.md §1, decisions.md 13–18): for each token and namespace an allowed
//! call works, a denied one exits 77 with the exact one-line message and leaves no side effect.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vox-caps-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d.canonicalize().unwrap()
}

fn run_in(dir: &Path, src: &str, flags: &[&str]) -> Out {
    std::fs::write(dir.join("s.vox"), src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vox"))
        .arg("run")
        .args(flags)
        .arg("s.vox")
        .current_dir(dir)
        .env("VOX_TEST_VAR", "hello")
        .output()
        .unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn denied(o: &Out, what: &str, token: &str) {
    assert_eq!(
        o.code, 77,
        "expected a denial, got {}: {}{}",
        o.code, o.stdout, o.stderr
    );
    assert_eq!(
        o.stderr,
        format!("vox: capability denied: {what} \u{2014} grant with --caps {token}\n")
    );
}

fn ok(o: &Out, stdout: &str) {
    assert_eq!(o.code, 0, "stderr: {}", o.stderr);
    assert_eq!(o.stdout, stdout);
}

#[test]
fn env_tokens() {
    let d = scratch("env");
    let get = "print(env.get(\"VOX_TEST_VAR\"))\n";
    ok(&run_in(&d, get, &["--caps", "env:ro"]), "Some(hello)\n");
    ok(&run_in(&d, get, &["--caps", "env:rw"]), "Some(hello)\n");
    denied(
        &run_in(&d, get, &["--caps", "env:none"]),
        "env.get",
        "env:ro",
    );
    denied(
        &run_in(&d, get, &["--caps", "net:allow"]),
        "env.get",
        "env:ro",
    );
    let set = "env.set(\"X\", \"1\")\nprint(env.get(\"X\"))\n";
    ok(&run_in(&d, set, &["--caps", "env:rw"]), "Some(1)\n");
    denied(&run_in(&d, set, &["--caps", "env:ro"]), "env.set", "env:rw");
    let args = "print(env.args())\n";
    ok(&run_in(&d, args, &["--caps", "env:ro"]), "[s.vox]\n");
}

#[test]
fn time_tokens() {
    let d = scratch("time");
    let src = "print(time.now_ms(), time.monotonic_ms())\n";
    ok(
        &run_in(&d, src, &["--caps", "time:frozen=1234"]),
        "1234 1234\n",
    );
    let real = run_in(
        &d,
        "print(time.now_ms() > 1600000000000)\n",
        &["--caps", "time:real"],
    );
    ok(&real, "true\n");
    denied(
        &run_in(&d, src, &["--caps", "none"]),
        "time.now_ms",
        "time:real",
    );
}

#[test]
fn random_tokens() {
    let d = scratch("random");
    let src = "print(random.int(0, 10), random.int(0, 10), random.int(0, 10), random.int(0, 10), random.int(0, 10))\n";
    ok(
        &run_in(&d, src, &["--caps", "random:seed=0"]),
        "5 0 9 4 7\n",
    );
    ok(
        &run_in(&d, "print(crypto.uuid())\n", &["--caps", "random:seed=0"]),
        "e220a839-7b1d-4daf-ae78-9e6aa1b965f4\n",
    );
    denied(
        &run_in(&d, src, &["--caps", "random:deny"]),
        "random.int",
        "random:seed=0",
    );
    denied(
        &run_in(&d, src, &["--caps", "none"]),
        "random.int",
        "random:seed=0",
    );
    // Hashes are deterministic and need nothing (decisions.md 8).
    ok(
        &run_in(
            &d,
            "print(crypto.hash_fast(\"abc\"))\n",
            &["--caps", "none"],
        ),
        "06b05ab6733a618578af5f94892f3950\n",
    );
}

#[test]
fn deterministic_expands_to_its_tokens() {
    let d = scratch("det");
    ok(
        &run_in(
            &d,
            "print(time.now_ms(), random.int(0, 10))\n",
            &["--caps", "deterministic"],
        ),
        "0 5\n",
    );
    denied(
        &run_in(
            &d,
            "print(env.get(\"HOME\"))\n",
            &["--caps", "deterministic"],
        ),
        "env.get",
        "env:ro",
    );
    denied(
        &run_in(
            &d,
            "print(process.run(\"true\", []))\n",
            &["--caps", "deterministic"],
        ),
        "process.run",
        "process:allow",
    );
    denied(
        &run_in(
            &d,
            "print(http.get_text(\"http://127.0.0.1:9/\"))\n",
            &["--caps", "deterministic"],
        ),
        "http.get_text",
        "net:allow",
    );
}

#[test]
fn process_net_secrets_agentos_tokens() {
    let d = scratch("proc");
    let run = "let r = process.run_capture(\"echo\", [\"hi\"])\nprint(r.unwrap().stdout.trim())\n";
    ok(&run_in(&d, run, &["--caps", "process:allow"]), "hi\n");
    denied(
        &run_in(&d, run, &["--caps", "process:none"]),
        "process.run_capture",
        "process:allow",
    );
    // With the network allowed the call is made (and fails: nothing listens on port 9).
    let http = "print(http.get_text(\"http://127.0.0.1:9/\").is_err())\n";
    ok(&run_in(&d, http, &["--caps", "net:allow"]), "true\n");
    ok(&run_in(&d, http, &["--caps", "http:allow"]), "true\n");
    denied(
        &run_in(&d, http, &["--caps", "net:none"]),
        "http.get_text",
        "net:allow",
    );
    let sec = "print(secrets.resolve(\"nope_not_set\"))\n";
    ok(&run_in(&d, sec, &["--caps", "secrets:allow"]), "null\n");
    denied(
        &run_in(&d, sec, &["--caps", "secrets:none"]),
        "secrets.resolve",
        "secrets:allow",
    );
    let ag = "print(agentos.mutation_kind_for_tool(\"x\"))\n";
    ok(&run_in(&d, ag, &["--caps", "agentos:allow"]), "unknown\n");
    denied(
        &run_in(&d, ag, &["--caps", "agentos:none"]),
        "agentos.mutation_kind_for_tool",
        "agentos:allow",
    );
}

#[test]
fn pure_namespaces_run_under_none() {
    let d = scratch("pure");
    let src = "print(math.sqrt(16), path.normalize(\"a/./b\"), json.render([1]).unwrap(), regex.is_match(\"ab\", \"b\"))\n";
    ok(&run_in(&d, src, &["--caps", "none"]), "4 a/b [1] true\n");
    // process.exit needs no capability (decisions.md 9).
    let o = run_in(&d, "print(\"a\")\nprocess.exit(3)\n", &["--caps", "none"]);
    assert_eq!((o.code, o.stdout.as_str()), (3, "a\n"));
}

#[test]
fn fs_read_and_write_roots() {
    let d = scratch("fs");
    let data = d.join("data");
    let out = d.join("out");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(data.join("in.txt"), "payload").unwrap();
    let ro = format!("fs:ro={}", data.display());
    let rw = format!("fs:rw={}", out.display());
    ok(
        &run_in(
            &d,
            "print(fs.read(\"data/in.txt\").unwrap())\n",
            &["--caps", &ro],
        ),
        "payload\n",
    );
    // Reading outside every root: the hint names the file's directory.
    denied(
        &run_in(&d, "print(fs.read(\"s.vox\"))\n", &["--caps", &ro]),
        "fs.read",
        &format!("fs:ro={}", d.display()),
    );
    // A write under a read-only root is denied and creates nothing.
    let w = "fs.write(\"data/new.txt\", \"x\")\n";
    denied(
        &run_in(&d, w, &["--caps", &ro]),
        "fs.write",
        &format!("fs:rw={}", data.display()),
    );
    assert!(!data.join("new.txt").exists());
    ok(
        &run_in(
            &d,
            "print(fs.write(\"out/new.txt\", \"x\"))\n",
            &["--caps", &rw],
        ),
        "Ok(true)\n",
    );
    assert_eq!(std::fs::read_to_string(out.join("new.txt")).unwrap(), "x");
    // ro and rw on one directory combine to rw.
    let both = run_in(
        &d,
        "print(fs.write(\"data/both.txt\", \"y\"))\n",
        &[
            "--caps",
            &ro,
            "--caps",
            &format!("fs:rw={}", data.display()),
        ],
    );
    ok(&both, "Ok(true)\n");
    // A non-existent target under an rw root (parents created by mkdir).
    ok(
        &run_in(
            &d,
            "print(fs.mkdir(\"out/a/b\"))\nprint(fs.write(\"out/a/b/c.txt\", \"z\"))\n",
            &["--caps", &rw],
        ),
        "Ok(true)\nOk(true)\n",
    );
    assert!(out.join("a/b/c.txt").exists());
}

#[test]
fn fs_path_tricks_are_denied_without_side_effects() {
    let d = scratch("tricks");
    let job = d.join("job");
    let jobx = d.join("jobx");
    std::fs::create_dir_all(&job).unwrap();
    std::fs::create_dir_all(&jobx).unwrap();
    let rw = format!("fs:rw={}", job.display());
    // `..` out of the root.
    let o = run_in(
        &d,
        "fs.write(\"job/../escaped.txt\", \"x\")\n",
        &["--caps", &rw],
    );
    assert_eq!(o.code, 77, "{}", o.stderr);
    assert!(
        o.stderr
            .starts_with("vox: capability denied: fs.write \u{2014} "),
        "{}",
        o.stderr
    );
    assert!(!d.join("escaped.txt").exists());
    // A prefix look-alike: /…/job does not admit /…/jobx.
    let o = run_in(&d, "fs.write(\"jobx/f.txt\", \"x\")\n", &["--caps", &rw]);
    denied(&o, "fs.write", &format!("fs:rw={}", jobx.display()));
    assert!(!jobx.join("f.txt").exists());
    // A symlink inside the root that points out of it.
    std::os::unix::fs::symlink(&jobx, job.join("link")).unwrap();
    let o = run_in(
        &d,
        "fs.write(\"job/link/through.txt\", \"x\")\n",
        &["--caps", &rw],
    );
    assert_eq!(o.code, 77, "{}", o.stderr);
    assert!(!jobx.join("through.txt").exists());
    let o = run_in(
        &d,
        "print(fs.read(\"job/link/../s.vox\"))\n",
        &["--caps", &rw],
    );
    assert_eq!(o.code, 77, "{}", o.stderr);
    // Output printed before a denial is kept; nothing after it runs.
    let o = run_in(
        &d,
        "print(\"before\")\nfs.write(\"jobx/g.txt\", \"x\")\nprint(\"after\")\n",
        &["--caps", &rw],
    );
    assert_eq!((o.code, o.stdout.as_str()), (77, "before\n"));
}

#[test]
fn fs_quotas() {
    let d = scratch("quota");
    let rw = format!("fs:rw={}", d.display());
    let o = run_in(
        &d,
        "fs.write(\"a.txt\", \"12345\")\nfs.write(\"b.txt\", \"123456\")\n",
        &["--caps", &rw, "--max-disk", "8"],
    );
    assert_eq!(o.code, 77);
    assert_eq!(
        o.stderr,
        "vox: capability denied: fs.quota \u{2014} raise --max-disk\n"
    );
    assert!(d.join("a.txt").exists() && !d.join("b.txt").exists());
    let o = run_in(
        &d,
        "fs.write(\"c.txt\", \"1\")\nfs.write(\"e.txt\", \"2\")\n",
        &["--caps", &rw, "--max-files", "1"],
    );
    assert_eq!(o.code, 77);
    assert_eq!(
        o.stderr,
        "vox: capability denied: fs.quota \u{2014} raise --max-files\n"
    );
    assert!(!d.join("e.txt").exists());
}

#[test]
fn file_imports_need_read_access() {
    let d = scratch("import");
    std::fs::create_dir_all(d.join("lib")).unwrap();
    std::fs::write(d.join("lib/u.vox"), "pub fn twice(x) { x * 2 }\n").unwrap();
    let src = "import \"./lib/u.vox\"\nprint(twice(21))\n";
    ok(
        &run_in(
            &d,
            src,
            &["--caps", &format!("fs:ro={}", d.join("lib").display())],
        ),
        "42\n",
    );
    denied(
        &run_in(&d, src, &["--caps", "none"]),
        "fs.import",
        &format!("fs:ro={}", d.join("lib").display()),
    );
}

#[test]
fn invalid_and_conflicting_tokens_exit_one() {
    let d = scratch("invalid");
    let o = run_in(&d, "print(1)\n", &["--caps", "env:allow"]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .starts_with("vox: invalid --caps token \"env:allow\": "),
        "{}",
        o.stderr
    );
    assert_eq!(o.stdout, "");
    let o = run_in(&d, "print(1)\n", &["--caps", "io:read"]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .contains("io.open / io.save take their authority from fs:"),
        "{}",
        o.stderr
    );
    let o = run_in(
        &d,
        "print(1)\n",
        &["--caps", "net:none", "--caps", "net:allow"],
    );
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("net:none") && o.stderr.contains("net:allow"),
        "{}",
        o.stderr
    );
    let o = run_in(&d, "print(1)\n", &["--caps", "fs:ro=/definitely/not/here"]);
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("/definitely/not/here"), "{}", o.stderr);
    // Identical duplicates are fine.
    ok(
        &run_in(&d, "print(1)\n", &["--caps", "env:ro", "--caps", "env:ro"]),
        "1\n",
    );
}

#[test]
fn legacy_directive_is_exhaustive_and_never_widens_caps() {
    let d = scratch("legacy");
    let src = "// vox:caps process\nprint(env.get(\"VOX_TEST_VAR\"))\n";
    denied(&run_in(&d, src, &[]), "env.get", "env:ro");
    let src = "// vox:caps env\nprint(env.get(\"VOX_TEST_VAR\"))\n";
    ok(&run_in(&d, src, &[]), "Some(hello)\n");
    // --caps wins over the directive.
    denied(&run_in(&d, src, &["--caps", "none"]), "env.get", "env:ro");
    // Line 2 after a shebang; ignored on line 3.
    ok(
        &run_in(
            &d,
            "#!/usr/bin/env vox\n// vox:caps env\nprint(env.get(\"VOX_TEST_VAR\"))\n",
            &[],
        ),
        "Some(hello)\n",
    );
    ok(
        &run_in(
            &d,
            "\n\n// vox:caps process\nprint(env.get(\"VOX_TEST_VAR\"))\n",
            &[],
        ),
        "Some(hello)\n",
    );
}

#[test]
fn require_caps_and_mesh_need_explicit_tokens() {
    let d = scratch("require");
    let o = run_in(&d, "print(1)\n", &["--require-caps"]);
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("--require-caps"), "{}", o.stderr);
    ok(
        &run_in(&d, "print(1)\n", &["--require-caps", "--caps", "none"]),
        "1\n",
    );
    let o = run_in(&d, "print(1)\n", &["--mesh"]);
    assert_eq!(o.code, 1);
    ok(
        &run_in(&d, "print(1)\n", &["--mesh", "--caps", "none"]),
        "1\n",
    );
}

#[test]
fn run_configuration_from_vox_toml() {
    let d = scratch("config");
    std::fs::create_dir_all(d.join("scripts")).unwrap();
    std::fs::write(
        d.join("Vox.toml"),
        "[run.build]\nscript = \"scripts/b.vox\"\ncaps = [\"env:ro\"]\nargs = [\"--release\"]\nmax-steps = \"1K\"\n",
    )
    .unwrap();
    std::fs::write(
        d.join("scripts/b.vox"),
        "print(env.args())\nprint(time.now_ms())\n",
    )
    .unwrap();
    let vox = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_vox"))
            .args(args)
            .current_dir(&d)
            .output()
            .unwrap();
        (
            o.status.code().unwrap(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    // The single entry for the script applies: its caps, args, ceilings.
    let (code, out, err) = vox(&["run", "scripts/b.vox"]);
    assert_eq!(
        (code, out.as_str()),
        (77, "[scripts/b.vox, --release]\n"),
        "{err}"
    );
    assert_eq!(
        err,
        "vox: capability denied: time.now_ms \u{2014} grant with --caps time:real\n"
    );
    let (code, _, err) = vox(&["run", "--config", "missing", "scripts/b.vox"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no run configuration named `missing`") && err.contains("build"),
        "{err}"
    );
    let (code, _, _) = vox(&[
        "run",
        "--config",
        "build",
        "--caps",
        "none",
        "scripts/b.vox",
    ]);
    assert_eq!(code, 2, "--caps with --config is a usage error");
    // `vox run --config NAME` without a script runs the entry's script (issue 41 item 15).
    let (code, out, err) = vox(&["run", "--config", "build"]);
    assert_eq!(
        (code, out.as_str()),
        (77, "[scripts/b.vox, --release]\n"),
        "{err}"
    );
    let (code, _, err) = vox(&["run", "--config", "missing"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no run configuration named `missing`"),
        "{err}"
    );
    let (code, _, _) = vox(&["run"]);
    assert_eq!(code, 2, "neither a script nor --config");
    // An invalid Vox.toml is reported with its location, exit 1.
    std::fs::write(d.join("Vox.toml"), "[run.build]\nscript = 3\n").unwrap();
    let (code, _, err) = vox(&["run", "scripts/b.vox"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("Vox.toml") && err.contains("invalid run configuration"),
        "{err}"
    );
}

#[test]
fn caps_audit_lines() {
    let d = scratch("audit");
    let audit = d.join("audit.jsonl");
    let o = run_in(
        &d,
        "print(env.get(\"VOX_TEST_VAR\").is_some())\nprint(time.now_ms())\n",
        &["--caps", "env:ro", "--caps-audit", audit.to_str().unwrap()],
    );
    assert_eq!(o.code, 77);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (
            lines[0]["ns"].as_str(),
            lines[0]["method"].as_str(),
            lines[0]["allowed"].as_bool()
        ),
        (Some("env"), Some("get"), Some(true))
    );
    assert_eq!(
        (lines[1]["ns"].as_str(), lines[1]["allowed"].as_bool()),
        (Some("time"), Some(false))
    );
    assert_eq!(lines[1]["line"], 2);
    // Every line validates against the documented schema (decisions.md 37).
    let schema_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schemas/caps-audit.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    for l in &lines {
        common::validate(&schema, l).unwrap_or_else(|e| panic!("audit line {l}: {e}"));
    }
    assert!(common::validate(&schema, &serde_json::json!({"ns": "fs"})).is_err());
}
