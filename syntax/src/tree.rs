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
#[derive(Clone)]
pub struct SyntaxTree {
    pub(crate) text: std::sync::Arc<[u8]>,
    pub(crate) tokens: Vec<Token>,
    pub(crate) token_parent: Vec<u32>,
    pub(crate) nodes: Vec<NodeData>,
    pub(crate) children: Vec<Elem>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Debug for SyntaxTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.debug_dump())
    }
}

pub(crate) const NO_PARENT: u32 = u32::MAX;

/// A token diagnostics may point at: neither trivia nor a newline.
pub(crate) fn is_significant(kind: SyntaxKind) -> bool {
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

    pub(crate) fn token_range(&self, i: usize) -> TextRange {
        TextRange::new(self.tokens[i].start, self.tokens[i + 1].start)
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
