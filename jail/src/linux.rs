//! Linux enforcement: Landlock, a read-only mount namespace, a network namespace, resource
//! limits.
//!
//! Everything that allocates happens in the parent before the fork: the Landlock ruleset fd and
//! the namespaces to join ([`crate::mounts`]) are prepared there and moved into the `pre_exec`
//! hook, which only makes syscalls.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt as _;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath, PathFd,
    RestrictSelfAttr, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus,
    Scope, ABI,
};

use crate::denies;
use crate::env::child_env;
use crate::host::{simulated, HostSupport, SIMULATE_ENV};
use crate::limits::Limits;
use crate::mounts::{self, Template, SELF_CONFINED};
use crate::policy::{ChildPolicy, FsAccess, Grant, ProcessGroup, SelfPolicy};
use crate::seccomp::{self, Filters};
use crate::types::{Applied, Hook, JailError, Mode, RuleKind};

/// The newest Landlock ABI whose access rights this crate requests (tested on a 6.18 kernel).
/// Newer kernels are used at this level; older ones at theirs.
const TESTED_ABI: u32 = 7;

const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;

/// `struct landlock_path_beneath_attr` (packed, as in the kernel UAPI).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The Landlock ABI version of the running kernel, or why there is none.
fn kernel_abi() -> Result<u32, String> {
    // SAFETY: the documented version query: NULL attributes, size 0, the VERSION flag.
    let r = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if r >= 1 {
        return Ok(r as u32);
    }
    let err = io::Error::last_os_error();
    Err(match err.raw_os_error() {
        Some(libc::ENOSYS) => "the kernel was built without Landlock".to_string(),
        Some(libc::EOPNOTSUPP) => {
            "Landlock is built in but disabled at boot (not in the lsm= list)".to_string()
        }
        _ => format!("the Landlock version query failed: {err}"),
    })
}

/// Whether a forked child can create user, mount and network namespaces and make its mounts
/// private (cached: a host property). Once this process confined itself, Landlock refuses it
/// every mount, so the mount step is then left out.
fn userns_probe() -> Result<(), String> {
    static CACHE: OnceLock<Result<(), String>> = OnceLock::new();
    CACHE
        .get_or_init(|| {
            // SAFETY: the child only calls unshare and _exit (async-signal-safe).
            let pid = unsafe { libc::fork() };
            if pid < 0 {
                return Err(format!(
                    "cannot fork to probe: {}",
                    io::Error::last_os_error()
                ));
            }
            let try_mount = !SELF_CONFINED.load(Ordering::Relaxed);
            if pid == 0 {
                unsafe {
                    let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWNET;
                    let errno = || (*libc::__errno_location()).clamp(1, 127);
                    let code = if libc::unshare(flags) != 0 {
                        errno()
                    } else if try_mount
                        && libc::mount(
                            std::ptr::null(),
                            c"/".as_ptr(),
                            std::ptr::null(),
                            libc::MS_REC | libc::MS_PRIVATE,
                            std::ptr::null(),
                        ) != 0
                    {
                        128 + errno()
                    } else {
                        0
                    };
                    libc::_exit(code);
                }
            }
            let mut status = 0;
            loop {
                // SAFETY: waiting for the child forked above.
                let r = unsafe { libc::waitpid(pid, &mut status, 0) };
                if r == pid {
                    break;
                }
                if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                    return Err("cannot wait for the namespace probe".to_string());
                }
            }
            let code = libc::WEXITSTATUS(status);
            if libc::WIFEXITED(status) && code == 0 {
                Ok(())
            } else if libc::WIFEXITED(status) && code > 128 {
                Err(format!(
                    "a new mount namespace cannot be made private: {}",
                    io::Error::from_raw_os_error(code - 128)
                ))
            } else if libc::WIFEXITED(status) {
                Err(format!(
                    "unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) failed: {}",
                    io::Error::from_raw_os_error(code)
                ))
            } else {
                Err("the namespace probe died".to_string())
            }
        })
        .clone()
}

