//! The read-only mount namespace of confined children.
//!
//! Landlock (ABI ≤ 7) does not cover `chmod`, `utimensat`, extended attributes or `chown`, so a
//! child could change the metadata of every file its uid owns outside its roots. A read-only
//! mount does cover them (each needs write access to the mount: `EROFS`). So every confined child
//! lives in a mount namespace where every mount is read-only except bind mounts of its *writable
//! places* (the write roots and the private temp dir), which keep their original flags.
//!
//! Landlock refuses every mount operation to a sandboxed process, and a child of the
//! self-confined interpreter is one from its first instruction. So the namespace is not built by
//! the child: a **template** is built once per set of writable places by a helper process forked
//! from the interpreter (by [`crate::confine_self`] before it confines itself, or on demand while
//! the interpreter is not confined). The helper creates a user namespace (mapping only its own
//! uid and gid) and a mount namespace, makes every mount private and read-only, binds the
//! writable places back read-write, and waits; the parent checks the result in the helper's
//! `mountinfo`, keeps `/proc/<helper>/ns/{user,mnt}` open and lets the helper go. Each child joins
//! both namespaces with `setns(2)` in its `pre_exec` hook (not a mount operation), then returns
//! to its working directory by path, so that it resolves in the new namespace.
//!
//! Which failures are fatal: creating the namespaces, writing the id maps, making the mounts
//! private, binding a writable place and making it writable again. Remounting one mount
//! read-only may fail (a mount hidden under another one cannot be reached by path); what counts
//! is the result: the parent refuses the template if any mount a path can still reach is writable
//! outside the writable places.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::io::{self, Read as _};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use libc::c_ulong;

/// Set once the process confined itself: from then on it cannot mount anything, so templates
/// can no longer be built (only reused).
pub(crate) static SELF_CONFINED: AtomicBool = AtomicBool::new(false);

/// One line of `/proc/self/mountinfo`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MountEntry {
    pub id: u64,
    pub parent: u64,
    pub point: PathBuf,
    pub ro: bool,
    /// The per-mount flags that a remount must repeat (`MS_NOSUID`, `MS_NODEV`, `MS_NOEXEC`,
    /// `MS_NOSYMFOLLOW`): in a user namespace they are locked and cannot be cleared, and
    /// clearing them would loosen the mount anyway. Access-time flags are kept by the kernel
    /// when a remount names none.
    pub flags: c_ulong,
}

/// Undoes the octal escapes of `mountinfo` (`\040` for a space, `\011`, `\012`, `\134`).
fn unescape(field: &str) -> OsString {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (u32::from(b[i + 1] - b'0') << 6)
                | (u32::from(b[i + 2] - b'0') << 3)
                | u32::from(b[i + 3] - b'0');
            if let Ok(v) = u8::try_from(v) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    OsString::from_vec(out)
}

/// Parses `mountinfo` text; malformed lines are skipped.
pub(crate) fn parse_mountinfo(text: &str) -> Vec<MountEntry> {
    let mut out = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() < 6 {
            continue;
        }
        let (Ok(id), Ok(parent)) = (f[0].parse(), f[1].parse()) else {
            continue;
        };
        let mut ro = false;
        let mut flags = 0;
        for opt in f[5].split(',') {
            match opt {
                "ro" => ro = true,
                "nosuid" => flags |= libc::MS_NOSUID,
                "nodev" => flags |= libc::MS_NODEV,
                "noexec" => flags |= libc::MS_NOEXEC,
                "nosymfollow" => flags |= libc::MS_NOSYMFOLLOW,
                _ => {}
            }
        }
        out.push(MountEntry {
            id,
            parent,
            point: PathBuf::from(unescape(f[4])),
            ro,
            flags,
        });
    }
    out
}

/// Which mounts no path reaches: one covered by another mount on the same mount point (mounted
/// on its root), and everything beneath a covered mount.
pub(crate) fn hidden(mounts: &[MountEntry]) -> Vec<bool> {
    let covered: Vec<bool> = mounts
        .iter()
        .map(|m| {
            mounts
                .iter()
                .any(|n| n.id != m.id && n.parent == m.id && n.point == m.point)
        })
        .collect();
    (0..mounts.len())
        .map(|i| {
            if covered[i] {
                return true;
            }
            let mut at = i;
            // Walk up the parents (bounded: ids could form a cycle in a malformed file). A
            // covered ancestor hides what is mounted on it, except the mount covering it.
            for _ in 0..=mounts.len() {
                let parent = mounts[at].parent;
                match mounts.iter().position(|m| m.id == parent) {
                    Some(p) if p != at => {
                        if covered[p] && mounts[at].point != mounts[p].point {
                            return true;
                        }
                        at = p;
                    }
                    _ => return false,
                }
            }
            false
        })
        .collect()
}

