//! The legacy `// vox:caps WORD...` directive (runtime.md §1.3, decision 14).
//!
//! Upstream scripts declare what they use in their first line. It is documentation, never trusted:
//! `--caps` and run configurations override it, and it is only consulted when neither is given.

use std::ops::Range;

use crate::set::CapSet;

/// The words the directive understands. `random` is ours: upstream had no random namespace, and we
/// deny randomness unless the directive names it, like every other namespace.
pub const LEGACY_WORDS: &[&str] = &[
    "agentos",
    "env",
    "fs",
    "http",
    "net",
    "process",
    "random",
    "secrets",
    "subprocess",
    "time",
];

/// A recognised directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegacyDirective {
    /// 1, or 2 when line 1 is a `#!` line.
    pub line: u32,
    /// Byte range of the directive line in the source, without its line ending, for hovers and
    /// code actions.
    pub range: Range<usize>,
    /// Every word as written, in order.
    pub words: Vec<String>,
    /// The words that are not in [`LEGACY_WORDS`], in order, each once.
    pub unknown: Vec<String>,
}

impl LegacyDirective {
    /// What the directive grants. Exhaustive: unnamed namespaces are denied.
    pub fn caps(&self) -> CapSet {
        CapSet::from_legacy_directive(&self.words)
    }

    /// One stderr line per unknown word, e.g.
    /// `vox: warning: // vox:caps ignores unknown word "fs:ro" (known: agentos, env, …)`.
    pub fn warnings(&self) -> Vec<String> {
        self.unknown
            .iter()
            .map(|word| {
                format!(
                    "vox: warning: // vox:caps ignores unknown word {word:?} (known: {})",
                    LEGACY_WORDS.join(", ")
                )
            })
            .collect()
    }
}

/// Finds the directive on line 1, or on line 2 when line 1 is a `#!` line; a directive anywhere
/// else is ignored. `source` may be the whole file: only the first two lines are read.
///
/// Leading spaces before `//`, a UTF-8 BOM and `\r\n` line endings are accepted, and words may be
/// separated by commas as well as spaces: a directive that is not recognised means the developer
/// default, which grants more, so leniency here only ever narrows.
pub fn parse_legacy_directive(source: &str) -> Option<LegacyDirective> {
    let first_end = source.find('\n');
    let first = trim_cr(&source[..first_end.unwrap_or(source.len())]);
    let (candidate, start, line) = if strip_bom(first).0.starts_with("#!") {
        let start = first_end? + 1;
        let rest = &source[start..];
        (
            trim_cr(&rest[..rest.find('\n').unwrap_or(rest.len())]),
            start,
            2,
        )
    } else {
        (first, 0, 1)
    };
    let (text, offset) = strip_bom(candidate);
    let after_slashes = text.trim_start_matches([' ', '\t']).strip_prefix("//")?;
    let rest = after_slashes
        .trim_start_matches([' ', '\t'])
        .strip_prefix("vox:caps")?;
    if !rest.is_empty() && !rest.starts_with([' ', '\t', ',']) {
        // `// vox:capsule` is some other comment.
        return None;
    }
    let words: Vec<String> = rest
        .split([' ', '\t', ','])
        .filter(|word| !word.is_empty())
        .map(str::to_string)
        .collect();
    let mut unknown: Vec<String> = Vec::new();
    for word in &words {
        if !LEGACY_WORDS.contains(&word.as_str()) && !unknown.contains(word) {
            unknown.push(word.clone());
        }
    }
    let start = start + offset;
    Some(LegacyDirective {
        line,
        range: start..start + text.len(),
        words,
        unknown,
    })
}

fn trim_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

