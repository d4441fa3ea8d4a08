//! The lossless syntax tree: flat arrays of tokens and nodes, navigated through borrowed cursors.
//!
//! Nodes are built bottom-up (post-order), so the root is the last node. Every token of the input
//! is a child of exactly one node, in order, which is what makes printing the tree give back the
//! original bytes.

use crate::diagnostic::Diagnostic;
use crate::kind::SyntaxKind;
use crate::lexer::Token;
use crate::text_range::TextRange;

/// A child of a node: a token index or a node index (high bit set).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Elem(u32);

const NODE_BIT: u32 = 1 << 31;

impl Elem {
    fn token(i: usize) -> Elem {
        Elem(i as u32)
    }
    fn node(i: usize) -> Elem {
        Elem(i as u32 | NODE_BIT)
    }
    fn as_node(self) -> Option<u32> {
        (self.0 & NODE_BIT != 0).then_some(self.0 & !NODE_BIT)
    }
    fn as_token(self) -> Option<u32> {
        (self.0 & NODE_BIT == 0).then_some(self.0)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct NodeData {
    kind: SyntaxKind,
    parent: u32,
    first_child: u32,
    n_children: u32,
    range: TextRange,
    /// Whether the node's first token is significant (neither trivia nor a newline), so that
    /// `range` already starts where diagnostics point. Derived from the tree; fits in padding.
    starts_significant: bool,
}

/// A parsed file: its bytes, tokens, nodes and diagnostics.
#[derive(Clone)]
pub struct SyntaxTree {
    text: Box<[u8]>,
    tokens: Vec<Token>,
    token_parent: Vec<u32>,
    nodes: Vec<NodeData>,
    children: Vec<Elem>,
    diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Debug for SyntaxTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.debug_dump())
    }
}

const NO_PARENT: u32 = u32::MAX;

/// A token diagnostics may point at: neither trivia nor a newline.
fn is_significant(kind: SyntaxKind) -> bool {
    !kind.is_trivia() && kind != SyntaxKind::Newline
}

/// Two trees are equal when they hold the same bytes with the same tokens and nodes; diagnostics
/// follow from those.
impl PartialEq for SyntaxTree {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
            && self.tokens.len() == other.tokens.len()
            && self
                .tokens
                .iter()
                .zip(&other.tokens)
                .all(|(a, b)| a.kind == b.kind && a.start == b.start)
            && self.children == other.children
            && self.nodes.len() == other.nodes.len()
            && self.nodes.iter().zip(&other.nodes).all(|(a, b)| {
                a.kind == b.kind
                    && a.first_child == b.first_child
                    && a.n_children == b.n_children
                    && a.range == b.range
            })
    }
}
impl Eq for SyntaxTree {}

