//! The configuration resolver: run configurations from `Vox.toml`, `.vscode/tasks.json` and
//! `.vscode/launch.json`, the `[lint]` table, located errors, and edits that keep comments.

mod common;

use std::path::{Path, PathBuf};

use common::Scratch;
use vox_caps::config::{
    config_caps, entry_name_for, load_vox_toml, load_workspace, set_caps_launch_json,
    set_caps_tasks_json, set_caps_vox_toml, workspace_from_texts, ConfigError, ConfigKind,
    ConfigSection, LintConfig, RunConfig,
};
use vox_caps::EnvGrant;

fn caps(tokens: &[&str]) -> Vec<String> {
    tokens.iter().map(|t| t.to_string()).collect()
}

fn write(s: &Scratch, rel: &str, text: &str) -> PathBuf {
    let path = s.path(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

const VOX_TOML: &str = r#"# The project's runs.

[run.build]                      # `vox run --config build`
script = "scripts/build.vox"
cwd = "."
caps = ["fs:ro=src", "fs:rw=dist", "env:ro"]
max-steps = 10000000
max-memory = "32MiB"
args = ["--release", 3]

[run.report]
script = "scripts/report.vox"
cwd = "reports"

[lint]
select = ["D", "I001"]
ignore = ["D004"]
exclude = ["vendor/**"]

[lint.severity]
D002 = "warning"
C = "error"
"#;

const TASKS_JSON: &str = r#"{
  // See https://go.microsoft.com/fwlink/?LinkId=733558
  "version": "2.0.0",
  "tasks": [
    {
      "label": "echo",
      "type": "shell",
      "command": "echo hi", // not ours
      "script": "scripts/build.vox",
    },
    /* the data job */
    {
      "type": "vox",
      "label": "data job",
      "script": "${workspaceFolder}/scripts/data.vox",
      "caps": ["fs:ro=${workspaceFolder}/data", "env:ro"],
      "cwd": "${workspaceFolder}/work",
      "args": ["--in", "${workspaceRoot}/data/in.csv"],
      "max-steps": 5000,
      "timeout": "10",
    },
    {"type": "vox", "script": "scripts/label-less.vox"},
  ],
}
"#;

const LAUNCH_JSON: &str = r#"// Launch configurations.
{
  "version": "0.2.0",
  "configurations": [
    {
      "type": "node",
      "request": "launch",
      "name": "Not ours",
      "program": "${workspaceFolder}/app.js",
    },
    { "type": "vox", "request": "launch", "name": "Run report",
      "script": "scripts/report.vox", "caps": [] },
  ]
}
"#;

#[test]
fn all_three_files_load_in_file_order() {
    let s = Scratch::new("cfg-all");
    write(&s, "Vox.toml", VOX_TOML);
    write(&s, ".vscode/tasks.json", TASKS_JSON);
    write(&s, ".vscode/launch.json", LAUNCH_JSON);
    let root = s.path("");
    let ws = load_workspace(&root);
    assert_eq!(ws.errors, vec![]);
    assert_eq!(ws.root, root);
    let names: Vec<&str> = ws.runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "build",
            "report",
            "data job",
            "scripts/label-less.vox",
            "Run report"
        ]
    );

    let build = &ws.runs[0];
    assert_eq!(build.script, root.join("scripts/build.vox"));
    assert_eq!(build.cwd, root.join("."));
    assert_eq!(
        build.caps,
        Some(caps(&["fs:ro=src", "fs:rw=dist", "env:ro"]))
    );
    assert_eq!(
        build.ceilings,
        vec![
            ("max-steps".to_string(), "10000000".to_string()),
            ("max-memory".to_string(), "32MiB".to_string())
        ]
    );
    assert_eq!(build.args, caps(&["--release", "3"]));
    assert_eq!(build.origin.file, root.join("Vox.toml"));
    assert_eq!(build.origin.kind, ConfigKind::VoxToml);
    assert_eq!((build.origin.line, build.origin.column), (3, 1));

    let report = &ws.runs[1];
    assert_eq!(report.cwd, root.join("reports"));
    assert_eq!(report.caps, None);
    assert_eq!((report.origin.line, report.origin.column), (11, 1));

    let data = &ws.runs[2];
    let root_text = root.to_str().unwrap();
    assert_eq!(data.script, root.join("scripts/data.vox"));
    assert_eq!(data.cwd, root.join("work"));
    assert_eq!(
        data.caps,
        Some(vec![
            format!("fs:ro={root_text}/data"),
            "env:ro".to_string()
        ])
    );
    assert_eq!(
        data.args,
        vec!["--in".to_string(), format!("{root_text}/data/in.csv")]
    );
    assert_eq!(
        data.ceilings,
        vec![
            ("max-steps".to_string(), "5000".to_string()),
            ("timeout".to_string(), "10".to_string())
        ]
    );
    assert_eq!(data.origin.file, root.join(".vscode/tasks.json"));
    assert_eq!(data.origin.kind, ConfigKind::Tasks);
    assert_eq!((data.origin.line, data.origin.column), (12, 5));

    // A task without a label is named by its script; a missing cwd is the root.
    let unlabelled = &ws.runs[3];
    assert_eq!(unlabelled.cwd, root);
    assert_eq!((unlabelled.origin.line, unlabelled.origin.column), (22, 5));

    let launch = &ws.runs[4];
    assert_eq!(launch.script, root.join("scripts/report.vox"));
    assert_eq!(launch.cwd, root);
    assert_eq!(launch.caps, Some(vec![]));
    assert_eq!(launch.origin.kind, ConfigKind::Launch);
    assert_eq!((launch.origin.line, launch.origin.column), (11, 5));

    assert_eq!(
        ws.lint,
        LintConfig {
            select: caps(&["D", "I001"]),
            ignore: caps(&["D004"]),
            severity: vec![
                ("D002".to_string(), "warning".to_string()),
                ("C".to_string(), "error".to_string())
            ],
            exclude: caps(&["vendor/**"]),
        }
    );
}