/// The writable places of a policy: resolved (symlinks followed), missing ones left out, those
/// beneath another one folded into it, sorted.
pub(crate) fn writable_places<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = paths
        .into_iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    all.sort();
    all.dedup();
    let mut out: Vec<PathBuf> = Vec::new();
    for p in all {
        if !out.iter().any(|q| p.starts_with(q)) {
            out.push(p);
        }
    }
    out
}

/// Whether `point` lies at or beneath one of `places`.
fn beneath_any(point: &Path, places: &[PathBuf]) -> bool {
    places.iter().any(|p| point.starts_with(p))
}

/// Mounts a path can reach that are writable outside `places`, as `(mount point, id)`.
pub(crate) fn writable_outside(mounts: &[MountEntry], places: &[PathBuf]) -> Vec<(PathBuf, u64)> {
    let hidden = hidden(mounts);
    mounts
        .iter()
        .zip(hidden)
        .filter(|(m, h)| !m.ro && !h && !beneath_any(&m.point, places))
        .map(|(m, _)| (m.point.clone(), m.id))
        .collect()
}

/// One step of the helper, prepared in the parent.
enum Step {
    Unshare(libc::c_int),
    Write(CString, Vec<u8>),
    Mount {
        source: Option<CString>,
        target: CString,
        flags: c_ulong,
    },
}

struct Op {
    step: Step,
    /// A failure ends the helper (otherwise it is reported and the helper goes on).
    fatal: bool,
    what: String,
    /// For read-only remounts: the mount point (to explain a mount that stayed writable).
    point: Option<PathBuf>,
}

fn cstring(p: &Path) -> Result<CString, String> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| format!("{} contains a NUL byte", p.display()))
}

/// The helper's steps: namespaces, id maps, private propagation, read-only remounts, then the
/// writable places bound back with their original flags.
fn plan(mounts: &[MountEntry], places: &[PathBuf]) -> Result<Vec<Op>, String> {
    // SAFETY: plain id getters.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let op = |step, fatal, what: String| Op {
        step,
        fatal,
        what,
        point: None,
    };
    let mut ops = vec![
        op(
            Step::Unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS),
            true,
            "unshare(CLONE_NEWUSER | CLONE_NEWNS)".to_string(),
        ),
        op(
            Step::Write(c"/proc/self/setgroups".into(), b"deny".to_vec()),
            true,
            "writing /proc/self/setgroups".to_string(),
        ),
        op(
            Step::Write(
                c"/proc/self/uid_map".into(),
                format!("{uid} {uid} 1\n").into_bytes(),
            ),
            true,
            "writing /proc/self/uid_map".to_string(),
        ),
        op(
            Step::Write(
                c"/proc/self/gid_map".into(),
                format!("{gid} {gid} 1\n").into_bytes(),
            ),
            true,
            "writing /proc/self/gid_map".to_string(),
        ),
        op(
            Step::Mount {
                source: None,
                target: c"/".into(),
                flags: libc::MS_REC | libc::MS_PRIVATE,
            },
            true,
            "making every mount private".to_string(),
        ),
    ];
    let hidden = hidden(mounts);
    let visible = || {
        mounts
            .iter()
            .zip(hidden.iter())
            .filter(|(_, h)| !**h)
            .map(|(m, _)| m)
    };
    for m in visible().filter(|m| !m.ro) {
        ops.push(Op {
            step: Step::Mount {
                source: None,
                target: cstring(&m.point)?,
                flags: libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | m.flags,
            },
            fatal: false,
            what: format!("remounting {} read-only", m.point.display()),
            point: Some(m.point.clone()),
        });
    }
    for place in places {
        // The mount holding the place (the deepest one at or above it): its flags, read-only
        // included when it was read-only to begin with.
        let Some(holder) = visible()
            .filter(|m| place.starts_with(&m.point))
            .max_by_key(|m| m.point.as_os_str().len())
        else {
            return Err(format!("no mount holds {}", place.display()));
        };
        let target = cstring(place)?;
        ops.push(op(
            Step::Mount {
                source: Some(target.clone()),
                target: target.clone(),
                flags: libc::MS_BIND | libc::MS_REC,
            },
            true,
            format!("binding {} onto itself", place.display()),
        ));
        let ro = if holder.ro { libc::MS_RDONLY } else { 0 };
        ops.push(op(
            Step::Mount {
                source: None,
                target,
                flags: libc::MS_REMOUNT | libc::MS_BIND | holder.flags | ro,
            },
            true,
            format!("remounting {} writable", place.display()),
        ));
        // Mounts beneath the place were copied read-only: give back the writable ones.
        for m in visible().filter(|m| !m.ro && m.point != *place && m.point.starts_with(place)) {
            ops.push(op(
                Step::Mount {
                    source: None,
                    target: cstring(&m.point)?,
                    flags: libc::MS_REMOUNT | libc::MS_BIND | m.flags,
                },
                false,
                format!("remounting {} writable", m.point.display()),
            ));
        }
    }
    Ok(ops)
}

