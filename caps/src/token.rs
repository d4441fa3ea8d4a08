//! The `--caps` token grammar (runtime.md §1.1).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::one_line::one_line;
use crate::resolve::resolve;

/// What `env.*` may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EnvGrant {
    /// `env.get`, `env.args` and `env.set` are denied.
    None,
    /// `env.get` and `env.args` are allowed.
    Ro,
    /// Reads and `env.set` are allowed.
    Rw,
}

/// What `time.*` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeGrant {
    /// Every clock read is denied.
    Denied,
    /// The wall clock and the monotonic clock.
    Real,
    /// Every clock read, monotonic ones too, returns this many milliseconds.
    Frozen(u64),
}

/// Where randomness-consuming builtins (`random.*`, `crypto.uuid`) draw from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RandomGrant {
    /// Every randomness-consuming builtin is denied.
    Denied,
    /// A deterministic stream from this seed.
    Seed(u64),
    /// Operating-system entropy. No `--caps` token grants this: only the developer default and the
    /// legacy directive do, because a receiver-imposed set is meant to be reproducible.
    Entropy,
}

/// One `--caps` token, after parsing.
///
/// `Display` prints the canonical spelling (`http:` becomes `net:`, fs directories are the
/// canonical absolute paths), which is also what error messages quote.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Token {
    /// `fs:ro=<dir>`: reads under a canonical, existing directory.
    FsRo(PathBuf),
    /// `fs:rw=<dir>`: reads and writes under a canonical, existing directory.
    FsRw(PathBuf),
    /// `fs:none=<path>`: the file or directory (resolved; it need not exist) can be neither read
    /// nor written, whatever root holds it.
    FsNone(PathBuf),
    /// `exec:none=<path>`: children may read but never execute the file or what lies beneath
    /// the directory (resolved; it need not exist).
    ExecNone(PathBuf),
    /// `net:none` (false) or `net:allow` (true); `http:` is an alias.
    Net(bool),
    /// `net:listen=<port>`: children may accept connections on this TCP port (and bind nothing
    /// else); outbound stays as `net:` says.
    NetListen(u16),
    /// `process:none` (false) or `process:allow` (true).
    Process(bool),
    /// `env:none`, `env:ro` or `env:rw`.
    Env(EnvGrant),
    /// `secrets:none` (false) or `secrets:allow` (true).
    Secrets(bool),
    /// `time:real`.
    TimeReal,
    /// `time:frozen=<ms>`.
    TimeFrozen(u64),
    /// `random:seed=<u64>`.
    RandomSeed(u64),
    /// `random:deny`.
    RandomDeny,
    /// `agentos:none` (false) or `agentos:allow` (true).
    Agentos(bool),
    /// `deterministic`: `time:frozen=0 random:seed=0 process:none net:none env:none`.
    Deterministic,
    /// `none`: grants nothing beyond the pure namespaces (decision 13).
    None,
}

impl Token {
    /// The namespace this token sets (`fs`, `net`, …); `deterministic` and `none` set several or
    /// none and return their own name.
    pub fn namespace(&self) -> &'static str {
        match self {
            Token::FsRo(_) | Token::FsRw(_) | Token::FsNone(_) => "fs",
            Token::ExecNone(_) => "exec",
            Token::Net(_) | Token::NetListen(_) => "net",
            Token::Process(_) => "process",
            Token::Env(_) => "env",
            Token::Secrets(_) => "secrets",
            Token::TimeReal | Token::TimeFrozen(_) => "time",
            Token::RandomSeed(_) | Token::RandomDeny => "random",
            Token::Agentos(_) => "agentos",
            Token::Deterministic => "deterministic",
            Token::None => "none",
        }
    }

    /// What `deterministic` stands for; every other token stands for itself.
    pub fn expand(&self) -> Vec<Token> {
        match self {
            Token::Deterministic => vec![
                Token::TimeFrozen(0),
                Token::RandomSeed(0),
                Token::Process(false),
                Token::Net(false),
                Token::Env(EnvGrant::None),
            ],
            other => vec![other.clone()],
        }
    }
}

