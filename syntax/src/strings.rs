//! String literals: escapes, template interpolation, raw forms. The lexer uses this to report
//! string diagnostics; lowering uses it to compute literal values. One scanner serves both so the
//! two can never disagree.

use crate::diagnostic::Diagnostic;
use crate::text_range::TextRange;

/// One piece of a string literal's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StrPart {
    Lit(String),
    /// `{name}`: the display form of the variable `name`; `range` covers the name.
    Interp {
        name: String,
        range: TextRange,
    },
}

/// What a string token holds.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct StrValue {
    pub parts: Vec<StrPart>,
}

impl StrValue {
    /// The value when the literal has no interpolation, borrowed.
    pub fn plain(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [] => Some(""),
            [StrPart::Lit(s)] => Some(s),
            _ => None,
        }
    }

    /// The value when the literal has no interpolation.
    pub fn as_plain(&self) -> Option<String> {
        match self.parts.as_slice() {
            [] => Some(String::new()),
            [StrPart::Lit(s)] => Some(s.clone()),
            _ => None,
        }
    }
}

/// Where a string token's body lies, and whether it is a template and has escapes.
struct Body {
    start: usize,
    end: usize,
    template: bool,
    escapes: bool,
}

impl Body {
    fn of(text: &[u8]) -> Option<Body> {
        Some(match *text.first()? {
            b'r' => {
                let hashes = text[1..].iter().take_while(|&&b| b == b'#').count();
                let start = 1 + hashes + 1;
                let closing = 1 + hashes;
                let end = if text.len() >= start + closing && text[text.len() - closing] == b'"' {
                    text.len() - closing
                } else {
                    text.len()
                };
                Body {
                    start: start.min(text.len()),
                    end: end.max(start.min(text.len())),
                    template: false,
                    escapes: false,
                }
            }
            q => {
                let end = if text.len() >= 2
                    && text[text.len() - 1] == q
                    && !ends_with_escape(&text[1..text.len() - 1])
                {
                    text.len() - 1
                } else {
                    text.len()
                };
                Body {
                    start: 1,
                    end,
                    template: q == b'"',
                    escapes: true,
                }
            }
        })
    }

    /// Whether `b` needs a look when decoding; every other byte stands for itself.
    fn special(&self, b: u8) -> bool {
        (b == b'\\' && self.escapes) || b == b'\r' || (b == b'{' && self.template)
    }
}

/// The value of a string token that needs no decoding (no escape, `\r` or template brace), read
/// straight from its text: what `decode(text, ..).plain()` gives, without building parts.
/// `None` when the token must be decoded.
pub fn plain_value(text: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    let body = Body::of(text)?;
    let bytes = &text[body.start..body.end];
    (!bytes.iter().any(|&b| body.special(b))).then(|| lossy(bytes))
}

/// Decodes the string token `text` starting at byte offset `base`. Diagnostics for escapes and
/// interpolations go to `diags` when given.
pub fn decode(text: &[u8], base: u32, mut diags: Option<&mut Vec<Diagnostic>>) -> StrValue {
    let mut out = StrValue::default();
    let mut lit: Vec<u8> = Vec::new();
    let Some(shape) = Body::of(text) else {
        return out;
    };
    let Body {
        start: body_start,
        end: body_end,
        template,
        escapes,
    } = shape;
    let body = &text[body_start..body_end];
    let at = |i: usize| base + (body_start + i) as u32;
    let mut i = 0;
    while i < body.len() {
        // Runs of bytes that stand for themselves are copied whole.
        let run = body[i..].iter().position(|&b| shape.special(b));
        let end = run.map_or(body.len(), |r| i + r);
        lit.extend_from_slice(&body[i..end]);
        i = end;
        if i == body.len() {
            break;
        }
        let b = body[i];
        if b == b'\\' && escapes {
            let Some(&c) = body.get(i + 1) else {
                lit.push(b'\\');
                i += 1;
                continue;
            };
            let value = match c {
                b'n' => Some(b'\n'),
                b't' => Some(b'\t'),
                b'r' => Some(b'\r'),
                b'\\' => Some(b'\\'),
                b'"' => Some(b'"'),
                b'\'' => Some(b'\''),
                b'0' => Some(0),
                _ => None,
            };
            match value {
                Some(v) => {
                    lit.push(v);
                    i += 2;
                }
                None => {
                    // Unknown escapes keep their backslash (voxscript.md §2.5).
                    let clen = utf8_len(c).min(body.len() - (i + 1));
                    let shown = String::from_utf8_lossy(&body[i + 1..i + 1 + clen]).into_owned();
                    if let Some(d) = diags.as_deref_mut() {
                        let range = TextRange::new(at(i), at(i + 1 + clen));
                        d.push(
                            Diagnostic::warning(
                                "syntax.unknown-escape",
                                range,
                                format!("unknown escape `\\{shown}`; the backslash is kept"),
                            )
                            .with_fix(
                                format!("write `\\\\{shown}` to keep the backslash explicitly"),
                                TextRange::new(at(i), at(i + 1)),
                                "\\\\",
                            ),
                        );
                    }
                    lit.push(b'\\');
                    lit.extend_from_slice(&body[i + 1..i + 1 + clen]);
                    i += 1 + clen;
                }
            }
            continue;
        }
        if b == b'\r' && body.get(i + 1) == Some(&b'\n') {
            // Line endings in values are LF (voxscript.md §2.1).
            i += 1;
            continue;
        }
        if b == b'{' && template {
            if let Some(consumed) =
                interpolation(body, i, &at, &mut out, &mut lit, diags.as_deref_mut())
            {
                i = consumed;
                continue;
            }
        }
        lit.push(b);
        i += 1;
    }
    flush(&mut out, &mut lit);
    out
}

