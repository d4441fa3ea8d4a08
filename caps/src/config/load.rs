//! Reading the configuration files: `Vox.toml` alone (what `vox run` reads) or the workspace's
//! three files with the `[lint]` table, from disk or from an editor's buffers.

use std::path::{Path, PathBuf};

use super::lint::LintConfig;
use super::text::{line_col, strip_bom};
use super::types::{ConfigError, ConfigKind, ConfigSection, RunConfig};
use super::{vox_toml, vscode};

/// Everything the workspace configures: run configurations from all three files and the
/// `[lint]` table. A file that is invalid contributes one error and nothing else; the other
/// files still load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspaceConfig {
    pub root: PathBuf,
    /// In file order: `Vox.toml`, then `tasks.json`, then `launch.json`; within a file, in the
    /// order written.
    pub runs: Vec<RunConfig>,
    pub lint: LintConfig,
    pub errors: Vec<ConfigError>,
}

/// Reads a configuration file: `Ok(None)` when it does not exist.
fn read_config(path: &Path) -> Result<Option<String>, ConfigError> {
    let err = |line, column, message: String| ConfigError {
        file: path.to_path_buf(),
        line,
        column,
        message,
        section: ConfigSection::Run,
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None)
        }
        Err(e) => {
            return Err(err(
                1,
                1,
                format!("cannot read it: {e}; check that it is a readable file"),
            ))
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some(text)),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let text = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
            let text = strip_bom(text);
            let (line, column) = line_col(text, text.len());
            Err(err(
                line,
                column,
                "the file is not UTF-8 text; save it as UTF-8".to_string(),
            ))
        }
    }
}

/// Parses the `[run.*]` entries of a `Vox.toml` file (what `vox run` reads; the `[lint]` table is
/// not looked at here).
pub fn load_vox_toml(path: &Path) -> Result<Vec<RunConfig>, ConfigError> {
    let text = match read_config(path) {
        Ok(Some(text)) => text,
        Ok(None) => {
            return Err(ConfigError {
                file: path.to_path_buf(),
                line: 1,
                column: 1,
                message: "cannot read it: the file does not exist".into(),
                section: ConfigSection::Run,
            })
        }
        Err(e) => return Err(e),
    };
    vox_toml::parse(&text, path, false).map(|(runs, _)| runs)
}

/// Reads `root/Vox.toml`, `root/.vscode/tasks.json` and `root/.vscode/launch.json`, each
/// optional. Never fails: an invalid file becomes one entry of `errors`.
pub fn load_workspace(root: &Path) -> WorkspaceConfig {
    let mut errors = Vec::new();
    let mut read = |path: PathBuf| match read_config(&path) {
        Ok(text) => text,
        Err(e) => {
            errors.push(e);
            None
        }
    };
    let vox_toml = read(root.join("Vox.toml"));
    let tasks = read(root.join(".vscode").join("tasks.json"));
    let launch = read(root.join(".vscode").join("launch.json"));
    let mut config = workspace_from_texts(
        root,
        vox_toml.as_deref(),
        tasks.as_deref(),
        launch.as_deref(),
    );
    // Read errors first, in file order, like the parse errors.
    errors.append(&mut config.errors);
    errors.sort_by_key(|e| file_rank(root, &e.file));
    config.errors = errors;
    config
}

fn file_rank(root: &Path, file: &Path) -> usize {
    if file == root.join("Vox.toml") {
        0
    } else if file == root.join(".vscode").join("tasks.json") {
        1
    } else {
        2
    }
}

/// [`load_workspace`] over texts already in memory (an editor's unsaved buffers): `None` for a
/// file that does not exist. Paths in the result are those the files would have under `root`.
pub fn workspace_from_texts(
    root: &Path,
    vox_toml: Option<&str>,
    tasks_json: Option<&str>,
    launch_json: Option<&str>,
) -> WorkspaceConfig {
    let mut config = WorkspaceConfig {
        root: root.to_path_buf(),
        runs: Vec::new(),
        lint: LintConfig::default(),
        errors: Vec::new(),
    };
    if let Some(text) = vox_toml {
        match vox_toml::parse(text, &root.join("Vox.toml"), true) {
            Ok((runs, lint)) => {
                config.runs.extend(runs);
                config.lint = lint;
            }
            Err(e) => config.errors.push(e),
        }
    }
    let vscode = root.join(".vscode");
    for (text, kind, name) in [
        (tasks_json, ConfigKind::Tasks, "tasks.json"),
        (launch_json, ConfigKind::Launch, "launch.json"),
    ] {
        if let Some(text) = text {
            match vscode::parse(text, &vscode.join(name), root, kind) {
                Ok(runs) => config.runs.extend(runs),
                Err(e) => config.errors.push(e),
            }
        }
    }
    config
}
