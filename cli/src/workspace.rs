//! Loading a workspace for the analysis: walk the given paths for `*.vox` (honouring
//! `.gitignore` and `[lint] exclude`), read each file once, add the files they import (followed
//! until nothing new is imported), and set up the database.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use vox_analysis::{AnalysisDb, ImportTarget, SourceFile, Text, Workspace};

pub struct Loaded {
    pub db: AnalysisDb,
    pub ws: Workspace,
    /// The files to report on (walked), sorted; imported files outside the paths are analysed
    /// but not reported.
    pub targets: Vec<SourceFile>,
    pub runs: Vec<vox_caps::config::RunConfig>,
    /// `[lint]` of Vox.toml.
    pub lint: vox_caps::config::LintConfig,
    /// Invalid configuration files (`config.invalid`).
    pub config_errors: Vec<vox_caps::config::ConfigError>,
}

/// Absolute, lexically clean path (no symlink resolution: what the user named).
pub fn absolute(p: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    vox_analysis::clean_path(&cwd.join(p))
}

/// The workspace root: the nearest directory holding `Vox.toml` above the first path, else the
/// current directory.
pub fn find_root(first: &Path) -> PathBuf {
    let start = if first.is_dir() {
        first.to_path_buf()
    } else {
        first
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    };
    let start = absolute(&start);
    match vox_caps::config::find_vox_toml(&start) {
        Some(t) => t.parent().map_or(start.clone(), Path::to_path_buf),
        None => absolute(Path::new(".")),
    }
}

/// Every `*.vox` under `paths` (files named directly are always included).
pub fn walk(paths: &[PathBuf], exclude: &[String], root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut overrides = ignore::overrides::OverrideBuilder::new(root);
    for pat in exclude {
        overrides
            .add(&format!("!{pat}"))
            .map_err(|e| format!("invalid `[lint] exclude` pattern {pat:?}: {e}"))?;
    }
    let overrides = overrides
        .build()
        .map_err(|e| format!("invalid `[lint] exclude` patterns: {e}"))?;
    let mut out = Vec::new();
    for p in paths {
        if p.is_file() {
            out.push(absolute(p));
            continue;
        }
        if !p.exists() {
            return Err(crate::read_error::not_found(p.display()));
        }
        let walker = ignore::WalkBuilder::new(p)
            .overrides(overrides.clone())
            .require_git(false)
            .hidden(true)
            .build();
        for entry in walker {
            let entry = entry.map_err(|e| format!("cannot walk {}: {e}", p.display()))?;
            let path = entry.path();
            if entry.file_type().is_some_and(|t| t.is_file())
                && path.extension().is_some_and(|e| e == "vox")
            {
                out.push(absolute(path));
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Reads `paths` and everything they import into a fresh database.
pub fn load(
    paths: Vec<PathBuf>,
    root: PathBuf,
    log: bool,
) -> Result<(Loaded, Option<vox_analysis::EventLog>), String> {
    let (mut loaded, log) = load_files(paths, root, log)?;
    // Parse every file on all cores first (each file once), then follow imports to files outside
    // the walked paths.
    let all: Vec<SourceFile> = loaded.ws.files(&loaded.db).values().copied().collect();
    crate::parallel::parallel(&loaded.db, &all, crate::parallel::threads(None), |db, f| {
        let _ = vox_analysis::resolve_imports(db, *f);
    });
    while add_imported(&mut loaded) {}
    Ok((loaded, log))
}

/// Reads one file into a text the analysis may let go and read again (see [`vox_analysis::Text`]).
fn read_text(path: &Path) -> std::io::Result<Text> {
    Text::read(path, changed_on_disk)
}

/// A file whose text was let go to save memory no longer holds it when read again: what `vox`
/// printed and would print could describe two versions of it, so it stops.
fn changed_on_disk(path: &Path) -> ! {
    eprintln!(
        "error: {} changed on disk while vox was analysing it; run vox again once it is no longer being written",
        path.display()
    );
    std::process::exit(2)
}

/// Every file of `paths`, in order, read on all cores (a file's read is mostly system calls:
/// a workspace of hundreds of files takes tens of milliseconds on one core).
fn read_all(paths: &[PathBuf]) -> Vec<std::io::Result<Text>> {
    let threads = crate::parallel::threads(None).min(paths.len() / 64).max(1);
    if threads == 1 {
        return paths.iter().map(|p| read_text(p)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::OnceLock<std::io::Result<Text>>> =
        paths.iter().map(|_| std::sync::OnceLock::new()).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(p) = paths.get(i) else { break };
                let _ = slots[i].set(read_text(p));
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.into_inner().expect("every path was read"))
        .collect()
}

/// Reads `paths` into a fresh database, without following their imports yet (see
/// [`add_imported`]).
pub fn load_files(
    paths: Vec<PathBuf>,
    root: PathBuf,
    log: bool,
) -> Result<(Loaded, Option<vox_analysis::EventLog>), String> {
    let catalog: &'static (dyn vox_hir::BuiltinCatalog + Sync) =
        vox_runtime::catalog::Catalog::get();
    let (mut db, log) = if log {
        let (db, l) = AnalysisDb::with_log(catalog);
        (db, Some(l))
    } else {
        (AnalysisDb::new(catalog), None)
    };
    // The command line never edits a file.
    db.set_fixed_texts();
    let mut files: BTreeMap<PathBuf, SourceFile> = BTreeMap::new();
    for (p, text) in paths.iter().zip(read_all(&paths)) {
        let text = text.map_err(|e| crate::read_error::cannot_read(p.display(), &e))?;
        files.insert(p.clone(), SourceFile::new(&db, p.clone(), text));
    }
    let largest = files.values().map(|f| f.text(&db).len()).max().unwrap_or(0);
    crate::memory::huge_pages_for_largest(largest);
    let ws = Workspace::create(&db, root.clone(), Arc::new(files));
    db.set_workspace(ws);
    let targets = {
        let files = ws.files(&db);
        paths.iter().filter_map(|p| files.get(p).copied()).collect()
    };
    // One resolver for the CLI, `vox run` and the server: Vox.toml, tasks.json, launch.json.
    let config = vox_caps::config::load_workspace(&root);
    Ok((
        Loaded {
            db,
            ws,
            targets,
            runs: config.runs,
            lint: config.lint,
            config_errors: config.errors,
        },
        log,
    ))
}

/// Adds the files that the workspace's files import from outside it and that exist on disk;
/// whether any was added (then call it again: the new files may import others).
pub fn add_imported(loaded: &mut Loaded) -> bool {
    let mut files: BTreeMap<PathBuf, SourceFile> = (**loaded.ws.files(&loaded.db)).clone();
    let mut added = false;
    for f in files.values().copied().collect::<Vec<_>>() {
        for t in &vox_analysis::resolve_imports(&loaded.db, f).targets {
            if let ImportTarget::Missing(p) = t {
                if files.contains_key(p) {
                    continue;
                }
                if let Ok(text) = read_text(p) {
                    let file = SourceFile::new(&loaded.db, p.clone(), text);
                    files.insert(p.clone(), file);
                    added = true;
                }
            }
        }
    }
    if added {
        loaded.ws.replace_files(&mut loaded.db, Arc::new(files));
    }
    added
}
