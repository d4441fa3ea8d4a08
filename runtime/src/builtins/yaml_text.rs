//! YAML text to values, built from libyaml's events with the open containers on a heap stack, so
//! nesting is bounded by `--max-depth` (decision 62) and never by a library's fixed limit
//! (`serde_yaml` stops at 128) or by the host stack. `serde_yaml` still renders.
//!
//! Scalars resolve as YAML 1.2's core schema (and `serde_yaml` before this) does: plain `null`, `~`
//! or nothing is null; `true`/`false` (and their capitalised forms) are bools; decimal, `0x`, `0o`
//! and `0b` ints; floats with `.inf`/`.nan`; anything else a string. Quoted and block scalars are
//! strings; `!!bool`, `!!int`, `!!float` and `!!null` are checked; `!!str` keeps the text; a local
//! tag (`!thing`) is dropped. Aliases share the anchored value. A map key that is not a string is
//! its display form; a duplicate key is an error.

use std::collections::HashMap;
use std::ffi::{c_char, CStr};
use std::mem::MaybeUninit;
use std::rc::Rc;

use unsafe_libyaml as unsafe_sys;

use crate::display::display;
use crate::value::{VMap, Value};

pub enum YamlError {
    Syntax(String),
    TooDeep,
}

/// Parses one YAML document whose collections nest at most `max_depth` deep (an empty stream is
/// null; several documents are an error).
pub fn parse(text: &str, max_depth: u64) -> Result<Value, YamlError> {
    let mut parser = Parser::new(text);
    let mut open: Vec<Open> = Vec::new();
    let mut anchors: HashMap<Vec<u8>, Value> = HashMap::new();
    let mut root: Option<Value> = None;
    loop {
        let done = match parser.next()? {
            Event::StreamEnd => true,
            Event::Other => false,
            Event::Alias(name) => match anchors.get(&name) {
                Some(v) => {
                    let v = v.clone();
                    place(&mut open, &mut root, v)?;
                    false
                }
                None => {
                    return Err(YamlError::Syntax(format!(
                        "unknown anchor `{}`",
                        String::from_utf8_lossy(&name)
                    )))
                }
            },
            Event::Scalar {
                anchor,
                tag,
                text,
                plain,
            } => {
                let v = scalar(&text, tag.as_deref(), plain)?;
                if let Some(a) = anchor {
                    anchors.insert(a, v.clone());
                }
                place(&mut open, &mut root, v)?;
                false
            }
            Event::Start { map, anchor } => {
                if open.len() as u64 >= max_depth {
                    return Err(YamlError::TooDeep);
                }
                open.push(Open {
                    anchor,
                    items: if map {
                        Items::Map(VMap::new(), None)
                    } else {
                        Items::Seq(Vec::new())
                    },
                });
                false
            }
            Event::End => {
                let Some(done) = open.pop() else {
                    return Err(YamlError::Syntax("unbalanced collection end".to_string()));
                };
                let v = match done.items {
                    Items::Seq(items) => Value::list(items),
                    Items::Map(m, _) => Value::map(m),
                };
                if let Some(a) = done.anchor {
                    anchors.insert(a, v.clone());
                }
                place(&mut open, &mut root, v)?;
                false
            }
        };
        if done {
            break;
        }
    }
    let v = root.unwrap_or(Value::Null);
    // An alias may put an anchored collection deeper than it was written.
    if u64::from(crate::value::depth(&v)) > max_depth {
        return Err(YamlError::TooDeep);
    }
    Ok(v)
}

struct Open {
    anchor: Option<Vec<u8>>,
    items: Items,
}

enum Items {
    Seq(Vec<Value>),
    /// The entries so far and the key waiting for its value.
    Map(VMap, Option<Rc<str>>),
}

/// Puts a finished value into the innermost open collection, or makes it the document.
fn place(open: &mut [Open], root: &mut Option<Value>, v: Value) -> Result<(), YamlError> {
    let Some(top) = open.last_mut() else {
        if root.is_some() {
            return Err(YamlError::Syntax(
                "a YAML text here holds one document; found more than one".to_string(),
            ));
        }
        *root = Some(v);
        return Ok(());
    };
    match &mut top.items {
        Items::Seq(items) => items.push(v),
        Items::Map(m, pending) => match pending.take() {
            None => {
                *pending = Some(match v {
                    Value::Str(s) => s,
                    other => Rc::from(display(&other)),
                })
            }
            Some(key) => {
                if m.contains_key(&key) {
                    return Err(YamlError::Syntax(format!(
                        "duplicate entry with key \"{key}\""
                    )));
                }
                m.insert(key, v);
            }
        },
    }
    Ok(())
}

const CORE: &str = "tag:yaml.org,2002:";

