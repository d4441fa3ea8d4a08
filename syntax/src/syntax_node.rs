//! Cursors over a syntax tree: nodes, tokens and elements borrowed from it, and the tree's
//! operations that hand them out or take them (its root, a node's subtree, a debug dump).

use crate::kind::SyntaxKind;
use crate::lexer::Token;
use crate::text_range::TextRange;
use crate::tree::{is_significant, Elem, NodeData, Span, SyntaxTree, NO_PARENT};

impl SyntaxTree {
    pub fn root(&self) -> SyntaxNode<'_> {
        SyntaxNode {
            tree: self,
            id: (self.nodes.len() - 1) as u32,
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
        let i = self.tokens[..n]
            .partition_point(|t| t.start <= offset)
            .saturating_sub(1);
        Some(self.token(i))
    }

    /// Post-order: a node's subtree is the nodes `first..=node.id`, and the first to finish lies
    /// at the end of the first-node-child chain.
    pub(crate) fn first_descendant(&self, node: SyntaxNode<'_>) -> usize {
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
    pub(crate) fn span(&self, node: SyntaxNode<'_>) -> Span {
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
