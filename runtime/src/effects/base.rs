//! What every effect shares: the run context (effects cannot run in a pure host), `Ok`/`Err` string
//! values for operations that fail, and `list[str]` arguments.

use std::rc::Rc;

use crate::context::RunContext;
use crate::exc::{Exc, Res};
use crate::value::{Args, Host, Value};

/// The run's context; builtins with effects cannot run in a pure host.
pub(super) fn ctx<'a>(host: &'a mut dyn Host, what: &str) -> Res<&'a mut RunContext> {
    host.ctx()
        .ok_or_else(|| Exc::error(format!("{what} needs a run context")))
}

pub(super) fn str_value(s: impl Into<String>) -> Value {
    Value::Str(Rc::from(s.into()))
}

pub(super) fn ok_str(s: impl Into<String>) -> Value {
    Value::ok(str_value(s))
}

/// `Err(<message>)`: an operation that failed, as a value the script can match on.
pub(super) fn err_str(message: impl Into<String>) -> Value {
    Value::err(str_value(message))
}

/// The OS's wording of an I/O failure (platform-dependent, §5.3).
pub(super) fn os_err(e: &std::io::Error) -> Value {
    err_str(e.to_string())
}

/// A `list[str]` argument (program arguments, exit command arguments).
pub(super) fn str_list(args: &Args, index: usize) -> Res<Vec<String>> {
    let items = args.list(index)?;
    items
        .iter()
        .map(|v| match v {
            Value::Str(s) => Ok(s.to_string()),
            _ => Err(args.type_error(index, "list[str]")),
        })
        .collect()
}
