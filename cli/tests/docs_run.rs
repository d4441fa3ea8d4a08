//! The documentation runs as written. Every page a user reads (README.md, ARCHITECTURE.md,
//! docs/**/*.md, the editor READMEs) is checked the way a newcomer would use it:
//!
//! - a ` ```vox ` block is followed by a ` ```console ` block whose first command names the file
//!   the block is saved as (`$ vox run --caps fs:ro=. example.vox`);
//! - a ` ```console ` block is a shell session: lines starting with `$ ` are commands, run in order
//!   by bash, and the lines after one are exactly what it prints (stdout, then stderr).
//!   A line `...` stands for any number of lines, and the run directory's path prints as `$PWD`.
//!   `$ echo $?` shows the status of the command before it; any other command must exit 0. A
//!   block after a `vox` block runs in a fresh directory holding only the script; any other
//!   block runs from the repository root the pages imply (a copy of `examples/`, with the built
//!   `vox` on `PATH` and at `./target/release/vox`);
//! - a ` ```sh ` block shows commands that are not run here (builds, installs, editors, network,
//!   host-dependent reports); a `vox` command in one that could run (all its files exist) must be
//!   a `console` block instead, so nothing runnable escapes the check.
//!
//! Each run has only `PATH`, `HOME` (the run directory) and `LANG=C.UTF-8` in its environment,
//! plus the `NAME=VALUE` assignments a command writes before `vox`.

use std::path::{Path, PathBuf};

mod common;
use common::session::{compare, matches, run_steps, steps, Step};
use common::{copy_tree, scratch};

/// A fenced code block: its info string, text, and the line of its opening fence.
struct Block {
    info: String,
    text: String,
    line: usize,
}

fn code_blocks(md: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(Block, String)> = None;
    for (i, line) in md.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let indent = line[..line.len() - trimmed.len()].to_string();
                    let block = Block {
                        info: info.trim().to_string(),
                        text: String::new(),
                        line: i + 1,
                    };
                    open = Some((block, indent));
                }
            }
            Some((block, indent)) => {
                if trimmed.starts_with("```") {
                    out.push(open.take().unwrap().0);
                } else {
                    block
                        .text
                        .push_str(line.strip_prefix(indent.as_str()).unwrap_or(line));
                    block.text.push('\n');
                }
            }
        }
    }
    out
}

/// The `.vox` file the first command of a console block names (where its `vox` block is saved).
fn script_name(steps: &[Step]) -> Option<String> {
    steps
        .first()?
        .command
        .split_whitespace()
        .find(|w| w.ends_with(".vox"))
        .map(String::from)
}

/// A fresh copy of the repository root as the pages imply it: `examples/`, and the built `vox`
/// where the README's build puts it.
fn repo_copy() -> PathBuf {
    let ws = common::repo_root();
    let dir = scratch();
    copy_tree(&ws.join("examples"), &dir.join("examples"));
    for profile in ["release", "debug"] {
        let t = dir.join("target").join(profile);
        std::fs::create_dir_all(&t).unwrap();
        std::os::unix::fs::symlink(common::vox_bin(), t.join("vox")).unwrap();
    }
    dir
}

/// Whether a `vox` command in an `sh` block could run here as written: a subcommand whose output
/// does not depend on the host or wait on input, and every file it names exists under `root` (the
/// repository root as the pages imply it).
fn could_run(line: &str, root: &Path) -> bool {
    let line = line.split(" #").next().unwrap_or(line);
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(at) = words
        .iter()
        .position(|w| *w == "vox" || w.ends_with("/vox"))
    else {
        return false;
    };
    let rest = &words[at + 1..];
    let sub = rest.first().copied().unwrap_or("");
    if matches!(sub, "lsp" | "doctor" | "completions" | "man" | "--version") {
        return false;
    }
    let files: Vec<&&str> = rest
        .iter()
        .filter(|w| w.ends_with(".vox") || w.ends_with('/'))
        .collect();
    !files.is_empty() && files.iter().all(|f| root.join(f).exists())
}

