//! Edits for the code actions and `vox caps --write`: pure functions from old text to new text
//! that keep every comment, blank line and layout choice outside what they change.
//!
//! Changing an existing `caps` list splices new text over the old list only, reusing the line
//! (and comments) of every token that stays. Adding a key or an entry inserts text; nothing else
//! is rewritten. Every result is parsed again before it is returned: an edit never hands back a
//! broken file.

use std::ops::Range;
use std::path::{Component, Path};

use jsonc_parser::ast::{Object, Value as JsonValue};
use jsonc_parser::common::Ranged;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use toml_edit::{Document, Item, Key, Value};

use super::locator::{syntax_error, type_name, value_span, Locator};
use super::types::{ConfigError, ConfigKind, ConfigSection};
use super::vscode::{self, shape, Shape};

/// The name for a new run configuration of `script`: its file stem, with `-2`, `-3`, … when
/// that name is taken (decision 15).
pub fn entry_name_for(script: &Path, existing: &[String]) -> String {
    let stem = script
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "script".to_string());
    if !existing.contains(&stem) {
        return stem;
    }
    (2usize..)
        .map(|n| format!("{stem}-{n}"))
        .find(|name| !existing.contains(name))
        .unwrap_or(stem)
}

/// Sets `caps` of `[run.<entry>]` in `Vox.toml` text, or adds the entry (`script`, `caps`) at the
/// end of the file.
pub fn set_caps_vox_toml(
    text: &str,
    entry: &str,
    script_rel: &str,
    caps: &[String],
) -> Result<String, ConfigError> {
    let (bom, body) = split_bom(text);
    let path = Path::new("Vox.toml");
    let loc = Locator { text: body, path };
    let doc = Document::parse(body).map_err(|e| syntax_error(&loc, &e))?;
    let nl = newline(body);
    let root = doc.as_table();
    let new_body = match root.get("run") {
        None => append_toml_entry(body, entry, script_rel, caps, nl),
        Some(run_item) => {
            let Some(run) = run_item.as_table_like() else {
                return Err(loc.err(
                    value_span(root, "run"),
                    format!(
                        "`run` is {}; write run configurations as [run.NAME] tables so vox can edit them",
                        type_name(run_item)
                    ),
                ));
            };
            match run.get(entry) {
                Some(item) => {
                    let Some(table) = item.as_table_like() else {
                        return Err(loc.err(
                            value_span(run, entry),
                            format!(
                                "`run.{entry}` is {}; write it as a table: [run.{entry}] with script = \"{script_rel}\"",
                                type_name(item)
                            ),
                        ));
                    };
                    match table.get("caps") {
                        Some(Item::Value(Value::Array(old))) => {
                            let Some(span) = old.span() else {
                                return Err(internal(path, "the old caps list has no location"));
                            };
                            let elems = old
                                .iter()
                                .map(|v| (v.as_str().map(str::to_string), v.span().unwrap_or(0..0)))
                                .collect();
                            let old = OldArray { range: span, elems };
                            if old.strings() == caps {
                                return Ok(text.to_string());
                            }
                            splice(body, old.range.clone(), &render_array(body, &old, caps, toml_string, nl))
                        }
                        Some(other) => {
                            let Some(span) = other.span() else {
                                return Err(internal(path, "the old caps value has no location"));
                            };
                            splice(body, span, &single_line(caps, toml_string))
                        }
                        None => insert_toml_caps(&loc, item, table, caps, nl)?,
                    }
                }
                None if matches!(run_item, Item::Table(_)) => {
                    append_toml_entry(body, entry, script_rel, caps, nl)
                }
                None => {
                    return Err(loc.err(
                        value_span(root, "run"),
                        format!("`run` is written inline; write its entries as [run.NAME] tables so vox can add [run.{entry}]"),
                    ))
                }
            }
        }
    };
    // Never hand back a broken file.
    let check = Document::parse(new_body.as_str()).ok().and_then(|d| {
        let caps_item = d
            .as_table()
            .get("run")?
            .as_table_like()?
            .get(entry)?
            .as_table_like()?
            .get("caps")?
            .as_array()?
            .clone();
        Some(
            caps_item
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Vec<_>>(),
        )
    });
    let want: Vec<Option<String>> = caps.iter().cloned().map(Some).collect();
    if check.as_ref() != Some(&want) {
        return Err(internal(path, "the edit did not give the expected file"));
    }
    Ok(format!("{bom}{new_body}"))
}

/// Sets `caps` of the `"type": "vox"` task whose `script` is `script_rel` in `.vscode/tasks.json`
/// text, or appends a new task labelled `label`; empty text gets the whole file.
pub fn set_caps_tasks_json(
    text: &str,
    script_rel: &str,
    label: &str,
    caps: &[String],
) -> Result<String, ConfigError> {
    set_caps_json(text, ConfigKind::Tasks, script_rel, label, caps)
}

