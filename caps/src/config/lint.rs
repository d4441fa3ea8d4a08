//! The `[lint]` table of `Vox.toml` (analysis.md §3): which rules run, at which severity, and
//! which files are skipped.

use std::ops::Range;

use toml_edit::{Item, TableLike};

use crate::rules::RULES;

use super::locator::{type_name, value_span, Locator};
use super::types::{ConfigError, ConfigSection};

/// `[lint]`: `select = ["D", "I001"]`, `ignore = ["D004"]`, `exclude = ["vendor/**"]` and
/// `[lint.severity] D002 = "warning"`. Every code is validated; the empty default changes
/// nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LintConfig {
    /// Codes or prefixes to enable, as written.
    pub select: Vec<String>,
    /// Codes or prefixes to disable, as written.
    pub ignore: Vec<String>,
    /// Code or prefix → `"error"` or `"warning"`, in file order.
    pub severity: Vec<(String, String)>,
    /// Glob patterns relative to the workspace root.
    pub exclude: Vec<String>,
}

/// The keys of `[lint]` (`severity` is the `[lint.severity]` table), in the order messages list
/// them. Any other key is refused; docs/configuration.md has a section for each
/// (cli/tests/docs_configuration.rs).
pub const LINT_KEYS: &[&str] = &["select", "ignore", "exclude", "severity"];

/// What `[lint]` accepts, for messages: each rule family (in the registry's order) with its
/// first and last code, then the finding groups.
fn known() -> String {
    let mut families: Vec<(char, &str, &str)> = Vec::new();
    for r in RULES {
        let letter = r.code.chars().next().unwrap_or('?');
        match families.last_mut() {
            Some((l, _, last)) if *l == letter => *last = r.code,
            _ => families.push((letter, r.code, r.code)),
        }
    }
    let prefixes: Vec<String> = families.iter().map(|(l, _, _)| l.to_string()).collect();
    let codes: Vec<String> = families
        .iter()
        .map(|(_, first, last)| format!("{first}\u{2013}{last}"))
        .collect();
    format!(
        "a prefix ({}) or a code ({}), or `syntax`, `check`, `config` and their codes",
        prefixes.join(", "),
        codes.join(", ")
    )
}

/// Whether `code` can match some finding's code, as `--select` and `--ignore` accept it: a
/// rule code of the registry (`D001`) or a prefix of one (`D`, `D00`), or a `syntax`, `check` or
/// `config` code or prefix (`check`, `check.unknown-method`).
fn is_known(code: &str) -> bool {
    if ["syntax", "check", "config"].iter().any(|g| {
        code == *g
            || code
                .strip_prefix(g)
                .is_some_and(|rest| rest.starts_with('.') && rest.len() > 1)
    }) {
        return true;
    }
    !code.is_empty() && RULES.iter().any(|r| r.code.starts_with(code))
}

/// What to write instead of an unknown code.
fn unknown_code(code: &str, place: &str) -> String {
    let upper = code.trim().to_ascii_uppercase();
    if upper != code && is_known(&upper) {
        format!("unknown rule `{code}` in {place}; write `{upper}` (codes are upper case)")
    } else {
        format!("unknown rule `{code}` in {place}; write {}", known())
    }
}

