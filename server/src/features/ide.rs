//! Navigation and editing help over the syntax tree and the analysis: definition, references,
//! rename, document symbols, folding, signature help, semantic tokens (full and delta) and inlay
//! hints (the capability a call consumes, parameter names, inferred kinds of `let`s). One job
//! per submodule: hover (`hover`), completion (`complete`), inferred kinds at the edge
//! (`kinds`), highlights, selection ranges and import links (`nav`), call hierarchy (`calls`),
//! fuzzy workspace symbols (`symbols`).
//!
//! Names are resolved lexically here (the server only converts): `let`, `for`, parameters,
//! lambdas and match arms bind in their scope (top-level `let`s outside named functions);
//! top-level functions, types, variants and import aliases bind in the file; an unaliased
//! import's `pub fn`s, `pub type`s and their variants bind where the import does, an aliased
//! one's are members of the alias. Type names resolve in annotations and constructor patterns.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ropey::Rope;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_analysis::SourceFile;
use vox_hir::{BuiltinCatalog, Cap, Nondet};
use vox_syntax::ast::{self, AstNode};
use vox_syntax::{SyntaxKind as K, SyntaxNode, SyntaxToken, SyntaxTree, TextRange};

use crate::base::lock;
use crate::convert::{self, Encoding};
use crate::diagnostics::uri_of;
use crate::session::path_of;
use crate::session::{is_script, Snapshot};
use crate::state::Shared;

mod calls;
mod complete;
mod hover;
mod kinds;
mod nav;
mod symbols;

pub use calls::{incoming_calls, outgoing_calls, prepare_call_hierarchy};
pub use complete::completion;
pub use hover::hover;
pub use nav::{document_highlight, document_links, selection_ranges};
pub use symbols::workspace_symbols;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    Fn,
    Param,
    Local,
    Type,
    Variant,
    ImportAlias,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    pub name: String,
    /// The name token.
    pub range: TextRange,
    pub kind: DefKind,
    /// Where the name is visible.
    pub visible: TextRange,
    /// For functions: the declaration node.
    pub node: TextRange,
    pub is_pub: bool,
}

/// What a name at a position is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Def(PathBuf, Def),
    Builtin(&'static str, &'static str),
    Namespace(String),
}

fn catalog() -> &'static vox_runtime::catalog::Catalog {
    vox_runtime::catalog::Catalog::get()
}

/// A token that can name a member after a dot: a name, or a reserved word of full Vox
/// (`process.spawn`).
pub(crate) fn is_member_name(k: K) -> bool {
    matches!(k, K::Ident | K::NonScriptKw)
}

/// The token naming what a callee expression calls: `f` in `f(…)`, `f` in `util.f(…)` and
/// `x.f(…)`.
pub(crate) fn callee_name(callee: SyntaxNode<'_>) -> Option<SyntaxToken<'_>> {
    match callee.kind() {
        K::NameRef => callee.first_token(),
        K::FieldExpr => callee
            .children_with_tokens()
            .filter_map(|e| e.as_token())
            .filter(|t| is_member_name(t.kind()))
            .last(),
        _ => None,
    }
}

fn ident_tokens<'t>(node: SyntaxNode<'t>) -> impl Iterator<Item = SyntaxToken<'t>> + 't {
    node.descendant_tokens().filter(|t| t.kind() == K::Ident)
}

