//! Decisions 57–62 where they show on stderr or in the exit code (docs/semantics.md; its `vox`
//! blocks, run by `scripts.rs`, check what shows on stdout). Each test failed before its change.

mod common;
use common::{scratch, vox_in};

/// Runs `src` as `s.vox` with `flags`: (exit code, stdout, stderr).
fn run(src: &str, flags: &[&str]) -> (i32, String, String) {
    let dir = scratch();
    std::fs::write(dir.join("s.vox"), src).unwrap();
    let mut args = vec!["run"];
    args.extend_from_slice(flags);
    args.push("s.vox");
    vox_in(&dir, &args)
}

/// Decision 58: a `?` that ends the entry with `Err`/`None` exits 1 with the error at the `?`,
/// in both entry forms; a `?` inside a function still returns from it.
#[test]
fn a_question_mark_that_ends_the_entry_is_a_failure() {
    let (code, out, err) = run(
        "fn main() {\n    print(\"start\")\n    let t = fs.read(\"missing.txt\")?\n    print(t)\n}\n",
        &[],
    );
    assert_eq!((code, out.as_str()), (1, "start\n"), "{err}");
    assert!(
        err.starts_with("vox: error: `?` ended the script with Err("),
        "{err}"
    );
    assert!(err.contains("s.vox:3:13"), "{err}");
    let (code, out, err) = run("print(\"a\")\nlet x = [].first()?\nprint(x)\n", &[]);
    assert_eq!((code, out.as_str()), (1, "a\n"), "{err}");
    assert!(
        err.starts_with("vox: error: `?` ended the script with None\n"),
        "{err}"
    );
    assert!(err.contains("s.vox:2:9"), "{err}");
    // Inside a function, `?` returns from the function.
    let (code, out, err) = run(
        "fn f() {\n    let x = [].first()?\n    Some(x)\n}\nfn main() {\n    print(f())\n}\n",
        &[],
    );
    assert_eq!((code, out.as_str(), err.as_str()), (0, "None\n", ""));
    // With --error-format json the editor gets it as a runtime error with its place.
    let (code, _, err) = run("let x = [].first()?\n", &["--error-format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(err.lines().next().unwrap()).unwrap();
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(1), Some(9)),
        "{err}"
    );
}

/// Decision 59: the entry's `None` (and `null`) result is not printed; `Some` is.
#[test]
fn the_entry_prints_its_result_unless_null_or_none() {
    assert_eq!(
        run("fn main() {\n    None\n}\n", &[]),
        (0, String::new(), String::new())
    );
    assert_eq!(
        run("fn main() {\n    Some(3)\n}\n", &[]),
        (0, "Some(3)\n".to_string(), String::new())
    );
}

/// Decision 62: `(x,)` is a syntax error that says a tuple has two or more elements.
#[test]
fn a_one_element_tuple_is_a_syntax_error() {
    let (code, out, err) = run("let t = (1,)\nprint(t)\n", &[]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("syntax.one-element-tuple"), "{err}");
    assert!(err.contains("a tuple has two or more elements"), "{err}");
}

