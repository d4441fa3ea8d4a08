//! The item tree of a file (decision 47): its functions, types and imports with their names and
//! signatures, and no offsets and no bodies. Typing inside a body leaves it equal, so whatever
//! depends on it (the scope every body is lowered in, the call graph) is reused. Plain `Send`
//! data, so the analysis database can keep it.

use std::sync::Arc;

use vox_syntax::ast::{self, AstNode};
use vox_syntax::{strings, SyntaxKind as K, SyntaxNode, SyntaxTree};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItemTree {
    /// Functions and types in source order: the order globals are declared in.
    pub decls: Vec<Decl>,
    /// Shared, so that the trees an edit makes from the last one (and the scopes bodies are
    /// lowered in) copy no function's item and compare unchanged ones by pointer.
    pub fns: Vec<Arc<FnItem>>,
    pub types: Vec<TypeItem>,
    pub imports: Vec<ImportItem>,
    /// Whether the file has top-level statements (a synthetic main).
    pub has_top_level_stmts: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decl {
    Fn(u32),
    Type(u32),
}

/// A parameter: its name, and its type annotation when it has one.
pub type Param = (Arc<str>, Option<Arc<str>>);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnItem {
    pub name: Arc<str>,
    pub is_pub: bool,
    /// Parameter names with their annotations as written (`map[str, int]`), if any.
    pub params: Box<[Param]>,
    /// The return annotation as written.
    pub ret: Option<Arc<str>>,
    /// Decorator names without `@`.
    pub decorators: Box<[Arc<str>]>,
}

impl FnItem {
    pub fn is_test(&self) -> bool {
        self.decorators
            .iter()
            .any(|d| &**d == "test" || &**d == "example")
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeItem {
    pub name: Arc<str>,
    pub is_pub: bool,
    pub json_as: bool,
    /// ADT variants with their field names (empty for records and aliases).
    pub variants: Vec<(Arc<str>, Vec<Arc<str>>)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportItem {
    /// The path as written (`./lib/util.vox`).
    pub path: String,
    pub alias: Option<Arc<str>>,
}

fn arc(s: &str) -> Arc<str> {
    Arc::from(s)
}

/// One allocation per distinct parameter name, annotation or decorator of a file: they repeat
/// (`text: str`, `rows: list`), and item trees of every file stay in memory.
#[derive(Default)]
struct Names(rustc_hash::FxHashMap<Box<str>, Arc<str>>);

impl Names {
    fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.0.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        self.0.insert(s.into(), a.clone());
        a
    }
}

/// The item tree of a parsed file, plus each top-level function's node (in `fns` order), so a
/// caller can extract and lower bodies one by one.
pub fn item_tree(tree: &SyntaxTree) -> (ItemTree, Vec<SyntaxNode<'_>>) {
    item_tree_of(tree.root().children())
}

/// [`item_tree`] of some of a file's top-level nodes (in order): what an editor reads again of
/// a run of them it parsed again.
pub fn item_tree_of<'t>(
    nodes: impl Iterator<Item = SyntaxNode<'t>>,
) -> (ItemTree, Vec<SyntaxNode<'t>>) {
    let mut items = ItemTree::default();
    let mut fn_nodes = Vec::new();
    let mut names = Names::default();
    for item in nodes {
        if let Some(f) = ast::FnDecl::cast(item) {
            let Some(fn_item) = fn_item_in(f, &mut names) else {
                continue;
            };
            items.decls.push(Decl::Fn(items.fns.len() as u32));
            items.fns.push(Arc::new(fn_item));
            fn_nodes.push(item);
        } else if let Some(t) = ast::TypeDecl::cast(item) {
            let Some(name) = t.name() else { continue };
            let variants = t
                .variants()
                .filter_map(|v| {
                    let vname = v.name()?;
                    let fields = v
                        .fields()
                        .map(|f| names.get(&f.name().map_or_else(|| "".into(), |n| n.text())))
                        .collect();
                    Some((arc(&vname.text()), fields))
                })
                .collect();
            items.decls.push(Decl::Type(items.types.len() as u32));
            items.types.push(TypeItem {
                name: arc(&name.text()),
                is_pub: t.is_pub(),
                json_as: t.json_as().is_some(),
                variants,
            });
        } else if let Some(imp) = ast::Import::cast(item) {
            if let Some(path) = imp.path() {
                let value = strings::decode(path.bytes(), path.range().start, None)
                    .as_plain()
                    .unwrap_or_default();
                items.imports.push(ImportItem {
                    path: value,
                    alias: imp.alias().map(|a| arc(&a.text())),
                });
            }
        } else if is_top_level_stmt(item.kind()) {
            items.has_top_level_stmts = true;
        }
    }
    items.decls.shrink_to_fit();
    items.fns.shrink_to_fit();
    items.types.shrink_to_fit();
    (items, fn_nodes)
}

/// The item of one function declaration (`None` without a name: not an item). Equal to its
/// entry in the file's [`item_tree`], so an editor re-reads only the function an edit changed.
pub fn fn_item(node: SyntaxNode<'_>) -> Option<FnItem> {
    fn_item_in(ast::FnDecl::cast(node)?, &mut Names::default())
}

fn fn_item_in(f: ast::FnDecl<'_>, names: &mut Names) -> Option<FnItem> {
    let name = f.name()?;
    let params: Vec<_> = f
        .param_list()
        .map(|pl| {
            pl.params()
                .map(|p| {
                    let n = names.get(&p.name().map_or_else(|| "_".into(), |n| n.text()));
                    (n, p.ty().map(|t| names.get(t.text().trim())))
                })
                .collect()
        })
        .unwrap_or_default();
    let ret = f
        .ret_type()
        .and_then(|r| r.syntax().children().next())
        .map(|n| names.get(n.text().trim()));
    Some(FnItem {
        name: arc(&name.text()),
        is_pub: f.is_pub(),
        params: params.into(),
        ret,
        decorators: f.decorators().map(|d| names.get(&d.name())).collect(),
    })
}

/// Statements that form the synthetic main when they stand at top level.
pub fn is_top_level_stmt(kind: K) -> bool {
    matches!(
        kind,
        K::ExprStmt | K::LetStmt | K::AssignStmt | K::WhileStmt | K::LoopStmt
    )
}
