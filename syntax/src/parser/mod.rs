//! The parser: tokens to a lossless tree plus diagnostics. It never fails and never panics: every
//! token ends up in the tree, and each mistake gives one diagnostic (voxscript.md §3.6 "Recovery").

mod expressions;
mod items;
mod statements;
mod types;

use crate::diagnostic::Diagnostic;
use crate::kind::SyntaxKind::{self, *};
use crate::lexer::Token;
use crate::text_range::TextRange;
use crate::tree_builder::{Checkpoint, TreeBuilder};

/// Nesting deeper than this is `syntax.too-deep` (voxscript.md §3.6).
pub const MAX_DEPTH: u32 = 4096;

pub(crate) struct Parser<'s> {
    src: &'s [u8],
    b: TreeBuilder,
    /// Index of the next token not yet in the tree (may be trivia).
    pos: usize,
    /// Whether newlines end expressions here (false inside `( )`, `[ ]` and map literals).
    nl_sensitive: bool,
    pub(crate) diags: Vec<Diagnostic>,
    depth: u32,
    too_deep_reported: bool,
    /// The token at which the last error was reported: one token never yields two errors.
    last_error_token: usize,
    /// Set after a `syntax.not-a-script` in the current top-level item: the rest of it is silent.
    suppress: bool,
    /// Loops enclosing the current point within the current function or closure.
    loop_depth: u32,
    /// Blocks enclosing the current point.
    block_depth: u32,
    /// A missing `}` was reported for the current top-level item.
    unclosed_reported: bool,
    /// Memo of `nth_index(0)`: (pos, newline mode, index, kind at index).
    peek_cache: std::cell::Cell<(usize, bool, usize, SyntaxKind)>,
}

impl<'s> Parser<'s> {
    pub(crate) fn new(src: &'s [u8], tokens: Vec<Token>) -> Parser<'s> {
        Self::with_builder(src, TreeBuilder::new(tokens))
    }

    pub(crate) fn with_builder(src: &'s [u8], b: TreeBuilder) -> Parser<'s> {
        Parser {
            src,
            b,
            pos: 0,
            nl_sensitive: true,
            diags: Vec::new(),
            depth: 0,
            too_deep_reported: false,
            last_error_token: usize::MAX,
            suppress: false,
            loop_depth: 0,
            block_depth: 0,
            unclosed_reported: false,
            peek_cache: std::cell::Cell::new((usize::MAX, false, 0, Eof)),
        }
    }

    pub(crate) fn into_parts(self) -> (TreeBuilder, Vec<Diagnostic>) {
        (self.b, self.diags)
    }

    /// Whether the parser is back in the state it starts in (between top-level items, with no
    /// diagnostic so far): what a parse of one chunk of a file must end in for the next chunk
    /// to be parsed alone (`chunked.rs`).
    pub(crate) fn at_rest(&self) -> bool {
        self.diags.is_empty()
            && self.nl_sensitive
            && self.depth == 0
            && self.block_depth == 0
            && self.loop_depth == 0
            && !self.too_deep_reported
            && !self.suppress
            && !self.unclosed_reported
            && self.last_error_token == usize::MAX
    }

    /// Moves every token not yet in the tree (trailing trivia) into the current node.
    fn take_rest(&mut self) {
        let n = self.b.tokens().len() - 1;
        while self.pos < n {
            self.b.token(self.pos);
            self.pos += 1;
        }
    }

    // ---- token access -------------------------------------------------------------------------

    fn kind_at(&self, i: usize) -> SyntaxKind {
        self.b.tokens()[i].kind
    }

    fn skippable(&self, k: SyntaxKind) -> bool {
        k.is_trivia() || (k == Newline && !self.nl_sensitive)
    }

    /// Index of the `n`-th significant token from `pos`.
    fn nth_index(&self, mut n: usize) -> usize {
        if n == 0 {
            // `current()` is asked many times per token: memoise it for (pos, mode).
            let (pos, mode, idx, _) = self.peek_cache.get();
            if pos == self.pos && mode == self.nl_sensitive {
                return idx;
            }
        }
        let first = n == 0;
        let toks = self.b.tokens();
        let mut i = self.pos;
        loop {
            let k = toks[i].kind;
            if k == Eof {
                return i;
            }
            if !self.skippable(k) {
                if n == 0 {
                    if first {
                        self.peek_cache.set((self.pos, self.nl_sensitive, i, k));
                    }
                    return i;
                }
                n -= 1;
            }
            i += 1;
        }
    }

    fn nth(&self, n: usize) -> SyntaxKind {
        self.kind_at(self.nth_index(n))
    }

    #[inline]
    fn current(&self) -> SyntaxKind {
        // The hottest question: answered from the memo without reading the tokens again.
        let (pos, mode, _, kind) = self.peek_cache.get();
        if pos == self.pos && mode == self.nl_sensitive {
            return kind;
        }
        self.nth(0)
    }

    #[inline]
    fn at(&self, k: SyntaxKind) -> bool {
        self.current() == k
    }

    fn text_at(&self, i: usize) -> &'s [u8] {
        &self.src[self.range_at(i).as_usize()]
    }

    fn current_text(&self) -> &'s [u8] {
        self.text_at(self.nth_index(0))
    }