/// Every binding of a file.
pub fn defs(tree: &SyntaxTree) -> Vec<Def> {
    let root = tree.root();
    let file = root.range();
    let mut out = Vec::new();
    let mut push = |name: &SyntaxToken<'_>, kind, visible, node: TextRange, is_pub| {
        out.push(Def {
            name: name.text().to_string(),
            range: name.range(),
            kind,
            visible,
            node,
            is_pub,
        })
    };
    for item in root.children() {
        if let Some(f) = ast::FnDecl::cast(item) {
            if let Some(n) = f.name() {
                push(&n, DefKind::Fn, file, item.range(), f.is_pub());
            }
            for p in f
                .param_list()
                .into_iter()
                .flat_map(|pl| pl.params().collect::<Vec<_>>())
            {
                if let Some(n) = p.name() {
                    push(&n, DefKind::Param, item.range(), item.range(), false);
                }
            }
        } else if let Some(t) = ast::TypeDecl::cast(item) {
            if let Some(n) = t.name() {
                push(&n, DefKind::Type, file, item.range(), t.is_pub());
            }
            for v in t.variants() {
                if let Some(n) = v.name() {
                    push(&n, DefKind::Variant, file, v.syntax().range(), t.is_pub());
                }
            }
        } else if let Some(imp) = ast::Import::cast(item) {
            if let Some(a) = imp.alias() {
                push(&a, DefKind::ImportAlias, file, item.range(), false);
            }
        }
    }
    for node in root.descendants() {
        match node.kind() {
            K::LetStmt => {
                let Some(pat) = ast::LetStmt::cast(node).and_then(|l| l.pattern()) else {
                    continue;
                };
                let scope_end = node.parent().map_or(file.end, |p| p.range().end);
                let visible = TextRange::new(node.range().end, scope_end);
                for t in ident_tokens(pat) {
                    if t.parent().kind() == K::IdentPat {
                        push(&t, DefKind::Local, visible, node.range(), false);
                    }
                }
            }
            K::ForExpr => {
                if let Some(b) = node.child_of(K::ForBinding) {
                    for t in ident_tokens(b) {
                        if t.parent().kind() == K::IdentPat {
                            push(&t, DefKind::Local, node.range(), node.range(), false);
                        }
                    }
                }
            }
            K::Lambda => {
                if let Some(pl) = node.child_of(K::ParamList) {
                    for p in pl.children().filter(|c| c.kind() == K::Param) {
                        if let Some(t) = p.first_token_of(K::Ident) {
                            push(&t, DefKind::Param, node.range(), node.range(), false);
                        }
                    }
                }
            }
            K::ArrowFn => {
                if let Some(ps) = node.child_of(K::ArrowParams) {
                    for t in ident_tokens(ps) {
                        push(&t, DefKind::Param, node.range(), node.range(), false);
                    }
                }
            }
            K::MatchArm => {
                if let Some(pat) = node.children().next() {
                    for t in ident_tokens(pat) {
                        if t.parent().kind() == K::IdentPat {
                            push(&t, DefKind::Local, node.range(), node.range(), false);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Per-file facts the features share.
pub struct FileView {
    pub path: PathBuf,
    pub file: SourceFile,
    pub tree: std::sync::Arc<SyntaxTree>,
    pub defs: Vec<Def>,
    pub rope: Rope,
    /// Per file import: the target's path and its public functions, types and variants.
    pub imports: Vec<Option<(PathBuf, Vec<Def>)>>,
    /// Per file import: whether it has an alias (`as util`). Only an unaliased import's names
    /// are bare globals; an aliased one's are members of the alias (voxscript.md §3.3).
    pub aliased: Vec<bool>,
    index: DefIndex,
}

/// The definitions of a file by what looks them up, so that resolving a name costs what the
/// names it could be cost, not the file's size (issue 20: resolving every token of a file
/// scanned every definition).
#[derive(Default)]
struct DefIndex {
    /// Definition sites by the name token's range (the first such definition).
    sites: HashMap<(u32, u32), usize>,
    /// The first function, type, variant or import alias of each name.
    top: HashMap<String, usize>,
    /// Locals and parameters visible only inside the top-level item they are in, per name,
    /// ordered by position.
    scoped: HashMap<String, Vec<usize>>,
    /// Locals visible beyond their item (a top-level `let`), per name, ordered by position.
    wide: HashMap<String, Vec<usize>>,
    /// The ranges of the file's top-level items, in order.
    items: Vec<TextRange>,
    /// Import alias names (the first alias of each name) to the import's index among the
    /// file's imports.
    aliases: HashMap<String, Option<usize>>,
    /// A public function of each import by name (the first of that name).
    import_pubs: Vec<HashMap<String, usize>>,
}

impl DefIndex {
    fn new(tree: &SyntaxTree, defs: &[Def], imports: &[Option<(PathBuf, Vec<Def>)>]) -> DefIndex {
        let mut ix = DefIndex::default();
        let root = tree.root();
        let mut import_nodes = Vec::new();
        for c in root.children() {
            ix.items.push(c.range());
            // File imports only (`import fs` names no file), in the order of the item tree's.
            if c.kind() == K::Import && c.child_of(K::ImportPath).is_some() {
                import_nodes.push(c.range());
            }
        }
        for (i, d) in defs.iter().enumerate() {
            ix.sites.entry((d.range.start, d.range.end)).or_insert(i);
            match d.kind {
                DefKind::Fn | DefKind::Type | DefKind::Variant | DefKind::ImportAlias => {
                    ix.top.entry(d.name.clone()).or_insert(i);
                    if d.kind == DefKind::ImportAlias && !ix.aliases.contains_key(&d.name) {
                        let k = import_nodes.iter().position(|n| *n == d.node);
                        ix.aliases.insert(d.name.clone(), k);
                    }
                }
                DefKind::Local | DefKind::Param => {
                    let inside = ix.items_at(d.range.start).iter().flatten().any(|it| {
                        it.start <= d.range.start
                            && d.range.start < it.end
                            && it.start <= d.visible.start
                            && d.visible.end <= it.end
                    });
                    let map = if inside { &mut ix.scoped } else { &mut ix.wide };
                    map.entry(d.name.clone()).or_default().push(i);
                }
            }
        }
        for list in ix.scoped.values_mut().chain(ix.wide.values_mut()) {
            list.sort_by_key(|&i| (defs[i].range.start, i));
        }
        ix.import_pubs = imports
            .iter()
            .map(|imp| {
                let mut m = HashMap::new();
                if let Some((_, pubs)) = imp {
                    for (i, d) in pubs.iter().enumerate() {
                        m.entry(d.name.clone()).or_insert(i);
                    }
                }
                m
            })
            .collect();
        crate::work::add(defs.len() as u64 + ix.items.len() as u64);
        ix
    }

    /// The top-level items whose range holds `offset`, ends included: at most two (one ending
    /// where the next starts).
    fn items_at(&self, offset: u32) -> [Option<TextRange>; 2] {
        crate::work::add(1);
        let i = self.items.partition_point(|r| r.start <= offset);
        let holds = |k: usize| {
            self.items
                .get(k)
                .copied()
                .filter(|r| r.start <= offset && offset <= r.end)
        };
        match i {
            0 => [None, None],
            1 => [holds(0), None],
            _ => [holds(i - 1), holds(i - 2)],
        }
    }
}

impl FileView {
    /// The view of a request's document and the byte offset of its position.
    pub fn at(snap: &Snapshot, pp: &TextDocumentPositionParams) -> Option<(FileView, u32)> {
        let view = FileView::new(snap, &path_of(&pp.text_document.uri)?)?;
        let offset = view.offset(snap.encoding, pp.position);
        Some((view, offset))
    }

    pub fn new(snap: &Snapshot, path: &Path) -> Option<FileView> {
        if !is_script(path) {
            return None;
        }
        let file = snap.file(path)?;
        let tree = snap.tree(path, file);
        let defs = defs(&tree);
        let imports: Vec<Option<(PathBuf, Vec<Def>)>> = import_targets(snap, file)
            .into_iter()
            .map(|t| {
                let t = t?;
                let pubs = self::defs(vox_analysis::parse(&snap.db, t))
                    .into_iter()
                    .filter(|d| {
                        d.is_pub && matches!(d.kind, DefKind::Fn | DefKind::Type | DefKind::Variant)
                    })
                    .collect();
                Some((t.path(&snap.db).clone(), pubs))
            })
            .collect();
        let index = DefIndex::new(&tree, &defs, &imports);
        let aliased = vox_analysis::file_items(&snap.db, file)
            .items
            .imports
            .iter()
            .map(|i| i.alias.is_some())
            .collect();
        Some(FileView {
            path: path.to_path_buf(),
            file,
            tree,
            defs,
            rope: snap.rope(path),
            imports,
            aliased,
            index,
        })
    }

    /// Whether `name` is an import alias of this file.
    pub fn is_import_alias(&self, name: &str) -> bool {
        self.index.aliases.contains_key(name)
    }

    /// The index (among the file's imports) of the import that the alias `name` names.
    pub fn alias_import(&self, name: &str) -> Option<usize> {
        self.index.aliases.get(name).copied().flatten()
    }

    /// The definition whose name token is exactly `r`.
    pub fn def_at(&self, r: TextRange) -> Option<&Def> {
        crate::work::add(1);
        self.index
            .sites
            .get(&(r.start, r.end))
            .map(|&i| &self.defs[i])
    }

    pub fn offset(&self, enc: Encoding, pos: Position) -> u32 {
        convert::offset(&self.rope, enc, pos) as u32
    }

    pub fn range(&self, enc: Encoding, r: TextRange) -> Range {
        convert::range(&self.rope, enc, r)
    }

    /// The identifier token at (or just before) an offset: a name, or a member after a dot
    /// (`process.spawn`: `spawn` is a reserved word of full Vox, lexed as one).
    pub fn ident_at(&self, offset: u32) -> Option<SyntaxToken<'_>> {
        let is_name = |t: &SyntaxToken<'_>| {
            matches!(t.kind(), K::Ident | K::TypeIdent)
                || (t.kind() == K::NonScriptKw && t.parent().kind() == K::FieldExpr)
        };
        if let Some(t) = self.tree.token_at_offset(offset).filter(is_name) {
            return Some(t);
        }
        offset
            .checked_sub(1)
            .and_then(|o| self.tree.token_at_offset(o))
            .filter(is_name)
    }

    /// The innermost local or parameter `name` visible at `at`: the one declared last among
    /// those of the item holding `at`, and those visible beyond their item.
    fn local(&self, name: &str, at: u32) -> Option<&Def> {
        let visible = |d: &Def| d.visible.start <= at && at <= d.visible.end;
        let mut best: Option<usize> = None;
        let mut consider = |i: usize| {
            crate::work::add(1);
            let d = &self.defs[i];
            if visible(d) && best.is_none_or(|b| self.defs[b].range.start <= d.range.start) {
                best = Some(i);
            }
        };
        if let Some(list) = self.index.scoped.get(name) {
            for item in self.index.items_at(at).into_iter().flatten() {
                // Those declared inside the item: a contiguous run of the list.
                let a = list.partition_point(|&i| self.defs[i].range.start < item.start);
                let b = list.partition_point(|&i| self.defs[i].range.start < item.end);
                for &i in &list[a..b] {
                    consider(i);
                }
            }
        }
        // Locals visible beyond their item are the top-level `let`s: locals of the synthetic
        // main, not visible inside named functions.
        if let Some(list) = self.index.wide.get(name).filter(|_| !self.in_named_fn(at)) {
            // Visible from their declaration on: the last one declared before `at` that is
            // visible (the first tried, nearly always).
            let end = list.partition_point(|&i| self.defs[i].range.start <= at);
            for &i in list[..end].iter().rev() {
                if visible(&self.defs[i]) {
                    consider(i);
                    break;
                }
                crate::work::add(1);
            }
            // Any declared after `at` and still visible there (not made by the parser today).
            for &i in &list[end..] {
                if self.defs[i].visible.start > at {
                    break;
                }
                consider(i);
            }
        }
        best.map(|i| &self.defs[i])
    }

    fn top(&self, name: &str) -> Option<&Def> {
        crate::work::add(1);
        self.index.top.get(name).map(|&i| &self.defs[i])
    }

    /// Whether `offset` lies inside a named function (where top-level `let`s, locals of the
    /// synthetic main, are not visible: voxscript.md §3.3).
    pub fn in_named_fn(&self, offset: u32) -> bool {
        crate::work::add(1);
        self.tree
            .token_at_offset(offset)
            .is_some_and(|t| t.parent().ancestors().any(|n| n.kind() == K::FnDecl))
    }

    /// Whether local `d` can be named at `at`: inside its visible range, and a top-level `let`
    /// not from inside a named function.
    pub fn local_visible(&self, d: &Def, at: u32) -> bool {
        if !(d.visible.start <= at && at <= d.visible.end) {
            return false;
        }
        let top_level = d.kind == DefKind::Local
            && self.index.wide.get(&d.name).is_some_and(|l| {
                l.binary_search_by_key(&d.range.start, |&i| self.defs[i].range.start)
                    .is_ok()
            });
        !(top_level && self.in_named_fn(at))
    }

    /// The public definition `name` of an unaliased import (bare names of imported files).
    fn bare_import(&self, name: &str, kinds: &[DefKind]) -> Option<Resolved<'_>> {
        (0..self.imports.len())
            .filter(|&i| !self.aliased.get(i).copied().unwrap_or(false))
            .filter_map(|i| imported_ref(self, i, name))
            .find(|r| matches!(r, Resolved::Def(_, d) if kinds.contains(&d.kind)))
    }
}

fn import_targets(snap: &Snapshot, file: SourceFile) -> Vec<Option<SourceFile>> {
    vox_analysis::resolve_imports(&snap.db, file).files()
}

/// What the identifier token `tok` names.
pub fn resolve(_snap: &Snapshot, view: &FileView, tok: SyntaxToken<'_>) -> Option<Target> {
    Some(match resolve_ref(view, tok)? {
        Resolved::Def(path, d) => Target::Def(path.clone(), d.clone()),
        Resolved::Namespace => Target::Namespace(tok.text().into_owned()),
        Resolved::Builtin(ns, name) => Target::Builtin(ns, name),
    })
}

/// What a name token is, borrowed from the view (no copy: semantic tokens resolve every name
/// of the file).
pub enum Resolved<'v> {
    Def(&'v PathBuf, &'v Def),
    Namespace,
    Builtin(&'static str, &'static str),
}

/// The `pub fn NAME` of the file's `idx`-th import, borrowed.
fn imported_ref<'v>(view: &'v FileView, idx: usize, name: &str) -> Option<Resolved<'v>> {
    let (path, pubs) = view.imports.get(idx)?.as_ref()?;
    crate::work::add(1);
    let i = *view.index.import_pubs.get(idx)?.get(name)?;
    Some(Resolved::Def(path, pubs.get(i)?))
}

