//! TOML text to `toml` values with nesting bounded by `--max-depth` (decision 62), never by the
//! library's fixed 80 levels (it is built `unbounded`). The library parses and builds recursively,
//! so a first pass over the parser's events measures how deep the document nests: it stops the
//! parser's own recursion once a container opens past the limit (that document is too deep
//! whatever else it holds), and sizes the stack the library then runs on.

use toml_parser::parser::EventReceiver;
use toml_parser::{ErrorSink, Source, Span};

pub enum TomlError {
    Syntax(String),
    TooDeep,
}

/// Stack for one level of nesting while `toml` parses, builds and drops (measured under 2 KiB in
/// a debug build; six times that for safety), plus a base for everything else.
const PER_LEVEL: usize = 12 * 1024;
const BASE: usize = 256 * 1024;

/// Without `--max-depth` (a host that sets none), documents still nest at most this deep.
const UNLIMITED: u64 = 10_000;

fn stack_for(levels: u64) -> usize {
    BASE + PER_LEVEL * usize::try_from(levels).unwrap_or(usize::MAX / PER_LEVEL / 2)
}

/// Parses a TOML document whose containers nest at most `max_depth` levels (the document's table is
/// level 1), and hands the library's table to `convert` on the same grown stack.
pub fn parse<T>(
    text: &str,
    max_depth: u64,
    convert: impl FnOnce(toml::Table) -> T,
) -> Result<T, TomlError> {
    // The first pass recurses too (once per open container, never past the cap it is given).
    let cap = max_depth.min(UNLIMITED);
    let deepest = stacker::grow(stack_for(cap + 2), || measure(text, cap));
    let deepest = match deepest {
        Err(TomlError::TooDeep) if max_depth > UNLIMITED => {
            return Err(TomlError::Syntax(format!(
                "nested deeper than {UNLIMITED} levels"
            )))
        }
        other => other?,
    };
    stacker::grow(stack_for(deepest), || {
        text.parse::<toml::Table>()
            .map(convert)
            .map_err(|e| TomlError::Syntax(e.to_string().trim_end().to_string()))
    })
}

/// The deepest container level the document opens, or `TooDeep` once one opens past `max_depth`.
fn measure(text: &str, max_depth: u64) -> Result<u64, TomlError> {
    let source = Source::new(text);
    let tokens = source.lex().into_vec();
    let mut levels = Levels {
        limit: max_depth,
        ..Levels::default()
    };
    toml_parser::parser::parse_document(&tokens, &mut levels, &mut ());
    if levels.too_deep {
        return Err(TomlError::TooDeep);
    }
    Ok(levels.deepest)
}

/// Tracks the level a container opened now would sit at: a header `[a.b]` puts its table at
/// 1 + 2, `[[a.b]]` one more (the array); `k1.k2 = ` adds the key's segments to the level of
/// the table it is written in; an array's elements sit one below it.
#[derive(Default)]
struct Levels {
    limit: u64,
    /// Level of the table the current header opened (1 for the document's own keys).
    header: u64,
    /// Segments of the key (or header) being read.
    segments: u64,
    /// Open inline containers: (level, is_array).
    open: Vec<(u64, bool)>,
    /// Level of the value after the last `=`.
    after_key: u64,
    deepest: u64,
    too_deep: bool,
}

impl Levels {
    fn table_level(&self) -> u64 {
        self.open.last().map_or(self.header.max(1), |&(l, _)| l)
    }

    /// Level of a container opening now: an array's element, or the value after `=`.
    fn opening(&self) -> u64 {
        match self.open.last() {
            Some(&(l, true)) => l + 1,
            _ => self.after_key,
        }
    }

    fn open(&mut self, is_array: bool) -> bool {
        let level = self.opening();
        self.deepest = self.deepest.max(level);
        if level > self.limit {
            self.too_deep = true;
            return false;
        }
        self.open.push((level, is_array));
        true
    }
}

impl EventReceiver for Levels {
    fn std_table_open(&mut self, _: Span, _: &mut dyn ErrorSink) {
        self.segments = 0;
    }
    fn std_table_close(&mut self, _: Span, _: &mut dyn ErrorSink) {
        self.header = 1 + self.segments;
        self.segments = 0;
        self.deepest = self.deepest.max(self.header);
        self.too_deep |= self.header > self.limit;
    }
    fn array_table_open(&mut self, _: Span, _: &mut dyn ErrorSink) {
        self.segments = 0;
    }
    fn array_table_close(&mut self, _: Span, _: &mut dyn ErrorSink) {
        self.header = 2 + self.segments;
        self.segments = 0;
        self.deepest = self.deepest.max(self.header);
        self.too_deep |= self.header > self.limit;
    }
    fn inline_table_open(&mut self, _: Span, _: &mut dyn ErrorSink) -> bool {
        self.open(false)
    }
    fn inline_table_close(&mut self, _: Span, _: &mut dyn ErrorSink) {
        self.open.pop();
    }
    fn array_open(&mut self, _: Span, _: &mut dyn ErrorSink) -> bool {
        self.open(true)
    }
    fn array_close(&mut self, _: Span, _: &mut dyn ErrorSink) {
        self.open.pop();
    }
    fn simple_key(
        &mut self,
        _: Span,
        _: Option<toml_parser::decoder::Encoding>,
        _: &mut dyn ErrorSink,
    ) {
        self.segments += 1;
    }
    fn key_val_sep(&mut self, _: Span, _: &mut dyn ErrorSink) {
        // `a.b = 1` in a table at level L: tables a at L+1 and the value's container at L+2.
        self.after_key = self.table_level() + self.segments;
        self.deepest = self.deepest.max(self.after_key - 1);
        self.too_deep |= self.after_key - 1 > self.limit;
        self.segments = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::{parse, TomlError};

    fn depth(text: &str, limit: u64) -> Result<u64, &'static str> {
        match super::measure(text, limit) {
            Ok(d) => Ok(d),
            Err(TomlError::TooDeep) => Err("too deep"),
            Err(TomlError::Syntax(_)) => Err("syntax"),
        }
    }

    #[test]
    fn levels_follow_headers_keys_and_inline_containers() {
        assert_eq!(depth("a = 1", 10), Ok(1));
        assert_eq!(depth("a = [1]", 10), Ok(2));
        assert_eq!(depth("a.b = [[1]]", 10), Ok(4));
        assert_eq!(depth("[x.y]\na = {b = [1]}", 10), Ok(5));
        assert_eq!(depth("[[x]]\na = 1", 10), Ok(3));
        assert_eq!(depth("a = [[1], {b = [2]}]", 10), Ok(4));
        assert_eq!(depth("a = [[[1]]]", 3), Err("too deep"));
    }

    #[test]
    fn deep_documents_parse_within_the_limit_and_stop_beyond_it() {
        let n = 3000;
        let text = format!("a = {}1{}", "[".repeat(n), "]".repeat(n));
        let got = parse(&text, 4000, |t| t.len());
        assert!(matches!(got, Ok(1)));
        assert!(matches!(
            parse(&text, 100, |t| t.len()),
            Err(TomlError::TooDeep)
        ));
        let tables = format!("a = {}1{}", "{b = ".repeat(n), "}".repeat(n));
        assert!(matches!(parse(&tables, 4000, |t| t.len()), Ok(1)));
        // Far past any limit, the first pass stops before the parser's recursion goes deep.
        let huge = format!("a = {}", "[".repeat(1_000_000));
        assert!(matches!(
            parse(&huge, 1024, |t| t.len()),
            Err(TomlError::TooDeep)
        ));
    }
}
