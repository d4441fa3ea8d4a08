//! The lexer: bytes to tokens. Every byte of the input lands in exactly one token, so the tokens
//! concatenate back to the input. Lexical diagnostics (voxscript.md §2) are reported here.

use crate::diagnostic::Diagnostic;
use crate::kind::{keyword, SyntaxKind};
use crate::strings::{self, utf8_len};
use crate::text_range::TextRange;

/// A token: its kind and the byte offset where it starts. It ends where the next token starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: SyntaxKind,
    pub start: u32,
}

pub struct Lexed {
    /// The tokens, followed by one zero-length `Eof` token.
    pub tokens: Vec<Token>,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn lex(src: &[u8]) -> Lexed {
    lex_into(src, Vec::with_capacity(token_capacity(src.len())))
}

/// The room [`lex`] makes for the tokens of `len` bytes: about 0.34 tokens per byte in scripts
/// (the benchmark workspace, the corpus), room for 0.375, so that the vector is not doubled and
/// copied near its end.
pub(crate) fn token_capacity(len: usize) -> usize {
    len * 3 / 8 + 16
}

/// [`lex`] into `tokens` (empty, with the room the caller wants).
pub(crate) fn lex_into(src: &[u8], tokens: Vec<Token>) -> Lexed {
    let mut lx = Lexer {
        src,
        pos: 0,
        tokens,
        diags: Vec::new(),
    };
    lx.report_invalid_utf8();
    lx.run();
    let end = src.len() as u32;
    lx.tokens.push(Token {
        kind: SyntaxKind::Eof,
        start: end,
    });
    Lexed {
        tokens: lx.tokens,
        diagnostics: lx.diags,
    }
}

struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    diags: Vec<Diagnostic>,
}

/// `[A-Za-z0-9_]`, by table: the lexer asks this for every byte of every name.
static IDENT_CONTINUE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

fn is_ident_continue(b: u8) -> bool {
    IDENT_CONTINUE[b as usize]
}

