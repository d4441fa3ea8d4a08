//! Blocks and statements (voxscript.md §3.1–§3.2).

use super::{starts_expr, Parser};
use crate::diagnostic::Diagnostic;
use crate::kind::SyntaxKind::*;

impl Parser<'_> {
    /// `{ stmt* }` with newline-sensitive statements inside.
    pub(crate) fn block(&mut self) {
        stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, || {
            if !self.enter() {
                return;
            }
            self.start(Block);
            self.bump(); // {
            self.block_depth += 1;
            self.with_nl(true, |p| {
                loop {
                    if p.at_braces_end() {
                        break;
                    }
                    p.stmt();
                }
                p.close_block();
            });
            self.block_depth -= 1;
            self.finish();
            self.leave();
        })
    }

    /// Skips blank lines, then tells whether the braces being parsed end here: at `}`, the end of
    /// the file, or an unindented top-level item (a `}` was left out).
    pub(crate) fn at_braces_end(&mut self) -> bool {
        self.skip_newlines();
        self.at(RBrace) || self.at(Eof) || self.at_item_start()
    }

    /// Expects the `}` of a block. A missing one is reported once per top-level item, so one
    /// missing `}` gives one diagnostic however many blocks it leaves open.
    pub(crate) fn close_block(&mut self) {
        if self.eat(RBrace) {
            return;
        }
        if !self.unclosed_reported {
            self.unclosed_reported = true;
            self.expected("`}`");
        }
    }

    pub(crate) fn stmt(&mut self) {
        let before = self.pos;
        match self.current() {
            LetKw => self.let_stmt(),
            WhileKw => self.while_stmt(),
            LoopKw => self.loop_stmt(),
            FnKw if self.nth(1) == Ident => {
                let r = self.current_range();
                self.report(Diagnostic::error(
                    "syntax.nested-fn",
                    r,
                    "named functions may only be declared at top level; use `let name = fn(…) { … }`",
                ));
                self.fn_decl_after_prefix(None);
            }
            ImportKw => {
                let r = self.current_range();
                self.report(
                    Diagnostic::error(
                        "syntax.import-position",
                        r,
                        "imports must be at the top level of the file",
                    )
                    .with_help("move the import to the top of the file"),
                );
                self.import();
            }
            AtName => {
                let r = self.current_range();
                self.report(Diagnostic::error(
                    "syntax.decorator-position",
                    r,
                    "a decorator must come before a top-level `fn` or `type`, or a field",
                ));
                self.decorator();
            }
            Ident if self.current_text() == b"ret" && self.ret_is_statement() => self.ret_stmt(),
            Dot => {
                self.unexpected_with_chain_hint();
                self.recover();
            }
            _ => self.expr_or_assign(),
        }
        if self.pos == before {
            // Nothing could start here: skip to a safe point so the caller progresses.
            self.recover();
            if self.pos == before {
                self.bump();
            }
        }
    }

    fn unexpected_with_chain_hint(&mut self) {
        let found = self.describe_current();
        let r = self.current_range();
        self.report(
            Diagnostic::error(
                "syntax.unexpected",
                r,
                format!("Unexpected token in expression: {found}"),
            )
            .with_help(
                "a method chain cannot continue on the next line; wrap the expression in ( )",
            ),
        );
    }

    /// `ret` followed on the same line by a token that can start an expression.
    fn ret_is_statement(&self) -> bool {
        starts_expr(self.nth(1)) && self.nth(1) != LBrace
    }

    fn ret_stmt(&mut self) {
        let r = self.current_range();
        self.report(
            Diagnostic::error("syntax.ret", r, "`ret` was removed; use `return`").with_fix(
                "replace with `return`",
                r,
                "return",
            ),
        );
        self.start(ExprStmt);
        self.start(ReturnExpr);
        self.bump();
        if !self.expr() {
            self.recover();
        }
        self.finish();
        self.finish();
    }

    fn let_stmt(&mut self) {
        self.start(LetStmt);
        self.bump();
        self.eat(MutKw);
        self.let_pattern();
        if self.eat(Colon) {
            self.type_expr();
        }
        if self.expect(Eq) {
            self.skip_newlines();
            if !self.expr() {
                self.recover();
            }
        } else {
            self.recover();
        }
        self.finish();
    }

    /// `name`, `_` or nested tuples of those; other patterns are `syntax.let-pattern`.
    fn let_pattern(&mut self) {
        match self.current() {
            Ident | NonScriptKw => self.binding_name(),
            LParen => {
                if !self.enter() {
                    return;
                }
                self.start(TuplePat);
                self.bump();
                self.with_nl(false, |p| {
                    while !p.at(RParen) && !p.at(Eof) {
                        let before = p.pos;
                        p.let_pattern();
                        if p.pos == before {
                            p.recover_in_list(RParen);
                        }
                        if !p.eat(Comma) {
                            break;
                        }
                    }
                    p.expect(RParen);
                });
                self.finish();
                self.leave();
            }
            TypeIdent | Int | Str => {
                let r = self.current_range();
                self.report(Diagnostic::error(
                    "syntax.let-pattern",
                    r,
                    "`let` can only bind names, `_` and tuples; use `match` for other patterns",
                ));
                self.pattern();
            }
            _ => self.expected("a name"),
        }
    }

    fn while_stmt(&mut self) {
        self.start(WhileStmt);
        self.bump();
        if !self.expr() {
            self.start(Error);
            while !matches!(self.current(), LBrace | Newline | Eof | RBrace) {
                self.bump();
            }
            self.finish();
        }
        self.loop_depth += 1;
        self.block_after_header("while");
        self.loop_depth -= 1;
        self.finish();
    }

    fn loop_stmt(&mut self) {
        self.start(LoopStmt);
        self.bump();
        self.loop_depth += 1;
        self.block_after_header("loop");
        self.loop_depth -= 1;
        self.finish();
    }

    fn expr_or_assign(&mut self) {
        let cp = self.checkpoint();
        if !self.expr() {
            return;
        }
        if matches!(self.current(), Eq | PlusEq | MinusEq | StarEq | SlashEq) {
            self.start_at(cp, AssignStmt);
            self.bump();
            self.skip_newlines();
            if !self.expr() {
                self.recover();
            }
            self.finish();
        } else {
            self.start_at(cp, ExprStmt);
            self.finish();
        }
    }
}
