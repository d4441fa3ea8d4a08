//! Suppressions (analysis.md §3): `// vox:allow(D003): reason` at the end of the flagged line or
//! on the line before it, `// vox:allow-file(D002): reason` in the file's leading comment block.
//! The reason is mandatory (L001 otherwise, and the comment suppresses nothing); a suppression
//! that suppresses nothing is L002, with a fix that deletes it.

use vox_syntax::TextRange;

use crate::context::FileCx;
use crate::finding::Held;
use crate::finding::{Applicability, Fix};
use crate::options::LintOptions;

pub(crate) struct Suppression {
    pub codes: Vec<String>,
    pub file_wide: bool,
    /// The comment token.
    pub range: TextRange,
    /// 1-based line the suppression applies to (the comment's own line for a trailing comment,
    /// the next line for a comment standing alone).
    pub line: u32,
    pub has_reason: bool,
    /// A `vox:allow-file` after code (it suppresses nothing there).
    pub misplaced: bool,
    /// Whether the comment stands alone on its line (then deleting it deletes the line).
    pub alone: bool,
    pub used: bool,
}

/// Parses `vox:allow(A, B): reason` / `vox:allow-file(…): reason` from a comment's text.
fn parse(comment: &str) -> Option<(bool, Vec<String>, bool)> {
    let body = comment.strip_prefix("//")?.trim_start();
    let (file_wide, rest) = if let Some(r) = body.strip_prefix("vox:allow-file(") {
        (true, r)
    } else if let Some(r) = body.strip_prefix("vox:allow(") {
        (false, r)
    } else {
        return None;
    };
    let close = rest.find(')')?;
    let codes: Vec<String> = rest[..close]
        .split(',')
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect();
    let after = rest[close + 1..].trim_start();
    let has_reason = after
        .strip_prefix(':')
        .is_some_and(|r| !r.trim().is_empty());
    Some((file_wide, codes, has_reason))
}

pub(crate) fn collect(cx: &FileCx<'_>) -> Vec<Suppression> {
    let mut out = Vec::new();
    for &(range, leading) in &cx.syntax.allow_comments {
        let text = cx.slice(range);
        let Some((file_wide, codes, has_reason)) = parse(text) else {
            continue;
        };
        let line = cx.line(range.start);
        let line_start = cx.text[..range.start as usize]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let alone = cx.text[line_start..range.start as usize]
            .iter()
            .all(|b| *b == b' ' || *b == b'\t');
        // Only the leading comment block may hold file-wide suppressions.
        let misplaced = file_wide && !leading;
        out.push(Suppression {
            codes,
            file_wide,
            range,
            line: if alone && !file_wide { line + 1 } else { line },
            has_reason,
            misplaced,
            alone,
            used: false,
        });
    }
    out
}

fn covers(s: &Suppression, code: &str) -> bool {
    s.codes.iter().any(|c| code.starts_with(c.as_str()))
}

/// Drops suppressed findings of this file (`sups`: [`collect`]'s) and adds L001/L002.
pub(crate) fn apply<T: Held>(
    cx: &FileCx<'_>,
    findings: Vec<T>,
    opts: &LintOptions,
    mut sups: Vec<Suppression>,
) -> Vec<T> {
    if sups.is_empty() {
        return findings;
    }
    let mut kept = Vec::with_capacity(findings.len());
    for held in findings {
        let f = held.finding();
        let mut suppressed = false;
        if f.file == cx.path && !f.code.starts_with("syntax.") {
            let line = cx.line(held.range().start);
            for s in sups.iter_mut() {
                if s.has_reason
                    && !s.misplaced
                    && covers(s, &f.code)
                    && (s.file_wide || s.line == line)
                {
                    s.used = true;
                    suppressed = true;
                }
            }
        }
        if !suppressed {
            kept.push(held);
        }
    }
    for s in &sups {
        // A misplaced `allow-file` has its reason: it is unused (L002), not unexplained (L001).
        if s.misplaced && s.has_reason && opts.enabled("L002") {
            let mut f = cx.finding(
                "L002",
                vox_syntax::Severity::Warning,
                s.range,
                "`vox:allow-file` after code suppresses nothing: a file-wide suppression must sit in the file's leading comment block".to_string(),
            );
            f.help = Some(
                "move it above the first line of code, or write `vox:allow(…)` on the line before the finding"
                    .into(),
            );
            kept.push(f.into());
        } else if !s.has_reason && opts.enabled("L001") {
            let mut f = cx.finding(
                "L001",
                vox_syntax::Severity::Warning,
                s.range,
                if s.file_wide && !s.used && s.line == 0 {
                    "this suppression has no reason, so it suppresses nothing".to_string()
                } else {
                    "this suppression has no reason, so it suppresses nothing: write why after a colon, e.g. `// vox:allow(D003): the report is dated on purpose`".to_string()
                },
            );
            f.help =
                Some("a file-wide `vox:allow-file` must sit in the leading comment block".into());
            if !s.file_wide {
                f.help = None;
            }
            kept.push(f.into());
        } else if s.has_reason && !s.used && opts.enabled("L002") {
            let mut f = cx.finding(
                "L002",
                vox_syntax::Severity::Warning,
                s.range,
                format!(
                    "this suppression of {} suppresses nothing",
                    s.codes.join(", ")
                ),
            );
            let del = if s.alone {
                let start = cx.text[..s.range.start as usize]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1) as u32;
                let end = cx.text[s.range.end as usize..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(cx.text.len() as u32, |p| s.range.end + p as u32 + 1);
                TextRange::new(start, end)
            } else {
                let mut start = s.range.start;
                while start > 0 && matches!(cx.text[start as usize - 1], b' ' | b'\t') {
                    start -= 1;
                }
                TextRange::new(start, s.range.end)
            };
            f.fixes.push(Fix {
                title: "Remove the unused suppression".into(),
                applicability: Applicability::Safe,
                edits: vec![cx.edit(del, "")],
            });
            kept.push(f.into());
        }
    }
    kept
}
