//! The kinds of values (voxscript.md §4.1) the analysis tells apart, and their names.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Not assigned yet (inside the fixpoint only; never in a result).
    Unset,
    #[default]
    Unknown,
    Int,
    Float,
    Dec,
    Str,
    Bool,
    Null,
    List,
    Map,
    Tuple,
    Option,
    Result,
    Func,
    Namespace,
}

impl Kind {
    pub(crate) fn join(self, other: Kind) -> Kind {
        match (self, other) {
            (Kind::Unset, k) | (k, Kind::Unset) => k,
            (a, b) if a == b => a,
            _ => Kind::Unknown,
        }
    }

    /// The kind an annotation names (`int`, `map[str, int]`, `list[str]`).
    pub fn from_annotation(ty: &str) -> Kind {
        let head = ty.split('[').next().unwrap_or("").trim();
        match head {
            "int" => Kind::Int,
            "float" => Kind::Float,
            "dec" => Kind::Dec,
            "str" => Kind::Str,
            "bool" => Kind::Bool,
            "list" => Kind::List,
            "map" => Kind::Map,
            "Option" => Kind::Option,
            "Result" => Kind::Result,
            _ => Kind::Unknown,
        }
    }
}

impl Kind {
    /// How the language reference names the kind (`int`, `list`, `Option`), `None` when unknown.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Kind::Unset | Kind::Unknown => return None,
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Dec => "dec",
            Kind::Str => "str",
            Kind::Bool => "bool",
            Kind::Null => "null",
            Kind::List => "list",
            Kind::Map => "map",
            Kind::Tuple => "tuple",
            Kind::Option => "Option",
            Kind::Result => "Result",
            Kind::Func => "fn",
            Kind::Namespace => "namespace",
        })
    }
}
