//! What lowering and the analysis know about builtins. The runtime's table implements it, so the
//! names, capabilities and sources of variation have one definition.

/// The capability a builtin needs (voxscript.md §5.1 "Capability column").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cap {
    None,
    FsRead,
    FsWrite,
    Net,
    Process,
    EnvRo,
    EnvRw,
    Secrets,
    Time,
    Random,
    Agentos,
}

impl Cap {
    /// How users name the grant a builtin needs (`fs:ro`, `net:allow`): hover, completion,
    /// inlay hints and docs/language.md use it; `None` for a builtin that needs nothing.
    pub fn label(self) -> Option<&'static str> {
        Some(match self {
            Cap::None => return None,
            Cap::FsRead => "fs:ro",
            Cap::FsWrite => "fs:rw",
            Cap::Net => "net:allow",
            Cap::Process => "process:allow",
            Cap::EnvRo => "env:ro",
            Cap::EnvRw => "env:rw",
            Cap::Secrets => "secrets:allow",
            Cap::Time => "time:real",
            Cap::Random => "random:seed",
            Cap::Agentos => "agentos:allow",
        })
    }
}

/// The source of variation a builtin has (voxscript.md §5.1 "Nondeterministic column").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nondet {
    None,
    Clock,
    Entropy,
    Order,
    Environment,
    HostMath,
    External,
}

/// A builtin row as the analysis sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinInfo {
    /// Namespace (`"fs"`), or `""` for a global function (`print`).
    pub ns: &'static str,
    pub name: &'static str,
    pub cap: Cap,
    pub nondet: Nondet,
}

/// What the lowering needs to know about builtins (the runtime's table provides it).
pub trait BuiltinCatalog {
    /// A global builtin function (`print`, `len`).
    fn global_fn(&self, name: &str) -> Option<u32>;
    /// Whether `name` is a builtin namespace (`fs`, `math`).
    fn is_namespace(&self, name: &str) -> bool;
    /// A member function of a namespace.
    fn member(&self, ns: &str, name: &str) -> Option<u32>;
    /// The row behind an id returned by `global_fn` or `member`.
    fn info(&self, id: u32) -> BuiltinInfo;
}

/// How a builtin is named to users: `fs.read`, or `print` for a global.
pub fn qualified(ns: &str, name: &str) -> String {
    let mut out = String::with_capacity(ns.len() + 1 + name.len());
    let _ = write_qualified(&mut out, ns, name);
    out
}

/// Writes a builtin's name as [`qualified`] gives it, without making a string of it first.
pub fn write_qualified(out: &mut impl std::fmt::Write, ns: &str, name: &str) -> std::fmt::Result {
    if !ns.is_empty() {
        out.write_str(ns)?;
        out.write_char('.')?;
    }
    out.write_str(name)
}

/// The JSON helpers every kind has.
pub const JSON_HELPERS: &[&str] = &[
    "as_str",
    "as_int",
    "as_float",
    "as_bool",
    "as_array",
    "as_object",
    "is_null",
];

/// The methods of a receiver kind (a `kind_prefix` result), besides the JSON helpers. Used for the
/// ``str.trim is not a function; use the method form `x.trim()` `` diagnostic.
pub fn method_names(kind: &str) -> &'static [&'static str] {
    match kind {
        "str" => &[
            "len",
            "chars_count",
            "is_empty",
            "to_upper",
            "to_uppercase",
            "to_lower",
            "to_lowercase",
            "trim",
            "trim_start",
            "trim_end",
            "contains",
            "starts_with",
            "ends_with",
            "split",
            "replace",
            "repeat",
            "count",
            "is_alpha",
            "is_digit",
            "is_alnum",
            "is_upper",
            "is_lower",
            "ord",
            "chars",
            "to_str",
            "to_string",
            "slice",
            "char_at",
            "index_of",
            "to_int",
            "to_float",
        ],
        "list" => &[
            "len",
            "length",
            "is_empty",
            "push",
            "pop",
            "get",
            "at",
            "first",
            "last",
            "contains",
            "index",
            "find_index",
            "count",
            "extend",
            "remove",
            "remove_at",
            "zip",
            "enumerate",
            "slice_list",
            "join",
            "flatten",
            "reverse",
            "reversed",
            "sorted",
            "sorted_by_key",
            "sort_by_key",
            "sorted_by",
            "sort_by",
            "sum",
            "max",
            "min",
            "map",
            "filter",
            "for_each",
            "any",
            "all",
            "fold",
            "to_string",
        ],
        "map" => &[
            "get",
            "get_or",
            "contains_key",
            "has_key",
            "has",
            "len",
            "is_empty",
            "keys",
            "values",
            "items",
            "entries",
            "insert",
            "set",
            "remove",
            "delete",
            "update",
            "pointer",
            "to_string",
        ],
        "option" => &[
            "is_some",
            "is_none",
            "unwrap",
            "unwrap_or",
            "unwrap_or_default",
            "expect",
            "map",
            "and_then",
            "filter",
        ],
        "result" => &[
            "is_ok",
            "is_err",
            "ok",
            "err",
            "unwrap",
            "unwrap_err",
            "unwrap_or",
            "unwrap_or_default",
            "expect",
            "map",
            "map_err",
            "and_then",
        ],
        "int" => &[
            "to_str",
            "to_string",
            "abs",
            "min",
            "max",
            "checked_add",
            "checked_sub",
            "checked_mul",
            "checked_div",
            "checked_neg",
            "checked_abs",
            "wrapping_add",
            "wrapping_sub",
            "wrapping_mul",
            "wrapping_div",
            "wrapping_neg",
            "wrapping_abs",
            "saturating_add",
            "saturating_sub",
            "saturating_mul",
            "saturating_div",
            "saturating_neg",
            "saturating_abs",
        ],
        "float" => &[
            "to_str",
            "to_string",
            "abs",
            "floor",
            "ceil",
            "round",
            "trunc",
            "sqrt",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "sinh",
            "cosh",
            "tanh",
            "asinh",
            "acosh",
            "atanh",
            "exp",
            "exp2",
            "exp_m1",
            "ln",
            "log2",
            "log10",
            "ln_1p",
            "cbrt",
            "log",
            "powf",
            "powi",
            "hypot",
            "atan2",
        ],
        "dec" => &["to_str", "to_string", "abs", "round", "min", "max"],
        "bool" => &["to_str", "to_string"],
        "regex" => &["matches", "is_match", "find", "find_all"],
        "match" => &["group", "groups"],
        _ => &[],
    }
}

/// Whether `name` is a method of some kind (`str.trim` used as a free function gets a hint).
pub fn is_method_of(kind: &str, name: &str) -> bool {
    JSON_HELPERS.contains(&name) || method_names(kind).contains(&name)
}
