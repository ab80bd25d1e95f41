#!/usr/bin/env python3
"""Prints what a SQLite store holds, for comparing two stores: the row
count of every table, and the content of each shared table's rows with
every row it names resolved to that row's content (a row's id is a small
number of its store, given in the order rows were added, so two stores of
the same profiles hold the same contents under other ids). idents have no
content but their content id (h), the same in every store.

store_tables.py DB"""
import sqlite3
import sys
import zlib

OWN = ["profiles", "labels", "meta", "profile_values", "profile_threads", "samples", "removed"]
SHARED = ["strings", "functions", "mappings", "frames", "stacks", "labelsets", "idents"]


def varints(blob):
    """The words of an array blob: 7 bits a byte, low first."""
    out, v, shift = [], 0, 0
    for b in blob:
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            out.append(v)
            v, shift = 0, 0
    if shift:
        raise SystemExit("a blob cut inside a varint")
    return out


def deltas(blob):
    """A stack's frames: each id less the one before, zigzag."""
    out, prev = [], 0
    for u in varints(blob):
        prev += (u >> 1) ^ -(u & 1)
        out.append(prev)
    return out


def string_block(block, blob):
    """The strings of a block (docs/store.md): (id, text) pairs."""
    n = 0
    while True:  # the varint length of the text, then it compressed
        n += 1
        if not blob[n - 1] & 0x80:
            break
    raw = zlib.decompress(blob[n:])
    if len(raw) != varints(blob[:n])[0]:
        raise SystemExit("a string block of another length than it says")
    at, count, shift = 0, 0, 0

    def varint():
        nonlocal at
        v, shift = 0, 0
        while True:
            b = raw[at]
            at += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v
    count = varint()
    places, lens, place = [], [], -1
    for _ in range(count):
        place += varint() + 1
        places.append(place)
        lens.append(varint())
    out = []
    for place, ln in zip(places, lens):
        out.append((block * 256 + place + 1, raw[at:at + ln]))
        at += ln
    if at != len(raw):
        raise SystemExit("a string block with bytes after its strings")
    return out


def string_block_blob(block, pairs):
    """The blob of a block of (id, text) pairs, ids ascending (a store's
    rows written otherwise: tests/cli/store_ingest.sh)."""
    def varint(v):
        out = bytearray()
        while True:
            out.append((v & 0x7F) | (0x80 if v >> 7 else 0))
            v >>= 7
            if not v:
                return bytes(out)
    raw, place = bytearray(varint(len(pairs))), -1
    for i, text in pairs:
        p = i - block * 256 - 1
        raw += varint(p - place - 1) + varint(len(text))
        place = p
    for _, text in pairs:
        raw += text
    return varint(len(raw)) + zlib.compress(bytes(raw), 9)


def all_strings(db):
    """Every (id, text) of the store's string blocks."""
    return [p for block, blob in db.execute("SELECT block, texts FROM strings") for p in string_block(block, blob)]


def main():
    db = sqlite3.connect(sys.argv[1])
    db.text_factory = bytes
    rows = {}
    strings = rows["strings"] = dict(all_strings(db))
    for t in OWN + SHARED:
        # the strings: how many there are in the blocks
        print(t, len(strings) if t == "strings" else db.execute("SELECT count(*) FROM " + t).fetchone()[0])

    def s(i):
        return None if i == 0 else strings[i]

    rows["functions"] = {r[0]: (s(r[1]), s(r[2]), s(r[3]), s(r[4]), r[5]) for r in db.execute(
        "SELECT id, name, system_name, file, module, start_line FROM functions")}
    rows["mappings"] = {r[0]: (r[1], r[2], r[3], s(r[4]), s(r[5])) for r in db.execute(
        "SELECT id, memory_start, memory_end, file_offset, path, build_id FROM mappings")}
    rows["frames"] = {r[0]: (r[1], rows["functions"].get(r[2]), r[3], r[4], rows["mappings"].get(r[5]), r[6], r[7])
                      for r in db.execute("SELECT id, address, function, line, col, mapping, inline_depth, key FROM frames")}
    rows["stacks"] = {i: tuple(rows["frames"].get(f) for f in deltas(b))
                      for i, b in db.execute("SELECT id, frames FROM stacks")}

    def labelset(words):
        out = []
        for k in range(0, len(words) - 3, 4):
            key, kind, value, unit = words[k:k + 4]
            out.append((s(key), kind, s(value) if kind == 0 else value, s(unit) if kind == 1 else unit))
        return tuple(out)

    rows["labelsets"] = {i: labelset(varints(b)) for i, b in db.execute("SELECT id, labels FROM labelsets")}
    rows["idents"] = {i: h for i, h in db.execute("SELECT id, h FROM idents")}
    for t in SHARED:
        for line in sorted(repr(v) for v in rows[t].values()):
            print(t, line)


if __name__ == "__main__":
    main()
