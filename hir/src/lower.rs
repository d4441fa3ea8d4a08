//! Lowering a syntax tree to the resolved form: every name becomes a slot, a global, a builtin or an
//! explicit `Undefined`, so nothing is looked up by string while the program runs.

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;
use std::sync::Arc;

use vox_syntax::ast::{self, AstNode, CallArg};
use vox_syntax::strings::{self, StrPart};
use vox_syntax::{SyntaxKind as K, SyntaxNode, SyntaxTree, TextRange};

pub use crate::catalog::BuiltinCatalog;
use crate::ir::*;
use crate::items::{is_top_level_stmt, item_tree, Decl, ItemTree};

/// The public names an imported file exports, known before the importer is lowered.
#[derive(Clone, Debug, Default)]
pub struct ImportedNames {
    pub functions: Vec<Rc<str>>,
    /// Public ADT variants.
    pub variants: Vec<Rc<str>>,
}

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

struct Lowerer<'c> {
    m: Module,
    catalog: &'c dyn BuiltinCatalog,
    globals: HashMap<Rc<str>, GlobalId>,
    /// Known variants and their field counts (file's own and imported).
    variants: HashMap<Rc<str>, usize>,
    /// Function contexts being lowered, innermost last.
    fns: Vec<FnCtx>,
    /// Import names waiting to be declared after the file's own names.
    pending: Vec<(Rc<str>, Global)>,
    /// The file's globals, looked up on demand when one function is lowered alone.
    table: Option<&'c GlobalTable>,
}

