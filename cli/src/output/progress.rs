//! `vox lint`'s progress bar.

/// A progress bar on stderr, only on a terminal and only when the run is long.
pub struct Progress {
    total: usize,
    done: std::sync::atomic::AtomicUsize,
    enabled: bool,
    start: std::time::Instant,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        use std::io::IsTerminal;
        Progress {
            total,
            done: std::sync::atomic::AtomicUsize::new(0),
            enabled: std::io::stderr().is_terminal() && total >= 50,
            start: std::time::Instant::now(),
        }
    }

    pub fn tick(&self) {
        let n = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if self.enabled && self.start.elapsed().as_millis() > 300 && n.is_multiple_of(16) {
            let width = 30;
            let filled = n * width / self.total.max(1);
            eprint!(
                "\r[{}{}] {n}/{} files",
                "#".repeat(filled),
                " ".repeat(width - filled),
                self.total
            );
        }
    }

    pub fn done(&self) {
        if self.enabled && self.start.elapsed().as_millis() > 300 {
            eprint!("\r{}\r", " ".repeat(60));
        }
    }
}