#[test]
fn no_files_no_configuration() {
    let s = Scratch::new("cfg-none");
    let ws = load_workspace(&s.path(""));
    assert!(ws.runs.is_empty() && ws.errors.is_empty());
    assert_eq!(ws.lint, LintConfig::default());
    // Empty and comment-only files are fine too.
    let ws = workspace_from_texts(
        Path::new("/w"),
        Some(""),
        Some("// nothing yet\n"),
        Some("{}"),
    );
    assert!(ws.runs.is_empty() && ws.errors.is_empty(), "{ws:?}");
}

#[test]
fn vox_run_loader_is_unchanged_and_ignores_lint() {
    let s = Scratch::new("cfg-run");
    let path = write(
        &s,
        "Vox.toml",
        "[run.build]\nscript = \"b.vox\"\n\n[lint]\nselect = [\"Z\"]\n",
    );
    let runs = load_vox_toml(&path).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].script, s.path("b.vox"));
    // The workspace loader reads [lint] and rejects the file as a whole.
    let ws = load_workspace(&s.path(""));
    assert!(ws.runs.is_empty());
    assert_eq!(ws.errors.len(), 1);
    assert_eq!((ws.errors[0].line, ws.errors[0].column), (5, 11));
    assert_eq!(ws.errors[0].section, ConfigSection::Lint);
    // The message `vox run` prints.
    write(&s, "Vox.toml", "[run.build]\nscript = 3\n");
    let err = load_vox_toml(&path).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:2:10: invalid run configuration: `run.build.script` is an integer; write a path string such as script = \"scripts/build.vox\"",
            path.display()
        )
    );
    let missing = load_vox_toml(&s.path("nope/Vox.toml")).unwrap_err();
    assert!(missing.message.contains("does not exist"), "{missing:?}");
}

/// The one error of a file: (line, column, part of the message).
fn one_error(errors: &[ConfigError]) -> (u32, u32, String) {
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let e = &errors[0];
    assert!(!e.message.contains('\n'), "{e:?}");
    (e.line, e.column, e.message.clone())
}

fn toml_error(text: &str) -> (u32, u32, String) {
    let ws = workspace_from_texts(Path::new("/w"), Some(text), None, None);
    assert_eq!(ws.runs, vec![]);
    one_error(&ws.errors)
}

fn json_error(kind: ConfigKind, text: &str) -> (u32, u32, String) {
    let ws = match kind {
        ConfigKind::Tasks => workspace_from_texts(Path::new("/w"), None, Some(text), None),
        _ => workspace_from_texts(Path::new("/w"), None, None, Some(text)),
    };
    assert_eq!(ws.runs, vec![]);
    one_error(&ws.errors)
}

#[track_caller]
fn assert_error(got: (u32, u32, String), line: u32, column: u32, says: &[&str]) {
    assert_eq!((got.0, got.1), (line, column), "{}", got.2);
    for s in says {
        assert!(got.2.contains(s), "{:?} lacks {s:?}", got.2);
    }
}

#[test]
fn invalid_vox_toml_is_located() {
    assert_error(
        toml_error("[run.a]\nscript = \"a.vox\"\ncaps = \"env:ro\"\n"),
        3,
        8,
        &["`run.a.caps` is a string", "caps = [\"fs:ro=data\"]"],
    );
    assert_error(
        toml_error("[run.a]\nscript = \"a.vox\"\ncaps = [\"env:ro\", 3]\n"),
        3,
        19,
        &["holds an integer", "\"env:ro\""],
    );
    assert_error(
        toml_error("# c\n[run.a]\ncwd = \"x\"\n"),
        2,
        1,
        &["has no script", "script = \"path/to/script.vox\""],
    );
    assert_error(
        toml_error("[run.a]\nscript = \"a.vox\"\n  capz = []\n"),
        3,
        3,
        &["unknown key `capz`", "script, cwd, caps, args, max-steps"],
    );
    assert_error(
        toml_error("[run.a]\nscript = \"a.vox\"\nmax-disk = \"lots\"\n"),
        3,
        12,
        &["`run.a.max-disk`", "\"32MiB\""],
    );
    assert_error(
        toml_error("[run.a]\nscript = \"a.vox\"\nmax-steps = -1\n"),
        3,
        13,
        &["non-negative integer"],
    );
    assert_error(
        toml_error("run = 3\n"),
        1,
        7,
        &["`run` is an integer", "[run.NAME]"],
    );
    assert_error(
        toml_error("[run]\nbuild = \"x.vox\"\n"),
        2,
        9,
        &["`run.build` is a string", "[run.build]"],
    );
    // Syntax errors, at the bad byte, counted in Unicode scalars after a BOM.
    assert_error(
        toml_error("\u{feff}[run.é]\nscript = \"a.vox\"\n"),
        1,
        6,
        &["fix the TOML syntax"],
    );
    assert_error(
        toml_error("[run.\"é\"]\nscript = \"a.vox\n"),
        2,
        16,
        &["fix the TOML syntax"],
    );
    assert_error(
        toml_error("[run.a]\nscript = \"a.vox\"\nscript = \"b.vox\"\n"),
        3,
        1,
        &["fix the TOML syntax"],
    );
}

