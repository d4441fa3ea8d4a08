//! Tests of the effectful rows through a small host that owns a real `RunContext`, gating non-fs
//! rows the way the evaluator does.

use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use vox_caps::{parse_token, CapSet, Need};
use vox_jail::TempDir;

use vox_hir::{Cap, Nondet};

use super::table;
use crate::context::{CapsSource, RunContext};
use crate::display::display;
use crate::exc::{CeilingKind, Exc, QuotaKind, Res};
use crate::value::{Args, Host, VMap, Value};

struct FxHost {
    ctx: RunContext,
}

impl Host for FxHost {
    fn call(&mut self, _f: &Value, _args: Vec<Value>) -> Res<Value> {
        Err(Exc::error("no calls in effect tests"))
    }
    fn next_random(&mut self) -> u64 {
        self.ctx.next_random()
    }
    fn write_stdout(&mut self, text: &str) -> Res<()> {
        self.ctx.write_stdout(text)
    }
    fn write_stderr(&mut self, text: &str) -> Res<()> {
        self.ctx.write_stderr(text)
    }
    fn reserve(&mut self, _bytes: usize) -> Res<()> {
        Ok(())
    }
    fn ctx(&mut self) -> Option<&mut RunContext> {
        Some(&mut self.ctx)
    }
}

/// A host whose capabilities are `tokens` (receiver-imposed, so children are jailed), working
/// in `cwd`.
fn host(tokens: &[&str], cwd: &Path) -> FxHost {
    let parsed: Vec<_> = tokens
        .iter()
        .map(|t| parse_token(t, cwd).expect("token"))
        .collect();
    let mut ctx = RunContext::for_tests();
    ctx.caps = CapSet::from_tokens(&parsed).expect("caps");
    ctx.source = CapsSource::Flags;
    ctx.cwd = cwd.to_path_buf();
    FxHost { ctx }
}

/// The developer default: everything granted, children unconfined.
fn dev_host(cwd: &Path) -> FxHost {
    let mut ctx = RunContext::for_tests();
    ctx.cwd = cwd.to_path_buf();
    FxHost { ctx }
}

fn need_of(cap: Cap) -> Option<Need> {
    match cap {
        Cap::Net => Some(Need::Net),
        Cap::Process => Some(Need::Process),
        Cap::EnvRo => Some(Need::EnvRo),
        Cap::EnvRw => Some(Need::EnvRw),
        Cap::Secrets => Some(Need::Secrets),
        Cap::Time => Some(Need::Time),
        Cap::Random => Some(Need::Random),
        Cap::Agentos => Some(Need::Agentos),
        Cap::None | Cap::FsRead | Cap::FsWrite => None,
    }
}

/// Calls a row as the evaluator would: the generic gate first, then the function.
fn call(h: &mut FxHost, q: &str, args: Vec<Value>) -> Res<Value> {
    let (ns, name) = q.split_once('.').expect("qualified name");
    let def = table()
        .iter()
        .find(|d| d.ns == ns && d.name == name)
        .expect("row exists");
    if let Some(need) = need_of(def.cap) {
        h.ctx.gate(&def.qualified(), need)?;
    }
    (def.f)(h, &mut Args::new(def.qualified(), args))
}

fn show(r: Res<Value>) -> String {
    match r {
        Ok(v) => display(&v),
        Err(Exc::Error { message, .. }) => format!("error: {message}"),
        Err(e) => format!("exc: {e:?}"),
    }
}

fn s(x: impl AsRef<str>) -> Value {
    Value::Str(Rc::from(x.as_ref()))
}

fn strs(xs: &[&str]) -> Value {
    Value::list(xs.iter().map(s).collect())
}

fn p(path: &Path) -> Value {
    s(path.to_string_lossy())
}

fn denial(r: Res<Value>) -> (String, String) {
    match r {
        Err(Exc::Denied { what, token, .. }) => (what, token),
        other => panic!("expected a denial, got {other:?}"),
    }
}

fn sandbox() -> TempDir {
    TempDir::new().expect("temp dir")
}

