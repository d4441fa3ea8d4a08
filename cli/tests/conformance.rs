//! The conformance checklist of voxscript.md §7, one test per item, run end to end through the
//! `vox` binary; plus the valid corpus's `@test`s (its scripts' outputs are checked in scripts.rs).
//!
//! Runtime errors print exactly two stderr lines (decisions.md 19):
//! `vox: error: <message>` and `  --> <file>:<line>:<col>`.

use std::path::{Path, PathBuf};

mod common;
use common::vox_in;

/// A fresh, empty directory unique to this call (removed when the tests end).
fn scratch() -> PathBuf {
    common::scratch_in("conf")
}

/// Writes `src` to `f.vox` in a fresh directory and runs `vox run FLAGS f.vox` there (cwd = that
/// directory). Returns (exit code, stdout, stderr).
fn run(src: &str, flags: &[&str]) -> (i32, String, String) {
    run_in(&scratch(), src, flags)
}

fn run_in(dir: &Path, src: &str, flags: &[&str]) -> (i32, String, String) {
    std::fs::write(dir.join("f.vox"), src).unwrap();
    let mut args = vec!["run"];
    args.extend_from_slice(flags);
    args.push("f.vox");
    vox_in(dir, &args)
}

/// Writes `src` to `f.vox` and runs `vox check f.vox`. Returns (exit code, stdout).
fn check(src: &str) -> (i32, String) {
    let d = scratch();
    std::fs::write(d.join("f.vox"), src).unwrap();
    let (code, out, _) = vox_in(&d, &["check", "f.vox"]);
    (code, out)
}

/// The script runs, exits 0, prints exactly `stdout` and nothing on stderr.
#[track_caller]
fn ok(src: &str, stdout: &str) {
    let (code, out, err) = run(src, &[]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, stdout, ""),
        "script:\n{src}"
    );
}

/// The script prints `stdout`, then fails with the runtime error `message` at `line:col`.
#[track_caller]
fn fails(src: &str, stdout: &str, message: &str, line: u32, col: u32) {
    let (code, out, err) = run(src, &[]);
    let want = format!("vox: error: {message}\n  --> f.vox:{line}:{col}\n");
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (1, stdout, want.as_str()),
        "script:\n{src}"
    );
}

/// The `error[..]`/`warning[..]` header lines of `vox check` output.
fn headers(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| l.starts_with("error[") || l.starts_with("warning["))
        .collect()
}

#[test]
fn item_01_print_args() {
    ok("print(1, \"a\")\nprint()\nprint(\"end\")\n", "1 a\n\nend\n");
}

#[test]
fn item_02_print_nested_list() {
    ok(
        "print([1, \"a\", [true, null]])\n",
        "[1, a, [true, null]]\n",
    );
}

#[test]
fn item_03_print_map_and_tuple() {
    ok(
        "print({b: 1, \"a b\": \"x\"})\nprint((1, \"z\"))\n",
        "{b: 1, a b: x}\n(1, z)\n",
    );
}

#[test]
fn item_04_float_display() {
    ok(
        "print(3.0, 2.5, 0.1 + 0.2)\n",
        "3 2.5 0.30000000000000004\n",
    );
}

#[test]
fn item_05_float_specials() {
    ok(
        "print(1.0 / 0.0, -0.0, 0.0 / 0.0)\nprint(1000000000000000000000.0)\n",
        "inf -0 NaN\n1000000000000000000000\n",
    );
}

#[test]
fn item_06_option_result_display() {
    ok(
        "print(Some(3), None, Ok(\"x\"), Err(\"bad\"), Error(2))\n",
        "Some(3) None Ok(x) Err(bad) Err(2)\n",
    );
}

#[test]
fn item_07_string_concat() {
    ok(
        "print(\"n=\" + 3, 2 + \"x\", \"v\" + 1.0, \"a\" + null)\n\
         print(\"n=\" + 3 == \"n=3\", 2 + \"x\" == \"2x\", \"v\" + 1.0 == \"v1\", \"a\" + null == \"anull\")\n\
         print(type_of(2 + \"x\"))\n",
        "n=3 2x v1 anull\ntrue true true true\nstr\n",
    );
}

