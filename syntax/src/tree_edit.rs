//! Building a tree from others: splicing a reparsed item in, and joining the chunks of a
//! parallel parse.

use crate::gapped::Gapped;
use crate::kind::SyntaxKind;
use crate::lexer::Token;
use crate::text_range::TextRange;
use crate::tree::{is_significant, Bases, Elem, NodeData, Span, SyntaxTree, NO_PARENT, ROOT_REF};
use crate::tree_builder::node_capacity;

impl SyntaxTree {
    /// Moves every array's gap: tokens to `t`, nodes to `n`, children entries to `c` (a
    /// boundary between two top-level elements in each), storing what crosses it again.
    fn move_gaps(&mut self, t: usize, n: usize, c: usize) {
        let (b, nb) = (self.bases(), self.bases().negated());
        let side = move |after: bool| if after { nb } else { b };
        self.tokens
            .move_gap(t, |x, after| *x = side(after).token(*x));
        self.token_parent
            .move_gap(t, |x, after| *x = side(after).parent(*x));
        self.nodes.move_gap(n, |x, after| *x = side(after).node(*x));
        self.children
            .move_gap(c, |x, after| *x = side(after).elem(*x));
    }

    /// Replaces the elements from tokens `t0`, nodes `first` and children entries `c0` up to
    /// the gaps (just moved after the replaced elements) by those of `piece` (a piece of the
    /// text parsed from `base`): with `as_item`, its root too, as a top-level node of the file
    /// after its other nodes (a spliced function); else all but its root, its top-level
    /// elements becoming the file's (a run of them).
    fn fill_gap(
        &mut self,
        (t0, first, c0): (usize, usize, usize),
        piece: &SyntaxTree,
        base: u32,
        as_item: bool,
    ) {
        let p_tokens = piece.token_count();
        let p_nodes = piece.nodes.len();
        let p_root = piece.root_id();
        let first_u = first as u32;
        // The piece's root is the spliced item (an id after its other nodes), or the file's.
        let parent = |p: u32| {
            if p != p_root {
                p + first_u
            } else if as_item {
                p_nodes as u32 + first_u
            } else {
                ROOT_REF
            }
        };
        let elem = |e: Elem| match e.as_node() {
            Some(id) => Elem::node(id as usize + first),
            None => Elem::token(e.0 as usize + t0),
        };
        let tokens: Vec<Token> = (0..p_tokens)
            .map(|i| {
                let t = piece.tok(i);
                Token {
                    kind: t.kind,
                    start: t.start + base,
                }
            })
            .collect();
        self.tokens.replace_before_gap(t0, &tokens);
        let parents: Vec<u32> = (0..p_tokens).map(|i| parent(piece.tok_parent(i))).collect();
        self.token_parent.replace_before_gap(t0, &parents);
        let p_children = piece.children.len();
        let mut nodes: Vec<NodeData> = (0..p_nodes as u32)
            .map(|id| {
                let d = piece.node_data(id);
                NodeData {
                    kind: d.kind,
                    parent: parent(d.parent),
                    first_child: d.first_child + c0 as u32,
                    n_children: d.n_children,
                    range: TextRange::new(d.range.start + base, d.range.end + base),
                    starts_significant: d.starts_significant,
                }
            })
            .collect();
        let mut children: Vec<Elem> = (0..p_children).map(|j| elem(piece.child(j))).collect();
        if as_item {
            let r = piece.root;
            nodes.push(NodeData {
                kind: r.kind,
                parent: ROOT_REF,
                first_child: (c0 + p_children) as u32,
                n_children: r.n_children,
                range: TextRange::new(r.range.start + base, r.range.end + base),
                starts_significant: r.starts_significant,
            });
            children.extend(piece.root_children.iter().map(|&e| elem(e)));
        }
        self.nodes.replace_before_gap(first, &nodes);
        self.children.replace_before_gap(c0, &children);
    }

