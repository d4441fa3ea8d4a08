//! Expressions: a Pratt loop over the precedence levels of voxscript.md §3.4.

use super::{is_word, Parser};
use crate::diagnostic::Diagnostic;
use crate::kind::SyntaxKind::{self, *};

/// Binding power of a binary operator: levels 1 (`|>`) to 7 (`* / %`), all left-associative.
fn infix_power(k: SyntaxKind) -> Option<u8> {
    Some(match k {
        PipeGt => 1,
        OrKw | PipePipe => 2,
        AndKw | AmpAmp => 3,
        EqEq | BangEq | IsKw | IsntKw => 4,
        Lt | Gt | LtEq | GtEq | DotDot => 5,
        Plus | Minus => 6,
        Star | Slash | Percent => 7,
        _ => return None,
    })
}

impl Parser<'_> {
    /// Parses an expression; false when none could start here (nothing consumed, error reported).
    pub(crate) fn expr(&mut self) -> bool {
        self.expr_bp(1)
    }

    fn expr_bp(&mut self, min: u8) -> bool {
        // Probing the stack costs a little; every 32 levels is enough (each level is a few frames).
        if self.depth % 32 != 31 {
            return self.expr_bp_inner(min);
        }
        stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, || self.expr_bp_inner(min))
    }

    fn expr_bp_inner(&mut self, min: u8) -> bool {
        {
            if !self.enter() {
                return true;
            }
            let cp = self.checkpoint();
            let ok = self.prefix_expr();
            if ok {
                loop {
                    let k = self.current();
                    if k == NonScriptKw && self.current_text() == b"with" {
                        let r = self.current_range();
                        self.not_a_script("`with`", r);
                        break;
                    }
                    let Some(power) = infix_power(k) else { break };
                    if power < min {
                        break;
                    }
                    self.start_at(cp, BinExpr);
                    self.bump();
                    // A newline right after a binary operator is skipped (decisions.md 3).
                    self.skip_newlines();
                    if !self.expr_bp(power + 1) {
                        self.finish();
                        break;
                    }
                    self.finish();
                }
            }
            self.leave();
            ok
        }
    }

    fn prefix_expr(&mut self) -> bool {
        match self.current() {
            NotKw | Minus | Bang => {
                if !self.enter() {
                    return true;
                }
                self.start(PrefixExpr);
                self.bump();
                let ok = if self.depth.is_multiple_of(32) {
                    stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, || self.prefix_expr())
                } else {
                    self.prefix_expr()
                };
                if !ok {
                    // `-` followed by nothing usable: the operator alone stays in the tree.
                }
                self.finish();
                self.leave();
                true
            }
            _ => self.postfix_expr(),
        }
    }

    fn postfix_expr(&mut self) -> bool {
        let cp = self.checkpoint();
        if !self.primary() {
            return false;
        }
        loop {
            match self.current() {
                LParen => {
                    self.start_at(cp, CallExpr);
                    self.arg_list();
                    self.finish();
                }
                Dot => {
                    self.start_at(cp, FieldExpr);
                    self.bump();
                    if is_word(self.current()) {
                        self.bump();
                    } else {
                        self.expected("a field or method name");
                    }
                    self.finish();
                }
                LBracket => {
                    self.start_at(cp, IndexExpr);
                    self.bump();
                    self.with_nl(false, |p| {
                        if !p.expr() {
                            p.recover_in_list(RBracket);
                        }
                        p.expect_closer(RBracket);
                    });
                    self.finish();
                }
                Question => {
                    self.start_at(cp, TryExpr);
                    self.bump();
                    self.finish();
                }
                _ => break,
            }
        }
        true
    }

    pub(crate) fn arg_list(&mut self) {
        self.start(ArgList);
        self.bump(); // (
        self.with_nl(false, |p| {
            while !p.at(RParen) && !p.at(Eof) {
                if p.at(Ident) && p.nth(1) == Eq {
                    p.start(NamedArg);
                    p.bump();
                    p.bump();
                    if !p.expr() {
                        p.recover_in_list(RParen);
                    }
                    p.finish();
                } else {
                    p.start(Arg);
                    if !p.expr() {
                        p.recover_in_list(RParen);
                    }
                    p.finish();
                }
                if !p.eat(Comma) {
                    break;
                }
            }
            p.expect_closer(RParen);
        });
        self.finish();
    }

    fn primary(&mut self) -> bool {
        let k = self.current();
        match k {
            Int | Float | Decimal | Str | TrueKw | FalseKw => {
                self.start(Literal);
                self.bump();
                self.finish();
            }
            Ident if self.nth(1) == FatArrow => self.arrow_fn_single(),
            Ident | TypeIdent => {
                self.start(NameRef);
                self.bump();
                self.finish();
            }
            LParen => self.paren_like(),
            LBracket => self.list_expr(),
            LBrace => {
                if self.brace_is_map() {
                    self.map_expr();
                } else {
                    self.start(BlockExpr);
                    self.block();
                    self.finish();
                }
            }
            IfKw => self.if_expr(),
            MatchKw => self.match_expr(),
            ForKw => self.for_expr(),
            FnKw if self.nth(1) == LParen => self.lambda(),
            FnKw if self.nth(1) == Ident => {
                let r = self.current_range();
                self.report(Diagnostic::error(
                    "syntax.nested-fn",
                    r,
                    "named functions may only be declared at top level; use `let name = fn(…) { … }`",
                ));
                self.fn_decl_after_prefix(None);
            }
            ReturnKw => self.return_expr(),
            BreakKw | ContinueKw => self.break_like(),
            Lt if matches!(self.nth(1), Ident | TypeIdent | Gt) => {
                let r = self.current_range();
                self.not_a_script("JSX", r);
            }
            NonScriptKw => {
                let word = String::from_utf8_lossy(self.current_text()).into_owned();
                let r = self.current_range();
                self.not_a_script(&format!("`{word}`"), r);
            }
            _ => {
                self.unexpected();
                return false;
            }
        }
        true
    }

    /// `{` starts a map if `}` follows, or a key and `:` (voxscript.md §3.1 "Disambiguation").
    pub(crate) fn brace_is_map(&self) -> bool {
        match self.nth_skip_nl(1) {
            RBrace => true,
            k if is_word(k) || k == Str => self.nth_skip_nl(2) == Colon,
            _ => false,
        }
    }

    fn map_expr(&mut self) {
        self.start(MapExpr);
        self.bump(); // {
        self.with_nl(false, |p| {
            while !p.at(RBrace) && !p.at(Eof) {
                p.start(MapEntry);
                let k = p.current();
                if is_word(k) || k == Str {
                    p.bump();
                    if p.expect(Colon) {
                        if !p.expr() {
                            p.recover_in_list(RBrace);
                        }
                    } else {
                        p.recover_in_list(RBrace);
                    }
                } else {
                    p.expected("a map key");
                    p.recover_in_list(RBrace);
                }
                p.finish();
                if !p.eat(Comma) {
                    break;
                }
            }
            p.expect_closer(RBrace);
        });
        self.finish();
    }

    fn list_expr(&mut self) {
        self.start(ListExpr);
        self.bump();
        self.with_nl(false, |p| {
            while !p.at(RBracket) && !p.at(Eof) {
                if !p.expr() {
                    p.recover_in_list(RBracket);
                }
                if !p.eat(Comma) {
                    break;
                }
            }
            p.expect_closer(RBracket);
        });
        self.finish();
    }

    /// `(e)`, `(a, b)`, or the arrow functions `() => …` and `(a, b) => …`.
    fn paren_like(&mut self) {
        if self.paren_is_arrow_params() {
            self.start(ArrowFn);
            self.start(ArrowParams);
            self.bump();
            self.with_nl(false, |p| {
                while p.at(Ident) {
                    p.start(IdentPat);
                    p.bump();
                    p.finish();
                    if !p.eat(Comma) {
                        break;
                    }
                }
                p.expect_closer(RParen);
            });
            self.finish();
            self.bump(); // =>
            self.closure_body();
            self.finish();
            return;
        }
        let cp = self.checkpoint();
        self.bump(); // (
        let mut kind = ParenExpr;
        self.with_nl(false, |p| {
            if p.at(RParen) {
                p.unexpected();
            } else if !p.expr() {
                p.recover_in_list(RParen);
            }
            let mut elements = 1;
            while p.at(Comma) {
                let comma = p.current_range();
                p.bump();
                kind = TupleExpr;
                if p.at(RParen) {
                    // `(x,)`: no one-element tuples (decision 62).
                    if elements == 1 {
                        p.report(Diagnostic::error(
                            "syntax.one-element-tuple",
                            comma,
                            "a tuple has two or more elements: remove the `,` for a plain \
                             parenthesised value, or add a second element",
                        ));
                    }
                    break;
                }
                elements += 1;
                if !p.expr() {
                    p.recover_in_list(RParen);
                }
            }
            p.expect_closer(RParen);
        });
        self.start_at(cp, kind);
        self.finish();
    }

    fn paren_is_arrow_params(&self) -> bool {
        let mut n = 1;
        let skip = |p: &Self, n: usize| p.nth_skip_nl(n);
        if skip(self, n) == RParen {
            return skip(self, n + 1) == FatArrow;
        }
        loop {
            if skip(self, n) != Ident {
                return false;
            }
            n += 1;
            match skip(self, n) {
                Comma => n += 1,
                RParen => return skip(self, n + 1) == FatArrow,
                _ => return false,
            }
        }
    }

    fn arrow_fn_single(&mut self) {
        self.start(ArrowFn);
        self.start(ArrowParams);
        self.start(IdentPat);
        self.bump();
        self.finish();
        self.finish();
        self.bump(); // =>
        self.closure_body();
        self.finish();
    }

    /// A closure body: a block or an expression. Loops outside do not reach into it.
    fn closure_body(&mut self) {
        let saved = self.loop_depth;
        self.loop_depth = 0;
        if self.at(LBrace) && !self.brace_is_map() {
            self.start(BlockExpr);
            self.block();
            self.finish();
        } else if !self.expr() {
            self.recover();
        }
        self.loop_depth = saved;
    }

    fn lambda(&mut self) {
        self.start(Lambda);
        self.bump(); // fn
        self.param_list();
        self.ret_type_opt();
        self.closure_body();
        self.finish();
    }

    fn if_expr(&mut self) {
        self.start(IfExpr);
        self.bump();
        if !self.expr() {
            self.recover_to_brace();
        }
        self.block_after_header("if");
        // `else` may start a new line after `}`.
        if self.nth_skip_nl(0) == ElseKw {
            self.skip_newlines();
            self.start(ElseBranch);
            self.bump();
            if self.at(IfKw) {
                self.if_expr();
            } else {
                self.block_after_header("else");
            }
            self.finish();
        }
        self.finish();
    }

    /// After a failed header expression, skip to the `{` on the same line.
    fn recover_to_brace(&mut self) {
        self.start(Error);
        while !matches!(self.current(), LBrace | Newline | Eof | RBrace) {
            self.bump();
        }
        self.finish();
    }

    fn match_expr(&mut self) {
        self.start(MatchExpr);
        self.bump();
        if !self.expr() {
            self.recover_to_brace();
        }
        if !self.brace_on_header_line("match") {
            self.finish();
            return;
        }
        self.bump(); // {
        self.block_depth += 1;
        self.with_nl(true, |p| {
            loop {
                if p.at_braces_end() {
                    break;
                }
                let before = p.pos;
                p.match_arm();
                p.eat(Comma);
                if p.pos == before {
                    p.recover();
                    if p.pos == before {
                        p.bump();
                    }
                }
            }
            p.close_block();
        });
        self.block_depth -= 1;
        self.finish();
    }

    fn match_arm(&mut self) {
        self.start(MatchArm);
        if !self.pattern() {
            self.recover_arm();
            self.finish();
            return;
        }
        match self.current() {
            FatArrow => self.bump(),
            ThinArrow => {
                let r = self.current_range();
                self.report(
                    Diagnostic::error(
                        "syntax.arrow-arm",
                        r,
                        "The '->' syntax is deprecated for match arms. Use '=>'.",
                    )
                    .with_fix("replace with `=>`", r, "=>"),
                );
                self.bump();
            }
            _ => {
                self.expected("`=>`");
                self.recover_arm();
                self.finish();
                return;
            }
        }
        match self.current() {
            LBrace if !self.brace_is_map() || self.nth_skip_nl(1) == RBrace => {
                self.start(BlockExpr);
                self.block();
                self.finish();
            }
            _ => {
                if !self.expr() {
                    self.recover_arm();
                }
            }
        }
        self.finish();
    }

    fn recover_arm(&mut self) {
        self.recover();
    }

    fn for_expr(&mut self) {
        self.start(ForExpr);
        self.bump();
        self.start(ForBinding);
        self.binding_name();
        if self.eat(Comma) {
            self.binding_name();
        }
        self.finish();
        self.expect(InKw);
        if !self.expr() {
            self.recover_to_brace();
        }
        self.loop_depth += 1;
        self.block_after_header("for");
        self.loop_depth -= 1;
        self.finish();
    }

    /// A name that binds: an identifier or `_`.
    pub(crate) fn binding_name(&mut self) {
        match self.current() {
            Ident => {
                let kind = if self.current_text() == b"_" {
                    WildcardPat
                } else {
                    IdentPat
                };
                self.start(kind);
                self.bump();
                self.finish();
            }
            NonScriptKw => {
                self.reserved_name();
                self.start(IdentPat);
                self.bump();
                self.finish();
            }
            _ => self.expected("a name"),
        }
    }

    fn return_expr(&mut self) {
        self.start(ReturnExpr);
        self.bump();
        // Bare when the next token is a newline, `}`, `,` or the end (voxscript.md §3.1).
        if !matches!(
            self.current(),
            Newline | RBrace | Comma | Eof | RParen | RBracket
        ) && !self.expr()
        {
            self.recover();
        }
        self.finish();
    }

    fn break_like(&mut self) {
        let kind = if self.at(BreakKw) {
            BreakExpr
        } else {
            ContinueExpr
        };
        if self.loop_depth == 0 {
            let word = if kind == BreakExpr {
                "break"
            } else {
                "continue"
            };
            let r = self.current_range();
            self.report(Diagnostic::error(
                "syntax.break-outside-loop",
                r,
                format!("`{word}` outside of a loop"),
            ).with_help("`break` and `continue` only work inside `for`, `while` and `loop`, and never cross a function boundary"));
        }
        self.start(kind);
        self.bump();
        self.finish();
    }

    /// Checks the K&R rule for the `{` of `what`; true when a `{` follows (possibly after the
    /// reported newline, which is then skipped).
    pub(crate) fn brace_on_header_line(&mut self, what: &str) -> bool {
        let i = self.raw_next_index();
        match self.kind_at(i) {
            LBrace => {
                self.flush_trivia();
                true
            }
            Newline if self.nth_skip_nl(0) == LBrace => {
                let r = self.range_at(i);
                self.report(
                    Diagnostic::error(
                        "syntax.brace-newline",
                        r,
                        format!("expected `{{` on the same line as `{what}`"),
                    )
                    .with_help("Vox uses K&R braces: put `{` at the end of the header line"),
                );
                self.skip_newlines();
                true
            }
            _ => {
                self.expected("`{`");
                false
            }
        }
    }

    pub(crate) fn block_after_header(&mut self, what: &str) {
        if self.brace_on_header_line(what) {
            self.block();
        }
    }
}
