//! How much work a request does, and stopping it (issue 20).
//!
//! Every read request runs on a snapshot on a blocking thread. Its long loops (one iteration per
//! token, node or symbol) call [`Ticker::step`], which counts the iteration and, every
//! [`CHECK_PERIOD`] steps, looks whether the request must stop:
//! - the client cancelled it (`$/cancelRequest`: `tower-lsp-server` drops the request's future,
//!   whose guard raises the request's flag): the work unwinds with [`Stopped`], answered
//!   `RequestCancelled` (-32800);
//! - an edit waits to write the database: `unwind_if_revision_cancelled` unwinds with
//!   `salsa::Cancelled`, answered `ContentModified`, and the edit's diagnostics never wait for the
//!   request to finish.
//!
//! Lookups inside an iteration (a name's definitions, a line's start) add what they examine with
//! [`add`], on a per-thread counter. The totals are kept per request kind so that a test can
//! show that a request's work grows with the file, not with its square (`vox.debug.work`, with
//! `VOX_LSP_DEBUG` set).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use salsa::Database;
use vox_analysis::AnalysisDb;

/// Steps between two checks. A step is one token, node or examined candidate: a few hundred
/// nanoseconds at most, so a check runs well within a millisecond of the previous one.
pub const CHECK_PERIOD: u64 = 1024;

thread_local! {
    static STEPS: Cell<u64> = const { Cell::new(0) };
}

/// Counts `n` steps of the current request (on this thread).
pub fn add(n: u64) {
    STEPS.with(|s| s.set(s.get() + n));
}

/// The steps counted on this thread since the last call, which restarts the count.
pub fn take() -> u64 {
    STEPS.with(|s| s.replace(0))
}

/// The payload a stopped request unwinds with.
#[derive(Debug)]
pub struct Stopped;

/// Raised when the client cancels the request (its future is dropped).
pub type CancelFlag = Arc<AtomicBool>;

/// Checks a request's flags as its loops run.
pub struct Ticker<'a> {
    db: &'a AnalysisDb,
    cancel: &'a AtomicBool,
    next_check: u64,
}

impl<'a> Ticker<'a> {
    pub fn new(db: &'a AnalysisDb, cancel: &'a AtomicBool) -> Ticker<'a> {
        let mut t = Ticker {
            db,
            cancel,
            next_check: 0,
        };
        t.check();
        t
    }

    /// One step of a loop; every [`CHECK_PERIOD`] steps, stops the request if it must stop.
    #[inline]
    pub fn step(&mut self) {
        let now = STEPS.with(|s| {
            let v = s.get() + 1;
            s.set(v);
            v
        });
        if now >= self.next_check {
            self.check();
        }
    }

    #[cold]
    fn check(&mut self) {
        self.next_check = STEPS.with(Cell::get) + CHECK_PERIOD;
        if debug::HOLD.load(Ordering::SeqCst) {
            debug::HELD.fetch_add(1, Ordering::SeqCst);
            while debug::HOLD.load(Ordering::SeqCst) && !self.cancel.load(Ordering::SeqCst) {
                self.db.unwind_if_revision_cancelled();
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
        if self.cancel.load(Ordering::SeqCst) {
            std::panic::resume_unwind(Box::new(Stopped));
        }
        self.db.unwind_if_revision_cancelled();
    }
}

/// Raises the flag when dropped unless disarmed: the request's future was dropped (cancelled)
/// while its work ran.
pub struct CancelOnDrop {
    flag: Option<CancelFlag>,
}

impl CancelOnDrop {
    pub fn new(flag: CancelFlag) -> CancelOnDrop {
        CancelOnDrop { flag: Some(flag) }
    }

    pub fn disarm(mut self) {
        self.flag = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(f) = self.flag.take() {
            f.store(true, Ordering::SeqCst);
        }
    }
}

/// How requests ended, per kind, for tests (`vox.debug.work`).
#[derive(Default)]
struct Record {
    /// Steps of the last run that finished.
    steps: u64,
    completed: u64,
    stopped: u64,
    content_modified: u64,
}

static RECORDS: Mutex<BTreeMap<&'static str, Record>> = Mutex::new(BTreeMap::new());

/// How a request ended.
pub enum Outcome {
    Completed,
    Stopped,
    ContentModified,
    Failed,
}

/// Records a request's end (only when `VOX_LSP_DEBUG` is set: nothing else reads it).
pub fn record(what: &'static str, steps: u64, outcome: Outcome) {
    if !debug::enabled() {
        return;
    }
    let mut records = crate::base::lock(&RECORDS);
    let r = records.entry(what).or_default();
    match outcome {
        Outcome::Completed => {
            r.completed += 1;
            r.steps = steps;
        }
        Outcome::Stopped => r.stopped += 1,
        Outcome::ContentModified => r.content_modified += 1,
        Outcome::Failed => {}
    }
}

/// Test hooks, active with `VOX_LSP_DEBUG`.
pub mod debug {
    use super::*;

    /// While set, requests wait at their next check (until cancelled or released).
    pub static HOLD: AtomicBool = AtomicBool::new(false);
    /// How many checks found [`HOLD`] set.
    pub static HELD: AtomicU64 = AtomicU64::new(0);

    pub fn enabled() -> bool {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *ON.get_or_init(|| std::env::var_os("VOX_LSP_DEBUG").is_some())
    }

    /// `{"held": n, "requests": {"semantic tokens": {"steps", "completed", "stopped",
    /// "contentModified"}, …}}`.
    pub fn report() -> serde_json::Value {
        let records = crate::base::lock(&RECORDS);
        let requests: serde_json::Map<String, serde_json::Value> = records
            .iter()
            .map(|(k, r)| {
                (
                    (*k).to_string(),
                    serde_json::json!({
                        "steps": r.steps,
                        "completed": r.completed,
                        "stopped": r.stopped,
                        "contentModified": r.content_modified,
                    }),
                )
            })
            .collect();
        serde_json::json!({"held": HELD.load(Ordering::SeqCst), "requests": requests})
    }
}
