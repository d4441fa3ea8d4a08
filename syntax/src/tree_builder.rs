//! The tree builder the parser drives: start a node, add tokens, finish it (post-order).

use crate::diagnostic::Diagnostic;
use crate::gapped::Gapped;
use crate::kind::SyntaxKind;
use crate::lexer::Token;
use crate::text_range::TextRange;
use crate::tree::{is_significant, Elem, NodeData, SyntaxTree, NO_PARENT, ROOT_REF};

/// The room [`TreeBuilder`] makes for the nodes of `n` tokens.
pub(crate) fn node_capacity(n: usize) -> usize {
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

    pub(crate) fn finish(
        mut self,
        text: std::sync::Arc<[u8]>,
        diagnostics: Vec<Diagnostic>,
    ) -> SyntaxTree {
        while !self.open.is_empty() {
            self.finish_node();
        }
        // The root must be the last node and the only element left.
        if self.stack.len() != 1 || self.stack[0].as_node().is_none() {
            self.open.push((SyntaxKind::SourceFile, 0));
            self.finish_node();
        }
        let mut token_parent = std::mem::take(&mut self.token_parent);
        let mut nodes = self.nodes;
        let mut children = self.children;
        let mut root = nodes.pop().expect("a root");
        let root_children = children[root.first_child as usize..].to_vec();
        children.truncate(root.first_child as usize);
        root.first_child = 0;
        // The root is kept apart: its children point at it by `ROOT_REF`.
        for &e in &root_children {
            match e.as_node() {
                Some(n) => nodes[n as usize].parent = ROOT_REF,
                None => token_parent[e.0 as usize] = ROOT_REF,
            }
        }
        if let Some(last) = token_parent.last_mut() {
            *last = ROOT_REF;
        }
        SyntaxTree {
            text,
            tokens: Gapped::from_vec(self.tokens),
            token_parent: Gapped::from_vec(token_parent),
            nodes: Gapped::from_vec(nodes),
            children: Gapped::from_vec(children),
            root,
            root_children,
            diagnostics,
        }
    }
}
