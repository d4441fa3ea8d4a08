//! Deny inside a grant, for children (issue 39 item 2): which mounts the children's mount
//! namespace needs beyond the read-only view, so that what Landlock cannot subtract from a
//! granted tree is taken away by the mount table instead (as bubblewrap and sandbox-runtime do).
//!
//! - a **read-only subtree** of a writable place (`fs:ro=` inside `fs:rw=`): bound onto itself
//!   and made read-only with everything mounted beneath it;
//! - a **mask** (`fs:none=`): a directory is covered by an empty, read-only tmpfs of mode 000; a
//!   file by `/dev/null` bound read-only with `nodev`, so opening it fails with `EACCES` for
//!   reading and for writing (a writable `/dev/null` would swallow writes silently);
//! - a **no-exec place** (`exec:none=`): bound onto itself and made `noexec` with everything
//!   mounted beneath it (the kernel then refuses `execve` and executable mappings there, so the
//!   dynamic loader cannot run a binary from it either);
//! - **anchors**: every directory between a writable place and a path above becomes a mount
//!   point of its own (bound onto itself), because the kernel refuses to rename or remove a
//!   mount point (`EBUSY`) but lets a child rename a directory that merely contains one: a
//!   child could otherwise move `conf/` holding a masked `conf/app.key` to `conf2/`, and the
//!   interpreter's path rules would no longer name it.
//!
//! Only paths a child could otherwise reach get a mount: beneath a read or write root, or a
//! system place. Such a path must exist when the namespace is built (a mount needs a mount
//! point; a child could create a missing one); otherwise the spawn is refused. A grant beneath a
//! mask cannot be given (the mask hides it) and is refused as well.
//!
//! Planning, and the check of the result ([`layers_hold`]): [`crate::mounts`] turns a
//! [`Layout`] into the helper's steps and reads its `mountinfo`.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use crate::mountinfo::{hidden, MountEntry};
use crate::policy::{system_code, Denies, Grant};

/// What one extra mount does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    /// A directory bound onto itself, so it cannot be renamed.
    Anchor,
    /// A read-only subtree of a writable place.
    ReadOnly,
    /// A masked directory (an empty read-only tmpfs, mode 000).
    MaskDir,
    /// A masked file (`/dev/null`, read-only, `nodev`).
    MaskFile,
    /// No execution at or beneath it.
    NoExec,
}

/// One extra mount of the children's namespace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Layer {
    pub path: PathBuf,
    pub kind: Kind,
}

/// Everything that decides a mount namespace: the writable places and the extra mounts. Two
/// policies with equal layouts share one namespace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Layout {
    /// Writable places, sorted: top-level ones (folded: none beneath another) and write roots
    /// opened again beneath a read-only subtree.
    pub places: Vec<PathBuf>,
    /// Sorted by path; at one path in the order of [`Kind`]. No-exec layers come last when
    /// the namespace is built.
    pub layers: Vec<Layer>,
}

impl Layout {
    /// Whether `/` itself is writable (then nothing is made read-only but the read-only layers).
    pub fn root_writable(&self) -> bool {
        self.places.iter().any(|p| p.as_os_str() == "/")
    }

    /// Whether a mount namespace is needed at all.
    pub fn needs_namespace(&self) -> bool {
        !self.root_writable() || !self.layers.is_empty()
    }
}

/// What a policy asks for, canonical or not.
pub(crate) struct Request<'a> {
    /// Write roots and the temp dir.
    pub writable: Vec<&'a Path>,
    /// Read roots and the system places children may read: a deny outside all of them and of
    /// `writable` needs no mount.
    pub reachable: Vec<&'a Path>,
    pub deny_write: &'a [PathBuf],
    pub deny_read: &'a [PathBuf],
    pub deny_exec: &'a [PathBuf],
}

