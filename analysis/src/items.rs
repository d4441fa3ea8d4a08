//! Parsing and the item tree: the file-level queries. A file is parsed once per revision
//! ([`file_parse`]), and nothing keeps its tree: what later queries need is taken out of it (the
//! item tree, each function's text, syntax diagnostics, import sites, suppression comments).
//! Each function becomes a tracked [`FnDef`] whose `text` only changes when that function's own
//! text does, so its facts are recomputed (from a parse of that text alone) only then.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use vox_hir::ItemTree;
use vox_syntax::{SyntaxNode, SyntaxTree, TextRange};

use crate::db::Db;
use crate::edited::{after_run, after_splice, main_text, read_all};
use crate::inputs::SourceFile;
use crate::parsed::{items_and_facts, FileSyntax, KeptParse};
use crate::text::Text;

/// The file's syntax tree, for editor features that walk it. The analysis itself never needs it
/// after [`file_parse`]; kept in a small cache only.
#[salsa::tracked(returns(ref), no_eq, lru = 16)]
pub fn parse(db: &dyn Db, file: SourceFile) -> Arc<SyntaxTree> {
    Arc::new(vox_syntax::parse(&file.text(db).get()))
}

/// A function's text, and on the command line a share of its file's one parse, in which its
/// lowering reads the function where it lies (a later lowering parses the text again: both give
/// the same body, since a function's subtree is what a parse of its text gives, which
/// `syntax/tests/subtree.rs` checks). Equal when the texts are; the tree is a cache.
pub struct FnSource {
    /// The text is `text[start..end]`: the file's own text when no file's text ever changes
    /// ([`Db::fixed_texts`]), else a copy.
    text: Text,
    start: u32,
    end: u32,
    share: Mutex<Option<Share>>,
}

/// A file's one parse, shared by its functions until each has been lowered: the last share
/// dropped drops the tree.
struct FileTree {
    tree: SyntaxTree,
    /// What the tree counts in [`HELD`].
    size: usize,
}

impl Drop for FileTree {
    fn drop(&mut self) {
        HELD.fetch_sub(self.size, Ordering::Relaxed);
    }
}

/// A function's share of its file's parse: the node it lies at, or `None` for the synthetic
/// main (lowered from the file's root).
struct Share {
    file: Arc<FileTree>,
    node: Option<u32>,
}

/// Bytes of file trees shared with functions that have not been lowered yet, all databases
/// together. Past the budget, a file's functions parse their own texts again instead of sharing
/// its parse: memory stays bounded whatever order queries run in.
static HELD: AtomicUsize = AtomicUsize::new(0);
const HELD_BUDGET: usize = 16 << 20;

/// The tree a function's lowering reads: its share of the file's parse, or a parse of its own.
pub struct FnTree(Result<Share, SyntaxTree>);

impl FnTree {
    /// The tree, and the function's node in it when the tree is its file's (`None`: the tree
    /// is the function's own parse, or the file's for the synthetic main).
    pub fn parts(&self) -> (&SyntaxTree, Option<SyntaxNode<'_>>) {
        match &self.0 {
            Ok(s) => (&s.file.tree, s.node.map(|id| s.file.tree.node(id))),
            Err(own) => (own, None),
        }
    }
}

impl FnSource {
    fn new(text: Text, start: u32, end: u32, share: Option<Share>) -> FnSource {
        FnSource {
            text,
            start,
            end,
            share: Mutex::new(share),
        }
    }

    /// The function's text (read from disk again when its file's text was released).
    pub fn bytes(&self) -> impl std::ops::Deref<Target = [u8]> {
        struct Part(Arc<[u8]>, std::ops::Range<usize>);
        impl std::ops::Deref for Part {
            type Target = [u8];
            fn deref(&self) -> &[u8] {
                &self.0[self.1.clone()]
            }
        }
        Part(self.text.get(), self.start as usize..self.end as usize)
    }

