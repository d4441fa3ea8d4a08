//! What the user docs state agrees with what the tool does (issue 41): the exit codes' meanings,
//! the call-chain line of the human format, the commands a page tells a user to run, and the
//! server's memory figure on every page that states it.

mod common;
mod lsp_common;

use std::path::{Path, PathBuf};

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

/// Item 2: 79 is the memory ceiling and 78 the other ceilings (timeout included), everywhere a
/// run's end is described: the docs, the server's prove output, the VS Code and Neovim clients.
#[test]
fn exit_79_is_the_memory_ceiling_everywhere() {
    for file in [
        "docs/editors.md",
        "docs/caps.md",
        "server/src/features/prove.rs",
        "editors/vscode/src/runs.ts",
        "editors/nvim/lua/vox/init.lua",
    ] {
        let text = read(file);
        for bad in ["79 (timeout)", "79] = ' (timeout)", "79 => \" (timeout)"] {
            assert!(!text.contains(bad), "{file} calls exit 79 a timeout");
        }
    }
    // And the runtime agrees: a memory ceiling is 79, a timeout 78.
    let d = scratch();
    std::fs::write(
        d.join("big.vox"),
        "let s = \"x\".repeat(50000000)\nprint(len(s))\n",
    )
    .unwrap();
    let (code, _, err) = vox_in(&d, &["run", "--max-memory", "1M", "big.vox"]);
    assert_eq!(code, 79, "{err}");
    std::fs::write(d.join("spin.vox"), "while true {\n}\n").unwrap();
    let (code, _, err) = vox_in(&d, &["run", "--timeout", "1s", "spin.vox"]);
    assert_eq!(code, 78, "{err}");
}

/// Item 7: docs/ci.md shows the call chain as the human format prints it.
#[test]
fn the_chain_line_is_shown_as_printed() {
    let d = scratch();
    std::fs::write(
        d.join("chain.vox"),
        "fn stamp() {\n    print(time.now_ms())\n}\nfn main() {\n    stamp()\n}\n",
    )
    .unwrap();
    let (_, out, _) = vox_in(&d, &["lint", "chain.vox"]);
    let line = out
        .lines()
        .find(|l| l.contains("reached from"))
        .unwrap_or_else(|| panic!("no chain: {out}"));
    let printed = line.trim_start().split(" main").next().unwrap();
    assert_eq!(printed, "= reached from");
    let ci = read("docs/ci.md");
    assert!(ci.contains("`= reached from main → …`"), "docs/ci.md");
    assert!(!ci.contains("= note: reached from"), "docs/ci.md");
}

/// Item 5: a page that installs vox names a revision that exists (the repository has no tags,
/// so `--tag` would fail); item 8: the Neovim plugin suggests only flags `vox lsp` accepts.
#[test]
fn commands_the_pages_suggest_are_accepted() {
    let ci = read("docs/ci.md");
    assert!(!ci.contains("--tag"), "docs/ci.md installs from a tag");
    let rev = ci
        .lines()
        .find_map(|l| l.trim().strip_prefix("VOX_REV: "))
        .and_then(|v| v.split_whitespace().next())
        .expect("docs/ci.md pins VOX_REV");
    let known = std::process::Command::new("git")
        .args(["cat-file", "-e", &format!("{rev}^{{commit}}")])
        .current_dir(repo())
        .status();
    // Outside a git checkout (a source archive) there is nothing to look the commit up in.
    if let Ok(status) = known {
        if repo().join(".git").exists() {
            assert!(status.success(), "docs/ci.md pins {rev}, not a commit here");
        }
    }
    let nvim = read("editors/nvim/lua/vox/init.lua");
    for line in nvim.lines().filter(|l| l.contains("'lsp'")) {
        for flag in line.split('\'').filter(|w| w.starts_with("--")) {
            let (code, _, err) = vox_in(&repo(), &["lsp", flag, "--help"]);
            assert_eq!(
                code, 0,
                "`vox lsp {flag}` (suggested in init.lua) fails: {err}"
            );
        }
    }
}

/// Item 1: the server's memory on the 1,000-script workspace is stated the same on every page.
#[test]
fn the_memory_figure_agrees_across_pages() {
    let editors = read("docs/editors.md");
    let readme = read("README.md");
    assert!(!editors.contains("980 MB"), "docs/editors.md");
    assert!(editors.contains("about 200 MB"), "docs/editors.md");
    assert!(readme.contains("200 MB over 1,000,000 lines"), "README.md");
}