/// A file's globals (functions, variants, codecs, imports) declared once, shared by the
/// single-function lowerings of that file: each takes only the names it uses. Plain `Send` data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalTable {
    /// (hash of the name, name, global), sorted by hash: a binary search over integers, then one
    /// comparison of names. A hash map's buckets would cost half as much again, and there is one
    /// table per file of a workspace, one entry per function. The names share the item tree's
    /// strings where it has them (fresh strings would cost as much as the entries).
    names: Box<[(u64, Arc<str>, u32)]>,
    globals: Box<[TableGlobal]>,
    /// The payloads of [`TableGlobal::Variant`], apart so that every entry is two words.
    variant_defs: Box<[TableVariant]>,
    variants: HashMap<Arc<str>, usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct TableVariant {
    name: Arc<str>,
    fields: Box<[Arc<str>]>,
    is_pub: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TableGlobal {
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
fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(name)
}

fn arc(s: &str) -> Arc<str> {
    Arc::from(s)
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

struct FnCtx {
    /// Visible bindings, innermost last.
    bindings: Vec<(Rc<str>, Slot)>,
    /// Scope starts in `bindings`.
    marks: Vec<usize>,
    n_slots: u32,
    is_closure: bool,
    /// For closures: (slot in the creating function, slot here).
    captures: Vec<(Slot, Slot, Rc<str>)>,
}

impl FnCtx {
    fn new(is_closure: bool) -> FnCtx {
        // Sized for a typical function's bindings and nesting, so they seldom grow.
        FnCtx {
            bindings: Vec::with_capacity(16),
            marks: Vec::with_capacity(8),
            n_slots: 0,
            is_closure,
            captures: Vec::new(),
        }
    }
}

fn rc(s: &str) -> Rc<str> {
    Rc::from(s)
}

impl<'c> Lowerer<'c> {
    fn new(catalog: &'c dyn BuiltinCatalog) -> Lowerer<'c> {
        Lowerer {
            m: Module::default(),
            catalog,
            globals: HashMap::default(),
            variants: HashMap::default(),
            // A function and a few nested closures.
            fns: Vec::with_capacity(4),
            pending: Vec::new(),
            table: None,
        }
    }

    /// A global by name: declared here, or taken from the file's table on first use.
    fn global(&mut self, name: &str) -> Option<GlobalId> {
        if let Some(&g) = self.globals.get(name) {
            return Some(g);
        }
        let table = self.table?;
        let hash = name_hash(name);
        let from = table.names.partition_point(|e| e.0 < hash);
        let tid = table.names[from..]
            .iter()
            .take_while(|e| e.0 == hash)
            .find(|e| &*e.1 == name)?
            .2;
        let g = match table.globals[tid as usize] {
            TableGlobal::Fn(k) => Global::Fn(k),
            TableGlobal::Variant(v) => {
                let v = &table.variant_defs[v as usize];
                Global::Variant {
                    name: rc(&v.name),
                    fields: v.fields.iter().map(|f| rc(f)).collect(),
                    is_pub: v.is_pub,
                }
            }
            TableGlobal::ImportAlias(import) => Global::ImportAlias { import },
            TableGlobal::Imported(import) => Global::Imported {
                import,
                name: rc(name),
            },
            TableGlobal::JsonFrom(ty) => Global::JsonFrom { ty },
            TableGlobal::JsonTo(ty) => Global::JsonTo { ty },
        };
        let id = self.m.globals.len() as GlobalId;
        self.m.globals.push(g);
        self.globals.insert(rc(name), id);
        Some(id)
    }

    fn is_variant(&self, name: &str) -> bool {
        self.variants.contains_key(name)
            || self.table.is_some_and(|t| t.variants.contains_key(name))
    }

    // ---- globals ------------------------------------------------------------------------------

    fn add_global(&mut self, name: Rc<str>, g: Global) {
        if self.globals.contains_key(&name) {
            // A duplicate is a syntax error already; the first declaration wins.
            return;
        }
        let id = self.m.globals.len() as GlobalId;
        self.m.globals.push(g);
        self.globals.insert(name, id);
    }

    /// Declares the file's globals from its item tree: functions and types in source order, then
    /// imports. The single-function lowering uses the same table, so ids agree.
    fn declare_globals(&mut self, items: &ItemTree, imported: &[ImportedNames]) {
        for decl in &items.decls {
            match *decl {
                Decl::Fn(i) => {
                    let name = rc(&items.fns[i as usize].name);
                    self.add_global(name, Global::Fn(i));
                }
                Decl::Type(ty) => {
                    let t = &items.types[ty as usize];
                    for (vname, fields) in &t.variants {
                        let vname = rc(vname);
                        let names: Rc<[Rc<str>]> = fields.iter().map(|f| rc(f)).collect();
                        self.variants.insert(vname.clone(), fields.len());
                        self.add_global(
                            vname.clone(),
                            Global::Variant {
                                name: vname,
                                fields: names,
                                is_pub: t.is_pub,
                            },
                        );
                    }
                    if t.json_as {
                        let name = &t.name;
                        self.add_global(rc(&format!("{name}_from_json")), Global::JsonFrom { ty });
                        self.add_global(rc(&format!("{name}_to_json")), Global::JsonTo { ty });
                    }
                }
            }
        }
        for (i, imp) in items.imports.iter().enumerate() {
            let names = imported.get(i).cloned().unwrap_or_default();
            match &imp.alias {
                Some(alias) => {
                    self.add_global_later(rc(alias), Global::ImportAlias { import: i as u32 });
                    // `util.Circle(1.0)` builds the variant; patterns name it bare (`Circle(r)`).
                    for v in &names.variants {
                        self.variants.entry(v.clone()).or_insert(usize::MAX);
                    }
                }
                None => {
                    for n in names.functions.iter().chain(names.variants.iter()) {
                        self.add_global_later(
                            n.clone(),
                            Global::Imported {
                                import: i as u32,
                                name: n.clone(),
                            },
                        );
                    }
                    for v in &names.variants {
                        self.variants.entry(v.clone()).or_insert(usize::MAX);
                    }
                }
            }
        }
        self.flush_later();
    }

    /// Placeholder entries for the file's functions (filled as they are lowered) and the type
    /// definitions the runtime's `@json_as` codecs read.
    fn declare_definitions(&mut self, tree: &SyntaxTree) {
        for item in tree.root().children() {
            if let Some(f) = ast::FnDecl::cast(item) {
                let Some(name) = f.name() else { continue };
                self.m.functions.push(Function {
                    name: Some(rc(&name.text())),
                    params: Vec::new(),
                    n_slots: 0,
                    capture_slots: Vec::new(),
                    body: 0,
                    range: item.range(),
                    is_pub: f.is_pub(),
                    is_closure: false,
                });
            } else if let Some(t) = ast::TypeDecl::cast(item) {
                self.declare_type(t);
            }
        }
    }

    fn add_global_later(&mut self, name: Rc<str>, g: Global) {
        // Imports are declared after the file's own names, which win on a clash (already a
        // `syntax.duplicate`-style conflict the checker reports).
        self.pending.push((name, g));
    }

    fn flush_later(&mut self) {
        for (n, g) in std::mem::take(&mut self.pending) {
            self.add_global(n, g);
        }
    }

    fn declare_type(&mut self, t: ast::TypeDecl<'_>) {
        let Some(name) = t.name() else { return };
        let name = rc(&name.text());
        let json = t.json_as().map(|d| json_options(&d));
        let field_defs = |fields: &mut dyn Iterator<Item = ast::FieldDecl<'_>>| -> Vec<FieldDef> {
            fields
                .map(|f| {
                    let mut def = FieldDef {
                        name: f.name().map_or_else(|| rc(""), |n| rc(&n.text())),
                        ty: f
                            .ty()
                            .map_or(String::new(), |t| t.text().trim().to_string()),
                        json_key: None,
                        default: None,
                        skip_if_none: false,
                    };
                    for d in f.decorators() {
                        let arg = d.args().map(|a| {
                            let t = a.text();
                            t.trim()
                                .trim_start_matches('(')
                                .trim_end_matches(')')
                                .trim()
                                .to_string()
                        });
                        match d.name().as_str() {
                            "field_name" => {
                                def.json_key =
                                    arg.map(|a| a.trim_matches('"').trim_matches('\'').to_string())
                            }
                            "default" => def.default = arg,
                            "skip_if_none" => def.skip_if_none = true,
                            _ => {}
                        }
                    }
                    def
                })
                .collect()
        };
        let shape = if t.is_adt() {
            let mut variants = Vec::new();
            for v in t.variants() {
                let Some(vname) = v.name() else { continue };
                let vname = rc(&vname.text());
                let fields = field_defs(&mut v.fields());
                variants.push((vname, fields));
            }
            TypeShape::Adt(variants)
        } else if t.is_record() {
            TypeShape::Record(field_defs(&mut t.record_fields()))
        } else {
            TypeShape::Alias
        };
        self.m.types.push(TypeDef {
            name,
            is_pub: t.is_pub(),
            json,
            shape,
        });
    }

    // ---- items --------------------------------------------------------------------------------

    fn lower_items(&mut self, tree: &SyntaxTree) {
        let mut has_top_stmts = false;
        let mut explicit_main = None;
        let mut fn_index = 0u32;
        for item in tree.root().children() {
            if let Some(f) = ast::FnDecl::cast(item) {
                if f.name().is_none() {
                    continue;
                }
                let id = fn_index;
                fn_index += 1;
                self.lower_fn_decl(id, f);
                if f.has_decorator("test") || f.has_decorator("example") {
                    self.m.tests.push(id);
                }
                if f.name().is_some_and(|n| n.text() == "main") {
                    explicit_main = Some(id);
                }
            } else if is_top_level_stmt(item.kind()) {
                has_top_stmts = true;
            }
        }
        if let Some(id) = explicit_main {
            self.m.main = Some(Main::Explicit(id));
        } else if has_top_stmts {
            self.lower_synthetic_main(tree);
        }
    }

    /// The top-level statements, in source order, as the body of a synthetic main.
    fn lower_synthetic_main(&mut self, tree: &SyntaxTree) {
        let top_stmts: Vec<SyntaxNode<'_>> = tree
            .root()
            .children()
            .filter(|item| is_top_level_stmt(item.kind()))
            .collect();
        {
            let range = tree.root().range();
            self.fns.push(FnCtx::new(false));
            self.push_scope();
            let stmts: Vec<StmtId> = top_stmts.iter().filter_map(|s| self.stmt(*s)).collect();
            self.pop_scope();
            let body = self.alloc(Expr::Block(stmts), range);
            let ctx = self.fns.pop().expect("pushed above");
            let id = self.m.functions.len() as FnId;
            self.m.functions.push(Function {
                name: None,
                params: Vec::new(),
                n_slots: ctx.n_slots,
                capture_slots: Vec::new(),
                body,
                range,
                is_pub: false,
                is_closure: false,
            });
            self.m.main = Some(Main::Synthetic(id));
        }
    }

    fn lower_fn_decl(&mut self, id: FnId, f: ast::FnDecl<'_>) {
        self.fns.push(FnCtx::new(false));
        self.push_scope();
        let mut params = Vec::new();
        if let Some(pl) = f.param_list() {
            params.reserve_exact(pl.params().count());
            for p in pl.params() {
                let name = p.name().map_or_else(|| rc("_"), |n| rc(&n.text()));
                self.bind(name.clone());
                params.push(name);
            }
        }
        let body = match f.body() {
            Some(b) => self.block(b.syntax()),
            None => self.alloc(Expr::Missing, f.syntax().range()),
        };
        self.pop_scope();
        let ctx = self.fns.pop().expect("pushed above");
        let func = &mut self.m.functions[id as usize];
        func.params = params;
        func.n_slots = ctx.n_slots;
        func.body = body;
    }

    // ---- scopes -------------------------------------------------------------------------------

    fn ctx(&mut self) -> &mut FnCtx {
        self.fns.last_mut().expect("inside a function")
    }

    fn push_scope(&mut self) {
        let ctx = self.ctx();
        let len = ctx.bindings.len();
        ctx.marks.push(len);
    }

    fn pop_scope(&mut self) {
        let ctx = self.ctx();
        let mark = ctx.marks.pop().unwrap_or(0);
        ctx.bindings.truncate(mark);
    }

    /// Binds a name to a fresh slot in the current scope.
    fn bind(&mut self, name: Rc<str>) -> Slot {
        let ctx = self.ctx();
        let slot = ctx.n_slots;
        ctx.n_slots += 1;
        if &*name != "_" {
            ctx.bindings.push((name, slot));
        }
        slot
    }

    /// Resolves a local in function context `depth` (capturing through closures).
    fn resolve_local(&mut self, depth: usize, name: &str) -> Option<Slot> {
        let ctx = &self.fns[depth];
        if let Some(&(_, slot)) = ctx.bindings.iter().rev().find(|(n, _)| &**n == name) {
            return Some(slot);
        }
        if let Some(&(_, inner, _)) = ctx.captures.iter().find(|(_, _, n)| &**n == name) {
            return Some(inner);
        }
        if !ctx.is_closure || depth == 0 {
            return None;
        }
        let outer = self.resolve_local(depth - 1, name)?;
        let ctx = &mut self.fns[depth];
        let inner = ctx.n_slots;
        ctx.n_slots += 1;
        ctx.captures.push((outer, inner, rc(name)));
        Some(inner)
    }

    fn resolve_name(&mut self, name: &str) -> Expr {
        let depth = self.fns.len() - 1;
        if let Some(slot) = self.resolve_local(depth, name) {
            return Expr::Local(slot);
        }
        if let Some(g) = self.global(name) {
            return Expr::Global(g);
        }
        match name {
            "null" | "Unit" => return Expr::Lit(Literal::Null),
            "std" => return Expr::Std,
            "Some" => return Expr::Ctor(Ctor::Some),
            "Ok" => return Expr::Ctor(Ctor::Ok),
            "Err" | "Error" => return Expr::Ctor(Ctor::Err),
            "None" => return Expr::NoneValue,
            _ => {}
        }
        if let Some(id) = self.catalog.global_fn(name) {
            return Expr::Builtin(id);
        }
        if self.catalog.is_namespace(name) {
            return Expr::Namespace(rc(name));
        }
        Expr::Undefined(rc(name))
    }

    // ---- arenas -------------------------------------------------------------------------------

    fn alloc(&mut self, e: Expr, range: TextRange) -> ExprId {
        self.m.exprs.push(e);
        self.m.expr_ranges.push(range);
        (self.m.exprs.len() - 1) as ExprId
    }

    fn alloc_stmt(&mut self, s: Stmt, range: TextRange) -> StmtId {
        self.m.stmts.push(s);
        self.m.stmt_ranges.push(range);
        (self.m.stmts.len() - 1) as StmtId
    }

    fn alloc_pat(&mut self, p: Pat) -> PatId {
        self.m.pats.push(p);
        (self.m.pats.len() - 1) as PatId
    }

    // ---- statements ---------------------------------------------------------------------------

    fn block(&mut self, block: SyntaxNode<'_>) -> ExprId {
        self.push_scope();
        // Sized once: `filter_map` gives no lower bound, and growing from empty reallocates.
        let mut stmts = Vec::with_capacity(block.children().count());
        for s in block.children() {
            if let Some(id) = self.stmt(s) {
                stmts.push(id);
            }
        }
        self.pop_scope();
        self.alloc(Expr::Block(stmts), block.range())
    }

    fn stmt(&mut self, node: SyntaxNode<'_>) -> Option<StmtId> {
        let range = trimmed_range(node);
        let stmt = match node.kind() {
            K::LetStmt => {
                let s = ast::LetStmt::cast(node)?;
                // The initialiser is lowered before the names are bound: `let f = fn…` cannot
                // see itself (voxscript.md §4.2).
                let init = match s.value() {
                    Some(v) => self.expr_w2(v),
                    None => self.alloc(Expr::Missing, range),
                };
                let pat = match s.pattern() {
                    Some(p) => self.let_pattern(p),
                    None => self.alloc_pat(Pat::Wild),
                };
                Stmt::Let { pat, init }
            }
            K::ExprStmt => {
                let s = ast::ExprStmt::cast(node)?;
                let e = s.expr()?;
                let (expr, writeback) = self.expr_statement(e);
                Stmt::Expr { expr, writeback }
            }
            K::AssignStmt => {
                let s = ast::AssignStmt::cast(node)?;
                let op = match s.op().map(|t| t.kind()) {
                    Some(K::PlusEq) => Some(BinOp::Add),
                    Some(K::MinusEq) => Some(BinOp::Sub),
                    Some(K::StarEq) => Some(BinOp::Mul),
                    Some(K::SlashEq) => Some(BinOp::Div),
                    _ => None,
                };
                let value = match s.value() {
                    Some(v) => self.expr_w2(v),
                    None => self.alloc(Expr::Missing, range),
                };
                let place = match s.target() {
                    Some(t) => self.place(t),
                    None => Place {
                        root: PlaceRoot::Invalid(rc("?")),
                        steps: Vec::new(),
                    },
                };
                Stmt::Assign { place, op, value }
            }
            K::WhileStmt => {
                let s = ast::WhileStmt::cast(node)?;
                let cond = self.opt_expr(s.cond(), range);
                let body = match s.body() {
                    Some(b) => self.block(b.syntax()),
                    None => self.alloc(Expr::Missing, range),
                };
                Stmt::While { cond, body }
            }
            K::LoopStmt => {
                let s = ast::LoopStmt::cast(node)?;
                let body = match s.body() {
                    Some(b) => self.block(b.syntax()),
                    None => self.alloc(Expr::Missing, range),
                };
                Stmt::Loop { body }
            }
            // Nested declarations and errors are syntax errors; they never run.
            _ => return None,
        };
        Some(self.alloc_stmt(stmt, range))
    }

    /// An expression statement, with the W1 write-back target when `v.m(…)` has a bare local `v`.
    fn expr_statement(&mut self, e: SyntaxNode<'_>) -> (ExprId, Option<Slot>) {
        let id = self.expr_w2(e);
        let writeback = match &self.m.exprs[id as usize] {
            Expr::MethodCall { recv, .. } => match self.m.exprs[*recv as usize] {
                Expr::Local(slot) => Some(slot),
                _ => None,
            },
            _ => None,
        };
        (id, writeback)
    }

    /// An expression in a W2 position: `v.pop()` with a bare local `v` removes the element.
    fn expr_w2(&mut self, e: SyntaxNode<'_>) -> ExprId {
        let id = self.expr(e);
        if let Expr::MethodCall {
            recv,
            name,
            args,
            named,
        } = &self.m.exprs[id as usize]
        {
            if &**name == "pop" && args.is_empty() && named.is_empty() {
                if let Expr::Local(slot) = self.m.exprs[*recv as usize] {
                    let range = self.m.expr_ranges[id as usize];
                    return self.alloc(Expr::PopWriteBack { slot, call: id }, range);
                }
            }
        }
        id
    }

    fn place(&mut self, target: SyntaxNode<'_>) -> Place {
        let mut steps = Vec::new();
        let mut cur = target;
        loop {
            match cur.kind() {
                K::FieldExpr => {
                    let f = ast::FieldExpr::cast(cur).expect("kind checked");
                    steps.push(PlaceStep::Field(
                        f.name().map_or_else(|| rc(""), |n| rc(&n.text())),
                    ));
                    match f.receiver() {
                        Some(r) => cur = r,
                        None => break,
                    }
                }
                K::IndexExpr => {
                    let ix = ast::IndexExpr::cast(cur).expect("kind checked");
                    let index = self.opt_expr(ix.index(), cur.range());
                    steps.push(PlaceStep::Index(index));
                    match ix.receiver() {
                        Some(r) => cur = r,
                        None => break,
                    }
                }
                _ => break,
            }
        }
        steps.reverse();
        let root = match ast::NameRef::cast(cur).and_then(|n| n.token()) {
            Some(tok) => {
                let name = tok.text();
                let depth = self.fns.len() - 1;
                match self.resolve_local(depth, &name) {
                    Some(slot) => PlaceRoot::Local(slot),
                    None => PlaceRoot::Invalid(rc(&name)),
                }
            }
            None => PlaceRoot::Invalid(rc("?")),
        };
        Place { root, steps }
    }

    // ---- patterns -----------------------------------------------------------------------------

    fn let_pattern(&mut self, p: SyntaxNode<'_>) -> PatId {
        self.pattern(p)
    }

    fn pattern(&mut self, p: SyntaxNode<'_>) -> PatId {
        let pat = match p.kind() {
            K::WildcardPat => Pat::Wild,
            K::IdentPat => {
                let name = ast::pattern_token(p).map_or_else(|| rc("_"), |t| rc(&t.text()));
                Pat::Bind(self.bind(name))
            }
            K::LiteralPat => match ast::pattern_token(p) {
                Some(t) => {
                    Pat::Lit(literal(t.kind(), t.bytes(), t.range()).unwrap_or(Literal::Null))
                }
                None => Pat::Wild,
            },
            K::TuplePat => {
                let subs: Vec<SyntaxNode<'_>> = ast::sub_patterns(p).collect();
                Pat::Tuple(subs.into_iter().map(|s| self.pattern(s)).collect())
            }
            K::CtorPat => {
                let name = ast::pattern_token(p).map_or(String::new(), |t| t.text().into_owned());
                let subs: Vec<SyntaxNode<'_>> = ast::sub_patterns(p).collect();
                let has_parens = ast::ctor_has_parens(p);
                let known_variant = self.is_variant(name.as_str());
                match name.as_str() {
                    _ if known_variant => {
                        let fields =
                            has_parens.then(|| subs.into_iter().map(|s| self.pattern(s)).collect());
                        Pat::Variant {
                            name: rc(&name),
                            fields,
                        }
                    }
                    "Some" | "Ok" | "Err" | "Error" => {
                        let ctor = match name.as_str() {
                            "Some" => Ctor::Some,
                            "Ok" => Ctor::Ok,
                            _ => Ctor::Err,
                        };
                        // `Some(a, b)` never matches; keep the first sub-pattern's bindings.
                        let sub = if subs.len() == 1 {
                            Some(self.pattern(subs[0]))
                        } else {
                            None
                        };
                        if subs.len() > 1 {
                            for s in subs {
                                self.pattern(s);
                            }
                            Pat::UnknownCtor(rc("Some"))
                        } else {
                            Pat::Builtin(ctor, sub)
                        }
                    }
                    "None" => Pat::NoneCtor,
                    _ => {
                        for s in subs {
                            self.pattern(s);
                        }
                        Pat::UnknownCtor(rc(&name))
                    }
                }
            }
            _ => Pat::Wild,
        };
        self.alloc_pat(pat)
    }

    // ---- expressions --------------------------------------------------------------------------

    fn opt_expr(&mut self, e: Option<SyntaxNode<'_>>, range: TextRange) -> ExprId {
        match e {
            Some(e) => self.expr(e),
            None => self.alloc(Expr::Missing, range),
        }
    }

    fn expr(&mut self, node: SyntaxNode<'_>) -> ExprId {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.expr_inner(node))
    }

    fn expr_inner(&mut self, node: SyntaxNode<'_>) -> ExprId {
        let range = trimmed_range(node);
        let e = match node.kind() {
            K::Literal => {
                let Some(tok) = ast::Literal::cast(node).and_then(|l| l.token()) else {
                    return self.alloc(Expr::Missing, range);
                };
                if tok.kind() == K::Str {
                    if let Some(s) = strings::plain_value(tok.bytes()) {
                        // Most literals: no escape or interpolation to decode.
                        return self.alloc(Expr::Lit(Literal::Str(rc(&s))), range);
                    }
                    let value = strings::decode(tok.bytes(), tok.range().start, None);
                    match value.plain() {
                        Some(s) => Expr::Lit(Literal::Str(rc(s))),
                        None => {
                            let mut parts = Vec::new();
                            for part in value.parts {
                                match part {
                                    StrPart::Lit(s) => parts.push(TemplatePart::Lit(rc(&s))),
                                    StrPart::Interp { name, range } => {
                                        let e = self.resolve_name(&name);
                                        let id = self.alloc(e, range);
                                        parts.push(TemplatePart::Var(id));
                                    }
                                }
                            }
                            Expr::Template(parts)
                        }
                    }
                } else {
                    Expr::Lit(
                        literal(tok.kind(), tok.bytes(), tok.range()).unwrap_or(Literal::Null),
                    )
                }
            }
            K::NameRef => {
                let Some(tok) = ast::NameRef::cast(node).and_then(|n| n.token()) else {
                    return self.alloc(Expr::Missing, range);
                };
                self.resolve_name(&tok.text())
            }
            K::ParenExpr => {
                let inner = ast::ParenExpr::cast(node).and_then(|p| p.inner());
                return self.opt_expr(inner, range);
            }
            // Their elements are the expression children.
            K::TupleExpr => Expr::Tuple(self.child_exprs(node)),
            K::ListExpr => Expr::List(self.child_exprs(node)),
            K::MapExpr => {
                let mut entries = Vec::new();
                for entry in ast::MapExpr::cast(node)
                    .into_iter()
                    .flat_map(|m| m.entries())
                {
                    let Some(key) = entry.key() else { continue };
                    let key = if key.kind() == K::Str {
                        rc(strings::decode(key.bytes(), key.range().start, None)
                            .plain()
                            .unwrap_or_default())
                    } else {
                        rc(&key.text())
                    };
                    let value = self.opt_expr(entry.value(), entry.syntax().range());
                    entries.push((key, value));
                }
                Expr::Map(entries)
            }
            K::PrefixExpr => {
                let p = ast::PrefixExpr::cast(node).expect("kind checked");
                let op = match p.op().map(|t| t.kind()) {
                    Some(K::Minus) => UnOp::Neg,
                    _ => UnOp::Not,
                };
                let operand = self.opt_expr(p.operand(), range);
                Expr::Unary(op, operand)
            }
            K::BinExpr => return self.binary(node, range),
            K::CallExpr => return self.call(node, range),
            K::FieldExpr => {
                let f = ast::FieldExpr::cast(node).expect("kind checked");
                let name = f.name().map_or_else(|| rc(""), |n| rc(&n.text()));
                let recv = self.opt_expr(f.receiver(), range);
                match &self.m.exprs[recv as usize] {
                    Expr::Namespace(ns) => {
                        let ns = ns.clone();
                        match self.catalog.member(&ns, &name) {
                            Some(id) => Expr::Builtin(id),
                            None => Expr::NsMember { ns, name },
                        }
                    }
                    Expr::Std if self.catalog.is_namespace(&name) => Expr::Namespace(name),
                    _ => Expr::Field(recv, name),
                }
            }
            K::IndexExpr => {
                let ix = ast::IndexExpr::cast(node).expect("kind checked");
                let recv = self.opt_expr(ix.receiver(), range);
                let index = self.opt_expr(ix.index(), range);
                Expr::Index(recv, index)
            }
            K::TryExpr => {
                let inner = ast::TryExpr::cast(node).and_then(|t| t.inner());
                Expr::Try(self.opt_expr(inner, range))
            }
            K::BlockExpr => match ast::BlockExpr::cast(node).and_then(|b| b.block()) {
                Some(b) => return self.block(b.syntax()),
                None => Expr::Missing,
            },
            K::IfExpr => return self.if_expr(ast::IfExpr::cast(node).expect("kind checked")),
            K::MatchExpr => {
                let m = ast::MatchExpr::cast(node).expect("kind checked");
                let scrutinee = self.opt_expr(m.scrutinee(), range);
                let mut arms = Vec::new();
                for arm in m.arms() {
                    self.push_scope();
                    let pat = match arm.pattern() {
                        Some(p) => self.pattern(p),
                        None => self.alloc_pat(Pat::Wild),
                    };
                    let body = self.opt_expr(arm.body(), arm.syntax().range());
                    self.pop_scope();
                    arms.push((pat, body));
                }
                Expr::Match { scrutinee, arms }
            }
            K::ForExpr => {
                let f = ast::ForExpr::cast(node).expect("kind checked");
                let iter = self.opt_expr(f.iterable(), range);
                self.push_scope();
                let bindings: Vec<SyntaxNode<'_>> = f.bindings().collect();
                let mut slots = bindings.iter().map(|b| match b.kind() {
                    K::IdentPat => {
                        let name =
                            ast::pattern_token(*b).map_or_else(|| rc("_"), |t| rc(&t.text()));
                        Some(self.bind(name))
                    }
                    _ => None,
                });
                let value = slots.next().flatten();
                let index = slots.next().flatten();
                drop(slots);
                let body = match f.body() {
                    Some(b) => self.block(b.syntax()),
                    None => self.alloc(Expr::Missing, range),
                };
                self.pop_scope();
                Expr::For {
                    iter,
                    value,
                    index,
                    body,
                }
            }
            K::Lambda => {
                let l = ast::Lambda::cast(node).expect("kind checked");
                let params: Vec<Rc<str>> = l
                    .param_list()
                    .map(|pl| {
                        pl.params()
                            .map(|p| p.name().map_or_else(|| rc("_"), |n| rc(&n.text())))
                            .collect()
                    })
                    .unwrap_or_default();
                return self.closure(params, l.body(), range);
            }
            K::ArrowFn => {
                let a = ast::ArrowFn::cast(node).expect("kind checked");
                let params: Vec<Rc<str>> = a.params().map(|t| rc(&t.text())).collect();
                return self.closure(params, a.body(), range);
            }
            K::ReturnExpr => {
                let value = ast::ReturnExpr::cast(node).and_then(|r| r.value());
                Expr::Return(value.map(|v| self.expr(v)))
            }
            K::BreakExpr => Expr::Break,
            K::ContinueExpr => Expr::Continue,
            _ => Expr::Missing,
        };
        self.alloc(e, range)
    }

    /// Lowers a node's expression children in order, into a vector allocated once.
    fn child_exprs(&mut self, node: SyntaxNode<'_>) -> Vec<ExprId> {
        let elems = || node.children().filter(|e| ast::is_expr(e.kind()));
        let mut out = Vec::with_capacity(elems().count());
        for e in elems() {
            out.push(self.expr(e));
        }
        out
    }

    fn binary(&mut self, node: SyntaxNode<'_>, range: TextRange) -> ExprId {
        let b = ast::BinExpr::cast(node).expect("kind checked");
        let op = b.op().map(|t| t.kind());
        let lhs = self.opt_expr(b.lhs(), range);
        let rhs = self.opt_expr(b.rhs(), range);
        let e = match op {
            Some(K::AndKw | K::AmpAmp) => Expr::And(lhs, rhs),
            Some(K::OrKw | K::PipePipe) => Expr::Or(lhs, rhs),
            Some(K::PipeGt) => Expr::Pipe(lhs, rhs),
            Some(k) => {
                let op = match k {
                    K::Plus => BinOp::Add,
                    K::Minus => BinOp::Sub,
                    K::Star => BinOp::Mul,
                    K::Slash => BinOp::Div,
                    K::Percent => BinOp::Mod,
                    K::EqEq | K::IsKw => BinOp::Eq,
                    K::BangEq | K::IsntKw => BinOp::Ne,
                    K::Lt => BinOp::Lt,
                    K::Gt => BinOp::Gt,
                    K::LtEq => BinOp::Le,
                    K::GtEq => BinOp::Ge,
                    _ => return self.alloc(Expr::Missing, range),
                };
                Expr::Binary(op, lhs, rhs)
            }
            None => Expr::Missing,
        };
        self.alloc(e, range)
    }

    fn call(&mut self, node: SyntaxNode<'_>, range: TextRange) -> ExprId {
        let c = ast::CallExpr::cast(node).expect("kind checked");
        let args_of = |this: &mut Self| -> (Vec<ExprId>, Vec<(Rc<str>, ExprId)>) {
            let Some(list) = c.arg_list() else {
                return (Vec::new(), Vec::new());
            };
            // Sized once for the positional arguments, the usual kind.
            let positional = list.syntax().children().filter(|a| a.kind() == K::Arg);
            let mut args = Vec::with_capacity(positional.count());
            let mut named = Vec::new();
            for a in list.args() {
                match a {
                    CallArg::Positional(e) => args.push(this.expr(e)),
                    CallArg::Named(name, e) => {
                        let v = this.expr(e);
                        named.push((rc(&name.text()), v));
                    }
                }
            }
            (args, named)
        };
        // `recv.name(…)` on a value is a method call; on a namespace it calls the member.
        if let Some(callee) = c.callee() {
            if callee.kind() == K::FieldExpr {
                let f = ast::FieldExpr::cast(callee).expect("kind checked");
                let name = f.name().map_or_else(|| rc(""), |n| rc(&n.text()));
                let recv = self.opt_expr(f.receiver(), range);
                let is_ns = matches!(self.m.exprs[recv as usize], Expr::Namespace(_) | Expr::Std)
                    || matches!(&self.m.exprs[recv as usize], Expr::Global(g) if matches!(self.m.globals[*g as usize], Global::ImportAlias { .. }));
                if !is_ns {
                    let (args, named) = args_of(self);
                    return self.alloc(
                        Expr::MethodCall {
                            recv,
                            name,
                            args,
                            named,
                        },
                        range,
                    );
                }
                let callee_expr = match &self.m.exprs[recv as usize] {
                    Expr::Namespace(ns) => {
                        let ns = ns.clone();
                        match self.catalog.member(&ns, &name) {
                            Some(id) => Expr::Builtin(id),
                            None => Expr::NsMember { ns, name },
                        }
                    }
                    Expr::Std if self.catalog.is_namespace(&name) => Expr::Namespace(name),
                    _ => Expr::Field(recv, name),
                };
                let callee_id = self.alloc(callee_expr, callee.range());
                let (args, named) = args_of(self);
                return self.alloc(
                    Expr::Call {
                        callee: callee_id,
                        args,
                        named,
                    },
                    range,
                );
            }
        }
        let callee = self.opt_expr(c.callee(), range);
        let (args, named) = args_of(self);
        self.alloc(
            Expr::Call {
                callee,
                args,
                named,
            },
            range,
        )
    }

    fn if_expr(&mut self, i: ast::IfExpr<'_>) -> ExprId {
        let range = trimmed_range(i.syntax());
        let cond = self.opt_expr(i.cond(), range);
        let then = match i.then_block() {
            Some(b) => self.block(b.syntax()),
            None => self.alloc(Expr::Missing, range),
        };
        let els = i.else_branch().map(|e| match (e.else_if(), e.block()) {
            // An `else if` chain of 20,000 arms nests as deep (issue 36).
            (Some(nested), _) => {
                stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.if_expr(nested))
            }
            (None, Some(b)) => self.block(b.syntax()),
            (None, None) => self.alloc(Expr::Missing, range),
        });
        self.alloc(Expr::If { cond, then, els }, range)
    }

    fn closure(
        &mut self,
        params: Vec<Rc<str>>,
        body: Option<SyntaxNode<'_>>,
        range: TextRange,
    ) -> ExprId {
        self.fns.push(FnCtx::new(true));
        self.push_scope();
        for p in &params {
            self.bind(p.clone());
        }
        let body = self.opt_expr(body, range);
        self.pop_scope();
        let ctx = self.fns.pop().expect("pushed above");
        let captures: Vec<Slot> = ctx.captures.iter().map(|(outer, _, _)| *outer).collect();
        let capture_slots: Vec<Slot> = ctx.captures.iter().map(|(_, inner, _)| *inner).collect();
        let func_id = self.m.functions.len() as FnId;
        self.m.functions.push(Function {
            name: None,
            params,
            n_slots: ctx.n_slots,
            capture_slots,
            body,
            range,
            is_pub: false,
            is_closure: true,
        });
        self.alloc(
            Expr::Closure {
                func: func_id,
                captures,
            },
            range,
        )
    }
}

/// A node's range without leading trivia (where errors point).
fn trimmed_range(node: SyntaxNode<'_>) -> TextRange {
    node.trimmed_range()
}

/// The value of a literal token.
pub fn literal(kind: K, bytes: &[u8], range: TextRange) -> Option<Literal> {
    let text = std::str::from_utf8(bytes).ok()?;
    Some(match kind {
        K::Int => Literal::Int(vox_syntax::lexer::parse_int(bytes)?),
        K::Float => Literal::Float(text.parse().ok()?),
        K::Decimal => Literal::Dec(text.trim_end_matches("dec").parse().ok()?),
        K::TrueKw => Literal::Bool(true),
        K::FalseKw => Literal::Bool(false),
        K::Str => Literal::Str(match strings::plain_value(bytes) {
            Some(s) => rc(&s),
            None => rc(strings::decode(bytes, range.start, None)
                .plain()
                .unwrap_or_default()),
        }),
        _ => return None,
    })
}

fn json_options(d: &ast::Decorator<'_>) -> JsonOptions {
    let mut o = JsonOptions::default();
    if let Some(args) = d.args() {
        let text = args.text();
        let inner = text.trim().trim_start_matches('(').trim_end_matches(')');
        for part in inner.split(',').skip(1) {
            let Some((k, v)) = part.split_once(':') else {
                continue;
            };
            let v = v.trim().trim_matches('"').to_string();
            match k.trim() {
                "naming" => o.naming = Some(v),
                "defaults" => o.defaults = v == "true",
                "tag" => o.tag = Some(v),
                _ => {}
            }
        }
    }
    o
}
