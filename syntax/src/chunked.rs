//! Parsing a large file on several threads: the file is cut into chunks where a top-level
//! function starts, each chunk is lexed and parsed alone, and the chunks' trees are joined into
//! the tree the whole file's parse gives. Whenever a chunk says anything at all (a diagnostic,
//! or a parser not back at rest), the caller parses the whole file at once instead.
//!
//! # Where a file may be cut, and why the joined tree is the whole file's
//!
//! A cut at offset `P` needs `text[P - 1] == '\n'` and the chunk after it to start with the
//! tokens `fn`, whitespace, a name (`FnKw Whitespace Ident`: a function at column 0). Write
//! `A` for the chunk before `P` and `B` for the one after, and `b` for the index of `A`'s `Eof`
//! token.
//!
//! Lexing. The lexer has no state but its position, and it reads past a `\n` only inside a
//! string (whitespace, comments, error runs and every lookahead stop at one). So unless a
//! string spans `P`, the whole file's tokens are `A`'s (without its `Eof`) then `B`'s shifted
//! by `P`; if one does, `A` alone ends in an unterminated string: a diagnostic. A BOM is only
//! recognised at offset 0, and `B` starts with `f`. Invalid UTF-8 is a diagnostic.
//!
//! Parsing `A`. The parser is deterministic and sees the same tokens below `b` as the whole
//! parse, and the same bytes (`at_line_start` reads `text[P - 1]`, a `\n`). Both parses agree
//! up to the first time they read token `b`: `Eof` for `A` alone, the `fn` of `B` in the whole
//! file. Since `b - 1` is a newline, reading `b` means looking past a newline: newline-blind
//! lookahead (`nth_skip_nl`, `skip_newlines` and the scans that cross lines) or newline-blind
//! mode (inside brackets). Where it happens in a parse of `A` without diagnostics:
//! - the top-level loop of `source_file`, after `A`'s last item: `A` ends; the whole parse
//!   goes on with `B` (see below);
//! - lookahead for a continuation of a finished construct: `else` after an `if`, `|` before
//!   another variant (also `is_adt`'s look at the next line), `=>` after arrow parameters. `fn`
//!   and `Eof` are neither, so both parses decide the same and go on below `b`;
//! - anywhere else something is still expected: an operand after an operator or `=`, a type,
//!   a declaration after a decorator, a `{` after a header, the `}` or closing bracket of
//!   anything still open (every bracketed list stops at `Eof` and then expects its closer, a
//!   decorator's arguments stop at `Eof` and a declaration must follow them; newline-blind
//!   lookahead inside brackets reaches `b` only when the closer is missing). `A` alone then
//!   reports a diagnostic (or reported one already, which is what silences a report) and is
//!   not used.
//!
//! Parsing `B`. When `A`'s parse ends without diagnostics its parser is at rest
//! ([`Parser::at_rest`], checked: no open blocks, loops or nesting, newline-sensitive, no
//! suppression), which is the state of a fresh parser, and the whole parse is at the same point
//! of the top-level loop with token `b` next. From there it parses `B`'s tokens as `B` alone
//! does: the only look behind is `at_line_start`, true at `P` (after `\n`) as at offset 0, and
//! the builder never reaches below the item it builds. So the whole tree is `A`'s top-level
//! elements then `B`'s, under one root, which is what [`SyntaxTree::concat`] builds. The checks
//! over the whole tree (`validate`) run on the joined tree as on the whole parse.
//!
//! `syntax/tests/chunked.rs` cuts every file of the repository, and many generated ones, at
//! every candidate (and with splits inside strings, blocks and unfinished items) and compares.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use crate::kind::SyntaxKind;
use crate::lexer;
use crate::parser::Parser;
use crate::tree::SyntaxTree;
use crate::tree_builder::TreeBuilder;

/// Bytes per chunk below which another thread is not worth starting.
const MIN_CHUNK: usize = 256 * 1024;

