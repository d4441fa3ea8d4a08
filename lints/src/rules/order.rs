//! D002 and D007 share this: report each iteration or listing whose order becomes observable,
//! at the source, naming where it shows. Order passed to a user function counts when that
//! function's body uses its order (or, for a loop that calls it, when it writes output). Order
//! that reaches a function's result counts when some caller uses the result's order
//! (`vox_analysis::file_observed`).

use std::collections::BTreeMap;

use vox_analysis::facts::OrderKind;
use vox_analysis::{callee, fn_facts, summary};
use vox_syntax::TextRange;

use crate::context::FileCx;

/// Where an order first shows, written into a rule's message as it is (no string of its own:
/// a finding-dense file has hundreds).
#[derive(Clone, Copy)]
pub enum Shown<'a> {
    /// A sink of the facts (`return`, `break`, a call's name…) on a 1-based line.
    Sink(&'a str, u32),
    /// A user function whose body uses the order.
    Callee(&'a str),
}

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Shown::Sink("return", line) => write!(f, "the value returned on line {line}"),
            Shown::Sink("break", line) => write!(f, "the early `break` on line {line}"),
            Shown::Sink("an assignment outside the loop", line) => {
                write!(
                    f,
                    "an assignment to a variable outside the loop (line {line})"
                )
            }
            Shown::Sink(what, line) => match what.strip_prefix("closure:") {
                // A closure kept in a variable, a field or a list, called in the loop.
                Some(out) => write!(f, "the closure called on line {line}, which calls `{out}`"),
                None => write!(f, "`{what}` on line {line}"),
            },
            Shown::Callee(name) => write!(f, "`{name}`, which uses its order"),
        }
    }
}

/// Sources of `kind` whose order shows, with a description of the first place it shows.
pub fn leaks<'a>(cx: &FileCx<'a>, kind: OrderKind) -> Vec<(TextRange, Shown<'a>, TextRange)> {
    let mut found: BTreeMap<(u32, u32), (Shown<'a>, TextRange)> = BTreeMap::new();
    for (def, facts, base) in cx.functions() {
        let shown = !facts.returned_order.is_empty() && vox_analysis::return_observed(cx.db, def);
        let returned = shown
            .then_some(facts.returned_order.iter())
            .into_iter()
            .flatten();
        for l in facts
            .order_leaks
            .iter()
            .chain(returned)
            .filter(|l| l.kind == kind)
        {
            let src = cx.abs(base, l.source);
            let sink = cx.abs(base, l.sink);
            found
                .entry((src.start, src.end))
                .or_insert_with(|| (Shown::Sink(&l.what, cx.line(sink.start)), sink));
        }
        for a in facts.order_args.iter().filter(|a| a.kind == kind) {
            let Some(g) = callee(cx.db, cx.file, &a.call) else {
                continue;
            };
            let shows = if a.arg == u32::MAX {
                summary(cx.db, g).writes_output()
            } else if a.map_value {
                fn_facts(cx.db, g)
                    .param_iterated
                    .get(a.arg as usize)
                    .copied()
                    .unwrap_or(false)
            } else {
                fn_facts(cx.db, g)
                    .param_order_sensitive
                    .get(a.arg as usize)
                    .copied()
                    .unwrap_or(true)
            };
            if shows {
                let src = cx.abs(base, a.source);
                found
                    .entry((src.start, src.end))
                    .or_insert_with(|| (Shown::Callee(g.name(cx.db)), src));
            }
        }
    }
    found
        .into_iter()
        .map(|((s, e), (what, sink))| (TextRange::new(s, e), what, sink))
        .collect()
}