/// Item 6: docs/caps.md's exit-code table says a bad flag value is a fault (exit 1) and a usage
/// error (unknown flag, missing argument) is 2; `--error-format xml` and `--perturb x` exited 2.
#[test]
fn bad_flag_values_exit_as_the_table_says() {
    let caps = read("docs/caps.md");
    assert!(caps.contains("| 1 | fault: unreadable file, syntax error, runtime error, invalid `--caps` token or flag value |"));
    assert!(caps.contains("| 2 | usage error (unknown flag, missing argument) |"));
    let d = scratch();
    std::fs::write(d.join("s.vox"), "print(1)\n").unwrap();
    for bad in [
        ["--error-format", "xml"],
        ["--perturb", "x"],
        ["--max-steps", "x"],
        ["--caps", "bogus"],
        ["--timeout", "soon"],
    ] {
        let (code, _, err) = vox_in(&d, &["run", bad[0], bad[1], "s.vox"]);
        assert_eq!(code, 1, "{bad:?}: {err}");
        assert!(err.starts_with("vox: invalid "), "{bad:?}: {err}");
    }
    let (code, _, _) = vox_in(&d, &["run", "--no-such-flag", "s.vox"]);
    assert_eq!(code, 2);
    let (code, _, _) = vox_in(&d, &["run", "--max-steps"]);
    assert_eq!(code, 2);
}

/// Item 15: a missing file is reported in the same words by every command.
#[test]
fn a_missing_file_is_reported_the_same_everywhere() {
    let d = scratch();
    for command in ["run", "lint", "check", "caps", "test"] {
        let (code, _, err) = vox_in(&d, &[command, "nope.vox"]);
        assert_ne!(code, 0, "{command}");
        assert_eq!(
            err.lines().next().unwrap_or(""),
            "vox: cannot read nope.vox: no such file or directory",
            "{command}: {err}"
        );
    }
}

/// Item 12: docs/editors.md gives each VS Code command its command ID (what a keybinding
/// names), the ones the extension contributes.
#[test]
fn the_vs_code_commands_have_their_ids_in_the_docs() {
    let pkg: serde_json::Value =
        serde_json::from_str(&read("editors/vscode/package.json")).unwrap();
    let editors = read("docs/editors.md");
    for c in pkg["contributes"]["commands"].as_array().unwrap() {
        let id = c["command"].as_str().unwrap();
        let title = c["title"].as_str().unwrap();
        let row = format!("| Vox: {title} | `{id}` |");
        assert!(editors.contains(&row), "docs/editors.md has no row {row}");
    }
}

/// Item 14: `vox --version` names the commit it was built from (`unknown` outside a checkout).
#[test]
fn the_version_names_the_commit() {
    let (code, out, _) = vox_in(&repo(), &["--version"]);
    assert_eq!(code, 0);
    let line = out.trim_end();
    let commit = line
        .strip_prefix(&format!("vox {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{line}"));
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(repo())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        Some(h) if std::env::var_os("VOX_TEST_BIN").is_none() => assert_eq!(commit, h),
        _ => assert!(commit == "unknown" || commit.len() == 12, "{line}"),
    }
}

/// Item 14: shell completions, from the same definition as the flags: bash loads the script and
/// completes the subcommands; zsh's and fish's name them too.
#[test]
fn shell_completions_cover_the_commands() {
    let d = scratch();
    let (code, bash, err) = vox_in(&d, &["completions", "bash"]);
    assert_eq!(code, 0, "{err}");
    for sub in [
        "lint",
        "caps",
        "run",
        "check",
        "test",
        "doctor",
        "lsp",
        "completions",
    ] {
        assert!(bash.contains(sub), "bash completion lacks {sub}");
    }
    std::fs::write(d.join("vox.bash"), &bash).unwrap();
    let loaded = std::process::Command::new("bash")
        .args(["-c", "source ./vox.bash && complete -p vox"])
        .current_dir(&d)
        .output();
    if let Ok(o) = loaded {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).contains("_vox vox"));
    }
    for shell in ["zsh", "fish"] {
        let (code, out, err) = vox_in(&d, &["completions", shell]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("lint") && out.contains("determinism"),
            "{shell}"
        );
    }
    let (code, _, _) = vox_in(&d, &["completions", "tcsh"]);
    assert_eq!(code, 2, "an unknown shell is a usage error");
}

