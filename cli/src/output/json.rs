//! `--format json`: one array of findings, written as they are rendered; the schema is
//! `docs/schemas/lint.schema.json`.

use std::path::Path;

use serde_json::{json, Value};
use vox_lints::{Applicability, Finding};
use vox_syntax::TextRange;

use super::pretty::indented;
use super::texts::{shown, Texts};

fn range(texts: &Texts, file: &Path, r: TextRange) -> Value {
    let ((l, c), (el, ec)) = texts.range(file, r);
    json!({
        "start": {"line": l, "column": c},
        "end": {"line": el, "column": ec},
        "offsets": {"start": r.start, "end": r.end},
    })
}

pub fn finding(f: &Finding, texts: &Texts, root: &Path) -> Value {
    json!({
        "code": f.code.as_str(),
        "severity": f.severity.as_str(),
        "message": f.message.as_str(),
        "file": shown(&f.file, root),
        "range": range(texts, &f.file, f.range),
        "help": f.help.as_deref(),
        "chain": f.chain.iter().map(|s| {
            let (l, c) = texts.pos(&s.file, s.range.start);
            json!({"function": s.function.as_str(), "file": shown(&s.file, root), "line": l, "column": c})
        }).collect::<Vec<_>>(),
        "fixes": f.fixes.iter().map(|x| json!({
            "title": x.title.as_str(),
            "applicability": match x.applicability { Applicability::Safe => "safe", Applicability::Unsafe => "unsafe" },
            "edits": x.edits.iter().map(|e| json!({
                "file": shown(&e.file, root),
                "range": range(texts, &e.file, e.range),
                "new_text": e.new_text.as_str(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// Finding number `index` of the array: the text is what `serde_json::to_string_pretty` gives
/// for the whole array, but no finding's value outlives its own lines of output.
pub fn item(f: &Finding, index: usize, texts: &Texts, root: &Path, emit: &mut dyn FnMut(&str)) {
    emit(if index == 0 { "[\n" } else { ",\n" });
    emit(&indented(&finding(f, texts, root), 2));
}

/// The end of an array of `written` findings.
pub fn finish(written: usize, emit: &mut dyn FnMut(&str)) {
    emit(if written == 0 { "[]\n" } else { "\n]\n" });
}
