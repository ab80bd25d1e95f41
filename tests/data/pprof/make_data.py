#!/usr/bin/env python3
"""Writes the hand-made pprof test files of this directory (ok_* must read,
bad_* must fail with the message in bad_*.expect). Run it here; the outputs
are committed. Field numbers: see src/formats/pprof/pprof.c."""


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def tag(num, wt):
    return varint(num << 3 | wt)


def vfield(num, v):
    return tag(num, 0) + varint(v)


def lfield(num, payload):
    return tag(num, 2) + varint(len(payload)) + payload


def packed(num, vals):
    return lfield(num, b"".join(varint(v) for v in vals))


def vt(t, u):
    return vfield(1, t) + vfield(2, u)


STRINGS = ["", "samples", "count", "cpu", "nanoseconds", "main", "worker", "inl",
           "outer", "a.c", "/bin/app", "thread", "pid", "a comment", "leaf"]
S = {s: i for i, s in enumerate(STRINGS)}


def strings(table=STRINGS):
    return b"".join(lfield(6, s.encode()) for s in table)


def line(fid, ln):
    return lfield(4, vfield(1, fid) + vfield(2, ln))


def label(key, s=0, num=0):
    body = vfield(1, key)
    if s:
        body += vfield(2, s)
    if num:
        body += vfield(3, num)
    return lfield(3, body)


def labelled(labels):
    """One sample (location 1, value 1) with the given Label fields."""
    return (lfield(1, vt(S["samples"], S["count"])) + lfield(4, vfield(1, 1))
            + lfield(2, packed(1, [1]) + vfield(2, 1) + b"".join(labels)) + strings())


def full_profile():
    """Samples before the locations they use, inline frames, both encodings
    of repeated fields, labels, unknown fields of every wire type."""
    out = lfield(1, vt(S["samples"], S["count"]))
    out += lfield(1, vt(S["cpu"], S["nanoseconds"]))
    # packed ids and values, thread label
    out += lfield(2, packed(1, [3, 2]) + packed(2, [2, 20]) + label(S["thread"], S["worker"]))
    # unpacked ids and values, another label key (kept as a summary)
    out += lfield(2, vfield(1, 1) + vfield(1, 2) + vfield(2, 5) + vfield(2, 50) + label(S["pid"], num=42))
    out += lfield(4, vfield(1, 1) + vfield(2, 1) + vfield(3, 0x1000) + line(1, 10))
    # location 2: inlined: Line[0] = inl (innermost) inside outer
    out += lfield(4, vfield(1, 2) + vfield(2, 1) + vfield(3, 0x2000) + line(2, 20) + line(3, 30))
    # location 3: unsymbolized, plus unknown fields of wire types 0, 1, 2, 5
    out += lfield(4, vfield(1, 3) + vfield(3, 0x3abc) + vfield(9, 7) + tag(10, 1) + bytes(8)
                  + lfield(11, b"xyz") + tag(12, 5) + bytes(4))
    out += lfield(5, vfield(1, 1) + vfield(2, S["leaf"]) + vfield(4, S["a.c"]) + vfield(5, 9))
    out += lfield(5, vfield(1, 2) + vfield(2, S["inl"]) + vfield(4, S["a.c"]))
    out += lfield(5, vfield(1, 3) + vfield(2, S["outer"]) + vfield(4, S["a.c"]))
    out += lfield(3, vfield(1, 1) + vfield(2, 0x1000) + vfield(3, 0x4000) + vfield(5, S["/bin/app"]))
    out += strings()
    out += vfield(9, 1700000000000000000) + vfield(10, 2000000000)
    out += lfield(11, vt(S["cpu"], S["nanoseconds"])) + vfield(12, 10000000)
    out += vfield(13, S["a comment"])
    out += vfield(14, S["samples"])  # default: the first sample type, not the last
    out += vfield(99, 1) + tag(98, 1) + bytes(8)
    return out


def minimal():
    return lfield(1, vt(S["samples"], S["count"])) + lfield(2, vfield(1, 1) + vfield(2, 3)) \
        + lfield(4, vfield(1, 1) + vfield(3, 0x10)) + strings()


def go_runtime_order():
    """As the Go runtime writes it: time_nanos and period_type first."""
    return vfield(9, 1700000000000000000) + lfield(11, vt(S["cpu"], S["nanoseconds"])) \
        + vfield(12, 10000000) + lfield(1, vt(S["samples"], S["count"])) \
        + lfield(1, vt(S["cpu"], S["nanoseconds"])) + lfield(2, packed(1, [1]) + packed(2, [1, 10000000])) \
        + lfield(4, vfield(1, 1) + vfield(3, 0x10)) + strings()


