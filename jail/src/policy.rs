//! Policy values: what a child (or the interpreter) may touch. Plain data, computed per spawn.

use std::path::{Path, PathBuf};

use crate::env::EnvPolicy;

/// The access a [`Grant`] gives beneath its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsAccess {
    /// Read files, list directories, execute files.
    ReadExec,
    /// Read files and list directories (no execution).
    Read,
    /// Everything: read, execute, write, create, remove, rename, truncate, device ioctls.
    ReadWrite,
    /// A device file that may be opened for reading and writing (`/dev/null`).
    Device,
    /// A terminal: read, write and terminal ioctls (`/dev/tty`).
    Terminal,
    /// The child's own `/proc/<pid>` (what `/proc/self` means to it), read-only. Resolved in the
    /// child itself, since the parent cannot name it before the fork; `/dev/fd` points into it.
    OwnProc,
}

/// One path and what may be done beneath it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub path: PathBuf,
    pub access: FsAccess,
}

impl Grant {
    fn new(path: impl Into<PathBuf>, access: FsAccess) -> Grant {
        Grant {
            path: path.into(),
            access,
        }
    }
}

/// Whether a child gets its own process group (decisions 24).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessGroup {
    /// Its own group (captured children), so `--timeout` can kill the whole group.
    Own,
    /// Stay in the terminal's foreground group (`run_ex`, `exec`); the interpreter forwards
    /// SIGINT/SIGTERM.
    Inherit,
    /// A new session (`setsid`), for `spawn_background`.
    Session,
}

/// Everything a confined child may do, computed per spawn from the run's capabilities.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildPolicy {
    /// Directories readable (and executable) beneath (`fs:ro=` and `fs:rw=` roots).
    pub read_roots: Vec<PathBuf>,
    /// Directories writable beneath (`fs:rw=` roots).
    pub write_roots: Vec<PathBuf>,
    /// Extra readable and executable places (the resolved program's directory).
    pub exec_paths: Vec<PathBuf>,
    /// `net:allow`: the child's network is left open.
    pub net_allowed: bool,
    /// `net:listen=` ports: with the network off, the child shares the host's network (no
    /// network namespace) and may bind these TCP ports, and nothing else: no connecting, no other
    /// port, no other socket family or type.
    pub listen_ports: Vec<u16>,
    /// The private temp dir of the run (read-write; `TMPDIR` points to it).
    pub temp_dir: PathBuf,
    /// `RLIMIT_DATA` in bytes (`--max-memory`); `None` leaves the limit alone.
    pub rlimit_data: Option<u64>,
    /// `RLIMIT_FSIZE` in bytes (`--max-disk`); `None` leaves the limit alone.
    pub rlimit_fsize: Option<u64>,
    /// How the child's environment is built.
    pub env: EnvPolicy,
    /// Own process group or the terminal's.
    pub process_group: ProcessGroup,
    /// System code, config, devices and `/proc/self` that every child may use; filled by
    /// [`ChildPolicy::new`] with the entries that exist on this host.
    pub system: Vec<Grant>,
    /// The denies that narrow the grants ([`Denies`]).
    pub denies: Denies,
}

/// What Landlock cannot subtract from a granted tree, taken away by the children's mount
/// namespace instead (issue 39): paths as the capabilities resolved them (symlinks followed).
/// A deny outside every grant needs nothing; one a child could reach must exist when the
/// namespace is built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Denies {
    /// Subtrees of writable places that stay read-only (`fs:ro=` inside `fs:rw=`).
    pub write: Vec<PathBuf>,
    /// Files and directories masked: neither readable nor writable (`fs:none=`).
    pub read: Vec<PathBuf>,
    /// Files and directories that may be read but never executed (`exec:none=`).
    pub exec: Vec<PathBuf>,
}

impl Denies {
    /// Whether there is nothing to deny.
    pub fn is_empty(&self) -> bool {
        self.write.is_empty() && self.read.is_empty() && self.exec.is_empty()
    }
}

