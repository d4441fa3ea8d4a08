//! `vox doctor` lines: what this host can enforce.

use std::fmt;

use crate::confine::probe;
use crate::host::{HostSupport, SIMULATE_ENV};
use crate::lifetime::LifetimeSupport;

/// The verdict of one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DoctorStatus {
    Ok,
    Warn,
    Fail,
}

impl DoctorStatus {
    /// `ok`, `warn` or `fail`.
    pub fn as_str(self) -> &'static str {
        match self {
            DoctorStatus::Ok => "ok",
            DoctorStatus::Warn => "warn",
            DoctorStatus::Fail => "fail",
        }
    }
}

/// One check: its verdict, what was checked, what was found and what to do (empty when ok).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DoctorLine {
    pub status: DoctorStatus,
    pub check: String,
    pub detail: String,
    pub fix: String,
}

impl fmt::Display for DoctorLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<4} {}: {}",
            self.status.as_str(),
            self.check,
            self.detail
        )?;
        if !self.fix.is_empty() {
            write!(f, " — {}", self.fix)?;
        }
        Ok(())
    }
}

fn line(status: DoctorStatus, check: &str, detail: String, fix: &str) -> DoctorLine {
    DoctorLine {
        status,
        check: check.to_string(),
        detail,
        fix: fix.to_string(),
    }
}

/// The jail's checks for this host ([`probe`] then [`doctor_lines_for`]), then how a run's
/// processes are bounded by the run ([`lifetime_line`]).
pub fn doctor_lines() -> Vec<DoctorLine> {
    let support = probe();
    let mut out = doctor_lines_for(&support);
    #[cfg(target_os = "linux")]
    if support.platform_supported {
        out.extend(proof_lines(crate::proof::prove()));
    }
    out.push(lifetime_line(&crate::lifetime::support()));
    out
}

/// One line per protection a probe child proved (or failed to) on this host
/// ([`crate::proof::prove`]).
#[cfg(target_os = "linux")]
pub fn proof_lines(proof: Result<Vec<crate::proof::Proven>, String>) -> Vec<DoctorLine> {
    match proof {
        Ok(list) => list
            .into_iter()
            .map(|p| match p.result {
                Ok(how) => line(
                    DoctorStatus::Ok,
                    &format!("jail {}", p.what),
                    format!("proven by a probe child: {how}"),
                    "",
                ),
                Err(why) => line(
                    DoctorStatus::Fail,
                    &format!("jail {}", p.what),
                    format!("not proven: {why}"),
                    "use a kernel with seccomp filters, Landlock and user namespaces (Linux 6.7+)",
                ),
            })
            .collect(),
        Err(why) => vec![line(
            DoctorStatus::Fail,
            "jail protections",
            format!(
                "no probe child could be confined, so descriptors, the terminal, unix sockets, \
                 IPC, setuid bits and the seccomp filter are unproven: {why}"
            ),
            "see the lines above for what this host lacks",
        )],
    }
}

/// The run-lifetime check (decisions 48, 55): which mechanism ends a run's processes with it.
/// It claims what `cli/tests/lifetime.rs` and `cli/tests/lsp_run.rs` check on a host where the
/// prctl below works: every ending, `vox` killed with `SIGKILL` included.
pub fn lifetime_line(s: &LifetimeSupport) -> DoctorLine {
    let cgroup = match &s.cgroup_kill {
        Some(at) => format!("; a writable cgroup v2 (cgroup.kill) exists at {at}, not used"),
        None => String::new(),
    };
    match &s.subreaper {
        Ok(how) => line(
            DoctorStatus::Ok,
            "run lifetime",
            format!(
                "child subreaper ({how}) and a keeper per jailed or background child (a \
                 subreaper holding a line to vox; the program gets SIGKILL as its parent-death \
                 signal): a stopped run, and vox itself killed with SIGKILL, end every process \
                 the run started, setsid, double fork and nohup included; a normal end leaves \
                 only spawn_background children. Without --caps, other children get only the \
                 parent-death signal: what they leave detached outlives vox killed with SIGKILL \
                 (it still ends with the run while vox lives){cgroup}"
            ),
            "",
        ),
        Err(why) => line(
            DoctorStatus::Fail,
            "run lifetime",
            format!(
                "no child subreaper ({why}): processes could outlive a run, so jailed spawns \
                 are refused{cgroup}"
            ),
            "use Linux 3.4 or newer with /proc mounted, or opt out with --unconfined-children",
        ),
    }
}