def empty_sample_type():
    """A Go goroutine profile as Parca stores it: one sample type with
    neither type nor unit (an empty message), Go reads it."""
    names = ["", "runtime.gopark", "main.main", "/src/main.go"]
    return lfield(1, b"") + lfield(2, packed(1, [1, 2]) + packed(2, [3])) \
        + lfield(2, packed(1, [2]) + packed(2, [1])) \
        + lfield(4, vfield(1, 1) + vfield(3, 0x10) + line(1, 300)) \
        + lfield(4, vfield(1, 2) + vfield(3, 0x20) + line(2, 12)) \
        + lfield(5, vfield(1, 1) + vfield(2, 1) + vfield(4, 3)) \
        + lfield(5, vfield(1, 2) + vfield(2, 2) + vfield(4, 3)) + strings(names)


def nul_name(every=bytes(range(256))):
    """A function whose name holds the bytes `every`, NUL first."""
    return lfield(1, vt(1, 2)) + lfield(2, packed(1, [1]) + packed(2, [7])) \
        + lfield(4, vfield(1, 1) + vfield(3, 0x10) + line(1, 5)) \
        + lfield(5, vfield(1, 1) + vfield(2, 3)) \
        + lfield(6, b"") + lfield(6, b"samples") + lfield(6, b"count") + lfield(6, every)


def delta():
    """A delta profile (pprof -diff_base): under main, one stack lost 32768
    and another gained as much, so main's subtree sums to 0; elsewhere
    another root gained 5."""
    names = ["", "samples", "count", "main", "old", "new", "other"]
    return lfield(1, vt(1, 2)) \
        + lfield(2, packed(1, [2, 1]) + packed(2, [-32768])) \
        + lfield(2, packed(1, [3, 1]) + packed(2, [32768])) \
        + lfield(2, packed(1, [4]) + packed(2, [5])) \
        + lfield(4, vfield(1, 1) + vfield(3, 0x10) + line(1, 1)) \
        + lfield(4, vfield(1, 2) + vfield(3, 0x20) + line(2, 2)) \
        + lfield(4, vfield(1, 3) + vfield(3, 0x30) + line(3, 3)) \
        + lfield(4, vfield(1, 4) + vfield(3, 0x40) + line(4, 4)) \
        + lfield(5, vfield(1, 1) + vfield(2, 3)) + lfield(5, vfield(1, 2) + vfield(2, 4)) \
        + lfield(5, vfield(1, 3) + vfield(2, 5)) + lfield(5, vfield(1, 4) + vfield(2, 6)) \
        + strings(names)


def inline_values():
    """helper inlined into work on the stacks with samples, a real call on
    the stacks with cpu: marked inlined for one value type, not for the
    other ("partial-inline" over both)."""
    names = ["", "samples", "count", "cpu", "nanoseconds", "main", "work", "helper", "x.c"]
    return lfield(1, vt(1, 2)) + lfield(1, vt(3, 4)) \
        + lfield(2, packed(1, [2, 1]) + packed(2, [10, 0])) \
        + lfield(2, packed(1, [3, 4, 1]) + packed(2, [0, 7000])) \
        + lfield(4, vfield(1, 1) + vfield(3, 0x10) + line(1, 3)) \
        + lfield(4, vfield(1, 2) + vfield(3, 0x20) + line(3, 12) + line(2, 6)) \
        + lfield(4, vfield(1, 3) + vfield(3, 0x30) + line(3, 11)) \
        + lfield(4, vfield(1, 4) + vfield(3, 0x40) + line(2, 7)) \
        + lfield(5, vfield(1, 1) + vfield(2, 5) + vfield(4, 8)) \
        + lfield(5, vfield(1, 2) + vfield(2, 6) + vfield(4, 8)) \
        + lfield(5, vfield(1, 3) + vfield(2, 7) + vfield(4, 8)) \
        + strings(names)


def inline_recursion():
    """work calls itself inlined (a location of two work lines), the inner
    one calling helper; and work alone: --collapse-recursion keeps the
    outer, real frame."""
    names = ["", "samples", "count", "main", "work", "helper", "x.c"]
    return lfield(1, vt(1, 2)) \
        + lfield(2, packed(1, [3, 2, 1]) + packed(2, [10])) \
        + lfield(2, packed(1, [4, 1]) + packed(2, [5])) \
        + lfield(4, vfield(1, 1) + vfield(3, 0x10) + line(1, 3)) \
        + lfield(4, vfield(1, 2) + vfield(3, 0x20) + line(2, 7) + line(2, 6)) \
        + lfield(4, vfield(1, 3) + vfield(3, 0x30) + line(3, 11)) \
        + lfield(4, vfield(1, 4) + vfield(3, 0x40) + line(2, 8)) \
        + lfield(5, vfield(1, 1) + vfield(2, 3) + vfield(4, 6)) \
        + lfield(5, vfield(1, 2) + vfield(2, 4) + vfield(4, 6)) \
        + lfield(5, vfield(1, 3) + vfield(2, 5) + vfield(4, 6)) \
        + strings(names)