impl ChildPolicy {
    /// A policy with the system grants of `runtime.md` §4 and decisions 25: read/exec on `/usr`,
    /// `/lib*`, `/bin`, `/sbin`, `/etc`; `/dev/null` read-write; `/dev/zero`, `/dev/urandom`,
    /// `/dev/random` readable; `/dev/tty` as a terminal; `/dev/fd` and `/proc/self` (the child's
    /// own process entry). With `net_allowed`, also the resolver configuration and CA
    /// certificates (symlink targets such as `/run/systemd/resolve/stub-resolv.conf` included).
    /// Paths that do not exist are skipped. `env`'s `TMPDIR` is set to `temp_dir`.
    pub fn new(
        read_roots: Vec<PathBuf>,
        write_roots: Vec<PathBuf>,
        net_allowed: bool,
        temp_dir: &Path,
        mut env: EnvPolicy,
    ) -> ChildPolicy {
        env.tmpdir = Some(temp_dir.to_path_buf());
        let mut system = system_grants();
        if net_allowed {
            system.extend(net_config_grants());
        }
        ChildPolicy {
            read_roots,
            write_roots,
            exec_paths: Vec::new(),
            net_allowed,
            listen_ports: Vec::new(),
            temp_dir: temp_dir.to_path_buf(),
            rlimit_data: None,
            rlimit_fsize: None,
            env,
            process_group: ProcessGroup::Own,
            system,
            denies: Denies::default(),
        }
    }

    /// Narrows the grants with `denies`.
    pub fn with_denies(mut self, denies: Denies) -> ChildPolicy {
        self.denies = denies;
        self
    }

    /// Lets the child accept connections on these TCP ports (`net:listen=`).
    pub fn with_listen_ports(mut self, ports: &[u16]) -> ChildPolicy {
        self.listen_ports = ports.to_vec();
        self
    }

    /// Adds a readable and executable place (typically the resolved program's directory).
    pub fn with_exec_path(mut self, dir: impl Into<PathBuf>) -> ChildPolicy {
        self.exec_paths.push(dir.into());
        self
    }

    /// Sets `RLIMIT_DATA` (`--max-memory`); `Some(0)` means unlimited, as for every ceiling.
    pub fn with_rlimit_data(mut self, bytes: Option<u64>) -> ChildPolicy {
        self.rlimit_data = bytes.filter(|&b| b > 0);
        self
    }

    /// Sets `RLIMIT_FSIZE` (`--max-disk`); `Some(0)` means unlimited.
    pub fn with_rlimit_fsize(mut self, bytes: Option<u64>) -> ChildPolicy {
        self.rlimit_fsize = bytes.filter(|&b| b > 0);
        self
    }

    /// Chooses between an own process group and the terminal's foreground group.
    pub fn with_process_group(mut self, group: ProcessGroup) -> ChildPolicy {
        self.process_group = group;
        self
    }

    /// Every filesystem grant of this policy: system, read roots, exec paths, write roots and
    /// the temp dir.
    pub fn grants(&self) -> Vec<Grant> {
        let mut out = root_grants(
            &self.system,
            &self.read_roots,
            &self.exec_paths,
            &self.write_roots,
        );
        out.push(Grant::new(&self.temp_dir, FsAccess::ReadWrite));
        out
    }
}

/// The interpreter's own policy ([`crate::confine_self`], decisions 25).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfPolicy {
    /// Directories readable beneath.
    pub read_roots: Vec<PathBuf>,
    /// Directories writable beneath.
    pub write_roots: Vec<PathBuf>,
    /// Places children may be executed from besides system paths and roots (e.g. `PATH`
    /// entries): a child can never do more than its parent's domain allows.
    pub exec_paths: Vec<PathBuf>,
    /// Whether the interpreter may use TCP.
    pub net_allowed: bool,
    /// `net:listen=` ports its children may bind (a child's domain is nested in this one).
    pub listen_ports: Vec<u16>,
    /// The run's private temp dir, if one exists yet.
    pub temp_dir: Option<PathBuf>,
    /// System grants, filled by [`SelfPolicy::new`].
    pub system: Vec<Grant>,
    /// The denies of the run: the interpreter's own checks enforce them on itself; they are
    /// here so that the children's mount namespace, built before confinement, holds them.
    pub denies: Denies,
}

impl SelfPolicy {
    /// A policy with the system grants of [`ChildPolicy::new`], plus read-only `/proc` (so that
    /// jailed children, whose pids are not known yet, can still read their own `/proc/self`;
    /// each child's own domain narrows it again) and, with `net_allowed`, the resolver
    /// configuration and CA certificates.
    pub fn new(read_roots: Vec<PathBuf>, write_roots: Vec<PathBuf>, net_allowed: bool) -> Self {
        let mut system: Vec<Grant> = system_grants()
            .into_iter()
            .filter(|g| g.access != FsAccess::OwnProc)
            .collect();
        if exists(Path::new("/proc")) {
            system.push(Grant::new("/proc", FsAccess::Read));
        }
        if net_allowed {
            system.extend(net_config_grants());
        }
        SelfPolicy {
            read_roots,
            write_roots,
            exec_paths: Vec::new(),
            net_allowed,
            listen_ports: Vec::new(),
            temp_dir: None,
            system,
            denies: Denies::default(),
        }
    }

