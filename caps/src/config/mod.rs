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
mod load;
mod locator;
mod resolve;
mod text;
mod types;
mod vox_toml;
mod vscode;

pub use ceilings::CEILINGS;
pub use edit::{entry_name_for, set_caps_launch_json, set_caps_tasks_json, set_caps_vox_toml};
pub use lint::{LintConfig, LINT_KEYS};
pub use load::{load_vox_toml, load_workspace, workspace_from_texts, WorkspaceConfig};
pub use resolve::{
    config_caps, entries_for, find_vox_toml, resolve_named, resolve_run, run_tokens,
};
pub use types::{ConfigError, ConfigKind, ConfigOrigin, ConfigSection, RunConfig};
pub use vox_toml::RUN_KEYS;
