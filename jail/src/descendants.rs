//! The run's process tree, seen from the interpreter (decisions 48, 55; the whole story is in
//! `lifetime.rs`): the interpreter as a child subreaper, the helpers it spares ([`keep`]), and
//! [`end_descendants`] / [`reap_exited`], which list its direct children from `/proc` and end or
//! reap them with syscalls only.

use std::sync::atomic::{AtomicI32, AtomicU8, Ordering};

use crate::host::SIMULATE_ENV;

/// How direct children are listed (cached after the first use).
const LIST_UNKNOWN: u8 = 0;
/// `/proc/self/task/<tid>/children` (`CONFIG_PROC_CHILDREN`).
const LIST_CHILDREN_FILE: u8 = 1;
/// Every `/proc/<pid>/stat`, compared by parent pid.
const LIST_PROC_SCAN: u8 = 2;
/// Neither works (no `/proc`).
const LIST_NONE: u8 = 3;

static LISTING: AtomicU8 = AtomicU8::new(LIST_UNKNOWN);
/// 0: not tried, 1: this process is a subreaper, 2: the prctl failed.
static SUBREAPER: AtomicU8 = AtomicU8::new(0);

/// Helper processes that are never ended ([`keep`]); 0 marks a free slot.
static KEPT: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

/// Pids handled per round; more children are simply left for the next round.
const BATCH: usize = 512;
/// Rounds of [`end_descendants`] before it gives up (each round ends every child it listed).
const MAX_ROUNDS: usize = 100_000;

/// What this host offers to bound a run's lifetime ([`support`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifetimeSupport {
    /// `Ok(how children are listed)` when a subreaper can end every descendant; `Err(why not)`.
    pub subreaper: Result<String, String>,
    /// The cgroup v2 directory of this process, when it is writable (a child cgroup with
    /// `cgroup.kill` could be made there; informational: the subreaper is what vox uses).
    pub cgroup_kill: Option<String>,
}