impl<'a> Request<'a> {
    /// The request of a policy (a child's, or the interpreter's own for the children it will
    /// start): its write roots and temp dir are writable; its read roots and the system code
    /// places are reachable.
    pub fn of(
        write_roots: &'a [PathBuf],
        temp_dir: Option<&'a Path>,
        read_roots: &'a [PathBuf],
        system: &'a [Grant],
        denies: &'a Denies,
    ) -> Self {
        Request {
            writable: write_roots
                .iter()
                .map(PathBuf::as_path)
                .chain(temp_dir)
                .collect(),
            reachable: read_roots
                .iter()
                .map(PathBuf::as_path)
                .chain(system_code(system))
                .collect(),
            deny_write: &denies.write,
            deny_read: &denies.read,
            deny_exec: &denies.exec,
        }
    }
}

fn canonical(p: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(p).ok()
}

/// The token a deny came from, for messages.
fn token(kind: Kind, p: &Path) -> String {
    let t = match kind {
        Kind::ReadOnly => "fs:ro",
        Kind::MaskDir | Kind::MaskFile => "fs:none",
        Kind::NoExec => "exec:none",
        Kind::Anchor => "fs:rw",
    };
    format!("{t}={}", p.display())
}

/// The layout for `req`, or why children cannot be given it.
pub(crate) fn layout(req: &Request<'_>) -> Result<Layout, String> {
    let mut writable: Vec<PathBuf> = req.writable.iter().filter_map(|p| canonical(p)).collect();
    writable.sort();
    writable.dedup();
    let readable: Vec<PathBuf> = req.reachable.iter().filter_map(|p| canonical(p)).collect();
    let reachable: Vec<PathBuf> = readable.iter().chain(&writable).cloned().collect();
    let beneath = |p: &Path, set: &[PathBuf]| set.iter().any(|q| p.starts_with(q));
    let mut layers: Vec<Layer> = Vec::new();
    // Denies arrive resolved (symlinks followed when parsed); a path that does not exist is
    // kept as given, to be refused when a child could reach it.
    let mut add = |p: &PathBuf, kind: Kind, scope: &[PathBuf]| -> Result<(), String> {
        if !beneath(p, scope) {
            return Ok(());
        }
        let meta = std::fs::metadata(p).map_err(|e| {
            format!(
                "{} does not exist ({e}); the jail can only mount over what exists, and a child \
                 could create it: create it (an empty file will do) or drop the token",
                token(kind, p)
            )
        })?;
        let kind = match kind {
            Kind::MaskDir if !meta.is_dir() => Kind::MaskFile,
            k => k,
        };
        if kind == Kind::MaskFile && meta.nlink() > 1 {
            return Err(format!(
                "{} has {} hard links; the jail can mask only this name of the file: remove the \
                 other links or deny the directories that hold them",
                token(kind, p),
                meta.nlink()
            ));
        }
        if kind == Kind::ReadOnly && !meta.is_dir() {
            return Ok(());
        }
        let path = canonical(p).unwrap_or_else(|| p.clone());
        layers.push(Layer { path, kind });
        Ok(())
    };
    for p in req.deny_write {
        add(p, Kind::ReadOnly, &writable)?;
    }
    for p in req.deny_read {
        add(p, Kind::MaskDir, &reachable)?;
    }
    for p in req.deny_exec {
        add(p, Kind::NoExec, &reachable)?;
    }
    let masks: Vec<PathBuf> = layers
        .iter()
        .filter(|l| matches!(l.kind, Kind::MaskDir | Kind::MaskFile))
        .map(|l| l.path.clone())
        .collect();
    let strictly = |p: &Path, m: &Path| p != m && p.starts_with(m);
    // A grant beneath a mask would be hidden by it.
    for m in &masks {
        let inside = reachable.iter().find(|p| strictly(p, m)).cloned();
        let inside = inside.or_else(|| {
            layers
                .iter()
                .find(|l| l.kind == Kind::ReadOnly && strictly(&l.path, m))
                .map(|l| l.path.clone())
        });
        if let Some(p) = inside {
            return Err(format!(
                "{} lies inside fs:none={}, which children see as an empty, unreadable mount; \
                 deny the parts around it instead",
                p.display(),
                m.display()
            ));
        }
    }
    // What lies beneath a mask needs nothing of its own.
    layers.retain(|l| !masks.iter().any(|m| strictly(&l.path, m)));
    // Places: the top-level writable places, plus write roots beneath a read-only layer that
    // lies inside another place (opened again after it).
    let read_only: Vec<PathBuf> = layers
        .iter()
        .filter(|l| l.kind == Kind::ReadOnly)
        .map(|l| l.path.clone())
        .collect();
    let mut places: Vec<PathBuf> = Vec::new();
    for p in &writable {
        let folded = writable.iter().any(|q| strictly(p, q));
        let reopened = read_only.iter().any(|d| p.starts_with(d));
        if !folded || reopened {
            places.push(p.clone());
        }
    }
    // Anchors: each directory strictly between the writable place holding a layer and the
    // layer itself.
    let mut anchors: Vec<Layer> = Vec::new();
    for l in &layers {
        let Some(place) = places
            .iter()
            .filter(|p| l.path.starts_with(p))
            .max_by_key(|p| p.as_os_str().len())
        else {
            continue;
        };
        for a in l.path.ancestors().skip(1) {
            if a == place.as_path() || !a.starts_with(place) {
                break;
            }
            anchors.push(Layer {
                path: a.to_path_buf(),
                kind: Kind::Anchor,
            });
        }
    }
    layers.extend(anchors);
    layers.sort_by(|a, b| (&a.path, a.kind).cmp(&(&b.path, b.kind)));
    layers.dedup();
    // An anchor where another mount already is adds nothing.
    let points: Vec<PathBuf> = layers
        .iter()
        .filter(|l| l.kind != Kind::Anchor)
        .map(|l| l.path.clone())
        .chain(places.iter().cloned())
        .collect();
    layers.retain(|l| l.kind != Kind::Anchor || !points.contains(&l.path));
    Ok(Layout { places, layers })
}

