//! `--format sarif`: SARIF 2.1.0 as GitHub code scanning reads it (decision 50): the rules with
//! help and `helpUri`, results with relative `artifactLocation`s under `%SRCROOT%`, stable
//! `partialFingerprints`, `codeFlows` for chains, and fixes. Written as results are rendered:
//! the run's `results` come before its `tool` (JSON objects are unordered; the rules list each
//! code in order of first appearance, known only after the last result).

use std::path::Path;

use serde_json::{json, Value};
use vox_lints::{Finding, Severity, REPOSITORY, RULES, RULE_DOCS as DOCS};
use vox_syntax::TextRange;

use super::pretty::indented;
use super::texts::{shown, Texts};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn region(texts: &Texts, file: &Path, r: TextRange) -> Value {
    let ((l, c), (el, ec)) = texts.range(file, r);
    json!({"startLine": l, "startColumn": c, "endLine": el, "endColumn": ec})
}

fn location(texts: &Texts, root: &Path, file: &Path, r: TextRange) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri(&shown(file, root)), "uriBaseId": "%SRCROOT%"},
            "region": region(texts, file, r),
        }
    })
}

/// A relative path as a URI reference (percent-encoding what must be).
fn uri(rel: &str) -> String {
    let mut out = String::new();
    for b in rel.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A fingerprint that survives unrelated edits: code, file, and the flagged text with its line
/// stripped of whitespace (not its line number).
fn fingerprint(f: &Finding, texts: &Texts, root: &Path) -> String {
    let text = texts.text(&f.file);
    let snippet = text
        .get(f.range.start as usize..f.range.end as usize)
        .map(|b| {
            String::from_utf8_lossy(b)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    // FNV-1a, 64 bits: stable across platforms and releases (no std hasher).
    let mut h: u64 = 0xcbf29ce484222325;
    for b in format!("{}\u{0}{}\u{0}{}", f.code, shown(&f.file, root), snippet).bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

/// The rule entry for `code`.
fn rule(code: &str) -> Value {
    let info = RULES.iter().find(|r| r.code == code);
    let (name, summary, default) = match info {
        Some(r) => (r.name.to_string(), r.summary.to_string(), r.default),
        None => (
            code.to_string(),
            format!("{code} diagnostic"),
            Severity::Error,
        ),
    };
    let help_uri = match info {
        Some(_) => format!("{DOCS}/{code}.md"),
        None => format!("{DOCS}/README.md"),
    };
    json!({
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": summary},
        "helpUri": help_uri,
        "help": {
            "text": format!("{summary} See {help_uri}"),
            "markdown": format!("{summary}\n\nSee [{code}]({help_uri}) for why it matters, a flagged example, the fix and known limits."),
        },
        "defaultConfiguration": {"level": level(default)},
    })
}

fn result(f: &Finding, rule_index: usize, texts: &Texts, root: &Path) -> Value {
    let mut r = json!({
        "ruleId": f.code.as_str(),
        "ruleIndex": rule_index,
        "level": level(f.severity),
        "message": {"text": match &f.help { Some(h) => format!("{}\n{h}", f.message), None => f.message.to_string() }},
        "locations": [location(texts, root, &f.file, f.range)],
        "partialFingerprints": {"voxFinding/v1": fingerprint(f, texts, root)},
    });
    if !f.chain.is_empty() {
        let mut locs: Vec<Value> = f
            .chain
            .iter()
            .map(|s| json!({
                "location": {
                    "physicalLocation": location(texts, root, &s.file, s.range)["physicalLocation"].clone(),
                    "message": {"text": format!("`{}` calls", s.function)},
                }
            }))
            .collect();
        locs.push(json!({
            "location": {
                "physicalLocation": location(texts, root, &f.file, f.range)["physicalLocation"].clone(),
                "message": {"text": f.message.as_str()},
            }
        }));
        r["codeFlows"] = json!([{"threadFlows": [{"locations": locs}]}]);
    }
    if !f.fixes.is_empty() {
        r["fixes"] = Value::Array(
            f.fixes
                .iter()
                .map(|x| json!({
                    "description": {"text": x.title.as_str()},
                    "artifactChanges": x.edits.iter().map(|e| json!({
                        "artifactLocation": {"uri": uri(&shown(&e.file, root)), "uriBaseId": "%SRCROOT%"},
                        "replacements": [{
                            "deletedRegion": region(texts, &e.file, e.range),
                            "insertedContent": {"text": e.new_text.as_str()},
                        }],
                    })).collect::<Vec<_>>(),
                }))
                .collect(),
        );
    }
    r
}

/// The log with `rules` and no results, and where its empty results array opens: the offset of
/// its `]` and the depth of the `"results"` key. The results come before the tool (and so before
/// its rules, which list the codes in order of first appearance): a result is written as soon as
/// it is rendered.
fn skeleton(rules: Vec<Value>) -> (String, usize, usize) {
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "columnKind": "unicodeCodePoints",
            "results": [],
            "tool": {"driver": {
                "name": "vox",
                "informationUri": REPOSITORY,
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
        }],
    });
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    const EMPTY: &str = "\"results\": []";
    let at = text.rfind(EMPTY).unwrap_or(0);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    (text, at + EMPTY.len() - 1, at - line_start)
}

/// Result number `index`; the log's text before the results comes with the first.
pub fn item(
    f: &Finding,
    index: usize,
    rule_ids: &mut Vec<String>,
    texts: &Texts,
    root: &Path,
    emit: &mut dyn FnMut(&str),
) {
    // The text before the results depends on nothing a result changes.
    static BEFORE: std::sync::OnceLock<(String, usize)> = std::sync::OnceLock::new();
    let (before, depth) = BEFORE.get_or_init(|| {
        let (mut text, open, depth) = skeleton(Vec::new());
        text.truncate(open);
        (text, depth)
    });
    if index == 0 {
        emit(before);
    }
    emit(if index == 0 { "\n" } else { ",\n" });
    let rule = match rule_ids.iter().position(|c| *c == f.code) {
        Some(i) => i,
        None => {
            rule_ids.push(f.code.to_string());
            rule_ids.len() - 1
        }
    };
    emit(&indented(&result(f, rule, texts, root), *depth + 2));
}

/// The end of the log after `written` results: the tool with its rules.
pub fn finish(written: usize, rule_ids: &[String], emit: &mut dyn FnMut(&str)) {
    let (text, open, depth) = skeleton(rule_ids.iter().map(|c| rule(c)).collect());
    if written == 0 {
        emit(&text);
    } else {
        emit("\n");
        emit(&" ".repeat(depth));
        emit(&text[open..]);
    }
    emit("\n");
}
