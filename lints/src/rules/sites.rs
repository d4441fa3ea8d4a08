//! Findings at builtin call sites (D003, D006, I001–I004, C005): one per call, with the chain
//! from an entry point when the call sits in a function reached through others.

use vox_analysis::facts::EffectSite;
use vox_syntax::TextRange;

use crate::chain::describe;
use crate::context::FileCx;
use crate::finding::{Finding, Severity};

/// Calls `report` for each builtin call whose `(ns, name)` matches, and pushes what it returns,
/// with the chain attached.
pub fn each_site(
    cx: &FileCx<'_>,
    out: &mut Vec<Finding>,
    matches: impl Fn(&EffectSite) -> bool,
    report: impl Fn(&EffectSite, TextRange) -> Finding,
) {
    for (f, facts, base) in cx.functions() {
        let mut chain = None;
        for site in facts.effects.iter().filter(|s| matches(s)) {
            let range = cx.abs(base, site.range);
            let mut finding = report(site, range);
            let steps = chain.get_or_insert_with(|| cx.chain_to(f));
            attach_chain(cx, &mut finding, steps, f);
            out.push(finding);
        }
    }
}

/// Adds the chain and its note to a finding made in function `f`.
pub fn attach_chain(
    cx: &FileCx<'_>,
    finding: &mut Finding,
    steps: &[crate::finding::ChainStep],
    f: vox_analysis::FnDef<'_>,
) {
    if steps.is_empty() {
        return;
    }
    let name = f.name(cx.db).to_string();
    let note = format!("reached from {}", describe(steps, &name));
    finding.help = Some(match finding.help.take() {
        Some(h) => format!("{note}\n{h}").into(),
        None => note.into(),
    });
    finding.chain = steps.to_vec();
}

pub const W: Severity = Severity::Warning;
