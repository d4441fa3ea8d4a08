//! The gates: the filesystem check (runtime.md §1.1, decisions 17 and 18) and the check for every
//! other namespace. A failed check is a [`Denial`]; the caller stops the script with exit 77.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::one_line::one_line;
use crate::set::CapSet;
use crate::token::{EnvGrant, RandomGrant, TimeGrant, Token};

/// What an fs operation does with its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Reads a file or its metadata (`fs.read`, `fs.exists`, `fs.import`, `path.resolve`).
    Read,
    /// Creates, changes or removes (`fs.write`, `fs.mkdir`, `fs.remove`, `io.save`). Needs `fs:rw=`.
    Write,
    /// Lists a directory (`fs.list_dir`, the base of `fs.glob` and `fs.walk`).
    List,
}

/// A non-fs capability a builtin needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Need {
    /// `http.*`, `std.http.*`.
    Net,
    /// `process.*` (except `process.exit`, which needs nothing).
    Process,
    /// `env.get`, `env.args`.
    EnvRo,
    /// `env.set`.
    EnvRw,
    /// `secrets.*`.
    Secrets,
    /// Any clock read; a frozen clock satisfies it.
    Time,
    /// Any randomness-consuming builtin; a seed satisfies it.
    Random,
    /// `agentos.*`.
    Agentos,
}

impl Need {
    /// The narrowest token that satisfies the need, named in the denial. A clock read is offered
    /// `time:real` rather than `time:frozen=0` because that is what a script reading the time
    /// usually means; a randomness need is offered `random:seed=0` because no token grants OS
    /// entropy (receiver-imposed sets are reproducible).
    pub fn token(self) -> Token {
        match self {
            Need::Net => Token::Net(true),
            Need::Process => Token::Process(true),
            Need::EnvRo => Token::Env(EnvGrant::Ro),
            Need::EnvRw => Token::Env(EnvGrant::Rw),
            Need::Secrets => Token::Secrets(true),
            Need::Time => Token::TimeReal,
            Need::Random => Token::RandomSeed(0),
            Need::Agentos => Token::Agentos(true),
        }
    }
}

/// Checks a non-fs capability.
pub fn check(set: &CapSet, need: Need) -> Result<(), Denial> {
    let granted = match need {
        Need::Net => set.net(),
        Need::Process => set.process(),
        Need::EnvRo => set.env() != EnvGrant::None,
        Need::EnvRw => set.env() == EnvGrant::Rw,
        Need::Secrets => set.secrets(),
        Need::Time => set.time() != TimeGrant::Denied,
        Need::Random => set.random() != RandomGrant::Denied,
        Need::Agentos => set.agentos(),
    };
    if granted {
        return Ok(());
    }
    Err(Denial {
        remedy: Remedy::Token(need.token().to_string()),
        resource: None,
    })
}

/// A path that passed the check: the operation must use [`Resolved::path`], not the path the
/// script gave, so check and operation name the same file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    path: PathBuf,
    no_follow: bool,
}

impl Resolved {
    /// The absolute path with every existing symlink resolved; a part that does not exist yet is
    /// appended as written, lexically normalised.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn into_path(self) -> PathBuf {
        self.path
    }

    /// True for writes under fs roots: open the final component with `O_NOFOLLOW` (and create with
    /// `O_EXCL` where the operation allows). The check resolved every symlink, so a symlink found
    /// there at open time was planted after the check and could point out of the roots
    /// (decision 18). False for reads, listings and an unscoped filesystem.
    pub fn no_follow(&self) -> bool {
        self.no_follow
    }
}

/// Why a check failed, and what would have allowed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    remedy: Remedy,
    resource: Option<PathBuf>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Remedy {
    /// The narrowest token that would have allowed the call.
    Token(String),
    /// No token would: the path itself is refused. The text says what to change instead.
    Explain(String),
}

impl Denial {
    /// The narrowest token that would have allowed the call (decision 17), or `None` when no
    /// token would (a `..` after a missing directory, a symlink loop).
    pub fn token(&self) -> Option<&str> {
        match &self.remedy {
            Remedy::Token(token) => Some(token),
            Remedy::Explain(_) => None,
        }
    }

    /// The resolved path that was refused, for `--caps-audit`; `None` for non-fs checks.
    pub fn resource(&self) -> Option<&Path> {
        self.resource.as_deref()
    }

    /// What follows the em dash: `grant with --caps <token>`, or why no token helps.
    pub fn remedy(&self) -> String {
        match &self.remedy {
            Remedy::Token(token) => format!("grant with --caps {}", shell_quote(token)),
            Remedy::Explain(why) => why.clone(),
        }
    }

    /// The one stderr line of runtime.md §1.2, where `what` is the builtin (`fs.read`):
    /// `vox: capability denied: fs.read — grant with --caps fs:ro=/data`. A token holding
    /// characters the shell would split or expand is single-quoted so the hint can be pasted.
    pub fn message(&self, what: &str) -> String {
        one_line(&format!(
            "vox: capability denied: {what} \u{2014} {}",
            self.remedy()
        ))
    }
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "capability denied: {}", self.remedy())
    }
}

