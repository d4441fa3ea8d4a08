//! D002 map-iteration-order: `for k, v in m`, `m.keys()`, `m.values()`, `m.items()` where the
//! order reaches output (a print, a returned list or string, a file, an early exit, `first()`).
//! This interpreter iterates maps in insertion order, but the compiled tiers of Vox use hash maps,
//! so the same script prints a different order there (decision 7). Counting, summing, min/max,
//! membership and building another map are order-insensitive and not flagged; nor is iterating
//! sorted keys. Safe fix for `m.keys()` and `for k in m`: iterate `sorted(m.keys())`; for
//! `for k, v in m {`, iterate the sorted keys and bind `let v = m[k].unwrap()` first in the body.

use vox_analysis::facts::OrderKind;
use vox_syntax::TextRange;

use super::order::leaks;
use super::sites::W;
use crate::context::FileCx;
use crate::finding::{Applicability, Finding, Fix};

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    for (src, what, _) in leaks(cx, OrderKind::Map) {
        let text = cx.slice(src);
        let mut f = cx.finding(
            "D002",
            W,
            src,
            format!("this map's iteration order reaches {what}; compiled tiers iterate maps in hash order"),
        );
        f.help = Some(match map_name(text) {
            Some(m) => format!("iterate the sorted keys: `for k in sorted({m}.keys())`").into(),
            None => "iterate the sorted keys: `for k in sorted(m.keys())`".into(),
        });
        if let Some(fix) = cx.fixes.then(|| sorted_keys_fix(cx, src, text)).flatten() {
            f.fixes.push(fix);
        }
        out.push(f);
    }
}

/// `m.keys()` → `sorted(m.keys())`; `for k in m {` → `for k in sorted(m.keys()) {`.
fn sorted_keys_fix(cx: &FileCx<'_>, src: TextRange, text: &str) -> Option<Fix> {
    if text.ends_with(".keys()") && !text.contains('\n') {
        return Some(Fix {
            title: "Iterate sorted keys".into(),
            applicability: Applicability::Safe,
            edits: vec![cx.edit(src, format!("sorted({text})"))],
        });
    }
    let rest = text.strip_prefix("for ")?;
    let (binding, after) = rest.split_once(" in ")?;
    if binding.contains(',') {
        return key_value_fix(cx, src, text, binding, after);
    }
    let brace = after.find('{')?;
    let iter = after[..brace].trim();
    if iter.is_empty() || iter.contains('\n') {
        return None;
    }
    let start = src.start + 4 + binding.len() as u32 + 4;
    let iter_off = after.find(iter)? as u32;
    let range = TextRange::new(start + iter_off, start + iter_off + iter.len() as u32);
    Some(Fix {
        title: "Iterate sorted keys".into(),
        applicability: Applicability::Safe,
        edits: vec![cx.edit(range, format!("sorted({iter}.keys())"))],
    })
}

/// The map a finding's source names, when it is a plain name or field chain: `m.keys()`,
/// `for k in cfg.env {`.
fn map_name(text: &str) -> Option<&str> {
    let name = if let Some(m) = text.strip_suffix(".keys()") {
        m
    } else if let Some(m) = text.strip_suffix(".values()") {
        m
    } else {
        let rest = text.strip_prefix("for ")?;
        let (_, after) = rest.split_once(" in ")?;
        after[..after.find('{')?].trim()
    };
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    plain.then_some(name)
}

/// `for k, v in m {` (the brace ending its line) → `for k in sorted(m.keys()) {` with
/// `let v = m[k].unwrap()` as the body's first line. Only for a plain map name: it is read twice.
fn key_value_fix(
    cx: &FileCx<'_>,
    src: TextRange,
    text: &str,
    binding: &str,
    after: &str,
) -> Option<Fix> {
    let (k, v) = binding.split_once(',')?;
    let (k, v) = (k.trim(), v.trim());
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !ident(k) || !ident(v) || v == "_" {
        return None;
    }
    // `for _, v in m`: the key is read (`m[key]`), so it needs a name, one the loop does not
    // use (so it shadows nothing the body reads).
    let fresh;
    let k = if k == "_" {
        fresh = fresh_name(text)?;
        fresh.as_str()
    } else {
        k
    };
    let brace = after.find('{')?;
    let map = after[..brace].trim();
    if map_name(text) != Some(map) {
        return None;
    }
    // The body must start on the next line, whose indentation the new line takes; a comment
    // after the `{` stays on the `for` line.
    let head_len = 4 + binding.len() + 4 + brace + 1;
    let rest = &text[head_len..];
    let nl = rest.find('\n')?;
    let tail = &rest[..nl];
    if !(tail.trim().is_empty() || tail.trim_start().starts_with("//")) {
        return None;
    }
    let indent: String = rest[nl + 1..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    if indent.is_empty() {
        return None;
    }
    let head = TextRange::new(src.start, src.start + (head_len + nl) as u32);
    Some(Fix {
        title: "Iterate sorted keys".into(),
        applicability: Applicability::Safe,
        edits: vec![cx.edit(
            head,
            format!(
                "for {k} in sorted({map}.keys()) {{{tail}\n{indent}let {v} = {map}[{k}].unwrap()"
            ),
        )],
    })
}

/// `key`, `key_2`, `key_3`, …: the first that is no word of `text`.
fn fresh_name(text: &str) -> Option<String> {
    let words: std::collections::HashSet<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .collect();
    (1..100)
        .map(|i| {
            if i == 1 {
                "key".to_string()
            } else {
                format!("key_{i}")
            }
        })
        .find(|n| !words.contains(n.as_str()))
}
