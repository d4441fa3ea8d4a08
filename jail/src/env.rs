//! A confined child's environment, built from nothing (runtime.md §4, decisions 26).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// Ambient variables a child may inherit from the interpreter (`LC_*` is a prefix).
/// `TMPDIR` is never inherited: it is set to the private temp dir.
pub const ENV_ALLOWLIST: &[&str] = &["PATH", "HOME", "LANG", "TERM", "TZ", "USER"];

/// Names that make a program run code before (or instead of) its own: always dropped, even when
/// the script passes them by name.
///
/// Exact names (compared upper-cased). Dynamic loader and shells: `BASH_ENV`, `ENV`,
/// `PROMPT_COMMAND`, `PS4`, `SHELLOPTS`, `BASHOPTS`, `ZDOTDIR`; language runtimes:
/// `PYTHONSTARTUP`, `PYTHONPATH`, `PYTHONHOME`, `PYTHONBREAKPOINT`, `PYTHONWARNINGS`
/// (imports a category's module), `NODE_OPTIONS`, `NODE_PATH`, `PERL5OPT`, `PERL5LIB`, `PERLLIB`,
/// `PERL5DB`, `RUBYOPT`, `RUBYLIB`, `JAVA_TOOL_OPTIONS`, `_JAVA_OPTIONS`, `JDK_JAVA_OPTIONS`,
/// `PHPRC`, `PHP_INI_SCAN_DIR`; git and ssh helpers: `GIT_EXEC_PATH`, `GIT_SSH`,
/// `GIT_SSH_COMMAND`, `GIT_PROXY_COMMAND`, `GIT_ASKPASS`, `SSH_ASKPASS`, `GIT_TEMPLATE_DIR`,
/// `GIT_EXTERNAL_DIFF`; libc and libraries: `GCONV_PATH`, `GLIBC_TUNABLES`, `OPENSSL_CONF`,
/// `OPENSSL_ENGINES`.
pub const HIJACK_NAMES: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PS4",
    "SHELLOPTS",
    "BASHOPTS",
    "ZDOTDIR",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONBREAKPOINT",
    "PYTHONWARNINGS",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "PERL5DB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "PHPRC",
    "PHP_INI_SCAN_DIR",
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PROXY_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_TEMPLATE_DIR",
    "GIT_EXTERNAL_DIFF",
    "GCONV_PATH",
    "GLIBC_TUNABLES",
    "OPENSSL_CONF",
    "OPENSSL_ENGINES",
];

/// Prefixes of hijack names: every `LD_*` (`LD_PRELOAD`, `LD_LIBRARY_PATH`, `LD_AUDIT`, …),
/// `DYLD_*`, exported bash functions (`BASH_FUNC_*`), `GIT_CONFIG*` (`GIT_CONFIG_COUNT`/`KEY_n`/
/// `VALUE_n` can set `core.fsmonitor`), `LUA_INIT*`.
pub const HIJACK_PREFIXES: &[&str] = &["LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG", "LUA_INIT"];

/// Whether `name` would run code before the child's own program: always dropped.
pub fn is_hijack_name(name: &OsStr) -> bool {
    let upper = name.to_string_lossy().to_ascii_uppercase();
    HIJACK_NAMES.contains(&upper.as_str()) || HIJACK_PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// Whether `name` looks like a credential: `*SECRET*`, `*PASSWORD*`, `*PASSWD*`, `*TOKEN*`,
/// `*CREDENTIAL*`, `*PRIVATE_KEY*`, `*API_KEY*`, `*APIKEY*`, `*_KEY`, `*_PASS`, `*_PWD`,
/// `*_AUTH`, `AWS_*` (upper-cased). Such names are dropped unless the script passes them by name.
pub fn is_credential_name(name: &OsStr) -> bool {
    let upper = name.to_string_lossy().to_ascii_uppercase();
    const CONTAINS: &[&str] = &[
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "TOKEN",
        "CREDENTIAL",
        "PRIVATE_KEY",
        "API_KEY",
        "APIKEY",
    ];
    const SUFFIXES: &[&str] = &["_KEY", "_PASS", "_PWD", "_AUTH"];
    CONTAINS.iter().any(|c| upper.contains(c))
        || SUFFIXES.iter().any(|s| upper.ends_with(s))
        || upper.starts_with("AWS_")
}

fn is_allowlisted(name: &OsStr) -> bool {
    let Some(s) = name.to_str() else {
        return false;
    };
    ENV_ALLOWLIST.contains(&s) || s.starts_with("LC_")
}

/// Whether a name/value pair can be put in an environment at all.
fn is_valid(name: &OsStr, value: &OsStr) -> bool {
    let n = name.as_encoded_bytes();
    !n.is_empty() && !n.contains(&b'=') && !n.contains(&0) && !value.as_encoded_bytes().contains(&0)
}

/// What a child's environment is made of besides the allowlist.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    /// Variables the script passes explicitly (`run_ex(…, env)`): `Some(value)`, or `None` for
    /// "the interpreter's own value of this name" (nothing if unset). Credential-looking names
    /// are kept; hijack names are still dropped.
    pub explicit: Vec<(OsString, Option<OsString>)>,
    /// Variables the script set with `env.set` (kept like explicit ones).
    pub set_by_script: Vec<(OsString, OsString)>,
    /// The private temp dir: `TMPDIR` points to it.
    pub tmpdir: Option<PathBuf>,
}

