//! Lexical path operations (voxscript.md §5.4), shared by the runtime's `path` namespace and the
//! analysis, which resolves constant paths and checks their normal form (D005).

use unicode_normalization::UnicodeNormalization;

/// `path.join(a, b)`: `b` if absolute or `a` empty, else `a/b` without doubling a `/`.
pub fn join_str(a: &str, b: &str) -> String {
    if b.starts_with('/') || a.is_empty() {
        b.to_string()
    } else if a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// `path.normalize(p)`, the steps of §5.4.
pub fn normalize_str(p: &str) -> String {
    let p: String = p.nfc().collect::<String>().replace('\\', "/");
    let absolute = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                // At the root of an absolute path `..` is dropped; otherwise it is kept.
                _ if absolute => {}
                _ => parts.push(".."),
            },
            normal => parts.push(normal),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}
