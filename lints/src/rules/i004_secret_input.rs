//! I004 secret-input: `secrets.*` values differ between machines (and must not reach output).
//! Opt-in (`--select I`, `--strict`).

use crate::context::FileCx;
use crate::finding::Finding;

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    super::inputs::report(
        cx,
        out,
        "I004",
        "reads a secret: the output depends on the machine's secrets",
        |ns, _| ns == "secrets",
    );
}