fn switch(allow: bool) -> &'static str {
    if allow {
        "allow"
    } else {
        "none"
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::FsRo(dir) => write!(f, "fs:ro={}", dir.display()),
            Token::FsRw(dir) => write!(f, "fs:rw={}", dir.display()),
            Token::FsNone(path) => write!(f, "fs:none={}", path.display()),
            Token::ExecNone(path) => write!(f, "exec:none={}", path.display()),
            Token::Net(allow) => write!(f, "net:{}", switch(*allow)),
            Token::NetListen(port) => write!(f, "net:listen={port}"),
            Token::Process(allow) => write!(f, "process:{}", switch(*allow)),
            Token::Env(EnvGrant::None) => f.write_str("env:none"),
            Token::Env(EnvGrant::Ro) => f.write_str("env:ro"),
            Token::Env(EnvGrant::Rw) => f.write_str("env:rw"),
            Token::Secrets(allow) => write!(f, "secrets:{}", switch(*allow)),
            Token::TimeReal => f.write_str("time:real"),
            Token::TimeFrozen(ms) => write!(f, "time:frozen={ms}"),
            Token::RandomSeed(seed) => write!(f, "random:seed={seed}"),
            Token::RandomDeny => f.write_str("random:deny"),
            Token::Agentos(allow) => write!(f, "agentos:{}", switch(*allow)),
            Token::Deterministic => f.write_str("deterministic"),
            Token::None => f.write_str("none"),
        }
    }
}

/// A `--caps` problem: a token that does not parse, or two tokens that contradict each other.
/// Either way `vox run` exits 1 (runtime.md §1.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CapsError {
    /// A token that does not parse. `Display` gives only `why`, the text that follows
    /// `vox: invalid --caps token "<token>": `.
    Invalid { token: String, why: String },
    /// Two different tokens for one namespace (decision 13), in the order given.
    /// `Display` gives the whole message without the `vox: ` prefix.
    Conflict { first: String, second: String },
}

impl CapsError {
    fn invalid(token: &str, why: impl Into<String>) -> CapsError {
        CapsError::Invalid {
            token: token.to_string(),
            why: why.into(),
        }
    }

    /// The complete stderr line, e.g. `vox: invalid --caps token "io:rw": io.open / io.save take
    /// their authority from fs:`.
    pub fn render(&self) -> String {
        match self {
            // `{:?}` quotes the token and escapes control characters, so a hostile token cannot
            // rewrite the terminal.
            CapsError::Invalid { token, why } => {
                format!("vox: invalid --caps token {token:?}: {why}")
            }
            CapsError::Conflict { .. } => format!("vox: {self}"),
        }
    }
}

impl fmt::Display for CapsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CapsError::Invalid { why, .. } => f.write_str(why),
            CapsError::Conflict { first, second } => {
                let why = if first == "deterministic" || second == "deterministic" {
                    "deterministic means time:frozen=0 random:seed=0 process:none net:none env:none, \
                     so drop one of them"
                } else {
                    "a namespace takes one value, so keep one of them"
                };
                write!(
                    f,
                    "conflicting --caps tokens {first:?} and {second:?}: {why}"
                )
            }
        }
    }
}

impl std::error::Error for CapsError {}

/// Every valid form, for messages about unknown namespaces.
const ALL_FORMS: &str = "fs:ro=<dir>, fs:rw=<dir>, fs:none=<path>, exec:none=<path>, net:none|allow (or http:), net:listen=<port>, process:none|allow, \
                         env:none|ro|rw, secrets:none|allow, time:real, time:frozen=<ms>, \
                         random:seed=<n>, random:deny, agentos:none|allow, deterministic, none";

/// The valid forms of one namespace, for messages about a bad value.
fn forms(ns: &str) -> &'static str {
    match ns {
        "fs" => "fs:ro=<dir>, fs:rw=<dir> or fs:none=<path>",
        "exec" => "exec:none=<path>",
        "net" => "net:none, net:allow or net:listen=<port>",
        "http" => "http:none, http:allow or http:listen=<port>",
        "process" => "process:none or process:allow",
        "env" => "env:none, env:ro or env:rw",
        "secrets" => "secrets:none or secrets:allow",
        "time" => "time:real or time:frozen=<ms>",
        "random" => "random:seed=<n> or random:deny",
        "agentos" => "agentos:none or agentos:allow",
        _ => ALL_FORMS,
    }
}

