#!/usr/bin/env python3
"""Stacks as arrays of frame ids (the store as built) against stacks as
parent/frame pairs (the form the store had before), on one store's data
(docs/store.md). Run by bench/store_stacks.sh, which fills a SQLite store
and a ClickHouse one with `profkit store add`; this builds the pair form
from the store's arrays (a node per distinct prefix, its depth and label,
and each sampled stack's distinct labels in stack_keys) and measures, in
each engine, both forms' storage, writes (every profile's rows inserted
again, one transaction / one INSERT per table per profile, as `add` does),
`top`'s GROUP BYs and reading the aggregated stacks a tree or flame graph
is built from.

store_stacks.py SQLITE_DB OUTDIR [CLICKHOUSE_HTTP_URL DATABASE]

It reads the layout that decision was made on (stacks.frames as 8-byte
content ids, each frame's label in frames.key), which the store had up to
4b0028f; since then rows are named by small ids in varint blobs and
frames.key is not kept (docs/store.md, "Size"). To run it again, build and
fill the store from that commit (git worktree add DIR 4b0028f)."""
import hashlib
import json
import os
import sqlite3
import sys
import time
import urllib.parse
import urllib.request

SQLITE_DB, OUT = sys.argv[1], sys.argv[2]
CH = sys.argv[3] if len(sys.argv) > 4 else None
CHDB = sys.argv[4] if len(sys.argv) > 4 else None
RUNS = 3


def best(f):
    """The best of RUNS wall times of f() (the machine is shared), and its result."""
    ts, r = [], None
    for _ in range(RUNS):
        t = time.perf_counter()
        r = f()
        ts.append(time.perf_counter() - t)
    return min(ts), r


src = sqlite3.connect(SQLITE_DB)
if src.execute("SELECT count(*) FROM sqlite_master WHERE name = 'idents'").fetchone()[0]:
    sys.exit("store_stacks.py: %s has the store's later layout (small ids, no frames.key); "
             "fill it with a profkit built from 4b0028f (see this script's docstring)" % SQLITE_DB)
# the store's rows: one per sampled stack, its frames and their labels, root first
# (stacks.frames: 8-byte little-endian words; each frame's key in frames.key)
key_of = dict(src.execute("SELECT id, key FROM frames"))


def words(blob):
    return tuple(int.from_bytes(blob[i:i + 8], "little", signed=True) for i in range(0, len(blob), 8))


arrays_of = {i: (words(f), tuple(key_of[x] for x in words(f)))
             for i, f in src.execute("SELECT id, frames FROM stacks")}
# the pair form's node ids: a sampled stack keeps the store's id (samples
# name it), another prefix gets a 63-bit hash of its frames, as wide as the
# store's content ids (so the two forms' sizes compare)
node_ids = {fr: i for i, (fr, _) in arrays_of.items()}


def node_id(prefix):
    if not prefix:
        return 0
    i = node_ids.get(prefix)
    if i is None:
        i = int.from_bytes(hashlib.blake2b(repr(prefix).encode(), digest_size=8).digest(), "little") >> 1
        node_ids[prefix] = i
    return i


def path(i):
    """Frame ids and keys of sampled stack i, root first."""
    return arrays_of[i]


seqs = [s for (s,) in src.execute("SELECT seq FROM profiles ORDER BY seq")]
sel_version = "SELECT seq FROM labels WHERE key = 'version' AND value = '1.7'"
vtype = src.execute("SELECT vtype FROM profile_values LIMIT 1").fetchone()[0]
# each profile's rows in each form
per_profile = []
for seq in seqs:
    sampled = [s for (s,) in src.execute("SELECT DISTINCT stack FROM samples WHERE seq = ?", (seq,)) if s]
    pairs = {}
    for s in sampled:
        fr, ke = path(s)
        for d in range(len(fr), 0, -1):
            n = node_id(fr[:d])
            if n in pairs:
                break
            pairs[n] = (n, node_id(fr[:d - 1]), fr[d - 1], d, ke[d - 1])
    pairs = list(pairs.values())
    keys = []
    for s in sampled:
        for k in sorted(set(path(s)[1])):
            keys.append((s, k))
    arrays = [(s, path(s)[0], path(s)[1]) for s in sampled]
    per_profile.append((pairs, keys, arrays))
