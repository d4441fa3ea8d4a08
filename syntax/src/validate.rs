//! Checks over the finished tree that the grammar cannot express: duplicate declarations, `main`
//! rules, assignment targets and view calls (voxscript.md §3.3, §3.4, §1.2).

use std::borrow::Cow;
use std::collections::HashMap;

use crate::ast::{self, AstNode};
use crate::diagnostic::Diagnostic;
use crate::kind::SyntaxKind::{self, *};
use crate::syntax_node::SyntaxNode;
use crate::text_range::TextRange;

/// `has_not_a_script`: whether parsing reported any `syntax.not-a-script` (only then can the tree
/// hold `NotAScript` nodes, which silence the rest of their item).
/// `check_items`: also check inside each top-level item (false when they are known clean).
pub(crate) fn validate(
    root: SyntaxNode<'_>,
    has_not_a_script: bool,
    check_items: bool,
    diags: &mut Vec<Diagnostic>,
) {
    validate_on(root, has_not_a_script, check_items, diags, 1)
}

/// [`validate`] on up to `threads` threads: the same diagnostics in the same order whatever
/// their number. The items are split into runs of about equal node counts; each thread reads
/// the names its run declares, then (once every variant is known) checks inside its run's
/// items. Duplicates are found in one pass over the names in file order.
pub(crate) fn validate_on<'t>(
    root: SyntaxNode<'t>,
    has_not_a_script: bool,
    check_items: bool,
    diags: &mut Vec<Diagnostic>,
    threads: usize,
) {
    let only = if check_items { Only::All } else { Only::None };
    validate_items(root, has_not_a_script, only, diags, threads)
}

/// The checks across items, and inside the top-level items whose ids are in `items` only
/// (after a splice, when nothing inside the other items can have changed: no variant was
/// declared or removed).
pub(crate) fn validate_some(
    root: SyntaxNode<'_>,
    items: std::ops::RangeInclusive<u32>,
    diags: &mut Vec<Diagnostic>,
) {
    validate_items(root, false, Only::Items(items), diags, 1)
}

/// The checks inside one top-level item (its subtree's post-order ids `ids`) as if the file
/// declared no variant: what [`validate_some`] reports inside it, or more (a known variant only
/// silences a view call).
pub(crate) fn check_without_variants(
    root: SyntaxNode<'_>,
    ids: std::ops::RangeInclusive<u32>,
    diags: &mut Vec<Diagnostic>,
) {
    check_item(root.tree(), ids, false, &[], diags)
}

/// Which items [`validate_items`] checks inside.
#[derive(Clone)]
enum Only {
    All,
    None,
    Items(std::ops::RangeInclusive<u32>),
}

