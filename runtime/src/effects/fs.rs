//! `fs.*` and `path.resolve` (§5.3, §5.4; runtime.md §1.1; decisions 17, 18, 21, 27).
//!
//! Every path goes through [`RunContext::fs_path`] before it is touched, and the operation uses
//! the resolved path that check returns, so check and use name the same file. Writes open their
//! final component with `O_NOFOLLOW` (a symlink planted after the check cannot redirect them),
//! and quotas are charged before anything is written.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use vox_caps::Access;

use super::base::{ctx, err_str, ok_str, os_err, str_value};
use super::glob;
use crate::context::RunContext;
use crate::exc::Res;
use crate::value::{Args, Host, VMap, Value};

/// Text shown for a path the script will read back (lossy only for non-UTF-8 names).
fn shown(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// `dir` and `name` joined with one `/`, as the script wrote `dir`.
fn join_shown(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else if dir.ends_with('/') {
        format!("{dir}{rel}")
    } else {
        format!("{dir}/{rel}")
    }
}

pub(super) fn read(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    read_as(host, args, false)
}

pub(super) fn read_bytes(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    read_as(host, args, true)
}

fn read_as(host: &mut dyn Host, args: &mut Args, lossy: bool) -> Res<Value> {
    args.arity(1, 1)?;
    let p = args.str(0)?;
    let path = ctx(host, &args.name)?.fs_path(&args.name, p, Access::Read)?;
    // The value is about as large as the file: let --max-memory trip before reading it.
    if let Ok(meta) = fs::metadata(&path) {
        host.reserve(usize::try_from(meta.len()).unwrap_or(usize::MAX))?;
    }
    Ok(match fs::read(&path) {
        Ok(bytes) if lossy => ok_str(String::from_utf8_lossy(&bytes)),
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => ok_str(text),
            Err(_) => err_str("stream did not contain valid UTF-8"),
        },
        Err(e) => os_err(&e),
    })
}

/// Opens a file for writing without following a symlink in its final component (decision 18).
pub(super) fn open_for_write(path: &Path, mode: u32) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Writes `bytes` to a checked path: charges `--max-disk` and, for a new file, `--max-files`
/// first (a quota that trips writes nothing); gives the charge back when the file could not be
/// opened, since nothing was written then. The outer error is fatal, the inner one a value.
pub(super) fn write_checked(
    ctx: &mut RunContext,
    path: &Path,
    bytes: &[u8],
) -> Res<io::Result<()>> {
    let new = fs::symlink_metadata(path).is_err();
    let n = bytes.len() as u64;
    ctx.charge_disk(n)?;
    if new {
        ctx.charge_files(1)?;
    }
    let mut file = match open_for_write(path, 0o666) {
        Ok(f) => f,
        Err(e) => {
            ctx.disk_used = ctx.disk_used.saturating_sub(n);
            if new {
                ctx.files_created = ctx.files_created.saturating_sub(1);
            }
            return Ok(Err(e));
        }
    };
    Ok(file.write_all(bytes))
}

pub(super) fn write(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let p = args.str(0)?;
    let text = args.str(1)?;
    let ctx = ctx(host, &args.name)?;
    let path = ctx.fs_path(&args.name, p, Access::Write)?;
    Ok(match write_checked(ctx, &path, text.as_bytes())? {
        Ok(()) => Value::ok(Value::Bool(true)),
        Err(e) => os_err(&e),
    })
}

fn probe(host: &mut dyn Host, args: &mut Args, test: fn(&Path) -> bool) -> Res<Value> {
    args.arity(1, 1)?;
    let p = args.str(0)?;
    let path = ctx(host, &args.name)?.fs_path(&args.name, p, Access::Read)?;
    Ok(Value::Bool(test(&path)))
}

pub(super) fn exists(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    probe(host, args, Path::exists)
}

pub(super) fn is_file(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    probe(host, args, Path::is_file)
}

pub(super) fn is_dir(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    probe(host, args, Path::is_dir)
}

fn canonical(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let p = args.str(0)?;
    let path = ctx(host, &args.name)?.fs_path(&args.name, p, Access::Read)?;
    Ok(match fs::canonicalize(&path) {
        Ok(c) => ok_str(shown(&c)),
        Err(e) => os_err(&e),
    })
}

pub(super) fn canonicalize(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    canonical(host, args)
}

/// `path.resolve(p)`: canonicalised on the real filesystem, an fs read (§5.4).
pub(super) fn resolve(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    canonical(host, args)
}

/// The run's working directory, absolute (for `fs.cwd` and `process.cwd`).
pub(super) fn cwd_text(ctx: &RunContext) -> Value {
    match fs::canonicalize(&ctx.cwd) {
        Ok(c) => ok_str(shown(&c)),
        Err(e) => os_err(&e),
    }
}

pub(super) fn cwd(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(0, 0)?;
    let ctx = ctx(host, &args.name)?;
    ctx.fs_any(&args.name)?;
    Ok(cwd_text(ctx))
}

