#!/usr/bin/env python3
"""Language server memory benchmark (issue 8, acceptance 4; decision 49). A benchmark, not a test: it prints
the peak RSS and marks the target met / NOT met.

Generates a workspace of --files scripts (default 1,000) of about 1,000 lines each (about 1,000,000 lines),
joined by imports in chains of ten, with run configurations in Vox.toml for a tenth of them. Starts `vox lsp`
with a pull client (Neovim 0.11's capabilities), which loads every script into the analysis database; then
opens each script, pulls its diagnostics and closes it, as an editor session that visits every file would.
Prints the peak RSS (VmHWM) after loading and at the end. Target: at most 300 MB.

Usage: python3 bench/lsp_memory.py [--vox PATH] [--files N] [--keep DIR]
"""
import argparse, json, os, shutil, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_common import Client, find_vox, uri, ROOT  # noqa: E402

UNIT = """fn step_{n}(xs: list[int], name: str) to int {{
    let mut acc = 0
    for x in xs {{
        if x > {k} {{
            acc = acc + x
        }} else {{
            acc = acc - 1
        }}
    }}
    let label = name + "-{n}"
    print(label, acc)
    return acc
}}
"""


def generate(ws, files):
    os.makedirs(os.path.join(ws, "data"), exist_ok=True)
    toml = []
    for i in range(files):
        parts = []
        if i % 10 != 0:
            parts.append('import "./s%04d.vox" as prev\n\n' % (i - 1))
        n = 0
        body = []
        while sum(p.count("\n") for p in body) < 980:
            body.append(UNIT.format(n=n, k=n % 17))
            n += 1
        parts.extend(body)
        calls = "\n".join("    print(step_%d([1, 2, 3], \"x\"))" % j for j in range(0, n, 8))
        extra = "    let t = fs.read(\"data/in.txt\")\n    print(t)\n" if i % 3 == 0 else ""
        parts.append("pub fn run_all() {\n" + calls + "\n}\n\nfn main() {\n" + extra + "    run_all()\n}\n")
        with open(os.path.join(ws, "s%04d.vox" % i), "w") as f:
            f.write("".join(parts))
        if i % 10 == 0:
            toml.append('[run.s%04d]\nscript = "s%04d.vox"\ncaps = ["fs:ro=data"]\n' % (i, i))
    with open(os.path.join(ws, "Vox.toml"), "w") as f:
        f.write("\n".join(toml))
    with open(os.path.join(ws, "data", "in.txt"), "w") as f:
        f.write("x\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vox")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--keep")
    a = ap.parse_args()
    vox = find_vox(a.vox)
    ws = a.keep or tempfile.mkdtemp(prefix="vox-lsp-memory-")
    os.makedirs(ws, exist_ok=True)
    generate(ws, a.files)
    names = sorted(n for n in os.listdir(ws) if n.endswith(".vox"))
    lines = sum(open(os.path.join(ws, n)).read().count("\n") for n in names)
    caps = json.load(open(os.path.join(ROOT, "tests", "lsp", "clients", "neovim.json")))["capabilities"]
    c = Client(vox, ws)
    t0 = time.perf_counter()
    c.initialize(ws, caps)
    t_load = time.perf_counter() - t0
    rss_loaded = c.peak_rss_kib()
    total_diags = 0
    t0 = time.perf_counter()
    for n in names:
        p = os.path.join(ws, n)
        u = uri(p)
        c.notify("textDocument/didOpen", {"textDocument": {"uri": u, "languageId": "voxscript", "version": 1,
                                                           "text": open(p).read()}})
        r = c.request("textDocument/diagnostic", {"textDocument": {"uri": u}})
        total_diags += len(r["result"]["items"])
        c.notify("textDocument/didClose", {"textDocument": {"uri": u}})
    t_all = time.perf_counter() - t0
    rss = c.peak_rss_kib()
    c.close()
    print("vox lsp memory: %d scripts, %d lines (%s)" % (len(names), lines, vox))
    print("  load (initialize): %.1f s, peak RSS %.1f MiB" % (t_load, rss_loaded / 1024))
    print("  open + pull diagnostics + close every script: %.1f s (%d diagnostics)" % (t_all, total_diags))
    print("  peak RSS: %.1f MiB (%.1f MB)" % (rss / 1024, rss * 1024 / 1e6))
    print("target: peak RSS <= 300 MB: %s" % ("met" if rss * 1024 / 1e6 <= 300 else "NOT met"))
    if not a.keep:
        shutil.rmtree(ws, ignore_errors=True)


if __name__ == "__main__":
    main()
