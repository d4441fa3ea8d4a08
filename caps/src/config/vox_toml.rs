//! `Vox.toml`: `[run.NAME]` entries and the `[lint]` table, read with `toml_edit` so every error
//! points at the offending value.

use std::path::Path;

use toml_edit::{Document, Item, TableLike, Value};

use super::ceilings::{check_ceiling, CEILINGS};
use super::lint::{self, LintConfig};
use super::locator::{syntax_error, type_name, value_span, Locator};
use super::text::strip_bom;
use super::types::{ConfigError, ConfigKind, ConfigOrigin, RunConfig};

/// The keys of a `[run.NAME]` entry besides the ceilings ([`CEILINGS`]), in the order messages
/// list them; a `"type": "vox"` entry of `.vscode/tasks.json` or `launch.json` takes the same.
/// Any other key of an entry is refused; docs/configuration.md has a section for each
/// (cli/tests/docs_configuration.rs).
pub const RUN_KEYS: &[&str] = &["script", "cwd", "caps", "args"];

/// Parses `Vox.toml`: its run entries and, when `with_lint`, its `[lint]` table. The first
/// problem found is the file's one error.
pub(super) fn parse(
    text: &str,
    path: &Path,
    with_lint: bool,
) -> Result<(Vec<RunConfig>, LintConfig), ConfigError> {
    let text = strip_bom(text);
    let loc = Locator { text, path };
    let doc = Document::parse(text).map_err(|e| syntax_error(&loc, &e))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let root = doc.as_table();
    let mut out = Vec::new();
    if let Some(run) = root.get("run") {
        let Some(run) = run.as_table_like() else {
            return Err(loc.err(
                value_span(root, "run"),
                format!(
                    "`run` is {}; write run configurations as tables: [run.NAME] with script = \"path/to/script.vox\"",
                    type_name(run)
                ),
            ));
        };
        for (name, entry) in run.iter() {
            out.push(run_entry(&loc, base, run, name, entry)?);
        }
    }
    // Other tables belong to other Vox tools (`[web]`, …) and are left alone; one a letter away
    // from `run` or `lint` is a typo that would silently drop the configuration.
    for (key, _) in root.iter() {
        if key == "run" || key == "lint" {
            continue;
        }
        if let Some(meant) = ["lint", "run"].into_iter().find(|m| one_edit_apart(key, m)) {
            return Err(loc.err(
                root.key(key).and_then(|k| k.span()),
                format!(
                    "unknown table `[{key}]`; did you mean `[{meant}]`? (vox reads [run.NAME] and [lint]; other tables belong to other Vox tools)"
                ),
            ));
        }
    }
    let lint = match (with_lint, root.get("lint")) {
        (true, Some(item)) => lint::parse(&loc, item, root.key("lint").and_then(|k| k.span()))?,
        _ => LintConfig::default(),
    };
    Ok((out, lint))
}

/// Whether `a` becomes `b` by one insertion, deletion or substitution (`lnt` → `lint`).
fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    if long.len() - short.len() > 1 || a == b {
        return false;
    }
    let prefix = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if short.len() == long.len() {
        short[prefix + 1..] == long[prefix + 1..]
    } else {
        short[prefix..] == long[prefix + 1..]
    }
}