impl SyntaxTree {
    pub fn root(&self) -> SyntaxNode<'_> {
        SyntaxNode {
            tree: self,
            id: (self.nodes.len() - 1) as u32,
        }
    }

    /// The original bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.text
    }

    /// The source as text (invalid UTF-8 replaced).
    pub fn text_lossy(&self) -> std::borrow::Cow<'_, str> {
        crate::strings::lossy(&self.text)
    }

    pub(crate) fn set_diagnostics(&mut self, diagnostics: Vec<Diagnostic>) {
        self.diagnostics = diagnostics;
    }

    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Number of tokens, `Eof` excluded.
    pub fn token_count(&self) -> usize {
        self.tokens.len() - 1
    }

    /// Number of nodes. Node ids are post-order: a node's subtree is a contiguous id range ending
    /// at the node itself, and the root has the highest id.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub fn node(&self, id: u32) -> SyntaxNode<'_> {
        SyntaxNode { tree: self, id }
    }

    /// The kinds of the nodes `ids`, in id order: a scan over many nodes that reads no more.
    pub(crate) fn node_kinds(
        &self,
        ids: std::ops::RangeInclusive<u32>,
    ) -> impl Iterator<Item = (u32, SyntaxKind)> + '_ {
        let first = *ids.start();
        self.nodes[*ids.start() as usize..=*ids.end() as usize]
            .iter()
            .zip(first..)
            .map(|(d, id)| (id, d.kind))
    }

    pub fn token(&self, index: usize) -> SyntaxToken<'_> {
        SyntaxToken {
            tree: self,
            index: index as u32,
        }
    }

    /// The token covering `offset` (the last token when `offset` is the end of the file).
    pub fn token_at_offset(&self, offset: u32) -> Option<SyntaxToken<'_>> {
        let n = self.token_count();
        if n == 0 {
            return None;
        }
        let i = self.tokens[..n]
            .partition_point(|t| t.start <= offset)
            .saturating_sub(1);
        Some(self.token(i))
    }

    fn token_range(&self, i: usize) -> TextRange {
        TextRange::new(self.tokens[i].start, self.tokens[i + 1].start)
    }

    /// Post-order: a node's subtree is the nodes `first..=node.id`, and the first to finish lies
    /// at the end of the first-node-child chain.
    fn first_descendant(&self, node: SyntaxNode<'_>) -> usize {
        let mut first = node.id as usize;
        while let Some(c) = self
            .node(first as u32)
            .elems()
            .iter()
            .find_map(|e| e.as_node())
        {
            first = c as usize;
        }
        first
    }

    /// Where a node's subtree lies in the flat arrays.
    fn span(&self, node: SyntaxNode<'_>) -> Span {
        let last = node.id as usize;
        let first = self.first_descendant(node);
        let range = node.range();
        // Children lists are appended as nodes finish: the subtree's are one contiguous run.
        let c0 = self.nodes[first].first_child as usize;
        let c1 = (self.nodes[last].first_child + self.nodes[last].n_children) as usize;
        // Its tokens are one contiguous run too, named in those lists: read there, next to
        // what the caller copies, rather than searched for in the file's whole token array
        // (a binary search over a large file misses the cache at every step).
        let (mut t0, mut t1) = (usize::MAX, 0);
        for e in &self.children[c0..c1] {
            if let Some(t) = e.as_token() {
                t0 = t0.min(t as usize);
                t1 = t1.max(t as usize + 1);
            }
        }
        if t0 == usize::MAX {
            // No token at all: an empty subtree sits where the next token starts.
            let n = self.tokens.len() - 1;
            t0 = self.tokens[..n].partition_point(|t| t.start < range.start);
            t1 = t0;
        }
        Span {
            first,
            last,
            t0,
            t1,
            c0,
            c1,
            range,
        }
    }

    /// A copy of one node's subtree as a tree of its own, rooted at that node, with offsets
    /// relative to its first byte and no diagnostics. Much cheaper than parsing the node's text
    /// again: the analysis hands each function of a file's one parse to its lowering this way.
    pub fn subtree(&self, node: SyntaxNode<'_>) -> SyntaxTree {
        debug_assert!(std::ptr::eq(node.tree, self));
        let Span {
            first,
            last,
            t0,
            t1,
            c0,
            c1,
            range,
        } = self.span(node);
        let base = range.start;
        let mut tokens: Vec<Token> = Vec::with_capacity(t1 - t0 + 1);
        tokens.extend(self.tokens[t0..t1].iter().map(|t| Token {
            kind: t.kind,
            start: t.start - base,
        }));
        tokens.push(Token {
            kind: SyntaxKind::Eof,
            start: range.len(),
        });
        let root = (last - first) as u32;
        // Sized exactly: callers budget the trees they keep by `heap_size`.
        let mut token_parent: Vec<u32> = Vec::with_capacity(t1 - t0 + 1);
        token_parent.extend(self.token_parent[t0..t1].iter().map(|&p| p - first as u32));
        token_parent.push(root);
        let children = self.children[c0..c1]
            .iter()
            .map(|&e| match e.as_node() {
                Some(id) => Elem::node(id as usize - first),
                None => Elem::token(e.0 as usize - t0),
            })
            .collect();
        let nodes = self.nodes[first..=last]
            .iter()
            .map(|d| NodeData {
                kind: d.kind,
                parent: if d.parent == NO_PARENT || d.parent as usize > last {
                    NO_PARENT
                } else {
                    d.parent - first as u32
                },
                first_child: d.first_child - c0 as u32,
                n_children: d.n_children,
                range: TextRange::new(d.range.start - base, d.range.end - base),
                starts_significant: d.starts_significant,
            })
            .collect();
        SyntaxTree {
            text: self.text[range.as_usize()].into(),
            tokens,
            token_parent,
            nodes,
            children,
            diagnostics: Vec::new(),
        }
    }

    /// Replaces the top-level item `item` (a node id) by `replacement` (a tree rooted at the new
    /// item, as [`SyntaxTree::subtree`] gives) and the text by `text`; no diagnostics. In place:
    /// what precedes the item stays where it is, and ids, indexes and offsets after it move by
    /// what the replacement adds (nothing at all when it has the old item's shape and length,
    /// as when a digit is retyped).
    pub(crate) fn splice_item(&mut self, item: u32, replacement: &SyntaxTree, text: Box<[u8]>) {
        let Span {
            first,
            last,
            t0,
            t1,
            c0,
            c1,
            range,
        } = self.span(self.node(item));
        let r_tokens = replacement.tokens.len() - 1;
        let r_nodes = replacement.nodes.len();
        let delta = replacement.text.len() as i64 - range.len() as i64;
        let dt = r_tokens as i64 - (t1 - t0) as i64;
        let dn = r_nodes as i64 - (last + 1 - first) as i64;
        let dc = replacement.children.len() as i64 - (c1 - c0) as i64;
        let shift = |x: u32, d: i64| (x as i64 + d) as u32;
        // Old ids after the item's subtree move by `dn`; ids before it stay.
        let map_node = |id: u32| {
            if id != NO_PARENT && id as usize > last {
                shift(id, dn)
            } else {
                id
            }
        };
        let new_item = (first + r_nodes - 1) as u32;
        let item_parent = map_node(self.nodes[last].parent);
        let base = range.start;

        self.tokens.splice(
            t0..t1,
            replacement.tokens[..r_tokens].iter().map(|t| Token {
                kind: t.kind,
                start: t.start + base,
            }),
        );
        if delta != 0 {
            for t in &mut self.tokens[t0 + r_tokens..] {
                t.start = shift(t.start, delta);
            }
        }

        self.token_parent.splice(
            t0..t1,
            replacement.token_parent[..r_tokens]
                .iter()
                .map(|&p| p + first as u32),
        );
        if dn != 0 {
            let (before, rest) = self.token_parent.split_at_mut(t0);
            for p in before.iter_mut().chain(&mut rest[r_tokens..]) {
                *p = map_node(*p);
            }
        }

        self.nodes.splice(
            first..=last,
            replacement.nodes.iter().map(|d| NodeData {
                kind: d.kind,
                parent: if d.parent == NO_PARENT {
                    item_parent
                } else {
                    d.parent + first as u32
                },
                first_child: d.first_child + c0 as u32,
                n_children: d.n_children,
                range: TextRange::new(d.range.start + base, d.range.end + base),
                starts_significant: d.starts_significant,
            }),
        );
        if dn != 0 {
            for d in &mut self.nodes[..first] {
                d.parent = map_node(d.parent);
            }
        }
        if dn != 0 || dc != 0 || delta != 0 {
            // After the item in post-order: later items, and the ancestors that contain it.
            for d in &mut self.nodes[first + r_nodes..] {
                d.parent = map_node(d.parent);
                d.first_child = shift(d.first_child, dc);
                d.range = if d.range.start >= range.end {
                    TextRange::new(shift(d.range.start, delta), shift(d.range.end, delta))
                } else if d.range.end > range.start {
                    TextRange::new(d.range.start, shift(d.range.end, delta))
                } else {
                    d.range
                };
            }
        }

        let r_children = replacement.children.len();
        self.children.splice(
            c0..c1,
            replacement.children.iter().map(|&e| match e.as_node() {
                Some(id) => Elem::node(id as usize + first),
                None => Elem::token(e.0 as usize + t0),
            }),
        );
        if dn != 0 || dt != 0 {
            for e in &mut self.children[c0 + r_children..] {
                *e = match e.as_node() {
                    Some(id) if id as usize == last => Elem(new_item | NODE_BIT),
                    Some(id) => Elem(map_node(id) | NODE_BIT),
                    None if e.0 as usize >= t1 => Elem(shift(e.0, dt)),
                    None => *e,
                };
            }
        }

        // The new item may start differently: its ancestors take their flag from it.
        let mut p = item_parent;
        while p != NO_PARENT {
            let first = self.nodes[p as usize].first_child as usize;
            let starts = self.nodes[p as usize].n_children > 0
                && match self.children[first].as_node() {
                    Some(c) => self.nodes[c as usize].starts_significant,
                    None => is_significant(self.tokens[self.children[first].0 as usize].kind),
                };
            self.nodes[p as usize].starts_significant = starts;
            p = self.nodes[p as usize].parent;
        }

        self.text = text;
        self.diagnostics = Vec::new();
    }

    /// Joins the trees of consecutive chunks of `text` (each parsed alone, without its text,
    /// offsets from its chunk's start at `starts`) into the tree of the whole text: post-order
    /// nodes, so each chunk's nodes but its root follow the previous chunk's, and one root over
    /// every chunk's top-level elements comes last; every chunk's `Eof` but the last goes.
    /// No diagnostics. The first chunk's vectors become the tree's: made with room for the
    /// whole file (`TreeBuilder::with_room`), they end with the capacities the whole file's
    /// parse gives them ([`SyntaxTree::heap_size`] is the same). Each other chunk's vector is
    /// freed as soon as it is copied; two threads copy (the vectors split between them).
    pub(crate) fn concat(text: Box<[u8]>, parts: Vec<SyntaxTree>, starts: &[u32]) -> SyntaxTree {
        debug_assert_eq!(parts.len(), starts.len());
        let roots: Vec<NodeData> = parts
            .iter()
            .map(|p| p.nodes[p.nodes.len() - 1].clone())
            .collect();
        // Where each chunk's tokens, non-root nodes and non-root children entries go.
        let k = parts.len();
        let (mut tok_base, mut node_base, mut child_base) = (
            Vec::with_capacity(k),
            Vec::with_capacity(k),
            Vec::with_capacity(k),
        );
        let (mut t, mut n, mut c) = (0usize, 0usize, 0usize);
        for (p, r) in parts.iter().zip(&roots) {
            tok_base.push(t as u32);
            node_base.push(n as u32);
            child_base.push(c as u32);
            t += p.tokens.len() - 1;
            n += p.nodes.len() - 1;
            c += r.first_child as usize;
        }
        let n_tokens = t + 1;
        let root = n as u32;
        let root_children: usize = roots.iter().map(|r| r.n_children as usize).sum();
        let n_children = c + root_children;
        // The capacities `lexer::lex` and `TreeBuilder::new` start with for the whole text,
        // doubled as pushing past them doubles them.
        let grown = |init: usize, len: usize| {
            let mut cap = init.max(1);
            while cap < len {
                cap *= 2;
            }
            cap
        };
        let nodes_init = node_capacity(n_tokens);
        let caps = Caps {
            tokens: grown(crate::lexer::token_capacity(text.len()), n_tokens),
            token_parent: n_tokens,
            nodes: grown(nodes_init, root as usize + 1),
            children: grown(n_tokens + nodes_init, n_children),
        };
        let last = k - 1;
        let (end, eof) = (roots[last].range.end + starts[last], text.len() as u32);
        let root_data = NodeData {
            kind: roots[0].kind,
            parent: NO_PARENT,
            first_child: c as u32,
            n_children: root_children as u32,
            range: TextRange::new(roots[0].range.start + starts[0], end),
            starts_significant: roots[0].starts_significant,
        };
        let root0 = (parts[0].nodes.len() - 1) as u32;
        let mut chunk_roots: Vec<u32> = Vec::with_capacity(k);
        let (mut tokens, mut token_parent, mut nodes, mut children) = (
            Vec::with_capacity(k),
            Vec::with_capacity(k),
            Vec::with_capacity(k),
            Vec::with_capacity(k),
        );
        for p in parts {
            chunk_roots.push((p.nodes.len() - 1) as u32);
            tokens.push(p.tokens);
            token_parent.push(p.token_parent);
            nodes.push(p.nodes);
            children.push(p.children);
        }

        // Tokens: the first chunk's as they are, then the others' shifted; one `Eof`.
        let join_tokens = |parts: Vec<Vec<Token>>| {
            let end = Token {
                kind: SyntaxKind::Eof,
                start: eof,
            };
            join_chunks(parts, caps.tokens, end, |i, tk| Token {
                kind: tk.kind,
                start: tk.start + starts[i],
            })
        };
        // A chunk's root becomes the one root; other nodes move by the nodes before them.
        let join_parents = |parts: Vec<Vec<u32>>| {
            join_chunks(parts, caps.token_parent, root, |i, &q| {
                if q == chunk_roots[i] {
                    root
                } else {
                    q + node_base[i]
                }
            })
        };
        let join_nodes = |parts: Vec<Vec<NodeData>>| {
            join_chunks(parts, caps.nodes, root_data.clone(), |i, d| NodeData {
                kind: d.kind,
                parent: if d.parent == chunk_roots[i] {
                    root
                } else {
                    d.parent + node_base[i]
                },
                first_child: d.first_child + child_base[i],
                n_children: d.n_children,
                range: TextRange::new(d.range.start + starts[i], d.range.end + starts[i]),
                starts_significant: d.starts_significant,
            })
        };
        // Children: every chunk's non-root entries, then the roots' entries, renumbered.
        let join_children = |parts: Vec<Vec<Elem>>| {
            let mut parts = parts.into_iter();
            let mut all = parts.next().expect("one chunk at least");
            let mut top = all.split_off(roots[0].first_child as usize);
            top.reserve(root_children - top.len());
            fit(&mut all, caps.children);
            let shift = |e: Elem, nb: u32, tb: u32| match e.as_node() {
                Some(id) => Elem::node((id + nb) as usize),
                None => Elem::token((e.0 + tb) as usize),
            };
            for (i, part) in parts.enumerate() {
                let (nb, tb) = (node_base[i + 1], tok_base[i + 1]);
                let split = roots[i + 1].first_child as usize;
                all.extend(part[..split].iter().map(|&e| shift(e, nb, tb)));
                top.extend(part[split..].iter().map(|&e| shift(e, nb, tb)));
            }
            all.extend_from_slice(&top);
            all
        };
        // Two about equal shares: the nodes, and the rest.
        let for_other = std::sync::Mutex::new(Some(nodes));
        let other_job = || {
            let taken = for_other.lock().map(|mut g| g.take());
            join_nodes(taken.ok().flatten().expect("taken once"))
        };
        let (tokens, children, mut token_parent, mut nodes) = std::thread::scope(|s| {
            let other = std::thread::Builder::new().spawn_scoped(s, other_job);
            let tokens = join_tokens(tokens);
            let children = join_children(children);
            let token_parent = join_parents(token_parent);
            let nodes = match other {
                Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                // No thread: the job, dropped unrun, left the vectors for this one.
                Err(_) => other_job(),
            };
            (tokens, children, token_parent, nodes)
        });
        // The first chunk's top-level elements had its root for parent.
        let tokens0 = tok_base.get(1).map_or(usize::MAX, |&t| t as usize);
        for &e in &children[root_data.first_child as usize..] {
            match e.as_node() {
                Some(id) if id < root0 => nodes[id as usize].parent = root,
                Some(_) => {}
                None if (e.0 as usize) < tokens0 => token_parent[e.0 as usize] = root,
                None => {}
            }
        }
        debug_assert_eq!(children.len(), n_children);
        SyntaxTree {
            text,
            tokens,
            token_parent,
            nodes,
            children,
            diagnostics: Vec::new(),
        }
    }

    /// Whether two trees are the same in every array, parents and capacities included (for
    /// tests: `==` compares what the tree means).
    #[doc(hidden)]
    pub fn identical(&self, other: &SyntaxTree) -> bool {
        self.text == other.text
            && self.tokens == other.tokens
            && self.token_parent == other.token_parent
            && self.nodes == other.nodes
            && self.children == other.children
            && self.diagnostics == other.diagnostics
            && self.heap_size() == other.heap_size()
    }

    /// Bytes of heap the tree holds (for callers that bound how many trees they keep).
    pub fn heap_size(&self) -> usize {
        self.text.len()
            + self.tokens.capacity() * std::mem::size_of::<Token>()
            + self.token_parent.capacity() * 4
            + self.nodes.capacity() * std::mem::size_of::<NodeData>()
            + self.children.capacity() * std::mem::size_of::<Elem>()
            + self.diagnostics.capacity() * std::mem::size_of::<Diagnostic>()
    }

    /// Writes the tree back out by walking it: every token's bytes in tree order.
    pub fn print(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.text.len());
        for tok in self.root().descendant_tokens() {
            out.extend_from_slice(tok.bytes());
        }
        out
    }

    /// An indented dump of nodes and tokens, for tests and debugging.
    pub fn debug_dump(&self) -> String {
        let mut out = String::new();
        let mut stack: Vec<(Elem, usize)> = vec![(Elem::node(self.nodes.len() - 1), 0)];
        while let Some((elem, depth)) = stack.pop() {
            for _ in 0..depth {
                out.push_str("  ");
            }
            if let Some(n) = elem.as_node() {
                let node = SyntaxNode { tree: self, id: n };
                out.push_str(&format!("{:?}@{:?}\n", node.kind(), node.range()));
                let data = &self.nodes[n as usize];
                let kids = &self.children
                    [data.first_child as usize..(data.first_child + data.n_children) as usize];
                for &k in kids.iter().rev() {
                    stack.push((k, depth + 1));
                }
            } else if let Some(t) = elem.as_token() {
                let tok = self.token(t as usize);
                out.push_str(&format!(
                    "{:?}@{:?} {:?}\n",
                    tok.kind(),
                    tok.range(),
                    tok.text()
                ));
            }
        }
        out
    }
}