impl std::error::Error for Denial {}

fn shell_quote(token: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-:=,+@%".contains(c);
    if !token.is_empty() && token.chars().all(plain) {
        return token.to_string();
    }
    format!("'{}'", token.replace('\'', r"'\''"))
}

/// Checks an fs operation on `path` (relative paths resolve against `cwd`) and returns the path
/// the operation must use.
///
/// The path is resolved like the kernel would, component by component, following symlinks; the
/// part that does not exist yet is appended as written and may not contain `..` (decision 18).
/// The result must lie under a root by whole path components, and writes need an `fs:rw=` root,
/// so a symlink that leads out of the roots is denied wherever it sits in the path.
///
/// With an unscoped filesystem everything is allowed and the path is still resolved (falling
/// back to the absolute path when it cannot be, so the operation reports the OS error).
///
/// Operations on a directory entry itself (removing or renaming a symlink) should check the
/// parent directory with [`Access::Write`] and act on `parent/name`: this check resolves the final
/// component.
pub fn check_path(
    set: &CapSet,
    path: &Path,
    access: Access,
    cwd: &Path,
) -> Result<Resolved, Denial> {
    let joined = cwd.join(path);
    let absolute = match std::path::absolute(&joined) {
        Ok(absolute) => absolute,
        Err(_) if set.fs_unscoped() => {
            return Ok(Resolved {
                path: joined,
                no_follow: false,
            })
        }
        Err(err) => {
            let why = format!("cannot make {} absolute: {err}", joined.display());
            return Err(Denial {
                remedy: Remedy::Explain(why),
                resource: Some(joined),
            });
        }
    };
    let resolved = resolve(&absolute);
    if set.fs_unscoped() {
        let path = resolved.unwrap_or(absolute);
        return Ok(Resolved {
            path,
            no_follow: false,
        });
    }
    let resolved = match resolved {
        Ok(resolved) => resolved,
        Err(err) => {
            let why = err.explain(&absolute);
            return Err(Denial {
                remedy: Remedy::Explain(why),
                resource: Some(absolute),
            });
        }
    };
    let write = access == Access::Write;
    if set.fs_admits(&resolved, write) {
        return Ok(Resolved {
            path: resolved,
            no_follow: write,
        });
    }
    let token = hint(&resolved, access);
    Err(Denial {
        remedy: Remedy::Token(token.to_string()),
        resource: Some(resolved),
    })
}

/// The narrowest valid token (decision 17): the directory read from or written into, or the
/// listed directory itself, replaced by its nearest existing ancestor directory, because a root
/// must exist when it is parsed.
fn hint(resolved: &Path, access: Access) -> Token {
    let dir = match access {
        Access::List => resolved,
        Access::Read | Access::Write => resolved.parent().unwrap_or(resolved),
    };
    let existing = dir
        .ancestors()
        .find(|d| d.is_dir())
        .unwrap_or(Path::new("/"))
        .to_path_buf();
    match access {
        Access::Write => Token::FsRw(existing),
        Access::Read | Access::List => Token::FsRo(existing),
    }
}

/// Linux's limit on symlinks followed while resolving one path (`MAXSYMLINKS`).
const MAX_SYMLINKS: u32 = 40;

#[derive(Debug)]
enum ResolveError {
    /// `..` after a component that does not exist; `missing` is that component's path.
    ParentOfMissing { missing: PathBuf },
    /// More than [`MAX_SYMLINKS`] links, most likely a loop.
    TooManySymlinks,
    /// A symlink whose target cannot be read.
    UnreadableLink { link: PathBuf, err: io::Error },
}

impl ResolveError {
    fn explain(&self, path: &Path) -> String {
        match self {
            ResolveError::ParentOfMissing { missing } => format!(
                "{} uses \"..\" after {}, which does not exist; create it first or remove the \"..\"",
                path.display(),
                missing.display()
            ),
            ResolveError::TooManySymlinks => {
                format!("too many symbolic links resolving {} (a loop?)", path.display())
            }
            ResolveError::UnreadableLink { link, err } => {
                format!("cannot read symbolic link {}: {err}", link.display())
            }
        }
    }
}

enum Step {
    Root,
    Parent,
    Name(OsString),
}

fn push_front(queue: &mut VecDeque<Step>, path: &Path) {
    let steps: Vec<Step> = path
        .components()
        .filter_map(|c| match c {
            // Other platforms' prefixes are kept by `Root` handling; this crate targets unix.
            Component::Prefix(_) | Component::RootDir => Some(Step::Root),
            Component::CurDir => None,
            Component::ParentDir => Some(Step::Parent),
            Component::Normal(name) => Some(Step::Name(name.to_os_string())),
        })
        .collect();
    for step in steps.into_iter().rev() {
        queue.push_front(step);
    }
}