/// Tests that start children run one at a time: like a real run, each treats every child of the
/// process as its own (the interpreter is a child subreaper that reaps, and on a stop kills,
/// all of them; decision 48), and the test harness runs tests on parallel threads of one process.
fn one_run_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn mkdirs(root: &Path, dirs: &[&str]) {
    for d in dirs {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
}

fn field(v: &Value, key: &str) -> Value {
    let inner = match v {
        Value::Opt(Some(x)) => (**x).clone(),
        Value::Res(Ok(x)) => (**x).clone(),
        other => other.clone(),
    };
    match inner {
        Value::Map(m) => m.get(key).cloned().unwrap_or(Value::Null),
        other => panic!("not a map: {other:?}"),
    }
}

// ---- the table ------------------------------------------------------------------------------

#[test]
fn rows_are_unique_and_capabilities_match_the_spec() {
    let mut seen = std::collections::HashSet::new();
    for d in table() {
        assert!(seen.insert((d.ns, d.name)), "duplicate {}", d.qualified());
        assert!(
            crate::builtins::lookup(d.ns, d.name).is_none(),
            "{} also pure",
            d.qualified()
        );
        let expected = match d.ns {
            "fs" if [
                "write",
                "write_file",
                "write_to_file",
                "copy",
                "remove",
                "remove_dir_all",
                "mkdir",
            ]
            .contains(&d.name) =>
            {
                Cap::FsWrite
            }
            "fs" | "path" => Cap::FsRead,
            "io" => match d.name {
                "open" => Cap::FsRead,
                "save" => Cap::FsWrite,
                _ => Cap::None,
            },
            "env" if d.name == "set" => Cap::EnvRw,
            "env" => Cap::EnvRo,
            "time" => Cap::Time,
            "http" => Cap::Net,
            "process" if d.name == "exit" => Cap::None,
            "process" => Cap::Process,
            "secrets" => Cap::Secrets,
            "agentos" => Cap::Agentos,
            other => panic!("unexpected namespace {other}"),
        };
        assert_eq!(d.cap, expected, "{}", d.qualified());
        if d.ns == "time" {
            assert_eq!(d.nondet, Nondet::Clock);
        }
    }
    assert_eq!(table().len(), 50);
}

// ---- fs -------------------------------------------------------------------------------------

#[test]
fn allowed_read_and_write() {
    let t = sandbox();
    let root = t.path();
    let mut h = host(&[&format!("fs:rw={}", root.display())], root);
    assert_eq!(
        show(call(&mut h, "fs.write", vec![s("a.txt"), s("héllo")])),
        "Ok(true)"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "héllo"
    );
    assert_eq!(
        show(call(&mut h, "fs.read", vec![p(&root.join("a.txt"))])),
        "Ok(héllo)"
    );
    assert_eq!(
        show(call(&mut h, "fs.read_to_string", vec![s("a.txt")])),
        "Ok(héllo)"
    );
    std::fs::write(root.join("bin"), b"a\xffb").unwrap();
    assert!(show(call(&mut h, "fs.read", vec![s("bin")])).starts_with("Err("));
    assert_eq!(
        show(call(&mut h, "fs.read_bytes", vec![s("bin")])),
        "Ok(a\u{fffd}b)"
    );
    assert!(show(call(&mut h, "fs.read", vec![s("missing.txt")])).starts_with("Err(No such file"));
    assert_eq!(show(call(&mut h, "fs.exists", vec![s("a.txt")])), "true");
    assert_eq!(show(call(&mut h, "fs.is_file", vec![s("a.txt")])), "true");
    assert_eq!(show(call(&mut h, "fs.is_dir", vec![s(".")])), "true");
    assert_eq!(show(call(&mut h, "fs.exists", vec![s("nope")])), "false");
    let canon = format!("Ok({})", root.join("a.txt").display());
    assert_eq!(
        show(call(&mut h, "fs.canonicalize", vec![s("./a.txt")])),
        canon
    );
    assert_eq!(show(call(&mut h, "path.resolve", vec![s("a.txt")])), canon);
    assert_eq!(
        show(call(&mut h, "fs.cwd", vec![])),
        format!("Ok({})", root.display())
    );
    // Parents are not created by write.
    assert!(show(call(&mut h, "fs.write", vec![s("new/deeper.txt"), s("x")])).starts_with("Err("));
    // Kind errors are runtime errors.
    assert_eq!(
        show(call(&mut h, "fs.write", vec![s("a.txt"), Value::Int(3)])),
        "error: type error: fs.write argument 2: expected str, found int"
    );
}

#[test]
fn denied_read_names_the_directory_and_reads_nothing() {
    let t = sandbox();
    let root = t.path();
    mkdirs(root, &["a", "b"]);
    std::fs::write(root.join("b/x.txt"), "secret").unwrap();
    let mut h = host(&[&format!("fs:ro={}", root.join("a").display())], root);
    let (what, token) = denial(call(&mut h, "fs.read", vec![p(&root.join("b/x.txt"))]));
    assert_eq!(what, "fs.read");
    assert_eq!(
        token,
        format!("grant with --caps fs:ro={}", root.join("b").display())
    );
    // An alias is named as called.
    let (what, _) = denial(call(&mut h, "fs.read_file", vec![s("b/x.txt")]));
    assert_eq!(what, "fs.read_file");
    let (what, token) = denial(call(&mut h, "fs.list_dir", vec![s("b")]));
    assert_eq!(what, "fs.list_dir");
    assert_eq!(
        token,
        format!("grant with --caps fs:ro={}", root.join("b").display())
    );
    // fs.cwd needs some fs grant, no path check; with none it is denied.
    assert!(call(&mut h, "fs.cwd", vec![]).is_ok());
    let mut none = host(&["none"], root);
    let (what, _) = denial(call(&mut none, "fs.cwd", vec![]));
    assert_eq!(what, "fs.cwd");
}

#[test]
fn denied_write_leaves_no_file() {
    let t = sandbox();
    let root = t.path();
    let mut h = host(&[&format!("fs:ro={}", root.display())], root);
    let (what, token) = denial(call(&mut h, "fs.write", vec![s("x.txt"), s("data")]));
    assert_eq!(what, "fs.write");
    assert_eq!(token, format!("grant with --caps fs:rw={}", root.display()));
    assert!(!root.join("x.txt").exists());
    denial(call(&mut h, "fs.mkdir", vec![s("d/e")]));
    assert!(!root.join("d").exists());
    denial(call(&mut h, "io.save", vec![s("x.json"), Value::Int(1)]));
    assert!(!root.join("x.json").exists());
    std::fs::write(root.join("keep"), "k").unwrap();
    denial(call(&mut h, "fs.remove", vec![s("keep")]));
    denial(call(&mut h, "fs.copy", vec![s("keep"), s("copy")]));
    assert!(root.join("keep").exists() && !root.join("copy").exists());
}

#[test]
fn dotdot_symlink_and_prefix_escapes_are_denied() {
    let t = sandbox();
    let root = t.path();
    mkdirs(root, &["job", "jobx", "outside"]);
    std::fs::write(root.join("outside/secret"), "s").unwrap();
    std::fs::write(root.join("jobx/f"), "f").unwrap();
    std::os::unix::fs::symlink(root.join("outside"), root.join("job/link")).unwrap();
    let job = root.join("job");
    let mut h = host(&[&format!("fs:rw={}", job.display())], &job);
    // `..` out of the root, absolute and relative.
    denial(call(&mut h, "fs.write", vec![p(&job.join("../x")), s("x")]));
    denial(call(&mut h, "fs.write", vec![s("../x"), s("x")]));
    assert!(!root.join("x").exists());
    // `..` after a component that does not exist is refused outright.
    let (_, why) = denial(call(&mut h, "fs.write", vec![s("nodir/../y"), s("y")]));
    assert!(why.contains(".."), "{why}");
    // A symlink leaving the root.
    denial(call(&mut h, "fs.read", vec![s("link/secret")]));
    denial(call(&mut h, "fs.write", vec![s("link/new"), s("n")]));
    assert!(!root.join("outside/new").exists());
    // `/…/job` does not admit `/…/jobx`.
    let (_, token) = denial(call(&mut h, "fs.read", vec![p(&root.join("jobx/f"))]));
    assert_eq!(
        token,
        format!("grant with --caps fs:ro={}", root.join("jobx").display())
    );
    // A target that does not exist yet under the rw root is fine.
    assert_eq!(show(call(&mut h, "fs.mkdir", vec![s("n1/n2")])), "Ok(true)");
    assert_eq!(
        show(call(&mut h, "fs.write", vec![s("n1/n2/f.txt"), s("ok")])),
        "Ok(true)"
    );
    assert_eq!(show(call(&mut h, "fs.mkdir", vec![s("n1")])), "Ok(true)");
}

#[test]
fn writes_do_not_follow_a_final_symlink() {
    let t = sandbox();
    let root = t.path();
    std::fs::write(root.join("target"), "t").unwrap();
    std::os::unix::fs::symlink(root.join("target"), root.join("planted")).unwrap();
    // As if the link had been planted between the check and the open.
    let e = super::fs::open_for_write(&root.join("planted"), 0o666).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
    assert_eq!(std::fs::read_to_string(root.join("target")).unwrap(), "t");
}

#[test]
fn quotas_trip_before_writing() {
    let t = sandbox();
    let root = t.path();
    let mut h = host(&[&format!("fs:rw={}", root.display())], root);
    h.ctx.limits.max_disk = Some(10);
    assert_eq!(
        show(call(&mut h, "fs.write", vec![s("a"), s("12345")])),
        "Ok(true)"
    );
    match call(&mut h, "fs.write", vec![s("b"), s("123456")]) {
        Err(Exc::Quota {
            kind: QuotaKind::Disk,
            hint,
            ..
        }) => assert_eq!(hint, "raise --max-disk"),
        other => panic!("{other:?}"),
    }
    assert!(!root.join("b").exists());
    let mut h = host(&[&format!("fs:rw={}", root.display())], root);
    h.ctx.limits.max_files = Some(2);
    assert_eq!(
        show(call(&mut h, "fs.write", vec![s("c"), s("")])),
        "Ok(true)"
    );
    // Rewriting an existing file creates nothing.
    assert_eq!(
        show(call(&mut h, "fs.write", vec![s("c"), s("again")])),
        "Ok(true)"
    );
    match call(&mut h, "fs.mkdir", vec![s("d1/d2")]) {
        Err(Exc::Quota {
            kind: QuotaKind::Files,
            hint,
            ..
        }) => assert_eq!(hint, "raise --max-files"),
        other => panic!("{other:?}"),
    }
    assert!(!root.join("d1").exists());
    assert_eq!(
        show(call(&mut h, "fs.write", vec![s("e"), s("")])),
        "Ok(true)"
    );
    assert!(matches!(
        call(&mut h, "fs.copy", vec![s("e"), s("f")]),
        Err(Exc::Quota {
            kind: QuotaKind::Files,
            ..
        })
    ));
    assert!(!root.join("f").exists());
}

#[test]
fn copy_remove_mkdir_and_stat() {
    let t = sandbox();
    let root = t.path();
    let mut h = host(&[&format!("fs:rw={}", root.display())], root);
    std::fs::write(root.join("src.txt"), "data").unwrap();
    assert_eq!(
        show(call(&mut h, "fs.copy", vec![s("src.txt"), s("dst.txt")])),
        "Ok(true)"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("dst.txt")).unwrap(),
        "data"
    );
    assert_eq!(h.ctx.disk_used, 4);
    assert!(show(call(&mut h, "fs.copy", vec![s("src.txt"), s("./src.txt")])).starts_with("Err("));
    assert_eq!(
        std::fs::read_to_string(root.join("src.txt")).unwrap(),
        "data"
    );
    // Removing a symlink removes the link, not its target.
    std::os::unix::fs::symlink(root.join("src.txt"), root.join("ln")).unwrap();
    let st = call(&mut h, "fs.stat", vec![s("ln")]).unwrap();
    let keys: Vec<String> = match &st {
        Value::Res(Ok(m)) => match &***m {
            Value::Map(m) => m.keys().map(|k| k.to_string()).collect(),
            _ => panic!(),
        },
        _ => panic!("{st:?}"),
    };
    assert_eq!(
        keys,
        [
            "name",
            "path",
            "size",
            "modified_ms",
            "is_dir",
            "is_file",
            "is_symlink"
        ]
    );
    assert_eq!(display(&field(&st, "name")), "ln");
    assert_eq!(display(&field(&st, "size")), "4");
    assert_eq!(display(&field(&st, "is_symlink")), "true");
    assert_eq!(display(&field(&st, "is_file")), "true");
    assert!(matches!(field(&st, "modified_ms"), Value::Int(ms) if ms > 1_600_000_000_000));
    assert_eq!(show(call(&mut h, "fs.remove", vec![s("ln")])), "Ok(true)");
    assert!(root.join("src.txt").exists() && !root.join("ln").exists());
    assert!(show(call(&mut h, "fs.remove", vec![s("ln")])).starts_with("Err("));
    assert_eq!(show(call(&mut h, "fs.mkdir", vec![s("t/u/v")])), "Ok(true)");
    assert_eq!(h.ctx.files_created, 4);
    std::fs::write(root.join("t/u/v/f"), "x").unwrap();
    assert!(show(call(&mut h, "fs.remove", vec![s("t")])).starts_with("Err("));
    assert_eq!(
        show(call(&mut h, "fs.remove_dir_all", vec![s("t")])),
        "Ok(null)"
    );
    assert!(!root.join("t").exists());
}

