//! The pure builtins as table rows (voxscript.md §5.1–§5.9): global functions and the namespaces `math`,
//! `json`, `csv`, `toml`, `yaml`, `regex`, `log`, `path` (all but `resolve`), `random` and `crypto`.
//! Each row names its capability and source of nondeterminism; the evaluator gates on `cap` before
//! calling `f`. Namespaces with effects (`fs`, `process`, …) are the evaluator's own rows.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

use vox_hir::{Cap, Nondet};

use crate::value::{BuiltinDef, Func, Value};

pub mod data;
pub mod globals;
mod json_text;
mod math;
pub mod path;
pub mod random;
pub mod text;
mod toml_text;
mod yaml_text;

macro_rules! row {
    ($ns:literal, $name:literal, $f:path) => {
        BuiltinDef {
            ns: $ns,
            name: $name,
            cap: Cap::None,
            nondet: Nondet::None,
            f: $f,
        }
    };
    ($ns:literal, $name:literal, $f:path, $cap:ident, $nondet:ident) => {
        BuiltinDef {
            ns: $ns,
            name: $name,
            cap: Cap::$cap,
            nondet: Nondet::$nondet,
            f: $f,
        }
    };
}

static TABLE: &[BuiltinDef] = &[
    // Global functions (§5.2).
    row!("", "print", globals::print),
    row!("", "assert", globals::assert),
    row!("", "len", globals::len),
    row!("", "str", globals::str_),
    row!("", "int", globals::int),
    row!("", "float", globals::float),
    row!("", "bool", globals::bool_),
    row!("", "range", globals::range),
    row!("", "type_of", globals::type_of_),
    row!("", "abs", globals::abs),
    row!("", "min", globals::min),
    row!("", "max", globals::max),
    row!("", "sorted", globals::sorted),
    row!("", "sum", globals::sum),
    row!("", "chr", globals::chr),
    row!("", "panic", globals::panic),
    row!("", "dec", globals::dec),
    // math (§5.8): the portable libm.
    row!("math", "sin", math::sin),
    row!("math", "cos", math::cos),
    row!("math", "tan", math::tan),
    row!("math", "asin", math::asin),
    row!("math", "acos", math::acos),
    row!("math", "atan", math::atan),
    row!("math", "atan2", math::atan2),
    row!("math", "sinh", math::sinh),
    row!("math", "cosh", math::cosh),
    row!("math", "tanh", math::tanh),
    row!("math", "asinh", math::asinh),
    row!("math", "acosh", math::acosh),
    row!("math", "atanh", math::atanh),
    row!("math", "exp", math::exp),
    row!("math", "exp2", math::exp2),
    row!("math", "expm1", math::expm1),
    row!("math", "ln", math::ln),
    row!("math", "log2", math::log2),
    row!("math", "log10", math::log10),
    row!("math", "log1p", math::log1p),
    row!("math", "log", math::log),
    row!("math", "pow", math::pow),
    row!("math", "cbrt", math::cbrt),
    row!("math", "hypot", math::hypot),
    row!("math", "fmod", math::fmod),
    row!("math", "floor", math::floor),
    row!("math", "ceil", math::ceil),
    row!("math", "trunc", math::trunc),
    row!("math", "sqrt", math::sqrt),
    row!("math", "abs", math::abs),
    row!("math", "round", math::round),
    row!("math", "fma", math::fma),
    row!("math", "min", math::min),
    row!("math", "max", math::max),
    // json, csv, toml, yaml (§5.9).
    row!("json", "parse", data::json_parse),
    row!("json", "render", data::json_render),
    row!("json", "stringify", data::json_render),
    row!("json", "encode", data::json_render),
    row!("json", "read_str", data::json_read_str),
    row!("json", "read_f64", data::json_read_f64),
    row!("json", "quote", data::json_quote),
    row!("csv", "parse", data::csv_parse),
    row!("csv", "parse_records", data::csv_parse_records),
    row!("csv", "render", data::csv_render),
    row!("toml", "parse", data::toml_parse),
    row!("toml", "render", data::toml_render),
    row!("yaml", "parse", data::yaml_parse),
    row!("yaml", "render", data::yaml_render),
    // regex and log (§5.9).
    row!("regex", "is_match", text::regex_is_match),
    row!("regex", "find", text::regex_find),
    row!("regex", "captures", text::regex_captures),
    row!("regex", "replace", text::regex_replace),
    row!("regex", "compile", text::regex_compile),
    row!("log", "debug", text::log_debug),
    row!("log", "info", text::log_info),
    row!("log", "warn", text::log_warn),
    row!("log", "error", text::log_error),
    // path (§5.4); `path.resolve` needs the filesystem and is the evaluator's row.
    row!("path", "join", path::join),
    row!("path", "join_many", path::join_many),
    row!("path", "extension", path::extension),
    row!("path", "parent", path::parent),
    row!("path", "file_name", path::file_name),
    row!("path", "stem", path::stem),
    row!("path", "basename", path::basename),
    row!("path", "dirname", path::dirname),
    row!("path", "is_absolute", path::is_absolute),
    row!("path", "normalize", path::normalize),
    // random and crypto (§5.7, decisions.md 8).
    row!("random", "int", random::int, Random, Entropy),
    row!("random", "float", random::float, Random, Entropy),
    row!("random", "choice", random::choice, Random, Entropy),
    row!("random", "shuffle", random::shuffle, Random, Entropy),
    row!("crypto", "uuid", random::uuid, Random, Entropy),
    row!("crypto", "hash_fast", random::hash_fast),
    row!("crypto", "hash_secure", random::hash_secure),
];

