//! The filesystem rules of a capability set (runtime.md §1.1; issue 39 item 1): the roots that
//! grant (`fs:ro=`, `fs:rw=`) and the denies that narrow them (`fs:none=`, `exec:none=`).
//!
//! For a resolved path, **the most specific rule decides**: the rule whose path is the longest
//! prefix of it by whole components. At the same path a deny wins over a grant, and `rw` over
//! `ro` (decision 13: `ro` and `rw` on one directory combine to `rw`). So `fs:ro=.git` inside
//! `fs:rw=.` makes `.git` read-only, `fs:rw=.git/hooks` beneath that makes `hooks` writable again,
//! and `fs:none=.env` hides `.env` whatever grants its directory.
//!
//! An `fs:none=` path that exists when the set is made is also recognised by its identity
//! (device and inode): a hard link to a denied file, or a denied directory reached under another
//! name (renamed, bind-mounted), is denied at the depth where that name appears.
//!
//! `exec:none=` is a separate dimension: it never changes what may be read or written, only what
//! children may execute, and nothing beneath it is executable again.

use std::path::{Path, PathBuf};

use crate::resolve::{file_id, FileId};

/// One filesystem root: a canonical, absolute directory and whether writes are allowed under it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FsRoot {
    pub(crate) dir: PathBuf,
    pub(crate) writable: bool,
}

impl FsRoot {
    /// The canonical directory; what lies beneath it by whole path components is governed by
    /// it, unless a more specific rule says otherwise.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// True for `fs:rw=`, false for `fs:ro=`.
    pub fn writable(&self) -> bool {
        self.writable
    }
}

/// An `fs:none=` path and, when it existed as the set was made, its identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Deny {
    pub path: PathBuf,
    pub id: Option<FileId>,
}

/// The rules of a scoped filesystem.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FsRules {
    /// Sorted by directory, one entry per directory.
    pub roots: Vec<FsRoot>,
    /// `fs:none=` paths, sorted, unique.
    pub none: Vec<Deny>,
    /// `exec:none=` paths, sorted, unique.
    pub no_exec: Vec<PathBuf>,
}