pub fn resolve_ref<'v>(view: &'v FileView, tok: SyntaxToken<'_>) -> Option<Resolved<'v>> {
    let name = tok.text();
    let name: &str = &name;
    let at = tok.range().start;
    // A definition site.
    if let Some(d) = view.def_at(tok.range()) {
        return Some(Resolved::Def(&view.path, d));
    }
    let parent = tok.parent();
    match parent.kind() {
        K::NameRef => {
            // `ns.member` and `alias.f` are handled at the member; the receiver itself:
            if let Some(d) = view.local(name, at) {
                return Some(Resolved::Def(&view.path, d));
            }
            if let Some(d) = view.top(name) {
                return Some(Resolved::Def(&view.path, d));
            }
            // Bare names of unaliased imports' pub fns and variants.
            if let Some(found) = view.bare_import(name, &[DefKind::Fn, DefKind::Variant]) {
                return Some(found);
            }
            if catalog().is_namespace(name) {
                return Some(Resolved::Namespace);
            }
            if let Some(id) = catalog().global_fn(name) {
                let r = catalog().row(id);
                return Some(Resolved::Builtin(r.ns, r.name));
            }
            None
        }
        // A type annotation (`s: Shape`, `to list[Shape]`): a type of the file or of an
        // unaliased import; `int`, `str` … are builtin.
        K::NameType if tok.kind() == K::TypeIdent => match view.top(name) {
            Some(d) if d.kind == DefKind::Type => Some(Resolved::Def(&view.path, d)),
            _ => view.bare_import(name, &[DefKind::Type]),
        },
        // A constructor pattern (`Circle(r) => …`).
        K::CtorPat => match view.top(name) {
            Some(d) if d.kind == DefKind::Variant => Some(Resolved::Def(&view.path, d)),
            _ => view.bare_import(name, &[DefKind::Variant]),
        },
        K::FieldExpr => {
            let recv = parent.children().next()?;
            if recv.kind() != K::NameRef {
                return None;
            }
            let rtext = recv.text();
            let rname = rtext.trim();
            if view.local(rname, recv.range().start).is_some() {
                return None;
            }
            if view.is_import_alias(rname) {
                return imported_ref(view, view.alias_import(rname)?, name);
            }
            if catalog().is_namespace(rname) {
                let r = catalog().lookup(rname, name)?;
                return Some(Resolved::Builtin(r.ns, r.name));
            }
            None
        }
        _ => None,
    }
}

pub fn cap_label(cap: Cap) -> Option<&'static str> {
    Some(match cap {
        Cap::None => return None,
        Cap::FsRead => "fs:ro",
        Cap::FsWrite => "fs:rw",
        Cap::Net => "net:allow",
        Cap::Process => "process:allow",
        Cap::EnvRo => "env:ro",
        Cap::EnvRw => "env:rw",
        Cap::Secrets => "secrets:allow",
        Cap::Time => "time:real",
        Cap::Random => "random:seed",
        Cap::Agentos => "agentos:allow",
    })
}

