//! docs/configuration.md, the reference of `Vox.toml`, `.vscode/tasks.json` and `.vscode/launch.json`,
//! agrees with what vox reads, with its JSON schema (docs/schemas/run-configuration.schema.json)
//! and with the VS Code extension's declaration of the same entries (editors/vscode/package.json):
//!
//! - every ` ```toml ` block is a `Vox.toml`, and every ` ```json `/` ```jsonc ` block a
//!   `tasks.json` or `launch.json` (or one entry of either): each validates against the schema (the
//!   JSON ones) and vox reads it without `config.invalid`, unless the session after it shows the
//!   error it gives (then the schema refuses a JSON one too);
//! - a ` ```text ` block whose first line starts with `$ ` is a shell session in the page's example
//!   workspace (the files its last section introduces with "`PATH`:"), with the block before it
//!   written in when it is a configuration block: lines starting with `$ ` are commands, run in order
//!   by bash with the built `vox` on `PATH`, and the lines after one are exactly what it prints
//!   (stdout, then stderr; `...` stands for any lines; the directory prints as `$PWD`). A command that
//!   fails is followed by `$ echo $?`. (` ```console ` blocks are docs_run.rs's: they run from the
//!   repository root, where this workspace does not exist.)
//! - the `[run.NAME]` and `[lint]` sections have one `### `key`` section for each key the parser
//!   accepts (`vox_caps::config::RUN_KEYS`, `CEILINGS`, `LINT_KEYS`, the lists the parser checks
//!   keys against) and no other, each with an example that uses the key; the JSON-only keys are the
//!   schema's other properties;
//! - the schema declares what package.json declares, with the same types, and adds only the keys
//!   VS Code defines for every task and launch configuration and the ceilings.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use vox_caps::config::{CEILINGS, LINT_KEYS, RUN_KEYS};

use common::session::{compare, run_steps, steps};
use common::{scratch, vox_in};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap()
}

fn page() -> String {
    read("docs/configuration.md")
}

fn schema_value() -> Value {
    serde_json::from_str(&read("docs/schemas/run-configuration.schema.json")).unwrap()
}

fn schema() -> jsonschema::Validator {
    jsonschema::validator_for(&schema_value()).unwrap()
}

/// A fenced code block of the page.
#[derive(Clone, Debug)]
struct Block {
    info: String,
    text: String,
    /// The line of its opening fence.
    line: usize,
    /// The `## ` section it is in.
    section: String,
    /// The `### ` section it is in (empty before the first in its `## ` section).
    subsection: String,
    /// The last non-empty line before the fence.
    before: String,
}

fn blocks(md: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let (mut section, mut subsection, mut before) = (String::new(), String::new(), String::new());
    let mut open: Option<Block> = None;
    for (i, line) in md.lines().enumerate() {
        if let Some(b) = &mut open {
            if line.starts_with("```") {
                out.push(open.take().unwrap());
                before.clear();
            } else {
                b.text.push_str(line);
                b.text.push('\n');
            }
            continue;
        }
        if let Some(info) = line.strip_prefix("```") {
            open = Some(Block {
                info: info.trim().to_string(),
                text: String::new(),
                line: i + 1,
                section: section.clone(),
                subsection: subsection.clone(),
                before: before.clone(),
            });
        } else if let Some(h) = line.strip_prefix("## ") {
            section = h.to_string();
            subsection.clear();
        } else if let Some(h) = line.strip_prefix("### ") {
            subsection = h.to_string();
        }
        if !line.trim().is_empty() {
            before = line.to_string();
        }
    }
    assert!(open.is_none(), "an unclosed code block");
    out
}

fn is_session(b: &Block) -> bool {
    b.info == "text" && b.text.starts_with("$ ")
}

fn is_config(b: &Block) -> bool {
    matches!(b.info.as_str(), "toml" | "json" | "jsonc")
}

/// Whether a session shows the error an invalid configuration file gives.
fn shows_invalid(session: &Block) -> bool {
    [
        "config.invalid",
        "invalid run configuration",
        "invalid lint configuration",
    ]
    .iter()
    .any(|m| session.text.contains(m))
}

const EXAMPLE: &str = "A complete example workspace";

/// The example workspace: the blocks of the last section that a line "`PATH`:" (or "`PATH`, …:")
/// introduces.
fn example_files(blocks: &[Block]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for b in blocks.iter().filter(|b| b.section == EXAMPLE) {
        let Some(rest) = b.before.strip_prefix('`') else {
            continue;
        };
        let Some((path, _)) = rest.split_once('`') else {
            continue;
        };
        if b.before.ends_with(':') && !path.contains(' ') {
            out.push((path.to_string(), b.text.clone()));
        }
    }
    out
}

