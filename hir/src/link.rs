//! A file's module assembled from its functions' own bodies (decision 47): each function is
//! lowered alone ([`lower_function_in`], ranges relative to its first byte), as the analysis
//! lowers it, and the bodies are put together here, ids renumbered and ranges moved to
//! the file. So the interpreter runs the very bodies the rules read.

use std::collections::HashMap;
use std::rc::Rc;

use vox_syntax::{SyntaxTree, TextRange};

use crate::global_table::ImportedNames;
use crate::ir::*;
use crate::items::item_tree;
use crate::lower::BuiltinCatalog;
use crate::lower::{file_level, global_table, lower_function_in, lower_top_level};

/// Lowers a file function by function and links the bodies into one module; runs like
/// [`crate::lower`]'s. `imported[i]` lists the public names of `file_imports(tree)[i]`.
pub fn lower_by_function(
    tree: &SyntaxTree,
    catalog: &dyn BuiltinCatalog,
    imported: &[ImportedNames],
) -> Module {
    let (items, nodes) = item_tree(tree);
    let table = global_table(&items, imported);
    // Globals, types, imports and one placeholder per function, as the whole-file lowering
    // declares them.
    let mut m = file_level(tree, &items, catalog, imported);
    let globals = GlobalIds::new(&m.globals);
    for (k, node) in nodes.iter().enumerate() {
        let body = lower_function_in(*node, &table, catalog);
        link_body(&mut m, &globals, body, k as FnId, node.range().start);
    }
    let explicit_main = items.fns.iter().position(|f| &*f.name == "main");
    if let Some(k) = explicit_main {
        m.main = Some(Main::Explicit(k as FnId));
    } else if let Some(top) = lower_top_level(tree, &items, &table, catalog) {
        let Some(Main::Synthetic(local)) = top.main else {
            return m;
        };
        // Its functions all go after the others: the synthetic main is its own body's
        // function `local`, the rest are closures. Its ranges are the file's already.
        let map = link_closures(&mut m, &globals, top, None, 0);
        m.main = Some(Main::Synthetic(map.get(local)));
    }
    m.tests = items
        .fns
        .iter()
        .enumerate()
        .filter(|(_, f)| f.is_test())
        .map(|(k, _)| k as FnId)
        .collect();
    m
}

/// The whole-file id of each global, found by what it is.
struct GlobalIds(HashMap<GlobalKey, GlobalId>);

#[derive(Hash, PartialEq, Eq)]
enum GlobalKey {
    Fn(FnId),
    Variant(Rc<str>),
    ImportAlias(u32),
    Imported(u32, Rc<str>),
    JsonFrom(u32),
    JsonTo(u32),
}

fn key(g: &Global) -> GlobalKey {
    match g {
        Global::Fn(k) => GlobalKey::Fn(*k),
        Global::Variant { name, .. } => GlobalKey::Variant(name.clone()),
        Global::ImportAlias { import } => GlobalKey::ImportAlias(*import),
        Global::Imported { import, name } => GlobalKey::Imported(*import, name.clone()),
        Global::JsonFrom { ty } => GlobalKey::JsonFrom(*ty),
        Global::JsonTo { ty } => GlobalKey::JsonTo(*ty),
    }
}

impl GlobalIds {
    fn new(globals: &[Global]) -> GlobalIds {
        let mut map = HashMap::new();
        for (i, g) in globals.iter().enumerate() {
            map.entry(key(g)).or_insert(i as GlobalId);
        }
        GlobalIds(map)
    }
}

/// Where a body's functions went: its function 0 to `first` (a function item's placeholder)
/// when given, the others after the module's functions.
struct FnMap {
    first: Option<FnId>,
    rest: FnId,
}

impl FnMap {
    fn get(&self, local: FnId) -> FnId {
        match (local, self.first) {
            (0, Some(f)) => f,
            (_, Some(_)) => self.rest + local - 1,
            (_, None) => self.rest + local,
        }
    }
}

/// Puts function item `k`'s body (ranges relative to `base`) into the module.
fn link_body(m: &mut Module, globals: &GlobalIds, body: Module, k: FnId, base: u32) {
    link_closures(m, globals, body, Some(k), base);
}

/// Appends a body's arenas to the module's and its functions (the first into `first` when
/// given), renumbering every id and moving every range by `base`.
fn link_closures(
    m: &mut Module,
    globals: &GlobalIds,
    body: Module,
    first: Option<FnId>,
    base: u32,
) -> FnMap {
    let map = FnMap {
        first,
        rest: m.functions.len() as FnId,
    };
    let ids = Ids {
        expr: m.exprs.len() as ExprId,
        stmt: m.stmts.len() as StmtId,
        pat: m.pats.len() as PatId,
        fns: &map,
        globals: body
            .globals
            .into_iter()
            .map(|g| match globals.0.get(&key(&g)) {
                Some(&id) => id,
                // Every global a body names is one the file declares; kept apart if not.
                None => {
                    m.globals.push(g);
                    (m.globals.len() - 1) as GlobalId
                }
            })
            .collect(),
    };
    let moved = |r: TextRange| TextRange::new(r.start + base, r.end + base);
    m.exprs
        .extend(body.exprs.into_iter().map(|e| ids.expr_of(e)));
    m.expr_ranges
        .extend(body.expr_ranges.into_iter().map(moved));
    m.stmts
        .extend(body.stmts.into_iter().map(|s| ids.stmt_of(s)));
    m.stmt_ranges
        .extend(body.stmt_ranges.into_iter().map(moved));
    m.pats.extend(body.pats.into_iter().map(|p| ids.pat_of(p)));
    for (local, mut f) in body.functions.into_iter().enumerate() {
        f.body += ids.expr;
        f.range = moved(f.range);
        match (local, first) {
            (0, Some(k)) => {
                // The placeholder keeps the name and visibility the file declared.
                let slot = &mut m.functions[k as usize];
                slot.params = f.params;
                slot.n_slots = f.n_slots;
                slot.capture_slots = f.capture_slots;
                slot.body = f.body;
            }
            _ => m.functions.push(f),
        }
    }
    map
}

