//! Semantic tokens (full, delta, range) and their legend.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_syntax::SyntaxKind as K;

use crate::base::lock;
use crate::convert::{self};
use crate::session::path_of;
use crate::session::Snapshot;
use crate::state::Shared;

use super::defs::*;

pub(crate) const TOKEN_TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::NAMESPACE,
    SemanticTokenType::TYPE,
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::METHOD,
    SemanticTokenType::PARAMETER,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::KEYWORD,
    SemanticTokenType::COMMENT,
    SemanticTokenType::STRING,
    SemanticTokenType::NUMBER,
    SemanticTokenType::OPERATOR,
    SemanticTokenType::DECORATOR,
];

/// Each token type's index in [`TOKEN_TYPES`] (the legend), known without a search per token.
pub(crate) mod tt {
    pub const NAMESPACE: u32 = 0;
    pub const TYPE: u32 = 1;
    pub const ENUM_MEMBER: u32 = 2;
    pub const FUNCTION: u32 = 3;
    pub const METHOD: u32 = 4;
    pub const PARAMETER: u32 = 5;
    pub const VARIABLE: u32 = 6;
    pub const PROPERTY: u32 = 7;
    pub const KEYWORD: u32 = 8;
    pub const COMMENT: u32 = 9;
    pub const STRING: u32 = 10;
    pub const NUMBER: u32 = 11;
    pub const DECORATOR: u32 = 13;
}

pub(crate) const MOD_DECLARATION: u32 = 1;

pub(crate) const MOD_DEFAULT_LIBRARY: u32 = 2;

pub fn semantic_legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TOKEN_TYPES.to_vec(),
        token_modifiers: vec![
            SemanticTokenModifier::DECLARATION,
            SemanticTokenModifier::DEFAULT_LIBRARY,
        ],
    }
}

/// The classified tokens of a file, encoded relative to each other.
pub fn semantic_tokens(snap: &Snapshot, view: &FileView) -> Vec<SemanticToken> {
    semantic_tokens_in(snap, view, 0..view.tree.token_count())
}

/// The classified tokens among the tokens `which` (indices, in order), encoded relative to each
/// other. One pass: each token is classified with the file's definition index, and its
/// position read from a line index in increasing order.
pub(crate) fn semantic_tokens_in(
    snap: &Snapshot,
    view: &FileView,
    which: std::ops::Range<usize>,
) -> Vec<SemanticToken> {
    let enc = snap.encoding;
    let mut tick = snap.ticker();
    let lines = convert::TextIndex::new(view.tree.bytes());
    let mut out = Vec::new();
    let (mut pl, mut pc) = (0, 0);
    for i in which {
        tick.step();
        let tok = view.tree.token(i);
        let kind = tok.kind();
        let class = match kind {
            K::Comment => Some((tt::COMMENT, 0)),
            K::Str => Some((tt::STRING, 0)),
            K::Int | K::Float | K::Decimal => Some((tt::NUMBER, 0)),
            K::AtName => Some((tt::DECORATOR, 0)),
            // A member that is a reserved word of full Vox (`process.spawn`) is a name.
            K::NonScriptKw if tok.parent().kind() == K::FieldExpr => match resolve_ref(view, tok) {
                Some(Resolved::Builtin(..)) => Some((tt::FUNCTION, MOD_DEFAULT_LIBRARY)),
                _ => Some((tt::METHOD, 0)),
            },
            k if k.is_keyword() => Some((tt::KEYWORD, 0)),
            K::Ident | K::TypeIdent => {
                let decl = view.def_at(tok.range()).is_some();
                let m = if decl { MOD_DECLARATION } else { 0 };
                match resolve_ref(view, tok) {
                    Some(Resolved::Def(_, d)) => Some((
                        match d.kind {
                            DefKind::Fn => tt::FUNCTION,
                            DefKind::Param => tt::PARAMETER,
                            DefKind::Local => tt::VARIABLE,
                            DefKind::Type => tt::TYPE,
                            DefKind::Variant => tt::ENUM_MEMBER,
                            DefKind::ImportAlias => tt::NAMESPACE,
                        },
                        m,
                    )),
                    Some(Resolved::Namespace) => Some((tt::NAMESPACE, MOD_DEFAULT_LIBRARY)),
                    Some(Resolved::Builtin(..)) => Some((tt::FUNCTION, MOD_DEFAULT_LIBRARY)),
                    None if kind == K::TypeIdent => Some((tt::TYPE, 0)),
                    None if tok.parent().kind() == K::FieldExpr => {
                        let called = tok
                            .parent()
                            .parent()
                            .is_some_and(|p| p.kind() == K::CallExpr);
                        Some((if called { tt::METHOD } else { tt::PROPERTY }, 0))
                    }
                    None => None,
                }
            }
            _ => None,
        };
        let Some((t, m)) = class else { continue };
        let r = tok.range();
        let a = lines.position(enc, r.start);
        let b = lines.position(enc, r.end);
        // Tokens spanning lines (multi-line strings) are left to the client's grammar.
        if a.line != b.line || b.character <= a.character {
            continue;
        }
        // Encoded relative to the previous token as it is produced.
        let (line, col) = (a.line, a.character);
        let dl = line - pl;
        out.push(SemanticToken {
            delta_line: dl,
            delta_start: if dl == 0 { col - pc } else { col },
            length: b.character - a.character,
            token_type: t,
            token_modifiers_bitset: m,
        });
        pl = line;
        pc = col;
    }
    out
}

