//! The filesystem check against real directories: roots, `..`, symlinks, missing tails, hints.

mod common;

use std::path::{Path, PathBuf};

use common::Scratch;
use vox_caps::{check_path, parse_token, Access, CapSet, Denial, Resolved, Token};

/// A set from `--caps`-style strings, relative ones resolved against `base`.
fn caps(base: &Path, tokens: &[&str]) -> CapSet {
    let tokens: Vec<Token> = tokens
        .iter()
        .map(|t| parse_token(t, base).unwrap())
        .collect();
    CapSet::from_tokens(&tokens).unwrap()
}

fn allowed(set: &CapSet, path: &Path, access: Access, cwd: &Path) -> Resolved {
    match check_path(set, path, access, cwd) {
        Ok(resolved) => resolved,
        Err(denial) => panic!("{} denied: {}", path.display(), denial.message("fs.test")),
    }
}

fn denied(set: &CapSet, path: &Path, access: Access, cwd: &Path) -> Denial {
    match check_path(set, path, access, cwd) {
        Ok(resolved) => panic!(
            "{} allowed as {}",
            path.display(),
            resolved.path().display()
        ),
        Err(denial) => denial,
    }
}

fn ro(dir: &Path) -> String {
    format!("fs:ro={}", dir.display())
}

fn rw(dir: &Path) -> String {
    format!("fs:rw={}", dir.display())
}

#[test]
fn reads_and_writes_under_roots() {
    let s = Scratch::new("roots");
    let job = s.dir("job");
    let data = s.dir("data");
    let file = s.file("data/in.txt");
    let set = caps(&s.path(""), &["fs:rw=job", "fs:ro=data"]);

    let read = allowed(&set, &file, Access::Read, &job);
    assert_eq!(read.path(), file);
    assert!(!read.no_follow());
    assert_eq!(allowed(&set, &data, Access::List, &job).path(), data);
    assert_eq!(allowed(&set, &job, Access::List, &job).path(), job);

    let out = allowed(&set, Path::new("out.txt"), Access::Write, &job);
    assert_eq!(out.path(), job.join("out.txt"));
    assert!(out.no_follow());

    // ro roots refuse writes, and the hint names the directory written into.
    let denial = denied(&set, &file, Access::Write, &job);
    assert_eq!(denial.token(), Some(rw(&data).as_str()));
    assert_eq!(denial.resource(), Some(file.as_path()));
    assert_eq!(
        denial.message("fs.write"),
        format!(
            "vox: capability denied: fs.write \u{2014} grant with --caps {}",
            rw(&data)
        )
    );
}

#[test]
fn relative_paths_resolve_against_cwd() {
    let s = Scratch::new("relative");
    let job = s.dir("job");
    s.file("job/sub/a.txt");
    let set = caps(&job, &["fs:ro=."]);
    assert_eq!(set.fs_roots()[0].dir(), job);
    let read = allowed(&set, Path::new("sub/a.txt"), Access::Read, &job);
    assert_eq!(read.path(), job.join("sub/a.txt"));
    assert_eq!(
        allowed(&set, Path::new("./sub/./a.txt"), Access::Read, &job).path(),
        job.join("sub/a.txt")
    );
    assert_eq!(allowed(&set, Path::new(""), Access::List, &job).path(), job);
    // The same relative path from another cwd is outside.
    let other = s.dir("other");
    let denial = denied(&set, Path::new("sub/a.txt"), Access::Read, &other);
    assert_eq!(denial.token(), Some(ro(&other).as_str()));
}

#[test]
fn dot_dot_in_existing_parts_is_resolved() {
    let s = Scratch::new("dotdot");
    let job = s.dir("job");
    s.dir("job/sub");
    let secret = s.file("outside/secret.txt");
    let set = caps(&s.path(""), &["fs:rw=job"]);

    let inside = allowed(&set, Path::new("sub/../a.txt"), Access::Write, &job);
    assert_eq!(inside.path(), job.join("a.txt"));

    let escape = denied(&set, Path::new("../outside/secret.txt"), Access::Read, &job);
    assert_eq!(escape.resource(), Some(secret.as_path()));
    assert_eq!(escape.token(), Some(ro(&s.path("outside")).as_str()));
    denied(
        &set,
        Path::new("sub/../../outside/secret.txt"),
        Access::Read,
        &job,
    );
    // `..` above `/` stays at `/`, as in the kernel.
    denied(&set, Path::new("/../../etc"), Access::List, &job);
}

