//! Call targets resolved with one read of each file's items and imports (for the workspace
//! queries, which look at every call of the workspace).

use std::collections::HashMap;

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
                let targets = self.imports.entry(file).or_insert_with(|| {
                    resolve_imports(db, file)
                        .targets
                        .iter()
                        .map(|t| match t {
                            ImportTarget::File(f) => Some(*f),
                            ImportTarget::Missing(_) => None,
                        })
                        .collect()
                });
                let t = (*targets.get(*import as usize)?)?;
                self.items(t).pub_fn(name)
            }
        }
    }
}