/// Issue 41 (licences): the two licences Cargo.toml names are at the root with their standard
/// texts, the README says so, and every crate of the workspace declares `MIT OR Apache-2.0`.
#[test]
fn the_licence_files_match_the_declared_licence() {
    const SPDX: &str = "MIT OR Apache-2.0";
    let apache = read("LICENSE-APACHE");
    let lines: Vec<&str> = apache.lines().collect();
    assert_eq!(lines.first().map(|l| l.trim()), Some(""), "LICENSE-APACHE");
    assert_eq!(lines.get(1).map(|l| l.trim()), Some("Apache License"));
    assert_eq!(
        lines.get(2).map(|l| l.trim()),
        Some("Version 2.0, January 2004")
    );
    assert_eq!(
        lines.last().map(|l| l.trim()),
        Some("limitations under the License.")
    );
    let headings = [
        "1. Definitions.",
        "2. Grant of Copyright License.",
        "3. Grant of Patent License.",
        "4. Redistribution.",
        "5. Submission of Contributions.",
        "6. Trademarks.",
        "7. Disclaimer of Warranty.",
        "8. Limitation of Liability.",
        "9. Accepting Warranty or Additional Liability.",
        "END OF TERMS AND CONDITIONS",
        "APPENDIX: How to apply the Apache License to your work.",
    ];
    let mut from = 0;
    for h in headings {
        let at = apache[from..]
            .find(&format!("   {h}"))
            .unwrap_or_else(|| panic!("LICENSE-APACHE lacks `{h}` (in order)"));
        from += at + h.len();
    }
    // The text as apache.org publishes it (LICENSE-2.0.txt), byte for byte.
    if let Ok(o) = std::process::Command::new("sha256sum")
        .arg(repo().join("LICENSE-APACHE"))
        .output()
    {
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            out.split_whitespace().next(),
            Some("cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"),
            "LICENSE-APACHE is not the canonical text"
        );
    }
    let mit = read("LICENSE-MIT");
    assert!(
        mit.starts_with("MIT License\n\nCopyright (c) "),
        "LICENSE-MIT"
    );
    for phrase in [
        "Permission is hereby granted, free of charge, to any person obtaining a copy",
        "The above copyright notice and this permission notice shall be included in all\ncopies or substantial portions of the Software.",
        "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR",
        "OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE\nSOFTWARE.\n",
    ] {
        assert!(mit.contains(phrase), "LICENSE-MIT lacks {phrase:?}");
    }
    let readme = read("README.md");
    let section = readme
        .split("\n## License\n")
        .nth(1)
        .expect("README.md has a License section");
    for named in ["LICENSE-MIT", "LICENSE-APACHE"] {
        assert!(
            section.contains(named),
            "README's License section names {named}"
        );
    }
    // Every member declares the licence, itself or through the workspace's.
    let root: toml::Table = read("Cargo.toml").parse().unwrap();
    let ws = &root["workspace"];
    assert_eq!(ws["package"]["license"].as_str(), Some(SPDX));
    for member in ws["members"].as_array().unwrap() {
        let member = member.as_str().unwrap();
        let manifest: toml::Table = read(&format!("{member}/Cargo.toml")).parse().unwrap();
        let license = &manifest["package"]
            .get("license")
            .unwrap_or_else(|| panic!("{member}/Cargo.toml declares no licence"));
        match license {
            toml::Value::String(s) => assert_eq!(s, SPDX, "{member}"),
            toml::Value::Table(t) => assert_eq!(
                t.get("workspace").and_then(toml::Value::as_bool),
                Some(true),
                "{member}"
            ),
            other => panic!("{member}: license = {other}"),
        }
    }
}

/// Issue 41 (changelog): CHANGELOG.md keeps an `[Unreleased]` section and has a heading for the
/// version `vox --version` prints.
#[test]
fn the_changelog_has_the_version_vox_prints() {
    let (code, out, err) = vox_in(&repo(), &["--version"]);
    assert_eq!(code, 0, "{err}");
    let version = out
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    let changelog = read("CHANGELOG.md");
    let headings: Vec<&str> = changelog
        .lines()
        .filter(|l| l.starts_with("## ["))
        .collect();
    assert_eq!(headings.first(), Some(&"## [Unreleased]"), "{headings:?}");
    let wanted = format!("## [{version}]");
    assert!(
        headings
            .iter()
            .any(|h| *h == wanted || h.starts_with(&format!("{wanted} - "))),
        "CHANGELOG.md has no heading {wanted}: {headings:?}"
    );
}

