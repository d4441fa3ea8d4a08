//! Run lifetime (decisions 48, 55): no process a run started outlives it, however the run ends
//! (`vox` itself killed with `SIGKILL` included), except, after a normal end, its
//! `process.spawn_background` children.
//!
//! Two kernel mechanisms, one module. The interpreter is a **child subreaper**
//! (`PR_SET_CHILD_SUBREAPER`, Linux 3.4+), marked before its first spawn, and every jailed or
//! background child is started under a **keeper** ([`guard`]): a subreaper of its own, forked by
//! the interpreter, which starts the program with `SIGKILL` as its parent-death signal. (The
//! developer default's other children are started directly with that signal only,
//! [`spawn_direct`]: cheaper, but what they leave detached outlives an interpreter killed with
//! `SIGKILL`.) When a process dies,
//! the kernel re-parents its children to the nearest living subreaper among its ancestors: the
//! child's keeper, or the interpreter once the keeper is gone, never `init`. Leaving the process
//! group or the session (`setsid`), forking twice, `nohup … &`, a `( … ) &` subshell, a
//! daemonising library: each only makes the process an orphan, and orphans come back. Every
//! process the run started is therefore always beneath a keeper or the interpreter.
//!
//! While the interpreter lives, [`end_descendants`] empties its tree: it lists its direct
//! children (from `/proc/self/task/*/children`, or by scanning `/proc/*/stat` where that file does
//! not exist), sends each `SIGKILL` (to its process group too) and waits for it. Their own
//! children (a killed keeper's tree) are then re-parented to the interpreter and go in the next
//! round, until only the spared ones are left. `SIGKILL` cannot be caught or ignored, and only
//! the caller's own unreaped children are ever signalled, so a recycled pid can never redirect a
//! signal to an unrelated process. Processes may be spared: the helpers registered with [`keep`]
//! (the private temp dir's guardian) always, `spawn_background` keepers when the run ended
//! normally ([`Line::release`]).
//!
//! When the interpreter dies, however it dies, the kernel closes its descriptors: each keeper
//! sees its [`Line`] close and runs [`end_descendants`] on its own tree, unless it was released.
//!
//! [`end_descendants`] and [`reap_exited`] make syscalls only (no allocation, no locks), on
//! stack buffers: the hard memory cap and the `--timeout` watchdog call them just before
//! `_exit`, and keepers call the first in a forked child.
//!
//! The tree is the process's, not a run's: a process runs one run at a time (as `vox run` and
//! `vox test` do); a host that runs several scripts at once runs each in its own process.
//!
//! What this cannot cover: a keeper killed from outside the run (its tree then goes to the
//! interpreter, which still ends it with the run, but not if it is killed too). Inside the jail,
//! Landlock's signal scoping keeps the run's own processes from signalling their keeper.

use std::sync::atomic::{AtomicI32, AtomicU8, Ordering};

use crate::SIMULATE_ENV;

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
    matches!(crate::simulated().as_deref(), Some("lifetime"))
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

// ---- keepers ---------------------------------------------------------------------------------

/// The byte a run writes on a background child's line at a normal end: the keeper then lets
/// its tree outlive the run.
const RELEASE: u8 = b'R';

/// The run's end of one child's **line**: a socket pair between the interpreter and the
/// child's keeper (see [`guard`]). The keeper sends the program's pid, then its wait status;
/// the interpreter holds its end for as long as the keeper may have processes to end, and the
/// keeper ends its whole tree the moment this end closes without [`Line::release`], which is
/// what happens when the interpreter dies in any way (`SIGKILL` included): the kernel closes
/// the descriptors of a dead process.
#[derive(Debug)]
pub struct Line {
    fd: std::os::fd::OwnedFd,
    /// The keeper's end, closed in the interpreter once the child is started.
    keeper_end: Option<std::os::fd::OwnedFd>,
    /// The keeper's pid (the `std::process::Child`'s).
    keeper: u32,
    /// The program's pid, once the keeper sent it.
    program: Option<u32>,
    /// The program's wait status, once the keeper sent it.
    status: Option<i32>,
    /// Whether the keeper is gone (its end closed).
    closed: bool,
    /// Whether the keeper had nothing left beneath it when it reported the program's end.
    empty: bool,
}