fn nondet_text(n: Nondet) -> Option<&'static str> {
    Some(match n {
        Nondet::None => return None,
        Nondet::Clock => "reads the clock: results differ between runs (D003)",
        Nondet::Entropy => {
            "draws randomness: results differ between runs unless `random:seed=` is pinned (D006)"
        }
        Nondet::Order => "returns entries in OS order: sort before use (D007)",
        Nondet::Environment => "reads the environment: results differ between machines (I001)",
        Nondet::HostMath => "uses the host's math library: results differ between machines (D001)",
        Nondet::External => "talks to the outside world: results differ between runs",
    })
}

/// Signature and one-line doc of a builtin, from voxscript.md §5 (`builtin_docs.tsv`).
pub fn builtin_doc(qualified: &str) -> Option<(&'static str, &'static str)> {
    static DOCS: std::sync::OnceLock<HashMap<&'static str, (&'static str, &'static str)>> =
        std::sync::OnceLock::new();
    DOCS.get_or_init(|| {
        include_str!("builtin_docs.tsv")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let mut parts = l.splitn(3, '\t');
                Some((parts.next()?, (parts.next()?, parts.next()?)))
            })
            .collect()
    })
    .get(qualified)
    .copied()
}

/// Signature and doc of a method: its `builtin_docs.tsv` row, unless that row is a global
/// builtin's of the same name (`len(x)` is not `s.len()`).
pub fn method_doc(name: &str) -> Option<(&'static str, &'static str)> {
    if catalog().global_fn(name).is_some() {
        return None;
    }
    builtin_doc(name)
}

fn builtin_markdown(ns: &str, name: &str) -> String {
    let q = vox_hir::catalog::qualified(ns, name);
    let Some(row) = catalog().lookup(ns, name) else {
        return format!("```voxscript\n{q}\n```");
    };
    let (sig, doc) = builtin_doc(&q).unwrap_or(("", ""));
    let sig = if sig.is_empty() {
        format!("{q}(…)")
    } else {
        sig.to_string()
    };
    let mut s = format!("```voxscript\n{sig}\n```\n{doc}");
    match cap_label(row.cap) {
        Some(c) => s.push_str(&format!("\n\nneeds: `{c}`")),
        None => s.push_str("\n\nneeds no capability"),
    }
    if let Some(n) = nondet_text(row.nondet) {
        s.push_str(&format!("\n\nnondeterministic source: {n}"));
    }
    s
}

/// The top-level function item whose range is `node`: found from the token where it starts,
/// not by scanning the file's items.
fn fn_decl_at(tree: &SyntaxTree, node: TextRange) -> Option<SyntaxNode<'_>> {
    crate::work::add(1);
    let tok = tree.token_at_offset(node.start)?;
    tok.parent().ancestors().find(|n| {
        n.range() == node
            && n.kind() == K::FnDecl
            && n.parent().is_some_and(|p| p.parent().is_none())
    })
}

/// `fn name(a: int, b) to str` of a function item.
fn signature(tree: &SyntaxTree, node: TextRange) -> Option<(String, Vec<String>)> {
    let f = ast::FnDecl::cast(fn_decl_at(tree, node)?)?;
    let name = f.name()?.text().to_string();
    let params: Vec<String> = f
        .param_list()
        .map(|pl| {
            pl.params()
                .map(|p| p.syntax().text().trim().to_string())
                .collect()
        })
        .unwrap_or_default();
    let ret = f
        .ret_type()
        .map(|r| format!(" {}", r.syntax().text().trim()))
        .unwrap_or_default();
    Some((format!("fn {name}({}){ret}", params.join(", ")), params))
}

