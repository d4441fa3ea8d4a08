//! One-line messages: the spec pins the errors this crate builds to a single line.

/// Escapes control characters, so a path holding a newline cannot break the one-line messages
/// the spec pins, nor an escape sequence rewrite the terminal.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}