    /// The function's part of `bytes`, its text's.
    fn bytes_of<'b>(&self, bytes: &'b [u8]) -> &'b [u8] {
        &bytes[self.start as usize..self.end as usize]
    }

    /// The length of the function's text in bytes.
    pub fn len(&self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The function's tree: its file's parse the first time; a new parse of its text after (on
    /// this thread: a function is one chunk, and the synthetic main's long text of empty
    /// functions is not worth the threads of a large file's parse).
    pub fn tree(&self) -> FnTree {
        FnTree(
            self.take_share()
                .ok_or_else(|| vox_syntax::parse_sequential(&self.bytes())),
        )
    }

    /// Moves the share of the tree out (this source keeps none).
    fn take_share(&self) -> Option<Share> {
        self.share.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

thread_local! {
    static COMPARED_BY_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static READ_TO_COMPARE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Equal function texts found under two handles by this thread's comparisons: the new
    /// source's (a handle of the kept parse) and the one salsa keeps. [`file_items`] hands the
    /// kept handles over to the kept parse.
    static ADOPTED: std::cell::RefCell<Vec<(Text, Text)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How many function texts this thread has compared byte by byte (a test's measure: an edit
/// inside one function compares only that one so).
pub fn compared_by_bytes() -> usize {
    COMPARED_BY_BYTES.get()
}

/// How many function texts this thread has had to read to compare them (their handles
/// differed): an edit inside one function reads only that one's.
pub fn read_to_compare() -> usize {
    READ_TO_COMPARE.get()
}

impl PartialEq for FnSource {
    /// Equal texts. Salsa compares a field's old value (`self`) with the new one and keeps the
    /// old when they are equal. A function whose text a parse copied anew (the file's kept
    /// parse gone, a parse read whole) keeps the older copy for good, while the next parses
    /// start from the new one: each later comparison would read both texts (every function of
    /// the file on every keystroke), and compare them byte by byte. So an equal copy hands its
    /// bytes over to `self`'s text ([`Text::share_bytes`]), and the pair of handles is noted
    /// for [`file_items`], which gives the kept parse `self`'s handle: the next comparison finds
    /// the same handle and reads nothing.
    fn eq(&self, other: &Self) -> bool {
        let range = (self.start, self.end);
        if self.text.same(&other.text) && range == (other.start, other.end) {
            return true;
        }
        if self.len() != other.len() {
            return false;
        }
        READ_TO_COMPARE.set(READ_TO_COMPARE.get() + 1);
        let (a, b) = (self.text.get(), other.text.get());
        let equal = if Arc::ptr_eq(&a, &b) && range == (other.start, other.end) {
            true
        } else {
            COMPARED_BY_BYTES.set(COMPARED_BY_BYTES.get() + 1);
            *self.bytes_of(&a) == *other.bytes_of(&b)
        };
        // Only a copy takes a copy's bytes: a slice of the file's own text costs no memory of
        // its own (and the command line may let the file's text go).
        let copy = |f: &FnSource, bytes: &[u8]| f.start == 0 && f.end as usize == bytes.len();
        if equal && copy(self, &a) && copy(other, &b) {
            if !Arc::ptr_eq(&a, &b) {
                self.text.share_bytes(b);
            }
            ADOPTED.with_borrow_mut(|v| v.push((other.text.clone(), self.text.clone())));
        }
        equal
    }
}
impl Eq for FnSource {}

impl std::fmt::Debug for FnSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FnSource({} bytes)", self.len())
    }
}

/// One parse of a file. Never backdated (a new text is a new parse); the queries that read it
/// compare their own results.
pub struct FileParse {
    pub items: Arc<ItemTree>,
    /// The file's text.
    text: Text,
    /// The synthetic main's text, when there are top-level statements: the file's, or in an
    /// editor a copy of the part around them with everything but them blanked ([`main_text`]),
    /// and where it starts in the file (its facts' ranges are relative to it).
    main_text: Option<(Text, u32)>,
    fn_texts: FnTexts,
    /// The shares of the file's parse, each function's in `items.fns` order and then the
    /// synthetic main's, moved on by the first [`file_items`] (a later one's functions parse
    /// their texts again).
    shares: Mutex<Vec<Option<Share>>>,
    pub syntax: Arc<FileSyntax>,
}

/// Each function's text, in `items.fns` order: a range of the file's text on the command line
/// (a word a function: every file's parse is kept), or a copy of its own in an editor.
enum FnTexts {
    InFile(Box<[(u32, u32)]>),
    Copies(Box<[Text]>),
}

impl FileParse {
    /// Each function's source and the synthetic main's, with the shares of the parse moved over
    /// when they are still here.
    fn sources(&self) -> (Vec<FnSource>, Option<FnSource>) {
        let mut shares =
            std::mem::take(&mut *self.shares.lock().unwrap_or_else(|e| e.into_inner()));
        let mut share = |i: usize| shares.get_mut(i).and_then(Option::take);
        let fns: Vec<FnSource> = match &self.fn_texts {
            FnTexts::InFile(ranges) => ranges
                .iter()
                .enumerate()
                .map(|(i, &(start, end))| FnSource::new(self.text.clone(), start, end, share(i)))
                .collect(),
            FnTexts::Copies(texts) => texts
                .iter()
                .enumerate()
                .map(|(i, t)| FnSource::new(t.clone(), 0, t.len() as u32, share(i)))
                .collect(),
        };
        let main = self
            .main_text
            .as_ref()
            .map(|(t, _)| FnSource::new(t.clone(), 0, t.len() as u32, share(fns.len())));
        (fns, main)
    }
}

impl std::fmt::Debug for FileParse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileParse")
            .field("items", &self.items)
            .field("syntax", &self.syntax)
            .finish_non_exhaustive()
    }
}

#[salsa::tracked(returns(ref), no_eq)]
pub fn file_parse(db: &dyn Db, file: SourceFile) -> FileParse {
    let file_text = file.text(db);
    if db.fixed_texts() {
        parse_fixed(file_text)
    } else {
        parse_edited(db, file, file_text)
    }
}

/// A command-line run parses each file once. Each function's lowering reads the function where
/// it lies in that parse instead of parsing its text again, when the parse has no errors
/// (recovery could differ between the file and the function alone); function texts share the
/// file's.
fn parse_fixed(file_text: &Text) -> FileParse {
    let bytes = file_text.get();
    let text: &[u8] = &bytes;
    let tree = vox_syntax::parse(text);
    let ((items, nodes), syntax) = items_and_facts(&tree);
    let ids: Vec<(u32, TextRange)> = nodes.iter().map(|n| (n.id(), n.range())).collect();
    drop(nodes);
    let parts = ids.len() + usize::from(items.has_top_level_stmts);
    let shared = (!tree.has_errors() && parts > 0 && HELD.load(Ordering::Relaxed) < HELD_BUDGET)
        .then(|| {
            let size = tree.heap_size();
            HELD.fetch_add(size, Ordering::Relaxed);
            Arc::new(FileTree { tree, size })
        });
    let mut shares = Vec::new();
    if let Some(f) = &shared {
        shares.extend(ids.iter().map(|&(id, _)| {
            Some(Share {
                file: f.clone(),
                node: Some(id),
            })
        }));
        if items.has_top_level_stmts {
            shares.push(Some(Share {
                file: f.clone(),
                node: None,
            }));
        }
    }
    let main_text = items.has_top_level_stmts.then(|| (file_text.clone(), 0));
    FileParse {
        items: Arc::new(items),
        text: file_text.clone(),
        main_text,
        fn_texts: FnTexts::InFile(ids.iter().map(|&(_, r)| (r.start, r.end)).collect()),
        shares: Mutex::new(shares),
        syntax: Arc::new(syntax),
    }
}

/// An editor re-parses a file on every change. It starts from what it kept of the file's last
/// parse: the same text takes it over as it is; an edit inside one function re-parses that
/// function alone and re-reads only its item, text and comments. Function texts are copies
/// (a shared text would keep every old version of the file alive), and the tree is not shared
/// with the lowerings: an edit re-lowers one function, which parses its text alone.
fn parse_edited(db: &dyn Db, file: SourceFile, file_text: &Text) -> FileParse {
    let bytes = file_text.get();
    let text: &[u8] = &bytes;
    let kept = match db.take_kept(file) {
        Some(k) if same_text(k.tree.bytes(), text) => k,
        Some(k) => {
            let KeptParse {
                tree,
                items,
                fn_texts,
                syntax,
            } = k;
            match vox_syntax::reparse_shared(tree, bytes.clone()) {
                Some((tree, spliced)) if spliced.one_function => {
                    after_splice(tree, spliced, items, fn_texts, &syntax)
                        .unwrap_or_else(|tree| read_all(*tree))
                }
                Some((tree, spliced)) => after_run(tree, spliced, items, fn_texts, &syntax)
                    .unwrap_or_else(|tree| read_all(*tree)),
                None => read_all(vox_syntax::parse(text)),
            }
        }
        None => read_all(vox_syntax::parse(text)),
    };
    let parse = FileParse {
        items: kept.items.clone(),
        text: file_text.clone(),
        main_text: kept
            .items
            .has_top_level_stmts
            .then(|| main_text(&kept.tree)),
        fn_texts: FnTexts::Copies(kept.fn_texts.iter().cloned().collect()),
        shares: Mutex::new(Vec::new()),
        syntax: kept.syntax.clone(),
    };
    db.keep_parse(file, kept);
    parse
}

/// Whether two texts are equal: for the buffers of an edit the editor noted, without comparing
/// the bytes up to the edit (`common_ends`).
fn same_text(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && vox_syntax::common_ends(a, b).0 == a.len()
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
    /// The function's text (for the synthetic main, the file's; in an editor, with all but its
    /// statements blanked); ranges in its facts are relative to its first byte.
    #[tracked]
    #[returns(ref)]
    pub text: FnSource,
}

#[derive(Clone, Debug, PartialEq, Eq, salsa::SalsaValue)]
pub struct FileItems<'db> {
    pub items: Arc<ItemTree>,
    /// In `items.fns` order.
    pub fns: Vec<FnDef<'db>>,
    pub main: Option<FnDef<'db>>,
    /// The public functions by name (sorted; among equal names, source order): what importers
    /// look up for every call they make.
    pub_fns: Box<[(Arc<str>, u32)]>,
    /// Every function by name, the same way: what the file's own calls name.
    by_name: Box<[(Arc<str>, u32)]>,
}

