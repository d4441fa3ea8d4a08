//! File imports: which workspace file each `import "./x.vox"` names, and the errors the runtime
//! would raise at the import (decision 34): missing target, cycle, target with syntax errors.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::items::{file_items, parse};
use crate::{Db, SourceFile};

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

/// The first error reached from each import of `file`, as the runtime's loader would report it.
#[salsa::tracked(returns(ref))]
pub fn import_errors(db: &dyn Db, file: SourceFile) -> Arc<Vec<Option<ImportError>>> {
    let targets = &resolve_imports(db, file).targets;
    let out = targets
        .iter()
        .map(|t| match t {
            ImportTarget::Missing(p) => Some(ImportError::Missing { path: p.clone() }),
            ImportTarget::File(target) => {
                let mut stack = vec![file];
                first_error(db, *target, &mut stack)
            }
        })
        .collect();
    Arc::new(out)
}

/// Depth-first along imports, as the loader goes: a cycle back to a file on the stack, a file
/// with syntax errors, or a missing file further down.
fn first_error(db: &dyn Db, f: SourceFile, stack: &mut Vec<SourceFile>) -> Option<ImportError> {
    if let Some(pos) = stack.iter().position(|s| *s == f) {
        let mut chain: Vec<String> = stack[pos..].iter().map(|s| shown(db, *s)).collect();
        chain.push(shown(db, f));
        return Some(ImportError::Cycle { chain });
    }
    if parse(db, f).has_errors() {
        return Some(ImportError::Errors {
            path: f.path(db).clone(),
        });
    }
    if stack.len() > 256 {
        return None;
    }
    stack.push(f);
    for t in &resolve_imports(db, f).targets {
        let e = match t {
            ImportTarget::Missing(p) => Some(ImportError::Missing { path: p.clone() }),
            ImportTarget::File(next) => first_error(db, *next, stack),
        };
        if e.is_some() {
            stack.pop();
            return e;
        }
    }
    stack.pop();
    None
}

fn shown(db: &dyn Db, f: SourceFile) -> String {
    f.path(db)
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}