/// A result id and the tokens sent under it.
pub(crate) type CachedTokens = (String, Vec<SemanticToken>);

/// The file's semantic tokens at this revision, cached under its result id, with what was cached
/// before (for deltas).
pub(crate) fn fresh_tokens(
    snap: &Snapshot,
    shared: &Shared,
    uri: &Uri,
) -> Option<(String, Vec<SemanticToken>, Option<CachedTokens>)> {
    let path = path_of(uri)?;
    let view = FileView::new(snap, &path)?;
    let data = semantic_tokens(snap, &view);
    let id = format!("{}", snap.revision);
    let prev = lock(&shared.semantic).insert(path, (id.clone(), data.clone()));
    Some((id, data, prev))
}

pub fn semantic_full(
    snap: &Snapshot,
    shared: &Shared,
    p: SemanticTokensParams,
) -> Result<Option<SemanticTokensResult>> {
    let Some((id, data, _)) = fresh_tokens(snap, shared, &p.text_document.uri) else {
        return Ok(None);
    };
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: Some(id),
        data,
    })))
}

pub fn semantic_delta(
    snap: &Snapshot,
    shared: &Shared,
    p: SemanticTokensDeltaParams,
) -> Result<Option<SemanticTokensFullDeltaResult>> {
    let Some((id, data, prev)) = fresh_tokens(snap, shared, &p.text_document.uri) else {
        return Ok(None);
    };
    match prev {
        Some((prev_id, old)) if prev_id == p.previous_result_id => {
            // One edit over the differing middle (in units of u32: 5 per token).
            let pre = old.iter().zip(&data).take_while(|(a, b)| a == b).count();
            let max_suf = old.len().min(data.len()) - pre;
            let suf = old
                .iter()
                .rev()
                .zip(data.iter().rev())
                .take(max_suf)
                .take_while(|(a, b)| a == b)
                .count();
            let edits = if old.len() == data.len() && pre == old.len() {
                Vec::new()
            } else {
                vec![SemanticTokensEdit {
                    start: (pre * 5) as u32,
                    delete_count: ((old.len() - pre - suf) * 5) as u32,
                    data: Some(data[pre..data.len() - suf].to_vec()),
                }]
            };
            Ok(Some(SemanticTokensFullDeltaResult::TokensDelta(
                SemanticTokensDelta {
                    result_id: Some(id),
                    edits,
                },
            )))
        }
        _ => Ok(Some(SemanticTokensFullDeltaResult::Tokens(
            SemanticTokens {
                result_id: Some(id),
                data,
            },
        ))),
    }
}

/// The tokens that overlap a range: the run of the file's tokens from the one at its start to
/// the one at its end (their positions cost what the range holds, not the file).
pub fn semantic_range(
    snap: &Snapshot,
    p: SemanticTokensRangeParams,
) -> Result<Option<SemanticTokensRangeResult>> {
    let Some(path) = path_of(&p.text_document.uri) else {
        return Ok(None);
    };
    let Some(view) = FileView::new(snap, &path) else {
        return Ok(None);
    };
    let want = convert::text_range(&view.rope, snap.encoding, p.range);
    let n = view.tree.token_count();
    let (first, last) = match (
        view.tree.token_at_offset(want.start),
        view.tree
            .token_at_offset(want.end.saturating_sub(1).max(want.start)),
    ) {
        (Some(a), Some(b)) => (a.index(), (b.index() + 1).min(n)),
        _ => (0, 0),
    };
    let data = semantic_tokens_in(snap, &view, first..last.max(first));
    Ok(Some(SemanticTokensRangeResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    })))
}

#[cfg(test)]
fn ty(t: SemanticTokenType) -> u32 {
    TOKEN_TYPES.iter().position(|x| *x == t).unwrap_or(0) as u32
}

#[cfg(test)]
mod legend_tests {
    use super::*;

    #[test]
    fn token_type_indices_follow_the_legend() {
        for (i, t) in TOKEN_TYPES.iter().enumerate() {
            assert_eq!(ty(t.clone()), i as u32);
        }
        assert_eq!(tt::NAMESPACE, ty(SemanticTokenType::NAMESPACE));
        assert_eq!(tt::FUNCTION, ty(SemanticTokenType::FUNCTION));
        assert_eq!(tt::VARIABLE, ty(SemanticTokenType::VARIABLE));
        assert_eq!(tt::KEYWORD, ty(SemanticTokenType::KEYWORD));
        assert_eq!(tt::DECORATOR, ty(SemanticTokenType::DECORATOR));
        assert_eq!(tt::DECORATOR as usize, TOKEN_TYPES.len() - 1);
    }
}
