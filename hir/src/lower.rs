//! Lowering a syntax tree to the resolved form: every name becomes a slot, a global, a builtin or an
//! explicit `Undefined`, so nothing is looked up by string while the program runs.

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;
use std::sync::Arc;

use vox_syntax::ast::{self, AstNode};
use vox_syntax::strings;
use vox_syntax::{SyntaxKind as K, SyntaxNode, SyntaxTree, TextRange};

pub use crate::catalog::BuiltinCatalog;
use crate::global_table::{arc, name_hash, GlobalTable, ImportedNames, TableGlobal, TableVariant};
use crate::ir::*;
use crate::items::{item_tree, ItemTree};
use crate::lowerer::{rc, Lowerer};

/// File imports of a tree, in source order, so a loader can resolve them before lowering.
pub fn file_imports(tree: &SyntaxTree) -> Vec<FileImport> {
    let mut out = Vec::new();
    for item in tree.root().children() {
        if let Some(imp) = ast::Import::cast(item) {
            if let Some(path) = imp.path() {
                let value = strings::decode(path.bytes(), path.range().start, None)
                    .as_plain()
                    .unwrap_or_default();
                out.push(FileImport {
                    path: value,
                    alias: imp.alias().map(|a| Rc::from(a.text().as_ref())),
                    range: item.range(),
                });
            }
        }
    }
    out
}

/// Lowers a parsed file. `imported[i]` lists the public names of `file_imports(tree)[i]`.
pub fn lower(
    tree: &SyntaxTree,
    catalog: &dyn BuiltinCatalog,
    imported: &[ImportedNames],
) -> Module {
    let mut l = Lowerer::new(catalog);
    l.m.imports = file_imports(tree);
    let (items, _) = item_tree(tree);
    l.declare_globals(&items, imported);
    l.declare_definitions(tree);
    l.lower_items(tree);
    l.m
}

/// What [`lower`] declares before it lowers any body: the file's globals, types and imports,
/// and one placeholder per function (`crate::link` fills them with the functions' own bodies).
pub(crate) fn file_level(
    tree: &SyntaxTree,
    items: &ItemTree,
    catalog: &dyn BuiltinCatalog,
    imported: &[ImportedNames],
) -> Module {
    let mut l = Lowerer::new(catalog);
    l.m.imports = file_imports(tree);
    l.declare_globals(items, imported);
    l.declare_definitions(tree);
    l.m
}

/// Lowers one top-level function from its own tree (a parse of its text, or its subtree:
/// `SyntaxTree::subtree`), so every range is relative to the function's first byte (decision
/// 47). `functions[0]` is the function and its closures follow; `Global::Fn(k)` names the
/// file's `k`-th function item.
pub fn lower_function(
    fn_tree: &SyntaxTree,
    table: &GlobalTable,
    catalog: &dyn BuiltinCatalog,
) -> Module {
    // The function itself, or the first function of a parsed snippet.
    let root = fn_tree.root();
    let node = if root.kind() == K::FnDecl {
        Some(root)
    } else {
        root.children().find(|n| n.kind() == K::FnDecl)
    };
    lower_fn_node(node, fn_tree.node_count(), table, catalog)
}

/// Lowers the top-level function `node` where it lies in its file's tree, giving what
/// [`lower_function`] gives for its subtree (ranges relative to the function's first byte)
/// without copying the subtree out first.
pub fn lower_function_in(
    node: SyntaxNode<'_>,
    table: &GlobalTable,
    catalog: &dyn BuiltinCatalog,
) -> Module {
    let mut m = lower_fn_node(Some(node), node.subtree_node_count(), table, catalog);
    let base = node.range().start;
    if base != 0 {
        let moved = |r: &mut TextRange| *r = TextRange::new(r.start - base, r.end - base);
        m.expr_ranges.iter_mut().for_each(moved);
        m.stmt_ranges.iter_mut().for_each(moved);
        m.functions.iter_mut().for_each(|f| moved(&mut f.range));
    }
    m
}

