//! Cursors over a syntax tree: nodes, tokens and elements borrowed from it, and the tree's
//! operations that hand them out or take them (its root, a node's subtree, a debug dump).

use crate::gapped::Gapped;
use crate::kind::SyntaxKind;
use crate::lexer::Token;
use crate::text_range::TextRange;
use crate::tree::{is_significant, Elem, Elems, NodeData, Span, SyntaxTree, NO_PARENT, ROOT_REF};

impl SyntaxTree {
    pub fn root(&self) -> SyntaxNode<'_> {
        SyntaxNode {
            tree: self,
            id: self.root_id(),
        }
    }

    pub fn node(&self, id: u32) -> SyntaxNode<'_> {
        SyntaxNode { tree: self, id }
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
        let i = self
            .tokens_before(n, offset.saturating_add(1))
            .saturating_sub(1);
        Some(self.token(i))
    }

    /// Post-order: a node's subtree is the nodes `first..=node.id`, and the first to finish lies
    /// at the end of the first-node-child chain.
    pub(crate) fn first_descendant(&self, node: SyntaxNode<'_>) -> usize {
        let mut first = node.id as usize;
        while let Some(c) = self.elems(first as u32).find_map(|e| e.as_node()) {
            first = c as usize;
        }
        first
    }

    /// Where a node's subtree lies in the flat arrays.
    pub(crate) fn span(&self, node: SyntaxNode<'_>) -> Span {
        let last = node.id as usize;
        let first = self.first_descendant(node);
        let range = node.range();
        // Children lists are appended as nodes finish: the subtree's are one contiguous run.
        let c0 = self.node_data(first as u32).first_child as usize;
        let l = self.node_data(last as u32);
        let c1 = (l.first_child + l.n_children) as usize;
        // Its tokens are one contiguous run too, named in those lists: read there, next to
        // what the caller copies, rather than searched for in the file's whole token array
        // (a binary search over a large file misses the cache at every step).
        let (mut t0, mut t1) = (usize::MAX, 0);
        for e in self.elems_in(c0..c1) {
            if let Some(t) = e.as_token() {
                t0 = t0.min(t as usize);
                t1 = t1.max(t as usize + 1);
            }
        }
        if t0 == usize::MAX {
            // No token at all: an empty subtree sits where the next token starts.
            t0 = self.tokens_before(self.token_count(), range.start);
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
        tokens.extend((t0..t1).map(|i| {
            let t = self.tok(i);
            Token {
                kind: t.kind,
                start: t.start - base,
            }
        }));
        tokens.push(Token {
            kind: SyntaxKind::Eof,
            start: range.len(),
        });
        // Sized exactly: callers budget the trees they keep by `heap_size`. The node is the
        // new root, kept apart; its children point at it by `ROOT_REF`.
        let rel = |p: u32| {
            if p as usize == last {
                ROOT_REF
            } else {
                p - first as u32
            }
        };
        let mut token_parent: Vec<u32> = Vec::with_capacity(t1 - t0 + 1);
        token_parent.extend((t0..t1).map(|i| rel(self.tok_parent(i))));
        token_parent.push(ROOT_REF);
        let rel_elem = |e: Elem| match e.as_node() {
            Some(id) => Elem::node(id as usize - first),
            None => Elem::token(e.0 as usize - t0),
        };
        let root_data = self.node_data(last as u32);
        let inner_end = root_data.first_child as usize;
        let mut children: Vec<Elem> = Vec::with_capacity(inner_end - c0);
        children.extend(self.elems_in(c0..inner_end).map(rel_elem));
        let root_children: Vec<Elem> = self.elems(last as u32).map(rel_elem).collect();
        let nodes: Vec<NodeData> = (first..last)
            .map(|id| {
                let d = self.node_data(id as u32);
                NodeData {
                    kind: d.kind,
                    parent: rel(d.parent),
                    first_child: d.first_child - c0 as u32,
                    n_children: d.n_children,
                    range: TextRange::new(d.range.start - base, d.range.end - base),
                    starts_significant: d.starts_significant,
                }
            })
            .collect();
        debug_assert_eq!(c1, inner_end + root_children.len());
        SyntaxTree {
            text: self.text[range.as_usize()].into(),
            tokens: Gapped::from_vec(tokens),
            token_parent: Gapped::from_vec(token_parent),
            nodes: Gapped::from_vec(nodes),
            children: Gapped::from_vec(children),
            root: NodeData {
                kind: root_data.kind,
                parent: NO_PARENT,
                first_child: 0,
                n_children: root_data.n_children,
                range: TextRange::new(0, range.len()),
                starts_significant: root_data.starts_significant,
            },
            root_children,
            diagnostics: Vec::new(),
        }
    }

    /// An indented dump of nodes and tokens, for tests and debugging.
    pub fn debug_dump(&self) -> String {
        let mut out = String::new();
        let mut stack: Vec<(Elem, usize)> = vec![(Elem::node(self.root_id() as usize), 0)];
        while let Some((elem, depth)) = stack.pop() {
            for _ in 0..depth {
                out.push_str("  ");
            }
            if let Some(n) = elem.as_node() {
                let node = SyntaxNode { tree: self, id: n };
                out.push_str(&format!("{:?}@{:?}\n", node.kind(), node.range()));
                for k in self.elems(n).rev() {
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

/// A node of the tree. Cheap to copy.
#[derive(Clone, Copy)]
pub struct SyntaxNode<'t> {
    pub(crate) tree: &'t SyntaxTree,
    pub(crate) id: u32,
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
        self.tree.node_kind(self.id)
    }

    pub fn range(&self) -> TextRange {
        self.tree.node_range(self.id)
    }

    /// The node's text (invalid UTF-8 replaced).
    pub fn text(&self) -> std::borrow::Cow<'t, str> {
        crate::strings::lossy(&self.tree.text[self.range().as_usize()])
    }

    pub fn parent(&self) -> Option<SyntaxNode<'t>> {
        let p = self.tree.node_parent(self.id);
        (p != NO_PARENT).then_some(SyntaxNode {
            tree: self.tree,
            id: p,
        })
    }

    pub fn ancestors(&self) -> impl Iterator<Item = SyntaxNode<'t>> {
        std::iter::successors(Some(*self), |n| n.parent())
    }

    fn elems(&self) -> Elems<'t> {
        self.tree.elems(self.id)
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
        self.elems().map(move |e| this.wrap(e))
    }

    pub fn children(&self) -> impl Iterator<Item = SyntaxNode<'t>> + 't {
        let tree = self.tree;
        self.elems()
            .filter_map(move |e| e.as_node().map(|id| SyntaxNode { tree, id }))
    }

    /// Direct child tokens that are not trivia.
    pub fn tokens(&self) -> impl Iterator<Item = SyntaxToken<'t>> + 't {
        let tree = self.tree;
        self.elems()
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
        let mut stack: Vec<Elems<'t>> = vec![tree.elems(self.id)];
        std::iter::from_fn(move || loop {
            let Some(e) = stack.last_mut()?.next() else {
                stack.pop();
                continue;
            };
            match e.as_node() {
                Some(n) => stack.push(tree.elems(n)),
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
            for e in tree.elems(id).rev() {
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
        let range = self.range();
        if self.tree.node_starts_significant(self.id) {
            // The common case, known without visiting the node's tokens.
            return range;
        }
        match self.first_token() {
            Some(t) => TextRange::new(t.range().start, range.end),
            None => range,
        }
    }

    /// The first non-trivia token below this node.
    pub fn first_token(&self) -> Option<SyntaxToken<'t>> {
        // A node's tokens are the contiguous run of tokens inside its range. The first one is
        // found by following first children (a level or two, no allocation; this is hot in
        // lowering), then the run is scanned for the first that is not trivia.
        let tree = self.tree;
        let range = self.range();
        let n = tree.token_count();
        let mut node = self.id;
        let mut i = loop {
            match tree.elems(node).next() {
                // An empty first child: find the run by position instead.
                None => break tree.tokens_before(n, range.start),
                Some(e) => match e.as_node() {
                    Some(c) => node = c,
                    None => break e.0 as usize,
                },
            }
        };
        while i < n {
            let t = tree.tok(i);
            if t.start >= range.end {
                break;
            }
            if is_significant(t.kind) {
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
    pub(crate) tree: &'t SyntaxTree,
    pub(crate) index: u32,
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
        self.tree.tok_kind(self.index as usize)
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
            id: self.tree.tok_parent(self.index as usize),
        }
    }
}
