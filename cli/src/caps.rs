//! `vox caps FILE` (analysis.md §4, decision 35): the least `--caps` set for a script; `--check`
//! compares every run configuration with it (C001/C002); `--audit` reconciles with a recorded run.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use vox_lints::{LintOptions, Severity, WorkspaceInfo};

use crate::output::{self, Format};
use crate::workspace;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CapsFormat {
    /// One token per line (with --check: the findings as text).
    Tokens,
    /// The `--caps` flags of a command line.
    Cli,
    /// JSON (docs/schemas/caps.schema.json); with --check, the findings as `vox lint --format json` prints them.
    Json,
    /// A `[run.NAME]` table to paste into Vox.toml.
    Toml,
    /// With --check only: the findings as SARIF 2.1.0, as `vox lint --format sarif` prints them.
    Sarif,
}

#[derive(Args, Debug)]
pub struct CapsFlags {
    /// The script (with --check: files or directories; default the current directory).
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "tokens")]
    pub format: CapsFormat,
    /// Exit 1 when a run configuration lacks a needed token or grants an unused one.
    #[arg(long)]
    pub check: bool,
    /// Reconcile with a `vox run --caps-audit` log: exit 1 when the run used something not inferred.
    #[arg(long, value_name = "RUN.jsonl")]
    pub audit: Option<PathBuf>,
    /// The working directory the script will run from (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_=:./,+@%".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

pub fn run(flags: CapsFlags) -> i32 {
    if flags.check {
        return check(&flags);
    }
    let [file] = flags.paths.as_slice() else {
        eprintln!("vox caps: give exactly one script (or --check for a workspace)");
        eprintln!("  usage: vox caps FILE [--format tokens|cli|json|toml]");
        return 2;
    };
    if flags.format == CapsFormat::Sarif {
        eprintln!("vox caps: --format sarif gives the findings of --check; a script's caps print as tokens, cli, json or toml");
        return 2;
    }
    if !file.is_file() {
        eprintln!("vox: {}", crate::read_error::not_found(file.display()));
        return 2;
    }
    let root = workspace::find_root(file);
    let abs = workspace::absolute(file);
    let (loaded, _) = match workspace::load(vec![abs.clone()], root.clone(), false) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("vox: {e}");
            return 2;
        }
    };
    let Some(&src) = loaded.targets.first() else {
        return 2;
    };
    let cwd = workspace::absolute(flags.cwd.as_deref().unwrap_or(Path::new(".")));
    let db = &loaded.db;
    // Decision 53: with syntax errors, infer from the functions that parse and say which are
    // left out (`incomplete`, exit 1).
    let incomplete = incomplete_notes(db, src, &abs, &cwd);
    let inferred = vox_analysis::inferred_caps(db, src);
    let mut tokens = vox_analysis::render_tokens(inferred, &cwd);
    tokens.notes.extend(incomplete.iter().cloned());
    // Needs the tokens may not cover (a path from input), at their sites.
    let items = vox_analysis::file_items(db, src);
    let lines = vox_syntax::LineIndex::shared(src.text(db).peek());
    for i in &tokens.incomplete {
        let entry = if i.entry == u32::MAX {
            items.main
        } else {
            items.fns.get(i.entry as usize).copied()
        };
        let at = entry.map_or(0, |f| vox_analysis::fn_base(db, f)) + i.range.start;
        let lc = lines.line_col(at, vox_syntax::ColumnUnit::Char);
        tokens.notes.push(format!(
            "incomplete: {}:{}:{}: {}",
            output::shown(&abs, &cwd),
            lc.line + 1,
            lc.col + 1,
            i.reason
        ));
    }
    for n in &tokens.notes {
        eprintln!("note: {n}");
    }
    if let Some(audit) = &flags.audit {
        return reconcile(audit, &tokens, &cwd);
    }
    let names: Vec<&str> = tokens.tokens.iter().map(|t| t.token.as_str()).collect();
    let mut out = std::io::stdout().lock();
    let text = match flags.format {
        CapsFormat::Tokens => {
            if names.is_empty() {
                "none\n".to_string()
            } else {
                names.iter().map(|t| format!("{t}\n")).collect()
            }
        }
        CapsFormat::Cli => {
            let list: Vec<String> = if names.is_empty() {
                vec!["--caps none".into()]
            } else {
                names
                    .iter()
                    .map(|t| format!("--caps {}", shell_quote(t)))
                    .collect()
            };
            format!("{}\n", list.join(" "))
        }
        CapsFormat::Json => {
            let v = serde_json::json!({
                "file": output::shown(&abs, &cwd),
                "cwd": cwd.to_string_lossy(),
                "tokens": tokens.tokens.iter().map(|t| serde_json::json!({
                    "token": t.token,
                    "needed_by": t.needed_by,
                })).collect::<Vec<_>>(),
                "notes": tokens.notes,
            });
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
        }
        CapsFormat::Sarif => unreachable!("refused above"),
        CapsFormat::Toml => toml_table(&abs, &cwd, &names),
    };
    let _ = out.write_all(text.as_bytes());
    i32::from(!incomplete.is_empty())
}