pub(crate) fn probe() -> HostSupport {
    let simulated = simulated();
    let sim = simulated.as_deref();
    let hook = |what: &str| format!("simulated by {SIMULATE_ENV}={what}");
    let abi = match sim {
        None | Some("net") | Some("userns") | Some("lifetime") | Some("seccomp") => kernel_abi(),
        Some(other) => Err(hook(other)),
    };
    let abi = match (abi, sim) {
        (Ok(a), Some("net")) => Ok(a.min(3)),
        (a, _) => a,
    };
    let userns = match sim {
        Some("userns") => Err(hook("userns")),
        _ => userns_probe(),
    };
    let (landlock_abi, landlock_missing) = match abi {
        Ok(a) => (Some(a), None),
        Err(why) => (None, Some(why)),
    };
    let a = landlock_abi.unwrap_or(0);
    HostSupport {
        seccomp: sim != Some("seccomp") && seccomp_available(),
        platform_supported: true,
        landlock_abi,
        landlock_missing,
        fs_rules: a >= 1,
        tcp_rules: a >= 4,
        scoping: a >= 6,
        user_namespaces: userns.is_ok(),
        user_namespaces_detail: match userns {
            Ok(()) => "a child can create user, mount and network namespaces".to_string(),
            Err(e) => e,
        },
        simulated,
    }
}

/// Whether this kernel installs seccomp filters that return an errno (`SECCOMP_GET_ACTION_AVAIL`,
/// Linux 4.14).
fn seccomp_available() -> bool {
    const SECCOMP_GET_ACTION_AVAIL: libc::c_uint = 2;
    let action: u32 = libc::SECCOMP_RET_ERRNO;
    // SAFETY: a query; the kernel reads one u32.
    unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            SECCOMP_GET_ACTION_AVAIL,
            0u32,
            std::ptr::from_ref(&action),
        ) == 0
    }
}

/// The `landlock` crate's ABI for the level we request.
fn abi_enum(abi: u32) -> ABI {
    match abi.min(TESTED_ABI) {
        0 => ABI::Unsupported,
        1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        6 => ABI::V6,
        _ => ABI::V7,
    }
}

/// The access rights a grant gives, within the handled set, for a directory or a file.
fn grant_access(access: FsAccess, abi: ABI, is_dir: bool) -> BitFlags<AccessFs> {
    let handled = AccessFs::from_all(abi);
    let wanted = match access {
        FsAccess::ReadExec => AccessFs::from_read(abi),
        FsAccess::Read | FsAccess::OwnProc => AccessFs::ReadFile | AccessFs::ReadDir,
        FsAccess::ReadWrite => handled,
        FsAccess::Device => AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate,
        FsAccess::Terminal => {
            AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev
        }
    };
    let wanted = wanted & handled;
    if is_dir {
        wanted
    } else {
        wanted & AccessFs::from_file(abi)
    }
}

/// A ruleset with its rules added, not yet enforced.
struct Built {
    ruleset: RulesetCreated,
    kinds: Vec<RuleKind>,
    /// Whether the child must add its own `/proc/<pid>`.
    own_proc: bool,
}

/// The ruleset for `grants`; with `deny_tcp`, TCP bind and connect are denied but for binding the
/// `listen` ports.
fn build_ruleset(
    grants: &[Grant],
    abi: ABI,
    deny_tcp: bool,
    listen: &[u16],
) -> Result<Built, String> {
    let err = |e: landlock::RulesetError| format!("cannot build the Landlock ruleset: {e}");
    let mut kinds = vec![RuleKind::LandlockFs];
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))
        .map_err(err)?;
    if deny_tcp {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(err)?;
        kinds.push(RuleKind::LandlockTcp);
    }
    if abi >= ABI::V6 {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(err)?;
        kinds.push(RuleKind::ScopeAbstractUnix);
        kinds.push(RuleKind::ScopeSignal);
    }
    let mut created = ruleset.create().map_err(err)?;
    if deny_tcp {
        for &port in listen {
            created = created
                .add_rule(NetPort::new(port, AccessNet::BindTcp))
                .map_err(|e| format!("cannot add a rule for TCP port {port}: {e}"))?;
        }
        if !listen.is_empty() {
            kinds.push(RuleKind::InboundTcp(listen.to_vec()));
        }
    }
    let mut own_proc = false;
    for grant in grants {
        if grant.access == FsAccess::OwnProc {
            own_proc = true;
            continue;
        }
        let meta = match std::fs::metadata(&grant.path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("cannot inspect {}: {e}", grant.path.display())),
        };
        let fd = PathFd::new(&grant.path)
            .map_err(|e| format!("cannot open {}: {e}", grant.path.display()))?;
        let access = grant_access(grant.access, abi, meta.is_dir());
        if access.is_empty() {
            continue;
        }
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|e| format!("cannot add a rule for {}: {e}", grant.path.display()))?;
    }
    Ok(Built {
        ruleset: created,
        kinds,
        own_proc,
    })
}

