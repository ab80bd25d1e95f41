#!/usr/bin/env python3
"""Checks the shape of the source tree from the linker's view.

Reads the object files of a build (nm), maps every undefined symbol to the
object that defines it, and fails, naming the files and the symbols, on:
  - a circle between source files (one file uses another that uses it back,
    directly or through others);
  - a circle between folders;
  - a folder that uses a folder above it in the layer order;
  - a format that uses another format (only the registry calls formats);
  - a CLI file that uses a library symbol the public header does not declare,
    or includes a header of the library's other than the public one;
  - two source files with one name (names are unique across the tree, so a
    name in a message or a debugger points at one file);
  - more than 12 entries at the top of formats/ (a format of several files
    gets a folder; past twelve, group before adding).

Usage: check_layers.py SRC_DIR LIB_OBJ_DIR CLI_OBJ_DIR PUBLIC_HEADER
  SRC_DIR      the sources (src/); objects whose source is gone (left in a
               build directory by a file that moved) are not read
  LIB_OBJ_DIR  the library's objects, laid out as the sources under src/
               (CMakeFiles/profkit.dir/src in a CMake build)
  CLI_OBJ_DIR  the command's objects (CMakeFiles/profkit_cli.dir/src/cli)

The layer order and its reasons are in docs/architecture.md.
"""
import os
import re
import subprocess
import sys

# Lower layers first; folders on one line share a layer and must not use
# each other. A subfolder (formats/gecko) belongs to its top folder's layer.
LAYERS = [
    ["util"],
    ["io"],
    ["model"],
    ["formats", "symbols", "analysis"],
    ["report"],
    ["serve"],
    ["store"],
    ["cli"],
]
RANK = {f: i for i, layer in enumerate(LAYERS) for f in layer}
DEFINED = set("TtDdBbRrVvWwGgSsuiC")


def objects(root, src_root):
    out = []
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".o"):
                continue
            obj = os.path.join(d, f)
            if os.path.exists(os.path.join(src_root, source_name(obj, root))):
                out.append(obj)
    return sorted(out)


def symbols(obj):
    """(defined global symbols, undefined symbols) of one object."""
    text = subprocess.run(["nm", "-P", obj], check=True, capture_output=True,
                          text=True).stdout
    defs, undefs = set(), set()
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefs.add(name)
        elif kind in "TDBRVWGSC" or kind == "u":
            defs.add(name)
    return defs, undefs


def source_name(obj, root):
    rel = os.path.relpath(obj, root)
    rel = re.sub(r"\.o$", "", rel)  # CMake names objects x.c.o
    return rel


def top_folder(src):
    return src.split("/", 1)[0] if "/" in src else ""


def unit_folder(src):
    return os.path.dirname(src)


def format_unit(src):
    """The format a file under formats/ belongs to: its subfolder, or itself
    for a one-file format; None for the registry (formats/registry/), which
    lists and calls them all."""
    parts = src.split("/")
    if parts[0] != "formats" or parts[1] == "registry":
        return None
    if len(parts) > 2:
        return "/".join(parts[:2])
    return src