/// "needs: fs:ro=data, time:real" for a function: its effect summary as tokens.
pub fn effect_summary(snap: &Snapshot, path: &Path, name: &str) -> Option<String> {
    let file = snap.file(path)?;
    let fi = vox_analysis::file_items(&snap.db, file);
    let i = fi.items.fns.iter().position(|f| &*f.name == name)?;
    let f = *fi.fns.get(i)?;
    let summary = vox_analysis::summary(&snap.db, f);
    let needs: Vec<vox_analysis::CapNeed> = summary
        .effects
        .iter()
        .filter(|(e, _)| e.kind != vox_analysis::EffectKind::Output)
        .map(|(e, w)| vox_analysis::CapNeed {
            effect: e.clone(),
            entry: i as u32,
            range: w.range,
        })
        .collect();
    let caps = vox_analysis::InferredCaps {
        needs,
        imports: Vec::new(),
    };
    let tokens = vox_analysis::render_tokens(&caps, &snap.root);
    Some(if tokens.tokens.is_empty() {
        "needs: nothing".to_string()
    } else {
        format!(
            "needs: {}",
            tokens
                .tokens
                .iter()
                .map(|t| t.token.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// The `///` comment lines just above a declaration whose node is `node` (decorators may sit
/// between), joined; `None` without one. A blank line or another comment ends the block.
pub fn doc_comment(tree: &SyntaxTree, node: TextRange) -> Option<String> {
    crate::work::add(1);
    // The declaration's first significant token (its node may start with trivia).
    let mut i = tree.token_at_offset(node.start)?.index();
    while i < tree.token_count() {
        let t = tree.token(i);
        if !(t.kind().is_trivia() || t.kind() == K::Newline) {
            break;
        }
        i += 1;
    }
    let mut lines = Vec::new();
    let mut newlines = 0;
    while i > 0 {
        i -= 1;
        crate::work::add(1);
        let t = tree.token(i);
        match t.kind() {
            K::Whitespace => {}
            K::Newline => {
                newlines += 1;
                if newlines > 1 {
                    break;
                }
            }
            K::Comment => {
                let text = t.text();
                let Some(rest) = text.strip_prefix("///") else {
                    break;
                };
                if rest.starts_with('/') {
                    break;
                }
                lines.push(
                    rest.strip_prefix(' ')
                        .unwrap_or(rest)
                        .trim_end()
                        .to_string(),
                );
                newlines = 0;
            }
            _ => break,
        }
    }
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    Some(lines.join("\n"))
}

/// The tree of `file`: the view's own, else a parse from the database.
pub(crate) fn tree_of(
    snap: &Snapshot,
    view: &FileView,
    file: &Path,
) -> Option<std::sync::Arc<SyntaxTree>> {
    if file == view.path {
        return Some(view.tree.clone());
    }
    let f = snap.file(file)?;
    Some(snap.tree(file, f))
}

fn location(snap: &Snapshot, path: &Path, r: TextRange) -> Option<Location> {
    let rope = snap.rope(path);
    Some(Location::new(
        uri_of(path)?,
        convert::range(&rope, snap.encoding, r),
    ))
}

pub fn definition(
    snap: &Snapshot,
    p: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>> {
    let pp = p.text_document_position_params;
    let Some((view, offset)) = FileView::at(snap, &pp) else {
        return Ok(None);
    };
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    match resolve(snap, &view, tok) {
        Some(Target::Def(file, d)) => {
            Ok(location(snap, &file, d.range).map(GotoDefinitionResponse::Scalar))
        }
        _ => Ok(None),
    }
}

/// Every reference to `target` (with its definition): in its file, and for a `pub fn` in the
/// workspace files that import it.
fn find_references(snap: &Snapshot, target: &Target) -> Vec<(PathBuf, TextRange)> {
    let Target::Def(def_file, def) = target else {
        return Vec::new();
    };
    let mut files = vec![def_file.clone()];
    if def.is_pub && matches!(def.kind, DefKind::Fn | DefKind::Type | DefKind::Variant) {
        for (p, f) in snap.files.iter() {
            if p != def_file
                && import_targets(snap, *f)
                    .iter()
                    .flatten()
                    .any(|t| t.path(&snap.db) == def_file)
            {
                files.push(p.clone());
            }
        }
    }
    let mut out = Vec::new();
    for path in files {
        let Some(view) = FileView::new(snap, &path) else {
            continue;
        };
        for tok in view.tree.root().descendant_tokens() {
            if !matches!(tok.kind(), K::Ident | K::TypeIdent) || tok.text() != def.name.as_str() {
                continue;
            }
            if resolve(snap, &view, tok).as_ref() == Some(target) {
                out.push((path.clone(), tok.range()));
            }
        }
    }
    out
}

pub fn references(snap: &Snapshot, p: ReferenceParams) -> Result<Option<Vec<Location>>> {
    let pp = p.text_document_position;
    let Some((view, offset)) = FileView::at(snap, &pp) else {
        return Ok(None);
    };
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    let Some(target) = resolve(snap, &view, tok) else {
        return Ok(None);
    };
    let def_range = match &target {
        Target::Def(f, d) => Some((f.clone(), d.range)),
        _ => None,
    };
    let locs = find_references(snap, &target)
        .into_iter()
        .filter(|r| p.context.include_declaration || Some(r) != def_range.as_ref())
        .filter_map(|(f, r)| location(snap, &f, r))
        .collect();
    Ok(Some(locs))
}

pub fn prepare_rename(
    snap: &Snapshot,
    p: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let offset = view.offset(snap.encoding, p.position);
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    match resolve(snap, &view, tok) {
        Some(Target::Def(..)) => Ok(Some(PrepareRenameResponse::Range(
            view.range(snap.encoding, tok.range()),
        ))),
        _ => Ok(None),
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && vox_syntax::lexer::lex(s.as_bytes())
            .tokens
            .iter()
            .filter(|t| !t.kind.is_trivia() && t.kind != K::Eof)
            .all(|t| matches!(t.kind, K::Ident | K::TypeIdent))
}

/// The edit renaming a definition and its references: versioned `documentChanges` (the open
/// document's version, null for a file that is not open) for a client that supports them
/// (`document_changes`), else `changes`.
pub fn rename(
    snap: &Snapshot,
    p: RenameParams,
    document_changes: bool,
) -> Result<Option<WorkspaceEdit>> {
    let pp = p.text_document_position;
    let Some(path) = path_of(&pp.text_document.uri) else {
        return Ok(None);
    };
    if !is_identifier(&p.new_name) {
        return Err(crate::base::invalid_params(format!(
            "`{}` is not a valid name",
            p.new_name
        )));
    }
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let offset = view.offset(snap.encoding, pp.position);
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    let Some(target @ Target::Def(..)) = resolve(snap, &view, tok) else {
        return Ok(None);
    };
    if let Target::Def(_, d) = &target {
        // Types and variants are capitalised names, everything else lower-case ones: the
        // lexer tells them apart, so a rename must keep the form.
        let capitalised = p.new_name.chars().next().is_some_and(|c| c.is_uppercase());
        let wants_type = matches!(d.kind, DefKind::Type | DefKind::Variant);
        if wants_type != capitalised {
            return Err(crate::base::invalid_params(format!(
                "cannot rename `{}` to `{}`: {} names must start with {} letter",
                d.name,
                p.new_name,
                if wants_type {
                    "type and variant"
                } else {
                    "function and variable"
                },
                if wants_type {
                    "a capital"
                } else {
                    "a lower-case"
                },
            )));
        }
    }
    let mut per_file: std::collections::BTreeMap<PathBuf, (Uri, Vec<TextEdit>)> =
        std::collections::BTreeMap::new();
    for (f, r) in find_references(snap, &target) {
        if let Some(loc) = location(snap, &f, r) {
            per_file
                .entry(f)
                .or_insert_with(|| (loc.uri, Vec::new()))
                .1
                .push(TextEdit::new(loc.range, p.new_name.clone()));
        }
    }
    if document_changes {
        let edits = per_file
            .into_iter()
            .map(|(path, (uri, edits))| TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri,
                    version: snap.docs.get(&path).map(|d| d.version),
                },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            })
            .collect();
        return Ok(Some(WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(edits)),
            ..WorkspaceEdit::default()
        }));
    }
    let changes: HashMap<Uri, Vec<TextEdit>> = per_file.into_values().collect();
    Ok(Some(WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    }))
}

#[allow(deprecated)]
fn symbol_info(
    name: String,
    kind: SymbolKind,
    location: Location,
    container: Option<String>,
) -> SymbolInformation {
    SymbolInformation {
        name,
        kind,
        tags: None,
        deprecated: None,
        location,
        container_name: container,
    }
}

fn def_symbol_kind(d: &Def) -> Option<SymbolKind> {
    Some(match d.kind {
        DefKind::Fn => SymbolKind::FUNCTION,
        DefKind::Type => SymbolKind::STRUCT,
        DefKind::Variant => SymbolKind::ENUM_MEMBER,
        DefKind::ImportAlias => SymbolKind::MODULE,
        _ => return None,
    })
}

pub fn document_symbols(
    snap: &Snapshot,
    p: DocumentSymbolParams,
    hierarchical: bool,
) -> Result<Option<DocumentSymbolResponse>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let enc = snap.encoding;
    let mut tick = snap.ticker();
    let lines = convert::TextIndex::new(view.tree.bytes());
    let top: Vec<&Def> = view
        .defs
        .iter()
        .filter(|d| def_symbol_kind(d).is_some() && d.kind != DefKind::Variant)
        .collect();
    if hierarchical {
        // Variants by position: a type's are the run inside its declaration.
        let mut variants: Vec<&Def> = view
            .defs
            .iter()
            .filter(|v| v.kind == DefKind::Variant)
            .collect();
        variants.sort_by_key(|v| v.range.start);
        #[allow(deprecated)]
        let out = top
            .iter()
            .map(|d| {
                tick.step();
                let inside: &[&Def] = if d.kind == DefKind::Type {
                    let a = variants.partition_point(|v| v.range.start < d.node.start);
                    let b = variants.partition_point(|v| v.range.start < d.node.end);
                    &variants[a..b.max(a)]
                } else {
                    &[]
                };
                let children: Vec<DocumentSymbol> = inside
                    .iter()
                    .filter(|v| d.node.contains(v.range.start))
                    .map(|v| {
                        tick.step();
                        DocumentSymbol {
                            name: v.name.clone(),
                            detail: None,
                            kind: SymbolKind::ENUM_MEMBER,
                            tags: None,
                            deprecated: None,
                            range: lines.range(enc, v.node),
                            selection_range: lines.range(enc, v.range),
                            children: None,
                        }
                    })
                    .collect();
                let detail = (d.kind == DefKind::Fn)
                    .then(|| signature(&view.tree, d.node).map(|s| s.0))
                    .flatten();
                DocumentSymbol {
                    name: d.name.clone(),
                    detail,
                    kind: def_symbol_kind(d).unwrap_or(SymbolKind::FUNCTION),
                    tags: None,
                    deprecated: None,
                    range: lines.range(enc, d.node),
                    selection_range: lines.range(enc, d.range),
                    children: (!children.is_empty()).then_some(children),
                }
            })
            .collect();
        return Ok(Some(DocumentSymbolResponse::Nested(out)));
    }
    let uri = p.text_document.uri;
    let out = view
        .defs
        .iter()
        .filter_map(|d| {
            tick.step();
            let kind = def_symbol_kind(d)?;
            Some(symbol_info(
                d.name.clone(),
                kind,
                Location::new(uri.clone(), lines.range(enc, d.range)),
                None,
            ))
        })
        .collect();
    Ok(Some(DocumentSymbolResponse::Flat(out)))
}

pub fn folding(snap: &Snapshot, p: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let mut tick = snap.ticker();
    let lines = convert::TextIndex::new(view.tree.bytes());
    let line = |o: u32| lines.line(o);
    let mut out = Vec::new();
    for n in view.tree.root().descendants() {
        tick.step();
        if !matches!(
            n.kind(),
            K::Block
                | K::ListExpr
                | K::MapExpr
                | K::MatchExpr
                | K::AdtBody
                | K::RecordBody
                | K::ArgList
        ) {
            continue;
        }
        let (a, b) = (line(n.range().start), line(n.range().end));
        if b > a {
            out.push(FoldingRange {
                start_line: a,
                end_line: b - 1,
                ..FoldingRange::default()
            });
        }
    }
    // Runs of comment lines, and the imports.
    let mut run: Option<(u32, u32)> = None;
    let flush = |run: &mut Option<(u32, u32)>, out: &mut Vec<FoldingRange>| {
        if let Some((a, b)) = run.take() {
            if b > a {
                out.push(FoldingRange {
                    start_line: a,
                    end_line: b,
                    kind: Some(FoldingRangeKind::Comment),
                    ..FoldingRange::default()
                });
            }
        }
    };
    for t in view.tree.root().descendant_tokens() {
        tick.step();
        match t.kind() {
            K::Comment => {
                let l = line(t.range().start);
                run = match run {
                    Some((a, b)) if b + 1 == l || b == l => Some((a, l)),
                    _ => {
                        flush(&mut run, &mut out);
                        Some((l, l))
                    }
                };
            }
            K::Whitespace | K::Newline => {}
            _ => flush(&mut run, &mut out),
        }
    }
    flush(&mut run, &mut out);
    let imports: Vec<SyntaxNode<'_>> = view
        .tree
        .root()
        .children()
        .filter(|c| c.kind() == K::Import)
        .collect();
    if let (Some(a), Some(b)) = (imports.first(), imports.last()) {
        let (la, lb) = (line(a.range().start), line(b.range().end));
        if lb > la {
            out.push(FoldingRange {
                start_line: la,
                end_line: lb,
                kind: Some(FoldingRangeKind::Imports),
                ..FoldingRange::default()
            });
        }
    }
    out.sort_by_key(|f| (f.start_line, f.end_line));
    out.dedup_by_key(|f| (f.start_line, f.end_line));
    Ok(Some(out))
}

/// The innermost call whose argument list holds `offset`, and the argument index there.
fn call_at(tree: &SyntaxTree, offset: u32) -> Option<(SyntaxNode<'_>, u32)> {
    let tok = tree
        .token_at_offset(offset)
        .or_else(|| tree.token_at_offset(offset.checked_sub(1)?))?;
    let mut node = Some(tok.parent());
    while let Some(n) = node {
        if n.kind() == K::ArgList {
            let r = n.range();
            if r.start < offset && (offset < r.end || !n.text().ends_with(')')) {
                let call = n.parent()?;
                let commas = n
                    .children_with_tokens()
                    .filter_map(|e| e.as_token())
                    .filter(|t| t.kind() == K::Comma && t.range().end <= offset)
                    .count() as u32;
                return Some((call, commas));
            }
        }
        node = n.parent();
    }
    None
}

pub fn signature_help(snap: &Snapshot, p: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
    let pp = p.text_document_position_params;
    let Some((view, offset)) = FileView::at(snap, &pp) else {
        return Ok(None);
    };
    let Some((call, active)) = call_at(&view.tree, offset) else {
        return Ok(None);
    };
    let Some(callee) = call.children().next() else {
        return Ok(None);
    };
    let Some(name_tok) = callee_name(callee) else {
        return Ok(None);
    };
    let (label, params, doc) = match resolve(snap, &view, name_tok) {
        Some(Target::Def(file, d)) if d.kind == DefKind::Fn => {
            let tree = match snap.file(&file) {
                Some(f) => vox_analysis::parse(&snap.db, f).clone(),
                None => return Ok(None),
            };
            let Some((sig, params)) = signature(&tree, d.node) else {
                return Ok(None);
            };
            let doc = [
                doc_comment(&tree, d.node),
                effect_summary(snap, &file, &d.name),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n\n");
            (sig, params, Some(doc).filter(|d| !d.is_empty()))
        }
        Some(Target::Builtin(ns, name)) => {
            let q = vox_hir::catalog::qualified(ns, name);
            let needs = catalog()
                .lookup(ns, name)
                .and_then(|r| cap_label(r.cap))
                .map(|c| format!("needs {c}"));
            let (sig, line) = builtin_doc(&q).unwrap_or(("", ""));
            let doc = [Some(line.to_string()).filter(|l| !l.is_empty()), needs]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("\n\n");
            if sig.is_empty() {
                (
                    format!("{q}(…)"),
                    Vec::new(),
                    Some(doc).filter(|d| !d.is_empty()),
                )
            } else {
                let params = complete::sig_params(sig)
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect();
                (sig.to_string(), params, Some(doc).filter(|d| !d.is_empty()))
            }
        }
        // A method (`s.split(`): its documented signature.
        None if name_tok.parent().kind() == K::FieldExpr => {
            let name = name_tok.text();
            let Some((sig, line)) = method_doc(&name) else {
                return Ok(None);
            };
            let params = complete::sig_params(sig)
                .into_iter()
                .map(|(n, _)| n)
                .collect();
            (
                format!(".{sig}"),
                params,
                Some(line.to_string()).filter(|l| !l.is_empty()),
            )
        }
        _ => return Ok(None),
    };
    let parameters = (!params.is_empty()).then(|| {
        params
            .iter()
            .map(|p| ParameterInformation {
                label: ParameterLabel::Simple(p.clone()),
                documentation: None,
            })
            .collect()
    });
    Ok(Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            label,
            documentation: doc.map(Documentation::String),
            parameters,
            active_parameter: Some(active),
        }],
        active_signature: Some(0),
        active_parameter: Some(active),
    }))
}

