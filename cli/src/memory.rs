//! How the analysis commands (`lint`, `caps`, `check`) ask the kernel for memory.
//!
//! The analysis frees every function's tree and lowered body as soon as its facts are taken, and
//! on a workspace of ordinary files its peak is held to about twice ruff's (`bench/lint.py`). Two
//! settings keep it there:
//! - No transparent huge pages. mimalloc asks for them, and each first touch of a 2 MiB region
//!   then clears and holds all of it: about 24 MB more at the peak of `vox lint` on the bench
//!   workspace, for no gain in time (its files are small; interleaved runs, 5 each).
//! - mimalloc's default purge delay for freed pages: without huge pages it peaks within a few MB
//!   of purging at once, and faults a third as many pages back in.
//!
//! The interpreter and the language server keep mimalloc's defaults.
//!
//! A large file is the exception. Its tree alone is tens of megabytes, built in a few large
//! arrays and then read all over while every function is checked; with 4 KiB pages the kernel
//! takes one fault per page (about 3 µs each here) and the walks miss the TLB. With huge pages,
//! `vox check` on a 100,000-line file ran in 0.19–0.22 s against 0.23 s (medians of 20
//! interleaved runs, one set right after a `vox lint` of 150 MB), with 30 MB more at its peak.

/// Turns huge pages off for this process. Called before any other thread exists.
pub fn no_huge_pages() {
    set_thp_disabled(true);
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