#[test]
fn list_dir_and_detailed_with_perturb() {
    let t = sandbox();
    let root = t.path();
    for i in 0..12 {
        std::fs::write(root.join(format!("f{i:02}")), "x").unwrap();
    }
    let mut h = host(&[&format!("fs:ro={}", root.display())], root);
    let listed = |h: &mut FxHost| match call(h, "fs.list_dir", vec![]).unwrap() {
        Value::Res(Ok(v)) => match &**v {
            Value::List(items) => items.iter().map(display).collect::<Vec<_>>(),
            _ => panic!(),
        },
        other => panic!("{other:?}"),
    };
    let mut plain = listed(&mut h);
    h.ctx.perturb = Some(7);
    let a = listed(&mut h);
    let b = listed(&mut h);
    assert_eq!(a, b, "the same seed gives the same order");
    h.ctx.perturb = Some(8);
    let c = listed(&mut h);
    assert_ne!(a, c, "another seed, another order");
    let mut sorted_a = a.clone();
    sorted_a.sort();
    plain.sort();
    assert_eq!(sorted_a, plain);
    let detailed = call(&mut h, "fs.list_dir_detailed", vec![s(".")]).unwrap();
    let shown = display(&detailed);
    assert!(
        shown.contains("path: ./f00") && shown.contains("is_file: true"),
        "{shown}"
    );
}

