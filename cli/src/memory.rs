//! How `vox` gets its memory: the allocator every command uses, and how the analysis commands
//! (`lint`, `caps`, `check`) ask the kernel for pages.
//!
//! The analysis frees every function's tree and lowered body as soon as its facts are taken, and
//! on a workspace of ordinary files its peak is held to about twice ruff's (`bench/lint.py`). Two
//! settings keep it there:
//! - No transparent huge pages. mimalloc asks for them, and each first touch of a 2 MiB region
//!   then clears and holds all of it: about 24 MB more at the peak of `vox lint` on the bench
//!   workspace, for no gain in time (its files are small; interleaved runs, 5 each).
//! - A purge delay of 10 ms for freed pages while the facts are made ([`short_purge_delay`]).
//!   mimalloc 3's default is a second, longer than the whole phase on the bench's workspaces, so
//!   every page freed there stayed until the end: on the finding-dense workspace the peak was
//!   183 MiB against 176 MiB with 10 ms and 179 MiB with 100 ms, for no difference in time
//!   (five interleaved runs each, two cores; four on one core). Purging at once instead costs
//!   faults: a third as many pages again are faulted back in. After that phase `vox lint`
//!   purges what was freed (and, on one thread, goes on purging at once:
//!   [`purge_freed_at_once`]).
//!
//! `vox run` turns huge pages off too (before `main`, [`HUGE_PAGES_OFF_BEFORE_MAIN`]; its children get them back). Each first touch of
//! a 2 MiB region cleared all of it: a hello-world script spent a third of its start-up there (2.85 ms against
//! 2.40 ms without, `perf stat`, 50 runs each), and a script's peak grew by up to a third (`bench/interp.py`'s
//! sort: 87 against 71 MB; closures: 98 against 75 MB). Best times are 4 to 9% better with them, medians much
//! worse: the kernel compacting memory to make one stalled a run (sort: median 0.59 s against 0.44 s; tree: 0.90
//! against 0.71 s; six interleaved runs each).
//!
//! `vox run` purges freed pages after 10 ms as well ([`short_purge_delay`]): a script that builds and drops large
//! lists round after round kept every round's freed pages for the default second and grew its peak with each
//! (`bench/interp.py`'s closures: 75 MB against 43 MB, python3 47 MB; sort: 68 against 51 MB), for no difference
//! in time (best of three: 0.28 s either way).
//!
//! The language server turns huge pages off too: a
//! first touch of one within an edit's work (the kernel compacting memory to make it) stalled
//! that edit for 8 to 30 ms. On the finding-dense file of `bench/lsp_latency.py`, 200 edits in
//! three runs each: 4, 10 and 13 edits over 8 ms with them, 1, 1 and 2 without; the median is
//! unchanged (4.1–4.2 ms against 3.9–4.5 ms, server side).
//!
//! A large file is the exception. Its tree alone is tens of megabytes, built in a few large
//! arrays and then read all over while every function is checked; with 4 KiB pages the kernel
//! takes one fault per page (about 3 µs each here) and the walks miss the TLB. With huge pages,
//! `vox check` on a 100,000-line file took a median 0.21 s against 0.27 s (15 interleaved runs),
//! and 0.19–0.22 s against 0.23–0.24 s in two sets of 20 runs each right after a `vox lint` of
//! 150 MB; its peak grows by about 30 MB.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, Ordering};

use libmimalloc_sys as mi;

/// mimalloc, asked the plain way (`mi_malloc`) for the word-aligned blocks nearly every Rust
/// value needs. The `mimalloc` crate always calls `mi_malloc_aligned`, which checks the
/// alignment again on every call and, for a block over 1 KiB whose size is not a power of two,
/// allocates `align - 1` bytes more and aligns within it. Every mimalloc block is at least
/// word-aligned, so that detour buys nothing for `align <= 8`; larger alignments keep it.
#[cfg_attr(feature = "system-alloc", allow(dead_code))]
pub struct Mimalloc;

/// The alignment every mimalloc block has.
#[cfg_attr(feature = "system-alloc", allow(dead_code))]
const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: each method forwards to mimalloc with the same size and an alignment it honours: the
// plain calls only when `layout.align() <= WORD`, which every mimalloc block satisfies, and the
// aligned calls otherwise. Blocks from either are freed by `mi_free`.
unsafe impl GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { mi::mi_malloc(layout.size()).cast() }
        } else {
            unsafe { mi::mi_malloc_aligned(layout.size(), layout.align()).cast() }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { mi::mi_zalloc(layout.size()).cast() }
        } else {
            unsafe { mi::mi_zalloc_aligned(layout.size(), layout.align()).cast() }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        unsafe { mi::mi_free(ptr.cast()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD {
            unsafe { mi::mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            unsafe { mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast() }
        }
    }
}

/// Whether huge pages were off when `vox` started: whoever started it chose that, for it and its children.
static OFF_AT_START: AtomicBool = AtomicBool::new(false);

/// Turns huge pages off before anything allocates, from the program's initialisers (the ELF `.init_array`, run
/// by the C library before `main` and so before Rust's runtime and mimalloc's first arena). Turned off in `main`
/// instead, they came too late: the runtime's and argument parsing's first allocations had already faulted
/// three 2 MiB pages, each cleared whole (a hello-world `vox run`: 3.0 ms and 12.8 MB peak, against 2.3 ms and
/// 7.5 MB with mimalloc told not to ask for them). Every command but a large file's analysis wants them off
/// (see the module's documentation); the others get the setting back at once ([`huge_pages_as_started`]).
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static HUGE_PAGES_OFF_BEFORE_MAIN: extern "C" fn() = huge_pages_off_before_main;

#[cfg(target_os = "linux")]
extern "C" fn huge_pages_off_before_main() {
    // SAFETY: a plain prctl query on this process.
    let off = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) } == 1;
    OFF_AT_START.store(off, Ordering::Relaxed);
    set_thp_disabled(true);
    small_first_arena();
}

