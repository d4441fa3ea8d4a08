//! The lossless syntax tree: flat arrays of tokens and nodes, navigated through borrowed cursors.
//!
//! Nodes are built bottom-up (post-order), so the root is the last node. Every token of the input
//! is a child of exactly one node, in order, which is what makes printing the tree give back the
//! original bytes. The arrays have a gap where the last edit was ([`SyntaxTree`]); reads go
//! through the accessors here, which see past it.

use crate::diagnostic::Diagnostic;
use crate::gapped::Gapped;
use crate::kind::SyntaxKind;
use crate::lexer::Token;
use crate::text_range::TextRange;

/// A child of a node: a token index or a node index (high bit set).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Elem(pub(crate) u32);

pub(crate) const NODE_BIT: u32 = 1 << 31;

impl Elem {
    pub(crate) fn token(i: usize) -> Elem {
        Elem(i as u32)
    }
    pub(crate) fn node(i: usize) -> Elem {
        Elem(i as u32 | NODE_BIT)
    }
    pub(crate) fn as_node(self) -> Option<u32> {
        (self.0 & NODE_BIT != 0).then_some(self.0 & !NODE_BIT)
    }
    pub(crate) fn as_token(self) -> Option<u32> {
        (self.0 & NODE_BIT == 0).then_some(self.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NodeData {
    pub(crate) kind: SyntaxKind,
    pub(crate) parent: u32,
    pub(crate) first_child: u32,
    pub(crate) n_children: u32,
    pub(crate) range: TextRange,
    /// Whether the node's first token is significant (neither trivia nor a newline), so that
    /// `range` already starts where diagnostics point. Derived from the tree; fits in padding.
    pub(crate) starts_significant: bool,
}

/// A parsed file: its bytes, tokens, nodes and diagnostics.
///
/// The arrays have a gap ([`Gapped`]) at a boundary between two top-level elements, where the
/// last edit was: a splice there moves nothing after it. So that it need not renumber anything
/// either, what lies after the gap is stored counted from the end (a token's start from the
/// text's end, a node id from the number of nodes, a children entry from the number of children
/// entries or tokens), and the root, which spans the gap, is kept apart with its children's
/// entries in absolute terms. Nothing on either side points across the gap but through the
/// root: the parent of a top-level element is stored as [`ROOT_REF`].
#[derive(Clone)]
pub struct SyntaxTree {
    pub(crate) text: std::sync::Arc<[u8]>,
    /// Every token, then the zero-length `Eof`.
    pub(crate) tokens: Gapped<Token>,
    /// Each token's node.
    pub(crate) token_parent: Gapped<u32>,
    /// Every node but the root, post-order.
    pub(crate) nodes: Gapped<NodeData>,
    /// The children lists of every node but the root, in node order.
    pub(crate) children: Gapped<Elem>,
    /// The root (its `first_child` unused): the node after every other.
    pub(crate) root: NodeData,
    pub(crate) root_children: Vec<Elem>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Debug for SyntaxTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.debug_dump())
    }
}

pub(crate) const NO_PARENT: u32 = u32::MAX;

/// A parent that is the root, as stored in the arrays (no id or id counted from the end is
/// this large).
pub(crate) const ROOT_REF: u32 = NODE_BIT;

/// A token diagnostics may point at: neither trivia nor a newline.
pub(crate) fn is_significant(kind: SyntaxKind) -> bool {
    !kind.is_trivia() && kind != SyntaxKind::Newline
}

/// The bases the values after the gap are counted from: the text's length, the number of
/// tokens, of nodes (the root's id) and of children entries.
#[derive(Clone, Copy)]
pub(crate) struct Bases {
    pub(crate) text: u32,
    pub(crate) tokens: u32,
    pub(crate) nodes: u32,
    pub(crate) children: u32,
}

impl Bases {
    /// Zero bases: values before the gap are stored as they are.
    pub(crate) const ZERO: Bases = Bases {
        text: 0,
        tokens: 0,
        nodes: 0,
        children: 0,
    };

    /// The bases that undo these (for storing a value after the gap).
    pub(crate) fn negated(self) -> Bases {
        Bases {
            text: self.text.wrapping_neg(),
            tokens: self.tokens.wrapping_neg(),
            nodes: self.nodes.wrapping_neg(),
            children: self.children.wrapping_neg(),
        }
    }

    pub(crate) fn token(self, t: Token) -> Token {
        Token {
            kind: t.kind,
            start: t.start.wrapping_add(self.text),
        }
    }

    pub(crate) fn parent(self, p: u32) -> u32 {
        if p == ROOT_REF {
            p
        } else {
            p.wrapping_add(self.nodes)
        }
    }

