//! The code actions for findings and runs: quick fixes (and the server's own configuration
//! edits for C001/C002/D003/D006), suppressions, fix-all, "Run with inferred capabilities",
//! the directive's replacement and the fixes of a run's denial or ceiling.

use super::edit::*;
use crate::convert::{self};
use crate::diagnostics::uri_of;
use crate::run_registry::RunDiagnostic;
use crate::session::{config_path, inferred_tokens, Snapshot};
use crate::state::ClientCaps;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tower_lsp_server::ls_types::*;
use vox_caps::config::{ConfigKind, RunConfig};
use vox_lints::{Applicability, Finding};
use vox_syntax::TextRange;

pub const RUN_CONFIG_TITLE: &str = "Run with inferred capabilities: add to";

pub(crate) fn overlaps(a: TextRange, b: TextRange) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// `run configuration \`NAME\`` in a C001/C002 message.
pub(crate) fn run_name(message: &str) -> Option<&str> {
    let rest = message.split_once("run configuration `")?.1;
    rest.split_once('`').map(|(n, _)| n)
}

/// `add "TOKEN"` / `remove "TOKEN"` in a C001/C002 help.
pub(crate) fn quoted_token<'a>(help: &'a str, verb: &str) -> Option<&'a str> {
    let rest = help.split_once(&format!("{verb} \""))?.1;
    rest.split_once('"').map(|(t, _)| t)
}

pub(crate) fn config_of<'a>(
    snap: &'a Snapshot,
    script: &Path,
    name: &str,
) -> Option<&'a RunConfig> {
    snap.info
        .runs_for(script)
        .into_iter()
        .find(|r| r.name == name)
}

/// The C001/C002 fix: the caps of the named run configuration with a token added or removed
/// (C001 removes the deny that refuses a need: `remove "fs:none=.env"` in its help).
/// `entry_file`: the configuration file the finding is in (the fix at a configuration entry
/// edits that file's entry).
pub(crate) fn caps_fix<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    f: &Finding,
    script: &Path,
    entry_file: Option<&Path>,
) -> Option<Lazy<'a>> {
    let name = run_name(&f.message)?;
    let help = f.help.as_deref()?;
    let run = match entry_file {
        Some(file) => snap
            .config
            .runs
            .iter()
            .find(|r| r.name == name && r.origin.file == file && r.script == script),
        None => config_of(snap, script, name),
    }?;
    let mut list = run.caps.clone().unwrap_or_default();
    // C001 adds the missing token, or (when a deny refuses the need) removes the deny; C002
    // removes the unused token.
    let add = f.code == "C001" && quoted_token(help, "add").is_some();
    let (title, grant) = if add {
        let token = quoted_token(help, "add")?;
        if !list.iter().any(|t| t == token) {
            list.push(token.to_string());
        }
        (
            format!(
                "Add \"{token}\" to run configuration `{name}` ({})",
                run.origin.kind.file_name()
            ),
            Some(format!("grants {token} to `{name}`")),
        )
    } else {
        let token = quoted_token(help, "remove")?;
        list.retain(|t| t != token);
        (
            format!(
                "Remove \"{token}\" from run configuration `{name}` ({})",
                run.origin.kind.file_name()
            ),
            None,
        )
    };
    let (kind, file, name) = (run.origin.kind, run.origin.file.clone(), name.to_string());
    let script = script.to_path_buf();
    let mut a = action(title, CodeActionKind::QUICKFIX, move || {
        let change = config_change(snap, kind, &file, &script, &name, &list)?;
        workspace_edit(snap, caps, vec![change], grant)
    });
    // Removing an unused token is safe; granting one is not (docs/rules/C001.md, C002.md).
    a.action.is_preferred = Some(f.code == "C002");
    Some(a)
}

/// `Add \`TOKEN\` to run configuration \`NAME\`` (the D003/D006 fix title): the token and the
/// run configuration's name.
pub(crate) fn pin_title(title: &str) -> Option<(&str, &str)> {
    let rest = title.strip_prefix("Add `")?;
    let (token, rest) = rest.split_once('`')?;
    let name = rest
        .strip_prefix(" to run configuration `")?
        .strip_suffix('`')?;
    Some((token, name))
}

