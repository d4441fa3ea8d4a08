//! Resource limits applied in the forked child (async-signal-safe: plain syscalls only).

use std::io;

/// Limits to set in the child; each is applied to both the soft and the hard limit.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Limits {
    pub data: Option<u64>,
    pub fsize: Option<u64>,
    pub core_zero: bool,
}

macro_rules! set_limit {
    ($resource:expr, $value:expr) => {{
        let mut cur = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // Never ask for more than the current hard limit (that would need privilege).
        if libc::getrlimit($resource, &mut cur) != 0 {
            return Err(io::Error::last_os_error());
        }
        let v = ($value as libc::rlim_t).min(cur.rlim_max);
        let new = libc::rlimit {
            rlim_cur: v,
            rlim_max: v,
        };
        if libc::setrlimit($resource, &new) != 0 {
            return Err(io::Error::last_os_error());
        }
    }};
}

impl Limits {
    /// Applies the limits to the calling process.
    ///
    /// # Safety
    /// Only makes `getrlimit`/`setrlimit` calls, so it may run between `fork` and `exec`.
    pub(crate) unsafe fn apply(&self) -> io::Result<()> {
        if let Some(v) = self.data {
            set_limit!(libc::RLIMIT_DATA, v);
        }
        if let Some(v) = self.fsize {
            set_limit!(libc::RLIMIT_FSIZE, v);
        }
        if self.core_zero {
            set_limit!(libc::RLIMIT_CORE, 0u64);
        }
        Ok(())
    }
}
