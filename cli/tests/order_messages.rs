//! D002 and D007 name where an order first shows, with its line: each description and line
//! is checked against the script's own text on the lint corpus (every kind of place occurs).

use std::path::Path;
use std::process::Command;

#[test]
fn where_an_order_shows_is_named_at_its_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_vox"))
        .args([
            "lint",
            "--format",
            "json",
            "tests/lint/D002",
            "tests/lint/D007",
        ])
        .current_dir(&root)
        .output()
        .unwrap();
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for f in findings.as_array().unwrap() {
        let code = f["code"].as_str().unwrap();
        if code != "D002" && code != "D007" {
            continue;
        }
        let message = f["message"].as_str().unwrap();
        let file = f["file"].as_str().unwrap();
        let text = std::fs::read_to_string(root.join(file))
            .or_else(|_| std::fs::read_to_string(file))
            .unwrap();
        let line_of = |n: &str| -> String {
            let n: usize = n.parse().unwrap();
            text.lines().nth(n - 1).unwrap_or_default().to_string()
        };
        let shown = message.split("order reaches ").nth(1).unwrap();
        let shown = shown.split("; compiled tiers").next().unwrap();
        let (kind, line, word) = if let Some(n) = shown.strip_prefix("the value returned on line ")
        {
            ("return", line_of(n), "return".to_string())
        } else if let Some(n) = shown.strip_prefix("the early `break` on line ") {
            ("break", line_of(n), "break".to_string())
        } else if let Some(n) =
            shown.strip_prefix("an assignment to a variable outside the loop (line ")
        {
            (
                "assignment",
                line_of(n.trim_end_matches(')')),
                " = ".to_string(),
            )
        } else if let Some(rest) = shown.strip_prefix("the closure called on line ") {
            let (n, _) = rest.split_once(", which calls `").expect(message);
            ("closure", line_of(n), "(".to_string())
        } else if let Some(name) = shown.strip_suffix(", which uses its order") {
            let name = name.trim_matches('`');
            ("callee", text.clone(), format!("fn {name}("))
        } else {
            let (name, n) = shown.split_once("` on line ").expect(message);
            let name = name.trim_start_matches('`');
            let last = name.rsplit('.').next().unwrap().to_string();
            ("call", line_of(n), last)
        };
        // A value returned without `return` is a function's last expression: the next line
        // closes the function.
        let tail = kind == "return" && {
            let n: usize = shown.rsplit(' ').next().unwrap().parse().unwrap();
            text.lines()
                .nth(n)
                .is_some_and(|l| l.trim_start().starts_with('}'))
        };
        assert!(
            line.contains(&word) || tail,
            "{file}: {message:?}: {word:?} is not on the line named: {line:?}"
        );
        kinds.insert(kind);
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["assignment", "break", "call", "callee", "closure", "return"],
        "every kind of place occurs in the corpus"
    );
}

/// The place named is the first in the loop's source, whatever order the facts walk it in.
#[test]
fn the_first_place_in_a_loop_is_named() {
    let dir = std::env::temp_dir().join(format!("vox-order-first-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "prints.vox",
            "fn main() {\n    let m = {a: 1, b: 2}\n    for k, v in m {\n        print(k)\n        print(v)\n    }\n}\n",
            "`print` on line 4",
        ),
        (
            "exits.vox",
            "fn main() {\n    let m = {a: 1, b: 2}\n    for k, v in m {\n        if v > 1 {\n            break\n        }\n        if v > 0 {\n            return\n        }\n    }\n}\n",
            "the early `break` on line 5",
        ),
        (
            "assigns.vox",
            "fn main() {\n    let m = {a: 1, b: 2}\n    let mut best = 0\n    let mut name = \"\"\n    for k, v in m {\n        if v > best {\n            best = v\n            name = k\n        }\n    }\n    print(name, best)\n}\n",
            "an assignment to a variable outside the loop (line 7)",
        ),
    ];
    for (name, text, shown) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_vox"))
            .args(["lint", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let messages: Vec<&str> = findings
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "D002")
            .map(|f| f["message"].as_str().unwrap())
            .collect();
        assert!(
            messages.len() == 1 && messages[0].contains(&format!("reaches {shown};")),
            "{name}: {messages:?} should name {shown}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
