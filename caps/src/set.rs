//! The capability set a run executes under (runtime.md §1, decision 13).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::fs_rules::{Decision, FsRoot, FsRules};
use crate::resolve::FileId;
use crate::token::{CapsError, EnvGrant, RandomGrant, TimeGrant, Token};

#[derive(Clone, Debug, PartialEq, Eq)]
enum Fs {
    /// The whole filesystem, read and write (developer default, legacy `fs`).
    Unscoped,
    /// Roots and the denies that narrow them.
    Roots(FsRules),
}

/// What a run may do. Everything not granted is denied.
///
/// Equality is semantic: `net:none` and an unmentioned `net` make equal sets, because both deny.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapSet {
    fs: Fs,
    net: bool,
    /// `net:listen=` ports, sorted, unique.
    listen: Vec<u16>,
    process: bool,
    env: EnvGrant,
    secrets: bool,
    time: TimeGrant,
    random: RandomGrant,
    agentos: bool,
}

/// One namespace's value while tokens are merged, with the token that set it, so a conflict can
/// name both tokens as the user wrote them (`deterministic` rather than its expansion).
struct Slot<T>(Option<(T, String)>);

impl<T: PartialEq + Copy> Slot<T> {
    fn set(&mut self, value: T, source: &Token) -> Result<(), CapsError> {
        match &self.0 {
            None => {
                self.0 = Some((value, source.to_string()));
                Ok(())
            }
            Some((old, _)) if *old == value => Ok(()),
            Some((_, first)) => Err(CapsError::Conflict {
                first: first.clone(),
                second: source.to_string(),
            }),
        }
    }

    fn get(&self) -> Option<T> {
        self.0.as_ref().map(|(value, _)| *value)
    }
}

impl CapSet {
    /// Grants nothing: `--caps none`, `caps = []` in a run configuration.
    pub fn none() -> CapSet {
        CapSet {
            fs: Fs::Roots(FsRules::default()),
            net: false,
            listen: Vec::new(),
            process: false,
            env: EnvGrant::None,
            secrets: false,
            time: TimeGrant::Denied,
            random: RandomGrant::Denied,
            agentos: false,
        }
    }

    /// Everything granted, filesystem unscoped, env writable, the real clock and OS entropy: the
    /// set of a plain `vox run` with no `--caps`, run configuration or directive (runtime.md §1 rule 4).
    pub fn developer_default() -> CapSet {
        CapSet {
            fs: Fs::Unscoped,
            net: true,
            listen: Vec::new(),
            process: true,
            env: EnvGrant::Rw,
            secrets: true,
            time: TimeGrant::Real,
            random: RandomGrant::Entropy,
            agentos: true,
        }
    }

