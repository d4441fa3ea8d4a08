//! I001–I004: inputs from outside the script (opt-in with `--select I`; `--strict`).
//! I001 environment-input: `env.get`, `env.args`, `fs.cwd`, `process.cwd`.
//! I002 process-output: output or exit codes of child processes (`process.run`, `spawn`,
//! `run_ex`, `run_capture*`).
//! I003 network-input: `http.*`. I004 secret-input: `secrets.*`.
//! Each makes the output depend on the machine or moment the script runs on.

use super::sites::{each_site, qualified, W};
use crate::{FileCx, Finding};

fn report(
    cx: &FileCx<'_>,
    out: &mut Vec<Finding>,
    code: &'static str,
    what: &'static str,
    pred: fn(&str, &str) -> bool,
) {
    each_site(
        cx,
        out,
        |s| pred(s.ns, s.name),
        |s, range| cx.finding(code, W, range, format!("`{}` {what}", qualified(s))),
    );
}

pub fn check_i001(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    report(
        cx,
        out,
        "I001",
        "reads the environment: the output depends on where the script runs",
        |ns, n| {
            matches!(
                (ns, n),
                ("env", "get" | "args") | ("fs", "cwd") | ("process", "cwd")
            )
        },
    );
}

pub fn check_i002(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    report(
        cx,
        out,
        "I002",
        "takes a child process's output or exit status: the output depends on that program",
        |ns, n| {
            ns == "process"
                && matches!(
                    n,
                    "run"
                        | "spawn"
                        | "run_ex"
                        | "run_capture"
                        | "run_capture_ex"
                        | "run_capture_lines"
                        | "run_capture_json"
                )
        },
    );
}

pub fn check_i003(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    report(
        cx,
        out,
        "I003",
        "reads from the network: the output depends on the server's answer",
        |ns, _| ns == "http",
    );
}

pub fn check_i004(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    report(
        cx,
        out,
        "I004",
        "reads a secret: the output depends on the machine's secrets",
        |ns, _| ns == "secrets",
    );
}
