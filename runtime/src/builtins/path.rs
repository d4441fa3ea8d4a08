//! `path` (§5.4): lexical, `/`-separated. The component functions follow Rust's `std::path` on Unix
//! (the only platform the interpreter runs on), which is purely lexical there.

use std::path::Path;

use crate::exc::Res;
use crate::native::rc_str;
use crate::value::{Args, Host, Value};

pub use vox_caps::lexical::{join_str, normalize_str};

fn some_str(s: Option<&std::ffi::OsStr>) -> Value {
    s.map_or(Value::none(), |x| Value::some(rc_str(x.to_string_lossy())))
}

pub(super) fn join(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    Ok(rc_str(join_str(args.str(0)?, args.str(1)?)))
}

pub(super) fn join_many(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let mut acc: Option<String> = None;
    for item in args.list(0)? {
        let Value::Str(s) = item else {
            return Err(args.type_error(0, "list of str"));
        };
        acc = Some(match acc {
            None => s.to_string(),
            Some(a) => join_str(&a, s),
        });
    }
    Ok(rc_str(acc.unwrap_or_default()))
}

pub(super) fn extension(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(rc_str(
        Path::new(args.str(0)?)
            .extension()
            .map(|e| e.to_string_lossy())
            .unwrap_or_default(),
    ))
}

pub(super) fn parent(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(some_str(
        Path::new(args.str(0)?).parent().map(Path::as_os_str),
    ))
}

pub(super) fn file_name(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(some_str(Path::new(args.str(0)?).file_name()))
}

pub(super) fn stem(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(some_str(Path::new(args.str(0)?).file_stem()))
}

pub(super) fn basename(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(rc_str(
        Path::new(args.str(0)?)
            .file_name()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default(),
    ))
}

pub(super) fn dirname(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(rc_str(
        Path::new(args.str(0)?)
            .parent()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default(),
    ))
}

pub(super) fn is_absolute(_: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    Ok(Value::Bool(args.str(0)?.starts_with('/')))
}

pub(super) fn normalize(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let p = args.str(0)?;
    host.reserve(p.len().saturating_mul(3))?;
    Ok(rc_str(normalize_str(p)))
}

#[cfg(test)]
mod tests {
    use super::normalize_str;
    use crate::builtins::test_call as call;
    use crate::test_host::MockHost;
    use crate::value::Value;

    fn s(x: &str) -> Value {
        Value::str(x)
    }

    #[test]
    fn normalize_examples() {
        assert_eq!(normalize_str("a/./b/../c//"), "a/c");
        assert_eq!(normalize_str("/../a"), "/a");
        assert_eq!(normalize_str("../x/.."), "..");
        assert_eq!(normalize_str("C:\\x\\..\\y"), "C:/y");
        assert_eq!(normalize_str(""), ".");
        assert_eq!(normalize_str("./"), ".");
        assert_eq!(normalize_str("/"), "/");
        assert_eq!(normalize_str("/.."), "/");
        assert_eq!(normalize_str("../../a/../b"), "../../b");
        assert_eq!(normalize_str("e\u{301}"), "\u{e9}");
        let mut h = MockHost::new();
        assert_eq!(call(&mut h, "path.normalize", vec![s("a//b/")]), "a/b");
    }

    #[test]
    fn components() {
        let mut h = MockHost::new();
        assert_eq!(call(&mut h, "path.join", vec![s("a/"), s("b")]), "a/b");
        assert_eq!(call(&mut h, "path.join", vec![s("a"), s("b")]), "a/b");
        assert_eq!(call(&mut h, "path.join", vec![s("a"), s("/b")]), "/b");
        assert_eq!(call(&mut h, "path.join", vec![s(""), s("b")]), "b");
        assert_eq!(
            call(
                &mut h,
                "path.join_many",
                vec![Value::list(vec![s("a"), s("b/"), s("c")])]
            ),
            "a/b/c"
        );
        assert_eq!(
            call(&mut h, "path.join_many", vec![Value::list(vec![])]),
            ""
        );
        assert_eq!(call(&mut h, "path.extension", vec![s("a.tar.gz")]), "gz");
        assert_eq!(call(&mut h, "path.extension", vec![s(".bashrc")]), "");
        assert_eq!(call(&mut h, "path.extension", vec![s("d.x/file")]), "");
        assert_eq!(call(&mut h, "path.parent", vec![s("a/b")]), "Some(a)");
        assert_eq!(call(&mut h, "path.parent", vec![s("a")]), "Some()");
        assert_eq!(call(&mut h, "path.parent", vec![s("/")]), "None");
        assert_eq!(
            call(&mut h, "path.file_name", vec![s("d/x.txt")]),
            "Some(x.txt)"
        );
        assert_eq!(call(&mut h, "path.stem", vec![s("d/x.txt")]), "Some(x)");
        assert_eq!(call(&mut h, "path.file_name", vec![s("/")]), "None");
        assert_eq!(call(&mut h, "path.basename", vec![s("/")]), "");
        assert_eq!(call(&mut h, "path.basename", vec![s("d/x.txt")]), "x.txt");
        assert_eq!(call(&mut h, "path.dirname", vec![s("d/x.txt")]), "d");
        assert_eq!(call(&mut h, "path.dirname", vec![s("/")]), "");
        assert_eq!(call(&mut h, "path.is_absolute", vec![s("/x")]), "true");
        assert_eq!(call(&mut h, "path.is_absolute", vec![s("x")]), "false");
        assert_eq!(
            call(&mut h, "path.join", vec![s("a"), Value::Int(1)]),
            "error: type error: path.join argument 2: expected str, found int"
        );
    }
}
