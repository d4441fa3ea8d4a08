//! The builtins' and methods' signatures and one-line docs, read from the language reference
//! (docs/language.md), so hover, completion and signature help say what the page says; the
//! docs_language test keeps the page complete against the runtime's catalog and method lists.

use std::collections::HashMap;
use std::sync::OnceLock;

const PAGE: &str = include_str!("../../../../docs/language.md");

/// Signature (the method's without its receiver: `trim() to str`) and doc, by name.
pub struct Reference {
    /// `fs.read`, `print`, `math.PI` → (`fs.read(path: str) to Result[str, str]`, doc).
    pub builtins: HashMap<String, (String, String)>,
    /// `trim` → (`trim() to str`, doc): the first kind that lists the name (the page's order).
    pub methods: HashMap<String, (String, String)>,
}

pub fn reference() -> &'static Reference {
    static REF: OnceLock<Reference> = OnceLock::new();
    REF.get_or_init(|| parse(PAGE))
}

/// The cells of a table row, split on `|` that is not escaped (`\|` is a pipe inside a cell).
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                chars.next();
                out.last_mut().unwrap().push('|');
            }
            '|' => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The first backticked text of a cell.
fn first_code(cell: &str) -> Option<&str> {
    let start = cell.find('`')? + 1;
    let len = cell[start..].find('`')?;
    Some(&cell[start..start + len])
}

fn parse(page: &str) -> Reference {
    let mut r = Reference {
        builtins: HashMap::new(),
        methods: HashMap::new(),
    };
    #[derive(PartialEq)]
    enum Part {
        Other,
        Builtins,
        Methods,
    }
    let mut part = Part::Other;
    for line in page.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            part = match h.trim() {
                "Builtins by namespace" => Part::Builtins,
                "Methods" => Part::Methods,
                _ => Part::Other,
            };
            continue;
        }
        if part == Part::Other || !line.starts_with("| `") {
            continue;
        }
        let cells = cells(line);
        let (Some(sig), Some(doc)) = (cells.first().and_then(|c| first_code(c)), cells.get(1))
        else {
            continue;
        };
        let name_end = sig.find('(').unwrap_or(sig.len());
        if part == Part::Builtins {
            let name = sig[..name_end].trim().to_string();
            r.builtins
                .entry(name)
                .or_insert_with(|| (sig.to_string(), doc.clone()));
        } else {
            // `s.trim() to str`: the receiver is the part before the first `.`.
            let Some(dot) = sig[..name_end].find('.') else {
                continue;
            };
            let name = sig[dot + 1..name_end].trim().to_string();
            r.methods
                .entry(name)
                .or_insert_with(|| (sig[dot + 1..].to_string(), doc.clone()));
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_and_methods_come_from_the_page() {
        let r = reference();
        let (sig, doc) = &r.builtins["fs.read"];
        assert!(sig.starts_with("fs.read(path: str)"), "{sig}");
        assert!(!doc.is_empty());
        assert!(r.builtins["print"].0.starts_with("print("));
        assert!(r.builtins.contains_key("math.PI"));
        let (sig, _) = &r.methods["trim"];
        assert!(sig.starts_with("trim()"), "{sig}");
        assert!(r.methods["chars_count"].1.contains("character"));
    }

    #[test]
    fn escaped_pipes_stay_in_their_cell() {
        assert_eq!(
            cells(r"| `a \| b` | doc | none |"),
            ["`a | b`", "doc", "none"]
        );
    }

    /// Every builtin of the runtime has a signature and a doc on the page.
    #[test]
    fn every_catalog_row_has_its_reference() {
        let r = reference();
        let missing: Vec<String> = vox_runtime::catalog::Catalog::get()
            .rows()
            .iter()
            .filter(|row| !matches!(row.name, "Some" | "Ok" | "Err"))
            .map(|row| vox_hir::catalog::qualified(row.ns, row.name))
            .filter(|q| !r.builtins.contains_key(q))
            .collect();
        assert!(missing.is_empty(), "{missing:?}");
    }
}