impl<'db> FileItems<'db> {
    /// The first public function named `name`.
    pub fn pub_fn(&self, name: &str) -> Option<FnDef<'db>> {
        let i = self.pub_fns.partition_point(|(n, _)| &**n < name);
        let (n, k) = self.pub_fns.get(i)?;
        (&**n == name).then(|| self.fns[*k as usize])
    }

    /// The position of the first function named `name` (a local call's target).
    pub fn position(&self, name: &str) -> Option<u32> {
        let i = self.by_name.partition_point(|(n, _)| &**n < name);
        let (n, k) = self.by_name.get(i)?;
        (&**n == name).then_some(*k)
    }

    /// The first function named `name`.
    pub fn local(&self, name: &str) -> Option<FnDef<'db>> {
        self.position(name).map(|k| self.fns[k as usize])
    }

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
    let (sources, main_source) = parsed.sources();
    ADOPTED.with_borrow_mut(Vec::clear);
    let fns = sources
        .into_iter()
        .enumerate()
        .map(|(i, src)| FnDef::new(db, file, items.fns[i].name.clone(), i as u32, src))
        .collect();
    let main = main_source.map(|src| FnDef::new(db, file, Arc::from("<main>"), u32::MAX, src));
    adopt_kept_texts(db, file, ADOPTED.take());
    let mut by_name: Vec<(Arc<str>, u32)> = items
        .fns
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.clone(), i as u32))
        .collect();
    // Stable: among equal names, source order.
    by_name.sort_by(|a, b| a.0.cmp(&b.0));
    let pub_fns: Vec<(Arc<str>, u32)> = by_name
        .iter()
        .filter(|(_, i)| items.fns[*i as usize].is_pub)
        .cloned()
        .collect();
    FileItems {
        items,
        fns,
        main,
        pub_fns: pub_fns.into(),
        by_name: by_name.into(),
    }
}