#[test]
fn dot_dot_after_a_missing_part_is_denied_without_a_token() {
    let s = Scratch::new("dotdot-missing");
    let job = s.dir("job");
    let set = caps(&s.path(""), &["fs:rw=job"]);
    let denial = denied(&set, Path::new("new/../x.txt"), Access::Write, &job);
    assert_eq!(denial.token(), None);
    let message = denial.message("fs.write");
    assert!(
        message.starts_with("vox: capability denied: fs.write \u{2014} "),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "after {}, which does not exist",
            job.join("new").display()
        )),
        "{message}"
    );
    assert!(
        message.contains("create it first or remove the \"..\""),
        "{message}"
    );
    denied(
        &set,
        Path::new("new/deeper/../../x.txt"),
        Access::Read,
        &job,
    );
    // Without `..` the same missing tail is fine.
    let fine = allowed(&set, Path::new("new/deeper/x.txt"), Access::Write, &job);
    assert_eq!(fine.path(), job.join("new/deeper/x.txt"));
}

#[test]
fn prefix_look_alikes_are_outside() {
    let s = Scratch::new("prefix");
    let job = s.dir("job");
    let jobx = s.dir("jobx");
    let file = s.file("jobx/f.txt");
    let set = caps(&s.path(""), &["fs:rw=job"]);
    let denial = denied(&set, &file, Access::Read, &job);
    assert_eq!(denial.token(), Some(ro(&jobx).as_str()));
    denied(&set, &jobx, Access::List, &job);
    denied(&set, &s.path("jobx/new.txt"), Access::Write, &job);
    // The root itself and names that merely start with its name inside it are fine.
    allowed(&set, &job, Access::Write, &job);
    allowed(&set, &job.join("jobx"), Access::Write, &job);
}

#[test]
fn symlinks_that_leave_a_root_are_denied() {
    let s = Scratch::new("symlinks");
    let job = s.dir("job");
    let outside = s.dir("outside");
    let secret = s.file("outside/secret.txt");
    s.file("job/sub/real.txt");
    s.link("job/file_out", "../outside/secret.txt");
    s.link("job/dir_out", &outside);
    s.link("job/dangling_out", "../outside/new.txt");
    s.link("job/file_in", "sub/real.txt");
    s.link("job/dangling_in", "sub/new.txt");
    s.link("job/abs_in", job.join("sub"));
    let set = caps(&s.path(""), &["fs:rw=job"]);

    let read = denied(&set, Path::new("file_out"), Access::Read, &job);
    assert_eq!(read.resource(), Some(secret.as_path()));
    assert_eq!(read.token(), Some(ro(&outside).as_str()));
    denied(&set, Path::new("file_out"), Access::Write, &job);
    denied(&set, Path::new("dir_out"), Access::List, &job);
    denied(&set, Path::new("dir_out/secret.txt"), Access::Read, &job);
    let write = denied(&set, Path::new("dir_out/new.txt"), Access::Write, &job);
    assert_eq!(write.token(), Some(rw(&outside).as_str()));
    // A dangling link is followed too: writing through it would create the file outside.
    let dangling = denied(&set, Path::new("dangling_out"), Access::Write, &job);
    assert_eq!(dangling.resource(), Some(outside.join("new.txt").as_path()));
    assert_eq!(dangling.token(), Some(rw(&outside).as_str()));

    // Links that stay inside resolve to their target, which the operation then uses.
    assert_eq!(
        allowed(&set, Path::new("file_in"), Access::Read, &job).path(),
        job.join("sub/real.txt")
    );
    let through = allowed(&set, Path::new("dangling_in"), Access::Write, &job);
    assert_eq!(through.path(), job.join("sub/new.txt"));
    assert!(through.no_follow());
    assert_eq!(
        allowed(&set, Path::new("abs_in/real.txt"), Access::Read, &job).path(),
        job.join("sub/real.txt")
    );
    // `..` after a link applies to the link's target, as in the kernel.
    let parent = denied(
        &set,
        Path::new("dir_out/../outside/secret.txt"),
        Access::Read,
        &job,
    );
    assert_eq!(parent.resource(), Some(secret.as_path()));
}

#[test]
fn symlinks_into_a_root_from_outside_are_allowed() {
    let s = Scratch::new("symlink-in");
    let data = s.dir("data");
    s.file("data/a.txt");
    let elsewhere = s.dir("elsewhere");
    s.link("elsewhere/to_data", &data);
    let set = caps(&s.path(""), &["fs:ro=data"]);
    let read = allowed(&set, Path::new("to_data/a.txt"), Access::Read, &elsewhere);
    assert_eq!(read.path(), data.join("a.txt"));
}

