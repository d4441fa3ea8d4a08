//! The file and its top-level items: imports, decorated declarations, functions, types, and the
//! top-level statements that form the synthetic main (voxscript.md §3.3).

use super::{is_word, Parser};
use crate::diagnostic::Diagnostic;
use crate::kind::{SyntaxKind::*, KNOWN_DECORATORS, SERVICE_DECORATORS, SOFT_KEYWORDS};
use crate::text_range::TextRange;
use crate::tree_builder::Checkpoint;

impl Parser<'_> {
    pub(crate) fn source_file(&mut self) {
        // Not `start`: leading trivia belongs inside the root.
        self.b.start_node(SourceFile);
        loop {
            self.skip_newlines();
            if self.at(Eof) {
                break;
            }
            self.item();
        }
        self.take_rest();
        self.finish();
    }

    fn item(&mut self) {
        self.suppress = false;
        self.unclosed_reported = false;
        self.loop_depth = 0;
        let before = self.pos;
        match self.current() {
            ImportKw => self.import(),
            AtName => self.decorated_decl(),
            PubKw | AsyncKw | TypeKw => {
                let cp = self.checkpoint();
                self.decl(cp);
            }
            FnKw if self.nth(1) == Ident => {
                let cp = self.checkpoint();
                self.decl(cp);
            }
            Ident if self.at_soft_keyword_decl() || self.at_tombstone() => {
                let word = String::from_utf8_lossy(self.current_text()).into_owned();
                let r = self.current_range();
                self.not_a_script(&format!("`{word}`"), r);
            }
            NonScriptKw => {
                let word = String::from_utf8_lossy(self.current_text()).into_owned();
                let r = self.current_range();
                self.not_a_script(&format!("`{word}`"), r);
            }
            RBrace => {
                let r = self.current_range();
                self.report(
                    Diagnostic::error(
                        "syntax.unexpected",
                        r,
                        "Unexpected token in expression: `}`",
                    )
                    .with_help("this `}` closes nothing; remove it"),
                );
                self.start(Error);
                self.bump();
                self.finish();
            }
            _ => self.stmt(),
        }
        if self.pos == before {
            self.bump();
        }
    }

    /// A soft keyword followed on the same line by a name, a string, `fn` or `{`.
    fn at_soft_keyword_decl(&self) -> bool {
        let word = self.current_text();
        SOFT_KEYWORDS.iter().any(|k| k.as_bytes() == word)
            && matches!(self.nth(1), Ident | TypeIdent | Str | FnKw | LBrace)
    }

    /// A top-level `env`/`http` not followed by `.` (voxscript.md §1.2, decisions.md 1).
    fn at_tombstone(&self) -> bool {
        matches!(self.current_text(), b"env" | b"http") && self.nth(1) != Dot
    }

    fn decorated_decl(&mut self) {
        let cp = self.checkpoint();
        let mut service: Option<(String, TextRange)> = None;
        while self.at(AtName) {
            let name = String::from_utf8_lossy(&self.current_text()[1..]).into_owned();
            let r = self.current_range();
            if SERVICE_DECORATORS.contains(&name.as_str()) {
                if service.is_none() {
                    service = Some((name, r));
                }
            } else if !KNOWN_DECORATORS.contains(&name.as_str()) && service.is_none() {
                self.report(Diagnostic::warning(
                    "syntax.unknown-decorator",
                    r,
                    format!("unknown decorator `@{name}`; ignored"),
                ));
            }
            if service.is_some() {
                break;
            }
            self.decorator();
            self.skip_newlines();
        }
        if let Some((name, r)) = service {
            // The decorator's item is the declaration it decorates: skip past it.
            self.start_at(cp, NotAScript);
            self.report(Diagnostic::error(
                "syntax.not-a-script",
                r,
                format!("not a script: `@{name}` is a Vox service surface; VoxScript runs script-shaped files only"),
            ));
            self.suppress = true;
            while self.at(AtName) {
                self.decorator();
                self.skip_newlines();
            }
            self.not_a_script_rest();
            self.finish();
            return;
        }
        match self.current() {
            FnKw | PubKw | AsyncKw | TypeKw => self.decl(cp),
            _ => {
                // Report at the (last) decorator, then parse what follows as usual.
                let r = self.current_range();
                self.report(Diagnostic::error(
                    "syntax.decorator-position",
                    r,
                    "a decorator must come before a top-level `fn` or `type`, or a field",
                ));
                self.stmt();
            }
        }
    }

    /// Skips tokens to the first newline at bracket depth 0 (used after a not-a-script report).
    fn not_a_script_rest(&mut self) {
        let mut depth = 0i32;
        loop {
            let k = self.kind_at(self.pos);
            if k == Eof || (depth <= 0 && k == Newline) {
                break;
            }
            match k {
                LParen | LBracket | LBrace => depth += 1,
                RParen | RBracket | RBrace => depth -= 1,
                _ => {}
            }
            self.b.token(self.pos);
            self.pos += 1;
        }
    }

    /// `@name` with an optional argument list on the same line.
    pub(crate) fn decorator(&mut self) {
        self.start(Decorator);
        self.bump();
        if self.kind_at(self.pos) == LParen
            || (self.at(LParen) && self.raw_next_index() == self.nth_index(0))
        {
            self.start(DecoratorArgs);
            self.bump();
            let mut depth = 1;
            self.with_nl(false, |p| {
                while depth > 0 && !p.at(Eof) {
                    match p.current() {
                        LParen => depth += 1,
                        RParen => depth -= 1,
                        _ => {}
                    }
                    p.bump();
                }
            });
            self.finish();
        }
        self.finish();
    }

    /// `[pub] [async] fn …` or `[pub] type …`, continuing a node started at `cp` (decorators).
    fn decl(&mut self, cp: Checkpoint) {
        let mut i = 0;
        while matches!(self.nth(i), PubKw | AsyncKw) {
            i += 1;
        }
        if self.nth(i) == TypeKw {
            self.type_decl(cp);
        } else {
            self.fn_decl_after_prefix(Some(cp));
        }
    }

    /// `[pub] [async] fn name<T>(params) [to T] { … }`.
    pub(crate) fn fn_decl_after_prefix(&mut self, cp: Option<Checkpoint>) {
        match cp {
            Some(cp) => self.start_at(cp, FnDecl),
            None => self.start(FnDecl),
        }
        self.eat(PubKw);
        if self.at(AsyncKw) {
            let r = self.current_range();
            self.report(
                Diagnostic::error(
                    "syntax.async",
                    r,
                    "async functions are not supported in VoxScript",
                )
                .with_help("remove `async`; scripts run sequentially"),
            );
            self.bump();
        }
        self.expect(FnKw);
        match self.current() {
            Ident => self.bump(),
            NonScriptKw => {
                self.reserved_name();
                self.bump();
            }
            _ => self.expected("a function name"),
        }
        if self.at(Lt) {
            self.start(GenericParams);
            self.bump();
            while self.at(TypeIdent) {
                self.bump();
                if !self.eat(Comma) {
                    break;
                }
            }
            self.expect(Gt);
            self.finish();
        }
        self.param_list();
        self.ret_type_opt();
        let saved_loops = self.loop_depth;
        self.loop_depth = 0;
        if self.brace_on_header_line("fn") {
            self.block();
        } else {
            self.recover();
        }
        self.loop_depth = saved_loops;
        self.finish();
    }

    /// `type T { fields }`, `type T = | A | B(x: int)`, or an alias `type T = list[int]`.
    fn type_decl(&mut self, cp: Checkpoint) {
        self.start_at(cp, TypeDecl);
        self.eat(PubKw);
        self.expect(TypeKw);
        if !self.eat(TypeIdent) {
            self.expected("a type name");
            self.recover();
            self.finish();
            return;
        }
        match self.current() {
            LBrace => self.record_body(RecordBody),
            Eq => {
                self.bump();
                if self.is_adt() {
                    self.adt_body();
                } else {
                    self.skip_newlines();
                    self.start(AliasBody);
                    self.type_expr();
                    self.finish();
                }
            }
            _ => {
                self.expected("`{` or `=`");
                self.recover();
            }
        }
        self.finish();
    }

    /// ADT if the text after `=` starts with `|`, contains a top-level `|`, or is `T(name:`.
    fn is_adt(&self) -> bool {
        if self.nth_skip_nl(0) == Pipe {
            return true;
        }
        if self.nth_skip_nl(0) == TypeIdent
            && self.nth_skip_nl(1) == LParen
            && self.nth_skip_nl(2) == Ident
            && self.nth_skip_nl(3) == Colon
        {
            return true;
        }
        // Scan the rest of the line (and a following line starting with `|`).
        let toks = self.b.tokens();
        let mut i = self.pos;
        let mut depth = 0i32;
        let mut seen_tokens = false;
        loop {
            let k = toks[i].kind;
            match k {
                Eof => return false,
                Pipe if depth == 0 => return true,
                LParen | LBracket | LBrace => depth += 1,
                RParen | RBracket | RBrace => depth -= 1,
                Newline if depth <= 0 && seen_tokens => {
                    let mut j = i;
                    while matches!(toks[j].kind, Newline) || toks[j].kind.is_trivia() {
                        j += 1;
                    }
                    return toks[j].kind == Pipe;
                }
                _ => {}
            }
            if !k.is_trivia() && k != Newline {
                seen_tokens = true;
            }
            i += 1;
        }
    }

    fn adt_body(&mut self) {
        self.start(AdtBody);
        self.skip_newlines();
        self.eat(Pipe);
        loop {
            self.skip_newlines_before_pipe();
            self.variant();
            self.skip_newlines_before_pipe();
            if !self.eat(Pipe) {
                break;
            }
        }
        self.finish();
    }

    fn skip_newlines_before_pipe(&mut self) {
        if self.nth_skip_nl(0) == Pipe {
            self.skip_newlines();
        }
    }

    fn variant(&mut self) {
        self.skip_newlines();
        self.start(Variant);
        if !self.eat(TypeIdent) {
            self.expected("a variant name");
            self.finish();
            return;
        }
        match self.current() {
            LParen => {
                self.start(VariantFields);
                self.bump();
                self.with_nl(false, |p| {
                    while !p.at(RParen) && !p.at(Eof) {
                        p.field_decl();
                        if !p.eat(Comma) {
                            break;
                        }
                    }
                    p.expect(RParen);
                });
                self.finish();
            }
            LBrace => self.record_body(VariantFields),
            _ => {}
        }
        self.finish();
    }

    /// `{ a: int, b: str }`: fields separated by commas or newlines.
    fn record_body(&mut self, kind: crate::kind::SyntaxKind) {
        self.start(kind);
        self.bump();
        self.with_nl(false, |p| {
            while !p.at(RBrace) && !p.at(Eof) {
                let before = p.pos;
                p.field_decl();
                p.eat(Comma);
                if p.pos == before {
                    p.recover_in_list(RBrace);
                    if p.pos == before {
                        p.bump();
                    }
                }
            }
            p.expect(RBrace);
        });
        self.finish();
    }

    /// `[@decorators] name: type` (or just a type inside a variant's parentheses).
    fn field_decl(&mut self) {
        self.start(FieldDecl);
        while self.at(AtName) {
            self.decorator();
        }
        if self.at(Ident) && self.nth(1) == Colon {
            self.bump();
            self.bump();
            self.type_expr();
        } else if self.at(NonScriptKw) && self.nth(1) == Colon {
            self.reserved_name();
            self.bump();
            self.bump();
            self.type_expr();
        } else if !self.type_expr() {
            self.recover_in_list(RBrace);
        }
        self.finish();
    }

    /// `import "./x.vox" [as name]` or `import fs, path`, `import a/b as { C, D as E }`.
    pub(crate) fn import(&mut self) {
        let start = self.current_range();
        let cp = self.checkpoint();
        // Foreign imports (`import rust:…`, `import react…`) are service surfaces.
        let first = self.nth_text(1);
        if (self.nth(1) == Ident && first == b"rust" && self.nth(2) == Colon)
            || (self.nth(1) == Ident && first.starts_with(b"react"))
        {
            let what = if first == b"rust" {
                "`import rust:…`".to_string()
            } else {
                format!("`import {}`", String::from_utf8_lossy(first))
            };
            self.start_at(cp, NotAScript);
            self.report(Diagnostic::error(
                "syntax.not-a-script",
                start,
                format!("not a script: {what} is a Vox service surface; VoxScript runs script-shaped files only"),
            ));
            self.suppress = true;
            self.not_a_script_rest();
            self.finish();
            return;
        }
        self.start_at(cp, Import);
        self.bump();
        if self.at(Str) {
            self.start(ImportPath);
            let text = self.current_text();
            let r = self.current_range();
            let value = crate::strings::decode(text, r.start, None)
                .as_plain()
                .unwrap_or_default();
            if !value.ends_with(".vox") {
                self.report(
                    Diagnostic::error(
                        "syntax.import-ext",
                        r,
                        "a file import must name a `.vox` file",
                    )
                    .with_help(
                        "write the path with its `.vox` extension, e.g. `import \"./util.vox\"`",
                    ),
                );
            }
            self.bump();
            self.finish();
            if self.at(Ident) && self.current_text() == b"as" {
                self.start(ImportAlias);
                self.bump();
                if !self.eat(Ident) {
                    self.expected("a name");
                }
                self.finish();
            }
        } else {
            loop {
                self.import_sym();
                if !self.eat(Comma) {
                    break;
                }
            }
        }
        self.finish();
    }

    fn import_sym(&mut self) {
        self.start(ImportSym);
        if is_word(self.current()) {
            self.bump();
            while matches!(self.current(), Dot | Slash) && is_word(self.nth(1)) {
                self.bump();
                self.bump();
            }
        } else {
            self.expected("a module name or a string path");
            self.finish();
            return;
        }
        if self.at(Ident) && self.current_text() == b"as" {
            self.start(ImportAlias);
            self.bump();
            if self.at(LBrace) {
                self.start(ImportNames);
                self.bump();
                self.with_nl(false, |p| {
                    while is_word(p.current()) {
                        p.start(ImportName);
                        p.bump();
                        if p.at(Ident) && p.current_text() == b"as" {
                            p.bump();
                            if is_word(p.current()) {
                                p.bump();
                            } else {
                                p.expected("a name");
                            }
                        }
                        p.finish();
                        if !p.eat(Comma) {
                            break;
                        }
                    }
                    p.expect(RBrace);
                });
                self.finish();
            } else if is_word(self.current()) {
                self.bump();
            } else {
                self.expected("a name");
            }
            self.finish();
        }
        self.finish();
    }
}
