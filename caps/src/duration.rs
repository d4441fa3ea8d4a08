//! Durations for `--timeout` and a run configuration's `timeout` (runtime.md §2, decision 48).

/// The forms a duration may take, for help texts and error messages.
pub const DURATION_FORMS: &str = "seconds (90 or 90s), minutes (5m) or hours (1h)";

/// Parses a whole number of seconds, minutes or hours: `90`, `90s`, `5m`, `1h` (the unit is
/// case-insensitive; `_` may separate digits). Returns seconds; `0` parses as 0, which every
/// ceiling reads as "unlimited" (decision 21). The error is a sentence for people, without a
/// `vox:` prefix.
pub fn parse_duration_secs(s: &str) -> Result<u64, String> {
    let text = s.trim();
    let digits_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '_'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits_end);
    let factor: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return Err(help(s)),
    };
    let underscores_ok =
        !number.starts_with('_') && !number.ends_with('_') && !number.contains("__");
    if number.is_empty() || !underscores_ok {
        return Err(help(s));
    }
    number
        .replace('_', "")
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .ok_or_else(|| format!("invalid duration {s:?}: too long"))
}

fn help(s: &str) -> String {
    format!("invalid duration {s:?}: expected a whole number of {DURATION_FORMS}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_forms() {
        assert_eq!(parse_duration_secs("90"), Ok(90));
        assert_eq!(parse_duration_secs("90s"), Ok(90));
        assert_eq!(parse_duration_secs("5m"), Ok(300));
        assert_eq!(parse_duration_secs("1h"), Ok(3600));
        assert_eq!(parse_duration_secs("2H"), Ok(7200));
        assert_eq!(parse_duration_secs(" 0 "), Ok(0));
        assert_eq!(parse_duration_secs("1_000"), Ok(1000));
    }

    #[test]
    fn garbage_is_rejected() {
        for bad in [
            "", "s", "m", "-1", "+1", "1.5m", "1h30m", "1 m", "5min", "10ms", "1d", "1K", "0x10",
            "_1",
        ] {
            let e = parse_duration_secs(bad).unwrap_err();
            assert!(
                e.contains("90s") && e.contains("5m") && e.contains("1h"),
                "{bad}: {e}"
            );
        }
        assert!(parse_duration_secs("99999999999999999999")
            .unwrap_err()
            .contains("too long"));
        assert!(parse_duration_secs("18446744073709551615h")
            .unwrap_err()
            .contains("too long"));
    }
}