/// Writes the example workspace into a fresh directory (canonical, as vox prints it).
fn example_workspace(files: &[(String, String)]) -> PathBuf {
    let dir = scratch().canonicalize().unwrap();
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// JSON with comments and trailing commas (as VS Code reads these files) as plain JSON.
fn strip_jsonc(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(&n) = chars.get(i + 1) {
                    out.push(n);
                    i += 1;
                }
            } else if c == '"' {
                in_string = false;
            }
            i += 1;
        } else if c == '"' {
            in_string = true;
            out.push(c);
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if !matches!(next, Some('}') | Some(']')) {
                out.push(c);
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[test]
fn jsonc_is_read_as_vs_code_reads_it() {
    let v: Value = serde_json::from_str(&strip_jsonc(
        "// top\n{ \"a\": \"x // y\", /* b */ \"c\": [1, 2,], }\n",
    ))
    .unwrap();
    assert_eq!(v, json!({"a": "x // y", "c": [1, 2]}));
}

/// A configuration block as the file it is: its path in the workspace, its text, and the `vox`
/// entries in it (JSON only).
fn as_file(b: &Block) -> (&'static str, String, Vec<Value>) {
    if b.info == "toml" {
        return ("Vox.toml", b.text.clone(), Vec::new());
    }
    let v: Value = serde_json::from_str(&strip_jsonc(&b.text))
        .unwrap_or_else(|e| panic!("docs/configuration.md:{}: not JSON: {e}", b.line));
    let vox = |list: &Value| -> Vec<Value> {
        list.as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "vox")
            .cloned()
            .collect()
    };
    if v.get("tasks").is_some() {
        (".vscode/tasks.json", b.text.clone(), vox(&v["tasks"]))
    } else if v.get("configurations").is_some() {
        (
            ".vscode/launch.json",
            b.text.clone(),
            vox(&v["configurations"]),
        )
    } else if v.get("request").is_some() {
        let file = json!({"version": "0.2.0", "configurations": [v.clone()]});
        (".vscode/launch.json", file.to_string(), vec![v])
    } else {
        let file = json!({"version": "2.0.0", "tasks": [v.clone()]});
        (".vscode/tasks.json", file.to_string(), vec![v])
    }
}

/// Runs a session in `dir`; the differences from the page, if any.
fn check_session(at: usize, dir: &Path, session: &str) -> Result<(), String> {
    let st = steps(session);
    let got = run_steps(dir, &st);
    compare(&format!("docs/configuration.md:{at}"), dir, &st, &got)
}

/// vox's verdict on the workspace's configuration files: the `config.invalid` messages of
/// `vox lint`, empty when every file is valid.
fn invalid_findings(dir: &Path) -> Vec<String> {
    let (code, out, err) = vox_in(dir, &["lint", "--format", "json", "."]);
    let findings: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("vox lint --format json: {e}\n{out}\n{err}"));
    let invalid: Vec<String> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "config.invalid")
        .map(|f| {
            format!(
                "{}:{}: {}",
                f["file"], f["range"]["start"]["line"], f["message"]
            )
        })
        .collect();
    assert!(
        code != 2 || !invalid.is_empty(),
        "vox lint exited 2 without config.invalid: {err}"
    );
    invalid
}

