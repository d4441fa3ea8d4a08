//! What `vox doctor` proves on this host by confining a probe child and trying each protection
//! from inside it: the descriptors the invoker left open, the terminal, unix sockets, IPC,
//! setuid bits, the seccomp filter and the mounts of deny inside a grant. The probe is a forked copy of this process that runs
//! the jail's own setup ([`crate::confine_hook`], the code every jailed child runs) with the
//! network off, then makes one system call per check and reports the results on a pipe; it
//! never executes anything. A protection the host lacks shows as the check that failed.

use std::ffi::CString;
use std::io::{self, Read as _};
use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::process::Command;

use crate::confine::confine_hook;
use crate::env::EnvPolicy;
use crate::policy::{ChildPolicy, Denies, ProcessGroup};
use crate::tempdir::TempDir;
use crate::types::Mode;

/// One protection and what the probe found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proven {
    /// Short name (`descriptors`, `terminal`, …).
    pub what: &'static str,
    /// `Ok(how it was shown)` or `Err(what the probe saw instead)`.
    pub result: Result<&'static str, String>,
}

/// The checks, in the order the probe reports them.
const CHECKS: [(&str, &str); 7] = [
    (
        "descriptors",
        "a descriptor the invoker left open is close-on-exec in a confined child (close_range)",
    ),
    (
        "terminal",
        "ioctl(TIOCSTI) is refused with EPERM and a captured child leads a session of its own \
         (no controlling terminal)",
    ),
    (
        "unix sockets",
        "with the network off, socket(AF_UNIX) is refused (EACCES), so no pathname unix socket \
         can be reached",
    ),
    (
        "ipc",
        "a confined child has its own IPC namespace (no System V or POSIX IPC object of the host)",
    ),
    (
        "setuid",
        "fchmod with S_ISUID and creating a file with S_ISUID are refused (EPERM), no_new_privs set",
    ),
    (
        "seccomp",
        "the filter is installed (PR_GET_SECCOMP = 2) and refuses io_uring_setup (EPERM)",
    ),
    (
        "deny within",
        "in its writable temp dir, a file denied with fs:none cannot be opened (EACCES), a \
         subtree made read-only refuses a new file (EROFS) and an exec:none directory is mounted \
         noexec",
    ),
];

/// `ST_NOEXEC` of `statvfs(3)` (`f_flag`).
const ST_NOEXEC: libc::c_ulong = 8;

