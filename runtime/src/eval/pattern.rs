//! Pattern matching (`match` arms, `let` destructuring tests).

use vox_hir::{Ctor, Pat, PatId};

use crate::equality;
use crate::exc::Exc;
use crate::value::Value;

use super::expr::lit_value;
use super::interp::{Flow, Interp};

impl<'p> Interp<'p> {
    pub(super) fn match_pat(&mut self, pat: PatId, v: &Value) -> Result<bool, Flow> {
        let m = self.m();
        Ok(match &m.pats[pat as usize] {
            Pat::Wild => true,
            Pat::Bind(slot) => {
                self.stack[self.base + *slot as usize] = v.clone();
                true
            }
            Pat::Lit(l) => equality::equals(v, &lit_value(l)),
            Pat::Tuple(ps) => {
                let items = match v {
                    Value::Tuple(t) => t.clone(),
                    Value::List(l) => l.clone(),
                    _ => return Ok(false),
                };
                if items.len() != ps.len() {
                    return Ok(false);
                }
                for (p, item) in ps.iter().zip(items.iter()) {
                    if !self.match_pat(*p, item)? {
                        return Ok(false);
                    }
                }
                true
            }
            Pat::Builtin(ctor, sub) => {
                let inner = match (ctor, v) {
                    (Ctor::Some, Value::Opt(Some(x))) => x.clone(),
                    (Ctor::Ok, Value::Res(Ok(x))) => x.clone(),
                    (Ctor::Err, Value::Res(Err(x))) => x.clone(),
                    _ => return Ok(false),
                };
                match sub {
                    Some(p) => self.match_pat(*p, &inner)?,
                    None => true,
                }
            }
            Pat::NoneCtor => matches!(v, Value::Opt(None) | Value::Null),
            Pat::Variant { name, fields } => {
                let Value::Tagged(t) = v else {
                    return Ok(false);
                };
                if t.variant != *name {
                    return Ok(false);
                }
                let subs: &[PatId] = fields.as_deref().unwrap_or(&[]);
                if subs.len() != t.values.len() {
                    return Ok(false);
                }
                let t = t.clone();
                for (p, item) in subs.iter().zip(t.values.iter()) {
                    if !self.match_pat(*p, item)? {
                        return Ok(false);
                    }
                }
                true
            }
            Pat::UnknownCtor(name) => {
                return Err(Exc::error(format!("unknown constructor `{name}` in pattern")).into())
            }
        })
    }

    // ---- statements ---------------------------------------------------------------------------
}
