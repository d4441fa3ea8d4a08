//! Code lenses (editors.md §2): `▶ Run` and `caps: …` above `fn main` (or the first top-level
//! statement, else line 1), `▶ Run test` above each `@test`.

use std::path::Path;

use serde_json::json;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use vox_syntax::ast::{self, AstNode};

use crate::convert;
use crate::session::inferred_tokens;
use crate::session::path_of;
use crate::session::{is_script, Snapshot};

fn lens(range: Range, title: String, command: &str, arg: serde_json::Value) -> CodeLens {
    CodeLens {
        range,
        command: Some(Command {
            title,
            command: command.into(),
            arguments: Some(vec![arg]),
        }),
        data: None,
    }
}

/// `caps: fs:ro=data env:ro` for the script's run.
pub fn caps_title(snap: &Snapshot, path: &Path) -> String {
    let cwd = snap
        .info
        .runs_for(path)
        .first()
        .map_or(snap.root.clone(), |r| r.cwd.clone());
    match inferred_tokens(snap, path, &cwd) {
        Some(t) if t.tokens.is_empty() => "caps: none".into(),
        Some(t) => format!(
            "caps: {}",
            t.tokens
                .iter()
                .map(|t| t.token.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        None => "caps: (fix the syntax errors first)".into(),
    }
}

pub fn code_lens(snap: &Snapshot, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    let uri = params.text_document.uri;
    let Some(path) = path_of(&uri) else {
        return Ok(None);
    };
    let Some(file) = snap.file(&path).filter(|_| is_script(&path)) else {
        return Ok(None);
    };
    let tree = vox_analysis::parse(&snap.db, file);
    let rope = snap.rope(&path);
    let at = |offset: u32| {
        let p = convert::position(&rope, snap.encoding, offset);
        Range::new(Position::new(p.line, 0), Position::new(p.line, 0))
    };
    let mut main_at = None;
    let mut first_stmt = None;
    let mut tests = Vec::new();
    for item in tree.root().children() {
        if let Some(f) = ast::FnDecl::cast(item) {
            let Some(name) = f.name() else { continue };
            let name = name.text().to_string();
            if f.has_decorator("test") || f.has_decorator("example") {
                tests.push((item.range().start, name));
            } else if name == "main" && main_at.is_none() {
                main_at = Some(item.range().start);
            }
        } else if first_stmt.is_none()
            && matches!(
                item.kind(),
                vox_syntax::SyntaxKind::ExprStmt
                    | vox_syntax::SyntaxKind::LetStmt
                    | vox_syntax::SyntaxKind::AssignStmt
                    | vox_syntax::SyntaxKind::WhileStmt
                    | vox_syntax::SyntaxKind::LoopStmt
            )
        {
            first_stmt = Some(item.range().start);
        }
    }
    let uri_s = uri.as_str().to_string();
    let mut out = Vec::new();
    if main_at.is_some() || first_stmt.is_some() || tests.is_empty() {
        let r = at(main_at.or(first_stmt).unwrap_or(0));
        out.push(lens(r, "▶ Run".into(), "vox.run", json!({ "uri": uri_s })));
        out.push(lens(
            r,
            caps_title(snap, &path),
            "vox.showCaps",
            json!({ "uri": uri_s }),
        ));
    }
    for (start, name) in tests {
        out.push(lens(
            at(start),
            "▶ Run test".into(),
            "vox.runTest",
            json!({ "uri": uri_s, "test": name }),
        ));
    }
    out.extend(super::prove::lenses(snap, &path, &uri_s));
    Ok(Some(out))
}
