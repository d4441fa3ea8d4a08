//! Document symbols and folding ranges.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_syntax::{SyntaxKind as K, SyntaxNode};

use crate::convert::{self};
use crate::session::path_of;
use crate::session::Snapshot;

use super::defs::*;
use super::docs::*;

#[allow(deprecated)]
pub(crate) fn symbol_info(
    name: String,
    kind: SymbolKind,
    location: Location,
    container: Option<String>,
) -> SymbolInformation {
    SymbolInformation {
        name,
        kind,
        tags: None,
        deprecated: None,
        location,
        container_name: container,
    }
}

pub(crate) fn def_symbol_kind(d: &Def) -> Option<SymbolKind> {
    Some(match d.kind {
        DefKind::Fn => SymbolKind::FUNCTION,
        DefKind::Type => SymbolKind::STRUCT,
        DefKind::Variant => SymbolKind::ENUM_MEMBER,
        DefKind::ImportAlias => SymbolKind::MODULE,
        _ => return None,
    })
}

pub fn document_symbols(
    snap: &Snapshot,
    p: DocumentSymbolParams,
    hierarchical: bool,
) -> Result<Option<DocumentSymbolResponse>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let enc = snap.encoding;
    let mut tick = snap.ticker();
    let lines = convert::TextIndex::new(view.tree.bytes());
    let top: Vec<&Def> = view
        .defs
        .iter()
        .filter(|d| def_symbol_kind(d).is_some() && d.kind != DefKind::Variant)
        .collect();
    if hierarchical {
        // Variants by position: a type's are the run inside its declaration.
        let mut variants: Vec<&Def> = view
            .defs
            .iter()
            .filter(|v| v.kind == DefKind::Variant)
            .collect();
        variants.sort_by_key(|v| v.range.start);
        #[allow(deprecated)]
        let out = top
            .iter()
            .map(|d| {
                tick.step();
                let inside: &[&Def] = if d.kind == DefKind::Type {
                    let a = variants.partition_point(|v| v.range.start < d.node.start);
                    let b = variants.partition_point(|v| v.range.start < d.node.end);
                    &variants[a..b.max(a)]
                } else {
                    &[]
                };
                let children: Vec<DocumentSymbol> = inside
                    .iter()
                    .filter(|v| d.node.contains(v.range.start))
                    .map(|v| {
                        tick.step();
                        DocumentSymbol {
                            name: v.name.clone(),
                            detail: None,
                            kind: SymbolKind::ENUM_MEMBER,
                            tags: None,
                            deprecated: None,
                            range: lines.range(enc, v.node),
                            selection_range: lines.range(enc, v.range),
                            children: None,
                        }
                    })
                    .collect();
                let detail = (d.kind == DefKind::Fn)
                    .then(|| signature(&view.tree, d.node).map(|s| s.0))
                    .flatten();
                DocumentSymbol {
                    name: d.name.clone(),
                    detail,
                    kind: def_symbol_kind(d).unwrap_or(SymbolKind::FUNCTION),
                    tags: None,
                    deprecated: None,
                    range: lines.range(enc, d.node),
                    selection_range: lines.range(enc, d.range),
                    children: (!children.is_empty()).then_some(children),
                }
            })
            .collect();
        return Ok(Some(DocumentSymbolResponse::Nested(out)));
    }
    let uri = p.text_document.uri;
    let out = view
        .defs
        .iter()
        .filter_map(|d| {
            tick.step();
            let kind = def_symbol_kind(d)?;
            Some(symbol_info(
                d.name.clone(),
                kind,
                Location::new(uri.clone(), lines.range(enc, d.range)),
                None,
            ))
        })
        .collect();
    Ok(Some(DocumentSymbolResponse::Flat(out)))
}

pub fn folding(snap: &Snapshot, p: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let mut tick = snap.ticker();
    let lines = convert::TextIndex::new(view.tree.bytes());
    let line = |o: u32| lines.line(o);
    let mut out = Vec::new();
    for n in view.tree.root().descendants() {
        tick.step();
        if !matches!(
            n.kind(),
            K::Block
                | K::ListExpr
                | K::MapExpr
                | K::MatchExpr
                | K::AdtBody
                | K::RecordBody
                | K::ArgList
        ) {
            continue;
        }
        let (a, b) = (line(n.range().start), line(n.range().end));
        if b > a {
            out.push(FoldingRange {
                start_line: a,
                end_line: b - 1,
                ..FoldingRange::default()
            });
        }
    }
    // Runs of comment lines, and the imports.
    let mut run: Option<(u32, u32)> = None;
    let flush = |run: &mut Option<(u32, u32)>, out: &mut Vec<FoldingRange>| {
        if let Some((a, b)) = run.take() {
            if b > a {
                out.push(FoldingRange {
                    start_line: a,
                    end_line: b,
                    kind: Some(FoldingRangeKind::Comment),
                    ..FoldingRange::default()
                });
            }
        }
    };
    for t in view.tree.root().descendant_tokens() {
        tick.step();
        match t.kind() {
            K::Comment => {
                let l = line(t.range().start);
                run = match run {
                    Some((a, b)) if b + 1 == l || b == l => Some((a, l)),
                    _ => {
                        flush(&mut run, &mut out);
                        Some((l, l))
                    }
                };
            }
            K::Whitespace | K::Newline => {}
            _ => flush(&mut run, &mut out),
        }
    }
    flush(&mut run, &mut out);
    let imports: Vec<SyntaxNode<'_>> = view
        .tree
        .root()
        .children()
        .filter(|c| c.kind() == K::Import)
        .collect();
    if let (Some(a), Some(b)) = (imports.first(), imports.last()) {
        let (la, lb) = (line(a.range().start), line(b.range().end));
        if lb > la {
            out.push(FoldingRange {
                start_line: la,
                end_line: lb,
                kind: Some(FoldingRangeKind::Imports),
                ..FoldingRange::default()
            });
        }
    }
    out.sort_by_key(|f| (f.start_line, f.end_line));
    out.dedup_by_key(|f| (f.start_line, f.end_line));
    Ok(Some(out))
}