/// The stack of a chunk's thread: as deep as the command line's parse thread, because nesting
/// up to `MAX_DEPTH` must parse the same on either.
const STACK: usize = 256 * 1024 * 1024;

/// The joined tree (whole-tree checks not run yet) and the number of chunks, when `text` is
/// large enough to be cut, the process may run on more than one core, and every chunk parsed
/// cleanly.
pub(crate) fn parse_parallel(text: &[u8]) -> Option<(SyntaxTree, usize)> {
    let chunks = threads_for(text.len());
    if chunks < 2 {
        return None;
    }
    let splits = choose(text, chunks);
    if splits.is_empty() {
        return None;
    }
    parse_chunks(text, &splits, splits.len() + 1).map(|tree| (tree, splits.len() + 1))
}

/// The size from which a text is cut into chunks (two chunks' worth of bytes).
pub(crate) const LARGE: usize = 2 * MIN_CHUNK;

/// How many chunks (and threads) a text of `len` bytes is parsed in: 1 below [`LARGE`] or on
/// one core.
pub(crate) fn threads_for(len: usize) -> usize {
    if len < LARGE {
        return 1;
    }
    (len / MIN_CHUNK).min(cores()).max(1)
}

/// Cores this process may use (`taskset` included), asked once.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Whether `p` is a place to cut: just after a newline, before `fn`, blanks and a lower-case
/// name. The tokens there are checked again once the chunk is lexed.
fn is_candidate(text: &[u8], p: usize) -> bool {
    if p == 0 || p >= text.len() || text[p - 1] != b'\n' {
        return false;
    }
    let rest = &text[p..];
    if !rest.starts_with(b"fn") {
        return false;
    }
    let blanks = rest[2..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    blanks > 0
        && rest
            .get(2 + blanks)
            .is_some_and(|&b| b.is_ascii_lowercase() || b == b'_')
}

/// The first candidate at or after `from`.
fn next_candidate(text: &[u8], from: usize) -> Option<usize> {
    let finder = memchr::memmem::Finder::new(b"\nfn");
    let mut at = from.saturating_sub(1);
    while let Some(i) = finder.find(&text[at.min(text.len())..]) {
        let p = at + i + 1;
        if p >= from && is_candidate(text, p) {
            return Some(p);
        }
        at = p;
    }
    None
}

/// Every candidate, in order.
pub(crate) fn candidates(text: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = 1;
    while let Some(p) = next_candidate(text, from) {
        out.push(p);
        from = p + 1;
    }
    out
}

/// Up to `chunks - 1` cuts, each at the first candidate after an equal share of the bytes.
fn choose(text: &[u8], chunks: usize) -> Vec<usize> {
    let mut splits: Vec<usize> = Vec::with_capacity(chunks - 1);
    for i in 1..chunks {
        let target = text.len() / chunks * i;
        let from = splits.last().map_or(target, |&s| target.max(s + 1));
        match next_candidate(text, from) {
            Some(p) => splits.push(p),
            None => break,
        }
    }
    splits
}

/// The joined tree for explicit cuts (tests); `None` when a cut is not a candidate or a chunk
/// is not clean.
pub(crate) fn parse_at(text: &[u8], splits: &[usize], threads: usize) -> Option<SyntaxTree> {
    let ordered = splits.windows(2).all(|w| w[0] < w[1]);
    if !ordered || !splits.iter().all(|&p| is_candidate(text, p)) {
        return None;
    }
    parse_chunks(text, splits, threads.max(1))
}

/// Parses the chunks between `splits` on `threads` threads (the calling one among them) and
/// joins them.
fn parse_chunks(text: &[u8], splits: &[usize], threads: usize) -> Option<SyntaxTree> {
    let mut bounds = Vec::with_capacity(splits.len() + 1);
    let mut start = 0;
    for &s in splits {
        bounds.push((start, s));
        start = s;
    }
    bounds.push((start, text.len()));
    let n = bounds.len();
    let threads = threads.min(n);
    // Worker `w` parses chunks `w`, `w + threads`, …; the first to fail stops the others. The
    // last worker then copies the text for the tree (the first one, on the calling thread,
    // has the first chunk, which takes longest: its vectors are the tree's).
    let failed = AtomicBool::new(false);
    type Done = (Vec<(usize, SyntaxTree)>, Option<std::sync::Arc<[u8]>>);
    let work = |w: usize| -> Done {
        let mut done = Vec::new();
        for (i, &(a, b)) in bounds.iter().enumerate().skip(w).step_by(threads) {
            if failed.load(Ordering::Relaxed) {
                return (done, None);
            }
            match parse_chunk(&text[a..b], i == 0, text.len()) {
                Some(tree) => done.push((i, tree)),
                None => {
                    failed.store(true, Ordering::Relaxed);
                    return (done, None);
                }
            }
        }
        let copy = (w == threads - 1 && !failed.load(Ordering::Relaxed)).then(|| text.into());
        (done, copy)
    };
    let mut parts: Vec<Option<SyntaxTree>> = (0..n).map(|_| None).collect();
    let mut copy: Option<std::sync::Arc<[u8]>> = None;
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..threads)
            .map(|w| {
                let work = &work;
                std::thread::Builder::new()
                    .stack_size(STACK)
                    .spawn_scoped(s, move || work(w))
            })
            .collect();
        let mut all = vec![work(0)];
        for (w, h) in handles.into_iter().enumerate() {
            match h {
                Ok(h) => match h.join() {
                    Ok(done) => all.push(done),
                    Err(panic) => std::panic::resume_unwind(panic),
                },
                // No thread: that worker's chunks are parsed here.
                Err(_) => all.push(work(w + 1)),
            }
        }
        for (done, text) in all {
            for (i, tree) in done {
                parts[i] = Some(tree);
            }
            copy = copy.take().or(text);
        }
    });
    if failed.into_inner() {
        return None;
    }
    let parts: Vec<SyntaxTree> = parts.into_iter().collect::<Option<_>>()?;
    let starts: Vec<u32> = bounds.iter().map(|&(a, _)| a as u32).collect();
    let text = copy.unwrap_or_else(|| text.into());
    Some(SyntaxTree::concat(text, parts, &starts))
}

