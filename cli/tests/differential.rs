//! Differential test of the compiled tier (issue 42): random programs (`differential/gen.rs`) run
//! under the compiled tier and under the tree-walker (`VOX_TIER=tree`), and their stdout, stderr
//! and exit codes must be equal. Three in ten runs get a small `--max-steps` (the ceiling must stop
//! both at the same step, after the same output), the others 1,000,000; one in ten `--perturb`.
//!
//! `VOX_DIFF_COUNT` (default 2,000) and `VOX_DIFF_SEED` (default 1) choose the programs; the long
//! run outside the suite is `VOX_DIFF_COUNT=100000 cargo test --release -p vox-cli --test
//! differential`.

mod common;
#[path = "differential/gen.rs"]
mod gen;

use std::path::Path;
use std::process::Command;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn run(dir: &Path, flags: &[String], tree: bool) -> (i32, String, String) {
    let mut cmd = Command::new(common::vox_bin());
    // A tier that is merely slower (the tree-walker once copied a list per `xs[i] = x` after a
    // push) ends at the timeout instead of hanging the suite, and shows as a difference.
    cmd.args(["run", "--timeout", "60"])
        .args(flags)
        .arg("p.vox")
        .current_dir(dir);
    if tree {
        cmd.env("VOX_TIER", "tree");
    } else {
        cmd.env_remove("VOX_TIER");
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Flags for program `seed`: mostly a ceiling of 1,000,000 steps, sometimes a small one, sometimes
/// with a perturbation seed. (Under the default 10,000,000 a program that pushes onto the list its
/// `for` iterates copies the list at each push in both tiers: 95 s each, past the timeout.)
fn flags_for(seed: u64) -> Vec<String> {
    let mut rng = gen::Rng::new(seed ^ 0xF1A6);
    let steps = match rng.below(10) {
        0..=2 => 1 + rng.below(3000),
        _ => 1_000_000,
    };
    let mut flags = vec!["--max-steps".to_string(), steps.to_string()];
    if rng.below(10) == 3 {
        flags.extend(["--perturb".to_string(), rng.below(1000).to_string()]);
    }
    flags
}

#[test]
fn compiled_tier_matches_the_tree_walker() {
    let count = env_u64("VOX_DIFF_COUNT", 2000);
    let first = env_u64("VOX_DIFF_SEED", 1);
    let root = common::scratch_in("vox-diff");
    let workers = 2u64;
    let results: Vec<(Vec<String>, [u64; 4])> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let dir = root.join(format!("w{w}"));
                std::fs::create_dir_all(&dir).unwrap();
                s.spawn(move || {
                    let mut diffs = Vec::new();
                    // Exit 0, 1 (runtime error), 78 (ceiling), anything else.
                    let mut kinds = [0u64; 4];
                    let mut i = w;
                    while i < count {
                        let seed = first + i;
                        i += workers;
                        let src = gen::program(seed);
                        std::fs::write(dir.join("p.vox"), &src).unwrap();
                        let flags = flags_for(seed);
                        let tree = run(&dir, &flags, true);
                        let vm = run(&dir, &flags, false);
                        kinds[match tree.0 {
                            0 => 0,
                            1 => 1,
                            78 => 2,
                            _ => 3,
                        }] += 1;
                        if tree != vm && diffs.len() < 5 {
                            diffs.push(format!(
                                "seed {seed} flags {flags:?}\n--- program\n{src}--- tree-walker\n{tree:?}\n--- compiled\n{vm:?}\n"
                            ));
                        }
                    }
                    (diffs, kinds)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut kinds = [0u64; 4];
    let mut diffs = Vec::new();
    for (d, k) in results {
        diffs.extend(d);
        for (a, b) in kinds.iter_mut().zip(k) {
            *a += b;
        }
    }
    eprintln!(
        "{count} programs from seed {first}: exit 0: {}, runtime error: {}, ceiling: {}, other: {}",
        kinds[0], kinds[1], kinds[2], kinds[3]
    );
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    // The generator must make programs that run (not syntax errors) and that fail in both ways.
    assert_eq!(
        kinds[3], 0,
        "programs that neither ran nor failed at run time"
    );
    assert!(
        kinds[0] * 3 >= count,
        "too few programs ran to the end: {kinds:?}"
    );
    assert!(kinds[1] > 0 && kinds[2] > 0, "{kinds:?}");
}

/// Programs written by hand for what the generator does not make, each run under both tiers.
const HAND_WRITTEN: &[&str] = &[
    // A map's value may be null: the loop goes on past it (the tier once ended there).
    "let m = {\"a\": null, \"b\": 1}\nfor k, v in m { print(k, v) }\nfor k in m { print(k) }\n",
    "for x, i in [null, 1, null] { print(i, x) }\n",
    "for c, i in \"h\u{e9}llo\u{2192}\" { print(i, c) }\n",
    // Left by `break`, a loop lets its list go before the next push.
    "let mut xs = [1, 2]\nfor r in range(0, 3) {\n    for x in xs { break }\n    xs.push(r)\n}\nprint(xs)\n",
    // `for` over `range(…)` counts without the list (the tier): bounds, indexes, an empty range, a
    // shadowed `range`, and the loop variable's type.
    "for i, k in range(-2, 3) { if i == 0 { continue }\n print(i, k, type_of(i)) }\nfor i in range(4) { if i == 2 { break }\n print(i) }\nfor i in range(3, 1) { print(\"never\") }\nfor i in range(9223372036854775806, 9223372036854775807) { print(i) }\nlet r = range(2)\nfor i in r { print(i) }\n",
    "fn range(a, b) { [b, a] }\nfor i in range(1, 2) { print(i) }\n",
    // The tier's quick ways (`len`/`ord` methods, `len`/`type_of` builtins, `xs[i].unwrap()` of
    // a list) on every kind they answer for, and on those that take the general way: a map's own
    // `len` before a function field of that name, bytes for a str's `len`, options' `len`.
    "let xs = [1, [2, 3]]\nlet m = {\"a\": 1, \"len\": fn() { 42 }}\nlet t = (1, \"b\")\nprint(xs.len(), \"h\u{e9}llo\".len(), m.len(), \"\u{e9}t\u{e9}\".ord(), \"A\".ord())\nprint(len(xs), len(t), len(\"h\u{e9}\"), len(m), len(Some(Some([1, 2]))), len(None), len(Err(1)))\nprint(type_of(1), type_of(t), type_of(m), type_of(None), type_of(\"s\"), type_of(xs), type_of(print))\nlet cs = \"a\u{e9}c\".chars()\nprint(cs[0].unwrap(), cs[1].unwrap(), xs[1].unwrap()[0].unwrap(), t[1].unwrap(), \"xyz\"[2].unwrap(), m[\"a\"].unwrap())\nlet mut n = 0\nfor i in range(0, cs.len()) { n += cs[i].unwrap().ord() + len(cs[i].unwrap()) }\nprint(n)\n",
];

/// Programs that fail at run time, written by hand for the tier's quick ways: each must fail the
/// same way under both tiers (message, location, exit code).
const HAND_WRITTEN_FAILING: &[&str] = &[
    "fn main() {\n    let e = \"\"\n    print(e.ord())\n}\n",
    "fn main() {\n    let t = (1, 2)\n    print(t.len())\n}\n",
    "fn main() {\n    print(math.len())\n}\n",
    "fn main() {\n    let x = 5\n    print(x.len())\n}\n",
    "fn main() {\n    print(len(5))\n}\n",
    "fn main() {\n    let xs = [1]\n    print(xs[5].unwrap())\n}\n",
    "fn main() {\n    let xs = [1]\n    print(xs[-1].unwrap())\n}\n",
    "fn main() {\n    let xs = [1]\n    print(xs[\"a\"].unwrap())\n}\n",
    "fn main() {\n    let n = 3\n    print(n[0].unwrap())\n}\n",
];

/// Runs each of `programs` under both tiers: each must exit with `code` under the tree-walker, and
/// the compiled tier must give the same exit code, stdout and stderr.
fn both_tiers_agree(scratch: &str, programs: &[&str], code: i32) {
    let dir = common::scratch_in(scratch);
    for src in programs {
        std::fs::write(dir.join("p.vox"), src).unwrap();
        let tree = run(&dir, &[], true);
        let vm = run(&dir, &[], false);
        assert_eq!(tree.0, code, "{src}\n{tree:?}");
        assert_eq!(tree, vm, "{src}");
    }
}

#[test]
fn hand_written_failures_match() {
    both_tiers_agree("vox-diff-hand-failing", HAND_WRITTEN_FAILING, 1);
}

#[test]
fn hand_written_programs_match() {
    both_tiers_agree("vox-diff-hand", HAND_WRITTEN, 0);
}
