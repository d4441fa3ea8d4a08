//! Direct starts (decision 55; the whole story is in `lifetime.rs`): the developer default's
//! ordinary children, started without a keeper, as cheaply as `posix_spawn`, with `SIGKILL` as
//! their parent-death signal ([`spawn_direct`]).

use crate::keeper::{execute, Exec};
use crate::spawned::{Direct, Stream};
use crate::types::Hook;

/// What a direct start needs, in the interpreter's memory (shared with the child until it
/// executes).
struct DirectLaunch {
    exec: *const Exec,
    then: Option<*mut Hook>,
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
    mut then: Option<Hook>,
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
        then: then.as_mut().map(|h| h as *mut Hook),
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
