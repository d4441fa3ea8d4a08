//! One file per rule. Each exports `check`, documented with what it flags and why.

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
pub(crate) mod d005_unnormalised_path;
mod d006_unseeded_random;
mod d007_unordered_listing;
mod i001_environment_input;
mod i002_process_output;
mod i003_network_input;
mod i004_secret_input;
mod inputs;
mod order;
mod sites;

pub struct RuleInfo {
    pub code: &'static str,
    pub name: &'static str,
    pub summary: &'static str,
    pub default: Severity,
    pub run: fn(&FileCx<'_>, &mut Vec<Finding>),
}

fn none(_: &FileCx<'_>, _: &mut Vec<Finding>) {}

const W: Severity = Severity::Warning;
const E: Severity = Severity::Error;

pub static ALL: &[RuleInfo] = &[
    RuleInfo { code: "D001", name: "transcendental-outside-libm", summary: "A float transcendental computed by the host's math library instead of the portable vox libm.", default: W, run: d001_transcendental::check },
    RuleInfo { code: "D002", name: "map-iteration-order", summary: "Iteration over a map whose order reaches output.", default: W, run: d002_map_iteration_order::check },
    RuleInfo { code: "D003", name: "wall-clock", summary: "A read of the wall clock or of file times.", default: W, run: d003_wall_clock::check },
    RuleInfo { code: "D004", name: "unchecked-overflow", summary: "Integer arithmetic that may leave i64 without an explicit checked, wrapping or saturating form.", default: W, run: d004_unchecked_overflow::check },
    RuleInfo { code: "D005", name: "unnormalised-path", summary: "A path that is not in normal form, built with `+ \"/\"`, taken from input unnormalised, or colliding by case.", default: W, run: d005_unnormalised_path::check },
    RuleInfo { code: "D006", name: "unseeded-random", summary: "Randomness without a pinned `random:seed=`.", default: W, run: d006_unseeded_random::check },
    RuleInfo { code: "D007", name: "unordered-listing", summary: "A directory listing used in OS order.", default: W, run: d007_unordered_listing::check },
    RuleInfo { code: "I001", name: "environment-input", summary: "A value read from the environment, arguments or working directory.", default: W, run: i001_environment_input::check },
    RuleInfo { code: "I002", name: "process-output", summary: "Output or exit status of a child process.", default: W, run: i002_process_output::check },
    RuleInfo { code: "I003", name: "network-input", summary: "A value read from the network.", default: W, run: i003_network_input::check },
    RuleInfo { code: "I004", name: "secret-input", summary: "A value read from the secrets store.", default: W, run: i004_secret_input::check },
    RuleInfo { code: "C001", name: "caps-under-granted", summary: "A run configuration lacks a token the script needs: that run would exit 77.", default: E, run: c001_caps_under_granted::check },
    RuleInfo { code: "C002", name: "caps-over-granted", summary: "A run configuration grants a token the script can never use.", default: W, run: c002_caps_over_granted::check },
    RuleInfo { code: "C003", name: "legacy-caps-directive", summary: "A `// vox:caps` directive that is ignored, overridden or too narrow.", default: W, run: c003_legacy_caps_directive::check },
    RuleInfo { code: "C004", name: "dynamic-path", summary: "A filesystem path not known statically: the inferred root was widened.", default: W, run: c004_dynamic_path::check },
    RuleInfo { code: "C005", name: "unconfinable-effect", summary: "Authority the interpreter cannot take back (`process.exec`, `process.spawn_background`).", default: W, run: c005_unconfinable_effect::check },
    RuleInfo { code: "L001", name: "suppression-without-reason", summary: "A suppression comment without a reason; it suppresses nothing.", default: W, run: none },
    RuleInfo { code: "L002", name: "unused-suppression", summary: "A suppression comment that suppresses nothing.", default: W, run: none },
];