#[test]
fn item_08_list_index_option() {
    ok(
        "print([1, 2, 3][10], [1, 2, 3][-1], [1, 2, 3][0])\n",
        "None None Some(1)\n",
    );
}

#[test]
fn item_09_map_index_and_field() {
    fails(
        "let m = {k: 1}\nprint(m[\"k\"], m.k)\nprint(m.z)\nprint(\"unreached\")\n",
        "Some(1) 1\n",
        "Field z not found on object",
        3,
        7,
    );
}

#[test]
fn item_10_null_and_numeric_equality() {
    ok(
        "print(None == null, Some(1) == null, 1 == 1.0, 1 < 1.5, 1 <= 1.0)\n",
        "true false false true true\n",
    );
}

#[test]
fn item_11_structural_equality() {
    ok(
        "print([1, 2] == [1, 2], {a: 1, b: 2} == {b: 2, a: 1})\n",
        "true false\n",
    );
}

#[test]
fn item_12_int_overflow() {
    fails(
        "print(\"before\")\nprint(9223372036854775807 + 1)\n",
        "before\n",
        "integer overflow: 9223372036854775807 + 1",
        2,
        7,
    );
}

#[test]
fn item_13_neg_and_abs_overflow() {
    fails(
        "let m = -9223372036854775807 - 1\nprint(m)\nprint(-m)\n",
        "-9223372036854775808\n",
        "integer overflow: -(-9223372036854775808)",
        3,
        7,
    );
    fails(
        "let m = -9223372036854775807 - 1\nprint(abs(m))\n",
        "",
        "integer overflow: abs(-9223372036854775808)",
        2,
        7,
    );
}

#[test]
fn item_14_int_division() {
    ok(
        "print(7 / 2, -7 / 2, -7 % 2, 7 % -2, 7 / 2.0)\n",
        "3 -3 -1 1 3.5\n",
    );
}

#[test]
fn item_15_division_by_zero() {
    fails("print(1 / 0)\n", "", "integer division by zero", 1, 7);
    fails(
        "let z = 0\nprint(1 % z)\n",
        "",
        "integer modulo by zero",
        2,
        7,
    );
    ok("print(1 / 0.0)\n", "inf\n");
}

#[test]
fn item_16_float_mod() {
    fails(
        "print(7.5 % 2.0)\n",
        "",
        "unsupported binary op `Mod` for operands Float and Float",
        1,
        7,
    );
    ok("print(math.fmod(7.5, 2))\n", "1.5\n");
}

#[test]
fn item_17_no_truthiness() {
    // The position of a non-Bool condition is not pinned by the spec; the runtime reports the `if`.
    fails(
        "print(\"a\")\nif 1 { }\n",
        "a\n",
        "type error: expected bool, found int",
        2,
        1,
    );
    fails(
        "print(not 1)\n",
        "",
        "type error: expected bool, found int",
        1,
        7,
    );
}

#[test]
fn item_18_and_short_circuit() {
    fails(
        "print(1 and true)\n",
        "",
        "type error: expected bool, found int",
        1,
        7,
    );
    ok(
        "print(false and undefined_name)\nprint(true or undefined_name)\n",
        "false\ntrue\n",
    );
}

#[test]
fn item_19_string_ordering() {
    ok(
        "print(\"Z\" < \"a\", \"apple\" < \"banana\", \"\" < \"a\")\n",
        "true true true\n",
    );
    fails(
        "print([1] < [2])\n",
        "",
        "unsupported binary op `Lt` for operands List and List",
        1,
        7,
    );
}

#[test]
fn item_20_utf8_lengths() {
    ok(
        "print(len(\"héllo\"), \"héllo\".chars_count(), \"héllo\".slice(1, 3), \"héllo\"[1])\n\
         print(\"héllo\".slice(1, 3) == \"él\", \"héllo\"[1] == Some(\"é\"))\n",
        "6 5 él Some(é)\ntrue true\n",
    );
}