/// Resolves an absolute path the way the kernel walks it, without requiring the tail to exist.
///
/// Iterative, so neither a long path nor a chain of links can exhaust the stack. A component the
/// walk cannot see into (permission denied, a file used as a directory) counts as missing: the
/// operation will fail on it the same way, and the lexical tail stays under the same parent.
fn resolve(absolute: &Path) -> Result<PathBuf, ResolveError> {
    let mut queue = VecDeque::new();
    push_front(&mut queue, absolute);
    let mut resolved = PathBuf::from("/");
    let mut missing: Option<PathBuf> = None;
    let mut links = 0;
    while let Some(step) = queue.pop_front() {
        match step {
            Step::Root => resolved = PathBuf::from("/"),
            Step::Parent => {
                if let Some(missing) = missing {
                    return Err(ResolveError::ParentOfMissing { missing });
                }
                resolved.pop();
            }
            Step::Name(name) => {
                resolved.push(&name);
                if missing.is_some() {
                    continue;
                }
                match std::fs::symlink_metadata(&resolved) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        links += 1;
                        if links > MAX_SYMLINKS {
                            return Err(ResolveError::TooManySymlinks);
                        }
                        let target = match std::fs::read_link(&resolved) {
                            Ok(target) => target,
                            Err(err) => {
                                return Err(ResolveError::UnreadableLink {
                                    link: resolved,
                                    err,
                                })
                            }
                        };
                        // A relative target is relative to the directory holding the link.
                        resolved.pop();
                        push_front(&mut queue, &target);
                    }
                    Ok(_) => {}
                    Err(_) => missing = Some(resolved.clone()),
                }
            }
        }
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_fs_needs() {
        let none = CapSet::none();
        let all = CapSet::developer_default();
        let cases = [
            (Need::Net, "net:allow"),
            (Need::Process, "process:allow"),
            (Need::EnvRo, "env:ro"),
            (Need::EnvRw, "env:rw"),
            (Need::Secrets, "secrets:allow"),
            (Need::Time, "time:real"),
            (Need::Random, "random:seed=0"),
            (Need::Agentos, "agentos:allow"),
        ];
        for (need, token) in cases {
            let denial = check(&none, need).unwrap_err();
            assert_eq!(denial.token(), Some(token));
            assert_eq!(denial.resource(), None);
            assert_eq!(check(&all, need), Ok(()));
            // The hint is itself sufficient.
            let granted = CapSet::from_tokens(&[need.token()]).unwrap();
            assert_eq!(check(&granted, need), Ok(()), "{token}");
        }
    }

    #[test]
    fn env_levels() {
        let ro = CapSet::from_tokens(&[Token::Env(EnvGrant::Ro)]).unwrap();
        assert_eq!(check(&ro, Need::EnvRo), Ok(()));
        assert_eq!(check(&ro, Need::EnvRw).unwrap_err().token(), Some("env:rw"));
    }

    #[test]
    fn frozen_time_and_seeds_satisfy() {
        let det = CapSet::from_tokens(&[Token::Deterministic]).unwrap();
        assert_eq!(check(&det, Need::Time), Ok(()));
        assert_eq!(check(&det, Need::Random), Ok(()));
        assert!(check(&det, Need::Net).is_err());
        let deny = CapSet::from_tokens(&[Token::RandomDeny]).unwrap();
        assert!(check(&deny, Need::Random).is_err());
    }

    #[test]
    fn message_format() {
        let denial = check(&CapSet::none(), Need::EnvRw).unwrap_err();
        assert_eq!(
            denial.message("env.set"),
            "vox: capability denied: env.set \u{2014} grant with --caps env:rw"
        );
        assert_eq!(
            denial.to_string(),
            "capability denied: grant with --caps env:rw"
        );
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("fs:ro=/a/b-c_d.e"), "fs:ro=/a/b-c_d.e");
        assert_eq!(shell_quote("fs:ro=/my dir"), "'fs:ro=/my dir'");
        assert_eq!(shell_quote("fs:ro=/it's"), r"'fs:ro=/it'\''s'");
        assert_eq!(shell_quote("fs:ro=/$HOME"), "'fs:ro=/$HOME'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn resolve_is_lexical_for_missing_paths() {
        let base = "/nonexistent-vox-caps-test-root";
        assert_eq!(
            resolve(Path::new(&format!("{base}/a/./b//c"))).unwrap(),
            PathBuf::from(format!("{base}/a/b/c"))
        );
        assert!(matches!(
            resolve(Path::new(&format!("{base}/a/../b"))),
            Err(ResolveError::ParentOfMissing { .. })
        ));
        // `..` before anything missing is resolved against what exists.
        assert_eq!(resolve(Path::new("/../..")).unwrap(), PathBuf::from("/"));
    }
}