fn validate_items<'t>(
    root: SyntaxNode<'t>,
    has_not_a_script: bool,
    only: Only,
    diags: &mut Vec<Diagnostic>,
    threads: usize,
) {
    let threads = threads.max(1);
    let items: Vec<SyntaxNode<'t>> = root.children().collect();
    let total = root.id() as usize;
    // Runs of items, cut where the ids (post-order) pass an equal share of the nodes.
    let mut runs: Vec<&[SyntaxNode<'t>]> = Vec::with_capacity(threads);
    let mut rest = &items[..];
    for g in 1..threads {
        let limit = (total / threads * g) as u32;
        let cut = rest.partition_point(|n| n.id() < limit);
        let (run, after) = rest.split_at(cut);
        runs.push(run);
        rest = after;
    }
    runs.push(rest);
    let facts: Vec<Facts<'t>> = on_threads(&runs, |run, _| facts(run));

    let bytes = root.tree().bytes();
    let line_of = |offset: u32| {
        bytes[..offset as usize]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    };
    let mut seen: HashMap<Cow<'t, str>, TextRange> = HashMap::with_capacity(items.len());
    let mut variants: Vec<String> = Vec::new();
    let mut main: Option<ast::FnDecl<'_>> = None;
    let mut first_stmt: Option<SyntaxNode<'_>> = None;
    for f in facts {
        for (name, range) in f.decls {
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
        }
        variants.extend(f.variants);
        main = f.main.or(main);
        first_stmt = first_stmt.or(f.first_stmt);
    }
    main_rules(main, first_stmt, diags);
    // Sorted for `view_call`'s lookups: a file may declare thousands of variants.
    variants.sort_unstable();
    variants.dedup();
    if matches!(only, Only::None) {
        return;
    }
    let tree = root.tree();
    let found: Vec<Vec<Diagnostic>> = on_threads(&runs, |run, g| {
        // Post-order ids: an item's subtree starts right after the previous item.
        let mut first_id = match g {
            0 => 0,
            _ => runs[..g]
                .iter()
                .rev()
                .find_map(|r| r.last())
                .map_or(0, |n| n.id() + 1),
        };
        let mut out = Vec::new();
        for item in run {
            if match &only {
                Only::All => true,
                Only::None => false,
                Only::Items(ids) => ids.contains(&item.id()),
            } {
                check_item(
                    tree,
                    first_id..=item.id(),
                    has_not_a_script,
                    &variants,
                    &mut out,
                );
            }
            first_id = item.id() + 1;
        }
        out
    });
    for d in found {
        diags.extend(d);
    }
}

/// `f` on each run (the first on this thread, the others on threads of their own), results in
/// order.
fn on_threads<'a, 't, R: Send>(
    runs: &[&'a [SyntaxNode<'t>]],
    f: impl Fn(&'a [SyntaxNode<'t>], usize) -> R + Sync,
) -> Vec<R> {
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = runs
            .iter()
            .enumerate()
            .skip(1)
            .map(|(g, &run)| {
                std::thread::Builder::new()
                    .spawn_scoped(s, move || f(run, g))
                    .map_err(|_| (g, run))
            })
            .collect();
        let mut out = vec![f(runs[0], 0)];
        for h in handles {
            out.push(match h {
                Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                Err((g, run)) => f(run, g),
            });
        }
        out
    })
}

/// What a run of items declares, in the order [`validate`] declares it.
struct Facts<'t> {
    decls: Vec<(Cow<'t, str>, TextRange)>,
    variants: Vec<String>,
    /// The last `fn main`, and the first top-level statement.
    main: Option<ast::FnDecl<'t>>,
    first_stmt: Option<SyntaxNode<'t>>,
}

fn facts<'t>(items: &[SyntaxNode<'t>]) -> Facts<'t> {
    let mut f = Facts {
        decls: Vec::with_capacity(items.len()),
        variants: Vec::new(),
        main: None,
        first_stmt: None,
    };
    for &item in items {
        match item.kind() {
            FnDecl => {
                let d = ast::FnDecl::cast(item).expect("kind checked");
                if let Some(name) = d.name() {
                    if name.text() == "main" {
                        f.main = Some(d);
                    }
                    f.decls.push((name.text(), name.range()));
                }
            }
            TypeDecl => {
                let t = ast::TypeDecl::cast(item).expect("kind checked");
                if let Some(name) = t.name() {
                    f.decls.push((name.text(), name.range()));
                    if t.json_as().is_some() {
                        f.decls
                            .push((format!("{}_from_json", name.text()).into(), name.range()));
                        f.decls
                            .push((format!("{}_to_json", name.text()).into(), name.range()));
                    }
                }
                for v in t.variants() {
                    if let Some(name) = v.name() {
                        f.variants.push(name.text().into_owned());
                        f.decls.push((name.text(), name.range()));
                    }
                }
            }
            ExprStmt | LetStmt | AssignStmt | WhileStmt | LoopStmt if f.first_stmt.is_none() => {
                f.first_stmt = Some(item)
            }
            _ => {}
        }
    }
    f
}

/// `syntax.main-conflict` and `syntax.main-params`.
fn main_rules(
    main: Option<ast::FnDecl<'_>>,
    first_stmt: Option<SyntaxNode<'_>>,
    diags: &mut Vec<Diagnostic>,
) {
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
}

/// Assignment targets and view calls within one top-level item; at most one not-a-script per item.
fn check_item(
    tree: &crate::tree::SyntaxTree,
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