/// One chunk alone: its tree (no text, offsets from the chunk's start), or `None` when it has
/// any diagnostic or does not start as a cut must (any chunk but the first). The first chunk's
/// vectors are made with room for the whole file (`whole` bytes): the others are appended to
/// them.
fn parse_chunk(text: &[u8], first: bool, whole: usize) -> Option<SyntaxTree> {
    let room = if first {
        lexer::token_capacity(whole)
    } else {
        lexer::token_capacity(text.len())
    };
    let lexed = lexer::lex_into(text, Vec::with_capacity(room));
    if !lexed.diagnostics.is_empty() {
        return None;
    }
    let builder = if first {
        // The whole file's tokens, guessed from this chunk's share, a little over: what is
        // not used is never touched, and shrinking it away later is free.
        let n = lexed.tokens.len();
        let guess = (n as f64 * whole as f64 / text.len().max(1) as f64 * 1.15) as usize + 64;
        TreeBuilder::with_room(lexed.tokens, guess)
    } else {
        let kinds: Vec<SyntaxKind> = lexed.tokens.iter().take(3).map(|t| t.kind).collect();
        if kinds != [SyntaxKind::FnKw, SyntaxKind::Whitespace, SyntaxKind::Ident] {
            return None;
        }
        TreeBuilder::new(lexed.tokens)
    };
    let mut p = Parser::with_builder(text, builder);
    p.source_file();
    if !p.at_rest() {
        return None;
    }
    let (builder, _) = p.into_parts();
    Some(builder.finish(std::sync::Arc::default(), Vec::new()))
}
