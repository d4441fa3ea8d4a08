#!/usr/bin/env python3
"""Language server requests on large files (issue 20, acceptance 3). A benchmark, not a test: it prints figures and
marks the targets met / NOT met; it never fails on a timing.

A script of small functions (parameters, locals, user and builtin calls, comments, strings) is generated at several
sizes up to 5 MB and opened in `vox lsp` (a pull client, so no diagnostics run unless asked). For each size, the
time of every request that reads the whole file: semantic tokens (full, delta against the full result, range over
the whole file), document symbols, folding ranges, inlay hints over the whole file. Linear requests keep the
time per MB flat across sizes.

Then, on the 5 MB file with a push client:
  - an edit sent while a full semantic tokens request runs: time from didChange to its publishDiagnostics, and
    what the request answered (an edit overtakes a running request: ContentModified);
  - `$/cancelRequest` sent 50 ms into a full semantic tokens request: time to the -32800 reply, and from the
    cancel to the publish of an edit sent right after it (the edit's database write waits for the cancelled
    work to stop).
Targets: 5 MB semantic tokens full <= 1 s; the edit's publish not waiting for the request; cancel <= 50 ms.

Usage: python3 bench/lsp_scale.py [--vox PATH] [--sizes 0.3,1.3,1.7,5]
"""
import argparse, os, shutil, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_common import Client, find_vox, uri  # noqa: E402

PULL_CAPS = {"textDocument": {"diagnostic": {"dynamicRegistration": False},
                              "semanticTokens": {"requests": {"full": {"delta": True}, "range": True},
                                                 "tokenTypes": [], "tokenModifiers": [], "formats": ["relative"]},
                              "documentSymbol": {"hierarchicalDocumentSymbolSupport": True}},
             "general": {"positionEncodings": ["utf-16"]}}
PUSH_CAPS = {"textDocument": {"publishDiagnostics": {"relatedInformation": True, "versionSupport": True}},
             "general": {"positionEncodings": ["utf-16"]}}

FN = """// work_{i} counts the small items.
fn work_{i}(items: list[int], scale: int) to int {{
    let mut total = 0
    for x in items {{
        if x > 0 and x < 1000 {{
            total = total + 1
        }}
    }}
    let label = "run-" + str(scale)
    print(label)
    let inner = work_{prev}(items, scale + 1)
    return total + inner
}}

"""


def generate(nbytes):
    parts = ["fn work_0(items: list[int], scale: int) to int {\n    return scale\n}\n\n"]
    size, i = len(parts[0]), 1
    while size < nbytes:
        p = FN.format(i=i, prev=i - 1)
        parts.append(p)
        size += len(p)
        i += 1
    parts.append("fn main() {\n    print(work_1([1, 2], 3))\n}\n")
    return "".join(parts)


def timed(c, method, params):
    t0 = time.perf_counter()
    c.next_id += 1
    rid = c.next_id
    c.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    t, m = c.wait(lambda m: m.get("id") == rid and "method" not in m)
    return (t - t0) * 1000, m