    pub(crate) fn node(self, d: NodeData) -> NodeData {
        NodeData {
            kind: d.kind,
            parent: self.parent(d.parent),
            first_child: d.first_child.wrapping_add(self.children),
            n_children: d.n_children,
            range: TextRange::new(
                d.range.start.wrapping_add(self.text),
                d.range.end.wrapping_add(self.text),
            ),
            starts_significant: d.starts_significant,
        }
    }

    pub(crate) fn elem(self, e: Elem) -> Elem {
        let node = e.0 & NODE_BIT;
        let base = if node != 0 { self.nodes } else { self.tokens };
        Elem((e.0.wrapping_add(base) & !NODE_BIT) | node)
    }
}

/// A node's children entries, read from where they are stored.
#[derive(Clone)]
pub(crate) struct Elems<'t> {
    it: std::slice::Iter<'t, Elem>,
    bases: Bases,
}

impl Iterator for Elems<'_> {
    type Item = Elem;
    #[inline]
    fn next(&mut self) -> Option<Elem> {
        self.it.next().map(|&e| self.bases.elem(e))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.it.size_hint()
    }
    fn nth(&mut self, n: usize) -> Option<Elem> {
        self.it.nth(n).map(|&e| self.bases.elem(e))
    }
}

impl DoubleEndedIterator for Elems<'_> {
    fn next_back(&mut self) -> Option<Elem> {
        self.it.next_back().map(|&e| self.bases.elem(e))
    }
}

impl ExactSizeIterator for Elems<'_> {}

/// Reads of the arrays: values after the gap converted back, the root's own data.
impl SyntaxTree {
    /// What values after the gap are counted from.
    #[inline]
    pub(crate) fn bases(&self) -> Bases {
        Bases {
            text: self.text.len() as u32,
            tokens: self.tokens.len() as u32,
            nodes: self.nodes.len() as u32,
            children: self.children.len() as u32,
        }
    }

    /// The bases of a value stored on one side of the gap.
    #[inline(always)]
    pub(crate) fn side(&self, after_gap: bool) -> Bases {
        if after_gap {
            self.bases()
        } else {
            Bases::ZERO
        }
    }

    /// The root's id: the highest.
    #[inline(always)]
    pub(crate) fn root_id(&self) -> u32 {
        self.nodes.len() as u32
    }

    /// A parent as stored on one side of the gap, in absolute terms (`ROOT_REF` is the root).
    #[inline(always)]
    fn parent_id(&self, stored: u32, after: bool) -> u32 {
        if stored == ROOT_REF {
            self.root_id()
        } else {
            self.side(after).parent(stored)
        }
    }

    #[inline(always)]
    pub(crate) fn tok(&self, i: usize) -> Token {
        let (t, after) = self.tokens.get(i);
        self.side(after).token(t)
    }

    #[inline(always)]
    pub(crate) fn tok_kind(&self, i: usize) -> SyntaxKind {
        self.tokens.get(i).0.kind
    }

    #[inline(always)]
    pub(crate) fn tok_parent(&self, i: usize) -> u32 {
        let (p, after) = self.token_parent.get(i);
        self.parent_id(p, after)
    }

    /// A node's data, in absolute terms (its parent's id, where its children entries start).
    #[inline(always)]
    pub(crate) fn node_data(&self, id: u32) -> NodeData {
        if id == self.root_id() {
            return self.root;
        }
        let (d, after) = self.nodes.get(id as usize);
        NodeData {
            parent: self.parent_id(d.parent, after),
            ..self.side(after).node(d)
        }
    }

    /// A node's range alone (read on every cursor's `range`: no more decoded than that).
    #[inline(always)]
    pub(crate) fn node_range(&self, id: u32) -> TextRange {
        if id == self.root_id() {
            return self.root.range;
        }
        let (d, after) = self.nodes.get(id as usize);
        self.side(after).node(d).range
    }

    /// A node's parent's id (`NO_PARENT` for the root).
    #[inline(always)]
    pub(crate) fn node_parent(&self, id: u32) -> u32 {
        if id == self.root_id() {
            return NO_PARENT;
        }
        let (d, after) = self.nodes.get(id as usize);
        self.parent_id(d.parent, after)
    }

    /// Whether a node's range starts where diagnostics point (stored as it is on either side).
    #[inline(always)]
    pub(crate) fn node_starts_significant(&self, id: u32) -> bool {
        if id == self.root_id() {
            return self.root.starts_significant;
        }
        self.nodes.get(id as usize).0.starts_significant
    }

    #[inline(always)]
    pub(crate) fn node_kind(&self, id: u32) -> SyntaxKind {
        if id == self.root_id() {
            return self.root.kind;
        }
        self.nodes.get(id as usize).0.kind
    }