/// mimalloc 3's `mi_option_arena_reserve` (KiB; see [`MI_OPTION_PURGE_DELAY`] for why a number).
const MI_OPTION_ARENA_RESERVE: libc::c_int = 23;

/// A first arena of 64 MiB rather than mimalloc's 1 GiB, unless `MIMALLOC_ARENA_RESERVE` says
/// otherwise: the arena's bitmaps are made when it is reserved, and for 1 GiB that wrote 42 pages
/// of a hello-world run's 390 page faults. A process that needs more gets further arenas (twice
/// as large after every eight).
fn small_first_arena() {
    if std::env::var_os("MIMALLOC_ARENA_RESERVE").is_none() {
        // SAFETY: a plain call into the allocator, before any other thread exists.
        unsafe { mi_option_set(MI_OPTION_ARENA_RESERVE, 64 * 1024) };
    }
}

/// `vox run`'s setting: huge pages off for the interpreter (since start-up), back on in each child
/// it starts, unless they were off at start-up (whoever started `vox` chose that for the children
/// too).
pub fn huge_pages_for_run_children() {
    if !OFF_AT_START.load(Ordering::Relaxed) {
        vox_runtime::effects::restore_huge_pages_in_children();
    }
}

/// The setting `vox` started with, back: for the commands that do not choose one (their children inherit it).
pub fn huge_pages_as_started() {
    set_thp_disabled(OFF_AT_START.load(Ordering::Relaxed));
}

/// Turns them back on when one of the files to analyse is large (`len` bytes, the largest):
/// called once the files are read, before they are parsed.
pub fn huge_pages_for_largest(len: usize) {
    if len >= vox_syntax::LARGE_FILE {
        set_thp_disabled(false);
    }
}

fn set_thp_disabled(disabled: bool) {
    // SAFETY: a plain prctl on this process. It only changes how the kernel backs memory from
    // now on, so a failure (an old kernel) is harmless and ignored.
    unsafe {
        libc::prctl(
            libc::PR_SET_THP_DISABLE,
            libc::c_ulong::from(disabled),
            0,
            0,
            0,
        );
    }
}

// Part of mimalloc's API, not bound by `libmimalloc-sys` without its `extended` feature.
extern "C" {
    fn mi_collect(force: bool);
    fn mi_option_set(option: libc::c_int, value: libc::c_long);
    fn mi_option_get(option: libc::c_int) -> libc::c_long;
}

/// mimalloc 3's `mi_option_purge_delay` (the position in its `mi_option_t`; the crate's bindings
/// leave options out without its `extended` feature).
const MI_OPTION_PURGE_DELAY: libc::c_int = 15;

/// Purges freed pages 10 ms after they are freed rather than mimalloc's default second (see the
/// module's documentation), unless `MIMALLOC_PURGE_DELAY` says otherwise. Called before any
/// other thread exists.
pub fn short_purge_delay() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: a plain call into the allocator, which takes its own locks.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 10) };
    }
}

/// Gives back the pages freed so far, at once, and from now on as they are freed when the rest
/// runs on `one_thread`. Called when the facts of every function are made: that phase frees as
/// much as it keeps (each function's tree and lowered body), and reuses it at once, so purging
/// during it only costs faults (a third more time in that phase). The phases after it allocate
/// on new threads, which mimalloc serves from fresh pages while the freed ones wait out the
/// purge delay: purging at once lowers the peak of a one-core
/// `vox lint` on the bench's chain workspace by about 10 MB (148 against 150–160 MB).
///
/// On several threads the delay is restored after this purge: each purge is a `madvise` whose
/// TLB flush interrupts every other core running the process. With it at zero, the human
/// output's frees (each file's display text) spent a tenth of a two-core lint of the dense
/// workspace in those interrupts, and its writing phase took 1.0–1.2 s against 0.4–0.5 s.
/// One thread has no other core to interrupt.
pub fn purge_freed_at_once(one_thread: bool) {
    // SAFETY: plain calls into the allocator, which takes its own locks.
    unsafe {
        let delay = mi_option_get(MI_OPTION_PURGE_DELAY);
        mi_option_set(MI_OPTION_PURGE_DELAY, 0);
        mi_collect(true);
        if !one_thread {
            mi_option_set(MI_OPTION_PURGE_DELAY, delay);
        }
    }
}
