//! What this host can enforce ([`HostSupport`], filled in by the platform's probe) and the testing
//! hook that makes it report less ([`SIMULATE_ENV`]).

/// Name of the testing hook that makes the probe report missing host support.
pub const SIMULATE_ENV: &str = "VOX_JAIL_SIMULATE_UNSUPPORTED";

/// What this host can enforce ([`probe`](crate::probe)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostSupport {
    /// Whether this platform has a jail implementation at all (Linux only).
    pub platform_supported: bool,
    /// The Landlock ABI version the kernel offers, if any.
    pub landlock_abi: Option<u32>,
    /// Why Landlock is unavailable (when `landlock_abi` is `None`).
    pub landlock_missing: Option<String>,
    /// Filesystem rules are available (ABI ≥ 1).
    pub fs_rules: bool,
    /// TCP bind/connect rules are available (ABI ≥ 4).
    pub tcp_rules: bool,
    /// Scoping of abstract unix sockets and signals is available (ABI ≥ 6).
    pub scoping: bool,
    /// A child can create user, mount and network namespaces (every confined child needs the
    /// first two for its read-only mounts, a child with the network off the third).
    pub user_namespaces: bool,
    /// The outcome of the namespace probe, in words.
    pub user_namespaces_detail: String,
    /// Seccomp filters can be installed (every confined child gets one).
    pub seccomp: bool,
    /// The value of the simulation hook, when it is set.
    pub simulated: Option<String>,
}

impl HostSupport {
    /// Why a child with this network setting cannot be confined here, or `None` if it can.
    pub fn child_gap(&self, net_allowed: bool) -> Option<String> {
        if !self.platform_supported {
            return Some(
                "the child jail needs Linux Landlock; this platform is not supported".to_string(),
            );
        }
        if self.landlock_abi.is_none() {
            let why = self.landlock_missing.as_deref().unwrap_or("unknown reason");
            return Some(format!(
                "Landlock is not available on this host ({why}); use a kernel with Landlock \
                 enabled, or opt out explicitly with `vox run --unconfined-children`"
            ));
        }
        if !net_allowed && !self.tcp_rules {
            return Some(format!(
                "the network is off for this child but Landlock ABI {} has no network rules \
                 (needs ABI 4, Linux 6.7 or newer)",
                self.landlock_abi.unwrap_or(0)
            ));
        }
        if !net_allowed && !self.user_namespaces {
            return Some(format!(
                "the network is off for this child but a network namespace cannot be created \
                 ({}); allow user namespaces on this host",
                self.user_namespaces_detail
            ));
        }
        if !self.seccomp {
            return Some(
                "seccomp filters are not available on this host (the child's system-call \
                 filter refuses terminal injection, setuid bits, unix sockets with the network \
                 off, new namespaces); use a kernel with CONFIG_SECCOMP_FILTER, or opt out \
                 explicitly with `vox run --unconfined-children`"
                    .to_string(),
            );
        }
        if !self.user_namespaces {
            return Some(format!(
                "the read-only mount namespace of a child cannot be created ({}); allow user \
                 namespaces on this host",
                self.user_namespaces_detail
            ));
        }
        None
    }
}

/// Reads the simulation hook: `None` when unset or empty.
pub(crate) fn simulated() -> Option<String> {
    std::env::var(SIMULATE_ENV)
        .ok()
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|v| !v.is_empty() && v != "0")
}
