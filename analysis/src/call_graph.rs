//! A file's calls with their callees resolved: what the workspace queries (`param_tiers`,
//! `observed_returns`) and the explanation chains walk. One query per file, computed beside the
//! facts on every core, so that a walk over the workspace reads one value per file instead of
//! every function's facts, and resolves no call itself.

use vox_syntax::TextRange;

use crate::facts::{fn_facts, ArgTiers, CallTarget, List};
use crate::imports::{resolve_imports, ImportTarget};
use crate::items::{file_items, FnDef};
use crate::{Db, SourceFile};

/// Per function of a file, in [`crate::FileItems::all`] order (the synthetic main last).
#[derive(Clone, Debug, PartialEq, Eq, salsa::SalsaValue)]
pub struct FileCalls<'db> {
    pub fns: Box<[FnCalls<'db>]>,
}

/// The user functions one body names, resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq, salsa::SalsaValue)]
pub struct FnCalls<'db> {
    /// Every call or mention of a workspace function, in the order of the facts' `calls`.
    pub calls: Box<[ResolvedCall<'db>]>,
    /// Functions whose returned order this body shows (`FnFacts::observed_calls`).
    pub observed: List<FnDef<'db>>,
    /// Functions whose returned order reaches this body's result (`FnFacts::returned_calls`).
    pub returned: List<FnDef<'db>>,
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
    /// The calls of `f`, a function of this file.
    pub fn of(&self, db: &dyn Db, f: FnDef<'db>) -> Option<&FnCalls<'db>> {
        let i = f.index(db);
        let k = if i == u32::MAX {
            self.fns.len().checked_sub(1)?
        } else {
            i as usize
        };
        self.fns.get(k)
    }
}

#[salsa::tracked(returns(ref))]
pub fn file_calls(db: &dyn Db, file: SourceFile) -> FileCalls<'_> {
    let items = file_items(db, file);
    let imports = resolve_imports(db, file);
    let resolve = |target: &CallTarget| -> Option<FnDef<'_>> {
        match target {
            CallTarget::Local(k) => items.fns.get(*k as usize).copied(),
            CallTarget::Imported { import, name } => match imports.targets.get(*import as usize)? {
                ImportTarget::File(t) => file_items(db, *t).pub_fn(name),
                ImportTarget::Missing(_) => None,
            },
        }
    };
    let fns = items
        .all()
        .map(|f| {
            let facts = fn_facts(db, f);
            let calls = facts
                .calls
                .iter()
                .filter_map(|c| {
                    let callee = resolve(&c.target)?;
                    // `int_calls` is sorted by range; a direct call has at most one entry.
                    let args = if c.direct {
                        let key = (c.range.start, c.range.end);
                        facts
                            .int_calls
                            .binary_search_by_key(&key, |ic| (ic.range.start, ic.range.end))
                            .map_or_else(|_| List::default(), |k| facts.int_calls[k].args.to_vec().into())
                    } else {
                        List::default()
                    };
                    Some(ResolvedCall {
                        callee,
                        range: c.range,
                        direct: c.direct,
                        args,
                    })
                })
                .collect();
            let targets = |list: &[(CallTarget, TextRange)]| -> List<FnDef<'_>> {
                list.iter().filter_map(|(t, _)| resolve(t)).collect::<Vec<_>>().into()
            };
            FnCalls {
                calls,
                observed: targets(&facts.observed_calls),
                returned: targets(&facts.returned_calls),
            }
        })
        .collect();
    FileCalls { fns }
}
