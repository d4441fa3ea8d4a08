//! A file's globals declared once (functions, variants, codecs, imports), shared by the
//! single-function lowerings of that file, and the names an imported file exports.

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::ir::*;
use crate::items::{FnItem, ItemTree};

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

impl GlobalTable {
    /// The part of this table (of the file whose item tree is `items`) that a body naming only
    /// `names` can read, with the item tree it indexes: the functions among `names` (and `own`,
    /// a position in `items.fns`, first) renumbered in the order of `names`; types and imports
    /// only in the table, by their index (a body reads only the tree's functions). A body
    /// lowered with it gives what it gives with the whole table (its functions numbered in the
    /// small tree), and the part stays equal when functions the body does not name are added,
    /// removed or moved.
    pub fn restricted<'n>(
        &self,
        items: &ItemTree,
        own: Option<usize>,
        names: impl IntoIterator<Item = &'n str>,
    ) -> (GlobalTable, ItemTree) {
        let mut fns: Vec<Arc<FnItem>> = Vec::new();
        let mut local: HashMap<u32, u32> = HashMap::default();
        let mut take_fn = |k: u32, fns: &mut Vec<Arc<FnItem>>| -> u32 {
            *local.entry(k).or_insert_with(|| {
                fns.push(items.fns[k as usize].clone());
                fns.len() as u32 - 1
            })
        };
        if let Some(k) = own.filter(|&k| k < items.fns.len()) {
            take_fn(k as u32, &mut fns);
        }
        let (mut entries, mut globals, mut variant_defs) = (Vec::new(), Vec::new(), Vec::new());
        let mut variants = HashMap::default();
        for name in names {
            if let Some(&c) = self.variants.get(name) {
                variants.insert(Arc::from(name), c);
            }
            let hash = name_hash(name);
            let from = self.names.partition_point(|e| e.0 < hash);
            let Some((h, n, tid)) = self.names[from..]
                .iter()
                .take_while(|e| e.0 == hash)
                .find(|e| &*e.1 == name)
            else {
                continue;
            };
            if entries
                .iter()
                .any(|(eh, en, _): &(u64, Arc<str>, u32)| eh == h && en == n)
            {
                continue;
            }
            let g = match self.globals[*tid as usize] {
                TableGlobal::Fn(k) => TableGlobal::Fn(take_fn(k, &mut fns)),
                TableGlobal::Variant(v) => {
                    variant_defs.push(self.variant_defs[v as usize].clone());
                    TableGlobal::Variant(variant_defs.len() as u32 - 1)
                }
                other => other,
            };
            globals.push(g);
            entries.push((*h, n.clone(), globals.len() as u32 - 1));
        }
        entries.sort_unstable();
        let table = GlobalTable {
            names: entries.into(),
            globals: globals.into(),
            variant_defs: variant_defs.into(),
            variants,
        };
        // Its types and imports are named through the table (by index); a body reads only the
        // functions of the item tree.
        let scope = ItemTree {
            decls: Vec::new(),
            fns,
            types: Vec::new(),
            imports: Vec::new(),
            has_top_level_stmts: false,
        };
        (table, scope)
    }
}
