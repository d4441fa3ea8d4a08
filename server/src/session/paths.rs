//! Paths the server cares about: which files are scripts or run configurations, a URI's path,
//! the workspace root above a folder, and the workspace walk.

use std::path::{Path, PathBuf};
use tower_lsp_server::ls_types::Uri;
use vox_caps::config::ConfigKind;

/// Which configuration file a path is, if any.
pub fn config_kind(root: &Path, path: &Path) -> Option<ConfigKind> {
    if path == root.join("Vox.toml") {
        Some(ConfigKind::VoxToml)
    } else if path == root.join(".vscode").join("tasks.json") {
        Some(ConfigKind::Tasks)
    } else if path == root.join(".vscode").join("launch.json") {
        Some(ConfigKind::Launch)
    } else {
        None
    }
}

pub fn config_path(root: &Path, kind: ConfigKind) -> PathBuf {
    match kind {
        ConfigKind::VoxToml => root.join("Vox.toml"),
        ConfigKind::Tasks => root.join(".vscode").join("tasks.json"),
        ConfigKind::Launch => root.join(".vscode").join("launch.json"),
    }
}

pub fn is_script(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "vox")
}

/// Lexically clean absolute path.
pub fn clean(p: &Path) -> PathBuf {
    vox_analysis::clean_path(p)
}

/// The path of a `file:` URI, lexically clean.
pub(crate) fn path_of(uri: &Uri) -> Option<PathBuf> {
    let p = uri.to_file_path()?;
    if !p.is_absolute() {
        return None;
    }
    Some(clean(&p))
}

/// The workspace root for a folder the client names: the nearest directory above it holding
/// `Vox.toml` (as `vox lint` finds it), else the folder itself.
pub fn find_root(folder: &Path) -> PathBuf {
    match vox_caps::config::find_vox_toml(folder) {
        Some(t) => t.parent().map_or(folder.to_path_buf(), Path::to_path_buf),
        None => folder.to_path_buf(),
    }
}

/// Every `*.vox` under `root`, honouring `.gitignore` and `[lint] exclude` (as `vox lint .`).
pub fn walk(root: &Path, exclude: Option<&ignore::overrides::Override>) -> Vec<PathBuf> {
    let mut builder = ignore::WalkBuilder::new(root);
    builder.require_git(false).hidden(true);
    if let Some(o) = exclude {
        builder.overrides(o.clone());
    }
    let mut out = Vec::new();
    for entry in builder.build().flatten() {
        let path = entry.path();
        if entry.file_type().is_some_and(|t| t.is_file()) && is_script(path) {
            out.push(clean(path));
        }
    }
    out.sort();
    out.dedup();
    out
}

pub(crate) fn exclude_override(
    root: &Path,
    patterns: &[String],
) -> Option<ignore::overrides::Override> {
    if patterns.is_empty() {
        return None;
    }
    let mut b = ignore::overrides::OverrideBuilder::new(root);
    for p in patterns {
        b.add(&format!("!{p}")).ok()?;
    }
    b.build().ok()
}
