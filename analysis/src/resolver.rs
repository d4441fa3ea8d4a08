//! Call targets resolved with one read of each file's items and imports (for the workspace
//! queries, which look at every call of the workspace).

use std::collections::{HashMap, HashSet};

use crate::facts::CallTarget;
use crate::imports::{resolve_imports, ImportTarget};
use crate::items::{file_items, FileItems, FnDef};
use crate::{Db, SourceFile};

/// Resolves call targets to functions with one read of each file's items and imports, instead
/// of salsa reads per call (a workspace query would otherwise record one dependency per call).
pub(crate) struct Resolver<'db> {
    db: &'db dyn Db,
    items: HashMap<SourceFile, &'db FileItems<'db>>,
    imports: HashMap<SourceFile, Vec<Option<SourceFile>>>,
}

impl<'db> Resolver<'db> {
    pub(crate) fn new(db: &'db dyn Db) -> Resolver<'db> {
        Resolver {
            db,
            items: HashMap::new(),
            imports: HashMap::new(),
        }
    }

    pub(crate) fn items(&mut self, file: SourceFile) -> &'db FileItems<'db> {
        let db = self.db;
        self.items
            .entry(file)
            .or_insert_with(|| file_items(db, file))
    }

    pub(crate) fn callee(&mut self, file: SourceFile, target: &CallTarget) -> Option<FnDef<'db>> {
        match target {
            CallTarget::Local(k) => self.items(file).fns.get(*k as usize).copied(),
            CallTarget::Imported { import, name } => {
                let db = self.db;
                let targets = self
                    .imports
                    .entry(file)
                    .or_insert_with(|| resolve_imports(db, file).files());
                let t = (*targets.get(*import as usize)?)?;
                self.items(t).pub_fn(name)
            }
        }
    }
}

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