/// What [`Line::poll_status`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The program still runs.
    Running,
    /// The program ended with this wait status (as `waitpid` reports it).
    Ended(i32),
    /// The keeper is gone without reporting one (it was killed).
    Lost,
}

impl Line {
    /// The keeper's pid (0 before [`Line::started`]).
    pub fn keeper(&self) -> u32 {
        self.keeper
    }

    /// The program's pid, when the keeper reported it.
    pub fn program(&self) -> Option<u32> {
        self.program
    }

    /// Call once the command was spawned, with the child's pid (the keeper's): closes the
    /// keeper's end here and reads the program's pid, which the keeper sent before the spawn
    /// returned.
    pub fn started(&mut self, keeper: u32) {
        self.keeper = keeper;
        self.keeper_end = None;
        let mut b = [0u8; 4];
        if self.read_exact(&mut b) {
            let pid = i32::from_ne_bytes(b);
            self.program = u32::try_from(pid).ok().filter(|&p| p > 0);
        }
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> bool {
        use std::os::fd::AsRawFd as _;
        let mut got = 0;
        while got < buf.len() {
            // SAFETY: reading into the unfilled part of `buf`.
            let r = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    buf[got..].as_mut_ptr().cast(),
                    buf.len() - got,
                )
            };
            if r > 0 {
                got += r as usize;
            } else if r == 0
                || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
            {
                self.closed = true;
                return false;
            }
        }
        true
    }

    /// Waits up to `limit` for the program's end (or the keeper's).
    pub fn poll_status(&mut self, limit: std::time::Duration) -> Status {
        use std::os::fd::AsRawFd as _;
        if let Some(st) = self.status {
            return Status::Ended(st);
        }
        if self.closed {
            return Status::Lost;
        }
        let mut p = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(limit.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: one pollfd on the stack.
        let n = unsafe { libc::poll(&mut p, 1, ms) };
        if n <= 0 {
            return Status::Running;
        }
        let mut b = [0u8; 8];
        if self.read_exact(&mut b) {
            let st = i32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
            self.empty = i32::from_ne_bytes([b[4], b[5], b[6], b[7]]) != 0;
            self.status = Some(st);
            Status::Ended(st)
        } else {
            Status::Lost
        }
    }

    /// Whether the keeper's tree was empty when the program's end was reported: the keeper
    /// then exits on its own, with nothing left to end.
    pub fn tree_empty(&self) -> bool {
        self.empty
    }

    /// Lets the keeper's tree outlive the run (a background child at a normal end): the
    /// keeper stops watching the line and exits once its tree is empty.
    pub fn release(&self) {
        use std::os::fd::AsRawFd as _;
        let b = RELEASE;
        // SAFETY: writes one byte from the stack; MSG_NOSIGNAL: a gone keeper is no error.
        unsafe {
            libc::send(
                self.fd.as_raw_fd(),
                std::ptr::from_ref(&b).cast(),
                1,
                libc::MSG_NOSIGNAL,
            );
        }
    }
}

/// A program to execute, prepared in the parent: path, argument and environment vectors as
/// C strings, so that the child only calls `execve`.
pub struct Exec {
    path: std::ffi::CString,
    _strings: Vec<std::ffi::CString>,
    argv: Vec<*const libc::c_char>,
    /// `/bin/sh PATH ARGS…`, for a file without a recognised header (`ENOEXEC`), as `execvp`
    /// does.
    sh_argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
}

// SAFETY: the pointers point into `_strings`, owned by the same value and never changed.
unsafe impl Send for Exec {}
unsafe impl Sync for Exec {}

