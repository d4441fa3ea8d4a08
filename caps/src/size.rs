//! Size strings for the ceiling flags (`--max-memory 64MiB`, `max-disk = "32MiB"`; runtime.md §2).

/// Parses a byte count: a whole number, optionally followed by `B`, `K`/`KiB`, `M`/`MiB` or
/// `G`/`GiB` (case-insensitive, powers of 1024, optional space). `_` may separate digits.
///
/// `0` parses as 0; every ceiling flag reads it as "unlimited" (decision 21), which
/// [`parse_limit`] applies. The error is a sentence for people, without a `vox:` prefix.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let text = s.trim();
    let digits_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '_'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits_end);
    let suffix = suffix.trim_start();
    let shift = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        "kb" | "mb" | "gb" => {
            let unit = suffix[..1].to_ascii_uppercase();
            return Err(format!(
                "invalid size {s:?}: {suffix} is ambiguous; write {unit} or {unit}iB (powers of 1024)"
            ));
        }
        _ => return Err(size_help(s)),
    };
    let underscores_ok =
        !number.starts_with('_') && !number.ends_with('_') && !number.contains("__");
    if number.is_empty() || !underscores_ok {
        return Err(size_help(s));
    }
    let value: u64 = match number.replace('_', "").parse() {
        Ok(value) => value,
        Err(_) => return Err(too_large(s)),
    };
    match value.checked_mul(1u64 << shift) {
        Some(bytes) => Ok(bytes),
        None => Err(too_large(s)),
    }
}

/// [`parse_size`] for a ceiling flag: `None` means unlimited, which `0` asks for.
pub fn parse_limit(s: &str) -> Result<Option<u64>, String> {
    parse_size(s).map(|bytes| (bytes != 0).then_some(bytes))
}

fn size_help(s: &str) -> String {
    format!(
        "invalid size {s:?}: expected a whole number, optionally followed by K, M or G \
         (or KiB, MiB, GiB; powers of 1024), e.g. 32MiB"
    )
}

fn too_large(s: &str) -> String {
    format!("invalid size {s:?}: larger than {} bytes", u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_suffixed() {
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("10_000_000"), Ok(10_000_000));
        assert_eq!(parse_size("12B"), Ok(12));
        assert_eq!(parse_size("1K"), Ok(1024));
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("2k"), Ok(2048));
        assert_eq!(parse_size("32MiB"), Ok(32 << 20));
        assert_eq!(parse_size("32M"), Ok(32 << 20));
        assert_eq!(parse_size("32 mib"), Ok(32 << 20));
        assert_eq!(parse_size("3G"), Ok(3 << 30));
        assert_eq!(parse_size("3GiB"), Ok(3 << 30));
        assert_eq!(parse_size(" 7 "), Ok(7));
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
    }

    #[test]
    fn garbage_is_rejected() {
        for bad in [
            "", " ", "K", "MiB", "-1", "+1", "1.5M", "1e6", "1 2", "12X", "12TiB", "0x10", "_1",
            "1_", "1__0", "１２",
        ] {
            let err = parse_size(bad).unwrap_err();
            assert!(err.starts_with("invalid size"), "{bad}: {err}");
        }
        assert_eq!(
            parse_size("12X").unwrap_err(),
            "invalid size \"12X\": expected a whole number, optionally followed by K, M or G \
             (or KiB, MiB, GiB; powers of 1024), e.g. 32MiB"
        );
        assert_eq!(
            parse_size("5MB").unwrap_err(),
            "invalid size \"5MB\": MB is ambiguous; write M or MiB (powers of 1024)"
        );
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(parse_size("18446744073709551616")
            .unwrap_err()
            .contains("larger than"));
        assert!(parse_size("17179869184G")
            .unwrap_err()
            .contains("larger than"));
        assert_eq!(parse_size("17179869183G"), Ok(17_179_869_183 << 30));
    }

    #[test]
    fn zero_is_unlimited() {
        assert_eq!(parse_limit("0"), Ok(None));
        assert_eq!(parse_limit("0MiB"), Ok(None));
        assert_eq!(parse_limit("1K"), Ok(Some(1024)));
        assert!(parse_limit("x").is_err());
    }
}
