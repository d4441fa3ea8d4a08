#!/usr/bin/env python3
"""Layers inside the crates (../shared/design/layers.md): no module imports another that imports it
back, directly or around a loop, and no source file is over 800 lines (its tests excepted).

Each `crate::…`, `super::…` and `self::…` path in a file (in `use` lines and in code) is an arrow from
its module to the module it names; the crate root's re-exports count as the root's, so a module that
imports what a sibling defines through the root closes a loop through it. A file's `#[cfg(test)]` part
is left out. Prints each loop (its modules and one arrow each way) and each long file; exits 1 if any.

Usage: .ci/layers.py [REPO]   (default: the repository this script is in)
"""

import os
import re
import sys

MAX_LINES = 800
PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
# `use super::{a, b::c}` and `use crate::x::{y, z}`: the braces' first names.
INLINE_MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+[A-Za-z_][A-Za-z0-9_]*\s*\{\s*$")
GLOB = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\*")
GROUP = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^}]*)\}")


def modules(src):
    """Module path (tuple) -> file, for one crate's src directory."""
    out = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            # A module of tests only (`#[cfg(test)] mod tests;`) is not a layer.
            if not f.endswith(".rs") or f == "tests.rs" or f.endswith("_tests.rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            out[tuple(parts)] = os.path.join(dirpath, f)
    return out


def code_of(path):
    """The file's lines before its `#[cfg(test)]` part."""
    lines = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#[cfg(test)]"):
                break
            lines.append(line)
    return lines


def target(mods, here, kind, names):
    """The module a path names: the longest prefix of it that is a module."""
    if kind == "crate":
        base = ()
    elif kind == "super":
        base = here[:-1]
        while names and names[0] == "super":
            base, names = base[:-1], names[1:]
    else:
        base = here
    full = base + tuple(names)
    for n in range(len(full), -1, -1):
        if full[:n] in mods:
            return full[:n]
    return None


CHILD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;")


def arrows(mods):
    edges = {}
    for mod, path in mods.items():
        code = code_of(path)
        # Paths that start with a child module's name (`use actions::x`, `runs::start(…)`).
        children = [m.group(1) for line in code for m in [CHILD.match(line)] if m]
        child_path = (
            re.compile(r"(?<![A-Za-z0-9_:])(" + "|".join(children) + r")((?:::[A-Za-z_][A-Za-z0-9_]*)*)::")
            if children
            else None
        )
        inline = []  # indents of the inline `mod x {` blocks the line is in
        for line in code:
            stripped = line.strip()
            if stripped.startswith("//"):
                continue
            indent = len(line) - len(line.lstrip())
            if inline and stripped == "}" and indent == inline[-1]:
                inline.pop()
                continue
            if INLINE_MOD.match(line):
                inline.append(indent)
                continue
            found = []
            for m in GROUP.finditer(line):
                prefix = [p for p in m.group(2).split("::") if p]
                for item in m.group(3).split(","):
                    first = item.strip().split("::")[0].split(" ")[0]
                    if first and first != "self":
                        found.append((m.group(1), prefix + [first]))
                    elif first == "self":
                        found.append((m.group(1), prefix))
            for m in PATH.finditer(line):
                found.append((m.group(1), [p for p in m.group(2).split("::") if p]))
            # `use super::*;` and `use crate::x::*;`: the module itself.
            for m in GLOB.finditer(line):
                found.append((m.group(1), [p for p in m.group(2).split("::") if p]))
            if child_path is not None and not CHILD.match(line):
                for m in child_path.finditer(line):
                    found.append(("self", [m.group(1)] + [p for p in m.group(2).split("::") if p]))
            for kind, names in found:
                # In an inline module, `super` is the file's own module.
                if inline and kind == "super":
                    kind = "self"
                t = target(mods, mod, kind, names)
                # A parent that uses its child is above it: a child that uses it back closes a loop.
                if t is not None and t != mod:
                    edges.setdefault(mod, {}).setdefault(t, line.strip())
    return edges


def loops(nodes, edges):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def show(m):
    return "::".join(m) or "(root)"


def self_test():
    """The check can fail: a made-up crate with a loop through the root's re-export, a glob
    loop and a long file must be reported; the same crate without them must pass."""
    import contextlib
    import io
    import tempfile

    def run(files):
        with tempfile.TemporaryDirectory() as repo:
            for path, text in files.items():
                full = os.path.join(repo, "demo", path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w", encoding="utf-8") as fh:
                    fh.write(text)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = main([repo])
            return code, out.getvalue()

    clean = {
        "Cargo.toml": "[package]\nname = \"demo\"\n",
        "src/lib.rs": "mod a;\nmod b;\npub use a::A;\n",
        "src/a.rs": "use crate::b::B;\npub struct A(B);\n",
        "src/b.rs": "pub struct B;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::a::A;\n}\n",
    }
    code, out = run(clean)
    assert code == 0, out
    looped = dict(clean)
    looped["src/b.rs"] = "use crate::A;\npub struct B;\n"
    code, out = run(looped)
    assert code == 1 and "import loop between (root), a, b" in out, out
    globbed = dict(clean)
    globbed["src/b/mod.rs"] = "mod c;\npub use c::C;\npub struct B;\n"
    globbed["src/b/c.rs"] = "use super::*;\npub struct C;\n"
    del globbed["src/b.rs"]
    code, out = run(globbed)
    assert code == 1 and "import loop between b, b::c" in out, out
    long = dict(clean)
    long["src/b.rs"] = "pub struct B;\n" + "// line\n" * 900
    code, out = run(long)
    assert code == 1 and "over 800" in out, out
    print("layers self-test: loops and long files are found")
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--self-test"]:
        return self_test()
    repo = argv[0] if argv else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = 0
    for crate in sorted(os.listdir(repo)):
        src = os.path.join(repo, crate, "src")
        if not os.path.isfile(os.path.join(repo, crate, "Cargo.toml")) or not os.path.isdir(src):
            continue
        mods = modules(src)
        edges = arrows(mods)
        for comp in loops(sorted(mods), edges):
            problems += 1
            print(f"{crate}: import loop between {', '.join(show(m) for m in comp)}")
            members = set(comp)
            for a in comp:
                for b, line in sorted(edges.get(a, {}).items()):
                    if b in members:
                        print(f"    {show(a)} -> {show(b)}: {line}")
        for mod, path in sorted(mods.items()):
            n = len(code_of(path))
            if n > MAX_LINES:
                problems += 1
                print(f"{os.path.relpath(path, repo)}: {n} lines (over {MAX_LINES}, tests excepted)")
    if problems:
        print(f"{problems} layering problem(s)")
        return 1
    print("layers: no import loop, no file over 800 lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
