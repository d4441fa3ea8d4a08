//! Checks over the finished tree that the grammar cannot express: duplicate declarations, `main`
//! rules, assignment targets and view calls (voxscript.md §3.3, §3.4, §1.2).

use std::borrow::Cow;
use std::collections::HashMap;

use crate::ast::{self, AstNode};
use crate::kind::SyntaxKind::{self, *};
use crate::{Diagnostic, SyntaxNode, TextRange};

/// `has_not_a_script`: whether parsing reported any `syntax.not-a-script` (only then can the tree
/// hold `NotAScript` nodes, which silence the rest of their item).
/// `check_items`: also check inside each top-level item (false when they are known clean).
pub(crate) fn validate<'t>(
    root: SyntaxNode<'t>,
    has_not_a_script: bool,
    check_items: bool,
    diags: &mut Vec<Diagnostic>,
) {
    let file = ast::SourceFile::cast(root).expect("the root is a SourceFile");
    // Names borrowed from the tree where they can be, in a map sized for one name per item: a
    // large file declares thousands.
    let mut seen: HashMap<Cow<'t, str>, TextRange> =
        HashMap::with_capacity(root.children().count());
    let bytes = root.tree().bytes();
    let line_of = |offset: u32| {
        bytes[..offset as usize]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    };
    let mut declare = |name: Cow<'t, str>, range: TextRange, diags: &mut Vec<Diagnostic>| {
        if let Some(first) = seen.get(&name) {
            diags.push(
                Diagnostic::error(
                    "syntax.duplicate",
                    range,
                    format!("`{name}` is declared twice at the top level"),
                )
                .with_help(format!(
                    "the first declaration is on line {}; rename or remove one of them",
                    line_of(first.start)
                )),
            );
        } else {
            seen.insert(name, range);
        }
    };
    let mut variants: Vec<String> = Vec::new();
    let mut main: Option<ast::FnDecl<'_>> = None;
    let mut first_stmt: Option<SyntaxNode<'_>> = None;
    for item in root.children() {
        match item.kind() {
            FnDecl => {
                let f = ast::FnDecl::cast(item).expect("kind checked");
                if let Some(name) = f.name() {
                    if name.text() == "main" {
                        main = Some(f);
                    }
                    declare(name.text(), name.range(), diags);
                }
            }
            TypeDecl => {
                let t = ast::TypeDecl::cast(item).expect("kind checked");
                if let Some(name) = t.name() {
                    declare(name.text(), name.range(), diags);
                    if t.json_as().is_some() {
                        declare(
                            format!("{}_from_json", name.text()).into(),
                            name.range(),
                            diags,
                        );
                        declare(
                            format!("{}_to_json", name.text()).into(),
                            name.range(),
                            diags,
                        );
                    }
                }
                for v in t.variants() {
                    if let Some(name) = v.name() {
                        variants.push(name.text().into_owned());
                        declare(name.text(), name.range(), diags);
                    }
                }
            }
            ExprStmt | LetStmt | AssignStmt | WhileStmt | LoopStmt if first_stmt.is_none() => {
                first_stmt = Some(item)
            }
            _ => {}
        }
    }
    if let Some(main) = main {
        if let Some(stmt) = first_stmt {
            diags.push(Diagnostic::error(
                "syntax.main-conflict",
                stmt.trimmed_range(),
                "both top-level statements and fn main; move the statements into main",
            ));
        }
        if let Some(params) = main.param_list() {
            if params.params().next().is_some() {
                diags.push(Diagnostic::error(
                    "syntax.main-params",
                    params.syntax().range(),
                    "`fn main` takes no parameters; read arguments with `env.args()`",
                ));
            }
        }
    }
    let _ = file;
    // Sorted for `view_call`'s lookups: a file may declare thousands of variants.
    variants.sort_unstable();
    variants.dedup();
    let tree = root.tree();
    let mut first_id = 0u32;
    if !check_items {
        return;
    }
    for item in root.children() {
        // Post-order ids: the item's subtree is `first_id..=item.id()`.
        check_item(
            tree,
            first_id..=item.id(),
            has_not_a_script,
            &variants,
            diags,
        );
        first_id = item.id() + 1;
    }
}

/// Assignment targets and view calls within one top-level item; at most one not-a-script per item.
fn check_item(
    tree: &crate::SyntaxTree,
    ids: std::ops::RangeInclusive<u32>,
    has_not_a_script: bool,
    variants: &[String],
    diags: &mut Vec<Diagnostic>,
) {
    if has_not_a_script && tree.node_kinds(ids.clone()).any(|(_, k)| k == NotAScript) {
        return;
    }
    for (id, kind) in tree.node_kinds(ids) {
        let node = tree.node(id);
        match kind {
            AssignStmt => {
                let Some(target) = node.children().next() else {
                    continue;
                };
                if !is_place(target) {
                    diags.push(
                        Diagnostic::error(
                            "syntax.assign-target",
                            target.range(),
                            "cannot assign to this expression; assign to a variable, a field or an index",
                        )
                        .with_help("a place is a variable followed by any chain of `.field` and `[index]`"),
                    );
                }
            }
            CallExpr if node.children().next().is_some_and(|c| c.kind() == NameRef) => {
                if let Some(name) = view_call(node, variants) {
                    diags.push(Diagnostic::error(
                        "syntax.not-a-script",
                        node.trimmed_range(),
                        format!("not a script: the view call `{name}(…)` is a Vox service surface; VoxScript runs script-shaped files only"),
                    ));
                    return;
                }
            }
            _ => {}
        }
    }
}

fn is_place(node: SyntaxNode<'_>) -> bool {
    let mut cur = node;
    loop {
        match cur.kind() {
            NameRef => {
                return cur
                    .tokens()
                    .next()
                    .is_some_and(|t| t.kind() == SyntaxKind::Ident)
            }
            FieldExpr | IndexExpr => match cur.children().next() {
                Some(inner) => cur = inner,
                None => return false,
            },
            _ => return false,
        }
    }
}

/// A capitalised callee with zero arguments or only named ones, not a known constructor
/// (`variants` sorted).
fn view_call(call: SyntaxNode<'_>, variants: &[String]) -> Option<String> {
    let callee = call.children().next()?;
    if callee.kind() != NameRef {
        return None;
    }
    let tok = callee.tokens().next()?;
    if tok.kind() != TypeIdent {
        return None;
    }
    let name = tok.text().into_owned();
    if matches!(name.as_str(), "Some" | "Ok" | "Err" | "Error")
        || variants.binary_search(&name).is_ok()
    {
        return None;
    }
    let args = call.child_of(ArgList)?;
    let only_named = args.children().all(|a| a.kind() == NamedArg);
    only_named.then_some(name)
}
