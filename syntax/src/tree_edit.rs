//! Building a tree from others: splicing a reparsed item in, and joining the chunks of a
//! parallel parse.

use crate::kind::SyntaxKind;
use crate::lexer::Token;
use crate::text_range::TextRange;
use crate::tree::{is_significant, Elem, NodeData, Span, SyntaxTree, NODE_BIT, NO_PARENT};
use crate::tree_builder::node_capacity;

/// Moves every token's start by `delta` (wrapping arithmetic, without branches: the loop runs
/// over every token after an edit, and vectorizes).
fn shift_starts(tokens: &mut [Token], delta: i64) {
    let d = delta as u32;
    for t in tokens {
        t.start = t.start.wrapping_add(d);
    }
}

/// A node id at or after `from` moved by `d` (wrapping: a negative `d` as its two's
/// complement); `NO_PARENT` stays.
fn moved_id(id: u32, from: u32, d: u32) -> u32 {
    id.wrapping_add(if id >= from && id != NO_PARENT { d } else { 0 })
}

/// [`moved_id`] over a slice, without branches.
fn shift_ids(ids: &mut [u32], from: u32, d: i64) {
    for id in ids {
        *id = moved_id(*id, from, d as u32);
    }
}

/// Moves children entries: node ids at or after `nodes_from` by `dn`, token indexes at or
/// after `tokens_from` by `dt`. Without branches: tokens and nodes alternate unpredictably.
fn shift_children(entries: &mut [Elem], nodes_from: u32, dn: i64, tokens_from: u32, dt: i64) {
    let (dn, dt) = (dn as u32, dt as u32);
    for e in entries {
        let node = e.0 & NODE_BIT;
        let index = e.0 & !NODE_BIT;
        let (from, d) = if node != 0 {
            (nodes_from, dn)
        } else {
            (tokens_from, dt)
        };
        e.0 = index.wrapping_add(if index >= from { d } else { 0 }) | node;
    }
}

/// Elements of an array moved and shifted together: small enough that a block stays in the
/// first-level cache between its move and its shift.
const BLOCK_BYTES: usize = 16 * 1024;

