#!/usr/bin/env python3
"""Reads an ELF file's version needs (the .gnu.version_r section: which symbol versions it requires from
which library) and fails when any GLIBC_x.y is newer than the limit.

Usage: elf_glibc.py BINARY [--max 2.17]
Prints one line per library and version needed, then the newest glibc version; exit 1 above the limit,
2 when the file is not a 64-bit little-endian ELF or has no version needs.
"""
import struct
import sys

SHT_GNU_VERNEED = 0x6FFFFFFE


def version_needs(data):
    """[(library, version name)] from the ELF's SHT_GNU_verneed section."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = []
    for i in range(e_shnum):
        off = e_shoff + i * e_shentsize
        _name, sh_type, _flags, _addr, sh_offset, sh_size, sh_link, sh_info = struct.unpack_from(
            "<IIQQQQII", data, off
        )
        sections.append((sh_type, sh_offset, sh_size, sh_link, sh_info))
    out = []
    for sh_type, sh_offset, _size, sh_link, sh_info in sections:
        if sh_type != SHT_GNU_VERNEED:
            continue
        strtab = sections[sh_link][1]

        def string(at):
            end = data.index(b"\0", strtab + at)
            return data[strtab + at : end].decode()

        entry = sh_offset
        for _ in range(sh_info):  # sh_info: the number of Verneed entries
            _vn_version, vn_cnt, vn_file, vn_aux, vn_next = struct.unpack_from("<HHIII", data, entry)
            library = string(vn_file)
            aux = entry + vn_aux
            for _ in range(vn_cnt):
                _hash, _flags, _other, vna_name, vna_next = struct.unpack_from("<IHHII", data, aux)
                out.append((library, string(vna_name)))
                aux += vna_next
            entry += vn_next
    return out


def glibc_version(name):
    """(2, 17) for GLIBC_2.17; None for other version names (GLIBC_PRIVATE, GCC_3.0, …)."""
    if not name.startswith("GLIBC_"):
        return None
    try:
        return tuple(int(p) for p in name[len("GLIBC_") :].split("."))
    except ValueError:
        return None


def main(argv):
    path = argv[1]
    limit = (2, 17)
    if "--max" in argv:
        limit = tuple(int(p) for p in argv[argv.index("--max") + 1].split("."))
    with open(path, "rb") as f:
        data = f.read()
    try:
        needs = version_needs(data)
    except ValueError as e:
        print(f"{path}: {e}", file=sys.stderr)
        return 2
    if not needs:
        print(f"{path}: no version needs (not dynamically linked against glibc?)", file=sys.stderr)
        return 2
    for library, name in sorted(set(needs)):
        print(f"{library} {name}")
    versions = [v for v in (glibc_version(n) for _, n in needs) if v]
    newest = max(versions) if versions else None
    shown = ".".join(map(str, newest)) if newest else "none"
    limit_shown = ".".join(map(str, limit))
    if newest and newest > limit:
        print(f"{path}: needs GLIBC_{shown}, newer than GLIBC_{limit_shown}", file=sys.stderr)
        return 1
    print(f"newest glibc version needed: {shown} (limit {limit_shown})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
