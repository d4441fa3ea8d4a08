//! What the workspace queries share: which files are imported, and every function numbered.

use std::collections::HashSet;

use crate::imports::{resolve_imports, ImportTarget};
use crate::items::{file_items, FnDef};
use crate::{Db, SourceFile};

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
    let mut out = Vec::new();
    for file in files {
        let items = file_items(db, *file);
        let all = items.fns.iter().copied().enumerate();
        out.extend(all.map(|(i, f)| (f, *file, i as u32)));
        out.extend(items.main.map(|m| (m, *file, u32::MAX)));
    }
    out
}