    /// The run's denies, for the children's mount namespace built before confinement.
    pub fn with_denies(mut self, denies: Denies) -> SelfPolicy {
        self.denies = denies;
        self
    }

    /// The `net:listen=` ports children may bind.
    pub fn with_listen_ports(mut self, ports: &[u16]) -> SelfPolicy {
        self.listen_ports = ports.to_vec();
        self
    }

    /// Adds a place children may be executed from.
    pub fn with_exec_path(mut self, dir: impl Into<PathBuf>) -> SelfPolicy {
        self.exec_paths.push(dir.into());
        self
    }

    /// Adds the run's private temp dir (read-write).
    pub fn with_temp_dir(mut self, dir: impl Into<PathBuf>) -> SelfPolicy {
        self.temp_dir = Some(dir.into());
        self
    }

    /// Every filesystem grant of this policy.
    pub fn grants(&self) -> Vec<Grant> {
        let mut out = root_grants(
            &self.system,
            &self.read_roots,
            &self.exec_paths,
            &self.write_roots,
        );
        if let Some(t) = &self.temp_dir {
            out.push(Grant::new(t, FsAccess::ReadWrite));
        }
        out
    }
}

/// The grants both policies share: system grants, then read roots and exec paths (read and
/// execute), then write roots (read and write).
fn root_grants(
    system: &[Grant],
    read: &[PathBuf],
    exec: &[PathBuf],
    write: &[PathBuf],
) -> Vec<Grant> {
    let mut out = system.to_vec();
    out.extend(
        read.iter()
            .chain(exec)
            .map(|p| Grant::new(p, FsAccess::ReadExec)),
    );
    out.extend(write.iter().map(|p| Grant::new(p, FsAccess::ReadWrite)));
    out
}

/// The system places children may read and execute (code and `/etc`): a deny beneath one needs
/// a mount even outside every root.
pub(crate) fn system_code(system: &[Grant]) -> impl Iterator<Item = &Path> {
    system
        .iter()
        .filter(|g| g.access == FsAccess::ReadExec)
        .map(|g| g.path.as_path())
}

fn exists(p: &Path) -> bool {
    // symlink_metadata: a dangling `/dev/fd` link still counts; the rule itself follows links.
    p.symlink_metadata().is_ok()
}

/// System code and config, devices and `/proc/self`, skipping what does not exist.
fn system_grants() -> Vec<Grant> {
    let mut out = Vec::new();
    let mut code: Vec<PathBuf> = vec!["/usr".into(), "/bin".into(), "/sbin".into(), "/etc".into()];
    // `/lib*`: /lib, /lib32, /lib64, /libx32, … whatever this host has.
    if let Ok(entries) = std::fs::read_dir("/") {
        let mut libs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("lib"))
            .map(|e| e.path())
            .collect();
        libs.sort();
        code.extend(libs);
    }
    for p in code {
        if exists(&p) {
            out.push(Grant::new(p, FsAccess::ReadExec));
        }
    }
    let devices = [
        ("/dev/null", FsAccess::Device),
        ("/dev/zero", FsAccess::Read),
        ("/dev/urandom", FsAccess::Read),
        ("/dev/random", FsAccess::Read),
        ("/dev/tty", FsAccess::Terminal),
        ("/dev/fd", FsAccess::OwnProc),
        ("/proc/self", FsAccess::OwnProc),
    ];
    for (p, access) in devices {
        if exists(Path::new(p)) {
            out.push(Grant::new(p, access));
        }
    }
    out
}

/// Resolver configuration and CA certificates, needed when the network is on.
fn net_config_grants() -> Vec<Grant> {
    [
        "/etc/resolv.conf",
        "/etc/hosts",
        "/etc/nsswitch.conf",
        "/etc/gai.conf",
        "/etc/ssl",
        "/etc/pki",
        "/etc/ca-certificates",
        "/usr/share/ca-certificates",
        "/usr/local/share/ca-certificates",
        "/var/lib/ca-certificates",
    ]
    .into_iter()
    .map(Path::new)
    .filter(|p| p.exists())
    .map(|p| Grant::new(p, FsAccess::Read))
    .collect()
}