#[test]
fn item_21_push_write_back() {
    ok(
        "let xs = [1, 2, 3]\nxs.push(4)\nprint(xs)\nlet ys = xs.push(5)\nprint(xs, ys)\n",
        "[1, 2, 3, 4]\n[1, 2, 3, 4] [1, 2, 3, 4, 5]\n",
    );
}

#[test]
fn item_22_str_write_back() {
    ok(
        "let s = \"  a,b  \"\ns.trim()\nprint(\"[\" + s + \"]\")\ns.split(\",\")\nprint(s, type_of(s))\n",
        "[a,b]\na,b str\n",
    );
}

#[test]
fn item_23_pop() {
    ok(
        "let xs = [1, 2, 3]\nlet v = xs.pop()\nprint(v, xs)\nprint(xs.pop())\nprint(xs)\nprint([].pop())\n",
        "3 [1, 2]\n2\n[1, 2]\nnull\n",
    );
}

#[test]
fn item_24_no_aliasing_through_params() {
    ok(
        "fn add1(l) { l.push(1) }\nlet xs = [0]\nadd1(xs)\nprint(xs, add1(xs))\n",
        "[0] [0, 1]\n",
    );
}

#[test]
fn item_25_closure_cannot_modify_outer() {
    ok(
        "let mut n = 0\n[1, 2].for_each(fn(x) { n += x })\nprint(n)\n",
        "0\n",
    );
}

#[test]
fn item_26_field_assignment() {
    ok(
        "let o = {a: 1}\no.a = 5\no.b = 6\nprint(o)\n",
        "{a: 5, b: 6}\n",
    );
}

#[test]
fn item_27_out_of_range_index_assignment() {
    ok(
        "let xs = [1, 2]\nxs[5] = 9\nxs[-1] = 9\nprint(xs)\n",
        "[1, 2]\n",
    );
}

#[test]
fn item_28_break_innermost() {
    ok(
        "while true { for x in [1, 2] { break } print(\"w\") break }\nprint(\"done\")\n",
        "w\ndone\n",
    );
}

#[test]
fn item_29_for_index_and_map_order() {
    ok(
        "for x, i in [\"a\", \"b\"] { print(x, i) }\nfor k, v in {b: 1, a: 2} { print(k, v) }\n",
        "a 0\nb 1\nb 1\na 2\n",
    );
}

#[test]
fn item_30_map_insertion_order() {
    ok(
        "let m = {}\nm = m.insert(\"z\", 1)\nm = m.insert(\"a\", 2)\nprint(m.keys())\n",
        "[z, a]\n",
    );
}

#[test]
fn item_31_main_result_printed_not_exit_code() {
    ok("fn main() to int { return 1 }\n", "1\n");
    ok("fn main() { print(\"x\") }\n", "x\n");
    ok("fn main() { Err(\"e\") }\n", "Err(e)\n");
}

#[test]
fn item_32_synthetic_main_result() {
    let d = scratch();
    let (code, out, err) = run_in(&d, "print(\"a\")\nfs.write(\"o.txt\", \"x\")\n", &[]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "a\n", ""));
    assert_eq!(std::fs::read_to_string(d.join("o.txt")).unwrap(), "x");
    ok("print(\"a\")\nreturn \"ok\"\nprint(\"b\")\n", "a\nok\n");
    ok("print(\"a\")\n42\n", "a\n");
}

#[test]
fn item_33_no_match_arm_position() {
    fails(
        "print(\"x\")\n  match 5 { 1 => \"a\" }\n",
        "x\n",
        "No match arm found",
        2,
        3,
    );
    fails(
        "let r = match 5 { 1 => \"a\" }\n",
        "",
        "No match arm found",
        1,
        9,
    );
}

