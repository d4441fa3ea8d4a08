//! Capability inference (analysis.md §4, decisions 30 and 35): the least `--caps` set that lets
//! every path of a script's `main` run without a denial. The needs come from the summaries of its
//! entry functions (a pure query); turning them into tokens depends on the run's working
//! directory and on which directories exist, so that part is a plain function called at the edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use vox_syntax::TextRange;

use crate::db::Db;
use crate::imports::{resolve_imports, ImportTarget};
use crate::inputs::SourceFile;
use crate::items::{file_items, FnDef};
use crate::summaries::{summary, Effect, EffectKind, PathKey};

/// One thing the script needs, with where its entry function reaches it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapNeed {
    pub effect: Effect,
    /// The entry function (its index among the file's functions; `u32::MAX` for a synthetic
    /// main) and the site in it, relative to the function.
    pub entry: u32,
    pub range: TextRange,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InferredCaps {
    pub needs: Vec<CapNeed>,
    /// Every file the script imports, directly or not (reading them needs fs access), with the
    /// index of the entry file's import that leads there.
    pub imports: Vec<(PathBuf, u32)>,
}

/// The functions `vox run` starts from: `main` (or the top-level statements); a file without
/// either (tests only) starts from its tests. A file with both does not run (an error); its
/// `main` stays the entry, so that a statement being typed between two functions does not move
/// the start of every chain (and with it the findings of the whole file) for a keystroke.
pub fn entry_points<'db>(db: &'db dyn Db, file: SourceFile) -> Vec<FnDef<'db>> {
    let fi = file_items(db, file);
    if let Some(i) = fi.items.fns.iter().position(|f| &*f.name == "main") {
        return vec![fi.fns[i]];
    }
    if let Some(m) = fi.main {
        return vec![m];
    }
    fi.items
        .fns
        .iter()
        .enumerate()
        .filter(|(_, f)| f.is_test())
        .map(|(i, _)| fi.fns[i])
        .collect()
}

#[salsa::tracked(returns(ref))]
pub fn inferred_caps(db: &dyn Db, file: SourceFile) -> InferredCaps {
    let mut out = InferredCaps::default();
    let mut seen = BTreeSet::new();
    for entry in entry_points(db, file) {
        for (effect, w) in &summary(db, entry).effects {
            if effect.kind == EffectKind::Output {
                continue;
            }
            if seen.insert(effect.clone()) {
                out.needs.push(CapNeed {
                    effect: effect.clone(),
                    entry: entry.index(db),
                    range: w.range,
                });
            }
        }
    }
    // Imported files, transitively (the loader reads each once).
    let mut visited: BTreeSet<PathBuf> = BTreeSet::new();
    let first = &resolve_imports(db, file).targets;
    for (i, t) in first.iter().enumerate() {
        let mut stack = vec![t.clone()];
        while let Some(t) = stack.pop() {
            let path = match &t {
                ImportTarget::File(f) => f.path(db).clone(),
                ImportTarget::Missing(p) => p.clone(),
            };
            if !visited.insert(path.clone()) {
                continue;
            }
            out.imports.push((path, i as u32));
            if let ImportTarget::File(f) = t {
                stack.extend(resolve_imports(db, f).targets.iter().cloned());
            }
        }
    }
    out
}

/// An inferred token with the builtins that need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InferredToken {
    pub token: String,
    pub needed_by: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Canonical: sorted, deduplicated, minimal.
    pub tokens: Vec<InferredToken>,
    /// Notes for stderr (`widened`, `created by the script`).
    pub notes: Vec<String>,
    /// Needs the tokens may not cover (a path from input may lie outside the widened grant),
    /// each with its site: the script may still be denied, and `vox caps` says so.
    pub incomplete: Vec<Incomplete>,
}

/// A need the inferred tokens may not cover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incomplete {
    /// The entry function (index among the file's functions; `u32::MAX` for a synthetic main)
    /// and the site in it, relative to the function.
    pub entry: u32,
    pub range: TextRange,
    pub reason: String,
}

