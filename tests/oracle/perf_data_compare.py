#!/usr/bin/env python3
"""The perf.data oracle's comparisons (tests/cli/perf_data.sh).

  perf_data_compare.py text PROG < perf-script.txt > rewritten.txt
      Rewrites `perf script` output so that only the frames of the program
      PROG (a file base name) and of the kernel ([kernel.kallsyms], named
      from its kallsyms by both) keep perf's symbol; every other frame
      (libraries, unknown, PLT stubs) becomes `BASE@OFFSET`: the base name of
      its DSO and the address perf prints (the offset in the file: address -
      mapping start + page offset, as profkit labels a frame FILE+0xOFFSET).
      Symbol names of other files depend on each tool's symbol choice
      (aliases, inlined calls), the address does not.

  perf_data_compare.py stacks SIDE PROG DECODED > stacks.txt
      From `protoc --decode` of a pprof profkit wrote, one line per (value
      type, thread, stack): `TYPE<TAB>THREAD<TAB>root;...;leaf<TAB>VALUE`,
      sorted. SIDE `script`: frames are the function names (the perf_script
      reader's, from the rewritten text). SIDE `data`: a frame in PROG is
      the name of its real function (the last Line of its Location: calls
      inlined into it are not frames in `perf script`), a kernel frame its
      name from kallsyms, any other frame is
      BASE@OFFSET from its mapping, or ?@ADDRESS without one.

  perf_data_compare.py leaves PROG < perf-script.txt > leaves.txt
      Each sample's leaf as `perf script` prints it (its first frame line
      that is not an inlined call), labelled as `stacks` labels frames, one
      line per (thread, leaf): `samples<TAB>THREAD<TAB>LEAF<TAB>COUNT`,
      sorted. `stacks data` output cut to its leaves (`leafcut`) must equal
      it for a recording profkit does not unwind (--call-graph dwarf). When
      perf prints the leaf's address only as inlined calls and the next
      frame is at another address (an ifunc resolver or a lock in libc
      called from ld.so while it starts the program or a thread: perf then
      names no file for the leaf, and the file of the next frame is not its
      file), the leaf is `*@ADDRESS`: its file is unknown, its address is.

  perf_data_compare.py leafmatch WANT GOT
      WANT (`leaves`) against GOT (`leafcut`): the same lines, a `*@ADDRESS`
      leaf of WANT matching one of GOT with any file, the same thread,
      address and count. Prints what differs; exit 1 when anything does.

  perf_data_compare.py leafcut < stacks.txt
      `stacks` lines of the `samples` type reduced to their leaves, summed.

  perf_data_compare.py mappings MMAPS BUILDIDS DECODED
      MMAPS: `perf script --show-mmap-events` lines; BUILDIDS: `perf
      buildid-list` output. Every MMAP/MMAP2 range must be a mapping of the
      profile (same start, end, offset, path; the kernel's is named
      [kernel.kallsyms]) and the profile no other; every build id perf
      lists must be its mapping's. Prints the differences, exits 1 if any.
"""
import re
import struct
import sys


