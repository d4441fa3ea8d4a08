//! A file's globals declared once (functions, variants, codecs, imports), shared by the
//! single-function lowerings of that file, and the names an imported file exports.

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::ir::*;

/// The public names an imported file exports, known before the importer is lowered.
#[derive(Clone, Debug, Default)]
pub struct ImportedNames {
    pub functions: Vec<Rc<str>>,
    /// Public ADT variants.
    pub variants: Vec<Rc<str>>,
}

/// A file's globals (functions, variants, codecs, imports) declared once, shared by the
/// single-function lowerings of that file: each takes only the names it uses. Plain `Send` data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalTable {
    /// (hash of the name, name, global), sorted by hash: a binary search over integers, then one
    /// comparison of names. A hash map's buckets would cost half as much again, and there is one
    /// table per file of a workspace, one entry per function. The names share the item tree's
    /// strings where it has them (fresh strings would cost as much as the entries).
    pub(crate) names: Box<[(u64, Arc<str>, u32)]>,
    pub(crate) globals: Box<[TableGlobal]>,
    /// The payloads of [`TableGlobal::Variant`], apart so that every entry is two words.
    pub(crate) variant_defs: Box<[TableVariant]>,
    pub(crate) variants: HashMap<Arc<str>, usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TableVariant {
    pub(crate) name: Arc<str>,
    pub(crate) fields: Box<[Arc<str>]>,
    pub(crate) is_pub: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TableGlobal {
    Fn(FnId),
    /// An index in [`GlobalTable::variant_defs`].
    Variant(u32),
    ImportAlias(u32),
    /// A public function or variant of an import, under its own name (the table's key).
    Imported(u32),
    JsonFrom(u32),
    JsonTo(u32),
}

/// The key of [`GlobalTable::names`].
pub(crate) fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(name)
}

pub(crate) fn arc(s: &str) -> Arc<str> {
    Arc::from(s)
}