#[test]
fn roots_are_canonicalised_through_symlinks() {
    let s = Scratch::new("root-link");
    let real = s.dir("real");
    s.file("real/a.txt");
    s.link("alias", "real");
    let set = caps(&s.path(""), &["fs:ro=alias"]);
    assert_eq!(set.fs_roots()[0].dir(), real);
    assert_eq!(
        allowed(&set, &s.path("alias/a.txt"), Access::Read, &real).path(),
        real.join("a.txt")
    );
}

#[test]
fn symlink_loops_are_denied_without_a_token() {
    let s = Scratch::new("loop");
    let job = s.dir("job");
    s.link("job/a", "b");
    s.link("job/b", "a");
    s.link("job/self", "self");
    let set = caps(&s.path(""), &["fs:rw=job"]);
    let denial = denied(&set, Path::new("a"), Access::Read, &job);
    assert_eq!(denial.token(), None);
    assert!(denial
        .message("fs.read")
        .contains("too many symbolic links"));
    denied(&set, Path::new("self/x"), Access::Write, &job);
    // The unscoped filesystem lets the operation report the loop itself.
    let unscoped = CapSet::developer_default();
    assert_eq!(
        allowed(&unscoped, Path::new("a"), Access::Read, &job).path(),
        job.join("a")
    );
}

#[test]
fn hints_name_the_nearest_existing_directory() {
    let s = Scratch::new("hints");
    let cwd = s.dir("cwd");
    let data = s.dir("data");
    s.file("data/file.txt");
    let none = CapSet::none();
    let cases: [(&str, Access, String); 8] = [
        ("data/file.txt", Access::Read, ro(&data)),
        ("data", Access::List, ro(&data)),
        ("data/file.txt", Access::List, ro(&data)),
        ("data/file.txt", Access::Write, rw(&data)),
        ("data/new/deeper/x.txt", Access::Write, rw(&data)),
        ("data/new/deeper/x.txt", Access::Read, ro(&data)),
        ("nope/x", Access::List, ro(&s.path(""))),
        ("data", Access::Read, ro(&s.path(""))),
    ];
    for (rel, access, token) in cases {
        let denial = denied(&none, &s.path(rel), access, &cwd);
        assert_eq!(denial.token(), Some(token.as_str()), "{rel} {access:?}");
        // The hint is valid and sufficient: granting it admits the same call.
        let granted = caps(&cwd, &[&token]);
        allowed(&granted, &s.path(rel), access, &cwd);
    }
    assert_eq!(
        denied(&none, Path::new("/"), Access::Read, &cwd).token(),
        Some("fs:ro=/")
    );
    assert_eq!(
        denied(&none, Path::new("/"), Access::List, &cwd).token(),
        Some("fs:ro=/")
    );
}

#[test]
fn hints_with_spaces_are_quoted() {
    let s = Scratch::new("quote");
    let spaced = s.dir("my dir");
    s.file("my dir/f.txt");
    let denial = denied(
        &CapSet::none(),
        &spaced.join("f.txt"),
        Access::Read,
        &spaced,
    );
    assert_eq!(denial.token(), Some(ro(&spaced).as_str()));
    assert_eq!(
        denial.message("fs.read"),
        format!(
            "vox: capability denied: fs.read \u{2014} grant with --caps 'fs:ro={}'",
            spaced.display()
        )
    );
}

#[test]
fn unscoped_allows_everything_and_still_resolves() {
    let s = Scratch::new("unscoped");
    let job = s.dir("job");
    let secret = s.file("outside/secret.txt");
    s.link("job/out", "../outside/secret.txt");
    for set in [
        CapSet::developer_default(),
        CapSet::from_legacy_directive(&["fs"]),
    ] {
        let read = allowed(&set, Path::new("out"), Access::Read, &job);
        assert_eq!(read.path(), secret);
        let write = allowed(&set, Path::new("out"), Access::Write, &job);
        assert_eq!(write.path(), secret);
        assert!(!write.no_follow());
        // A `..` after a missing part is left for the operation to fail on.
        let odd = allowed(&set, Path::new("new/../x"), Access::Write, &job);
        assert_eq!(odd.path(), job.join("new/../x"));
    }
    // A legacy directive without `fs` grants no filesystem at all.
    let legacy = CapSet::from_legacy_directive(&["net"]);
    denied(&legacy, &secret, Access::Read, &job);
}