/// Whether the helper's mounts hold every layer: read-only subtrees read-only (what lies
/// beneath them too, but for places opened again there), masks in place and read-only, no-exec
/// places noexec throughout, anchors mounted.
pub(crate) fn layers_hold(mounts: &[MountEntry], layout: &Layout) -> Result<(), String> {
    let hidden = hidden(mounts);
    let visible: Vec<&MountEntry> = mounts
        .iter()
        .zip(hidden)
        .filter(|(_, h)| !h)
        .map(|(m, _)| m)
        .collect();
    let at = |p: &Path| visible.iter().find(|m| m.point == p).copied();
    for l in &layout.layers {
        let p = l.path.as_path();
        let fail = |why: &str| {
            Err(format!(
                "{} {why} in the children's mount namespace",
                p.display()
            ))
        };
        let Some(top) = at(p) else {
            return fail("is not a mount point");
        };
        match l.kind {
            Kind::Anchor => {}
            Kind::MaskDir | Kind::MaskFile if !top.ro => return fail("is masked but writable"),
            Kind::MaskDir | Kind::MaskFile => {}
            Kind::ReadOnly => {
                let reopened = |m: &Path| {
                    layout
                        .places
                        .iter()
                        .any(|q| q.as_path() != p && q.starts_with(p) && m.starts_with(q))
                };
                if let Some(m) = visible
                    .iter()
                    .find(|m| m.point.starts_with(p) && !m.ro && !reopened(&m.point))
                {
                    return Err(format!(
                        "{} stays writable inside the read-only {} in the children's mount namespace",
                        m.point.display(),
                        p.display()
                    ));
                }
            }
            Kind::NoExec => {
                if let Some(m) = visible
                    .iter()
                    .find(|m| m.point.starts_with(p) && m.flags & libc::MS_NOEXEC == 0)
                {
                    return Err(format!(
                        "{} stays executable inside exec:none={} in the children's mount namespace",
                        m.point.display(),
                        p.display()
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tmp(PathBuf);
    impl Drop for Tmp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn tmp(name: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("vox-denies-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("w/.git/hooks")).unwrap();
        std::fs::create_dir_all(d.join("w/conf/deep")).unwrap();
        std::fs::create_dir_all(d.join("w/bin")).unwrap();
        std::fs::create_dir_all(d.join("w/secrets/pub")).unwrap();
        std::fs::write(d.join("w/.env"), "x").unwrap();
        std::fs::write(d.join("w/conf/deep/app.key"), "x").unwrap();
        Tmp(std::fs::canonicalize(&d).unwrap())
    }

    fn kinds(l: &Layout) -> Vec<(String, Kind)> {
        l.layers
            .iter()
            .map(|x| {
                (
                    x.path.file_name().unwrap().to_string_lossy().into_owned(),
                    x.kind,
                )
            })
            .collect()
    }

    #[test]
    fn layers_anchors_and_places() {
        let t = tmp("plan");
        let w = t.0.join("w");
        let req = Request {
            writable: vec![&w, &t.0],
            reachable: vec![],
            deny_write: &[w.join(".git")],
            deny_read: &[w.join(".env"), w.join("conf/deep/app.key")],
            deny_exec: &[w.join("bin")],
        };
        let l = layout(&req).unwrap();
        // `w` is folded into the temp place `t.0`: conf and conf/deep are anchored, and so is w.
        assert_eq!(l.places, vec![t.0.clone()]);
        assert_eq!(
            kinds(&l),
            vec![
                ("w".to_string(), Kind::Anchor),
                (".env".to_string(), Kind::MaskFile),
                (".git".to_string(), Kind::ReadOnly),
                ("bin".to_string(), Kind::NoExec),
                ("conf".to_string(), Kind::Anchor),
                ("deep".to_string(), Kind::Anchor),
                ("app.key".to_string(), Kind::MaskFile),
            ]
        );
        assert!(l.needs_namespace() && !l.root_writable());
    }

    #[test]
    fn a_write_root_inside_a_read_only_subtree_is_a_place_again() {
        let t = tmp("reopen");
        let w = t.0.join("w");
        let hooks = w.join(".git/hooks");
        let req = Request {
            writable: vec![&w, &hooks],
            reachable: vec![],
            deny_write: &[w.join(".git")],
            deny_read: &[],
            deny_exec: &[],
        };
        let l = layout(&req).unwrap();
        assert_eq!(l.places, vec![w.clone(), hooks]);
    }

    #[test]
    fn refusals() {
        let t = tmp("refuse");
        let w = t.0.join("w");
        let missing = [w.join("missing.env")];
        let req = Request {
            writable: vec![&w],
            reachable: vec![],
            deny_write: &[],
            deny_read: &missing,
            deny_exec: &[],
        };
        let e = layout(&req).unwrap_err();
        assert!(e.contains("missing.env does not exist"), "{e}");
        // Outside every grant: nothing to mount, nothing to refuse.
        let elsewhere = [PathBuf::from("/nonexistent-vox/x")];
        let req = Request {
            writable: vec![&w],
            reachable: vec![],
            deny_write: &[],
            deny_read: &elsewhere,
            deny_exec: &elsewhere,
        };
        assert!(layout(&req).unwrap().layers.is_empty());
        let pubdir = w.join("secrets/pub");
        let secrets = [w.join("secrets")];
        let req = Request {
            writable: vec![&w],
            reachable: vec![&pubdir],
            deny_write: &[],
            deny_read: &secrets,
            deny_exec: &[],
        };
        let e = layout(&req).unwrap_err();
        assert!(e.contains("lies inside fs:none="), "{e}");
        std::fs::hard_link(w.join(".env"), w.join("env2")).unwrap();
        let env = [w.join(".env")];
        let req = Request {
            writable: vec![&w],
            reachable: vec![],
            deny_write: &[],
            deny_read: &env,
            deny_exec: &[],
        };
        let e = layout(&req).unwrap_err();
        assert!(e.contains("has 2 hard links"), "{e}");
    }
}
