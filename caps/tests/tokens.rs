//! `fs:` tokens against real directories, and printing sets back as tokens.

mod common;

use std::path::Path;

use common::Scratch;
use vox_caps::{parse_legacy_directive, parse_token, CapSet, CapsError, Token};

fn why(token: &str, base: &Path) -> String {
    match parse_token(token, base) {
        Ok(parsed) => panic!("{token} parsed as {parsed:?}"),
        Err(err) => err.to_string(),
    }
}

#[test]
fn fs_dirs_are_canonicalised_against_the_base() {
    let s = Scratch::new("fs-parse");
    let data = s.dir("data");
    s.dir("data/sub");
    let base = s.path("");
    assert_eq!(
        parse_token("fs:ro=data", &base),
        Ok(Token::FsRo(data.clone()))
    );
    assert_eq!(
        parse_token("fs:rw=./data/sub/..", &base),
        Ok(Token::FsRw(data.clone()))
    );
    assert_eq!(
        parse_token(&format!("fs:ro={}", data.display()), Path::new("/")),
        Ok(Token::FsRo(data.clone()))
    );
    assert_eq!(parse_token("fs:ro=.", &data), Ok(Token::FsRo(data.clone())));
    // Everything after the first `=` is the directory, even another `=` or `:`.
    let odd = s.dir("a=b:c");
    assert_eq!(parse_token("fs:ro=a=b:c", &base), Ok(Token::FsRo(odd)));
}

#[test]
fn missing_dirs_are_named() {
    let s = Scratch::new("fs-missing");
    let base = s.path("");
    let err = parse_token("fs:ro=nope", &base).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "no such directory: nope (resolved to {})",
            base.join("nope").display()
        )
    );
    assert_eq!(
        err.render(),
        format!(
            "vox: invalid --caps token \"fs:ro=nope\": no such directory: nope (resolved to {})",
            base.join("nope").display()
        )
    );
    let absolute = base.join("gone");
    assert_eq!(
        why(&format!("fs:rw={}", absolute.display()), &base),
        format!("no such directory: {}", absolute.display())
    );
    assert!(why("fs:ro=~/x", &base).ends_with("the shell did not expand ~, write $HOME instead"));
}

#[test]
fn files_are_not_roots() {
    let s = Scratch::new("fs-file");
    let file = s.file("f.txt");
    let err = why("fs:ro=f.txt", &s.path(""));
    assert!(err.starts_with("not a directory: f.txt"), "{err}");
    assert!(
        err.ends_with(&format!("e.g. fs:ro={}", s.path("").display())),
        "{err}"
    );
    assert!(why(&format!("fs:rw={}", file.display()), Path::new("/")).contains("e.g. fs:rw="));
}

#[test]
fn tokens_round_trip_with_real_roots() {
    let s = Scratch::new("round-trip");
    let base = s.path("");
    for dir in ["b", "a", "c", "a/inner"] {
        s.dir(dir);
    }
    let given = [
        "fs:rw=b",
        "time:frozen=5",
        "fs:ro=a",
        "http:allow",
        "fs:ro=b",
        "fs:ro=a/inner",
        "random:seed=3",
        "env:ro",
        "secrets:allow",
        "process:none",
        "agentos:allow",
        "fs:ro=c",
        "fs:rw=c",
    ];
    let tokens: Vec<Token> = given
        .iter()
        .map(|t| parse_token(t, &base).unwrap())
        .collect();
    let set = CapSet::from_tokens(&tokens).unwrap();
    let printed = set.tokens();
    let root = base.display();
    assert_eq!(
        printed,
        [
            "agentos:allow".to_string(),
            "env:ro".to_string(),
            format!("fs:ro={root}/a"),
            format!("fs:ro={root}/a/inner"),
            format!("fs:rw={root}/b"),
            format!("fs:rw={root}/c"),
            "net:allow".to_string(),
            "random:seed=3".to_string(),
            "secrets:allow".to_string(),
            "time:frozen=5".to_string(),
        ]
    );
    let reparsed: Vec<Token> = printed
        .iter()
        .map(|t| parse_token(t, Path::new("/")).unwrap())
        .collect();
    assert_eq!(CapSet::from_tokens(&reparsed).unwrap(), set);
    // Printing is deterministic whatever the input order.
    let mut reversed = tokens.clone();
    reversed.reverse();
    assert_eq!(CapSet::from_tokens(&reversed).unwrap().tokens(), printed);
}

#[test]
fn deterministic_and_none_round_trip() {
    for given in [
        &["deterministic"][..],
        &["none"],
        &[],
        &["none", "net:none"],
    ] {
        let tokens: Vec<Token> = given
            .iter()
            .map(|t| parse_token(t, Path::new("/")).unwrap())
            .collect();
        let set = CapSet::from_tokens(&tokens).unwrap();
        let reparsed: Vec<Token> = set
            .tokens()
            .iter()
            .map(|t| parse_token(t, Path::new("/")).unwrap())
            .collect();
        assert_eq!(CapSet::from_tokens(&reparsed).unwrap(), set, "{given:?}");
    }
}

#[test]
fn conflicts_use_canonical_spellings() {
    let tokens: Vec<Token> = ["http:none", "net:allow"]
        .iter()
        .map(|t| parse_token(t, Path::new("/")).unwrap())
        .collect();
    let err = CapSet::from_tokens(&tokens).unwrap_err();
    assert_eq!(
        err,
        CapsError::Conflict {
            first: "net:none".into(),
            second: "net:allow".into()
        }
    );
}

#[test]
fn every_invalid_form_renders_one_line() {
    let s = Scratch::new("one-line");
    for token in [
        "",
        "io:rw",
        "fs",
        "fs:ro",
        "fs:ro=",
        "fs:ro=missing",
        "fs:x=.",
        "net",
        "net:maybe",
        "env:allow",
        "time:frozen=-1",
        "random:seed=x",
        "agentos:",
        "what:ever",
        "deterministic=1",
        "a\nb:c",
        "fs:ro=x\ny",
        "fs:rw=/x\u{1b}[2J",
    ] {
        let line = parse_token(token, &s.path("")).unwrap_err().render();
        assert!(line.starts_with("vox: invalid --caps token \""), "{line}");
        assert!(!line.contains('\n'), "{line:?}");
        assert!(!line.ends_with('.'), "{line}");
    }
}

#[test]
fn legacy_directive_end_to_end() {
    let source = "#!/usr/bin/env vox\n// vox:caps net time fs:ro=/data\nfn main() {}\n";
    let directive = parse_legacy_directive(source).unwrap();
    assert_eq!(directive.line, 2);
    assert_eq!(directive.unknown, ["fs:ro=/data"]);
    assert_eq!(directive.warnings().len(), 1);
    assert_eq!(directive.caps().tokens(), ["net:allow", "time:real"]);
}