/// One vector from the chunks' vectors, each without its last element (a chunk's `Eof` or
/// root): the first chunk's as it is (given the capacity `cap`), the others' through `map`
/// (with the chunk's index), then `last`.
fn join_chunks<T>(parts: Vec<Vec<T>>, cap: usize, last: T, map: impl Fn(usize, &T) -> T) -> Vec<T> {
    let mut parts = parts.into_iter();
    let mut all = parts.next().expect("one chunk at least");
    all.pop();
    fit(&mut all, cap);
    for (i, part) in parts.enumerate() {
        all.extend(part[..part.len() - 1].iter().map(|e| map(i + 1, e)));
    }
    all.push(last);
    all
}

/// The capacities of a whole file's tree.
#[derive(Clone, Copy)]
struct Caps {
    tokens: usize,
    token_parent: usize,
    nodes: usize,
    children: usize,
}

/// Gives `v` the capacity `cap` (at least its length): free when it shrinks by less than half
/// (the allocator keeps the block), a copy when it must grow.
fn fit<T>(v: &mut Vec<T>, cap: usize) {
    if v.capacity() < cap {
        v.reserve_exact(cap - v.len());
    } else {
        v.shrink_to(cap);
    }
}

/// A node's subtree in a tree's flat arrays: nodes `first..=last`, tokens `t0..t1`, children
/// entries `c0..c1`, and its text range.
struct Span {
    first: usize,
    last: usize,
    t0: usize,
    t1: usize,
    c0: usize,
    c1: usize,
    range: TextRange,
}

