//! `--max-memory`: a counting global allocator (the `vox` binary installs it). The limit is soft:
//! crossing it raises a flag the evaluator checks every few steps and unwinds to exit 79; growth
//! builtins check first (`reserve`). A hard cap at the limit + 25 % writes the message with a raw
//! `write(2)` and exits 79 at once, skipping exit commands (decisions.md 21).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

use crate::exc::{CeilingKind, Exc, Res};

/// Counts the bytes live through the allocator `A` (the binary picks it), unless
/// [`stop_counting`] was called.
pub struct CountingAlloc<A = System>(pub A);

/// A value alone on its cache line.
#[repr(align(64))]
struct Line<T>(T);

/// Whether allocations are counted. Read on every allocation, written once at start: on its own
/// line, so it stays in every core's cache while `LIVE` moves between them.
static COUNTING: Line<AtomicBool> = Line(AtomicBool::new(true));
/// Every core's allocations update this one counter, so its line moves between cores on nearly
/// every allocation; the analysis commands, which allocate on all cores and have no memory
/// limit, stop counting (a third more CPU time on two cores for `vox lint`).
static LIVE: Line<AtomicUsize> = Line(AtomicUsize::new(0));
static BASE: AtomicUsize = AtomicUsize::new(0);
/// 0 when not armed.
static LIMIT: AtomicUsize = AtomicUsize::new(0);
static HARD: AtomicUsize = AtomicUsize::new(usize::MAX);
static OVER: AtomicBool = AtomicBool::new(false);
static HARD_MESSAGE: OnceLock<Vec<u8>> = OnceLock::new();
/// Set by the first thread that reports the memory ceiling: the hard cap can trip on several
/// threads at once (a capturing builtin reads a child's two pipes on threads of their own), and
/// the run must say so once.
static REPORTED: AtomicBool = AtomicBool::new(false);

/// Claims the one report of the memory ceiling: true for the first caller. A caller that gets
/// false must not print (another thread is ending the process with the message).
pub fn claim_report() -> bool {
    !REPORTED.swap(true, Relaxed)
}

#[inline]
fn after_grow(now: usize) {
    let limit = LIMIT.load(Relaxed);
    if limit == 0 {
        return;
    }
    let used = now.saturating_sub(BASE.load(Relaxed));
    if used > limit {
        OVER.store(true, Relaxed);
        if used > HARD.load(Relaxed) {
            hard_stop();
        }
    }
}

#[cold]
fn hard_stop() -> ! {
    if !claim_report() {
        // Another thread is printing the message and ending the process: wait for it.
        loop {
            // SAFETY: pause(2) only sleeps until a signal; the _exit of the reporting thread
            // ends this one too.
            unsafe {
                libc::pause();
            }
        }
    }
    let msg: &[u8] = HARD_MESSAGE
        .get()
        .map_or(b"vox: memory limit exceeded\n", |m| m.as_slice());
    // SAFETY: write(2) and _exit(2) are async-signal-safe and allocate nothing.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
    }
    // The run is stopped: nothing it started survives it (decision 48). Syscalls only, on the
    // stack: nothing is allocated.
    vox_jail::lifetime::end_descendants(&[]);
    // SAFETY: as above.
    unsafe { libc::_exit(79) }
}

/// Stops counting for the rest of the process: for commands that run no script (no
/// `--max-memory` to enforce). Call it before starting threads; [`used`] is meaningless after.
pub fn stop_counting() {
    COUNTING.0.store(false, Relaxed);
}

#[inline]
fn counting() -> bool {
    COUNTING.0.load(Relaxed)
}

// SAFETY: every method forwards to the inner allocator and only adds atomic bookkeeping.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = self.0.alloc(layout);
        if !p.is_null() && counting() {
            let now = LIVE.0.fetch_add(layout.size(), Relaxed) + layout.size();
            after_grow(now);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = self.0.alloc_zeroed(layout);
        if !p.is_null() && counting() {
            let now = LIVE.0.fetch_add(layout.size(), Relaxed) + layout.size();
            after_grow(now);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.0.dealloc(ptr, layout);
        if counting() {
            LIVE.0.fetch_sub(layout.size(), Relaxed);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = self.0.realloc(ptr, layout, new_size);
        if !p.is_null() && counting() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let now = LIVE.0.fetch_add(grow, Relaxed) + grow;
                after_grow(now);
            } else {
                LIVE.0.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

/// Starts counting: bytes live from now on count against `limit` (0 disarms).
pub fn arm(limit: u64) {
    let _ = HARD_MESSAGE
        .set(format!("vox: memory limit exceeded: --max-memory {limit}\n").into_bytes());
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    BASE.store(LIVE.0.load(Relaxed), Relaxed);
    HARD.store(limit.saturating_add(limit / 4), Relaxed);
    OVER.store(false, Relaxed);
    LIMIT.store(limit, Relaxed);
}

pub fn over_limit() -> bool {
    OVER.load(Relaxed)
}

pub fn limit() -> u64 {
    LIMIT.load(Relaxed) as u64
}

/// Live bytes counted since arming (or in all, when not armed).
pub fn used() -> usize {
    LIVE.0.load(Relaxed).saturating_sub(BASE.load(Relaxed))
}

/// Whether `bytes` more would stay within the limit (always, when none is armed). Crossing
/// marks the run over its limit, as an allocation would.
pub fn fits(bytes: usize) -> bool {
    let limit = LIMIT.load(Relaxed);
    if limit != 0 && used().saturating_add(bytes) > limit {
        OVER.store(true, Relaxed);
        return false;
    }
    true
}

/// The ceiling a run that crossed `--max-memory` stops with.
pub fn ceiling() -> Exc {
    Exc::Ceiling {
        kind: CeilingKind::Memory,
        limit: LIMIT.load(Relaxed) as u64,
        loc: None,
    }
}

/// Refuses to build a value of about `bytes` bytes when that would cross the limit.
pub fn reserve(bytes: usize) -> Res<()> {
    if fits(bytes) {
        Ok(())
    } else {
        Err(ceiling())
    }
}
