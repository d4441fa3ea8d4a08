//! Self-confinement of the interpreter (runtime.md §4, decisions.md 25): when the capability set
//! is imposed by the receiver, the process confines itself with the same filesystem and network
//! policy before the script runs, which closes the gap between a path check and its use.

use std::path::PathBuf;

use vox_runtime::context::RunContext;

/// What happened, for `--verbose`.
pub enum SelfConfinement {
    /// Not needed: the developer default or the legacy directive.
    NotImposed,
    Applied(String),
}

/// Confines the current thread (and what it starts) to the run's policy. A host that cannot do it
/// fails closed when the script may start children that the child jail would accept (they would
/// run under an unconfined parent); otherwise the interpreter's own checks still hold and the run
/// goes on (reported with `--verbose`), and where children cannot be confined either, each spawn
/// is refused.
pub fn confine_self(ctx: &mut RunContext) -> Result<SelfConfinement, String> {
    if !(ctx.receiver_imposed() || ctx.mesh) {
        return Ok(SelfConfinement::NotImposed);
    }
    let mut read = Vec::new();
    let mut write = Vec::new();
    for root in ctx.caps.fs_roots() {
        read.push(root.dir().to_path_buf());
        if root.writable() {
            write.push(root.dir().to_path_buf());
        }
    }
    let mut policy = vox_jail::SelfPolicy::new(read, write, ctx.caps.net())
        .with_denies(vox_runtime::effects::run_denies(&ctx.caps))
        .with_listen_ports(ctx.caps.listen_ports());
    if ctx.caps.process() {
        // Children run programs from PATH and get a private temp dir: both must exist inside
        // the interpreter's own domain, which is created now, before confinement.
        for dir in std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect::<Vec<PathBuf>>())
            .unwrap_or_default()
        {
            if dir.is_dir() {
                policy = policy.with_exec_path(dir);
            }
        }
        if ctx.child_tmp.is_none() {
            match vox_jail::TempDir::new() {
                Ok(t) => ctx.child_tmp = Some(t),
                Err(e) => {
                    return Err(format!(
                        "vox: cannot confine child: cannot create the run's private temp dir: {e}"
                    ))
                }
            }
        }
        if let Some(t) = &ctx.child_tmp {
            policy = policy.with_temp_dir(t.path());
        }
    }
    if ctx.unconfined_children {
        return Ok(SelfConfinement::Applied(
            "skipped: --unconfined-children".into(),
        ));
    }
    match vox_jail::confine_self(&policy) {
        Ok(applied) => Ok(SelfConfinement::Applied(applied.describe())),
        // A host that cannot confine children refuses every spawn with `vox: cannot confine
        // child: …` (exit 77, runtime.md §4): no child can start, so the run goes on under the
        // interpreter's own checks, as a run without process:allow does, and a script that never
        // spawns is not refused.
        Err(e) if ctx.caps.process() && vox_jail::probe().child_gap(ctx.caps.net()).is_some() => {
            Ok(SelfConfinement::Applied(format!(
                "not applied ({e}); every child will be refused"
            )))
        }
        Err(e) if ctx.caps.process() => Err(format!("vox: {e}")),
        Err(e) => Ok(SelfConfinement::Applied(format!(
            "not applied ({e}); the interpreter's own checks still apply"
        ))),
    }
}
