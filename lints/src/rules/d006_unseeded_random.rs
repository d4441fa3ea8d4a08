//! D006 unseeded-random: `random.int`, `random.float`, `random.choice`, `random.shuffle` and
//! `crypto.uuid()` draw from a stream seeded from OS entropy unless the run configuration pins
//! `random:seed=` (decision 30). `crypto.hash_fast`/`hash_secure` are deterministic and not
//! flagged (decision 8). Fix: add `random:seed=0` to the run configuration.

use super::sites::{each_site, W};
use crate::context::FileCx;
use crate::finding::Finding;

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    if super::caps_check::pinned_by_every_run(cx, "random:seed=") {
        return;
    }
    each_site(
        cx,
        out,
        |s| {
            (s.ns() == "random" && matches!(s.name(), "int" | "float" | "choice" | "shuffle"))
                || (s.ns() == "crypto" && s.name() == "uuid")
        },
        |s, range| {
            let mut f = cx.finding(
                "D006",
                W,
                range,
                format!(
                    "`{}()` draws from an unseeded random stream: its value differs on every run",
                    s.builtin
                ),
            );
            f.help = Some("add `random:seed=0` to the script's run configuration".into());
            super::caps_check::pin_fixes(cx, &mut f, "random", "random:seed=0");
            f
        },
    );
}