#[test]
fn glob_is_sorted_filtered_and_checked() {
    let t = sandbox();
    let root = t.path();
    mkdirs(root, &["job/sub/deep", "job/.dot", "outside"]);
    for f in [
        "job/b.txt",
        "job/a.txt",
        "job/.hidden.txt",
        "job/c.md",
        "job/sub/c.txt",
        "job/sub/deep/d.txt",
        "job/.dot/e.txt",
        "outside/o.txt",
    ] {
        std::fs::write(root.join(f), "x").unwrap();
    }
    std::os::unix::fs::symlink(root.join("outside/o.txt"), root.join("job/z-link.txt")).unwrap();
    std::os::unix::fs::symlink(root.join("outside"), root.join("job/zdir")).unwrap();
    let job = root.join("job");
    let mut h = host(&[&format!("fs:ro={}", job.display())], &job);
    assert_eq!(
        show(call(&mut h, "fs.glob", vec![s("*.txt")])),
        "Ok([.hidden.txt, a.txt, b.txt])"
    );
    assert_eq!(
        show(call(&mut h, "fs.glob", vec![s("**/*.txt")])),
        "Ok([.dot/e.txt, .hidden.txt, a.txt, b.txt, sub/c.txt, sub/deep/d.txt])"
    );
    let abs = format!("{}/sub/**", job.display());
    let j = job.display();
    assert_eq!(
        show(call(&mut h, "fs.glob", vec![s(&abs)])),
        format!("Ok([{j}/sub/c.txt, {j}/sub/deep, {j}/sub/deep/d.txt])")
    );
    assert_eq!(
        show(call(&mut h, "fs.glob", vec![s("[ab].txt")])),
        "Ok([a.txt, b.txt])"
    );
    assert_eq!(
        show(call(&mut h, "fs.glob", vec![s("[!a.]?txt")])),
        "Ok([b.txt])"
    );
    assert_eq!(
        show(call(&mut h, "fs.glob", vec![s("[!a]*.txt")])),
        "Ok([.hidden.txt, b.txt])"
    );
    assert_eq!(
        show(call(&mut h, "fs.glob", vec![s("sub/c.txt")])),
        "Ok([sub/c.txt])"
    );
    // A symlinked directory leading out of the roots: as a base it is denied, matched by a
    // wildcard it is not entered.
    denial(call(&mut h, "fs.glob", vec![s("zdir/*")]));
    assert_eq!(show(call(&mut h, "fs.glob", vec![s("z*/o.txt")])), "Ok([])");
    assert!(show(call(&mut h, "fs.glob", vec![s("[ab")])).starts_with("Err(invalid glob pattern"));
    // A base outside every root is a denial (decision 18).
    let (what, token) = denial(call(
        &mut h,
        "fs.glob",
        vec![p(&root.join("outside/*.txt"))],
    ));
    assert_eq!(what, "fs.glob");
    assert_eq!(
        token,
        format!("grant with --caps fs:ro={}", root.join("outside").display())
    );
    assert_eq!(
        show(call(&mut h, "fs.walk", vec![s(".")])),
        "Ok([./.dot/e.txt, ./.hidden.txt, ./a.txt, ./b.txt, ./c.md, ./sub/c.txt, ./sub/deep/d.txt])"
    );
    assert_eq!(
        show(call(&mut h, "fs.list_recursive", vec![s("sub/")])),
        "Ok([sub/c.txt, sub/deep/d.txt])"
    );
    denial(call(&mut h, "fs.walk", vec![s("../outside")]));
}