const TOKEN_TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::NAMESPACE,
    SemanticTokenType::TYPE,
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::METHOD,
    SemanticTokenType::PARAMETER,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::KEYWORD,
    SemanticTokenType::COMMENT,
    SemanticTokenType::STRING,
    SemanticTokenType::NUMBER,
    SemanticTokenType::OPERATOR,
    SemanticTokenType::DECORATOR,
];
/// Each token type's index in [`TOKEN_TYPES`] (the legend), known without a search per token.
mod tt {
    pub const NAMESPACE: u32 = 0;
    pub const TYPE: u32 = 1;
    pub const ENUM_MEMBER: u32 = 2;
    pub const FUNCTION: u32 = 3;
    pub const METHOD: u32 = 4;
    pub const PARAMETER: u32 = 5;
    pub const VARIABLE: u32 = 6;
    pub const PROPERTY: u32 = 7;
    pub const KEYWORD: u32 = 8;
    pub const COMMENT: u32 = 9;
    pub const STRING: u32 = 10;
    pub const NUMBER: u32 = 11;
    pub const DECORATOR: u32 = 13;
}
const MOD_DECLARATION: u32 = 1;
const MOD_DEFAULT_LIBRARY: u32 = 2;

pub fn semantic_legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TOKEN_TYPES.to_vec(),
        token_modifiers: vec![
            SemanticTokenModifier::DECLARATION,
            SemanticTokenModifier::DEFAULT_LIBRARY,
        ],
    }
}

