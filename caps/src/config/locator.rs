//! Errors located in a TOML file: the `Locator` that builds them, and what they say about the
//! values they point at.

use std::ops::Range;
use std::path::Path;

use toml_edit::{Item, TableLike, Value};

use super::text::{line_col, one_line};
use super::types::{ConfigError, ConfigSection};

/// Builds errors located in one file.
pub(super) struct Locator<'a> {
    pub text: &'a str,
    pub path: &'a Path,
}

impl Locator<'_> {
    pub fn at(&self, span: Option<Range<usize>>) -> (u32, u32) {
        span.map_or((1, 1), |s| line_col(self.text, s.start))
    }

    pub fn err(&self, span: Option<Range<usize>>, message: String) -> ConfigError {
        self.err_in(ConfigSection::Run, span, message)
    }

    pub fn err_in(
        &self,
        section: ConfigSection,
        span: Option<Range<usize>>,
        message: String,
    ) -> ConfigError {
        let (line, column) = self.at(span);
        ConfigError {
            file: self.path.to_path_buf(),
            line,
            column,
            message: one_line(&message),
            section,
        }
    }
}

/// What kind of TOML value an item is, with its article, for messages ("an integer").
pub(super) fn type_name(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Value(Value::String(_)) => "a string",
        Item::Value(Value::Integer(_)) => "an integer",
        Item::Value(Value::Float(_)) => "a float",
        Item::Value(Value::Boolean(_)) => "a boolean",
        Item::Value(Value::Datetime(_)) => "a date",
        Item::Value(Value::Array(_)) | Item::ArrayOfTables(_) => "a list",
        Item::Value(Value::InlineTable(_)) | Item::Table(_) => "a table",
    }
}

/// The span of the value under `key` in `table`, else of the key itself.
pub(super) fn value_span(table: &dyn TableLike, key: &str) -> Option<Range<usize>> {
    table
        .get(key)
        .and_then(Item::span)
        .or_else(|| table.key(key).and_then(|k| k.span()))
}

/// The TOML syntax error as a located `ConfigError`.
pub(super) fn syntax_error(loc: &Locator<'_>, e: &toml_edit::TomlError) -> ConfigError {
    let message = e.message().trim().replace('\n', "; ");
    loc.err(
        e.span(),
        format!("{message}; fix the TOML syntax here (see https://toml.io)"),
    )
}
