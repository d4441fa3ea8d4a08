//! The system-call filter of every confined child (seccomp; the programs are compiled by the
//! `seccompiler` crate, never written by hand).
//!
//! Landlock and the namespaces decide *where* a child may go; a few system calls act on things
//! no path rule names. The filter refuses them, the way bubblewrap, systemd and Docker do:
//!
//! - **the terminal**: `ioctl(TIOCSTI)` pushes characters into a terminal's input queue (the
//!   user's shell would run them once `vox` exits: bubblewrap CVE-2017-5226) and
//!   `ioctl(TIOCLINUX)` can do the same on a virtual console. Refused on any descriptor.
//! - **setuid and setgid bits** (systemd's `RestrictSUIDSGID=`): `chmod`, `fchmod`, `fchmodat`,
//!   `fchmodat2` with `S_ISUID`/`S_ISGID` in the mode, and creating a file or directory with
//!   them (`open`/`openat` with `O_CREAT` or `O_TMPFILE`, `creat`, `mkdir`, `mkdirat`, `mknod`,
//!   `mknodat`). A child of a root interpreter owns what it creates in its `fs:rw` roots and could
//!   otherwise plant a root-owned setuid program there.
//! - **namespaces and mounts** (systemd's `RestrictNamespaces=`, Docker's default profile):
//!   `unshare`, `setns`, `clone` with a `CLONE_NEW*` flag, and the mount calls. Landlock already
//!   refuses mounts; new namespaces would only widen the kernel's attack surface.
//! - **kernel interfaces a script never needs**: `perf_event_open`, `bpf`, `userfaultfd`, the
//!   key-management calls (`keyctl`, `add_key`, `request_key`: keyrings are not namespaced, so a
//!   child could read the user's session keys) and `io_uring` (its operations bypass seccomp).
//! - **with the network off**: `socket` for any family but `AF_INET`, `AF_INET6` and
//!   `AF_NETLINK` (which the child's empty network namespace contains). So no unix socket can be
//!   created (a pathname unix socket is reached by path, which neither Landlock ABI 7 nor the
//!   network namespace checks: the docker or D-Bus socket), no `AF_VSOCK` (not namespaced: a
//!   virtual machine's host), no packet or Bluetooth socket. `socketpair` stays: it makes a
//!   connected pair and reaches nothing.
//!
//! Calls whose arguments live in memory the filter cannot read are refused with `ENOSYS`, so that
//! the C library falls back to the older call the filter does check: `clone3` (to `clone`) and
//! `openat2` (to `openat`).
//!
//! On an x86-64 kernel that runs x32 programs, the x32 numbers of the refused calls are refused
//! too (they share the architecture tag); elsewhere the kernel refuses them all (`ENOSYS`). A process of another architecture (i386) is killed by the architecture check that
//! `seccompiler` puts first: systemd's `SystemCallArchitectures=native`.

use std::collections::BTreeMap;
use std::io;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};

/// What the filter refuses, by name, for `--verbose`, `vox doctor` and the docs.
pub const REFUSED: &[&str] = &[
    "ioctl(TIOCSTI)",
    "ioctl(TIOCLINUX)",
    "setuid/setgid mode bits",
    "unshare",
    "setns",
    "clone(CLONE_NEW*)",
    "mount",
    "perf_event_open",
    "bpf",
    "userfaultfd",
    "keyctl",
    "io_uring",
];

#[cfg(target_arch = "x86_64")]
const ARCH: TargetArch = TargetArch::x86_64;
#[cfg(target_arch = "aarch64")]
const ARCH: TargetArch = TargetArch::aarch64;
#[cfg(target_arch = "riscv64")]
const ARCH: TargetArch = TargetArch::riscv64;

const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541C;
const S_ISUID: u64 = 0o4000;
const S_ISGID: u64 = 0o2000;
/// `__O_TMPFILE` (an unnamed file: created, so its mode counts too).
const O_TMPFILE_BIT: u64 = 0o20_000_000;

/// The compiled filters of one kind of child, installed one after another (each with its own
/// errno).
pub(crate) struct Filters {
    programs: Vec<BpfProgram>,
}

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

fn cond(arg: u8, op: Op, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, Len::Dword, op, value).map_err(|e| e.to_string())
}

fn rule(conds: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conds).map_err(|e| e.to_string())
}

