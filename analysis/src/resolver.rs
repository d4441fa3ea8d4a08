//! What the workspace queries share: which files are imported, and every function numbered.

use std::collections::HashSet;

use rustc_hash::FxHashMap;

use crate::db::Db;
use crate::imports::{resolve_imports, ImportTarget};
use crate::inputs::SourceFile;
use crate::items::{file_items, FnDef};

/// The workspace files some workspace file imports: their `pub` functions have callers only in
/// the workspace (the others may be called from outside).
pub(crate) fn imported_files(db: &dyn Db, files: &[SourceFile]) -> HashSet<SourceFile> {
    let mut out = HashSet::new();
    for f in files {
        for t in &resolve_imports(db, *f).targets {
            if let ImportTarget::File(t) = t {
                out.insert(*t);
            }
        }
    }
    out
}

/// Every function of `files`, numbered: (function, its file, its index among the file's
/// functions, `u32::MAX` for a synthetic main). Positions give the index, so no tracked field is
/// read per function.
pub(crate) fn numbered_functions<'db>(
    db: &'db dyn Db,
    files: &[SourceFile],
) -> Vec<(FnDef<'db>, SourceFile, u32)> {
    let items: Vec<_> = files.iter().map(|f| (*f, file_items(db, *f))).collect();
    // Sized first: both workspace queries hold this list at once, on two cores.
    let count = items
        .iter()
        .map(|(_, it)| it.fns.len() + usize::from(it.main.is_some()))
        .sum();
    let mut out = Vec::with_capacity(count);
    for (file, items) in &items {
        let all = items.fns.iter().copied().enumerate();
        out.extend(all.map(|(i, f)| (f, *file, i as u32)));
        out.extend(items.main.map(|m| (m, *file, u32::MAX)));
    }
    out
}

/// Each function's number in [`numbered_functions`]' list.
pub(crate) fn numbers<'db>(fns: &[(FnDef<'db>, SourceFile, u32)]) -> FxHashMap<FnDef<'db>, u32> {
    let mut ids = FxHashMap::with_capacity_and_hasher(fns.len(), Default::default());
    ids.extend(fns.iter().enumerate().map(|(i, f)| (f.0, i as u32)));
    ids
}
