//! Positions and message text in configuration files: line and column of an offset, the byte
//! order mark, one-line messages.

/// 1-based line and column (in Unicode scalars) of byte `offset` in `text`; an offset inside a
/// character counts from that character, one past the end from the end.
pub(crate) fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    (line, col)
}

/// The text without a leading byte order mark: positions are reported as editors show them.
pub(crate) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Escapes control characters so a message stays on one line.
pub(crate) fn one_line(text: &str) -> String {
    crate::one_line::one_line(&text.replace('\n', "; "))
}