impl Lexer<'_> {
    fn peek(&self, n: usize) -> u8 {
        self.src.get(self.pos + n).copied().unwrap_or(0)
    }

    fn push(&mut self, kind: SyntaxKind, start: usize) {
        self.tokens.push(Token {
            kind,
            start: start as u32,
        });
    }

    fn range(start: usize, end: usize) -> TextRange {
        TextRange::new(start as u32, end as u32)
    }

    /// One `syntax.utf8` error per run of invalid bytes, wherever they are (strings and comments
    /// included).
    fn report_invalid_utf8(&mut self) {
        let mut rest = self.src;
        let mut offset = 0usize;
        loop {
            match std::str::from_utf8(rest) {
                Ok(_) => return,
                Err(e) => {
                    let start = offset + e.valid_up_to();
                    let mut bad = e.error_len().unwrap_or(rest.len() - e.valid_up_to());
                    // Merge directly following invalid sequences into one run.
                    loop {
                        let next = start - offset + bad;
                        if next >= rest.len() {
                            break;
                        }
                        match std::str::from_utf8(&rest[next..]) {
                            Err(e2) if e2.valid_up_to() == 0 => {
                                bad += e2.error_len().unwrap_or(rest.len() - next);
                            }
                            _ => break,
                        }
                    }
                    self.diags.push(
                        Diagnostic::error(
                            "syntax.utf8",
                            Self::range(start, start + bad),
                            "invalid UTF-8 in source; VoxScript files must be UTF-8",
                        )
                        .with_help("re-save the file as UTF-8"),
                    );
                    let consumed = start - offset + bad;
                    rest = &rest[consumed..];
                    offset += consumed;
                }
            }
        }
    }

    fn run(&mut self) {
        if self.src.starts_with(b"\xEF\xBB\xBF") {
            self.push(SyntaxKind::Bom, 0);
            self.pos = 3;
        }
        while self.pos < self.src.len() {
            let start = self.pos;
            let b = self.src[self.pos];
            match b {
                b' ' | b'\t' | b'\r' => {
                    let rest = &self.src[self.pos..];
                    // Long runs of spaces (an editor's synthetic main blanks every function) are
                    // skipped 32 bytes at a time.
                    let mut n = 0;
                    while rest.len() - n >= 32 && rest[n..n + 32] == [b' '; 32] {
                        n += 32;
                    }
                    self.pos += n + rest[n..]
                        .iter()
                        .position(|&b| !matches!(b, b' ' | b'\t' | b'\r'))
                        .unwrap_or(rest.len() - n);
                    self.push(SyntaxKind::Whitespace, start);
                }
                b'\n' => {
                    self.pos += 1;
                    self.push(SyntaxKind::Newline, start);
                }
                b'/' if self.peek(1) == b'/' => self.comment(start),
                b'#' => self.comment(start),
                b'"' | b'\'' => self.string(start, b),
                b'r' if self.raw_string_ahead() => self.raw_string(start),
                b'0'..=b'9' => self.number(start),
                b'a'..=b'z' | b'_' => self.word(start),
                b'A'..=b'Z' => {
                    self.eat_ident();
                    self.push(SyntaxKind::TypeIdent, start);
                }
                b'@' if self.peek(1).is_ascii_alphabetic() || self.peek(1) == b'_' => {
                    self.pos += 1;
                    self.eat_ident();
                    self.push(SyntaxKind::AtName, start);
                }
                b';' => {
                    self.pos += 1;
                    self.push(SyntaxKind::Semicolon, start);
                    let r = Self::range(start, self.pos);
                    self.diags.push(
                        Diagnostic::warning("syntax.semicolon", r, "unnecessary `;`")
                            .with_help("`;` is not a statement separator in Vox")
                            .with_fix("remove the `;`", r, ""),
                    );
                }
                _ if b >= 0x80 => self.non_ascii(start),
                _ => self.punct(start, b),
            }
        }
    }

    fn eat_ident(&mut self) {
        let rest = &self.src[self.pos..];
        self.pos += rest
            .iter()
            .position(|&b| !is_ident_continue(b))
            .unwrap_or(rest.len());
    }

    fn comment(&mut self, start: usize) {
        let rest = &self.src[self.pos..];
        self.pos += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        self.push(SyntaxKind::Comment, start);
    }

    fn raw_string_ahead(&self) -> bool {
        let mut i = 1;
        while self.peek(i) == b'#' {
            i += 1;
        }
        self.peek(i) == b'"'
    }

    fn raw_string(&mut self, start: usize) {
        self.pos += 1;
        let mut hashes = 0;
        while self.peek(0) == b'#' {
            hashes += 1;
            self.pos += 1;
        }
        self.pos += 1; // the opening quote
        loop {
            if self.pos >= self.src.len() {
                self.unterminated(start);
                break;
            }
            if self.src[self.pos] == b'"' && (1..=hashes).all(|k| self.peek(k) == b'#') {
                self.pos += 1 + hashes;
                break;
            }
            self.pos += 1;
        }
        self.push(SyntaxKind::Str, start);
    }

    fn string(&mut self, start: usize, quote: u8) {
        self.pos += 1;
        let mut terminated = false;
        while self.pos < self.src.len() {
            let c = self.src[self.pos];
            if c == b'\\' {
                self.pos = (self.pos + 2).min(self.src.len());
                continue;
            }
            self.pos += 1;
            if c == quote {
                terminated = true;
                break;
            }
        }
        if !terminated {
            self.unterminated(start);
        }
        self.push(SyntaxKind::Str, start);
        // Only escapes and interpolations can be wrong inside a string.
        let text = &self.src[start..self.pos];
        if text.iter().any(|&b| b == b'\\' || b == b'{') {
            strings::decode(text, start as u32, Some(&mut self.diags));
        }
    }

    fn unterminated(&mut self, start: usize) {
        self.diags.push(
            Diagnostic::error(
                "syntax.unterminated-string",
                Self::range(start, self.src.len()),
                "unterminated string: it runs to the end of the file",
            )
            .with_help("add the closing quote"),
        );
    }

    fn number(&mut self, start: usize) {
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        let mut kind = SyntaxKind::Int;
        if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
            self.pos += 1;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
            kind = SyntaxKind::Float;
        }
        if self.src[self.pos..].starts_with(b"dec") && !is_ident_continue(self.peek(3)) {
            self.pos += 3;
            kind = SyntaxKind::Decimal;
        }
        let text = &self.src[start..self.pos];
        let r = Self::range(start, self.pos);
        match kind {
            SyntaxKind::Int if parse_int(text).is_none() => {
                self.diags.push(
                        Diagnostic::error("syntax.int-too-large", r, "integer literal too large for int")
                            .with_help("the largest int is 9223372036854775807; write i64::MIN as `-9223372036854775807 - 1`"),
                    );
            }
            SyntaxKind::Decimal => {
                let digits = &text[..text.len() - 3];
                let significant = digits
                    .iter()
                    .filter(|b| b.is_ascii_digit())
                    .skip_while(|&&b| b == b'0')
                    .count();
                let scale = digits
                    .iter()
                    .position(|&b| b == b'.')
                    .map_or(0, |p| digits.len() - p - 1);
                if significant > 28 || scale > 28 {
                    self.diags.push(
                        Diagnostic::error("syntax.decimal", r, "decimal literal out of range")
                            .with_help("a decimal holds at most 28 significant digits"),
                    );
                }
            }
            _ => {}
        }
        self.push(kind, start);
    }

    fn word(&mut self, start: usize) {
        self.eat_ident();
        let word = &self.src[start..self.pos];
        if word == b"is" {
            // `is not` (two words) is one `isnt` token (voxscript.md §2.6).
            let mut j = self.pos;
            while matches!(self.src.get(j), Some(b' ' | b'\t')) {
                j += 1;
            }
            if j > self.pos
                && self.src[j..].starts_with(b"not")
                && !self.src.get(j + 3).is_some_and(|&b| is_ident_continue(b))
            {
                self.pos = j + 3;
                self.push(SyntaxKind::IsntKw, start);
                return;
            }
        }
        let kind = keyword(word).unwrap_or(SyntaxKind::Ident);
        self.push(kind, start);
    }

    fn non_ascii(&mut self, start: usize) {
        let len = utf8_len(self.src[self.pos]);
        let valid = self
            .src
            .get(self.pos..self.pos + len)
            .and_then(|s| std::str::from_utf8(s).ok())
            .filter(|_| len > 1);
        match valid {
            Some(ch) => {
                let ch = ch.to_string();
                self.pos += len;
                self.unknown_run(start, &ch);
            }
            None => {
                // Invalid UTF-8: already reported once per run by `report_invalid_utf8`.
                self.pos += 1;
                while self.pos < self.src.len() && self.src[self.pos] >= 0x80 {
                    let len = utf8_len(self.src[self.pos]);
                    let ok = self
                        .src
                        .get(self.pos..self.pos + len)
                        .is_some_and(|s| len > 1 && std::str::from_utf8(s).is_ok());
                    if ok {
                        break;
                    }
                    self.pos += 1;
                }
                self.push(SyntaxKind::ErrorChar, start);
            }
        }
    }

    /// Characters that start no token: one diagnostic and one error token per run.
    fn unknown_run(&mut self, start: usize, first: &str) {
        loop {
            let b = self.peek(0);
            if self.pos >= self.src.len() {
                break;
            }
            if b >= 0x80 {
                let len = utf8_len(b);
                match self
                    .src
                    .get(self.pos..self.pos + len)
                    .and_then(|s| std::str::from_utf8(s).ok())
                {
                    Some(_) if len > 1 => self.pos += len,
                    _ => break,
                }
            } else if is_unknown_ascii(b)
                && !(b == b'@' && (self.peek(1).is_ascii_alphabetic() || self.peek(1) == b'_'))
            {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.push(SyntaxKind::ErrorChar, start);
        let shown: String = first.chars().flat_map(|c| c.escape_debug()).collect();
        self.diags.push(
            Diagnostic::error(
                "syntax.unknown-char",
                Self::range(start, self.pos),
                format!("unexpected character `{shown}`"),
            )
            .with_help("remove it; identifiers are ASCII and Vox has no operator written with it"),
        );
    }

    fn punct(&mut self, start: usize, b: u8) {
        use SyntaxKind::*;
        let next = self.peek(1);
        let (kind, len) = match (b, next) {
            (b'(', _) => (LParen, 1),
            (b')', _) => (RParen, 1),
            (b'[', _) => (LBracket, 1),
            (b']', _) => (RBracket, 1),
            (b'{', _) => (LBrace, 1),
            (b'}', _) => (RBrace, 1),
            (b',', _) => (Comma, 1),
            (b':', _) => (Colon, 1),
            (b'.', b'.') => (DotDot, 2),
            (b'.', _) => (Dot, 1),
            (b'=', b'=') => (EqEq, 2),
            (b'=', b'>') => (FatArrow, 2),
            (b'=', _) => (Eq, 1),
            (b'!', b'=') => (BangEq, 2),
            (b'!', _) => (Bang, 1),
            (b'<', b'=') => (LtEq, 2),
            (b'<', _) => (Lt, 1),
            (b'>', b'=') => (GtEq, 2),
            (b'>', _) => (Gt, 1),
            (b'+', b'=') => (PlusEq, 2),
            (b'+', _) => (Plus, 1),
            (b'-', b'=') => (MinusEq, 2),
            (b'-', b'>') => (ThinArrow, 2),
            (b'-', _) => (Minus, 1),
            (b'*', b'=') => (StarEq, 2),
            (b'*', _) => (Star, 1),
            (b'/', b'=') => (SlashEq, 2),
            (b'/', _) => (Slash, 1),
            (b'%', _) => (Percent, 1),
            (b'|', b'>') => (PipeGt, 2),
            (b'|', b'|') => (PipePipe, 2),
            (b'|', _) => (Pipe, 1),
            (b'?', _) => (Question, 1),
            (b'&', b'&') => (AmpAmp, 2),
            _ => {
                self.pos += 1;
                let ch = (b as char).to_string();
                self.unknown_run(start, &ch);
                return;
            }
        };
        self.pos += len;
        self.push(kind, start);
        let r = Self::range(start, self.pos);
        match kind {
            AmpAmp => {
                self.diags.push(
                    Diagnostic::warning("syntax.and-and", r, "`&&` is not Vox; use `and`")
                        .with_fix("replace with `and`", r, "and"),
                )
            }
            PipePipe => self.diags.push(
                Diagnostic::warning("syntax.or-or", r, "`||` is not Vox; use `or`").with_fix(
                    "replace with `or`",
                    r,
                    "or",
                ),
            ),
            Bang => self.diags.push(
                Diagnostic::error(
                    "syntax.bang",
                    r,
                    "`!` is not a valid operator in Vox; use `not` instead",
                )
                .with_fix("replace with `not`", r, "not "),
            ),
            DotDot => self.diags.push(Diagnostic::error(
                "syntax.range",
                r,
                "there is no `..` operator; use range(a, b) or slice",
            )),
            _ => {}
        }
    }
}

fn is_unknown_ascii(b: u8) -> bool {
    !(b.is_ascii_alphanumeric() || b" \t\r\n_\"'#/;()[]{},:.=!<>+-*%|?".contains(&b) || (b == b'&'))
}

/// Parses a decimal int literal; `None` when it does not fit in i64.
pub fn parse_int(text: &[u8]) -> Option<i64> {
    let mut v: i64 = 0;
    for &b in text {
        v = v.checked_mul(10)?.checked_add((b - b'0') as i64)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of spaces of every length around the 32 bytes skipped at a time are one token, and
    /// a tab or carriage return inside one does not end it.
    #[test]
    fn long_runs_of_spaces_are_one_token() {
        for n in [1, 31, 32, 33, 63, 64, 65, 100] {
            for tail in ["", "\t  ", "\r", " \t"] {
                let text = format!("a{}{tail}b", " ".repeat(n));
                let lexed = lex(text.as_bytes());
                let kinds: Vec<(SyntaxKind, u32)> =
                    lexed.tokens.iter().map(|t| (t.kind, t.start)).collect();
                let b = (1 + n + tail.len()) as u32;
                assert_eq!(
                    kinds,
                    [
                        (SyntaxKind::Ident, 0),
                        (SyntaxKind::Whitespace, 1),
                        (SyntaxKind::Ident, b),
                        (SyntaxKind::Eof, b + 1)
                    ],
                    "{text:?}"
                );
            }
        }
    }
}
