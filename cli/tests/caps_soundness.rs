//! Capability inference is sound at the edges (trust issue, acceptance 6): generated scripts over
//! a generated file tree with symlinks, `..` after a symlink, backslashes in names (a file-name
//! character on Linux), NFD names, absolute paths read from the environment and directories the
//! script creates. Each runs with exactly what `vox caps` infers; it may be denied (exit 77) only
//! where `vox caps` said `incomplete`, and otherwise must succeed.

mod common;

use std::path::Path;
use std::process::Command;

use common::scratch;

/// A small deterministic generator (xorshift), so a failure names a reproducible seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The tree every case runs in: `data/real/x.txt`, `other/y.txt`, `other/sub/z.txt`, the
/// symlink `data/link -> ../other/sub` (so `data/link/..` is `other`, not `data`), a directory
/// with an NFD name beside its NFC twin, a file named `sub\b.txt` beside a directory `sub`, a
/// file outside the working directory, and the symlinked files `conf/app.json -> ../other/y.txt`
/// and `bundle/hostname -> <outside>/o.txt`.
fn tree(dir: &Path, outside: &Path) {
    std::fs::create_dir_all(dir.join("data/real")).unwrap();
    std::fs::create_dir_all(dir.join("other/sub")).unwrap();
    std::fs::write(dir.join("data/real/x.txt"), "x\n").unwrap();
    std::fs::write(dir.join("other/y.txt"), "y\n").unwrap();
    std::fs::write(dir.join("other/sub/z.txt"), "z\n").unwrap();
    std::os::unix::fs::symlink("../other/sub", dir.join("data/link")).unwrap();
    std::fs::create_dir_all(dir.join("cafe\u{301}")).unwrap();
    std::fs::create_dir_all(dir.join("caf\u{e9}")).unwrap();
    std::fs::write(dir.join("cafe\u{301}/n.txt"), "nfd\n").unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub\\b.txt"), "backslash\n").unwrap();
    std::fs::create_dir_all(outside).unwrap();
    std::fs::write(outside.join("o.txt"), "outside\n").unwrap();
    // Symlinked files (issue 36): one pointing out of its directory, one to an absolute path
    // outside the working directory. The run checks the target.
    std::fs::create_dir_all(dir.join("conf")).unwrap();
    std::os::unix::fs::symlink("../other/y.txt", dir.join("conf/app.json")).unwrap();
    std::fs::create_dir_all(dir.join("bundle")).unwrap();
    std::os::unix::fs::symlink(outside.join("o.txt"), dir.join("bundle/hostname")).unwrap();
}

/// The statements a script may be made of (VoxScript source).
const OPS: &[&str] = &[
    "print(fs.read(\"data/real/x.txt\").unwrap())",
    // `..` after a symlink: the kernel goes to the parent of `real/sub`, not to `data`.
    "print(fs.read(\"data/link/../y.txt\").unwrap())",
    "print(fs.read(\"data/./real//x.txt\").unwrap())",
    "print(fs.read(\"data/link/z.txt\").unwrap())",
    // Names whose bytes NFC or separator rewriting would change.
    "print(fs.read(\"cafe\u{301}/n.txt\").unwrap())",
    "print(fs.read(\"sub\\\\b.txt\").unwrap())",
    "print(sorted(fs.list_dir(\"data/link/..\").unwrap()))",
    // An absolute path from the environment, outside the working directory.
    "print(fs.read(env.get(\"OUTSIDE_FILE\").unwrap()).unwrap())",
    // A directory the script creates, then writes into.
    "fs.mkdir(\"made\").unwrap()\nfs.write(\"made/f.txt\", \"w\").unwrap()\nprint(fs.read(\"made/f.txt\").unwrap())",
    "fs.write(\"data/link/../w.txt\", \"w\").unwrap()",
    "print(fs.read(\"conf/app.json\").unwrap())",
    "print(fs.read(\"bundle/hostname\").unwrap())",
    "fs.write(\"conf/app.json\", \"w\").unwrap()",
    // A child's constant working directory: the jailed child reads there.
    "print(process.run_capture_ex(\"cat\", [\"x.txt\"], \"data/real\", {}).unwrap().stdout.trim())",
    // A constant default outside the working directory (the variable is not set): granted.
    "print(fs.read(path.join(env.get(\"CONF_DIR\").unwrap_or(\"@OUTSIDE@\"), \"o.txt\")).unwrap())",
    "for n in [\"o.txt\"] {\n    print(fs.read(env.get(\"CONF_DIR\").unwrap_or(\"@OUTSIDE@\") + \"/\" + n).unwrap())\n}",
];

