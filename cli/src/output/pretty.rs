//! JSON written a value at a time, as it appears inside a pretty-printed document.

/// `v` pretty-printed as it appears nested `depth` spaces deep in a pretty-printed document
/// (JSON and SARIF write their documents a value at a time).
pub(super) fn indented(v: &serde_json::Value, depth: usize) -> String {
    let text = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into());
    let pad = " ".repeat(depth);
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&pad);
        out.push_str(line);
    }
    out
}