#[test]
fn inline_and_dotted_entries_load() {
    let ws = workspace_from_texts(
        Path::new("/w"),
        Some("[run]\na.script = \"a.vox\"\nb = { script = \"b.vox\", caps = [\"env:ro\"] }\n"),
        None,
        None,
    );
    assert_eq!(ws.errors, vec![]);
    let got: Vec<(&str, u32, u32)> = ws
        .runs
        .iter()
        .map(|r| (r.name.as_str(), r.origin.line, r.origin.column))
        .collect();
    assert_eq!(got, [("a", 2, 1), ("b", 3, 1)]);
    assert_eq!(ws.runs[1].caps, Some(caps(&["env:ro"])));
}

#[test]
fn invalid_json_files_are_located() {
    use ConfigKind::{Launch, Tasks};
    assert_error(
        json_error(Tasks, "{\n  \"version\": \"2.0.0\"\n  \"tasks\": []\n}\n"),
        2,
        21,
        &["Expected comma", "fix the JSON here"],
    );
    assert_error(
        json_error(Tasks, "{\"tasks\": [ {'type': 'vox'} ]}"),
        1,
        14,
        &["fix the JSON"],
    );
    assert_error(
        json_error(Tasks, "[]"),
        1,
        1,
        &["tasks.json holds a list", "\"tasks\": []"],
    );
    assert_error(
        json_error(Tasks, "{\"tasks\": {}}"),
        1,
        11,
        &["\"tasks\" in tasks.json is an object", "\"type\": \"vox\""],
    );
    assert_error(
        json_error(
            Launch,
            "{\n  \"configurations\": [\n    {\"type\": \"vox\", \"name\": \"x\", \"script\": \"x.vox\",\n     \"caps\": \"fs:ro=data\"}\n  ]\n}",
        ),
        4,
        14,
        &["\"caps\" of a vox launch configuration in launch.json is a string", "[\"fs:ro=data\"]"],
    );
    assert_error(
        json_error(
            Launch,
            "{\"configurations\": [{\"type\": \"vox\", \"script\": \"x.vox\"}]}",
        ),
        1,
        21,
        &["has no name", "\"name\""],
    );
    assert_error(
        json_error(
            Tasks,
            "{\"tasks\": [{\"type\": \"vox\", \"label\": \"x\"}]}",
        ),
        1,
        12,
        &["has no script", "\"script\": \"path/to/script.vox\""],
    );
    assert_error(
        json_error(
            Tasks,
            "{\"tasks\": [{\"type\": \"vox\", \"script\": \"x.vox\", \"args\": [1]}]}",
        ),
        1,
        56,
        &["\"args\"", "holds a number"],
    );
    assert_error(
        json_error(
            Tasks,
            "{\"tasks\": [{\"type\": \"vox\", \"script\": \"x.vox\", \"max-steps\": -1}]}",
        ),
        1,
        60,
        &["\"max-steps\"", "non-negative integer"],
    );
}

#[test]
fn one_invalid_file_does_not_stop_the_others() {
    let s = Scratch::new("cfg-partial");
    write(&s, "Vox.toml", "[run.a]\nscript = \"a.vox\"\n");
    write(&s, ".vscode/tasks.json", "{ \"tasks\": [ }");
    write(&s, ".vscode/launch.json", LAUNCH_JSON);
    let ws = load_workspace(&s.path(""));
    let names: Vec<&str> = ws.runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["a", "Run report"]);
    assert_eq!(ws.errors.len(), 1);
    assert_eq!(ws.errors[0].file, s.path(".vscode/tasks.json"));
    assert_eq!((ws.errors[0].line, ws.errors[0].column), (1, 14));
    let shown = ws.errors[0].to_string();
    assert!(
        shown.starts_with(&format!(
            "{}:1:14: invalid run configuration: ",
            s.path(".vscode/tasks.json").display()
        )),
        "{shown}"
    );

    // A file that is not UTF-8 is an error at the first bad byte.
    std::fs::write(s.path("Vox.toml"), b"# ok\n# bad \xff\n").unwrap();
    let ws = load_workspace(&s.path(""));
    assert_eq!(ws.errors.len(), 2);
    assert_eq!(ws.errors[0].file, s.path("Vox.toml"));
    assert_eq!((ws.errors[0].line, ws.errors[0].column), (2, 7));
    assert!(ws.errors[0].message.contains("save it as UTF-8"));
    assert_eq!(ws.errors[1].file, s.path(".vscode/tasks.json"));
}

#[test]
fn lint_table() {
    let lint = |text: &str| {
        let ws = workspace_from_texts(Path::new("/w"), Some(text), None, None);
        assert_eq!(ws.errors, vec![]);
        ws.lint
    };
    assert_eq!(lint("[lint]\n"), LintConfig::default());
    assert_eq!(
        lint("lint.select = [\"L001\", \"C005\", \"I\"]\nlint.severity.I004 = \"error\"\n"),
        LintConfig {
            select: caps(&["L001", "C005", "I"]),
            severity: vec![("I004".into(), "error".into())],
            ..LintConfig::default()
        }
    );
    // What `--select` and `--ignore` accept, [lint] accepts: prefixes of codes and the
    // syntax, check and config codes.
    assert_eq!(
        lint("[lint]\nignore = [\"D00\", \"check\", \"check.arity\", \"config\"]\n").ignore,
        caps(&["D00", "check", "check.arity", "config"])
    );
}