fn run_entry(
    loc: &Locator<'_>,
    base: &Path,
    run: &dyn TableLike,
    name: &str,
    entry: &Item,
) -> Result<RunConfig, ConfigError> {
    // The `[run.NAME]` header, else (inline or dotted entries) the name.
    let header = match entry {
        Item::Table(t) if t.span().is_some() => t.span(),
        _ => run.key(name).and_then(|k| k.span()),
    };
    let Some(table) = entry.as_table_like() else {
        return Err(loc.err(
            value_span(run, name),
            format!(
                "`run.{name}` is {}; write it as a table: [run.{name}] with script = \"path/to/script.vox\"",
                type_name(entry)
            ),
        ));
    };
    let script = match table.get("script") {
        None => {
            return Err(loc.err(
                header,
                format!("`run.{name}` has no script; add script = \"path/to/script.vox\" (relative to Vox.toml)"),
            ))
        }
        Some(item) => match item.as_str() {
            Some(s) => s,
            None => {
                return Err(loc.err(
                    value_span(table, "script"),
                    format!(
                        "`run.{name}.script` is {}; write a path string such as script = \"scripts/{name}.vox\"",
                        type_name(item)
                    ),
                ))
            }
        },
    };
    let cwd = match table.get("cwd") {
        None => base.to_path_buf(),
        Some(item) => match item.as_str() {
            Some(s) => base.join(s),
            None => {
                return Err(loc.err(
                    value_span(table, "cwd"),
                    format!(
                        "`run.{name}.cwd` is {}; write a directory string relative to Vox.toml, such as cwd = \".\"",
                        type_name(item)
                    ),
                ))
            }
        },
    };
    let caps = match table.get("caps") {
        None => None,
        Some(item) => {
            let Some(items) = item.as_array() else {
                return Err(loc.err(
                    value_span(table, "caps"),
                    format!(
                        "`run.{name}.caps` is {}; write a list of tokens such as caps = [\"fs:ro=data\"] (caps = [] grants none)",
                        type_name(item)
                    ),
                ));
            };
            let mut caps = Vec::new();
            for v in items.iter() {
                match v.as_str() {
                    Some(s) => caps.push(s.to_string()),
                    None => {
                        return Err(loc.err(
                            v.span(),
                            format!(
                                "`run.{name}.caps` holds {}; write each token as a string such as \"env:ro\"",
                                type_name(&Item::Value(v.clone()))
                            ),
                        ))
                    }
                }
            }
            Some(caps)
        }
    };
    let mut ceilings = Vec::new();
    for key in CEILINGS {
        let Some(item) = table.get(key) else {
            continue;
        };
        let value = match item {
            Item::Value(Value::Integer(i)) if *i.value() >= 0 => i.value().to_string(),
            Item::Value(Value::String(s)) => s.value().clone(),
            _ => {
                return Err(loc.err(
                    value_span(table, key),
                    format!("`run.{name}.{key}` must be a non-negative integer or a size string; write it like {key} = 1000000 or {key} = \"32MiB\""),
                ))
            }
        };
        if let Err(hint) = check_ceiling(key, &value) {
            return Err(loc.err(
                value_span(table, key),
                format!("`run.{name}.{key}`: {hint}"),
            ));
        }
        ceilings.push((key.to_string(), value));
    }
    let args = match table.get("args") {
        None => Vec::new(),
        Some(item) => match item.as_array() {
            Some(items) => items.iter().map(|v| arg_text(loc.text, v)).collect(),
            None => {
                return Err(loc.err(
                    value_span(table, "args"),
                    format!(
                        "`run.{name}.args` is {}; write a list of strings such as args = [\"--release\"]",
                        type_name(item)
                    ),
                ))
            }
        },
    };
    for (key, _) in table.iter() {
        if !RUN_KEYS.contains(&key) && !CEILINGS.contains(&key) {
            return Err(loc.err(
                table.key(key).and_then(|k| k.span()),
                format!(
                    "unknown key `{key}` in `run.{name}`; remove it or use one of: {}, {}",
                    RUN_KEYS.join(", "),
                    CEILINGS.join(", ")
                ),
            ));
        }
    }
    let (line, column) = loc.at(header);
    Ok(RunConfig {
        name: name.to_string(),
        script: base.join(script),
        cwd,
        caps,
        ceilings,
        args,
        origin: ConfigOrigin {
            file: loc.path.to_path_buf(),
            kind: ConfigKind::VoxToml,
            line,
            column,
        },
    })
}

/// An argument as the script sees it: a string as is, anything else as written.
fn arg_text(text: &str, v: &Value) -> String {
    match v.as_str() {
        Some(s) => s.to_string(),
        None => match v.span().and_then(|span| text.get(span)) {
            Some(raw) => raw.trim().to_string(),
            None => {
                let mut v = v.clone();
                v.decor_mut().clear();
                v.to_string()
            }
        },
    }
}