/// What the rules say about one resolved path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision<'a> {
    /// No rule covers it: outside every root.
    Outside,
    /// This root decides.
    Root(&'a FsRoot),
    /// This `fs:none=` path decides.
    Denied(&'a Path),
}

fn depth(p: &Path) -> usize {
    p.components().count()
}

impl FsRules {
    pub fn new(
        roots: impl IntoIterator<Item = (PathBuf, bool)>,
        none: impl IntoIterator<Item = PathBuf>,
        no_exec: impl IntoIterator<Item = PathBuf>,
    ) -> FsRules {
        let mut merged: std::collections::BTreeMap<PathBuf, bool> = Default::default();
        for (dir, writable) in roots {
            let w = merged.entry(dir).or_insert(false);
            *w |= writable;
        }
        let roots = merged
            .into_iter()
            .map(|(dir, writable)| FsRoot { dir, writable })
            .collect();
        let mut none: Vec<PathBuf> = none.into_iter().collect();
        none.sort();
        none.dedup();
        let none = none
            .into_iter()
            .map(|path| Deny {
                id: file_id(&path),
                path,
            })
            .collect();
        let mut no_exec: Vec<PathBuf> = no_exec.into_iter().collect();
        no_exec.sort();
        no_exec.dedup();
        FsRules {
            roots,
            none,
            no_exec,
        }
    }

    /// The rule that decides for `resolved`. `ids` are the identities of its components
    /// (`ids[k]`: the first `k + 1` names), or empty when not known.
    pub fn decide(&self, resolved: &Path, ids: &[Option<FileId>]) -> Decision<'_> {
        // (depth, rank, decision): deeper wins; at one depth none (2) > rw (1) > ro (0).
        let roots = self
            .roots
            .iter()
            .filter(|root| resolved.starts_with(&root.dir))
            .map(|root| {
                let rank = u8::from(root.writable);
                (depth(&root.dir), rank, Decision::Root(root))
            });
        let denies = self.none.iter().filter_map(|deny| {
            let mut at = resolved.starts_with(&deny.path).then(|| depth(&deny.path));
            if let Some(id) = deny.id {
                for (k, c) in ids.iter().enumerate() {
                    if *c == Some(id) {
                        at = at.max(Some(k + 2));
                    }
                }
            }
            at.map(|d| (d, 2, Decision::Denied(&deny.path)))
        });
        roots
            .chain(denies)
            .max_by_key(|(d, rank, _)| (*d, *rank))
            .map_or(Decision::Outside, |(_, _, d)| d)
    }

    /// Whether an already resolved path is admitted (by path only).
    pub fn admits(&self, resolved: &Path, write: bool) -> bool {
        match self.decide(resolved, &[]) {
            Decision::Root(root) => root.writable || !write,
            Decision::Outside | Decision::Denied(_) => false,
        }
    }

    /// The narrowing rule that refuses an access a broader grant would allow, as a token: the
    /// `fs:none=` path that decides, or, for a write, the `fs:ro=` root inside a writable place
    /// that decides. `None` when no grant covers the path at all (a missing token, not a deny).
    pub fn blocking_rule(&self, resolved: &Path, write: bool) -> Option<String> {
        match self.decide(resolved, &[]) {
            Decision::Denied(p) => Some(format!("fs:none={}", p.display())),
            Decision::Root(r) if write && self.narrows(r) => {
                Some(format!("fs:ro={}", r.dir.display()))
            }
            _ => None,
        }
    }

    /// The `exec:none=` path covering `resolved`, if any.
    pub fn exec_denied(&self, resolved: &Path) -> Option<&Path> {
        self.no_exec
            .iter()
            .find(|p| resolved.starts_with(p))
            .map(PathBuf::as_path)
    }

    /// A rule strictly beneath `dir` that removing `dir` as a whole would break: a read-only
    /// root or an `fs:none=` path. As a token (`fs:ro=…`, `fs:none=…`).
    pub fn deny_beneath(&self, dir: &Path) -> Option<String> {
        let beneath = |p: &Path| p != dir && p.starts_with(dir);
        if let Some(d) = self.none.iter().find(|d| beneath(&d.path)) {
            return Some(format!("fs:none={}", d.path.display()));
        }
        self.roots
            .iter()
            .find(|r| !r.writable && beneath(&r.dir))
            .map(|r| format!("fs:ro={}", r.dir.display()))
    }

    /// Whether `root` is an `fs:ro=` root inside a writable place (the nearest rule above it is
    /// an `fs:rw=` root): a deny that narrows that grant, not a grant of its own.
    fn narrows(&self, root: &FsRoot) -> bool {
        let parent = root.dir.parent().unwrap_or(Path::new("/"));
        !root.writable
            && root.dir != Path::new("/")
            && matches!(self.decide(parent, &[]), Decision::Root(p) if p.writable)
    }

    /// `fs:ro=` roots that lie inside a writable place: the nearest rule above them is an
    /// `fs:rw=` root. Children get them as read-only mounts.
    pub fn read_only_within(&self) -> Vec<PathBuf> {
        self.roots
            .iter()
            .filter(|r| self.narrows(r))
            .map(|r| r.dir.clone())
            .collect()
    }

    /// One line per deny that denies nothing: it lies outside every root (and, since children
    /// may read and execute them, outside the system places too).
    pub fn warnings(&self) -> Vec<String> {
        let inside = |p: &Path| self.roots.iter().any(|r| p.starts_with(&r.dir)) || system_place(p);
        let none = self.none.iter().map(|d| ("fs:none", &d.path));
        let exec = self.no_exec.iter().map(|p| ("exec:none", p));
        none.chain(exec)
            .filter(|(_, p)| !inside(p))
            .map(|(kind, p)| {
                format!(
                    "vox: warning: --caps {kind}={} denies nothing: it lies outside every fs:ro \
                     and fs:rw root, where everything is denied anyway",
                    p.display()
                )
            })
            .collect()
    }
}

