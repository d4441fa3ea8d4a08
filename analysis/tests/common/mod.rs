//! Helpers the analysis's integration tests share.

/// `shown` with `base` added to each number on either side of `..`.
pub fn in_file(shown: &str, base: u32) -> String {
    let b = shown.as_bytes();
    let mut out = String::with_capacity(shown.len());
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        let word_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if !b[i].is_ascii_digit() || word_before {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if shown[i..].starts_with("..") || shown[..start].ends_with("..") {
            if let Ok(n) = shown[start..i].parse::<u32>() {
                out.push_str(&shown[copied..start]);
                out.push_str(&(n + base).to_string());
                copied = i;
            }
        }
    }
    out.push_str(&shown[copied..]);
    out
}