/// Confines a probe child and tries every protection: one result per check, or why no child
/// could be confined at all.
pub fn prove() -> Result<Vec<Proven>, String> {
    let tmp = TempDir::new().map_err(|e| format!("cannot create a temp dir: {e}"))?;
    let (ro, secret, bin) = (
        tmp.path().join("ro"),
        tmp.path().join("secret"),
        tmp.path().join("bin"),
    );
    for made in [
        std::fs::create_dir(&ro),
        std::fs::write(&secret, "secret\n"),
        std::fs::create_dir(&bin),
    ] {
        made.map_err(|e| format!("cannot prepare the temp dir: {e}"))?;
    }
    let policy = ChildPolicy::new(Vec::new(), Vec::new(), false, tmp.path(), EnvPolicy::new())
        .with_process_group(ProcessGroup::Own)
        .with_denies(Denies {
            write: vec![ro.clone()],
            read: vec![secret.clone()],
            exec: vec![bin.clone()],
        });
    let cpath = |p: &std::path::Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|_| "the temp dir's path holds a NUL byte".to_string())
    };
    let (ro_file, secret, bin) = (cpath(&ro.join("probe"))?, cpath(&secret)?, cpath(&bin)?);
    let mut cmd = Command::new("/bin/true");
    let (_, mut hook) =
        confine_hook(&mut cmd, &policy, Mode::Confined).map_err(|e| e.to_string())?;
    let probe_file = CString::new(tmp.path().join("probe").as_os_str().as_bytes())
        .map_err(|_| "the temp dir's path holds a NUL byte".to_string())?;
    let probe_suid = CString::new(tmp.path().join("probe-suid").as_os_str().as_bytes())
        .map_err(|_| "the temp dir's path holds a NUL byte".to_string())?;
    let host_ipc = std::fs::metadata("/proc/self/ns/ipc")
        .map(|m| m.ino())
        .map_err(|e| format!("cannot read /proc/self/ns/ipc: {e}"))?;
    let mut p = [0; 2];
    // SAFETY: pipe2 fills two descriptors, which we then own; the open is a plain syscall (its
    // descriptor, without close-on-exec, plays one the invoker of vox left open).
    let (rd, wr, leaked) = unsafe {
        if libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(format!(
                "cannot make a pipe: {}",
                io::Error::last_os_error()
            ));
        }
        let leaked = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
        if leaked < 0 {
            return Err(format!(
                "cannot open /dev/null: {}",
                io::Error::last_os_error()
            ));
        }
        (
            OwnedFd::from_raw_fd(p[0]),
            OwnedFd::from_raw_fd(p[1]),
            OwnedFd::from_raw_fd(leaked),
        )
    };
    let (wfd, lfd) = (wr.as_raw_fd(), leaked.as_raw_fd());
    // SAFETY: the child makes syscalls only (the hook is async-signal-safe) and ends with _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("cannot fork: {}", io::Error::last_os_error()));
    }
    if pid == 0 {
        // SAFETY: the probe: syscalls only, never returns.
        unsafe {
            let errno = || (*libc::__errno_location()).clamp(1, 250) as u8;
            let mut out = [0u8; 8];
            if let Err(e) = hook() {
                out[0] = 255;
                out[1] = e.raw_os_error().unwrap_or(0).clamp(0, 250) as u8;
                libc::write(wfd, out.as_ptr().cast(), 2);
                libc::_exit(1);
            }
            // descriptors
            let fl = libc::fcntl(lfd, libc::F_GETFD);
            out[1] = if fl >= 0 && fl & libc::FD_CLOEXEC != 0 {
                0
            } else {
                251
            };
            // terminal
            let c = b'x';
            out[2] = if libc::ioctl(lfd, libc::TIOCSTI, &c) == 0 {
                252
            } else if *libc::__errno_location() != libc::EPERM {
                errno()
            } else if libc::getsid(0) != libc::getpid() {
                253
            } else {
                0
            };
            // unix sockets
            let s = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
            out[3] = if s >= 0 {
                252
            } else if *libc::__errno_location() == libc::EACCES {
                0
            } else {
                errno()
            };
            // ipc
            let mut st: libc::stat = std::mem::zeroed();
            out[4] = if libc::stat(c"/proc/self/ns/ipc".as_ptr(), &mut st) != 0 {
                errno()
            } else if st.st_ino as u64 == host_ipc {
                252
            } else {
                0
            };
            // setuid
            let f = libc::open(probe_file.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o600);
            out[5] = if f < 0 {
                errno()
            } else if libc::fchmod(f, 0o4755) == 0 {
                252
            } else if *libc::__errno_location() != libc::EPERM {
                errno()
            } else if libc::open(probe_suid.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o4755) >= 0 {
                252
            } else if libc::prctl(libc::PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 {
                253
            } else {
                0
            };
            // seccomp
            let params = [0u8; 120];
            out[6] = if libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) != 2 {
                253
            } else if libc::syscall(libc::SYS_io_uring_setup, 4, params.as_ptr()) >= 0 {
                252
            } else if *libc::__errno_location() == libc::EPERM {
                0
            } else {
                errno()
            };
            // deny within
            let mut vfs: libc::statvfs = std::mem::zeroed();
            out[7] = if libc::open(secret.as_ptr(), libc::O_RDONLY) >= 0 {
                252
            } else if *libc::__errno_location() != libc::EACCES {
                errno()
            } else if libc::open(ro_file.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o600) >= 0 {
                252
            } else if *libc::__errno_location() != libc::EROFS
                || libc::statvfs(bin.as_ptr(), &mut vfs) != 0
            {
                errno()
            } else if vfs.f_flag & ST_NOEXEC == 0 {
                253
            } else {
                0
            };
            libc::write(wfd, out.as_ptr().cast(), out.len());
            libc::_exit(0);
        }
    }
    drop(wr);
    drop(leaked);
    let mut got = Vec::new();
    let _ = std::fs::File::from(rd).read_to_end(&mut got);
    let mut status = 0;
    // SAFETY: waiting for the probe forked above.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
        && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
    {}
    drop(tmp);
    if got.first() == Some(&255) {
        let e = io::Error::from_raw_os_error(i32::from(got.get(1).copied().unwrap_or(0)));
        return Err(format!("the probe child could not be confined: {e}"));
    }
    if got.len() != 8 {
        return Err("the probe child died before reporting".to_string());
    }
    Ok(CHECKS
        .iter()
        .zip(&got[1..])
        .map(|(&(what, how), &code)| Proven {
            what,
            result: match code {
                0 => Ok(how),
                251 => Err("the descriptor stayed open across exec".to_string()),
                252 => Err("the probe's attempt succeeded".to_string()),
                253 => Err(match what {
                    "terminal" => "the child is not a session leader".to_string(),
                    "setuid" => "no_new_privs is not set".to_string(),
                    "deny within" => "the exec:none directory is not mounted noexec".to_string(),
                    _ => "no seccomp filter is installed".to_string(),
                }),
                e => Err(format!(
                    "unexpected error: {}",
                    io::Error::from_raw_os_error(i32::from(e))
                )),
            },
        })
        .collect())
}