/// Parses one `--caps` token. Relative `fs:` directories resolve against `base` (the working
/// directory of the run) and are canonicalised now, so later checks compare real paths.
pub fn parse_token(s: &str, base: &Path) -> Result<Token, CapsError> {
    let (ns, value) = match s.split_once(':') {
        Some((ns, value)) => (ns, Some(value)),
        None => (s, None),
    };
    let bad_value = || CapsError::invalid(s, format!("write {}", forms(ns)));
    match (ns, value) {
        ("", None) => Err(CapsError::invalid(
            s,
            format!("empty token; valid tokens: {ALL_FORMS}"),
        )),
        ("deterministic", None) => Ok(Token::Deterministic),
        ("none", None) => Ok(Token::None),
        ("deterministic" | "none", Some(_)) => Err(CapsError::invalid(
            s,
            format!("{ns} takes no value; write just {ns}"),
        )),
        ("io", _) => Err(CapsError::invalid(
            s,
            "io.open / io.save take their authority from fs:",
        )),
        ("fs", Some(value)) if value == "none" || value.starts_with("none=") => {
            parse_deny(s, "fs", value, base)
        }
        ("fs", Some(value)) => parse_fs(s, value, base),
        ("exec", Some(value)) if value == "none" || value.starts_with("none=") => {
            parse_deny(s, "exec", value, base)
        }
        ("net" | "http", Some("none" | "allow")) => Ok(Token::Net(value == Some("allow"))),
        ("net" | "http", Some(value)) if value == "listen" || value.starts_with("listen=") => {
            match value.strip_prefix("listen=") {
                None => Err(CapsError::invalid(
                    s,
                    format!("{ns}:listen needs a port, e.g. {ns}:listen=8080"),
                )),
                Some(port) => match parse_u64(port).filter(|p| (1..=65535).contains(p)) {
                    Some(p) => Ok(Token::NetListen(p as u16)),
                    None => Err(CapsError::invalid(
                        s,
                        format!("{ns}:listen takes a port from 1 to 65535, got {port:?}"),
                    )),
                },
            }
        }
        ("process", Some("none" | "allow")) => Ok(Token::Process(value == Some("allow"))),
        ("secrets", Some("none" | "allow")) => Ok(Token::Secrets(value == Some("allow"))),
        ("agentos", Some("none" | "allow")) => Ok(Token::Agentos(value == Some("allow"))),
        ("env", Some("none")) => Ok(Token::Env(EnvGrant::None)),
        ("env", Some("ro")) => Ok(Token::Env(EnvGrant::Ro)),
        ("env", Some("rw")) => Ok(Token::Env(EnvGrant::Rw)),
        ("env", Some("allow")) => Err(CapsError::invalid(
            s,
            "env:allow is ambiguous; write env:ro to read variables or env:rw to also set them",
        )),
        ("time", Some("real")) => Ok(Token::TimeReal),
        ("time", Some(value)) => match value.strip_prefix("frozen=") {
            // `time.now_ms()` returns an int, so the frozen value must fit one (i64).
            Some(ms) => match parse_u64(ms) {
                Some(v) if v <= i64::MAX as u64 => Ok(Token::TimeFrozen(v)),
                Some(_) => Err(CapsError::invalid(
                    s,
                    format!(
                        "time:frozen is at most {} (milliseconds; time.now_ms() returns an int), got {ms}",
                        i64::MAX
                    ),
                )),
                None => Err(CapsError::invalid(
                    s,
                    number_why("time:frozen", "milliseconds", ms, i64::MAX as u64),
                )),
            },
            None if value == "frozen" => Err(CapsError::invalid(
                s,
                "time:frozen needs a value in milliseconds, e.g. time:frozen=0",
            )),
            None => Err(bad_value()),
        },
        ("random", Some("deny")) => Ok(Token::RandomDeny),
        ("random", Some(value)) => match value.strip_prefix("seed=") {
            Some(seed) => parse_u64(seed)
                .map(Token::RandomSeed)
                .ok_or_else(|| CapsError::invalid(s, number_why("random:seed", "seed", seed, u64::MAX))),
            None if value == "seed" => Err(CapsError::invalid(
                s,
                "random:seed needs a value, e.g. random:seed=0",
            )),
            None => Err(bad_value()),
        },
        (
            "fs" | "exec" | "net" | "http" | "process" | "env" | "secrets" | "time" | "random"
            | "agentos",
            _,
        ) => Err(bad_value()),
        _ => Err(CapsError::invalid(s, unknown_namespace(ns))),
    }
}

fn unknown_namespace(ns: &str) -> String {
    let lower = ns.to_ascii_lowercase();
    let known = [
        "fs", "exec", "net", "http", "process", "env", "secrets", "time", "random", "agentos",
    ];
    if lower != ns && known.contains(&lower.as_str()) {
        return format!("tokens are lower case; write {lower}:…");
    }
    format!("unknown namespace {ns:?}; valid tokens: {ALL_FORMS}")
}

