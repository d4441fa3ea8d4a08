//! The resolved intermediate form of VoxScript, shared by the interpreter and the analysis: what
//! the linter sees is what runs.

pub mod catalog;
mod clash;
mod global_table;
pub mod ir;
pub mod items;
mod link;
mod lower;
mod lower_body;
mod lowerer;

pub use catalog::{BuiltinInfo, Cap, Nondet};
pub use clash::{
    clashes_with, import_clashes, local_names, ClashWith, Codec, ImportClash, LocalName,
};
pub use global_table::{GlobalTable, ImportedNames};
pub use ir::*;
pub use items::{fn_item, is_top_level_stmt, item_tree, item_tree_of, ItemTree};
pub use link::lower_by_function;
pub use lower::{
    file_imports, global_table, lower, lower_function, lower_function_in, lower_top_level,
    BuiltinCatalog,
};
pub use lowerer::literal;
