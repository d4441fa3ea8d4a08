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

use std::ffi::CString;
use std::fs::File;
use std::io::{self, Read as _};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use libc::c_ulong;

use crate::denies::{layers_hold, Kind, Layer, Layout};
use crate::mountinfo::{hidden, parse_mountinfo, writable_outside, MountEntry};

/// Set once the process confined itself: from then on it cannot mount anything, so templates
/// can no longer be built (only reused).
pub(crate) static SELF_CONFINED: AtomicBool = AtomicBool::new(false);

/// One step of the helper, prepared in the parent.
enum Step {
    Unshare(libc::c_int),
    Write(CString, Vec<u8>),
    Mount {
        source: Option<CString>,
        target: CString,
        flags: c_ulong,
    },
    /// A new filesystem (`fstype`, with `data` as its options) mounted at `target`.
    NewFs {
        fstype: CString,
        target: CString,
        flags: c_ulong,
        data: CString,
    },
    /// `mount_setattr(2)`: sets `set` (`MOUNT_ATTR_*`) on the mount at `target`, and on every
    /// mount beneath it when `recursive`, keeping each mount's other flags (Linux 5.12).
    Setattr {
        target: CString,
        recursive: bool,
        set: u64,
    },
}

/// `MOUNT_ATTR_*` and `AT_RECURSIVE` of the kernel UAPI (`linux/mount.h`, `linux/fcntl.h`).
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
const MOUNT_ATTR_NOEXEC: u64 = 0x8;
const AT_RECURSIVE: libc::c_uint = 0x8000;

/// `struct mount_attr` (`MOUNT_ATTR_SIZE_VER0`).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
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