    /// The union of `tokens`. Identical duplicates are fine and fs roots union (ro and rw on one
    /// directory give rw); fs and exec denies narrow the roots (the most specific path decides,
    /// see [`crate::fs_rules`]); two different values for any other namespace are a
    /// [`CapsError::Conflict`] naming both tokens (decision 13), never last-wins.
    pub fn from_tokens(tokens: &[Token]) -> Result<CapSet, CapsError> {
        let mut roots: Vec<(PathBuf, bool)> = Vec::new();
        let mut none: Vec<PathBuf> = Vec::new();
        let mut no_exec: Vec<PathBuf> = Vec::new();
        let mut listen: Vec<u16> = Vec::new();
        let mut net = Slot(None);
        let mut process = Slot(None);
        let mut env = Slot(None);
        let mut secrets = Slot(None);
        let mut time = Slot(None);
        let mut random = Slot(None);
        let mut agentos = Slot(None);
        for source in tokens {
            for token in source.expand() {
                match token {
                    Token::FsRo(dir)
                    | Token::FsRw(dir)
                    | Token::FsNone(dir)
                    | Token::ExecNone(dir)
                        if !dir.is_absolute() =>
                    {
                        // `parse_token` never builds these; an empty or relative root would
                        // otherwise admit far more than meant.
                        return Err(CapsError::Invalid {
                            token: source.to_string(),
                            why: "fs roots must be absolute, canonical directories".to_string(),
                        });
                    }
                    Token::FsRo(dir) => roots.push((dir, false)),
                    Token::FsRw(dir) => roots.push((dir, true)),
                    Token::FsNone(path) => none.push(path),
                    Token::ExecNone(path) => no_exec.push(path),
                    Token::Net(allow) => net.set(allow, source)?,
                    Token::NetListen(port) => listen.push(port),
                    Token::Process(allow) => process.set(allow, source)?,
                    Token::Env(grant) => env.set(grant, source)?,
                    Token::Secrets(allow) => secrets.set(allow, source)?,
                    Token::TimeReal => time.set(TimeGrant::Real, source)?,
                    Token::TimeFrozen(ms) => time.set(TimeGrant::Frozen(ms), source)?,
                    Token::RandomSeed(seed) => random.set(RandomGrant::Seed(seed), source)?,
                    Token::RandomDeny => random.set(RandomGrant::Denied, source)?,
                    Token::Agentos(allow) => agentos.set(allow, source)?,
                    Token::Deterministic | Token::None => {}
                }
            }
        }
        listen.sort_unstable();
        listen.dedup();
        Ok(CapSet {
            fs: Fs::Roots(FsRules::new(roots, none, no_exec)),
            net: net.get().unwrap_or(false),
            listen,
            process: process.get().unwrap_or(false),
            env: env.get().unwrap_or(EnvGrant::None),
            secrets: secrets.get().unwrap_or(false),
            time: time.get().unwrap_or(TimeGrant::Denied),
            random: random.get().unwrap_or(RandomGrant::Denied),
            agentos: agentos.get().unwrap_or(false),
        })
    }

    /// The set a legacy `// vox:caps WORD...` directive grants (runtime.md §1.3). The directive is
    /// exhaustive: a namespace it does not name is denied. Unknown words grant nothing; see
    /// [`crate::LegacyDirective::unknown`] for warning about them.
    pub fn from_legacy_directive<S: AsRef<str>>(words: &[S]) -> CapSet {
        let mut set = CapSet::none();
        for word in words {
            match word.as_ref() {
                "fs" => set.fs = Fs::Unscoped,
                "process" | "subprocess" => set.process = true,
                "net" | "http" => set.net = true,
                "env" => set.env = EnvGrant::Rw,
                "secrets" => set.secrets = true,
                "time" => set.time = TimeGrant::Real,
                "random" => set.random = RandomGrant::Entropy,
                "agentos" => set.agentos = true,
                _ => {}
            }
        }
        set
    }

    /// The fs roots, sorted by directory. Empty when the filesystem is unscoped: check
    /// [`CapSet::fs_unscoped`] first.
    pub fn fs_roots(&self) -> &[FsRoot] {
        match &self.fs {
            Fs::Unscoped => &[],
            Fs::Roots(rules) => &rules.roots,
        }
    }

    /// The `fs:none=` paths, sorted; empty when the filesystem is unscoped.
    pub fn fs_denied(&self) -> Vec<&Path> {
        match &self.fs {
            Fs::Unscoped => Vec::new(),
            Fs::Roots(rules) => rules.none.iter().map(|d| d.path.as_path()).collect(),
        }
    }

    /// The `exec:none=` paths, sorted; empty when the filesystem is unscoped.
    pub fn exec_denied_paths(&self) -> &[PathBuf] {
        match &self.fs {
            Fs::Unscoped => &[],
            Fs::Roots(rules) => &rules.no_exec,
        }
    }

    /// `fs:ro=` roots that lie inside a writable root (the nearest rule above them is an
    /// `fs:rw=` root): read-only subtrees of a writable place.
    pub fn read_only_within(&self) -> Vec<PathBuf> {
        match &self.fs {
            Fs::Unscoped => Vec::new(),
            Fs::Roots(rules) => rules.read_only_within(),
        }
    }

