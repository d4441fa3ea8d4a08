//! D001 transcendental-outside-libm: a float method such as `x.sin()`, `x.exp()` or
//! `x.powf(y)` uses the host's math library (Rust `f64` methods, glibc/musl/macOS libm), whose
//! last bits differ between machines. `math.*` is the portable libm, bit-identical everywhere.
//! Exact operations (`sqrt`, `floor`, `abs`, …) are not flagged. Safe fix: the `math.*` form.

use crate::context::FileCx;
use crate::finding::{Applicability, Finding, Fix};

use super::sites::W;

/// The `math` function for a host method, and whether the receiver comes first.
fn portable(method: &str) -> Option<&'static str> {
    Some(match method {
        "sin" => "sin",
        "cos" => "cos",
        "tan" => "tan",
        "asin" => "asin",
        "acos" => "acos",
        "atan" => "atan",
        "sinh" => "sinh",
        "cosh" => "cosh",
        "tanh" => "tanh",
        "asinh" => "asinh",
        "acosh" => "acosh",
        "atanh" => "atanh",
        "exp" => "exp",
        "exp2" => "exp2",
        "exp_m1" => "expm1",
        "ln" => "ln",
        "log2" => "log2",
        "log10" => "log10",
        "ln_1p" => "log1p",
        "cbrt" => "cbrt",
        "log" => "log",
        "powf" | "powi" => "pow",
        "hypot" => "hypot",
        "atan2" => "atan2",
        _ => return None,
    })
}

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    for (_, facts, base) in cx.functions() {
        for h in &facts.host_math {
            let Some(name) = portable(&h.method) else {
                continue;
            };
            let range = cx.abs(base, h.range);
            // The help, "use the portable libm: `math.NAME(recv, args…)`", written piece by piece
            // (one per finding); the replacement is the part between the backquotes.
            const LEAD: &str = "use the portable libm: `";
            let mut help = String::with_capacity(
                LEAD.len() + 16 + h.recv.end.saturating_sub(h.recv.start) as usize,
            );
            help.push_str(LEAD);
            help.push_str("math.");
            help.push_str(name);
            help.push('(');
            help.push_str(cx.slice(cx.abs(base, h.recv)));
            for a in &h.args {
                help.push_str(", ");
                help.push_str(cx.slice(cx.abs(base, *a)));
            }
            help.push_str(")`");
            let mut f = cx.finding(
                "D001",
                W,
                range,
                format!(
                    "`.{}()` uses the host's math library: its result can differ between machines",
                    h.method
                ),
            );
            if cx.fixes {
                let replacement = &help[LEAD.len()..help.len() - 1];
                f.fixes.push(Fix {
                    title: format!("Use `{replacement}`").into(),
                    applicability: Applicability::Safe,
                    edits: vec![cx.edit(range, replacement)],
                });
            }
            f.help = Some(help.into());
            out.push(f);
        }
    }
}
