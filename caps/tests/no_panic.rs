//! Every entry point takes arbitrary input without panicking (a cheap, deterministic fuzz).

mod common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use common::Scratch;
use vox_caps::{check_path, parse_legacy_directive, parse_size, parse_token, Access, CapSet};

/// Pieces that hit the grammars' edges: separators, digits, suffixes, multibyte text, BOMs.
const PIECES: &[&str] = &[
    "fs",
    "net",
    "http",
    "env",
    "time",
    "random",
    "io",
    ":",
    "=",
    "ro",
    "rw",
    "allow",
    "none",
    "frozen",
    "seed",
    "0",
    "9",
    "18446744073709551616",
    "-",
    "+",
    ".",
    "..",
    "/",
    "~",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\u{feff}",
    "é",
    "名",
    "K",
    "MiB",
    "gb",
    "_",
    "#!",
    "//",
    "vox:caps",
    ",",
    "\0",
    "\u{1b}",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: enough to vary inputs, and reproducible.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn text(&mut self) -> String {
        let len = self.next() % 8;
        (0..len)
            .map(|_| PIECES[(self.next() % PIECES.len() as u64) as usize])
            .collect()
    }
}

#[test]
fn parsers_never_panic() {
    let s = Scratch::new("fuzz-parse");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..20_000 {
        let text = rng.text();
        if let Err(err) = parse_token(&text, &s.path("")) {
            assert!(!err.render().contains('\n'), "{:?}", err.render());
        }
        let _ = parse_size(&text);
        if let Some(directive) = parse_legacy_directive(&text) {
            assert!(text.get(directive.range.clone()).is_some(), "{text:?}");
            let _ = directive.caps().tokens();
        }
    }
}

#[test]
fn path_checks_never_panic() {
    let s = Scratch::new("fuzz-path");
    let job = s.dir("job");
    s.dir("job/a");
    s.file("job/a/f");
    s.link("job/l", "..");
    let set = CapSet::from_tokens(&[parse_token("fs:rw=job", &s.path("")).unwrap()]).unwrap();
    let sets = [set, CapSet::none(), CapSet::developer_default()];
    let mut rng = Rng(42);
    let pieces = ["a", "f", "l", "..", ".", "/", "x", "\0", "名"];
    for _ in 0..5_000 {
        let len = rng.next() % 6;
        let path: String = (0..len)
            .map(|_| pieces[(rng.next() % pieces.len() as u64) as usize])
            .collect();
        for set in &sets {
            for access in [Access::Read, Access::Write, Access::List] {
                if let Err(denial) = check_path(set, Path::new(&path), access, &job) {
                    assert!(!denial.message("fs.read").contains('\n'));
                }
            }
        }
    }
    // Not UTF-8, very long, and a relative cwd.
    let odd = Path::new(OsStr::from_bytes(b"job/\xff\xfe"));
    assert!(check_path(&sets[0], odd, Access::Write, &s.path("")).is_ok());
    let long = "a/".repeat(5_000);
    let _ = check_path(&sets[0], Path::new(&long), Access::Read, &job);
    let _ = check_path(&sets[0], Path::new("x"), Access::Read, Path::new(""));
    let _ = check_path(&sets[0], Path::new(""), Access::Read, Path::new(""));
}
