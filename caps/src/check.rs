//! The gates: the filesystem check (runtime.md §1.1, decisions 17 and 18) and the check for every
//! other namespace. A failed check is a [`Denial`]; the caller stops the script with exit 77.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::fs_rules::Decision;
use crate::one_line::one_line;
use crate::resolve::resolve;
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
        let path = resolved.map_or(absolute, |r| r.path);
        return Ok(Resolved {
            path,
            no_follow: false,
        });
    }
    let resolution = match resolved {
        Ok(resolution) => resolution,
        Err(err) => {
            let why = err.explain(&absolute);
            return Err(Denial {
                remedy: Remedy::Explain(why),
                resource: Some(absolute),
            });
        }
    };
    let write = access == Access::Write;
    let resolved = resolution.path;
    match set.fs_decide(&resolved, &resolution.ids) {
        Decision::Root(root) if root.writable() || !write => Ok(Resolved {
            path: resolved,
            no_follow: write,
        }),
        // No grant helps: at its path a deny wins, and beneath it every grant is narrower
        // than what the script asked for (or lies under the deny too).
        Decision::Denied(path) => Err(Denial {
            remedy: Remedy::Explain(format!(
                "denied by --caps {}",
                shell_quote(&Token::FsNone(path.to_path_buf()).to_string())
            )),
            resource: Some(resolved),
        }),
        Decision::Root(_) | Decision::Outside => {
            let token = hint(&resolved, access);
            Err(Denial {
                remedy: Remedy::Token(token.to_string()),
                resource: Some(resolved),
            })
        }
    }
}

/// Whether the tree at `dir` (an already checked, writable path) may be removed as a whole: not
/// when a read-only root or an `fs:none=` path lies beneath it.
pub fn check_remove_tree(set: &CapSet, dir: &Path) -> Result<(), Denial> {
    match set.deny_beneath(dir) {
        None => Ok(()),
        Some(token) => Err(Denial {
            remedy: Remedy::Explain(format!(
                "{} holds --caps {}, which removing it would break",
                dir.display(),
                shell_quote(&token)
            )),
            resource: Some(dir.to_path_buf()),
        }),
    }
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
}
