//! Reading and writing through assignment places (`a.b[i].c = v`): the steps of a path and the
//! copy-on-write walk to the value they name. Free functions over values, no evaluator state.

use std::rc::Rc;

use vox_hir::PlaceStep;

use crate::exc::{Exc, Res};
use crate::field;
use crate::kind::message_name;
use crate::ops::{self};
use crate::value::Value;

pub(super) enum Step {
    Field(Rc<str>),
    Index(Value),
}

/// The value under `root.f1.f2…` (field steps only) by reference: maps by key, tagged values by
/// field. `None` if a step is missing, is an index, or meets a value without fields.
pub(super) fn read_fields<'v>(root: &'v Value, steps: &[PlaceStep]) -> Option<&'v Value> {
    let mut cur = root;
    for s in steps {
        let PlaceStep::Field(n) = s else { return None };
        cur = match cur {
            Value::Map(m) => m.get(n)?,
            Value::Tagged(t) => {
                let i = t.fields.iter().position(|f| f == n)?;
                t.values.get(i)?
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// Whether two values are the same shared container (or str) allocation.
pub(super) fn same_allocation(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => Rc::ptr_eq(x, y),
        (Value::Map(x), Value::Map(y)) => Rc::ptr_eq(x, y),
        (Value::Str(x), Value::Str(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

/// Runs `f` on the value under `root.f1.f2…` in place, making the containers on the path unique
/// first (copy-on-write, as assigning into the place does anyway). `None` if a step is missing.
pub(super) fn with_field_mut<R>(
    root: &mut Value,
    steps: &[PlaceStep],
    f: impl FnOnce(&mut Value) -> R,
) -> Option<R> {
    let Some((first, rest)) = steps.split_first() else {
        return Some(f(root));
    };
    let PlaceStep::Field(n) = first else {
        return None;
    };
    match root {
        Value::Map(m) => Rc::make_mut(m)
            .update(n, |v| with_field_mut(v, rest, f))
            .flatten(),
        Value::Tagged(t) => {
            let i = t.fields.iter().position(|x| x == n)?;
            Rc::make_mut(t)
                .values
                .update(i, |v| with_field_mut(v, rest, f))
                .flatten()
        }
        _ => None,
    }
}

/// Replaces the value at `root.f1.f2…` with null when it is the same allocation as `held`, so
/// `held` becomes its only owner. (Containers on the path are made unique, which storing the
/// result right after does anyway.)
pub(super) fn take_if_same(root: &mut Value, steps: &[PlaceStep], held: &Value) {
    with_field_mut(root, steps, |v| {
        if same_allocation(v, held) {
            *v = Value::Null;
        }
    });
}

/// Stores `v` at `root.f1.f2…`, which exists (it was read before the call).
pub(super) fn put_fields(root: &mut Value, steps: &[PlaceStep], v: Value) -> Res<()> {
    let mut v = Some(v);
    match with_field_mut(root, steps, |slot| *slot = v.take().unwrap_or(Value::Null)) {
        Some(()) => Ok(()),
        None => Err(Exc::error(match steps.last() {
            Some(PlaceStep::Field(n)) => format!("Field {n} not found on object"),
            _ => "cannot assign into this place".to_string(),
        })),
    }
}

pub(super) fn read_path(root: &Value, steps: &[Step]) -> Res<Value> {
    let mut cur = root.clone();
    for s in steps {
        cur = match s {
            Step::Field(n) => field::field(&cur, n)?,
            Step::Index(i) => ops::index(&cur, i)?,
        };
    }
    Ok(cur)
}

/// Assigns into a place: `xs[0] = 9`, `m["k"] = v`, `cfg.port = 80`, `rows[2].name = "x"`. Each
/// container on the path raises its stored depth to cover what it now holds (`List::update`).
pub(super) fn write_path(target: &mut Value, steps: &[Step], v: Value) -> Res<()> {
    let Some((first, rest)) = steps.split_first() else {
        *target = v;
        return Ok(());
    };
    if rest.is_empty() {
        return match first {
            Step::Field(n) => ops::set_field(target, n, v),
            Step::Index(i) => ops::set_index(target, i, v),
        };
    }
    // One frame per place step; the stack grows if a place is absurdly long.
    let inner =
        |x: &mut Value| stacker::maybe_grow(64 * 1024, 1024 * 1024, || write_path(x, rest, v));
    let done = match (first, target) {
        (Step::Field(n), Value::Map(m)) => match Rc::make_mut(m).update(n, inner) {
            Some(r) => Some(r),
            None => return Err(Exc::error(format!("Field {n} not found on object"))),
        },
        (Step::Field(n), Value::Tagged(t)) => {
            let t = Rc::make_mut(t);
            match t.fields.iter().position(|f| **f == **n) {
                Some(i) => t.values.update(i, inner),
                None => return Err(Exc::error(format!("Field {n} not found on object"))),
            }
        }
        (Step::Index(Value::Int(i)), Value::List(l)) => {
            if *i < 0 {
                None
            } else {
                Rc::make_mut(l).update(*i as usize, inner)
            }
        }
        (Step::Index(Value::Str(k)), Value::Map(m)) => Rc::make_mut(m).update(k, inner),
        (Step::Index(_), Value::List(_)) => {
            return Err(Exc::error("type error: expected int, found str"))
        }
        (_, other) => {
            return Err(Exc::error(format!(
                "cannot assign into {}",
                message_name(other)
            )))
        }
    };
    // An out-of-range index or missing key: a silent no-op, as for `xs[i] = v`.
    done.unwrap_or(Ok(()))
}