#[test]
fn lint_errors_are_located_and_say_what_to_write() {
    let check = |text: &str, line: u32, column: u32, says: &[&str]| {
        let ws = workspace_from_texts(
            Path::new("/w"),
            Some(&format!("[run.a]\nscript = \"a.vox\"\n{text}")),
            None,
            None,
        );
        assert_eq!(ws.runs, vec![], "an invalid file contributes nothing");
        let err = one_error(&ws.errors);
        assert_eq!(ws.errors[0].section, ConfigSection::Lint, "{text}");
        assert!(ws.errors[0]
            .to_string()
            .contains(": invalid lint configuration: "));
        assert_error(err, line, column, says);
    };
    check(
        "[lint]\nselect = [\"D\", 1]\n",
        4,
        16,
        &[
            "`lint.select` holds an integer",
            "select = [\"D\", \"I001\"]",
        ],
    );
    check(
        "[lint]\nselect = \"D\"\n",
        4,
        10,
        &["`lint.select` is a string", "select = [\"D\", \"I001\"]"],
    );
    check(
        "[lint]\nignore = [\"D008\"]\n",
        4,
        11,
        &[
            "unknown rule `D008`",
            "D001–D007, I001–I004, C001–C005, L001–L002",
        ],
    );
    check(
        "[lint]\nignore = [\"X\"]\n",
        4,
        11,
        &["unknown rule `X`", "a prefix (D, I, C, L)"],
    );
    check(
        "[lint]\nignore = [\"D01\"]\n",
        4,
        11,
        &["unknown rule `D01`"],
    );
    check(
        "[lint]\nignore = [\"checks\"]\n",
        4,
        11,
        &["unknown rule `checks`", "`syntax`, `check`, `config`"],
    );
    check("[lint]\nselect = [\"d001\"]\n", 4, 11, &["write `D001`"]);
    check(
        "[lint]\nselect = [\"D0001\", \"D000\"]\n",
        4,
        11,
        &["unknown rule `D0001`"],
    );
    check(
        "[lint.severity]\nD002 = \"warn\"\n",
        4,
        8,
        &["unknown severity \"warn\"", "\"error\" or \"warning\""],
    );
    check(
        "[lint.severity]\nD002 = 2\n",
        4,
        8,
        &["is an integer", "\"error\" or \"warning\""],
    );
    check(
        "[lint.severity]\nZ9 = \"error\"\n",
        4,
        1,
        &["unknown rule `Z9` in `lint.severity`"],
    );
    check(
        "[lint]\nseverity = \"error\"\n",
        4,
        12,
        &["`lint.severity` is a string", "[lint.severity]"],
    );
    check(
        "[lint]\nexclude = [\"/abs/**\"]\n",
        4,
        12,
        &["absolute", "relative to the workspace root"],
    );
    check(
        "[lint]\nexclude = [true]\n",
        4,
        12,
        &["holds a boolean", "exclude = [\"vendor/**\"]"],
    );
    check(
        "[lint]\nselct = [\"D\"]\n",
        4,
        1,
        &[
            "unknown key `selct` in [lint]",
            "select, ignore, exclude, severity",
        ],
    );
    let ws = workspace_from_texts(Path::new("/w"), Some("lint = [1]\n"), None, None);
    assert_error(one_error(&ws.errors), 1, 8, &["`lint` is a list", "[lint]"]);
}

#[test]
fn config_caps_parses_tokens_relative_to_cwd() {
    let s = Scratch::new("cfg-caps");
    s.dir("work/data");
    write(
        &s,
        ".vscode/tasks.json",
        r#"{"tasks": [
            {"type": "vox", "label": "a", "script": "a.vox", "cwd": "work", "caps": ["fs:ro=data", "env:ro"]},
            {"type": "vox", "label": "b", "script": "b.vox"},
            {"type": "vox", "label": "c", "script": "c.vox", "caps": ["fs:ro=missing"]},
            {"type": "vox", "label": "d", "script": "d.vox", "caps": ["net:none", "net:allow"]}
        ]}"#,
    );
    let ws = load_workspace(&s.path(""));
    assert_eq!(ws.errors, vec![]);
    let set = config_caps(&ws.runs[0]).unwrap();
    assert_eq!(set.fs_roots().len(), 1);
    assert_eq!(set.fs_roots()[0].dir(), s.path("work/data"));
    assert!(!set.fs_roots()[0].writable());
    assert_eq!(set.env(), EnvGrant::Ro);
    // No caps key grants none, as in `vox run`.
    let none = config_caps(&ws.runs[1]).unwrap();
    assert!(none.fs_roots().is_empty() && !none.net() && none.env() == EnvGrant::None);
    assert!(config_caps(&ws.runs[2]).is_err());
    assert!(config_caps(&ws.runs[3]).is_err());
}

#[test]
fn entry_names() {
    let taken = caps(&["build", "build-2", "job"]);
    assert_eq!(
        entry_name_for(Path::new("scripts/build.vox"), &taken),
        "build-3"
    );
    assert_eq!(entry_name_for(Path::new("job.vox"), &taken), "job-2");
    assert_eq!(entry_name_for(Path::new("/abs/new.vox"), &taken), "new");
    assert_eq!(entry_name_for(Path::new("noext"), &[]), "noext");
    assert_eq!(entry_name_for(Path::new(""), &[]), "script");
}