/// The classified tokens of a file, encoded relative to each other.
pub fn semantic_tokens(snap: &Snapshot, view: &FileView) -> Vec<SemanticToken> {
    semantic_tokens_in(snap, view, 0..view.tree.token_count())
}

/// The classified tokens among the tokens `which` (indices, in order), encoded relative to each
/// other. One pass: each token is classified with the file's definition index, and its
/// position read from a line index in increasing order.
fn semantic_tokens_in(
    snap: &Snapshot,
    view: &FileView,
    which: std::ops::Range<usize>,
) -> Vec<SemanticToken> {
    let enc = snap.encoding;
    let mut tick = snap.ticker();
    let lines = convert::TextIndex::new(view.tree.bytes());
    let mut out = Vec::new();
    let (mut pl, mut pc) = (0, 0);
    for i in which {
        tick.step();
        let tok = view.tree.token(i);
        let kind = tok.kind();
        let class = match kind {
            K::Comment => Some((tt::COMMENT, 0)),
            K::Str => Some((tt::STRING, 0)),
            K::Int | K::Float | K::Decimal => Some((tt::NUMBER, 0)),
            K::AtName => Some((tt::DECORATOR, 0)),
            // A member that is a reserved word of full Vox (`process.spawn`) is a name.
            K::NonScriptKw if tok.parent().kind() == K::FieldExpr => match resolve_ref(view, tok) {
                Some(Resolved::Builtin(..)) => Some((tt::FUNCTION, MOD_DEFAULT_LIBRARY)),
                _ => Some((tt::METHOD, 0)),
            },
            k if k.is_keyword() => Some((tt::KEYWORD, 0)),
            K::Ident | K::TypeIdent => {
                let decl = view.def_at(tok.range()).is_some();
                let m = if decl { MOD_DECLARATION } else { 0 };
                match resolve_ref(view, tok) {
                    Some(Resolved::Def(_, d)) => Some((
                        match d.kind {
                            DefKind::Fn => tt::FUNCTION,
                            DefKind::Param => tt::PARAMETER,
                            DefKind::Local => tt::VARIABLE,
                            DefKind::Type => tt::TYPE,
                            DefKind::Variant => tt::ENUM_MEMBER,
                            DefKind::ImportAlias => tt::NAMESPACE,
                        },
                        m,
                    )),
                    Some(Resolved::Namespace) => Some((tt::NAMESPACE, MOD_DEFAULT_LIBRARY)),
                    Some(Resolved::Builtin(..)) => Some((tt::FUNCTION, MOD_DEFAULT_LIBRARY)),
                    None if kind == K::TypeIdent => Some((tt::TYPE, 0)),
                    None if tok.parent().kind() == K::FieldExpr => {
                        let called = tok
                            .parent()
                            .parent()
                            .is_some_and(|p| p.kind() == K::CallExpr);
                        Some((if called { tt::METHOD } else { tt::PROPERTY }, 0))
                    }
                    None => None,
                }
            }
            _ => None,
        };
        let Some((t, m)) = class else { continue };
        let r = tok.range();
        let a = lines.position(enc, r.start);
        let b = lines.position(enc, r.end);
        // Tokens spanning lines (multi-line strings) are left to the client's grammar.
        if a.line != b.line || b.character <= a.character {
            continue;
        }
        // Encoded relative to the previous token as it is produced.
        let (line, col) = (a.line, a.character);
        let dl = line - pl;
        out.push(SemanticToken {
            delta_line: dl,
            delta_start: if dl == 0 { col - pc } else { col },
            length: b.character - a.character,
            token_type: t,
            token_modifiers_bitset: m,
        });
        pl = line;
        pc = col;
    }
    out
}

/// A result id and the tokens sent under it.
type CachedTokens = (String, Vec<SemanticToken>);

/// The file's semantic tokens at this revision, cached under its result id, with what was cached
/// before (for deltas).
fn fresh_tokens(
    snap: &Snapshot,
    shared: &Shared,
    uri: &Uri,
) -> Option<(String, Vec<SemanticToken>, Option<CachedTokens>)> {
    let path = path_of(uri)?;
    let view = FileView::new(snap, &path)?;
    let data = semantic_tokens(snap, &view);
    let id = format!("{}", snap.revision);
    let prev = lock(&shared.semantic).insert(path, (id.clone(), data.clone()));
    Some((id, data, prev))
}

pub fn semantic_full(
    snap: &Snapshot,
    shared: &Shared,
    p: SemanticTokensParams,
) -> Result<Option<SemanticTokensResult>> {
    let Some((id, data, _)) = fresh_tokens(snap, shared, &p.text_document.uri) else {
        return Ok(None);
    };
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: Some(id),
        data,
    })))
}