    /// The `exec:none=` path that covers an already resolved path, if any: children may not
    /// execute it.
    pub fn exec_denied(&self, resolved: &Path) -> Option<&Path> {
        match &self.fs {
            Fs::Unscoped => None,
            Fs::Roots(rules) => rules.exec_denied(resolved),
        }
    }

    /// A read-only root or `fs:none=` path strictly beneath `dir`, as its token: removing the
    /// tree at `dir` would break it.
    pub fn deny_beneath(&self, dir: &Path) -> Option<String> {
        match &self.fs {
            Fs::Unscoped => None,
            Fs::Roots(rules) => rules.deny_beneath(dir),
        }
    }

    /// Warnings about the tokens (`vox: warning: …` lines): denies that deny nothing.
    pub fn warnings(&self) -> Vec<String> {
        match &self.fs {
            Fs::Unscoped => Vec::new(),
            Fs::Roots(rules) => rules.warnings(),
        }
    }

    /// True when every path is admitted for reading and writing (developer default, legacy `fs`).
    pub fn fs_unscoped(&self) -> bool {
        self.fs == Fs::Unscoped
    }

    /// True when any fs authority exists; `fs.cwd()` needs this much (decision 35).
    pub fn fs_any(&self) -> bool {
        match &self.fs {
            Fs::Unscoped => true,
            Fs::Roots(rules) => !rules.roots.is_empty(),
        }
    }

    /// Whether an already resolved, absolute path is admitted, e.g. to filter `fs.walk` results:
    /// the most specific rule decides (by path only). Unresolved paths must go through
    /// [`crate::check_path`] instead.
    pub fn fs_admits(&self, resolved: &Path, write: bool) -> bool {
        match &self.fs {
            Fs::Unscoped => true,
            // `Path::starts_with` compares whole components: `/tmp/job` does not admit `/tmp/jobx`.
            Fs::Roots(rules) => rules.admits(resolved, write),
        }
    }

    /// The rule that decides for a resolved path, as a token (`fs:rw=/p`, `fs:ro=/p/.git`,
    /// `fs:none=/p/.env`); `None` outside every root or without fs scoping. For audit lines.
    pub fn fs_rule_for(&self, resolved: &Path) -> Option<String> {
        match self.fs_decide(resolved, &[]) {
            Decision::Root(r) => Some(format!(
                "fs:{}={}",
                if r.writable() { "rw" } else { "ro" },
                r.dir().display()
            )),
            Decision::Denied(p) => Some(format!("fs:none={}", p.display())),
            Decision::Outside => None,
        }
    }

    /// The deny that refuses an access a broader grant here would allow (`fs:none=…`, or an
    /// `fs:ro=…` inside a writable root for a write), as a token; see `FsRules::blocking_rule`.
    pub fn fs_blocking_rule(&self, resolved: &Path, write: bool) -> Option<String> {
        match &self.fs {
            Fs::Unscoped => None,
            Fs::Roots(rules) => rules.blocking_rule(resolved, write),
        }
    }