/// The jail's checks for a given probe result.
pub fn doctor_lines_for(s: &HostSupport) -> Vec<DoctorLine> {
    use DoctorStatus::{Fail, Ok, Warn};
    let mut out = Vec::new();
    if let Some(sim) = &s.simulated {
        out.push(line(
            Warn,
            "jail simulation hook",
            format!("{SIMULATE_ENV}={sim} is set: host support is reported lower than it is"),
            &format!("unset {SIMULATE_ENV}"),
        ));
    }
    if !s.platform_supported {
        out.push(line(
            Fail,
            "child jail",
            "the child jail needs Linux Landlock; this platform is not supported".to_string(),
            "run jailed scripts on Linux, or opt out with --unconfined-children",
        ));
        return out;
    }
    let Some(abi) = s.landlock_abi else {
        let why = s.landlock_missing.clone().unwrap_or_default();
        out.push(line(
            Fail,
            "landlock",
            format!("not available ({why}); children of receiver-imposed runs are refused"),
            "use a kernel with CONFIG_SECURITY_LANDLOCK=y and `landlock` in its lsm= list \
             (Linux 5.13+, 6.7+ for network rules), or opt out with --unconfined-children",
        ));
        return out;
    };
    out.push(line(
        Ok,
        "landlock",
        format!("ABI {abi}: filesystem rules"),
        "",
    ));
    if s.tcp_rules {
        out.push(line(
            Ok,
            "landlock network rules",
            "TCP bind and connect can be denied (ABI 4+)".to_string(),
            "",
        ));
    } else {
        out.push(line(
            Fail,
            "landlock network rules",
            format!("ABI {abi} has no network rules: children with net:none are refused"),
            "use Linux 6.7 or newer (Landlock ABI 4)",
        ));
    }
    if s.user_namespaces {
        out.push(line(
            Ok,
            "user namespaces",
            s.user_namespaces_detail.clone(),
            "",
        ));
    } else {
        out.push(line(
            Fail,
            "user namespaces",
            format!(
                "{}: every confined child is refused (it needs its read-only mount namespace, \
                 and with net:none its network namespace)",
                s.user_namespaces_detail
            ),
            "allow unprivileged user namespaces (sysctl user.max_user_namespaces > 0; \
             kernel.unprivileged_userns_clone=1 or kernel.apparmor_restrict_unprivileged_userns=0 \
             where those exist)",
        ));
    }
    if s.seccomp {
        out.push(line(
            Ok,
            "seccomp",
            "system-call filters can be installed on every confined child".to_string(),
            "",
        ));
    } else {
        out.push(line(
            Fail,
            "seccomp",
            "filters cannot be installed: every confined child is refused".to_string(),
            "use a kernel with CONFIG_SECCOMP_FILTER (Linux 4.14+)",
        ));
    }
    if s.user_namespaces {
        out.push(line(
            Ok,
            "read-only mounts",
            "children see every mount read-only outside their fs:rw roots and private temp dir \
             (no chmod, touch or extended attributes there)"
                .to_string(),
            "",
        ));
    }
    if s.tcp_rules && s.user_namespaces {
        out.push(line(
            Ok,
            "network off",
            "every socket family: fresh network namespace plus Landlock TCP rules, and the \
             seccomp filter refuses unix (pathname ones are reached by path), vsock and every \
             other non-IP socket"
                .to_string(),
            "",
        ));
    }
    if s.tcp_rules && s.seccomp {
        out.push(line(
            Ok,
            "inbound ports",
            "net:listen can be enforced: a listening child keeps the host's network, Landlock \
             lets it bind only its ports and connect nowhere, and the seccomp filter refuses every \
             socket but TCP"
                .to_string(),
            "",
        ));
    }
    if s.scoping {
        out.push(line(
            Ok,
            "landlock scoping",
            "abstract unix sockets and signals are scoped to the sandbox (ABI 6+)".to_string(),
            "",
        ));
    } else {
        out.push(line(
            Warn,
            "landlock scoping",
            format!(
                "ABI {abi} cannot scope signals or abstract unix sockets: a child may signal \
                 processes outside its sandbox"
            ),
            "use Linux 6.12 or newer (Landlock ABI 6)",
        ));
    }
    out.push(line(
        Ok,
        "interpreter self-confinement",
        if abi >= 8 {
            "available, for every thread (ABI 8+)".to_string()
        } else {
            "available, for the confining thread and what it starts (ABI < 8)".to_string()
        },
        "",
    ));
    out
}
