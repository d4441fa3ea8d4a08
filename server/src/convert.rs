//! Positions at the edge (decision 36): the analysis speaks byte offsets; the protocol speaks
//! lines and columns in the negotiated unit (UTF-8 when the client offers it, else UTF-16).
//! Documents are ropes; every conversion clamps, so no position from a client can panic.

use ropey::Rope;
use tower_lsp_server::ls_types::{CodeActionKind, MarkupContent, MarkupKind, Position, Range};
use vox_syntax::TextRange;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// Number of chars of line `line` without its line break.
fn line_len_chars(rope: &Rope, line: usize) -> usize {
    let slice = rope.line(line);
    let mut n = slice.len_chars();
    if n > 0 && slice.char(n - 1) == '\n' {
        n -= 1;
        if n > 0 && slice.char(n - 1) == '\r' {
            n -= 1;
        }
    } else if n > 0 && slice.char(n - 1) == '\r' {
        n -= 1;
    }
    n
}

/// The byte offset of a protocol position; past the end of a line clamps to the line's end, past
/// the last line to the end of the text.
pub fn offset(rope: &Rope, enc: Encoding, pos: Position) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let start_char = rope.line_to_char(line);
    let len = line_len_chars(rope, line);
    let end_char = start_char + len;
    let ch = match enc {
        Encoding::Utf8 => {
            let start_byte = rope.char_to_byte(start_char);
            let end_byte = rope.char_to_byte(end_char);
            let b = (start_byte + pos.character as usize).min(end_byte);
            // Inside a character: its start.
            rope.byte_to_char(b)
        }
        Encoding::Utf16 => {
            let start_cu = rope.char_to_utf16_cu(start_char);
            let end_cu = rope.char_to_utf16_cu(end_char);
            let cu = (start_cu + pos.character as usize).min(end_cu);
            rope.utf16_cu_to_char(cu)
        }
    };
    rope.char_to_byte(ch.min(end_char))
}

/// The protocol position of a byte offset (clamped to the text; inside a character, its start).
pub fn position(rope: &Rope, enc: Encoding, byte: u32) -> Position {
    let b = (byte as usize).min(rope.len_bytes());
    let ch = rope.byte_to_char(b);
    let line = rope.char_to_line(ch);
    let start_char = rope.line_to_char(line);
    let col = match enc {
        Encoding::Utf8 => rope.char_to_byte(ch) - rope.char_to_byte(start_char),
        Encoding::Utf16 => rope.char_to_utf16_cu(ch) - rope.char_to_utf16_cu(start_char),
    };
    Position::new(line as u32, col as u32)
}

pub fn range(rope: &Rope, enc: Encoding, r: TextRange) -> Range {
    Range::new(position(rope, enc, r.start), position(rope, enc, r.end))
}

/// The byte range of a protocol range (start and end ordered).
pub fn text_range(rope: &Rope, enc: Encoding, r: Range) -> TextRange {
    let a = offset(rope, enc, r.start) as u32;
    let b = offset(rope, enc, r.end) as u32;
    TextRange::new(a.min(b), a.max(b))
}

/// Bytes per block of [`TextIndex`]'s UTF-16 checkpoints: a column costs at most one block's
/// scan, and nothing on ASCII blocks.
const BLOCK: usize = 4096;

/// Byte offsets of one text to protocol positions, for requests that convert many (semantic
/// tokens, symbols, folding). Built in one pass over the text; a lookup is a binary search over
/// the line starts (skipped when the offset lies on the line of the previous lookup or the next
/// one, as it does for offsets in increasing order) and, for a UTF-16 column, a difference of two
/// checkpoint counts, scanning at most one non-ASCII block. Lines end after `\n`, `\r\n` or a
/// lone `\r`, as in the document's rope.
pub struct TextIndex<'t> {
    text: &'t [u8],
    line_starts: Vec<u32>,
    /// UTF-16 code units of the characters starting before each block.
    block_units: Vec<u32>,
    block_ascii: Vec<bool>,
    last_line: std::cell::Cell<usize>,
}

impl<'t> TextIndex<'t> {
    pub fn new(text: &'t [u8]) -> TextIndex<'t> {
        let mut line_starts = vec![0u32];
        for i in memchr::memchr2_iter(b'\n', b'\r', text) {
            if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
                continue;
            }
            line_starts.push(i as u32 + 1);
        }
        let blocks = text.len() / BLOCK + 1;
        let mut block_units = Vec::with_capacity(blocks);
        let mut block_ascii = Vec::with_capacity(blocks);
        let mut units = 0u32;
        for chunk in text.chunks(BLOCK) {
            block_units.push(units);
            let ascii = chunk.is_ascii();
            block_ascii.push(ascii);
            units += if ascii {
                chunk.len() as u32
            } else {
                utf16_units(chunk)
            };
        }
        block_units.push(units);
        block_ascii.push(true);
        crate::work::add((line_starts.len() + blocks) as u64);
        TextIndex {
            text,
            line_starts,
            block_units,
            block_ascii,
            last_line: std::cell::Cell::new(0),
        }
    }

    /// The line holding `offset` (already clamped).
    fn line_of(&self, offset: u32) -> usize {
        let ls = &self.line_starts;
        let on = |l: usize| ls[l] <= offset && ls.get(l + 1).is_none_or(|&next| offset < next);
        let hint = self.last_line.get();
        crate::work::add(1);
        let line = if on(hint) {
            hint
        } else if hint + 1 < ls.len() && on(hint + 1) {
            hint + 1
        } else {
            ls.partition_point(|&s| s <= offset) - 1
        };
        self.last_line.set(line);
        line
    }