impl Exec {
    /// `path` with `args` (the first is `argv[0]`) and exactly the environment `env`.
    pub fn new<A, K, V>(
        path: &std::path::Path,
        args: impl IntoIterator<Item = A>,
        env: impl IntoIterator<Item = (K, V)>,
    ) -> std::io::Result<Exec>
    where
        A: AsRef<std::ffi::OsStr>,
        K: AsRef<std::ffi::OsStr>,
        V: AsRef<std::ffi::OsStr>,
    {
        use std::os::unix::ffi::OsStrExt as _;
        let c = |b: &[u8]| {
            std::ffi::CString::new(b).map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "a NUL byte in an argument",
                )
            })
        };
        let path = c(path.as_os_str().as_bytes())?;
        let mut strings = Vec::new();
        let mut argc = 0;
        for a in args {
            strings.push(c(a.as_ref().as_bytes())?);
            argc += 1;
        }
        for (k, v) in env {
            let mut kv = k.as_ref().as_bytes().to_vec();
            kv.push(b'=');
            kv.extend_from_slice(v.as_ref().as_bytes());
            strings.push(c(&kv)?);
        }
        let ptrs = |r: &[std::ffi::CString]| {
            let mut v: Vec<*const libc::c_char> = r.iter().map(|s| s.as_ptr()).collect();
            v.push(std::ptr::null());
            v
        };
        let argv = ptrs(&strings[..argc]);
        let envp = ptrs(&strings[argc..]);
        let mut sh_argv = vec![c"/bin/sh".as_ptr(), path.as_ptr()];
        sh_argv.extend_from_slice(argv.get(1..).unwrap_or(&[std::ptr::null()]));
        Ok(Exec {
            path,
            _strings: strings,
            argv,
            sh_argv,
            envp,
        })
    }
}

/// The stack the program runs on between its start and its `exec` (it shares the keeper's
/// memory until then). Only ever written in a keeper, a forked copy of this process, so the
/// interpreter's own pages stay untouched (zero pages, never faulted in) and nothing is
/// allocated per spawn.
static mut PROGRAM_STACK: [u8; 256 << 10] = [0; 256 << 10];