/// Replaces `v[range]` by `with`, and hands the elements after it, once moved to their new
/// places, to `shift` (which renumbers what they hold), a block at a time: the tail (most of
/// the tree, for an edit early in a large file) crosses memory once, where a splice and then a
/// pass over the tail took it through twice. The same elements as `Vec::splice` and then `shift`
/// over the tail (`a_shifted_splice_equals_a_splice_then_a_shift`).
fn splice_shifted<T: Copy>(
    v: &mut Vec<T>,
    range: std::ops::Range<usize>,
    with: impl Iterator<Item = T>,
    shift: impl Fn(&mut [T]),
) {
    let with: Vec<T> = with.collect();
    let (start, end, len) = (range.start, range.end, v.len());
    let block = (BLOCK_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    match with.len().cmp(&(end - start)) {
        std::cmp::Ordering::Greater => {
            // Growing: from the end, each block to its place past the old end.
            let g = with.len() - (end - start);
            v.resize(len + g, with[0]);
            let mut b = len;
            while b > end {
                let a = b.saturating_sub(block).max(end);
                v.copy_within(a..b, a + g);
                shift(&mut v[a + g..b + g]);
                b = a;
            }
        }
        std::cmp::Ordering::Less => {
            // Shrinking: from the start, each block to its place before its old one.
            let d = (end - start) - with.len();
            let mut a = end;
            while a < len {
                let b = (a + block).min(len);
                v.copy_within(a..b, a - d);
                shift(&mut v[a - d..b - d]);
                a = b;
            }
            v.truncate(len - d);
        }
        std::cmp::Ordering::Equal => {
            for chunk in v[end..].chunks_mut(block) {
                shift(chunk);
            }
        }
    }
    v[start..start + with.len()].copy_from_slice(&with);
}

impl SyntaxTree {
    /// Replaces the top-level item `item` (a node id) by `replacement` (a tree rooted at the new
    /// item, as [`SyntaxTree::subtree`] gives) and the text by `text`; no diagnostics. In place:
    /// what precedes the item stays where it is, and ids, indexes and offsets after it move by
    /// what the replacement adds (nothing at all when it has the old item's shape and length,
    /// as when a digit is retyped).
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
        let r_tokens = replacement.tokens.len() - 1;
        let r_nodes = replacement.nodes.len();
        let delta = replacement.text.len() as i64 - range.len() as i64;
        let dt = r_tokens as i64 - (t1 - t0) as i64;
        let dn = r_nodes as i64 - (last + 1 - first) as i64;
        let dc = replacement.children.len() as i64 - (c1 - c0) as i64;
        let shift = |x: u32, d: i64| (x as i64 + d) as u32;
        // Old ids after the item's subtree move by `dn`; ids before it stay.
        let map_node = |id: u32| moved_id(id, last as u32 + 1, dn as u32);
        let new_item = (first + r_nodes - 1) as u32;
        let item_parent = map_node(self.nodes[last].parent);
        let base = range.start;

        splice_shifted(
            &mut self.tokens,
            t0..t1,
            replacement.tokens[..r_tokens].iter().map(|t| Token {
                kind: t.kind,
                start: t.start + base,
            }),
            |moved| {
                if delta != 0 {
                    shift_starts(moved, delta)
                }
            },
        );

        splice_shifted(
            &mut self.token_parent,
            t0..t1,
            replacement.token_parent[..r_tokens]
                .iter()
                .map(|&p| p + first as u32),
            |moved| {
                if dn != 0 {
                    shift_ids(moved, last as u32 + 1, dn)
                }
            },
        );
        if dn != 0 {
            shift_ids(&mut self.token_parent[..t0], last as u32 + 1, dn);
        }

        // After the item in post-order: later items, and the ancestors that contain it.
        splice_shifted(
            &mut self.nodes,
            first..last + 1,
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
            |moved| {
                if dn == 0 && dc == 0 && delta == 0 {
                    return;
                }
                for d in moved {
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
            },
        );
        if dn != 0 {
            for d in &mut self.nodes[..first] {
                d.parent = map_node(d.parent);
            }
        }

        // The old item's id becomes the new item's (`last + dn == new_item`), and later ids
        // move as it does.
        debug_assert_eq!(shift(last as u32, dn), new_item);
        splice_shifted(
            &mut self.children,
            c0..c1,
            replacement.children.iter().map(|&e| match e.as_node() {
                Some(id) => Elem::node(id as usize + first),
                None => Elem::token(e.0 as usize + t0),
            }),
            |moved| {
                if dn != 0 || dt != 0 {
                    shift_children(moved, last as u32, dn, t1 as u32, dt)
                }
            },
        );

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

    /// Replaces the top-level elements `e0..e1` (entries of the root's children: items,
    /// statements, layout), which hold the bytes `old` of the old text, by every top-level
    /// element of `piece` (a parse of the new text from `old.start`, rooted at its own
    /// `SourceFile`) and the text by `text`; no diagnostics. In place, as
    /// [`SyntaxTree::splice_item`]: what precedes stays, what follows moves.
    pub(crate) fn splice_top(
        &mut self,
        (e0, e1): (usize, usize),
        old: TextRange,
        piece: &SyntaxTree,
        text: std::sync::Arc<[u8]>,
    ) {
        let root = self.nodes.len() - 1;
        let rc = self.nodes[root].first_child as usize;
        // Post-order: the replaced elements' subtrees are the nodes `first..end`, after every
        // earlier element's.
        let entries = &self.children[rc..];
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
        let n = self.tokens.len() - 1;
        let t0 = self.tokens[..n].partition_point(|t| t.start < old.start);
        let t1 = self.tokens[..n].partition_point(|t| t.start < old.end);
        // Children lists are appended as nodes finish: the subtrees' are one run, where the
        // first node's starts (with no node replaced, where the next one's do).
        let c0 = self.nodes[first].first_child as usize;
        let c1 = match end.checked_sub(1).filter(|&l| l >= first) {
            Some(l) => (self.nodes[l].first_child + self.nodes[l].n_children) as usize,
            None => c0,
        };
        let p_root = piece.nodes.len() - 1;
        let p_tokens = piece.tokens.len() - 1;
        let p_inner = piece.nodes[p_root].first_child as usize;
        let p_top = piece.nodes[p_root].n_children as usize;
        let base = old.start;
        let delta = piece.text.len() as i64 - old.len() as i64;
        let dt = p_tokens as i64 - (t1 - t0) as i64;
        let dn = p_root as i64 - (end - first) as i64;
        let dc = p_inner as i64 - (c1 - c0) as i64;
        let shift = |x: u32, d: i64| (x as i64 + d) as u32;
        let map_node = |id: u32| moved_id(id, end as u32, dn as u32);
        let new_root = shift(root as u32, dn);
        let piece_parent = |p: u32| {
            if p as usize == p_root {
                new_root
            } else {
                p + first as u32
            }
        };
        let piece_elem = |e: &Elem| match e.as_node() {
            Some(id) => Elem::node(id as usize + first),
            None => Elem::token(e.0 as usize + t0),
        };

        splice_shifted(
            &mut self.tokens,
            t0..t1,
            piece.tokens[..p_tokens].iter().map(|t| Token {
                kind: t.kind,
                start: t.start + base,
            }),
            |moved| {
                if delta != 0 {
                    shift_starts(moved, delta)
                }
            },
        );

        // Before the run, only the root moves: its own tokens are set below.
        splice_shifted(
            &mut self.token_parent,
            t0..t1,
            piece.token_parent[..p_tokens]
                .iter()
                .map(|&p| piece_parent(p)),
            |moved| {
                if dn != 0 {
                    shift_ids(moved, end as u32, dn)
                }
            },
        );

        // After the replaced ones in post-order: later elements, and the root.
        splice_shifted(
            &mut self.nodes,
            first..end,
            piece.nodes[..p_root].iter().map(|d| NodeData {
                kind: d.kind,
                parent: piece_parent(d.parent),
                first_child: d.first_child + c0 as u32,
                n_children: d.n_children,
                range: TextRange::new(d.range.start + base, d.range.end + base),
                starts_significant: d.starts_significant,
            }),
            |moved| {
                for d in moved {
                    d.parent = map_node(d.parent);
                    d.first_child = shift(d.first_child, dc);
                    if d.range.start >= old.end {
                        d.range =
                            TextRange::new(shift(d.range.start, delta), shift(d.range.end, delta));
                    }
                }
            },
        );
        if dn != 0 {
            // Before the run, only the root's children point at it (the nodes inside earlier
            // items point at nodes before the run, which keep their ids).
            for k in 0..e0 {
                match self.children[rc + k].as_node() {
                    Some(id) => self.nodes[id as usize].parent = new_root,
                    None => self.token_parent[self.children[rc + k].0 as usize] = new_root,
                }
            }
        }

        // The subtrees' children, then (renumbered first, as old entries) the root's own.
        splice_shifted(
            &mut self.children,
            c0..c1,
            piece.children[..p_inner].iter().map(piece_elem),
            |moved| shift_children(moved, end as u32, dn, t1 as u32, dt),
        );
        let rc = shift(rc as u32, dc) as usize;
        self.children.splice(
            rc + e0..rc + e1,
            piece.children[p_inner..p_inner + p_top]
                .iter()
                .map(piece_elem),
        );

        // The root's children, range and flag, as finishing it gives them.
        let n_top = (self.nodes[new_root as usize].n_children as usize + p_top) - (e1 - e0);
        let top = &self.children[rc..rc + n_top];
        let (range, starts) = match (top.first(), top.last()) {
            (Some(&f), Some(&l)) => {
                let (start, starts) = match f.as_node() {
                    Some(id) => {
                        let d = &self.nodes[id as usize];
                        (d.range.start, d.starts_significant)
                    }
                    None => {
                        let t = self.tokens[f.0 as usize];
                        (t.start, is_significant(t.kind))
                    }
                };
                let end = match l.as_node() {
                    Some(id) => self.nodes[id as usize].range.end,
                    None => self.tokens[l.0 as usize + 1].start,
                };
                (TextRange::new(start, end), starts)
            }
            _ => (TextRange::empty(self.tokens[0].start), false),
        };
        let r = &mut self.nodes[new_root as usize];
        r.n_children = n_top as u32;
        r.range = range;
        r.starts_significant = starts;

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
    pub(crate) fn concat(
        text: std::sync::Arc<[u8]>,
        parts: Vec<SyntaxTree>,
        starts: &[u32],
    ) -> SyntaxTree {
        debug_assert_eq!(parts.len(), starts.len());
        let roots: Vec<NodeData> = parts.iter().map(|p| p.nodes[p.nodes.len() - 1]).collect();
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
            join_chunks(parts, caps.nodes, root_data, |i, d| NodeData {
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
    use super::splice_shifted;

    /// `splice_shifted` gives what a splice and then a pass over the tail give, for growing,
    /// shrinking and same-size replacements anywhere in arrays of many blocks.
    #[test]
    fn a_shifted_splice_equals_a_splice_then_a_shift() {
        let mut rng = crate::test_rng::Rng(0x2545_F491_4F6C_DD1D);
        let mut below = |n: usize| rng.below(n);
        for round in 0..300 {
            // Up to 40,000 entries: ten blocks of four-byte entries.
            let len = [0, 1, 4095, 4096, 4097, 40_000][round % 6] + below(3);
            let original: Vec<u32> = (0..len as u32).collect();
            let start = below(len + 1);
            let end = start + below(len - start + 1).min(9000);
            let n_new = below(12) + if round % 5 == 0 { 9000 } else { 0 };
            let with: Vec<u32> = (0..n_new as u32).map(|x| 1_000_000 + x).collect();
            let shift = |s: &mut [u32]| s.iter_mut().for_each(|x| *x = x.wrapping_mul(3) + 1);

            let mut want = original.clone();
            want.splice(start..end, with.iter().copied());
            shift(&mut want[start + n_new..]);
            let mut got = original.clone();
            splice_shifted(&mut got, start..end, with.iter().copied(), shift);
            assert!(
                got == want,
                "round {round}: {len} entries, {start}..{end} replaced by {n_new}"
            );
        }
    }
}