/// The builtin namespaces, bound bare and under `std` (§5.1).
pub const NAMESPACES: &[&str] = &[
    "fs", "io", "path", "env", "process", "http", "time", "random", "crypto", "math", "json",
    "csv", "toml", "yaml", "regex", "log", "secrets", "agentos",
];

/// Every row this crate provides.
pub fn table() -> &'static [BuiltinDef] {
    TABLE
}

/// The row for `ns.name` (`ns` is `""` for a global function).
pub fn lookup(ns: &str, name: &str) -> Option<&'static BuiltinDef> {
    static INDEX: OnceLock<HashMap<(&'static str, &'static str), &'static BuiltinDef>> =
        OnceLock::new();
    let index = INDEX.get_or_init(|| TABLE.iter().map(|d| ((d.ns, d.name), d)).collect());
    index.get(&(ns, name)).copied()
}

/// Namespace fields that are not calls: `math.PI`, `math.E`, `math.TAU`.
pub fn namespace_constant(ns: &str, name: &str) -> Option<Value> {
    match (ns, name) {
        ("math", "PI") => Some(Value::Float(std::f64::consts::PI)),
        ("math", "E") => Some(Value::Float(std::f64::consts::E)),
        ("math", "TAU") => Some(Value::Float(std::f64::consts::TAU)),
        _ => None,
    }
}

/// A member of a builtin namespace as a value: a constant, or a row of this table as a function value.
pub fn namespace_member(ns: &str, name: &str) -> Option<Value> {
    namespace_constant(ns, name)
        .or_else(|| lookup(ns, name).map(|d| Value::Func(Rc::new(Func::Builtin(d)))))
}

#[cfg(test)]
pub(crate) use tests::call as test_call;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::display;
    use crate::exc::Exc;
    use crate::test_host::MockHost;
    use crate::value::{Args, Host};

    /// Calls a row and renders the result or error message.
    pub(crate) fn call(host: &mut MockHost, q: &str, args: Vec<Value>) -> String {
        let (ns, name) = q.rsplit_once('.').unwrap_or(("", q));
        let def = lookup(ns, name).unwrap_or_else(|| panic!("no row {q}"));
        let h: &mut dyn Host = host;
        match (def.f)(h, &mut Args::new(def.qualified(), args)) {
            Ok(v) => display(&v),
            Err(Exc::Error { message, .. }) => format!("error: {message}"),
            Err(Exc::Panic { message, .. }) => format!("panic: {message}"),
            Err(e) => format!("exc: {e:?}"),
        }
    }

    #[test]
    fn table_is_consistent() {
        let mut seen = std::collections::HashSet::new();
        for d in table() {
            assert!(
                seen.insert((d.ns, d.name)),
                "duplicate row {}",
                d.qualified()
            );
            let gated = d.ns == "random" || (d.ns, d.name) == ("crypto", "uuid");
            assert_eq!(d.cap == Cap::Random, gated, "{}", d.qualified());
            assert_eq!(d.nondet == Nondet::Entropy, gated, "{}", d.qualified());
        }
        assert!(lookup("", "print").is_some());
        assert!(lookup("fs", "read").is_none());
        assert_eq!(
            display(&namespace_member("math", "PI").unwrap()),
            "3.141592653589793"
        );
        assert_eq!(
            display(&namespace_member("json", "render").unwrap()),
            "<builtin json.render>"
        );
        assert!(namespace_member("math", "nope").is_none());
    }
}
