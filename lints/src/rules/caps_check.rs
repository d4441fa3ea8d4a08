//! Shared by C001–C003: whether a capability set satisfies each need the inference found
//! (decision 30: frozen time satisfies a clock need, any seed satisfies randomness, rw covers
//! ro, a root covers everything beneath it).

use std::path::{Path, PathBuf};

use vox_analysis::{CapNeed, EffectKind, InferredCaps, PathKey};
use vox_caps::{CapSet, EnvGrant, RandomGrant, TimeGrant};

use vox_syntax::TextRange;

use crate::context::FileCx;

/// The path an fs need touches, resolved like the runtime does: the nearest existing ancestor
/// canonicalised, the rest appended.
pub fn resolve(cwd: &Path, rel: &str) -> PathBuf {
    let abs = vox_analysis::resolve_dots(&cwd.join(rel));
    let mut existing = abs.clone();
    let mut tail = Vec::new();
    while !existing.exists() {
        match existing.file_name() {
            Some(n) => tail.push(n.to_os_string()),
            None => break,
        }
        if !existing.pop() {
            break;
        }
    }
    let mut out = existing.canonicalize().unwrap_or(existing);
    for t in tail.into_iter().rev() {
        out.push(t);
    }
    out
}

/// Whether `set`, for a run from `cwd`, lets this need through.
pub fn satisfies(set: &CapSet, cwd: &Path, need: &CapNeed) -> bool {
    let e = &need.effect;
    match e.kind {
        EffectKind::EnvRo => set.env() != EnvGrant::None,
        EffectKind::EnvRw => set.env() == EnvGrant::Rw,
        EffectKind::Net => set.net(),
        EffectKind::Process => set.process(),
        EffectKind::Secrets => set.secrets(),
        EffectKind::Agentos => set.agentos(),
        EffectKind::Time => set.time() != TimeGrant::Denied,
        EffectKind::Random => set.random() != RandomGrant::Denied,
        EffectKind::Output => true,
        EffectKind::FsCwd => set.fs_any(),
        EffectKind::FsRead | EffectKind::FsWrite | EffectKind::FsList => match fs_target(cwd, need)
        {
            Some((target, write)) => set.fs_admits(&target, write),
            None => true,
        },
    }
}

/// The path a filesystem need touches (resolved against `cwd`) and whether it writes.
pub fn fs_target(cwd: &Path, need: &CapNeed) -> Option<(PathBuf, bool)> {
    let e = &need.effect;
    if !matches!(
        e.kind,
        EffectKind::FsRead | EffectKind::FsWrite | EffectKind::FsList
    ) {
        return None;
    }
    let target = match &e.path {
        Some(PathKey::Const(p))
        | Some(PathKey::Prefix(p))
        | Some(PathKey::InputOr(p))
        | Some(PathKey::InputUnder(p)) => resolve(cwd, p),
        _ => resolve(cwd, "."),
    };
    Some((target, e.kind == EffectKind::FsWrite))
}

/// The deny in `set` that refuses `need` although a broader grant covers it (`fs:none=…`, or
/// `fs:ro=…` inside a writable root for a write), as a token.
pub fn blocking_rule(set: &CapSet, cwd: &Path, need: &CapNeed) -> Option<String> {
    let (target, write) = fs_target(cwd, need)?;
    set.fs_blocking_rule(&target, write)
}

/// Whether `set` admits reading every imported file.
pub fn imports_ok(set: &CapSet, caps: &InferredCaps) -> Option<usize> {
    caps.imports
        .iter()
        .position(|(p, _)| !set.fs_admits(&resolve(Path::new("/"), &p.to_string_lossy()), false))
}

/// The narrowest token for one need, as `vox caps` would print it.
pub fn token_for(need: &CapNeed, cwd: &Path) -> String {
    let one = InferredCaps {
        needs: vec![need.clone()],
        imports: Vec::new(),
    };
    vox_analysis::render_tokens(&one, cwd)
        .tokens
        .into_iter()
        .next()
        .map_or_else(String::new, |t| t.token)
}

