//! I002 process-output: the output or exit status of a child (`process.run`, `spawn`, `run_ex`,
//! `run_capture*`): the script's output then depends on that program and its version.
//! Opt-in (`--select I`, `--strict`).

use crate::context::FileCx;
use crate::finding::Finding;

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    super::inputs::report(
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