#[test]
fn no_fs_grant_denies_everything() {
    let s = Scratch::new("nofs");
    let job = s.dir("job");
    for set in [
        CapSet::none(),
        caps(&job, &["deterministic", "secrets:allow", "agentos:allow"]),
    ] {
        denied(&set, Path::new("x"), Access::Read, &job);
        denied(&set, Path::new("x"), Access::Write, &job);
        denied(&set, Path::new("."), Access::List, &job);
    }
}

#[test]
fn nested_roots_combine() {
    let s = Scratch::new("nested");
    let top = s.dir("top");
    let inner = s.dir("top/inner");
    let set = caps(&s.path(""), &["fs:ro=top", "fs:rw=top/inner"]);
    allowed(&set, &inner.join("new.txt"), Access::Write, &top);
    let denial = denied(&set, &top.join("new.txt"), Access::Write, &top);
    assert_eq!(denial.token(), Some(rw(&top).as_str()));
    allowed(&set, &top.join("new.txt"), Access::Read, &top);
}

#[test]
fn into_path_returns_the_resolved_path() {
    let s = Scratch::new("into");
    let job = s.dir("job");
    let set = caps(&job, &["fs:ro=."]);
    let path: PathBuf = allowed(&set, Path::new("a/b"), Access::Read, &job).into_path();
    assert_eq!(path, job.join("a/b"));
}

#[test]
fn denies_inside_a_writable_root() {
    let s = Scratch::new("deny");
    let w = s.dir("w");
    let hooks = s.dir("w/.git/hooks");
    let env = s.file("w/.env");
    std::os::unix::fs::symlink(".env", w.join("env-link")).unwrap();
    std::fs::hard_link(&env, w.join("env-hard")).unwrap();
    let set = caps(&w, &["fs:rw=.", "fs:ro=.git", "fs:none=.env"]);
    allowed(&set, Path::new("out.txt"), Access::Write, &w);
    allowed(&set, Path::new(".git/hooks"), Access::List, &w);
    let d = denied(&set, Path::new(".git/hooks/pre-commit"), Access::Write, &w);
    assert_eq!(d.token(), Some(rw(&hooks).as_str()));
    // The hint is itself sufficient: the more specific grant wins.
    let wider = caps(&w, &["fs:rw=.", "fs:ro=.git", &rw(&hooks)]);
    allowed(
        &wider,
        Path::new(".git/hooks/pre-commit"),
        Access::Write,
        &w,
    );
    for p in [".env", "env-link", "env-hard", ".git/../.env"] {
        for access in [Access::Read, Access::Write] {
            let d = denied(&set, Path::new(p), access, &w);
            assert_eq!(d.token(), None, "{p}");
            assert_eq!(
                d.remedy(),
                format!("denied by --caps fs:none={}", env.display()),
                "{p}"
            );
            assert_eq!(
                d.resource(),
                Some(
                    if p == "env-hard" {
                        w.join("env-hard")
                    } else {
                        env.clone()
                    }
                    .as_path()
                )
            );
        }
    }
    // A name that merely starts like the denied one is not denied.
    allowed(&set, Path::new(".envrc"), Access::Write, &w);
    // Removing the tree that holds a deny is refused; a tree beside it is not.
    let d = vox_caps::check_remove_tree(&set, &w).unwrap_err();
    assert!(d.remedy().contains("holds --caps fs:"), "{}", d.remedy());
    vox_caps::check_remove_tree(&set, &s.dir("w/other")).unwrap();
}

#[test]
fn deny_tokens_resolve_symlinks_and_may_name_missing_paths() {
    let s = Scratch::new("denytok");
    let w = s.dir("w");
    let secret = s.file("w/real/secret.txt");
    std::os::unix::fs::symlink("real", w.join("link")).unwrap();
    assert_eq!(
        parse_token("fs:none=link/secret.txt", &w),
        Ok(Token::FsNone(secret.clone()))
    );
    assert_eq!(
        parse_token("exec:none=missing/tool", &w),
        Ok(Token::ExecNone(w.join("missing/tool")))
    );
    let set = caps(&w, &["fs:rw=.", "fs:none=missing/later.txt"]);
    denied(&set, Path::new("missing/later.txt"), Access::Write, &w);
    allowed(&set, Path::new("missing/other.txt"), Access::Write, &w);
    assert_eq!(
        set.tokens(),
        [
            format!("fs:none={}", w.join("missing/later.txt").display()),
            rw(&w)
        ]
    );
}
