//! Every builtin row in one list (pure library rows, effect rows, the constructors as functions),
//! with the lookups name resolution needs. Ids are positions in this list.

use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

use vox_hir::{Cap, Nondet};

use crate::exc::Res;
use crate::value::{Args, BuiltinDef, Host, Value};

pub struct Catalog {
    rows: Vec<&'static BuiltinDef>,
    index: HashMap<(&'static str, &'static str), u32>,
}

fn ctor_some(_: &mut dyn Host, a: &mut Args) -> Res<Value> {
    a.arity(1, 1)?;
    Ok(Value::some(a.values.pop().unwrap_or(Value::Null)))
}
fn ctor_ok(_: &mut dyn Host, a: &mut Args) -> Res<Value> {
    a.arity(1, 1)?;
    Ok(Value::ok(a.values.pop().unwrap_or(Value::Null)))
}
fn ctor_err(_: &mut dyn Host, a: &mut Args) -> Res<Value> {
    a.arity(1, 1)?;
    Ok(Value::err(a.values.pop().unwrap_or(Value::Null)))
}

/// `Some`, `Ok`, `Err` used as function values (`xs.map(Some)`).
pub static CTOR_ROWS: [BuiltinDef; 3] = [
    BuiltinDef {
        ns: "",
        name: "Some",
        cap: Cap::None,
        nondet: Nondet::None,
        f: ctor_some,
    },
    BuiltinDef {
        ns: "",
        name: "Ok",
        cap: Cap::None,
        nondet: Nondet::None,
        f: ctor_ok,
    },
    BuiltinDef {
        ns: "",
        name: "Err",
        cap: Cap::None,
        nondet: Nondet::None,
        f: ctor_err,
    },
];

impl Catalog {
    pub fn get() -> &'static Catalog {
        static CATALOG: OnceLock<Catalog> = OnceLock::new();
        CATALOG.get_or_init(|| {
            let (pure, effects) = (crate::builtins::table(), crate::effects::table());
            // Sized at once: grown from empty, the index was rehashed six times on the way to its
            // 141 rows, at every run's start.
            let mut rows: Vec<&'static BuiltinDef> = Vec::with_capacity(pure.len() + effects.len());
            rows.extend(pure.iter());
            rows.extend(effects.iter());
            let mut index = HashMap::with_capacity_and_hasher(rows.len(), Default::default());
            for (i, r) in rows.iter().enumerate() {
                index.entry((r.ns, r.name)).or_insert(i as u32);
            }
            Catalog { rows, index }
        })
    }

    pub fn row(&self, id: u32) -> &'static BuiltinDef {
        self.rows[id as usize]
    }

    pub fn rows(&self) -> &[&'static BuiltinDef] {
        &self.rows
    }

    pub fn lookup(&self, ns: &str, name: &str) -> Option<&'static BuiltinDef> {
        self.index.get(&(ns, name)).map(|&i| self.rows[i as usize])
    }
}

impl vox_hir::BuiltinCatalog for Catalog {
    fn global_fn(&self, name: &str) -> Option<u32> {
        self.index.get(&("", name)).copied()
    }
    fn is_namespace(&self, name: &str) -> bool {
        crate::builtins::NAMESPACES.contains(&name)
    }
    fn member(&self, ns: &str, name: &str) -> Option<u32> {
        self.index.get(&(ns, name)).copied()
    }
    fn info(&self, id: u32) -> vox_hir::BuiltinInfo {
        let r = self.rows[id as usize];
        vox_hir::BuiltinInfo {
            ns: r.ns,
            name: r.name,
            cap: r.cap,
            nondet: r.nondet,
        }
    }
}
