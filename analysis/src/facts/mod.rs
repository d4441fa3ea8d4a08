//! Facts of one function body: what it calls, which effects it uses with which arguments, and
//! the local findings the rules turn into diagnostics. Computed from the body alone (plus the
//! file's item tree and its imports' exported names), with ranges relative to the function, so an
//! edit elsewhere leaves them equal.

mod builtin;
mod checks;
mod intervals;
mod list;
mod model;
mod order;
mod paths;

use std::sync::Arc;

use vox_hir::{Cap, Expr, Global, ImportedNames, Module, Nondet};
use vox_syntax::TextRange;

pub use crate::body::{builtin_name, for_each_child, for_each_stmt_child, Body, CallTarget, Node};
pub use builtin::Builtin;
pub use intervals::{tier_of, TIERS};
pub use list::List;
pub use model::{
    is_output, Access, ArgTiers, CallFact, CheckFact, EffectSite, FnFacts, HostMath, IntCall,
    OrderArg, OrderKind, OrderLeak, Overflow, PathArg, PathFact, PathShape, HOST_MATH,
};
pub use paths::path_params;

use model::FactsBuilder;

use crate::db::Db;
use crate::imports::{resolve_imports, ImportTarget};
use crate::items::{file_items, FnDef};
use crate::kind::Kind;
use crate::kinds;

/// The public names of each import target, as lowering needs them.
pub fn imported_names(db: &dyn Db, file: crate::inputs::SourceFile) -> Vec<ImportedNames> {
    resolve_imports(db, file)
        .targets
        .iter()
        .map(|t| match t {
            ImportTarget::File(target) => {
                let items = &file_items(db, *target).items;
                let functions = items
                    .fns
                    .iter()
                    .filter(|f| f.is_pub)
                    .map(|f| std::rc::Rc::from(&*f.name))
                    .collect();
                let variants = items
                    .types
                    .iter()
                    .filter(|t| t.is_pub)
                    .flat_map(|t| t.variants.iter().map(|(v, _)| std::rc::Rc::from(&**v)))
                    .collect();
                ImportedNames {
                    functions,
                    variants,
                }
            }
            ImportTarget::Missing(_) => ImportedNames::default(),
        })
        .collect()
}

/// The file's globals, declared once and shared by every function's lowering (equal across
/// edits that keep the item trees, so they are reused).
#[salsa::tracked(returns(ref))]
pub fn global_table(db: &dyn Db, file: crate::inputs::SourceFile) -> Arc<vox_hir::GlobalTable> {
    // Without the top-level statements' flag, which declares nothing: a statement typed
    // between functions builds no table again.
    let items = function_items(db, file);
    Arc::new(vox_hir::global_table(items, &imported_names(db, file)))
}

/// The item tree as the functions other than the synthetic main read it: whether the file has
/// top-level statements is left out, so that a statement typed between two functions (a
/// synthetic main appearing) lowers no function again.
#[salsa::tracked(returns(ref))]
fn function_items(db: &dyn Db, file: crate::inputs::SourceFile) -> Arc<vox_hir::ItemTree> {
    let items = &file_items(db, file).items;
    if !items.has_top_level_stmts {
        return items.clone();
    }
    let mut without = (**items).clone();
    without.has_top_level_stmts = false;
    Arc::new(without)
}

/// The words of a function's text that could be identifiers, once each, in first-use order (a
/// superset of the names it uses: words in comments and strings, keywords): what its lowering
/// can look up among the file's globals.
fn words(text: &[u8]) -> Vec<&str> {
    let mut seen: rustc_hash::FxHashSet<&[u8]> = Default::default();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            if seen.insert(word) {
                // ASCII by construction.
                out.push(std::str::from_utf8(word).unwrap_or_default());
            }
        } else {
            i += 1;
        }
    }
    out
}

/// What an editor lowers a function with: the part of its file's globals and items that the
/// names it uses reach ([`vox_hir::GlobalTable::restricted`]), its own item first. Equal after
/// an edit that adds, removes, renames or moves functions it does not name, so that such an
/// edit (a new function being typed) lowers no other function again.
#[derive(Debug, PartialEq, Eq)]
pub struct FnScope {
    table: vox_hir::GlobalTable,
    items: vox_hir::ItemTree,
}