/// `let (a, b) = e`: a tuple nothing else holds gives its values up, a shared one (or a list) is
/// copied from, and the wrong count or kind is an error at the `let`, under both tiers.
#[test]
fn let_destructures_tuples_and_lists_and_names_a_mismatch() {
    let src = "fn pair(n) { (n, [n + 1]) }
let (a, b) = pair(3)
let t = (1, [2])
let (c, d) = t
let (x, y) = [5, 6]
print(a, b, c, d, t, x, y)
";
    for tier in ["vm", "tree"] {
        for (tail, code, msg) in [
            ("", 0, ""),
            (
                "let (e, f) = (1, 2, 3)\n",
                1,
                "vox: error: cannot destructure a Tuple of 3 elements into 2 names\n  --> s.vox:7:1",
            ),
            (
                "let (e, f) = 4\n",
                1,
                "vox: error: cannot destructure Int into 2 names\n  --> s.vox:7:1",
            ),
        ] {
            let dir = scratch();
            std::fs::write(dir.join("s.vox"), format!("{src}{tail}")).unwrap();
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_vox"))
                .args(["run", "s.vox"])
                .current_dir(&dir)
                .env("VOX_TIER", tier)
                .output()
                .unwrap();
            let (stdout, stderr) = (
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            assert_eq!(out.status.code(), Some(code), "{tier} {tail}: {stderr}");
            assert_eq!(stdout, "3 [4] 1 [2] (1, [2]) 5 6\n", "{tier} {tail}");
            assert!(stderr.starts_with(msg), "{tier} {tail}: {stderr}");
        }
    }
}

/// Decision 62: `MIN % -1` names `%`.
#[test]
fn min_modulo_minus_one_names_the_operator() {
    let (code, _, err) = run("let m = -9223372036854775807 - 1\nprint(m % -1)\n", &[]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("vox: error: integer overflow: -9223372036854775808 % -1\n"),
        "{err}"
    );
}

/// Decision 62: JSON nests up to --max-depth (1024 by default; its `Ok` is one of the levels, as
/// for every value) and stops the run with exit 78 beyond it; with no limit a million levels
/// parse without overflowing the host stack.
#[test]
fn json_nesting_is_bounded_by_max_depth() {
    let nest = |n: usize| {
        format!("let r = json.parse(\"[\".repeat({n}) + \"]\".repeat({n}))\nprint(r.is_ok())\n")
    };
    assert_eq!(
        run(&nest(1023), &[]),
        (0, "true\n".to_string(), String::new())
    );
    assert_eq!(
        run(&nest(1024), &[]),
        (
            78,
            String::new(),
            "vox: execution budget exceeded: --max-depth 1024\n".to_string()
        )
    );
    assert_eq!(
        run(&nest(30), &["--max-depth", "20"]).2,
        "vox: execution budget exceeded: --max-depth 20\n"
    );
    let (code, out, err) = run(&nest(1_000_000), &["--max-depth", "0"]);
    assert_eq!((code, out.as_str()), (0, "true\n"), "{err}");
    // Not JSON is a value, not a stop.
    let (code, out, _) = run("print(json.parse(\"[1,]\"))\n", &[]);
    assert_eq!(
        (code, out.as_str()),
        (0, "Err(expected value at line 1 column 4)\n")
    );
}

/// Decision 62 for YAML and TOML, whose libraries stopped at 128 and 80 levels: the same bound as
/// JSON. A TOML document's own table is a level, so its arrays may nest one less.
#[test]
fn yaml_and_toml_nesting_is_bounded_by_max_depth() {
    let nest = |format: &str, prefix: &str, n: usize| {
        format!(
            "let r = {format}.parse(\"{prefix}\" + \"[\".repeat({n}) + \"]\".repeat({n}))\nprint(r.is_ok())\n"
        )
    };
    let stopped = (
        78,
        String::new(),
        "vox: execution budget exceeded: --max-depth 1024\n".to_string(),
    );
    let yes = (0, "true\n".to_string(), String::new());
    assert_eq!(run(&nest("yaml", "", 1023), &[]), yes);
    assert_eq!(run(&nest("yaml", "", 1024), &[]), stopped);
    assert_eq!(run(&nest("toml", "a = ", 1022), &[]), yes);
    assert_eq!(run(&nest("toml", "a = ", 1023), &[]), stopped);
    // Inline tables and dotted keys are levels too.
    let tables = "let r = toml.parse(\"a = \" + '{b = '.repeat(1022) + \"1\" + '}'.repeat(1022))\nprint(r.is_ok())\n";
    assert_eq!(run(tables, &[]), yes);
    let dotted = "let r = toml.parse(\"k\" + \".k\".repeat(1023) + \" = 1\")\nprint(r.is_ok())\n";
    assert_eq!(run(dotted, &[]).0, 78);
    // Without a limit: YAML builds on the heap; TOML's parser recurses, so it stops at 10,000.
    let (code, out, err) = run(&nest("yaml", "", 200_000), &["--max-depth", "0"]);
    assert_eq!((code, out.as_str()), (0, "true\n"), "{err}");
    let (code, out, err) = run(
        &nest("toml", "a = ", 200_000).replace("print(r.is_ok())", "print(r)"),
        &["--max-depth", "0"],
    );
    assert_eq!(
        (code, out.as_str()),
        (0, "Err(nested deeper than 10000 levels)\n"),
        "{err}"
    );
}

/// Decision 61 in the analysis: a function called through a field (`o.s()`) is in the chains and
/// the inferred capabilities, and `vox check` does not call it an unknown method.
#[test]
fn the_analysis_follows_calls_through_a_field() {
    let dir = scratch();
    let src = "fn stamp() {\n    time.now_ms()\n}\nfn main() {\n    let o = {s: stamp}\n    print(o.s())\n}\n";
    std::fs::write(dir.join("s.vox"), src).unwrap();
    let (code, out, err) = vox_in(&dir, &["check", "s.vox"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("check.unknown-method"), "{out}");
    let (_, out, _) = vox_in(&dir, &["lint", "--format", "json", "s.vox"]);
    assert!(out.contains("\"D003\""), "{out}");
    assert!(
        out.contains("main → stamp") || out.contains("\"stamp\""),
        "{out}"
    );
    let (code, out, err) = vox_in(&dir, &["caps", "s.vox"]);
    assert_eq!((code, out.trim()), (0, "time:real"), "{err}");
}
