//! D004 unchecked-overflow: an integer `+`, `-`, `*`, unary `-` or `abs` whose result the
//! interval analysis cannot keep within i64, written without `checked_*`, `wrapping_*` or
//! `saturating_*`. The interpreter stops with an error on overflow while compiled tiers wrap in
//! release builds: the same script gives different answers (decision 31 for the bounds).
//! Unsafe fix (decision 52: it keeps the type, and stops the script on overflow in every tier):
//! `a.checked_add(b).expect("…")`, `v = v.checked_mul(k).expect("…")` for `v *= k`,
//! `x.checked_neg()`, `x.checked_abs()`. Unsafe because a run that overflowed used to stop with
//! the interpreter's message and now stops with the fix's.

use super::sites::W;
use crate::context::FileCx;
use crate::finding::{Applicability, Finding, Fix};

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    for (def, facts, base) in cx.functions() {
        // Asked only for a finding that depends on the parameters' bounds.
        let depends = facts.overflows.iter().any(|o| o.tiers != 0b1111);
        let tier = if depends {
            vox_analysis::param_tier(cx.db, def)
        } else {
            0
        };
        for o in &facts.overflows {
            if o.tiers & (1 << tier) == 0 {
                continue;
            }
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
            if let Some(replacement) = cx.fixes.then(|| fix_text(cx, base, o)).flatten() {
                f.fixes.push(Fix {
                    title: format!("Use `{replacement}`").into(),
                    applicability: Applicability::Unsafe,
                    edits: vec![cx.edit(range, replacement)],
                });
            }
            out.push(f);
        }
    }
}

/// A receiver as written, in parentheses unless it is a name, a literal or a call chain.
fn receiver(text: &str) -> String {
    if text
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        || (text.ends_with(')') && !text.contains(' '))
    {
        text.to_string()
    } else {
        format!("({text})")
    }
}

/// The replacement text of the operation, or `None` where no rewrite keeps the script's shape.
/// `.expect("`TEXT` overflows i64")`, naming the operation as written when it can be quoted
/// as it is (short, and nothing a string literal would interpret), else by its operator.
fn expect_call(text: &str, op: &str) -> String {
    let quotable = text.len() <= 60
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || " _.+-*()[],".contains(c));
    let shown = if quotable { text } else { op };
    format!(".expect(\"`{shown}` overflows i64\")")
}

fn fix_text(cx: &FileCx<'_>, base: u32, o: &vox_analysis::facts::Overflow) -> Option<String> {
    let expect = expect_call(cx.slice(cx.abs(base, o.range)), o.op);
    let method = match o.op {
        "+" => "checked_add",
        "-" => "checked_sub",
        "*" => "checked_mul",
        "neg" => "checked_neg",
        _ => "checked_abs",
    };
    match (o.op, o.compound, o.operands.as_slice()) {
        ("+" | "-" | "*", false, [a, b]) => {
            let a = cx.slice(cx.abs(base, *a));
            let b = cx.slice(cx.abs(base, *b));
            Some(format!("{}.{method}({b}){expect}", receiver(a)))
        }
        ("+" | "-" | "*", true, [v]) => {
            // `place op= value`: the place is what precedes the operator.
            let stmt = cx.abs(base, o.range);
            let value = cx.abs(base, *v);
            let head = cx.slice(vox_syntax::TextRange::new(stmt.start, value.start));
            let place = head.trim_end().strip_suffix('=')?.trim_end();
            let place = place.strip_suffix(['+', '-', '*'])?.trim_end();
            if place.is_empty() || !place.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let value = cx.slice(value);
            let expect = expect_call(&format!("{place} {} {value}", o.op), o.op);
            Some(format!("{place} = {place}.{method}({value}){expect}"))
        }
        ("neg" | "abs", _, [x]) => {
            let x = cx.slice(cx.abs(base, *x));
            Some(format!("{}.{method}(){expect}", receiver(x)))
        }
        _ => None,
    }
}
