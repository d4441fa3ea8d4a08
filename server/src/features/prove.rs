//! "Prove it" (`vox.prove`, issue 21): on a finding whose effect depends on a choice the language
//! leaves open (D002 map order, D003 the clock, D006 the random seed, D007 directory order), a code
//! action and a code lens run the script twice, with `--perturb 1` and `--perturb 2` (runtime.md §5),
//! and compare the two outputs.
//!
//! The runs are `vox run` children planned exactly as `vox.run` plans them ([`runs::plan`]): the
//! run configuration's caps and ceilings (or the inferred caps when the script has none), never
//! more, and the same refusals. Each run's stdout and stderr share one pipe, so the captured text
//! is what a terminal shows, in order. The result is the command's answer (JSON, for the clients
//! that show a diff) and, for every other client, a `window/showMessage` with the first differing
//! line side by side plus a `window/logMessage` with both outputs.

use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_lints::Finding;
use vox_syntax::TextRange;

use super::runs::{self, Plan};
use crate::base::{internal, invalid_params, lock};
use crate::convert::{self, admits};
use crate::diagnostics::{to_diagnostic, Ropes};
use crate::session::Snapshot;
use crate::state::{Backend, Shared};

/// The code action kind: a source action of this server (like `source.fixAll.vox`), not a quick
/// fix: it changes nothing, it runs the script.
pub const KIND: &str = "source.prove.vox";
pub const TITLE: &str = "Prove: run twice with different perturbation";
pub const COMMAND: &str = "vox.prove";
/// The rules whose source `--perturb` varies.
pub const RULES: [&str; 4] = ["D002", "D003", "D006", "D007"];
const SEEDS: [u64; 2] = [1, 2];
/// What is kept of each run's output (stdout and stderr together).
const MAX_CAPTURE: usize = 1 << 20;
/// Lines of each output copied into the log message.
const MAX_LOG_LINES: usize = 200;

fn provable(f: &Finding, path: &Path) -> bool {
    f.file == path && RULES.contains(&f.code.as_str())
}

/// The 1-based line of a finding.
fn line_of(snap: &Snapshot, f: &Finding) -> u32 {
    convert::position(&snap.rope(&f.file), convert::Encoding::Utf8, f.range.start).line + 1
}

fn arguments(uri: &str, f: &Finding, line: u32) -> Value {
    json!({ "uri": uri, "rule": f.code.as_str(), "line": line })
}

/// One lens per line holding a D002, D003, D006 or D007 finding of the script.
pub fn lenses(snap: &Snapshot, path: &Path, uri: &str) -> Vec<CodeLens> {
    let mut out: Vec<CodeLens> = Vec::new();
    let mut lines = std::collections::BTreeSet::new();
    for f in snap.findings(path).iter().filter(|f| provable(f, path)) {
        let line = line_of(snap, f);
        if !lines.insert(line) {
            continue;
        }
        let at = Position::new(line - 1, 0);
        out.push(CodeLens {
            range: Range::new(at, at),
            command: Some(Command {
                title: TITLE.into(),
                command: COMMAND.into(),
                arguments: Some(vec![arguments(uri, f, line)]),
            }),
            data: None,
        });
    }
    out
}

/// The "Prove" action of each D002/D003/D006/D007 finding on the lines of `range`.
pub fn actions(
    snap: &Snapshot,
    path: &Path,
    uri: &str,
    findings: &[std::sync::Arc<Finding>],
    range: TextRange,
    only: Option<&[CodeActionKind]>,
    ropes: &mut Ropes<'_>,
) -> Vec<CodeActionOrCommand> {
    if !admits(only, KIND) {
        return Vec::new();
    }
    // Anywhere on the finding's lines (a cursor at the start of the line asks for an empty range there).
    let rope = snap.rope(path);
    let line = |b: u32| rope.byte_to_line((b as usize).min(rope.len_bytes()));
    let (from, to) = (line(range.start), line(range.end));
    findings
        .iter()
        .filter(|f| provable(f, path))
        .filter(|f| line(f.range.start) <= to && from <= line(f.range.end))
        .map(|f| {
            let line = line_of(snap, f);
            CodeActionOrCommand::CodeAction(CodeAction {
                title: TITLE.into(),
                kind: Some(CodeActionKind::new(KIND)),
                diagnostics: Some(vec![to_diagnostic(f, ropes)]),
                command: Some(Command {
                    title: TITLE.into(),
                    command: COMMAND.into(),
                    arguments: Some(vec![arguments(uri, f, line)]),
                }),
                ..CodeAction::default()
            })
        })
        .collect()
}