/// Rules matching a mode argument (`arg`) with the setuid or the setgid bit, optionally only
/// when the flags argument (`flags_arg`) creates a file.
fn suid_mode(arg: u8, creating: Option<u8>) -> Result<Vec<SeccompRule>, String> {
    let mut out = Vec::new();
    for bit in [S_ISUID, S_ISGID] {
        match creating {
            None => out.push(rule(vec![cond(arg, Op::MaskedEq(bit), bit)?])?),
            Some(flags) => {
                for create in [libc::O_CREAT as u64, O_TMPFILE_BIT] {
                    out.push(rule(vec![
                        cond(flags, Op::MaskedEq(create), create)?,
                        cond(arg, Op::MaskedEq(bit), bit)?,
                    ])?);
                }
            }
        }
    }
    Ok(out)
}

/// Adds `rules` for `nr` and, on an x86-64 kernel that runs x32 programs, for its x32 number.
fn add(map: &mut Rules, nr: libc::c_long, rules: Vec<SeccompRule>) {
    #[cfg(target_arch = "x86_64")]
    if x32_enabled() {
        map.insert(nr | X32, rules.clone());
    }
    map.insert(nr, rules);
}

#[cfg(target_arch = "x86_64")]
const X32: i64 = 0x4000_0000;

/// Whether this kernel runs x32 system calls (`CONFIG_X86_X32_ABI`, off in most distributions'
/// kernels): where it does not, they fail with `ENOSYS` anyway, and leaving their rules out halves
/// the filter (every installation of a filter and every filtered call pays for its length).
#[cfg(target_arch = "x86_64")]
fn x32_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    // SAFETY: getpid through its x32 number: no argument, no effect.
    *ON.get_or_init(|| unsafe {
        libc::syscall(X32 as libc::c_long | libc::SYS_getpid) >= 0
            || *libc::__errno_location() != libc::ENOSYS
    })
}

/// Calls refused with `EPERM`.
fn eperm_rules() -> Result<Rules, String> {
    let mut m = Rules::new();
    let tty = vec![
        rule(vec![cond(1, Op::Eq, TIOCSTI)?])?,
        rule(vec![cond(1, Op::Eq, TIOCLINUX)?])?,
    ];
    // x32's ioctl has a number of its own (514).
    #[cfg(target_arch = "x86_64")]
    if x32_enabled() {
        m.insert(514 | X32, tty.clone());
    }
    add(&mut m, libc::SYS_ioctl, tty);
    #[cfg(target_arch = "x86_64")]
    {
        add(&mut m, libc::SYS_chmod, suid_mode(1, None)?);
        add(&mut m, libc::SYS_open, suid_mode(2, Some(1))?);
        add(&mut m, libc::SYS_creat, suid_mode(1, None)?);
        add(&mut m, libc::SYS_mkdir, suid_mode(1, None)?);
        add(&mut m, libc::SYS_mknod, suid_mode(1, None)?);
    }
    add(&mut m, libc::SYS_fchmod, suid_mode(1, None)?);
    add(&mut m, libc::SYS_fchmodat, suid_mode(2, None)?);
    add(&mut m, libc::SYS_fchmodat2, suid_mode(2, None)?);
    add(&mut m, libc::SYS_openat, suid_mode(3, Some(2))?);
    add(&mut m, libc::SYS_mkdirat, suid_mode(2, None)?);
    add(&mut m, libc::SYS_mknodat, suid_mode(2, None)?);
    let mut new_ns = Vec::new();
    for flag in [
        libc::CLONE_NEWNS,
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWCGROUP,
    ] {
        let flag = flag as u64;
        new_ns.push(rule(vec![cond(0, Op::MaskedEq(flag), flag)?])?);
    }
    add(&mut m, libc::SYS_clone, new_ns);
    for nr in [
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_perf_event_open,
        libc::SYS_bpf,
        libc::SYS_userfaultfd,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        add(&mut m, nr, Vec::new());
    }
    Ok(m)
}

/// Calls refused with `ENOSYS`: their arguments are out of the filter's sight, and the C library
/// falls back to a call it checks.
fn enosys_rules() -> Rules {
    let mut m = Rules::new();
    add(&mut m, libc::SYS_clone3, Vec::new());
    add(&mut m, libc::SYS_openat2, Vec::new());
    m
}

/// With the network off: `socket` for a family outside the empty network namespace, `EACCES`.
fn net_off_rules() -> Result<Rules, String> {
    let mut m = Rules::new();
    let families = [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK]
        .into_iter()
        .map(|f| cond(0, Op::Ne, f as u64))
        .collect::<Result<Vec<_>, _>>()?;
    add(&mut m, libc::SYS_socket, vec![rule(families)?]);
    Ok(m)
}

