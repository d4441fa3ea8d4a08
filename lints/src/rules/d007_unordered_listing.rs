//! D007 unordered-listing: `fs.list_dir` and `fs.list_dir_detailed` return entries in the order
//! the operating system gives them (ext4 hash order, APFS name order, NTFS B-tree order), so a
//! script that prints or processes them in that order behaves differently between machines.
//! Sorting the listing makes it clean. Safe fix: `sorted(…)`, or for detailed listings
//! `.sorted_by_key(fn(e) { e.name })` (decision 33); on a listing not unwrapped where it is
//! called, `.map(sorted)` on the Result.

use vox_analysis::facts::OrderKind;

use vox_syntax::TextRange;

use super::order::leaks;
use super::sites::W;
use crate::context::FileCx;
use crate::finding::{Applicability, Finding, Fix};

/// The listing together with the unwrap that follows it (`?`, `.unwrap()`, `.expect(…)`,
/// `.unwrap_or(…)`), so sorting applies to the list.
fn unwrapped(cx: &FileCx<'_>, src: TextRange) -> Option<TextRange> {
    // The unwrap is on the listing's line: only that line is read (the rest of the file was
    // checked as UTF-8 once per finding).
    let after = cx.text.get(src.end as usize..)?;
    let line = after
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(after.len());
    let rest = std::str::from_utf8(&after[..line]).ok()?;
    if rest.starts_with('?') {
        return Some(TextRange::new(src.start, src.end + 1));
    }
    for open in [".unwrap(", ".expect(", ".unwrap_or("] {
        if let Some(after) = rest.strip_prefix(open) {
            let mut depth = 1usize;
            for (i, c) in after.char_indices() {
                match c {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => {
                        depth -= 1;
                        if depth == 0 {
                            let end = src.end + (open.len() + i + 1) as u32;
                            return Some(TextRange::new(src.start, end));
                        }
                    }
                    '\n' => return None,
                    _ => {}
                }
            }
            return None;
        }
    }
    None
}

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    for (src, what, _) in leaks(cx, OrderKind::Listing) {
        let text = cx.slice(src);
        let detailed = text.contains("list_dir_detailed");
        let builtin = if detailed {
            "fs.list_dir_detailed"
        } else {
            "fs.list_dir"
        };
        let mut f = cx.finding(
            "D007",
            W,
            src,
            format!("`{builtin}` returns entries in OS order, and that order reaches {what}"),
        );
        f.help = Some(if detailed {
            "sort it: `.sorted_by_key(fn(e) { e.name })`".into()
        } else {
            "sort it: `sorted(…)`".into()
        });
        if cx.fixes {
            let edit = match unwrapped(cx, src) {
                Some(whole) => {
                    let list = cx.slice(whole);
                    let replacement = if detailed {
                        format!("{list}.sorted_by_key(fn(e) {{ e.name }})")
                    } else {
                        format!("sorted({list})")
                    };
                    cx.edit(whole, replacement)
                }
                // Not unwrapped where it is called (matched on, kept in a variable): sort the
                // Result's payload, which keeps the Err case as it was.
                None => {
                    let sort = if detailed {
                        ".map(fn(es) { es.sorted_by_key(fn(e) { e.name }) })"
                    } else {
                        ".map(sorted)"
                    };
                    cx.edit(TextRange::new(src.end, src.end), sort.to_string())
                }
            };
            f.fixes.push(Fix {
                title: "Sort the listing".into(),
                applicability: Applicability::Safe,
                edits: vec![edit],
            });
        }
        out.push(f);
    }
}