/// A node of the tree. Cheap to copy.
#[derive(Clone, Copy)]
pub struct SyntaxNode<'t> {
    tree: &'t SyntaxTree,
    id: u32,
}

impl PartialEq for SyntaxNode<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.tree, other.tree) && self.id == other.id
    }
}
impl Eq for SyntaxNode<'_> {}

impl std::fmt::Debug for SyntaxNode<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}@{:?}", self.kind(), self.range())
    }
}

/// A node or a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyntaxElement<'t> {
    Node(SyntaxNode<'t>),
    Token(SyntaxToken<'t>),
}

impl<'t> SyntaxElement<'t> {
    pub fn kind(self) -> SyntaxKind {
        match self {
            SyntaxElement::Node(n) => n.kind(),
            SyntaxElement::Token(t) => t.kind(),
        }
    }
    pub fn range(self) -> TextRange {
        match self {
            SyntaxElement::Node(n) => n.range(),
            SyntaxElement::Token(t) => t.range(),
        }
    }
    pub fn as_node(self) -> Option<SyntaxNode<'t>> {
        match self {
            SyntaxElement::Node(n) => Some(n),
            SyntaxElement::Token(_) => None,
        }
    }
    pub fn as_token(self) -> Option<SyntaxToken<'t>> {
        match self {
            SyntaxElement::Token(t) => Some(t),
            SyntaxElement::Node(_) => None,
        }
    }
}

