//! The workspaces of the client's folders (multi-root): one per folder, and which one a file
//! belongs to.

use super::paths::*;
use super::settings::*;
use super::workspace::*;
use std::path::{Path, PathBuf};
use vox_caps::config::ConfigKind;

/// The workspaces of the client's folders, held as rust-analyzer holds them: each folder is a
/// workspace of its own (its root, configuration and analysis database), so that a script is
/// analysed, fixed and run with its own folder's `Vox.toml`, as `vox lint` run there does.
/// With one folder (the common case) every lookup is the first workspace, with no search.
pub struct Workspaces {
    /// Never empty; the first also serves documents in no folder.
    pub list: Vec<Session>,
}

impl Workspaces {
    pub fn new(first: Session) -> Workspaces {
        Workspaces { list: vec![first] }
    }

    /// The workspace `path` belongs to: the innermost folder the client named that contains
    /// it; else the innermost workspace root that does (a `Vox.toml` above its folder); else the
    /// first.
    pub fn index_for(&self, path: &Path) -> usize {
        if self.list.len() == 1 {
            return 0;
        }
        let innermost = |key: fn(&Session) -> &Path| {
            self.list
                .iter()
                .enumerate()
                .filter(|(_, s)| s.named && path.starts_with(key(s)))
                .max_by_key(|(_, s)| key(s).components().count())
                .map(|(i, _)| i)
        };
        innermost(|s| s.folder.as_path())
            .or_else(|| innermost(|s| s.root.as_path()))
            .unwrap_or(0)
    }

    pub fn for_path(&self, path: &Path) -> &Session {
        &self.list[self.index_for(path)]
    }

    pub fn for_path_mut(&mut self, path: &Path) -> &mut Session {
        let i = self.index_for(path);
        &mut self.list[i]
    }

    /// Whether `path` is a configuration file of the workspace it belongs to.
    pub fn is_config(&self, path: &Path) -> bool {
        config_kind(&self.for_path(path).root, path).is_some()
    }

    pub fn first(&self) -> &Session {
        &self.list[0]
    }

    /// Whether the client's folder `folder` has its workspace already.
    pub fn has_folder(&self, folder: &Path) -> bool {
        self.list.iter().any(|s| s.named && s.folder == folder)
    }

    /// Adds the workspace of a folder; the open documents that now belong to it move to it.
    pub fn add(&mut self, session: Session) {
        self.list.push(session);
        let new = self.list.len() - 1;
        let mut moving: Vec<(PathBuf, Doc)> = Vec::new();
        for i in 0..new {
            let paths: Vec<PathBuf> = self.list[i]
                .docs
                .keys()
                .filter(|p| self.index_for(p) == new)
                .cloned()
                .collect();
            for p in paths {
                if let Some(d) = self.list[i].docs.get(&p).cloned() {
                    self.list[i].close(&p);
                    moving.push((p, d));
                }
            }
        }
        for (p, d) in moving {
            self.reopen(p, d);
        }
    }

    /// Opens a document moved from another workspace in the one it belongs to now.
    fn reopen(&mut self, path: PathBuf, d: Doc) {
        let text = d.rope.to_string();
        self.for_path_mut(&path).open(path, d.uri, text, d.version);
    }

    /// Removes the workspace of the client's folder `folder`: it is no longer analysed. Its
    /// open documents move to the workspace of another folder containing them, if any; the
    /// others are forgotten. Returns the files whose diagnostics came from it and no longer
    /// will (its open documents that did not move, its configuration files), or `None` if no
    /// workspace has that folder. The last folder removed leaves a workspace of no folder, as
    /// when the client names none.
    pub fn remove(&mut self, folder: &Path) -> Option<Vec<PathBuf>> {
        let i = self
            .list
            .iter()
            .position(|s| s.named && s.folder == folder)?;
        let gone = self.list.remove(i);
        if self.list.is_empty() {
            let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
            self.list.push(Session::load_with(
                cwd.clone(),
                cwd,
                gone.settings.clone(),
                gone.encoding,
                false,
            ));
        }
        let mut cleared: Vec<PathBuf> =
            [ConfigKind::VoxToml, ConfigKind::Tasks, ConfigKind::Launch]
                .iter()
                .map(|k| config_path(&gone.root, *k))
                .collect();
        for (p, d) in gone.docs {
            let moves = self
                .list
                .iter()
                .any(|s| s.named && p.starts_with(&s.folder));
            if moves {
                self.reopen(p, d);
            } else {
                cleared.push(p);
            }
        }
        // Another folder's workspace may have the same root (a folder inside another).
        cleared.retain(|p| {
            !self
                .list
                .iter()
                .any(|s| s.named && config_kind(&s.root, p).is_some())
        });
        cleared.sort();
        cleared.dedup();
        Some(cleared)
    }
}