/// With the network off but `net:listen=` ports (the host's network, no namespace): every
/// `socket` but TCP over IPv4 and IPv6 (`SOCK_STREAM`, protocol 0 or `IPPROTO_TCP`), so no UDP,
/// raw, netlink, SCTP, MPTCP or unix socket; and TCP fast open (`MSG_FASTOPEN`), a connect made
/// by `sendto`/`sendmsg`. Landlock refuses `connect` and `bind` on any other port. `EACCES`.
fn listen_rules() -> Result<Rules, String> {
    let mut m = Rules::new();
    let families = [libc::AF_INET, libc::AF_INET6]
        .into_iter()
        .map(|f| cond(0, Op::Ne, f as u64))
        .collect::<Result<Vec<_>, _>>()?;
    let mut socket = vec![rule(families)?];
    // The type's low bits (`SOCK_NONBLOCK` and `SOCK_CLOEXEC` are flags above them).
    for t in 0..16u64 {
        if t != libc::SOCK_STREAM as u64 {
            socket.push(rule(vec![cond(1, Op::MaskedEq(0xf), t)?])?);
        }
    }
    socket.push(rule(vec![
        cond(2, Op::Ne, 0)?,
        cond(2, Op::Ne, libc::IPPROTO_TCP as u64)?,
    ])?);
    add(&mut m, libc::SYS_socket, socket);
    let fastopen = libc::MSG_FASTOPEN as u64;
    add(
        &mut m,
        libc::SYS_sendto,
        vec![rule(vec![cond(3, Op::MaskedEq(fastopen), fastopen)?])?],
    );
    add(
        &mut m,
        libc::SYS_sendmsg,
        vec![rule(vec![cond(2, Op::MaskedEq(fastopen), fastopen)?])?],
    );
    add(
        &mut m,
        libc::SYS_sendmmsg,
        vec![rule(vec![cond(3, Op::MaskedEq(fastopen), fastopen)?])?],
    );
    Ok(m)
}

/// What a child may do with the network, as far as the filter is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Net {
    /// `net:allow`.
    Open,
    /// The network off, in an empty network namespace.
    Off,
    /// The network off but `net:listen=` ports: the host's network, TCP only.
    Listen,
}

fn compile(rules: Rules, errno: i32) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        ARCH,
    )
    .map_err(|e| e.to_string())?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
}

fn build(net: Net) -> Result<Filters, String> {
    let mut programs = vec![
        compile(eperm_rules()?, libc::EPERM)?,
        compile(enosys_rules(), libc::ENOSYS)?,
    ];
    match net {
        Net::Open => {}
        Net::Off => programs.push(compile(net_off_rules()?, libc::EACCES)?),
        Net::Listen => programs.push(compile(listen_rules()?, libc::EACCES)?),
    }
    Ok(Filters { programs })
}

/// The filters for a child with the network on, off or listening, compiled once per process.
pub(crate) fn filters(net: Net) -> Result<&'static Filters, String> {
    static ON: OnceLock<Result<Filters, String>> = OnceLock::new();
    static OFF: OnceLock<Result<Filters, String>> = OnceLock::new();
    static LISTEN: OnceLock<Result<Filters, String>> = OnceLock::new();
    let cell = match net {
        Net::Open => &ON,
        Net::Off => &OFF,
        Net::Listen => &LISTEN,
    };
    cell.get_or_init(|| build(net))
        .as_ref()
        .map_err(|e| format!("cannot compile the seccomp filter: {e}"))
}

impl Filters {
    /// Installs the filters on the calling thread (needs `no_new_privs`, set before).
    ///
    /// # Safety
    /// Syscalls only (no allocation): may run between `fork` and `exec`.
    pub(crate) unsafe fn install(&self) -> io::Result<()> {
        for p in &self.programs {
            if seccompiler::apply_filter(p).is_err() {
                let e = io::Error::last_os_error();
                return Err(if e.raw_os_error().unwrap_or(0) > 0 {
                    e
                } else {
                    io::Error::from_raw_os_error(libc::EINVAL)
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_kinds_compile() {
        assert_eq!(filters(Net::Open).unwrap().programs.len(), 2);
        assert_eq!(filters(Net::Off).unwrap().programs.len(), 3);
        assert_eq!(filters(Net::Listen).unwrap().programs.len(), 3);
    }
}
