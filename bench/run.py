#!/usr/bin/env python3
"""Interpreter benchmark: each program in `vox run` and the same algorithm in python3 (the first six programs
of bench/interp/, which bench/interp.py also runs against lua5.4).

Prints the time of each (best of N runs), the ratio vox/python per program, and the geometric
mean; then the same suite with no ceilings (--max-steps 0 --max-depth 0) against generous
ceilings (steps, depth and --max-memory armed), runs interleaved, to show what arming costs.
Steps and depth are always counted (the counters are the ceilings' mechanism), so this measures
the limit checks and the armed memory accounting, not a build without counters.
Usage: python3 bench/run.py [--runs N]   (builds target/release/vox first)
"""
import math, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGS = os.path.join(HERE, "interp")
VOX = os.path.join(ROOT, "target", "release", "vox")
PROGRAMS = ["fib", "loops", "strings", "sort", "maps", "closures"]
RUNS = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5


def best(cmd):
    times, out = [], None
    for _ in range(RUNS):
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr}")
        out = r.stdout
    return min(times), out


def best_pair(cmd_a, cmd_b):
    """Alternates the two commands so machine noise hits both alike; best time of each."""
    ta, tb = [], []
    for _ in range(RUNS):
        for cmd, acc in ((cmd_a, ta), (cmd_b, tb)):
            t = time.perf_counter()
            r = subprocess.run(cmd, capture_output=True, text=True)
            acc.append(time.perf_counter() - t)
            if r.returncode != 0:
                sys.exit(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr}")
    return min(ta), min(tb)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "vox-cli"], cwd=ROOT, check=True)
    unlimited = ["--max-steps", "0", "--max-depth", "0"]
    ceilings = ["--max-steps", "1000000000000", "--max-depth", "100000", "--max-memory", "4GiB"]
    print(f"{'program':10} {'vox s':>8} {'python s':>9} {'ratio':>6}")
    ratios, costs = [], []
    for name in PROGRAMS:
        vox_t, vox_out = best([VOX, "run", *unlimited, os.path.join(PROGS, name + ".vox")])
        py_t, py_out = best([sys.executable, os.path.join(PROGS, name + ".py")])
        if vox_out.split() != py_out.split():
            sys.exit(f"{name}: outputs differ: vox {vox_out!r} python {py_out!r}")
        free_t, lim_t = best_pair(
            [VOX, "run", *unlimited, os.path.join(PROGS, name + ".vox")],
            [VOX, "run", *ceilings, os.path.join(PROGS, name + ".vox")],
        )
        ratios.append(vox_t / py_t)
        costs.append(lim_t / free_t)
        print(f"{name:10} {vox_t:8.3f} {py_t:9.3f} {vox_t / py_t:6.2f}")
    print(f"geometric mean vox/python: {geomean(ratios):.2f} (below 1 means faster than CPython)")
    print("accounting cost (ceilings armed / unlimited): " + ", ".join(f"{n} {c:.2f}" for n, c in zip(PROGRAMS, costs)))
    print(f"geometric mean accounting cost: {(geomean(costs) - 1) * 100:+.1f}%")


if __name__ == "__main__":
    main()
