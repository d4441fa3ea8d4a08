//! Helpers shared by the CLI tests (each test file uses only some of them).
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

pub mod session;

/// Runs the built `vox` with `args` in `dir`: (exit code, stdout, stderr). `VOX_TEST_BIN` names
/// another build to run instead (to see a new test fail on an older one).
pub fn vox_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(vox_bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What a run printed and how it ended.
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Writes `src` to `dir/s.vox` and runs `vox run FLAGS s.vox` in `dir` ([`vox_in`]).
pub fn run_script(dir: &Path, src: &str, flags: &[&str]) -> Out {
    std::fs::write(dir.join("s.vox"), src).unwrap();
    let args: Vec<&str> = ["run"]
        .into_iter()
        .chain(flags.iter().copied())
        .chain(["s.vox"])
        .collect();
    let (code, stdout, stderr) = vox_in(dir, &args);
    Out {
        code,
        stdout,
        stderr,
    }
}

/// A small validator for the subset of JSON Schema the document uses: `type` (string or list),
/// `required`, `enum`, `minimum`, `properties`, `additionalProperties: false`.
pub fn validate(schema: &Value, v: &Value) -> Result<(), String> {
    let Value::Object(obj) = v else {
        return Err(format!("not an object: {v}"));
    };
    for r in schema["required"].as_array().unwrap() {
        let key = r.as_str().unwrap();
        if !obj.contains_key(key) {
            return Err(format!("missing required key `{key}` in {v}"));
        }
    }
    let props = schema["properties"].as_object().unwrap();
    for (k, val) in obj {
        let Some(p) = props.get(k) else {
            return Err(format!(
                "key `{k}` is not allowed (additionalProperties is false)"
            ));
        };
        if let Some(choices) = p.get("enum") {
            if !choices.as_array().unwrap().contains(val) {
                return Err(format!("`{k}` = {val} is not one of {choices}"));
            }
        }
        if let Some(t) = p.get("type") {
            let types: Vec<&str> = match t {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().map(|x| x.as_str().unwrap()).collect(),
                _ => vec![],
            };
            let ok = types.iter().any(|t| match *t {
                "string" => val.is_string(),
                "integer" => val.is_i64() || val.is_u64(),
                "null" => val.is_null(),
                "boolean" => val.is_boolean(),
                _ => false,
            });
            if !ok {
                return Err(format!("`{k}` = {val} is not of type {t}"));
            }
        }
        if let (Some(min), Some(n)) = (p.get("minimum").and_then(Value::as_i64), val.as_i64()) {
            if n < min {
                return Err(format!("`{k}` = {n} is below {min}"));
            }
        }
    }
    Ok(())
}

/// A fresh, empty directory unique to this call.
pub fn scratch() -> std::path::PathBuf {
    scratch_in("scripts")
}

/// A fresh, empty directory unique to this call, named after `tag`, inside this test process's
/// own directory, which is removed when the process exits (a full test run left 700 directories
/// in the temp dir). `VOX_KEEP_TEST_DIRS` keeps it, to look at after a failure.
pub fn scratch_in(tag: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    static REGISTER: std::sync::Once = std::sync::Once::new();
    let n = N.fetch_add(1, Ordering::SeqCst);
    let parent = process_dir();
    REGISTER.call_once(|| {
        if std::env::var_os("VOX_KEEP_TEST_DIRS").is_none() {
            // SAFETY: registers a plain function, run once when the process exits.
            unsafe { libc::atexit(remove_process_dir) };
        }
    });
    let d = parent.join(format!("{tag}-{n}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// This test process's directory for [`scratch_in`].
fn process_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("vox-tests-{}", std::process::id()))
}

extern "C" fn remove_process_dir() {
    let _ = std::fs::remove_dir_all(process_dir());
}

/// Copies `from` into `to` recursively, keeping file modes (fixture programs are executable).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// The repository's root.
pub fn repo_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Every page a user reads, sorted: README.md, ARCHITECTURE.md, CHANGELOG.md, docs/**/*.md and
/// editors/*/README.md (the docs tests run and cross-check them).
pub fn doc_pages() -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let ws = repo_root();
    let mut out = Vec::new();
    for top in ["README.md", "ARCHITECTURE.md", "CHANGELOG.md"] {
        if ws.join(top).is_file() {
            out.push(ws.join(top));
        }
    }
    walk(&ws.join("docs"), &mut out);
    for e in std::fs::read_dir(ws.join("editors")).unwrap() {
        let readme = e.unwrap().path().join("README.md");
        if readme.is_file() {
            out.push(readme);
        }
    }
    out.sort();
    out
}

/// The `vox` under test: the build of this crate, or the one `VOX_TEST_BIN` names.
pub fn vox_bin() -> std::path::PathBuf {
    std::env::var_os("VOX_TEST_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_BIN_EXE_vox")))
}