    /// A node's children entries.
    #[inline(always)]
    pub(crate) fn elems(&self, id: u32) -> Elems<'_> {
        if id == self.root_id() {
            return Elems {
                it: self.root_children.iter(),
                bases: Bases::ZERO,
            };
        }
        let (d, after) = self.nodes.get(id as usize);
        let first = d.first_child.wrapping_add(self.side(after).children) as usize;
        self.elems_in(first..first + d.n_children as usize)
    }

    /// The children entries `range` of nodes other than the root (on one side of the gap, as
    /// a node's or a subtree's are).
    #[inline(always)]
    pub(crate) fn elems_in(&self, range: std::ops::Range<usize>) -> Elems<'_> {
        let (entries, after) = self.children.slice(range);
        Elems {
            it: entries.iter(),
            bases: self.side(after),
        }
    }

    /// A children entry of a node other than the root, in absolute terms.
    pub(crate) fn child(&self, j: usize) -> Elem {
        let (e, after) = self.children.get(j);
        self.side(after).elem(e)
    }

    /// The tokens `0..n` whose start is below `offset` (a binary search on each side of the gap).
    pub(crate) fn tokens_before(&self, n: usize, offset: u32) -> usize {
        let (head, tail) = self.tokens.sides();
        let h = head.len().min(n);
        let i = head[..h].partition_point(|t| t.start < offset);
        if i < h || h == n {
            return i;
        }
        let base = self.text.len() as u32;
        h + tail[..n - h].partition_point(|t| t.start.wrapping_add(base) < offset)
    }

    /// Every token, in absolute terms.
    pub(crate) fn all_tokens(&self) -> impl Iterator<Item = Token> + '_ {
        let b = self.bases();
        self.tokens.read_all(move |t| b.token(t))
    }

    /// Every token's parent, in absolute terms.
    pub(crate) fn all_token_parents(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.tokens.len()).map(|i| self.tok_parent(i))
    }

    /// Every node, the root last, in absolute terms.
    pub(crate) fn all_nodes(&self) -> impl Iterator<Item = NodeData> + '_ {
        (0..=self.root_id()).map(|id| self.node_data(id))
    }

    /// Every children entry of every node but the root, then the root's, in absolute terms.
    pub(crate) fn all_children(&self) -> impl Iterator<Item = Elem> + '_ {
        let b = self.bases();
        self.children
            .read_all(move |e| b.elem(e))
            .chain(self.root_children.iter().copied())
    }
}

/// Two trees are equal when they hold the same bytes with the same tokens and nodes; diagnostics
/// follow from those.
impl PartialEq for SyntaxTree {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
            && self.tokens.len() == other.tokens.len()
            && self.all_tokens().eq(other.all_tokens())
            && self.children.len() == other.children.len()
            && self.all_children().eq(other.all_children())
            && self.nodes.len() == other.nodes.len()
            && self.all_nodes().zip(other.all_nodes()).all(|(a, b)| {
                a.kind == b.kind
                    && (a.first_child == b.first_child || a.parent == NO_PARENT)
                    && a.n_children == b.n_children
                    && a.range == b.range
            })
    }
}

impl Eq for SyntaxTree {}

impl SyntaxTree {
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
        self.nodes.len() + 1
    }

    /// The kinds of the nodes `ids`, in id order: a scan over many nodes that reads no more.
    pub(crate) fn node_kinds(
        &self,
        ids: std::ops::RangeInclusive<u32>,
    ) -> impl Iterator<Item = (u32, SyntaxKind)> + '_ {
        ids.map(|id| (id, self.node_kind(id)))
    }

    pub(crate) fn token_range(&self, i: usize) -> TextRange {
        TextRange::new(self.tok(i).start, self.tok(i + 1).start)
    }

    /// Whether two trees are the same in every array, parents and capacities included (for
    /// tests: `==` compares what the tree means).
    #[doc(hidden)]
    pub fn identical(&self, other: &SyntaxTree) -> bool {
        self.text == other.text
            && self.all_tokens().eq(other.all_tokens())
            && self.all_token_parents().eq(other.all_token_parents())
            && self.all_nodes().eq(other.all_nodes())
            && self.all_children().eq(other.all_children())
            && self.diagnostics == other.diagnostics
            && self.heap_size() == other.heap_size()
    }

    /// Bytes of heap the tree holds (for callers that bound how many trees they keep).
    pub fn heap_size(&self) -> usize {
        self.text.len()
            + self.tokens.capacity() * std::mem::size_of::<Token>()
            + self.token_parent.capacity() * 4
            + self.nodes.capacity() * std::mem::size_of::<NodeData>()
            + (self.children.capacity() + self.root_children.capacity())
                * std::mem::size_of::<Elem>()
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
}

/// A node's subtree in a tree's flat arrays: nodes `first..=last`, tokens `t0..t1`, children
/// entries `c0..c1`, and its text range.
pub(crate) struct Span {
    pub(crate) first: usize,
    pub(crate) last: usize,
    pub(crate) t0: usize,
    pub(crate) t1: usize,
    pub(crate) c0: usize,
    pub(crate) c1: usize,
    pub(crate) range: TextRange,
}