    /// The rule deciding for a resolved path and its components' identities (the check).
    pub(crate) fn fs_decide(&self, resolved: &Path, ids: &[Option<FileId>]) -> Decision<'_> {
        match &self.fs {
            Fs::Unscoped => Decision::Outside,
            Fs::Roots(rules) => rules.decide(resolved, ids),
        }
    }

    /// `http.*` and `std.http.*`.
    pub fn net(&self) -> bool {
        self.net
    }

    /// The `net:listen=` ports: children may accept connections on them (sorted).
    pub fn listen_ports(&self) -> &[u16] {
        &self.listen
    }

    /// `process.*`; children are jailed when the set is receiver-imposed (decision 16).
    pub fn process(&self) -> bool {
        self.process
    }

    /// `env.get` and `env.args` need [`EnvGrant::Ro`], `env.set` needs [`EnvGrant::Rw`].
    pub fn env(&self) -> EnvGrant {
        self.env
    }

    /// `secrets.*`.
    pub fn secrets(&self) -> bool {
        self.secrets
    }

    /// What `time.*` reads, or [`TimeGrant::Denied`].
    pub fn time(&self) -> TimeGrant {
        self.time
    }

    /// Where `random.*` and `crypto.uuid` draw from, or [`RandomGrant::Denied`].
    pub fn random(&self) -> RandomGrant {
        self.random
    }

    /// `agentos.*`.
    pub fn agentos(&self) -> bool {
        self.agentos
    }

    /// The set as sorted canonical tokens, one per grant; `["none"]` when nothing is granted.
    ///
    /// Denials are not printed (`net:none` and an unmentioned `net` are the same set), so parsing
    /// the output gives an equal set. Two grants have no `--caps` token: an unscoped filesystem
    /// prints as its equivalent `fs:rw=/`, and OS entropy prints as `random:entropy`, which
    /// `parse_token` rejects on purpose (receiver-imposed sets are reproducible).
    pub fn tokens(&self) -> Vec<String> {
        let mut out = Vec::new();
        match &self.fs {
            Fs::Unscoped => out.push("fs:rw=/".to_string()),
            Fs::Roots(rules) => {
                for root in &rules.roots {
                    let token = if root.writable {
                        Token::FsRw(root.dir.clone())
                    } else {
                        Token::FsRo(root.dir.clone())
                    };
                    out.push(token.to_string());
                }
                for deny in &rules.none {
                    out.push(Token::FsNone(deny.path.clone()).to_string());
                }
                for path in &rules.no_exec {
                    out.push(Token::ExecNone(path.clone()).to_string());
                }
            }
        }
        for &port in &self.listen {
            out.push(Token::NetListen(port).to_string());
        }
        let switches = [
            (self.net, Token::Net(true)),
            (self.process, Token::Process(true)),
            (self.secrets, Token::Secrets(true)),
            (self.agentos, Token::Agentos(true)),
        ];
        for (granted, token) in switches {
            if granted {
                out.push(token.to_string());
            }
        }
        if self.env != EnvGrant::None {
            out.push(Token::Env(self.env).to_string());
        }
        match self.time {
            TimeGrant::Denied => {}
            TimeGrant::Real => out.push(Token::TimeReal.to_string()),
            TimeGrant::Frozen(ms) => out.push(Token::TimeFrozen(ms).to_string()),
        }
        match self.random {
            RandomGrant::Denied => {}
            RandomGrant::Seed(seed) => out.push(Token::RandomSeed(seed).to_string()),
            RandomGrant::Entropy => out.push("random:entropy".to_string()),
        }
        if out.is_empty() {
            out.push("none".to_string());
        }
        out.sort();
        out
    }
}

