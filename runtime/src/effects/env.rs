//! `env.*`, `time.*` (§5.5), `secrets.resolve` and `agentos.*` (§5.9, decision 11). The evaluator
//! has checked the row's capability before any of these run.

use super::base::{ctx, str_value};
use crate::exc::{Exc, Res};
use crate::value::{Args, Host, Value};

/// The prefix of the variables `secrets.resolve` reads.
const SECRET_PREFIX: &str = "VOX_SECRET_";

/// `env.get`. A `VOX_SECRET_*` variable of the interpreter's environment belongs to the
/// `secrets` gate, not to `env:`: without `secrets:allow` it reads as unset (otherwise `env:ro`
/// would make the gate decorative). One the script set itself with `env.set` is its own.
pub(super) fn get(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let name = args.str(0)?;
    let ctx = ctx(host, &args.name)?;
    let value = if name.starts_with(SECRET_PREFIX) && !ctx.caps.secrets() {
        ctx.env_overrides
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    } else {
        ctx.env_var(name)
    };
    Ok(match value {
        Some(v) => Value::some(str_value(v)),
        None => Value::none(),
    })
}

pub(super) fn args(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(0, 0)?;
    let ctx = ctx(host, &args.name)?;
    Ok(Value::list(
        ctx.args.iter().map(|a| str_value(a.as_str())).collect(),
    ))
}

/// Records the variable for `env.get` and for children (decision 26); the interpreter's own
/// environment is left alone (changing it is not thread-safe, and children get it explicitly).
pub(super) fn set(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let name = args.str(0)?;
    let value = args.str(1)?;
    if name.is_empty() || name.contains(['=', '\0']) {
        return Err(Exc::error(format!(
            "env.set: invalid variable name {name:?}"
        )));
    }
    if value.contains('\0') {
        return Err(Exc::error(format!(
            "env.set: the value of {name} contains a NUL byte"
        )));
    }
    let ctx = ctx(host, &args.name)?;
    ctx.env_overrides
        .push((name.to_string(), value.to_string()));
    Ok(Value::Null)
}

pub(super) fn now_ms(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(0, 0)?;
    Ok(Value::Int(ctx(host, &args.name)?.now_ms()))
}

pub(super) fn monotonic_ms(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(0, 0)?;
    Ok(Value::Int(ctx(host, &args.name)?.monotonic_ms()))
}

/// `VOX_SECRET_<NAME>` (upper-cased), or null when unset (decision 11).
pub(super) fn secrets_resolve(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let var = format!("{SECRET_PREFIX}{}", args.str(0)?.to_uppercase());
    let ctx = ctx(host, &args.name)?;
    Ok(ctx.env_var(&var).map_or(Value::Null, str_value))
}

/// No agent host exists here: every tool is `"unknown"` (decision 11).
pub(super) fn mutation_kind_for_tool(_host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    args.str(0)?;
    Ok(str_value("unknown"))
}
