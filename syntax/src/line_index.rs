//! Byte offsets to line/column in the three units tools need: UTF-8 bytes, UTF-16 code units (LSP's
//! default) and Unicode scalar values (what the CLI and SARIF show, decisions.md 36).

use crate::text_range::TextRange;

/// How many `\n` bytes `text` holds: counted in blocks of 255 into a byte, which the compiler
/// turns into wide compares (several times faster than counting into a `usize`).
pub fn count_newlines(text: &[u8]) -> usize {
    text.chunks(255)
        .map(|c| c.iter().fold(0u8, |n, &b| n + u8::from(b == b'\n')) as usize)
        .sum()
}

/// 1-based lines of offsets asked mostly in increasing order (a rule's findings, function by
/// function): counted on from the last offset asked, so a text is counted about once and no
/// index is built; after a few steps back, an index of every line's start is built instead.
#[derive(Default)]
pub struct LineCounter {
    /// The last offset asked, and how many lines end before it.
    cursor: std::cell::Cell<(u32, u32)>,
    steps_back: std::cell::Cell<u32>,
    starts: std::cell::OnceCell<Vec<u32>>,
}

impl LineCounter {
    /// Counting again from the start this many times, it builds the index.
    const STEPS_BACK: u32 = 4;

    /// The 1-based line of `offset` in `text` (the same text on every call).
    pub fn line(&self, text: &[u8], offset: u32) -> u32 {
        if let Some(starts) = self.starts.get() {
            return starts.partition_point(|&s| s <= offset) as u32;
        }
        let offset = offset.min(text.len() as u32);
        let (mut from, mut before) = self.cursor.get();
        if offset < from {
            self.steps_back.set(self.steps_back.get() + 1);
            if self.steps_back.get() > Self::STEPS_BACK {
                let starts = self.starts.get_or_init(|| line_starts(text));
                return starts.partition_point(|&s| s <= offset) as u32;
            }
            (from, before) = (0, 0);
        }
        before += count_newlines(&text[from as usize..offset as usize]) as u32;
        self.cursor.set((offset, before));
        before + 1
    }
}

/// The byte offset where each line starts (the first line at 0; a line ends after its `\n`).
pub fn line_starts(text: &[u8]) -> Vec<u32> {
    // Counted first (a loop the compiler vectorises), so that the list is allocated once at its
    // size: grown by doubling, it would keep up to twice its lines (`vox lint` keeps one per file
    // with findings until it ends: 6 MB of which 2 were slack on the dense bench workspace), and
    // each doubling copies it.
    let lines = count_newlines(text);
    let mut starts: Vec<u32> = Vec::with_capacity(lines + 1);
    starts.push(0);
    // memchr's first call in a process asks the CPU which vector instructions it has (a dozen
    // CPUID instructions, each a trip to the hypervisor in a VM: 35 µs of a hello world's 1.6 ms
    // `vox run`); a short text is scanned a byte at a time instead.
    if text.len() < MEMCHR_FROM {
        for (i, &b) in text.iter().enumerate() {
            if b == b'\n' {
                starts.push(i as u32 + 1);
            }
        }
    } else {
        starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i as u32 + 1));
    }
    starts
}

/// From this length on, [`line_starts`] scans with memchr.
const MEMCHR_FROM: usize = 64 * 1024;

#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offset of the start of each line.
    line_starts: Vec<u32>,
    len: u32,
    /// The text, kept only when it is not all ASCII: in ASCII every unit's column is the
    /// byte's, and `vox lint` keeps an index per file with findings (not their texts).
    text: Option<std::sync::Arc<[u8]>>,
}

/// A position: 0-based line and 0-based column in the unit asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnUnit {
    Utf8,
    Utf16,
    /// Unicode scalar values.
    Char,
}

impl LineIndex {
    pub fn new(text: &[u8]) -> LineIndex {
        LineIndex {
            line_starts: line_starts(text),
            len: text.len() as u32,
            text: (!text.is_ascii()).then(|| text.into()),
        }
    }

