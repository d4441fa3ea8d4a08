//! `syntax.*`: the parser's diagnostics (voxscript.md §3.6), with their fixes as safe fixes.

use crate::context::FileCx;
use crate::finding::{Applicability, Finding, Fix};

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    for d in &cx.syntax.diagnostics {
        let mut f = cx.finding(d.code, d.severity, d.range, d.message.clone());
        f.help = d.help.clone().map(Into::into);
        if let Some(fix) = &d.fix {
            f.fixes.push(Fix {
                title: fix.title.clone().into(),
                applicability: Applicability::Safe,
                edits: fix
                    .edits
                    .iter()
                    .map(|e| cx.edit(e.range, e.new_text.clone()))
                    .collect(),
            });
        }
        out.push(f);
    }
}