/// Registers a helper child that [`end_descendants`] must never end (up to 64 at a time).
pub fn keep(pid: u32) {
    let Ok(pid) = i32::try_from(pid) else { return };
    for slot in &KEPT {
        if slot
            .compare_exchange(0, pid, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
    }
}

/// Removes a helper registered with [`keep`].
pub fn unkeep(pid: u32) {
    let Ok(pid) = i32::try_from(pid) else { return };
    for slot in &KEPT {
        let _ = slot.compare_exchange(pid, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

fn kept(pid: libc::pid_t) -> bool {
    KEPT.iter().any(|s| s.load(Ordering::Relaxed) == pid)
}

/// Whether the testing hook removes this support.
fn simulated_off() -> bool {
    matches!(crate::host::simulated().as_deref(), Some("lifetime"))
}

/// Makes this process a child subreaper (once; later calls return the first outcome) and checks
/// that its children can be listed. Call it before the first spawn of a run.
///
/// The error says why the run's processes could not be ended with it (fail closed: a jailed
/// spawn is then refused unless the run opted out with `--unconfined-children`).
pub fn become_subreaper() -> Result<(), String> {
    if simulated_off() {
        return Err(format!(
            "simulated by {SIMULATE_ENV}=lifetime (the host reports no child subreaper)"
        ));
    }
    match SUBREAPER.load(Ordering::Relaxed) {
        1 => return listing_check(),
        2 => return Err(subreaper_error()),
        _ => {}
    }
    // SAFETY: a plain prctl on this process; setting it twice is harmless.
    let ok = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0;
    SUBREAPER.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
    if !ok {
        return Err(subreaper_error());
    }
    listing_check()
}

fn subreaper_error() -> String {
    "prctl(PR_SET_CHILD_SUBREAPER) is refused by this kernel (Linux 3.4 or newer has it)"
        .to_string()
}

fn listing_check() -> Result<(), String> {
    if listing() == LIST_NONE {
        Err(
            "the process's children cannot be listed: /proc is not mounted or not readable"
                .to_string(),
        )
    } else {
        Ok(())
    }
}

/// Whether [`become_subreaper`] succeeded in this process.
pub fn is_subreaper() -> bool {
    SUBREAPER.load(Ordering::Relaxed) == 1
}

/// What this host offers, for `vox doctor` (does not change this process).
pub fn support() -> LifetimeSupport {
    let subreaper = if simulated_off() {
        Err(format!("simulated by {SIMULATE_ENV}=lifetime"))
    } else {
        let mut v: libc::c_int = 0;
        // SAFETY: PR_GET_CHILD_SUBREAPER writes one int.
        let r = unsafe { libc::prctl(libc::PR_GET_CHILD_SUBREAPER, &mut v as *mut libc::c_int) };
        if r != 0 {
            Err(subreaper_error())
        } else {
            match listing() {
                LIST_CHILDREN_FILE => Ok("children listed from /proc/self/task/*/children".into()),
                LIST_PROC_SCAN => Ok("children found by scanning /proc/*/stat".into()),
                _ => Err("/proc is not mounted or not readable: children cannot be listed".into()),
            }
        }
    };
    LifetimeSupport {
        subreaper,
        cgroup_kill: cgroup_kill(),
    }
}

/// This process's cgroup v2 directory, when it can be written (so a child cgroup with
/// `cgroup.kill` could be made there).
fn cgroup_kill() -> Option<String> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mounts.lines().find_map(|l| {
        let (_, rest) = l.split_once(" - ")?;
        let fstype = rest.split_whitespace().next()?;
        (fstype == "cgroup2").then(|| l.split_whitespace().nth(4).map(str::to_string))?
    })?;
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let rel = rel.trim_matches('/');
    let dir = if rel.is_empty() {
        std::path::PathBuf::from(&mount)
    } else {
        std::path::Path::new(&mount).join(rel)
    };
    let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: access(2) on a NUL-terminated path.
    let writable = unsafe { libc::access(path.as_ptr(), libc::W_OK) } == 0;
    writable.then(|| dir.display().to_string())
}

/// How children are listed on this host (probed once).
fn listing() -> u8 {
    let cached = LISTING.load(Ordering::Relaxed);
    if cached != LIST_UNKNOWN {
        return cached;
    }
    // SAFETY: syscalls on stack buffers.
    let mode = unsafe {
        if open_children_file(libc::getpid()) >= 0 {
            LIST_CHILDREN_FILE
        } else if proc_readable() {
            LIST_PROC_SCAN
        } else {
            LIST_NONE
        }
    };
    LISTING.store(mode, Ordering::Relaxed);
    mode
}

/// Ends every process this one started that is still running, except the spared ones: the
/// helpers registered with [`keep`], and the direct children in `spare` with everything beneath
/// them. Returns how many processes it ended (`SIGKILL`, then waited for).
///
/// Makes syscalls only, on stack buffers (safe to call just before `_exit`).
pub fn end_descendants(spare: &[u32]) -> usize {
    let mut ended = 0;
    let mut pids = [0 as libc::pid_t; BATCH];
    for _ in 0..MAX_ROUNDS {
        // SAFETY: syscalls on stack buffers.
        let n = unsafe { direct_children(&mut pids) };
        let mut count = 0;
        for i in 0..n {
            let p = pids[i];
            if kept(p) || spare.iter().any(|&s| i64::from(s) == i64::from(p)) {
                continue;
            }
            pids[count] = p;
            count += 1;
        }
        if count == 0 {
            return ended;
        }
        for &p in &pids[..count] {
            // SAFETY: `p` is our own child, not reaped yet: neither its pid nor its group id
            // (it leads a group only if it made one with its own pid) can belong to anyone else.
            unsafe {
                libc::kill(-p, libc::SIGKILL);
                libc::kill(p, libc::SIGKILL);
            }
        }
        for &p in &pids[..count] {
            // SAFETY: waiting for our own child; `__WALL` also reaps children that were started
            // with a non-SIGCHLD exit signal.
            unsafe { wait_for(p) };
            unkeep(p as u32);
        }
        ended += count;
    }
    ended
}

/// Reaps the children that have already exited (orphans re-parented here die as zombies of the
/// interpreter), calling `on_reaped` with each pid. Never blocks. Call it only while no
/// `std::process::Child` of this process is being waited for on another thread: it reaps
/// whatever has exited.
pub fn reap_exited(mut on_reaped: impl FnMut(u32)) {
    if !is_subreaper() {
        return;
    }
    loop {
        let mut status = 0;
        // SAFETY: a non-blocking wait for any child.
        let r = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG | libc::__WALL) };
        if r <= 0 {
            return;
        }
        unkeep(r as u32);
        on_reaped(r as u32);
    }
}

unsafe fn wait_for(pid: libc::pid_t) {
    loop {
        let mut status = 0;
        let r = libc::waitpid(pid, &mut status, libc::__WALL);
        if r >= 0 || *libc::__errno_location() != libc::EINTR {
            return;
        }
    }
}

/// Fills `out` with (up to its length) pids whose parent is this process; returns how many.
unsafe fn direct_children(out: &mut [libc::pid_t; BATCH]) -> usize {
    match listing() {
        LIST_CHILDREN_FILE => children_from_tasks(out),
        LIST_PROC_SCAN => children_from_scan(out),
        _ => 0,
    }
}

/// `/proc/self/task/<tid>/children` for the calling thread's own tid, as a probe.
unsafe fn open_children_file(tid: libc::pid_t) -> libc::c_int {
    let mut path = PathBuf::new();
    path.push(b"/proc/self/task/");
    path.push_num(tid as u64);
    path.push(b"/children");
    libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC)
}

