//! `json`, `csv`, `toml` and `yaml` (§5.9). Parsers keep source key order; failures are `Err(<why>)`
//! values, never runtime errors. Sizes are reserved with the host before parsing (decisions.md 21).

use std::rc::Rc;

use rust_decimal::prelude::ToPrimitive;

use crate::display::{display, json_render as render_json, json_str_into};
use crate::exc::{Exc, Res};
use crate::kind::message_name;
use crate::native::rc_str;
use crate::value::{Args, Host, VMap, Value};

/// Parsed values take several times their text; reserve that before parsing.
fn reserve_parse(host: &mut dyn Host, text: &str) -> Res<()> {
    host.reserve(text.len().saturating_mul(4))
}

fn err_str(why: impl std::fmt::Display) -> Value {
    Value::err(rc_str(why.to_string()))
}

fn map_of(m: VMap) -> Value {
    Value::map(m)
}

// ---- json ----

/// The nesting a parsed value may have: `--max-depth` (decision 62), unbounded without one.
fn nesting_limit(host: &mut dyn Host) -> u64 {
    host.ctx()
        .and_then(|c| c.limits.max_depth)
        .filter(|&d| d > 0)
        .unwrap_or(u64::MAX)
}

/// Parses JSON text into a value: `Ok(Err(why))` for text that is not JSON; nesting deeper
/// than `--max-depth` stops the run with that ceiling (exit 78). The value comes back inside an
/// `Ok`, which is one level more (decision 12's value depth), so the text may nest one less.
pub fn parse_json_text(host: &mut dyn Host, text: &str) -> Res<Result<Value, String>> {
    let limit = nesting_limit(host);
    match super::json_text::parse(text, limit.saturating_sub(1)) {
        Ok(v) => Ok(Ok(v)),
        Err(super::json_text::JsonError::Syntax(why)) => Ok(Err(why)),
        Err(super::json_text::JsonError::TooDeep) => Err(depth_ceiling(limit)),
    }
}

fn depth_ceiling(limit: u64) -> Exc {
    Exc::Ceiling {
        kind: crate::exc::CeilingKind::Depth,
        limit,
        loc: None,
    }
}

pub(super) fn json_parse(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let text = args.str(0)?;
    reserve_parse(host, text)?;
    Ok(match parse_json_text(host, text)? {
        Ok(v) => Value::ok(v),
        Err(why) => err_str(why),
    })
}

pub(super) fn json_render(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(match render_json(args.get(0)) {
        Ok(s) => Value::ok(rc_str(s)),
        Err(why) => err_str(why),
    })
}

/// The value at `key` of a JSON object's text, with the nesting bounds of `json.parse`.
fn top_level_key(host: &mut dyn Host, text: &str, key: &str) -> Res<Result<Value, String>> {
    Ok(match parse_json_text(host, text)? {
        Ok(Value::Map(m)) => m
            .get(key)
            .cloned()
            .ok_or_else(|| format!("key `{key}` not found")),
        Ok(_) => Err("expected a JSON object".to_string()),
        Err(why) => Err(why),
    })
}

pub(super) fn json_read_str(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let (text, key) = (args.str(0)?, args.str(1)?);
    reserve_parse(host, text)?;
    Ok(match top_level_key(host, text, key)? {
        Ok(Value::Str(s)) => Value::ok(Value::Str(s)),
        Ok(_) => err_str(format!("key `{key}` is not a string")),
        Err(why) => err_str(why),
    })
}

pub(super) fn json_read_f64(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let (text, key) = (args.str(0)?, args.str(1)?);
    reserve_parse(host, text)?;
    Ok(match top_level_key(host, text, key)? {
        Ok(Value::Float(f)) => Value::ok(Value::Float(f)),
        Ok(Value::Int(i)) => Value::ok(Value::Float(i as f64)),
        Ok(_) => err_str(format!("key `{key}` is not a number")),
        Err(why) => err_str(why),
    })
}

pub(super) fn json_quote(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let mut out = String::new();
    json_str_into(&mut out, args.str(0)?);
    Ok(rc_str(out))
}

// ---- csv ----

/// Parses CSV (RFC 4180) into rows of strs.
pub fn parse_csv_rows(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| e.to_string())?;
        rows.push(record.iter().map(str::to_string).collect());
    }
    Ok(rows)
}

/// Rows keyed by the header row (missing trailing fields are absent, extra fields ignored).
pub fn parse_csv_records(text: &str) -> Result<Value, String> {
    let mut rows = parse_csv_rows(text)?.into_iter();
    let Some(header) = rows.next() else {
        return Ok(Value::list(vec![]));
    };
    let header: Vec<Rc<str>> = header.into_iter().map(Rc::from).collect();
    let mut out = Vec::new();
    for row in rows {
        let mut m = VMap::with_capacity(header.len());
        for (k, v) in header.iter().zip(row) {
            m.insert(k.clone(), rc_str(v));
        }
        out.push(map_of(m));
    }
    Ok(Value::list(out))
}

