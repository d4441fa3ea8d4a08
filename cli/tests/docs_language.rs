//! docs/language.md is the language reference (issue 41 item 10): it lists every builtin of the
//! runtime's catalog with the capability that catalog row needs, and every method of every
//! receiver kind; it and docs/tutorial.md are linked from README.md and link only files that
//! exist. (Their code blocks run in `scripts.rs` with the other docs' blocks.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use vox_hir::catalog::{method_names, JSON_HELPERS};
use vox_hir::Cap;
use vox_runtime::builtins::namespace_constant;
use vox_runtime::catalog::Catalog;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap()
}

/// How the page names a capability: the label hover shows, `none` for no capability.
fn cap_label(cap: Cap) -> &'static str {
    cap.label().unwrap_or("none")
}

/// The text from the line that starts with `heading` up to the next heading of the same level.
fn section<'a>(md: &'a str, heading: &str) -> &'a str {
    let level = heading.split(' ').next().unwrap();
    let start = md
        .find(&format!("\n{heading}"))
        .unwrap_or_else(|| panic!("docs/language.md has no heading `{heading}`"))
        + 1;
    let body = &md[start..];
    let first_line = body.find('\n').unwrap_or(body.len());
    let next = body[first_line..]
        .find(&format!("\n{level} "))
        .map_or(body.len(), |i| first_line + i);
    &body[..next]
}

/// The cells of every table row whose first cell starts with a code span (`| \`…\` | … |`):
/// split on `|` but not on `\|`, which a cell uses for "either kind".
fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let mut cells = Vec::new();
            let mut cell = String::new();
            let mut chars = l.trim().trim_start_matches('|').chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '\\' if chars.peek() == Some(&'|') => cell.push(chars.next().unwrap()),
                    '|' => cells.push(std::mem::take(&mut cell).trim().to_string()),
                    _ => cell.push(c),
                }
            }
            cells
        })
        .collect()
}

/// The code spans of a cell: `` `a(x)` / `b(x)` `` gives `a(x)` and `b(x)`.
fn code_spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The builtins the page documents, `(ns, name)` (ns `""` for a global) → the capability its
/// row states, from the tables under "## Builtins by namespace". A cell may name aliases.
fn documented_builtins(md: &str) -> (BTreeMap<(String, String), String>, Vec<String>) {
    let mut out = BTreeMap::new();
    let mut problems = Vec::new();
    for cells in rows(section(md, "## Builtins by namespace")) {
        let [first, .., cap] = &cells[..] else {
            problems.push(format!("a builtin row with one cell: {cells:?}"));
            continue;
        };
        if cells.len() != 3 {
            problems.push(format!(
                "`{first}`: a builtin row has 3 cells (signature, does, capability)"
            ));
        }
        let cap = cap.trim_matches('`').to_string();
        // One row may show two forms of one builtin (`range(end)` / `range(start, end)`).
        let mut in_row = BTreeSet::new();
        for sig in code_spans(first) {
            let called = sig.split('(').next().unwrap().trim();
            let (ns, name) = called.rsplit_once('.').unwrap_or(("", called));
            if !sig.contains('(') {
                // A namespace constant such as `math.PI`.
                if namespace_constant(ns, name).is_none() {
                    problems.push(format!("`{sig}` is documented but is no constant"));
                }
                continue;
            }
            let key = (ns.to_string(), name.to_string());
            if in_row.insert(key.clone()) && out.insert(key, cap.clone()).is_some() {
                problems.push(format!("`{called}` is documented twice"));
            }
        }
    }
    (out, problems)
}