    /// Moves the root's entries from `from` on by `dn` (node ids) and `dt` (token indexes), and
    /// sets its range and flag from its first and last entries, as finishing it gives them.
    fn finish_root(&mut self, from: usize, dn: i64, dt: i64) {
        let by = Bases {
            nodes: dn as u32,
            tokens: dt as u32,
            ..Bases::ZERO
        };
        for e in &mut self.root_children[from..] {
            *e = by.elem(*e);
        }
        let (range, starts) = match (self.root_children.first(), self.root_children.last()) {
            (Some(&f), Some(&l)) => {
                let (start, starts) = match f.as_node() {
                    Some(id) => {
                        let d = self.node_data(id);
                        (d.range.start, d.starts_significant)
                    }
                    None => {
                        let t = self.tok(f.0 as usize);
                        (t.start, is_significant(t.kind))
                    }
                };
                let end = match l.as_node() {
                    Some(id) => self.node_data(id).range.end,
                    None => self.tok(l.0 as usize + 1).start,
                };
                (TextRange::new(start, end), starts)
            }
            _ => (TextRange::empty(self.tok(0).start), false),
        };
        self.root.n_children = self.root_children.len() as u32;
        self.root.range = range;
        self.root.starts_significant = starts;
    }

    /// Replaces the top-level item `item` (a node id) by `replacement` (a tree rooted at the new
    /// item, as [`SyntaxTree::subtree`] gives) and the text by `text`; no diagnostics. In place,
    /// at the arrays' gap, which moves to the item's end first (nothing moves when it is there
    /// already, as when a function is typed into): what follows stays where it is, counted from
    /// the end.
    pub(crate) fn splice_item(
        &mut self,
        item: u32,
        replacement: &SyntaxTree,
        text: std::sync::Arc<[u8]>,
    ) {
        let Span {
            first,
            last,
            t0,
            t1,
            c0,
            c1,
            range,
        } = self.span(self.node(item));
        let k = self
            .root_children
            .iter()
            .position(|e| e.as_node() == Some(item))
            .expect("a top-level item");
        self.move_gaps(t1, last + 1, c1);
        let dt = replacement.token_count() as i64 - (t1 - t0) as i64;
        let dn = replacement.node_count() as i64 - (last + 1 - first) as i64;
        self.fill_gap((t0, first, c0), replacement, range.start, true);
        self.text = text;
        self.root_children[k] = Elem::node(first + replacement.nodes.len());
        self.finish_root(k + 1, dn, dt);
        self.diagnostics = Vec::new();
    }

    /// Replaces the top-level elements `e0..e1` (entries of the root's children: items,
    /// statements, layout), which hold the bytes `old` of the old text, by every top-level
    /// element of `piece` (a parse of the new text from `old.start`, rooted at its own
    /// `SourceFile`) and the text by `text`; no diagnostics. In place, at the gap, as
    /// [`SyntaxTree::splice_item`].
    pub(crate) fn splice_top(
        &mut self,
        (e0, e1): (usize, usize),
        old: TextRange,
        piece: &SyntaxTree,
        text: std::sync::Arc<[u8]>,
    ) {
        // Post-order: the replaced elements' subtrees are the nodes `first..end`, after every
        // earlier element's.
        let entries = &self.root_children;
        let first = entries[..e0]
            .iter()
            .rev()
            .find_map(|e| e.as_node())
            .map_or(0, |id| id as usize + 1);
        let end = entries[e0..e1]
            .iter()
            .rev()
            .find_map(|e| e.as_node())
            .map_or(first, |id| id as usize + 1);
        let n = self.token_count();
        let t0 = self.tokens_before(n, old.start);
        let t1 = self.tokens_before(n, old.end);
        // Children lists are appended as nodes finish: the subtrees' are one run, where the
        // first node's starts (with no node replaced, where the next one's do).
        let c0 = if first < self.nodes.len() {
            self.node_data(first as u32).first_child as usize
        } else {
            self.children.len()
        };
        let c1 = match end.checked_sub(1).filter(|&l| l >= first) {
            Some(l) => {
                let d = self.node_data(l as u32);
                (d.first_child + d.n_children) as usize
            }
            None => c0,
        };
        self.move_gaps(t1, end, c1);
        let dt = piece.token_count() as i64 - (t1 - t0) as i64;
        let dn = piece.nodes.len() as i64 - (end - first) as i64;
        self.fill_gap((t0, first, c0), piece, old.start, false);
        self.text = text;
        let p_top = piece.root_children.len();
        self.root_children.splice(
            e0..e1,
            piece.root_children.iter().map(|e| match e.as_node() {
                Some(id) => Elem::node(id as usize + first),
                None => Elem::token(e.0 as usize + t0),
            }),
        );
        self.finish_root(e0 + p_top, dn, dt);
        self.diagnostics = Vec::new();
    }

