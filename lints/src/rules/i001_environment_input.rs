//! I001 environment-input: `env.get`, `env.args`, `fs.cwd`, `process.cwd` read the machine's
//! environment, arguments or working directory: the output depends on where the script runs.
//! Opt-in (`--select I`, `--strict`).

use crate::context::FileCx;
use crate::finding::Finding;

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    super::inputs::report(
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
