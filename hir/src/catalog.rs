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
