//! Regressions found by running scripts as a new user would: the write-back assignment form keeps
//! copy semantics while growing in place, `@json_as` decodes recursively and checks every level,
//! `--perturb` freezes an unpinned clock, `time:frozen` must fit an int, a method named through a
//! conversion builtin says so, and a missing separator gives one diagnostic. Exact outputs.

use std::path::PathBuf;

mod common;
use common::vox_in;

/// A fresh, empty directory unique to this call (removed when the tests end).
fn scratch() -> PathBuf {
    common::scratch_in("fixes")
}

/// Writes `src` to `f.vox` in a fresh directory and runs `vox run FLAGS f.vox`.
fn run(src: &str, flags: &[&str]) -> (i32, String, String) {
    let d = scratch();
    std::fs::write(d.join("f.vox"), src).unwrap();
    let mut args = vec!["run"];
    args.extend_from_slice(flags);
    args.push("f.vox");
    vox_in(&d, &args)
}

#[track_caller]
fn ok(src: &str, stdout: &str) {
    let (code, out, err) = run(src, &[]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, stdout, ""),
        "script:\n{src}"
    );
}

// ---- write-back: `p = p.m(args)` grows in place and never aliases ----

#[test]
fn assignment_write_back_keeps_copy_semantics() {
    ok(
        "let mut xs = [1]\nlet ys = xs\nxs = xs.push(2)\nprint(xs, ys)\n\
         let mut m = {a: 1}\nlet n = m\nm = m.insert(\"b\", 2)\nprint(m, n)\n\
         let mut o = {items: [1]}\nlet p = o\no.items = o.items.push(2)\nprint(o, p)\n\
         let f = fn() { xs }\nxs = xs.push(3)\nprint(f(), xs)\n",
        "[1, 2] [1]\n{a: 1, b: 2} {a: 1}\n{items: [1, 2]} {items: [1]}\n[1, 2] [1, 2, 3]\n",
    );
}

#[test]
fn assignment_write_back_reads_the_receiver_before_the_arguments() {
    // The receiver is evaluated first (§4.2), even when an argument reassigns the variable.
    ok(
        "let mut xs = [1]\nxs = xs.push(xs.len())\nprint(xs)\n\
         xs = xs.push({\n    xs = [9]\n    7\n})\nprint(xs)\n",
        "[1, 1]\n[1, 1, 7]\n",
    );
}

#[test]
fn assignment_write_back_through_nested_fields_and_tagged_values() {
    ok(
        "let m = {a: {b: [1]}}\nm.a.b = m.a.b.push(2)\nprint(m)\n\
         type T = | Box(items: list)\nlet b = Box([1])\nlet c = b\nb.items = b.items.push(2)\nprint(b, c)\n\
         let s = \" x \"\ns = s.trim()\nprint(\"[\" + s + \"]\")\n",
        "{a: {b: [1, 2]}}\nBox([1, 2]) Box([1])\n[x]\n",
    );
    let (code, out, err) = run("let o = {a: []}\no.b = o.b.push(1)\n", &[]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "",
            "vox: error: Field b not found on object\n  --> f.vox:2:7\n"
        )
    );
}

#[test]
fn assignment_write_back_handles_large_values() {
    // 200,000 pushes, inserts and field pushes. The figures are bench/writeback.py's job; here the
    // run's own --timeout ceiling only turns a quadratic regression (minutes of copying) into a
    // failure instead of a hang.
    let src = "let mut xs = []\nlet mut m = {}\nlet mut o = {items: []}\n\
        for i in range(0, 200000) {\n    xs = xs.push(i)\n    m = m.insert(str(i), i)\n    o.items = o.items.push(i)\n}\n\
        print(xs.len(), m.len(), o.items.len())\n";
    let (code, out, err) = run(src, &["--max-steps", "0", "--timeout", "120"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "200000 200000 200000\n", "")
    );
}

// ---- @json_as ----

const TYPES: &str = "@json_as(Item)\ntype Item { name: str, qty: int }\n\
    @json_as(Order, naming: \"snake_case\")\ntype Order { orderId: int, item: Option[Item], items: list[Item] }\n\
    @json_as(Cfg, defaults: true)\ntype Cfg { price: dec, tags: list[str], note: Option[str] }\n\
    @json_as(Note)\ntype Note { note: Option[str] }\n\
    @json_as(Shape, tag: \"kind\")\ntype Shape = | Circle(r: float) | Sq(side: float)\n\
    @json_as(Drawing)\ntype Drawing { shapes: list[Shape] }\n";

#[test]
fn json_as_checks_nested_fields_with_their_path() {
    ok(
        &format!(
            "{TYPES}print(Order_from_json({{order_id: 1, item: {{name: 1}}, items: []}}))\n\
             print(Order_from_json({{order_id: 1, item: null, items: [{{name: \"a\", qty: 1}}, {{name: 2, qty: 1}}]}}))\n\
             print(Order_from_json({{order_id: 1, item: {{name: \"a\"}}, items: []}}))\n\
             print(Order_from_json({{order_id: 1, items: [{{name: \"a\", qty: 2}}], item: 3}}))\n\
             print(Drawing_from_json({{shapes: [{{kind: \"Circle\", r: 1}}, {{kind: \"Tri\"}}]}}))\n\
             print(Drawing_from_json({{shapes: [{{kind: \"Sq\", side: \"2\"}}]}}))\n"
        ),
        "Err(field `item.name`: expected str, found int)\n\
         Err(field `items[1].name`: expected str, found int)\n\
         Err(missing field `item.qty`)\n\
         Err(field `item`: expected Object, found int)\n\
         Err(field `shapes[1]`: unknown variant `Tri` for Shape)\n\
         Err(field `shapes[0].side`: expected float, found str)\n",
    );
}

