//! Platforms without a jail: `Mode::Confined` is refused (fail closed); the explicit opt-out
//! still gets the environment scrub, and on Unix the resource limits and process group.

use std::process::Command;

use crate::env::child_env;
use crate::host::{simulated, HostSupport};
use crate::policy::{ChildPolicy, ProcessGroup, SelfPolicy};
use crate::types::{Applied, Hook, JailError, Mode, RuleKind};

const REASON: &str = "the child jail needs Linux Landlock; this platform is not supported";

pub(crate) fn probe() -> HostSupport {
    HostSupport {
        platform_supported: false,
        landlock_abi: None,
        landlock_missing: Some("Landlock exists only on Linux".to_string()),
        fs_rules: false,
        tcp_rules: false,
        scoping: false,
        user_namespaces: false,
        user_namespaces_detail: "not checked: not Linux".to_string(),
        seccomp: false,
        simulated: simulated(),
    }
}

pub(crate) fn confine_command(
    cmd: &mut Command,
    policy: &ChildPolicy,
    mode: Mode,
) -> Result<Applied, JailError> {
    if mode == Mode::Confined {
        return Err(JailError::CannotConfine {
            reason: REASON.to_string(),
        });
    }
    let mut kinds = vec![RuleKind::EnvScrub];
    cmd.env_clear();
    cmd.envs(child_env(std::env::vars_os(), &policy.env));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        let limits = crate::limits::Limits {
            data: policy.rlimit_data.filter(|&v| v > 0),
            fsize: policy.rlimit_fsize.filter(|&v| v > 0),
            core_zero: false,
        };
        let new_session = policy.process_group == ProcessGroup::Session;
        match policy.process_group {
            ProcessGroup::Own => {
                cmd.process_group(0);
                kinds.push(RuleKind::ProcessGroup);
            }
            ProcessGroup::Session => kinds.push(RuleKind::NewSession),
            ProcessGroup::Inherit => {}
        }
        if let Some(v) = limits.data {
            kinds.push(RuleKind::RlimitData(v));
        }
        if let Some(v) = limits.fsize {
            kinds.push(RuleKind::RlimitFsize(v));
        }
        // SAFETY: only setsid/getrlimit/setrlimit run in the child.
        unsafe {
            cmd.pre_exec(move || {
                if new_session && libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                limits.apply()
            });
        }
    }
    Ok(Applied {
        mode,
        landlock_abi: None,
        kinds,
    })
}

pub(crate) fn confine_self(_policy: &SelfPolicy) -> Result<Applied, JailError> {
    Err(JailError::CannotConfineSelf {
        reason: REASON.to_string(),
    })
}

pub(crate) fn confine_hook(
    cmd: &mut Command,
    policy: &ChildPolicy,
    mode: Mode,
) -> Result<(Applied, Hook), JailError> {
    // No keeper here (crate::lifetime::guard fails): the setup stays a hook of `cmd`.
    confine_command(cmd, policy, mode).map(|a| (a, Box::new(|| Ok(())) as Hook))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::EnvPolicy;
    use crate::tempdir::TempDir;

    #[test]
    fn confined_is_refused_unconfined_scrubs() {
        let tmp = TempDir::new().unwrap();
        let policy = ChildPolicy::new(vec![], vec![], false, tmp.path(), EnvPolicy::new());
        let mut cmd = Command::new("true");
        let err = confine_command(&mut cmd, &policy, Mode::Confined).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot confine child: the child jail needs Linux Landlock; this platform is not supported"
        );
        let applied = confine_command(&mut cmd, &policy, Mode::Unconfined).unwrap();
        assert!(applied.has(&RuleKind::EnvScrub));
        assert!(!probe().platform_supported);
        assert!(confine_self(&SelfPolicy::new(vec![], vec![], true)).is_err());
    }
}