/// Puts `cmd`'s child under a **keeper** and returns the run's end of its [`Line`].
///
/// Registers a `pre_exec` hook, which must be the command's only one: the child `std` forks
/// becomes the keeper, and the program is started by the hook, which runs `then` (the jail's
/// setup, [`crate::confine_hook`]) in it and executes `exec`. In the forked child the hook makes
/// the child a subreaper and starts the program with `clone(CLONE_VM | CLONE_VFORK)` on a stack
/// of its own (as `posix_spawn` does: no copy of the address space, the keeper waits until the
/// program executes or fails). The program inherits what `std` set up (standard streams, working
/// directory, process group, signal mask), gets `SIGKILL` as its parent-death signal (and exits
/// if its keeper is already gone), runs `then` and executes; a failure comes back as the spawn's
/// error. The keeper never executes anything. It sends the program's pid on the line, closes
/// every other descriptor (its standard streams too: it never holds the program's pipes open,
/// and closing `std`'s error pipe lets the spawn return), ignores the signals a terminal or a
/// process group would send it, then reaps. Every process the program starts stays beneath it
/// (it is their nearest subreaper), so:
///
/// - when the program ends, the keeper sends its wait status (and whether its tree is then
///   empty), and exits once its tree is empty;
/// - when the line closes without [`Line::release`] (the interpreter died: `SIGKILL`, a crash,
///   its parent's death signal), it kills its whole tree ([`end_descendants`]) and exits;
/// - when it is killed (the end of a run: [`end_descendants`] in the interpreter), its tree is
///   re-parented to the interpreter, the next subreaper up, which ends it.
///
/// The hook makes syscalls only (no allocation), on values prepared here.
pub fn guard(
    cmd: &mut std::process::Command,
    exec: Exec,
    mut then: Option<crate::Hook>,
) -> std::io::Result<Line> {
    use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
    use std::os::unix::process::CommandExt as _;
    let mut fds = [0; 2];
    // SAFETY: socketpair fills two descriptors, which we then own.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    } != 0
    {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors from socketpair.
    let (ours, theirs) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let (ours_raw, theirs_raw) = (ours.as_raw_fd(), theirs.as_raw_fd());
    // SAFETY: the hook only makes async-signal-safe syscalls on the values moved into it.
    unsafe {
        cmd.pre_exec(move || {
            let then = then.as_mut().map(|h| h as *mut crate::Hook);
            split(ours_raw, theirs_raw, &exec, then)
        });
    }
    Ok(Line {
        fd: ours,
        keeper_end: Some(theirs),
        keeper: 0,
        program: None,
        status: None,
        closed: false,
        empty: false,
    })
}

/// What the program's start needs, in the keeper's memory (shared with the program until it
/// executes).
struct Launch {
    exec: *const Exec,
    then: Option<*mut crate::Hook>,
    keeper: libc::pid_t,
    /// The errno of a failed start, written by the program.
    error: libc::c_int,
}

/// The program, from its start to its `exec` (see [`guard`]). Syscalls only.
extern "C" fn program_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the keeper's `Launch`, alive while the keeper waits for this exec.
    unsafe {
        let l = &mut *arg.cast::<Launch>();
        let error = (|| -> std::io::Result<()> {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The keeper died before the signal was armed: the program must not run unkept.
            if libc::getppid() != l.keeper {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            if let Some(then) = l.then {
                (*then)()?;
            }
            Err(execute(&*l.exec))
        })();
        let errno = error
            .err()
            .and_then(|e| e.raw_os_error())
            .filter(|&e| e > 0)
            .unwrap_or(libc::EINVAL);
        std::ptr::write_volatile(&mut l.error, errno);
        libc::_exit(127)
    }
}

/// In a started child: replaces it with `exec`'s program (a file without a recognised header
/// through `/bin/sh`, as `execvp` does); returns only with the reason it could not.
unsafe fn execute(exec: &Exec) -> std::io::Error {
    // Only the standard streams pass on: whatever the invoker of `vox` left open without
    // close-on-exec (a log, a socket, a lock file) would reach the program and everything it
    // starts, past every path rule (descriptors are not checked again).
    if let Err(e) = cloexec_from(3) {
        return e;
    }
    libc::execve(exec.path.as_ptr(), exec.argv.as_ptr(), exec.envp.as_ptr());
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::ENOEXEC) {
        libc::execve(
            c"/bin/sh".as_ptr(),
            exec.sh_argv.as_ptr(),
            exec.envp.as_ptr(),
        );
    }
    e
}

