//! `regex` free functions and `log` (§5.9). A bad pattern given to a free function is the runtime error
//! `invalid regex: <why>`; `regex.compile` returns it as `Err`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::display::display_into;
use crate::exc::{Exc, Res};
use crate::native::rc_str;
use crate::value::{Args, Host, RegexValue, Value};

/// The last line of the regex crate's error (`unclosed group`), so messages stay on one line.
fn why(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("error: ").map(str::to_string))
        .unwrap_or_else(|| text.trim().to_string())
}

/// Compiles `pat`, reusing recent compilations (scripts call the free functions in loops).
pub fn compile(pat: &str) -> Result<regex::Regex, String> {
    thread_local! {
        static CACHE: RefCell<HashMap<String, regex::Regex>> = RefCell::new(HashMap::new());
    }
    if let Some(r) = CACHE.with(|c| c.borrow().get(pat).cloned()) {
        return Ok(r);
    }
    let r = regex::Regex::new(pat).map_err(|e| format!("invalid regex: {}", why(&e)))?;
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 64 {
            c.clear();
        }
        c.insert(pat.to_string(), r.clone());
    });
    Ok(r)
}

fn compile_arg(args: &Args, i: usize) -> Res<regex::Regex> {
    compile(args.str(i)?).map_err(Exc::error)
}

pub(super) fn regex_is_match(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let hay = args.str(0)?;
    Ok(Value::Bool(compile_arg(args, 1)?.is_match(hay)))
}

pub(super) fn regex_find(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let hay = args.str(0)?;
    Ok(compile_arg(args, 1)?
        .find(hay)
        .map_or(Value::none(), |m| Value::some(rc_str(m.as_str()))))
}

pub(super) fn regex_captures(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let hay = args.str(0)?;
    Ok(match compile_arg(args, 1)?.captures(hay) {
        Some(c) => Value::some(Value::list(
            c.iter()
                .map(|g| rc_str(g.map_or("", |m| m.as_str())))
                .collect(),
        )),
        None => Value::none(),
    })
}

pub(super) fn regex_replace(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(3, 3)?;
    let (hay, rep) = (args.str(0)?, args.str(2)?);
    let re = compile_arg(args, 1)?;
    let n = re.find_iter(hay).count();
    host.reserve(
        hay.len()
            .saturating_add(n.saturating_mul(rep.len().saturating_add(hay.len().min(64)))),
    )?;
    Ok(rc_str(re.replace_all(hay, rep)))
}

pub(super) fn regex_compile(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let pat = args.str(0)?;
    Ok(match compile(pat) {
        Ok(regex) => Value::ok(Value::Regex(Rc::new(RegexValue {
            pattern: Rc::from(pat),
            regex,
        }))),
        Err(why) => Value::err(rc_str(why)),
    })
}

fn log_line(host: &mut dyn Host, level: &str, args: &Args) -> Res<Value> {
    let mut out = String::from(level);
    out.push_str(": ");
    for (i, v) in args.values.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        display_into(&mut out, v);
    }
    out.push('\n');
    host.write_stderr(&out)?;
    Ok(Value::Null)
}

pub(super) fn log_debug(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    log_line(host, "debug", args)
}

pub(super) fn log_info(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    log_line(host, "info", args)
}

pub(super) fn log_warn(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    log_line(host, "warn", args)
}

pub(super) fn log_error(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    log_line(host, "error", args)
}

#[cfg(test)]
mod tests {
    use crate::builtins::test_call as call;
    use crate::test_host::MockHost;
    use crate::value::Value;

    fn s(x: &str) -> Value {
        Value::str(x)
    }

    #[test]
    fn regex_functions() {
        let mut h = MockHost::new();
        assert_eq!(
            call(&mut h, "regex.is_match", vec![s("a1"), s(r"\d")]),
            "true"
        );
        assert_eq!(
            call(&mut h, "regex.find", vec![s("ab12c3"), s(r"\d+")]),
            "Some(12)"
        );
        assert_eq!(
            call(&mut h, "regex.find", vec![s("abc"), s(r"\d+")]),
            "None"
        );
        assert_eq!(
            call(
                &mut h,
                "regex.captures",
                vec![s("k=v"), s(r"(\w)=(\w)(x)?")]
            ),
            "Some([k=v, k, v, ])"
        );
        assert_eq!(
            call(
                &mut h,
                "regex.replace",
                vec![s("a1b22"), s(r"(\d+)"), s("<$1>")]
            ),
            "a<1>b<22>"
        );
        assert_eq!(
            call(
                &mut h,
                "regex.replace",
                vec![s("k=v"), s(r"(?P<k>\w)=(?P<v>\w)"), s("${v}=${k}")]
            ),
            "v=k"
        );
        assert_eq!(
            call(&mut h, "regex.is_match", vec![s("a"), s("(")]),
            "error: invalid regex: unclosed group"
        );
        assert_eq!(
            call(&mut h, "regex.compile", vec![s("(")]),
            "Err(invalid regex: unclosed group)"
        );
        assert_eq!(
            call(&mut h, "regex.compile", vec![s("a+")]),
            "Ok(<regex a+>)"
        );
    }

    #[test]
    fn log() {
        let mut h = MockHost::new();
        call(&mut h, "log.info", vec![s("a"), Value::Int(1)]);
        call(&mut h, "log.error", vec![]);
        assert_eq!(h.stderr, "info: a 1\nerror: \n");
        assert_eq!(h.stdout, "");
    }
}
