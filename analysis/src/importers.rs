//! Who imports a file: the reverse of every file's imports, kept per group of files
//! ([`crate::Workspace::groups`]) so that an edit of one file re-checks one group's list and
//! reads every group's, never every file's imports.

use salsa::plumbing::AsId;

use crate::db::Db;
use crate::imports::{resolve_imports, ImportTarget};
use crate::inputs::{FileGroup, SourceFile};

/// (imported file, importer) for every file import of the group's files, sorted.
#[salsa::tracked(returns(ref))]
fn group_imports(db: &dyn Db, group: FileGroup) -> Box<[(salsa::Id, SourceFile)]> {
    let mut out = Vec::new();
    for f in group.files(db).iter() {
        for t in &resolve_imports(db, *f).targets {
            if let ImportTarget::File(target) = t {
                out.push((target.as_id(), *f));
            }
        }
    }
    out.sort_unstable_by_key(|(t, f)| (*t, f.as_id()));
    out.dedup();
    out.into()
}

/// The workspace files that import `file` directly, in path order.
#[salsa::tracked(returns(ref))]
pub fn importers_of(db: &dyn Db, file: SourceFile) -> Box<[SourceFile]> {
    let key = file.as_id();
    let mut out: Vec<SourceFile> = Vec::new();
    for group in db.workspace().groups(db).iter() {
        let list = group_imports(db, *group);
        let from = list.partition_point(|(t, _)| *t < key);
        out.extend(
            list[from..]
                .iter()
                .take_while(|(t, _)| *t == key)
                .map(|(_, f)| *f),
        );
    }
    out.sort_by(|a, b| a.path(db).cmp(b.path(db)));
    out.into()
}