// ---- io -------------------------------------------------------------------------------------

#[test]
fn io_open_and_save_by_extension() {
    let t = sandbox();
    let root = t.path();
    let mut h = host(&[&format!("fs:rw={}", root.display())], root);
    let mut m = VMap::new();
    m.insert(Rc::from("b"), Value::Int(1));
    m.insert(Rc::from("a"), strs(&["x", "y"]));
    let v = Value::map(m);
    for ext in ["json", "toml", "yaml", "yml"] {
        let name = format!("d.{ext}");
        assert_eq!(
            show(call(&mut h, "io.save", vec![s(&name), v.clone()])),
            "Ok(null)",
            "{ext}"
        );
        assert_eq!(
            show(call(&mut h, "io.open", vec![s(&name)])),
            "Ok({b: 1, a: [x, y]})",
            "{ext}"
        );
    }
    std::fs::write(root.join("r.csv"), "name,age\nAnn,3\n").unwrap();
    let recs = call(&mut h, "io.open", vec![s("r.csv")]).unwrap();
    assert_eq!(display(&recs), "Ok([{name: Ann, age: 3}])");
    let Value::Res(Ok(list)) = recs else { panic!() };
    assert_eq!(
        show(call(&mut h, "io.save", vec![s("s.csv"), (*list).clone()])),
        "Ok(null)"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("s.csv")).unwrap(),
        "name,age\nAnn,3\n"
    );
    assert!(show(call(&mut h, "io.open", vec![s("x.txt")]))
        .starts_with("Err(unsupported file extension"));
    assert!(
        show(call(&mut h, "io.save", vec![s("x.txt"), Value::Int(1)]))
            .starts_with("Err(unsupported")
    );
    assert!(!root.join("x.txt").exists());
    std::fs::write(root.join("bad.json"), "{").unwrap();
    assert!(show(call(&mut h, "io.open", vec![s("bad.json")])).starts_with("Err("));
    assert!(show(call(&mut h, "io.open", vec![s("none.json")])).starts_with("Err(No such file"));
}

// ---- env, time, secrets, agentos ------------------------------------------------------------

#[test]
fn env_rows() {
    let t = sandbox();
    let mut h = host(&["env:ro"], t.path());
    h.ctx.args = vec!["script.vox".into(), "one".into()];
    assert_eq!(show(call(&mut h, "env.args", vec![])), "[script.vox, one]");
    assert_eq!(
        show(call(&mut h, "env.get", vec![s("VOX_FX_SURELY_UNSET")])),
        "None"
    );
    assert!(show(call(&mut h, "env.get", vec![s("PATH")])).starts_with("Some("));
    let (what, token) = denial(call(&mut h, "env.set", vec![s("A"), s("1")]));
    assert_eq!(
        (what.as_str(), token.as_str()),
        ("env.set", "grant with --caps env:rw")
    );
    let mut h = host(&["env:rw"], t.path());
    assert_eq!(
        show(call(&mut h, "env.set", vec![s("VOX_FX_A"), s("1")])),
        "null"
    );
    assert_eq!(
        show(call(&mut h, "env.get", vec![s("VOX_FX_A")])),
        "Some(1)"
    );
    assert!(
        show(call(&mut h, "env.set", vec![s("A"), Value::Int(1)])).starts_with("error: type error")
    );
    assert!(show(call(&mut h, "env.set", vec![s("A=B"), s("1")])).starts_with("error: env.set"));
    let mut none = host(&["none"], t.path());
    let (_, token) = denial(call(&mut none, "env.get", vec![s("PATH")]));
    assert_eq!(token, "grant with --caps env:ro");
}

#[test]
fn time_frozen_real_and_denied() {
    let t = sandbox();
    let mut h = host(&["time:frozen=1234"], t.path());
    assert_eq!(show(call(&mut h, "time.now_ms", vec![])), "1234");
    assert_eq!(show(call(&mut h, "time.now", vec![])), "1234");
    assert_eq!(show(call(&mut h, "time.monotonic_ms", vec![])), "1234");
    let mut h = host(&["time:real"], t.path());
    let now = call(&mut h, "time.now_ms", vec![]).unwrap();
    assert!(matches!(now, Value::Int(ms) if ms > 1_600_000_000_000));
    let a = call(&mut h, "time.monotonic_ms", vec![]).unwrap();
    let b = call(&mut h, "time.monotonic_ms", vec![]).unwrap();
    assert!(matches!((a, b), (Value::Int(a), Value::Int(b)) if b >= a));
    let mut none = host(&["none"], t.path());
    let (_, token) = denial(call(&mut none, "time.now_ms", vec![]));
    assert_eq!(token, "grant with --caps time:real");
}