/// The capability set a run configuration grants, or why `vox run` would refuse it (a token
/// whose root does not exist, say).
pub fn run_caps(run: &vox_caps::config::RunConfig) -> Result<CapSet, String> {
    vox_caps::config::config_caps(run).map_err(|e| e.to_string())
}

/// Every function the script's entry points reach (any file), in breadth-first order.
pub fn reachable<'db>(cx: &FileCx<'db>) -> Vec<vox_analysis::FnDef<'db>> {
    let db = cx.db;
    let mut out = vox_analysis::entry_points(db, cx.file);
    let mut i = 0;
    while i < out.len() {
        let f = out[i];
        i += 1;
        let file = f.file(db);
        for call in &vox_analysis::fn_facts(db, f).calls {
            if let Some(g) = vox_analysis::callee(db, file, &call.target) {
                if !out.contains(&g) {
                    out.push(g);
                }
            }
        }
        if out.len() > 100_000 {
            break;
        }
    }
    out
}

/// Whether every run configuration of the script pins a grant (`time:frozen=`, `random:seed=`):
/// D003 and D006 are then not reported (decision 30). No run configuration: not pinned.
pub fn pinned_by_every_run(cx: &FileCx<'_>, prefix: &str) -> bool {
    let runs = cx.runs();
    !runs.is_empty()
        && runs.iter().all(|r| {
            r.caps.as_ref().is_some_and(|caps| {
                caps.iter()
                    .any(|t| t.starts_with(prefix) || t == "deterministic")
            })
        })
}

/// A fix setting the caps of `run` to `caps` in its configuration file, as one edit of the
/// region that changes (comments and layout elsewhere are kept by the editing functions, which
/// also re-parse their result). `None` when the file cannot be read or edited.
pub fn config_fix(
    cx: &FileCx<'_>,
    run: &vox_caps::config::RunConfig,
    caps: &[String],
    title: String,
    applicability: crate::finding::Applicability,
) -> Option<crate::finding::Fix> {
    use vox_caps::config::ConfigKind;
    let old = std::fs::read_to_string(&run.origin.file).ok()?;
    let rel = |root: &Path| {
        let s = run.script.strip_prefix(root).unwrap_or(&run.script);
        s.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")
    };
    let new = match run.origin.kind {
        ConfigKind::VoxToml => {
            let dir = run.origin.file.parent().unwrap_or(Path::new("."));
            vox_caps::config::set_caps_vox_toml(&old, &run.name, &rel(dir), caps)
        }
        ConfigKind::Tasks => {
            vox_caps::config::set_caps_tasks_json(&old, &rel(&cx.ws.root), &run.name, caps)
        }
        ConfigKind::Launch => {
            vox_caps::config::set_caps_launch_json(&old, &rel(&cx.ws.root), &run.name, caps)
        }
    }
    .ok()?;
    minimal_fix(run.origin.file.clone(), &old, &new, title, applicability)
}

/// A fix that turns `old` into `new` in `file`, as one edit of the changed region (`None` when
/// nothing changes).
fn minimal_fix(
    file: PathBuf,
    old: &str,
    new: &str,
    title: String,
    applicability: crate::finding::Applicability,
) -> Option<crate::finding::Fix> {
    if new == old {
        return None;
    }
    // The changed region: common prefix and suffix, on character boundaries.
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(pre) || !new.is_char_boundary(pre) {
        pre -= 1;
    }
    let mut suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while !old.is_char_boundary(a.len() - suf) || !new.is_char_boundary(b.len() - suf) {
        suf -= 1;
    }
    Some(crate::finding::Fix {
        title: title.into(),
        applicability,
        edits: vec![crate::finding::Edit {
            file: file.into(),
            range: TextRange::new(pre as u32, (a.len() - suf) as u32),
            new_text: new[pre..b.len() - suf].into(),
        }],
    })
}

/// The title of the fix that creates a run configuration (the language server recognises it and
/// builds the same entry from the editor's text).
pub const NEW_RUN_TITLE: &str = "Create run configuration";