def open_file(vox, ws, name, text, caps):
    """Writes `text` to `ws/name`, starts a server with client capabilities `caps` and opens the
    file in it: (client, the file's URI)."""
    path = os.path.join(ws, name)
    with open(path, "w") as f:
        f.write(text)
    u = uri(path)
    c = Client(vox, ws)
    c.initialize(ws, caps)
    c.notify("textDocument/didOpen", {"textDocument": {"uri": u, "languageId": "voxscript", "version": 1,
                                                       "text": text}})
    return c, u


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vox")
    ap.add_argument("--sizes", default="0.3,1.3,1.7,5")
    ap.add_argument("--keep")
    a = ap.parse_args()
    vox = find_vox(a.vox)
    ws = a.keep or tempfile.mkdtemp(prefix="vox-lsp-scale-")
    os.makedirs(ws, exist_ok=True)
    sizes = [float(s) for s in a.sizes.split(",")]
    print("vox lsp requests on large files (%s)" % vox)
    print("  %-8s %9s %9s %9s %9s %9s %9s   (ms)" % ("MB", "tok.full", "tok.delta", "tok.range", "symbols",
                                                     "folding", "inlay"))
    full5 = None
    per_mb = []
    for mb in sizes:
        text = generate(int(mb * 1_000_000))
        c, u = open_file(vox, ws, "big_%s.vox" % mb, text, PULL_CAPS)
        doc = {"uri": u}
        lines = text.count("\n") + 1
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}}
        # The parse is shared by every request: done once first, not charged to the first request.
        c.request("textDocument/foldingRange", {"textDocument": doc})
        ms_full, m = timed(c, "textDocument/semanticTokens/full", {"textDocument": doc})
        rid = m["result"]["resultId"]
        ms_delta, _ = timed(c, "textDocument/semanticTokens/full/delta", {"textDocument": doc, "previousResultId": rid})
        ms_range, _ = timed(c, "textDocument/semanticTokens/range", {"textDocument": doc, "range": whole})
        ms_sym, _ = timed(c, "textDocument/documentSymbol", {"textDocument": doc})
        ms_fold, _ = timed(c, "textDocument/foldingRange", {"textDocument": doc})
        ms_inlay, _ = timed(c, "textDocument/inlayHint", {"textDocument": doc, "range": whole})
        c.close()
        real_mb = len(text) / 1e6
        print("  %-8.2f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f" % (real_mb, ms_full, ms_delta, ms_range, ms_sym,
                                                                ms_fold, ms_inlay))
        per_mb.append((real_mb, ms_full / real_mb))
        if mb == max(sizes):
            full5 = ms_full
    print("  semantic tokens full, ms per MB: " + ", ".join("%.1f at %.2f MB" % (p, s) for s, p in per_mb))

    # The largest file, push client: an edit while a request runs, and a cancel.
    text = generate(int(max(sizes) * 1_000_000))
    c, u = open_file(vox, ws, "push.vox", text, PUSH_CAPS)
    c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == u)
    line = next(i for i, l in enumerate(text.split("\n")) if "let mut total = 0" in l)
    col = text.split("\n")[line].index("0")

    def edit(version, digit):
        return c.notify("textDocument/didChange", {
            "textDocument": {"uri": u, "version": version},
            "contentChanges": [{"range": {"start": {"line": line, "character": col},
                                          "end": {"line": line, "character": col + 1}}, "text": digit}]})

    def published(version):
        return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == u and m["params"].get("version") == version)

    def reply(rid):
        return lambda m: m.get("id") == rid and "method" not in m

    def both(a, b):
        """Waits for two messages in either order: (time, message) of each."""
        got = {}
        while len(got) < 2:
            t, m = c.wait(lambda m: a(m) or b(m))
            got["a" if a(m) else "b"] = (t, m)
        return got["a"], got["b"]

    # The same edit with no request running, for comparison.
    t_edit = edit(2, "3")
    t_pub, _ = c.wait(published(2))
    alone_ms = (t_pub - t_edit) * 1000
    t_edit = edit(3, "0")
    c.wait(published(3))
    c.next_id += 1
    rid = c.next_id
    c.send({"jsonrpc": "2.0", "id": rid, "method": "textDocument/semanticTokens/full",
            "params": {"textDocument": {"uri": u}}})
    time.sleep(0.05)
    t_edit = edit(4, "7")
    (t_pub, _), (t_resp, m) = both(published(4), reply(rid))
    answered = "error %d" % m["error"]["code"] if "error" in m else "tokens"
    edit_ms = (t_pub - t_edit) * 1000
    print("  edit (5 MB) with no request running: didChange -> publish %.1f ms" % alone_ms)
    print("  edit during semantic tokens (5 MB): didChange -> publish %.1f ms; the request answered %s %s the publish"
          % (edit_ms, answered, "before" if t_resp < t_pub else "after"))

    c.next_id += 1
    rid = c.next_id
    c.send({"jsonrpc": "2.0", "id": rid, "method": "textDocument/semanticTokens/full",
            "params": {"textDocument": {"uri": u}}})
    time.sleep(0.05)
    t_cancel = c.notify("$/cancelRequest", {"id": rid})
    t_edit = edit(5, "5")
    (t_pub, _), (t_resp, m) = both(published(5), reply(rid))
    cancel_ms = (t_resp - t_cancel) * 1000
    cancel_pub_ms = (t_pub - t_cancel) * 1000
    code = m.get("error", {}).get("code")
    print("  $/cancelRequest 50 ms into semantic tokens: reply %s after %.1f ms; an edit sent with it published "
          "%.1f ms after the cancel" % (code, cancel_ms, cancel_pub_ms))
    c.close()
    ok = lambda b: "met" if b else "NOT met"
    print("targets: 5 MB semantic tokens <= 1000 ms: %s (%.0f ms); cancel reply <= 50 ms: %s"
          % (ok(full5 is not None and full5 <= 1000), full5 or float("nan"), ok(cancel_ms <= 50 and code == -32800)))
    if not a.keep:
        shutil.rmtree(ws, ignore_errors=True)


if __name__ == "__main__":
    main()
