//! JSON text to a value (`json.parse`, `io.open`, `run_capture_json`), without recursion: open
//! arrays and objects are a stack of frames, so nesting is bounded by `--max-depth` (decision 62:
//! deeper is exit 78), never by the host stack or a library's fixed limit. Numbers follow the
//! JSON grammar: an integer that fits in 64 bits is an int (`-0` is the int 0), any other number
//! a float. Messages name the place as `… at line L column C`.

use std::rc::Rc;

use crate::value::{VMap, Value};

/// Why a text did not become a value.
#[derive(Debug, PartialEq)]
pub enum JsonError {
    /// Not JSON: the message says what and where.
    Syntax(String),
    /// Arrays and objects nested deeper than the limit.
    TooDeep,
}

enum Frame {
    List(Vec<Value>),
    /// The object so far and the key whose value is being parsed.
    Map(VMap, Rc<str>),
}

struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// `what at line L column C` for the byte at `at` (columns count characters, from 1).
    fn error_at(&self, what: &str, at: usize) -> JsonError {
        let at = at.min(self.b.len());
        let before = &self.b[..at];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
        JsonError::Syntax(format!("{what} at line {line} column {column}"))
    }

    fn error(&self, what: &str) -> JsonError {
        self.error_at(what, self.pos)
    }

    fn expect_word(&mut self, word: &[u8], v: Value) -> Result<Value, JsonError> {
        if self.b[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.error("expected value"))
        }
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let digits = |p: &mut Self| {
            let s = p.pos;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.pos += 1;
            }
            p.pos - s
        };
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    return Err(self.error("invalid number"));
                }
            }
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.error("invalid number")),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            integer = false;
            if digits(self) == 0 {
                return Err(self.error("invalid number"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            integer = false;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.error("invalid number"));
            }
        }
        // The slice is ASCII: digits, sign, point, exponent.
        let text = std::str::from_utf8(&self.b[start..self.pos]).unwrap_or("");
        if integer {
            if let Ok(i) = text.parse::<i64>() {
                return Ok(Value::Int(i));
            }
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => Err(self.error_at("number out of range", start)),
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut n = 0;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c) => (c as char).to_digit(16),
                None => return Err(self.error("EOF while parsing a string")),
            };
            let Some(d) = d else {
                return Err(self.error("invalid escape"));
            };
            n = n * 16 + d;
            self.pos += 1;
        }
        Ok(n)
    }

    /// A string; the opening quote is at `pos`.
    fn string(&mut self) -> Result<Rc<str>, JsonError> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let run = self.pos;
            while self
                .peek()
                .is_some_and(|c| c != b'"' && c != b'\\' && c >= 0x20)
            {
                self.pos += 1;
            }
            // The text is UTF-8 and the run stops only at ASCII bytes.
            out.push_str(std::str::from_utf8(&self.b[run..self.pos]).unwrap_or(""));
            match self.peek() {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Rc::from(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(c) = self.peek() else {
                        return Err(self.error("EOF while parsing a string"));
                    };
                    self.pos += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let at = self.pos;
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if !self.b[self.pos..].starts_with(b"\\u") {
                                    return Err(
                                        self.error_at("lone leading surrogate in hex escape", at)
                                    );
                                }
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.error("invalid unicode code point"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(
                                    self.error_at("lone trailing surrogate in hex escape", at)
                                );
                            } else {
                                hi
                            };
                            match char::from_u32(code) {
                                Some(ch) => out.push(ch),
                                None => return Err(self.error("invalid unicode code point")),
                            }
                        }
                        _ => return Err(self.error_at("invalid escape", self.pos - 1)),
                    }
                }
                Some(_) => {
                    return Err(self
                        .error("control character (\\u0000-\\u001F) found while parsing a string"))
                }
            }
        }
    }

    /// An object's key and its colon.
    fn key(&mut self) -> Result<Rc<str>, JsonError> {
        self.skip_ws();
        match self.peek() {
            Some(b'"') => {}
            None => return Err(self.error("EOF while parsing an object")),
            Some(_) => return Err(self.error("key must be a string")),
        }
        let k = self.string()?;
        self.skip_ws();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                Ok(k)
            }
            None => Err(self.error("EOF while parsing an object")),
            Some(_) => Err(self.error("expected `:`")),
        }
    }
}

