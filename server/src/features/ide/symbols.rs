//! Workspace symbols, matched fuzzily: the query's characters in order in the name (`arfl`
//! finds `area_flat`), ranked exact, prefix, word-boundary, then any subsequence; within a rank
//! shorter names first, then by name, file and position, so the order never depends on hashing.

use std::path::PathBuf;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_syntax::TextRange;

use crate::convert::{self};
use crate::diagnostics::uri_of;
use crate::session::Snapshot;

use super::defs::*;
use super::outline::*;

/// How well `query` (lower case) matches `name`: 0 exact, 1 prefix, 2 every run of matched
/// characters starts a word (`area_flat` for `arfl`, `af`, `flat`), 3 a subsequence; `None`
/// when the name does not hold the query's characters in order. Case-insensitive.
pub fn rank(query: &str, name: &str) -> Option<u8> {
    let q: Vec<char> = query.chars().flat_map(char::to_lowercase).collect();
    let orig: Vec<char> = name.chars().collect();
    let n: Vec<char> = name.chars().flat_map(char::to_lowercase).collect();
    if q.is_empty() {
        return Some(0);
    }
    if n.len() != orig.len() {
        // A character whose lower case is longer: compare as strings only.
        let (q, n) = (query.to_lowercase(), name.to_lowercase());
        return if q == n {
            Some(0)
        } else if n.starts_with(&q) {
            Some(1)
        } else if n.contains(&q) {
            Some(3)
        } else {
            None
        };
    }
    if q == n {
        return Some(0);
    }
    if n.starts_with(&q[..]) {
        return Some(1);
    }
    // Word starts: the first character, after `_` or a digit run, and a capital after a
    // lower-case letter.
    let starts: Vec<bool> = (0..n.len())
        .map(|i| {
            i == 0
                || orig[i - 1] == '_'
                || (orig[i].is_uppercase() && orig[i - 1].is_lowercase())
                || (orig[i].is_alphabetic() && orig[i - 1].is_ascii_digit())
        })
        .collect();
    // ok[i][j]: q[i..] matches n[j..] with every run starting at a word start, where the
    // character before j was matched by q[i - 1] (`cont`) or not.
    let (lq, ln) = (q.len(), n.len());
    let mut cont = vec![vec![false; ln + 1]; lq + 1];
    let mut fresh = vec![vec![false; ln + 1]; lq + 1];
    for j in 0..=ln {
        cont[lq][j] = true;
        fresh[lq][j] = true;
    }
    for i in (0..lq).rev() {
        for j in (0..ln).rev() {
            let take = q[i] == n[j];
            // Skipping a character breaks a run.
            fresh[i][j] = fresh[i][j + 1] || (take && starts[j] && cont[i + 1][j + 1]);
            cont[i][j] = fresh[i][j + 1] || (take && cont[i + 1][j + 1]);
        }
    }
    if fresh[0][0] {
        return Some(2);
    }
    let mut it = n.iter();
    q.iter().all(|c| it.any(|x| x == c)).then_some(3)
}

pub fn workspace_symbols(
    snap: &Snapshot,
    p: WorkspaceSymbolParams,
) -> Result<Option<WorkspaceSymbolResponse>> {
    let mut tick = snap.ticker();
    // (rank, name length, name, path, start, kind, range)
    let mut hits: Vec<(u8, usize, String, PathBuf, u32, SymbolKind, TextRange)> = Vec::new();
    for (path, file) in snap.files.iter() {
        let tree = vox_analysis::parse(&snap.db, *file);
        for d in defs(tree) {
            tick.step();
            let Some(kind) = def_symbol_kind(&d) else {
                continue;
            };
            if let Some(r) = rank(&p.query, &d.name) {
                hits.push((
                    r,
                    d.name.chars().count(),
                    d.name,
                    path.clone(),
                    d.range.start,
                    kind,
                    d.range,
                ));
            }
        }
    }
    hits.sort_by(|a, b| (a.0, a.1, &a.2, &a.3, a.4).cmp(&(b.0, b.1, &b.2, &b.3, b.4)));
    hits.truncate(1000);
    let mut out = Vec::new();
    for (_, _, name, path, _, kind, range) in hits {
        let Some(uri) = uri_of(&path) else { continue };
        let rope = snap.rope(&path);
        let container = path.file_name().map(|n| n.to_string_lossy().into_owned());
        out.push(symbol_info(
            name,
            kind,
            Location::new(uri, convert::range(&rope, snap.encoding, range)),
            container,
        ));
    }
    Ok(Some(WorkspaceSymbolResponse::Flat(out)))
}

#[cfg(test)]
mod tests {
    use super::rank;

    #[test]
    fn ranks_exact_prefix_word_boundary_subsequence() {
        assert_eq!(rank("arfl", "arfl"), Some(0));
        assert_eq!(rank("ARFL", "arfl"), Some(0));
        assert_eq!(rank("arfl", "arfl_x"), Some(1));
        assert_eq!(rank("arfl", "area_flat"), Some(2));
        assert_eq!(rank("af", "area_flat"), Some(2));
        assert_eq!(rank("flat", "area_flat"), Some(2));
        assert_eq!(rank("rf", "areaFlat"), Some(3));
        assert_eq!(rank("af", "areaFlat"), Some(2));
        assert_eq!(rank("arfl", "a_rifle"), Some(3));
        assert_eq!(rank("arfl", "unrelated"), None);
        assert_eq!(rank("", "x"), Some(0));
    }
}