fn scalar(text: &[u8], tag: Option<&[u8]>, plain: bool) -> Result<Value, YamlError> {
    let Ok(s) = std::str::from_utf8(text) else {
        return Err(YamlError::Syntax("a scalar is not UTF-8".to_string()));
    };
    let core = tag.and_then(|t| std::str::from_utf8(t).ok()?.strip_prefix(CORE));
    let invalid = |what: &str| YamlError::Syntax(format!("invalid value: `{s}`, expected {what}"));
    match (tag, core) {
        (Some(_), Some("bool")) => return bool_of(s).map(Value::Bool).ok_or(invalid("a boolean")),
        (Some(_), Some("int")) => return int_of(s).ok_or(invalid("an integer")),
        (Some(_), Some("float")) => return float_of(s).map(Value::Float).ok_or(invalid("a float")),
        (Some(_), Some("null")) => {
            return if is_null(s) {
                Ok(Value::Null)
            } else {
                Err(invalid("null"))
            }
        }
        (Some(t), None) if t.starts_with(b"!") && plain => return Ok(untagged(s)),
        (None, _) if plain => return Ok(untagged(s)),
        _ => {}
    }
    Ok(Value::str(s))
}

fn untagged(s: &str) -> Value {
    if s.is_empty() || is_null(s) {
        return Value::Null;
    }
    if let Some(b) = bool_of(s) {
        return Value::Bool(b);
    }
    if let Some(i) = int_of(s) {
        return i;
    }
    if !leading_zero_digits(s) {
        if let Some(f) = float_of(s) {
            return Value::Float(f);
        }
    }
    Value::str(s)
}

fn is_null(s: &str) -> bool {
    matches!(s, "null" | "Null" | "NULL" | "~")
}

fn bool_of(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// `007` is a string in YAML 1.2 (digits with a leading zero are not a number).
fn leading_zero_digits(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    d.len() > 1 && d.starts_with('0') && d[1..].bytes().all(|b| b.is_ascii_digit())
}

/// An int: `i64` when it fits, a float for the unsigned ints above `i64::MAX` (as before).
fn int_of(s: &str) -> Option<Value> {
    let (negative, unsigned) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if unsigned.starts_with(['+', '-']) {
        return None;
    }
    let (radix, digits) = if let Some(d) = unsigned.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = unsigned.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = unsigned.strip_prefix("0b") {
        (2, d)
    } else {
        if leading_zero_digits(s) {
            return None;
        }
        (10, unsigned)
    };
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if negative {
        let v = i128::try_from(magnitude).ok().map(|m| -m)?;
        i64::try_from(v).ok().map(Value::Int)
    } else if let Ok(i) = i64::try_from(magnitude) {
        Some(Value::Int(i))
    } else {
        u64::try_from(magnitude)
            .ok()
            .map(|u| Value::Float(u as f64))
    }
}

fn float_of(s: &str) -> Option<f64> {
    let unsigned = match s.strip_prefix('+') {
        Some(u) if u.starts_with(['+', '-']) => return None,
        Some(u) => u,
        None => s,
    };
    match unsigned {
        ".inf" | ".Inf" | ".INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN);
    }
    unsigned.parse::<f64>().ok().filter(|f| f.is_finite())
}

// ---- libyaml ------------------------------------------------------------------------------------

enum Event {
    Start {
        map: bool,
        anchor: Option<Vec<u8>>,
    },
    End,
    Scalar {
        anchor: Option<Vec<u8>>,
        tag: Option<Vec<u8>>,
        text: Vec<u8>,
        plain: bool,
    },
    Alias(Vec<u8>),
    StreamEnd,
    /// Stream and document boundaries.
    Other,
}

/// libyaml's event parser over borrowed text (its state is boxed so it never moves).
struct Parser<'a> {
    sys: Box<MaybeUninit<unsafe_sys::yaml_parser_t>>,
    _text: std::marker::PhantomData<&'a str>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        let mut sys = Box::new(MaybeUninit::<unsafe_sys::yaml_parser_t>::uninit());
        // SAFETY: `yaml_parser_initialize` fills the whole struct before anything reads it; the
        // input outlives the parser ('a), which only reads it.
        unsafe {
            let p = sys.as_mut_ptr();
            if unsafe_sys::yaml_parser_initialize(p).fail {
                // Initialising only allocates its buffers; out of memory is an abort anyway.
                std::alloc::handle_alloc_error(
                    std::alloc::Layout::new::<unsafe_sys::yaml_parser_t>(),
                );
            }
            unsafe_sys::yaml_parser_set_encoding(p, unsafe_sys::YAML_UTF8_ENCODING);
            unsafe_sys::yaml_parser_set_input_string(p, text.as_ptr(), text.len() as u64);
        }
        Parser {
            sys,
            _text: std::marker::PhantomData,
        }
    }

    fn next(&mut self) -> Result<Event, YamlError> {
        let mut event = MaybeUninit::<unsafe_sys::yaml_event_t>::uninit();
        // SAFETY: the parser was initialised in `new`; a successful `yaml_parser_parse` fills
        // `event`, which is read only through the union member its `type_` names, and deleted once.
        unsafe {
            let p = self.sys.assume_init_mut();
            if p.error != unsafe_sys::YAML_NO_ERROR
                || unsafe_sys::yaml_parser_parse(p, event.as_mut_ptr()).fail
            {
                return Err(YamlError::Syntax(error_text(p)));
            }
            let e = event.as_mut_ptr();
            let owned = match (*e).type_ {
                unsafe_sys::YAML_STREAM_END_EVENT => Event::StreamEnd,
                unsafe_sys::YAML_SEQUENCE_START_EVENT => Event::Start {
                    map: false,
                    anchor: bytes((*e).data.sequence_start.anchor),
                },
                unsafe_sys::YAML_MAPPING_START_EVENT => Event::Start {
                    map: true,
                    anchor: bytes((*e).data.mapping_start.anchor),
                },
                unsafe_sys::YAML_SEQUENCE_END_EVENT | unsafe_sys::YAML_MAPPING_END_EVENT => {
                    Event::End
                }
                unsafe_sys::YAML_ALIAS_EVENT => {
                    Event::Alias(bytes((*e).data.alias.anchor).unwrap_or_default())
                }
                unsafe_sys::YAML_SCALAR_EVENT => {
                    let s = &(*e).data.scalar;
                    let text = if s.value.is_null() {
                        Vec::new()
                    } else {
                        std::slice::from_raw_parts(s.value, s.length as usize).to_vec()
                    };
                    Event::Scalar {
                        anchor: bytes(s.anchor),
                        tag: bytes(s.tag),
                        text,
                        plain: s.style == unsafe_sys::YAML_PLAIN_SCALAR_STYLE,
                    }
                }
                _ => Event::Other,
            };
            unsafe_sys::yaml_event_delete(e);
            Ok(owned)
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, deleted once here.
        unsafe { unsafe_sys::yaml_parser_delete(self.sys.as_mut_ptr()) }
    }
}