    /// UTF-16 code units of the characters starting before `offset`.
    fn units(&self, offset: usize) -> u32 {
        let b = offset / BLOCK;
        let start = b * BLOCK;
        if self.block_ascii[b] {
            return self.block_units[b] + (offset - start) as u32;
        }
        crate::work::add((offset - start) as u64);
        self.block_units[b] + utf16_units(&self.text[start..offset])
    }

    /// The protocol position of a byte offset (clamped to the text; inside a character, its
    /// start).
    pub fn position(&self, enc: Encoding, byte: u32) -> Position {
        let mut b = (byte as usize).min(self.text.len());
        while b > 0 && b < self.text.len() && self.text[b] & 0xC0 == 0x80 {
            b -= 1;
        }
        let line = self.line_of(b as u32);
        let start = self.line_starts[line] as usize;
        let col = match enc {
            Encoding::Utf8 => (b - start) as u32,
            Encoding::Utf16 => self.units(b) - self.units(start),
        };
        Position::new(line as u32, col)
    }

    /// The 0-based line of a byte offset.
    pub fn line(&self, byte: u32) -> u32 {
        self.line_of(byte.min(self.text.len() as u32)) as u32
    }

    pub fn range(&self, enc: Encoding, r: TextRange) -> Range {
        Range::new(self.position(enc, r.start), self.position(enc, r.end))
    }
}

/// UTF-16 code units of the characters starting in `bytes` (a byte that starts no valid
/// sequence counts as one character, as its replacement does).
fn utf16_units(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .map(|&c| match c {
            0x80..=0xBF => 0,
            0xF0..=0xFF => 2,
            _ => 1,
        })
        .sum()
}

/// 1-based line and column in Unicode scalars (what configuration errors and run events give)
/// to a byte offset.
pub fn offset_of_line_col(rope: &Rope, line: u32, column: u32) -> usize {
    let line = line.saturating_sub(1) as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let start = rope.line_to_char(line);
    let len = line_len_chars(rope, line);
    let ch = start + (column.saturating_sub(1) as usize).min(len);
    rope.char_to_byte(ch)
}

/// A rope of a file's bytes (invalid UTF-8 replaced: such files only come from disk).
pub fn rope_of(bytes: &[u8]) -> Rope {
    match std::str::from_utf8(bytes) {
        Ok(s) => Rope::from_str(s),
        Err(_) => Rope::from_str(&String::from_utf8_lossy(bytes)),
    }
}

/// Whether `kind` is wanted by `only` (the request's `context.only`): kinds are hierarchical,
/// so `refactor` admits `refactor.rewrite` and `source` admits `source.fixAll.vox`.
pub(crate) fn admits(only: Option<&[CodeActionKind]>, kind: &str) -> bool {
    only.is_none_or(|o| {
        o.iter()
            .any(|w| kind == w.as_str() || kind.starts_with(&format!("{}.", w.as_str())))
    })
}

/// Markdown as plain text, for a client whose `contentFormat`/`documentationFormat` lacks
/// markdown: code fences go (their lines stay), and so do inline code marks and emphasis.
pub(crate) fn plain_markup(m: &MarkupContent) -> MarkupContent {
    if m.kind == MarkupKind::PlainText {
        return m.clone();
    }
    let mut out = String::with_capacity(m.value.len());
    for line in m.value.lines() {
        if line.trim_start().starts_with("```") {
            continue;
        }
        out.push_str(&line.replace("**", "").replace('`', ""));
        out.push('\n');
    }
    while out.ends_with('\n') {
        out.pop();
    }
    MarkupContent {
        kind: MarkupKind::PlainText,
        value: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_clamps() {
        let rope = Rope::from_str("a\u{e9}\u{1f600}b\r\nxyz\rq");
        for enc in [Encoding::Utf8, Encoding::Utf16] {
            for b in 0..=rope.len_bytes() as u32 {
                let p = position(&rope, enc, b);
                let back = offset(&rope, enc, p);
                assert!(back <= b as usize);
            }
            assert_eq!(offset(&rope, enc, Position::new(99, 0)), rope.len_bytes());
            assert_eq!(
                offset(&rope, enc, Position::new(0, 999)),
                "a\u{e9}\u{1f600}b".len()
            );
        }
        assert_eq!(position(&rope, Encoding::Utf16, 3), Position::new(0, 2));
        assert_eq!(position(&rope, Encoding::Utf8, 7), Position::new(0, 7));
        assert_eq!(position(&rope, Encoding::Utf16, 7), Position::new(0, 4));
        assert_eq!(position(&rope, Encoding::Utf8, 14), Position::new(2, 0));
        assert_eq!(position(&rope, Encoding::Utf8, 15), Position::new(2, 1));
    }

    /// The index agrees with the rope at every offset, in order and out of order, across
    /// block boundaries and every kind of line end.
    #[test]
    fn text_index_agrees_with_the_rope() {
        let mut text = String::new();
        for i in 0..3000 {
            match i % 7 {
                0 => text.push_str("let x = \u{e9}t\u{e9}\n"),
                1 => text.push_str("\u{1f600} emoji\r\n"),
                2 => text.push_str("plain ascii line\r"),
                3 => text.push_str(&"a".repeat(i % 5000)),
                _ => text.push_str("fn f() { return 1 }\n"),
            }
        }
        let rope = Rope::from_str(&text);
        let index = TextIndex::new(text.as_bytes());
        for enc in [Encoding::Utf8, Encoding::Utf16] {
            let forward: Vec<u32> = (0..=text.len() as u32).step_by(7).collect();
            let mut backward = forward.clone();
            backward.reverse();
            for b in forward.into_iter().chain(backward) {
                assert_eq!(
                    index.position(enc, b),
                    position(&rope, enc, b),
                    "{enc:?} at {b}"
                );
            }
        }
    }
}