impl EnvPolicy {
    /// An empty policy: the allowlist only.
    pub fn new() -> EnvPolicy {
        EnvPolicy::default()
    }

    /// Passes `name=value` explicitly.
    pub fn pass(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> EnvPolicy {
        self.explicit.push((name.into(), Some(value.into())));
        self
    }

    /// Passes the interpreter's own value of `name`, by name.
    pub fn pass_through(mut self, name: impl Into<OsString>) -> EnvPolicy {
        self.explicit.push((name.into(), None));
        self
    }

    /// Records a variable the script set with `env.set`.
    pub fn set(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> EnvPolicy {
        self.set_by_script.push((name.into(), value.into()));
        self
    }
}

/// Builds a child's environment from nothing: the allowlisted `parent` variables that do not
/// look like credentials, `TMPDIR` → the private temp dir, then the script's `env.set`
/// variables, then the explicitly passed ones (later wins). Hijack names are always dropped.
/// Sorted by name.
pub fn child_env(
    parent: impl Iterator<Item = (OsString, OsString)>,
    policy: &EnvPolicy,
) -> Vec<(OsString, OsString)> {
    let parent: Vec<(OsString, OsString)> = parent.collect();
    let mut out: BTreeMap<OsString, OsString> = BTreeMap::new();
    for (name, value) in &parent {
        if is_allowlisted(name) && !is_credential_name(name) {
            out.insert(name.clone(), value.clone());
        }
    }
    if let Some(tmp) = &policy.tmpdir {
        out.insert("TMPDIR".into(), tmp.clone().into_os_string());
    }
    for (name, value) in &policy.set_by_script {
        out.insert(name.clone(), value.clone());
    }
    for (name, value) in &policy.explicit {
        let value = match value {
            Some(v) => Some(v.clone()),
            None => parent
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone()),
        };
        match value {
            Some(v) => out.insert(name.clone(), v),
            None => out.remove(name),
        };
    }
    out.into_iter()
        .filter(|(n, v)| !is_hijack_name(n) && is_valid(n, v))
        .collect()
}

/// A short digest of a value (48 bits of 64-bit FNV-1a, 12 hex digits). Not a secure hash: it
/// lets two environments be compared without showing values, nothing more.
pub fn fingerprint_digest(value: &OsStr) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in value.as_encoded_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{:012x}", h >> 16)
}