/// A NUL-terminated libyaml string (anchor or tag), or `None` for a null pointer.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string that lives until this returns.
unsafe fn bytes(p: *const u8) -> Option<Vec<u8>> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller's promise.
    Some(
        unsafe { CStr::from_ptr(p as *const c_char) }
            .to_bytes()
            .to_vec(),
    )
}

/// libyaml's problem, where it is (1-based line and column) and what it was parsing.
fn error_text(p: &unsafe_sys::yaml_parser_t) -> String {
    // SAFETY: libyaml's problem and context are null or static NUL-terminated strings.
    let text = |s: *const _| {
        unsafe { bytes(s as *const u8) }.map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let mut out = text(p.problem).unwrap_or_else(|| "not valid YAML".to_string());
    let at = p.problem_mark;
    if at.line != 0 || at.column != 0 {
        out.push_str(&format!(
            " at line {} column {}",
            at.line + 1,
            at.column + 1
        ));
    } else if p.problem_offset != 0 {
        out.push_str(&format!(" at position {}", p.problem_offset));
    }
    if let Some(context) = text(p.context) {
        out.push_str(&format!(", {context}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{parse, YamlError};
    use crate::display::display;

    fn show(text: &str) -> String {
        match parse(text, 1024) {
            Ok(v) => display(&v),
            Err(YamlError::Syntax(why)) => format!("error: {why}"),
            Err(YamlError::TooDeep) => "too deep".to_string(),
        }
    }

    #[test]
    fn scalars_resolve_by_the_core_schema() {
        assert_eq!(
            show(
                "[~, null, '', true, False, 1, -0x1f, 0o17, 0b101, 007, 1.5, .inf, -.INF, 1e3, x]"
            ),
            "[null, null, , true, false, 1, -31, 15, 5, 007, 1.5, inf, -inf, 1000, x]"
        );
        assert_eq!(
            show("['1', \"true\", !!str 2, !!int '3', !local 4]"),
            "[1, true, 2, 3, 4]"
        );
        assert_eq!(show("18446744073709551615"), "18446744073709552000");
        assert_eq!(show(""), "null");
        assert!(show("!!int x").starts_with("error: invalid value"));
    }

    #[test]
    fn maps_keep_source_order_and_aliases_share() {
        assert_eq!(
            show("b: 1\na: &x [1, 2]\nc: *x\n1: one"),
            "{b: 1, a: [1, 2], c: [1, 2], 1: one}"
        );
        assert!(show("a: 1\na: 2").starts_with("error: duplicate entry with key \"a\""));
        assert!(show("a: *nope").starts_with("error: unknown anchor"));
        assert!(show("a: 1\n---\nb: 2").starts_with("error: a YAML text here holds one document"));
        assert_eq!(show("a: ["), "error: did not find expected node content at line 2 column 1, while parsing a flow node");
    }

    #[test]
    fn nesting_is_bounded_by_the_limit_only() {
        let n = 5000;
        let deep = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&deep, 5000).is_ok());
        assert!(matches!(parse(&deep, 4999), Err(YamlError::TooDeep)));
        let aliased = format!("a: &x {}1{}\nb: [*x]", "[".repeat(3), "]".repeat(3));
        assert!(matches!(parse(&aliased, 4), Err(YamlError::TooDeep)));
        assert!(parse(&aliased, 5).is_ok());
    }
}
