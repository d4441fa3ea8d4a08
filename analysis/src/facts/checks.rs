//! `check.*` diagnostics (analysis.md §1.4): mistakes the body shows statically. Errors only where
//! the code would certainly fail when it runs; otherwise warnings.

use vox_hir::{Expr, Global, Stmt};

use super::model::{CheckFact, FactsBuilder};
use crate::body::Body;
use crate::kind::Kind;
use crate::kinds::Kinds;

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Int => "an int",
        Kind::Float => "a float",
        Kind::Dec => "a dec",
        Kind::Str => "a str",
        Kind::Bool => "a bool",
        Kind::Null => "null",
        Kind::List => "a list",
        Kind::Map => "a map",
        Kind::Tuple => "a tuple",
        Kind::Option => "an Option",
        Kind::Result => "a Result",
        Kind::Func => "a function",
        Kind::Namespace => "a namespace",
        Kind::Unknown | Kind::Unset => "a value",
    }
}

/// Whether values of kind `k` have method `name`, from the runtime's own method table
/// (`vox_hir::catalog`); `None` when the kind is not one whose methods are listed.
fn has_method(k: Kind, name: &str) -> Option<bool> {
    let kind = match k {
        Kind::Str => "str",
        Kind::List => "list",
        // A map or record whose key holds a function answers any other name (decision 61:
        // `o.f(x)` calls it); what keys a map holds is not tracked.
        Kind::Map => return None,
        Kind::Int => "int",
        Kind::Float => "float",
        Kind::Bool => "bool",
        _ => return None,
    };
    Some(vox_hir::catalog::is_method_of(kind, name))
}

/// Arithmetic between a number and a value no arithmetic accepts (`Option + int`): the runtime
/// stops with `unsupported binary op`. Only kinds the body shows for certain are compared.
fn operand_kinds(op: vox_hir::BinOp, a: Kind, b: Kind) -> Option<String> {
    use vox_hir::BinOp;
    let sym = match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Mod => "%",
        _ => return None,
    };
    let number = |k: Kind| matches!(k, Kind::Int | Kind::Float | Kind::Dec);
    let never = |k: Kind| {
        matches!(
            k,
            Kind::Option | Kind::Result | Kind::Bool | Kind::Null | Kind::Func | Kind::Namespace
        )
    };
    let bad = (number(a) && never(b)) || (never(a) && number(b)) || (never(a) && never(b));
    // `+` with a str operand concatenates anything.
    if !bad || (op == BinOp::Add && (a == Kind::Str || b == Kind::Str)) {
        return None;
    }
    let hint =
        if matches!(a, Kind::Option | Kind::Result) || matches!(b, Kind::Option | Kind::Result) {
            ": take the value out first (`.unwrap()`, `.expect(\"…\")`, `match`)"
        } else {
            ""
        };
    Some(format!(
        "`{sym}` between {} and {}: this operation stops the script with `unsupported binary op`{hint}",
        kind_name(a),
        kind_name(b)
    ))
}

pub(super) fn checks(body: &Body<'_>, kinds: &Kinds, is_main: bool, facts: &mut FactsBuilder) {
    let m = body.m;
    let r = |e: u32| m.expr_ranges[e as usize];
    let cond = |facts: &mut FactsBuilder, c: u32, what: &str| {
        let k = kinds.expr(c);
        if !matches!(k, Kind::Bool | Kind::Unknown) {
            facts.checks.push(CheckFact {
                code: "check.not-bool-condition",
                range: r(c),
                message: format!(
                    "the condition of `{what}` is {}, not a bool: VoxScript has no truthiness; compare explicitly (`!= 0`, `.is_empty()`, `.is_some()`)",
                    kind_name(k)
                ),
                error: true,
            });
        }
    };
    for (i, e) in m.exprs.iter().enumerate() {
        let id = i as u32;
        match e {
            Expr::Undefined(name) => facts.checks.push(CheckFact {
                code: "check.undefined-name",
                range: r(id),
                message: format!(
                    "undefined name `{name}`: no local, function, import or builtin has this name"
                ),
                error: true,
            }),
            Expr::If { cond: c, .. } => cond(facts, *c, "if"),
            Expr::Binary(op, a, b) => {
                if let Some(msg) = operand_kinds(*op, kinds.expr(*a), kinds.expr(*b)) {
                    facts.checks.push(CheckFact {
                        code: "check.operand-kinds",
                        range: r(id),
                        message: msg,
                        error: true,
                    });
                }
            }
            Expr::MethodCall { recv, name, .. } => {
                let k = kinds.expr(*recv);
                if has_method(k, name) == Some(false) {
                    facts.checks.push(CheckFact {
                        code: "check.unknown-method",
                        range: r(id),
                        message: format!(
                            "{} has no method `{name}`: this call stops the script with `Method {name} not found`",
                            kind_name(k)
                        ),
                        error: true,
                    });
                }
            }
            Expr::Call {
                callee,
                args,
                named,
            } if named.is_empty() => {
                if let Expr::Global(g) = m.exprs[*callee as usize] {
                    if let Some(Global::Fn(k)) = m.globals.get(g as usize) {
                        if let Some(item) = body.items.fns.get(*k as usize) {
                            let want = item.params.len();
                            if args.len() != want {
                                facts.checks.push(CheckFact {
                                    code: "check.arity",
                                    range: r(id),
                                    message: format!(
                                        "`{}` takes {want} argument{}, but {} {} given",
                                        item.name,
                                        if want == 1 { "" } else { "s" },
                                        args.len(),
                                        if args.len() == 1 { "was" } else { "were" }
                                    ),
                                    error: true,
                                });
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    for s in &m.stmts {
        if let Stmt::While { cond: c, .. } = s {
            cond(facts, *c, "while");
        }
    }
    if is_main {
        if let Some(item) = body.items.fns.iter().find(|f| &*f.name == "main") {
            if item.ret.as_deref() == Some("int") {
                let root = &m.functions[body.root as usize];
                facts.checks.push(CheckFact {
                    code: "check.main-return-code",
                    range: vox_syntax::TextRange::new(root.range.start, root.range.start),
                    message: "`fn main() to int`: the value main returns is printed, never used as the exit status; use `process.exit(n)`".into(),
                    error: false,
                });
            }
        }
    }
}