pub(super) fn csv_parse(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let text = args.str(0)?;
    reserve_parse(host, text)?;
    Ok(match parse_csv_rows(text) {
        Ok(rows) => Value::ok(Value::list(
            rows.into_iter()
                .map(|r| Value::list(r.into_iter().map(rc_str).collect()))
                .collect(),
        )),
        Err(why) => err_str(why),
    })
}

pub(super) fn csv_parse_records(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let text = args.str(0)?;
    reserve_parse(host, text)?;
    Ok(match parse_csv_records(text) {
        Ok(v) => Value::ok(v),
        Err(why) => err_str(why),
    })
}

/// Renders rows (lists or tuples of values, as display forms) or records (maps: a header row from the
/// first map's keys) as CSV with RFC 4180 quoting and `\n` line ends.
pub fn render_csv(rows: &Value) -> Result<String, String> {
    let Value::List(rows) = rows else {
        return Err(format!(
            "expected a list of rows, found {}",
            message_name(rows)
        ));
    };
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(vec![]);
    let header: Option<Vec<Rc<str>>> = match rows.first() {
        Some(Value::Map(m)) => Some(m.keys().cloned().collect()),
        _ => None,
    };
    if let Some(h) = &header {
        w.write_record(h.iter().map(|k| k.as_bytes()))
            .map_err(|e| e.to_string())?;
    }
    for row in rows.iter() {
        let fields: Vec<String> = match (row, &header) {
            (Value::List(items) | Value::Tuple(items), None) => items.iter().map(display).collect(),
            (Value::Map(m), Some(h)) => h
                .iter()
                .map(|k| m.get(k).map(display).unwrap_or_default())
                .collect(),
            (other, _) => {
                return Err(format!(
                    "cannot render {} as a CSV row",
                    message_name(other)
                ))
            }
        };
        w.write_record(&fields).map_err(|e| e.to_string())?;
    }
    let bytes = w.into_inner().map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

pub(super) fn csv_render(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(match render_csv(args.get(0)) {
        Ok(s) => Value::ok(rc_str(s)),
        Err(why) => err_str(why),
    })
}

/// The TOML and YAML libraries build, serialise and drop their documents recursively; like their
/// parsers, the renderers stop at 128 levels so no value can overflow the host stack.
const RENDER_DEPTH: u32 = 128;

fn too_deep(v: &Value, format: &str) -> Result<(), String> {
    if crate::value::depth(v) > RENDER_DEPTH {
        return Err(format!(
            "cannot render as {format}: nested deeper than {RENDER_DEPTH} levels"
        ));
    }
    Ok(())
}

// ---- toml ----

fn from_toml(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => rc_str(s),
        toml::Value::Integer(i) => Value::Int(i),
        toml::Value::Float(f) => Value::Float(f),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => rc_str(d.to_string()),
        toml::Value::Array(a) => Value::list(a.into_iter().map(from_toml).collect()),
        toml::Value::Table(t) => from_toml_table(t),
    }
}

fn from_toml_table(t: toml::Table) -> Value {
    let mut m = VMap::with_capacity(t.len());
    for (k, v) in t {
        m.insert(Rc::from(k), from_toml(v));
    }
    map_of(m)
}

/// Parses a TOML document into a map in source order: `Ok(Err(why))` for text that is not TOML;
/// nesting deeper than `--max-depth` stops the run with that ceiling (exit 78), as for JSON.
pub fn parse_toml_text(host: &mut dyn Host, text: &str) -> Res<Result<Value, String>> {
    let limit = nesting_limit(host);
    match super::toml_text::parse(text, limit.saturating_sub(1), from_toml_table) {
        Ok(v) => Ok(Ok(v)),
        Err(super::toml_text::TomlError::Syntax(why)) => Ok(Err(why)),
        Err(super::toml_text::TomlError::TooDeep) => Err(depth_ceiling(limit)),
    }
}

fn to_toml(v: &Value) -> Result<toml::Value, String> {
    Ok(match v {
        Value::Str(s) => toml::Value::String(s.to_string()),
        Value::Int(i) => toml::Value::Integer(*i),
        Value::Float(f) => toml::Value::Float(*f),
        Value::Dec(d) => toml::Value::Float(d.to_f64().unwrap_or(f64::NAN)),
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::List(items) | Value::Tuple(items) => {
            toml::Value::Array(items.iter().map(to_toml).collect::<Result<_, _>>()?)
        }
        Value::Map(m) => toml::Value::Table(to_toml_table(m)?),
        Value::Opt(Some(x)) => to_toml(x)?,
        other => return Err(format!("cannot render {} as TOML", message_name(other))),
    })
}