#[test]
fn json_as_decodes_nested_values_and_round_trips() {
    ok(
        &format!(
            "{TYPES}let o = Order_from_json({{order_id: 7, item: {{name: \"x\", qty: 2}}, items: [{{name: \"y\", qty: 1}}]}}).unwrap()\n\
             print(o)\nprint(json.render(Order_to_json(o)).unwrap())\nprint(Order_from_json(Order_to_json(o)) == Ok(o))\n\
             let d = Drawing_from_json({{shapes: [{{kind: \"Circle\", r: 1}}, {{kind: \"Sq\", side: 2.5}}]}}).unwrap()\n\
             print(d)\nprint(json.render(Drawing_to_json(d)).unwrap())\nprint(Drawing_from_json(Drawing_to_json(d)) == Ok(d))\n"
        ),
        "{orderId: 7, item: Some({name: x, qty: 2}), items: [{name: y, qty: 1}]}\n\
         {\"order_id\":7,\"item\":{\"name\":\"x\",\"qty\":2},\"items\":[{\"name\":\"y\",\"qty\":1}]}\n\
         true\n\
         {shapes: [Circle(1), Sq(2.5)]}\n\
         {\"shapes\":[{\"kind\":\"Circle\",\"r\":1.0},{\"kind\":\"Sq\",\"side\":2.5}]}\n\
         true\n",
    );
}

#[test]
fn json_as_snake_case_naming() {
    ok(
        &format!(
            "{TYPES}print(Order_from_json({{orderId: 1, items: []}}))\nprint(Order_from_json({{order_id: 1, item: null, items: []}}))\n"
        ),
        "Err(missing field `order_id`)\nOk({orderId: 1, item: None, items: []})\n",
    );
}

#[test]
fn json_as_defaults_and_missing_options() {
    ok(
        &format!(
            "{TYPES}let c = Cfg_from_json({{}}).unwrap()\nprint(c, type_of(c.price), c.price == 0dec)\n\
             print(Note_from_json({{}}))\nprint(Note_from_json({{note: null}}))\nprint(Note_from_json({{note: \"n\"}}))\n"
        ),
        "{price: 0, tags: [], note: None} dec true\n\
         Err(missing field `note`)\n\
         Ok({note: None})\n\
         Ok({note: Some(n)})\n",
    );
}

// ---- --perturb and the clock ----

#[test]
fn perturb_freezes_an_unpinned_clock_from_the_seed() {
    let src = "print(time.now_ms(), time.monotonic_ms())\n";
    let (code, out, err) = run(src, &["--perturb", "3"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "1622616054167 1622616054167\n", "")
    );
    let (_, again, _) = run(src, &["--perturb", "3"]);
    assert_eq!(again, out, "the same seed reads the same clock");
    let (_, other, _) = run(src, &["--perturb", "4"]);
    assert_eq!(other, "1784798695101 1784798695101\n");
    let (_, real, _) = run(src, &["--perturb", "3", "--caps", "time:real"]);
    assert_eq!(
        real, out,
        "time:real leaves the clock open, so it is perturbed"
    );
    let (_, frozen, _) = run(src, &["--perturb", "3", "--caps", "time:frozen=5"]);
    assert_eq!(frozen, "5 5\n", "a frozen grant wins");
}

#[test]
fn time_frozen_must_fit_an_int() {
    let (code, out, err) = run(
        "print(time.now_ms())\n",
        &["--caps", "time:frozen=18446744073709551615"],
    );
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "",
            "vox: invalid --caps token \"time:frozen=18446744073709551615\": time:frozen is at most 9223372036854775807 (milliseconds; time.now_ms() returns an int), got 18446744073709551615\n"
        )
    );
    let (code, out, _) = run(
        "print(time.now_ms())\n",
        &["--caps", "time:frozen=9223372036854775807"],
    );
    assert_eq!((code, out.as_str()), (0, "9223372036854775807\n"));
}

// ---- §4.13 and §3.6 ----

#[test]
fn a_method_called_through_a_conversion_builtin_names_the_method_form() {
    for (src, col) in [("print(str.trim(\"x\"))\n", 7), ("let f = str.trim\n", 9)] {
        let (code, out, err) = run(src, &[]);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (
                1,
                "",
                format!("vox: error: str.trim is not a function; use the method form `x.trim()`\n  --> f.vox:1:{col}\n").as_str()
            )
        );
    }
}

#[test]
fn one_mistake_one_diagnostic() {
    for (src, header, at) in [
        (
            "let xs = [1, 2 3]\n",
            "error[syntax.expected]: Expected `]`, found `3`",
            "f.vox:1:16",
        ),
        (
            "print(dec(1e))\n",
            "error[syntax.expected]: Expected `)`, found `e`",
            "f.vox:1:12",
        ),
    ] {
        let d = scratch();
        std::fs::write(d.join("f.vox"), src).unwrap();
        let (code, out, err) = vox_in(&d, &["check", "f.vox"]);
        assert_eq!(code, 1);
        let headers: Vec<&str> = out.lines().filter(|l| l.starts_with("error[")).collect();
        assert_eq!(headers, [header], "{out}");
        assert!(out.contains(at), "{out}");
        assert!(err.contains("1 error, 0 warnings"), "{err}");
    }
}