/// The commands `vox --help` lists (without `help`).
fn subcommands() -> Vec<String> {
    let (code, help, err) = vox_in(&repo(), &["--help"]);
    assert_eq!(code, 0, "{err}");
    let list: Vec<String> = help
        .split("Commands:\n")
        .nth(1)
        .expect("vox --help lists its commands")
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
        .collect();
    assert!(list.len() >= 8, "{help}");
    list
}

/// Issue 41 (man page): `vox man --out DIR` writes vox.1 and one page per command, rendered from
/// the clap definition; each is roff that groff formats without a warning (groff-base), and vox.1
/// names every command. Without groff, the `.TH`/`.SH` structure is checked alone.
#[test]
fn the_man_pages_cover_every_command() {
    let d = scratch();
    let dir = d.join("share/man/man1");
    let (code, out, err) = vox_in(&d, &["man", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let commands = subcommands();
    let mut pages = vec!["vox.1".to_string()];
    pages.extend(commands.iter().map(|c| format!("vox-{c}.1")));
    for page in &pages {
        assert!(
            out.lines().any(|l| l.ends_with(&format!("/{page}"))),
            "vox man does not name {page}: {out}"
        );
    }
    let groff = std::process::Command::new("groff")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    for page in &pages {
        let path = dir.join(page);
        let roff = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{page}: {e}"));
        let name = page.trim_end_matches(".1");
        let th = roff
            .lines()
            .find(|l| l.starts_with(".TH "))
            .unwrap_or_else(|| panic!("{page} has no .TH"));
        assert!(th.starts_with(&format!(".TH {name} 1 ")), "{page}: {th}");
        let sections: Vec<&str> = roff.lines().filter(|l| l.starts_with(".SH ")).collect();
        for s in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION"] {
            assert!(sections.contains(&s), "{page} lacks {s}: {sections:?}");
        }
        if !groff {
            continue;
        }
        let o = std::process::Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success() && stderr.is_empty(),
            "groff on {page}: {stderr}"
        );
        // Plain text (-P-cbou: no bold or underline); groff prints `\-` as a minus sign.
        let text = String::from_utf8_lossy(&o.stdout).replace(['\u{2212}', '\u{2010}'], "-");
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION"] {
            assert!(
                text.lines().any(|l| l.trim() == heading),
                "{page} renders no {heading}: {text}"
            );
        }
        if page == "vox.1" {
            for c in &commands {
                assert!(
                    text.contains(&format!("vox-{c}(1)")),
                    "vox.1 does not name vox-{c}(1): {text}"
                );
            }
        }
    }
    // Without --out, vox.1 goes to standard output.
    let (code, page, err) = vox_in(&d, &["man"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(page, std::fs::read_to_string(dir.join("vox.1")).unwrap());
    let readme = read("README.md");
    assert!(
        readme.contains("vox man --out ~/.local/share/man/man1"),
        "README.md"
    );
}

/// A JSON Schema document of the repository, ready to validate with.
fn schema(rel: &str) -> jsonschema::Validator {
    // The SARIF schema (draft-04) has one `pattern` with an unescaped `]`, a literal in ECMA-262
    // but rejected by the validator's regex check: escape it (same meaning), as lint_output does.
    let text = read(rel).replace("[a-zA-Z]{2}]?$", "[a-zA-Z]{2}\\\\]?$");
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

/// Issue 41 (item 4): `vox caps --check --format json` prints the findings as `vox lint --format
/// json` does (docs/schemas/lint.schema.json) and `--format sarif` as SARIF 2.1.0, the formats
/// README names; `--format sarif` without --check is a usage error.
#[test]
fn caps_check_prints_json_and_sarif() {
    let d = scratch();
    std::fs::create_dir_all(d.join("data")).unwrap();
    std::fs::write(d.join("data/in.txt"), "x").unwrap();
    std::fs::write(
        d.join("j.vox"),
        "print(fs.read(\"data/in.txt\").unwrap())\n",
    )
    .unwrap();
    std::fs::write(
        d.join("Vox.toml"),
        "[run.j]\nscript = \"j.vox\"\ncaps = [\"net:allow\"]\n",
    )
    .unwrap();
    let codes = |findings: Vec<&serde_json::Value>, key: &str| -> Vec<String> {
        findings
            .iter()
            .map(|f| f[key].as_str().unwrap().to_string())
            .collect()
    };
    let (code, out, err) = vox_in(&d, &["caps", "--check", "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let json: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let errors: Vec<String> = schema("docs/schemas/lint.schema.json")
        .iter_errors(&json)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let json_codes = codes(json.as_array().unwrap().iter().collect(), "code");
    assert!(json_codes.contains(&"C001".to_string()), "{json_codes:?}");
    let (code, out, err) = vox_in(&d, &["caps", "--check", "--format", "sarif"]);
    assert_eq!(code, 1, "{err}");
    let sarif: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let errors: Vec<String> = schema("tests/schemas/sarif-2.1.0-rtm.5.json")
        .iter_errors(&sarif)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(
        codes(results.iter().collect(), "ruleId"),
        json_codes,
        "the SARIF results are the JSON findings"
    );
    let (code, _, err) = vox_in(&d, &["caps", "j.vox", "--format", "sarif"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--format sarif"), "{err}");
    let readme = read("README.md");
    assert!(
        readme.contains("vox caps --check [PATHS...] [--format json|sarif]"),
        "README.md"
    );
}

/// Issue 41 (item 5): `vox caps FILE --format toml` run from another directory prints an entry
/// that, pasted into the Vox.toml that governs the script, runs it: `script` and `cwd` are
/// relative to that file's directory (the tokens to `cwd`), and a note names the file.
#[test]
fn the_caps_toml_entry_can_be_pasted_from_anywhere() {
    let d = scratch();
    let proj = d.join("proj");
    std::fs::create_dir_all(proj.join("scripts")).unwrap();
    std::fs::create_dir_all(proj.join("data")).unwrap();
    std::fs::create_dir_all(d.join("elsewhere")).unwrap();
    std::fs::write(proj.join("data/in.txt"), "read it").unwrap();
    // `job` is meant to run from d (the directory `vox caps` runs in), `job2` from proj.
    std::fs::write(
        proj.join("scripts/job.vox"),
        "print(fs.read(\"proj/data/in.txt\").unwrap())\n",
    )
    .unwrap();
    std::fs::write(
        proj.join("scripts/job2.vox"),
        "print(fs.read(\"data/in.txt\").unwrap())\n",
    )
    .unwrap();
    std::fs::write(proj.join("Vox.toml"), "# run configurations\n").unwrap();
    let paste = |table: &str| {
        let mut text = std::fs::read_to_string(proj.join("Vox.toml")).unwrap();
        text.push_str(table);
        std::fs::write(proj.join("Vox.toml"), text).unwrap();
    };
    let (code, table, err) = vox_in(&d, &["caps", "proj/scripts/job.vox", "--format", "toml"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        table.starts_with("[run.job]\nscript = \"scripts/job.vox\"\n"),
        "{table}"
    );
    assert!(
        err.contains("proj/Vox.toml") && err.contains("relative to proj/"),
        "{err}"
    );
    paste(&table);
    let elsewhere = d.join("elsewhere");
    let (code, table, err) = vox_in(
        &elsewhere,
        &[
            "caps",
            "../proj/scripts/job2.vox",
            "--cwd",
            "../proj",
            "--format",
            "toml",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        table,
        "[run.job2]\nscript = \"scripts/job2.vox\"\ncaps = [\"fs:ro=data\"]\n"
    );
    paste(&table);
    for (name, script) in [("job", "scripts/job.vox"), ("job2", "scripts/job2.vox")] {
        let script = format!("../proj/{script}");
        let (code, out, err) = vox_in(&elsewhere, &["run", "--config", name, &script]);
        assert_eq!(
            (code, out.as_str()),
            (0, "read it\n"),
            "{name}: {err}\nVox.toml:\n{}",
            read_at(&proj.join("Vox.toml"))
        );
    }
    let (code, out, err) = vox_in(&elsewhere, &["caps", "--check", "../proj"]);
    assert_eq!(code, 0, "{out}{err}");
    // With no Vox.toml yet, the entry is for one in the current directory when the script lies
    // below it.
    let solo = scratch();
    std::fs::create_dir_all(solo.join("s/data")).unwrap();
    std::fs::write(solo.join("s/data/in.txt"), "solo").unwrap();
    std::fs::write(
        solo.join("s/a.vox"),
        "print(fs.read(\"data/in.txt\").unwrap())\n",
    )
    .unwrap();
    let (code, table, err) = vox_in(
        &solo,
        &["caps", "s/a.vox", "--cwd", "s", "--format", "toml"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("create Vox.toml"), "{err}");
    std::fs::write(solo.join("Vox.toml"), &table).unwrap();
    let (code, out, err) = vox_in(&solo.join("s/data"), &["run", "--config", "a", "../a.vox"]);
    assert_eq!((code, out.as_str()), (0, "solo\n"), "{err}\n{table}");
}

fn read_at(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

/// Issue 41 (item 6): `vox run --help` (and `vox test --help`) names every token of
/// docs/caps.md's table, deny-style ones too, and points to docs/caps.md.
#[test]
fn run_help_lists_every_caps_token() {
    let caps = read("docs/caps.md");
    let table = caps
        .split("### Tokens\n")
        .nth(1)
        .expect("docs/caps.md has a Tokens table");
    let tokens: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .filter_map(|row| row.split('|').nth(1))
        .flat_map(|cell| cell.split('`').skip(1).step_by(2))
        .collect();
    assert!(tokens.len() >= 20, "{tokens:?}");
    for command in ["run", "test"] {
        let (code, help, err) = vox_in(&repo(), &[command, "--help"]);
        assert_eq!(code, 0, "{err}");
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for token in &tokens {
            let bare = token.trim_end_matches(|c: char| c.is_ascii_uppercase());
            assert!(
                help.contains(token) || (bare.ends_with(':') && help.contains(bare)),
                "vox {command} --help does not name `{token}`: {help}"
            );
        }
        assert!(help.contains("docs/caps.md"), "vox {command} --help");
    }
}

/// `vox run` is parsed by a parser that knows only `run` (start-up); its help must be the full
/// parser's (`vox help run` goes through that one), word for word, short and long.
#[test]
fn run_help_is_the_full_parsers() {
    let (code, full, err) = vox_in(&repo(), &["help", "run"]);
    assert_eq!(code, 0, "{err}");
    let (code, own, err) = vox_in(&repo(), &["run", "--help"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(own, full);
    let (_, top, _) = vox_in(&repo(), &["--help"]);
    let about = own.lines().next().unwrap_or_default();
    assert!(
        top.contains(&format!("run          {about}")),
        "vox --help lists run with another text than `{about}`:\n{top}"
    );
    let (code, short, _) = vox_in(&repo(), &["run", "-h"]);
    assert_eq!(code, 0);
    assert!(
        short.contains("Usage: vox run [OPTIONS] [FILE] [-- <ARGS>...]"),
        "{short}"
    );
}

/// Issue 41 (item 7): the project's home is stated once, as `repository` in Cargo.toml, and the
/// links to the rule pages, SARIF's `helpUri` and the language server's `codeDescription`,
/// start with it and name a page of docs/rules that exists; SARIF's `informationUri` is it.
#[test]
fn rule_links_start_with_the_stated_repository() {
    let root: toml::Table = read("Cargo.toml").parse().unwrap();
    let package = &root["workspace"]["package"];
    let home = package["repository"].as_str().expect("a repository field");
    assert_eq!(package["homepage"].as_str(), Some(home));
    assert!(
        read("README.md").contains(&format!("<{home}>")),
        "README.md"
    );
    let page = |link: &str| {
        let rel = link
            .strip_prefix(&format!("{home}/blob/main/"))
            .unwrap_or_else(|| panic!("{link} is not under {home}/blob/main/"));
        assert!(rel.starts_with("docs/rules/"), "{link}");
        assert!(repo().join(rel).is_file(), "{link}: no {rel} here");
    };
    let d = scratch();
    let text = "fn main() {\n    print(time.now_ms())\n}\n";
    std::fs::write(d.join("clock.vox"), text).unwrap();
    let (code, out, err) = vox_in(&d, &["lint", "--format", "sarif", "clock.vox"]);
    assert_eq!(code, 0, "{err}");
    let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
    let driver = &sarif["runs"][0]["tool"]["driver"];
    assert_eq!(driver["informationUri"].as_str(), Some(home));
    let rules = driver["rules"].as_array().unwrap();
    assert!(!rules.is_empty(), "{out}");
    for r in rules {
        page(r["helpUri"].as_str().unwrap());
    }
    let ws = lsp_common::TempDir::new("home");
    let script = ws.write("clock.vox", text);
    let mut lsp = lsp_common::Lsp::start(&ws.0, "neovim");
    lsp.open(&script, text);
    let diags = lsp.diagnostics(&script);
    assert!(!diags.is_empty());
    for d in &diags {
        page(d["codeDescription"]["href"].as_str().unwrap());
    }
    assert_eq!(lsp.shutdown(), Some(0));
}