/// Tries an interpolation at `body[i] == '{'`. Returns the index after it, or `None` when the `{`
/// is literal text.
fn interpolation(
    body: &[u8],
    i: usize,
    at: &dyn Fn(usize) -> u32,
    out: &mut StrValue,
    lit: &mut Vec<u8>,
    diags: Option<&mut Vec<Diagnostic>>,
) -> Option<usize> {
    let mut j = i + 1;
    while j < body.len() && body[j] == b' ' {
        j += 1;
    }
    let first = *body.get(j)?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    // The interpolation runs to the next `}`.
    let Some(close) = body[i + 1..]
        .iter()
        .position(|&b| b == b'}')
        .map(|p| i + 1 + p)
    else {
        if let Some(d) = diags {
            d.push(
                Diagnostic::error(
                    "syntax.interp-unclosed",
                    TextRange::new(at(i), at(body.len())),
                    "unclosed interpolation in template string",
                )
                .with_help("close it with `}`, or write the `{` in a single-quoted or raw string"),
            );
        }
        lit.extend_from_slice(&body[i..]);
        return Some(body.len());
    };
    let inner = &body[i + 1..close];
    if is_ident(inner) {
        flush(out, lit);
        out.parts.push(StrPart::Interp {
            name: lossy(inner).into_owned(),
            range: TextRange::new(at(i + 1), at(close)),
        });
        return Some(close + 1);
    }
    if let Some(d) = diags {
        let range = TextRange::new(at(i), at(close + 1));
        let mut diag = Diagnostic::error(
            "syntax.interp-complex",
            range,
            "only a bare name may be interpolated",
        )
        .with_help("compute the value first (`let v = …`) and interpolate `{v}`, or use `+`");
        let trimmed = trim_spaces(inner);
        if trimmed.len() != inner.len() && is_ident(trimmed) {
            let name = String::from_utf8_lossy(trimmed);
            diag = diag.with_fix(format!("write `{{{name}}}`"), range, format!("{{{name}}}"));
        }
        d.push(diag);
    }
    lit.extend_from_slice(&body[i..=close]);
    Some(close + 1)
}

fn flush(out: &mut StrValue, lit: &mut Vec<u8>) {
    if !lit.is_empty() {
        // The buffer becomes the part's string without a copy when it is valid UTF-8.
        let text = match String::from_utf8(std::mem::take(lit)) {
            Ok(s) => s,
            Err(e) => lossy(e.as_bytes()).into_owned(),
        };
        out.parts.push(StrPart::Lit(text));
    }
}

fn is_ident(s: &[u8]) -> bool {
    match s.first() {
        Some(&c) if c.is_ascii_alphabetic() || c == b'_' => {
            s.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
        }
        _ => false,
    }
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| b != b' ').unwrap_or(s.len());
    let end = s.iter().rposition(|&b| b != b' ').map_or(start, |p| p + 1);
    &s[start..end.max(start)]
}

/// Whether the body ends in an odd number of backslashes (so the final quote was escaped).
fn ends_with_escape(body: &[u8]) -> bool {
    body.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// `String::from_utf8_lossy`, with a fast path for ASCII: token texts are asked for all the time
/// (every name lowering resolves), and are short, where validating UTF-8 costs more than the
/// ASCII check.
pub fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    if b.is_ascii() {
        // SAFETY: ASCII bytes are valid UTF-8.
        return std::borrow::Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(b) });
    }
    String::from_utf8_lossy(b)
}

pub(crate) fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}
