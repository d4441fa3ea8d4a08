//! `vox check` exit codes and messages.

mod common;

fn vox(args: &[&str], dir: &std::path::Path) -> (i32, String, String) {
    common::vox_in(dir, args)
}

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("vox-check-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn clean_file_exits_zero() {
    let d = scratch("clean");
    std::fs::write(d.join("ok.vox"), "fn main() {\n  print(\"hi\")\n}\n").unwrap();
    let (code, out, err) = vox(&["check", "ok.vox"], &d);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out, "");
    assert!(
        err.contains("checked 1 file: 0 errors, 0 warnings"),
        "{err}"
    );
}

#[test]
fn warnings_alone_exit_zero_and_errors_exit_one() {
    let d = scratch("warn");
    std::fs::write(d.join("w.vox"), "let x = 1;\n").unwrap();
    std::fs::write(d.join("e.vox"), "let p = 1 $ 2\n").unwrap();
    let (code, out, _) = vox(&["check", "w.vox"], &d);
    assert_eq!(code, 0);
    assert!(
        out.contains("warning[syntax.semicolon]: unnecessary `;`"),
        "{out}"
    );
    let (code, out, _) = vox(&["check", "w.vox", "e.vox"], &d);
    assert_eq!(code, 1);
    assert!(
        out.contains("error[syntax.unknown-char]: unexpected character `$`"),
        "{out}"
    );
    assert!(out.contains("e.vox:1:11"), "{out}");
}

#[test]
fn unreadable_file_is_a_usage_error() {
    let d = scratch("missing");
    let (code, _, err) = vox(&["check", "nope.vox"], &d);
    assert_eq!(code, 2);
    assert!(err.contains("vox: cannot read nope.vox"), "{err}");
    let (code, _, _) = vox(&["check"], &d);
    assert_eq!(code, 2, "no files is a usage error");
}

#[test]
fn columns_count_unicode_scalars() {
    let d = scratch("cols");
    std::fs::write(d.join("u.vox"), "let s = \"héllo\" $\n").unwrap();
    let (_, out, _) = vox(&["check", "u.vox"], &d);
    assert!(out.contains("u.vox:1:17"), "{out}");
}

#[test]
fn import_problems_are_check_findings() {
    let d = scratch("imports");
    std::fs::write(d.join("a.vox"), "import \"./missing.vox\"\nprint(1)\n").unwrap();
    std::fs::write(d.join("b.vox"), "import \"./c.vox\"\npub fn b() { 1 }\n").unwrap();
    std::fs::write(d.join("c.vox"), "import \"./b.vox\"\npub fn c() { 2 }\n").unwrap();
    std::fs::write(d.join("d.vox"), "import \"./b.vox\"\nprint(b())\n").unwrap();
    std::fs::write(d.join("e.vox"), "pub fn e() {\n").unwrap();
    std::fs::write(d.join("f.vox"), "import \"./e.vox\"\nprint(1)\n").unwrap();
    std::fs::write(d.join("ok.vox"), "import \"./lib.vox\"\nprint(twice(2))\n").unwrap();
    std::fs::write(d.join("lib.vox"), "pub fn twice(x) { x * 2 }\n").unwrap();
    let (code, out, _) = vox(&["check", "a.vox"], &d);
    assert_eq!(code, 1);
    assert!(
        out.contains("error[check.import-missing]: cannot import ./missing.vox: no such file"),
        "{out}"
    );
    assert!(out.contains("a.vox:1:1"), "{out}");
    let (code, out, _) = vox(&["check", "d.vox"], &d);
    assert_eq!(code, 1);
    assert!(
        out.contains("error[check.import-cycle]: import cycle: b.vox -> c.vox -> b.vox"),
        "{out}"
    );
    let (code, out, _) = vox(&["check", "f.vox"], &d);
    assert_eq!(code, 1);
    assert!(
        out.contains("error[check.import-errors]: imported file ./e.vox has errors"),
        "{out}"
    );
    let (code, out, _) = vox(&["check", "ok.vox"], &d);
    assert_eq!((code, out.as_str()), (0, ""));
    // `vox run` refuses the same programs with the same message (decisions.md 34).
    let (code, _, err) = vox(&["run", "a.vox"], &d);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("vox: error: cannot import ./missing.vox: no such file; the path is relative to the importing file's directory\n  --> a.vox:1:1"),
        "{err}"
    );
}

/// A file large enough to be parsed in chunks, with findings spread over it.
fn large_script(broken_syntax: bool) -> String {
    let mut s = String::from("// A large job script.\n\n");
    for i in 0..6000 {
        s.push_str(&format!(
            "// Step {i}.\nfn step_{i}(n: int) to int {{\n    let mut total = 0\n    for k in range(n) {{\n        total += k * {i}\n    }}\n    print(\"step {i}:\", total)\n    total\n}}\n\n"
        ));
        if i % 1500 == 700 {
            s.push_str(&format!(
                "fn broken_{i}() {{\n    print(missing_{i})\n    if {i} {{ print(1) }}\n}}\n\n"
            ));
        }
        if broken_syntax && i == 4500 {
            s.push_str("fn unclosed() {\n    print((1, 2)\n}\n\n");
        }
    }
    s.push_str("fn main() {\n    print(step_1(3))\n}\n");
    s
}

/// `vox check` on a large file gives the same output on one core (where the file is parsed and
/// checked on one thread) as on every core (parsed in chunks, functions checked in parallel).
#[test]
fn large_file_output_is_the_same_on_one_core_and_on_all() {
    let d = scratch("large");
    for (name, broken) in [("clean_parse.vox", false), ("broken_parse.vox", true)] {
        let text = large_script(broken);
        assert!(text.len() > 600 * 1024, "{} bytes", text.len());
        std::fs::write(d.join(name), text).unwrap();
        let all = vox(&["check", name], &d);
        // Findings from both ends of the file; with a syntax error, that error alone (the
        // `check.*` rules wait for a clean parse).
        let checks = if broken { 0 } else { 4 };
        assert_eq!(all.0, 1, "{}{}", all.1, all.2);
        assert_eq!(
            all.1.matches("check.undefined-name").count(),
            checks,
            "{}",
            all.1
        );
        assert_eq!(
            all.1.matches("check.not-bool-condition").count(),
            checks,
            "{}",
            all.1
        );
        assert_eq!(all.1.contains("error[syntax."), broken, "{}", all.1);
        let pinned = std::process::Command::new("taskset")
            .args(["-c", "0", env!("CARGO_BIN_EXE_vox"), "check", name])
            .current_dir(&d)
            .output();
        let one = match pinned {
            Ok(o) if o.status.code() != Some(127) => (
                o.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&o.stdout).into_owned(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            ),
            // No taskset here: a second run must still agree with the first.
            _ => vox(&["check", name], &d),
        };
        assert_eq!(one, all, "{name}: one core and all cores differ");
    }
}
