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

/// The file a path names as the kernel sees it, written shorter without changing which file:
/// drops `.` segments, doubled and trailing `/`. Keeps `..` (after a symlink it leads elsewhere
/// than the lexical parent), `\` (a file-name character on Linux) and the bytes of every name
/// (no NFC). Capability inference resolves the `..` against the filesystem.
pub fn normalize_access(p: &str) -> String {
    let absolute = p.starts_with('/');
    let parts: Vec<&str> = p
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

#[cfg(test)]
mod access_tests {
    use super::normalize_access;

    #[test]
    fn keeps_what_can_change_the_file() {
        assert_eq!(normalize_access("./data//in/"), "data/in");
        assert_eq!(normalize_access("data/link/../x"), "data/link/../x");
        assert_eq!(normalize_access("a\\b.txt"), "a\\b.txt");
        assert_eq!(normalize_access("cafe\u{301}"), "cafe\u{301}");
        assert_eq!(normalize_access("/"), "/");
        assert_eq!(normalize_access("."), ".");
    }
}