/// The D003/D006 fix (pin the clock or the stream in a run configuration), computed on the
/// editor's text of the configuration file, which may be unsaved: the configuration's
/// `time:*` (or `random:*`) tokens replaced by the pinned one, as `vox lint --fix
/// --unsafe-fixes` does on the saved file.
pub(crate) fn pin_fix<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    script: &Path,
    fix: &vox_lints::Fix,
) -> Option<Lazy<'a>> {
    if let Some(rest) = fix.title.strip_prefix(vox_lints::NEW_RUN_TITLE) {
        return new_run_fix(snap, caps, script, rest, &fix.title);
    }
    let (token, name) = pin_title(&fix.title)?;
    let namespace = token.split(':').next()?.to_string();
    let run = config_of(snap, script, name)?;
    let mut list: Vec<String> = run
        .caps
        .iter()
        .flatten()
        .filter(|t| t.split(':').next() != Some(namespace.as_str()))
        .cloned()
        .collect();
    list.push(token.to_string());
    let (kind, file, name) = (run.origin.kind, run.origin.file.clone(), name.to_string());
    let script = script.to_path_buf();
    let mut a = action(fix.title.to_string(), CodeActionKind::QUICKFIX, move || {
        let change = config_change(snap, kind, &file, &script, &name, &list)?;
        workspace_edit(snap, caps, vec![change], None)
    });
    a.action.is_preferred = Some(false);
    Some(a)
}

/// The D003/D006 fix for a script no configuration runs: a Vox.toml entry for it with the
/// inferred caps, the clock or the stream pinned (title: "Create run configuration `NAME` in
/// Vox.toml with `TOKEN`"), made as "Run with inferred capabilities: add to Vox.toml" makes its
/// entry (the file created when missing).
pub(crate) fn new_run_fix<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    script: &Path,
    rest: &str,
    title: &str,
) -> Option<Lazy<'a>> {
    let token = rest.rsplit('`').nth(1)?.to_string();
    let namespace = token.split(':').next()?.to_string();
    let tokens = inferred_tokens(snap, script, &snap.root)?;
    let mut list: Vec<String> = tokens
        .tokens
        .iter()
        .map(|t| t.token.clone())
        .filter(|t| t.split(':').next() != Some(namespace.as_str()))
        .collect();
    list.push(token);
    let entry = entry_for(snap, ConfigKind::VoxToml, script);
    let file = config_path(&snap.root, ConfigKind::VoxToml);
    let grant = format!("grants {} to `{entry}`", list.join(", "));
    let script = script.to_path_buf();
    let writes = [file.clone()];
    let mut a = offer(
        snap,
        caps,
        title.to_string(),
        CodeActionKind::QUICKFIX,
        &writes,
        Some(grant),
        move || {
            let change = config_change(snap, ConfigKind::VoxToml, &file, &script, &entry, &list)?;
            Ok(vec![change])
        },
    )?;
    a.action.is_preferred = Some(false);
    Some(a)
}

pub(crate) fn suppressible(code: &str) -> bool {
    vox_lints::rule(code).is_some() && !code.starts_with('L')
}

/// Inserts `// vox:allow(CODE): ` on a line of its own above the finding's line.
pub(crate) fn suppress_action<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    f: &Finding,
    diag: &Diagnostic,
) -> Option<Lazy<'a>> {
    let rope = snap.rope(&f.file);
    let pos = convert::position(&rope, convert::Encoding::Utf8, f.range.start);
    let line = pos.line as usize;
    let line_start = rope.line_to_byte(line.min(rope.len_lines().saturating_sub(1)));
    let line_text: String = rope
        .line(line.min(rope.len_lines().saturating_sub(1)))
        .to_string();
    let indent: String = line_text
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let comment = format!("{indent}// vox:allow({}): ", f.code);
    let nl = if line_text.ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let at = TextRange::new(line_start as u32, line_start as u32);
    let uri = uri_of(&f.file)?;
    // The cursor goes after the colon, where the reason is written.
    let cursor_col = match snap.encoding {
        convert::Encoding::Utf8 => comment.len(),
        convert::Encoding::Utf16 => comment.encode_utf16().count(),
    };
    let cursor = Position::new(line as u32, cursor_col as u32);
    let file = f.file.to_path_buf();
    let mut a = action(
        format!("Suppress {} with a reason", f.code),
        CodeActionKind::QUICKFIX,
        move || {
            workspace_edit(
                snap,
                caps,
                vec![Change::Edit {
                    path: file,
                    edits: vec![(at, format!("{comment}{nl}"))],
                }],
                None,
            )
        },
    );
    a.action.diagnostics = Some(vec![diag.clone()]);
    a.action.command = Some(Command {
        title: "Write the reason".into(),
        command: "vox.revealSuppression".into(),
        arguments: Some(vec![
            serde_json::json!({"uri": uri.as_str(), "position": cursor}),
        ]),
    });
    Some(a)
}

