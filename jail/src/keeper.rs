//! Keepers (decision 55; the whole story is in `lifetime.rs`): each jailed or background program
//! is started by a keeper ([`guard`]), a subreaper of its own forked by the interpreter, tied to
//! the run by a [`Line`]; the keeper ends its tree when the line closes without a release.

use crate::descendants::end_descendants;
use crate::types::Hook;

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
    mut then: Option<Hook>,
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
            let then = then.as_mut().map(|h| h as *mut Hook);
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
    then: Option<*mut Hook>,
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
pub(crate) unsafe fn execute(exec: &Exec) -> std::io::Error {
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
    then: Option<*mut Hook>,
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