/// Sets `caps` of the `"type": "vox"` configuration whose `script` is `script_rel` in
/// `.vscode/launch.json` text, or appends a new one named `name`; empty text gets the whole file.
pub fn set_caps_launch_json(
    text: &str,
    script_rel: &str,
    name: &str,
    caps: &[String],
) -> Result<String, ConfigError> {
    set_caps_json(text, ConfigKind::Launch, script_rel, name, caps)
}

fn internal(path: &Path, what: &str) -> ConfigError {
    ConfigError {
        file: path.to_path_buf(),
        line: 1,
        column: 1,
        message: format!(
            "vox could not edit this file safely ({what}); edit it by hand and please report this"
        ),
        section: ConfigSection::Run,
    }
}

fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix('\u{feff}') {
        Some(body) => ("\u{feff}", body),
        None => ("", text),
    }
}

/// The file's line ending: CRLF when it already uses it.
fn newline(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

fn splice(text: &str, range: Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

/// The start of the line holding byte `pos`.
fn line_start(text: &str, pos: usize) -> usize {
    text[..pos].rfind('\n').map_or(0, |i| i + 1)
}

/// Just past the newline ending the line that holds byte `pos` (the end of the text when that
/// line has none).
fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1)
}

fn toml_string(s: &str) -> String {
    let mut v = Value::from(s);
    v.decor_mut().clear();
    v.to_string()
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn single_line(caps: &[String], quote: fn(&str) -> String) -> String {
    let items: Vec<String> = caps.iter().map(|c| quote(c)).collect();
    format!("[{}]", items.join(", "))
}

/// A list as written: its range (from `[` to past `]`) and, for each element, its string value
/// (if it is one) and range.
struct OldArray {
    range: Range<usize>,
    elems: Vec<(Option<String>, Range<usize>)>,
}

impl OldArray {
    fn strings(&self) -> Vec<String> {
        self.elems
            .iter()
            .map(|(s, _)| s.clone().unwrap_or_else(|| "\u{0}".to_string()))
            .collect()
    }
}

/// The text of a list holding `caps` that replaces `old`, keeping its layout: a one-line list
/// stays on one line; in a list with one element per line, every token that stays keeps its
/// line with its comments, new tokens get lines of the same indentation, and a trailing comma
/// stays if there was one.
fn render_array(
    text: &str,
    old: &OldArray,
    caps: &[String],
    quote: fn(&str) -> String,
    nl: &str,
) -> String {
    let open = old.range.start;
    let close = old.range.end.saturating_sub(1);
    let well_formed = text.as_bytes().get(open) == Some(&b'[')
        && text.as_bytes().get(close) == Some(&b']')
        && old
            .elems
            .iter()
            .all(|(_, r)| open < r.start && r.start <= r.end && r.end <= close);
    let old_text = &text[old.range.clone()];
    if caps.is_empty() || old.elems.is_empty() || !well_formed || !old_text.contains('\n') {
        return single_line(caps, quote);
    }
    let indent_of = |pos: usize| {
        let lead = &text[line_start(text, pos)..pos];
        if lead.chars().all(|c| c == ' ' || c == '\t') {
            lead.to_string()
        } else {
            "  ".to_string()
        }
    };
    let indent = indent_of(old.elems[0].1.start);
    // Whether an element is followed by a comma, and where that comma is.
    let comma_after = |end: usize| {
        let rest = &text[end..close];
        let skipped = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        rest[skipped..].starts_with(',').then_some(end + skipped)
    };
    let last = &old.elems[old.elems.len() - 1].1;
    let trailing = comma_after(last.end).is_some();
    let comma = |k: usize| k + 1 < caps.len() || trailing;
    // One element per line, and `]` on a line of its own?
    let mut prev = open + 1;
    let mut one_per_line = true;
    for (_, r) in &old.elems {
        one_per_line &= text[prev..r.start].contains('\n');
        prev = r.end;
    }
    one_per_line &= text[prev..close].contains('\n');
    // A block comment across lines would be cut by the line-based segments below.
    one_per_line &= !old_text.split("/*").skip(1).any(|rest| {
        rest.split_once("*/")
            .map_or(rest, |(inside, _)| inside)
            .contains('\n')
    });
    if !one_per_line {
        let mut out = format!("[{nl}");
        for (k, c) in caps.iter().enumerate() {
            out.push_str(&indent);
            out.push_str(&quote(c));
            if comma(k) {
                out.push(',');
            }
            out.push_str(nl);
        }
        out.push_str(&indent_of(close));
        out.push(']');
        return out;
    }
    // Segments: the `[` line; for each element, the lines from the end of the previous one's
    // line to the end of its own (comments above it belong to it); then the rest up to `]`.
    let head_end = line_end(text, open);
    let mut segments = Vec::new();
    let mut start = head_end;
    for (value, r) in &old.elems {
        let end = line_end(text, r.end);
        segments.push((value.clone(), start, r.end, end, false));
        start = end;
    }
    let tail_start = start;
    let mut out = text[open..head_end].to_string();
    for (k, c) in caps.iter().enumerate() {
        let reuse = segments
            .iter_mut()
            .find(|(value, .., used)| !*used && value.as_deref() == Some(c.as_str()));
        match reuse {
            Some((_, seg_start, value_end, seg_end, used)) => {
                *used = true;
                out.push_str(&text[*seg_start..*value_end]);
                let after = match comma_after(*value_end) {
                    Some(at) => at + 1,
                    None => *value_end,
                };
                if comma(k) {
                    out.push(',');
                }
                out.push_str(&text[after..*seg_end]);
            }
            None => {
                out.push_str(&indent);
                out.push_str(&quote(c));
                if comma(k) {
                    out.push(',');
                }
                out.push_str(nl);
            }
        }
    }
    out.push_str(&text[tail_start..=close]);
    out
}

/// A new `[run.NAME]` entry at the end of the file, after a blank line.
fn append_toml_entry(
    body: &str,
    entry: &str,
    script_rel: &str,
    caps: &[String],
    nl: &str,
) -> String {
    let mut out = body.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(nl);
    }
    if !out.trim().is_empty() && !out.ends_with(&format!("{nl}{nl}")) {
        out.push_str(nl);
    }
    let key = Key::new(entry);
    out.push_str(&format!(
        "[run.{}]{nl}script = {}{nl}caps = {}{nl}",
        key.display_repr(),
        toml_string(script_rel),
        single_line(caps, toml_string)
    ));
    out
}