/// The shape of an environment: one `NAME digest` line per variable, sorted by name, never a
/// value. Non-UTF-8 names are shown lossily.
pub fn env_fingerprint(env: &[(OsString, OsString)]) -> String {
    let mut lines: Vec<String> = env
        .iter()
        .map(|(n, v)| format!("{} {}", n.to_string_lossy(), fingerprint_digest(v)))
        .collect();
    lines.sort();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent(pairs: &[(&str, &str)]) -> impl Iterator<Item = (OsString, OsString)> {
        pairs
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v)))
            .collect::<Vec<_>>()
            .into_iter()
    }

    fn names(env: &[(OsString, OsString)]) -> Vec<String> {
        env.iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn allowlist_only_from_parent() {
        let env = child_env(
            parent(&[
                ("PATH", "/usr/bin"),
                ("HOME", "/root"),
                ("LC_ALL", "C"),
                ("LC_API_TOKEN", "x"),
                ("SECRET_TOKEN", "s"),
                ("LD_PRELOAD", "/evil.so"),
                ("EDITOR", "vi"),
                ("TMPDIR", "/tmp"),
            ]),
            &EnvPolicy::new(),
        );
        assert_eq!(names(&env), ["HOME", "LC_ALL", "PATH"]);
    }

    #[test]
    fn tmpdir_points_to_private_dir() {
        let pol = EnvPolicy {
            tmpdir: Some("/tmp/vox-x".into()),
            ..EnvPolicy::default()
        };
        let env = child_env(parent(&[("TMPDIR", "/tmp")]), &pol);
        assert_eq!(env, [("TMPDIR".into(), "/tmp/vox-x".into())]);
    }

    #[test]
    fn explicit_names_are_kept_hijacks_never() {
        let pol = EnvPolicy::new()
            .pass("API_KEY", "k")
            .pass("LD_PRELOAD", "/evil.so")
            .pass("BASH_FUNC_ls%%", "() { :; }")
            .pass_through("GITHUB_TOKEN")
            .pass_through("UNSET_NAME")
            .set("MODE", "fast")
            .set("NODE_OPTIONS", "--require x");
        let env = child_env(parent(&[("GITHUB_TOKEN", "gh"), ("MODE", "slow")]), &pol);
        assert_eq!(names(&env), ["API_KEY", "GITHUB_TOKEN", "MODE"]);
        assert!(env.contains(&("GITHUB_TOKEN".into(), "gh".into())));
        assert!(env.contains(&("MODE".into(), "fast".into())));
    }

    #[test]
    fn invalid_pairs_are_dropped() {
        let pol = EnvPolicy::new()
            .pass("A=B", "x")
            .pass("", "y")
            .pass("NUL", "a\0b");
        assert!(child_env(std::iter::empty(), &pol).is_empty());
    }

    #[test]
    fn classification() {
        for n in [
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "LD_AUDIT",
            "LD_BIND_NOW",
            "DYLD_INSERT_LIBRARIES",
            "BASH_ENV",
            "ENV",
            "PROMPT_COMMAND",
            "PYTHONSTARTUP",
            "PYTHONPATH",
            "NODE_OPTIONS",
            "PERL5OPT",
            "RUBYOPT",
            "GIT_EXEC_PATH",
            "GIT_CONFIG_COUNT",
        ] {
            assert!(is_hijack_name(OsStr::new(n)), "{n}");
        }
        for n in ["PATH", "HOME", "LANG", "ENVIRONMENT", "LDFLAGS"] {
            assert!(!is_hijack_name(OsStr::new(n)), "{n}");
        }
        for n in [
            "GITHUB_TOKEN",
            "NPM_TOKEN",
            "OPENAI_API_KEY",
            "MY_SECRET_THING",
            "DB_PASSWORD",
            "AWS_REGION",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "SSH_KEY",
        ] {
            assert!(is_credential_name(OsStr::new(n)), "{n}");
        }
        for n in [
            "PATH", "HOME", "LANG", "LC_ALL", "TERM", "TZ", "USER", "KEYBOARD",
        ] {
            assert!(!is_credential_name(OsStr::new(n)), "{n}");
        }
    }

    #[test]
    fn fingerprint_has_names_not_values() {
        let env = vec![
            ("ZED".into(), "hunter2".into()),
            ("API_KEY".into(), "sk-live-123".into()),
        ];
        let fp = env_fingerprint(&env);
        let lines: Vec<&str> = fp.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("API_KEY "));
        assert!(lines[1].starts_with("ZED "));
        assert!(!fp.contains("hunter2") && !fp.contains("sk-live"));
        assert_eq!(lines[0].len(), "API_KEY ".len() + 12);
        // Equal values compare equal, different values differ.
        assert_eq!(
            fingerprint_digest(OsStr::new("a")),
            fingerprint_digest(OsStr::new("a"))
        );
        assert_ne!(
            fingerprint_digest(OsStr::new("a")),
            fingerprint_digest(OsStr::new("b"))
        );
    }
}
