//! The rule table: code, name, one-line summary and default severity of every rule (listed once,
//! in `vox_caps::rules`) with its check, for the driver, the SARIF `rules` array and the
//! documentation links.

pub use crate::rules::RuleInfo;

pub use crate::rules::ALL as RULES;

/// The rule with this code.
pub fn rule(code: &str) -> Option<&'static RuleInfo> {
    RULES.iter().find(|r| r.code == code)
}

/// The project's home: `repository` in the workspace's `Cargo.toml` (`[workspace.package]`).
pub const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// Where the rule pages live, `{RULE_DOCS}/D003.md`: the one base of SARIF's `helpUri` and the
/// language server's `codeDescription`.
pub const RULE_DOCS: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/rules");
