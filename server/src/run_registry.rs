//! What the server keeps of runs: the process group of each active run ([`Runs`], which
//! `vox.stop` and the server's exit signal) and the diagnostics of each script's last run
//! ([`RunDiagnostic`]), with what their quick fixes need.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde_json::Value;
use tower_lsp_server::ls_types::Diagnostic;
use vox_caps::config::RunConfig;

use crate::base::lock;

#[derive(Default)]
pub struct Runs {
    pub(crate) next: AtomicU64,
    /// Process group of each active run.
    pub(crate) active: Mutex<HashMap<u64, i32>>,
}

impl Runs {
    fn kill(pgid: i32, sig: i32) {
        if pgid > 1 {
            // SAFETY: kill(2) with a negative pid signals the process group we created for the
            // run (the child's pid); it has no memory effects.
            unsafe {
                libc::kill(-pgid, sig);
            }
        }
    }

    /// Stops a run: SIGTERM to its process group, SIGKILL two seconds later if it is still there.
    pub fn stop(&self, id: u64) -> bool {
        let Some(pgid) = lock(&self.active).get(&id).copied() else {
            return false;
        };
        Self::kill(pgid, libc::SIGTERM);
        true
    }

    pub fn stop_all(&self) {
        let groups: Vec<i32> = lock(&self.active).values().copied().collect();
        for g in groups {
            Self::kill(g, libc::SIGTERM);
        }
    }

    /// Tracks a process group started outside [`start`] (`vox.prove`'s runs), so that `vox.stop`
    /// and the server's exit reach it too; returns its id.
    pub(crate) fn track(&self, pgid: i32) -> u64 {
        let id = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        lock(&self.active).insert(id, pgid);
        id
    }

    /// The tracked run `id` ended (or was given up): signals its group with `sig` when `Some`.
    pub(crate) fn untrack(&self, id: u64, sig: Option<i32>) {
        if let Some(pgid) = lock(&self.active).remove(&id) {
            if let Some(sig) = sig {
                Self::kill(pgid, sig);
            }
        }
    }

    /// Whether no run is active.
    pub fn idle(&self) -> bool {
        lock(&self.active).is_empty()
    }
}

/// A diagnostic from a run, and what its quick fixes need.
#[derive(Clone, Debug)]
pub struct RunDiagnostic {
    pub diagnostic: Diagnostic,
    /// For a denial: the token that would allow the call.
    pub token: Option<String>,
    /// For a ceiling: the flag and its limit (`max-steps`, `10000000`).
    pub ceiling: Option<(String, String)>,
    /// The run configuration the run used (none: the inferred caps).
    pub config: Option<RunConfig>,
    /// The caps the run had.
    pub caps: Vec<String>,
    pub cwd: PathBuf,
}

impl RunDiagnostic {
    /// The script the run was for (kept in the diagnostic's data).
    pub(crate) fn config_script(&self) -> PathBuf {
        self.diagnostic
            .data
            .as_ref()
            .and_then(|d| d.get("script"))
            .and_then(Value::as_str)
            .map(PathBuf::from)
            .unwrap_or_default()
    }
}