/// Parses `text` as one JSON value, with arrays and objects nested at most `max_depth` deep.
pub fn parse(text: &str, max_depth: u64) -> Result<Value, JsonError> {
    let mut p = Parser {
        b: text.as_bytes(),
        pos: 0,
    };
    let mut stack: Vec<Frame> = Vec::new();
    loop {
        // A value starts here.
        p.skip_ws();
        let mut v = match p.peek() {
            None => {
                return Err(p.error(match stack.last() {
                    None => "EOF while parsing a value",
                    Some(Frame::List(_)) => "EOF while parsing a list",
                    Some(Frame::Map(..)) => "EOF while parsing an object",
                }))
            }
            Some(open @ (b'[' | b'{')) => {
                if stack.len() as u64 >= max_depth {
                    return Err(JsonError::TooDeep);
                }
                p.pos += 1;
                p.skip_ws();
                let close = if open == b'[' { b']' } else { b'}' };
                if p.peek() == Some(close) {
                    p.pos += 1;
                    if open == b'[' {
                        Value::list(Vec::new())
                    } else {
                        Value::map(VMap::new())
                    }
                } else {
                    stack.push(if open == b'[' {
                        Frame::List(Vec::new())
                    } else {
                        Frame::Map(VMap::new(), p.key()?)
                    });
                    continue;
                }
            }
            Some(b'"') => Value::Str(p.string()?),
            Some(b't') => p.expect_word(b"true", Value::Bool(true))?,
            Some(b'f') => p.expect_word(b"false", Value::Bool(false))?,
            Some(b'n') => p.expect_word(b"null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => p.number()?,
            Some(_) => return Err(p.error("expected value")),
        };
        // A value ended: it goes into the innermost open container, which may close too.
        loop {
            p.skip_ws();
            match stack.last_mut() {
                None => {
                    if p.pos < p.b.len() {
                        return Err(p.error("trailing characters"));
                    }
                    return Ok(v);
                }
                Some(Frame::List(items)) => {
                    items.push(v);
                    match p.peek() {
                        Some(b',') => {
                            p.pos += 1;
                            break;
                        }
                        Some(b']') => {
                            p.pos += 1;
                            let Some(Frame::List(items)) = stack.pop() else {
                                unreachable!("the top frame is a list")
                            };
                            v = Value::list(items);
                        }
                        None => return Err(p.error("EOF while parsing a list")),
                        Some(_) => return Err(p.error("expected `,` or `]`")),
                    }
                }
                Some(Frame::Map(m, key)) => {
                    m.insert(key.clone(), v);
                    match p.peek() {
                        Some(b',') => {
                            p.pos += 1;
                            *key = p.key()?;
                            break;
                        }
                        Some(b'}') => {
                            p.pos += 1;
                            let Some(Frame::Map(m, _)) = stack.pop() else {
                                unreachable!("the top frame is an object")
                            };
                            v = Value::map(m);
                        }
                        None => return Err(p.error("EOF while parsing an object")),
                        Some(_) => return Err(p.error("expected `,` or `}`")),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::display;

    fn ok(text: &str) -> String {
        display(&parse(text, 1024).unwrap())
    }

    fn err(text: &str) -> String {
        match parse(text, 1024) {
            Err(JsonError::Syntax(s)) => s,
            other => panic!("{text:?}: {other:?}"),
        }
    }

    #[test]
    fn values_and_numbers() {
        assert_eq!(
            ok(" [1, -0, 2.5, 1e2, -7, true, null, \"a\\u00e9\\n\"] "),
            display(&parse("[1, 0, 2.5, 100.0, -7, true, null, \"a\u{e9}\\n\"]", 9).unwrap())
        );
        assert!(matches!(parse("-0", 1).unwrap(), Value::Int(0)));
        assert!(
            matches!(parse("-0.0", 1).unwrap(), Value::Float(f) if f == 0.0 && f.is_sign_negative())
        );
        assert!(matches!(
            parse("9223372036854775807", 1).unwrap(),
            Value::Int(i64::MAX)
        ));
        assert!(matches!(
            parse("9223372036854775808", 1).unwrap(),
            Value::Float(_)
        ));
        assert_eq!(
            ok("{\"b\": 1, \"a\": {\"c\": []}, \"b\": 2}"),
            "{b: 2, a: {c: []}}"
        );
        assert_eq!(ok("\"\\ud83d\\ude00\""), "\u{1F600}");
    }

    #[test]
    fn errors_say_where() {
        assert_eq!(err(""), "EOF while parsing a value at line 1 column 1");
        assert_eq!(err("[1,]"), "expected value at line 1 column 4");
        assert_eq!(err("[1 2]"), "expected `,` or `]` at line 1 column 4");
        assert_eq!(err("{\"a\" 1}"), "expected `:` at line 1 column 6");
        assert_eq!(err("{1: 2}"), "key must be a string at line 1 column 2");
        assert_eq!(err("1 2"), "trailing characters at line 1 column 3");
        assert_eq!(err("[\n  01]"), "invalid number at line 2 column 4");
        assert_eq!(err("1e999"), "number out of range at line 1 column 1");
        assert_eq!(
            err("\"\\ud800\""),
            "lone leading surrogate in hex escape at line 1 column 4"
        );
        assert_eq!(
            err("\"a\tb\""),
            "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3"
        );
        assert_eq!(err("[[1]"), "EOF while parsing a list at line 1 column 5");
        assert_eq!(err("nul"), "expected value at line 1 column 1");
    }

    #[test]
    fn nesting_is_bounded_by_the_limit_not_the_stack() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&deep(3), 3).is_ok());
        assert!(matches!(parse(&deep(4), 3), Err(JsonError::TooDeep)));
        // A million levels with no limit: no recursion, so no overflow.
        assert!(parse(&deep(1_000_000), u64::MAX).is_ok());
    }
}