/// Whether `file`'s functions are lowered with their own [`FnScope`]s: in an editor, once it has
/// changed the file ([`crate::inputs::SourceFile::edited`], which says why); elsewhere each function
/// reads the file's whole table.
pub fn uses_scopes(db: &dyn Db, file: crate::inputs::SourceFile) -> bool {
    !db.fixed_texts() && file.edited(db)
}

/// A function's [`FnScope`]. Kept for the functions used last only (`lru`, a bound on the edited
/// files' functions); an evicted one still vouches for its function's facts while what it read
/// is unchanged, and is computed again (without backdating) when it is not.
#[salsa::tracked(returns(ref), lru = 4096)]
pub fn fn_scope<'db>(db: &'db dyn Db, f: FnDef<'db>) -> Arc<FnScope> {
    let file = f.file(db);
    let items = function_items(db, file);
    let own = f.index(db) as usize;
    let words = fn_words(db, f);
    let (table, items) = global_table(db, file).restricted(items, Some(own), words.split('\0'));
    Arc::new(FnScope { table, items })
}

/// A function's [`words`], joined by `\0`: kept while its text is unchanged, so that an edit
/// that changes the file's items (a new function's name or parameters being typed) computes
/// every other function's scope from them, without reading each one's text again (that was
/// most of such a keystroke in a file of 500 functions).
#[salsa::tracked(returns(ref), lru = 4096)]
fn fn_words<'db>(db: &'db dyn Db, f: FnDef<'db>) -> String {
    words(&f.text(db).bytes()).join("\0")
}

/// Lowers one function (from its own text) and runs `f` over the body. On the command line
/// (no text changes) and for files an editor has not changed, with the file's whole table and
/// items; in an edited file, with the function's [`FnScope`]. Facts name local callees, so
/// both give the same facts.
fn with_body<R: Default>(db: &dyn Db, def: FnDef<'_>, f: impl FnOnce(&Body<'_>, bool) -> R) -> R {
    let file = def.file(db);
    let catalog = db.catalog();
    // By name, not `index` (an id field records no dependency; the position changes when a
    // function is added above).
    if &**def.name(db) == "<main>" {
        let items = file_items(db, file).items.clone();
        let table = global_table(db, file);
        let source = def.text(db).tree();
        let (tree, _) = source.parts();
        let Some(m) = vox_hir::lower_top_level(tree, &items, table, catalog) else {
            return R::default();
        };
        // The file's tree goes as soon as its last function is lowered.
        drop(source);
        let root = match m.main {
            Some(vox_hir::ir::Main::Synthetic(id)) | Some(vox_hir::ir::Main::Explicit(id)) => id,
            None => return R::default(),
        };
        return f(&Body::new(&m, catalog, &items, root, Vec::new()), false);
    }
    let whole;
    let (table, items, own): (&vox_hir::GlobalTable, &vox_hir::ItemTree, usize) =
        if !uses_scopes(db, file) {
            whole = function_items(db, file).clone();
            (global_table(db, file), &whole, def.index(db) as usize)
        } else {
            let scope = fn_scope(db, def);
            (&scope.table, &scope.items, 0)
        };
    // This function where it lies in its file's parse, or a parse of its text alone: nothing
    // else of the file is read.
    let source = def.text(db).tree();
    let (tree, node) = source.parts();
    let m = match node {
        Some(node) => vox_hir::lower_function_in(node, table, catalog),
        None => vox_hir::lower_function(tree, table, catalog),
    };
    // The file's tree goes as soon as its last function is lowered.
    drop(source);
    let item = &items.fns[own];
    let params = item
        .params
        .iter()
        .map(|(_, ty)| ty.as_deref().map_or(Kind::Unknown, Kind::from_annotation))
        .collect();
    let is_main = &*item.name == "main";
    f(&Body::new(&m, catalog, items, 0, params), is_main)
}