/// The safe fixes of a file, as `vox lint --fix` takes them: at most one per finding, none
/// overlapping an edit already taken.
pub fn fix_all_changes(findings: &[std::sync::Arc<Finding>]) -> Vec<Change> {
    let mut per_file: BTreeMap<PathBuf, Vec<(TextRange, String)>> = BTreeMap::new();
    for f in findings {
        let Some(fix) = f
            .fixes
            .iter()
            .find(|x| x.applicability == Applicability::Safe)
        else {
            continue;
        };
        let clash = fix.edits.iter().any(|e| {
            per_file.get(e.file.as_path()).is_some_and(|taken| {
                taken.iter().any(|(t, _)| {
                    t.start < e.range.end.max(e.range.start + 1)
                        && e.range.start < t.end.max(t.start + 1)
                })
            })
        });
        if clash {
            continue;
        }
        for e in &fix.edits {
            per_file
                .entry(e.file.to_path_buf())
                .or_default()
                .push((e.range, e.new_text.to_string()));
        }
    }
    per_file
        .into_iter()
        .map(|(path, mut edits)| {
            edits.sort_by_key(|(r, _)| (r.start, r.end));
            Change::Edit { path, edits }
        })
        .collect()
}

/// The three "Run with inferred capabilities" actions.
pub(crate) fn run_config_actions<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    script: &Path,
) -> Vec<Lazy<'a>> {
    let mut out = Vec::new();
    for (kind, shown) in [
        (ConfigKind::VoxToml, "Vox.toml"),
        (ConfigKind::Tasks, ".vscode/tasks.json"),
        (ConfigKind::Launch, ".vscode/launch.json"),
    ] {
        let existing = snap
            .info
            .runs_for(script)
            .into_iter()
            .find(|r| r.origin.kind == kind)
            .cloned();
        let cwd = existing
            .as_ref()
            .map_or(snap.root.clone(), |r| r.cwd.clone());
        let Some(tokens) = inferred_tokens(snap, script, &cwd) else {
            continue;
        };
        let list: Vec<String> = tokens.tokens.iter().map(|t| t.token.clone()).collect();
        let file = existing
            .as_ref()
            .map_or_else(|| config_path(&snap.root, kind), |r| r.origin.file.clone());
        let entry = entry_for(snap, kind, script);
        let grant = format!(
            "grants {} to `{entry}`",
            if list.is_empty() {
                "nothing".to_string()
            } else {
                list.join(", ")
            }
        );
        let script = script.to_path_buf();
        let writes = [file.clone()];
        out.extend(offer(
            snap,
            caps,
            format!("{RUN_CONFIG_TITLE} {shown}"),
            CodeActionKind::REFACTOR,
            &writes,
            Some(grant),
            move || {
                Ok(vec![config_change(
                    snap, kind, &file, &script, &entry, &list,
                )?])
            },
        ));
    }
    out
}

/// "Replace `// vox:caps` directive with a run configuration": a Vox.toml entry with the
/// inferred set, and the directive line removed. `kind`: `refactor.rewrite`, or `quickfix` at
/// a C003 finding (docs/rules/C003.md lists it among C003's fixes).
pub(crate) fn replace_directive<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    script: &Path,
    kind: CodeActionKind,
) -> Option<Lazy<'a>> {
    let text = snap.text(script)?;
    let d = vox_caps::parse_legacy_directive(&text)?;
    let tokens = inferred_tokens(snap, script, &snap.root)?;
    let list: Vec<String> = tokens.tokens.iter().map(|t| t.token.clone()).collect();
    let entry = entry_for(snap, ConfigKind::VoxToml, script);
    let file = config_path(&snap.root, ConfigKind::VoxToml);
    let end = text[d.range.end..]
        .find('\n')
        .map_or(text.len(), |i| d.range.end + i + 1);
    let start = d.range.start;
    let script = script.to_path_buf();
    let writes = [file.clone()];
    let grant = format!("grants {}", list.join(", "));
    offer(
        snap,
        caps,
        "Replace `// vox:caps` directive with a run configuration".into(),
        kind,
        &writes,
        Some(grant),
        move || {
            let change = config_change(snap, ConfigKind::VoxToml, &file, &script, &entry, &list)?;
            let del = Change::Edit {
                path: script,
                edits: vec![(TextRange::new(start as u32, end as u32), String::new())],
            };
            Ok(vec![change, del])
        },
    )
}