/// Marks every descriptor from `first` on close-on-exec (`close_range` with
/// `CLOSE_RANGE_CLOEXEC`, Linux 5.11; before that, one `fcntl` per possible descriptor).
/// Syscalls only: it runs between fork and exec.
pub(crate) unsafe fn cloexec_from(first: libc::c_int) -> std::io::Result<()> {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    if libc::syscall(
        libc::SYS_close_range,
        first as libc::c_uint,
        libc::c_uint::MAX,
        CLOSE_RANGE_CLOEXEC,
    ) == 0
    {
        return Ok(());
    }
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
        lim.rlim_cur.min(1 << 20) as libc::c_int
    } else {
        1 << 16
    };
    for fd in first..top {
        let flags = libc::fcntl(fd, libc::F_GETFD);
        if flags >= 0
            && flags & libc::FD_CLOEXEC == 0
            && libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// In the forked child: becomes the keeper, after starting the program (see [`guard`]).
unsafe fn split(
    run_end: libc::c_int,
    line: libc::c_int,
    exec: &Exec,
    then: Option<*mut crate::Hook>,
) -> std::io::Result<()> {
    // The run's end must be held by the interpreter alone, or its death would go unnoticed.
    libc::close(run_end);
    if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut launch = Launch {
        exec,
        then,
        keeper: libc::getpid(),
        error: 0,
    };
    // The stack grows down from its end, 16-byte aligned.
    let stack = std::ptr::addr_of_mut!(PROGRAM_STACK).cast::<u8>();
    let top = stack.add(std::mem::size_of_val(&*std::ptr::addr_of!(PROGRAM_STACK)));
    let top = top.sub(top as usize % 16);
    let pid = libc::clone(
        program_main,
        top.cast(),
        libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
        std::ptr::from_mut(&mut launch).cast(),
    );
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let error = std::ptr::read_volatile(&launch.error);
    if error != 0 {
        let mut st = 0;
        libc::waitpid(pid, &mut st, libc::__WALL);
        return Err(std::io::Error::from_raw_os_error(error));
    }
    keeper_loop(line, pid)
}

pub use crate::spawned::{Direct, Stream};

/// What a direct start needs, in the interpreter's memory (shared with the child until it
/// executes).
struct DirectLaunch {
    exec: *const Exec,
    then: Option<*mut crate::Hook>,
    cwd: *const libc::c_char,
    /// The descriptor each of the standard streams is to be a copy of (-1: inherited).
    streams: [libc::c_int; 3],
    group: bool,
    parent: libc::pid_t,
    error: libc::c_int,
}

/// The stack of a direct start, shared by the interpreter's spawns (one at a time).
static DIRECT_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
static mut DIRECT_STACK: [u8; 128 << 10] = [0; 128 << 10];

/// The child of [`spawn_direct`], from its start to its `exec`. Syscalls only.
extern "C" fn direct_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `DirectLaunch`, alive while the parent waits for this exec.
    unsafe {
        let l = &mut *arg.cast::<DirectLaunch>();
        let error = (|| -> std::io::Result<()> {
            let last = std::io::Error::last_os_error;
            for (target, &fd) in l.streams.iter().enumerate() {
                if fd >= 0 && libc::dup2(fd, target as libc::c_int) < 0 {
                    return Err(last());
                }
            }
            if libc::chdir(l.cwd) != 0 {
                return Err(last());
            }
            if l.group && libc::setpgid(0, 0) != 0 {
                return Err(last());
            }
            // The interpreter's handlers must not run here (this memory is the interpreter's):
            // every handled signal goes back to its default, SIGPIPE too (as std does), then
            // the mask the parent set for the start is cleared.
            for sig in 1..65 {
                if sig == libc::SIGKILL || sig == libc::SIGSTOP {
                    continue;
                }
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 {
                    continue;
                }
                let handled =
                    old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN;
                if handled || sig == libc::SIGPIPE {
                    let mut dfl: libc::sigaction = std::mem::zeroed();
                    dfl.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(sig, &dfl, std::ptr::null_mut());
                }
            }
            let mut empty: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut empty);
            libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(last());
            }
            if libc::getppid() != l.parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            if let Some(then) = l.then {
                (*then)()?;
            }
            Err(execute(&*l.exec))
        })();
        let errno = error
            .err()
            .and_then(|e| e.raw_os_error())
            .filter(|&e| e > 0)
            .unwrap_or(libc::EINVAL);
        std::ptr::write_volatile(&mut l.error, errno);
        libc::_exit(127)
    }
}