/// `--format toml`: a `[run.NAME]` entry for the `Vox.toml` that `vox run` would read for the
/// script (the nearest above its directory), its `script` and `cwd` relative to that file's
/// directory as `Vox.toml` resolves them, and a note on stderr naming the file. The tokens are
/// relative to `cwd`, as a run configuration's are, so the entry is right from any directory.
fn toml_table(script: &Path, cwd: &Path, tokens: &[&str]) -> String {
    let here = workspace::absolute(Path::new("."));
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let script = canonical(script);
    let dir = script.parent().unwrap_or(Path::new("/")).to_path_buf();
    let (base, existing) = match vox_caps::config::find_vox_toml(&dir) {
        Some(t) => (t.parent().unwrap_or(&dir).to_path_buf(), true),
        // None yet: one in the current directory governs a script below it, else one beside it.
        None => {
            let here = canonical(&here);
            (if dir.starts_with(&here) { here } else { dir }, false)
        }
    };
    let here = canonical(&here);
    let file = relative(&here, &base.join("Vox.toml"));
    let shown_base = match relative(&here, &base) {
        s if s == "." => "the current directory".to_string(),
        s => format!("{s}/"),
    };
    if existing {
        eprintln!(
            "note: an entry for {file} (vox run reads it for this script); script and cwd are relative to {shown_base}"
        );
    } else {
        eprintln!(
            "note: no Vox.toml governs the script yet: create {file} with this entry (script and cwd relative to {shown_base})"
        );
    }
    let stem = script
        .file_stem()
        .map_or_else(|| "script".into(), |s| s.to_string_lossy().into_owned());
    let mut table = format!(
        "[run.{}]\nscript = {}\n",
        toml_key(&stem),
        toml_str(&relative(&base, &script))
    );
    let cwd = relative(&base, &canonical(cwd));
    if cwd != "." {
        table.push_str(&format!("cwd = {}\n", toml_str(&cwd)));
    }
    let caps: Vec<String> = tokens.iter().map(|t| toml_str(t)).collect();
    table.push_str(&format!("caps = [{}]\n", caps.join(", ")));
    table
}

/// `to` as a path relative to the directory `from` (both absolute): `scripts/a.vox`, `..`, `.`.
fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A TOML key: bare when it can be, else quoted.
fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        k.to_string()
    } else {
        toml_str(k)
    }
}

/// One `incomplete: …` note per function a syntax error lies in (its needs are not inferred).
fn incomplete_notes(
    db: &vox_analysis::AnalysisDb,
    src: vox_analysis::SourceFile,
    abs: &Path,
    cwd: &Path,
) -> Vec<String> {
    let syntax = vox_analysis::file_syntax(db, src);
    if !syntax.has_errors {
        return Vec::new();
    }
    let items = vox_analysis::file_items(db, src);
    let lines = vox_syntax::LineIndex::shared(src.text(db).peek());
    let shown = output::shown(abs, cwd);
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for d in syntax
        .diagnostics
        .iter()
        .filter(|d| d.severity == vox_syntax::Severity::Error)
    {
        let at = d.range.start;
        let owner = items.fns.iter().find(|f| {
            let base = vox_analysis::fn_base(db, **f);
            base <= at && at < base + f.text(db).len()
        });
        let name = owner.map_or("the top-level statements".to_string(), |f| {
            format!("`{}`", f.name(db))
        });
        if seen.contains(&name) {
            continue;
        }
        let lc = lines.line_col(at, vox_syntax::ColumnUnit::Char);
        out.push(format!(
            "incomplete: {shown}:{}:{}: a syntax error in {name} ({}); what it needs is not inferred: run `vox check {shown}`",
            lc.line + 1,
            lc.col + 1,
            d.message
        ));
        seen.push(name);
    }
    out
}

