//! Explanation chains (analysis.md §2): one shortest call chain from an entry point to the
//! function holding a finding, rebuilt on demand from the facts' call lists (summaries keep no
//! chains, so they stay equal when a path elsewhere changes).

use std::collections::{BTreeMap, VecDeque};

use vox_analysis::{callee, entry_points, fn_base, fn_facts, Db, FnDef, SourceFile};

use crate::ChainStep;

fn fn_name(db: &dyn Db, f: FnDef<'_>) -> String {
    let n = f.name(db);
    if &**n == "<main>" {
        "main".to_string()
    } else {
        n.to_string()
    }
}

/// Entry points to search from: the file's own, then those of the workspace files that import
/// it (their `main`s reach its `pub fn`s).
fn entries<'db>(db: &'db dyn Db, file: SourceFile) -> Vec<FnDef<'db>> {
    let mut out = entry_points(db, file);
    let ws = db.workspace();
    for other in ws.files(db).values() {
        if *other == file {
            continue;
        }
        let imports = &vox_analysis::resolve_imports(db, *other).targets;
        if imports
            .iter()
            .any(|t| matches!(t, vox_analysis::ImportTarget::File(f) if *f == file))
        {
            out.extend(entry_points(db, *other));
        }
    }
    out
}

/// The chain from an entry point to `target` (each step: a function and the call it makes),
/// ending with `target` itself; empty when `target` is an entry point or unreachable.
pub fn chain_to(db: &dyn Db, target: FnDef<'_>) -> Vec<ChainStep> {
    let file = target.file(db);
    let starts = entries(db, file);
    if starts.contains(&target) {
        return Vec::new();
    }
    // Breadth-first over calls; `prev` remembers (caller, call range) per reached function.
    let mut prev: BTreeMap<salsa::Id, (FnDef<'_>, vox_syntax::TextRange)> = BTreeMap::new();
    let mut queue: VecDeque<FnDef<'_>> = VecDeque::new();
    let mut seen = std::collections::BTreeSet::new();
    for s in &starts {
        if seen.insert(salsa::plumbing::AsId::as_id(s)) {
            queue.push_back(*s);
        }
    }
    let mut found = false;
    let mut visited = 0usize;
    while let Some(f) = queue.pop_front() {
        visited += 1;
        if f == target || visited > 100_000 {
            found = f == target;
            break;
        }
        let ffile = f.file(db);
        for call in &fn_facts(db, f).calls {
            let Some(g) = callee(db, ffile, &call.target) else {
                continue;
            };
            let id = salsa::plumbing::AsId::as_id(&g);
            if seen.insert(id) {
                prev.insert(id, (f, call.range));
                queue.push_back(g);
            }
        }
    }
    if !found {
        return Vec::new();
    }
    let mut steps = Vec::new();
    let mut cur = target;
    while let Some((caller, range)) = prev.get(&salsa::plumbing::AsId::as_id(&cur)).copied() {
        let base = fn_base(db, caller);
        steps.push(ChainStep {
            file: caller.file(db).path(db).clone(),
            range: vox_syntax::TextRange::new(base + range.start, base + range.end),
            function: fn_name(db, caller),
        });
        cur = caller;
    }
    steps.reverse();
    steps
}

/// `main → write_report → stamp` for the human format.
pub fn describe(steps: &[ChainStep], last: &str) -> String {
    let mut names: Vec<&str> = steps.iter().map(|s| s.function.as_str()).collect();
    names.push(last);
    names.join(" → ")
}