#[test]
fn item_34_unwrap_failures() {
    fails(
        "None.unwrap()\n",
        "",
        "called `Option.unwrap()` on a None value",
        1,
        1,
    );
    fails(
        "print(1)\nlet r = Err(\"e\").unwrap()\n",
        "1\n",
        "called `Result.unwrap()` on an Err value: e",
        2,
        9,
    );
}

#[test]
fn item_35_assert() {
    fails(
        "assert(1 == 1)\nassert(1 == 2, \"math\")\n",
        "",
        "assertion failed: math",
        2,
        1,
    );
    fails("assert(1)\n", "", "assertion failed", 1, 1);
}

#[test]
fn item_36_interpolation() {
    let src = "let name = \"Ada\"\nprint(\"hi {name}!\")\nprint('hi {name}')\nprint(\"{1}\")\nprint(\"{}\")\nprint(\"{\\\"k\\\": 1}\")\n";
    let (code, out) = check(src);
    assert_eq!((code, out.as_str()), (0, ""), "no diagnostics");
    ok(src, "hi Ada!\nhi {name}\n{1}\n{}\n{\"k\": 1}\n");
}

#[test]
fn item_37_complex_interpolation() {
    let (code, out) =
        check("let a = {b: 1}\nlet name = 1\nprint(\"{a.b}\")\nprint(\"{ name }\")\n");
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        headers(&out),
        vec![
            "error[syntax.interp-complex]: only a bare name may be interpolated",
            "error[syntax.interp-complex]: only a bare name may be interpolated",
        ],
        "{out}"
    );
    assert!(out.contains("f.vox:3:8"), "{out}");
    assert!(out.contains("f.vox:4:8"), "{out}");
    // Only the second has a fix, to `{name}`.
    let (first, second) = out.split_at(out.find("f.vox:4:8").unwrap());
    assert!(!first.contains("fix"), "{out}");
    assert!(second.contains("= fix: write `{name}`"), "{out}");
}

#[test]
fn item_38_interpolation_with_escape() {
    ok("let x = 1\nprint(\"{x}\\t!\")\n", "1\t!\n");
}

#[test]
fn item_39_unknown_escape() {
    let src = "print(\"\\d\")\nprint(r\"\\d\")\nprint(\"\\d\" == r\"\\d\", len(\"\\d\"))\n";
    let (code, out) = check(src);
    assert_eq!(code, 0, "{out}");
    // Three non-raw `"\d"` literals warn, at the escape (1:8, 3:8, 3:27); the raw one on line 2 does not.
    let h = headers(&out);
    assert_eq!(h.len(), 3, "{out}");
    assert!(
        h.iter()
            .all(|l| l.starts_with("warning[syntax.unknown-escape]")),
        "{out}"
    );
    for at in ["f.vox:1:8", "f.vox:3:8", "f.vox:3:27"] {
        assert!(out.contains(at), "{at}:\n{out}");
    }
    assert!(!out.contains("f.vox:2:"), "{out}");
    ok(src, "\\d\n\\d\ntrue 2\n");
}

#[test]
fn item_40_semicolon() {
    let src = "let x = 1;\nprint(x)\n";
    let (code, out) = check(src);
    assert_eq!(code, 0, "{out}");
    assert!(
        headers(&out)
            .iter()
            .all(|h| h.starts_with("warning[syntax.semicolon]")),
        "{out}"
    );
    assert_eq!(headers(&out).len(), 1, "{out}");
    ok(src, "1\n");
    ok("let x = 5; -2\nprint(x)\n", "3\n");
}

#[test]
fn item_41_and_and_and_bang() {
    let src = "print(true && false)\n";
    let (code, out) = check(src);
    assert_eq!(code, 0, "{out}");
    let h = headers(&out);
    assert_eq!(h.len(), 1, "{out}");
    assert!(h[0].starts_with("warning[syntax.and-and]"), "{out}");
    ok(src, "false\n");
    let (code, out) = check("print(!true)\n");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[syntax.bang]"), "{out}");
    let (code, out, _) = run("print(!true)\n", &[]);
    assert_eq!((code, out.as_str()), (1, ""));
}

