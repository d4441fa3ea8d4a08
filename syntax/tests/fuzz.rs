//! A property test over random inputs: random bytes and random edits of corpus files. The parser
//! must never panic, the tree must print back the exact input, and diagnostics must lie inside it.
//!
//! CI runs a bounded number of inputs. For a long local run: `VOX_FUZZ_SECS=600 cargo test --release
//! -p vox-syntax --test fuzz -- --nocapture` (prints how many inputs were tried).

use std::path::Path;
use std::time::{Duration, Instant};

/// xorshift64*: small, seedable, good enough to drive mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "fn",
    "let",
    "mut",
    "if",
    "else",
    "while",
    "loop",
    "break",
    "continue",
    "match",
    "for",
    "in",
    "return",
    "type",
    "import",
    "pub",
    "async",
    "and",
    "or",
    "not",
    "is",
    "isnt",
    "is not",
    "true",
    "false",
    "to",
    "ret",
    "env",
    "http",
    "spawn",
    "actor",
    "table",
    "@test",
    "@page",
    "@json_as(T)",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ".",
    "..",
    "=",
    "==",
    "!=",
    "<",
    ">",
    "<=",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "+=",
    "|",
    "|>",
    "=>",
    "->",
    "?",
    "!",
    "&&",
    "||",
    ";",
    "$",
    "\n",
    " ",
    "\t",
    "\r\n",
    "\"",
    "'",
    "r\"",
    "r#\"",
    "\"#",
    "{x}",
    "{ x }",
    "{a.b}",
    "\\",
    "\\d",
    "//",
    "#",
    "x",
    "Foo",
    "Some(",
    "Ok(",
    "12",
    "3.5",
    "9dec",
    "99999999999999999999",
    "\u{e9}",
    "\u{1F600}",
    "\u{FEFF}",
    "\u{0}",
    "<div>",
    "Card()",
];

fn corpus_files() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut out = Vec::new();
    for sub in ["valid", "valid/lib", "malformed"] {
        if let Ok(entries) = std::fs::read_dir(root.join(sub)) {
            let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            paths.sort();
            for p in paths {
                if p.extension().is_some_and(|e| e == "vox") {
                    if let Ok(b) = std::fs::read(&p) {
                        out.push(b);
                    }
                }
            }
        }
    }
    if out.is_empty() {
        out.push(
            b"fn main() {\n  let xs = [1, 2]\n  for x, i in xs { print(\"{x}\", i) }\n}\n".to_vec(),
        );
    }
    out
}

fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut v = base.to_vec();
    let edits = 1 + rng.below(8);
    for _ in 0..edits {
        let at = rng.below(v.len() + 1);
        match rng.below(6) {
            0 => {
                let piece = PIECES[rng.below(PIECES.len())].as_bytes();
                v.splice(at..at, piece.iter().copied());
            }
            1 if !v.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                v.drain(at.min(end)..end);
            }
            2 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = rng.next() as u8;
            }
            3 => {
                // Duplicate a slice: nests constructs.
                let start = rng.below(v.len() + 1);
                let end = (start + rng.below(64)).min(v.len());
                let slice = v[start..end].to_vec();
                v.splice(at..at, slice);
            }
            4 => {
                let n = 1 + rng.below(300);
                let open = [b'(', b'[', b'{'][rng.below(3)];
                v.splice(at..at, std::iter::repeat_n(open, n));
            }
            _ => {
                let piece = PIECES[rng.below(PIECES.len())].as_bytes();
                v.extend_from_slice(piece);
            }
        }
    }
    v
}

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    let len = rng.below(400);
    (0..len)
        .flat_map(|_| {
            if rng.below(3) == 0 {
                vec![rng.next() as u8]
            } else {
                PIECES[rng.below(PIECES.len())].as_bytes().to_vec()
            }
        })
        .collect()
}

fn check(input: &[u8]) {
    let tree = vox_syntax::parse(input);
    assert_eq!(
        tree.print(),
        input,
        "round trip failed for {:?}",
        String::from_utf8_lossy(input)
    );
    let len = input.len() as u32;
    for d in tree.diagnostics() {
        assert!(
            d.range.start <= d.range.end && d.range.end <= len,
            "diagnostic out of range: {d:?}"
        );
    }
    let root = tree.root();
    assert_eq!(root.range().end, len);
    // Every token's parent is the node whose children list it.
    for node in root.descendants() {
        for child in node.children_with_tokens() {
            if let Some(tok) = child.as_token() {
                assert_eq!(tok.parent(), node, "token {tok:?} has the wrong parent");
            } else if let Some(n) = child.as_node() {
                assert_eq!(n.parent(), Some(node));
            }
        }
    }
}

#[test]
fn parser_never_panics_and_always_round_trips() {
    let secs: Option<u64> = std::env::var("VOX_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok());
    let seed: u64 = std::env::var("VOX_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_1234_ABCD_0001);
    let corpus = corpus_files();
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut rng = Rng(seed | 1);
            let start = Instant::now();
            let mut n: u64 = 0;
            loop {
                let done = match secs {
                    Some(s) => start.elapsed() >= Duration::from_secs(s),
                    None => n >= 4000,
                };
                if done {
                    break;
                }
                let input = if rng.below(4) == 0 {
                    random_bytes(&mut rng)
                } else {
                    let base = &corpus[rng.below(corpus.len())];
                    mutate(&mut rng, base)
                };
                check(&input);
                n += 1;
            }
            n
        })
        .expect("spawn fuzz thread");
    let n = handle
        .join()
        .expect("the parser panicked (see the message above)");
    println!("fuzz: {n} inputs parsed, no panic, every tree round-tripped");
}
