//! Which rules run and at which severity (decision 29): D rules are warnings, errors under
//! `--determinism`; I rules are off unless selected, errors under `--strict`; C001 is an error,
//! the other C and L rules warnings; `[lint.severity]` wins over all of that.

use crate::finding::Severity;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LintOptions {
    pub determinism: bool,
    pub strict: bool,
    /// Codes or prefixes (`D`, `I001`); empty means the default set.
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    /// Code or prefix → severity, from `[lint.severity]`.
    pub severity: Vec<(String, Severity)>,
    /// Leave out the fixes (built only for what shows or applies them).
    pub skip_fixes: bool,
}

fn matches(code: &str, pat: &str) -> bool {
    code.starts_with(pat)
}

/// Whether `pat` can match some finding's code: a rule code or a prefix of one (`D`, `D00`), or
/// `syntax`, `check`, `config` or one of their codes (`check.unknown-method`). Vox.toml's
/// `[lint]` accepts the same (`vox_caps::config::LintConfig`).
pub fn known_pattern(pat: &str) -> bool {
    !pat.is_empty()
        && (vox_caps::rules::RULES
            .iter()
            .any(|r| r.code.starts_with(pat))
            || ["syntax", "check", "config"]
                .iter()
                .any(|g| pat == *g || pat.starts_with(&format!("{g}."))))
}

/// Every rule code, comma-separated (for messages about unknown codes).
pub fn known_codes() -> String {
    let mut codes: Vec<&str> = vox_caps::rules::RULES.iter().map(|r| r.code).collect();
    codes.sort_unstable();
    codes.join(", ")
}

/// Style notes: not in the default set (as ruff leaves its style rules out), since they say
/// nothing about what a script does; `--select syntax.semicolon` (or `syntax`) shows them.
/// `vox check` still reports them, with their fixes.
pub const STYLE_NOTES: &[&str] = &["syntax.semicolon"];

impl LintOptions {
    /// Whether findings of `code` are reported. `--select`, `--ignore` and `[lint]` apply to every
    /// code, `syntax.*`, `check.*` and the capability rules included (docs/ci.md); errors that
    /// stop a script (`syntax.*` and `check.*` at error severity) are shown whatever is
    /// selected, as ruff shows syntax errors (`crate::lint`).
    pub fn enabled(&self, code: &str) -> bool {
        if self.ignore.iter().any(|p| matches(code, p)) {
            return false;
        }
        let group = &code[..1];
        let default_on = match group {
            "D" | "C" | "L" => true,
            "I" => self.strict,
            _ => !STYLE_NOTES.contains(&code),
        };
        if self.select.is_empty() {
            default_on
        } else {
            self.select.iter().any(|p| matches(code, p))
        }
    }

    /// Whether a finding of `code` at `severity` shows: its code is selected, or it is an error
    /// that stops the script (`syntax.*` or `check.*`), shown whatever is selected.
    pub fn shows(&self, code: &str, severity: Severity) -> bool {
        self.enabled(code)
            || (severity == Severity::Error
                && (code.starts_with("syntax.") || code.starts_with("check.")))
    }

    /// The severity a finding of `code` is shown with.
    pub fn severity(&self, code: &str, default: Severity) -> Severity {
        let mut s = default;
        if self.determinism && code.starts_with('D') {
            s = Severity::Error;
        }
        if self.strict && code.starts_with('I') && code.len() == 4 {
            s = Severity::Error;
        }
        // The longest matching override wins.
        if let Some((_, sev)) = self
            .severity
            .iter()
            .filter(|(p, _)| matches(code, p))
            .max_by_key(|(p, _)| p.len())
        {
            s = *sev;
        }
        s
    }
}