unsafe fn proc_readable() -> bool {
    let fd = libc::open(
        c"/proc/self/stat".as_ptr(),
        libc::O_RDONLY | libc::O_CLOEXEC,
    );
    if fd < 0 {
        return false;
    }
    libc::close(fd);
    true
}

/// A NUL-terminated path built on the stack.
struct PathBuf {
    buf: [u8; 64],
    len: usize,
}

impl PathBuf {
    fn new() -> PathBuf {
        PathBuf {
            buf: [0; 64],
            len: 0,
        }
    }

    fn push(&mut self, s: &[u8]) {
        for &b in s {
            if self.len + 1 < self.buf.len() {
                self.buf[self.len] = b;
                self.len += 1;
            }
        }
    }

    fn push_num(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.push(&digits[i..]);
    }

    fn as_ptr(&self) -> *const libc::c_char {
        self.buf.as_ptr().cast()
    }
}

/// Calls `f` with every numeric entry of the directory `dir` (`/proc`, `/proc/self/task`).
unsafe fn for_each_numeric_entry(dir: &core::ffi::CStr, mut f: impl FnMut(libc::pid_t) -> bool) {
    let fd = libc::open(
        dir.as_ptr(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    if fd < 0 {
        return;
    }
    // `struct linux_dirent64` records need 8-byte alignment.
    let mut buf = [0u64; 512];
    'outer: loop {
        let n = libc::syscall(
            libc::SYS_getdents64,
            fd,
            buf.as_mut_ptr(),
            std::mem::size_of_val(&buf),
        );
        if n <= 0 {
            break;
        }
        let bytes = std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), n as usize);
        let mut off = 0;
        while off + 19 < bytes.len() {
            let reclen = u16::from_ne_bytes([bytes[off + 16], bytes[off + 17]]) as usize;
            if reclen == 0 {
                break;
            }
            let name = &bytes[off + 19..(off + reclen).min(bytes.len())];
            if let Some(pid) = parse_pid(name) {
                if !f(pid) {
                    break 'outer;
                }
            }
            off += reclen;
        }
    }
    libc::close(fd);
}

/// A NUL-terminated decimal name as a pid.
fn parse_pid(name: &[u8]) -> Option<libc::pid_t> {
    let mut v: i64 = 0;
    let mut any = false;
    for &b in name {
        if b == 0 {
            break;
        }
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(b - b'0');
        if v > i64::from(i32::MAX) {
            return None;
        }
        any = true;
    }
    (any && v > 0).then_some(v as libc::pid_t)
}

/// Direct children from every thread's `children` file (orphans are re-parented to some thread
/// of the subreaper, children to the thread that started them).
unsafe fn children_from_tasks(out: &mut [libc::pid_t; BATCH]) -> usize {
    let mut n = 0;
    for_each_numeric_entry(c"/proc/self/task", |tid| {
        let fd = open_children_file(tid);
        if fd < 0 {
            return true;
        }
        let mut buf = [0u8; 1024];
        let mut cur: i64 = -1;
        loop {
            let r = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            if r <= 0 {
                break;
            }
            for &b in &buf[..r as usize] {
                if b.is_ascii_digit() {
                    cur = cur.max(0) * 10 + i64::from(b - b'0');
                } else if cur >= 0 {
                    if n < BATCH && cur <= i64::from(i32::MAX) {
                        out[n] = cur as libc::pid_t;
                        n += 1;
                    }
                    cur = -1;
                }
            }
        }
        if cur >= 0 && n < BATCH && cur <= i64::from(i32::MAX) {
            out[n] = cur as libc::pid_t;
            n += 1;
        }
        libc::close(fd);
        n < BATCH
    });
    n
}