#[test]
fn secrets_and_agentos() {
    let t = sandbox();
    let mut h = host(&["secrets:allow", "agentos:allow"], t.path());
    std::env::set_var("VOX_SECRET_FX_API", "sk-123");
    assert_eq!(
        show(call(&mut h, "secrets.resolve", vec![s("fx_api")])),
        "sk-123"
    );
    assert_eq!(
        show(call(&mut h, "secrets.resolve", vec![s("fx_unset_name")])),
        "null"
    );
    assert_eq!(
        show(call(
            &mut h,
            "agentos.mutation_kind_for_tool",
            vec![s("edit")]
        )),
        "unknown"
    );
    let mut none = host(&["none"], t.path());
    assert_eq!(
        denial(call(&mut none, "secrets.resolve", vec![s("x")])).1,
        "grant with --caps secrets:allow"
    );
    assert_eq!(
        denial(call(
            &mut none,
            "agentos.mutation_kind_for_tool",
            vec![s("x")]
        ))
        .1,
        "grant with --caps agentos:allow"
    );
}

#[test]
fn http_needs_net_and_reports_failures_as_values() {
    let t = sandbox();
    let mut none = host(&["none"], t.path());
    let (what, token) = denial(call(
        &mut none,
        "http.get_text",
        vec![s("http://127.0.0.1:9/")],
    ));
    assert_eq!(
        (what.as_str(), token.as_str()),
        ("http.get_text", "grant with --caps net:allow")
    );
    let mut h = host(&["net:allow"], t.path());
    // Nothing listens on the discard port: a refused connection is an Err value.
    assert!(show(call(
        &mut h,
        "http.get_text",
        vec![s("http://127.0.0.1:9/")]
    ))
    .starts_with("Err("));
    assert!(show(call(
        &mut h,
        "http.post_json",
        vec![s("not a url"), s("{}")]
    ))
    .starts_with("Err("));
}

#[test]
fn http_status_and_body() {
    use std::io::{BufRead as _, BufReader, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        for (status, body) in [("200 OK", "hello"), ("404 Not Found", "missing")] {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            let mut content_type = String::new();
            while reader.read_line(&mut line).unwrap() > 0 && line != "\r\n" {
                if line.to_ascii_lowercase().starts_with("content-type:") {
                    content_type = line.trim().to_string();
                }
                line.clear();
            }
            let mut out = stream;
            let reply = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\nX-Ct: {content_type}\r\n\r\n{body}",
                body.len()
            );
            out.write_all(reply.as_bytes()).unwrap();
        }
    });
    let t = sandbox();
    let mut h = host(&["net:allow"], t.path());
    let url = format!("http://127.0.0.1:{port}/x");
    assert_eq!(
        show(call(&mut h, "http.get_text", vec![s(&url)])),
        "Ok(hello)"
    );
    assert_eq!(
        show(call(&mut h, "http.post_json", vec![s(&url), s("{}")])),
        "Err(HTTP status 404)"
    );
    server.join().unwrap();
}

// ---- process --------------------------------------------------------------------------------

#[test]
fn run_and_capture() {
    let _one = one_run_at_a_time();
    let t = sandbox();
    let mut h = dev_host(t.path());
    let r = call(
        &mut h,
        "process.run",
        vec![s("echo"), strs(&["hi", "there"])],
    )
    .unwrap();
    assert_eq!(display(&r), "Some({stdout: hi there\n, stderr: , code: 0})");
    assert_eq!(
        show(call(
            &mut h,
            "process.spawn",
            vec![s("vox-no-such-program"), strs(&[])]
        )),
        "None"
    );
    let r = call(
        &mut h,
        "process.run_capture",
        vec![s("sh"), strs(&["-c", "echo out; echo err >&2; exit 3"])],
    )
    .unwrap();
    assert_eq!(display(&r), "Ok({exit: 3, stdout: out\n, stderr: err\n})");
    assert!(show(call(
        &mut h,
        "process.run_capture",
        vec![s("vox-no-such-program"), strs(&[])]
    ))
    .starts_with("Err("));
    // Killed by SIGKILL (9): 128 + 9.
    let r = call(
        &mut h,
        "process.run_capture",
        vec![s("sh"), strs(&["-c", "kill -9 $$"])],
    )
    .unwrap();
    assert_eq!(display(&field(&r, "exit")), "137");
    // No shell: arguments are passed verbatim.
    let r = call(
        &mut h,
        "process.run_capture",
        vec![s("echo"), strs(&["$HOME", "*"])],
    )
    .unwrap();
    assert_eq!(display(&field(&r, "stdout")), "$HOME *\n");
    // Captured children get an empty stdin.
    let r = call(&mut h, "process.run_capture", vec![s("cat"), strs(&[])]).unwrap();
    assert_eq!(display(&field(&r, "stdout")), "");
    assert_eq!(
        show(call(
            &mut h,
            "process.run_capture_lines",
            vec![s("printf"), strs(&["a\\nb\\r\\n"])]
        )),
        "Ok([a, b])"
    );
    assert_eq!(
        show(call(
            &mut h,
            "process.run_capture_json",
            vec![s("echo"), strs(&["{\"a\": [1, 2]}"])]
        )),
        "Ok({a: [1, 2]})"
    );
    assert!(show(call(
        &mut h,
        "process.run_capture_json",
        vec![s("echo"), strs(&["nope"])]
    ))
    .starts_with("Err("));
    // cwd is relative to the run's directory.
    std::fs::create_dir(t.path().join("sub")).unwrap();
    let r = call(
        &mut h,
        "process.run_capture_ex",
        vec![s("pwd"), strs(&[]), s("sub"), strs(&[])],
    )
    .unwrap();
    assert_eq!(
        display(&field(&r, "stdout")),
        format!("{}\n", t.path().join("sub").display())
    );
    assert_eq!(
        show(call(
            &mut h,
            "process.run_ex",
            vec![s("true"), strs(&[]), s("")]
        )),
        "Ok(0)"
    );
    assert_eq!(
        show(call(
            &mut h,
            "process.run_ex",
            vec![s("false"), strs(&[]), s(".")]
        )),
        "Ok(1)"
    );
    assert!(show(call(&mut h, "process.which", vec![s("sh")])).starts_with("Some(/"));
    assert_eq!(
        show(call(
            &mut h,
            "process.which",
            vec![s("vox-no-such-program")]
        )),
        "None"
    );
    assert_eq!(
        show(call(&mut h, "process.cwd", vec![])),
        format!("Ok({})", t.path().display())
    );
    assert_eq!(
        show(call(
            &mut h,
            "process.run",
            vec![s("echo"), strs(&[]).clone(), Value::Null]
        )),
        "error: function `process.run` expects 2 arguments, got 3"
    );
    assert!(show(call(
        &mut h,
        "process.run",
        vec![s("echo"), Value::list(vec![Value::Int(1)])]
    ))
    .starts_with("error: type error: process.run argument 2: expected list[str]"));
}