fn to_toml_table(m: &VMap) -> Result<toml::Table, String> {
    let mut t = toml::Table::new();
    for (k, v) in m {
        t.insert(k.to_string(), to_toml(v)?);
    }
    Ok(t)
}

/// Renders a map as a TOML document.
pub fn render_toml(v: &Value) -> Result<String, String> {
    let Value::Map(m) = v else {
        return Err(format!(
            "expected a map at the top level, found {}",
            message_name(v)
        ));
    };
    too_deep(v, "TOML")?;
    toml::to_string(&to_toml_table(m)?).map_err(|e| e.to_string())
}

pub(super) fn toml_parse(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let text = args.str(0)?;
    reserve_parse(host, text)?;
    Ok(match parse_toml_text(host, text)? {
        Ok(v) => Value::ok(v),
        Err(why) => err_str(why),
    })
}

pub(super) fn toml_render(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(match render_toml(args.get(0)) {
        Ok(s) => Value::ok(rc_str(s)),
        Err(why) => err_str(why),
    })
}

// ---- yaml ----

/// Parses a YAML document (maps in source order): `Ok(Err(why))` for text that is not YAML;
/// nesting deeper than `--max-depth` stops the run with that ceiling (exit 78), as for JSON.
pub fn parse_yaml_text(host: &mut dyn Host, text: &str) -> Res<Result<Value, String>> {
    let limit = nesting_limit(host);
    match super::yaml_text::parse(text, limit.saturating_sub(1)) {
        Ok(v) => Ok(Ok(v)),
        Err(super::yaml_text::YamlError::Syntax(why)) => Ok(Err(why)),
        Err(super::yaml_text::YamlError::TooDeep) => Err(depth_ceiling(limit)),
    }
}

fn to_yaml(v: &Value) -> Result<serde_yaml::Value, String> {
    Ok(match v {
        Value::Null | Value::Opt(None) => serde_yaml::Value::Null,
        Value::Bool(b) => serde_yaml::Value::Bool(*b),
        Value::Int(i) => serde_yaml::Value::Number((*i).into()),
        Value::Float(f) => serde_yaml::Value::Number((*f).into()),
        Value::Dec(d) => serde_yaml::Value::Number(d.to_f64().unwrap_or(f64::NAN).into()),
        Value::Str(s) => serde_yaml::Value::String(s.to_string()),
        Value::List(items) | Value::Tuple(items) => {
            serde_yaml::Value::Sequence(items.iter().map(to_yaml).collect::<Result<_, _>>()?)
        }
        Value::Map(m) => {
            let mut out = serde_yaml::Mapping::with_capacity(m.len());
            for (k, v) in m.iter() {
                out.insert(serde_yaml::Value::String(k.to_string()), to_yaml(v)?);
            }
            serde_yaml::Value::Mapping(out)
        }
        Value::Opt(Some(x)) => to_yaml(x)?,
        other => return Err(format!("cannot render {} as YAML", message_name(other))),
    })
}

/// Renders a value as a YAML document.
pub fn render_yaml(v: &Value) -> Result<String, String> {
    too_deep(v, "YAML")?;
    serde_yaml::to_string(&to_yaml(v)?).map_err(|e| e.to_string())
}

pub(super) fn yaml_parse(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let text = args.str(0)?;
    reserve_parse(host, text)?;
    Ok(match parse_yaml_text(host, text)? {
        Ok(v) => Value::ok(v),
        Err(why) => err_str(why),
    })
}

pub(super) fn yaml_render(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(match render_yaml(args.get(0)) {
        Ok(s) => Value::ok(rc_str(s)),
        Err(why) => err_str(why),
    })
}

#[cfg(test)]
mod tests {
    use crate::builtins::test_call as call;
    use crate::test_host::MockHost;
    use crate::value::Value;
    use Value::Int as I;

    fn s(x: &str) -> Value {
        Value::str(x)
    }

