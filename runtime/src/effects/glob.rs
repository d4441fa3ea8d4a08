//! `fs.glob` patterns (§5.3): `*` and `?` stay within a component, `**` spans components,
//! `[…]`/`[!…]` are classes, dotfiles match, matching is case-sensitive. Our own matcher, so these
//! rules are exactly the spec's and not a library's defaults.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// One component of a pattern.
#[derive(Debug)]
pub(super) enum Seg {
    /// `**`: zero or more directories.
    Any,
    /// A component matched against one directory entry's name.
    Name(Vec<Tok>),
}

#[derive(Debug)]
pub(super) enum Tok {
    Lit(char),
    /// `?`
    One,
    /// `*`
    Star,
    /// `[a-z_]` or, negated, `[!…]`.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Tok {
    fn matches_one(&self, c: char) -> bool {
        match self {
            Tok::Lit(l) => *l == c,
            Tok::One => true,
            Tok::Star => false,
            Tok::Class { negated, ranges } => {
                ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
            }
        }
    }
}

/// A parsed pattern: the literal directory it starts from, then what is matched beneath it.
#[derive(Debug)]
pub(super) struct Pattern {
    /// The leading components without wildcards, as written (`""` for a relative pattern that
    /// starts with a wildcard, `"/"` for one rooted at `/`). This directory is checked for
    /// listing; results are reported beneath it as written.
    pub base: String,
    pub segs: Vec<Seg>,
}

fn has_wildcard(component: &str) -> bool {
    component.contains(['*', '?', '['])
}

/// Parses a pattern; the error is the text of the `Err` value (a bad pattern is not fatal).
pub(super) fn parse(pattern: &str) -> Result<Pattern, String> {
    if pattern.is_empty() {
        return Err("invalid glob pattern: empty pattern".into());
    }
    let absolute = pattern.starts_with('/');
    let comps: Vec<&str> = pattern
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    // The base never takes the last component, so the base is a directory and at least one
    // component is matched against entries.
    let literal = comps
        .iter()
        .take(comps.len().saturating_sub(1))
        .take_while(|c| !has_wildcard(c))
        .count();
    let joined = comps[..literal].join("/");
    let base = if absolute {
        format!("/{joined}")
    } else {
        joined
    };
    let mut segs = Vec::with_capacity(comps.len() - literal);
    for comp in &comps[literal..] {
        if *comp == "**" {
            segs.push(Seg::Any);
        } else if comp.contains("**") {
            return Err(format!(
                "invalid glob pattern {pattern:?}: `**` must be a whole path component"
            ));
        } else {
            segs.push(Seg::Name(parse_component(comp, pattern)?));
        }
    }
    Ok(Pattern { base, segs })
}

fn parse_component(comp: &str, pattern: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = comp.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => toks.push(Tok::Star),
            '?' => toks.push(Tok::One),
            '[' => {
                let mut j = i + 1;
                let negated = chars.get(j) == Some(&'!');
                if negated {
                    j += 1;
                }
                let mut ranges = Vec::new();
                let mut first = true;
                loop {
                    let Some(&c) = chars.get(j) else {
                        return Err(format!(
                            "invalid glob pattern {pattern:?}: unclosed character class `[`"
                        ));
                    };
                    // `]` right after `[` or `[!` is a member, not the end.
                    if c == ']' && !first {
                        break;
                    }
                    first = false;
                    match (chars.get(j + 1), chars.get(j + 2)) {
                        (Some('-'), Some(&hi)) if hi != ']' => {
                            if hi < c {
                                return Err(format!(
                                    "invalid glob pattern {pattern:?}: range `{c}-{hi}` is reversed"
                                ));
                            }
                            ranges.push((c, hi));
                            j += 3;
                        }
                        _ => {
                            ranges.push((c, c));
                            j += 1;
                        }
                    }
                }
                toks.push(Tok::Class { negated, ranges });
                i = j;
            }
            c => toks.push(Tok::Lit(c)),
        }
        i += 1;
    }
    Ok(toks)
}

