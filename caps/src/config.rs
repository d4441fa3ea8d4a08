//! Run configurations in `Vox.toml` (editors.md §1, decisions.md 15 and 39): the receiver's side of
//! the contract, naming a script with its capabilities, working directory, ceilings and arguments.
//! One resolver, shared by `vox run` and the analysis.

use std::path::{Path, PathBuf};

/// One `[run.NAME]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunConfig {
    pub name: String,
    /// The script, resolved against the directory of `Vox.toml`.
    pub script: PathBuf,
    /// The working directory, resolved against the directory of `Vox.toml` (default: that directory).
    pub cwd: PathBuf,
    /// `None` when the entry has no `caps` key; `Some(vec![])` means none.
    pub caps: Option<Vec<String>>,
    /// Ceilings by flag name without dashes (`max-steps`), as given (integers, size strings, or
    /// for `timeout` duration strings such as `"5m"`).
    pub ceilings: Vec<(String, String)>,
    pub args: Vec<String>,
}

/// An invalid `Vox.toml`: where and why (`config.invalid`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub file: PathBuf,
    /// 1-based line and column, when known.
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: invalid run configuration: {}",
            self.file.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

const CEILINGS: &[&str] = &[
    "max-steps",
    "max-depth",
    "max-memory",
    "max-disk",
    "max-files",
    "max-output",
    "timeout",
];

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

fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    (line, col)
}

/// Parses the `[run.*]` entries of a `Vox.toml` file.
pub fn load_vox_toml(path: &Path) -> Result<Vec<RunConfig>, ConfigError> {
    let err = |line, column, message: String| ConfigError {
        file: path.to_path_buf(),
        line,
        column,
        message,
    };
    let text =
        std::fs::read_to_string(path).map_err(|e| err(1, 1, format!("cannot read it: {e}")))?;
    let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let (line, col) = e.span().map_or((1, 1), |s| line_col(&text, s.start));
        err(line, col, e.message().to_string())
    })?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    let Some(run) = doc.get("run") else {
        return Ok(out);
    };
    let Some(run) = run.as_table() else {
        return Err(err(
            1,
            1,
            "`run` must be a table of named entries: [run.NAME]".into(),
        ));
    };
    for (name, entry) in run {
        let at = |key: &str| {
            let needle = format!("[run.{name}]");
            let off = text
                .find(&needle)
                .map_or(0, |o| text[o..].find(key).map_or(o, |k| o + k));
            line_col(&text, off)
        };
        let Some(entry) = entry.as_table() else {
            let (l, c) = at("");
            return Err(err(l, c, format!("`run.{name}` must be a table")));
        };
        let Some(script) = entry.get("script").and_then(|s| s.as_str()) else {
            let (l, c) = at("");
            return Err(err(
                l,
                c,
                format!("`run.{name}` needs `script = \"path/to/script.vox\"`"),
            ));
        };
        let cwd = match entry.get("cwd") {
            None => base.to_path_buf(),
            Some(v) => match v.as_str() {
                Some(s) => base.join(s),
                None => {
                    let (l, c) = at("cwd");
                    return Err(err(l, c, format!("`run.{name}.cwd` must be a string")));
                }
            },
        };
        let caps = match entry.get("caps") {
            None => None,
            Some(v) => match v.as_array() {
                Some(items) => {
                    let mut caps = Vec::new();
                    for i in items {
                        match i.as_str() {
                            Some(s) => caps.push(s.to_string()),
                            None => {
                                let (l, c) = at("caps");
                                return Err(err(
                                    l,
                                    c,
                                    format!("`run.{name}.caps` must be a list of token strings"),
                                ));
                            }
                        }
                    }
                    Some(caps)
                }
                None => {
                    let (l, c) = at("caps");
                    return Err(err(
                        l,
                        c,
                        format!("`run.{name}.caps` must be a list such as [\"fs:ro=data\"]"),
                    ));
                }
            },
        };
        let mut ceilings = Vec::new();
        for key in CEILINGS {
            if let Some(v) = entry.get(*key) {
                let value = match v {
                    toml::Value::Integer(i) if *i >= 0 => i.to_string(),
                    toml::Value::String(s) => s.clone(),
                    _ if *key == "timeout" => {
                        let (l, c) = at(key);
                        return Err(err(l, c, format!("`run.{name}.timeout` must be a non-negative integer (seconds) or a duration string like \"90s\", \"5m\" or \"1h\"")));
                    }
                    _ => {
                        let (l, c) = at(key);
                        return Err(err(l, c, format!("`run.{name}.{key}` must be a non-negative integer or a size string like \"32MiB\"")));
                    }
                };
                let checked = if *key == "timeout" {
                    crate::parse_duration_secs(&value).map(|_| ())
                } else {
                    crate::parse_size(&value).map(|_| ())
                };
                if let Err(e) = checked {
                    let (l, c) = at(key);
                    return Err(err(l, c, format!("`run.{name}.{key}`: {e}")));
                }
                ceilings.push((key.to_string(), value));
            }
        }
        let args = match entry.get("args") {
            None => Vec::new(),
            Some(v) => match v.as_array() {
                Some(items) => items
                    .iter()
                    .map(|i| {
                        i.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| i.to_string())
                    })
                    .collect(),
                None => {
                    let (l, c) = at("args");
                    return Err(err(
                        l,
                        c,
                        format!("`run.{name}.args` must be a list of strings"),
                    ));
                }
            },
        };
        for key in entry.keys() {
            if !matches!(key.as_str(), "script" | "cwd" | "caps" | "args")
                && !CEILINGS.contains(&key.as_str())
            {
                let (l, c) = at(key);
                return Err(err(
                    l,
                    c,
                    format!(
                        "unknown key `{key}` in `run.{name}` (known: script, cwd, caps, args, {})",
                        CEILINGS.join(", ")
                    ),
                ));
            }
        }
        out.push(RunConfig {
            name: name.clone(),
            script: base.join(script),
            cwd,
            caps,
            ceilings,
            args,
        });
    }
    Ok(out)
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
