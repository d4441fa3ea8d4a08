//! Resolving a path the way the kernel walks it (runtime.md §1.1, decision 18), without requiring
//! its tail to exist: what the filesystem check compares with the roots, and what a deny token
//! (`fs:none=`, `exec:none=`) names.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Component, Path, PathBuf};

/// A file's identity: device and inode. Two names of one file (hard links, a renamed
/// directory) share it.
pub type FileId = (u64, u64);

/// Linux's limit on symlinks followed while resolving one path (`MAXSYMLINKS`).
const MAX_SYMLINKS: u32 = 40;

#[derive(Debug)]
pub(crate) enum ResolveError {
    /// `..` after a component that does not exist; `missing` is that component's path.
    ParentOfMissing { missing: PathBuf },
    /// More than [`MAX_SYMLINKS`] links, most likely a loop.
    TooManySymlinks,
    /// A symlink whose target cannot be read.
    UnreadableLink { link: PathBuf, err: io::Error },
}

impl ResolveError {
    pub(crate) fn explain(&self, path: &Path) -> String {
        match self {
            ResolveError::ParentOfMissing { missing } => format!(
                "{} uses \"..\" after {}, which does not exist; create it first or remove the \"..\"",
                path.display(),
                missing.display()
            ),
            ResolveError::TooManySymlinks => {
                format!("too many symbolic links resolving {} (a loop?)", path.display())
            }
            ResolveError::UnreadableLink { link, err } => {
                format!("cannot read symbolic link {}: {err}", link.display())
            }
        }
    }
}

/// A resolved path and the identity of each of its components below `/` that exists
/// (`ids[k]` belongs to the path made of the first `k + 1` names), so a rule can recognise a
/// denied file under another name.
#[derive(Debug)]
pub(crate) struct Resolution {
    pub path: PathBuf,
    pub ids: Vec<Option<FileId>>,
}

enum Step {
    Root,
    Parent,
    Name(OsString),
}

fn push_front(queue: &mut VecDeque<Step>, path: &Path) {
    let steps: Vec<Step> = path
        .components()
        .filter_map(|c| match c {
            // Other platforms' prefixes are kept by `Root` handling; this crate targets unix.
            Component::Prefix(_) | Component::RootDir => Some(Step::Root),
            Component::CurDir => None,
            Component::ParentDir => Some(Step::Parent),
            Component::Normal(name) => Some(Step::Name(name.to_os_string())),
        })
        .collect();
    for step in steps.into_iter().rev() {
        queue.push_front(step);
    }
}

/// Resolves an absolute path the way the kernel walks it, without requiring the tail to exist.
///
/// Iterative, so neither a long path nor a chain of links can exhaust the stack. A component the
/// walk cannot see into (permission denied, a file used as a directory) counts as missing: the
/// operation will fail on it the same way, and the lexical tail stays under the same parent.
pub(crate) fn resolve(absolute: &Path) -> Result<Resolution, ResolveError> {
    let mut queue = VecDeque::new();
    push_front(&mut queue, absolute);
    let mut resolved = PathBuf::from("/");
    let mut ids: Vec<Option<FileId>> = Vec::new();
    let mut missing: Option<PathBuf> = None;
    let mut links = 0;
    while let Some(step) = queue.pop_front() {
        match step {
            Step::Root => {
                resolved = PathBuf::from("/");
                ids.clear();
            }
            Step::Parent => {
                if let Some(missing) = missing {
                    return Err(ResolveError::ParentOfMissing { missing });
                }
                if resolved.pop() {
                    ids.pop();
                }
            }
            Step::Name(name) => {
                resolved.push(&name);
                if missing.is_some() {
                    ids.push(None);
                    continue;
                }
                match std::fs::symlink_metadata(&resolved) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        links += 1;
                        if links > MAX_SYMLINKS {
                            return Err(ResolveError::TooManySymlinks);
                        }
                        let target = match std::fs::read_link(&resolved) {
                            Ok(target) => target,
                            Err(err) => {
                                return Err(ResolveError::UnreadableLink {
                                    link: resolved,
                                    err,
                                })
                            }
                        };
                        // A relative target is relative to the directory holding the link.
                        resolved.pop();
                        push_front(&mut queue, &target);
                    }
                    Ok(meta) => ids.push(Some((meta.dev(), meta.ino()))),
                    Err(_) => {
                        missing = Some(resolved.clone());
                        ids.push(None);
                    }
                }
            }
        }
    }
    Ok(Resolution {
        path: resolved,
        ids,
    })
}

/// The identity of an existing path (symlinks followed), for a deny token.
pub(crate) fn file_id(path: &Path) -> Option<FileId> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_is_lexical_for_missing_paths() {
        let base = "/nonexistent-vox-caps-test-root";
        let r = resolve(Path::new(&format!("{base}/a/./b//c"))).unwrap();
        assert_eq!(r.path, PathBuf::from(format!("{base}/a/b/c")));
        assert_eq!(r.ids, vec![None; 4]);
        assert!(matches!(
            resolve(Path::new(&format!("{base}/a/../b"))),
            Err(ResolveError::ParentOfMissing { .. })
        ));
        // `..` before anything missing is resolved against what exists.
        let r = resolve(Path::new("/../..")).unwrap();
        assert_eq!(r.path, PathBuf::from("/"));
        assert!(r.ids.is_empty());
    }

    #[test]
    fn ids_follow_the_components() {
        let r = resolve(Path::new("/proc/self/../self")).unwrap();
        assert_eq!(r.ids.len(), r.path.components().count() - 1);
        assert_eq!(r.ids[0], file_id(Path::new("/proc")));
    }
}
