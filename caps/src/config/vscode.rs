//! `.vscode/tasks.json` and `.vscode/launch.json`: entries of type `"vox"` (editors.md §1). Both
//! are JSON with comments and trailing commas, read with `jsonc-parser`.

use std::path::{Path, PathBuf};

use jsonc_parser::ast::{Object, Value};
use jsonc_parser::common::Ranged;
use jsonc_parser::{parse_to_ast, CollectOptions, ParseOptions};

use super::ceilings::{check_ceiling, CEILINGS};
use super::text::{line_col, one_line, strip_bom};
use super::types::{ConfigError, ConfigKind, ConfigOrigin, ConfigSection, RunConfig};

/// What VS Code accepts in these files: JSON plus comments and trailing commas.
pub(super) fn options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The shape of one of the two files.
pub(super) struct Shape {
    pub kind: ConfigKind,
    /// `"tasks"` or `"configurations"`.
    pub list: &'static str,
    /// `"label"` or `"name"`.
    pub name_key: &'static str,
    /// A task, a launch configuration.
    pub entry: &'static str,
    pub version: &'static str,
}

pub(super) fn shape(kind: ConfigKind) -> Shape {
    match kind {
        ConfigKind::Launch => Shape {
            kind,
            list: "configurations",
            name_key: "name",
            entry: "launch configuration",
            version: "0.2.0",
        },
        _ => Shape {
            kind: ConfigKind::Tasks,
            list: "tasks",
            name_key: "label",
            entry: "task",
            version: "2.0.0",
        },
    }
}

/// What kind of JSON value `v` is, with its article, for messages ("an object").
pub(super) fn type_name(v: &Value<'_>) -> &'static str {
    match v {
        Value::StringLit(_) => "a string",
        Value::NumberLit(_) => "a number",
        Value::BooleanLit(_) => "a boolean",
        Value::Object(_) => "an object",
        Value::Array(_) => "a list",
        Value::NullKeyword(_) => "null",
    }
}

/// Builds errors located in one file.
pub(super) struct Locator<'a> {
    pub text: &'a str,
    pub path: &'a Path,
}

impl Locator<'_> {
    pub fn at(&self, offset: usize) -> (u32, u32) {
        line_col(self.text, offset)
    }

    pub fn err(&self, offset: usize, message: String) -> ConfigError {
        let (line, column) = self.at(offset);
        ConfigError {
            file: self.path.to_path_buf(),
            line,
            column,
            message: one_line(&message),
            section: ConfigSection::Run,
        }
    }
}

/// Parses the text into its root value (`None` for a file with only comments or nothing).
pub(super) fn parse_value<'t>(loc: &Locator<'t>) -> Result<Option<Value<'t>>, ConfigError> {
    match parse_to_ast(loc.text, &CollectOptions::default(), &options()) {
        Ok(result) => Ok(result.value),
        Err(e) => Err(loc.err(
            e.range().start,
            format!(
                "{}; fix the JSON here (comments and trailing commas are fine)",
                e.kind()
            ),
        )),
    }
}

/// The root object and its list of entries (`None` when the file has no list yet).
pub(super) fn entries<'v, 't>(
    loc: &Locator<'_>,
    shape: &Shape,
    root: Option<&'v Value<'t>>,
) -> Result<(Option<&'v Object<'t>>, Option<&'v [Value<'t>]>), ConfigError> {
    let file = shape.kind.file_name();
    let Some(root) = root else {
        return Ok((None, None));
    };
    let Value::Object(obj) = root else {
        return Err(loc.err(
            root.start(),
            format!(
                "{file} holds {} at the top; it must be one object such as {{\"version\": \"{}\", \"{}\": []}}",
                type_name(root),
                shape.version,
                shape.list
            ),
        ));
    };
    let Some(list) = obj.get(shape.list) else {
        return Ok((Some(obj), None));
    };
    let Value::Array(items) = &list.value else {
        return Err(loc.err(
            list.value.start(),
            format!(
                "\"{}\" in {file} is {}; write a list of {}s: \"{}\": [ {{ \"type\": \"vox\", ... }} ]",
                shape.list,
                type_name(&list.value),
                shape.entry,
                shape.list
            ),
        ));
    };
    Ok((Some(obj), Some(&items.elements)))
}

/// Whether an entry is one of ours: an object with `"type": "vox"`.
pub(super) fn is_vox<'v, 't>(v: &'v Value<'t>) -> Option<&'v Object<'t>> {
    match v {
        Value::Object(obj) if obj.get_string("type").is_some_and(|t| t.value == "vox") => Some(obj),
        _ => None,
    }
}

/// Replaces `${workspaceFolder}` and `${workspaceRoot}` with the workspace root.
fn substitute(text: &str, root: &Path) -> String {
    let root = root.to_string_lossy();
    text.replace("${workspaceFolder}", &root)
        .replace("${workspaceRoot}", &root)
}

