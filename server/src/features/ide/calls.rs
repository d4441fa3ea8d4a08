//! Call hierarchy over the calls the analysis already resolves per file
//! (`vox_analysis::file_calls`, direct calls and functions passed as values, through imports):
//! outgoing calls read the function's own list, incoming calls every workspace file's. A
//! file's top-level statements (its synthetic main) appear as one caller, `(top level)`.

use std::path::Path;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_syntax::{SyntaxKind as K, SyntaxTree, TextRange};

use crate::convert::{self};
use crate::diagnostics::uri_of;
use crate::session::path_of;
use crate::session::Snapshot;

use super::defs::*;
use super::docs::*;
use vox_analysis::FnDef;

/// The name of a file's synthetic main in the hierarchy.
const TOP_LEVEL: &str = "(top level)";

fn item(
    snap: &Snapshot,
    path: &Path,
    name: &str,
    node: TextRange,
    sel: TextRange,
) -> Option<CallHierarchyItem> {
    let rope = snap.rope(path);
    let detail = snap.file(path).and_then(|f| {
        let tree = snap.tree(path, f);
        signature(&tree, node).map(|s| s.0)
    });
    Some(CallHierarchyItem {
        name: name.to_string(),
        kind: SymbolKind::FUNCTION,
        tags: None,
        detail: detail.or_else(|| path.file_name().map(|n| n.to_string_lossy().into_owned())),
        uri: uri_of(path)?,
        range: convert::range(&rope, snap.encoding, node),
        selection_range: convert::range(&rope, snap.encoding, sel),
        data: None,
    })
}

/// The hierarchy item of a workspace function.
fn item_of(snap: &Snapshot, f: FnDef<'_>) -> Option<CallHierarchyItem> {
    let file = f.file(&snap.db);
    let path = file.path(&snap.db).clone();
    if f.index(&snap.db) == u32::MAX {
        let len = file.text(&snap.db).len() as u32;
        return item(
            snap,
            &path,
            TOP_LEVEL,
            TextRange::new(0, len),
            TextRange::new(0, 0),
        );
    }
    let base = vox_analysis::fn_base(&snap.db, f);
    let tree = snap.tree(&path, file);
    let name = f.name(&snap.db);
    let d = defs(&tree)
        .into_iter()
        .find(|d| d.kind == DefKind::Fn && d.node.start == base)
        .or_else(|| {
            defs(&tree)
                .into_iter()
                .find(|d| d.kind == DefKind::Fn && *d.name == **name)
        })?;
    item(snap, &path, &d.name, d.node, d.range)
}

/// The function a hierarchy item names (from its file and range).
fn fn_of<'db>(snap: &'db Snapshot, it: &CallHierarchyItem) -> Option<FnDef<'db>> {
    let path = path_of(&it.uri)?;
    let file = snap.file(&path)?;
    let items = vox_analysis::file_items(&snap.db, file);
    if it.name == TOP_LEVEL {
        return items.main;
    }
    let start = convert::offset(&snap.rope(&path), snap.encoding, it.range.start) as u32;
    let starts = vox_analysis::fn_starts(&snap.db, file);
    starts
        .binary_search(&start)
        .ok()
        .and_then(|i| items.fns.get(i).copied())
        .filter(|f| **f.name(&snap.db) == *it.name)
        .or_else(|| {
            items
                .fns
                .iter()
                .copied()
                .find(|f| **f.name(&snap.db) == *it.name)
        })
}

/// The callee's name in the call at `r` (file offsets), else the whole call.
fn call_name(tree: &SyntaxTree, r: TextRange) -> TextRange {
    let node = tree.token_at_offset(r.start).and_then(|t| {
        t.parent()
            .ancestors()
            .find(|n| n.trimmed_range() == r || n.range() == r)
    });
    let Some(node) = node else { return r };
    let callee = if node.kind() == K::CallExpr {
        node.children().next()
    } else {
        Some(node)
    };
    let tok = callee.and_then(callee_name);
    tok.map_or(r, |t| t.range())
}

/// The ranges (in the caller's file) of the calls `of` makes that `keep` accepts, grouped by
/// callee in order of first call.
fn grouped<'db>(
    snap: &'db Snapshot,
    caller: FnDef<'db>,
    mut keep: impl FnMut(FnDef<'db>) -> bool,
) -> Vec<(FnDef<'db>, Vec<TextRange>)> {
    let file = caller.file(&snap.db);
    let calls = vox_analysis::file_calls(&snap.db, file).of(&snap.db, caller);
    let base = vox_analysis::fn_base(&snap.db, caller);
    let mut out: Vec<(FnDef<'db>, Vec<TextRange>)> = Vec::new();
    if calls.is_empty() {
        return out;
    }
    let path = file.path(&snap.db);
    // Fetched at the first call kept (most functions call no given target).
    let mut tree = None;
    for c in calls {
        crate::work::add(1);
        if !keep(c.callee) {
            continue;
        }
        let tree = tree.get_or_insert_with(|| snap.tree(path, file));
        let r = call_name(
            tree,
            TextRange::new(base + c.range.start, base + c.range.end),
        );
        match out.iter_mut().find(|(f, _)| *f == c.callee) {
            Some((_, rs)) => rs.push(r),
            None => out.push((c.callee, vec![r])),
        }
    }
    out
}

fn ranges(snap: &Snapshot, path: &Path, rs: &[TextRange]) -> Vec<Range> {
    let rope = snap.rope(path);
    rs.iter()
        .map(|r| convert::range(&rope, snap.encoding, *r))
        .collect()
}

pub fn prepare_call_hierarchy(
    snap: &Snapshot,
    p: CallHierarchyPrepareParams,
) -> Result<Option<Vec<CallHierarchyItem>>> {
    let pp = p.text_document_position_params;
    let Some((view, offset)) = FileView::at(snap, &pp) else {
        return Ok(None);
    };
    let Some(tok) = view.ident_at(offset) else {
        return Ok(None);
    };
    match resolve(snap, &view, tok) {
        Some(Target::Def(file, d)) if d.kind == DefKind::Fn => {
            Ok(item(snap, &file, &d.name, d.node, d.range).map(|i| vec![i]))
        }
        _ => Ok(None),
    }
}

pub fn outgoing_calls(
    snap: &Snapshot,
    p: CallHierarchyOutgoingCallsParams,
) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
    let Some(f) = fn_of(snap, &p.item) else {
        return Ok(None);
    };
    let path = f.file(&snap.db).path(&snap.db).clone();
    let out = grouped(snap, f, |_| true)
        .into_iter()
        .filter_map(|(callee, rs)| {
            Some(CallHierarchyOutgoingCall {
                to: item_of(snap, callee)?,
                from_ranges: ranges(snap, &path, &rs),
            })
        })
        .collect();
    Ok(Some(out))
}

pub fn incoming_calls(
    snap: &Snapshot,
    p: CallHierarchyIncomingCallsParams,
) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
    let Some(target) = fn_of(snap, &p.item) else {
        return Ok(None);
    };
    let mut tick = snap.ticker();
    let mut out = Vec::new();
    for (path, file) in snap.files.iter() {
        tick.step();
        let items = vox_analysis::file_items(&snap.db, *file);
        for caller in items.all() {
            tick.step();
            for (_, rs) in grouped(snap, caller, |c| c == target) {
                if let Some(from) = item_of(snap, caller) {
                    out.push(CallHierarchyIncomingCall {
                        from,
                        from_ranges: ranges(snap, path, &rs),
                    });
                }
            }
        }
    }
    Ok(Some(out))
}
