//! A file's calls with their callees resolved: what the workspace queries (`param_tiers`,
//! `observed_returns`) and the explanation chains walk. One query per file, computed beside the
//! facts on every core, so that a walk over the workspace reads one value per file instead of
//! every function's facts, and resolves no call itself.

use vox_syntax::TextRange;

use crate::body::CallTarget;
use crate::db::Db;
use crate::facts::{fn_facts, ArgTiers, List};
use crate::imports::resolve_imports;
use crate::inputs::SourceFile;
use crate::items::{file_items, FnDef};

/// The calls of a file's functions, in [`crate::FileItems::all`] order (the synthetic main
/// last), kept flat: a list per function would cost more than most functions' calls.
#[derive(Clone, Debug, PartialEq, Eq, salsa::SalsaValue)]
pub struct FileCalls<'db> {
    /// Every call or mention of a workspace function, function after function, each function's
    /// in the order of its facts' `calls`.
    calls: Box<[ResolvedCall<'db>]>,
    /// Where each function's calls start in `calls`, and where the last one's end.
    starts: Box<[u32]>,
    /// (function position, callee): callees whose returned order the function shows
    /// (`FnFacts::observed_calls`).
    observed: List<(u32, FnDef<'db>)>,
    /// (function position, callee): callees whose returned order reaches the function's result
    /// (`FnFacts::returned_calls`).
    returned: List<(u32, FnDef<'db>)>,
}

#[derive(Clone, Debug, PartialEq, Eq, salsa::SalsaValue)]
pub struct ResolvedCall<'db> {
    pub callee: FnDef<'db>,
    /// The call, relative to the caller's first byte.
    pub range: TextRange,
    /// Called here rather than passed as a value.
    pub direct: bool,
    /// For a direct call, its positional int arguments' tiers per caller tier
    /// (`FnFacts::int_calls`); empty when it has none.
    pub args: List<ArgTiers>,
}

impl<'db> FileCalls<'db> {
    /// How many functions the file has (the synthetic main included).
    pub fn functions(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The calls of the function at position `k`.
    pub fn calls(&self, k: usize) -> &[ResolvedCall<'db>] {
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.calls[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The calls of `f`, a function of this file.
    pub fn of(&self, db: &dyn Db, f: FnDef<'db>) -> &[ResolvedCall<'db>] {
        let i = f.index(db);
        let k = if i == u32::MAX {
            self.functions().wrapping_sub(1)
        } else {
            i as usize
        };
        self.calls(k)
    }

    /// (function position, callee) for each callee whose returned order a function shows.
    pub fn observed(&self) -> &[(u32, FnDef<'db>)] {
        &self.observed
    }

    /// (function position, callee) for each callee whose returned order reaches a function's
    /// result.
    pub fn returned(&self) -> &[(u32, FnDef<'db>)] {
        &self.returned
    }
}

#[salsa::tracked(returns(ref))]
pub fn file_calls(db: &dyn Db, file: SourceFile) -> FileCalls<'_> {
    let items = file_items(db, file);
    let imports = resolve_imports(db, file);
    let resolve = |target: &CallTarget| -> Option<FnDef<'_>> {
        match target {
            CallTarget::Local(name) => items.local(name),
            CallTarget::Imported { import, name } => imports.function(db, *import, name),
        }
    };
    let (mut calls, mut starts, mut observed, mut returned) = (vec![], vec![0], vec![], vec![]);
    for (k, f) in items.all().enumerate() {
        let facts = fn_facts(db, f);
        for c in facts.calls.iter() {
            let Some(callee) = resolve(&c.target) else {
                continue;
            };
            // `int_calls` is sorted by range; a direct call has at most one entry.
            let args = if c.direct {
                let key = (c.range.start, c.range.end);
                facts
                    .int_calls
                    .binary_search_by_key(&key, |ic| (ic.range.start, ic.range.end))
                    .map_or_else(
                        |_| List::default(),
                        |i| facts.int_calls[i].args.to_vec().into(),
                    )
            } else {
                List::default()
            };
            calls.push(ResolvedCall {
                callee,
                range: c.range,
                direct: c.direct,
                args,
            });
        }
        starts.push(calls.len() as u32);
        let k = k as u32;
        observed.extend(
            facts
                .observed_calls
                .iter()
                .filter_map(|(t, _)| Some((k, resolve(t)?))),
        );
        returned.extend(
            facts
                .returned_calls
                .iter()
                .filter_map(|(t, _)| Some((k, resolve(t)?))),
        );
    }
    FileCalls {
        calls: calls.into(),
        starts: starts.into(),
        observed: observed.into(),
        returned: returned.into(),
    }
}