/// Whether `name` matches a component, `*` backtracking to its last position (linear space, no
/// recursion, so no pattern can blow the stack).
pub(super) fn matches(toks: &[Tok], name: &str) -> bool {
    let name: Vec<char> = name.chars().collect();
    let (mut t, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if let Some(tok) = toks.get(t) {
            if matches!(tok, Tok::Star) {
                star = Some((t, n));
                t += 1;
                continue;
            }
            if tok.matches_one(name[n]) {
                t += 1;
                n += 1;
                continue;
            }
        }
        match star {
            Some((st, sn)) => {
                t = st + 1;
                n = sn + 1;
                star = Some((st, sn + 1));
            }
            None => return false,
        }
    }
    toks[t..].iter().all(|t| matches!(t, Tok::Star))
}

/// The paths beneath `root` (the resolved base) that match `segs`, relative to it with `/`,
/// sorted by byte order. `admitted` says whether a resolved path lies under the roots: results
/// outside are dropped and symlinked directories outside are not entered. `**` does not follow
/// symlinked directories (no cycles); unreadable directories are skipped.
pub(super) fn expand(root: &Path, segs: &[Seg], admitted: &dyn Fn(&Path) -> bool) -> Vec<String> {
    let mut out = BTreeSet::new();
    // (directory on disk, its path relative to root, index of the next segment)
    let mut stack: Vec<(PathBuf, String, usize)> = vec![(root.to_path_buf(), String::new(), 0)];
    // `a/**/**/b` reaches a directory at one segment index along many routes: visit it once.
    let mut seen: HashSet<(String, usize)> = HashSet::new();
    while let Some((dir, rel, i)) = stack.pop() {
        if !seen.insert((rel.clone(), i)) {
            continue;
        }
        let Some(seg) = segs.get(i) else {
            if !rel.is_empty() {
                out.insert(rel);
            }
            continue;
        };
        let last = i + 1 == segs.len();
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let child_rel = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let path = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            match seg {
                Seg::Any => {
                    // `**` at the end matches everything beneath; elsewhere it matches zero
                    // directories (the next segment is tried here) or one more.
                    if last {
                        out.insert(child_rel.clone());
                    }
                    if ft.is_dir() {
                        stack.push((path, child_rel, i));
                    }
                }
                Seg::Name(toks) => {
                    if !matches(toks, &name) {
                        continue;
                    }
                    if last {
                        out.insert(child_rel);
                    } else if path.is_dir() && (!ft.is_symlink() || enters(&path, admitted)) {
                        stack.push((path, child_rel, i + 1));
                    }
                }
            }
        }
        if matches!(seg, Seg::Any) && !last {
            stack.push((dir, rel, i + 1));
        }
    }
    out.into_iter()
        .filter(|rel| {
            let p = root.join(rel);
            admitted(&std::fs::canonicalize(&p).unwrap_or(p))
        })
        .collect()
}

fn enters(link: &Path, admitted: &dyn Fn(&Path) -> bool) -> bool {
    std::fs::canonicalize(link).is_ok_and(|t| admitted(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pat: &str, name: &str) -> bool {
        let p = parse(pat).unwrap();
        match &p.segs[..] {
            [Seg::Name(t)] => matches(t, name),
            _ => panic!("one component expected"),
        }
    }

    #[test]
    fn component_matching() {
        assert!(m("*.txt", "a.txt"));
        assert!(m("*.txt", ".hidden.txt"));
        assert!(!m("*.txt", "a.TXT"));
        assert!(m("a?c", "abc"));
        assert!(!m("a?c", "ac"));
        assert!(m("[ab]*", "beta"));
        assert!(!m("[!ab]*", "beta"));
        assert!(m("[!ab]*", "gamma"));
        assert!(m("[a-c]x", "bx"));
        assert!(m("[]]", "]"));
        assert!(m("*a*b*", "xxaxxbxx"));
        assert!(!m("*a*b", "xxaxxbxx"));
        assert!(m("é*", "été"));
        assert!(m("*", ""));
    }

    #[test]
    fn bases_and_errors() {
        let p = parse("src/**/*.rs").unwrap();
        assert_eq!(p.base, "src");
        assert_eq!(p.segs.len(), 2);
        assert_eq!(parse("/tmp/x/*.txt").unwrap().base, "/tmp/x");
        assert_eq!(parse("*.txt").unwrap().base, "");
        assert_eq!(parse("a/b/c").unwrap().base, "a/b");
        assert_eq!(parse("./a/*").unwrap().base, "a");
        assert!(parse("[ab").unwrap_err().contains("unclosed"));
        assert!(parse("a**").unwrap_err().contains("whole path component"));
        assert!(parse("[z-a]").is_err());
        assert!(parse("").is_err());
    }
}