    #[test]
    fn json() {
        let mut h = MockHost::new();
        assert_eq!(
            call(&mut h, "json.parse", vec![s(r#"{"b":1,"a":2.5}"#)]),
            "Ok({b: 1, a: 2.5})"
        );
        assert_eq!(
            call(
                &mut h,
                "json.parse",
                vec![s("[1, 1e3, 18446744073709551615, null]")]
            ),
            "Ok([1, 1000, 18446744073709552000, null])"
        );
        assert!(call(&mut h, "json.parse", vec![s("{")]).starts_with("Err("));
        let deep = "[".repeat(100_000);
        assert!(call(&mut h, "json.parse", vec![s(&deep)]).starts_with("Err("));
        let v = Value::list(vec![s("a"), I(1), Value::Float(2.0)]);
        assert_eq!(
            call(&mut h, "json.render", vec![v.clone()]),
            r#"Ok(["a",1,2.0])"#
        );
        assert_eq!(
            call(&mut h, "json.stringify", vec![v]),
            r#"Ok(["a",1,2.0])"#
        );
        assert_eq!(
            call(&mut h, "json.encode", vec![Value::ok(I(1))]),
            "Err(cannot render Result as JSON)"
        );
        assert_eq!(
            call(&mut h, "json.read_str", vec![s(r#"{"k":"v"}"#), s("k")]),
            "Ok(v)"
        );
        assert_eq!(
            call(&mut h, "json.read_str", vec![s(r#"{"k":1}"#), s("z")]),
            "Err(key `z` not found)"
        );
        assert_eq!(
            call(&mut h, "json.read_f64", vec![s(r#"{"k":1}"#), s("k")]),
            "Ok(1)"
        );
        assert_eq!(call(&mut h, "json.quote", vec![s("a\"b\n")]), r#""a\"b\n""#);
    }

    #[test]
    fn csv() {
        let mut h = MockHost::new();
        assert_eq!(
            call(&mut h, "csv.parse", vec![s("a,b\n1,\"x,y\"\n")]),
            "Ok([[a, b], [1, x,y]])"
        );
        assert_eq!(
            call(&mut h, "csv.parse_records", vec![s("a,b\n1,2\n3,4\n")]),
            "Ok([{a: 1, b: 2}, {a: 3, b: 4}])"
        );
        let rows = Value::list(vec![
            Value::list(vec![s("a"), I(1)]),
            Value::list(vec![s("x,y"), s("q\"")]),
        ]);
        assert_eq!(
            call(&mut h, "csv.render", vec![rows]),
            "Ok(a,1\n\"x,y\",\"q\"\"\"\n)"
        );
        assert_eq!(
            call(&mut h, "csv.render", vec![I(1)]),
            "Err(expected a list of rows, found Int)"
        );
    }

    #[test]
    fn toml_and_yaml() {
        let mut h = MockHost::new();
        let doc = "b = 1\na = \"x\"\n[t]\nz = [1.5, true]\n";
        assert_eq!(
            call(&mut h, "toml.parse", vec![s(doc)]),
            "Ok({b: 1, a: x, t: {z: [1.5, true]}})"
        );
        assert!(call(&mut h, "toml.parse", vec![s("= =")]).starts_with("Err("));
        let parsed = super::parse_toml_text(&mut h, doc).unwrap().unwrap();
        assert_eq!(
            call(&mut h, "toml.render", vec![parsed]),
            "Ok(b = 1\na = \"x\"\n\n[t]\nz = [1.5, true]\n)"
        );
        assert_eq!(
            call(&mut h, "toml.render", vec![I(1)]),
            "Err(expected a map at the top level, found Int)"
        );
        assert_eq!(
            call(&mut h, "yaml.parse", vec![s("b: 1\na: [x, 2.5, null]\n")]),
            "Ok({b: 1, a: [x, 2.5, null]})"
        );
        let parsed = super::parse_yaml_text(&mut h, "b: 1\na: [x, true]\n")
            .unwrap()
            .unwrap();
        assert_eq!(
            call(&mut h, "yaml.render", vec![parsed]),
            "Ok(b: 1\na:\n- x\n- true\n)"
        );
        assert!(call(&mut h, "yaml.parse", vec![s("a: [")]).starts_with("Err("));
    }
}

#[cfg(test)]
mod nesting_tests {
    use super::*;

    /// Deeply nested input is an `Err`, never a stack overflow (decisions.md 12).
    #[test]
    fn deep_nesting_is_an_error() {
        let n = 200_000;
        // JSON: unclosed, so an error at its end; never deeper than the parser's heap stack.
        assert!(super::super::json_text::parse(&"[".repeat(n), u64::MAX).is_err());
        let mut h = crate::test_host::MockHost::new();
        let mut unbounded =
            |text: String, f: fn(&mut dyn Host, &str) -> Res<Result<Value, String>>| {
                assert!(matches!(f(&mut h, &text), Ok(Err(_))));
            };
        unbounded("[".repeat(n), parse_yaml_text);
        unbounded(format!("a = {}", "[".repeat(n)), parse_toml_text);
        unbounded(format!("a = {}", "{b=".repeat(n)), parse_toml_text);
    }
}