impl<'t> SyntaxNode<'t> {
    fn data(&self) -> &'t NodeData {
        &self.tree.nodes[self.id as usize]
    }

    /// How many nodes its subtree holds, itself included.
    pub fn subtree_node_count(&self) -> usize {
        self.id as usize - self.tree.first_descendant(*self) + 1
    }

    pub fn tree(&self) -> &'t SyntaxTree {
        self.tree
    }

    /// A number identifying this node within its tree.
    pub fn id(&self) -> u32 {
        self.id
    }

    pub fn kind(&self) -> SyntaxKind {
        self.data().kind
    }

    pub fn range(&self) -> TextRange {
        self.data().range
    }

    /// The node's text (invalid UTF-8 replaced).
    pub fn text(&self) -> std::borrow::Cow<'t, str> {
        crate::strings::lossy(&self.tree.text[self.range().as_usize()])
    }

    pub fn parent(&self) -> Option<SyntaxNode<'t>> {
        let p = self.data().parent;
        (p != NO_PARENT).then_some(SyntaxNode {
            tree: self.tree,
            id: p,
        })
    }

    pub fn ancestors(&self) -> impl Iterator<Item = SyntaxNode<'t>> {
        std::iter::successors(Some(*self), |n| n.parent())
    }

    fn elems(&self) -> &'t [Elem] {
        let d = self.data();
        &self.tree.children[d.first_child as usize..(d.first_child + d.n_children) as usize]
    }

    fn wrap(&self, e: Elem) -> SyntaxElement<'t> {
        match e.as_node() {
            Some(n) => SyntaxElement::Node(SyntaxNode {
                tree: self.tree,
                id: n,
            }),
            None => SyntaxElement::Token(SyntaxToken {
                tree: self.tree,
                index: e.0,
            }),
        }
    }

    /// Direct children, tokens (trivia included) and nodes, in order.
    pub fn children_with_tokens(&self) -> impl Iterator<Item = SyntaxElement<'t>> + 't {
        let this = *self;
        self.elems().iter().map(move |&e| this.wrap(e))
    }

    pub fn children(&self) -> impl Iterator<Item = SyntaxNode<'t>> + 't {
        let tree = self.tree;
        self.elems()
            .iter()
            .filter_map(move |e| e.as_node().map(|id| SyntaxNode { tree, id }))
    }

    /// Direct child tokens that are not trivia.
    pub fn tokens(&self) -> impl Iterator<Item = SyntaxToken<'t>> + 't {
        let tree = self.tree;
        self.elems()
            .iter()
            .filter_map(move |e| e.as_token().map(|index| SyntaxToken { tree, index }))
            .filter(|t| !t.kind().is_trivia())
    }

    pub fn first_token_of(&self, kind: SyntaxKind) -> Option<SyntaxToken<'t>> {
        self.tokens().find(|t| t.kind() == kind)
    }

    pub fn child_of(&self, kind: SyntaxKind) -> Option<SyntaxNode<'t>> {
        self.children().find(|n| n.kind() == kind)
    }

    /// All tokens below this node, trivia included, in source order (no recursion: safe on deep trees).
    pub fn descendant_tokens(&self) -> impl Iterator<Item = SyntaxToken<'t>> + 't {
        let tree = self.tree;
        let mut stack: Vec<(u32, u32)> = vec![(self.id, 0)];
        std::iter::from_fn(move || loop {
            let (node, next) = stack.last_mut()?;
            let d = &tree.nodes[*node as usize];
            if *next >= d.n_children {
                stack.pop();
                continue;
            }
            let e = tree.children[(d.first_child + *next) as usize];
            *next += 1;
            match e.as_node() {
                Some(n) => stack.push((n, 0)),
                None => return Some(SyntaxToken { tree, index: e.0 }),
            }
        })
    }

    /// All nodes below this one (itself included), in preorder, without recursion.
    pub fn descendants(&self) -> impl Iterator<Item = SyntaxNode<'t>> + 't {
        let tree = self.tree;
        let mut stack: Vec<u32> = vec![self.id];
        std::iter::from_fn(move || {
            let id = stack.pop()?;
            let d = &tree.nodes[id as usize];
            let kids =
                &tree.children[d.first_child as usize..(d.first_child + d.n_children) as usize];
            for e in kids.iter().rev() {
                if let Some(n) = e.as_node() {
                    stack.push(n);
                }
            }
            Some(SyntaxNode { tree, id })
        })
    }

    /// The node's range without leading trivia and newlines (where diagnostics point): the
    /// range from its first non-trivia token, or the whole range when it has none.
    pub fn trimmed_range(&self) -> TextRange {
        let d = self.data();
        if d.starts_significant {
            // The common case, known without visiting the node's tokens.
            return d.range;
        }
        match self.first_token() {
            Some(t) => TextRange::new(t.range().start, d.range.end),
            None => d.range,
        }
    }

    /// The first non-trivia token below this node.
    pub fn first_token(&self) -> Option<SyntaxToken<'t>> {
        // A node's tokens are the contiguous run of tokens inside its range. The first one is
        // found by following first children (a level or two, no allocation; this is hot in
        // lowering), then the run is scanned for the first that is not trivia.
        let tree = self.tree;
        let range = self.range();
        let n = tree.tokens.len() - 1;
        let mut node = self.id;
        let mut i = loop {
            let d = &tree.nodes[node as usize];
            if d.n_children == 0 {
                // An empty first child: find the run by position instead.
                break tree.tokens[..n].partition_point(|t| t.start < range.start);
            }
            let e = tree.children[d.first_child as usize];
            match e.as_node() {
                Some(c) => node = c,
                None => break e.0 as usize,
            }
        };
        while i < n && tree.tokens[i].start < range.end {
            if is_significant(tree.tokens[i].kind) {
                return Some(SyntaxToken {
                    tree,
                    index: i as u32,
                });
            }
            i += 1;
        }
        None
    }
}

