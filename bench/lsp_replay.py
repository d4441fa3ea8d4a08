#!/usr/bin/env python3
"""The edits of bench/lsp_typing.py replayed in process (server/examples/typing_replay.rs): what the
server computes for each change (the change applied, the findings, their JSON), without the pipe,
the client or the threads between them. Steadier than the client-side figures, so fit for A/B runs
of one change to the analysis; not what a user meets (bench/lsp_typing.py is). A benchmark, not a
test: it prints figures.

`--pollute-mb N` touches N MiB of other memory between changes, as a client reading a half-megabyte
publish does, so that each change starts with cold caches (32 is close to the server's own figures).
`--idle-ms N` sleeps N ms between changes, as a typist's pause (or bench/lsp_typing.py's client, which
computes each change for about 50 ms) does: on this 2-core virtual machine a pause of 20 ms or more
alone makes the next change 2-3x slower (its caches gone cold); with
`--pollute-mb 0 --idle-ms 50` the figures are close to what the server itself measures for a change
after such a pause (VOX_LSP_TIMING).

Usage: python3 bench/lsp_replay.py [--example PATH] [--modes in,between,typing] [--rounds 4]
                                   [--pollute-mb 32] [--idle-ms 0]
"""
import argparse, json, os, random, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsp_typing as T  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def changes(text, gap, mode):
    """The texts after each change of `mode`, ending with the text itself again."""
    if mode == "typing":
        return [text[:gap] + s + text[gap:] for s in T.typed_states(T.NEW_VOX)] + [text]
    if mode == "between":
        return [text[:gap] + "f" + text[gap:], text] * 30
    rnd = random.Random(1)
    at = text.index("base = ", text.index("fn work_250(")) + len("base = ")
    out, cur = [], text
    for i in range(60):
        cur = cur[:at + i % 3] + str(rnd.randint(1, 9)) + cur[at + i % 3 + 1:]
        out.append(cur)
    return out + [text]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--example")
    ap.add_argument("--modes", default="in,between,typing")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--pollute-mb", type=int, default=32)
    ap.add_argument("--idle-ms", type=int, default=0)
    a = ap.parse_args()
    exe = a.example
    if not exe:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "vox-server", "--example", "typing_replay"],
                       cwd=REPO, check=True)
        exe = os.path.join(REPO, "target", "release", "examples", "typing_replay")
    root = tempfile.mkdtemp(prefix="vox-lsp-replay-")
    try:
        T.write_workspace(root, 0, "voxscript")
        path, text = T.big_file(root, "voxscript")
        gap = text.index("fn work_251(")
        text = text[:gap] + "\n" + text[gap:]
        with open(path, "w") as f:
            f.write(text)
        env = dict(os.environ, VOX_POLLUTE_MB=str(a.pollute_mb), VOX_IDLE_MS=str(a.idle_ms))
        for mode in a.modes.split(","):
            listed, cur = [], text
            for new in changes(text, gap, mode):
                s, e, ins = T.diff(cur, new)
                p0, p1 = T.position(cur, s), T.position(cur, e)
                listed.append([p0["line"], p0["character"], p1["line"], p1["character"], ins])
                cur = new
            cf = os.path.join(root, mode + ".json")
            with open(cf, "w") as f:
                json.dump(listed, f)
            print("%s (%d changes x %d rounds, %d MiB touched and %d ms idle between changes):"
                  % (mode, len(listed), a.rounds, a.pollute_mb, a.idle_ms))
            out = subprocess.run([exe, path, cf, str(a.rounds)], env=env, capture_output=True, text=True,
                                 check=True).stdout
            print("".join("  " + line + "\n" for line in out.splitlines()), end="")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
