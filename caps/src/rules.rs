//! The rule registry (analysis.md §1): the code, name, one-line summary and default severity of
//! every rule, in one list. `vox-lints` pairs each entry with the function that checks it (its
//! `RULES`), and `Vox.toml`'s `[lint]` table is validated against the same codes here
//! ([`crate::config::LintConfig`]), so adding a rule is one line in this file and one in
//! `vox-lints`.

/// The severity a rule reports at unless options say otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
}

/// One rule: what the SARIF `rules` array, the documentation links and the options read.
#[derive(Debug)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub summary: &'static str,
    pub default: Level,
}

const W: Level = Level::Warning;
const E: Level = Level::Error;

/// Every rule, families together (D, I, C, L), codes in order within a family.
pub static RULES: &[Rule] = &[
    Rule { code: "D001", name: "transcendental-outside-libm", summary: "A float transcendental computed by the host's math library instead of the portable vox libm.", default: W },
    Rule { code: "D002", name: "map-iteration-order", summary: "Iteration over a map whose order reaches output.", default: W },
    Rule { code: "D003", name: "wall-clock", summary: "A read of the wall clock or of file times.", default: W },
    Rule { code: "D004", name: "unchecked-overflow", summary: "Integer arithmetic that may leave i64 without an explicit checked, wrapping or saturating form.", default: W },
    Rule { code: "D005", name: "unnormalised-path", summary: "A path that is not in normal form, built with `+ \"/\"`, taken from input unnormalised, or colliding by case.", default: W },
    Rule { code: "D006", name: "unseeded-random", summary: "Randomness without a pinned `random:seed=`.", default: W },
    Rule { code: "D007", name: "unordered-listing", summary: "A directory listing used in OS order.", default: W },
    Rule { code: "I001", name: "environment-input", summary: "A value read from the environment, arguments or working directory.", default: W },
    Rule { code: "I002", name: "process-output", summary: "Output or exit status of a child process.", default: W },
    Rule { code: "I003", name: "network-input", summary: "A value read from the network.", default: W },
    Rule { code: "I004", name: "secret-input", summary: "A value read from the secrets store.", default: W },
    Rule { code: "C001", name: "caps-under-granted", summary: "A run configuration lacks a token the script needs: that run would exit 77.", default: E },
    Rule { code: "C002", name: "caps-over-granted", summary: "A run configuration grants a token the script can never use.", default: W },
    Rule { code: "C003", name: "legacy-caps-directive", summary: "A `// vox:caps` directive that is ignored, overridden or too narrow.", default: W },
    Rule { code: "C004", name: "dynamic-path", summary: "A filesystem path not known statically: the inferred root was widened.", default: W },
    Rule { code: "C005", name: "unconfinable-effect", summary: "Authority the interpreter cannot take back (`process.exec`, `process.spawn_background`).", default: W },
    Rule { code: "L001", name: "suppression-without-reason", summary: "A suppression comment without a reason; it suppresses nothing.", default: W },
    Rule { code: "L002", name: "unused-suppression", summary: "A suppression comment that suppresses nothing.", default: W },
];

/// The rule with this code.
pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code == code)
}