#[test]
fn item_42_recovery_reports_later_errors() {
    let (code, out) = check("let p = 1 $ 2\nlet big = 9223372036854775808\n");
    assert_eq!(code, 1, "{out}");
    let h = headers(&out);
    assert!(
        h.iter()
            .any(|l| l.starts_with("error[syntax.unknown-char]")),
        "{out}"
    );
    assert!(
        h.iter()
            .any(|l| l.starts_with("error[syntax.int-too-large]")),
        "{out}"
    );
    assert!(out.contains("f.vox:2:11"), "{out}");
}

#[test]
fn item_43_ret() {
    let (code, out) = check("fn f() { ret 1 }\nprint(f())\n");
    assert_eq!(code, 1, "{out}");
    assert_eq!(headers(&out).len(), 1, "{out}");
    assert!(out.contains("error[syntax.ret]"), "{out}");
    // The fix replaces the `ret` token (1:10), so the statement becomes `return 1`.
    assert!(out.contains("f.vox:1:10"), "{out}");
    assert!(out.contains("= fix: replace with `return`"), "{out}");
    let src = "let ret = 2\nprint(ret)\n";
    assert_eq!(check(src), (0, String::new()));
    ok(src, "2\n");
}

#[test]
fn item_44_arrows() {
    let src = "fn f() -> int { 1 }\nprint(f())\n";
    let (code, out) = check(src);
    assert_eq!(code, 0, "{out}");
    assert_eq!(headers(&out).len(), 1, "{out}");
    assert!(out.contains("warning[syntax.arrow-return]"), "{out}");
    ok(src, "1\n");
    let (code, out) = check("print(match 1 { 1 -> \"a\" })\n");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[syntax.arrow-arm]"), "{out}");
}

#[test]
fn item_45_is_not() {
    ok(
        "let x = 1\nprint(x is not null, x isnt null)\nlet y = null\nprint(y is not null, y isnt null)\nlet z = None\nprint(z is not null, z isnt null)\n",
        "true true\nfalse false\nfalse false\n",
    );
}

#[test]
fn item_46_not_binds_tighter_than_eq() {
    fails(
        "print(not 1 == 2)\n",
        "",
        "type error: expected bool, found int",
        1,
        7,
    );
    ok("print(not (1 == 2))\n", "true\n");
}

#[test]
fn item_47_continuation_lines() {
    let (code, out) = check("let x = 1\n+ 2\n");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("f.vox:2:1"), "error at `+`:\n{out}");
    let (code, out) = check("let items = [1]\nitems\n.len()\n");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("f.vox:3:1"), "{out}");
    assert!(
        out.contains("method chain") || out.contains("method-chain") || out.contains("same line"),
        "method-chain hint:\n{out}"
    );
}

#[test]
fn item_48_else_on_next_line() {
    let src =
        "fn a() { print(\"a\") }\nfn b() { print(\"b\") }\nlet c = C\nif c { a() }\nelse { b() }\n";
    assert_eq!(check(&src.replace("C", "true")).0, 0);
    ok(&src.replace("C", "true"), "a\n");
    ok(&src.replace("C", "false"), "b\n");
}

#[test]
fn item_49_match_arm_separators() {
    ok(
        "let n = 3\nprint(match n { 1 => \"a\", 2 => \"b\" 3 => \"c\" })\n\
         print(match 2 {\n  1 => \"a\"\n  2 => \"b\"\n  _ => \"z\"\n})\n",
        "c\nb\n",
    );
}

#[test]
fn item_50_main_conflict() {
    let src = "fn main() { }\nprint(1)\n";
    let (code, out) = check(src);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[syntax.main-conflict]"), "{out}");
    let (code, out, _) = run(src, &[]);
    assert_eq!((code, out.as_str()), (1, ""), "does not run");
}

