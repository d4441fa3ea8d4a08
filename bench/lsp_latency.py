#!/usr/bin/env python3
"""Language server latency benchmark (issue 8, acceptance 3). A benchmark, not a test: it prints figures and
marks the targets met / NOT met; it never fails on a timing.

Setup: a generated 10,000-line script (500 functions of 20 lines; one function in 25 has clock reads, host math,
map iteration and unchecked arithmetic, about 60 diagnostics; --dense puts them in every function, about 1,500
diagnostics per publish), opened in `vox lsp` by a push client
(no pull diagnostics: the server publishes after each change). Then 100 single-character edits inside one
function body (a digit of an integer literal replaced by another), each sent as an incremental didChange and
timed until the publishDiagnostics of that version arrives:
  - client side: from writing didChange to reading publishDiagnostics (includes the pipe and JSON);
  - server side: from the didChange handler to the publish call (the server prints it on stderr when
    VOX_LSP_TIMING is set).
Cold: the same file opened in fresh servers (didOpen to the first publishDiagnostics, client side; the median
of --cold-runs servers), and
`vox lint FILE` as a whole process. Targets: p50 <= 10 ms, p95 <= 30 ms, and cold / p50 >= 10.

Usage: python3 bench/lsp_latency.py [--vox PATH] [--edits N] [--keep DIR]
The binary is $CARGO_TARGET_DIR/release/vox or target/release/vox (built when missing) unless --vox is given.
"""
import argparse, os, random, re, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_common import Client, find_vox, pct, uri  # noqa: E402

PUSH_CAPS = {"textDocument": {"publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
                              "synchronization": {"didSave": True}},
             "general": {"positionEncodings": ["utf-16"]}}

CLEAN = """fn work_{n}(items: list[int], scale: int) to int {{
    let mut total = 0
    let base = {lit}
    for x in items {{
        if x > 0 and x < 1000 {{
            total = total + 1
        }}
    }}
    let counts = {{"a": 1, "b": 2}}
    let keys = sorted(counts.keys())
    for k in keys {{
        print(k)
    }}
    if total > 100 {{
        print("big", scale)
    }}
    let label = "run-" + str(base)
    print(label)
    let half = total / 2
    print(half)
    return base
}}
"""

FN = """fn work_{n}(items: list[int], scale: float) to int {{
    let mut total = 0
    let base = {lit}
    for x in items {{
        total = total + x * base
    }}
    let angle = scale.sin()
    let counts = {{"a": 1, "b": 2}}
    for k, v in counts {{
        print(k, v)
    }}
    if total > 100 {{
        print("big", angle)
    }}
    let stamp = time.now_ms()
    let label = "run-" + str(stamp)
    print(label)
    let half = total / 2
    let rest = total - half
    return rest + base
}}
"""


