//! Inferred value kinds at the edge (`vox_analysis::fn_kinds`): the function an offset lies in,
//! the kind of a local or of the expression before a dot, and what a user function returns.

use vox_syntax::ast::AstNode;
use vox_syntax::{SyntaxKind as K, SyntaxNode, TextRange};

use crate::session::Snapshot;

use super::defs::{callee_name, resolve_ref, DefKind, FileView, Resolved};
use vox_analysis::{FnDef, FnKinds, Kind};

/// The function holding `offset` and where its relative ranges start: a named function, else
/// the synthetic main.
pub fn fn_at<'db>(snap: &'db Snapshot, view: &FileView, offset: u32) -> Option<(FnDef<'db>, u32)> {
    let items = vox_analysis::file_items(&snap.db, view.file);
    for r in view.index.items_at(offset).into_iter().flatten() {
        let starts = vox_analysis::fn_starts(&snap.db, view.file);
        if let Ok(i) = starts.binary_search(&r.start) {
            if r.start <= offset && offset < r.end {
                return Some((*items.fns.get(i)?, r.start));
            }
        }
    }
    // The synthetic main's ranges start where its text does (in an editor, around the
    // statements).
    let main = items.main?;
    let base = vox_analysis::fn_base(&snap.db, main);
    (base <= offset && offset <= base + main.text(&snap.db).len()).then_some((main, base))
}

/// The kinds of the function holding `offset`, with its base.
pub fn kinds_at(snap: &Snapshot, view: &FileView, offset: u32) -> Option<(FnKinds, u32)> {
    let (f, base) = fn_at(snap, view, offset)?;
    Some((vox_analysis::fn_kinds(&snap.db, f), base))
}

/// The kind of the expression `node` (file ranges), from its function's kinds.
pub fn expr_kind(kinds: &FnKinds, base: u32, node: SyntaxNode<'_>) -> Kind {
    let r = node.trimmed_range();
    let Some(rel) = r.start.checked_sub(base).zip(r.end.checked_sub(base)) else {
        return Kind::Unknown;
    };
    let rel = TextRange::new(rel.0, rel.1);
    if let Some((_, k)) = kinds.exprs.iter().find(|(er, _)| *er == rel) {
        return *k;
    }
    // Ranges that differ in trivia: the longest expression ending where the node ends and
    // starting inside it.
    kinds
        .exprs
        .iter()
        .filter(|(er, _)| er.end == rel.end && er.start >= rel.start)
        .min_by_key(|(er, _)| er.start)
        .map_or(Kind::Unknown, |(_, k)| *k)
}

/// The kind of the local `let` whose statement is `stmt` (file range, trivia included or not):
/// the statement starting first inside it (a nested `let` in a closure starts later).
pub fn let_kind(kinds: &FnKinds, base: u32, stmt: TextRange) -> Kind {
    let (Some(start), Some(end)) = (stmt.start.checked_sub(base), stmt.end.checked_sub(base))
    else {
        return Kind::Unknown;
    };
    kinds
        .lets
        .iter()
        .filter(|(r, _)| r.start >= start && r.end <= end)
        .min_by_key(|(r, _)| r.start)
        .map_or(Kind::Unknown, |(_, k)| *k)
}

/// What the user function a call's callee names returns (`f()`, `util.f()`), when known.
fn call_kind(snap: &Snapshot, view: &FileView, call: SyntaxNode<'_>) -> Kind {
    let Some(callee) = call.children().next() else {
        return Kind::Unknown;
    };
    let Some(tok) = callee_name(callee) else {
        return Kind::Unknown;
    };
    let Some(Resolved::Def(path, d)) = resolve_ref(view, tok) else {
        return Kind::Unknown;
    };
    if d.kind != DefKind::Fn {
        return Kind::Unknown;
    }
    let Some(file) = snap.file(path) else {
        return Kind::Unknown;
    };
    let items = vox_analysis::file_items(&snap.db, file);
    let starts = vox_analysis::fn_starts(&snap.db, file);
    let Some(f) = starts
        .binary_search(&d.node.start)
        .ok()
        .and_then(|i| items.fns.get(i))
        .or_else(|| items.fns.iter().find(|f| **f.name(&snap.db) == *d.name))
    else {
        return Kind::Unknown;
    };
    vox_analysis::fn_kinds(&snap.db, *f).returns
}

/// The kind of a receiver: what the analysis infers for it, else (a call of a user function)
/// what that function returns.
pub fn receiver_kind(snap: &Snapshot, view: &FileView, recv: SyntaxNode<'_>) -> Kind {
    let at = recv.range().start;
    if let Some((kinds, base)) = kinds_at(snap, view, at) {
        let k = expr_kind(&kinds, base, recv);
        if k != Kind::Unknown {
            return k;
        }
    }
    if recv.kind() == K::CallExpr {
        return call_kind(snap, view, recv);
    }
    // A local bound to such a call (`let s = util.slug(x)`).
    if let Some(Resolved::Def(_, d)) = recv.first_token().and_then(|t| resolve_ref(view, t)) {
        if d.kind == DefKind::Local && recv.kind() == K::NameRef {
            let value = view
                .tree
                .token_at_offset(d.node.start)
                .and_then(|t| t.parent().ancestors().find(|n| n.range() == d.node))
                .and_then(vox_syntax::ast::LetStmt::cast)
                .and_then(|l| l.value());
            if let Some(v) = value.filter(|v| v.kind() == K::CallExpr) {
                return call_kind(snap, view, v);
            }
        }
    }
    Kind::Unknown
}

/// The method-table name of a kind (`vox_runtime::methods::method_names`).
pub fn method_table(k: Kind) -> Option<&'static str> {
    Some(match k {
        Kind::Str => "str",
        Kind::List => "list",
        Kind::Map => "map",
        Kind::Int => "int",
        Kind::Float => "float",
        Kind::Dec => "dec",
        Kind::Bool => "bool",
        Kind::Option => "option",
        Kind::Result => "result",
        _ => return None,
    })
}