/// Everything the child does between fork and exec, prepared in the parent.
struct ChildSetup {
    limits: Limits,
    /// `setsid()` in the child, which also becomes a child subreaper ([`ProcessGroup::Session`]).
    new_session: bool,
    /// `setsid()` only: a captured child leaves the terminal (no controlling terminal, so no
    /// `/dev/tty`), as bubblewrap's `--new-session` does.
    leave_terminal: bool,
    netns: bool,
    /// Whether the child gets its own IPC namespace (every confined child).
    ipcns: bool,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// The user and mount namespaces to join (the read-only mounts).
    mounts: Option<Arc<Template>>,
    /// Room for the working directory's path, read before joining the mount namespace.
    cwd: Vec<u8>,
    ruleset: Option<OwnedFd>,
    /// Access for the child's own `/proc/<pid>` (0: none).
    own_proc_access: u64,
    /// Access for terminals the child holds as stdin/stdout/stderr (0: none).
    tty_access: u64,
    /// The system-call filter (confined children).
    seccomp: Option<&'static Filters>,
}

/// Adds a path-beneath rule for `parent_fd` to the ruleset `ruleset_fd` (a raw syscall).
unsafe fn add_path_rule(ruleset_fd: RawFd, parent_fd: RawFd, access: u64) -> libc::c_long {
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd,
    };
    libc::syscall(
        libc::SYS_landlock_add_rule,
        ruleset_fd,
        LANDLOCK_RULE_PATH_BENEATH,
        std::ptr::from_ref(&attr),
        0u32,
    )
}

/// `struct __user_cap_header_struct` (kernel UAPI).
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

/// `struct __user_cap_data_struct` (kernel UAPI; version 3 takes two of them).
#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// Drops every capability of the calling process: the bounding set (so that executing a
/// program as uid 0 grants none back), the ambient set, then the effective, permitted and
/// inheritable sets. Landlock does not cover what capabilities allow (creating device nodes in a
/// writable root with `CAP_MKNOD`, raising the jail's resource limits, reconfiguring the host's
/// network, …), so a child of a root interpreter must not keep them.
///
/// Without `CAP_SETPCAP` the bounding set cannot shrink; that is harmless when the process is
/// not uid 0 (executing a program then grants nothing, and `no_new_privs` voids setuid bits and
/// file capabilities) and refused otherwise.
unsafe fn drop_capabilities() -> io::Result<()> {
    for cap in 0..64 {
        if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                // Past the kernel's last capability.
                Some(libc::EINVAL) => break,
                Some(libc::EPERM) if libc::geteuid() != 0 => break,
                _ => return Err(e),
            }
        }
    }
    let clear = libc::PR_CAP_AMBIENT_CLEAR_ALL;
    if libc::prctl(libc::PR_CAP_AMBIENT, clear, 0, 0, 0) != 0 {
        let e = io::Error::last_os_error();
        // EINVAL: a kernel without ambient capabilities (before 4.3) has none to clear.
        if e.raw_os_error() != Some(libc::EINVAL) {
            return Err(e);
        }
    }
    let mut header = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    if libc::syscall(
        libc::SYS_capset,
        std::ptr::from_mut(&mut header),
        data.as_ptr(),
    ) != 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Writes `data` to `path`; true if all of it was written.
unsafe fn write_file(path: &CStr, data: &[u8]) -> bool {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return false;
    }
    let n = libc::write(fd, data.as_ptr().cast(), data.len());
    libc::close(fd);
    n == data.len() as isize
}