/// Direct children by reading the parent pid of every process in `/proc`.
unsafe fn children_from_scan(out: &mut [libc::pid_t; BATCH]) -> usize {
    let me = libc::getpid();
    let mut n = 0;
    for_each_numeric_entry(c"/proc", |pid| {
        if pid == me {
            return true;
        }
        let mut path = PathBuf::new();
        path.push(b"/proc/");
        path.push_num(pid as u64);
        path.push(b"/stat");
        let fd = libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return true;
        }
        let mut buf = [0u8; 1024];
        let r = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        if r > 0 && stat_ppid(&buf[..r as usize]) == Some(me) {
            out[n] = pid;
            n += 1;
        }
        n < BATCH
    });
    n
}

/// The parent pid in a `/proc/<pid>/stat` line: `pid (comm) state ppid …`, where `comm` may
/// contain spaces and parentheses.
fn stat_ppid(stat: &[u8]) -> Option<libc::pid_t> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    let mut fields = stat[close + 1..]
        .split(|&b| b == b' ')
        .filter(|f| !f.is_empty());
    fields.next()?;
    parse_pid(fields.next()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keeper::{guard, Exec, Line, Status};

    #[test]
    fn stat_lines_parse() {
        assert_eq!(stat_ppid(b"12 (sh) S 7 12 12 0"), Some(7));
        assert_eq!(stat_ppid(b"12 (a) b) (c) R 99 1"), Some(99));
        assert_eq!(stat_ppid(b"12 (sh"), None);
        assert_eq!(parse_pid(b"123\0junk"), Some(123));
        assert_eq!(parse_pid(b"self\0"), None);
        assert_eq!(parse_pid(b"0\0"), None);
    }

    /// Starts `sh` under a keeper; it leaves a `setsid` grandchild and prints its pid.
    fn kept_with_grandchild() -> (std::process::Child, Line, libc::pid_t) {
        use std::io::Read as _;
        let mut cmd = std::process::Command::new("/bin/sh");
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        let script = "setsid sleep 20 </dev/null >/dev/null 2>&1 & echo $!";
        let exec = Exec::new(
            std::path::Path::new("/bin/sh"),
            ["sh", "-c", script],
            std::env::vars_os(),
        )
        .unwrap();
        let mut line = guard(&mut cmd, exec, None).unwrap();
        let mut child = cmd.spawn().unwrap();
        line.started(child.id());
        assert!(line.program().is_some_and(|p| p != child.id()));
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let grandchild: libc::pid_t = out.trim().parse().unwrap();
        loop {
            match line.poll_status(std::time::Duration::from_secs(1)) {
                Status::Running => {}
                Status::Ended(st) => {
                    assert!(libc::WIFEXITED(st) && libc::WEXITSTATUS(st) == 0);
                    break;
                }
                Status::Lost => panic!("the keeper is gone"),
            }
        }
        // The program ended, its detached grandchild did not: it stays beneath the keeper.
        assert!(!line.tree_empty());
        // SAFETY: a signal-0 probe.
        assert_eq!(unsafe { libc::kill(grandchild, 0) }, 0);
        (child, line, grandchild)
    }

    /// What happens when the interpreter dies: its end of the line closes and the keeper ends
    /// its tree before it exits.
    #[test]
    fn a_keeper_ends_its_tree_when_its_line_closes() {
        let (mut child, line, grandchild) = kept_with_grandchild();
        drop(line);
        let status = child.wait().unwrap();
        assert!(status.success(), "{status:?}");
        // The keeper reaped it before exiting: the pid is gone.
        // SAFETY: a signal-0 probe.
        assert_eq!(unsafe { libc::kill(grandchild, 0) }, -1);
    }

    /// A normal end with a background child: a released keeper lets its tree live on.
    #[test]
    fn a_released_keeper_lets_its_tree_live() {
        let (mut child, line, grandchild) = kept_with_grandchild();
        line.release();
        drop(line);
        std::thread::sleep(std::time::Duration::from_millis(200));
        // SAFETY: a signal-0 probe, then the end of the test's own grandchild.
        unsafe {
            assert_eq!(libc::kill(grandchild, 0), 0, "the released tree was ended");
            libc::kill(grandchild, libc::SIGKILL);
        }
        // Its tree empty, the keeper exits.
        assert!(child.wait().unwrap().success());
    }

    #[test]
    fn stack_paths() {
        let mut p = PathBuf::new();
        p.push(b"/proc/");
        p.push_num(4194304);
        p.push(b"/stat");
        assert_eq!(&p.buf[..p.len + 1], b"/proc/4194304/stat\0");
    }
}
