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
            // The line given is the loop's (where the facts put this sink), not the assignment's.
            (
                "assignment",
                line_of(n.trim_end_matches(')')),
                "for ".to_string(),
            )
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
        ["assignment", "break", "call", "callee", "return"],
        "every kind of place occurs in the corpus"
    );
}
