//! D002 map-iteration-order: `for k, v in m`, `m.keys()`, `m.values()`, `m.items()` where the
//! order reaches output (a print, a returned list or string, a file, an early exit, `first()`).
//! This interpreter iterates maps in insertion order, but the compiled tiers of Vox use hash maps,
//! so the same script prints a different order there (decision 7). Counting, summing, min/max,
//! membership and building another map are order-insensitive and not flagged; nor is iterating
//! sorted keys. Safe fix for `m.keys()` and `for k in m`: iterate `sorted(m.keys())`.

use vox_analysis::facts::OrderKind;
use vox_syntax::TextRange;

use super::order::leaks;
use super::sites::W;
use crate::{Applicability, FileCx, Finding, Fix};

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    for (src, what, _) in leaks(cx, OrderKind::Map) {
        let text = cx.slice(src);
        let mut f = cx.finding(
            "D002",
            W,
            src,
            format!("this map's iteration order reaches {what}; compiled tiers iterate maps in hash order"),
        );
        f.help = Some("iterate the sorted keys: `for k in sorted(m.keys())`".into());
        if let Some(fix) = sorted_keys_fix(cx, src, text) {
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
        return None;
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