/// Parses `tasks.json` (`kind` Tasks) or `launch.json` (`kind` Launch) at `path`, whose relative
/// paths are relative to the workspace `root`.
pub(super) fn parse(
    text: &str,
    path: &Path,
    root: &Path,
    kind: ConfigKind,
) -> Result<Vec<RunConfig>, ConfigError> {
    let text = strip_bom(text);
    let loc = Locator { text, path };
    let shape = shape(kind);
    let value = parse_value(&loc)?;
    let (_, items) = entries(&loc, &shape, value.as_ref())?;
    let mut out = Vec::new();
    for obj in items.into_iter().flatten().filter_map(is_vox) {
        out.push(entry(&loc, &shape, root, obj)?);
    }
    Ok(out)
}

fn entry(
    loc: &Locator<'_>,
    shape: &Shape,
    root: &Path,
    obj: &Object<'_>,
) -> Result<RunConfig, ConfigError> {
    let file = shape.kind.file_name();
    let what = shape.entry;
    let string = |key: &str, example: &str| -> Result<Option<String>, ConfigError> {
        match obj.get(key) {
            None => Ok(None),
            Some(p) => match &p.value {
                Value::StringLit(s) => Ok(Some(s.value.to_string())),
                v => Err(loc.err(
                    v.start(),
                    format!(
                        "\"{key}\" of a vox {what} in {file} is {}; write a string such as \"{key}\": \"{example}\"",
                        type_name(v)
                    ),
                )),
            },
        }
    };
    let strings = |key: &str, example: &str| -> Result<Option<Vec<String>>, ConfigError> {
        let Some(p) = obj.get(key) else {
            return Ok(None);
        };
        let Value::Array(items) = &p.value else {
            return Err(loc.err(
                p.value.start(),
                format!(
                    "\"{key}\" of a vox {what} in {file} is {}; write a list of strings such as \"{key}\": [{example}]",
                    type_name(&p.value)
                ),
            ));
        };
        let mut out = Vec::new();
        for v in &items.elements {
            match v {
                Value::StringLit(s) => out.push(s.value.to_string()),
                v => {
                    return Err(loc.err(
                        v.start(),
                        format!(
                            "\"{key}\" of a vox {what} in {file} holds {}; write each entry as a string, such as \"{key}\": [{example}]",
                            type_name(v)
                        ),
                    ))
                }
            }
        }
        Ok(Some(out))
    };
    let script = match string("script", "scripts/build.vox")? {
        Some(s) => s,
        None => {
            return Err(loc.err(
                obj.start(),
                format!("this vox {what} in {file} has no script; add \"script\": \"path/to/script.vox\" (relative to the workspace folder)"),
            ))
        }
    };
    let name = match string(shape.name_key, "build")? {
        Some(name) => name,
        None if shape.kind == ConfigKind::Tasks => script.clone(),
        None => {
            return Err(loc.err(
                obj.start(),
                format!(
                    "this vox {what} in {file} has no name; add \"{}\": \"a name to pick it by\"",
                    shape.name_key
                ),
            ))
        }
    };
    let cwd = match string("cwd", "${workspaceFolder}")? {
        Some(cwd) => root.join(substitute(&cwd, root)),
        None => root.to_path_buf(),
    };
    let caps = strings("caps", "\"fs:ro=data\"")?
        .map(|caps| caps.iter().map(|c| substitute(c, root)).collect());
    let args = strings("args", "\"--release\"")?
        .unwrap_or_default()
        .iter()
        .map(|a| substitute(a, root))
        .collect();
    let mut ceilings = Vec::new();
    for key in CEILINGS {
        let Some(p) = obj.get(key) else {
            continue;
        };
        let value = match &p.value {
            Value::NumberLit(n) if n.value.bytes().all(|b| b.is_ascii_digit()) => {
                n.value.to_string()
            }
            Value::StringLit(s) => s.value.to_string(),
            v => {
                return Err(loc.err(
                    v.start(),
                    format!("\"{key}\" of a vox {what} in {file} must be a non-negative integer or a size string; write it like \"{key}\": 1000000 or \"{key}\": \"32MiB\""),
                ))
            }
        };
        if let Err(hint) = check_ceiling(key, &value) {
            return Err(loc.err(
                p.value.start(),
                format!("\"{key}\" of a vox {what} in {file}: {hint}"),
            ));
        }
        ceilings.push((key.to_string(), value));
    }
    let (line, column) = loc.at(obj.start());
    Ok(RunConfig {
        name,
        script: root.join(PathBuf::from(substitute(&script, root))),
        cwd,
        caps,
        ceilings,
        args,
        origin: ConfigOrigin {
            file: loc.path.to_path_buf(),
            kind: shape.kind,
            line,
            column,
        },
    })
}