/// Joins the template's user and mount namespaces, then returns to the working directory (by
/// path, so that it resolves in the new namespace: `setns` moves the root and the working
/// directory to the namespace's root). `cwd` is scratch room for the path.
unsafe fn join_mounts(t: &Template, cwd: &mut [u8]) -> io::Result<()> {
    let err = io::Error::last_os_error;
    // The raw syscall: the working directory std::process set up (`current_dir`) comes first.
    let n = libc::syscall(libc::SYS_getcwd, cwd.as_mut_ptr(), cwd.len());
    if n <= 0 {
        return Err(err());
    }
    // "(unreachable)/…": a working directory outside this process's root.
    if cwd[0] != b'/' {
        return Err(io::Error::from_raw_os_error(libc::ENOENT));
    }
    if libc::setns(t.user.as_raw_fd(), libc::CLONE_NEWUSER) != 0 {
        return Err(err());
    }
    if libc::setns(t.mnt.as_raw_fd(), libc::CLONE_NEWNS) != 0 {
        return Err(err());
    }
    // Joining moved the root to the namespace's: it must be the one the template was built
    // under (a chrooted parent would otherwise hand its child the whole filesystem).
    let mut st: libc::stat = std::mem::zeroed();
    if libc::stat(c"/".as_ptr(), &mut st) != 0 {
        return Err(err());
    }
    if (st.st_dev as u64, st.st_ino as u64) != t.root {
        return Err(io::Error::from_raw_os_error(libc::EPERM));
    }
    if libc::chdir(cwd.as_ptr().cast()) != 0 {
        return Err(err());
    }
    Ok(())
}

