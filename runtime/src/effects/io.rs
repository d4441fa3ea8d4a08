//! `io.open`, `io.save` (fs read / fs write, §5.3) and `io.stdin`, `io.read_line` (no capability,
//! decision 10). The formats are the pure parsers and renderers of `builtins::data`.

use std::io::{BufRead as _, Read as _};
use std::path::Path;

use vox_caps::Access;

use super::base::{ctx, err_str, ok_str, os_err, str_value};
use super::fs::write_checked;
use crate::builtins::data;
use crate::exc::Res;
use crate::value::{Args, Host, Value};

#[derive(Clone, Copy)]
enum Format {
    Json,
    Toml,
    Yaml,
    Csv,
}

/// The format named by the path's extension (ASCII case-insensitive), or the `Err` text.
fn format_of(p: &str) -> Result<Format, String> {
    let ext = Path::new(p)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "json" => Ok(Format::Json),
        "toml" => Ok(Format::Toml),
        "yaml" | "yml" => Ok(Format::Yaml),
        "csv" => Ok(Format::Csv),
        _ => Err(format!(
            "unsupported file extension {:?}: expected .json, .toml, .yaml, .yml or .csv",
            if ext.is_empty() {
                String::new()
            } else {
                format!(".{ext}")
            }
        )),
    }
}

pub(super) fn open(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let p = args.str(0)?;
    let path = ctx(host, &args.name)?.fs_path(&args.name, p, Access::Read)?;
    let format = match format_of(p) {
        Ok(f) => f,
        Err(why) => return Ok(err_str(why)),
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => return Ok(os_err(&e)),
    };
    // Parsed values take several times their text (as the parse builtins reserve).
    host.reserve(text.len().saturating_mul(4))?;
    let parsed = match format {
        Format::Json => data::parse_json_text(host, &text)?,
        Format::Toml => data::parse_toml_text(host, &text)?,
        Format::Yaml => data::parse_yaml_text(host, &text)?,
        Format::Csv => data::parse_csv_records(&text),
    };
    Ok(match parsed {
        Ok(v) => Value::ok(v),
        Err(why) => err_str(why),
    })
}

pub(super) fn save(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let p = args.str(0)?;
    let ctx = ctx(host, &args.name)?;
    let path = ctx.fs_path(&args.name, p, Access::Write)?;
    let format = match format_of(p) {
        Ok(f) => f,
        Err(why) => return Ok(err_str(why)),
    };
    let v = args.get(1);
    let rendered = match format {
        Format::Json => crate::display::json_render(v),
        Format::Toml => data::render_toml(v),
        Format::Yaml => data::render_yaml(v),
        Format::Csv => data::render_csv(v),
    };
    let text = match rendered {
        Ok(t) => t,
        Err(why) => return Ok(err_str(why)),
    };
    Ok(match write_checked(ctx, &path, text.as_bytes())? {
        Ok(()) => Value::ok(Value::Null),
        Err(e) => os_err(&e),
    })
}

/// Flushes script output first, so a prompt printed before the read is visible.
fn flush(host: &mut dyn Host) {
    if let Some(ctx) = host.ctx() {
        ctx.flush_stdout();
    }
}

pub(super) fn stdin(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(0, 0)?;
    flush(host);
    let mut bytes = Vec::new();
    Ok(match std::io::stdin().lock().read_to_end(&mut bytes) {
        Ok(_) => match String::from_utf8(bytes) {
            Ok(text) => ok_str(text),
            Err(_) => err_str("stream did not contain valid UTF-8"),
        },
        Err(e) => os_err(&e),
    })
}

/// One line without its `\n` (or `\r\n`); `None` at end of input or on a read error.
pub(super) fn read_line(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(0, 0)?;
    flush(host);
    let mut bytes = Vec::new();
    match std::io::stdin().lock().read_until(b'\n', &mut bytes) {
        Ok(0) | Err(_) => Ok(Value::none()),
        Ok(_) => {
            if bytes.last() == Some(&b'\n') {
                bytes.pop();
                if bytes.last() == Some(&b'\r') {
                    bytes.pop();
                }
            }
            Ok(Value::some(str_value(String::from_utf8_lossy(&bytes))))
        }
    }
}