// ---- Edits: expected outputs written out in full, compared byte for byte. ----

const COMMENTED_TOML: &str = r#"# Vox.toml for the site.
# Keep caps minimal: CI checks them.

[run.build]   # the main build
script = "scripts/build.vox"   # entry point
caps = [
    "fs:ro=src",   # sources
    # where the site goes:
    "fs:rw=dist",
]  # reviewed 2024-05

[run.lint-only]
script = "scripts/check.vox"
caps = ["env:ro"]  # one token


# The end.
"#;

#[test]
fn toml_update_keeps_comments_and_layout() {
    let got = set_caps_vox_toml(
        COMMENTED_TOML,
        "build",
        "scripts/build.vox",
        &caps(&["env:ro", "fs:rw=dist", "fs:ro=src"]),
    )
    .unwrap();
    assert_eq!(
        got,
        r#"# Vox.toml for the site.
# Keep caps minimal: CI checks them.

[run.build]   # the main build
script = "scripts/build.vox"   # entry point
caps = [
    "env:ro",
    # where the site goes:
    "fs:rw=dist",
    "fs:ro=src",   # sources
]  # reviewed 2024-05

[run.lint-only]
script = "scripts/check.vox"
caps = ["env:ro"]  # one token


# The end.
"#
    );
    let got = set_caps_vox_toml(
        COMMENTED_TOML,
        "lint-only",
        "scripts/check.vox",
        &caps(&["env:ro", "time:real"]),
    )
    .unwrap();
    assert_eq!(
        got,
        COMMENTED_TOML.replace(
            "caps = [\"env:ro\"]  # one token",
            "caps = [\"env:ro\", \"time:real\"]  # one token"
        )
    );
    // The same tokens: the text comes back untouched.
    let same = set_caps_vox_toml(
        COMMENTED_TOML,
        "build",
        "scripts/build.vox",
        &caps(&["fs:ro=src", "fs:rw=dist"]),
    )
    .unwrap();
    assert_eq!(same, COMMENTED_TOML);
    // Down to one token, and to none.
    let got = set_caps_vox_toml(
        COMMENTED_TOML,
        "build",
        "scripts/build.vox",
        &caps(&["fs:rw=dist"]),
    )
    .unwrap();
    assert!(
        got.contains(
            "caps = [\n    # where the site goes:\n    \"fs:rw=dist\",\n]  # reviewed 2024-05\n"
        ),
        "{got}"
    );
    let got = set_caps_vox_toml(COMMENTED_TOML, "build", "scripts/build.vox", &[]).unwrap();
    assert!(
        got.contains(
            "script = \"scripts/build.vox\"   # entry point\ncaps = []  # reviewed 2024-05\n"
        ),
        "{got}"
    );
}

#[test]
fn toml_create_entry_at_the_end() {
    let got = set_caps_vox_toml(
        COMMENTED_TOML,
        "build-2",
        "tools/build.vox",
        &caps(&["fs:ro=.", "process:allow"]),
    )
    .unwrap();
    assert_eq!(
        got,
        format!(
            "{COMMENTED_TOML}\n[run.build-2]\nscript = \"tools/build.vox\"\ncaps = [\"fs:ro=.\", \"process:allow\"]\n"
        )
    );
    // No newline at the end, names that need quotes, CRLF files, a BOM.
    assert_eq!(
        set_caps_vox_toml("a = 1", "my job", "my job.vox", &caps(&["none"])).unwrap(),
        "a = 1\n\n[run.\"my job\"]\nscript = \"my job.vox\"\ncaps = [\"none\"]\n"
    );
    assert_eq!(
        set_caps_vox_toml("# x\r\n", "j", "j.vox", &caps(&["env:ro"])).unwrap(),
        "# x\r\n\r\n[run.j]\r\nscript = \"j.vox\"\r\ncaps = [\"env:ro\"]\r\n"
    );
    assert_eq!(
        set_caps_vox_toml("\u{feff}# x\n\n", "j", "j.vox", &[]).unwrap(),
        "\u{feff}# x\n\n[run.j]\nscript = \"j.vox\"\ncaps = []\n"
    );
    // A new file.
    assert_eq!(
        set_caps_vox_toml("", "job", "scripts/job.vox", &caps(&["fs:ro=data"])).unwrap(),
        "[run.job]\nscript = \"scripts/job.vox\"\ncaps = [\"fs:ro=data\"]\n"
    );
    // Strings are escaped.
    assert_eq!(
        set_caps_vox_toml("", "q", "a\"b.vox", &caps(&["fs:ro=C:\\x"])).unwrap(),
        "[run.q]\nscript = 'a\"b.vox'\ncaps = ['fs:ro=C:\\x']\n"
    );
}

#[test]
fn toml_add_caps_to_an_entry_without_them() {
    let text = "[run.job]  # job\nscript = \"job.vox\"  # entry\nargs = [\"-v\"]\n\n# after\n";
    assert_eq!(
        set_caps_vox_toml(text, "job", "job.vox", &caps(&["env:ro"])).unwrap(),
        "[run.job]  # job\nscript = \"job.vox\"  # entry\ncaps = [\"env:ro\"]\nargs = [\"-v\"]\n\n# after\n"
    );
    // Dotted keys keep their prefix; the last line may lack a newline.
    assert_eq!(
        set_caps_vox_toml("  run.job.script = \"job.vox\"", "job", "job.vox", &[]).unwrap(),
        "  run.job.script = \"job.vox\"\n  run.job.caps = []"
    );
    // Inline entries.
    assert_eq!(
        set_caps_vox_toml(
            "[run]\njob = { script = \"job.vox\" }  # inline\n",
            "job",
            "job.vox",
            &caps(&["env:ro"])
        )
        .unwrap(),
        "[run]\njob = { script = \"job.vox\", caps = [\"env:ro\"] }  # inline\n"
    );
    assert_eq!(
        set_caps_vox_toml(
            "[run]\njob = { script = \"job.vox\", caps = [] }\n",
            "job",
            "job.vox",
            &caps(&["env:ro"])
        )
        .unwrap(),
        "[run]\njob = { script = \"job.vox\", caps = [\"env:ro\"] }\n"
    );
}