/// Digits only: `u64::from_str` would also take a leading `+`.
fn parse_u64(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn number_why(what: &str, unit: &str, got: &str, max: u64) -> String {
    if !got.is_empty() && got.bytes().all(|b| b.is_ascii_digit()) {
        return format!("{what} is at most {max} ({unit}), got {got}");
    }
    format!("{what} takes a whole number of {unit} from 0 to {max}, got {got:?}")
}

/// `fs:none=<path>` and `exec:none=<path>`: a file or directory, resolved like every checked
/// path (symlinks followed, so the final target is what is denied); it need not exist yet.
fn parse_deny(s: &str, ns: &str, value: &str, base: &Path) -> Result<Token, CapsError> {
    let Some(path) = value.strip_prefix("none=") else {
        let example = if ns == "fs" { ".env" } else { "bin" };
        return Err(CapsError::invalid(
            s,
            format!("{ns}:none needs a path, e.g. {ns}:none={example}"),
        ));
    };
    if path.is_empty() {
        return Err(CapsError::invalid(
            s,
            format!("the path is empty; write {ns}:none=<file or directory>"),
        ));
    }
    let joined = base.join(path);
    let absolute = std::path::absolute(&joined)
        .map_err(|e| CapsError::invalid(s, format!("cannot resolve {}: {e}", one_line(path))))?;
    let resolved = resolve(&absolute)
        .map_err(|e| CapsError::invalid(s, one_line(&e.explain(&absolute))))?
        .path;
    Ok(if ns == "fs" {
        Token::FsNone(resolved)
    } else {
        Token::ExecNone(resolved)
    })
}

fn parse_fs(s: &str, value: &str, base: &Path) -> Result<Token, CapsError> {
    let (write, dir) = match value.split_once('=') {
        Some(("ro", dir)) => (false, dir),
        Some(("rw", dir)) => (true, dir),
        None if value == "ro" || value == "rw" => {
            return Err(CapsError::invalid(
                s,
                format!(
                    "fs:{value} needs a directory, e.g. fs:{value}=. for the working directory"
                ),
            ));
        }
        _ => return Err(CapsError::invalid(s, format!("write {}", forms("fs")))),
    };
    if dir.is_empty() {
        return Err(CapsError::invalid(
            s,
            "the directory is empty; write fs:ro=. for the working directory",
        ));
    }
    let joined = base.join(dir);
    let shown = if Path::new(dir).is_absolute() {
        one_line(&joined.display().to_string())
    } else {
        one_line(&format!("{dir} (resolved to {})", joined.display()))
    };
    let canonical = match std::fs::canonicalize(&joined) {
        Ok(canonical) => canonical,
        Err(err) => {
            let tilde = if dir.starts_with('~') {
                "; the shell did not expand ~, write $HOME instead"
            } else {
                ""
            };
            let why = match err.kind() {
                io::ErrorKind::NotFound => format!("no such directory: {shown}{tilde}"),
                _ => format!("cannot open directory {shown}: {err}"),
            };
            return Err(CapsError::invalid(s, why));
        }
    };
    if !canonical.is_dir() {
        let parent = one_line(
            &canonical
                .parent()
                .unwrap_or(Path::new("/"))
                .display()
                .to_string(),
        );
        let why = format!(
            "not a directory: {shown}; roots are directories, e.g. fs:{}={parent}",
            if write { "rw" } else { "ro" }
        );
        return Err(CapsError::invalid(s, why));
    }
    Ok(if write {
        Token::FsRw(canonical)
    } else {
        Token::FsRo(canonical)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Token, CapsError> {
        parse_token(s, Path::new("/"))
    }

    fn why(s: &str) -> String {
        match parse(s) {
            Ok(token) => panic!("{s} parsed as {token:?}"),
            Err(err) => err.to_string(),
        }
    }

    #[test]
    fn switches() {
        assert_eq!(parse("net:none"), Ok(Token::Net(false)));
        assert_eq!(parse("net:allow"), Ok(Token::Net(true)));
        assert_eq!(parse("http:none"), Ok(Token::Net(false)));
        assert_eq!(parse("http:allow"), Ok(Token::Net(true)));
        assert_eq!(parse("process:none"), Ok(Token::Process(false)));
        assert_eq!(parse("process:allow"), Ok(Token::Process(true)));
        assert_eq!(parse("secrets:none"), Ok(Token::Secrets(false)));
        assert_eq!(parse("secrets:allow"), Ok(Token::Secrets(true)));
        assert_eq!(parse("agentos:none"), Ok(Token::Agentos(false)));
        assert_eq!(parse("agentos:allow"), Ok(Token::Agentos(true)));
    }

    #[test]
    fn env_time_random() {
        assert_eq!(parse("env:none"), Ok(Token::Env(EnvGrant::None)));
        assert_eq!(parse("env:ro"), Ok(Token::Env(EnvGrant::Ro)));
        assert_eq!(parse("env:rw"), Ok(Token::Env(EnvGrant::Rw)));
        assert_eq!(parse("time:real"), Ok(Token::TimeReal));
        assert_eq!(parse("time:frozen=0"), Ok(Token::TimeFrozen(0)));
        assert_eq!(
            parse("time:frozen=9223372036854775807"),
            Ok(Token::TimeFrozen(i64::MAX as u64))
        );
        // time.now_ms() returns an int: a frozen value beyond i64 would read back negative.
        for big in ["9223372036854775808", "18446744073709551615"] {
            let e = parse(&format!("time:frozen={big}")).unwrap_err();
            assert_eq!(
                e.render(),
                format!("vox: invalid --caps token \"time:frozen={big}\": time:frozen is at most 9223372036854775807 (milliseconds; time.now_ms() returns an int), got {big}")
            );
        }
        assert_eq!(
            parse("time:frozen=1700000000000"),
            Ok(Token::TimeFrozen(1_700_000_000_000))
        );
        assert_eq!(parse("time:frozen=007"), Ok(Token::TimeFrozen(7)));
        assert_eq!(parse("random:seed=0"), Ok(Token::RandomSeed(0)));
        assert_eq!(
            parse("random:seed=18446744073709551615"),
            Ok(Token::RandomSeed(u64::MAX))
        );
        assert_eq!(parse("random:deny"), Ok(Token::RandomDeny));
        assert_eq!(parse("deterministic"), Ok(Token::Deterministic));
        assert_eq!(parse("none"), Ok(Token::None));
    }

    #[test]
    fn io_is_rejected_with_the_pinned_reason() {
        for tok in ["io:rw", "io:", "io", "io:allow"] {
            let err = parse(tok).unwrap_err();
            assert_eq!(
                err.to_string(),
                "io.open / io.save take their authority from fs:"
            );
            assert_eq!(
                err.render(),
                format!("vox: invalid --caps token \"{tok}\": io.open / io.save take their authority from fs:")
            );
        }
    }

    #[test]
    fn bad_values_list_the_valid_ones() {
        assert_eq!(
            why("net:yes"),
            "write net:none, net:allow or net:listen=<port>"
        );
        assert_eq!(
            why("http:on"),
            "write http:none, http:allow or http:listen=<port>"
        );
        assert_eq!(
            why("net:listen"),
            "net:listen needs a port, e.g. net:listen=8080"
        );
        assert_eq!(
            why("net:listen=0"),
            "net:listen takes a port from 1 to 65535, got \"0\""
        );
        assert_eq!(
            why("net:listen=+80"),
            "net:listen takes a port from 1 to 65535, got \"+80\""
        );
        assert_eq!(why("process:"), "write process:none or process:allow");
        assert_eq!(why("secrets"), "write secrets:none or secrets:allow");
        assert_eq!(why("agentos:deny"), "write agentos:none or agentos:allow");
        assert_eq!(why("env:wo"), "write env:none, env:ro or env:rw");
        assert_eq!(why("time:none"), "write time:real or time:frozen=<ms>");
        assert_eq!(why("random:none"), "write random:seed=<n> or random:deny");
        assert_eq!(
            why("fs:allow"),
            "write fs:ro=<dir>, fs:rw=<dir> or fs:none=<path>"
        );
        assert_eq!(
            why("fs:wo=/"),
            "write fs:ro=<dir>, fs:rw=<dir> or fs:none=<path>"
        );
        assert_eq!(
            why("fs"),
            "write fs:ro=<dir>, fs:rw=<dir> or fs:none=<path>"
        );
        assert_eq!(why("exec:allow"), "write exec:none=<path>");
        assert_eq!(why("exec"), "write exec:none=<path>");
        assert_eq!(why("fs:none"), "fs:none needs a path, e.g. fs:none=.env");
        assert_eq!(
            why("exec:none"),
            "exec:none needs a path, e.g. exec:none=bin"
        );
        assert!(why("fs:none=").starts_with("the path is empty"));
        assert!(why("exec:none=/nonexistent-vox/../x").contains("uses \"..\" after"));
        assert_eq!(
            why("fs:ro"),
            "fs:ro needs a directory, e.g. fs:ro=. for the working directory"
        );
        assert!(why("fs:rw=").contains("the directory is empty"));
        assert!(why("env:allow").starts_with("env:allow is ambiguous"));
        assert!(why("net:allow ").starts_with("write net:none"));
        assert!(why("deterministic:yes").contains("takes no value"));
        assert!(why("none:x").contains("takes no value"));
    }

    #[test]
    fn bad_numbers() {
        for tok in [
            "time:frozen=",
            "time:frozen=-1",
            "time:frozen=1.5",
            "time:frozen=+3",
            "time:frozen= 1",
        ] {
            assert!(
                why(tok).starts_with("time:frozen takes a whole number of milliseconds"),
                "{tok}"
            );
        }
        assert_eq!(
            why("time:frozen"),
            "time:frozen needs a value in milliseconds, e.g. time:frozen=0"
        );
        assert_eq!(
            why("random:seed"),
            "random:seed needs a value, e.g. random:seed=0"
        );
        assert!(why("random:seed=0x10").starts_with("random:seed takes a whole number of seed"));
        assert_eq!(
            why("random:seed=18446744073709551616"),
            "random:seed is at most 18446744073709551615 (seed), got 18446744073709551616"
        );
    }

    #[test]
    fn unknown_namespaces() {
        assert!(
            why("disk:allow").starts_with("unknown namespace \"disk\"; valid tokens: fs:ro=<dir>")
        );
        assert!(why("bogus").starts_with("unknown namespace \"bogus\""));
        assert_eq!(why("NET:allow"), "tokens are lower case; write net:…");
        assert!(why("").starts_with("empty token"));
        assert!(why(":").starts_with("unknown namespace \"\""));
    }

    #[test]
    fn render_escapes_the_token() {
        let err = parse("bad\u{1b}[2J:x").unwrap_err();
        assert!(err
            .render()
            .starts_with("vox: invalid --caps token \"bad\\u{1b}[2J:x\": "));
    }

    #[test]
    fn display_is_canonical() {
        for tok in [
            "net:none",
            "net:allow",
            "process:none",
            "process:allow",
            "env:none",
            "env:ro",
            "env:rw",
            "secrets:none",
            "secrets:allow",
            "time:real",
            "time:frozen=5",
            "random:seed=42",
            "random:deny",
            "agentos:none",
            "agentos:allow",
            "deterministic",
            "none",
        ] {
            assert_eq!(parse(tok).unwrap().to_string(), tok);
        }
        assert_eq!(parse("http:allow").unwrap().to_string(), "net:allow");
        assert_eq!(parse("net:listen=8080"), Ok(Token::NetListen(8080)));
        assert_eq!(
            parse("http:listen=65535").unwrap().to_string(),
            "net:listen=65535"
        );
        assert_eq!(
            parse("time:frozen=007").unwrap().to_string(),
            "time:frozen=7"
        );
        assert_eq!(parse("fs:ro=/").unwrap().to_string(), "fs:ro=/");
        assert_eq!(parse("fs:rw=/").unwrap().to_string(), "fs:rw=/");
        assert_eq!(
            parse("fs:none=/nonexistent-vox/a//b/").unwrap(),
            Token::FsNone(PathBuf::from("/nonexistent-vox/a/b"))
        );
        assert_eq!(
            parse("exec:none=/nonexistent-vox/bin").unwrap().to_string(),
            "exec:none=/nonexistent-vox/bin"
        );
        assert_eq!(parse("exec:none=/").unwrap().namespace(), "exec");
    }

    #[test]
    fn deterministic_expands() {
        let expanded: Vec<String> = Token::Deterministic
            .expand()
            .iter()
            .map(Token::to_string)
            .collect();
        assert_eq!(
            expanded,
            [
                "time:frozen=0",
                "random:seed=0",
                "process:none",
                "net:none",
                "env:none"
            ]
        );
        assert_eq!(Token::TimeReal.expand(), vec![Token::TimeReal]);
    }
}
