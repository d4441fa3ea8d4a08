//! Which run configuration applies to a script, and what it grants: the resolver `vox run` and
//! the language server's `vox.run` share (decision 54).

use std::path::{Path, PathBuf};

use crate::set::CapSet;
use crate::token::{parse_token, CapsError, Token};

use super::load::load_vox_toml;
use super::types::RunConfig;

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
        return named(&configs, name, &toml_path).map(Some);
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

/// The entry `name` of the nearest `Vox.toml` above `dir`: `vox run --config NAME` given no
/// script runs that entry's script.
pub fn resolve_named(dir: &Path, name: &str) -> Result<RunConfig, String> {
    let Some(toml_path) = find_vox_toml(dir) else {
        return Err(format!(
            "vox: --config {name}: no Vox.toml found in {} or its parents",
            dir.display()
        ));
    };
    let configs = load_vox_toml(&toml_path).map_err(|e| format!("vox: {e}"))?;
    named(&configs, name, &toml_path)
}

fn named(configs: &[RunConfig], name: &str, toml_path: &Path) -> Result<RunConfig, String> {
    match configs.iter().find(|c| c.name == name) {
        Some(c) => Ok(c.clone()),
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