/// Lowers one function and computes its facts.
#[salsa::tracked(returns(ref))]
pub fn fn_facts<'db>(db: &'db dyn Db, f: FnDef<'db>) -> FnFacts {
    with_body(db, f, |body, is_main| {
        let kinds = kinds::infer(body);
        let mut facts = FactsBuilder::default();
        scan(body, &kinds, &mut facts);
        intervals::overflows(body, &kinds, &mut facts);
        paths::path_args(body, &kinds, &mut facts);
        order::order_facts(body, &kinds, &mut facts);
        checks::checks(body, &kinds, is_main, &mut facts);
        facts.finish()
    })
}

/// The kinds a function's body shows, for the editor (hover, completion after a dot, inlay
/// hints): not stored, computed on request from one lowering. Ranges are relative to the
/// function's first byte, like its facts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FnKinds {
    /// Each `let name = …` binding of a single name: the statement's range and the local's kind
    /// (the join of everything assigned to it).
    pub lets: Vec<(TextRange, Kind)>,
    /// Each expression's range and kind, `Unknown` ones left out.
    pub exprs: Vec<(TextRange, Kind)>,
    /// What the function returns: its annotation, else the join of its `return` values and its
    /// body's value (`Unknown` when unclear).
    pub returns: Kind,
}

/// Lowers one function and reports the kinds its body shows ([`FnKinds`]).
pub fn fn_kinds<'db>(db: &'db dyn Db, f: FnDef<'db>) -> FnKinds {
    let index = f.index(db);
    let annotated = (index != u32::MAX)
        .then(|| {
            let items = &file_items(db, f.file(db)).items;
            items.fns.get(index as usize).and_then(|i| i.ret.clone())
        })
        .flatten();
    with_body(db, f, |body, _| {
        let kinds = kinds::infer(body);
        let m = body.m;
        let mut out = FnKinds::default();
        for (si, st) in m.stmts.iter().enumerate() {
            if let vox_hir::Stmt::Let { pat, .. } = st {
                if let Some(vox_hir::Pat::Bind(slot)) = m.pats.get(*pat as usize) {
                    let k = kinds.slot(body.gslot_stmt(si as u32, *slot));
                    if let Some(r) = m.stmt_ranges.get(si) {
                        out.lets.push((*r, k));
                    }
                }
            }
        }
        for (i, r) in m.expr_ranges.iter().enumerate() {
            let k = kinds.expr(i as u32);
            if k != Kind::Unknown {
                out.exprs.push((*r, k));
            }
        }
        out.returns = match annotated.as_deref().map(Kind::from_annotation) {
            Some(k) if k != Kind::Unknown => k,
            _ => {
                let mut k = Kind::Unset;
                for (i, e) in m.exprs.iter().enumerate() {
                    if body.expr_owner[i] != body.root {
                        continue;
                    }
                    if let Expr::Return(v) = e {
                        k = k.join(v.map_or(Kind::Null, |v| kinds.expr(v)));
                    }
                }
                if let Some(f) = m.functions.get(body.root as usize) {
                    if let Expr::Block(stmts) = &m.exprs[f.body as usize] {
                        if let Some(vox_hir::Stmt::Expr { expr, .. }) =
                            stmts.last().map(|s| &m.stmts[*s as usize])
                        {
                            k = k.join(kinds.expr(*expr));
                        }
                    }
                }
                if k == Kind::Unset {
                    Kind::Unknown
                } else {
                    k
                }
            }
        };
        out
    })
}

/// Only the `check.*` findings of one function (what `vox check` needs), without the rules'
/// facts.
#[salsa::tracked(returns(ref))]
pub fn fn_checks<'db>(db: &'db dyn Db, f: FnDef<'db>) -> Vec<CheckFact> {
    with_body(db, f, |body, is_main| {
        let kinds = kinds::infer(body);
        let mut facts = FactsBuilder::default();
        checks::checks(body, &kinds, is_main, &mut facts);
        facts.checks
    })
}