/// One perturbed run.
struct Outcome {
    seed: u64,
    exit: i32,
    output: String,
    truncated: bool,
    command: String,
}

impl Outcome {
    fn json(&self) -> Value {
        json!({
            "seed": self.seed,
            "exit": self.exit,
            "output": self.output,
            "truncated": self.truncated,
            "command": self.command,
        })
    }
}

/// The plan's arguments for a human-readable run with `--perturb SEED`: what `vox run --perturb
/// SEED …` prints in a terminal.
fn perturbed_args(plan: &Plan, seed: u64) -> Result<Vec<String>> {
    let mut args = plan.args.clone();
    if args.first().map(String::as_str) != Some("run") {
        return Err(internal(
            "vox.prove: the run plan is not a `vox run` command",
        ));
    }
    if let Some(i) = args.iter().position(|a| a == "--error-format") {
        if args.get(i + 1).is_some_and(|v| v == "json") {
            args.drain(i..i + 2);
        }
    }
    args.splice(1..1, ["--perturb".to_string(), seed.to_string()]);
    Ok(args)
}

/// A shell-like rendering of a command line, for the log and the result.
fn shown(args: &[String]) -> String {
    let mut out = String::from("vox");
    for a in args {
        out.push(' ');
        if !a.is_empty()
            && a.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,+@%".contains(&b))
        {
            out.push_str(a);
        } else {
            out.push('\'');
            out.push_str(&a.replace('\'', "'\\''"));
            out.push('\'');
        }
    }
    out
}

/// Ends a tracked run that is given up (the request was cancelled, or the server is leaving).
struct Tracked {
    shared: Arc<Shared>,
    id: u64,
    done: bool,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let sig = (!self.done).then_some(libc::SIGTERM);
        self.shared.runs.untrack(self.id, sig);
    }
}

/// Runs `vox ARGS` to its end and captures stdout and stderr through one pipe.
async fn run_once(backend: &Backend, plan: &Plan, seed: u64) -> Result<Outcome> {
    let args = perturbed_args(plan, seed)?;
    let (reader, writer) =
        std::io::pipe().map_err(|e| internal(format!("vox.prove: cannot create a pipe: {e}")))?;
    let writer2 = writer
        .try_clone()
        .map_err(|e| internal(format!("vox.prove: cannot create a pipe: {e}")))?;
    let mut cmd = runs::child_command(&args, &plan.cwd)?;
    cmd.stdout(writer).stderr(writer2);
    let spawned = cmd.spawn();
    // The command holds the pipe's write ends: without dropping it, the reader never sees the end.
    drop(cmd);
    let mut child = spawned
        .map_err(|e| internal(format!("vox.prove: cannot start `{}`: {e}", shown(&args))))?;
    let pgid = child.id().map_or(0, |p| p as i32);
    let mut tracked = Tracked {
        shared: backend.shared.clone(),
        id: backend.shared.runs.track(pgid),
        done: false,
    };
    let captured = Arc::new(Mutex::new((Vec::<u8>::new(), false)));
    let sink = captured.clone();
    let reading = tokio::task::spawn_blocking(move || {
        let mut reader = reader;
        let mut buf = vec![0u8; 16 << 10];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let mut c = lock(&sink);
            let room = MAX_CAPTURE.saturating_sub(c.0.len());
            if n > room {
                c.1 = true;
            }
            c.0.extend_from_slice(&buf[..n.min(room)]);
        }
    });
    let status = child.wait().await;
    tracked.done = true;
    drop(tracked);
    // Background children the script left may hold the pipe: do not wait for them long.
    let _ = tokio::time::timeout(std::time::Duration::from_millis(500), reading).await;
    let exit = match status {
        Ok(s) => {
            use std::os::unix::process::ExitStatusExt;
            s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0))
        }
        Err(e) => {
            return Err(internal(format!(
                "vox.prove: waiting for `{}` failed: {e}",
                shown(&args)
            )))
        }
    };
    let (bytes, truncated) = std::mem::take(&mut *lock(&captured));
    Ok(Outcome {
        seed,
        exit,
        output: String::from_utf8_lossy(&bytes).into_owned(),
        truncated,
        command: shown(&args),
    })
}

