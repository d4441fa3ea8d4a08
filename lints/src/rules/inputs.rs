//! Shared by I001–I004: a finding at each call of the matching builtins, with its chain.

use super::sites::{each_site, W};
use crate::context::FileCx;
use crate::finding::Finding;

pub fn report(
    cx: &FileCx<'_>,
    out: &mut Vec<Finding>,
    code: &'static str,
    what: &'static str,
    pred: fn(&str, &str) -> bool,
) {
    each_site(
        cx,
        out,
        |s| pred(s.ns(), s.name()),
        |s, range| cx.finding(code, W, range, format!("`{}` {what}", s.builtin)),
    );
}