/// Adds `caps = [...]` to an entry that has none: on the line after `script` (with the same
/// indentation and dotted prefix), or inside an inline table.
fn insert_toml_caps(
    loc: &Locator<'_>,
    item: &Item,
    table: &dyn toml_edit::TableLike,
    caps: &[String],
    nl: &str,
) -> Result<String, ConfigError> {
    let body = loc.text;
    let list = single_line(caps, toml_string);
    if let Item::Value(Value::InlineTable(inline)) = item {
        let Some(span) = inline.span() else {
            return Err(internal(loc.path, "the inline table has no location"));
        };
        let Some(close) = body[span.clone()].rfind('}').map(|i| span.start + i) else {
            return Err(internal(loc.path, "the inline table has no `}`"));
        };
        let before = body[span.start + 1..close].trim_end();
        let at = span.start + 1 + before.len();
        let sep = if before.trim().is_empty() || before.ends_with(',') {
            " "
        } else {
            ", "
        };
        let pad = if body[at..close].is_empty() { " " } else { "" };
        return Ok(splice(body, at..at, &format!("{sep}caps = {list}{pad}")));
    }
    if let (Some(key), Some(value)) = (
        table.key("script").and_then(|k| k.span()),
        table.get("script").and_then(Item::span),
    ) {
        let prefix = &body[line_start(body, key.start)..key.start];
        let at = line_end(body, value.end);
        let lead = if at == body.len() && !body.ends_with('\n') {
            nl
        } else {
            ""
        };
        let tail = if lead.is_empty() { nl } else { "" };
        return Ok(splice(
            body,
            at..at,
            &format!("{lead}{prefix}caps = {list}{tail}"),
        ));
    }
    if let Item::Table(t) = item {
        if let Some(header) = t.span() {
            let at = line_end(body, header.end);
            let lead = if at == body.len() && !body.ends_with('\n') {
                nl
            } else {
                ""
            };
            let tail = if lead.is_empty() { nl } else { "" };
            return Ok(splice(body, at..at, &format!("{lead}caps = {list}{tail}")));
        }
    }
    Err(internal(loc.path, "found no place for the caps key"))
}

/// Whether two `script` values name the same file relative to the workspace root.
fn same_script(written: &str, script_rel: &str) -> bool {
    fn parts(s: &str) -> Vec<Component<'_>> {
        let s = s
            .strip_prefix("${workspaceFolder}")
            .or_else(|| s.strip_prefix("${workspaceRoot}"))
            .map_or(s, |rest| rest.trim_start_matches(['/', '\\']));
        Path::new(s)
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .collect()
    }
    parts(written) == parts(script_rel)
}

