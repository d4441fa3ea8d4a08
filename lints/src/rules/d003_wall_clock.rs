//! D003 wall-clock: `time.now_ms()`, `time.now()`, `time.monotonic_ms()`, and reads of
//! `modified_ms` from `fs.stat`/`fs.list_dir_detailed`: values that differ on every run and
//! every checkout. Not reported when every run configuration of the script pins
//! `time:frozen=` (decision 30). Fix: add `time:frozen=0` to the run configuration, or take the
//! time as an argument.

use super::sites::{each_site, qualified, W};
use crate::{FileCx, Finding};

/// One fix per run configuration of the script that does not pin the stream yet: replace its
/// `NAMESPACE:*` tokens with `token`. Unsafe: the run then sees another clock (or stream).
pub(super) fn pin_fixes(cx: &FileCx<'_>, f: &mut Finding, namespace: &str, token: &str) {
    // `time:frozen=0` pins with `time:frozen=`, `random:seed=0` with `random:seed=`.
    let pins = &token[..token.find('=').map_or(token.len(), |i| i + 1)];
    for run in cx.runs() {
        let pinned = run
            .caps
            .iter()
            .flatten()
            .any(|t| t.starts_with(pins) || t == "deterministic");
        if pinned {
            continue;
        }
        let caps = super::caps_check::with_pinned(run, namespace, token);
        if let Some(fix) = super::caps_check::config_fix(
            cx,
            run,
            &caps,
            format!("Add `{token}` to run configuration `{}`", run.name),
            crate::Applicability::Unsafe,
        ) {
            f.fixes.push(fix);
        }
    }
}

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    if super::caps_check::pinned_by_every_run(cx, "time:frozen=") {
        return;
    }
    each_site(
        cx,
        out,
        |s| s.ns == "time" && matches!(s.name, "now_ms" | "now" | "monotonic_ms"),
        |s, range| {
            let mut f = cx.finding(
                "D003",
                W,
                range,
                format!(
                    "`{}()` reads the clock: its value differs on every run",
                    qualified(s)
                ),
            );
            f.help = Some(
                "add `time:frozen=0` to the script's run configuration, or take the time as an argument"
                    .into(),
            );
            pin_fixes(cx, &mut f, "time", "time:frozen=0");
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
