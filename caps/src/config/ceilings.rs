//! The ceilings a run configuration may set (the `vox run` flags) and how their values are
//! checked.

/// Ceiling keys of a run configuration (the `vox run` flag names without dashes), in `Vox.toml`
/// and in `.vscode/tasks.json` and `launch.json` entries alike. The parsers read exactly these;
/// docs/configuration.md has a section for each (cli/tests/docs_configuration.rs).
pub const CEILINGS: &[&str] = &[
    "max-steps",
    "max-depth",
    "max-memory",
    "max-disk",
    "max-files",
    "max-output",
    "timeout",
];

/// Checks a ceiling value of a run configuration: `timeout` is seconds or a duration (`90s`,
/// `5m`, `1h`), every other ceiling an integer or a size (`32MiB`). The error says what to write.
pub(crate) fn check_ceiling(key: &str, value: &str) -> Result<(), String> {
    if key == "timeout" {
        crate::duration::parse_duration_secs(value)
            .map(|_| ())
            .map_err(|e| {
                format!("{e}; write seconds or a duration such as \"90s\", \"5m\" or \"1h\"")
            })
    } else {
        crate::size::parse_size(value)
            .map(|_| ())
            .map_err(|e| format!("{e}; write an integer or a size such as \"32MiB\""))
    }
}