/// Sets a ceiling of `[run.NAME]` in Vox.toml text (toml_edit keeps the rest as written).
pub(crate) fn set_ceiling_toml(text: &str, entry: &str, key: &str, value: i64) -> Option<String> {
    let mut doc: toml_edit::DocumentMut = text.parse().ok()?;
    let run = doc.get_mut("run")?.as_table_like_mut()?;
    let t = run.get_mut(entry)?.as_table_like_mut()?;
    t.insert(key, toml_edit::value(value));
    Some(doc.to_string())
}

/// A raised ceiling: ten times the limit that was hit.
pub(crate) fn raised(flag: &str, limit: &str) -> Option<i64> {
    let n: i64 = if flag == "timeout" {
        vox_caps::parse_duration_secs(limit).ok()? as i64
    } else {
        vox_caps::parse_size(limit).ok()? as i64
    };
    n.checked_mul(10).filter(|v| *v > 0)
}

/// Quick fixes of a run diagnostic: grant the token, or raise the ceiling, in the run
/// configuration the run used (a new Vox.toml entry when it had none).
pub(crate) fn run_fixes<'a>(
    snap: &'a Snapshot,
    caps: &'a ClientCaps,
    script: &Path,
    rd: &RunDiagnostic,
) -> Vec<Lazy<'a>> {
    let mut out = Vec::new();
    let diag = rd.diagnostic.clone();
    if let Some(token) = &rd.token {
        let mut list = rd.caps.clone();
        if !list.contains(token) {
            list.push(token.clone());
        }
        let (kind, file, entry, title) = match &rd.config {
            Some(c) => (
                c.origin.kind,
                c.origin.file.clone(),
                c.name.clone(),
                format!(
                    "Grant `{token}` in run configuration `{}` ({})",
                    c.name,
                    c.origin.kind.file_name()
                ),
            ),
            None => (
                ConfigKind::VoxToml,
                config_path(&snap.root, ConfigKind::VoxToml),
                entry_for(snap, ConfigKind::VoxToml, script),
                format!("Grant `{token}`: add a run configuration to Vox.toml"),
            ),
        };
        let grant = format!("grants {token} to `{entry}`");
        let script = script.to_path_buf();
        let writes = [file.clone()];
        if let Some(mut a) = offer(
            snap,
            caps,
            title,
            CodeActionKind::QUICKFIX,
            &writes,
            Some(grant),
            move || {
                Ok(vec![config_change(
                    snap, kind, &file, &script, &entry, &list,
                )?])
            },
        ) {
            a.action.diagnostics = Some(vec![diag.clone()]);
            a.action.is_preferred = Some(true);
            out.push(a);
        }
    }
    if let Some((flag, limit)) = &rd.ceiling {
        let Some(value) = raised(flag, limit) else {
            return out;
        };
        let (file, entry, base) = match &rd.config {
            Some(c) if c.origin.kind == ConfigKind::VoxToml => (
                c.origin.file.clone(),
                c.name.clone(),
                snap.text(&c.origin.file),
            ),
            Some(_) => return out,
            None => {
                let file = config_path(&snap.root, ConfigKind::VoxToml);
                let entry = entry_for(snap, ConfigKind::VoxToml, script);
                let old = snap.text(&file).unwrap_or_default();
                let rel = script_rel(&snap.root, script);
                let with_entry =
                    vox_caps::config::set_caps_vox_toml(&old, &entry, &rel, &rd.caps).ok();
                (file, entry, with_entry)
            }
        };
        let Some(base) = base else { return out };
        let Some(new) = set_ceiling_toml(&base, &entry, flag, value) else {
            return out;
        };
        let title = format!(
            "Raise the ceiling: {flag} = {value} in run configuration `{entry}` (Vox.toml)"
        );
        let writes = [file.clone()];
        if let Some(mut a) = offer(
            snap,
            caps,
            title,
            CodeActionKind::QUICKFIX,
            &writes,
            None,
            move || {
                let old = snap.text(&file);
                Ok(vec![text_change(
                    &file,
                    old.is_some(),
                    &old.unwrap_or_default(),
                    new,
                )])
            },
        ) {
            a.action.diagnostics = Some(vec![diag]);
            out.push(a);
        }
    }
    out
}