/// A token of the tree. Cheap to copy.
#[derive(Clone, Copy)]
pub struct SyntaxToken<'t> {
    tree: &'t SyntaxTree,
    index: u32,
}

impl PartialEq for SyntaxToken<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.tree, other.tree) && self.index == other.index
    }
}
impl Eq for SyntaxToken<'_> {}

impl std::fmt::Debug for SyntaxToken<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}@{:?} {:?}", self.kind(), self.range(), self.text())
    }
}

impl<'t> SyntaxToken<'t> {
    pub fn kind(&self) -> SyntaxKind {
        self.tree.tokens[self.index as usize].kind
    }
    pub fn index(&self) -> usize {
        self.index as usize
    }
    pub fn range(&self) -> TextRange {
        self.tree.token_range(self.index as usize)
    }
    pub fn bytes(&self) -> &'t [u8] {
        &self.tree.text[self.range().as_usize()]
    }
    /// The token's text; invalid UTF-8 (only ever in error tokens, strings or comments) is replaced.
    pub fn text(&self) -> std::borrow::Cow<'t, str> {
        crate::strings::lossy(self.bytes())
    }
    pub fn parent(&self) -> SyntaxNode<'t> {
        SyntaxNode {
            tree: self.tree,
            id: self.tree.token_parent[self.index as usize],
        }
    }
}