/// Every catalog row has a row on the page with the capability the catalog gives it, and every
/// builtin the page documents exists.
#[test]
fn every_builtin_is_documented_with_its_capability() {
    let md = read("docs/language.md");
    let (documented, mut problems) = documented_builtins(&md);
    let catalog = Catalog::get();
    assert!(catalog.rows().len() > 100, "the catalog looks empty");
    for row in catalog.rows() {
        let q = row.qualified();
        let want = cap_label(row.cap);
        match documented.get(&(row.ns.to_string(), row.name.to_string())) {
            None => problems.push(format!("`{q}` is missing from docs/language.md")),
            Some(got) if got != want => problems.push(format!(
                "`{q}`: docs/language.md says `{got}`, the catalog needs `{want}`"
            )),
            Some(_) => {}
        }
    }
    for (ns, name) in documented.keys() {
        if catalog.lookup(ns, name).is_none() {
            problems.push(format!(
                "`{}` is documented but is no builtin",
                vox_hir::catalog::qualified(ns, name)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The receiver kinds, as the runtime names them in messages (`str.split`), with the heading
/// of their table on the page.
const KINDS: &[(&str, &str)] = &[
    ("str", "### Methods on `str`"),
    ("list", "### Methods on `list`"),
    ("map", "### Methods on `map`"),
    ("option", "### Methods on `Option`"),
    ("result", "### Methods on `Result`"),
    ("int", "### Methods on `int`"),
    ("float", "### Methods on `float`"),
    ("dec", "### Methods on `dec`"),
    ("bool", "### Methods on `bool`"),
    ("regex", "### Methods on `regex`"),
    ("match", "### Methods on `match`"),
];

/// The method names a table documents: `xs.get(i: int) to …` gives `get`.
fn documented_methods(text: &str) -> BTreeSet<String> {
    rows(text)
        .iter()
        .flat_map(|cells| {
            code_spans(&cells[0])
                .into_iter()
                .map(|sig| {
                    let call = sig.split('(').next().unwrap();
                    call.split_once('.').map_or(call, |(_, m)| m).to_string()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Each kind's table lists exactly the methods the runtime dispatches for it (the list
/// `method_names` is checked against the dispatch in the runtime's own tests), and the
/// "every value" table the JSON helpers.
#[test]
fn every_method_is_documented_under_its_kind() {
    let md = read("docs/language.md");
    let methods = section(&md, "## Methods");
    let mut problems = Vec::new();
    let mut compare = |what: &str, want: BTreeSet<String>, got: BTreeSet<String>| {
        for m in want.difference(&got) {
            problems.push(format!("{what}: `{m}` is missing from docs/language.md"));
        }
        for m in got.difference(&want) {
            problems.push(format!("{what}: `{m}` is documented but is no such method"));
        }
    };
    for (kind, heading) in KINDS {
        let want = method_names(kind).iter().map(|s| s.to_string()).collect();
        compare(kind, want, documented_methods(section(methods, heading)));
    }
    let want = JSON_HELPERS.iter().map(|s| s.to_string()).collect();
    compare(
        "every value",
        want,
        documented_methods(section(methods, "### Methods on every value")),
    );
    // A kind that gains methods needs a table too.
    for kind in ["null", "tuple", "fn", "tagged", "namespace"] {
        if !method_names(kind).is_empty() {
            problems.push(format!(
                "{kind} has methods but no table in docs/language.md"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The anchors of a page's headings, as GitHub makes them: lower case, spaces to `-`, other
/// punctuation dropped (`## Tests: @test` gives `tests-test`).
fn anchors(md: &str) -> BTreeSet<String> {
    let mut in_block = false;
    let mut out = BTreeSet::new();
    for line in md.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
        } else if !in_block && line.starts_with('#') {
            let heading = line.trim_start_matches('#').trim().to_lowercase();
            out.insert(
                heading
                    .chars()
                    .filter_map(|c| match c {
                        ' ' => Some('-'),
                        c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                        _ => None,
                    })
                    .collect(),
            );
        }
    }
    out
}

/// Both pages are linked from README.md, stand on their own (no internal spec is cited, since
/// users cannot open it) and link only files of the repository that exist, and headings of
/// these two pages that exist.
#[test]
fn the_language_pages_are_linked_and_link_only_what_exists() {
    let readme = read("README.md");
    let mut problems = Vec::new();
    for page in ["docs/language.md", "docs/tutorial.md"] {
        if !readme.contains(&format!("]({page})")) {
            problems.push(format!("README.md does not link {page}"));
        }
        let md = read(page);
        for internal in [
            "voxscript.md",
            "decisions.md",
            "runtime.md",
            "decision ",
            "§",
        ] {
            if md.contains(internal) {
                problems.push(format!("{page} cites `{internal}`"));
            }
        }
        let dir = repo().join(page).parent().unwrap().to_path_buf();
        for target in md.split("](").skip(1).map(|s| &s[..s.find(')').unwrap()]) {
            if target.starts_with("http") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                repo().join(page)
            } else {
                dir.join(file)
            };
            if !path.exists() {
                problems.push(format!("{page} links {target}, which does not exist"));
            } else if !anchor.is_empty() && (file.is_empty() || file.ends_with(".md")) {
                let headings = anchors(&std::fs::read_to_string(&path).unwrap());
                if !headings.contains(anchor) {
                    problems.push(format!("{page} links {target}: no such heading"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
