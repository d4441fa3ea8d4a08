//! `--format sarif`: SARIF 2.1.0 as GitHub code scanning reads it (decision 50): the rules with
//! help and `helpUri`, results with relative `artifactLocation`s under `%SRCROOT%`, stable
//! `partialFingerprints`, `codeFlows` for chains, and fixes. Written as results are rendered.

use std::path::Path;

use serde_json::{json, Value};
use vox_lints::{Finding, Severity, RULES};
use vox_syntax::TextRange;

use super::{indented, shown, Texts};

const DOCS: &str = "https://github.com/vox-lang/vox/blob/main/docs/rules";

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
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": level(f.severity),
        "message": {"text": match &f.help { Some(h) => format!("{}\n{h}", f.message), None => f.message.clone() }},
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
                "message": {"text": f.message},
            }
        }));
        r["codeFlows"] = json!([{"threadFlows": [{"locations": locs}]}]);
    }
    if !f.fixes.is_empty() {
        r["fixes"] = Value::Array(
            f.fixes
                .iter()
                .map(|x| json!({
                    "description": {"text": x.title},
                    "artifactChanges": x.edits.iter().map(|e| json!({
                        "artifactLocation": {"uri": uri(&shown(&e.file, root)), "uriBaseId": "%SRCROOT%"},
                        "replacements": [{
                            "deletedRegion": region(texts, &e.file, e.range),
                            "insertedContent": {"text": e.new_text},
                        }],
                    })).collect::<Vec<_>>(),
                }))
                .collect(),
        );
    }
    r
}

/// The log, results one at a time: the rules (each code in order of first appearance) go
/// first, then each result is rendered and written on its own, so a large run's results are
/// never all in memory as JSON. The text is what pretty-printing the whole log gives.
pub fn write(findings: &[Finding], texts: &Texts, root: &Path, emit: &mut dyn FnMut(&str)) {
    let mut ids: Vec<&str> = Vec::new();
    for f in findings {
        if !ids.contains(&f.code.as_str()) {
            ids.push(&f.code);
        }
    }
    let rules: Vec<Value> = ids.iter().map(|c| rule(c)).collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "vox",
                "informationUri": "https://github.com/vox-lang/vox",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": [],
        }],
    });
    let skeleton = serde_json::to_string_pretty(&doc).unwrap_or_default();
    // The results go between `"results": [` and its `]` (the last array the log has).
    const EMPTY: &str = "\"results\": []";
    let (Some(at), false) = (skeleton.rfind(EMPTY), findings.is_empty()) else {
        emit(&skeleton);
        emit("\n");
        return;
    };
    let line_start = skeleton[..at].rfind('\n').map_or(0, |i| i + 1);
    let depth = at - line_start;
    let open = at + EMPTY.len() - 1;
    emit(&skeleton[..open]);
    for (i, f) in findings.iter().enumerate() {
        emit(if i == 0 { "\n" } else { ",\n" });
        let index = ids.iter().position(|c| *c == f.code).unwrap_or(0);
        emit(&indented(&result(f, index, texts, root), depth + 2));
    }
    emit("\n");
    emit(&" ".repeat(depth));
    emit(&skeleton[open..]);
    emit("\n");
}