    /// Joins the trees of consecutive chunks of `text` (each parsed alone, without its text,
    /// offsets from its chunk's start at `starts`) into the tree of the whole text: post-order
    /// nodes, so each chunk's nodes follow the previous chunk's, and one root over every
    /// chunk's top-level elements; every chunk's `Eof` but the last goes. No diagnostics. The
    /// first chunk's vectors become the tree's: made with room for the whole file
    /// (`TreeBuilder::with_room`), they end with the capacities the whole file's parse gives
    /// them ([`SyntaxTree::heap_size`] is the same). Each other chunk's vector is freed as soon
    /// as it is copied; two threads copy (the vectors split between them).
    pub(crate) fn concat(
        text: std::sync::Arc<[u8]>,
        parts: Vec<SyntaxTree>,
        starts: &[u32],
    ) -> SyntaxTree {
        debug_assert_eq!(parts.len(), starts.len());
        // Where each chunk's tokens, non-root nodes and non-root children entries go.
        let k = parts.len();
        let (mut tok_base, mut node_base, mut child_base) = (
            Vec::with_capacity(k),
            Vec::with_capacity(k),
            Vec::with_capacity(k),
        );
        let (mut t, mut n, mut c) = (0usize, 0usize, 0usize);
        for p in &parts {
            tok_base.push(t as u32);
            node_base.push(n as u32);
            child_base.push(c as u32);
            t += p.tokens.len() - 1;
            n += p.nodes.len();
            c += p.children.len();
        }
        let n_tokens = t + 1;
        let root_children_len: usize = parts.iter().map(|p| p.root_children.len()).sum();
        // The capacities `lexer::lex` and `TreeBuilder::new` start with for the whole text,
        // doubled as pushing past them doubles them (the root was pushed, and its entries, then
        // taken off).
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
            nodes: grown(nodes_init, n + 1),
            children: grown(n_tokens + nodes_init, c + root_children_len),
        };
        let last = k - 1;
        let (end, eof) = (parts[last].root.range.end + starts[last], text.len() as u32);
        let r0 = parts[0].root;
        let root = NodeData {
            kind: r0.kind,
            parent: NO_PARENT,
            first_child: 0,
            n_children: root_children_len as u32,
            range: TextRange::new(r0.range.start + starts[0], end),
            starts_significant: r0.starts_significant,
        };
        let mut root_children: Vec<Elem> = Vec::with_capacity(root_children_len);
        for (i, p) in parts.iter().enumerate() {
            let (nb, tb) = (node_base[i], tok_base[i]);
            root_children.extend(p.root_children.iter().map(|e| match e.as_node() {
                Some(id) => Elem::node((id + nb) as usize),
                None => Elem::token((e.0 + tb) as usize),
            }));
        }
        let (mut tokens, mut token_parent, mut nodes, mut children) = (
            Vec::with_capacity(k),
            Vec::with_capacity(k),
            Vec::with_capacity(k),
            Vec::with_capacity(k),
        );
        for p in parts {
            // Fresh parses: every element before the gap, stored as it is.
            tokens.push(p.tokens.into_vec());
            token_parent.push(p.token_parent.into_vec());
            nodes.push(p.nodes.into_vec());
            children.push(p.children.into_vec());
        }

