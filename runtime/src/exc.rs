//! The one unwinding type: runtime errors, capability denials, ceilings and exits all travel as `Exc`
//! (architecture invariant 6: denial is an error value that unwinds, never a print).

use vox_syntax::TextRange;

/// Where something happened: a file of the run (index into the loaded files) and a byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    pub file: u32,
    pub range: TextRange,
}

#[derive(Debug)]
pub enum Exc {
    /// A runtime error (exit 1). `loc` is filled by the evaluator at the innermost failing expression.
    Error { message: String, loc: Option<Loc> },
    /// `panic(msg)` (exit 1, kind `panic` in JSON).
    Panic { message: String, loc: Option<Loc> },
    /// A capability denial (exit 77): `what` is `ns.method`, `token` the narrowest token or hint.
    Denied {
        what: String,
        token: String,
        loc: Option<Loc>,
    },
    /// A disk or file quota (exit 77, `fs.quota`); `hint` is `raise --max-disk` / `raise --max-files`.
    Quota {
        kind: QuotaKind,
        hint: String,
        loc: Option<Loc>,
    },
    /// A ceiling (exit 78 or 79).
    Ceiling {
        kind: CeilingKind,
        limit: u64,
        loc: Option<Loc>,
    },
    /// `process.exit(n)`.
    Exit(i32),
    /// SIGINT or SIGTERM reached the interpreter: exit 130 after the exit commands.
    Interrupted,
    /// A child could not be jailed as the policy requires (runtime.md §4 "Fail closed"): the CLI
    /// prints `vox: cannot confine child: <reason>` and exits 77. `reason` has no prefix.
    Unconfinable { reason: String, loc: Option<Loc> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaKind {
    Disk,
    Files,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CeilingKind {
    Steps,
    Depth,
    /// The host stack's guard tripped before `--max-depth` did (or with `--max-depth 0`): `limit`
    /// is the number of nested calls reached.
    HostStack,
    Memory,
    Output,
    Timeout,
}

impl Exc {
    /// A runtime error without a location yet.
    pub fn error(message: impl Into<String>) -> Exc {
        Exc::Error {
            message: message.into(),
            loc: None,
        }
    }
}

pub type Res<T> = Result<T, Exc>;
