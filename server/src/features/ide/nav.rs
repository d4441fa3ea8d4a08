//! Document highlights (a name's uses in the file, locals' writes told from reads), selection
//! ranges (the enclosing syntax nodes of the lossless tree, innermost first) and document links
//! (each file import's path, to the imported file).

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_syntax::{SyntaxKind as K, SyntaxToken, SyntaxTree, TextRange};

use crate::diagnostics::uri_of;
use crate::session::path_of;
use crate::session::Snapshot;

use super::defs::*;

/// Whether the name token `tok` (a use of a local or parameter) is written here: the target of
/// an assignment (`x = …`, `x += …`).
fn is_write(tok: SyntaxToken<'_>) -> bool {
    let name = tok.parent();
    if name.kind() != K::NameRef {
        return false;
    }
    name.parent().is_some_and(|p| {
        p.kind() == K::AssignStmt
            && p.children()
                .next()
                .is_some_and(|t| t.range() == name.range())
    })
}

pub fn document_highlight(
    snap: &Snapshot,
    p: DocumentHighlightParams,
) -> Result<Option<Vec<DocumentHighlight>>> {
    let pp = p.text_document_position_params;
    let Some((view, offset)) = FileView::at(snap, &pp) else {
        return Ok(None);
    };
    let enc = snap.encoding;
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    let Some(target) = resolve(snap, &view, tok) else {
        return Ok(None);
    };
    let name = tok.text().into_owned();
    let local =
        matches!(&target, Target::Def(_, d) if matches!(d.kind, DefKind::Local | DefKind::Param));
    let mut tick = snap.ticker();
    let mut out = Vec::new();
    for t in view.tree.root().descendant_tokens() {
        tick.step();
        if !matches!(t.kind(), K::Ident | K::TypeIdent) || t.text() != name.as_str() {
            continue;
        }
        if resolve(snap, &view, t).as_ref() != Some(&target) {
            continue;
        }
        let kind = if !local {
            DocumentHighlightKind::TEXT
        } else if view.def_at(t.range()).is_some() || is_write(t) {
            DocumentHighlightKind::WRITE
        } else {
            DocumentHighlightKind::READ
        };
        out.push(DocumentHighlight {
            range: view.range(enc, t.range()),
            kind: Some(kind),
        });
    }
    Ok(Some(out))
}

/// `r` without leading and trailing whitespace, newlines and comments.
fn trimmed(tree: &SyntaxTree, r: TextRange) -> TextRange {
    let Some(first) = tree.token_at_offset(r.start) else {
        return r;
    };
    let (mut a, mut b) = (first.index(), first.index());
    let n = tree.token_count();
    while b + 1 < n && tree.token(b + 1).range().end <= r.end {
        b += 1;
    }
    let skip = |k: K| k.is_trivia() || k == K::Newline || k == K::Eof;
    while a < b && skip(tree.token(a).kind()) {
        a += 1;
    }
    while b > a && skip(tree.token(b).kind()) {
        b -= 1;
    }
    let (s, e) = (
        tree.token(a).range().start.max(r.start),
        tree.token(b).range().end.min(r.end),
    );
    if s < e {
        TextRange::new(s, e)
    } else {
        r
    }
}

pub fn selection_ranges(
    snap: &Snapshot,
    p: SelectionRangeParams,
) -> Result<Option<Vec<SelectionRange>>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let enc = snap.encoding;
    let mut out = Vec::new();
    for pos in p.positions {
        let offset = view.offset(enc, pos);
        // The token at the cursor (the one before it at a token's end), then every node above.
        let tok = view
            .tree
            .token_at_offset(offset)
            .filter(|t| !(t.kind().is_trivia() || t.kind() == K::Newline))
            .or_else(|| view.tree.token_at_offset(offset.checked_sub(1)?))
            .or_else(|| view.tree.token_at_offset(offset));
        let mut ranges: Vec<TextRange> = Vec::new();
        if let Some(t) = tok {
            if !(t.kind().is_trivia() || t.kind() == K::Newline) {
                ranges.push(t.range());
            }
            for n in t.parent().ancestors() {
                let r = trimmed(&view.tree, n.range());
                if ranges
                    .last()
                    .is_none_or(|l| *l != r && r.start <= l.start && l.end <= r.end)
                {
                    ranges.push(r);
                }
            }
        }
        if ranges.is_empty() {
            ranges.push(TextRange::new(offset, offset));
        }
        // Outermost first, each holding the next.
        let mut sel: Option<SelectionRange> = None;
        for r in ranges.into_iter().rev() {
            sel = Some(SelectionRange {
                range: view.range(enc, r),
                parent: sel.map(Box::new),
            });
        }
        out.extend(sel);
    }
    Ok(Some(out))
}

pub fn document_links(snap: &Snapshot, p: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let enc = snap.encoding;
    let targets = &vox_analysis::resolve_imports(&snap.db, view.file).targets;
    let mut out = Vec::new();
    let imports = view
        .tree
        .root()
        .children()
        .filter(|c| c.kind() == K::Import)
        .filter_map(|c| c.child_of(K::ImportPath)?.first_token_of(K::Str));
    for (k, s) in imports.enumerate() {
        let target = match targets.get(k) {
            Some(vox_analysis::ImportTarget::File(f)) => f.path(&snap.db).clone(),
            Some(vox_analysis::ImportTarget::Missing(p)) if p.is_file() => p.clone(),
            _ => continue,
        };
        let Some(uri) = uri_of(&target) else { continue };
        // Inside the quotes.
        let r = s.range();
        let text = s.text();
        let open = text.find(['"', '\'']).map_or(0, |i| i + 1) as u32;
        let close = u32::from(text.ends_with(['"', '\'']) && text.len() as u32 > open);
        let inner = TextRange::new(r.start + open, (r.end - close).max(r.start + open));
        out.push(DocumentLink {
            range: view.range(enc, inner),
            target: Some(uri),
            tooltip: Some(format!("open {}", target.display())),
            data: None,
        });
    }
    Ok(Some(out))
}
