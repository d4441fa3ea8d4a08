//! Parsing and the item tree: the file-level queries. Every file is parsed once per revision,
//! whatever imports it; each function's subtree is extracted into a tracked [`FnDef`] whose
//! `syntax` only changes when that function's own text does.

use std::sync::Arc;

use vox_hir::ItemTree;
use vox_syntax::SyntaxTree;

use crate::{Db, SourceFile};

/// The file's syntax tree. Never backdated (a new text is a new tree); what depends on it
/// compares its own results instead.
#[salsa::tracked(returns(ref), no_eq, lru = 256)]
pub fn parse(db: &dyn Db, file: SourceFile) -> Arc<SyntaxTree> {
    Arc::new(vox_syntax::parse(file.text(db)))
}

/// One function of a file (or its synthetic main, named `<main>`), identified by file and name.
#[salsa::tracked(debug)]
pub struct FnDef<'db> {
    #[returns(copy)]
    pub file: SourceFile,
    #[returns(ref)]
    pub name: Arc<str>,
    /// Position among the file's functions (`u32::MAX` for the synthetic main).
    #[tracked]
    #[returns(copy)]
    pub index: u32,
    /// The function's subtree, offsets relative to its first byte (the whole file for the
    /// synthetic main).
    #[tracked]
    #[returns(ref)]
    pub syntax: Arc<SyntaxTree>,
}

#[derive(Clone, Debug, PartialEq, Eq, salsa::SalsaValue)]
pub struct FileItems<'db> {
    pub items: Arc<ItemTree>,
    /// In `items.fns` order.
    pub fns: Vec<FnDef<'db>>,
    pub main: Option<FnDef<'db>>,
}

impl<'db> FileItems<'db> {
    /// Every function, the synthetic main last.
    pub fn all(&self) -> impl Iterator<Item = FnDef<'db>> + '_ {
        self.fns.iter().copied().chain(self.main)
    }
}

/// The item tree and one [`FnDef`] per function. Equal after an edit inside a body, so what
/// depends only on names and signatures is reused.
#[salsa::tracked(returns(ref))]
pub fn file_items(db: &dyn Db, file: SourceFile) -> FileItems<'_> {
    let tree = parse(db, file);
    let (items, nodes) = vox_hir::item_tree(tree);
    let fns = nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let name = items.fns[i].name.clone();
            FnDef::new(db, file, name, i as u32, Arc::new(tree.extract(*node)))
        })
        .collect();
    let main = items
        .has_top_level_stmts
        .then(|| FnDef::new(db, file, Arc::from("<main>"), u32::MAX, tree.clone()));
    FileItems {
        items: Arc::new(items),
        fns,
        main,
    }
}

/// Where each function of the file starts now (in `fns` order): relative ranges of facts become
/// file offsets here, at the edge. Re-run on every edit; cheap.
#[salsa::tracked(returns(ref), no_eq)]
pub fn fn_starts(db: &dyn Db, file: SourceFile) -> Vec<u32> {
    let tree = parse(db, file);
    let (_, nodes) = vox_hir::item_tree(tree);
    nodes.iter().map(|n| n.range().start).collect()
}

/// Where a function's relative offsets start in its file.
pub fn fn_base(db: &dyn Db, f: FnDef<'_>) -> u32 {
    let i = f.index(db);
    if i == u32::MAX {
        0
    } else {
        fn_starts(db, f.file(db))
            .get(i as usize)
            .copied()
            .unwrap_or(0)
    }
}