/// The helper's steps: namespaces, id maps, private propagation, read-only remounts (unless `/`
/// is writable), then the writable places bound back with their original flags and the
/// layout's layers ([`crate::denies`]) in path order, no-exec layers last.
fn plan(mounts: &[MountEntry], layout: &Layout) -> Result<Vec<Op>, String> {
    let places = &layout.places;
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
    let remount_all = !layout.root_writable();
    for m in visible().filter(|m| !m.ro && remount_all) {
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
    // Places and layers in path order (a parent's mount exists before its children's); at one
    // path the place first, then the layers in the order of their kind.
    let mut order: Vec<(&Path, Option<&Layer>)> = places
        .iter()
        .map(|p| (p.as_path(), None))
        .chain(
            layout
                .layers
                .iter()
                .filter(|l| l.kind != Kind::NoExec)
                .map(|l| (l.path.as_path(), Some(l))),
        )
        .collect();
    order.sort_by(|a, b| (a.0, a.1.map(|l| l.kind)).cmp(&(b.0, b.1.map(|l| l.kind))));
    let no_exec = layout.layers.iter().filter(|l| l.kind == Kind::NoExec);
    let order = order
        .into_iter()
        .chain(no_exec.map(|l| (l.path.as_path(), Some(l))));
    for (place, layer) in order {
        if let Some(layer) = layer {
            layer_ops(&mut ops, layer)?;
            continue;
        }
        if place.as_os_str() == "/" {
            continue;
        }
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
        for m in visible().filter(|m| !m.ro && m.point != place && m.point.starts_with(place)) {
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

/// The steps of one layer; each is fatal (a layer that is not in place is a hole).
fn layer_ops(ops: &mut Vec<Op>, layer: &Layer) -> Result<(), String> {
    let target = cstring(&layer.path)?;
    let shown = layer.path.display();
    let mut push = |step: Step, what: String| {
        ops.push(Op {
            step,
            fatal: true,
            what,
            point: None,
        })
    };
    let bind = |target: &CString| Step::Mount {
        source: Some(target.clone()),
        target: target.clone(),
        flags: libc::MS_BIND | libc::MS_REC,
    };
    match layer.kind {
        Kind::Anchor => push(bind(&target), format!("binding {shown} onto itself")),
        Kind::ReadOnly => {
            push(bind(&target), format!("binding {shown} onto itself"));
            push(
                Step::Setattr {
                    target,
                    recursive: true,
                    set: MOUNT_ATTR_RDONLY,
                },
                format!("making {shown} read-only"),
            );
        }
        Kind::MaskDir => push(
            Step::NewFs {
                fstype: c"tmpfs".into(),
                target,
                flags: libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                data: c"mode=000,size=4k".into(),
            },
            format!("masking {shown} with an empty tmpfs"),
        ),
        Kind::MaskFile => {
            push(
                Step::Mount {
                    source: Some(c"/dev/null".into()),
                    target: target.clone(),
                    flags: libc::MS_BIND,
                },
                format!("masking {shown} with /dev/null"),
            );
            push(
                Step::Setattr {
                    target,
                    recursive: false,
                    set: MOUNT_ATTR_RDONLY
                        | MOUNT_ATTR_NOSUID
                        | MOUNT_ATTR_NODEV
                        | MOUNT_ATTR_NOEXEC,
                },
                format!("making the mask of {shown} read-only and nodev"),
            );
        }
        Kind::NoExec => {
            push(bind(&target), format!("binding {shown} onto itself"));
            push(
                Step::Setattr {
                    target,
                    recursive: true,
                    set: MOUNT_ATTR_NOEXEC,
                },
                format!("making {shown} noexec"),
            );
        }
    }
    Ok(())
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
        Step::NewFs {
            fstype,
            target,
            flags,
            data,
        } => {
            if libc::mount(
                c"vox-deny".as_ptr(),
                target.as_ptr(),
                fstype.as_ptr(),
                *flags,
                data.as_ptr().cast(),
            ) != 0
            {
                return errno();
            }
        }
        Step::Setattr {
            target,
            recursive,
            set,
        } => {
            let attr = MountAttr {
                attr_set: *set,
                attr_clr: 0,
                propagation: 0,
                userns_fd: 0,
            };
            let flags = if *recursive { AT_RECURSIVE } else { 0 };
            if libc::syscall(
                libc::SYS_mount_setattr,
                libc::AT_FDCWD,
                target.as_ptr(),
                flags,
                std::ptr::from_ref(&attr),
                std::mem::size_of::<MountAttr>(),
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
    /// What the namespace was built for.
    layout: Layout,
    /// The device and inode of each place and layer path, in order (a place removed and
    /// created again is not the one bound in the template, nor a file replaced the one masked).
    ids: Vec<Option<(u64, u64)>>,
}

/// The identities of a layout's paths, places first.
fn layout_ids(layout: &Layout) -> Vec<Option<(u64, u64)>> {
    layout
        .places
        .iter()
        .chain(layout.layers.iter().map(|l| &l.path))
        .map(|p| identity(p))
        .collect()
}

impl Template {
    fn still_valid(&self, layout: &Layout) -> bool {
        self.layout == *layout
            && self.ids == layout_ids(layout)
            && identity(Path::new("/")) == Some(self.root)
    }
}

/// Builds a template for `layout` with a helper process.
fn build(layout: &Layout) -> Result<Template, String> {
    let text = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
    let mounts = parse_mountinfo(&text);
    if mounts.is_empty() {
        return Err("/proc/self/mountinfo lists no mounts".to_string());
    }
    let root = identity(Path::new("/")).ok_or("cannot inspect /")?;
    let ops = plan(&mounts, layout)?;
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
    let result = collect(pid, report_r, &ops, layout);
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
    Ok(Template {
        user,
        mnt,
        root,
        layout: layout.clone(),
        ids: layout_ids(layout),
    })
}

/// Reads the helper's reports, then checks its mounts and opens its namespaces.
fn collect(
    pid: libc::pid_t,
    report_r: OwnedFd,
    ops: &[Op],
    layout: &Layout,
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
    if let Some((point, _)) = writable_outside(&after, &layout.places).into_iter().next() {
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
    layers_hold(&after, layout)?;
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
    early_errors: Vec<(Layout, String)>,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache {
    templates: Vec::new(),
    early_errors: Vec::new(),
});

/// The template for `layout` ([`crate::denies::layout`]): reused while still valid, else built.
pub(crate) fn template(layout: &Layout) -> Result<Arc<Template>, String> {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = cache.templates.iter().find(|t| t.still_valid(layout)) {
        return Ok(Arc::clone(t));
    }
    match build(layout) {
        Ok(t) => {
            let t = Arc::new(t);
            cache.templates.retain(|old| old.layout != *layout);
            cache.templates.push(Arc::clone(&t));
            Ok(t)
        }
        Err(e) => {
            if let Some((_, early)) = cache.early_errors.iter().find(|(l, _)| l == layout) {
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

/// Builds the template for `layout` now, while mounting is still possible (before the
/// process confines itself); a failure is remembered and reported by the first spawn.
pub(crate) fn prepare(layout: &Layout) {
    if let Err(e) = template(layout) {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        cache.early_errors.push((layout.clone(), e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::mountinfo::SAMPLE;

    #[test]
    fn the_plan_remounts_reachable_writable_mounts_and_binds_places_back() {
        let m = parse_mountinfo(SAMPLE);
        let layout = Layout {
            places: vec![PathBuf::from("/srv/with space")],
            layers: Vec::new(),
        };
        let ops = plan(&m, &layout).unwrap();
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