/// For a script with no run configuration: a Vox.toml entry for it (in the workspace's Vox.toml,
/// created if missing) with the inferred caps, the `namespace` tokens replaced by `token`
/// (`time:frozen=0`, `random:seed=0`). Unsafe: it grants authority.
fn new_run_fix(cx: &FileCx<'_>, namespace: &str, token: &str) -> Option<crate::finding::Fix> {
    let root = &cx.ws.root;
    let rel = cx.path.strip_prefix(root).ok()?;
    let rel: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let rel = rel.join("/");
    let file = root.join("Vox.toml");
    let old = match std::fs::read_to_string(&file) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) => return None,
    };
    let stem = cx.path.file_stem()?.to_string_lossy().into_owned();
    let taken = |n: &str| cx.ws.runs.iter().any(|r| r.name == n);
    let entry = std::iter::once(stem.clone())
        .chain((2..).map(|i| format!("{stem}-{i}")))
        .find(|n| !taken(n))?;
    let inferred = vox_analysis::render_tokens(vox_analysis::inferred_caps(cx.db, cx.file), root);
    let mut caps: Vec<String> = inferred
        .tokens
        .into_iter()
        .map(|t| t.token)
        .filter(|t| t.split(':').next() != Some(namespace))
        .collect();
    caps.push(token.to_string());
    let new =
        vox_caps::config::set_caps_vox_toml(old.as_deref().unwrap_or(""), &entry, &rel, &caps)
            .ok()?;
    let title = format!("{NEW_RUN_TITLE} `{entry}` in Vox.toml with `{token}`");
    match old {
        Some(old) => minimal_fix(
            file,
            &old,
            &new,
            title,
            crate::finding::Applicability::Unsafe,
        ),
        None => Some(crate::finding::Fix {
            title: title.into(),
            applicability: crate::finding::Applicability::Unsafe,
            edits: vec![crate::finding::Edit {
                file: file.into(),
                range: TextRange::new(0, 0),
                new_text: new.into(),
            }],
        }),
    }
}

/// The caps of `run` with the tokens of `namespace` replaced by `token` (`time:frozen=0` for
/// `time:real`), or `token` added.
pub fn with_pinned(run: &vox_caps::config::RunConfig, namespace: &str, token: &str) -> Vec<String> {
    let mut caps: Vec<String> = run
        .caps
        .iter()
        .flatten()
        .filter(|t| t.split(':').next() != Some(namespace))
        .cloned()
        .collect();
    caps.push(token.to_string());
    caps
}

/// One fix per run configuration of the script that does not pin the stream yet: replace its
/// `NAMESPACE:*` tokens with `token`. Unsafe: the run then sees another clock (or stream).
pub fn pin_fixes(cx: &FileCx<'_>, f: &mut crate::finding::Finding, namespace: &str, token: &str) {
    // Published diagnostics show no fix (`LintOptions::skip_fixes`): none is built for them.
    if !cx.fixes {
        return;
    }
    // `time:frozen=0` pins with `time:frozen=`, `random:seed=0` with `random:seed=`.
    let pins = &token[..token.find('=').map_or(token.len(), |i| i + 1)];
    let fixes = cx.config_fixes(token, || {
        let mut fixes = Vec::new();
        // A script (not a library: it has an entry) that no configuration runs yet.
        if cx.runs().is_empty() && !vox_analysis::entry_points(cx.db, cx.file).is_empty() {
            fixes.extend(new_run_fix(cx, namespace, token));
        }
        for run in cx.runs() {
            let pinned = run
                .caps
                .iter()
                .flatten()
                .any(|t| t.starts_with(pins) || t == "deterministic");
            if pinned {
                continue;
            }
            let caps = with_pinned(run, namespace, token);
            fixes.extend(config_fix(
                cx,
                run,
                &caps,
                format!("Add `{token}` to run configuration `{}`", run.name),
                crate::finding::Applicability::Unsafe,
            ));
        }
        fixes
    });
    f.fixes.extend(fixes);
}