impl ChildSetup {
    /// Runs in the forked child: syscalls only, no allocation, no panics.
    unsafe fn apply(&mut self) -> io::Result<()> {
        if (self.new_session || self.leave_terminal) && libc::setsid() < 0 {
            return Err(io::Error::last_os_error());
        }
        if self.new_session {
            // What a background child starts stays beneath it, so that the end of the run can
            // spare it with its child (crate::lifetime).
            if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        self.limits.apply()?;
        // SysV IPC and POSIX message queues are per IPC namespace: a fresh one hides the
        // host's segments and takes the child's own with it when its last process ends.
        let mut own = if self.ipcns { libc::CLONE_NEWIPC } else { 0 };
        if self.netns {
            own |= libc::CLONE_NEWNET;
        }
        if let Some(t) = &self.mounts {
            join_mounts(t, &mut self.cwd)?;
            // Full capabilities in the joined user namespace (dropped below) allow this.
            if own != 0 && libc::unshare(own) != 0 {
                return Err(io::Error::last_os_error());
            }
        } else if own != 0 {
            if libc::unshare(libc::CLONE_NEWUSER | own) != 0 {
                return Err(io::Error::last_os_error());
            }
            // Map the caller's own ids so the child keeps its uid and gid. Best effort: when the
            // interpreter is itself confined these files are out of reach, and the child then
            // runs with the overflow ids (its file access is unchanged: the kernel ids are).
            if write_file(c"/proc/self/setgroups", b"deny")
                && write_file(c"/proc/self/uid_map", &self.uid_map)
            {
                write_file(c"/proc/self/gid_map", &self.gid_map);
            }
        }
        let Some(ruleset) = &self.ruleset else {
            return Ok(());
        };
        let rfd = ruleset.as_raw_fd();
        if self.own_proc_access != 0 {
            let p = libc::open(
                c"/proc/self".as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            );
            if p < 0 {
                return Err(io::Error::last_os_error());
            }
            let r = add_path_rule(rfd, p, self.own_proc_access);
            let e = io::Error::last_os_error();
            libc::close(p);
            if r != 0 {
                return Err(e);
            }
        }
        if self.tty_access != 0 {
            for fd in 0..3 {
                let mut t: libc::termios = std::mem::zeroed();
                if libc::tcgetattr(fd, &mut t) == 0 {
                    // Best effort: the terminal the child already holds may be reopened
                    // (`/dev/stderr`); failing only leaves it closed to reopening.
                    add_path_rule(rfd, fd, self.tty_access);
                }
            }
        }
        drop_capabilities()?;
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::syscall(libc::SYS_landlock_restrict_self, rfd, 0u32) != 0 {
            return Err(io::Error::last_os_error());
        }
        if let Some(f) = self.seccomp {
            f.install()?;
        }
        // Only the standard streams pass on (the keeper's start does it too; this covers a
        // plain `Command`).
        crate::keeper::cloexec_from(3)?;
        Ok(())
    }
}

pub(crate) fn confine_command(
    cmd: &mut Command,
    policy: &ChildPolicy,
    mode: Mode,
) -> Result<Applied, JailError> {
    let (applied, hook) = prepare(cmd, policy, mode, false)?;
    // SAFETY: the hook only makes async-signal-safe syscalls on data prepared in the parent.
    unsafe {
        cmd.pre_exec(hook);
    }
    Ok(applied)
}

pub(crate) fn confine_hook(
    cmd: &mut Command,
    policy: &ChildPolicy,
    mode: Mode,
) -> Result<(Applied, Hook), JailError> {
    prepare(cmd, policy, mode, true)
}

/// The command's environment and group, and the hook. `kept`: the hook runs in a program
/// started by a keeper ([`crate::lifetime::guard`]), which is the one `std` puts in the new
/// process group; the program can then leave that group for a session of its own. Without a
/// keeper the hook runs in the process `std` made a group leader, which `setsid` refuses, so the
/// session is the group.
fn prepare(
    cmd: &mut Command,
    policy: &ChildPolicy,
    mode: Mode,
    kept: bool,
) -> Result<(Applied, Hook), JailError> {
    let cannot = |reason: String| JailError::CannotConfine { reason };
    let mut kinds = vec![RuleKind::EnvScrub];
    match policy.process_group {
        ProcessGroup::Own => kinds.push(RuleKind::ProcessGroup),
        ProcessGroup::Session => kinds.push(RuleKind::NewSession),
        ProcessGroup::Inherit => {}
    }
    let mut setup = ChildSetup {
        new_session: policy.process_group == ProcessGroup::Session,
        leave_terminal: mode == Mode::Confined && policy.process_group == ProcessGroup::Own,
        limits: Limits {
            data: policy.rlimit_data.filter(|&v| v > 0),
            fsize: policy.rlimit_fsize.filter(|&v| v > 0),
            core_zero: mode == Mode::Confined,
        },
        netns: false,
        ipcns: false,
        uid_map: Vec::new(),
        gid_map: Vec::new(),
        mounts: None,
        cwd: Vec::new(),
        ruleset: None,
        own_proc_access: 0,
        tty_access: 0,
        seccomp: None,
    };
    if let Some(v) = setup.limits.data {
        kinds.push(RuleKind::RlimitData(v));
    }
    if let Some(v) = setup.limits.fsize {
        kinds.push(RuleKind::RlimitFsize(v));
    }
    let mut landlock_abi = None;
    if mode == Mode::Confined {
        kinds.push(RuleKind::RlimitCoreZero);
        let support = probe();
        if let Some(gap) = support.child_gap(policy.net_allowed) {
            return Err(cannot(gap));
        }
        let kernel = support.landlock_abi.unwrap_or(0);
        let abi = abi_enum(kernel);
        let built = build_ruleset(
            &policy.grants(),
            abi,
            !policy.net_allowed,
            &policy.listen_ports,
        )
        .map_err(cannot)?;
        let layout = denies::layout(&denies::Request::of(
            &policy.write_roots,
            Some(&policy.temp_dir),
            &policy.read_roots,
            &policy.system,
            &policy.denies,
        ))
        .map_err(cannot)?;
        // With `/` writable and nothing denied there is nothing to mount.
        if layout.needs_namespace() {
            let template = mounts::template(&layout).map_err(|e| {
                cannot(format!("cannot prepare the read-only mount namespace: {e}"))
            })?;
            setup.mounts = Some(template);
            setup.cwd = vec![0; libc::PATH_MAX as usize + 1];
            if !layout.root_writable() {
                kinds.push(RuleKind::ReadOnlyMounts);
            }
            if !layout.layers.is_empty() {
                kinds.push(RuleKind::DenyMounts);
            }
        }
        setup.ipcns = true;
        kinds.push(RuleKind::IpcNamespace);
        // SAFETY: plain id getters.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        setup.uid_map = format!("{uid} {uid} 1\n").into_bytes();
        setup.gid_map = format!("{gid} {gid} 1\n").into_bytes();
        // Listening children keep the host's network (others could not reach them otherwise);
        // Landlock and the filter then bound what they do with it.
        let net = if policy.net_allowed {
            seccomp::Net::Open
        } else if policy.listen_ports.is_empty() {
            seccomp::Net::Off
        } else {
            seccomp::Net::Listen
        };
        if net == seccomp::Net::Off {
            setup.netns = true;
            kinds.push(RuleKind::NetworkNamespace);
        }
        setup.seccomp = Some(seccomp::filters(net).map_err(cannot)?);
        if built.own_proc {
            setup.own_proc_access = grant_access(FsAccess::OwnProc, abi, true).bits();
        }
        setup.tty_access = grant_access(FsAccess::Terminal, abi, false).bits();
        let fd: Option<OwnedFd> = built.ruleset.into();
        let Some(fd) = fd else {
            return Err(cannot(
                "the Landlock ruleset was not created (kernel support vanished?)".to_string(),
            ));
        };
        setup.ruleset = Some(fd);
        kinds.push(RuleKind::DropCapabilities);
        kinds.push(RuleKind::NoNewPrivs);
        kinds.extend(built.kinds);
        kinds.push(RuleKind::Seccomp);
        if !policy.net_allowed {
            kinds.push(RuleKind::NoUnixSockets);
        }
        kinds.push(RuleKind::CloseDescriptors);
        landlock_abi = Some(kernel.min(TESTED_ABI));
    }
    // Nothing can fail from here on: only now is the command changed.
    cmd.env_clear();
    cmd.envs(child_env(std::env::vars_os(), &policy.env));
    if policy.process_group == ProcessGroup::Own && (kept || !setup.leave_terminal) {
        cmd.process_group(0);
    }
    if setup.leave_terminal {
        kinds.push(RuleKind::NewSessionNoTty);
    }
    // SAFETY (of calling it): the hook only makes async-signal-safe syscalls on data prepared
    // above; it is meant for a forked child, between fork and exec.
    let hook: Hook = Box::new(move || unsafe { setup.apply() });
    Ok((
        Applied {
            mode,
            landlock_abi,
            kinds,
        },
        hook,
    ))
}

pub(crate) fn confine_self(policy: &SelfPolicy) -> Result<Applied, JailError> {
    let cannot = |reason: String| JailError::CannotConfineSelf { reason };
    let support = probe();
    let Some(kernel) = support.landlock_abi else {
        let why = support.landlock_missing.unwrap_or_default();
        return Err(cannot(format!(
            "Landlock is not available on this host ({why})"
        )));
    };
    if !policy.net_allowed && !support.tcp_rules {
        return Err(cannot(format!(
            "the network is off but Landlock ABI {kernel} has no network rules \
             (needs ABI 4, Linux 6.7 or newer)"
        )));
    }
    let abi = abi_enum(kernel);
    let built = build_ruleset(
        &policy.grants(),
        abi,
        !policy.net_allowed,
        &policy.listen_ports,
    )
    .map_err(cannot)?;
    // Children's read-only mount namespace: Landlock forbids mounting once confined, so it is
    // built now, for the places children may write (a failure is reported at their spawn).
    if support.user_namespaces {
        let layout = denies::layout(&denies::Request::of(
            &policy.write_roots,
            policy.temp_dir.as_deref(),
            &policy.read_roots,
            &policy.system,
            &policy.denies,
        ));
        // A layout children cannot have is refused at their spawn, with the same reason.
        if let Some(layout) = layout.ok().filter(|l| l.needs_namespace()) {
            mounts::prepare(&layout);
        }
    }
    let mut kinds = vec![RuleKind::NoNewPrivs];
    kinds.extend(built.kinds);
    let mut ruleset = built.ruleset;
    if kernel >= 8 {
        ruleset = ruleset
            .all_threads(true)
            .map_err(|e| cannot(format!("cannot restrict all threads: {e}")))?;
        kinds.push(RuleKind::AllThreads);
    }
    let status = ruleset
        .restrict_self()
        .map_err(|e| cannot(format!("landlock_restrict_self failed: {e}")))?;
    SELF_CONFINED.store(true, Ordering::Relaxed);
    if status.ruleset != RulesetStatus::FullyEnforced {
        return Err(cannot(format!(
            "the Landlock ruleset was not fully enforced ({:?})",
            status.ruleset
        )));
    }
    Ok(Applied {
        mode: Mode::Confined,
        landlock_abi: Some(kernel.min(TESTED_ABI)),
        kinds,
    })
}