n_sample_stacks = len({a[0] for _, _, arr in per_profile for a in arr})
print("data: %d profiles, %d sample rows, %d distinct sampled stacks, %d stack rows (pairs, with prefixes), "
      "mean depth of a sampled stack %.1f" % (
          len(seqs), src.execute("SELECT count(*) FROM samples").fetchone()[0], n_sample_stacks, len(node_ids),
          sum(len(path(s)[0]) for s in {a[0] for _, _, arr in per_profile for a in arr}) / max(1, n_sample_stacks)))


# ---------------------------------------------------------------- SQLite
def sqlite_form(form):
    """A fresh SQLite file with this form's tables, written profile by profile."""
    name = os.path.join(OUT, "form_%s.sqlite" % form)
    if os.path.exists(name):
        os.remove(name)
    db = sqlite3.connect(name, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    if form == "pairs":
        db.execute("CREATE TABLE stacks (id INTEGER PRIMARY KEY, parent INTEGER NOT NULL, frame INTEGER NOT NULL,"
                   " depth INTEGER NOT NULL, leaf_key INTEGER NOT NULL)")
        db.execute("CREATE INDEX stacks_parent ON stacks (parent)")  # as the store has (for rm)
        db.execute("CREATE TABLE stack_keys (stack INTEGER NOT NULL, key INTEGER NOT NULL, PRIMARY KEY (stack, key))"
                   " WITHOUT ROWID")
    else:
        db.execute("CREATE TABLE stack_arrays (id INTEGER PRIMARY KEY, frames TEXT NOT NULL, keys TEXT NOT NULL)")
    t = time.perf_counter()
    for pairs, keys, arrays in per_profile:
        db.execute("BEGIN IMMEDIATE")
        if form == "pairs":
            db.executemany("INSERT OR IGNORE INTO stacks VALUES (?,?,?,?,?)", pairs)
            db.executemany("INSERT OR IGNORE INTO stack_keys VALUES (?,?)", keys)
        else:
            db.executemany("INSERT OR IGNORE INTO stack_arrays VALUES (?,?,?)",
                           [(s, json.dumps(list(f)), json.dumps(list(k))) for s, f, k in arrays])
        db.execute("COMMIT")
    write = time.perf_counter() - t
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("VACUUM")
    db.close()
    return name, write, os.path.getsize(name)


def sqlite_bench():
    print("== SQLite")
    res = {}
    for form in ("pairs", "arrays"):
        name, write, size = sqlite_form(form)
        res[form] = name
        print("sqlite %-6s: stack tables %.2f MB, rows written for %d profiles in %.2f s (%.0f profiles/s)" % (
            form, size / 1e6, len(seqs), write, len(seqs) / write))
    db = sqlite3.connect(SQLITE_DB)
    db.execute("ATTACH ? AS pa", (res["pairs"],))
    db.execute("ATTACH ? AS ar", (res["arrays"],))
    a = ("(SELECT stack, sum(value) AS v FROM main.samples WHERE vtype = %d AND seq IN (%s) GROUP BY stack)"
         % (vtype, sel_version))
    q = {
        "pairs top flat": "SELECT st.leaf_key, sum(a.v) FROM %s AS a JOIN pa.stacks AS st ON st.id = a.stack GROUP BY 1" % a,
        "pairs top cum": "SELECT k.key, sum(a.v) FROM %s AS a JOIN pa.stack_keys AS k ON k.stack = a.stack GROUP BY 1" % a,
        "arrays top flat": "SELECT json_extract(x.keys, '$[#-1]'), sum(a.v) FROM %s AS a JOIN ar.stack_arrays AS x"
                           " ON x.id = a.stack GROUP BY 1" % a,
        "arrays top cum": "SELECT k, sum(v) FROM (SELECT DISTINCT a.stack, j.value AS k, a.v FROM %s AS a"
                          " JOIN ar.stack_arrays AS x ON x.id = a.stack, json_each(x.keys) AS j) GROUP BY 1" % a,
    }
    out = {}
    for name, sql in q.items():
        t, rows = best(lambda: sorted(db.execute(sql).fetchall()))
        out[name] = rows
        print("sqlite %-16s: %.3f s (%d rows)" % (name, t, len(rows)))
    assert out["pairs top flat"] == sorted((int(k), v) for k, v in out["arrays top flat"]), "flat sums differ"
    assert out["pairs top cum"] == out["arrays top cum"], "cumulative sums differ"

    sums = "SELECT stack, thread, vtype, sum(value) FROM main.samples WHERE seq IN (%s) GROUP BY 1, 2, 3" % sel_version

    def tree_pairs():
        # as store_load.c: the sums, then the stacks level by level, 2000 ids a query
        rows = db.execute(sums).fetchall()
        have, want = {}, {r[0] for r in rows if r[0]}
        while want:
            ids = list(want)
            want = set()
            for i in range(0, len(ids), 2000):
                chunk = ",".join(str(x) for x in ids[i:i + 2000])
                for sid, par, fr, dep in db.execute(
                        "SELECT id, parent, frame, depth FROM pa.stacks WHERE id IN (%s)" % chunk):
                    have[sid] = (par, fr)
                    if par and par not in have:
                        want.add(par)
        return len(rows), len(have)

    def tree_arrays():
        rows = db.execute("SELECT s.stack, s.thread, s.vtype, s.v, x.frames FROM (SELECT stack, thread, vtype,"
                          " sum(value) AS v FROM main.samples WHERE seq IN (%s) GROUP BY 1, 2, 3) AS s"
                          " LEFT JOIN ar.stack_arrays AS x ON x.id = s.stack" % sel_version).fetchall()
        return len(rows), sum(len(json.loads(r[4])) for r in rows if r[4])

    for name, f in (("pairs tree load", tree_pairs), ("arrays tree load", tree_arrays)):
        t, r = best(f)
        print("sqlite %-16s: %.3f s (%d sums, %d stack rows or frames read)" % (name, t, r[0], r[1]))


# ---------------------------------------------------------------- ClickHouse
def ch(sql, data=None):
    """Runs sql (POSTed: a GET is read-only), or an INSERT of data's rows."""
    if data is None:
        url, data = CH + "/?" + urllib.parse.urlencode({"database": CHDB}), sql.encode()
    else:
        url = CH + "/?" + urllib.parse.urlencode({"database": CHDB, "query": sql})
    with urllib.request.urlopen(url, data=data) as r:
        return r.read().decode()


def ch_rows(sql):
    return [l.split("\t") for l in ch(sql + " FORMAT TabSeparated").splitlines()]


def tsv(rows):
    return "".join("\t".join(c if isinstance(c, str) else str(c) for c in r) + "\n" for r in rows).encode()


def arr(xs):
    return "[" + ",".join(str(x) for x in xs) + "]"


def clickhouse_bench():
    print("== ClickHouse %s" % ch("SELECT version()").strip())
    for t in ("st_pairs", "st_keys", "st_arrays"):
        ch("DROP TABLE IF EXISTS %s" % t)
    ch("CREATE TABLE st_pairs (id Int64, parent Int64, frame Int64, depth Int64, leaf_key Int64)"
       " ENGINE = ReplacingMergeTree ORDER BY id")
    ch("CREATE TABLE st_keys (stack Int64, key Int64) ENGINE = ReplacingMergeTree ORDER BY (stack, key)")
    ch("CREATE TABLE st_arrays (id Int64, frames Array(Int64), keys Array(Int64))"
       " ENGINE = ReplacingMergeTree ORDER BY id")
    # the same rows as the store's add sends: every profile's, one INSERT per table
    bodies = [(tsv(p), tsv(k), tsv((s, arr(f), arr(kk)) for s, f, kk in a)) for p, k, a in per_profile]
    for form, tables in (("pairs", (("st_pairs", 0), ("st_keys", 1))), ("arrays", (("st_arrays", 2),))):
        t = time.perf_counter()
        for b in bodies:
            for table, i in tables:
                ch("INSERT INTO %s FORMAT TabSeparated" % table, b[i])
        write = time.perf_counter() - t
        # merged: one row per key (OPTIMIZE may do nothing while background merges hold parts)
        for table, _ in tables:
            key = "(stack, key)" if table == "st_keys" else "id"
            for _ in range(100):
                ch("OPTIMIZE TABLE %s FINAL" % table)
                if ch("SELECT count() = uniqExact(%s) FROM %s" % (key, table)).strip() == "1":
                    break
                time.sleep(0.5)
        size = sum(int(ch("SELECT sum(bytes_on_disk) FROM system.parts WHERE database = '%s' AND table = '%s'"
                          " AND active" % (CHDB, table)).strip() or 0) for table, _ in tables)
        rows = sum(int(ch("SELECT count() FROM %s" % table).strip()) for table, _ in tables)
        print("clickhouse %-6s: stack tables %.2f MB on disk (%d rows, merged), written for %d profiles in %.2f s"
              " (%.0f profiles/s)" % (form, size / 1e6, rows, len(seqs), write, len(seqs) / write))
    sel = "SELECT seq FROM labels WHERE key = 'version' AND value = '1.7'"
    a = "(SELECT stack, sum(value) AS v FROM samples WHERE vtype = %d AND seq IN (%s) GROUP BY stack)" % (vtype, sel)
    q = {
        "pairs top flat": "SELECT leaf_key, sum(v) FROM %s ALL INNER JOIN (SELECT DISTINCT id AS stack, leaf_key"
                          " FROM st_pairs) USING stack GROUP BY leaf_key" % a,
        "pairs top cum": "SELECT key, sum(v) FROM %s ALL INNER JOIN (SELECT DISTINCT stack, key FROM st_keys)"
                         " USING stack GROUP BY key" % a,
        "arrays top flat": "SELECT keys[length(keys)] AS k, sum(v) FROM %s ALL INNER JOIN (SELECT id AS stack,"
                           " any(keys) AS keys FROM st_arrays GROUP BY id) USING stack GROUP BY k" % a,
        "arrays top cum": "SELECT k, sum(v) FROM (SELECT v, keys FROM %s ALL INNER JOIN (SELECT id AS stack,"
                          " any(keys) AS keys FROM st_arrays GROUP BY id) USING stack)"
                          " ARRAY JOIN arrayDistinct(keys) AS k GROUP BY k" % a,
    }
    out = {}
    for name, sql in q.items():
        t, rows = best(lambda: sorted(tuple(int(c) for c in r) for r in ch_rows(sql)))
        out[name] = rows
        print("clickhouse %-16s: %.3f s (%d rows)" % (name, t, len(rows)))
    assert out["pairs top flat"] == out["arrays top flat"], "flat sums differ"
    assert out["pairs top cum"] == out["arrays top cum"], "cumulative sums differ"
    sums = "SELECT stack, thread, vtype, sum(value) FROM samples WHERE seq IN (%s) GROUP BY stack, thread, vtype" % sel

    def tree_pairs():
        rows = ch_rows(sums)
        have, want = {}, {int(r[0]) for r in rows if r[0] != "0"}
        while want:
            ids = list(want)
            want = set()
            for i in range(0, len(ids), 2000):
                for sid, par, fr, dep in ch_rows("SELECT id, parent, frame, depth FROM st_pairs WHERE id IN (%s)"
                                                 % ",".join(str(x) for x in ids[i:i + 2000])):
                    sid, par = int(sid), int(par)
                    have[sid] = (par, fr)
                    if par and par not in have:
                        want.add(par)
        return len(rows), len(have)

    def tree_arrays():
        rows = ch_rows("SELECT stack, thread, vtype, v, frames FROM (%s) ALL LEFT JOIN (SELECT id AS stack,"
                       " any(frames) AS frames FROM st_arrays GROUP BY id) USING stack"
                       % sums.replace("sum(value)", "sum(value) AS v"))
        return len(rows), sum(len(json.loads(r[4])) for r in rows)

    for name, f in (("pairs tree load", tree_pairs), ("arrays tree load", tree_arrays)):
        t, r = best(f)
        print("clickhouse %-16s: %.3f s (%d sums, %d stack rows or frames read)" % (name, t, r[0], r[1]))


sqlite_bench()
if CH:
    clickhouse_bench()
