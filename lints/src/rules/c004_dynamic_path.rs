//! C004 dynamic-path: a filesystem path the analysis cannot resolve statically. Capability
//! inference widens the grant to the longest constant directory prefix (`"data/" + name` →
//! `fs:ro=data`) or to the working directory; the message names the widened token.

use vox_analysis::facts::{Access, PathFact};

use super::sites::W;
use crate::context::FileCx;
use crate::finding::Finding;

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    for (_, facts, base) in cx.functions() {
        for p in &facts.paths {
            if p.ns() == "process" {
                continue;
            }
            let kind = if p.access == Access::Write {
                "rw"
            } else {
                "ro"
            };
            let widened = match &p.fact {
                PathFact::Const(_) => continue,
                PathFact::Prefix(dir) | PathFact::InputUnder(dir) => dir.clone(),
                PathFact::Dynamic | PathFact::Input => ".".to_string(),
                // Granted where the default lies (`/etc` for `/etc/hostname`).
                PathFact::InputOr(d) => match d.rfind('/') {
                    Some(0) => "/".to_string(),
                    Some(i) => d[..i].to_string(),
                    None => ".".to_string(),
                },
            };
            let mut f = cx.finding(
                "C004",
                W,
                cx.abs(base, p.range),
                format!(
                    "the path of `{}` is not known statically: the inferred grant is widened to `fs:{kind}={widened}`",
                    p.builtin
                ),
            );
            f.help = Some(
                "use a constant path (or `path.join` of constants) to keep the grant narrow".into(),
            );
            out.push(f);
        }
    }
}
