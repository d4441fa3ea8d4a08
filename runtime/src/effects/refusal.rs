//! A child's denial explained (issue 39 item 4). A jailed child that the kernel refuses prints
//! only `Permission denied` (or `Read-only file system`, `Operation not permitted`), with
//! nothing saying that the jail did it or which grant would allow it. When a jailed child fails
//! and its captured stderr shows such a refusal on a path, the path is checked against the run's
//! capabilities as the child sees them; if they do not grant it (or a deny refuses it), `vox run`
//! adds one line naming what was refused and the token that would grant it:
//!
//! ```text
//! vox: the jail refused cat reading /home/ann/p/outside/secret.txt — grant with --caps fs:ro=/home/ann/p/outside
//! ```
//!
//! A path the capabilities grant gets no line (the file's own mode refused it, not the jail),
//! nor does a child that succeeded or a run whose children are not jailed.

use std::path::{Path, PathBuf};

use vox_caps::{check_path, system_place, Access, CapSet};

/// What the child tried to do with the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verb {
    Read,
    Write,
    Exec,
}

impl Verb {
    fn ing(self) -> &'static str {
        match self {
            Verb::Read => "reading",
            Verb::Write => "writing",
            Verb::Exec => "executing",
        }
    }
}

/// The refusals the kernel reports on a path (`strerror` of `EACCES`, `EROFS`, `EPERM`).
const PHRASES: [&str; 3] = [
    "Permission denied",
    "Read-only file system",
    "Operation not permitted",
];

/// Words of a message that mean the program was creating or changing the file.
const WRITING: [&str; 12] = [
    "cannot create",
    "can't create",
    "cannot touch",
    "cannot remove",
    "cannot make",
    "cannot move",
    "cannot write",
    "for writing",
    "changing ",
    "cannot create directory",
    "cannot overwrite",
    "cannot link",
];

/// The quoted parts of a line: '…', ‘…’, "…", `…'.
fn quoted(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (open, close) in [
        ('\'', '\''),
        ('\u{2018}', '\u{2019}'),
        ('"', '"'),
        ('`', '\''),
    ] {
        let mut rest = line;
        while let Some(i) = rest.find(open) {
            let after = &rest[i + open.len_utf8()..];
            let Some(j) = after.find(close) else { break };
            if j > 0 {
                out.push(&after[..j]);
            }
            rest = &after[j + close.len_utf8()..];
        }
    }
    out
}

/// The paths a refusal line may name, most likely first: quoted parts, then the fields between
/// `: ` (the last word of a `cannot create X` field), leaving out the program's name, a line
/// number and the phrase itself.
fn candidates(line: &str) -> Vec<String> {
    let mut out: Vec<String> = quoted(line).into_iter().map(str::to_string).collect();
    let fields: Vec<&str> = line.split(": ").collect();
    for (i, f) in fields.iter().enumerate() {
        let f = f.trim();
        if i == 0 && fields.len() > 2 {
            continue;
        }
        if f.is_empty() || f.bytes().all(|b| b.is_ascii_digit()) || PHRASES.contains(&f) {
            continue;
        }
        let lower = f.to_ascii_lowercase();
        if lower.starts_with("cannot ") || lower.starts_with("can't ") {
            if let Some(last) = f.split_whitespace().last() {
                out.push(last.to_string());
            }
        } else if !f.contains(' ') {
            out.push(f.to_string());
        }
    }
    out.retain(|c| !c.is_empty() && !c.contains('\0'));
    out
}

/// What the stderr of a failed child says was refused: `(verb, path as written)`, in order.
fn refusals(stderr: &str, exit: i64) -> Vec<(Verb, String)> {
    let mut out = Vec::new();
    for line in stderr.lines() {
        let Some(phrase) = PHRASES.iter().find(|p| line.contains(*p)) else {
            continue;
        };
        let lower = line.to_ascii_lowercase();
        let verb = if *phrase != "Permission denied" || WRITING.iter().any(|w| lower.contains(w)) {
            Verb::Write
        } else if exit == 126 || lower.contains("exec") {
            Verb::Exec
        } else {
            Verb::Read
        };
        for c in candidates(line) {
            out.push((verb, c));
        }
    }
    out
}

