#!/usr/bin/env python3
"""Lists every message profkit prints to the user, as found in the sources.

Usage: extract_messages.py [--call] SRC_DIR   (--call adds the helper's name, and the error code of pk_error_set*)

Finds the format-string argument of the reporting helpers (CALLS below) and
of fprintf(stderr, ...) in src/cli, joins adjacent string literals (also over
several lines, and across PRIu64-style macros), and prints one line per call:

    FILE:LINE<TAB>KEY

KEY is the literal text with every printf conversion (%s, %zu, %.100s,
%" PRIu64 ", %lld, ...) replaced by the placeholder "…" (U+2026); "%%"
becomes "%", and the escapes \\n, \\t, \\" and \\\\ are decoded, then a
trailing newline is dropped and the text is stripped. A call whose format
is not a literal is printed as FILE:LINE<TAB>(non-literal format: EXPR).

The library's messages name options by their API names; the command
prints its flags instead (src/cli/flag_names.def, which cli_flag_names()
applies). Keys of messages outside src/cli get the same replacement, so
they are the text the command prints.

docs/errors.md marks each entry with a line `Key: `KEY`` (see
tests/cli/errors_doc.sh).
"""
import os
import re
import sys

# Function name -> 0-based index of its format argument.
CALLS = {
    "pk_read_fail": 3,
    "pk_read_fail_pos": 4,
    "pk_read_warn": 3,
    "pk_read_warn_pos": 4,
    "pk_error_set": 4,
    "pk_error_setv": 4,
    "pk_error_set_pos": 5,
    "pk_json_fail": 2,
    "pk_json_warn": 2,
    "cli_usage": 1,
    "table_fail": 3,  # src/formats/gecko/gecko_build.c
}
# Helpers local to one file: (file suffix, name) -> format index.
LOCAL_CALLS = {
    ("src/symbols/sym_find.c", "warn"): 2,
    ("src/symbols/sym_disasm.c", "say"): 2,
    ("src/formats/speedscope/speedscope_read.c", "WANT"): 1,
}
# Definitions and prototypes whose format is the helper's own parameter.
PASS_THROUGH = {"fmt", "__VA_ARGS__", "..."}

CONV = re.compile(r"%(?:%|[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|j|z|t|L)?[diouxXeEfFgGaAcspn])")
PLACEHOLDER = "\u2026"


def strip_comments(text):
    """Blanks comments (keeping newlines and offsets), leaves strings alone."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_args(text, start):
    """text[start] is '('. Returns (list of argument strings, end index)."""
    depth = 0
    args, cur = [], []
    i, n = start, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
            if depth > 1:
                cur.append(c)
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i
            cur.append(c)
        elif c == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    return None, n


TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|(PRI[diouxX](?:8|16|32|64|MAX|PTR)|SCN\w+))', re.S)


def literal(arg):
    """The joined text of adjacent literals (and PRI macros), or None."""
    pos, parts = 0, []
    while pos < len(arg):
        m = TOKEN.match(arg, pos)
        if not m:
            return None if arg[pos:].strip() else "".join(parts)
        if m.group(1) is not None:
            parts.append(m.group(1))
        else:
            parts.append("d")  # "%" PRIu64 -> "%d": still one conversion
        pos = m.end()
    return "".join(parts) if parts else None


def key_of(text):
    text = CONV.sub(lambda m: "%" if m.group(0) == "%%" else PLACEHOLDER, text)
    text = (text.replace("\\n", "\n").replace("\\t", "\t")
            .replace('\\"', '"').replace("\\\\", "\\"))
    return " ".join(text.split())


FLAG_NAME = re.compile(r'^CLI_FLAG_NAME\("((?:[^"\\]|\\.)*)",\s*"((?:[^"\\]|\\.)*)"\)', re.M)


def flag_names(src):
    """The (API name, flag) pairs of src/cli/flag_names.def, in order."""
    with open(os.path.join(src, "cli", "flag_names.def"), encoding="utf-8") as f:
        return FLAG_NAME.findall(f.read())


def name_flags(key, names):
    """key with the first occurrence of each API name that is not part of a
    longer name replaced by its flag, as cli_flag_names() does."""
    for api, flag in names:
        at = 0
        while True:
            at = key.find(api, at)
            if at < 0 or not re.match(r"[A-Za-z0-9_]", key[at + len(api):at + len(api) + 1]):
                break
            at += len(api)
        if at >= 0:
            key = key[:at] + flag + key[at + len(api):]
    return key


def scan(path, rel, out, flags):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = strip_comments(f.read())
    names = dict(CALLS)
    for (suffix, name), idx in LOCAL_CALLS.items():
        if rel.endswith(suffix):
            names[name] = idx
    pattern = r"\b(" + "|".join(map(re.escape, names)) + r")\s*\("
    in_cli = "/cli/" in "/" + rel
    named = (lambda k: k) if in_cli else (lambda k: name_flags(k, flags))
    if in_cli:
        pattern = r"\b(" + "|".join(map(re.escape, names)) + r"|fprintf)\s*\("
    for m in re.finditer(pattern, text):
        name = m.group(1)
        args, _ = split_args(text, m.end() - 1)
        if args is None:
            continue
        if name == "fprintf":
            if not args or args[0] != "stderr":
                continue
            idx = 1
        else:
            idx = names[name]
        if len(args) <= idx:
            continue
        line = text.count("\n", 0, m.start()) + 1
        fmt = args[idx]
        where = "%s:%d" % (rel, line)
        if name.startswith("pk_error_set") and len(args) > 1:
            name += " " + args[1]
        # cond ? "A" : "B" -> both messages.
        t = re.match(r'^[^"?]*\?\s*("(?:[^"\\]|\\.)*")\s*:\s*("(?:[^"\\]|\\.)*")$', fmt, re.S)
        if t:
            for alt in (t.group(1), t.group(2)):
                out.append((where, named(key_of(literal(alt))), name))
            continue
        lit = literal(fmt)
        if lit is None:
            # The definition or prototype of a helper itself.
            if re.search(r"\bconst\s+char\s*\*\s*\w+$", fmt) or fmt in PASS_THROUGH:
                continue
            out.append((where, "(non-literal format: %s)" % " ".join(fmt.split()), name))
            continue
        k = named(key_of(lit))
        # Pure framing (a bare "%s", "\r\033[K") is no message of its own.
        if re.search(r"[A-Za-z]{2}", k.replace("\\033", "")):
            out.append((where, k, name))


def main():
    argv = sys.argv[1:]
    with_call = bool(argv) and argv[0] == "--call"
    if with_call:
        argv = argv[1:]
    if len(argv) != 1:
        sys.stderr.write("usage: extract_messages.py [--call] SRC_DIR\n")
        return 2
    src = argv[0].rstrip("/")
    base = os.path.dirname(os.path.abspath(src))
    flags = flag_names(src)
    out = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for fn in sorted(files):
            if fn.endswith((".c", ".h", ".def")):
                p = os.path.join(root, fn)
                scan(p, os.path.relpath(p, base), out, flags)
    for where, k, name in out:
        if with_call:
            sys.stdout.write("%s\t%s\t%s\n" % (where, k, name))
        else:
            sys.stdout.write("%s\t%s\n" % (where, k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