fn json_entry(shape: &Shape, name: &str, script_rel: &str, caps: &[String]) -> CstInputValue {
    let mut fields = vec![("type".to_string(), CstInputValue::from("vox"))];
    if shape.kind == ConfigKind::Launch {
        fields.push(("request".to_string(), "launch".into()));
    }
    fields.push((shape.name_key.to_string(), name.into()));
    fields.push(("script".to_string(), script_rel.into()));
    fields.push(("caps".to_string(), json_caps(caps)));
    CstInputValue::Object(fields)
}

fn json_caps(caps: &[String]) -> CstInputValue {
    CstInputValue::Array(
        caps.iter()
            .map(|c| CstInputValue::from(c.as_str()))
            .collect(),
    )
}

fn find_entry<'a, 't>(
    items: Option<&'a [JsonValue<'t>]>,
    script_rel: &str,
) -> Option<(usize, &'a Object<'t>)> {
    items?.iter().enumerate().find_map(|(i, v)| {
        let obj = vscode::is_vox(v)?;
        let script = obj.get_string("script")?;
        same_script(&script.value, script_rel).then_some((i, obj))
    })
}

fn set_caps_json(
    text: &str,
    kind: ConfigKind,
    script_rel: &str,
    name: &str,
    caps: &[String],
) -> Result<String, ConfigError> {
    let (bom, body) = split_bom(text);
    let shape = shape(kind);
    let path = Path::new(shape.kind.file_name());
    let loc = vscode::Locator { text: body, path };
    let nl = newline(body);
    let new_body = if body.trim().is_empty() {
        let root = CstRootNode::parse("", &vscode::options())
            .map_err(|_| internal(path, "the empty file did not parse"))?;
        let obj = root.object_value_or_set();
        obj.append("version", shape.version.into());
        obj.array_value_or_set(shape.list)
            .append(json_entry(&shape, name, script_rel, caps));
        let mut out = root.to_string();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    } else {
        let value = vscode::parse_value(&loc)?;
        let (obj, items) = vscode::entries(&loc, &shape, value.as_ref())?;
        match find_entry(items, script_rel) {
            Some((index, entry)) => match entry.get("caps") {
                Some(prop) => match &prop.value {
                    JsonValue::Array(old) => {
                        let elems = old
                            .elements
                            .iter()
                            .map(|v| {
                                let s = match v {
                                    JsonValue::StringLit(s) => Some(s.value.to_string()),
                                    _ => None,
                                };
                                (s, v.start()..v.end())
                            })
                            .collect();
                        let old = OldArray {
                            range: old.start()..old.end(),
                            elems,
                        };
                        if old.strings() == caps {
                            return Ok(text.to_string());
                        }
                        splice(
                            body,
                            old.range.clone(),
                            &render_array(body, &old, caps, json_string, nl),
                        )
                    }
                    other => splice(
                        body,
                        other.start()..other.end(),
                        &single_line(caps, json_string),
                    ),
                },
                None => {
                    let root = CstRootNode::parse(body, &vscode::options())
                        .map_err(|_| internal(path, "the CST did not parse"))?;
                    let entry = root
                        .object_value()
                        .and_then(|o| o.array_value(shape.list))
                        .and_then(|a| a.elements().get(index).cloned())
                        .and_then(|e| e.as_object())
                        .ok_or_else(|| internal(path, "the entry is not in the CST"))?;
                    let at = entry
                        .get("script")
                        .map_or(entry.properties().len(), |p| p.property_index() + 1);
                    entry.insert(at, "caps", json_caps(caps));
                    root.to_string()
                }
            },
            None => {
                let root = CstRootNode::parse(body, &vscode::options())
                    .map_err(|_| internal(path, "the CST did not parse"))?;
                let created = obj.is_none();
                let root_obj = root.object_value_or_set();
                if created {
                    root_obj.append("version", shape.version.into());
                }
                root_obj
                    .array_value_or_set(shape.list)
                    .append(json_entry(&shape, name, script_rel, caps));
                let mut out = root.to_string();
                if created && !out.ends_with('\n') {
                    out.push_str(nl);
                }
                out
            }
        }
    };
    // Never hand back a broken file.
    let root = Path::new("/.vox-workspace-root");
    let check = vscode::parse(&new_body, path, root, kind).ok();
    let ok = check.is_some_and(|runs| {
        runs.iter().any(|r| {
            let script = r.script.strip_prefix(root).unwrap_or(&r.script);
            same_script(&script.to_string_lossy(), script_rel) && r.caps.as_deref() == Some(caps)
        })
    });
    if !ok {
        return Err(internal(path, "the edit did not give the expected file"));
    }
    Ok(format!("{bom}{new_body}"))
}