#[test]
fn every_code_block_in_the_docs_runs_as_shown() {
    let ws = common::repo_root();
    let root = repo_copy();
    let mut failures = Vec::new();
    let (mut scripts, mut sessions) = (0, 0);
    for page in common::doc_pages() {
        let rel = page.strip_prefix(&ws).unwrap().display().to_string();
        let md = std::fs::read_to_string(&page).unwrap();
        let blocks = code_blocks(&md);
        let mut after_vox = false;
        for (i, b) in blocks.iter().enumerate() {
            let at = format!("{rel}:{}", b.line);
            let follows_vox = std::mem::take(&mut after_vox);
            match b.info.as_str() {
                "vox" => {
                    let Some(next) = blocks.get(i + 1).filter(|n| n.info == "console") else {
                        failures.push(format!(
                            "{at}: a `vox` block needs a `console` block after it that runs it"
                        ));
                        continue;
                    };
                    let st = steps(&next.text);
                    let Some(name) = script_name(&st) else {
                        failures.push(format!(
                            "{rel}:{}: the first command must name the `.vox` file the block above is saved as",
                            next.line
                        ));
                        continue;
                    };
                    if let Some(h) = b.text.lines().next().filter(|l| {
                        ["// caps:", "// env:", "// exit:", "// args:"]
                            .iter()
                            .any(|p| l.starts_with(p))
                    }) {
                        failures.push(format!(
                            "{at}: `{h}` is a test-harness header; show the setting on the command instead"
                        ));
                    }
                    let dir = scratch();
                    std::fs::write(dir.join(&name), &b.text).unwrap();
                    let got = run_steps(&dir, &st);
                    match compare(&format!("{rel}:{}", next.line), &dir, &st, &got) {
                        Ok(()) => {
                            scripts += 1;
                            let _ = std::fs::remove_dir_all(&dir);
                        }
                        Err(e) => failures.push(e),
                    }
                    after_vox = true;
                }
                "console" if !follows_vox => {
                    let st = steps(&b.text);
                    if st.is_empty() {
                        failures.push(format!("{at}: a console block needs `$ ` command lines"));
                        continue;
                    }
                    let dir = repo_copy();
                    let got = run_steps(&dir, &st);
                    match compare(&at, &dir, &st, &got) {
                        Ok(()) => {
                            sessions += 1;
                            let _ = std::fs::remove_dir_all(&dir);
                        }
                        Err(e) => failures.push(e),
                    }
                }
                "sh" | "bash" | "shell" => {
                    for line in b.text.lines() {
                        if could_run(line, &root) {
                            failures.push(format!(
                                "{at}: `{}` can run here: show it in a `console` block with what it prints",
                                line.trim()
                            ));
                        }
                    }
                }
                "output" => failures.push(format!(
                    "{at}: an `output` block does not say how it was produced; use a `console` block with the command"
                )),
                _ => {
                    let looks_like_vox = b.text.lines().any(|l| {
                        let l = l.trim_start();
                        l.starts_with("let ") || l.starts_with("fn ") || l.starts_with("print(")
                    });
                    // Rust (the Zed extension in editors.md) has `fn` and `let` too.
                    if looks_like_vox && b.info != "rust" && b.info != "console" {
                        failures.push(format!("{at}: VoxScript in a block not tagged `vox`"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        scripts >= 40 && sessions >= 1,
        "{scripts} scripts, {sessions} sessions"
    );
    println!("{scripts} scripts and {sessions} shell sessions ran as the docs show them");
}

#[test]
fn a_console_block_is_split_into_commands_and_what_they_print() {
    let st = steps("$ vox run a.vox\nhello\n\n$ echo $?\n0\n");
    assert_eq!(st.len(), 2);
    assert_eq!(st[0].command, "vox run a.vox");
    assert_eq!(st[0].want, "hello\n\n");
    assert_eq!(st[1].want, "0\n");
    assert_eq!(script_name(&st).as_deref(), Some("a.vox"));
}

#[test]
fn an_ellipsis_line_stands_for_any_lines_and_nothing_else_differs() {
    assert!(matches("a\n...\nd\n", "a\nb\nc\nd\n"));
    assert!(matches("a\n...\nd\n", "a\nd\n"));
    assert!(!matches("a\n...\nd\n", "a\nb\n"));
    assert!(!matches("a\nb\n", "a\nc\n"));
    assert!(!matches("a\n", "a\nb\n"));
    assert!(matches("", ""));
    assert!(!matches("", "x\n"));
}

#[test]
fn a_wrong_output_or_an_unshown_failure_is_reported() {
    let dir = scratch();
    let st = steps("$ echo hi\nhello\n");
    let got = run_steps(&dir, &st);
    assert!(compare("x", &dir, &st, &got).is_err());
    let st = steps("$ false\n");
    let got = run_steps(&dir, &st);
    assert!(compare("x", &dir, &st, &got).is_err());
    let st = steps("$ false\n$ echo $?\n1\n$ echo hi >&2\nhi\n");
    let got = run_steps(&dir, &st);
    assert!(compare("x", &dir, &st, &got).is_ok());
}
