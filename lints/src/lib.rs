//! The VoxScript rules (analysis.md §1): one file per rule under `rules/`, each reading the
//! analysis facts of a file and reporting [`Finding`]s with messages, chains and fixes; plus
//! suppressions (§3) and the options that enable rules and set severities (decision 29). The CLI
//! and the language server both call [`lint_file`], so they report the same findings.

mod chain;
mod context;
mod driver;
mod finding;
mod memo;
mod options;
mod registry;
mod rules;
mod run;
mod shared;
mod suppress;
mod workspace;

pub use context::FileCx;
pub use driver::{check_file, lint_file, lint_file_memo, prepare_file, MANY_ERRORS};
pub use finding::{
    Applicability, ChainStep, Edit, Finding, Fix, Held, Placed, SamePath, Severity, SharedPath,
    SharedStr,
};
pub use memo::FileMemo;
pub use options::{known_codes, known_pattern, LintOptions};
pub use registry::{rule, RuleInfo, REPOSITORY, RULES, RULE_DOCS};
pub use rules::caps_check::NEW_RUN_TITLE;
pub use run::{Piece, Run, Shown};
pub use workspace::WorkspaceInfo;
