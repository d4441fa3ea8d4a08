#!/usr/bin/env python3
"""Spawn-cost benchmark (issue 10, decision 48): what 100 `process.run("true", [])` calls cost
in this tree against a build of an earlier commit (by default 22f3392, the commit before the
run-lifetime work: no subreaper, no pidfd wait, no reaping).

Each configuration runs a script that times its own loop of 100 spawns with time.monotonic_ms()
(so interpreter start-up and the end of the run are left out), in both binaries, alternately,
RUNS times; the table shows the best and the median milliseconds per 100 calls and the ratios
new/base of the medians and of the bests. The whole process's wall time (best) is shown too. On
a shared machine the medians move with the load; compare the two binaries within one table.

Configurations: the developer default (children unconfined), receiver-imposed capabilities
(every child jailed), and --mesh (jailed, and each child's leftovers are killed when it ends).

Usage: python3 bench/spawn.py [--runs N] [--base REV | --base-bin PATH]
  Builds both in release mode: this tree into $CARGO_TARGET_DIR (default target/), the base
  revision from `git archive REV` into /tmp/vox-base-REV with target dir $CARGO_TARGET_DIR-base
  (or target-base/). The first build of the base takes as long as a fresh release build.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


RUNS = int(arg("--runs", "30"))
BASE_REV = arg("--base", "22f3392")
BASE_BIN = arg("--base-bin", None)
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

SCRIPT = """let t0 = time.monotonic_ms()
for i in range(100) {
    process.run("true", [])
}
print(time.monotonic_ms() - t0)
"""

CONFIGS = [
    ("developer default", []),
    ("jailed (--caps)", ["--caps", "process:allow", "--caps", "time:real"]),
    ("--mesh", ["--mesh", "--caps", "process:allow", "--caps", "time:real"]),
]


def build(src, target):
    env = dict(os.environ, CARGO_TARGET_DIR=target, CARGO_INCREMENTAL="0")
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "vox-cli"], cwd=src, env=env,
                   check=True)
    return os.path.join(target, "release", "vox")


def base_binary():
    if BASE_BIN:
        return BASE_BIN
    src = os.path.join(tempfile.gettempdir(), f"vox-base-{BASE_REV}")
    if not os.path.exists(os.path.join(src, "Cargo.toml")):
        os.makedirs(src, exist_ok=True)
        archive = subprocess.run(["git", "-C", ROOT, "archive", BASE_REV], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", src], input=archive, check=True)
    return build(src, TARGET.rstrip("/") + "-base")


def once(vox, flags, cwd):
    t = time.perf_counter()
    r = subprocess.run([vox, "run", *flags, "spawn.vox"], cwd=cwd, capture_output=True,
                       text=True, env=dict(os.environ, PATH=SAFE_PATH))
    wall = (time.perf_counter() - t) * 1000
    if r.returncode != 0:
        sys.exit(f"{vox} run {' '.join(flags)} failed ({r.returncode}): {r.stderr}")
    return int(r.stdout.strip()), wall


def main():
    new = build(ROOT, TARGET)
    base = base_binary()
    with tempfile.TemporaryDirectory() as cwd:
        with open(os.path.join(cwd, "spawn.vox"), "w") as f:
            f.write(SCRIPT)
        print(f"100 x process.run(\"true\", []), ms per 100 calls, {RUNS} runs each, alternating")
        print(f"base: {base}\nnew:  {new}\n")
        print(f"{'configuration':20} {'base best':>9} {'base med':>9} {'new best':>9} "
              f"{'new med':>9} {'med n/b':>8} {'best n/b':>8}   {'wall base':>9} {'wall new':>9}")
        for name, flags in CONFIGS:
            results = {base: [], new: []}
            walls = {base: [], new: []}
            once(base, flags, cwd)  # warm-up (page cache, mount template)
            once(new, flags, cwd)
            for _ in range(RUNS):
                for vox in (base, new):
                    loop_ms, wall_ms = once(vox, flags, cwd)
                    results[vox].append(loop_ms)
                    walls[vox].append(wall_ms)
            bm, nm = statistics.median(results[base]), statistics.median(results[new])
            bb, nb = min(results[base]), min(results[new])
            print(f"{name:20} {bb:9.0f} {bm:9.1f} {nb:9.0f} {nm:9.1f} {nm / bm:8.3f} "
                  f"{nb / bb:8.3f}   {min(walls[base]):9.0f} {min(walls[new]):9.0f}")
    print("\nThe issue's bound: new/base at most 1.20.")


if __name__ == "__main__":
    main()
