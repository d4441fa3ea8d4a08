//! I003 network-input: `http.*` answers depend on a server and the moment of the request.
//! Opt-in (`--select I`, `--strict`).

use crate::context::FileCx;
use crate::finding::Finding;

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    super::inputs::report(
        cx,
        out,
        "I003",
        "reads from the network: the output depends on the server's answer",
        |ns, _| ns == "http",
    );
}
