//! The database's inputs: the files and the workspace (salsa inputs, set by the CLI and the
//! server; everything else is derived from them).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use salsa::{Durability, Setter};

use crate::text::Text;

/// One `.vox` file the workspace or the editor knows.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: Text,
    /// Whether an editor has changed this file's text. Its functions are then lowered with
    /// their own scopes (`fn_scope`), so that typing one lowers no other; every other file's
    /// functions lower with the file's whole table, as on the command line (a scope per
    /// function of the workspace cost `bench/lsp_memory.py` 50 MiB).
    #[default]
    #[returns(copy)]
    pub edited: bool,
}

/// The files of the workspace by canonical path, and its root (the directory holding `Vox.toml`,
/// else where the command started). Configuration is read through `vox_caps::config`.
#[salsa::input(debug)]
pub struct Workspace {
    #[returns(ref)]
    pub root: PathBuf,
    #[returns(ref)]
    pub files: Arc<BTreeMap<PathBuf, SourceFile>>,
    /// The same files in [`GROUPS`] groups by a hash of their path: the workspace-wide indexes
    /// (importers, D005's path literals) are built per group, so that an edit of one file
    /// re-checks its group and the groups' indexes, never every file ([`Workspace::create`]).
    #[returns(ref)]
    pub groups: Arc<[FileGroup]>,
}

/// Some files of the workspace, in path order (see [`Workspace::groups`]).
#[salsa::input(debug)]
pub struct FileGroup {
    #[returns(ref)]
    pub files: Arc<[SourceFile]>,
}

/// How many groups a workspace's files fall in: the cost of an edit's index checks is about
/// `GROUPS + files / GROUPS` (one file's group, then every group's index).
pub const GROUPS: usize = 64;

/// The group of a path: stable across runs and platforms (FNV-1a of its bytes).
fn group_of(path: &std::path::Path) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.as_os_str().as_encoded_bytes() {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    (h % GROUPS as u64) as usize
}

fn grouped(files: &BTreeMap<PathBuf, SourceFile>) -> Vec<Vec<SourceFile>> {
    let mut out = vec![Vec::new(); GROUPS];
    for (p, f) in files {
        out[group_of(p)].push(*f);
    }
    out
}

impl Workspace {
    /// A workspace of `files`, grouped. Its fields are of medium durability, like the texts of
    /// files on disk: what reads only them is checked at once after an edit of an open document
    /// (low durability).
    pub fn create(
        db: &dyn salsa::Database,
        root: PathBuf,
        files: Arc<BTreeMap<PathBuf, SourceFile>>,
    ) -> Workspace {
        let groups: Arc<[FileGroup]> = grouped(&files)
            .into_iter()
            .map(|g| {
                FileGroup::builder(g.into())
                    .durability(Durability::MEDIUM)
                    .new(db)
            })
            .collect();
        Workspace::builder(root, files, groups)
            .durability(Durability::MEDIUM)
            .new(db)
    }

    /// Replaces the workspace's files; only the groups whose files changed are set again.
    pub fn replace_files<D: salsa::Database>(
        self,
        db: &mut D,
        files: Arc<BTreeMap<PathBuf, SourceFile>>,
    ) {
        let groups = self.groups(db).clone();
        for (group, new) in groups.iter().zip(grouped(&files)) {
            if **group.files(db) != *new {
                group
                    .set_files(db)
                    .with_durability(Durability::MEDIUM)
                    .to(new.into());
            }
        }
        self.set_files(db)
            .with_durability(Durability::MEDIUM)
            .to(files);
    }
}
