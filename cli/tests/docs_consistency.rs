//! The pages agree with the repository and with each other: every link a page makes points at a
//! file in the repository, no page cites material a user cannot open (the project's internal
//! specifications), every benchmark is listed in the README, and a figure a page states for a
//! benchmark is the one the README states for it.

use std::collections::BTreeSet;
use std::path::PathBuf;

mod common;

/// The targets of a page's Markdown links and images (`[text](target)`), outside code.
fn link_targets(md: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_code = false;
    for (i, line) in md.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((i + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_link_points_at_a_file_in_the_repository() {
    let ws = common::repo_root();
    let mut failures = Vec::new();
    let mut checked = 0;
    for page in common::doc_pages() {
        let rel = page.strip_prefix(&ws).unwrap().display().to_string();
        let md = std::fs::read_to_string(&page).unwrap();
        for (line, target) in link_targets(&md) {
            let target = target.split_whitespace().next().unwrap_or("");
            if target.starts_with("http://")
                || target.starts_with("https://")
                || target.starts_with("mailto:")
                || target.starts_with('#')
            {
                continue;
            }
            let file = target.split('#').next().unwrap_or(target);
            let resolved = page.parent().unwrap().join(file);
            match resolved.canonicalize() {
                Ok(p) if p.starts_with(&ws) => checked += 1,
                Ok(p) => failures.push(format!(
                    "{rel}:{line}: `{target}` is {}, outside the repository",
                    p.display()
                )),
                Err(_) => failures.push(format!("{rel}:{line}: `{target}` does not exist")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 20, "only {checked} links checked");
}

/// Names of the internal specifications and their numbered parts, which users do not have.
fn cites_internal_material(line: &str) -> Option<&'static str> {
    for name in [
        "voxscript.md",
        "runtime.md",
        "analysis.md",
        "decisions.md",
        "seeds/",
    ] {
        if line.contains(name) {
            return Some(name);
        }
    }
    let lower = line.to_ascii_lowercase();
    for word in ["decision ", "decisions "] {
        let mut rest = lower.as_str();
        while let Some(at) = rest.find(word) {
            rest = &rest[at + word.len()..];
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                return Some("a numbered decision");
            }
        }
    }
    let mut rest = line;
    while let Some(at) = rest.find('§') {
        rest = &rest[at + '§'.len_utf8()..];
        if rest.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
            return Some("a numbered section (§N)");
        }
    }
    None
}

#[test]
fn no_page_cites_material_users_cannot_open() {
    let ws = common::repo_root();
    let mut failures = Vec::new();
    for page in common::doc_pages() {
        let rel = page.strip_prefix(&ws).unwrap().display().to_string();
        let md = std::fs::read_to_string(&page).unwrap();
        for (i, line) in md.lines().enumerate() {
            if let Some(what) = cites_internal_material(line) {
                failures.push(format!("{rel}:{}: cites {what}: {line}", i + 1));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn internal_citations_are_recognised() {
    assert!(cites_internal_material("see voxscript.md §5.1").is_some());
    assert!(cites_internal_material("(decision 51)").is_some());
    assert!(cites_internal_material("Decisions 48 and 55").is_some());
    assert!(cites_internal_material("editors.md §1").is_some());
    assert!(cites_internal_material("a decision to make").is_none());
    assert!(cites_internal_material("see docs/editors.md").is_none());
}

/// The benchmarks users run: every `bench/*.py` with a command line (`__main__`).
fn benchmarks() -> Vec<String> {
    let ws = common::repo_root();
    let mut out: Vec<String> = std::fs::read_dir(ws.join("bench"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("__name__ == \"__main__\"")
        })
        .map(|p| format!("bench/{}", p.file_name().unwrap().to_str().unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn the_readme_lists_every_benchmark() {
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).unwrap();
    let section = readme
        .split("## Benchmarks")
        .nth(1)
        .expect("README has a Benchmarks section");
    let section = section.split("\n## ").next().unwrap();
    let missing: Vec<String> = benchmarks()
        .into_iter()
        .filter(|b| !section.contains(&format!("python3 {b}")))
        .collect();
    assert!(
        missing.is_empty(),
        "not in README's Benchmarks list: {missing:?}"
    );
}

/// The figures a text states: a number (with `,` `.` and a `–` range) followed by a unit.
fn figures(text: &str) -> BTreeSet<String> {
    const UNITS: [&str; 8] = ["MB", "MiB", "ms", "×", "%", "s", "lines/s", "M lines/s"];
    let mut out = BTreeSet::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric());
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        // Digits, and `,` `.` `–` between digits ("1,000", "0.8–0.9"), not a full stop after one.
        let next_is_digit = |k: usize| chars.get(k + 1).is_some_and(|c| c.is_ascii_digit());
        while j < chars.len()
            && (chars[j].is_ascii_digit()
                || chars[j] == '–'
                || (matches!(chars[j], ',' | '.') && next_is_digit(j)))
        {
            j += 1;
        }
        let number: String = chars[i..j].iter().collect();
        let after: String = chars[j..].iter().take(12).collect();
        let after = after.strip_prefix(' ').unwrap_or(&after);
        if let Some(unit) = UNITS.iter().rev().find(|u| {
            after.starts_with(*u) && !after[u.len()..].starts_with(|c: char| c.is_alphanumeric())
        }) {
            out.insert(format!("{number} {unit}"));
        }
        i = j.max(i + 1);
    }
    out
}

/// Paragraphs (blank-line separated; a table row or a list item is one) with the benchmarks they
/// name.
fn bench_paragraphs(md: &str) -> Vec<(usize, String, Vec<String>)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut text = String::new();
    let flush = |start: usize, text: &mut String, out: &mut Vec<(usize, String, Vec<String>)>| {
        let names: Vec<String> = benchmarks()
            .into_iter()
            .filter(|b| text.contains(b.as_str()))
            .collect();
        if !names.is_empty() {
            out.push((start, std::mem::take(text), names));
        }
        text.clear();
    };
    for (i, line) in md.lines().enumerate() {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('|') || t.starts_with("- ") || t.starts_with("python3 ") {
            flush(start, &mut text, &mut out);
            start = i + 1;
        }
        text.push_str(line);
        text.push('\n');
    }
    flush(start, &mut text, &mut out);
    out
}

#[test]
fn a_benchmark_figure_on_any_page_is_the_one_the_readme_states() {
    let ws = common::repo_root();
    let readme = std::fs::read_to_string(ws.join("README.md")).unwrap();
    let mut stated: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for (_, text, names) in bench_paragraphs(&readme) {
        for n in names {
            stated.entry(n).or_default().extend(figures(&text));
        }
    }
    let mut failures = Vec::new();
    let mut compared = 0;
    for page in common::doc_pages() {
        if page == ws.join("README.md") {
            continue;
        }
        let rel = page.strip_prefix(&ws).unwrap().display().to_string();
        let md = std::fs::read_to_string(&page).unwrap();
        for (line, text, names) in bench_paragraphs(&md) {
            let known: BTreeSet<String> = names
                .iter()
                .flat_map(|n| stated.get(n).cloned().unwrap_or_default())
                .collect();
            for f in figures(&text) {
                compared += 1;
                if !known.contains(&f) {
                    failures.push(format!(
                        "{rel}:{}: `{f}` for {} is not a figure README.md states for it ({known:?})",
                        line + 1,
                        names.join(", ")
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{compared} figures compared with the README's");
}

#[test]
fn figures_are_read_with_their_units() {
    let f =
        figures("p50 0.8–0.9 ms, 200 MB over 1,000,000 lines, 1.53–1.66× ruff, within 20%, 5 MB");
    let want: BTreeSet<String> = ["0.8–0.9 ms", "200 MB", "1.53–1.66 ×", "20 %", "5 MB"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(f, want);
}

/// The severity of the input rules, as every page states it, is what `vox lint` does: a warning
/// when selected (with or without `--determinism`), an error under `--strict`.
#[test]
fn the_input_rules_severity_is_stated_one_way_and_is_true() {
    let ws = common::repo_root();
    for n in 1..=4 {
        let page = std::fs::read_to_string(ws.join(format!("docs/rules/I00{n}.md"))).unwrap();
        assert!(
            page.contains("**Severity:** warning; error under `--strict`."),
            "docs/rules/I00{n}.md states the severity another way"
        );
    }
    let dir = std::env::temp_dir().join(format!("vox-docs-severity-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.vox"), "print(env.get(\"X\"))\n").unwrap();
    let severity = |flags: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vox"))
            .arg("lint")
            .args(flags)
            .args(["--format", "json", "a.vox"])
            .current_dir(&dir)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v[0]["severity"].as_str().unwrap_or("none").to_string()
    };
    assert_eq!(severity(&["--strict"]), "error");
    assert_eq!(severity(&["--determinism", "--strict"]), "error");
    assert_eq!(severity(&["--select", "I"]), "warning");
    assert_eq!(severity(&["--determinism", "--select", "I"]), "warning");
    assert_eq!(severity(&["--determinism"]), "none");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The checks a `vox doctor` line names (`ok   landlock: …` → `landlock`).
fn doctor_checks(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let (status, rest) = l.split_once(' ')?;
            if !matches!(status, "ok" | "warn" | "fail") {
                return None;
            }
            Some(rest.trim_start().split(':').next()?.to_string())
        })
        .collect()
}

/// docs/jail.md's `vox doctor` sample has the checks, in the order, that `vox doctor` prints (the
/// verdicts and details depend on the host; the checks do not).
#[test]
fn the_doctor_sample_has_the_checks_vox_doctor_prints() {
    let page = std::fs::read_to_string(common::repo_root().join("docs/jail.md")).unwrap();
    let section = page.split("## `vox doctor`").nth(1).unwrap();
    let sample = section.split("```").nth(1).unwrap();
    let dir = std::env::temp_dir().join(format!("vox-docs-doctor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vox"))
        .arg("doctor")
        .current_dir(&dir)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(doctor_checks(sample).len() >= 10);
    assert_eq!(doctor_checks(sample), doctor_checks(&printed), "{printed}");
}

/// What `vox lint --determinism` (what CI runs; with `--strict` for the input rules' pages, which
/// are opt-in) reports on a rule page's examples is on the page: a reader who lints the example
/// sees no code the page did not prepare them for.
#[test]
fn a_rule_page_mentions_every_code_its_examples_raise() {
    let ws = common::repo_root();
    let mut failures = Vec::new();
    let mut linted = 0;
    let mut rules: Vec<PathBuf> = std::fs::read_dir(ws.join("docs/rules"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    rules.sort();
    for page in rules {
        let md = std::fs::read_to_string(&page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().to_string();
        let mut args = vec!["lint", "--determinism", "--format", "json", "example.vox"];
        if name.starts_with('I') {
            args.push("--strict");
        }
        for (n, block) in md.split("```vox\n").skip(1).enumerate() {
            let code = block.split("```").next().unwrap();
            let dir = std::env::temp_dir().join(format!("vox-docs-codes-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("example.vox"), code).unwrap();
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_vox"))
                .args(&args)
                .current_dir(&dir)
                .output()
                .unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            linted += 1;
            for f in found.as_array().unwrap() {
                let c = f["code"].as_str().unwrap();
                if !md.contains(c) {
                    failures.push(format!(
                        "{name}: example {} raises {c}, which the page does not mention",
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(linted >= 30);
}