/// Lexical normalisation of an absolute path.
pub fn clean_path(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// An absolute path as the kernel resolves it: a `..` after an existing component goes to the
/// parent of what that component resolves to (a symlink's target, not the lexical parent), so the
/// grant covers the file the script opens.
pub fn resolve_dots(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                if let Ok(real) = std::fs::canonicalize(&out) {
                    out = real;
                }
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Where the kernel lands for `abs`: a symlinked file or directory resolved to its final target
/// (`conf/app.json -> ../shared/app.json` needs `shared`, and the run checks the target: issue
/// 36); a missing file beneath a symlinked directory, beneath that directory's target.
/// A target beneath the working directory is named through `cwd` as given (which may itself lie
/// under a symlink), so that it still shows relative to it.
fn real_target(abs: &Path, cwd: &Path) -> PathBuf {
    // `/proc/self` and `/dev/fd` are links that resolve per process: the inferring process's
    // pid would end up in the token.
    if abs.starts_with("/proc") || abs.starts_with("/dev") {
        return abs.to_path_buf();
    }
    let real = std::fs::canonicalize(abs).or_else(|e| match (abs.parent(), abs.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir).map(|d| d.join(name)),
        _ => Err(e),
    });
    let Ok(real) = real else {
        return abs.to_path_buf();
    };
    match std::fs::canonicalize(cwd) {
        Ok(real_cwd) => match real.strip_prefix(&real_cwd) {
            Ok(rel) => cwd.join(rel),
            Err(_) => real,
        },
        Err(_) => real,
    }
}

fn nearest_existing(p: &Path) -> PathBuf {
    let mut cur = p.to_path_buf();
    while !cur.exists() {
        if !cur.pop() {
            return PathBuf::from("/");
        }
    }
    cur
}

/// Shows an absolute directory relative to `cwd` when beneath it (decision 35).
pub fn show_dir(dir: &Path, cwd: &Path) -> String {
    match dir.strip_prefix(cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => dir.to_string_lossy().into_owned(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum FsMode {
    Ro,
    Rw,
}

/// Turns needs into tokens for a run from `cwd` (absolute).
pub fn render_tokens(caps: &InferredCaps, cwd: &Path) -> Tokens {
    let mut fs: BTreeMap<PathBuf, (FsMode, BTreeSet<String>)> = BTreeMap::new();
    let mut other: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut notes = BTreeSet::new();
    let mut incomplete = Vec::new();
    let mut any_fs_only = Vec::new();
    fn add_fs(
        fs: &mut BTreeMap<PathBuf, (FsMode, BTreeSet<String>)>,
        dir: PathBuf,
        mode: FsMode,
        by: String,
    ) {
        let e = fs.entry(dir).or_insert((mode, BTreeSet::new()));
        e.0 = e.0.max(mode);
        e.1.insert(by);
    }
    for need in &caps.needs {
        let by = need.effect.builtin.qualified();
        let token = match need.effect.kind {
            EffectKind::EnvRo => "env:ro",
            EffectKind::EnvRw => "env:rw",
            EffectKind::Net => "net:allow",
            EffectKind::Process => "process:allow",
            EffectKind::Secrets => "secrets:allow",
            EffectKind::Time => "time:real",
            EffectKind::Random => "random:seed=0",
            EffectKind::Agentos => "agentos:allow",
            EffectKind::FsCwd => {
                any_fs_only.push(by);
                continue;
            }
            EffectKind::Output => continue,
            EffectKind::FsRead | EffectKind::FsWrite | EffectKind::FsList => {
                let mode = if need.effect.kind == EffectKind::FsWrite {
                    FsMode::Rw
                } else {
                    FsMode::Ro
                };
                match &need.effect.path {
                    Some(PathKey::Input) => incomplete.push(Incomplete {
                        entry: need.entry,
                        range: need.range,
                        reason: format!(
                            "the path of `{by}` comes from input and may lie outside `{}`: grant its directory explicitly (`fs:ro=DIR`)",
                            show_dir(cwd, cwd)
                        ),
                    }),
                    // The default is granted (a run without the input works); the input may
                    // name any other place.
                    Some(PathKey::InputOr(p)) | Some(PathKey::InputUnder(p)) => incomplete.push(Incomplete {
                        entry: need.entry,
                        range: need.range,
                        reason: format!(
                            "the path of `{by}` comes from input; its default `{p}` is granted, any other place it names is not: grant that directory explicitly (`fs:ro=DIR`)"
                        ),
                    }),
                    _ => {}
                }
                let (dir, widened) = match &need.effect.path {
                    Some(PathKey::Const(p)) | Some(PathKey::InputOr(p)) => {
                        let abs = real_target(&resolve_dots(&cwd.join(&**p)), cwd);
                        if need.effect.kind == EffectKind::FsList {
                            (abs, false)
                        } else {
                            (abs.parent().map_or(abs.clone(), Path::to_path_buf), false)
                        }
                    }
                    Some(PathKey::Prefix(p)) | Some(PathKey::InputUnder(p)) => {
                        (resolve_dots(&cwd.join(&**p)), true)
                    }
                    _ => (cwd.to_path_buf(), true),
                };
                let existing = nearest_existing(&dir);
                if existing != dir {
                    notes.insert(format!(
                        "{by}: `{}` does not exist yet; the grant is on its nearest existing ancestor `{}` (roots must exist when the script runs)",
                        show_dir(&dir, cwd),
                        show_dir(&existing, cwd)
                    ));
                }
                if widened {
                    notes.insert(format!(
                        "{by}: the path is not known statically; widened to `{}` (C004)",
                        show_dir(&existing, cwd)
                    ));
                }
                add_fs(&mut fs, existing, mode, by);
                continue;
            }
        };
        other.entry(token.to_string()).or_default().insert(by);
    }
    // Imports: reading an imported file needs its directory.
    for (path, _) in &caps.imports {
        let dir = path.parent().map_or(cwd.to_path_buf(), Path::to_path_buf);
        let dir = if dir.is_absolute() {
            dir
        } else {
            clean_path(&cwd.join(dir))
        };
        add_fs(
            &mut fs,
            nearest_existing(&dir),
            FsMode::Ro,
            "fs.import".into(),
        );
    }
    if !any_fs_only.is_empty() && fs.is_empty() {
        for by in any_fs_only {
            add_fs(&mut fs, cwd.to_path_buf(), FsMode::Ro, by);
        }
    } else if let Some((_, (_, by))) = fs.iter_mut().next() {
        by.extend(any_fs_only);
    }
    // Minimal: drop a root inside another root of at least the same mode.
    let dirs: Vec<(PathBuf, FsMode)> = fs.iter().map(|(d, (m, _))| (d.clone(), *m)).collect();
    let mut kept: BTreeMap<PathBuf, (FsMode, BTreeSet<String>)> = BTreeMap::new();
    for (d, (mode, by)) in fs {
        let covered = dirs
            .iter()
            .find(|(o, om)| *o != d && d.starts_with(o) && *om >= mode);
        match covered {
            Some((o, _)) => {
                // Its builtins are served by the covering root.
                let o = o.clone();
                kept.entry(o)
                    .or_insert((FsMode::Ro, BTreeSet::new()))
                    .1
                    .extend(by);
            }
            None => {
                let e = kept.entry(d).or_insert((mode, BTreeSet::new()));
                e.0 = e.0.max(mode);
                e.1.extend(by);
            }
        }
    }
    let mut tokens: Vec<InferredToken> = Vec::new();
    for (d, (mode, by)) in kept {
        let kind = match mode {
            FsMode::Ro => "ro",
            FsMode::Rw => "rw",
        };
        tokens.push(InferredToken {
            token: format!("fs:{kind}={}", show_dir(&d, cwd)),
            needed_by: by.into_iter().collect(),
        });
    }
    for (t, by) in other {
        tokens.push(InferredToken {
            token: t,
            needed_by: by.into_iter().collect(),
        });
    }
    // env:rw grants what env:ro does.
    if tokens.iter().any(|t| t.token == "env:rw") {
        if let Some(ro) = tokens.iter().position(|t| t.token == "env:ro") {
            let by = tokens.remove(ro).needed_by;
            if let Some(rw) = tokens.iter_mut().find(|t| t.token == "env:rw") {
                rw.needed_by.extend(by);
                rw.needed_by.sort();
                rw.needed_by.dedup();
            }
        }
    }
    tokens.sort_by(|a, b| a.token.cmp(&b.token));
    incomplete.sort_by_key(|i: &Incomplete| (i.entry, i.range.start));
    incomplete.dedup();
    Tokens {
        tokens,
        notes: notes.into_iter().collect(),
        incomplete,
    }
}