/// Places a jailed child may always read and execute, or read and write: a refusal there is
/// not the capabilities' to grant.
fn always_granted(path: &Path, verb: Verb, temp_dir: Option<&Path>) -> bool {
    if temp_dir.is_some_and(|t| path.starts_with(t)) {
        return true;
    }
    let kernel = ["/proc", "/sys", "/dev"]
        .iter()
        .any(|p| path.starts_with(p));
    kernel || (verb != Verb::Write && system_place(path))
}

/// What the jail refused a child: the one line, and the token that would grant it (none when a
/// deny decided or no token would).
pub(super) struct Refusal {
    pub line: String,
    pub token: Option<String>,
}

/// The refusal of a failed jailed child, or `None`. `cwd` is the child's working directory.
pub(super) fn explain(
    caps: &CapSet,
    program: &str,
    cwd: &Path,
    temp_dir: Option<&Path>,
    exit: i64,
    stderr: &str,
) -> Option<Refusal> {
    if exit == 0 {
        return None;
    }
    for (verb, written) in refusals(stderr, exit) {
        let path = cwd.join(&written);
        // Only what names a place: the path or its directory exists.
        let exists = |p: &Path| p.symlink_metadata().is_ok();
        if !exists(&path) && !path.parent().is_some_and(exists) {
            continue;
        }
        let access = match verb {
            Verb::Write => Access::Write,
            Verb::Read | Verb::Exec => Access::Read,
        };
        let resolved: PathBuf = match check_path(caps, &path, access, cwd) {
            Ok(resolved) => resolved.into_path(),
            Err(denial) => {
                let shown = denial.resource().map_or(path.clone(), Path::to_path_buf);
                if always_granted(&shown, verb, temp_dir) {
                    continue;
                }
                return Some(Refusal {
                    line: line(program, verb, &shown, &denial.remedy()),
                    token: denial.token().map(String::from),
                });
            }
        };
        if verb == Verb::Exec {
            if let Some(denied) = caps.exec_denied(&resolved) {
                let why = format!("it lies in --caps exec:none={}", denied.display());
                return Some(Refusal {
                    line: line(program, verb, &resolved, &why),
                    token: None,
                });
            }
        }
        // Granted: the jail did not refuse this one.
    }
    None
}

fn line(program: &str, verb: Verb, path: &Path, remedy: &str) -> String {
    vox_caps::one_line(&format!(
        "vox: the jail refused {program} {} {} \u{2014} {remedy}",
        verb.ing(),
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_found_in_common_messages() {
        let cases = [
            ("cat: .env: Permission denied", Verb::Read, ".env"),
            (
                "sh: 1: cannot create .git/hooks/pre-commit: Read-only file system",
                Verb::Write,
                ".git/hooks/pre-commit",
            ),
            ("touch: cannot touch 'a b/x': Read-only file system", Verb::Write, "a b/x"),
            (
                "head: cannot open 'root/.env' for reading: Permission denied",
                Verb::Read,
                "root/.env",
            ),
            (
                "mkdir: cannot create directory \u{2018}root/.git/refs\u{2019}: Read-only file system",
                Verb::Write,
                "root/.git/refs",
            ),
            (
                "PermissionError: [Errno 13] Permission denied: 'root/.env'",
                Verb::Read,
                "root/.env",
            ),
            ("bash: line 1: /x/y: Permission denied", Verb::Read, "/x/y"),
        ];
        for (msg, verb, path) in cases {
            let got = refusals(msg, 1);
            assert_eq!(
                got.first(),
                Some(&(verb, path.to_string())),
                "{msg}: {got:?}"
            );
        }
        assert_eq!(
            refusals("sh: 1: ./bin/tool: Permission denied", 126)[0],
            (Verb::Exec, "./bin/tool".to_string())
        );
        assert!(refusals("cat: x: No such file or directory", 1).is_empty());
    }
}
