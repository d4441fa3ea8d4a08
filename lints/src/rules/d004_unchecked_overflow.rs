//! D004 unchecked-overflow: an integer `+`, `-`, `*`, unary `-` or `abs` whose result the
//! interval analysis cannot keep within i64, written without `checked_*`, `wrapping_*` or
//! `saturating_*`. The interpreter stops with an error on overflow while compiled tiers wrap in
//! release builds: the same script gives different answers (decision 31 for the bounds).
//! Unsafe fix (it changes the result's type to an Option): `a.checked_add(b)`.

use super::sites::W;
use crate::{Applicability, FileCx, Finding, Fix};

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    for (_, facts, base) in cx.functions() {
        for o in &facts.overflows {
            let range = cx.abs(base, o.range);
            let what = match o.op {
                "neg" => "negation".to_string(),
                "abs" => "`abs`".to_string(),
                op => format!("`{op}`"),
            };
            let mut f = cx.finding(
                "D004",
                W,
                range,
                format!("integer {what} may overflow i64: the analysis cannot bound its operands; the interpreter stops with an error where compiled tiers wrap"),
            );
            f.help = Some(
                "bound the operands with a guard (`if n < 1000000 { … }`), or write the overflow explicitly: `checked_add` (Option), `wrapping_add`, `saturating_add`"
                    .into(),
            );
            let method = match o.op {
                "+" => Some("checked_add"),
                "-" => Some("checked_sub"),
                "*" => Some("checked_mul"),
                _ => None,
            };
            if let (Some(m), false, [a, b]) = (method, o.compound, o.operands.as_slice()) {
                let a = cx.slice(cx.abs(base, *a));
                let b = cx.slice(cx.abs(base, *b));
                let recv = if a
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
                {
                    a.to_string()
                } else {
                    format!("({a})")
                };
                let replacement = format!("{recv}.{m}({b})");
                f.fixes.push(Fix {
                    title: format!("Use `{replacement}`"),
                    applicability: Applicability::Unsafe,
                    edits: vec![cx.edit(range, replacement)],
                });
            }
            out.push(f);
        }
    }
}