/// The lines of an output (a last line without its newline counts).
fn lines(s: &str) -> Vec<&str> {
    s.split_terminator('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// The first line (0-based) where two outputs differ, with each side's text there (`None`: that
/// output had ended).
fn first_difference<'a>(
    a: &'a str,
    b: &'a str,
) -> Option<(usize, Option<&'a str>, Option<&'a str>)> {
    let (la, lb) = (lines(a), lines(b));
    (0..la.len().max(lb.len()))
        .find(|&i| la.get(i) != lb.get(i))
        .map(|i| (i, la.get(i).copied(), lb.get(i).copied()))
}

fn side(text: Option<&str>) -> String {
    match text {
        Some(t) => format!("{t:?}"),
        None => "(no such line: the output ended)".into(),
    }
}

fn exit_note(code: i32) -> &'static str {
    match code {
        77 => " (a capability was denied)",
        78 => " (a ceiling was reached)",
        79 => " (memory limit exceeded)",
        101 => " (internal error in vox)",
        _ => "",
    }
}

pub async fn execute(backend: &Backend, params: ExecuteCommandParams) -> Result<Option<Value>> {
    let obj = runs::arg_obj(&params)?;
    let path = runs::arg_path(obj)?;
    let config = runs::arg_config(obj)?;
    let rule = obj.get("rule").and_then(Value::as_str).map(str::to_string);
    if let Some(r) = &rule {
        if !RULES.contains(&r.as_str()) {
            return Err(invalid_params(format!(
                "vox.prove: rule {r:?} is not one --perturb varies (it proves {})",
                RULES.join(", ")
            )));
        }
    }
    let finding_line = obj.get("line").and_then(Value::as_u64);
    let p2 = path.clone();
    let plan = backend
        .on_snapshot("prove", Some(path.clone()), move |snap| {
            runs::plan(snap, &p2, config.as_deref(), None)
        })
        .await?;
    // One after the other: a script that writes files must not race its twin.
    let first = run_once(backend, &plan, SEEDS[0]).await?;
    let second = run_once(backend, &plan, SEEDS[1]).await?;

    let name = path
        .file_name()
        .map_or_else(|| path.to_string_lossy(), |n| n.to_string_lossy())
        .into_owned();
    let finding = match (&rule, finding_line) {
        (Some(r), Some(l)) => format!("the {r} finding at line {l}"),
        (Some(r), None) => format!("the {r} finding"),
        (None, Some(l)) => format!("the finding at line {l}"),
        (None, None) => "the script's determinism findings".into(),
    };
    let runs_with = match &plan.config {
        Some(c) => format!("run configuration `{}`", c.name),
        None => "the inferred capabilities".into(),
    };
    let caps_shown = if plan.caps.is_empty() {
        "none".to_string()
    } else {
        plan.caps.join(" ")
    };
    let diff = first_difference(&first.output, &second.output);
    let differs = diff.is_some() || first.exit != second.exit;
    let message = match diff {
        Some((i, a, b)) => format!(
            "vox prove {name}: the two runs differ at output line {line}, so {finding} is real.\n  \
             line {line}, run 1 (--perturb 1): {}\n  \
             line {line}, run 2 (--perturb 2): {}",
            side(a),
            side(b),
            line = i + 1,
        ),
        None if first.exit != second.exit => format!(
            "vox prove {name}: both runs printed the same output, but run 1 (--perturb 1) exited with \
             {}{} and run 2 (--perturb 2) with {}{}: {finding} changes how the script ends.",
            first.exit,
            exit_note(first.exit),
            second.exit,
            exit_note(second.exit)
        ),
        None => {
            let n = lines(&first.output).len();
            let mut m = format!(
                "vox prove {name}: both runs printed the same output ({n} line{}, exit {}{}): the \
                 perturbation did not reach {finding}. This does not show the script deterministic, \
                 only that these two runs did not expose it.",
                if n == 1 { "" } else { "s" },
                first.exit,
                exit_note(first.exit),
            );
            if first.exit == 77 {
                m.push_str(&format!(
                    " Both runs were denied a capability ({runs_with} grants: {caps_shown}) and may \
                     have stopped before the finding: grant what the script needs to let it get there."
                ));
            }
            m
        }
    };
    let kind = if differs {
        MessageType::WARNING
    } else {
        MessageType::INFO
    };
    backend.client.show_message(kind, message.clone()).await;
    let mut log = format!(
        "{message}\nBoth runs used {runs_with} (caps: {caps_shown}) from {}.\n",
        plan.cwd.display()
    );
    for o in [&first, &second] {
        let ls = lines(&o.output);
        log.push_str(&format!(
            "--- run {} `{}`: exit {}{}, {} line{} of output{}\n",
            if o.seed == SEEDS[0] { 1 } else { 2 },
            o.command,
            o.exit,
            exit_note(o.exit),
            ls.len(),
            if ls.len() == 1 { "" } else { "s" },
            if o.truncated {
                format!(" (cut at {} KiB)", MAX_CAPTURE >> 10)
            } else {
                String::new()
            }
        ));
        for l in ls.iter().take(MAX_LOG_LINES) {
            log.push_str(l);
            log.push('\n');
        }
        if ls.len() > MAX_LOG_LINES {
            log.push_str(&format!("… {} more lines\n", ls.len() - MAX_LOG_LINES));
        }
    }
    backend.client.log_message(kind, log).await;
    Ok(Some(json!({
        "differs": differs,
        "line": diff.map(|(i, _, _)| i + 1),
        "first": diff.and_then(|(_, a, _)| a),
        "second": diff.and_then(|(_, _, b)| b),
        "run1": first.json(),
        "run2": second.json(),
        "script": path.to_string_lossy(),
        "rule": rule,
        "findingLine": finding_line,
        "config": plan.config.as_ref().map(|c| c.name.clone()),
        "caps": plan.caps,
        "message": message,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 41 item 2: 79 is the memory ceiling (runtime.md's exit codes); a timeout is 78.
    #[test]
    fn exit_notes_name_what_the_codes_mean() {
        assert_eq!(exit_note(79), " (memory limit exceeded)");
        assert_eq!(exit_note(78), " (a ceiling was reached)");
        assert_eq!(exit_note(77), " (a capability was denied)");
    }

    #[test]
    fn first_difference_finds_the_line_and_the_ended_side() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(
            first_difference("a\nb\nc\n", "a\nx\nc\n"),
            Some((1, Some("b"), Some("x")))
        );
        assert_eq!(
            first_difference("a\n", "a\nb\n"),
            Some((1, None, Some("b")))
        );
        assert_eq!(first_difference("a\r\n", "a\n"), None);
    }

    #[test]
    fn kinds_filter_hierarchically() {
        assert!(admits(None, KIND));
        for w in ["source", "source.prove", KIND] {
            assert!(admits(Some(&[CodeActionKind::new(w)]), KIND), "{w}");
        }
        for w in [
            "quickfix",
            "refactor",
            "source.fixAll",
            "source.prove.vox.more",
            "sourc",
        ] {
            assert!(!admits(Some(&[CodeActionKind::new(w)]), KIND), "{w}");
        }
    }
}