/// (a), (b) and the sessions: every configuration block is accepted by vox (and the JSON ones by
/// the schema), or shows the error vox gives for it; every session prints what the page shows.
#[test]
fn every_example_is_what_vox_reads_and_prints() {
    let md = page();
    let all = blocks(&md);
    let files = example_files(&all);
    let names: BTreeSet<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    for want in ["Vox.toml", ".vscode/tasks.json", ".vscode/launch.json"] {
        assert!(names.contains(want), "the example workspace has no {want}");
    }
    // The tree the example section shows is its files.
    let tree = all
        .iter()
        .find(|b| b.section == EXAMPLE && b.info == "text" && !is_session(b))
        .expect("the example section shows its tree");
    let listed: BTreeSet<&str> = tree.text.lines().map(str::trim).collect();
    assert_eq!(listed, names, "the tree of the example workspace");

    let validator = schema();
    let mut failures = Vec::new();
    let (mut configs, mut sessions, mut errors) = (0, 0, 0);
    for (i, b) in all.iter().enumerate() {
        let next = all.get(i + 1).filter(|n| is_session(n));
        if is_session(b) {
            let after_config = i > 0 && is_config(&all[i - 1]);
            if !after_config {
                let dir = example_workspace(&files);
                match check_session(b.line, &dir, &b.text) {
                    Ok(()) => sessions += 1,
                    Err(e) => failures.push(e),
                }
            }
            continue;
        }
        if !is_config(b) {
            continue;
        }
        configs += 1;
        let (path, text, entries) = as_file(b);
        let invalid = next.is_some_and(shows_invalid);
        for e in &entries {
            let valid = validator.is_valid(e);
            if valid == invalid {
                failures.push(format!(
                    "docs/configuration.md:{}: the schema {} {e}, which vox {}",
                    b.line,
                    if valid { "accepts" } else { "refuses" },
                    if invalid { "refuses" } else { "accepts" }
                ));
            }
        }
        let dir = example_workspace(&files);
        std::fs::write(dir.join(path), &text).unwrap();
        let found = invalid_findings(&dir);
        if invalid {
            errors += 1;
            if found.is_empty() {
                failures.push(format!(
                    "docs/configuration.md:{}: shown as invalid, but vox reads it",
                    b.line
                ));
            }
        } else if !found.is_empty() {
            failures.push(format!(
                "docs/configuration.md:{}: vox refuses it: {found:?}",
                b.line
            ));
        }
        if let Some(s) = next {
            match check_session(s.line, &dir, &s.text) {
                Ok(()) => sessions += 1,
                Err(e) => failures.push(e),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        configs >= 30 && sessions >= 8 && errors >= 5,
        "{configs} configuration blocks, {sessions} sessions, {errors} errors"
    );
    println!(
        "{configs} configuration blocks ({errors} invalid) and {sessions} sessions agree with vox"
    );
}

/// The `### `key`` headings of each `## ` section.
fn key_sections(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut in_block = false;
    for line in md.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
        } else if in_block {
            continue;
        } else if let Some(h) = line.strip_prefix("## ") {
            section = h.to_string();
        } else if let Some(key) = line.strip_prefix("### `").and_then(|k| k.strip_suffix('`')) {
            out.push((section.clone(), key.to_string()));
        }
    }
    out
}

const RUN_SECTION: &str = "`[run.NAME]`: run configurations";
const LINT_SECTION: &str = "`[lint]`: lint settings";
const JSON_SECTION: &str = "Keys only in `tasks.json` and `launch.json`";

/// Whether a block writes `key` (`key = …`, `[lint.key]` or `"key":`).
fn uses_key(b: &Block, key: &str) -> bool {
    b.text.lines().any(|l| {
        let l = l.trim_start();
        l.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
            || l == format!("[lint.{key}]")
    }) || b.text.contains(&format!("\"{key}\":"))
}

/// (c) Every key the parser accepts has its section, every key section is a key the parser
/// accepts, and each section's example (accepted: the test above) uses its key.
#[test]
fn every_key_has_a_section_and_every_section_is_a_key() {
    let md = page();
    let sections = key_sections(&md);
    let documented = |section: &str| -> BTreeSet<String> {
        sections
            .iter()
            .filter(|(s, _)| s == section)
            .map(|(_, k)| k.clone())
            .collect()
    };
    let strings =
        |keys: &[&str]| -> BTreeSet<String> { keys.iter().map(|k| k.to_string()).collect() };
    let run: BTreeSet<String> = strings(RUN_KEYS)
        .union(&strings(CEILINGS))
        .cloned()
        .collect();
    assert_eq!(documented(RUN_SECTION), run, "the keys of [run.NAME]");
    assert_eq!(
        documented(LINT_SECTION),
        strings(LINT_KEYS),
        "the keys of [lint]"
    );
    let schema = schema_value();
    let json_only: BTreeSet<String> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| !run.contains(*k))
        .cloned()
        .collect();
    assert_eq!(
        documented(JSON_SECTION),
        json_only,
        "the keys only JSON entries have"
    );
    // No key section elsewhere (a key documented where the checks above do not look).
    for (section, key) in &sections {
        assert!(
            [RUN_SECTION, LINT_SECTION, JSON_SECTION].contains(&section.as_str()),
            "### `{key}` in `## {section}`"
        );
    }
    // Each key section shows the key in a block vox accepts.
    let all = blocks(&md);
    for (section, key) in &sections {
        let shown = all.iter().enumerate().any(|(i, b)| {
            b.section == *section
                && b.subsection == format!("`{key}`")
                && is_config(b)
                && uses_key(b, key)
                && !all
                    .get(i + 1)
                    .is_some_and(|n| is_session(n) && shows_invalid(n))
        });
        assert!(shown, "### `{key}` has no example that uses it");
    }
}