#[test]
fn exit_and_exit_commands() {
    let _one = one_run_at_a_time();
    let t = sandbox();
    // process.exit needs no capability (decision 9).
    let mut none = host(&["none"], t.path());
    assert!(matches!(
        call(&mut none, "process.exit", vec![Value::Int(3)]),
        Err(Exc::Exit(3))
    ));
    assert_eq!(
        show(call(&mut none, "process.exit", vec![Value::Int(256)])),
        "error: process.exit: code out of range"
    );
    assert_eq!(
        show(call(&mut none, "process.exit", vec![Value::Int(-1)])),
        "error: process.exit: code out of range"
    );
    let (_, token) = denial(call(
        &mut none,
        "process.register_exit_command",
        vec![s("echo"), strs(&[])],
    ));
    assert_eq!(token, "grant with --caps process:allow");
    let mut h = dev_host(t.path());
    assert_eq!(
        show(call(
            &mut h,
            "process.register_exit_command",
            vec![s("echo"), strs(&["bye"])]
        )),
        "Ok(null)"
    );
    assert_eq!(
        h.ctx.exit_commands,
        vec![("echo".to_string(), vec!["bye".to_string()])]
    );
    // With exit commands queued, exec runs the child and exits with its code (decision 24).
    assert!(matches!(
        call(
            &mut h,
            "process.exec",
            vec![s("sh"), strs(&["-c", "exit 5"])]
        ),
        Err(Exc::Exit(5))
    ));
    assert!(show(call(
        &mut h,
        "process.exec",
        vec![s("vox-no-such-program"), strs(&[])]
    ))
    .starts_with("Err("));
}

#[test]
fn timeout_kills_the_child_group() {
    let _one = one_run_at_a_time();
    let t = sandbox();
    let mut h = dev_host(t.path());
    h.ctx.limits.timeout_secs = Some(1);
    for (program, argv) in [
        ("process.run_capture", vec!["sleep", "30"]),
        // A grandchild in the same group keeps the pipes open.
        ("process.run_capture", vec!["sh", "-c", "sleep 30 & wait"]),
        // The child exits at once but its background grandchild holds stdout.
        ("process.run_capture", vec!["sh", "-c", "sleep 30 &"]),
        ("process.run_ex", vec!["sleep", "30"]),
    ] {
        h.ctx.deadline = Some(Instant::now() + Duration::from_millis(300));
        let start = Instant::now();
        let mut vals = vec![s(argv[0]), strs(&argv[1..])];
        if program == "process.run_ex" {
            vals.push(s("."));
        }
        match call(&mut h, program, vals) {
            Err(Exc::Ceiling {
                kind: CeilingKind::Timeout,
                limit: 1,
                ..
            }) => {}
            other => panic!("{argv:?}: {other:?}"),
        }
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{argv:?} took {:?}",
            start.elapsed()
        );
    }
    // exec under --timeout runs the child instead of replacing the interpreter.
    h.ctx.deadline = Some(Instant::now() + Duration::from_secs(20));
    assert!(matches!(
        call(&mut h, "process.exec", vec![s("true"), strs(&[])]),
        Err(Exc::Exit(0))
    ));
}

#[test]
fn background_children_and_mesh() {
    let _one = one_run_at_a_time();
    let t = sandbox();
    let mut h = dev_host(t.path());
    let marker = t.path().join("bg-done");
    let r = call(
        &mut h,
        "process.spawn_background",
        vec![
            s("sh"),
            strs(&["-c", &format!("touch {}", marker.display())]),
        ],
    )
    .unwrap();
    assert!(
        matches!(&r, Value::Res(Ok(pid)) if matches!(***pid, Value::Int(n) if n > 0)),
        "{r:?}"
    );
    let start = Instant::now();
    while !marker.exists() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(marker.exists());
    h.ctx.mesh = true;
    let (what, _) = denial(call(
        &mut h,
        "process.spawn_background",
        vec![s("true"), strs(&[])],
    ));
    assert_eq!(what, "process.spawn_background");
}