/// The room [`TreeBuilder`] makes for the nodes of `n` tokens.
fn node_capacity(n: usize) -> usize {
    n * 5 / 8 + 1
}

/// Builds a tree bottom-up. `checkpoint` + `start_node_at` let the parser wrap an already-parsed
/// left operand in a binary expression.
pub(crate) struct TreeBuilder {
    tokens: Vec<Token>,
    nodes: Vec<NodeData>,
    children: Vec<Elem>,
    stack: Vec<Elem>,
    open: Vec<(SyntaxKind, usize)>,
    next_token: usize,
    /// The node each token belongs to, filled as nodes finish.
    token_parent: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Checkpoint(usize);

impl TreeBuilder {
    pub(crate) fn new(tokens: Vec<Token>) -> TreeBuilder {
        let n = tokens.len();
        let token_parent = vec![0; n];
        Self::with_parents(tokens, token_parent, n)
    }

    /// A builder whose vectors have room for the tree of `room` tokens, when the tree will
    /// grow past its tokens' (the first chunk of a parallel parse, which the others join).
    pub(crate) fn with_room(tokens: Vec<Token>, room: usize) -> TreeBuilder {
        let n = tokens.len();
        let mut token_parent = Vec::with_capacity(room.max(n));
        token_parent.resize(n, 0);
        Self::with_parents(tokens, token_parent, room.max(n))
    }

