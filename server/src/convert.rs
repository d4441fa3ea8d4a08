//! Positions at the edge (decision 36): the analysis speaks byte offsets; the protocol speaks
//! lines and columns in the negotiated unit (UTF-8 when the client offers it, else UTF-16).
//! Documents are ropes; every conversion clamps, so no position from a client can panic.

use ropey::Rope;
use tower_lsp_server::ls_types::{Position, Range};
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
}
