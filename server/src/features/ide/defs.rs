//! What a file defines and how a name resolves: definitions (functions, types, variants, imports,
//! locals) with their scopes, a file's view, and resolving a token to what it names.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ropey::Rope;
use tower_lsp_server::ls_types::*;
use vox_analysis::SourceFile;
use vox_hir::BuiltinCatalog;
use vox_syntax::ast::{self, AstNode};
use vox_syntax::{SyntaxKind as K, SyntaxNode, SyntaxToken, SyntaxTree, TextRange};

use crate::convert::{self, Encoding};
use crate::diagnostics::uri_of;
use crate::session::path_of;
use crate::session::{is_script, Snapshot};

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

pub(crate) fn catalog() -> &'static vox_runtime::catalog::Catalog {
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

pub(crate) fn ident_tokens<'t>(node: SyntaxNode<'t>) -> impl Iterator<Item = SyntaxToken<'t>> + 't {
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
    pub(crate) index: DefIndex,
}

/// The definitions of a file by what looks them up, so that resolving a name costs what the
/// names it could be cost, not the file's size (issue 20: resolving every token of a file
/// scanned every definition).
#[derive(Default)]
pub(crate) struct DefIndex {
    /// Definition sites by the name token's range (the first such definition).
    pub(crate) sites: HashMap<(u32, u32), usize>,
    /// The first function, type, variant or import alias of each name.
    pub(crate) top: HashMap<String, usize>,
    /// Locals and parameters visible only inside the top-level item they are in, per name,
    /// ordered by position.
    pub(crate) scoped: HashMap<String, Vec<usize>>,
    /// Locals visible beyond their item (a top-level `let`), per name, ordered by position.
    pub(crate) wide: HashMap<String, Vec<usize>>,
    /// The ranges of the file's top-level items, in order.
    pub(crate) items: Vec<TextRange>,
    /// Import alias names (the first alias of each name) to the import's index among the
    /// file's imports.
    pub(crate) aliases: HashMap<String, Option<usize>>,
    /// A public function of each import by name (the first of that name).
    pub(crate) import_pubs: Vec<HashMap<String, usize>>,
}

impl DefIndex {
    pub(crate) fn new(
        tree: &SyntaxTree,
        defs: &[Def],
        imports: &[Option<(PathBuf, Vec<Def>)>],
    ) -> DefIndex {
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
    pub(crate) fn items_at(&self, offset: u32) -> [Option<TextRange>; 2] {
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
    pub(crate) fn local(&self, name: &str, at: u32) -> Option<&Def> {
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

    pub(crate) fn top(&self, name: &str) -> Option<&Def> {
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
    pub(crate) fn bare_import(&self, name: &str, kinds: &[DefKind]) -> Option<Resolved<'_>> {
        (0..self.imports.len())
            .filter(|&i| !self.aliased.get(i).copied().unwrap_or(false))
            .filter_map(|i| imported_ref(self, i, name))
            .find(|r| matches!(r, Resolved::Def(_, d) if kinds.contains(&d.kind)))
    }
}

pub(crate) fn import_targets(snap: &Snapshot, file: SourceFile) -> Vec<Option<SourceFile>> {
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
pub(crate) fn imported_ref<'v>(view: &'v FileView, idx: usize, name: &str) -> Option<Resolved<'v>> {
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

pub(crate) fn location(snap: &Snapshot, path: &Path, r: TextRange) -> Option<Location> {
    let rope = snap.rope(path);
    Some(Location::new(
        uri_of(path)?,
        convert::range(&rope, snap.encoding, r),
    ))
}