/// Starts `exec` as a direct child of the calling thread, the way `posix_spawn` does
/// (`clone(CLONE_VM | CLONE_VFORK)`: no copy of the interpreter's address space), with
/// `SIGKILL` as its parent-death signal: the fallback of decision 55 where no keeper is used
/// (the developer default's ordinary children, for their spawn cost). The child dies with the
/// calling thread; what it leaves detached is re-parented to the interpreter (a subreaper, see
/// [`become_subreaper`]) and ended with the run while the interpreter lives, but not when the
/// interpreter is killed with `SIGKILL`. Call it from a thread that lives as long as the run.
///
/// `then` runs in the child before `exec` (syscalls only).
pub fn spawn_direct(
    exec: &Exec,
    cwd: &std::path::Path,
    streams: [Stream; 3],
    group: bool,
    mut then: Option<crate::Hook>,
) -> std::io::Result<Direct> {
    use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
    use std::os::unix::ffi::OsStrExt as _;
    let cwd = std::ffi::CString::new(cwd.as_os_str().as_bytes()).map_err(|_| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte in the path")
    })?;
    let mut null: Option<OwnedFd> = None;
    let mut child_ends: Vec<OwnedFd> = Vec::new();
    let mut readers: [Option<std::fs::File>; 3] = [None, None, None];
    let mut fds = [-1; 3];
    for (i, s) in streams.iter().enumerate() {
        match s {
            Stream::Inherit => {}
            Stream::Null => {
                if null.is_none() {
                    // SAFETY: open(2) on a constant path; the result is a new fd we own.
                    let fd = unsafe {
                        libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC)
                    };
                    if fd < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    // SAFETY: a fresh descriptor.
                    null = Some(unsafe { OwnedFd::from_raw_fd(fd) });
                }
                fds[i] = null.as_ref().map_or(-1, |f| f.as_raw_fd());
            }
            Stream::Pipe => {
                let mut p = [0; 2];
                // SAFETY: pipe2 fills two descriptors, which we then own.
                if unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // SAFETY: fresh descriptors.
                let (r, w) = unsafe { (OwnedFd::from_raw_fd(p[0]), OwnedFd::from_raw_fd(p[1])) };
                let (rfd, wfd) = (r.as_raw_fd(), w.as_raw_fd());
                if i == 0 {
                    fds[i] = rfd;
                    child_ends.push(r);
                    readers[i] = Some(std::fs::File::from(w));
                } else {
                    fds[i] = wfd;
                    child_ends.push(w);
                    readers[i] = Some(std::fs::File::from(r));
                }
            }
        }
    }
    let mut launch = DirectLaunch {
        exec,
        then: then.as_mut().map(|h| h as *mut crate::Hook),
        cwd: cwd.as_ptr(),
        streams: fds,
        group,
        // SAFETY: a plain getter.
        parent: unsafe { libc::getpid() },
        error: 0,
    };
    let _lock = DIRECT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: the child runs `direct_main` on the locked static stack and only makes syscalls
    // until it executes or exits; this thread is suspended meanwhile (CLONE_VFORK) with every
    // signal blocked, so no handler of ours runs on the child's stack.
    let pid = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let stack = std::ptr::addr_of_mut!(DIRECT_STACK).cast::<u8>();
        let top = stack.add(std::mem::size_of_val(&*std::ptr::addr_of!(DIRECT_STACK)));
        let top = top.sub(top as usize % 16);
        let pid = libc::clone(
            direct_main,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::from_mut(&mut launch).cast(),
        );
        let e = std::io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 {
            return Err(e);
        }
        pid
    };
    drop(child_ends);
    drop(null);
    // SAFETY: reading what the child wrote before it exited (it shared this memory).
    let error = unsafe { std::ptr::read_volatile(&launch.error) };
    if error != 0 {
        let mut st = 0;
        // SAFETY: reaping the child that failed to start.
        unsafe { libc::waitpid(pid, &mut st, libc::__WALL) };
        return Err(std::io::Error::from_raw_os_error(error));
    }
    let [_, stdout, stderr] = readers;
    Ok(Direct {
        pid: pid as u32,
        stdout,
        stderr,
    })
}

extern "C" fn woken(_: libc::c_int) {}

/// Writes all of `buf` to `fd` (best effort).
unsafe fn send_all(fd: libc::c_int, buf: &[u8]) {
    let mut off = 0;
    while off < buf.len() {
        let r = libc::send(
            fd,
            buf[off..].as_ptr().cast(),
            buf.len() - off,
            libc::MSG_NOSIGNAL,
        );
        if r > 0 {
            off += r as usize;
        } else if r < 0 && *libc::__errno_location() == libc::EINTR {
            continue;
        } else {
            return;
        }
    }
}