#[test]
fn item_51_not_a_script() {
    let (code, out) = check("table Users { id: int }\n@page(\"/\") fn home() { }\n");
    assert_eq!(code, 1, "{out}");
    let h = headers(&out);
    assert_eq!(h.len(), 2, "{out}");
    assert!(
        h.iter()
            .all(|l| l.starts_with("error[syntax.not-a-script]")),
        "{out}"
    );
}

#[test]
fn item_52_libm() {
    ok(
        "print(math.exp(1), math.log(1000, 10), math.log(8, 2), math.round(-2.5))\n",
        "2.7182818284590455 2.9999999999999996 3 -3\n",
    );
}

#[test]
fn item_53_checked_wrapping_saturating() {
    ok(
        "print(9223372036854775807.checked_add(1), 9223372036854775807.wrapping_add(1), 9223372036854775807.saturating_add(1))\n",
        "None -9223372036854775808 9223372036854775807\n",
    );
}

#[test]
fn item_54_seeded_random() {
    let (code, out, err) = run(
        "print(random.int(0, 10), random.int(0, 10), random.int(0, 10), random.int(0, 10), random.int(0, 10))\n",
        &["--caps", "random:seed=0"],
    );
    assert_eq!((code, out.as_str(), err.as_str()), (0, "5 0 9 4 7\n", ""));
    let (code, out, err) = run("print(crypto.uuid())\n", &["--caps", "random:seed=0"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "e220a839-7b1d-4daf-ae78-9e6aa1b965f4\n", "")
    );
}

#[test]
fn item_55_hash_fast() {
    ok(
        "print(crypto.hash_fast(\"abc\"))\n",
        "06b05ab6733a618578af5f94892f3950\n",
    );
    let (code, out, _) = run("print(crypto.hash_fast(\"abc\"))\n", &["--caps", "none"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "06b05ab6733a618578af5f94892f3950\n"),
        "needs no capability"
    );
}

#[test]
fn item_56_path_normalize() {
    ok(
        "print(path.normalize(\"a/./b/../c//\"), path.normalize(\"/../a\"), path.normalize(\"\"))\n",
        "a/c /a .\n",
    );
}

#[test]
fn item_57_int_conversion_and_range() {
    ok(
        "print(int(\" 42 \"), int(\"4x\"), \"4x\".to_int(), range(2, 5))\n",
        "42 0 None [2, 3, 4]\n",
    );
}

#[test]
fn item_58_json() {
    ok(
        "let r = json.parse(\"{\\\"b\\\":1,\\\"a\\\":2.5}\")\nprint(r)\nprint(r.unwrap().keys())\nprint([\"a\", 1].to_string(), str([\"a\", 1]))\n",
        "Ok({b: 1, a: 2.5})\n[b, a]\n[\"a\",1] [a, 1]\n",
    );
}

#[test]
fn item_59_arity() {
    fails(
        "fn f(a, b) { a }\nprint(f(1))\n",
        "",
        "function `f` expects 2 arguments, got 1",
        2,
        7,
    );
}

#[test]
fn item_60_type_of() {
    ok(
        "print(type_of([]), type_of({}), type_of(None), type_of(print))\n",
        "List Object Option fn\n",
    );
}

// ---- the valid corpus ----

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus/valid")
        .canonicalize()
        .unwrap()
}

#[test]
fn corpus_tests_pass_under_vox_test() {
    let dir = corpus_dir();
    let (code, out, err) = vox_in(&dir, &["test", "."]);
    let last = out.lines().last().unwrap_or_default();
    let passed: usize = last
        .strip_suffix(" passed, 0 failed")
        .unwrap_or_else(|| panic!("last line {last:?}\n{out}\n{err}"))
        .parse()
        .unwrap();
    assert_eq!(code, 0, "{out}{err}");
    assert!(passed > 0);
    assert_eq!(
        out.lines().filter(|l| l.ends_with(" ... ok")).count(),
        passed,
        "{out}"
    );
    println!("{last}");
}
