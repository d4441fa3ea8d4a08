#!/usr/bin/env python3
"""Write-back benchmark (voxscript.md §4.3): the assignment form `xs = xs.push(i)` against the W1
statement form `xs.push(i)`, for a list, a map and a list held in a map field, 1,000,000
iterations each. The assignment form hands the receiver to the method by move when nothing else
holds it, so both forms are amortised O(1) per iteration; the ratio should stay below 2.

Prints, per case, the best time of N runs of each form and the ratio. No assertion: a figure.
Usage: python3 bench/writeback.py [--runs N] [--n ITERATIONS]   (builds the release vox first;
honours CARGO_TARGET_DIR)
"""
import os, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
VOX = os.path.join(TARGET, "release", "vox")
RUNS = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 3
N = int(sys.argv[sys.argv.index("--n") + 1]) if "--n" in sys.argv else 1_000_000

# (case, assignment form, statement form): each body runs N times with `i` bound; the final print
# checks that both forms built the same value.
CASES = [
    (
        "list push",
        "let mut xs = []\nfor i in range(0, N) {\n    xs = xs.push(i)\n}\nprint(xs.len())\n",
        "let mut xs = []\nfor i in range(0, N) {\n    xs.push(i)\n}\nprint(xs.len())\n",
    ),
    (
        "map insert",
        "let mut m = {}\nfor i in range(0, N) {\n    m = m.insert(str(i), i)\n}\nprint(m.len())\n",
        "let mut m = {}\nfor i in range(0, N) {\n    m.insert(str(i), i)\n}\nprint(m.len())\n",
    ),
    (
        "field push",
        "let mut o = {items: []}\nfor i in range(0, N) {\n    o.items = o.items.push(i)\n}\nprint(o.items.len())\n",
        # `o.items.push(i)` as a statement does nothing (§4.3), so the statement form is the
        # local-variable one.
        "let mut items = []\nfor i in range(0, N) {\n    items.push(i)\n}\nprint(items.len())\n",
    ),
]


def best(path):
    times, out = [], None
    for _ in range(RUNS):
        t = time.perf_counter()
        r = subprocess.run([VOX, "run", "--max-steps", "0", path], capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            sys.exit(f"{path} failed ({r.returncode}): {r.stderr}")
        out = r.stdout
    return min(times), out


def main():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "vox-cli"], cwd=ROOT, check=True)
    print(f"{N} iterations, best of {RUNS}")
    print(f"{'case':12} {'assign s':>9} {'stmt s':>8} {'ratio':>6}")
    worst = 0.0
    with tempfile.TemporaryDirectory() as d:
        for name, assign, stmt in CASES:
            pa, ps = os.path.join(d, "assign.vox"), os.path.join(d, "stmt.vox")
            with open(pa, "w") as f:
                f.write(assign.replace("N", str(N)))
            with open(ps, "w") as f:
                f.write(stmt.replace("N", str(N)))
            ta, oa = best(pa)
            ts, os_ = best(ps)
            if oa != os_:
                sys.exit(f"{name}: outputs differ: {oa!r} vs {os_!r}")
            worst = max(worst, ta / ts)
            print(f"{name:12} {ta:9.3f} {ts:8.3f} {ta / ts:6.2f}")
    print(f"worst ratio: {worst:.2f} (the target is below 2)")


if __name__ == "__main__":
    main()