pub(super) fn copy(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(2, 2)?;
    let s = args.str(0)?;
    let d = args.str(1)?;
    let ctx = ctx(host, &args.name)?;
    let src = ctx.fs_path(&args.name, s, Access::Read)?;
    let dst = ctx.fs_path(&args.name, d, Access::Write)?;
    let mut reader = match File::open(&src) {
        Ok(f) => f,
        Err(e) => return Ok(os_err(&e)),
    };
    let meta = match reader.metadata() {
        Ok(m) => m,
        Err(e) => return Ok(os_err(&e)),
    };
    if meta.is_dir() {
        return Ok(os_err(&io::Error::from(io::ErrorKind::IsADirectory)));
    }
    // Truncating the destination would destroy the source.
    if let Ok(dm) = fs::metadata(&dst) {
        if dm.dev() == meta.dev() && dm.ino() == meta.ino() {
            return Ok(err_str("source and destination are the same file"));
        }
    }
    let new = fs::symlink_metadata(&dst).is_err();
    ctx.charge_disk(meta.len())?;
    if new {
        ctx.charge_files(1)?;
    }
    let result = open_for_write(&dst, meta.permissions().mode() & 0o7777)
        .and_then(|mut w| io::copy(&mut reader, &mut w));
    Ok(match result {
        Ok(_) => Value::ok(Value::Bool(true)),
        Err(e) => os_err(&e),
    })
}

/// Checks `p` (resolving it like every path) and returns the path that names the directory entry
/// itself: for a symlink, its checked parent plus the link's name, so `remove` and `stat` act on
/// the link, not on what it points to.
fn entry_path(ctx: &mut RunContext, what: &str, p: &str, access: Access) -> Res<PathBuf> {
    let resolved = ctx.fs_path(what, p, access)?;
    let lexical = Path::new(p);
    let Some(name) = lexical.file_name() else {
        return Ok(resolved);
    };
    let is_link =
        fs::symlink_metadata(ctx.cwd.join(lexical)).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return Ok(resolved);
    }
    let parent = match lexical.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_string_lossy().into_owned(),
        _ => ".".to_string(),
    };
    let dir = ctx.fs_path(what, &parent, access)?;
    Ok(dir.join(name))
}

pub(super) fn remove(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let p = args.str(0)?;
    let path = entry_path(ctx(host, &args.name)?, &args.name, p, Access::Write)?;
    Ok(match fs::remove_file(&path) {
        Ok(()) => Value::ok(Value::Bool(true)),
        Err(e) => os_err(&e),
    })
}

pub(super) fn remove_dir_all(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let p = args.str(0)?;
    let ctx = ctx(host, &args.name)?;
    let path = entry_path(ctx, &args.name, p, Access::Write)?;
    let is_link = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
    // std's remove_dir_all does not follow symlinks inside the tree.
    let result = if is_link {
        fs::remove_file(&path)
    } else {
        // A read-only root or a denied path beneath would go with the tree.
        ctx.fs_remove_tree(&args.name, &path)?;
        fs::remove_dir_all(&path)
    };
    Ok(match result {
        Ok(()) => Value::ok(Value::Null),
        Err(e) => os_err(&e),
    })
}

pub(super) fn mkdir(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let p = args.str(0)?;
    let ctx = ctx(host, &args.name)?;
    let path = ctx.fs_path(&args.name, p, Access::Write)?;
    // Each missing component is a directory created (runtime.md §2 `--max-files`).
    let missing = path
        .ancestors()
        .take_while(|a| fs::symlink_metadata(a).is_err())
        .count();
    if missing > 0 {
        ctx.charge_files(missing as u64)?;
    }
    Ok(match fs::create_dir_all(&path) {
        Ok(()) => Value::ok(Value::Bool(true)),
        Err(e) => os_err(&e),
    })
}

/// Entries of a directory in OS order, or shuffled from the seed under `--perturb` (decision 27).
fn read_entries(ctx: &RunContext, dir: &Path) -> io::Result<Vec<fs::DirEntry>> {
    let mut entries = fs::read_dir(dir)?.collect::<io::Result<Vec<_>>>()?;
    if let Some(seed) = ctx.perturb {
        crate::perturb::shuffle(&mut entries, seed);
    }
    Ok(entries)
}

fn dir_arg(args: &Args) -> Res<&str> {
    args.arity(0, 1)?;
    if args.is_empty() {
        Ok(".")
    } else {
        args.str(0)
    }
}

pub(super) fn list_dir(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    let p = dir_arg(args)?;
    let ctx = ctx(host, &args.name)?;
    let dir = ctx.fs_path(&args.name, p, Access::List)?;
    Ok(match read_entries(ctx, &dir) {
        Ok(entries) => Value::ok(Value::list(
            entries
                .iter()
                .map(|e| str_value(e.file_name().to_string_lossy()))
                .collect(),
        )),
        Err(e) => os_err(&e),
    })
}

