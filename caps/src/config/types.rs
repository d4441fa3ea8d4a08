//! The values configuration files hold: run configurations, where each is written, and the
//! error a file that cannot be read or parsed gives.

use std::path::PathBuf;

/// One run configuration: a `[run.NAME]` entry of `Vox.toml`, a `"type": "vox"` task of
/// `.vscode/tasks.json` or a `"type": "vox"` configuration of `.vscode/launch.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunConfig {
    /// The `Vox.toml` entry name, the task `label` or the launch configuration `name`.
    pub name: String,
    /// The script, resolved against the directory of `Vox.toml` (or the workspace root for the
    /// VS Code files).
    pub script: PathBuf,
    /// The working directory, resolved the same way (default: that directory).
    pub cwd: PathBuf,
    /// `None` when the entry has no `caps` key; `Some(vec![])` means none.
    pub caps: Option<Vec<String>>,
    /// Ceilings by flag name without dashes (`max-steps`), as given (integers or size strings).
    pub ceilings: Vec<(String, String)>,
    pub args: Vec<String>,
    /// Where the entry is written.
    pub origin: ConfigOrigin,
}

/// Which of the three files holds a run configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConfigKind {
    /// `Vox.toml`, a `[run.NAME]` entry.
    VoxToml,
    /// `.vscode/tasks.json`, a task of type `"vox"`.
    Tasks,
    /// `.vscode/launch.json`, a configuration of type `"vox"`.
    Launch,
}

impl ConfigKind {
    /// The file's name as people write it.
    pub fn file_name(self) -> &'static str {
        match self {
            ConfigKind::VoxToml => "Vox.toml",
            ConfigKind::Tasks => "tasks.json",
            ConfigKind::Launch => "launch.json",
        }
    }
}

/// Where a run configuration is written: the file and the 1-based line and column (in Unicode
/// scalars) of the `[run.NAME]` header or of the `{` of the JSON object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigOrigin {
    pub file: PathBuf,
    pub kind: ConfigKind,
    pub line: u32,
    pub column: u32,
}

/// Which part of a configuration file an error is about; it only changes the wording of
/// [`ConfigError`]'s `Display`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigSection {
    /// The file as a whole (unreadable, bad syntax) or a run configuration in it.
    Run,
    /// The `[lint]` table of `Vox.toml`.
    Lint,
}

/// An invalid configuration file: where and why (`config.invalid`, decision 39). The message
/// says what happened and what to write instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub file: PathBuf,
    /// 1-based line and column (in Unicode scalars) of the offending value, when known.
    pub line: u32,
    pub column: u32,
    pub message: String,
    pub section: ConfigSection,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.section {
            ConfigSection::Run => "invalid run configuration",
            ConfigSection::Lint => "invalid lint configuration",
        };
        write!(
            f,
            "{}:{}:{}: {what}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

impl std::error::Error for ConfigError {}
