//! The plain data the jail takes and reports: the [`Mode`] of a spawn, why confinement was refused
//! ([`JailError`]), what was applied ([`Applied`], [`RuleKind`]) and the [`Hook`] a child runs
//! between fork and exec.

use std::fmt;

/// Whether [`confine_command`](crate::confine_command) must enforce the policy or only apply the cheap parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Enforce the whole policy; refuse the spawn if the host cannot.
    Confined,
    /// The explicit opt-out (`--unconfined-children`): only the environment scrub, resource
    /// limits and process group apply; no Landlock, no network namespace.
    Unconfined,
}

/// Why confinement was refused or could not be set up.
#[derive(Debug)]
pub enum JailError {
    /// The host cannot enforce what the child policy needs (fail closed).
    CannotConfine { reason: String },
    /// The host cannot enforce what the interpreter's own policy needs.
    CannotConfineSelf { reason: String },
}

impl JailError {
    /// The reason without the `cannot confine …:` prefix.
    pub fn reason(&self) -> &str {
        match self {
            JailError::CannotConfine { reason } | JailError::CannotConfineSelf { reason } => reason,
        }
    }
}

impl fmt::Display for JailError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JailError::CannotConfine { reason } => write!(f, "cannot confine child: {reason}"),
            JailError::CannotConfineSelf { reason } => {
                write!(f, "cannot confine the interpreter: {reason}")
            }
        }
    }
}

impl std::error::Error for JailError {}

/// One kind of restriction that was (or will be, at spawn) applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// The environment was rebuilt from the allowlist ([`child_env`](crate::child_env)).
    EnvScrub,
    /// The child gets its own process group.
    ProcessGroup,
    /// The child starts a new session (`setsid`) and is a child subreaper, so what it starts
    /// stays beneath it ([`lifetime`](crate::lifetime)).
    NewSession,
    /// `RLIMIT_DATA` set to this many bytes.
    RlimitData(u64),
    /// `RLIMIT_FSIZE` set to this many bytes.
    RlimitFsize(u64),
    /// `RLIMIT_CORE` set to 0 (no core dumps outside the quota) — confined children only.
    RlimitCoreZero,
    /// Every capability dropped, the bounding set included (confined children only): a child
    /// of a root interpreter cannot create device nodes, raise its limits, reconfigure the
    /// network, … (Landlock does not cover what capabilities allow).
    DropCapabilities,
    /// `PR_SET_NO_NEW_PRIVS` (setuid binaries cannot gain privileges).
    NoNewPrivs,
    /// Landlock filesystem rules (read/exec on read roots, read-write on write roots).
    LandlockFs,
    /// A user and mount namespace in which every mount is read-only except the write roots and
    /// the temp dir: no `chmod`, `touch`, `setxattr` elsewhere (Landlock does not cover them).
    ReadOnlyMounts,
    /// Mounts for the denies inside the grants: read-only subtrees of writable places, masked
    /// files and directories, no-exec places ([`Denies`](crate::Denies)).
    DenyMounts,
    /// Landlock denies TCP bind and connect (ABI ≥ 4).
    LandlockTcp,
    /// With the network off, binding these TCP ports is allowed (`net:listen=`): the child keeps
    /// the host's network, and the filter refuses every socket but TCP over IPv4 and IPv6.
    InboundTcp(Vec<u16>),
    /// A fresh, empty network namespace (covers every socket family: UDP, raw, netlink, …).
    NetworkNamespace,
    /// Landlock scoping: no connecting to abstract unix sockets outside the sandbox (ABI ≥ 6).
    ScopeAbstractUnix,
    /// Landlock scoping: no signals to processes outside the sandbox (ABI ≥ 6).
    ScopeSignal,
    /// A fresh IPC namespace: no SysV shared memory, semaphores or message queues of the host,
    /// and the child's own vanish with it.
    IpcNamespace,
    /// The seccomp filter ([`seccomp`](crate::seccomp)): no terminal injection, no setuid/setgid bits, no new
    /// namespaces or mounts, no `perf_event_open`, `bpf`, `userfaultfd`, keyrings, `io_uring`.
    Seccomp,
    /// With the network off, the filter also refuses unix (and every non-IP) socket.
    NoUnixSockets,
    /// A captured child starts a session of its own: no controlling terminal.
    NewSessionNoTty,
    /// Every descriptor but the standard streams is closed at `exec`.
    CloseDescriptors,
    /// The Landlock domain covers every thread of the process (ABI ≥ 8; `confine_self` only).
    AllThreads,
}

