//! The resolved intermediate form of VoxScript, shared by the interpreter and the analysis: what
//! the linter sees is what runs.

mod clash;
pub mod ir;
mod lower;

pub use clash::{import_clashes, ClashWith, ImportClash};
pub use ir::*;
pub use lower::{file_imports, literal, lower, BuiltinCatalog, ImportedNames};
