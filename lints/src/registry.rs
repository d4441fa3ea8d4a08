//! The rule table: code, name, one-line summary and default severity of every rule (listed once,
//! in `vox_caps::rules`) with its check, for the driver, the SARIF `rules` array and the
//! documentation links.

pub use crate::rules::RuleInfo;

pub use crate::rules::ALL as RULES;

/// The rule with this code.
pub fn rule(code: &str) -> Option<&'static RuleInfo> {
    RULES.iter().find(|r| r.code == code)
}