        // Tokens: the first chunk's as they are, then the others' shifted; one `Eof`.
        let join_tokens = |parts: Vec<Vec<Token>>| {
            let end = Token {
                kind: SyntaxKind::Eof,
                start: eof,
            };
            join_chunks(parts, caps.tokens, Some(end), |i, tk| Token {
                kind: tk.kind,
                start: tk.start + starts[i],
            })
        };
        // The root is one for every chunk; other nodes move by the nodes before them.
        let join_parents = |parts: Vec<Vec<u32>>| {
            join_chunks(parts, caps.token_parent, Some(ROOT_REF), |i, &q| {
                if q == ROOT_REF {
                    q
                } else {
                    q + node_base[i]
                }
            })
        };
        let join_nodes = |parts: Vec<Vec<NodeData>>| {
            join_chunks(parts, caps.nodes, None, |i, d| NodeData {
                kind: d.kind,
                parent: if d.parent == ROOT_REF {
                    ROOT_REF
                } else {
                    d.parent + node_base[i]
                },
                first_child: d.first_child + child_base[i],
                n_children: d.n_children,
                range: TextRange::new(d.range.start + starts[i], d.range.end + starts[i]),
                starts_significant: d.starts_significant,
            })
        };
        let join_children = |parts: Vec<Vec<Elem>>| {
            join_chunks(parts, caps.children, None, |i, &e| match e.as_node() {
                Some(id) => Elem::node((id + node_base[i]) as usize),
                None => Elem::token((e.0 + tok_base[i]) as usize),
            })
        };
        // Two about equal shares: the nodes, and the rest.
        let for_other = std::sync::Mutex::new(Some(nodes));
        let other_job = || {
            let taken = for_other.lock().map(|mut g| g.take());
            join_nodes(taken.ok().flatten().expect("taken once"))
        };
        let (tokens, children, token_parent, nodes) = std::thread::scope(|s| {
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
        debug_assert_eq!(children.len(), c);
        SyntaxTree {
            text,
            tokens: Gapped::from_vec(tokens),
            token_parent: Gapped::from_vec(token_parent),
            nodes: Gapped::from_vec(nodes),
            children: Gapped::from_vec(children),
            root,
            root_children,
            diagnostics: Vec::new(),
        }
    }
}

/// One vector from the chunks' vectors: the first chunk's as it is (given the capacity `cap`),
/// the others' through `map` (with the chunk's index). With `last`, each chunk's last element
/// (its `Eof`) goes and `last` ends the whole.
fn join_chunks<T>(
    parts: Vec<Vec<T>>,
    cap: usize,
    last: Option<T>,
    map: impl Fn(usize, &T) -> T,
) -> Vec<T> {
    let drop = usize::from(last.is_some());
    let mut parts = parts.into_iter();
    let mut all = parts.next().expect("one chunk at least");
    all.truncate(all.len() - drop);
    fit(&mut all, cap);
    for (i, part) in parts.enumerate() {
        all.extend(part[..part.len() - drop].iter().map(|e| map(i + 1, e)));
    }
    all.extend(last);
    all
}

/// The capacities of a whole file's tree.
#[derive(Clone, Copy)]
struct Caps {
    pub(crate) tokens: usize,
    pub(crate) token_parent: usize,
    pub(crate) nodes: usize,
    pub(crate) children: usize,
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

#[cfg(test)]
mod tests {
    /// Where each array's elements after the gap lie in memory, and how many there are.
    fn tails(tree: &crate::SyntaxTree) -> [(usize, usize); 4] {
        fn at<T: Copy>(g: &crate::gapped::Gapped<T>) -> (usize, usize) {
            let tail = g.sides().1;
            (tail.as_ptr() as usize, tail.len())
        }
        [
            at(&tree.tokens),
            at(&tree.token_parent),
            at(&tree.nodes),
            at(&tree.children),
        ]
    }

    /// Typing at one place in a large file moves nothing after it: once the first keystroke
    /// has put the gap there, every array's elements after it stay where they lie, as many as
    /// they were, keystroke after keystroke, inside a function and between two; and each tree
    /// is a full parse's.
    #[test]
    fn typing_at_one_place_moves_nothing_after_it() {
        let mut text = String::new();
        for i in 0..300 {
            text += &format!(
                "fn w{i}(x: int) to int {{\n    let y = x + {i}\n    return y * 2\n}}\n\n"
            );
        }
        // Edits that keep the file valid: digits into a literal, a name as a statement.
        let inside = text.find("x + 150\n").unwrap() + "x + 150".len();
        let between = text.find("fn w201(").unwrap() - 1;
        for (at, typed) in [(inside, "98765"), (between, "total_count")] {
            let mut tree = crate::parse(text.as_bytes());
            let mut new = text.clone();
            let mut before = None;
            for (k, c) in typed.char_indices() {
                new.insert(at + k, c);
                let (next, _) = crate::reparse_owned(tree, new.as_bytes()).expect("spliced");
                assert!(
                    next == crate::parse(new.as_bytes()),
                    "after {:?}",
                    &typed[..=k]
                );
                let now = tails(&next);
                if let Some(was) = before {
                    assert_eq!(
                        now,
                        was,
                        "the elements after the gap moved at {:?}",
                        &typed[..=k]
                    );
                }
                assert!(
                    now.iter().all(|&(_, n)| n > 1000),
                    "the gap is not in the middle"
                );
                before = Some(now);
                tree = next;
            }
        }
    }
}
