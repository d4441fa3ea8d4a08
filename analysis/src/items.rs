//! Parsing and the item tree: the file-level queries. A file is parsed once per revision
//! ([`file_parse`]), and nothing keeps its tree: what later queries need is taken out of it (the
//! item tree, each function's text, syntax diagnostics, import sites, suppression comments).
//! Each function becomes a tracked [`FnDef`] whose `text` only changes when that function's own
//! text does, so its facts are recomputed (from a parse of that text alone) only then.

use std::sync::Arc;

use vox_hir::ItemTree;
use vox_syntax::{Diagnostic, SyntaxKind, SyntaxTree, TextRange};

use crate::{Db, SourceFile};

/// The file's syntax tree, for editor features that walk it. The analysis itself never needs it
/// after [`file_parse`]; kept in a small cache only.
#[salsa::tracked(returns(ref), no_eq, lru = 16)]
pub fn parse(db: &dyn Db, file: SourceFile) -> Arc<SyntaxTree> {
    Arc::new(vox_syntax::parse(file.text(db)))
}

/// An import as written, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportSite {
    pub path: String,
    pub alias: Option<String>,
    pub range: TextRange,
}

/// What the rules need of a file's syntax, without its tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSyntax {
    pub diagnostics: Vec<Diagnostic>,
    pub has_errors: bool,
    pub imports: Vec<ImportSite>,
    /// Top-level declared names with their ranges (import clashes).
    pub local_names: Vec<(String, TextRange)>,
    /// Comments that mention `vox:allow`, and whether each is in the leading comment block.
    pub allow_comments: Vec<(TextRange, bool)>,
    /// Where each function starts (in `ItemTree::fns` order).
    pub fn_starts: Vec<u32>,
}

impl FileSyntax {
    /// The imports as the HIR's `FileImport`s (for clash detection).
    pub fn file_imports(&self) -> Vec<vox_hir::FileImport> {
        self.imports
            .iter()
            .map(|i| vox_hir::FileImport {
                path: i.path.clone(),
                alias: i.alias.as_deref().map(std::rc::Rc::from),
                range: i.range,
            })
            .collect()
    }
}

/// One parse of a file. Never backdated (a new text is a new parse); the queries that read it
/// compare their own results.
#[derive(Debug)]
pub struct FileParse {
    pub items: Arc<ItemTree>,
    /// Each function's text, in `items.fns` order.
    pub fn_texts: Vec<Arc<[u8]>>,
    pub syntax: Arc<FileSyntax>,
}

#[salsa::tracked(returns(ref), no_eq)]
pub fn file_parse(db: &dyn Db, file: SourceFile) -> FileParse {
    let text: &[u8] = file.text(db);
    let tree = vox_syntax::parse(text);
    let (items, nodes) = vox_hir::item_tree(&tree);
    let fn_texts = nodes
        .iter()
        .map(|n| Arc::from(&text[n.range().start as usize..n.range().end as usize]))
        .collect();
    let mut allow_comments = Vec::new();
    let mut leading = true;
    for tok in tree.root().descendant_tokens() {
        let kind = tok.kind();
        if kind == SyntaxKind::Comment {
            if memchr_allow(tok.bytes()) {
                allow_comments.push((tok.range(), leading));
            }
        } else if !kind.is_trivia() && kind != SyntaxKind::Newline {
            leading = false;
        }
    }
    let imports = vox_hir::file_imports(&tree)
        .into_iter()
        .map(|i| ImportSite {
            path: i.path,
            alias: i.alias.map(|a| a.to_string()),
            range: i.range,
        })
        .collect();
    let syntax = FileSyntax {
        diagnostics: tree.diagnostics().to_vec(),
        has_errors: tree.has_errors(),
        imports,
        local_names: vox_hir::local_names(&tree),
        allow_comments,
        fn_starts: nodes.iter().map(|n| n.range().start).collect(),
    };
    FileParse {
        items: Arc::new(items),
        fn_texts,
        syntax: Arc::new(syntax),
    }
}

fn memchr_allow(b: &[u8]) -> bool {
    b.windows(9).any(|w| w == b"vox:allow")
}

/// The file's syntax facts (equal across edits that keep them, so dependants are reused).
#[salsa::tracked(returns(ref))]
pub fn file_syntax(db: &dyn Db, file: SourceFile) -> Arc<FileSyntax> {
    file_parse(db, file).syntax.clone()
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
    /// The function's text (the whole file for the synthetic main); ranges in its facts are
    /// relative to its first byte.
    #[tracked]
    #[returns(ref)]
    pub text: Arc<[u8]>,
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
    let parsed = file_parse(db, file);
    let items = parsed.items.clone();
    let fns = parsed
        .fn_texts
        .iter()
        .enumerate()
        .map(|(i, text)| FnDef::new(db, file, items.fns[i].name.clone(), i as u32, text.clone()))
        .collect();
    let main = items.has_top_level_stmts.then(|| {
        let text: Arc<[u8]> = file.text(db).clone();
        FnDef::new(db, file, Arc::from("<main>"), u32::MAX, text)
    });
    FileItems { items, fns, main }
}

/// Where each function of the file starts now (in `fns` order): relative ranges of facts become
/// file offsets here, at the edge. Changes on every edit that moves a function; cheap.
pub fn fn_starts<'db>(db: &'db dyn Db, file: SourceFile) -> &'db [u32] {
    &file_parse(db, file).syntax.fn_starts
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
