//! File imports: which workspace file each `import "./x.vox"` names, and the errors the runtime
//! would raise at the import (decision 34): missing target, cycle, target with syntax errors.

use std::path::{Component, Path, PathBuf};

use crate::db::Db;
use crate::inputs::SourceFile;
use crate::items::{file_items, file_syntax, FnDef};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportTarget {
    File(SourceFile),
    /// Not in the workspace (the CLI loads imported files it can read, so: it does not exist).
    Missing(PathBuf),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportError {
    Missing { path: PathBuf },
    Cycle { chain: Vec<String> },
    Errors { path: PathBuf },
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ResolvedImports {
    /// In the order of `ItemTree::imports`.
    pub targets: Vec<ImportTarget>,
}

impl ResolvedImports {
    /// The public function `name` of the `import`-th import's file (`None` when that import is
    /// missing or has no such function).
    pub fn function<'db>(&self, db: &'db dyn Db, import: u32, name: &str) -> Option<FnDef<'db>> {
        match self.targets.get(import as usize)? {
            ImportTarget::File(t) => file_items(db, *t).pub_fn(name),
            ImportTarget::Missing(_) => None,
        }
    }

    /// Each import's file, `None` where it is missing.
    pub fn files(&self) -> Vec<Option<SourceFile>> {
        self.targets
            .iter()
            .map(|t| match t {
                ImportTarget::File(f) => Some(*f),
                ImportTarget::Missing(_) => None,
            })
            .collect()
    }
}

/// Joins an import path to the importing file's directory, lexically.
pub fn import_path(importer: &Path, written: &str) -> PathBuf {
    let dir = importer.parent().unwrap_or(Path::new("."));
    let mut out = PathBuf::new();
    for c in dir.join(written).components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[salsa::tracked(returns(ref))]
pub fn resolve_imports(db: &dyn Db, file: SourceFile) -> ResolvedImports {
    let items = &file_items(db, file).items;
    let files = db.workspace().files(db);
    let targets = items
        .imports
        .iter()
        .map(|imp| {
            let p = import_path(file.path(db), &imp.path);
            match files.get(&p) {
                Some(f) => ImportTarget::File(*f),
                None => ImportTarget::Missing(p),
            }
        })
        .collect();
    ResolvedImports { targets }
}

/// Where an import error is reported: the file holding the failing import, and which of its
/// imports (as the runtime's loader reports it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportErrorAt {
    pub error: ImportError,
    pub file: SourceFile,
    pub import: u32,
}

/// The first error loading `file` would meet, in loader order, if any.
#[salsa::tracked(returns(ref))]
pub fn import_errors(db: &dyn Db, file: SourceFile) -> Option<ImportErrorAt> {
    let mut walk = Walk::default();
    first_error_in(db, file, &mut walk)
}

/// The files being loaded, in order (a set beside, for a deep chain), and those loaded.
#[derive(Default)]
struct Walk {
    stack: Vec<SourceFile>,
    on_stack: std::collections::HashSet<SourceFile>,
    done: std::collections::HashSet<SourceFile>,
}

fn first_error_in(db: &dyn Db, f: SourceFile, walk: &mut Walk) -> Option<ImportErrorAt> {
    // A file already loaded without error is not loaded again (as the runtime's loader).
    if walk.stack.len() > 256 || walk.done.contains(&f) {
        return None;
    }
    walk.stack.push(f);
    walk.on_stack.insert(f);
    for (i, t) in resolve_imports(db, f).targets.iter().enumerate() {
        let at = |error| ImportErrorAt {
            error,
            file: f,
            import: i as u32,
        };
        let found = match t {
            ImportTarget::Missing(p) => Some(at(ImportError::Missing { path: p.clone() })),
            ImportTarget::File(next) => {
                if let Some(pos) = walk
                    .on_stack
                    .contains(next)
                    .then(|| walk.stack.iter().position(|s| s == next))
                    .flatten()
                {
                    let mut chain: Vec<String> =
                        walk.stack[pos..].iter().map(|s| shown(db, *s)).collect();
                    chain.push(shown(db, *next));
                    Some(at(ImportError::Cycle { chain }))
                } else if file_syntax(db, *next).has_errors {
                    Some(at(ImportError::Errors {
                        path: next.path(db).clone(),
                    }))
                } else {
                    first_error_in(db, *next, walk)
                }
            }
        };
        if found.is_some() {
            walk.stack.pop();
            walk.on_stack.remove(&f);
            return found;
        }
    }
    walk.stack.pop();
    walk.on_stack.remove(&f);
    walk.done.insert(f);
    None
}

fn shown(db: &dyn Db, f: SourceFile) -> String {
    f.path(db)
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}