pub fn semantic_delta(
    snap: &Snapshot,
    shared: &Shared,
    p: SemanticTokensDeltaParams,
) -> Result<Option<SemanticTokensFullDeltaResult>> {
    let Some((id, data, prev)) = fresh_tokens(snap, shared, &p.text_document.uri) else {
        return Ok(None);
    };
    match prev {
        Some((prev_id, old)) if prev_id == p.previous_result_id => {
            // One edit over the differing middle (in units of u32: 5 per token).
            let pre = old.iter().zip(&data).take_while(|(a, b)| a == b).count();
            let max_suf = old.len().min(data.len()) - pre;
            let suf = old
                .iter()
                .rev()
                .zip(data.iter().rev())
                .take(max_suf)
                .take_while(|(a, b)| a == b)
                .count();
            let edits = if old.len() == data.len() && pre == old.len() {
                Vec::new()
            } else {
                vec![SemanticTokensEdit {
                    start: (pre * 5) as u32,
                    delete_count: ((old.len() - pre - suf) * 5) as u32,
                    data: Some(data[pre..data.len() - suf].to_vec()),
                }]
            };
            Ok(Some(SemanticTokensFullDeltaResult::TokensDelta(
                SemanticTokensDelta {
                    result_id: Some(id),
                    edits,
                },
            )))
        }
        _ => Ok(Some(SemanticTokensFullDeltaResult::Tokens(
            SemanticTokens {
                result_id: Some(id),
                data,
            },
        ))),
    }
}

/// The tokens that overlap a range: the run of the file's tokens from the one at its start to
/// the one at its end (their positions cost what the range holds, not the file).
pub fn semantic_range(
    snap: &Snapshot,
    p: SemanticTokensRangeParams,
) -> Result<Option<SemanticTokensRangeResult>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let want = convert::text_range(&view.rope, snap.encoding, p.range);
    let n = view.tree.token_count();
    let (first, last) = match (
        view.tree.token_at_offset(want.start),
        view.tree
            .token_at_offset(want.end.saturating_sub(1).max(want.start)),
    ) {
        (Some(a), Some(b)) => (a.index(), (b.index() + 1).min(n)),
        _ => (0, 0),
    };
    let data = semantic_tokens_in(snap, &view, first..last.max(first));
    Ok(Some(SemanticTokensRangeResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    })))
}

pub fn inlay_hints(snap: &Snapshot, p: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let enc = snap.encoding;
    let want = convert::text_range(&view.rope, enc, p.range);
    let mut tick = snap.ticker();
    let mut out = Vec::new();
    // The calls that overlap the range: subtrees outside it are not entered.
    let mut calls = Vec::new();
    let mut lets = Vec::new();
    let mut stack = vec![view.tree.root()];
    while let Some(n) = stack.pop() {
        tick.step();
        let r = n.range();
        if r.end < want.start || r.start > want.end {
            continue;
        }
        if n.kind() == K::CallExpr {
            calls.push(n);
        }
        if n.kind() == K::LetStmt && snap.settings.inlay_types {
            lets.push(n);
        }
        let before = stack.len();
        stack.extend(n.children());
        stack[before..].reverse();
    }
    for call in calls {
        tick.step();
        let r = call.range();
        let Some(callee) = call.children().next() else {
            continue;
        };
        let Some(name_tok) = callee_name(callee) else {
            continue;
        };
        match resolve(snap, &view, name_tok) {
            Some(Target::Builtin(ns, name)) if snap.settings.inlay_caps => {
                let Some(c) = catalog().lookup(ns, name).and_then(|r| cap_label(r.cap)) else {
                    continue;
                };
                out.push(InlayHint {
                    position: view.range(enc, r).end,
                    label: InlayHintLabel::String(c.to_string()),
                    kind: None,
                    text_edits: None,
                    tooltip: Some(InlayHintTooltip::String(format!(
                        "this call needs the `{c}` capability"
                    ))),
                    padding_left: Some(true),
                    padding_right: None,
                    data: None,
                });
            }
            Some(Target::Def(file, d)) if d.kind == DefKind::Fn && snap.settings.inlay_params => {
                let tree = if file == view.path {
                    view.tree.clone()
                } else {
                    match snap.file(&file) {
                        Some(f) => snap.tree(&file, f),
                        None => continue,
                    }
                };
                let Some((_, params)) = signature(&tree, d.node) else {
                    continue;
                };
                let Some(args) = call.child_of(K::ArgList) else {
                    continue;
                };
                for (i, arg) in args.children().filter(|a| a.kind() == K::Arg).enumerate() {
                    let Some(param) = params.get(i) else { break };
                    let pname = param.split(':').next().unwrap_or("").trim();
                    if pname.is_empty() || arg.text().trim() == pname {
                        continue;
                    }
                    out.push(InlayHint {
                        position: view.range(enc, arg.range()).start,
                        label: InlayHintLabel::String(format!("{pname}:")),
                        kind: Some(InlayHintKind::PARAMETER),
                        text_edits: None,
                        tooltip: None,
                        padding_left: None,
                        padding_right: Some(true),
                        data: None,
                    });
                }
            }
            _ => {}
        }
    }
    // Inferred kinds of `let`s without an annotation (`vox.inlayHints.inferredTypes`), from
    // one lowering per function.
    let mut fn_kinds: Option<(u32, vox_analysis::FnKinds)> = None;
    for stmt in lets {
        tick.step();
        let annotated = stmt
            .children_with_tokens()
            .filter_map(|e| e.as_token())
            .any(|t| t.kind() == K::Colon);
        let Some(pat) = ast::LetStmt::cast(stmt).and_then(|l| l.pattern()) else {
            continue;
        };
        if annotated || pat.kind() != K::IdentPat {
            continue;
        }
        let at = stmt.trimmed_range().start;
        let Some((f, base)) = kinds::fn_at(snap, &view, at) else {
            continue;
        };
        if fn_kinds.as_ref().is_none_or(|(b, _)| *b != base) {
            fn_kinds = Some((base, vox_analysis::fn_kinds(&snap.db, f)));
        }
        let Some((_, k)) = &fn_kinds else { continue };
        let Some(name) = kinds::let_kind(k, base, stmt.range()).name() else {
            continue;
        };
        out.push(InlayHint {
            position: view.range(enc, pat.trimmed_range()).end,
            label: InlayHintLabel::String(format!(": {name}")),
            kind: Some(InlayHintKind::TYPE),
            text_edits: None,
            tooltip: Some(InlayHintTooltip::String(
                "kind inferred from the body (not checked at run time)".into(),
            )),
            padding_left: None,
            padding_right: None,
            data: None,
        });
    }
    out.sort_by_key(|h| (h.position.line, h.position.character));
    Ok(Some(out))
}

#[cfg(test)]
fn ty(t: SemanticTokenType) -> u32 {
    TOKEN_TYPES.iter().position(|x| *x == t).unwrap_or(0) as u32
}

#[cfg(test)]
mod legend_tests {
    use super::*;

    #[test]
    fn token_type_indices_follow_the_legend() {
        for (i, t) in TOKEN_TYPES.iter().enumerate() {
            assert_eq!(ty(t.clone()), i as u32);
        }
        assert_eq!(tt::NAMESPACE, ty(SemanticTokenType::NAMESPACE));
        assert_eq!(tt::FUNCTION, ty(SemanticTokenType::FUNCTION));
        assert_eq!(tt::VARIABLE, ty(SemanticTokenType::VARIABLE));
        assert_eq!(tt::KEYWORD, ty(SemanticTokenType::KEYWORD));
        assert_eq!(tt::DECORATOR, ty(SemanticTokenType::DECORATOR));
        assert_eq!(tt::DECORATOR as usize, TOKEN_TYPES.len() - 1);
    }
}
