//! D005 unnormalised-path: a path reaching an `fs`/`io`/`process` path argument that is not in
//! normal form (`\`, `.` or `..` segments, `//`, a trailing `/`, text that is not NFC: decision 32
//! says exactly when `path.normalize(lit) != lit`); a path built with `+ "/"` instead of
//! `path.join`; a value from input used without `path.normalize`; and two path literals of the
//! workspace that differ only by case or Unicode normalisation (they name one file on macOS and
//! Windows, two on Linux). Safe fixes: the normalised literal; `path.normalize(…)` around input.

use unicode_normalization::UnicodeNormalization;
use vox_analysis::facts::PathShape;
use vox_syntax::TextRange;

use super::sites::W;
use crate::context::FileCx;
use crate::finding::{Applicability, Finding, Fix};

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    let collision = |lr: TextRange, lit: &str| {
        let all = super::literal_index::file_collisions(cx.db, cx.file);
        let (f0, l0, r0) = all.get(&(lr.start, lr.end))?;
        let place = if *f0 == cx.path {
            format!("line {}", cx.line(r0.start))
        } else {
            f0.display().to_string()
        };
        Some(format!("`{lit}` differs from `{l0}` ({place}) only by case or Unicode normalisation: on macOS and Windows they are the same file"))
    };
    for (_, facts, base) in cx.functions() {
        for p in &facts.paths {
            let range = cx.abs(base, p.range);
            match &p.shape {
                PathShape::Literal(lit, lr) => {
                    let lr = cx.abs(base, *lr);
                    let norm = vox_caps::lexical::normalize_str(lit);
                    if let Some(msg) = collision(lr, lit) {
                        out.push(cx.finding("D005", W, range, msg));
                    } else if norm != *lit && !p.glob {
                        let mut f = cx.finding("D005", W, range, literal_message(lit, &norm));
                        let quoted =
                            format!("\"{}\"", norm.replace('\\', "\\\\").replace('"', "\\\""));
                        f.help = Some(format!("write {quoted}").into());
                        if cx.fixes {
                            f.fixes.push(Fix {
                                title: format!("Write {quoted}").into(),
                                applicability: if may_change_file(lit) {
                                    Applicability::Unsafe
                                } else {
                                    Applicability::Safe
                                },
                                edits: vec![cx.edit(lr, quoted)],
                            });
                        }
                        out.push(f);
                    }
                }
                PathShape::SlashConcat => {
                    let mut f = cx.finding(
                        "D005",
                        W,
                        range,
                        "path built with `+` and \"/\": use `path.join`, which never doubles or drops a separator",
                    );
                    f.help = Some("write `path.join(dir, name)`".into());
                    if cx.fixes {
                        f.fixes.push(normalize_fix(cx, range));
                    }
                    out.push(f);
                }
                PathShape::Input => {
                    let mut f = cx.finding(
                        "D005",
                        W,
                        range,
                        format!(
                            "a path from input reaches `{}` without `path.normalize`",
                            p.builtin
                        ),
                    );
                    if cx.fixes {
                        f.fixes.push(normalize_fix(cx, range));
                    }
                    out.push(f);
                }
                PathShape::Other => {}
            }
        }
    }
}

/// Whether writing the normal form of `lit` can name another file (decision 52): NFC changes the
/// bytes of a name, `\\` is a file-name character on Linux, and dropping `name/..` is wrong when
/// `name` is a symlink. Dropping `.` segments, doubled and trailing `/` never changes the file.
fn may_change_file(lit: &str) -> bool {
    !lit.is_ascii() || lit.contains('\\') || lit.split('/').any(|s| s == "..")
}

/// The finding's message: for a name that is not NFC, the code points of both forms (the two
/// strings look identical when printed).
fn literal_message(lit: &str, norm: &str) -> String {
    let nfc: String = lit.nfc().collect();
    if nfc != lit {
        let first = lit
            .split('/')
            .zip(nfc.split('/'))
            .find(|(a, b)| a != b)
            .map(|(a, b)| (a.to_string(), b.to_string()));
        if let Some((a, b)) = first {
            let points = |s: &str| {
                s.chars()
                    .filter(|c| !c.is_ascii())
                    .map(|c| format!("U+{:04X}", c as u32))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            return format!(
                "path `{lit}` is not in Unicode normal form C (NFC): `{a}` has the code points {} where NFC has {}; on macOS the two name one file, on Linux two",
                points(&a),
                points(&b)
            );
        }
    }
    format!("path `{lit}` is not in normal form; it is `{norm}`")
}

/// Wraps the path expression at `range` in `path.normalize(…)`. Unsafe: `..` after a component
/// that may be a symlink makes normalising name another file (decision 52).
fn normalize_fix(cx: &FileCx<'_>, range: TextRange) -> Fix {
    let text = cx.slice(range);
    Fix {
        title: "Wrap in `path.normalize(…)`".into(),
        applicability: Applicability::Unsafe,
        edits: vec![cx.edit(range, format!("path.normalize({text})"))],
    }
}
