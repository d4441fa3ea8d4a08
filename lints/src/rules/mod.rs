//! One file per rule. Each exports `check`, documented with what it flags and why.

use std::sync::LazyLock;

use vox_caps::rules::Level;

use crate::context::FileCx;
use crate::finding::{Finding, Severity};

pub mod check;
pub mod syntax;

mod c001_caps_under_granted;
mod c002_caps_over_granted;
mod c003_legacy_caps_directive;
mod c004_dynamic_path;
mod c005_unconfinable_effect;
pub(crate) mod caps_check;
mod d001_transcendental;
mod d002_map_iteration_order;
mod d003_wall_clock;
mod d004_unchecked_overflow;
mod d005_unnormalised_path;
mod d006_unseeded_random;
mod d007_unordered_listing;
mod i001_environment_input;
mod i002_process_output;
mod i003_network_input;
mod i004_secret_input;
mod inputs;
pub(crate) mod literal_index;
mod order;
mod sites;

/// A rule of the registry ([`vox_caps::rules::RULES`], where codes, names, summaries and
/// default severities are listed once) with the function that checks it.
pub struct RuleInfo {
    pub code: &'static str,
    pub name: &'static str,
    pub summary: &'static str,
    pub default: Severity,
    pub run: fn(&FileCx<'_>, &mut Vec<Finding>),
}

fn none(_: &FileCx<'_>, _: &mut Vec<Finding>) {}

/// The function that checks the rule `code` (L001 and L002 are reported by the suppressions).
fn check_of(code: &str) -> fn(&FileCx<'_>, &mut Vec<Finding>) {
    match code {
        "D001" => d001_transcendental::check,
        "D002" => d002_map_iteration_order::check,
        "D003" => d003_wall_clock::check,
        "D004" => d004_unchecked_overflow::check,
        "D005" => d005_unnormalised_path::check,
        "D006" => d006_unseeded_random::check,
        "D007" => d007_unordered_listing::check,
        "I001" => i001_environment_input::check,
        "I002" => i002_process_output::check,
        "I003" => i003_network_input::check,
        "I004" => i004_secret_input::check,
        "C001" => c001_caps_under_granted::check,
        "C002" => c002_caps_over_granted::check,
        "C003" => c003_legacy_caps_directive::check,
        "C004" => c004_dynamic_path::check,
        "C005" => c005_unconfinable_effect::check,
        "L001" | "L002" => none,
        _ => panic!("rule {code} of the registry (vox_caps::rules) has no check in vox-lints"),
    }
}

/// Every rule of the registry, in its order, with its check.
pub static ALL: LazyLock<Vec<RuleInfo>> = LazyLock::new(|| {
    vox_caps::rules::RULES
        .iter()
        .map(|r| RuleInfo {
            code: r.code,
            name: r.name,
            summary: r.summary,
            default: match r.default {
                Level::Error => Severity::Error,
                Level::Warning => Severity::Warning,
            },
            run: check_of(r.code),
        })
        .collect()
});

#[cfg(test)]
mod tests {
    use super::ALL;

    /// Every rule of the registry has its check here, in the registry's order (a rule added to
    /// `vox_caps::rules` without one would stop the first lint).
    #[test]
    fn every_rule_of_the_registry_has_a_check() {
        let codes: Vec<&str> = ALL.iter().map(|r| r.code).collect();
        let registry: Vec<&str> = vox_caps::rules::RULES.iter().map(|r| r.code).collect();
        assert_eq!(codes, registry);
    }
}