/// The tokens of [`CapSet::tokens`] separated by spaces, for `--verbose` and logs.
impl fmt::Display for CapSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tokens().join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(tokens: &[Token]) -> CapSet {
        CapSet::from_tokens(tokens).unwrap()
    }

    fn conflict(tokens: &[Token]) -> String {
        CapSet::from_tokens(tokens).unwrap_err().render()
    }

    #[test]
    fn empty_and_none_grant_nothing() {
        assert_eq!(set(&[]), CapSet::none());
        assert_eq!(set(&[Token::None]), CapSet::none());
        assert_eq!(CapSet::none().tokens(), ["none"]);
        let none = CapSet::none();
        assert!(!none.fs_any() && !none.fs_unscoped() && none.fs_roots().is_empty());
        assert!(!none.net() && !none.process() && !none.secrets() && !none.agentos());
        assert_eq!(none.env(), EnvGrant::None);
        assert_eq!(none.time(), TimeGrant::Denied);
        assert_eq!(none.random(), RandomGrant::Denied);
    }

    #[test]
    fn explicit_denials_equal_unmentioned() {
        let explicit = set(&[
            Token::Net(false),
            Token::Process(false),
            Token::Env(EnvGrant::None),
            Token::Secrets(false),
            Token::RandomDeny,
            Token::Agentos(false),
        ]);
        assert_eq!(explicit, CapSet::none());
    }

    #[test]
    fn none_is_a_union_member() {
        let s = set(&[Token::None, Token::Net(true)]);
        assert!(s.net());
        assert_eq!(s.tokens(), ["net:allow"]);
    }

    #[test]
    fn identical_duplicates_are_fine() {
        let s = set(&[
            Token::Net(true),
            Token::Net(true),
            Token::TimeFrozen(3),
            Token::TimeFrozen(3),
        ]);
        assert!(s.net());
        assert_eq!(s.time(), TimeGrant::Frozen(3));
    }

    #[test]
    fn deterministic_expands_and_agrees_with_matching_tokens() {
        let s = set(&[Token::Deterministic]);
        assert_eq!(s.time(), TimeGrant::Frozen(0));
        assert_eq!(s.random(), RandomGrant::Seed(0));
        assert!(!s.net() && !s.process());
        assert_eq!(s.env(), EnvGrant::None);
        assert_eq!(s.tokens(), ["random:seed=0", "time:frozen=0"]);
        let same = set(&[
            Token::Deterministic,
            Token::Net(false),
            Token::TimeFrozen(0),
            Token::Deterministic,
        ]);
        assert_eq!(same, s);
        let more = set(&[Token::Deterministic, Token::Secrets(true)]);
        assert!(more.secrets());
    }

    #[test]
    fn conflicts_name_both_tokens() {
        assert_eq!(
            conflict(&[Token::Net(false), Token::Net(true)]),
            "vox: conflicting --caps tokens \"net:none\" and \"net:allow\": a namespace takes one value, so keep one of them"
        );
        assert!(conflict(&[Token::TimeReal, Token::TimeFrozen(0)])
            .starts_with("vox: conflicting --caps tokens \"time:real\" and \"time:frozen=0\""));
        assert!(conflict(&[Token::RandomSeed(1), Token::RandomSeed(2)])
            .starts_with("vox: conflicting --caps tokens \"random:seed=1\" and \"random:seed=2\""));
        assert!(conflict(&[Token::RandomSeed(1), Token::RandomDeny])
            .contains("\"random:seed=1\" and \"random:deny\""));
        assert!(
            conflict(&[Token::Env(EnvGrant::Ro), Token::Env(EnvGrant::Rw)])
                .contains("\"env:ro\" and \"env:rw\"")
        );
        assert!(
            conflict(&[Token::Process(true), Token::Process(false)]).contains("\"process:allow\"")
        );
        assert!(
            conflict(&[Token::Secrets(true), Token::Secrets(false)]).contains("\"secrets:none\"")
        );
        assert!(
            conflict(&[Token::Agentos(true), Token::Agentos(false)]).contains("\"agentos:none\"")
        );
        assert_eq!(
            conflict(&[Token::TimeReal, Token::Deterministic]),
            "vox: conflicting --caps tokens \"time:real\" and \"deterministic\": deterministic means \
             time:frozen=0 random:seed=0 process:none net:none env:none, so drop one of them"
        );
        assert!(conflict(&[Token::Deterministic, Token::Net(true)])
            .contains("\"deterministic\" and \"net:allow\""));
        assert!(conflict(&[Token::Deterministic, Token::RandomSeed(7)])
            .contains("\"deterministic\" and \"random:seed=7\""));
        assert!(conflict(&[Token::Deterministic, Token::Env(EnvGrant::Ro)]).contains("\"env:ro\""));
    }

    #[test]
    fn fs_roots_union_and_sort() {
        let s = set(&[
            Token::FsRo(PathBuf::from("/b")),
            Token::FsRo(PathBuf::from("/a")),
            Token::FsRw(PathBuf::from("/b")),
            Token::FsRo(PathBuf::from("/b")),
        ]);
        let roots: Vec<(&Path, bool)> = s
            .fs_roots()
            .iter()
            .map(|r| (r.dir(), r.writable()))
            .collect();
        assert_eq!(roots, [(Path::new("/a"), false), (Path::new("/b"), true)]);
        assert!(s.fs_any() && !s.fs_unscoped());
        assert_eq!(s.tokens(), ["fs:ro=/a", "fs:rw=/b"]);
    }

    #[test]
    fn relative_roots_are_refused() {
        let err = CapSet::from_tokens(&[Token::FsRw(PathBuf::new())]).unwrap_err();
        assert!(err.render().contains("fs roots must be absolute"));
        assert!(CapSet::from_tokens(&[Token::FsRo(PathBuf::from("rel"))]).is_err());
    }

    #[test]
    fn fs_admits_whole_components() {
        let s = set(&[
            Token::FsRo(PathBuf::from("/tmp/job")),
            Token::FsRw(PathBuf::from("/tmp/out")),
        ]);
        assert!(s.fs_admits(Path::new("/tmp/job"), false));
        assert!(s.fs_admits(Path::new("/tmp/job/a/b"), false));
        assert!(!s.fs_admits(Path::new("/tmp/jobx"), false));
        assert!(!s.fs_admits(Path::new("/tmp/job/a"), true));
        assert!(s.fs_admits(Path::new("/tmp/out/a"), true));
        assert!(!s.fs_admits(Path::new("/tmp"), false));
        assert!(CapSet::developer_default().fs_admits(Path::new("/etc"), true));
    }

    #[test]
    fn developer_default_grants_everything() {
        let d = CapSet::developer_default();
        assert!(d.fs_unscoped() && d.fs_any() && d.fs_roots().is_empty());
        assert!(d.net() && d.process() && d.secrets() && d.agentos());
        assert_eq!(d.env(), EnvGrant::Rw);
        assert_eq!(d.time(), TimeGrant::Real);
        assert_eq!(d.random(), RandomGrant::Entropy);
        assert_eq!(
            d.tokens(),
            [
                "agentos:allow",
                "env:rw",
                "fs:rw=/",
                "net:allow",
                "process:allow",
                "random:entropy",
                "secrets:allow",
                "time:real"
            ]
        );
        assert_eq!(d.to_string(), d.tokens().join(" "));
    }

    #[test]
    fn tokens_round_trip_sorted() {
        let s = set(&[
            Token::TimeFrozen(12),
            Token::FsRw(PathBuf::from("/srv")),
            Token::Env(EnvGrant::Ro),
            Token::RandomSeed(9),
            Token::Net(true),
            Token::Agentos(true),
            Token::Process(true),
            Token::Secrets(true),
        ]);
        let printed = s.tokens();
        assert_eq!(
            printed,
            [
                "agentos:allow",
                "env:ro",
                "fs:rw=/srv",
                "net:allow",
                "process:allow",
                "random:seed=9",
                "secrets:allow",
                "time:frozen=12"
            ]
        );
        let mut sorted = printed.clone();
        sorted.sort();
        assert_eq!(printed, sorted);
        // `/srv` may not exist on the test host, so reparse only the rest; tests/paths.rs round-trips
        // real roots.
        let reparsed: Vec<Token> = printed
            .iter()
            .filter(|t| !t.starts_with("fs:"))
            .map(|t| crate::token::parse_token(t, Path::new("/")).unwrap())
            .chain([Token::FsRw(PathBuf::from("/srv"))])
            .collect();
        assert_eq!(set(&reparsed), s);
    }

    #[test]
    fn legacy_words_are_exhaustive() {
        let s = CapSet::from_legacy_directive(&["process"]);
        assert!(s.process());
        assert!(!s.net() && !s.secrets() && !s.agentos() && !s.fs_any());
        assert_eq!(s.env(), EnvGrant::None);
        assert_eq!(s.time(), TimeGrant::Denied);
        assert_eq!(s.random(), RandomGrant::Denied);
        let all = CapSet::from_legacy_directive(&[
            "fs",
            "subprocess",
            "http",
            "env",
            "secrets",
            "time",
            "random",
            "agentos",
            "bogus",
        ]);
        assert_eq!(all, CapSet::developer_default());
        assert!(CapSet::from_legacy_directive(&["net"]).net());
        assert_eq!(CapSet::from_legacy_directive::<&str>(&[]), CapSet::none());
    }
}