fn lower_fn_node(
    node: Option<SyntaxNode<'_>>,
    nodes: usize,
    table: &GlobalTable,
    catalog: &dyn BuiltinCatalog,
) -> Module {
    let mut l = Lowerer::new(catalog);
    l.table = Some(table);
    // Fewer expressions than nodes: no arena grows while lowering.
    l.m.exprs.reserve(nodes);
    l.m.expr_ranges.reserve(nodes);
    // Statements and patterns are rarer: about one node in twelve and in twenty.
    l.m.stmts.reserve(nodes / 8);
    l.m.stmt_ranges.reserve(nodes / 8);
    l.m.pats.reserve(nodes / 16);
    if let Some(f) = node.and_then(ast::FnDecl::cast) {
        let root = f.syntax();
        l.m.functions.push(Function {
            name: f.name().map(|n| rc(&n.text())),
            params: Vec::new(),
            n_slots: 0,
            capture_slots: Vec::new(),
            body: 0,
            range: root.range(),
            is_pub: f.is_pub(),
            is_closure: false,
        });
        l.lower_fn_decl(0, f);
    }
    l.m
}

/// Lowers only a file's top-level statements (the synthetic main, named by `main`), with ranges
/// as in the file. `None` when the file has none.
pub fn lower_top_level(
    tree: &SyntaxTree,
    items: &ItemTree,
    table: &GlobalTable,
    catalog: &dyn BuiltinCatalog,
) -> Option<Module> {
    if !items.has_top_level_stmts {
        return None;
    }
    let mut l = Lowerer::new(catalog);
    l.table = Some(table);
    l.lower_synthetic_main(tree);
    Some(l.m)
}

/// Declares a file's globals once (the same declaration as [`lower`]'s) for [`lower_function`].
pub fn global_table(items: &ItemTree, imported: &[ImportedNames]) -> GlobalTable {
    struct NoCatalog;
    impl BuiltinCatalog for NoCatalog {
        fn global_fn(&self, _: &str) -> Option<u32> {
            None
        }
        fn is_namespace(&self, _: &str) -> bool {
            false
        }
        fn member(&self, _: &str, _: &str) -> Option<u32> {
            None
        }
        fn info(&self, _: u32) -> crate::catalog::BuiltinInfo {
            crate::catalog::BuiltinInfo {
                ns: "",
                name: "",
                cap: crate::catalog::Cap::None,
                nondet: crate::catalog::Nondet::None,
            }
        }
    }
    let mut l = Lowerer::new(&NoCatalog);
    l.declare_globals(items, imported);
    // The item tree's own strings, to share rather than copy.
    let own: HashMap<&str, &Arc<str>> = items
        .fns
        .iter()
        .map(|f| &f.name)
        .chain(items.types.iter().flat_map(|t| {
            t.variants
                .iter()
                .flat_map(|(v, fields)| std::iter::once(v).chain(fields))
        }))
        .chain(items.imports.iter().filter_map(|i| i.alias.as_ref()))
        .map(|a| (&**a, a))
        .collect();
    let shared = |n: &str| own.get(n).map_or_else(|| arc(n), |a| Arc::clone(a));
    let mut variant_defs = Vec::new();
    let globals =
        l.m.globals
            .iter()
            .map(|g| match g {
                Global::Fn(k) => TableGlobal::Fn(*k),
                Global::Variant {
                    name,
                    fields,
                    is_pub,
                } => {
                    variant_defs.push(TableVariant {
                        name: shared(name),
                        fields: fields.iter().map(|f| shared(f)).collect(),
                        is_pub: *is_pub,
                    });
                    TableGlobal::Variant(variant_defs.len() as u32 - 1)
                }
                Global::ImportAlias { import } => TableGlobal::ImportAlias(*import),
                Global::Imported { import, .. } => TableGlobal::Imported(*import),
                Global::JsonFrom { ty } => TableGlobal::JsonFrom(*ty),
                Global::JsonTo { ty } => TableGlobal::JsonTo(*ty),
            })
            .collect();
    GlobalTable {
        names: {
            let mut names: Vec<(u64, Arc<str>, u32)> = l
                .globals
                .iter()
                .map(|(n, id)| (name_hash(n), shared(n), *id))
                .collect();
            names.sort_unstable();
            names.into()
        },
        globals,
        variant_defs: variant_defs.into(),
        variants: l.variants.iter().map(|(n, c)| (shared(n), *c)).collect(),
    }
}
