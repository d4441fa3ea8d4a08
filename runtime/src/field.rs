//! Field reads (`recv.name`) on maps, tagged values and namespaces: the one operator that needs the
//! builtin table (a builtin namespace's members are its rows), so it sits above `builtins/` while
//! `ops.rs` sits below it.

use std::rc::Rc;

use crate::builtins::{namespace_member, NAMESPACES};
use crate::exc::{Exc, Res};
use crate::ops::field_missing;
use crate::value::{Namespace, NamespaceKind, Value};

/// `recv.name` as a value read. Builtin namespace members (other than constants and the rows of this
/// crate's table) are resolved by the evaluator; this returns `Method name not found` for them.
pub fn field(recv: &Value, name: &str) -> Res<Value> {
    match recv {
        Value::Map(m) => m.get(name).cloned().ok_or_else(|| field_missing(name)),
        Value::Tagged(t) => t
            .fields
            .iter()
            .position(|f| &**f == name)
            .and_then(|p| t.values.get(p).cloned())
            .ok_or_else(|| field_missing(name)),
        Value::Namespace(ns) => {
            let not_found = || Exc::error(format!("Method {name} not found"));
            match &ns.kind {
                NamespaceKind::Module(members) => members.get(name).cloned().ok_or_else(not_found),
                NamespaceKind::Builtin => namespace_member(&ns.name, name).ok_or_else(not_found),
                NamespaceKind::Std => {
                    if NAMESPACES.contains(&name) {
                        Ok(Value::Namespace(Rc::new(Namespace {
                            name: Rc::from(name),
                            kind: NamespaceKind::Builtin,
                        })))
                    } else {
                        Err(not_found())
                    }
                }
            }
        }
        _ => Err(field_missing(name)),
    }
}
