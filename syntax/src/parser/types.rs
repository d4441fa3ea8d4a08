//! Type expressions, parameters and patterns.

use super::Parser;
use crate::diagnostic::Diagnostic;
use crate::kind::SyntaxKind::*;

impl Parser<'_> {
    /// `int`, `list[T]`, `fn(int) to int`, `(int, str)`. Parsed, never checked at run time.
    pub(crate) fn type_expr(&mut self) -> bool {
        if !self.enter() {
            return true;
        }
        let ok = match self.current() {
            Ident | TypeIdent => {
                self.start(NameType);
                self.bump();
                if self.at(LBracket) {
                    self.start(TypeArgs);
                    self.bump();
                    self.type_list(RBracket);
                    self.finish();
                }
                self.finish();
                true
            }
            FnKw => {
                self.start(FnType);
                self.bump();
                if self.at(LParen) {
                    self.bump();
                    self.type_list(RParen);
                } else {
                    self.expected("`(`");
                }
                self.ret_type_opt();
                self.finish();
                true
            }
            LParen => {
                self.start(TupleType);
                self.bump();
                self.type_list(RParen);
                self.finish();
                true
            }
            _ => {
                self.expected("a type");
                false
            }
        };
        self.leave();
        ok
    }

    fn type_list(&mut self, closer: crate::kind::SyntaxKind) {
        self.with_nl(false, |p| {
            while !p.at(closer) && !p.at(Eof) {
                if !p.type_expr() {
                    p.recover_in_list(closer);
                }
                if !p.eat(Comma) {
                    break;
                }
            }
            p.expect(closer);
        });
    }

    /// `to T` or the deprecated `-> T` (warning with a fix).
    pub(crate) fn ret_type_opt(&mut self) {
        let is_to = self.at(Ident) && self.current_text() == b"to";
        if is_to {
            self.start(RetType);
            self.bump();
            self.type_expr();
            self.finish();
        } else if self.at(ThinArrow) {
            let r = self.current_range();
            self.report(
                Diagnostic::warning(
                    "syntax.arrow-return",
                    r,
                    "The '->' syntax is deprecated for return types. Use 'to'.",
                )
                .with_fix("replace with `to`", r, "to"),
            );
            self.start(RetType);
            self.bump();
            self.type_expr();
            self.finish();
        }
    }

    /// `(a: int, b)` of a function or closure.
    pub(crate) fn param_list(&mut self) {
        self.start(ParamList);
        if !self.expect(LParen) {
            self.finish();
            return;
        }
        self.with_nl(false, |p| {
            while !p.at(RParen) && !p.at(Eof) {
                p.start(Param);
                match p.current() {
                    Ident => p.bump(),
                    crate::kind::SyntaxKind::NonScriptKw => {
                        p.reserved_name();
                        p.bump();
                    }
                    _ => {
                        p.expected("a parameter name");
                        p.recover_in_list(RParen);
                    }
                }
                if p.eat(Colon) {
                    p.type_expr();
                }
                p.finish();
                if !p.eat(Comma) {
                    break;
                }
            }
            p.expect(RParen);
        });
        self.finish();
    }

    /// A match pattern (voxscript.md §3.5). False when none could start here.
    pub(crate) fn pattern(&mut self) -> bool {
        if !self.enter() {
            return true;
        }
        let ok = match self.current() {
            Ident => {
                self.binding_name();
                true
            }
            NonScriptKw => {
                self.reserved_name();
                self.start(IdentPat);
                self.bump();
                self.finish();
                true
            }
            Int | Str => {
                self.start(LiteralPat);
                self.bump();
                self.finish();
                true
            }
            LParen => {
                self.start(TuplePat);
                self.bump();
                self.pattern_list();
                self.finish();
                true
            }
            TypeIdent => {
                self.start(CtorPat);
                self.bump();
                if self.at(LParen) {
                    self.bump();
                    self.pattern_list();
                }
                self.finish();
                true
            }
            _ => {
                self.expected("a pattern");
                false
            }
        };
        self.leave();
        ok
    }

    fn pattern_list(&mut self) {
        self.with_nl(false, |p| {
            while !p.at(RParen) && !p.at(Eof) {
                if !p.pattern() {
                    p.recover_in_list(RParen);
                }
                if !p.eat(Comma) {
                    break;
                }
            }
            p.expect(RParen);
        });
    }
}