#[test]
fn unconfined_children_see_the_environment_and_overrides() {
    let _one = one_run_at_a_time();
    std::env::set_var("VOX_FX_SECRET_TOKEN_DEV", "parent-value");
    let t = sandbox();
    let mut h = dev_host(t.path());
    let mut env = VMap::new();
    env.insert(Rc::from("VOX_FX_GIVEN"), s("given"));
    h.ctx
        .env_overrides
        .push(("VOX_FX_SET".into(), "set".into()));
    let r = call(
        &mut h,
        "process.run_capture_ex",
        vec![
            s("sh"),
            strs(&[
                "-c",
                "echo $VOX_FX_SECRET_TOKEN_DEV $VOX_FX_SET $VOX_FX_GIVEN",
            ]),
            s("."),
            Value::map(env),
        ],
    )
    .unwrap();
    assert_eq!(display(&field(&r, "stdout")), "parent-value set given\n");
}

/// What a jail test expects on this host: confinement, or a refusal naming why.
fn jail_gap(net: bool) -> Option<String> {
    vox_jail::probe().child_gap(net)
}

#[test]
fn jailed_child_cannot_write_outside_and_sees_a_scrubbed_environment() {
    let _one = one_run_at_a_time();
    std::env::set_var("VOX_FX_SECRET_TOKEN", "parent-secret");
    let t = sandbox();
    let root = t.path();
    mkdirs(root, &["job", "out"]);
    let job = root.join("job");
    let out = root.join("out");
    let mut h = host(
        &["process:allow", &format!("fs:rw={}", job.display())],
        &job,
    );
    h.ctx
        .env_overrides
        .push(("VOX_FX_SET".into(), "set".into()));
    let script = format!(
        "echo inside > {job}/in.txt; echo outside > {out}/out.txt; \
         echo \"[$VOX_FX_SECRET_TOKEN][$VOX_FX_SET][$VOX_FX_PASSED][$TMPDIR]\"",
        job = job.display(),
        out = out.display()
    );
    let mut env = VMap::new();
    env.insert(Rc::from("VOX_FX_PASSED"), s("passed"));
    let r = call(
        &mut h,
        "process.run_capture_ex",
        vec![s("sh"), strs(&["-c", &script]), s("."), Value::map(env)],
    );
    if let Some(gap) = jail_gap(false) {
        match r {
            Err(Exc::Unconfinable { reason, .. }) => assert_eq!(reason, gap),
            other => panic!("expected a refusal ({gap}), got {other:?}"),
        }
        assert!(!out.join("out.txt").exists() && !job.join("in.txt").exists());
        return;
    }
    let r = r.expect("jailed run");
    assert!(job.join("in.txt").exists(), "{r:?}");
    assert!(
        !out.join("out.txt").exists(),
        "the jail let the child write outside: {r:?}"
    );
    let tmp = h
        .ctx
        .child_tmp
        .as_ref()
        .expect("temp dir")
        .path()
        .display()
        .to_string();
    assert_eq!(
        display(&field(&r, "stdout")),
        format!("[][set][passed][{tmp}]\n")
    );
    // The same program, unconfined by the explicit opt-out: the scrub still applies.
    h.ctx.unconfined_children = true;
    let r = call(
        &mut h,
        "process.run_capture",
        vec![s("sh"), strs(&["-c", "echo [$VOX_FX_SECRET_TOKEN]"])],
    )
    .unwrap();
    assert_eq!(display(&field(&r, "stdout")), "[]\n");
}

#[test]
fn jail_refusal_is_fatal_and_fails_closed() {
    let _one = one_run_at_a_time();
    // Simulated missing Landlock: the spawn is refused, nothing runs.
    let t = sandbox();
    let root = t.path();
    let mut h = host(
        &["process:allow", &format!("fs:rw={}", root.display())],
        root,
    );
    let marker = root.join("ran");
    // Under the explicit opt-out the child runs even where the host cannot confine.
    h.ctx.unconfined_children = true;
    let r = call(
        &mut h,
        "process.run",
        vec![s("touch"), strs(&[&marker.to_string_lossy()])],
    );
    assert!(matches!(r, Ok(Value::Opt(Some(_)))), "{r:?}");
    assert!(marker.exists());
    if jail_gap(false).is_none() {
        return;
    }
    std::fs::remove_file(&marker).unwrap();
    h.ctx.unconfined_children = false;
    let r = call(
        &mut h,
        "process.run",
        vec![s("touch"), strs(&[&marker.to_string_lossy()])],
    );
    assert!(matches!(r, Err(Exc::Unconfinable { .. })), "{r:?}");
    assert!(!marker.exists());
}

#[test]
fn process_denied_without_grant() {
    let t = sandbox();
    let mut h = host(&[&format!("fs:rw={}", t.path().display())], t.path());
    let (what, token) = denial(call(&mut h, "process.run", vec![s("echo"), strs(&[])]));
    assert_eq!(
        (what.as_str(), token.as_str()),
        ("process.run", "grant with --caps process:allow")
    );
}