/// The system places every jailed child may read and execute (`/usr`, `/bin`, `/sbin`, `/etc`,
/// `/lib*`; the jail's list): a deny there still narrows what children can do.
pub fn system_place(p: &Path) -> bool {
    let mut names = p.components().skip(1);
    let Some(std::path::Component::Normal(first)) = names.next() else {
        return false;
    };
    let first = first.to_string_lossy();
    matches!(first.as_ref(), "usr" | "bin" | "sbin" | "etc") || first.starts_with("lib")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(roots: &[(&str, bool)], none: &[&str], no_exec: &[&str]) -> FsRules {
        FsRules::new(
            roots.iter().map(|(p, w)| (PathBuf::from(p), *w)),
            none.iter().map(PathBuf::from),
            no_exec.iter().map(PathBuf::from),
        )
    }

    fn level(r: &FsRules, p: &str) -> &'static str {
        match r.decide(Path::new(p), &[]) {
            Decision::Outside => "outside",
            Decision::Root(root) if root.writable => "rw",
            Decision::Root(_) => "ro",
            Decision::Denied(_) => "none",
        }
    }

    #[test]
    fn the_most_specific_path_decides() {
        let r = rules(
            &[("/w", true), ("/w/.git", false), ("/w/.git/hooks", true)],
            &["/w/.env", "/w/secrets"],
            &[],
        );
        assert_eq!(level(&r, "/w/out.txt"), "rw");
        assert_eq!(level(&r, "/w/.git"), "ro");
        assert_eq!(level(&r, "/w/.git/config"), "ro");
        assert_eq!(level(&r, "/w/.git/hooks/pre-commit"), "rw");
        assert_eq!(level(&r, "/w/.env"), "none");
        assert_eq!(level(&r, "/w/.envrc"), "rw");
        assert_eq!(level(&r, "/w/secrets/a/b"), "none");
        assert_eq!(level(&r, "/x"), "outside");
        assert!(r.admits(Path::new("/w/.git/config"), false));
        assert!(!r.admits(Path::new("/w/.git/config"), true));
        assert!(!r.admits(Path::new("/w/.env"), false));
    }

    #[test]
    fn at_the_same_path_a_deny_wins_then_rw() {
        let r = rules(&[("/a", false), ("/a", true), ("/b", true)], &["/b"], &[]);
        assert_eq!(level(&r, "/a/x"), "rw");
        assert_eq!(level(&r, "/b/x"), "none");
        let r = rules(&[("/b", true), ("/b/pub", false)], &["/b"], &[]);
        assert_eq!(level(&r, "/b/pub/x"), "ro");
        assert_eq!(level(&r, "/b/x"), "none");
    }

    #[test]
    fn identities_match_at_their_depth() {
        let r = FsRules {
            roots: vec![FsRoot {
                dir: "/w".into(),
                writable: true,
            }],
            none: vec![Deny {
                path: "/w/.env".into(),
                id: Some((1, 42)),
            }],
            no_exec: vec![],
        };
        // `/w/copy` is a hard link to the denied file.
        let ids = [Some((1, 2)), Some((1, 42))];
        assert_eq!(
            r.decide(Path::new("/w/copy"), &ids),
            Decision::Denied(Path::new("/w/.env"))
        );
        assert!(matches!(
            r.decide(Path::new("/w/other"), &[Some((1, 2)), Some((1, 3))]),
            Decision::Root(_)
        ));
    }

    #[test]
    fn exec_and_removal_and_read_only_places() {
        let r = rules(
            &[
                ("/w", true),
                ("/w/.git", false),
                ("/r", false),
                ("/r/in", false),
            ],
            &["/w/sub/.env"],
            &["/w/bin"],
        );
        assert_eq!(
            r.exec_denied(Path::new("/w/bin/tool")),
            Some(Path::new("/w/bin"))
        );
        assert_eq!(r.exec_denied(Path::new("/w/binary")), None);
        assert_eq!(
            r.deny_beneath(Path::new("/w")),
            Some("fs:none=/w/sub/.env".into())
        );
        assert_eq!(r.deny_beneath(Path::new("/w/sub/.env")), None);
        assert_eq!(r.deny_beneath(Path::new("/w/other")), None);
        assert_eq!(r.read_only_within(), vec![PathBuf::from("/w/.git")]);
    }

    #[test]
    fn pointless_denies_warn() {
        let r = rules(
            &[("/w", true)],
            &["/w/.env", "/home/u/.ssh", "/etc/shadow"],
            &["/opt/x", "/usr/bin/curl"],
        );
        let w = r.warnings();
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("fs:none=/home/u/.ssh denies nothing"));
        assert!(w[1].contains("exec:none=/opt/x denies nothing"));
        assert!(system_place(Path::new("/lib64/x")) && !system_place(Path::new("/")));
    }
}