    fn nth_text(&self, n: usize) -> &'s [u8] {
        self.text_at(self.nth_index(n))
    }

    fn range_at(&self, i: usize) -> TextRange {
        let toks = self.b.tokens();
        match toks.get(i + 1) {
            Some(next) => TextRange::new(toks[i].start, next.start),
            // The `Eof` token is empty.
            None => TextRange::empty(toks[i].start),
        }
    }

    fn current_range(&self) -> TextRange {
        self.range_at(self.nth_index(0))
    }

    /// The kind of the `n`-th token from `pos`, skipping trivia and newlines whatever the mode.
    fn nth_skip_nl(&self, mut n: usize) -> SyntaxKind {
        let toks = self.b.tokens();
        let mut i = self.pos;
        loop {
            let k = toks[i].kind;
            if k == Eof {
                return Eof;
            }
            if !k.is_trivia() && k != Newline {
                if n == 0 {
                    return k;
                }
                n -= 1;
            }
            i += 1;
        }
    }

    /// The next token that is not trivia, newlines included whatever the mode.
    fn raw_next_index(&self) -> usize {
        let toks = self.b.tokens();
        let mut i = self.pos;
        while toks[i].kind.is_trivia() {
            i += 1;
        }
        i
    }

    /// Whether the token at `i` starts its line (column 1).
    fn at_line_start(&self, i: usize) -> bool {
        let s = self.b.tokens()[i].start as usize;
        s == 0 || self.src[s - 1] == b'\n'
    }

    /// An unindented `fn name`, `pub`, `type`, `import` or decorator: a top-level item, which means
    /// any blocks still open were left unclosed.
    fn at_item_start(&self) -> bool {
        let i = self.raw_next_index();
        if !self.at_line_start(i) {
            return false;
        }
        match self.kind_at(i) {
            FnKw => {
                let mut j = i + 1;
                while self.kind_at(j).is_trivia() {
                    j += 1;
                }
                self.kind_at(j) == Ident
            }
            PubKw | TypeKw | ImportKw | AtName | AsyncKw => true,
            _ => false,
        }
    }

    // ---- building -----------------------------------------------------------------------------

    /// Moves skippable tokens before the next significant one into the tree.
    fn flush_trivia(&mut self) {
        while self.skippable(self.kind_at(self.pos)) {
            self.b.token(self.pos);
            self.pos += 1;
        }
    }

    fn start(&mut self, kind: SyntaxKind) {
        self.flush_trivia();
        self.b.start_node(kind);
    }

    fn checkpoint(&mut self) -> Checkpoint {
        self.flush_trivia();
        self.b.checkpoint()
    }

    fn start_at(&mut self, cp: Checkpoint, kind: SyntaxKind) {
        self.b.start_node_at(cp, kind);
    }

    fn finish(&mut self) {
        self.b.finish_node();
    }

    fn bump(&mut self) {
        self.flush_trivia();
        if self.kind_at(self.pos) != Eof {
            self.b.token(self.pos);
            self.pos += 1;
        }
    }

    fn eat(&mut self, k: SyntaxKind) -> bool {
        if self.at(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Consumes newlines (and trivia) even in newline-sensitive mode.
    fn skip_newlines(&mut self) {
        loop {
            let k = self.kind_at(self.pos);
            if k.is_trivia() || k == Newline {
                self.b.token(self.pos);
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn with_nl<T>(&mut self, sensitive: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.nl_sensitive;
        self.nl_sensitive = sensitive;
        let r = f(self);
        self.nl_sensitive = saved;
        r
    }

    // ---- diagnostics --------------------------------------------------------------------------

    fn report(&mut self, d: Diagnostic) {
        if self.suppress {
            return;
        }
        if d.is_error() {
            let tok = self.nth_index(0);
            if self.last_error_token == tok {
                return;
            }
            self.last_error_token = tok;
        }
        self.diags.push(d);
    }

    fn describe_current(&self) -> String {
        let i = self.nth_index(0);
        let k = self.kind_at(i);
        match k {
            Ident | TypeIdent | NonScriptKw | AtName | Int | Float | Decimal => {
                format!("`{}`", String::from_utf8_lossy(self.text_at(i)))
            }
            _ => k.describe().to_string(),
        }
    }

    /// `syntax.expected`: ``Expected `}`, found newline``.
    fn expected(&mut self, what: &str) {
        let found = self.describe_current();
        let range = self.current_range();
        self.report(Diagnostic::error(
            "syntax.expected",
            range,
            format!("Expected {what}, found {found}"),
        ));
    }

    fn expect(&mut self, k: SyntaxKind) -> bool {
        if self.eat(k) {
            return true;
        }
        self.expected(k.describe());
        false
    }

    fn unexpected(&mut self) {
        let found = self.describe_current();
        let range = self.current_range();
        self.report(Diagnostic::error(
            "syntax.unexpected",
            range,
            format!("Unexpected token in expression: {found}"),
        ));
    }

    /// `syntax.reserved` for a non-script keyword used as a name.
    fn reserved_name(&mut self) {
        let word = String::from_utf8_lossy(self.current_text()).into_owned();
        let range = self.current_range();
        self.report(
            Diagnostic::error(
                "syntax.reserved",
                range,
                format!("`{word}` is a reserved word and cannot be used as a name"),
            )
            .with_help("choose another name"),
        );
    }

    // ---- recovery -----------------------------------------------------------------------------

    /// Skips to the next newline or closing bracket at the current depth (not consumed), or to an
    /// unindented top-level item. Always makes progress unless at a stop token already.
    fn recover(&mut self) {
        let toks_len = self.b.tokens().len();
        self.start(Error);
        let mut depth = 0i32;
        let mut first = true;
        loop {
            let i = self.pos;
            if i >= toks_len - 1 {
                break;
            }
            let k = self.kind_at(i);
            if k.is_trivia() {
                self.b.token(i);
                self.pos += 1;
                continue;
            }
            if depth == 0 {
                let stop = match k {
                    Newline => true,
                    RParen | RBracket => !first,
                    RBrace => self.block_depth > 0 || !first,
                    _ => !first && self.at_line_start(i) && self.at_item_start(),
                };
                if stop {
                    break;
                }
            }
            match k {
                LParen | LBracket | LBrace => depth += 1,
                RParen | RBracket | RBrace => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                depth = 0;
            }
            self.b.token(i);
            self.pos += 1;
            first = false;
        }
        self.finish();
    }

    /// The closing bracket of a list, argument list, index, parenthesis or map literal. When it is
    /// not next, reports that once and skips the rest of the bracket, its `closer` included, so
    /// `[1, 2 3]` is one diagnostic, not a second one at `]` (voxscript.md §3.6). The skip stops
    /// before a mismatched closer, a line that starts a statement or item, or the end of the file.
    fn expect_closer(&mut self, closer: SyntaxKind) -> bool {
        if self.eat(closer) {
            return true;
        }
        self.expected(closer.describe());
        let toks_len = self.b.tokens().len();
        let start = self.pos;
        let mut depth = 0i32;
        let mut i = self.nth_index(0);
        let found = loop {
            if i >= toks_len - 1 {
                break false;
            }
            let k = self.kind_at(i);
            if k.is_trivia() || k == Newline {
                i += 1;
                continue;
            }
            if depth == 0 {
                if k == closer {
                    break true;
                }
                if matches!(k, RParen | RBracket | RBrace) {
                    break false;
                }
            }
            if self.at_line_start(i)
                && matches!(
                    k,
                    LetKw
                        | ReturnKw
                        | WhileKw
                        | LoopKw
                        | ForKw
                        | IfKw
                        | MatchKw
                        | FnKw
                        | PubKw
                        | TypeKw
                        | ImportKw
                        | AtName
                )
            {
                break false;
            }
            match k {
                LParen | LBracket | LBrace => depth += 1,
                RParen | RBracket | RBrace => depth -= 1,
                _ => {}
            }
            i += 1;
        };
        if !found {
            return false;
        }
        self.start(Error);
        while self.pos < i {
            self.b.token(self.pos);
            self.pos += 1;
        }
        self.finish();
        debug_assert!(self.pos > start || self.at(closer));
        self.bump(); // the closer
        false
    }

    /// Skips a list element that failed to parse: up to a `,` or `closer` at depth 0.
    fn recover_in_list(&mut self, closer: SyntaxKind) {
        self.start(Error);
        let mut depth = 0i32;
        loop {
            let k = self.current();
            if k == Eof || (depth == 0 && (k == Comma || k == closer)) {
                break;
            }
            if depth == 0 && matches!(k, RParen | RBracket | RBrace) {
                break;
            }
            match k {
                LParen | LBracket | LBrace => depth += 1,
                RParen | RBracket | RBrace => depth -= 1,
                _ => {}
            }
            if self.at_item_start() {
                break;
            }
            self.bump();
        }
        self.finish();
    }

    /// `syntax.not-a-script`, then skip the construct to the first newline at bracket depth 0
    /// (voxscript.md §1.2). Further diagnostics in this top-level item are suppressed.
    fn not_a_script(&mut self, what: &str, range: TextRange) {
        self.report(Diagnostic::error(
            "syntax.not-a-script",
            range,
            format!("not a script: {what} is a Vox service surface; VoxScript runs script-shaped files only"),
        ));
        self.suppress = true;
        self.start(NotAScript);
        let mut depth = 0i32;
        loop {
            let i = self.pos;
            let k = self.kind_at(i);
            if k == Eof {
                break;
            }
            if depth <= 0 && k == Newline {
                break;
            }
            if depth <= 0 && k == RBrace && self.block_depth > 0 && i > 0 {
                // The enclosing block's `}`: not ours to take.
                break;
            }
            match k {
                LParen | LBracket | LBrace => depth += 1,
                RParen | RBracket | RBrace => depth -= 1,
                _ => {}
            }
            self.b.token(i);
            self.pos += 1;
        }
        self.finish();
    }

    /// Counts one level of nesting; past `MAX_DEPTH` reports `syntax.too-deep` once, skips the
    /// innermost construct and returns false.
    fn enter(&mut self) -> bool {
        self.depth += 1;
        if self.depth <= MAX_DEPTH {
            return true;
        }
        if !self.too_deep_reported {
            self.too_deep_reported = true;
            let range = self.current_range();
            let d = Diagnostic::error(
                "syntax.too-deep",
                range,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            )
            .with_help("split the expression into smaller parts with `let`");
            self.diags.push(d);
        }
        self.start(Error);
        let mut depth = 0i32;
        loop {
            let k = self.kind_at(self.pos);
            if k == Eof {
                break;
            }
            if depth == 0
                && (matches!(k, RParen | RBracket | RBrace) || (k == Newline && self.nl_sensitive))
            {
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
        self.finish();
        self.depth -= 1;
        false
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }
}

/// Whether a token can start an expression (used by the `ret` rule and bare `return`).
pub(crate) fn starts_expr(k: SyntaxKind) -> bool {
    matches!(
        k,
        Int | Float
            | Decimal
            | Str
            | Ident
            | TypeIdent
            | TrueKw
            | FalseKw
            | LParen
            | LBracket
            | LBrace
            | IfKw
            | MatchKw
            | ForKw
            | FnKw
            | NotKw
            | Minus
            | Bang
    )
}

/// Any word is accepted after `.` and as a map key (voxscript.md §2.3).
pub(crate) fn is_word(k: SyntaxKind) -> bool {
    matches!(k, Ident | TypeIdent | NonScriptKw) || k.is_keyword()
}
