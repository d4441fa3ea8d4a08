//! The lowering's state: the module being built, the globals and variants in scope, the
//! function frames and their scopes, and the declarations every lowering starts with.

use rustc_hash::FxHashMap as HashMap;
use std::rc::Rc;

use vox_syntax::ast::{self, AstNode};
use vox_syntax::strings;
use vox_syntax::{SyntaxKind as K, SyntaxNode, SyntaxTree, TextRange};

use crate::catalog::BuiltinCatalog;
use crate::global_table::{name_hash, GlobalTable, ImportedNames, TableGlobal};
use crate::ir::*;
use crate::items::{Decl, ItemTree};

pub(crate) struct Lowerer<'c> {
    pub(crate) m: Module,
    pub(crate) catalog: &'c dyn BuiltinCatalog,
    pub(crate) globals: HashMap<Rc<str>, GlobalId>,
    /// Known variants and their field counts (file's own and imported).
    pub(crate) variants: HashMap<Rc<str>, usize>,
    /// Function contexts being lowered, innermost last.
    pub(crate) fns: Vec<FnCtx>,
    /// Import names waiting to be declared after the file's own names.
    pub(crate) pending: Vec<(Rc<str>, Global)>,
    /// The file's globals, looked up on demand when one function is lowered alone.
    pub(crate) table: Option<&'c GlobalTable>,
}

pub(crate) struct FnCtx {
    /// Visible bindings, innermost last.
    pub(crate) bindings: Vec<(Rc<str>, Slot)>,
    /// Scope starts in `bindings`.
    pub(crate) marks: Vec<usize>,
    pub(crate) n_slots: u32,
    pub(crate) is_closure: bool,
    /// For closures: (slot in the creating function, slot here).
    pub(crate) captures: Vec<(Slot, Slot, Rc<str>)>,
}

impl FnCtx {
    pub(crate) fn new(is_closure: bool) -> FnCtx {
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

pub(crate) fn rc(s: &str) -> Rc<str> {
    Rc::from(s)
}

impl<'c> Lowerer<'c> {
    pub(crate) fn new(catalog: &'c dyn BuiltinCatalog) -> Lowerer<'c> {
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
    pub(crate) fn global(&mut self, name: &str) -> Option<GlobalId> {
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

    pub(crate) fn is_variant(&self, name: &str) -> bool {
        self.variants.contains_key(name)
            || self.table.is_some_and(|t| t.variants.contains_key(name))
    }

    // ---- globals ------------------------------------------------------------------------------

    pub(crate) fn add_global(&mut self, name: Rc<str>, g: Global) {
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
    pub(crate) fn declare_globals(&mut self, items: &ItemTree, imported: &[ImportedNames]) {
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
    pub(crate) fn declare_definitions(&mut self, tree: &SyntaxTree) {
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

    pub(crate) fn add_global_later(&mut self, name: Rc<str>, g: Global) {
        // Imports are declared after the file's own names, which win on a clash (already a
        // `syntax.duplicate`-style conflict the checker reports).
        self.pending.push((name, g));
    }

    pub(crate) fn flush_later(&mut self) {
        for (n, g) in std::mem::take(&mut self.pending) {
            self.add_global(n, g);
        }
    }

    pub(crate) fn declare_type(&mut self, t: ast::TypeDecl<'_>) {
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

    pub(crate) fn ctx(&mut self) -> &mut FnCtx {
        self.fns.last_mut().expect("inside a function")
    }

    pub(crate) fn push_scope(&mut self) {
        let ctx = self.ctx();
        let len = ctx.bindings.len();
        ctx.marks.push(len);
    }

    pub(crate) fn pop_scope(&mut self) {
        let ctx = self.ctx();
        let mark = ctx.marks.pop().unwrap_or(0);
        ctx.bindings.truncate(mark);
    }

    /// Binds a name to a fresh slot in the current scope.
    pub(crate) fn bind(&mut self, name: Rc<str>) -> Slot {
        let ctx = self.ctx();
        let slot = ctx.n_slots;
        ctx.n_slots += 1;
        if &*name != "_" {
            ctx.bindings.push((name, slot));
        }
        slot
    }

    /// Resolves a local in function context `depth` (capturing through closures).
    pub(crate) fn resolve_local(&mut self, depth: usize, name: &str) -> Option<Slot> {
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

    pub(crate) fn resolve_name(&mut self, name: &str) -> Expr {
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

    pub(crate) fn alloc(&mut self, e: Expr, range: TextRange) -> ExprId {
        self.m.exprs.push(e);
        self.m.expr_ranges.push(range);
        (self.m.exprs.len() - 1) as ExprId
    }

    pub(crate) fn alloc_stmt(&mut self, s: Stmt, range: TextRange) -> StmtId {
        self.m.stmts.push(s);
        self.m.stmt_ranges.push(range);
        (self.m.stmts.len() - 1) as StmtId
    }

    pub(crate) fn alloc_pat(&mut self, p: Pat) -> PatId {
        self.m.pats.push(p);
        (self.m.pats.len() - 1) as PatId
    }

    // ---- statements ---------------------------------------------------------------------------
}

/// A node's range without leading trivia (where errors point).
pub(crate) fn trimmed_range(node: SyntaxNode<'_>) -> TextRange {
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

pub(crate) fn json_options(d: &ast::Decorator<'_>) -> JsonOptions {
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
