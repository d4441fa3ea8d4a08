//! Every runnable script of the project runs, end to end through the built `vox`, with its output
//! checked: the valid corpus (`tests/corpus/valid`) and the bundled examples (`examples/`); the
//! docs' code blocks run in docs_run.rs. Nothing is only parsed. Test-only files (no main,
//! no top-level statements) pass `vox test` instead.
//!
//! The run of a script is described by comment lines at its top (tests/corpus/README.md):
//! `// caps: TOKEN…` (each a `--caps`; none means `--caps none`, unless line 1 is the legacy
//! `// vox:caps` directive, which then applies), `// env: NAME=VALUE…` (the whole environment
//! besides `PATH`, `HOME`, `LANG`; `{http}` is the base URL of a small HTTP server this test
//! runs), `// args: A…` (after `--`) and `// exit: N` (default 0). Each run happens in a fresh
//! temporary directory holding a copy of the script, of the corpus's `lib/` and of the script's
//! fixture directory (`fixtures/<stem>/`, whose `bin/`, if any, comes first on `PATH`). Stdout must
//! equal `<stem>.stdout` exactly. `UPDATE_SNAPSHOTS=1` writes the `.stdout` files of runs that exit
//! as expected (review them before committing). `VOX_TIER` is passed on: with `VOX_TIER=tree` the
//! scripts run on the tree-walker and must give the same snapshots.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

mod common;
use common::{copy_tree, scratch};

/// The base URL of a small HTTP server for the scripts that use `http.*`: `GET /NAME/health`
/// answers `{"status":"ok"}`, `POST /alerts` answers `{}`, anything else 404.
fn http_base() -> &'static str {
    static BASE: OnceLock<String> = OnceLock::new();
    BASE.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut request = String::new();
                    let _ = reader.read_line(&mut request);
                    let mut length = 0usize;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                            break;
                        }
                        let lower = line.to_ascii_lowercase();
                        if let Some(v) = lower.strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0u8; length];
                    let _ = reader.read_exact(&mut body);
                    let mut parts = request.split_whitespace();
                    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
                    let (status, text) = match (method, path) {
                        ("GET", p) if p.ends_with("/health") => ("200 OK", "{\"status\":\"ok\"}"),
                        ("POST", "/alerts") => ("200 OK", "{}"),
                        _ => ("404 Not Found", "{}"),
                    };
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                        text.len()
                    );
                });
            }
        });
        format!("http://127.0.0.1:{port}")
    })
}

/// How a script is run, from the comment lines at its top.
#[derive(Debug, Default)]
struct Header {
    caps: Vec<String>,
    env: BTreeMap<String, String>,
    args: Vec<String>,
    exit: i32,
    legacy_directive: bool,
}

fn header(src: &str) -> Header {
    let mut h = Header::default();
    for (i, line) in src.lines().enumerate() {
        let Some(rest) = line.strip_prefix("//").or_else(|| line.strip_prefix("#")) else {
            break;
        };
        if i == 0 && rest.trim_start().starts_with("vox:caps") {
            h.legacy_directive = true;
        }
        let rest = rest.trim();
        let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        if let Some(v) = rest.strip_prefix("caps:") {
            h.caps.extend(words(v));
        } else if let Some(v) = rest.strip_prefix("env:") {
            for w in words(v) {
                let (k, val) = w.split_once('=').expect("env: NAME=VALUE");
                h.env
                    .insert(k.to_string(), val.replace("{http}", http_base()));
            }
        } else if let Some(v) = rest.strip_prefix("args:") {
            h.args.extend(words(v));
        } else if let Some(v) = rest.strip_prefix("exit:") {
            h.exit = v.trim().parse().expect("exit: N");
        }
    }
    h
}