/// Runs one step in the helper: 0 or an errno. Syscalls only.
unsafe fn run_step(step: &Step) -> i32 {
    let errno = || *libc::__errno_location();
    match step {
        Step::Unshare(flags) => {
            if libc::unshare(*flags) != 0 {
                return errno();
            }
        }
        Step::Write(path, data) => {
            let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return errno();
            }
            let n = libc::write(fd, data.as_ptr().cast(), data.len());
            let e = errno();
            libc::close(fd);
            if n < 0 {
                return e;
            }
            if n as usize != data.len() {
                return libc::EIO;
            }
        }
        Step::Mount {
            source,
            target,
            flags,
        } => {
            let src = source.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
            if libc::mount(
                src,
                target.as_ptr(),
                std::ptr::null(),
                *flags,
                std::ptr::null(),
            ) != 0
            {
                return errno();
            }
        }
    }
    0
}

/// Writes one 8-byte report (step index, errno) to the pipe. Syscalls only.
unsafe fn report(fd: RawFd, index: u32, errno: i32) {
    let mut rec = [0u8; 8];
    rec[..4].copy_from_slice(&index.to_ne_bytes());
    rec[4..].copy_from_slice(&errno.to_ne_bytes());
    libc::write(fd, rec.as_ptr().cast(), rec.len());
}

const DONE: u32 = u32::MAX;

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors, which we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors from pipe2.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn identity(p: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

/// The user and mount namespaces a confined child joins.
#[derive(Debug)]
pub(crate) struct Template {
    pub user: OwnedFd,
    pub mnt: OwnedFd,
    /// Device and inode of `/` when the template was built: a child compares its root after
    /// joining, which moves it to the namespace's root. (The kernel refuses a user namespace to
    /// a chrooted process, but one that chroots after the template was built would otherwise
    /// hand its children the whole filesystem.)
    pub root: (u64, u64),
    /// The writable places with their device and inode (a place removed and created again is
    /// not the one bound in the template).
    places: Vec<(PathBuf, Option<(u64, u64)>)>,
}

impl Template {
    fn still_valid(&self, places: &[PathBuf]) -> bool {
        self.places.len() == places.len()
            && self
                .places
                .iter()
                .zip(places)
                .all(|((p, id), q)| p == q && *id == identity(q))
            && identity(Path::new("/")) == Some(self.root)
    }
}

/// Builds a template for `places` with a helper process.
fn build(places: &[PathBuf]) -> Result<Template, String> {
    let text = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
    let mounts = parse_mountinfo(&text);
    if mounts.is_empty() {
        return Err("/proc/self/mountinfo lists no mounts".to_string());
    }
    let root = identity(Path::new("/")).ok_or("cannot inspect /")?;
    let ops = plan(&mounts, places)?;
    let (report_r, report_w) = pipe().map_err(|e| format!("cannot create a pipe: {e}"))?;
    let (hold_r, hold_w) = pipe().map_err(|e| format!("cannot create a pipe: {e}"))?;

    // SAFETY: the child only makes syscalls on data prepared above and ends with _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("cannot fork: {}", io::Error::last_os_error()));
    }
    if pid == 0 {
        // SAFETY: the helper: syscalls only, no allocation, never returns.
        unsafe {
            libc::close(report_r.as_raw_fd());
            libc::close(hold_w.as_raw_fd());
            let out = report_w.as_raw_fd();
            for (i, op) in ops.iter().enumerate() {
                let e = run_step(&op.step);
                if e != 0 {
                    report(out, i as u32, e);
                    if op.fatal {
                        libc::_exit(1);
                    }
                }
            }
            report(out, DONE, 0);
            // Stay alive (and so keep the namespaces) until the parent closes its end.
            let mut b = 0u8;
            while libc::read(hold_r.as_raw_fd(), std::ptr::from_mut(&mut b).cast(), 1) < 0
                && *libc::__errno_location() == libc::EINTR
            {}
            libc::_exit(0);
        }
    }
    drop(report_w);
    drop(hold_r);
    let result = collect(pid, report_r, &ops, places);
    drop(hold_w);
    let mut status = 0;
    loop {
        // SAFETY: waiting for the helper forked above.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid || io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break;
        }
    }
    let (user, mnt) = result?;
    let places = places.iter().map(|p| (p.clone(), identity(p))).collect();
    Ok(Template {
        user,
        mnt,
        root,
        places,
    })
}