def parse_decoded(path):
    """A minimal reader of protoc's text format for perftools.profiles."""
    root = {}
    stack = [root]
    tok = re.compile(r'^\s*(\w+)\s*(\{|:\s*(.*))\s*$')
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.strip() == "}":
                stack.pop()
                continue
            m = tok.match(line)
            if not m:
                continue
            key = m.group(1)
            if m.group(2) == "{":
                node = {}
                stack[-1].setdefault(key, []).append(node)
                stack.append(node)
            else:
                v = m.group(3)
                if v.startswith('"'):
                    v = bytes(v[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")
                else:
                    v = int(v)
                stack[-1].setdefault(key, []).append(v)
    return root


def one(d, k, default=0):
    v = d.get(k)
    return v[0] if v else default


def rewrite_text(prog):
    fr = re.compile(r"^(\s*)([0-9a-f]+) (.*) \((.*)\)\s*$")
    for line in sys.stdin:
        m = fr.match(line)
        if m:
            ind, ip, sym, dso = m.groups()
            base = dso.rsplit("/", 1)[-1] if dso != "[unknown]" else "?"
            keep = (base == prog and "@plt" not in sym or dso == "[kernel.kallsyms]") and not sym.startswith("[unknown]")
            if not keep:
                line = "%s%s %s@%s (%s)\n" % (ind, ip, base, ip, dso)
        sys.stdout.write(line)


def stacks(side, prog, path):
    pb = parse_decoded(path)
    strings = pb.get("string_table", [])
    s = lambda i: strings[i] if i < len(strings) else ""
    types = [s(one(t, "type")) for t in pb.get("sample_type", [])]
    funcs = {one(f, "id"): s(one(f, "name")) for f in pb.get("function", [])}
    maps = {one(m, "id"): m for m in pb.get("mapping", [])}
    locs = {}
    for loc in pb.get("location", []):
        lines = loc.get("line", [])
        name = funcs.get(one(lines[-1], "function_id"), "") if lines else ""
        if side == "script":
            label = name
        else:
            addr = one(loc, "address")
            m = maps.get(one(loc, "mapping_id"))
            if m is None:
                label = "?@%x" % addr
            else:
                base = s(one(m, "filename")).rsplit("/", 1)[-1]
                if (base == prog or base == "[kernel.kallsyms]") and name and not re.match(r"^0x[0-9a-f]+$", name):
                    label = name
                else:
                    label = "%s@%x" % (base, addr - one(m, "memory_start") + one(m, "file_offset"))
        locs[one(loc, "id")] = label
    out = {}
    for smp in pb.get("sample", []):
        thread = ""
        for lab in smp.get("label", []):
            if s(one(lab, "key")) == "thread":
                thread = s(one(lab, "str"))
        frames = ";".join(locs[i] for i in reversed(smp.get("location_id", [])))
        for t, v in zip(types, smp.get("value", [])):
            if v:
                k = (t, thread, frames)
                out[k] = out.get(k, 0) + v
    for k in sorted(out):
        print("%s\t%s\t%s\t%d" % (k + (out[k],)))


def leaves(prog):
    hdr = re.compile(r"^(\S.*?)\s+(\d+)(?:/(\d+))?\s")
    fr = re.compile(r"^\s+([0-9a-f]+) (.*) \((.*)\)\s*$")
    out = {}
    thread = first = None

    def leaf(ip, sym, dso):
        sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
        base = dso.rsplit("/", 1)[-1] if dso != "[unknown]" else "?"
        if (base == prog and "@plt" not in sym or dso == "[kernel.kallsyms]") and \
                not sym.startswith("[unknown]") and ip == first:
            return sym
        return "%s@%s" % (base, first)

    for line in sys.stdin:
        if not line.strip():
            thread = None
            continue
        if not line[0].isspace():
            m = hdr.match(line)
            thread = m.group(1) if m else None
            first = None
            continue
        m = fr.match(line)
        if not m or thread is None:
            continue
        ip, sym, dso = m.groups()
        if first is None:
            first = ip  # the sample's leaf address
        if dso == "inlined":
            continue  # a call inlined at the address: its real function follows
        if first is not False:
            # the leaf's own frame, or (another address) perf named no file for it
            k = (thread, leaf(ip, sym, dso) if ip == first else "*@%s" % first)
            out[k] = out.get(k, 0) + 1
            first = False
    for k in sorted(out):
        print("samples\t%s\t%s\t%d" % (k + (out[k],)))


def leafmatch(want_path, got_path):
    def load(path):
        return [l.rstrip("\n").split("\t") for l in open(path) if l.strip()]
    got = {}
    for t, thread, lf, v in load(got_path):
        got[(thread, lf)] = got.get((thread, lf), 0) + int(v)
    bad = []
    wild = []
    for t, thread, lf, v in load(want_path):
        if lf.startswith("*@"):
            wild.append((thread, lf[2:], int(v)))
        elif got.get((thread, lf), 0) >= int(v):
            got[(thread, lf)] -= int(v)
        else:
            bad.append("perf script: %s %s %s; profkit: %d" % (thread, lf, v, got.get((thread, lf), 0)))
    for thread, addr, v in wild:
        for k in sorted(got):
            if k[0] == thread and k[1].endswith("@" + addr) and got[k] >= v:
                got[k] -= v
                break
        else:
            bad.append("perf script: %s *@%s %d; profkit: none at that address" % (thread, addr, v))
    bad += ["profkit only: %s %s %d" % (k + (n,)) for k, n in sorted(got.items()) if n]
    for b in bad:
        print(b)
    return 1 if bad else 0


def leafcut():
    out = {}
    for line in sys.stdin:
        t, thread, frames, v = line.rstrip("\n").split("\t")
        if t != "samples":
            continue
        k = (thread, frames.split(";")[-1])
        out[k] = out.get(k, 0) + int(v)
    for k in sorted(out):
        print("samples\t%s\t%s\t%d" % (k + (out[k],)))


def mappings(mmaps, buildids, path):
    pb = parse_decoded(path)
    strings = pb.get("string_table", [])
    s = lambda i: strings[i] if i < len(strings) else ""
    have = {}
    for m in pb.get("mapping", []):
        key = (one(m, "memory_start"), one(m, "memory_limit"), one(m, "file_offset"), s(one(m, "filename")))
        have[key] = s(one(m, "build_id"))
    want = set()
    rx = re.compile(r"PERF_RECORD_MMAP2? .*?: \[0x([0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)[ \]].*?\]: [-rwxps]+ (.*)$")
    rx1 = re.compile(r"PERF_RECORD_MMAP .*?: \[0x([0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)\]: [a-z] (.*)$")
    with open(mmaps, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = rx.search(line) or rx1.search(line)
            if not m:
                continue
            start, ln, off, name = int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16), m.group(4).strip()
            if name.startswith("[kernel.kallsyms]"):
                name = "[kernel.kallsyms]"
            want.add((start, start + ln, off, name))
    bad = 0
    for k in sorted(want - set(have)):
        print("missing mapping: %x-%x @%x %s" % k)
        bad += 1
    for k in sorted(set(have) - want):
        print("extra mapping: %x-%x @%x %s" % k)
        bad += 1
    ids = {}
    with open(buildids, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split(None, 1)
            if len(parts) == 2 and re.match(r"^[0-9a-f]+$", parts[0]):
                ids[parts[1].strip()] = parts[0]
    for k, b in have.items():
        if k[3] in ids and ids[k[3]] != b:
            print("build id of %s: perf %s, profkit %s" % (k[3], ids[k[3]], b or "(none)"))
            bad += 1
    print("%d mappings, %d build ids checked" % (len(want), len(ids)))
    return 1 if bad else 0


def times(perf_times, ff_json):
    import json
    want = {}
    with open(perf_times, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^\s*(.*?)\s+(\d+)\s+(\d+)\.(\d{6}):", line)
            if m:
                key = (m.group(1), int(m.group(2)))
                want.setdefault(key, []).append(int(m.group(3)) * 1000000 + int(m.group(4)))
    doc = json.load(open(ff_json, encoding="utf-8"))
    start = doc["meta"]["startTime"]
    got = {}
    for t in doc["threads"]:
        s = t["samples"]
        ts = s.get("time")
        if ts is None:
            acc, ts = 0.0, []
            for d in s.get("timeDeltas", []):
                acc += d
                ts.append(acc)
        key = (t["name"], int(t.get("tid", -1)))
        got.setdefault(key, []).extend((start + x) * 1000 for x in ts)
    bad = 0
    if sorted(want) != sorted(got):
        print("threads: perf %s, profkit %s" % (sorted(want), sorted(got)))
        return 1
    n = 0
    for k in want:
        a, b = want[k], sorted(got[k])
        if len(a) != len(b):
            print("%s: %d samples in perf, %d in profkit" % (k, len(a), len(b)))
            bad += 1
            continue
        for x, y in zip(a, b):
            n += 1
            if abs(x - y) > 1.0:
                print("%s: sample at %d us in perf, %.3f in profkit" % (k, x, y))
                bad += 1
                break
    print("%d sample times of %d threads checked" % (n, len(want)))
    return 1 if bad else 0


def fixcut(src, cut, dst):
    d = bytearray(open(src, "rb").read()[:cut])
    o = ">" if d[:8] == b"2ELIFREP" else "<"
    data_off = struct.unpack_from(o + "Q", d, 40)[0]
    pos = data_off
    while pos + 8 <= len(d):
        size = struct.unpack_from(o + "H", d, pos + 6)[0]
        if size < 8 or pos + size > len(d):
            break
        pos += size
    struct.pack_into(o + "Q", d, 48, pos - data_off)
    struct.pack_into(o + "4Q", d, 72, 0, 0, 0, 0)
    out = bytes(d[:pos])
    # perf needs the compressed feature (27) to read COMPRESSED records:
    # keep that one, from the whole file
    whole = open(src, "rb").read()
    bits = struct.unpack_from(o + "4Q", whole, 72)
    if bits[0] >> 27 & 1:
        table = struct.unpack_from(o + "Q", whole, 40)[0] + struct.unpack_from(o + "Q", whole, 48)[0]
        k = bin(bits[0] & ((1 << 27) - 1)).count("1")
        off, size = struct.unpack_from(o + "QQ", whole, table + 16 * k)
        head = bytearray(out)
        struct.pack_into(o + "4Q", head, 72, 1 << 27, 0, 0, 0)
        out = bytes(head) + struct.pack(o + "QQ", len(head) + 16, size) + whole[off:off + size]
    open(dst, "wb").write(out)


def cutpoint(src):
    d = open(src, "rb").read()
    o = ">" if d[:8] == b"2ELIFREP" else "<"
    pipe = struct.unpack_from(o + "Q", d, 8)[0] == 16
    pos = 16 if pipe else struct.unpack_from(o + "Q", d, 40)[0]
    end = len(d) if pipe else pos + struct.unpack_from(o + "Q", d, 48)[0]
    want = pos + (end - pos) * 2 // 3
    while pos + 8 <= end:
        size = struct.unpack_from(o + "H", d, pos + 6)[0]
        if pos + size > want and size > 8:
            return pos + 8 + (size - 8) // 2
        pos += size
    return want


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "text":
        rewrite_text(sys.argv[2])
    elif cmd == "stacks":
        stacks(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "leaves":
        leaves(sys.argv[2])
    elif cmd == "leafcut":
        leafcut()
    elif cmd == "leafmatch":
        sys.exit(leafmatch(sys.argv[2], sys.argv[3]))
    elif cmd == "mappings":
        sys.exit(mappings(sys.argv[2], sys.argv[3], sys.argv[4]))
    elif cmd == "times":
        sys.exit(times(sys.argv[2], sys.argv[3]))
    elif cmd == "cutpoint":
        print(cutpoint(sys.argv[2]))
    elif cmd == "fixcut":
        fixcut(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit("usage: perf_data_compare.py text|stacks|leaves|leafcut|leafmatch|mappings|times|cutpoint|fixcut ...")
