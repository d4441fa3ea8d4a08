//! The database's inputs: the files and the workspace (salsa inputs, set by the CLI and the
//! server; everything else is derived from them).

use std::path::PathBuf;
use std::sync::Arc;

use crate::text::Text;

/// One `.vox` file the workspace or the editor knows.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: Text,
}

/// The files of the workspace by canonical path, and its root (the directory holding `Vox.toml`,
/// else where the command started). Configuration is read through `vox_caps::config`.
#[salsa::input(debug)]
pub struct Workspace {
    #[returns(ref)]
    pub root: PathBuf,
    #[returns(ref)]
    pub files: Arc<std::collections::BTreeMap<PathBuf, SourceFile>>,
}