fn vox(dir: &Path, args: &[String], env: &[(&str, String)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vox"));
    cmd.args(args).current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn inferred_caps_are_enough_unless_vox_caps_says_incomplete() {
    let mut failures = Vec::new();
    let (mut ran, mut incomplete_seen) = (0, 0);
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let n = 1 + rng.below(3);
        let mut ops: Vec<&str> = (0..n).map(|_| OPS[rng.below(OPS.len())]).collect();
        ops.dedup();
        // Creating the same directory twice fails for reasons that have nothing to do with caps.
        if ops.iter().filter(|o| o.contains("fs.mkdir")).count() > 1 {
            ops.retain(|o| !o.contains("fs.mkdir"));
        }
        let dir = scratch();
        let outside = dir.with_extension("outside");
        let script = (ops.join("\n") + "\n").replace("@OUTSIDE@", &outside.to_string_lossy());
        tree(&dir, &outside);
        std::fs::write(dir.join("job.vox"), &script).unwrap();
        let env = [
            (
                "OUTSIDE_FILE",
                outside.join("o.txt").to_string_lossy().into_owned(),
            ),
            ("PATH", "/usr/bin:/bin".to_string()),
        ];
        let (code, tokens, notes) = vox(
            &dir,
            &[
                "caps".into(),
                "--format".into(),
                "tokens".into(),
                "job.vox".into(),
            ],
            &env,
        );
        if code != 0 {
            failures.push(format!(
                "seed {seed}: vox caps exits {code}: {notes}\n{script}"
            ));
            continue;
        }
        let incomplete = notes.contains("incomplete:");
        incomplete_seen += usize::from(incomplete);
        let mut args: Vec<String> = vec!["run".into()];
        for t in tokens.lines().filter(|t| !t.is_empty()) {
            args.push("--caps".into());
            args.push(t.to_string());
        }
        args.push("job.vox".into());
        let (code, out, err) = vox(&dir, &args, &env);
        ran += 1;
        if code == 77 && !incomplete {
            failures.push(format!(
                "seed {seed}: denied with exactly the inferred set {tokens:?}, and vox caps did not say incomplete\n--- script\n{script}--- stderr\n{err}--- vox caps notes\n{notes}"
            ));
        } else if code != 0 && code != 77 {
            failures.push(format!(
                "seed {seed}: exit {code}\n--- script\n{script}--- stdout\n{out}--- stderr\n{err}"
            ));
        }
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        ran >= 40 && incomplete_seen > 0,
        "ran {ran}, incomplete {incomplete_seen}"
    );
}

/// Links that resolve per process (`/proc/self`, `/dev/fd`) are not followed: the inferring
/// process's pid must not end up in a token (the run would read its own `/proc/<pid>`).
#[test]
fn per_process_links_are_not_resolved() {
    let dir = scratch();
    std::fs::write(
        dir.join("job.vox"),
        "print(fs.read(\"/proc/self/status\").unwrap().len() > 0)\n",
    )
    .unwrap();
    let (code, tokens, err) = vox(&dir, &["caps".into(), "job.vox".into()], &[]);
    assert_eq!((code, tokens.trim()), (0, "fs:ro=/proc/self"), "{err}");
    let (code, out, err) = vox(
        &dir,
        &[
            "run".into(),
            "--caps".into(),
            "fs:ro=/proc/self".into(),
            "job.vox".into(),
        ],
        &[],
    );
    assert_eq!((code, out.as_str()), (0, "true\n"), "{err}");
}

/// Issue 36 item 8: a child's constant working directory is where the jailed child reads, so it
/// gets a read root (before, the inferred set had none and the child could not read its own
/// working directory).
#[test]
fn a_childs_constant_working_directory_gets_a_read_root() {
    let dir = scratch();
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("assets/a.txt"), "hello\n").unwrap();
    std::fs::write(
        dir.join("job.vox"),
        "let r = process.run_capture_ex(\"cat\", [\"a.txt\"], \"assets\", {})\nprint(r.unwrap().stdout.trim())\n",
    )
    .unwrap();
    let (code, tokens, err) = vox(&dir, &["caps".into(), "job.vox".into()], &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        tokens.lines().collect::<Vec<_>>(),
        ["fs:ro=assets", "process:allow"]
    );
    let mut args: Vec<String> = vec!["run".into()];
    for t in tokens.lines() {
        args.push("--caps".into());
        args.push(t.into());
    }
    args.push("job.vox".into());
    let env = [("PATH", "/usr/bin:/bin".to_string())];
    let (code, out, err) = vox(&dir, &args, &env);
    assert_eq!((code, out.as_str()), (0, "hello\n"), "{err}");
}

