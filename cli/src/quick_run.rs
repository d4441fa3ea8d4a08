//! `vox run`'s common command lines, read without clap: `vox run [FLAGS] FILE [FLAGS] [-- ARGS]`
//! with long flags only. Even the run-only parser built every `run` argument (names, help text,
//! value parsers) before reading one: 30 of a hello world's 200 page faults (`bench/interp.py`).
//! Anything this reader is not sure to read as clap would (help, a short flag, a repeated flag,
//! `--config` with `--caps`, a value that starts with `-`, text that is not UTF-8, a second file)
//! is left to clap, so every error, usage and help text is still clap's.
//! A test compares the two on every command line it builds from the flags.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::run::RunFlags;

/// The arguments after `run` (flags, the script, its arguments), read as clap reads them; `None`
/// when clap must read them.
pub(crate) fn parse(words: &[OsString]) -> Option<(RunFlags, PathBuf, Vec<String>)> {
    let mut flags = RunFlags {
        caps: Vec::new(),
        config: None,
        require_caps: false,
        mesh: false,
        max_steps: None,
        max_depth: None,
        max_memory: None,
        max_disk: None,
        max_files: None,
        max_output: None,
        timeout: None,
        caps_audit: None,
        perturb: None,
        error_format: "human".to_string(),
        unconfined_children: false,
        verbose: false,
    };
    let mut error_format = None;
    let mut file: Option<PathBuf> = None;
    let mut args = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        i += 1;
        if word == "--" {
            // Everything after `--` is the script's, as it is (clap's `last = true`).
            for w in &words[i..] {
                args.push(w.to_str()?.to_string());
            }
            break;
        }
        let word = word.to_str()?;
        let Some(long) = word.strip_prefix("--") else {
            if word.starts_with('-') || file.is_some() {
                return None;
            }
            file = Some(PathBuf::from(word));
            continue;
        };
        let (name, inline) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (long, None),
        };
        let switch = match name {
            "require-caps" => Some(&mut flags.require_caps),
            "mesh" => Some(&mut flags.mesh),
            "unconfined-children" => Some(&mut flags.unconfined_children),
            "verbose" => Some(&mut flags.verbose),
            _ => None,
        };
        if let Some(on) = switch {
            if inline.is_some() || *on {
                return None;
            }
            *on = true;
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => {
                let v = words.get(i)?.to_str()?;
                i += 1;
                v
            }
        };
        if value.is_empty() || value.starts_with('-') {
            return None;
        }
        let value = value.to_string();
        let slot = match name {
            "caps" => {
                flags.caps.push(value);
                continue;
            }
            "caps-audit" => {
                if flags.caps_audit.is_some() {
                    return None;
                }
                flags.caps_audit = Some(PathBuf::from(value));
                continue;
            }
            "config" => &mut flags.config,
            "max-steps" => &mut flags.max_steps,
            "max-depth" => &mut flags.max_depth,
            "max-memory" => &mut flags.max_memory,
            "max-disk" => &mut flags.max_disk,
            "max-files" => &mut flags.max_files,
            "max-output" => &mut flags.max_output,
            "timeout" => &mut flags.timeout,
            "perturb" => &mut flags.perturb,
            "error-format" => &mut error_format,
            _ => return None,
        };
        if slot.replace(value).is_some() {
            return None;
        }
    }
    if flags.config.is_some() && !flags.caps.is_empty() {
        return None;
    }
    if let Some(f) = error_format {
        flags.error_format = f;
    }
    Some((flags, file?, args))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// What clap makes of `vox run WORDS`, or `None` where it refuses them.
    fn by_clap(words: &[&str]) -> Option<String> {
        let argv = ["vox", "run"].iter().chain(words);
        let crate::RunOnly::Run(args) = crate::RunOnlyCli::try_parse_from(argv).ok()?.command;
        Some(format!("{args:?}"))
    }

    fn by_quick(words: &[&str]) -> Option<String> {
        let words: Vec<OsString> = words.iter().map(OsString::from).collect();
        parse(&words).map(|(flags, file, args)| {
            let args = crate::RunArgs {
                flags,
                file: Some(file),
                args,
            };
            format!("{args:?}")
        })
    }

    #[test]
    fn the_common_command_lines_are_read_without_clap_and_as_clap_reads_them() {
        for words in [
            &["hello.vox"][..],
            &["--max-steps", "0", "hello.vox"],
            &["--max-steps=0", "hello.vox", "--verbose"],
            &[
                "--caps",
                "fs:ro=.",
                "--caps=env:ro",
                "s.vox",
                "--",
                "a",
                "--b",
                "-c",
                "--",
            ],
            &[
                "--mesh",
                "--caps",
                "none",
                "--timeout",
                "5s",
                "--error-format",
                "json",
                "s.vox",
            ],
            &[
                "--config",
                "ci",
                "--max-memory",
                "64MiB",
                "--caps-audit",
                "a.jsonl",
                "s.vox",
            ],
            &[
                "s.vox",
                "--perturb",
                "3",
                "--max-output",
                "1KiB",
                "--max-disk",
                "1MiB",
            ],
            &[
                "--max-files",
                "9",
                "--max-depth",
                "30",
                "--require-caps",
                "s.vox",
            ],
            &["--unconfined-children", "s.vox", "--"],
        ] {
            let quick = by_quick(words);
            assert!(quick.is_some(), "not read without clap: {words:?}");
            assert_eq!(quick, by_clap(words), "{words:?}");
        }
    }

    #[test]
    fn whatever_it_reads_clap_reads_the_same_way() {
        // Every command line of up to four words from these, and a fixed sample of longer ones.
        let vocabulary = [
            "s.vox",
            "t.vox",
            "--",
            "-",
            "-h",
            "--help",
            "--version",
            "-V",
            "--verbose",
            "--verbose=1",
            "--mesh",
            "--caps",
            "--caps=",
            "--caps=none",
            "fs:ro=.",
            "--config",
            "--config=ci",
            "--max-steps",
            "--max-steps=5",
            "5",
            "-5",
            "--max-step",
            "--timeout",
            "--error-format",
            "json",
            "--caps-audit",
            "--perturb=1",
            "--mesh=no",
            "x",
        ];
        let n = vocabulary.len();
        let mut lines: Vec<Vec<&str>> = vec![Vec::new()];
        for len in 1..=3 {
            let mut index = vec![0usize; len];
            loop {
                lines.push(index.iter().map(|&k| vocabulary[k]).collect());
                let mut k = 0;
                while k < len && index[k] + 1 == n {
                    index[k] = 0;
                    k += 1;
                }
                if k == len {
                    break;
                }
                index[k] += 1;
            }
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let mut line = Vec::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for k in 0..(4 + seed % 6) {
                line.push(vocabulary[(seed.rotate_right(7 * k as u32) as usize) % n]);
            }
            lines.push(line);
        }
        let mut read = 0;
        for words in &lines {
            if let Some(quick) = by_quick(words) {
                read += 1;
                assert_eq!(Some(quick), by_clap(words), "{words:?}");
            }
        }
        assert!(
            read > 1_000,
            "only {read} command lines were read without clap"
        );
    }
}