/// Reads the helper's reports, then checks its mounts and opens its namespaces.
fn collect(
    pid: libc::pid_t,
    report_r: OwnedFd,
    ops: &[Op],
    places: &[PathBuf],
) -> Result<(OwnedFd, OwnedFd), String> {
    let mut reports = File::from(report_r);
    let mut failed: Vec<(usize, i32)> = Vec::new();
    loop {
        let mut rec = [0u8; 8];
        if reports.read_exact(&mut rec).is_err() {
            // The helper ended early: a fatal step failed (its report came first).
            return Err(match failed.last() {
                Some(&(i, e)) if i < ops.len() => {
                    format!(
                        "{} failed: {}",
                        ops[i].what,
                        io::Error::from_raw_os_error(e)
                    )
                }
                _ => "the helper process died".to_string(),
            });
        }
        let index = u32::from_ne_bytes([rec[0], rec[1], rec[2], rec[3]]);
        let errno = i32::from_ne_bytes([rec[4], rec[5], rec[6], rec[7]]);
        if index == DONE {
            break;
        }
        failed.push((index as usize, errno));
    }
    let text = std::fs::read_to_string(format!("/proc/{pid}/mountinfo"))
        .map_err(|e| format!("cannot read the helper's mountinfo: {e}"))?;
    let after = parse_mountinfo(&text);
    if let Some((point, _)) = writable_outside(&after, places).into_iter().next() {
        let why = failed
            .iter()
            .find(|(i, _)| ops.get(*i).and_then(|o| o.point.as_ref()) == Some(&point))
            .map(|&(_, e)| io::Error::from_raw_os_error(e).to_string())
            .unwrap_or_else(|| "not remounted".to_string());
        return Err(format!(
            "{} stays writable in the children's mount namespace ({why})",
            point.display()
        ));
    }
    let open = |ns: &str| {
        File::open(format!("/proc/{pid}/ns/{ns}"))
            .map(OwnedFd::from)
            .map_err(|e| format!("cannot open the helper's {ns} namespace: {e}"))
    };
    Ok((open("user")?, open("mnt")?))
}

struct Cache {
    templates: Vec<Arc<Template>>,
    /// Why a template could not be built before the interpreter confined itself.
    early_errors: Vec<(Vec<PathBuf>, String)>,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache {
    templates: Vec::new(),
    early_errors: Vec::new(),
});

/// The template for `places` (see [`writable_places`]): reused while still valid, else built.
pub(crate) fn template(places: &[PathBuf]) -> Result<Arc<Template>, String> {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = cache.templates.iter().find(|t| t.still_valid(places)) {
        return Ok(Arc::clone(t));
    }
    match build(places) {
        Ok(t) => {
            let t = Arc::new(t);
            cache
                .templates
                .retain(|old| old.places.iter().map(|(p, _)| p).ne(places.iter()));
            cache.templates.push(Arc::clone(&t));
            Ok(t)
        }
        Err(e) => {
            if let Some((_, early)) = cache.early_errors.iter().find(|(p, _)| p == places) {
                return Err(early.clone());
            }
            if SELF_CONFINED.load(Ordering::Relaxed) {
                return Err(format!(
                    "{e} (the interpreter confined itself first: only the write roots and temp \
                     dir of its own policy were prepared for children)"
                ));
            }
            Err(e)
        }
    }
}