    fn with_parents(tokens: Vec<Token>, token_parent: Vec<u32>, room: usize) -> TreeBuilder {
        // About 0.56 nodes per token in typical code; every token and node but the root is a
        // child once. Growing these large vectors late would copy them.
        let nodes = node_capacity(room);
        TreeBuilder {
            tokens,
            nodes: Vec::with_capacity(nodes),
            children: Vec::with_capacity(room + nodes),
            stack: Vec::with_capacity(64),
            open: Vec::with_capacity(64),
            next_token: 0,
            token_parent,
        }
    }

    pub(crate) fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    pub(crate) fn token(&mut self, index: usize) {
        self.next_token = index + 1;
        self.stack.push(Elem::token(index));
    }

    pub(crate) fn start_node(&mut self, kind: SyntaxKind) {
        self.open.push((kind, self.stack.len()));
    }

    pub(crate) fn checkpoint(&self) -> Checkpoint {
        Checkpoint(self.stack.len())
    }

    pub(crate) fn start_node_at(&mut self, cp: Checkpoint, kind: SyntaxKind) {
        let cp = cp.0.min(self.stack.len());
        // Never reach into an enclosing node's region.
        let floor = self.open.last().map_or(0, |&(_, p)| p);
        self.open.push((kind, cp.max(floor)));
    }

    pub(crate) fn finish_node(&mut self) {
        let Some((kind, pos)) = self.open.pop() else {
            return;
        };
        let id = self.nodes.len() as u32;
        let first = self.children.len() as u32;
        let TreeBuilder {
            tokens,
            nodes,
            children,
            stack,
            token_parent,
            next_token,
            ..
        } = self;
        let kids = &stack[pos..];
        // Children are in source order, so the first and last give the range; an empty node
        // sits where the next token starts.
        let (range, starts_significant) = match (kids.first(), kids.last()) {
            (Some(&f), Some(&l)) => {
                let (start, significant) = match f.as_node() {
                    Some(n) => {
                        let d = &nodes[n as usize];
                        (d.range.start, d.starts_significant)
                    }
                    None => {
                        let t = tokens[f.0 as usize];
                        (t.start, is_significant(t.kind))
                    }
                };
                let end = match l.as_node() {
                    Some(n) => nodes[n as usize].range.end,
                    None => tokens[l.0 as usize + 1].start,
                };
                (TextRange::new(start, end), significant)
            }
            _ => (
                TextRange::empty(tokens[(*next_token).min(tokens.len() - 1)].start),
                false,
            ),
        };
        // Hot (once per node): one pass sets the parents and moves the children over (a node
        // has a few, too few for a `memcpy` call to pay; `extend` with a closure was slower).
        // No `reserve`: `new` sized `children` for the whole file.
        for &e in kids {
            match e.as_node() {
                Some(n) => nodes[n as usize].parent = id,
                None => token_parent[e.0 as usize] = id,
            }
            children.push(e);
        }
        let n = kids.len() as u32;
        nodes.push(NodeData {
            kind,
            parent: NO_PARENT,
            first_child: first,
            n_children: n,
            range,
            starts_significant,
        });
        // The node takes its children's place on the stack.
        if n > 0 {
            stack.truncate(pos + 1);
            stack[pos] = Elem::node(id as usize);
        } else {
            stack.push(Elem::node(id as usize));
        }
    }

    pub(crate) fn finish(mut self, text: Box<[u8]>, diagnostics: Vec<Diagnostic>) -> SyntaxTree {
        while !self.open.is_empty() {
            self.finish_node();
        }
        // The root must be the last node and the only element left.
        if self.stack.len() != 1 || self.stack[0].as_node().is_none() {
            self.open.push((SyntaxKind::SourceFile, 0));
            self.finish_node();
        }
        let mut token_parent = std::mem::take(&mut self.token_parent);
        let root = self.nodes.len() - 1;
        if let Some(last) = token_parent.last_mut() {
            *last = root as u32;
        }
        SyntaxTree {
            text,
            tokens: self.tokens,
            token_parent,
            nodes: self.nodes,
            children: self.children,
            diagnostics,
        }
    }
}
