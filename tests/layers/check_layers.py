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
    gets a folder; past twelve, group before adding);
  - a function the public header declares without the PROFKIT_API mark
    (the shared library, built with hidden visibility, would not export it);
  - a global name of the library's objects that is neither declared by the
    public header nor internal (pk_, the one internal prefix): in a static
    link every global name of libprofkit.a shares the program's namespace;
and, given the shared library (--shared):
  - a name it exports that the public header does not declare;
  - a function the public header declares that it does not export.

Usage: check_layers.py [--shared LIB] [--objects DIR]
                       SRC_DIR LIB_OBJ_DIR CLI_OBJ_DIR PUBLIC_HEADER
  SRC_DIR      the sources (src/); objects whose source is gone (left in a
               build directory by a file that moved) are not read
  LIB_OBJ_DIR  the library's objects, laid out as the sources under src/
               (CMakeFiles/profkit_objects.dir/src in a CMake build)
  CLI_OBJ_DIR  the command's objects (CMakeFiles/profkit_cli.dir/src/cli)
  --shared LIB the shared library built from those objects (libprofkit.so)
  --objects DIR  every object of the library, generated sources' too
               (CMakeFiles/profkit_objects.dir): their global names are
               checked as well (default: LIB_OBJ_DIR's)

The layer order and its reasons are in docs/architecture.md.
"""
import argparse
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


def strip_comments(text):
    """Blanks C comments, keeping string literals."""
    return re.sub(r'"(?:\\.|[^"\\])*"|/\*.*?\*/|//[^\n]*',
                  lambda m: m.group(0) if m.group(0).startswith('"') else " ", text, flags=re.S)


def header_functions(text):
    """(marked, unmarked): the functions a header declares at file scope
    with the PROFKIT_API mark, and without it."""
    code = strip_comments(text).replace("\\\n", " ")
    code = "\n".join(l for l in code.splitlines() if not l.lstrip().startswith("#"))
    marked, unmarked = set(), set()
    stmt, stack = "", []  # stack: "extern" or "block" per open brace
    for c in code:
        if c == "{":
            if stmt.strip() == 'extern "C"':
                stack.append("extern")
                stmt = ""
            else:
                stack.append("block")
            continue
        if c == "}":
            if stack:
                stack.pop()
            continue
        if "block" in stack:
            continue
        if c != ";":
            stmt += c
            continue
        words = stmt.split()
        m = re.search(r"\b([A-Za-z_]\w*)\s*\(", stmt)
        if words and words[0] != "typedef" and m:
            (marked if "PROFKIT_API" in stmt[:m.start()].split() else unmarked).add(m.group(1))
        stmt = ""
    return marked, unmarked


def exported(lib):
    """The names a shared library exports (its defined dynamic symbols)."""
    text = subprocess.run(["nm", "-D", "--defined-only", "-P", lib], check=True,
                          capture_output=True, text=True).stdout
    return {parts[0] for parts in (l.split() for l in text.splitlines()) if len(parts) >= 2}


# Global names the compiler or the C++ standard library make, not ours: a
# name with a character no C identifier has (DW.ref.__gxx_personality_v0,
# the sanitizers' __odr_asan.NAME), or a C++ name in namespace std or
# __gnu_cxx, or local to a function of theirs (templates of <string>
# instantiated by src/symbols/demangle.cc).
NOT_OURS = re.compile(r"[^A-Za-z0-9_]|^_Z(?:Z|T[VIS]|GVZ?)?N?K?(?:St|9__gnu_cxx)")


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
    ap = argparse.ArgumentParser(usage=__doc__, add_help=False)
    ap.add_argument("--shared")
    ap.add_argument("--objects")
    ap.add_argument("dirs", nargs="*")
    args = ap.parse_args(argv[1:])
    if len(args.dirs) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    src_root, lib_root, cli_root, header = args.dirs
    hname = os.path.basename(header)
    problems = []

    definer = {}   # symbol -> source file
    undef = {}     # source file -> undefined symbols
    globals_of = {}  # object (a source, or a generated one's path) -> defined globals
    for obj in objects(lib_root, src_root):
        src = source_name(obj, lib_root)
        d, u = symbols(obj)
        undef[src] = u
        globals_of[src] = d
        for s in d:
            definer.setdefault(s, src)
    if not undef:
        print(f"layers: no objects under {lib_root}", file=sys.stderr)
        return 2
    if args.objects:
        inside = os.path.realpath(lib_root) + os.sep
        for d, _, files in os.walk(args.objects):
            for f in files:
                obj = os.path.join(d, f)
                if f.endswith(".o") and not os.path.realpath(obj).startswith(inside):
                    globals_of[os.path.relpath(obj, args.objects)] = symbols(obj)[0]

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
        header_text = f.read()
    declared = set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", header_text))
    marked, unmarked = header_functions(header_text)
    for name in sorted(unmarked):
        problems.append(f"{hname} declares {name} without PROFKIT_API: the shared library "
                        f"would not export it")
    public = marked | unmarked
    for src, names in sorted(globals_of.items()):
        for name in sorted(names):
            if name not in public and not name.startswith("pk_") and not NOT_OURS.search(name):
                problems.append(f"{src} defines {name}, a global name neither public (declared "
                                f"by {hname}) nor internal (pk_...): make it static or name it "
                                f"pk_<area>_...")
    if args.shared:
        lib = os.path.basename(args.shared)
        out = exported(args.shared)
        for name in sorted(out - public):
            problems.append(f"{lib} exports {name}, which {hname} does not declare")
        for name in sorted(marked - out):
            problems.append(f"{hname} declares {name}, which {lib} does not export")
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
          f"every folder uses only those below it, the CLI only the public header; "
          f"{len(public)} public functions"
          + (f", exactly what {os.path.basename(args.shared)} exports" if args.shared else "")
          + "; every other global name pk_")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
