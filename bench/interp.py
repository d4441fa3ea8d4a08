#!/usr/bin/env python3
"""Interpreter benchmark against python3 and Lua 5.4 (issue 42). A benchmark, not a test: it prints figures and
marks the targets met / NOT met; it never fails on a timing.

Each program of bench/interp/ exists three times, the same algorithm step for step: NAME.vox (`vox run
--max-steps 0`: each program takes tens of millions of steps, over the default ceiling of 10,000,000; the other
ceilings keep their defaults), NAME.py (python3) and NAME.lua (lua5.4). Their outputs must be byte for byte equal
(checked on every run). The three are run in turn, --runs times each (interleaved, so that the machine's drift hits
all three alike); the best time of each is kept, with each one's peak RSS. Times and peaks are measured by
bench/launch.c (built with cc on first use), which forks the program itself: see build_launcher for why.
Start-up: hello.{vox,py,lua}, 30 runs each (interleaved), the median; vox is run from a copy in a temporary
directory, as `cargo install` and pip leave it. The file the linker has just written sits in the page cache in
small pieces, and mapping it took a hello world 9 more page faults and about 0.1 ms more (7%) than the same
bytes copied or read back after the cache was dropped: an artifact of the build, gone once the file is reread.

Prints per program: seconds for each language, vox/lua and vox/python ratios, peak RSS and vox/python's; then the
geometric means. Targets (issue 42): geometric mean vox/lua <= 1.5; every program faster under vox than under
python3; start-up within 1.2x lua's; each program's peak memory within 1.5x python3's.

Usage: python3 bench/interp.py [--vox PATH] [--runs N] [--only NAME,NAME]
The binary is target/release/vox (built when missing) unless --vox is given.
"""
import argparse, math, os, platform, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DIR = os.path.join(HERE, "interp")
PROGRAMS = ["fib", "loops", "strings", "sort", "maps", "closures", "json", "csv", "regex", "format", "tree"]


def build_launcher():
    """bench/launch.c compiled with cc into target/: it forks each program itself and reports the wall time and
    the child's peak RSS. Measured from this Python driver, a child's ru_maxrss counts the driver's own 14 MiB (the
    kernel keeps the forking process's high-water mark across exec), which hid every program's real peak."""
    src = os.path.join(HERE, "launch.c")
    exe = os.path.join(ROOT, "target", "bench-launch")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", exe, src], check=True)
    return exe


LAUNCHER = None


def run_measured(cmd):
    """(seconds, the child's peak RSS in MiB, stdout), both measured by the launcher; exits on failure."""
    with tempfile.NamedTemporaryFile(mode="r") as fig, tempfile.TemporaryFile() as errf:
        p = subprocess.run([LAUNCHER, fig.name] + cmd, stdout=subprocess.PIPE, stderr=errf)
        if p.returncode != 0:
            errf.seek(0)
            sys.exit(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{errf.read().decode(errors='replace')}")
        elapsed, rss_kib = fig.read().split()
    return float(elapsed), int(rss_kib) / 1024.0, p.stdout


def commands(vox, name):
    return {
        "vox": [vox, "run", "--max-steps", "0", os.path.join(DIR, name + ".vox")],
        "python3": [sys.executable, os.path.join(DIR, name + ".py")],
        "lua5.4": ["lua5.4", os.path.join(DIR, name + ".lua")],
    }


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def machine():
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def version(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return (r.stdout or r.stderr).strip().splitlines()[0] if r.returncode == 0 else "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vox")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only")
    args = ap.parse_args()
    vox = args.vox or os.path.join(ROOT, "target", "release", "vox")
    if not args.vox and not os.path.exists(vox):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "vox-cli"], cwd=ROOT, check=True)
    names = args.only.split(",") if args.only else PROGRAMS
    global LAUNCHER
    LAUNCHER = build_launcher()
    print(f"interpreter benchmark: vox ({vox}), {version([sys.executable, '--version'])}, "
          f"{version(['lua5.4', '-v'])}; best of {args.runs} runs, interleaved")
    print(f"machine: {machine()}")
    print()
    print(f"{'program':10} {'vox s':>7} {'py s':>7} {'lua s':>7} {'vox/lua':>8} {'vox/py':>7}"
          f" {'vox MiB':>8} {'py MiB':>7} {'lua MiB':>8} {'mem/py':>7}")
    to_lua, to_py, mem_py = [], [], []
    slower_than_py, over_memory = [], []
    for name in names:
        cmds = commands(vox, name)
        best = {k: math.inf for k in cmds}
        peak = {k: 0.0 for k in cmds}
        outs = {}
        for _ in range(args.runs):
            for lang, cmd in cmds.items():
                t, rss, out = run_measured(cmd)
                best[lang] = min(best[lang], t)
                peak[lang] = max(peak[lang], rss)
                outs[lang] = out
        if len(set(outs.values())) != 1:
            shown = "\n".join(f"--- {k}:\n{v.decode(errors='replace')}" for k, v in outs.items())
            sys.exit(f"{name}: the three outputs differ\n{shown}")
        rl, rp = best["vox"] / best["lua5.4"], best["vox"] / best["python3"]
        rm = peak["vox"] / peak["python3"]
        to_lua.append(rl)
        to_py.append(rp)
        mem_py.append(rm)
        if rp >= 1.0:
            slower_than_py.append(name)
        if rm > 1.5:
            over_memory.append(name)
        print(f"{name:10} {best['vox']:7.3f} {best['python3']:7.3f} {best['lua5.4']:7.3f} {rl:7.2f}x {rp:6.2f}x"
              f" {peak['vox']:8.1f} {peak['python3']:7.1f} {peak['lua5.4']:8.1f} {rm:6.2f}x")
    g_lua, g_py = geomean(to_lua), geomean(to_py)
    print(f"{'geomean':10} {'':7} {'':7} {'':7} {g_lua:7.2f}x {g_py:6.2f}x {'':8} {'':7} {'':8} {geomean(mem_py):6.2f}x")

    # Start-up: hello world, median of 30 interleaved runs, vox from a copy (see the module's documentation).
    with tempfile.TemporaryDirectory() as tmp:
        installed = os.path.join(tmp, "vox")
        shutil.copy2(vox, installed)
        cmds = commands(installed, "hello")
        times = {k: [] for k in cmds}
        for _ in range(30):
            for lang, cmd in cmds.items():
                times[lang].append(run_measured(cmd)[0])
    med = {k: sorted(v)[len(v) // 2] * 1e3 for k, v in times.items()}
    startup = med["vox"] / med["lua5.4"]
    print()
    print(f"start-up (hello world, median of 30): vox {med['vox']:.2f} ms, python3 {med['python3']:.2f} ms, "
          f"lua5.4 {med['lua5.4']:.2f} ms; vox/lua {startup:.2f}x")
    print()

    def verdict(ok):
        return "met" if ok else "NOT met"

    print(f"targets: geomean vox/lua <= 1.5: {verdict(g_lua <= 1.5)} ({g_lua:.2f}x); "
          f"every program faster than python3: {verdict(not slower_than_py)}"
          + (f" (slower: {', '.join(slower_than_py)})" if slower_than_py else "")
          + f"; start-up <= 1.2x lua: {verdict(startup <= 1.2)} ({startup:.2f}x); "
          f"peak memory <= 1.5x python3: {verdict(not over_memory)}"
          + (f" (over: {', '.join(over_memory)})" if over_memory else ""))


if __name__ == "__main__":
    main()