impl fmt::Display for RuleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleKind::EnvScrub => f.write_str("env-scrub"),
            RuleKind::ProcessGroup => f.write_str("process-group"),
            RuleKind::NewSession => f.write_str("new-session"),
            RuleKind::RlimitData(n) => write!(f, "rlimit-data={n}"),
            RuleKind::RlimitFsize(n) => write!(f, "rlimit-fsize={n}"),
            RuleKind::RlimitCoreZero => f.write_str("rlimit-core=0"),
            RuleKind::DropCapabilities => f.write_str("drop-caps"),
            RuleKind::NoNewPrivs => f.write_str("no-new-privs"),
            RuleKind::LandlockFs => f.write_str("landlock-fs"),
            RuleKind::ReadOnlyMounts => f.write_str("ro-mounts"),
            RuleKind::DenyMounts => f.write_str("deny-mounts"),
            RuleKind::LandlockTcp => f.write_str("landlock-tcp"),
            RuleKind::InboundTcp(ports) => {
                let ports: Vec<String> = ports.iter().map(u16::to_string).collect();
                write!(f, "inbound-tcp={}", ports.join(","))
            }
            RuleKind::NetworkNamespace => f.write_str("netns"),
            RuleKind::ScopeAbstractUnix => f.write_str("scope-abstract-unix"),
            RuleKind::ScopeSignal => f.write_str("scope-signal"),
            RuleKind::IpcNamespace => f.write_str("ipcns"),
            RuleKind::Seccomp => f.write_str("seccomp"),
            RuleKind::NoUnixSockets => f.write_str("no-unix-sockets"),
            RuleKind::NewSessionNoTty => f.write_str("new-session-no-tty"),
            RuleKind::CloseDescriptors => f.write_str("close-fds"),
            RuleKind::AllThreads => f.write_str("all-threads"),
        }
    }
}

/// What [`confine_command`](crate::confine_command) / [`confine_self`](crate::confine_self) applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The mode that was honoured.
    pub mode: Mode,
    /// The Landlock ABI the rules were written for (`None` when no Landlock was used).
    pub landlock_abi: Option<u32>,
    /// The restrictions, in the order they take effect.
    pub kinds: Vec<RuleKind>,
}

impl Applied {
    /// Whether a restriction of this kind was applied.
    pub fn has(&self, kind: &RuleKind) -> bool {
        self.kinds.contains(kind)
    }

    /// One line for `--verbose`: `landlock ABI 7: landlock-fs, landlock-tcp, netns, …`.
    pub fn describe(&self) -> String {
        let kinds: Vec<String> = self.kinds.iter().map(ToString::to_string).collect();
        match (self.mode, self.landlock_abi) {
            (Mode::Unconfined, _) => format!("unconfined (opt-out): {}", kinds.join(", ")),
            (Mode::Confined, Some(abi)) => format!("landlock ABI {abi}: {}", kinds.join(", ")),
            (Mode::Confined, None) => kinds.join(", "),
        }
    }
}

/// What runs in a child between fork and exec (syscalls only): the jail's setup, for
/// [`lifetime::guard`](crate::lifetime::guard) to run in the program rather than in its keeper.
pub type Hook = Box<dyn FnMut() -> std::io::Result<()> + Send + Sync>;
