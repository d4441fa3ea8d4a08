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
use std::process::Command;

mod common;
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

/// One command of a console block and what the page says it prints.
struct Step {
    command: String,
    want: String,
}

fn steps(console: &str) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for line in console.lines() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Step {
                command: cmd.to_string(),
                want: String::new(),
            });
        } else if let Some(step) = out.last_mut() {
            step.want.push_str(line);
            step.want.push('\n');
        }
    }
    out
}

/// A directory with `vox` in it (the binary under test), for `PATH`.
fn bin_dir() -> PathBuf {
    let dir = scratch();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_vox"), dir.join("vox")).unwrap();
    dir
}

/// Runs the steps in `dir` with one bash, each step's stdout and stderr captured apart; returns
/// what each printed (stdout, then stderr) and its status.
fn run_steps(dir: &Path, steps: &[Step]) -> Vec<(String, i32)> {
    let bin = bin_dir();
    let capture = scratch();
    let mut script = String::from("set +e\n");
    for (i, s) in steps.iter().enumerate() {
        let c = capture.display();
        script.push_str(&format!(
            "{{ {}\n}} >{c}/{i}.out 2>{c}/{i}.err </dev/null\n__docs_status=$?; echo $__docs_status >{c}/{i}.status; (exit $__docs_status)\n",
            s.command
        ));
    }
    script.push_str("exit 0\n");
    let status = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir)
        .env_clear()
        .env(
            "PATH",
            format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
        )
        .env("HOME", dir)
        .env("LANG", "C.UTF-8")
        .status()
        .unwrap();
    assert!(status.success(), "bash itself failed in {}", dir.display());
    let read = |name: String| std::fs::read_to_string(capture.join(name)).unwrap_or_default();
    let out = (0..steps.len())
        .map(|i| {
            let printed = read(format!("{i}.out")) + &read(format!("{i}.err"));
            let code = read(format!("{i}.status")).trim().parse().unwrap_or(-1);
            (printed, code)
        })
        .collect();
    let _ = std::fs::remove_dir_all(&bin);
    let _ = std::fs::remove_dir_all(&capture);
    out
}

/// Checks a console block's steps against what they printed; `at` names the block.
fn compare(at: &str, dir: &Path, steps: &[Step], got: &[(String, i32)]) -> Result<(), String> {
    for (i, (step, (printed, code))) in steps.iter().zip(got).enumerate() {
        let shows_status = steps
            .get(i + 1)
            .is_some_and(|next| next.command.trim() == "echo $?");
        if *code != 0 && !shows_status {
            return Err(format!(
                "{at}: `{}` exited {code} in {}; a page shows a failing command with `$ echo $?` after it\n--- printed\n{printed}",
                step.command,
                dir.display()
            ));
        }
        let printed = printed.replace(&dir.display().to_string(), "$PWD");
        if !matches(&step.want, &printed) {
            return Err(format!(
                "{at}: `{}` in {}\n--- the page shows\n{}--- it printed\n{printed}--- as text\n{:?}\n{printed:?}",
                step.command,
                dir.display(),
                step.want,
                step.want
            ));
        }
    }
    Ok(())
}

/// Whether `got` is what the page shows: line by line, where a line `...` stands for any number
/// of lines (a long report shown in part).
fn matches(want: &str, got: &str) -> bool {
    fn go(w: &[&str], g: &[&str]) -> bool {
        match w.split_first() {
            None => g.is_empty(),
            Some((&"...", rest)) => (0..=g.len()).any(|k| go(rest, &g[k..])),
            Some((line, rest)) => g.first() == Some(line) && go(rest, &g[1..]),
        }
    }
    let w: Vec<&str> = want.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    want.ends_with('\n') == got.ends_with('\n') && go(&w, &g) || want.is_empty() && got.is_empty()
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
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_vox"), t.join("vox")).unwrap();
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