pub(super) fn parse(
    loc: &Locator<'_>,
    item: &Item,
    key_span: Option<Range<usize>>,
) -> Result<LintConfig, ConfigError> {
    let err = |span: Option<Range<usize>>, message: String| {
        loc.err_in(ConfigSection::Lint, span, message)
    };
    let Some(table) = item.as_table_like() else {
        return Err(err(
            item.span().or(key_span),
            format!(
                "`lint` is {}; write it as a table: [lint] with select, ignore, exclude, and [lint.severity]",
                type_name(item)
            ),
        ));
    };
    let mut lint = LintConfig::default();
    for (key, value) in table.iter() {
        match key {
            "select" | "ignore" => {
                let codes = strings(loc, table, key, value, "[\"D\", \"I001\"]")?;
                for (code, span) in &codes {
                    if !is_known(code) {
                        return Err(err(
                            span.clone(),
                            unknown_code(code, &format!("`lint.{key}`")),
                        ));
                    }
                }
                let codes = codes.into_iter().map(|(c, _)| c).collect();
                if key == "select" {
                    lint.select = codes;
                } else {
                    lint.ignore = codes;
                }
            }
            "exclude" => {
                for (pattern, span) in strings(loc, table, key, value, "[\"vendor/**\"]")? {
                    if pattern.starts_with('/') {
                        return Err(err(
                            span,
                            format!("`lint.exclude` pattern \"{pattern}\" is absolute; write it relative to the workspace root, such as \"vendor/**\""),
                        ));
                    }
                    if pattern.is_empty() {
                        return Err(err(
                            span,
                            "`lint.exclude` holds an empty pattern; remove it or write a glob such as \"vendor/**\"".into(),
                        ));
                    }
                    lint.exclude.push(pattern);
                }
            }
            "severity" => {
                let Some(levels) = value.as_table_like() else {
                    return Err(err(
                        value_span(table, key),
                        format!(
                            "`lint.severity` is {}; write it as a table: [lint.severity] with lines such as D002 = \"warning\"",
                            type_name(value)
                        ),
                    ));
                };
                for (code, level) in levels.iter() {
                    if !is_known(code) {
                        return Err(err(
                            levels.key(code).and_then(|k| k.span()),
                            unknown_code(code, "`lint.severity`"),
                        ));
                    }
                    match level.as_str() {
                        Some(word @ ("error" | "warning")) => {
                            lint.severity.push((code.to_string(), word.to_string()))
                        }
                        Some(word) => {
                            return Err(err(
                                value_span(levels, code),
                                format!("unknown severity \"{word}\" for {code} in `lint.severity`; write \"error\" or \"warning\" (to turn a rule off, add it to `lint.ignore`)"),
                            ))
                        }
                        None => {
                            return Err(err(
                                value_span(levels, code),
                                format!(
                                    "the severity of {code} in `lint.severity` is {}; write \"error\" or \"warning\"",
                                    type_name(level)
                                ),
                            ))
                        }
                    }
                }
            }
            _ => {
                return Err(err(
                    table.key(key).and_then(|k| k.span()),
                    format!(
                        "unknown key `{key}` in [lint]; remove it or use one of: {}",
                        LINT_KEYS.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(lint)
}

/// A string and where it is written.
type Located = (String, Option<Range<usize>>);

/// A list of strings with the span of each.
fn strings(
    loc: &Locator<'_>,
    table: &dyn TableLike,
    key: &str,
    value: &Item,
    example: &str,
) -> Result<Vec<Located>, ConfigError> {
    let Some(items) = value.as_array() else {
        return Err(loc.err_in(
            ConfigSection::Lint,
            value_span(table, key),
            format!(
                "`lint.{key}` is {}; write a list of strings such as {key} = {example}",
                type_name(value)
            ),
        ));
    };
    let mut out = Vec::new();
    for v in items.iter() {
        match v.as_str() {
            Some(s) => out.push((s.to_string(), v.span())),
            None => {
                return Err(loc.err_in(
                    ConfigSection::Lint,
                    v.span(),
                    format!(
                        "`lint.{key}` holds {}; write each entry as a string, such as {key} = {example}",
                        type_name(&Item::Value(v.clone()))
                    ),
                ))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{is_known, known};

    #[test]
    fn known_lists_the_registry_families() {
        assert_eq!(
            known(),
            "a prefix (D, I, C, L) or a code (D001\u{2013}D007, I001\u{2013}I004, C001\u{2013}C005, L001\u{2013}L002), or `syntax`, `check`, `config` and their codes"
        );
    }

    #[test]
    fn known_codes_and_prefixes() {
        for ok in [
            "D",
            "D00",
            "D007",
            "I004",
            "C",
            "C005",
            "L002",
            "check",
            "syntax.semicolon",
        ] {
            assert!(is_known(ok), "{ok}");
        }
        for bad in [
            "", "D008", "D0071", "D000", "d001", "X", "I005", "check.", "syntax-x",
        ] {
            assert!(!is_known(bad), "{bad}");
        }
    }
}