/// Gives the file's kept parse the handles salsa kept for its functions' texts (`adopted`:
/// the kept parse's handle, then the one to use instead; see `FnSource`'s equality), so that
/// the next parse's sources compare with the functions' texts by handle.
fn adopt_kept_texts(db: &dyn Db, file: SourceFile, mut adopted: Vec<(Text, Text)>) {
    if adopted.is_empty() {
        return;
    }
    let Some(mut kept) = db.take_kept(file) else {
        return;
    };
    adopted.sort_unstable_by_key(|(new, _)| new.id());
    for t in kept.fn_texts.iter_mut() {
        if let Ok(i) = adopted.binary_search_by_key(&t.id(), |(new, _)| new.id()) {
            *t = adopted[i].1.clone();
        }
    }
    db.keep_parse(file, kept);
}

/// Where each function of the file starts now (in `fns` order): relative ranges of facts become
/// file offsets here, at the edge. Changes on every edit that moves a function; cheap.
pub fn fn_starts(db: &dyn Db, file: SourceFile) -> &[u32] {
    &file_parse(db, file).syntax.fn_starts
}

/// `f`'s position in [`FileItems::all`] order, among `count` functions (the synthetic main
/// last): per-file tables are indexed by it.
pub(crate) fn position(db: &dyn Db, f: FnDef<'_>, count: usize) -> usize {
    match f.index(db) {
        u32::MAX => count.wrapping_sub(1),
        i => i as usize,
    }
}

/// Where a function's relative offsets start in its file.
pub fn fn_base(db: &dyn Db, f: FnDef<'_>) -> u32 {
    let i = f.index(db);
    if i == u32::MAX {
        file_parse(db, f.file(db))
            .main_text
            .as_ref()
            .map_or(0, |&(_, start)| start)
    } else {
        fn_starts(db, f.file(db))
            .get(i as usize)
            .copied()
            .unwrap_or(0)
    }
}