/// The map of `fs.stat` and `fs.list_dir_detailed`, keys in the spec's order. A symlink whose
/// target lies outside the roots is described by the link itself, so metadata never leaks from
/// outside the grant.
fn stat_map(ctx: &RunContext, name: &str, shown_path: &str, entry: &Path) -> io::Result<Value> {
    let lmeta = fs::symlink_metadata(entry)?;
    let is_symlink = lmeta.file_type().is_symlink();
    // An entry the rules deny (`fs:none=`) shows its name and kind, not its size or time.
    let hidden = !is_symlink && !ctx.caps.fs_admits(entry, false);
    let meta = if is_symlink {
        match fs::canonicalize(entry) {
            Ok(target) if ctx.caps.fs_admits(&target, false) => {
                fs::metadata(&target).unwrap_or(lmeta)
            }
            _ => lmeta,
        }
    } else {
        lmeta
    };
    let modified_ms = if hidden {
        0
    } else {
        meta.mtime()
            .saturating_mul(1000)
            .saturating_add(meta.mtime_nsec() / 1_000_000)
    };
    let mut m = VMap::with_capacity(7);
    m.insert(Rc::from("name"), str_value(name));
    m.insert(Rc::from("path"), str_value(shown_path));
    let size = if hidden { 0 } else { meta.len() };
    m.insert(
        Rc::from("size"),
        Value::Int(i64::try_from(size).unwrap_or(i64::MAX)),
    );
    m.insert(Rc::from("modified_ms"), Value::Int(modified_ms));
    m.insert(Rc::from("is_dir"), Value::Bool(meta.is_dir()));
    m.insert(Rc::from("is_file"), Value::Bool(meta.is_file()));
    m.insert(Rc::from("is_symlink"), Value::Bool(is_symlink));
    Ok(Value::map(m))
}

pub(super) fn list_dir_detailed(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    let p = dir_arg(args)?;
    let ctx = ctx(host, &args.name)?;
    let dir = ctx.fs_path(&args.name, p, Access::List)?;
    let entries = match read_entries(ctx, &dir) {
        Ok(entries) => entries,
        Err(e) => return Ok(os_err(&e)),
    };
    let mut out = Vec::with_capacity(entries.len());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        match stat_map(ctx, &name, &join_shown(p, &name), &e.path()) {
            Ok(m) => out.push(m),
            Err(e) => return Ok(os_err(&e)),
        }
    }
    Ok(Value::ok(Value::list(out)))
}

pub(super) fn stat(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let p = args.str(0)?;
    let ctx = ctx(host, &args.name)?;
    let entry = entry_path(ctx, &args.name, p, Access::Read)?;
    let name = Path::new(p)
        .file_name()
        .or_else(|| entry.file_name())
        .map_or_else(|| p.to_string(), |n| n.to_string_lossy().into_owned());
    Ok(match stat_map(ctx, &name, p, &entry) {
        Ok(m) => Value::ok(m),
        Err(e) => os_err(&e),
    })
}

pub(super) fn glob(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let pattern = args.str(0)?;
    let parsed = match glob::parse(pattern) {
        Ok(p) => p,
        Err(why) => return Ok(err_str(why)),
    };
    let ctx = ctx(host, &args.name)?;
    // A base outside every root is a denial, not an empty result (decision 18).
    let base_checked = if parsed.base.is_empty() {
        "."
    } else {
        parsed.base.as_str()
    };
    let base = ctx.fs_path(&args.name, base_checked, Access::List)?;
    let caps = &ctx.caps;
    let found = glob::expand(&base, &parsed.segs, &|p: &Path| caps.fs_admits(p, false));
    let items = found
        .iter()
        .map(|rel| str_value(join_shown(&parsed.base, rel)))
        .collect();
    Ok(Value::ok(Value::list(items)))
}

/// `fs.walk(dir)`: the files beneath `dir` as `dir/…`, sorted by byte order. Symlinked
/// directories are not entered (no cycles, no escape); a symlink to a file inside the roots is
/// listed as a file.
pub(super) fn walk(host: &mut dyn Host, args: &mut Args) -> Res<Value> {
    args.arity(1, 1)?;
    let p = args.str(0)?;
    let ctx = ctx(host, &args.name)?;
    let root = ctx.fs_path(&args.name, p, Access::List)?;
    if let Err(e) = fs::read_dir(&root) {
        return Ok(os_err(&e));
    }
    let mut files = Vec::new();
    let mut stack = vec![(root, String::new())];
    while let Some((dir, rel)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let Ok(ft) = entry.file_type() else { continue };
            // What the rules deny (`fs:none=` beneath the walked root) is neither entered nor
            // listed.
            if (ft.is_dir() || ft.is_file()) && !ctx.caps.fs_admits(&entry.path(), false) {
                continue;
            }
            if ft.is_dir() {
                stack.push((entry.path(), child));
            } else if ft.is_file() {
                files.push(child);
            } else if ft.is_symlink() {
                let inside = fs::canonicalize(entry.path())
                    .is_ok_and(|t| t.is_file() && ctx.caps.fs_admits(&t, false));
                if inside {
                    files.push(child);
                }
            }
        }
    }
    files.sort_unstable();
    let items = files
        .iter()
        .map(|rel| str_value(join_shown(p, rel)))
        .collect();
    Ok(Value::ok(Value::list(items)))
}