def sccs(nodes, edges):
    """Tarjan's strongly connected components (iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
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


def why(uses, a, b):
    syms = sorted(uses[(a, b)])
    more = f" (+{len(syms) - 3} more)" if len(syms) > 3 else ""
    return f"{a} -> {b}: {', '.join(syms[:3])}{more}"


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    src_root, lib_root, cli_root, header = argv[1:]
    problems = []

    definer = {}   # symbol -> source file
    undef = {}     # source file -> undefined symbols
    for obj in objects(lib_root, src_root):
        src = source_name(obj, lib_root)
        d, u = symbols(obj)
        undef[src] = u
        for s in d:
            definer.setdefault(s, src)
    if not undef:
        print(f"layers: no objects under {lib_root}", file=sys.stderr)
        return 2

    uses = {}      # (file, file) -> symbols
    for src, u in undef.items():
        for s in u:
            d = definer.get(s)
            if d and d != src:
                uses.setdefault((src, d), set()).add(s)
    file_edges = {}
    for (a, b) in uses:
        file_edges.setdefault(a, set()).add(b)

    for comp in sccs(sorted(undef), file_edges):
        links = [why(uses, a, b) for a in comp for b in sorted(file_edges.get(a, ()))
                 if b in comp]
        problems.append("circle between source files " + ", ".join(comp) + ":\n    "
                        + "\n    ".join(links))

    folder_uses = {}
    for (a, b), syms in uses.items():
        fa, fb = unit_folder(a), unit_folder(b)
        if fa != fb:
            folder_uses.setdefault((fa, fb), set()).update(f"{s} ({a} -> {b})" for s in syms)
    folder_edges = {}
    for (a, b) in folder_uses:
        folder_edges.setdefault(a, set()).add(b)
    folders = sorted({unit_folder(s) for s in undef})
    for comp in sccs(folders, folder_edges):
        links = [why(folder_uses, a, b) for a in comp for b in sorted(folder_edges.get(a, ()))
                 if b in comp]
        problems.append("circle between folders " + ", ".join(comp) + ":\n    "
                        + "\n    ".join(links))

    for (a, b), syms in sorted(uses.items()):
        ta, tb = top_folder(a), top_folder(b)
        if ta == tb:
            continue
        if ta not in RANK or tb not in RANK:
            problems.append(f"{a} or {b} is in a folder with no layer "
                            f"(add it to LAYERS and docs/architecture.md)")
            continue
        if RANK[tb] >= RANK[ta]:
            where = "above" if RANK[tb] > RANK[ta] else "beside"
            problems.append(f"{ta}/ uses {tb}/, a folder {where} it: " + why(uses, a, b))

    for (a, b), syms in sorted(uses.items()):
        ua, ub = format_unit(a), format_unit(b)
        if ua and ub and ua != ub:
            problems.append("a format uses another format: " + why(uses, a, b))

    with open(header, encoding="utf-8") as f:
        declared = set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", f.read()))
    cli_objs = objects(cli_root, os.path.join(src_root, "cli"))
    if not cli_objs:
        print(f"layers: no objects under {cli_root}", file=sys.stderr)
        return 2
    for obj in cli_objs:
        src = "cli/" + source_name(obj, cli_root)
        _, u = symbols(obj)
        for s in sorted(u):
            if s in definer and s not in declared:
                problems.append(f"{src} uses {s} from {definer[s]}, which "
                                f"{os.path.basename(header)} does not declare")

    seen = {}
    for d, _, files in os.walk(src_root):
        for f in files:
            if f.endswith((".c", ".h", ".cc", ".def")):
                seen.setdefault(f, []).append(os.path.relpath(os.path.join(d, f), src_root))
    for f, where in sorted(seen.items()):
        if len(where) > 1:
            problems.append(f"two files named {f}: " + ", ".join(sorted(where)))

    fmt_dir = os.path.join(src_root, "formats")
    if os.path.isdir(fmt_dir):
        top = sorted(os.listdir(fmt_dir))
        if len(top) > 12:
            problems.append(f"formats/ has {len(top)} entries at its top, more than 12: "
                            + ", ".join(top))

    cli_src = os.path.join(src_root, "cli")
    for f in sorted(os.listdir(cli_src)):
        if not f.endswith((".c", ".h", ".def")):
            continue
        with open(os.path.join(cli_src, f), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if m and not (m.group(1) == "profkit.h" or m.group(1).startswith("cli/")):
                    problems.append(f"cli/{f}:{n} includes {m.group(1)}: the CLI uses "
                                    f"only the public header")

    n_files = len(undef) + len(cli_objs)
    if problems:
        for p in problems:
            print("layers: " + p)
        print(f"layers: {len(problems)} problem(s) in {n_files} files")
        return 1
    print(f"layers: {n_files} files, {len(folders)} folders: no circles, "
          f"every folder uses only those below it, the CLI only the public header")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