#[test]
fn toml_edit_errors() {
    let err = set_caps_vox_toml("[run.a\n", "a", "a.vox", &[]).unwrap_err();
    assert_eq!((err.line, err.column), (1, 7), "{err}");
    let err = set_caps_vox_toml("[run]\na = 3\n", "a", "a.vox", &[]).unwrap_err();
    assert_eq!((err.line, err.column), (2, 5), "{err}");
    assert!(err.message.contains("[run.a]"), "{err}");
    let err =
        set_caps_vox_toml("run = { a = { script = \"a.vox\" } }\n", "b", "b.vox", &[]).unwrap_err();
    assert!(err.message.contains("inline"), "{err}");
}

const COMMENTED_TASKS: &str = r#"{
	// Tasks for this folder; see the VS Code docs.
	"version": "2.0.0",
	"tasks": [
		{
			"label": "test", // a shell task that runs the same script
			"type": "shell",
			"command": "vox test scripts/build.vox",
			"script": "scripts/build.vox",
		},
		/* Our build. */
		{
			"type": "vox",
			"label": "build",
			"script": "${workspaceFolder}/scripts/build.vox",
			"caps": [
				"fs:ro=src", // sources
				"fs:rw=dist" // output
			],
		},
	],
}
"#;

#[test]
fn tasks_update_keeps_comments_and_layout() {
    let got = set_caps_tasks_json(
        COMMENTED_TASKS,
        "./scripts/build.vox",
        "build",
        &caps(&["env:ro", "fs:ro=src", "fs:rw=dist"]),
    )
    .unwrap();
    assert_eq!(
        got,
        r#"{
	// Tasks for this folder; see the VS Code docs.
	"version": "2.0.0",
	"tasks": [
		{
			"label": "test", // a shell task that runs the same script
			"type": "shell",
			"command": "vox test scripts/build.vox",
			"script": "scripts/build.vox",
		},
		/* Our build. */
		{
			"type": "vox",
			"label": "build",
			"script": "${workspaceFolder}/scripts/build.vox",
			"caps": [
				"env:ro",
				"fs:ro=src", // sources
				"fs:rw=dist" // output
			],
		},
	],
}
"#
    );
    // The last token moves: commas follow, comments stay with their tokens.
    let got = set_caps_tasks_json(
        COMMENTED_TASKS,
        "scripts/build.vox",
        "build",
        &caps(&["fs:rw=dist", "fs:ro=src"]),
    )
    .unwrap();
    assert!(
        got.contains("\t\t\t\"caps\": [\n\t\t\t\t\"fs:rw=dist\", // output\n\t\t\t\t\"fs:ro=src\" // sources\n\t\t\t],\n"),
        "{got}"
    );
    assert_eq!(
        set_caps_tasks_json(
            COMMENTED_TASKS,
            "scripts/build.vox",
            "build",
            &caps(&["fs:ro=src", "fs:rw=dist"])
        )
        .unwrap(),
        COMMENTED_TASKS
    );
}

#[test]
fn tasks_append_entry_keeps_everything_else() {
    let got = set_caps_tasks_json(
        COMMENTED_TASKS,
        "scripts/deploy.vox",
        "deploy",
        &caps(&["net:allow"]),
    )
    .unwrap();
    assert_eq!(
        got,
        r#"{
	// Tasks for this folder; see the VS Code docs.
	"version": "2.0.0",
	"tasks": [
		{
			"label": "test", // a shell task that runs the same script
			"type": "shell",
			"command": "vox test scripts/build.vox",
			"script": "scripts/build.vox",
		},
		/* Our build. */
		{
			"type": "vox",
			"label": "build",
			"script": "${workspaceFolder}/scripts/build.vox",
			"caps": [
				"fs:ro=src", // sources
				"fs:rw=dist" // output
			],
		},
		{
			"type": "vox",
			"label": "deploy",
			"script": "scripts/deploy.vox",
			"caps": ["net:allow"],
		},
	],
}
"#
    );
    // A file without a tasks list gets one.
    assert_eq!(
        set_caps_tasks_json(
            "{\n  // keep me\n  \"version\": \"2.0.0\"\n}\n",
            "a.vox",
            "a",
            &[]
        )
        .unwrap(),
        "{\n  // keep me\n  \"version\": \"2.0.0\",\n  \"tasks\": [\n    {\n      \"type\": \"vox\",\n      \"label\": \"a\",\n      \"script\": \"a.vox\",\n      \"caps\": []\n    }\n  ]\n}\n"
    );
}