/// `--check`: C001 and C002 over every script of the workspace that has a run configuration.
fn check(flags: &CapsFlags) -> i32 {
    let paths = if flags.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        flags.paths.clone()
    };
    let root = workspace::find_root(&paths[0]);
    let files = match workspace::walk(&paths, &[], &root) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("vox: {e}");
            return 2;
        }
    };
    let (loaded, _) = match workspace::load(files, root.clone(), false) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("vox: {e}");
            return 2;
        }
    };
    if let Some(e) = loaded.config_errors.first() {
        eprintln!("vox: {e}");
        return 2;
    }
    let opts = LintOptions {
        select: vec!["C001".into(), "C002".into()],
        ignore: vec!["C003".into(), "C004".into(), "C005".into(), "L".into()],
        ..LintOptions::default()
    };
    let info = WorkspaceInfo::new(root.clone(), loaded.runs.clone());
    let mut findings = Vec::new();
    for f in &loaded.targets {
        if info.runs_for(f.path(&loaded.db)).is_empty() {
            continue;
        }
        findings.extend(
            vox_lints::lint_file(&loaded.db, *f, &info, &opts)
                .into_iter()
                .filter(|x| x.code == "C001" || x.code == "C002"),
        );
    }
    // Findings on a configuration's entry are shown with that file's text, as `vox lint` shows
    // them (the texts of scripts alone put them at 1:1 with an empty line).
    let configs: Vec<PathBuf> = findings
        .iter()
        .map(|f| f.file.to_path_buf())
        .filter(|p| p.extension().is_none_or(|e| e != "vox"))
        .collect();
    let texts = output::Texts::with_files(&loaded, configs.into_iter());
    // `--format json` and `sarif` give the findings as `vox lint` does in those formats; the
    // other formats (tokens, cli, toml) describe one script's caps, so the check prints text.
    let format = match flags.format {
        CapsFormat::Json => Format::Json,
        CapsFormat::Sarif => Format::Sarif,
        CapsFormat::Tokens | CapsFormat::Cli | CapsFormat::Toml => Format::Human,
    };
    print!("{}", output::render(format, &findings, &texts, &root));
    if findings.is_empty() {
        eprintln!("vox caps --check: every run configuration matches its script");
        0
    } else {
        let n = findings.len();
        eprintln!(
            "vox caps --check: {n} drift{} between run configurations and scripts",
            if n == 1 { "" } else { "s" }
        );
        i32::from(
            findings
                .iter()
                .any(|f| matches!(f.severity, Severity::Error | Severity::Warning)),
        )
    }
}

/// `--audit`: every capability the recorded run used must be inside the inferred set.
fn reconcile(audit: &Path, tokens: &vox_analysis::Tokens, cwd: &Path) -> i32 {
    let text = match std::fs::read_to_string(audit) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("vox: cannot read {}: {e}", audit.display());
            return 2;
        }
    };
    let parsed: Result<Vec<vox_caps::Token>, _> = tokens
        .tokens
        .iter()
        .map(|t| vox_caps::parse_token(&t.token, cwd))
        .collect();
    let set = match parsed.and_then(|p| vox_caps::CapSet::from_tokens(&p)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("vox: the inferred set does not parse here: {}", e.render());
            return 2;
        }
    };
    let mut used_not_inferred = Vec::new();
    let mut lines = 0usize;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        lines += 1;
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            eprintln!(
                "vox: {}:{}: not a JSON line of a --caps-audit log",
                audit.display(),
                i + 1
            );
            return 2;
        };
        if !audit_allowed(&v, &set) {
            used_not_inferred.push(line.to_string());
        }
    }
    println!(
        "{lines} recorded check{}; {} used but not inferred",
        if lines == 1 { "" } else { "s" },
        used_not_inferred.len()
    );
    for l in &used_not_inferred {
        println!("used but not inferred: {l}");
    }
    i32::from(!used_not_inferred.is_empty())
}

/// Whether an audit line's check would pass under the inferred set.
fn audit_allowed(v: &serde_json::Value, set: &vox_caps::CapSet) -> bool {
    let ns = v.get("ns").and_then(|x| x.as_str()).unwrap_or("");
    let method = v.get("method").and_then(|x| x.as_str()).unwrap_or("");
    let resource = v.get("resource").and_then(|x| x.as_str());
    match ns {
        "fs" | "io" | "path" => {
            let write = v
                .get("access")
                .and_then(|x| x.as_str())
                .is_some_and(|a| a == "write")
                || matches!(
                    method,
                    "write"
                        | "write_file"
                        | "write_to_file"
                        | "remove"
                        | "remove_dir_all"
                        | "mkdir"
                        | "save"
                        | "quota"
                );
            match resource {
                Some(r) => set.fs_admits(Path::new(r), write),
                None => set.fs_any(),
            }
        }
        "env" => match method {
            "set" => set.env() == vox_caps::EnvGrant::Rw,
            _ => set.env() != vox_caps::EnvGrant::None,
        },
        "net" | "http" => set.net(),
        "process" => set.process(),
        "secrets" => set.secrets(),
        "time" => set.time() != vox_caps::TimeGrant::Denied,
        "random" | "crypto" => set.random() != vox_caps::RandomGrant::Denied,
        "agentos" => set.agentos(),
        _ => true,
    }
}