/// Builds the template for `places` now, while mounting is still possible (before the
/// process confines itself); a failure is remembered and reported by the first spawn.
pub(crate) fn prepare(places: &[PathBuf]) {
    if let Err(e) = template(places) {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        cache.early_errors.push((places.to_vec(), e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
24 27 0:6 / /dev rw,nosuid,relatime - devtmpfs devtmpfs rw
26 24 0:24 / /dev/pts rw,nosuid,noexec,relatime - devpts devpts rw
29 26 0:26 / /dev/pts rw,relatime - devpts devpts rw
30 27 0:30 / /srv/with\\040space ro,nodev,nosymfollow - tmpfs tmpfs ro
31 30 0:31 / /srv/with\\040space/in rw - tmpfs tmpfs rw
40 27 0:40 / /data rw - tmpfs tmpfs rw
41 40 0:41 / /data/sub rw - tmpfs tmpfs rw
42 40 0:42 / /data rw - tmpfs tmpfs rw
bad line
";

    #[test]
    fn parses_points_flags_and_escapes() {
        let m = parse_mountinfo(SAMPLE);
        assert_eq!(m.len(), 10);
        assert_eq!(m[0].point, Path::new("/proc"));
        assert_eq!(m[3].flags, libc::MS_NOSUID | libc::MS_NOEXEC);
        assert_eq!(m[5].point, Path::new("/srv/with space"));
        assert!(m[5].ro);
        assert_eq!(m[5].flags, libc::MS_NODEV | libc::MS_NOSYMFOLLOW);
        assert_eq!(unescape("a\\011b\\134c\\012"), OsString::from("a\tb\\c\n"));
        assert_eq!(unescape("trail\\04"), OsString::from("trail\\04"));
    }

    #[test]
    fn stacked_mounts_and_what_lies_beneath_are_hidden() {
        let m = parse_mountinfo(SAMPLE);
        let h = hidden(&m);
        let hidden_points: Vec<u64> = m
            .iter()
            .zip(&h)
            .filter(|(_, h)| **h)
            .map(|(m, _)| m.id)
            .collect();
        // 26 is covered by 29, 40 by 42, and 41 lies in the covered 40.
        assert_eq!(hidden_points, vec![26, 40, 41]);
    }

    #[test]
    fn only_reachable_writable_mounts_outside_the_places_count() {
        let m = parse_mountinfo(SAMPLE);
        let out: Vec<u64> = writable_outside(&m, &[PathBuf::from("/data")])
            .into_iter()
            .map(|(_, id)| id)
            .collect();
        assert_eq!(out, vec![22, 27, 24, 29, 31]);
        assert!(writable_outside(&m, &[PathBuf::from("/")]).is_empty());
    }

    #[test]
    fn places_are_folded() {
        let base = std::env::temp_dir();
        let sub = base.join(format!("vox-mounts-test-{}", std::process::id()));
        std::fs::create_dir_all(&sub).unwrap();
        let places = writable_places([sub.as_path(), base.as_path(), Path::new("/nonexistent/x")]);
        assert_eq!(places, vec![std::fs::canonicalize(&base).unwrap()]);
        std::fs::remove_dir(&sub).unwrap();
    }

    #[test]
    fn the_plan_remounts_reachable_writable_mounts_and_binds_places_back() {
        let m = parse_mountinfo(SAMPLE);
        let ops = plan(&m, &[PathBuf::from("/srv/with space")]).unwrap();
        let whats: Vec<&str> = ops.iter().map(|o| o.what.as_str()).collect();
        assert!(whats.contains(&"remounting /proc read-only"));
        assert!(whats.contains(&"remounting / read-only"));
        assert!(
            !whats.contains(&"remounting /srv/with space read-only"),
            "already ro"
        );
        assert!(whats.contains(&"binding /srv/with space onto itself"));
        assert!(whats.contains(&"remounting /srv/with space/in writable"));
        let rw = ops
            .iter()
            .find(|o| o.what == "remounting /srv/with space writable")
            .unwrap();
        let Step::Mount { flags, .. } = rw.step else {
            panic!("not a mount")
        };
        // The holder was read-only: it stays so, with its locked flags.
        assert_eq!(
            flags,
            libc::MS_REMOUNT
                | libc::MS_BIND
                | libc::MS_NODEV
                | libc::MS_NOSYMFOLLOW
                | libc::MS_RDONLY
        );
    }
}