#[test]
fn tasks_create_file_and_add_caps_key() {
    assert_eq!(
        set_caps_tasks_json(
            "",
            "scripts/job.vox",
            "job",
            &caps(&["fs:ro=data", "env:ro"])
        )
        .unwrap(),
        r#"{
  "version": "2.0.0",
  "tasks": [
    {
      "type": "vox",
      "label": "job",
      "script": "scripts/job.vox",
      "caps": ["fs:ro=data", "env:ro"]
    }
  ]
}
"#
    );
    let text = "{\n  \"tasks\": [\n    {\n      \"type\": \"vox\", \"label\": \"job\",\n      \"script\": \"job.vox\", // here\n      \"args\": [\"-v\"]\n    }\n  ]\n}\n";
    assert_eq!(
        set_caps_tasks_json(text, "job.vox", "job", &caps(&["env:ro"])).unwrap(),
        "{\n  \"tasks\": [\n    {\n      \"type\": \"vox\", \"label\": \"job\",\n      \"script\": \"job.vox\", // here\n      \"caps\": [\"env:ro\"],\n      \"args\": [\"-v\"]\n    }\n  ]\n}\n"
    );
    // A one-line list stays on one line; strings are escaped.
    let text = "{\"tasks\": [{\"type\": \"vox\", \"script\": \"j.vox\", \"caps\": [\"env:ro\"]}]}";
    assert_eq!(
        set_caps_tasks_json(text, "j.vox", "j", &caps(&["fs:ro=a \"b\"\\c"])).unwrap(),
        "{\"tasks\": [{\"type\": \"vox\", \"script\": \"j.vox\", \"caps\": [\"fs:ro=a \\\"b\\\"\\\\c\"]}]}"
    );
}

#[test]
fn launch_edits() {
    assert_eq!(
        set_caps_launch_json("", "run.vox", "Run it", &caps(&["env:ro"])).unwrap(),
        r#"{
  "version": "0.2.0",
  "configurations": [
    {
      "type": "vox",
      "request": "launch",
      "name": "Run it",
      "script": "run.vox",
      "caps": ["env:ro"]
    }
  ]
}
"#
    );
    let got = set_caps_launch_json(
        LAUNCH_JSON,
        "scripts/report.vox",
        "Run report",
        &caps(&["env:rw"]),
    )
    .unwrap();
    assert_eq!(
        got,
        LAUNCH_JSON.replace("\"caps\": [] },", "\"caps\": [\"env:rw\"] },")
    );
    let got = set_caps_launch_json(LAUNCH_JSON, "other.vox", "Other", &[]).unwrap();
    assert_eq!(
        got,
        r#"// Launch configurations.
{
  "version": "0.2.0",
  "configurations": [
    {
      "type": "node",
      "request": "launch",
      "name": "Not ours",
      "program": "${workspaceFolder}/app.js",
    },
    { "type": "vox", "request": "launch", "name": "Run report",
      "script": "scripts/report.vox", "caps": [] },
    {
      "type": "vox",
      "request": "launch",
      "name": "Other",
      "script": "other.vox",
      "caps": [],
    },
  ]
}
"#
    );
    // Only comments so far: the object goes after them.
    assert_eq!(
        set_caps_launch_json("// Launch.\n", "a.vox", "a", &[]).unwrap(),
        "// Launch.\n{\n  \"version\": \"0.2.0\",\n  \"configurations\": [\n    {\n      \"type\": \"vox\",\n      \"request\": \"launch\",\n      \"name\": \"a\",\n      \"script\": \"a.vox\",\n      \"caps\": []\n    }\n  ]\n}\n"
    );
}

#[test]
fn json_edit_errors_are_located() {
    let err = set_caps_tasks_json("{\n  \"tasks\": [,]\n}", "a.vox", "a", &[]).unwrap_err();
    assert_eq!((err.line, err.column), (2, 13), "{err}");
    let err = set_caps_launch_json("{\"configurations\": 3}", "a.vox", "a", &[]).unwrap_err();
    assert_eq!((err.line, err.column), (1, 20), "{err}");
    let err = set_caps_tasks_json("[1]", "a.vox", "a", &[]).unwrap_err();
    assert_eq!((err.line, err.column), (1, 1), "{err}");
}

#[test]
fn edited_files_load_back() {
    let s = Scratch::new("cfg-roundtrip");
    let tokens = caps(&["fs:ro=data", "env:ro"]);
    write(
        &s,
        "Vox.toml",
        &set_caps_vox_toml(COMMENTED_TOML, "new", "scripts/new.vox", &tokens).unwrap(),
    );
    write(
        &s,
        ".vscode/tasks.json",
        &set_caps_tasks_json(COMMENTED_TASKS, "scripts/new.vox", "new", &tokens).unwrap(),
    );
    write(
        &s,
        ".vscode/launch.json",
        &set_caps_launch_json("", "scripts/new.vox", "new", &tokens).unwrap(),
    );
    let ws = load_workspace(&s.path(""));
    assert_eq!(ws.errors, vec![]);
    let new: Vec<&RunConfig> = ws.runs.iter().filter(|r| r.name == "new").collect();
    assert_eq!(new.len(), 3);
    for r in new {
        assert_eq!(r.script, s.path("scripts/new.vox"));
        assert_eq!(r.caps.as_ref(), Some(&tokens));
    }
}