/// Issue 36 item 2: a path whose possible values include a constant default outside the working
/// directory (`env.get("X").unwrap_or("/etc")` joined with a name) is not widened to `.`: the
/// default's directory is granted (and `vox caps` still says incomplete, for the other values),
/// so the run without the variable works with exactly the inferred set. Before, the grant was
/// `.` and the run exited 77.
#[test]
fn a_constant_default_outside_the_working_directory_is_granted() {
    let dir = scratch();
    let outside = dir.with_extension("defaults");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("app.conf"), "port=8080\n").unwrap();
    let o = outside.to_string_lossy();
    for (script, grant) in [
        (
            format!("let dir = env.get(\"CONF_DIR\").unwrap_or(\"{o}\")\nprint(fs.read(path.join(dir, \"app.conf\")).unwrap().trim())\n"),
            format!("fs:ro={o}"),
        ),
        (
            format!("for name in [\"app.conf\"] {{\n    print(fs.read(env.get(\"CONF_DIR\").unwrap_or(\"{o}\") + \"/\" + name).unwrap().trim())\n}}\n"),
            format!("fs:ro={o}"),
        ),
    ] {
        std::fs::write(dir.join("job.vox"), &script).unwrap();
        let (code, tokens, notes) = vox(&dir, &["caps".into(), "job.vox".into()], &[]);
        assert_eq!(code, 0, "{notes}");
        assert_eq!(
            tokens.lines().collect::<Vec<_>>(),
            ["env:ro", grant.as_str()],
            "{script}\n{notes}"
        );
        assert!(notes.contains("incomplete:"), "{notes}");
        let mut args: Vec<String> = vec!["run".into()];
        for t in tokens.lines() {
            args.push("--caps".into());
            args.push(t.into());
        }
        args.push("job.vox".into());
        let (code, out, err) = vox(&dir, &args, &[]);
        assert_eq!((code, out.as_str()), (0, "port=8080\n"), "{script}\n{err}");
    }
    let _ = std::fs::remove_dir_all(&outside);
}

/// Issue 36 item 8: `"data/x.txt" |> fs.read` (the pipe calls the builtin with its left side)
/// gets the same narrow grant as `fs.read("data/x.txt")`; a function with no other path call
/// skipped the pipe and widened the grant to `.`.
#[test]
fn a_piped_constant_path_gets_the_narrow_grant() {
    let dir = scratch();
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(dir.join("data/x.txt"), "piped\n").unwrap();
    std::fs::write(
        dir.join("job.vox"),
        "let t = \"data/x.txt\" |> fs.read\nprint(t.unwrap().trim())\n",
    )
    .unwrap();
    let (code, tokens, notes) = vox(&dir, &["caps".into(), "job.vox".into()], &[]);
    assert_eq!(code, 0, "{notes}");
    assert_eq!(
        tokens.lines().collect::<Vec<_>>(),
        ["fs:ro=data"],
        "{notes}"
    );
    assert!(!notes.contains("widened"), "{notes}");
    let args: Vec<String> = ["run", "--caps", "fs:ro=data", "job.vox"]
        .map(String::from)
        .to_vec();
    let (code, out, err) = vox(&dir, &args, &[]);
    assert_eq!((code, out.as_str()), (0, "piped\n"), "{err}");
}