/// Runs `vox ARGS` in `dir` with exactly the environment the header gives: `PATH` (the fixture's
/// `bin/` first), `HOME` (the run directory unless the header sets it), `LANG`, and the header's
/// variables.
fn vox_env(dir: &Path, args: &[String], h: &Header) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vox"));
    cmd.args(args).current_dir(dir).env_clear();
    let mut path = String::new();
    if dir.join("bin").is_dir() {
        path = format!("{}:", dir.join("bin").display());
    }
    path.push_str("/usr/local/bin:/usr/bin:/bin");
    cmd.env("PATH", path)
        .env("HOME", dir)
        .env("LANG", "C.UTF-8");
    for (k, v) in &h.env {
        cmd.env(k, v);
    }
    // `VOX_TIER=tree cargo test --test scripts` runs the corpus on the tree-walker (the compiled
    // tier's oracle): the same snapshots must hold.
    if let Some(tier) = std::env::var_os("VOX_TIER") {
        cmd.env("VOX_TIER", tier);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The outcome of one script, or why it is wrong.
enum Outcome {
    Ran,
    TestsOnly,
}

/// Runs `script` (the file name `name`, source `src`) as its header says, in a fresh directory
/// prepared from `fixtures` (may not exist) and `lib` (copied when given), and checks it against
/// `want` (the expected stdout; `None` when there is no `.stdout` file).
fn check_script(
    name: &str,
    src: &str,
    fixtures: &Path,
    lib: Option<&Path>,
    want: Option<&str>,
    stdout_file: Option<&Path>,
) -> Result<Outcome, String> {
    let dir = scratch();
    std::fs::write(dir.join(name), src).unwrap();
    if let Some(lib) = lib {
        copy_tree(lib, &dir.join("lib"));
    }
    if fixtures.is_dir() {
        copy_tree(fixtures, &dir);
    }
    let h = header(src);
    let mut args = vec!["run".to_string()];
    for c in &h.caps {
        args.push("--caps".into());
        args.push(c.clone());
    }
    if h.caps.is_empty() && !h.legacy_directive {
        args.extend(["--caps".into(), "none".into()]);
    }
    args.push(name.to_string());
    if !h.args.is_empty() {
        args.push("--".into());
        args.extend(h.args.iter().cloned());
    }
    let (code, out, err) = vox_env(&dir, &args, &h);
    if err.starts_with("vox: error: nothing to run") {
        if want.is_some() {
            return Err(format!("{name}: has a .stdout but nothing to run"));
        }
        let (code, out, err) = vox_env(&dir, &["test".to_string(), name.to_string()], &h);
        let last = out.lines().last().unwrap_or_default();
        if code != 0 || !last.ends_with(" passed, 0 failed") || last.starts_with("0 passed") {
            return Err(format!(
                "{name}: a test-only file must pass `vox test`: exit {code}\n{out}{err}"
            ));
        }
        return Ok(Outcome::TestsOnly);
    }
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() && code == h.exit {
        if let Some(path) = stdout_file {
            std::fs::write(path, &out).unwrap();
            return Ok(Outcome::Ran);
        }
    }
    let Some(want) = want else {
        return Err(format!(
            "{name}: runnable but has no .stdout (exit {code})\n--- stdout\n{out}--- stderr\n{err}"
        ));
    };
    if code != h.exit || out != want {
        return Err(format!(
            "{name}: {} in {}\n--- want (exit {})\n{want}--- got (exit {code})\n{out}--- stderr\n{err}",
            args.join(" "),
            dir.display(),
            h.exit
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Outcome::Ran)
}

fn vox_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "vox"))
        .collect();
    out.sort();
    out
}

/// Checks every `.vox` file of `dir` (fixtures in `dir/fixtures/<stem>/`); returns (ran,
/// tests-only) counts.
fn check_dir(dir: &Path, lib: Option<&Path>) -> (usize, usize) {
    let mut failures = Vec::new();
    let (mut ran, mut tests_only) = (0, 0);
    for script in vox_files(dir) {
        let name = script.file_name().unwrap().to_str().unwrap();
        let stem = script.file_stem().unwrap().to_str().unwrap();
        let src = std::fs::read_to_string(&script).unwrap();
        let want = std::fs::read_to_string(script.with_extension("stdout")).ok();
        match check_script(
            name,
            &src,
            &dir.join("fixtures").join(stem),
            lib,
            want.as_deref(),
            Some(&script.with_extension("stdout")),
        ) {
            Ok(Outcome::Ran) => ran += 1,
            Ok(Outcome::TestsOnly) => tests_only += 1,
            Err(e) => failures.push(e),
        }
    }
    // Every expected output belongs to a script.
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|e| e == "stdout") && !p.with_extension("vox").exists() {
            failures.push(format!("{}: no script for it", p.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    (ran, tests_only)
}

#[test]
fn every_valid_corpus_script_runs_with_its_output_checked() {
    let dir = workspace().join("tests/corpus/valid");
    let (ran, tests_only) = check_dir(&dir, Some(&dir.join("lib")));
    assert!(ran >= 90, "only {ran} corpus scripts ran");
    assert!(tests_only >= 2);
    println!("{ran} corpus scripts ran with their stdout checked; {tests_only} test-only files passed vox test");
}

#[test]
fn every_example_runs_with_its_output_checked() {
    let dir = workspace().join("examples");
    let (ran, _) = check_dir(&dir, None);
    assert_eq!(ran, vox_files(&dir).len());
    println!("{ran} examples ran with their stdout checked");
}

#[test]
fn header_lines_are_read_up_to_the_first_code_line() {
    let h = header("// vox:caps fs\n// caps: fs:ro=. env:ro\n// env: A=1 B=x=y\n// args: --debug\n// exit: 3\nlet x = 1\n// caps: net:allow\n");
    assert!(h.legacy_directive);
    assert_eq!(h.caps, ["fs:ro=.", "env:ro"]);
    assert_eq!(h.env.get("A").map(String::as_str), Some("1"));
    assert_eq!(h.env.get("B").map(String::as_str), Some("x=y"));
    assert_eq!(h.args, ["--debug"]);
    assert_eq!(h.exit, 3);
}