// ---- No input panics. ----

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: reproducible.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Pieces of both grammars and of the schema, to build and mutate texts with.
const PIECES: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    "[[",
    "]]",
    "\"",
    "'",
    "\"\"\"",
    "run",
    "lint",
    "run.",
    "lint.",
    ".",
    "=",
    ",",
    ":",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "#",
    "//",
    "/*",
    "*/",
    "script",
    "caps",
    "cwd",
    "args",
    "\"type\": \"vox\"",
    "\"script\": ",
    "\"caps\": [",
    "\"tasks\": [",
    "\"configurations\": [",
    "label",
    "name",
    "select",
    "ignore",
    "exclude",
    "severity",
    "D001",
    "D",
    "X9",
    "error",
    "warn",
    "1",
    "-1",
    "1e999",
    "0x1",
    "true",
    "null",
    "é",
    "名",
    "\u{feff}",
    "\\",
    "\\u",
    "${workspaceFolder}",
    "${workspaceRoot}",
    "max-steps",
    "\"32MiB\"",
    "\0",
    "\u{1b}",
];

fn mutate(rng: &mut Rng, base: &str) -> String {
    let mut bytes = base.as_bytes().to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(4) {
            0 => {
                let end = (at + rng.below(16)).min(bytes.len());
                bytes.drain(at..end);
            }
            1 | 2 => {
                let piece = PIECES[rng.below(PIECES.len())];
                bytes.splice(at..at, piece.bytes());
            }
            _ => {
                let end = (at + rng.below(32)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                let to = rng.below(bytes.len() + 1);
                bytes.splice(to..to, copy);
            }
        }
    }
    // Most mutations stay UTF-8; the rest are made valid lossily (raw bytes go through files).
    String::from_utf8_lossy(&bytes).into_owned()
}

fn random_text(rng: &mut Rng) -> String {
    (0..rng.below(24))
        .map(|_| PIECES[rng.below(PIECES.len())])
        .collect()
}

#[track_caller]
fn well_formed(e: &ConfigError) {
    assert!(e.line >= 1 && e.column >= 1, "{e:?}");
    assert!(!e.message.is_empty() && !e.message.contains('\n'), "{e:?}");
}

fn exercise(text: &str) {
    let ws = workspace_from_texts(Path::new("/w"), Some(text), Some(text), Some(text));
    ws.errors.iter().for_each(well_formed);
    let tokens = caps(&["env:ro", "fs:ro=data"]);
    for result in [
        set_caps_vox_toml(text, "build", "scripts/build.vox", &tokens),
        set_caps_vox_toml(text, "x", "x.vox", &[]),
        set_caps_tasks_json(text, "scripts/build.vox", "build", &tokens),
        set_caps_launch_json(text, "scripts/report.vox", "r", &tokens),
    ] {
        if let Err(e) = result {
            well_formed(&e);
        }
    }
}

#[test]
fn random_input_never_panics() {
    let bases = [
        VOX_TOML,
        TASKS_JSON,
        LAUNCH_JSON,
        COMMENTED_TOML,
        COMMENTED_TASKS,
        "",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..4_000 {
        let text = if i % 4 == 0 {
            random_text(&mut rng)
        } else {
            let base = bases[rng.below(bases.len())];
            mutate(&mut rng, base)
        };
        exercise(&text);
    }
    // Deep nesting and long lines.
    for open in ["[", "{", "{\"a\":", "a = [", "a = {b = "] {
        exercise(&open.repeat(50_000));
        exercise(&format!("{{\"tasks\": {}", open.repeat(50_000)));
    }
    exercise(&format!("[run.a]\nscript = \"{}\"\n", "x".repeat(100_000)));
}

#[test]
fn random_bytes_in_files_never_panic() {
    let s = Scratch::new("cfg-fuzz");
    let root = s.path("");
    let mut rng = Rng(7);
    let files = ["Vox.toml", ".vscode/tasks.json", ".vscode/launch.json"];
    for i in 0..300 {
        for (k, file) in files.iter().enumerate() {
            let bytes: Vec<u8> = if (i + k) % 3 == 0 {
                (0..rng.below(64)).map(|_| rng.next() as u8).collect()
            } else {
                let base = [VOX_TOML, TASKS_JSON, LAUNCH_JSON][k];
                let mut b = mutate(&mut rng, base).into_bytes();
                if rng.below(4) == 0 && !b.is_empty() {
                    let at = rng.below(b.len());
                    b[at] = 0xff;
                }
                b
            };
            write(&s, file, "");
            std::fs::write(s.path(file), &bytes).unwrap();
        }
        let ws = load_workspace(&root);
        ws.errors.iter().for_each(well_formed);
        assert!(ws.errors.len() <= 3);
        if let Err(e) = load_vox_toml(&s.path("Vox.toml")) {
            well_formed(&e);
        }
    }
    // A directory where a file should be.
    std::fs::remove_file(s.path("Vox.toml")).unwrap();
    s.dir("Vox.toml");
    let ws = load_workspace(&root);
    assert!(ws.errors.iter().any(|e| e.file == s.path("Vox.toml")));
}

#[test]
fn block_comments_across_lines_are_not_cut() {
    let text = "{\"tasks\": [{\"type\": \"vox\", \"script\": \"a.vox\", \"caps\": [\n  \"b\", /* one\n  two */\n  \"a\"\n]}]}";
    assert_eq!(
        set_caps_tasks_json(text, "a.vox", "a", &caps(&["a", "b", "c"])).unwrap(),
        "{\"tasks\": [{\"type\": \"vox\", \"script\": \"a.vox\", \"caps\": [\n  \"a\",\n  \"b\",\n  \"c\"\n]}]}"
    );
    // A `.vscode` that is a file is no configuration.
    let s = Scratch::new("cfg-notdir");
    write(&s, ".vscode", "x");
    assert_eq!(load_workspace(&s.path("")).errors, vec![]);
}
