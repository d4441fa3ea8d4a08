//! The interpreter's own environment holds a secret and a loader hijack; a confined child sees
//! neither, but sees what the script passed. One test: it changes this process's environment.
#![cfg(target_os = "linux")]

mod common;

use common::*;
use vox_jail::{env_fingerprint, EnvPolicy, Mode};

#[test]
fn parent_secrets_and_hijacks_do_not_reach_the_child() {
    // Single-threaded at this point: this binary has exactly one test.
    std::env::set_var("SECRET_TOKEN", "tok-123");
    std::env::set_var("LD_PRELOAD", "/nonexistent/vox-evil.so");
    std::env::set_var("BASH_ENV", "/nonexistent/vox-evil.sh");
    std::env::set_var("LC_API_KEY", "lc-456");
    std::env::set_var("GITHUB_TOKEN", "gh-789");
    std::env::set_var("LANG", "C.UTF-8");
    let d = Dirs::new();
    let env = EnvPolicy::new()
        .pass_through("GITHUB_TOKEN")
        .pass_through("LD_PRELOAD");
    let policy = d.policy_env(false, env);
    for mode in [Mode::Confined, Mode::Unconfined] {
        let o = run_mode(&policy, mode, "/usr/bin/env", &[]);
        assert_ok(&o, "env");
        let out = stdout(&o);
        for hidden in [
            "SECRET_TOKEN",
            "tok-123",
            "LD_PRELOAD",
            "BASH_ENV",
            "LC_API_KEY",
        ] {
            assert!(!out.contains(hidden), "{mode:?}: {hidden} leaked:\n{out}");
        }
        assert!(out.contains("GITHUB_TOKEN=gh-789\n"), "{mode:?}: {out}");
        assert!(out.contains("LANG=C.UTF-8\n"), "{mode:?}: {out}");
        assert!(!stderr(&o).contains("vox-evil"), "{}", stderr(&o));
    }
    let child = vox_jail::child_env(std::env::vars_os(), &policy.env);
    let fp = env_fingerprint(&child);
    assert!(fp.contains("GITHUB_TOKEN "), "{fp}");
    assert!(!fp.contains("gh-789"), "{fp}");
    assert!(!fp.contains("SECRET_TOKEN"), "{fp}");
}
