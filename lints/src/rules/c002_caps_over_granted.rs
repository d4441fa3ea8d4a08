//! C002 caps-over-granted: a run configuration grants a token the script can never use.
//! `X:none` never counts, a root broader than needed is not over-granted (C004 explains
//! widening), rw is not over-granted for reads, `deterministic` counts as used when the script
//! reads the clock or randomness, and a deny inside a grant (`fs:none=`, `exec:none=`, `fs:ro=`
//! inside an `fs:rw=` root) only narrows, so it is never unused. Reported on line 1; fix: remove it.

use std::path::Path;

use vox_analysis::{inferred_caps, EffectKind, InferredCaps};
use vox_caps::{CapSet, Token};
use vox_syntax::TextRange;

use super::caps_check::{resolve, satisfies};
use super::sites::W;
use crate::context::FileCx;
use crate::finding::Finding;

fn used(token: &Token, caps: &InferredCaps, cwd: &Path) -> bool {
    let need = |k: EffectKind| caps.needs.iter().any(|n| n.effect.kind == k);
    match token {
        Token::FsRo(_) | Token::FsRw(_) => {
            let Ok(set) = CapSet::from_tokens(std::slice::from_ref(token)) else {
                return true;
            };
            let fs_need = caps.needs.iter().any(|n| {
                matches!(
                    n.effect.kind,
                    EffectKind::FsRead
                        | EffectKind::FsWrite
                        | EffectKind::FsList
                        | EffectKind::FsCwd
                ) && satisfies(&set, cwd, n)
            });
            fs_need
                || caps.imports.iter().any(|(p, _)| {
                    set.fs_admits(&resolve(Path::new("/"), &p.to_string_lossy()), false)
                })
        }
        Token::Deterministic => need(EffectKind::Time) || need(EffectKind::Random),
        // Only children listen: the port is for the programs the script starts.
        Token::NetListen(_) => need(EffectKind::Process),
        other => {
            let ns = other.namespace();
            let granted = CapSet::from_tokens(std::slice::from_ref(other))
                .map(|s| s.tokens() != ["none"])
                .unwrap_or(false);
            if !granted {
                return true;
            }
            match ns {
                "net" => need(EffectKind::Net),
                "process" => need(EffectKind::Process),
                "env" => need(EffectKind::EnvRo) || need(EffectKind::EnvRw),
                "secrets" => need(EffectKind::Secrets),
                "time" => need(EffectKind::Time),
                "random" => need(EffectKind::Random),
                "agentos" => need(EffectKind::Agentos),
                _ => true,
            }
        }
    }
}

pub fn check(cx: &FileCx<'_>, out: &mut Vec<Finding>) {
    let runs = cx.runs();
    if runs.is_empty() {
        return;
    }
    let caps = inferred_caps(cx.db, cx.file);
    let line1_end = cx
        .text
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(cx.text.len()) as u32;
    for run in runs {
        let Some(tokens) = &run.caps else { continue };
        // An `fs:ro=` inside a writable root narrows it (a deny): it grants nothing to use.
        let narrowing = super::caps_check::run_caps(run)
            .map(|s| s.read_only_within())
            .unwrap_or_default();
        for t in tokens {
            let Ok(tok) = vox_caps::parse_token(t, &run.cwd) else {
                continue;
            };
            if matches!(&tok, Token::FsRo(d) if narrowing.contains(d)) {
                continue;
            }
            if used(&tok, caps, &run.cwd) {
                continue;
            }
            let mut f = cx.finding(
                "C002",
                W,
                TextRange::new(0, line1_end),
                format!(
                    "run configuration `{}` grants `{t}`, which this script never uses",
                    run.name
                ),
            );
            f.help = Some(format!("remove \"{t}\" from its caps").into());
            let kept: Vec<String> = tokens.iter().filter(|x| *x != t).cloned().collect();
            let fix = super::caps_check::config_fix(
                cx,
                run,
                &kept,
                format!("Remove `{t}` from run configuration `{}`", run.name),
                crate::finding::Applicability::Safe,
            );
            f.fixes.extend(fix.clone());
            out.push(f);
            // On the configuration entry too (decision 39).
            let mut g = Finding::new(
                "C002",
                W,
                run.origin.file.clone(),
                cx.ws.entry_range(run),
                format!(
                    "run configuration `{}` grants `{t}`, which {} never uses",
                    run.name,
                    cx.path
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                ),
            );
            g.help = Some(format!("remove \"{t}\" from its caps").into());
            g.fixes.extend(fix);
            out.push(g);
        }
    }
}