fn strip_bom(line: &str) -> (&str, usize) {
    match line.strip_prefix('\u{feff}') {
        Some(rest) => (rest, '\u{feff}'.len_utf8()),
        None => (line, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::{EnvGrant, RandomGrant, TimeGrant};

    fn words(source: &str) -> Option<Vec<String>> {
        parse_legacy_directive(source).map(|d| d.words)
    }

    #[test]
    fn line_one() {
        let d = parse_legacy_directive("// vox:caps fs net\nfn main() {}\n").unwrap();
        assert_eq!(d.line, 1);
        assert_eq!(d.range, 0..18);
        assert_eq!(d.words, ["fs", "net"]);
        assert!(d.unknown.is_empty() && d.warnings().is_empty());
        let caps = d.caps();
        assert!(caps.fs_unscoped() && caps.net() && !caps.process());
    }

    #[test]
    fn line_two_after_shebang() {
        let src = "#!/usr/bin/env vox run\n// vox:caps process\nfn main() {}";
        let d = parse_legacy_directive(src).unwrap();
        assert_eq!(d.line, 2);
        assert_eq!(&src[d.range.clone()], "// vox:caps process");
        assert!(d.caps().process());
    }

    #[test]
    fn ignored_elsewhere() {
        assert_eq!(words("fn main() {}\n// vox:caps fs\n"), None);
        assert_eq!(words("#!/usr/bin/vox\n\n// vox:caps fs\n"), None);
        assert_eq!(words("#!/usr/bin/vox\nfn main() {}\n// vox:caps fs"), None);
        assert_eq!(words("#!/usr/bin/vox"), None);
        assert_eq!(words("#!/usr/bin/vox\n"), None);
        assert_eq!(words(""), None);
        assert_eq!(words("\n// vox:caps fs"), None);
        assert_eq!(words("// vox:capsule fs"), None);
        assert_eq!(words("/// vox:caps fs"), None);
        assert_eq!(words("# vox:caps fs"), None);
    }

    #[test]
    fn shebang_is_not_needed_for_line_one() {
        // Line 2 is considered only after a shebang; a plain comment on line 1 hides it.
        assert_eq!(words("// hello\n// vox:caps fs"), None);
    }

    #[test]
    fn spacing_bom_crlf_commas() {
        assert_eq!(words("//vox:caps fs"), Some(vec!["fs".into()]));
        assert_eq!(
            words("  //   vox:caps\tfs,  net ,env\r\nx"),
            Some(vec!["fs".into(), "net".into(), "env".into()])
        );
        let d = parse_legacy_directive("\u{feff}// vox:caps time\r\n").unwrap();
        assert_eq!(d.range, 3..19);
        assert_eq!(d.caps().time(), TimeGrant::Real);
        let d = parse_legacy_directive("\u{feff}#!/bin/vox\r\n// vox:caps env\r\n").unwrap();
        assert_eq!(d.line, 2);
        assert_eq!(d.caps().env(), EnvGrant::Rw);
    }

    #[test]
    fn empty_directive_grants_nothing() {
        let d = parse_legacy_directive("// vox:caps\n").unwrap();
        assert!(d.words.is_empty());
        assert_eq!(d.caps(), CapSet::none());
    }

    #[test]
    fn unknown_words_warn_once() {
        let d = parse_legacy_directive("// vox:caps fs FS disk disk random").unwrap();
        assert_eq!(d.unknown, ["FS", "disk"]);
        assert_eq!(
            d.warnings()[1],
            "vox: warning: // vox:caps ignores unknown word \"disk\" (known: agentos, env, fs, http, \
             net, process, random, secrets, subprocess, time)"
        );
        assert_eq!(d.caps().random(), RandomGrant::Entropy);
        assert!(d.caps().fs_unscoped());
    }

    #[test]
    fn random_denied_unless_named() {
        let d = parse_legacy_directive("// vox:caps time").unwrap();
        assert_eq!(d.caps().random(), RandomGrant::Denied);
    }

    #[test]
    fn multibyte_text_does_not_panic() {
        assert_eq!(words("#!é\n// vox:caps é"), Some(vec!["é".into()]));
        assert_eq!(words("é\u{feff}"), None);
        assert_eq!(words("#!\u{feff}"), None);
    }
}
