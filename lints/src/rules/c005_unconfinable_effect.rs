//! C005 unconfinable-effect: `process.exec` replaces the interpreter and `process.spawn_background`
//! starts a process that outlives the run: authority the interpreter cannot take back when the
//! run ends (decision 48 keeps `spawn_background` children alive at a normal end).

use super::sites::{each_site, W};
use crate::context::FileCx;
use crate::finding::Finding;

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    each_site(
        cx,
        out,
        |s| s.ns() == "process" && matches!(s.name(), "exec" | "spawn_background"),
        |s, range| {
            let what = if s.name() == "exec" {
                "replaces the interpreter: its ceilings and exit commands no longer apply"
            } else {
                "starts a process that outlives the run, keeping its authority"
            };
            let mut f = cx.finding("C005", W, range, format!("`{}` {what}", s.builtin));
            f.help = Some("prefer `process.run`, whose child ends with the run".into());
            f
        },
    );
}
