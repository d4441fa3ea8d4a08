//! The server's state: one [`Session`] per workspace folder ([`Workspaces`]), each with its files in
//! the analysis database, open documents, run configurations and lint options; requests work on a
//! [`Snapshot`].

mod paths;
mod settings;
mod snapshot;
mod workspace;
mod workspaces;

pub use paths::*;
pub use settings::*;
pub use snapshot::*;
pub use workspace::*;
pub use workspaces::*;