FILES = {
    "ok_empty_sample_type.pb": empty_sample_type(),
    # NUL first, then text and control bytes that break no line: JSON
    # formats carry it whole (\u0000 ...), so it round-trips everywhere
    "ok_nul_name.pb": nul_name(b"\x00\x01\x02\x03go.shape.int_0\x10\x1b\x7f"),
    # every byte 0x00-0xff: pprof and folded keep them all; not ok_, since a
    # JSON writer cannot hold bytes that are not UTF-8 (tests/cli/pprof_cli.sh)
    "every_byte_name.pb": nul_name(),
    "ok_delta.pb": delta(),
    "ok_go_order.pb": go_runtime_order(),
    "ok_full.pb": full_profile(),
    # not ok_: made for the page's inline marks (tests/js/query_marks_browser.mjs),
    # no reason for every reader sweep to take it
    "inline_values.pb": inline_values(),
    "inline_recursion.pb": inline_recursion(),
    "ok_minimal.pb": minimal(),
    # no sample types, no samples: an empty profile
    "ok_empty_profile.pb": strings([""]),
    # a varint that never ends (the last byte has its high bit set)
    "bad_trunc_varint.pb": lfield(1, vt(1, 2)) + strings() + b"\x60\xff\xff",
    # a length that runs past the end of the input
    "bad_len_past_end.pb": lfield(1, vt(1, 2)) + strings() + tag(4, 2) + varint(100) + b"\x08\x01",
    # a function name index beyond the string table
    "bad_string_index.pb": minimal() + lfield(5, vfield(1, 1) + vfield(2, 77)),
    # a sample whose location id is not defined anywhere
    "bad_location_id.pb": lfield(1, vt(1, 2)) + lfield(2, packed(1, [1, 99]) + vfield(2, 1))
    + lfield(4, vfield(1, 1)) + strings(),
    "bad_mapping_id.pb": lfield(1, vt(1, 2)) + lfield(4, vfield(1, 1) + vfield(2, 5)) + strings(),
    "bad_function_id.pb": lfield(1, vt(1, 2)) + lfield(4, vfield(1, 1) + line(4, 1)) + strings(),
    "bad_duplicate_id.pb": lfield(1, vt(1, 2)) + lfield(4, vfield(1, 1)) + lfield(4, vfield(1, 1)) + strings(),
    "bad_zero_id.pb": lfield(1, vt(1, 2)) + lfield(5, vfield(2, 1)) + strings(),
    "bad_value_count.pb": lfield(1, vt(1, 2)) + lfield(1, vt(3, 4)) + lfield(2, vfield(2, 1)) + strings(),
    "bad_first_string.pb": lfield(1, vt(1, 2)) + strings(["x"] + STRINGS[1:]),
    "bad_wire3.pb": lfield(1, vt(1, 2)) + tag(20, 3) + tag(20, 4),
    "bad_wire4.pb": lfield(1, vt(1, 2)) + lfield(4, vfield(1, 1) + tag(7, 4)),
    "bad_wire6.pb": lfield(1, vt(1, 2)) + tag(3, 6),
    "bad_wire7.pb": lfield(1, vt(1, 2)) + lfield(2, tag(1, 7)) + strings(),
    "bad_wrong_wire_type.pb": lfield(1, vt(1, 2)) + vfield(4, 1),
    "bad_packed_cut.pb": lfield(1, vt(1, 2)) + lfield(2, lfield(1, b"\x81")) + strings(),
    # labels: a string value index beyond the string table, a unit index
    # beyond it, a number sent as bytes
    "bad_label_str.pb": labelled([lfield(3, vfield(1, S["leaf"]) + vfield(2, 99))]),
    "bad_label_unit.pb": labelled([lfield(3, vfield(1, S["leaf"]) + vfield(3, 5) + vfield(4, 40))]),
    "bad_label_num.pb": labelled([lfield(3, vfield(1, S["leaf"]) + lfield(3, b"\x05"))]),
    # string and numeric labels (with and without a unit; one with neither,
    # which Go drops too); the same stack twice with other labels stays two rows
    "ok_labels.pb": labelled([label(S["leaf"], s=S["a.c"]),
                              lfield(3, vfield(1, S["samples"]) + vfield(3, 2048) + vfield(4, S["nanoseconds"])),
                              label(S["count"], num=64), label(S["outer"])])
    + lfield(2, packed(1, [1]) + vfield(2, 5) + label(S["leaf"], s=S["inl"])),
}

if __name__ == "__main__":
    for name, data in FILES.items():
        with open(name, "wb") as f:
            f.write(data)
