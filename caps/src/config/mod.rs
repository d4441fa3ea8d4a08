//! Run configurations and lint settings (editors.md §1, analysis.md §3, decisions.md 15 and 39):
//! the receiver's side of the contract, naming a script with its capabilities, working directory,
//! ceilings and arguments.
//!
//! One resolver, shared by `vox run` and the language server's `vox.run` (which read `Vox.toml`
//! only, through [`resolve_run`]), the CLI's analysis and the language server's (which read all
//! three files through [`load_workspace`] or, for unsaved editor buffers, [`workspace_from_texts`]).
//!
//! The edits in [`set_caps_vox_toml`], [`set_caps_tasks_json`] and [`set_caps_launch_json`] are
//! pure functions from old text to new text that keep the user's comments and layout.

mod ceilings;
mod edit;
mod lint;
mod locator;
mod text;
mod types;
mod vox_toml;
mod vscode;

use std::path::{Path, PathBuf};

use crate::set::CapSet;
use crate::token::{parse_token, CapsError, Token};

use text::{line_col, strip_bom};

pub use edit::{entry_name_for, set_caps_launch_json, set_caps_tasks_json, set_caps_vox_toml};
pub use lint::LintConfig;
pub use types::{ConfigError, ConfigKind, ConfigOrigin, ConfigSection, RunConfig};

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

/// The nearest `Vox.toml` walking up from `start` (a directory).
pub fn find_vox_toml(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let candidate = d.join("Vox.toml");
        if candidate.is_file() {
            return Some(candidate);
        }
        dir = d.parent();
    }
    None
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

/// Entries whose script is `script` (compared as canonical paths).
pub fn entries_for<'c>(configs: &'c [RunConfig], script: &Path) -> Vec<&'c RunConfig> {
    let want = script
        .canonicalize()
        .unwrap_or_else(|_| script.to_path_buf());
    configs
        .iter()
        .filter(|c| c.script.canonicalize().unwrap_or_else(|_| c.script.clone()) == want)
        .collect()
}

/// The run configuration `vox run SCRIPT` (with `--config NAME` when `name` is given, without
/// `--caps`) uses: the nearest `Vox.toml` above the script's directory ([`find_vox_toml`]), its
/// entry named `name`, else the one entry whose script is `script`. `Ok(None)`: no `Vox.toml`,
/// or no entry for the script. An error is the line `vox run` prints before exiting 1 (an
/// invalid `Vox.toml`, an unknown name, several entries for the script); the language server
/// refuses a run with the same line (decision 54).
pub fn resolve_run(script: &Path, name: Option<&str>) -> Result<Option<RunConfig>, String> {
    let dir = script
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    let Some(toml_path) = find_vox_toml(&dir) else {
        return match name {
            Some(name) => Err(format!(
                "vox: --config {name}: no Vox.toml found in {} or its parents",
                dir.display()
            )),
            None => Ok(None),
        };
    };
    let configs = load_vox_toml(&toml_path).map_err(|e| format!("vox: {e}"))?;
    if let Some(name) = name {
        return match configs.iter().find(|c| c.name == name) {
            Some(c) => Ok(Some(c.clone())),
            None => {
                let names: Vec<&str> = configs.iter().map(|c| c.name.as_str()).collect();
                Err(format!(
                    "vox: no run configuration named `{name}` in {} (it has: {})",
                    toml_path.display(),
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ))
            }
        };
    }
    let matching = entries_for(&configs, script);
    match matching.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some((*one).clone())),
        many => {
            let names: Vec<&str> = many.iter().map(|c| c.name.as_str()).collect();
            Err(format!(
                "vox: {} has {} run configurations for {} ({}); choose one with --config NAME",
                toml_path.display(),
                many.len(),
                script.display(),
                names.join(", ")
            ))
        }
    }
}

/// The tokens of a run configuration parsed against its `cwd` as `vox run` parses them; an
/// error is the line `vox run` prints before exiting 1.
pub fn run_tokens(config: &RunConfig) -> Result<Vec<Token>, String> {
    config
        .caps
        .iter()
        .flatten()
        .map(|t| {
            parse_token(t, &config.cwd)
                .map_err(|e| format!("{} (in run configuration `{}`)", e.render(), config.name))
        })
        .collect()
}

/// The capability set a run configuration grants, its tokens parsed relative to its `cwd`
/// exactly as `vox run` does: no `caps` key, like `caps = []`, grants none.
pub fn config_caps(config: &RunConfig) -> Result<CapSet, CapsError> {
    let tokens = config
        .caps
        .iter()
        .flatten()
        .map(|t| parse_token(t, &config.cwd))
        .collect::<Result<Vec<_>, _>>()?;
    CapSet::from_tokens(&tokens)
}