    /// An index over a text already shared, without a copy of it (the CLI's output keeps one
    /// per file with findings).
    pub fn shared(text: std::sync::Arc<[u8]>) -> LineIndex {
        LineIndex {
            line_starts: line_starts(&text),
            len: text.len() as u32,
            text: (!text.is_ascii()).then_some(text),
        }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The line and column of `offset` (clamped to the text).
    pub fn line_col(&self, offset: u32, unit: ColumnUnit) -> LineCol {
        let offset = offset.min(self.len);
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let col = match (&self.text, unit) {
            (None, _) | (_, ColumnUnit::Utf8) => offset - start,
            (Some(text), ColumnUnit::Utf16) => {
                let prefix = &text[start as usize..offset as usize];
                String::from_utf8_lossy(prefix).encode_utf16().count() as u32
            }
            (Some(text), ColumnUnit::Char) => {
                let prefix = &text[start as usize..offset as usize];
                String::from_utf8_lossy(prefix).chars().count() as u32
            }
        };
        LineCol {
            line: line as u32,
            col,
        }
    }

    /// The byte offset of a line and column; columns past the line's end clamp to its end.
    pub fn offset(&self, pos: LineCol, unit: ColumnUnit) -> u32 {
        let Some(&start) = self.line_starts.get(pos.line as usize) else {
            return self.len;
        };
        let end = self
            .line_starts
            .get(pos.line as usize + 1)
            .map_or(self.len, |&e| e);
        let Some(text) = &self.text else {
            // ASCII: a column is a byte; the line's end is before its `\n`.
            let last = if end > start && pos.line as usize + 1 < self.line_starts.len() {
                end - 1
            } else {
                end
            };
            return start.saturating_add(pos.col).min(last);
        };
        let line = &text[start as usize..end as usize];
        let mut col = 0u32;
        let mut i = 0usize;
        while i < line.len() && col < pos.col {
            let b = line[i];
            if b == b'\n' {
                break;
            }
            let len = crate::strings::utf8_len(b).min(line.len() - i);
            let valid = std::str::from_utf8(&line[i..i + len]).ok();
            let (step, units) = match (valid, unit) {
                (_, ColumnUnit::Utf8) => (1, 1),
                (Some(s), ColumnUnit::Utf16) => {
                    (len, s.chars().next().map_or(1, |c| c.len_utf16() as u32))
                }
                (Some(_), ColumnUnit::Char) => (len, 1),
                (None, _) => (1, 1),
            };
            i += step;
            col += units;
        }
        start + i as u32
    }

    pub fn range_to_line_cols(&self, range: TextRange, unit: ColumnUnit) -> (LineCol, LineCol) {
        (
            self.line_col(range.start, unit),
            self.line_col(range.end, unit),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_lines_equal_the_index_in_any_order() {
        let mut rng = crate::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: usize| rng.below(n);
        for _ in 0..200 {
            let text: Vec<u8> = (0..next(2000))
                .map(|_| [b'a', b'\n', b'\r', b' '][next(4)])
                .collect();
            assert_eq!(
                count_newlines(&text),
                text.iter().filter(|&&b| b == b'\n').count()
            );
            let starts = line_starts(&text);
            let counter = LineCounter::default();
            // Mostly forward, with steps back (past the few it counts again for).
            let mut offset = 0usize;
            for _ in 0..60 {
                offset = match next(5) {
                    0 => next(text.len() + 2),
                    _ => offset + next(80),
                };
                let want = starts.partition_point(|&s| s as usize <= offset) as u32;
                assert_eq!(counter.line(&text, offset as u32), want, "offset {offset}");
            }
        }
    }

    #[test]
    fn short_and_long_texts_get_the_same_line_starts() {
        // Lines of ten bytes, past the length from which memchr scans: the index of each prefix
        // around that length is the byte-by-byte answer.
        let text: Vec<u8> = (0..MEMCHR_FROM + 300)
            .map(|i| if (i * 7) % 10 == 3 { b'\n' } else { b'x' })
            .collect();
        for len in [
            0,
            1,
            4,
            MEMCHR_FROM - 1,
            MEMCHR_FROM,
            MEMCHR_FROM + 1,
            text.len(),
        ] {
            let text = &text[..len];
            let want: Vec<u32> = std::iter::once(0)
                .chain((0..len).filter(|&i| text[i] == b'\n').map(|i| i as u32 + 1))
                .collect();
            assert_eq!(line_starts(text), want, "length {len}");
        }
    }

    /// The index as it was before ASCII texts were let go: the general path on any text.
    fn keeping_text(text: &[u8]) -> LineIndex {
        LineIndex {
            text: Some(text.into()),
            ..LineIndex::new(text)
        }
    }

    #[test]
    fn an_ascii_index_without_its_text_answers_as_with_it() {
        for text in [
            "",
            "\n",
            "fn main() {\n    print(1)\n}\n",
            "no newline at the end",
            "a\r\nb\r\n\r\nlast",
            "\n\n  x\n",
        ] {
            let (fast, slow) = (
                LineIndex::new(text.as_bytes()),
                keeping_text(text.as_bytes()),
            );
            assert!(fast.text.is_none());
            for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Char] {
                for offset in 0..=text.len() as u32 + 2 {
                    assert_eq!(
                        fast.line_col(offset, unit),
                        slow.line_col(offset, unit),
                        "{text:?} at {offset}"
                    );
                }
                for line in 0..fast.line_count() as u32 + 2 {
                    for col in 0..30 {
                        let pos = LineCol { line, col };
                        assert_eq!(
                            fast.offset(pos, unit),
                            slow.offset(pos, unit),
                            "{text:?} at {pos:?}"
                        );
                    }
                }
            }
        }
        // Not ASCII: the text is kept.
        assert!(LineIndex::new("é\n".as_bytes()).text.is_some());
    }
}