def generate(path, functions=500, dense=False):
    """Every function has findings when `dense`; else one in 25 (about 60 diagnostics in all)."""
    rnd = random.Random(8)
    parts = [(FN if dense or i % 25 == 0 else CLEAN).format(n=i, lit=rnd.randint(100, 999))
             for i in range(functions)]
    calls = "\n".join("    print(work_%d([1, 2, 3], 0.5))" % i for i in range(0, functions, 50))
    text = "".join(parts) + "fn main() {\n" + calls + "\n}\n"
    with open(path, "w") as f:
        f.write(text)
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vox")
    ap.add_argument("--edits", type=int, default=100)
    ap.add_argument("--keep")
    ap.add_argument("--cold-runs", type=int, default=5, help="fresh servers for the cold figure")
    ap.add_argument("--dense", action="store_true",
                    help="findings in every function (about 1,500 diagnostics per publish)")
    a = ap.parse_args()
    vox = find_vox(a.vox)
    ws = a.keep or tempfile.mkdtemp(prefix="vox-lsp-latency-")
    os.makedirs(ws, exist_ok=True)
    path = os.path.join(ws, "big.vox")
    text = generate(path, dense=a.dense)
    lines = text.count("\n")
    chk = subprocess.run([vox, "check", path], capture_output=True, text=True)
    if chk.returncode != 0:
        print(chk.stdout, chk.stderr)
        sys.exit("the generated file does not pass vox check")

    # Cold, CLI.
    t0 = time.perf_counter()
    subprocess.run([vox, "lint", path], cwd=ws, capture_output=True)
    cli_cold = (time.perf_counter() - t0) * 1000

    # Cold: the same file opened in fresh servers (a single sample varies by 2x on a loaded
    # machine: the median of a few).
    def open_file():
        c = Client(vox, ws, env={"VOX_LSP_TIMING": "1"})
        c.initialize(ws, PUSH_CAPS)
        t_open = c.notify("textDocument/didOpen", {"textDocument": {"uri": u, "languageId": "voxscript",
                                                                    "version": 1, "text": text}})
        t_pub, m = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == u)
        return c, (t_pub - t_open) * 1000, len(m["params"]["diagnostics"])

    u = uri(path)
    colds = []
    for _ in range(a.cold_runs - 1):
        c, ms, _ = open_file()
        c.close()
        colds.append(ms)
    c, ms, ndiag = open_file()
    colds.append(ms)
    cold = pct(colds, 50)

    # The function body to edit: the integer literal of `let base = NNN` in work_250.
    line_no = text[: text.index("fn work_250(")].count("\n") + 2
    line = text.split("\n")[line_no]
    col = line.index("= ") + 2
    client_ms, version = [], 1
    rnd = random.Random(1)
    while not c.stderr.empty():
        c.stderr.get()
    for i in range(a.edits):
        version += 1
        digit = str(rnd.randint(1, 9))
        ch = col + (i % 3)
        t_send = c.notify("textDocument/didChange", {
            "textDocument": {"uri": u, "version": version},
            "contentChanges": [{"range": {"start": {"line": line_no, "character": ch},
                                          "end": {"line": line_no, "character": ch + 1}}, "text": digit}]})
        t_pub, m = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == u and m["params"].get("version") == version)
        client_ms.append((t_pub - t_send) * 1000)
    time.sleep(0.2)
    server_ms = []
    while not c.stderr.empty():
        _, l = c.stderr.get()
        mm = re.search(r"change-to-publish ([0-9.]+) ms .*version (\d+)", l)
        if mm and int(mm.group(2)) > 1:
            server_ms.append(float(mm.group(1)))
    rss = c.peak_rss_kib()
    c.close()

    p50, p95 = pct(client_ms, 50), pct(client_ms, 95)
    s50, s95 = pct(server_ms, 50), pct(server_ms, 95)
    print("vox lsp latency: %d-line file, %d single-character edits in one function body (%s)" % (lines, a.edits, vox))
    print("  diagnostics per publish: %d" % ndiag)
    print("  %-34s %8s %8s" % ("", "p50 ms", "p95 ms"))
    print("  %-34s %8.2f %8.2f" % ("didChange -> publish (client)", p50, p95))
    print("  %-34s %8.2f %8.2f   (%d samples)" % ("didChange -> publish (server)", s50, s95, len(server_ms)))
    print("  %-34s %8.2f   (median of %d fresh servers; min %.2f, max %.2f)"
          % ("cold: didOpen -> publish (client)", cold, len(colds), min(colds), max(colds)))
    print("  %-34s %8.2f" % ("cold: vox lint FILE (process)", cli_cold))
    print("  peak RSS of the server: %.1f MiB" % (rss / 1024))
    ok = lambda b: "met" if b else "NOT met"
    print("targets: p50 <= 10 ms: %s; p95 <= 30 ms: %s; cold/p50 = %.1fx >= 10x: %s"
          % (ok(p50 <= 10), ok(p95 <= 30), cold / p50, ok(cold / p50 >= 10)))
    if not a.keep:
        shutil.rmtree(ws, ignore_errors=True)


if __name__ == "__main__":
    main()