/// One pass over every expression: calls, effects, host math, `modified_ms`.
fn scan(body: &Body<'_>, kinds: &kinds::Kinds, facts: &mut FactsBuilder) {
    let m = body.m;
    // Functions named as the right side of `|>` are called there.
    let pipe_rhs: Vec<u32> = m
        .exprs
        .iter()
        .filter_map(|e| match e {
            Expr::Pipe(_, rhs) => Some(*rhs),
            _ => None,
        })
        .collect();
    let r = |e: u32| m.expr_ranges[e as usize];
    for (i, e) in m.exprs.iter().enumerate() {
        let id = i as u32;
        match e {
            Expr::Call { callee, .. } => match &m.exprs[*callee as usize] {
                Expr::Builtin(b) => {
                    let info = body.catalog.info(*b);
                    if is_output(info.ns, info.name) {
                        facts.writes_output = true;
                    }
                    if info.cap != Cap::None || info.nondet != Nondet::None {
                        facts.effects.push(EffectSite {
                            builtin: Builtin::new(info.ns, info.name),
                            cap: info.cap,
                            nondet: info.nondet,
                            range: r(id),
                        });
                    }
                }
                Expr::Field(recv, name) => {
                    if let Expr::Global(g) = m.exprs[*recv as usize] {
                        if let Some(Global::ImportAlias { import }) = m.globals.get(g as usize) {
                            facts.calls.push(CallFact {
                                target: CallTarget::Imported {
                                    import: *import,
                                    name: Arc::from(&**name),
                                },
                                range: r(id),
                                direct: true,
                            });
                        }
                    }
                }
                _ => {}
            },
            // A function named anywhere (called or passed as a value) may run.
            Expr::Global(g) => match m.globals.get(*g as usize) {
                Some(Global::Fn(k)) => facts.calls.push(CallFact {
                    target: body.local(*k),
                    range: call_range(body, id),
                    direct: parent_call(body, id).is_some() || pipe_rhs.contains(&id),
                }),
                Some(Global::Imported { import, name }) => facts.calls.push(CallFact {
                    target: CallTarget::Imported {
                        import: *import,
                        name: Arc::from(&**name),
                    },
                    range: call_range(body, id),
                    direct: parent_call(body, id).is_some() || pipe_rhs.contains(&id),
                }),
                _ => {}
            },
            Expr::Builtin(b) if parent_call(body, id).is_none() => {
                // A builtin passed as a value (`xs.map(fs.read)`) may run with any argument.
                let info = body.catalog.info(*b);
                if info.cap != Cap::None || info.nondet != Nondet::None {
                    facts.effects.push(EffectSite {
                        builtin: Builtin::new(info.ns, info.name),
                        cap: info.cap,
                        nondet: info.nondet,
                        range: r(id),
                    });
                }
            }
            Expr::MethodCall {
                recv, name, args, ..
            } => {
                let rk = kinds.expr(*recv);
                let recv_is_value =
                    !matches!(m.exprs[*recv as usize], Expr::Namespace(_) | Expr::Std);
                if HOST_MATH.contains(&&**name)
                    && recv_is_value
                    && matches!(rk, Kind::Float | Kind::Unknown)
                {
                    facts.host_math.push(HostMath {
                        range: r(id),
                        method: Arc::from(&**name),
                        recv: r(*recv),
                        args: args.iter().map(|a| r(*a)).collect(),
                    });
                }
                if &**name == "get" && args.len() == 1 && is_str_lit(m, args[0], "modified_ms") {
                    facts.mtime_reads.push(r(id));
                }
            }
            Expr::Field(_, name) if &**name == "modified_ms" => facts.mtime_reads.push(r(id)),
            Expr::Index(_, ix) if is_str_lit(m, *ix, "modified_ms") => {
                facts.mtime_reads.push(r(id))
            }
            _ => {}
        }
    }
}

fn is_str_lit(m: &Module, e: u32, s: &str) -> bool {
    matches!(&m.exprs[e as usize], Expr::Lit(vox_hir::Literal::Str(x)) if &**x == s)
}

/// The call whose callee is `e`, if any.
fn parent_call(body: &Body<'_>, e: u32) -> Option<u32> {
    let c = body.call_of[e as usize];
    (c != u32::MAX).then_some(c)
}

fn call_range(body: &Body<'_>, e: u32) -> TextRange {
    let m = body.m;
    parent_call(body, e).map_or(m.expr_ranges[e as usize], |c| m.expr_ranges[c as usize])
}
