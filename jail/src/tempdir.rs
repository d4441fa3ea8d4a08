//! The private temp dir of a run: `0700`, unique, removed with its contents on drop.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A private directory (mode `0700`) removed recursively when dropped.
///
/// On Unix a small guardian process (`/bin/sh`, in its own process group) is started with the
/// directory and removes it once its end of a pipe closes: when the `TempDir` is dropped, or
/// when the process ends in any other way. That covers what `Drop` cannot do: a process that
/// confined itself ([`crate::confine_self`]) may write beneath the directory but not remove it
/// from its parent, and `_exit` (the `--timeout` watchdog, the hard memory cap) skips drops.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
    guardian: Option<std::process::Child>,
}

impl TempDir {
    /// Creates a fresh directory under [`std::env::temp_dir`].
    pub fn new() -> io::Result<TempDir> {
        TempDir::new_in(&std::env::temp_dir())
    }

    /// Creates a fresh directory under `parent` (named `vox-run-<pid>-<n>-<nonce>`).
    pub fn new_in(parent: &Path) -> io::Result<TempDir> {
        let pid = std::process::id();
        for _ in 0..64 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let path = parent.join(format!("vox-run-{pid}-{n}-{nanos:08x}"));
            match create_private_dir(&path) {
                Ok(()) => {
                    // Canonical, so the jail's rule and TMPDIR name the same place.
                    let path = path.canonicalize().unwrap_or(path);
                    let guardian = guardian(&path);
                    if let Some(g) = &guardian {
                        // Ending the run's processes must not end the one that cleans up.
                        crate::lifetime::keep(g.id());
                    }
                    return Ok(TempDir { path, guardian });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!(
                            "cannot create a private temp dir in {}: {e}",
                            parent.display()
                        ),
                    ))
                }
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("cannot find a free temp dir name in {}", parent.display()),
        ))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pid of the guardian process that removes the directory, if one is running.
    pub fn guardian_pid(&self) -> Option<u32> {
        self.guardian.as_ref().map(std::process::Child::id)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if self.guardian.is_none() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
        if let Some(mut g) = self.guardian.take() {
            // Closing the pipe lets the guardian finish what a confined process could not.
            drop(g.stdin.take());
            let _ = g.wait();
            crate::lifetime::unkeep(g.id());
        }
    }
}

/// What the guardian runs once its standard input ends (`$1` the directory, `$2` `1` when it
/// runs as root).
///
/// A background child that outlives the run may still be writing into the directory, faster
/// than `rm -rf` removes: the directory is first renamed (atomic: every path the child holds
/// stops resolving, and in the children's mount namespaces the bind mount of the old name goes
/// with it), made unwritable (mode 0: a child has no capabilities, so the owner's bits bind it;
/// root's guardian still removes), then removed, again until it is gone (a child whose working
/// directory is inside can still create entries there, unless it is denied by the mode), for at
/// most about two seconds.
const GUARDIAN: &str = r#"read -r _
d=$1
if mv -f -- "$d" "$d.removing" 2>/dev/null; then d=$d.removing; fi
[ "$2" = 1 ] && chmod 0 -- "$d" 2>/dev/null
n=0
while [ -e "$d" ] && [ $n -lt 200 ]; do
  rm -rf -- "$d" 2>/dev/null
  [ -e "$d" ] || break
  n=$((n+1))
  sleep 0.01
done"#;

/// Starts the process that removes `dir` once its standard input reaches end of file (best
/// effort: without it, only `Drop` removes the directory).
#[cfg(unix)]
fn guardian(dir: &Path) -> Option<std::process::Child> {
    use std::os::unix::process::CommandExt as _;
    use std::process::{Command, Stdio};
    // SAFETY: a plain getter.
    let root = if unsafe { libc::geteuid() } == 0 {
        "1"
    } else {
        "0"
    };
    Command::new("/bin/sh")
        .args(["-c", GUARDIAN, "vox-tempdir-guardian"])
        .arg(dir)
        .arg(root)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Not in the terminal's group: ^C must not stop it before it has cleaned up.
        .process_group(0)
        .spawn()
        .ok()
}

#[cfg(not(unix))]
fn guardian(_dir: &Path) -> Option<std::process::Child> {
    None
}

#[cfg(unix)]
fn create_private_dir(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
    std::fs::DirBuilder::new().mode(0o700).create(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn create_private_dir(path: &Path) -> io::Result<()> {
    std::fs::DirBuilder::new().create(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_unique_and_removed() {
        let a = TempDir::new().unwrap();
        let b = TempDir::new().unwrap();
        assert_ne!(a.path(), b.path());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(a.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        std::fs::create_dir(a.path().join("sub")).unwrap();
        std::fs::write(a.path().join("sub/f"), b"x").unwrap();
        let p = a.path().to_path_buf();
        drop(a);
        assert!(!p.exists());
    }
}