/// How one body's ids become the module's.
struct Ids<'a> {
    expr: ExprId,
    stmt: StmtId,
    pat: PatId,
    fns: &'a FnMap,
    globals: Vec<GlobalId>,
}

impl Ids<'_> {
    fn e(&self, id: ExprId) -> ExprId {
        id + self.expr
    }

    fn es(&self, ids: Vec<ExprId>) -> Vec<ExprId> {
        ids.into_iter().map(|e| self.e(e)).collect()
    }

    fn named(&self, named: Vec<(Rc<str>, ExprId)>) -> Vec<(Rc<str>, ExprId)> {
        named.into_iter().map(|(n, e)| (n, self.e(e))).collect()
    }

    fn expr_of(&self, e: Expr) -> Expr {
        match e {
            Expr::Global(g) => Expr::Global(self.globals[g as usize]),
            Expr::Template(parts) => Expr::Template(
                parts
                    .into_iter()
                    .map(|p| match p {
                        TemplatePart::Var(e) => TemplatePart::Var(self.e(e)),
                        lit => lit,
                    })
                    .collect(),
            ),
            Expr::List(xs) => Expr::List(self.es(xs)),
            Expr::Tuple(xs) => Expr::Tuple(self.es(xs)),
            Expr::Map(kv) => Expr::Map(self.named(kv)),
            Expr::Unary(op, x) => Expr::Unary(op, self.e(x)),
            Expr::Binary(op, a, b) => Expr::Binary(op, self.e(a), self.e(b)),
            Expr::And(a, b) => Expr::And(self.e(a), self.e(b)),
            Expr::Or(a, b) => Expr::Or(self.e(a), self.e(b)),
            Expr::Pipe(a, b) => Expr::Pipe(self.e(a), self.e(b)),
            Expr::Call {
                callee,
                args,
                named,
            } => Expr::Call {
                callee: self.e(callee),
                args: self.es(args),
                named: self.named(named),
            },
            Expr::MethodCall {
                recv,
                name,
                args,
                named,
            } => Expr::MethodCall {
                recv: self.e(recv),
                name,
                args: self.es(args),
                named: self.named(named),
            },
            Expr::PopWriteBack { slot, call } => Expr::PopWriteBack {
                slot,
                call: self.e(call),
            },
            Expr::Field(x, name) => Expr::Field(self.e(x), name),
            Expr::Index(x, i) => Expr::Index(self.e(x), self.e(i)),
            Expr::Try(x) => Expr::Try(self.e(x)),
            Expr::Block(stmts) => Expr::Block(stmts.into_iter().map(|s| s + self.stmt).collect()),
            Expr::If { cond, then, els } => Expr::If {
                cond: self.e(cond),
                then: self.e(then),
                els: els.map(|e| self.e(e)),
            },
            Expr::Match { scrutinee, arms } => Expr::Match {
                scrutinee: self.e(scrutinee),
                arms: arms
                    .into_iter()
                    .map(|(p, e)| (p + self.pat, self.e(e)))
                    .collect(),
            },
            Expr::For {
                iter,
                value,
                index,
                body,
            } => Expr::For {
                iter: self.e(iter),
                value,
                index,
                body: self.e(body),
            },
            Expr::Closure { func, captures } => Expr::Closure {
                func: self.fns.get(func),
                captures,
            },
            Expr::Return(x) => Expr::Return(x.map(|e| self.e(e))),
            other @ (Expr::Lit(_)
            | Expr::Local(_)
            | Expr::Builtin(_)
            | Expr::Namespace(_)
            | Expr::NsMember { .. }
            | Expr::Std
            | Expr::Ctor(_)
            | Expr::NoneValue
            | Expr::Undefined(_)
            | Expr::Break
            | Expr::Continue
            | Expr::Missing) => other,
        }
    }

    fn stmt_of(&self, s: Stmt) -> Stmt {
        match s {
            Stmt::Let { pat, init } => Stmt::Let {
                pat: pat + self.pat,
                init: self.e(init),
            },
            Stmt::Expr { expr, writeback } => Stmt::Expr {
                expr: self.e(expr),
                writeback,
            },
            Stmt::Assign { place, op, value } => Stmt::Assign {
                place: Place {
                    root: place.root,
                    steps: place
                        .steps
                        .into_iter()
                        .map(|s| match s {
                            PlaceStep::Index(e) => PlaceStep::Index(self.e(e)),
                            field => field,
                        })
                        .collect(),
                },
                op,
                value: self.e(value),
            },
            Stmt::While { cond, body } => Stmt::While {
                cond: self.e(cond),
                body: self.e(body),
            },
            Stmt::Loop { body } => Stmt::Loop { body: self.e(body) },
        }
    }

    fn pat_of(&self, p: Pat) -> Pat {
        match p {
            Pat::Tuple(ps) => Pat::Tuple(ps.into_iter().map(|p| p + self.pat).collect()),
            Pat::Builtin(c, inner) => Pat::Builtin(c, inner.map(|p| p + self.pat)),
            Pat::Variant { name, fields } => Pat::Variant {
                name,
                fields: fields.map(|fs| fs.into_iter().map(|p| p + self.pat).collect()),
            },
            other @ (Pat::Wild
            | Pat::Bind(_)
            | Pat::Lit(_)
            | Pat::NoneCtor
            | Pat::UnknownCtor(_)) => other,
        }
    }
}