/// The keeper's life (see [`guard`]). Syscalls only; never returns.
unsafe fn keeper_loop(line: libc::c_int, program: libc::pid_t) -> ! {
    send_all(line, &program.to_ne_bytes());
    // Its line on descriptor 3, everything else closed (std's error pipe, the program's pipes,
    // other children's lines the interpreter held when it forked).
    let fd = if line == 3 || libc::dup3(line, 3, libc::O_CLOEXEC) == 3 {
        3
    } else {
        line
    };
    close_from(fd);
    for f in 0..3 {
        libc::close(f);
    }
    let mut ign: libc::sigaction = std::mem::zeroed();
    ign.sa_sigaction = libc::SIG_IGN;
    for s in [
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGPIPE,
        libc::SIGTSTP,
        libc::SIGTTIN,
        libc::SIGTTOU,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGALRM,
    ] {
        libc::sigaction(s, &ign, std::ptr::null_mut());
    }
    // SIGCHLD interrupts the wait below; it is blocked except inside it, so none is missed.
    let mut act: libc::sigaction = std::mem::zeroed();
    act.sa_sigaction = woken as extern "C" fn(libc::c_int) as libc::sighandler_t;
    libc::sigaction(libc::SIGCHLD, &act, std::ptr::null_mut());
    let mut block: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut block);
    libc::sigaddset(&mut block, libc::SIGCHLD);
    let mut during: libc::sigset_t = std::mem::zeroed();
    libc::sigprocmask(libc::SIG_BLOCK, &block, &mut during);
    libc::sigdelset(&mut during, libc::SIGCHLD);
    let mut watching = true;
    let mut released = false;
    // The program's wait status, until it is sent with whether the tree is then empty.
    let mut ended: Option<libc::c_int> = None;
    loop {
        loop {
            let mut st = 0;
            let r = libc::waitpid(-1, &mut st, libc::WNOHANG | libc::__WALL);
            if r == program {
                ended = Some(st);
                continue;
            }
            if r > 0 {
                continue;
            }
            let empty = r < 0 && *libc::__errno_location() == libc::ECHILD;
            if let Some(st) = ended.take() {
                if watching {
                    let mut msg = [0u8; 8];
                    msg[..4].copy_from_slice(&st.to_ne_bytes());
                    msg[4..].copy_from_slice(&i32::from(empty).to_ne_bytes());
                    send_all(fd, &msg);
                }
            }
            if empty {
                libc::_exit(0);
            }
            break;
        }
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let n = libc::ppoll(
            if watching {
                &mut p
            } else {
                std::ptr::null_mut()
            },
            libc::nfds_t::from(watching),
            std::ptr::null(),
            &during,
        );
        if n <= 0 || !watching {
            continue;
        }
        let mut b = 0u8;
        let r = libc::read(fd, std::ptr::from_mut(&mut b).cast(), 1);
        if r == 1 {
            released |= b == RELEASE;
            continue;
        }
        if r < 0 && *libc::__errno_location() == libc::EINTR {
            continue;
        }
        // The run's end closed: the interpreter is gone, or let this tree go.
        watching = false;
        libc::close(fd);
        if !released {
            end_descendants(&[]);
            libc::_exit(0);
        }
    }
}

/// Closes every descriptor above `keep` and those between 3 and it.
unsafe fn close_from(keep: libc::c_int) {
    let first = (keep + 1) as libc::c_uint;
    if libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, 0) != 0 {
        let mut lim: libc::rlimit = std::mem::zeroed();
        let max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
            lim.rlim_cur.min(1 << 20) as libc::c_int
        } else {
            1024
        };
        for f in keep + 1..max {
            libc::close(f);
        }
    }
    for f in 3..keep {
        libc::close(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
