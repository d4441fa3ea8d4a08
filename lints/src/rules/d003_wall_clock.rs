//! D003 wall-clock: `time.now_ms()`, `time.now()`, `time.monotonic_ms()`, and reads of
//! `modified_ms` from `fs.stat`/`fs.list_dir_detailed`: values that differ on every run and
//! every checkout. Not reported when every run configuration of the script pins
//! `time:frozen=` (decision 30). Fix: add `time:frozen=0` to the run configuration, or take the
//! time as an argument.

use super::sites::{each_site, W};
use crate::context::FileCx;
use crate::finding::Finding;

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    if super::caps_check::pinned_by_every_run(cx, "time:frozen=") {
        return;
    }
    each_site(
        cx,
        out,
        |s| s.ns() == "time" && matches!(s.name(), "now_ms" | "now" | "monotonic_ms"),
        |s, range| {
            let mut f = cx.finding(
                "D003",
                W,
                range,
                format!(
                    "`{}()` reads the clock: its value differs on every run",
                    s.builtin
                ),
            );
            f.help = Some(
                "add `time:frozen=0` to the script's run configuration, or take the time as an argument"
                    .into(),
            );
            super::caps_check::pin_fixes(cx, &mut f, "time", "time:frozen=0");
            f
        },
    );
    for (f, facts, base) in cx.functions() {
        if facts.mtime_reads.is_empty() {
            continue;
        }
        let steps = cx.chain_to(f);
        for r in &facts.mtime_reads {
            let mut finding = cx.finding(
                "D003",
                W,
                cx.abs(base, *r),
                "`modified_ms` is a file time: it differs between checkouts and machines",
            );
            finding.help = Some("compare contents or use a version recorded in the file".into());
            super::sites::attach_chain(cx, &mut finding, &steps, f);
            out.push(finding);
        }
    }
}