/// The links inside the page lead to its headings.
#[test]
fn the_page_links_to_its_own_headings() {
    let md = page();
    let slug = |h: &str| -> String {
        h.to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect()
    };
    let mut in_block = false;
    let mut anchors = BTreeSet::new();
    for line in md.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
        } else if !in_block && line.starts_with('#') {
            anchors.insert(slug(line.trim_start_matches('#').trim()));
        }
    }
    for (n, line) in md.lines().enumerate() {
        for part in line.split("](#").skip(1) {
            let anchor = part.split(')').next().unwrap();
            assert!(
                anchors.contains(anchor),
                "docs/configuration.md:{}: no heading #{anchor}",
                n + 1
            );
        }
    }
}

/// The schema's value syntax for ceilings agrees with the parser's: each value is accepted by
/// both or refused by both.
#[test]
fn the_schema_and_vox_agree_on_ceiling_values() {
    let validator = schema();
    let cases: &[(&str, Value)] = &[
        ("max-memory", json!("32MiB")),
        ("max-memory", json!("32 mib")),
        ("max-memory", json!("5MB")),
        ("max-memory", json!("1.5M")),
        ("max-steps", json!(10_000_000)),
        ("max-steps", json!("10_000_000")),
        ("max-steps", json!("10M")),
        ("max-steps", json!(-1)),
        ("max-steps", json!(1.5)),
        ("max-files", json!("_1")),
        ("timeout", json!(90)),
        ("timeout", json!("5m")),
        ("timeout", json!("2H")),
        ("timeout", json!("1.5m")),
        ("timeout", json!("5 m")),
        ("timeout", json!("5MiB")),
    ];
    for (key, value) in cases {
        let mut entry = json!({"type": "vox", "label": "t", "script": "t.vox", "caps": []});
        entry[*key] = value.clone();
        let dir = scratch();
        std::fs::create_dir_all(dir.join(".vscode")).unwrap();
        let tasks = json!({"version": "2.0.0", "tasks": [entry.clone()]});
        std::fs::write(dir.join(".vscode/tasks.json"), tasks.to_string()).unwrap();
        let vox_accepts = invalid_findings(&dir).is_empty();
        assert_eq!(
            validator.is_valid(&entry),
            vox_accepts,
            "\"{key}\": {value}: vox {}",
            if vox_accepts {
                "accepts it"
            } else {
                "refuses it"
            }
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// (d) The schema describes what editors/vscode/package.json declares for its `vox` task type
/// and `vox` launch configurations, with the same types; it adds only VS Code's own keys of every
/// task and launch configuration and the ceilings, which vox reads (the page says the extension
/// does not declare them).
#[test]
fn the_schema_agrees_with_the_vs_code_extension() {
    let schema = schema_value();
    let props = schema["properties"].as_object().unwrap();
    let required: BTreeSet<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let package: Value = serde_json::from_str(&read("editors/vscode/package.json")).unwrap();
    let contributes = &package["contributes"];
    let task = contributes["taskDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["type"] == "vox")
        .expect("package.json has the vox task type");
    let debugger = contributes["debuggers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["type"] == "vox")
        .expect("package.json has the vox debugger type");
    let launch = &debugger["configurationAttributes"]["launch"];
    let mut declared = BTreeSet::new();
    for (what, def) in [("taskDefinitions", task), ("launch", launch)] {
        for r in def["required"].as_array().unwrap() {
            let r = r.as_str().unwrap();
            assert!(
                required.contains(r),
                "{what} requires `{r}`; the schema does not"
            );
        }
        for (key, p) in def["properties"].as_object().unwrap() {
            declared.insert(key.clone());
            let s = props
                .get(key)
                .unwrap_or_else(|| panic!("{what} declares `{key}`; the schema does not"));
            assert_eq!(s["type"], p["type"], "{what}: the type of `{key}`");
            if p.get("items").is_some() {
                assert_eq!(s["items"], p["items"], "{what}: the items of `{key}`");
            }
        }
    }
    let vs_code_own = ["type", "label", "name", "request"];
    let extra: BTreeSet<&str> = props
        .keys()
        .map(String::as_str)
        .filter(|k| !declared.contains(*k))
        .collect();
    let allowed: BTreeSet<&str> = vs_code_own.iter().chain(CEILINGS).copied().collect();
    assert!(
        extra.is_subset(&allowed),
        "the schema has keys package.json does not declare: {:?}",
        extra.difference(&allowed).collect::<Vec<_>>()
    );
    // Every ceiling vox reads is in the schema.
    for c in CEILINGS {
        assert!(props.contains_key(*c), "the schema has no `{c}`");
    }
}
