//! A shell session as the docs show one (a ` ```console ` block): `$ ` lines are commands, the
//! lines after one are what it prints (stdout, then stderr); `$ echo $?` shows the status of the
//! command before it. Run with bash in a directory, with the built `vox` first on `PATH`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::scratch;

/// One command of a console block and what the page says it prints.
pub struct Step {
    pub command: String,
    pub want: String,
}

pub fn steps(console: &str) -> Vec<Step> {
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
    std::os::unix::fs::symlink(super::vox_bin(), dir.join("vox")).unwrap();
    dir
}

/// Runs the steps in `dir` with one bash, each step's stdout and stderr captured apart; returns
/// what each printed (stdout, then stderr) and its status.
pub fn run_steps(dir: &Path, steps: &[Step]) -> Vec<(String, i32)> {
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
pub fn compare(at: &str, dir: &Path, steps: &[Step], got: &[(String, i32)]) -> Result<(), String> {
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
pub fn matches(want: &str, got: &str) -> bool {
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
