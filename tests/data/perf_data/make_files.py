#!/usr/bin/env python3
"""Writes the hand-made perf.data files of this directory (run it here:
`python3 make_files.py`; `--seeds DIR` writes the fuzzing seeds of
fuzz/corpus/perf_data/ instead); the real recordings are made by record.sh.

ok_synthetic*.data: one small recording in the forms perf writes it
(file and pipe mode, little- and big-endian, and with its records
zstd-compressed as perf record -z writes them), every kind of record the
reader replays: two events told apart by their IDENTIFIER, a kernel
mapping, a process with two mappings, a thread named by COMM after FORK,
a new process whose FORK copies its parent's mappings and a mapping that
overlaps an inherited one, call chains with kernel and user parts, records
out of time order. tests/unit/test_perf_data.c checks what they read to.

bad_*.data: one fault each; bad_*.data.expect (beside it) is profkit's
exact message, checked by tests/cli/bad_files.sh. The layouts follow
tools/perf/Documentation/perf.data-file-format.txt and
include/uapi/linux/perf_event.h.
"""
import struct

# sample_type bits
IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD = 1, 2, 4, 8, 16, 32, 64, 128, 256
IDENTIFIER = 1 << 16
# record types
MMAP, COMM, EXIT, FORK, SAMPLE, MMAP2 = 1, 3, 4, 7, 9, 10
HEADER_ATTR, HEADER_BUILD_ID, EVENT_UPDATE, HEADER_FEATURE, COMPRESSED = 64, 67, 78, 80, 81
FINISHED_ROUND = 68
# misc
KERNEL, USER = 1, 2
COMM_EXEC = 1 << 13
# features
F_BUILD_ID, F_HOSTNAME, F_OSRELEASE, F_VERSION, F_ARCH, F_CMDLINE, F_EVENT_DESC = 2, 3, 4, 5, 6, 11, 12
CONTEXT_KERNEL = (1 << 64) - 128
CONTEXT_USER = (1 << 64) - 512


class Enc:
    def __init__(self, be):
        self.be = be
        self.o = ">" if be else "<"

    def p(self, fmt, *v):
        return struct.pack(self.o + fmt, *v)

    def flags(self, bits):
        """The attr's bitfield word: a big-endian writer numbers bits from
        each byte's top."""
        b = bytearray(8)
        for i in bits:
            b[i // 8] |= 1 << ((7 - i % 8) if self.be else (i % 8))
        return bytes(b)

    def attr(self, type_, config, sample_type, period=4000, freq=True, sample_id_all=True,
             read_format=0, size=128):
        bits = [0, 1, 8, 9, 13]  # disabled, inherit, mmap, comm, task
        if freq:
            bits.append(10)
        if sample_id_all:
            bits.append(18)
        a = self.p("IIQQQQ", type_, size, config, period, sample_type, read_format) + self.flags(bits)
        return a + bytes(size - len(a))

    def rec(self, type_, misc, body):
        body += bytes(-len(body) % 8)
        return self.p("IHH", type_, misc, 8 + len(body)) + body

    def trailer(self, st, pid, tid, time, ident):
        """The sample_id_all trailer for sample_type st."""
        t = b""
        if st & TID:
            t += self.p("II", pid & 0xffffffff, tid & 0xffffffff)
        if st & TIME:
            t += self.p("Q", time)
        if st & ID:
            t += self.p("Q", ident)
        if st & CPU:
            t += self.p("II", 0, 0)
        if st & IDENTIFIER:
            t += self.p("Q", ident)
        return t

    def cstr(self, s):
        b = s.encode() + b"\0"
        return b + bytes(-len(b) % 8)

    def mmap2(self, st, misc, pid, tid, addr, length, pgoff, name, time, ident=0):
        body = self.p("IIQQQIIQQII", pid & 0xffffffff, tid, addr, length, pgoff, 8, 1, 1234, 0, 5, 2)
        return self.rec(MMAP2, misc, body + self.cstr(name) + self.trailer(st, pid, tid, time, ident))

    def mmap(self, st, misc, pid, tid, addr, length, pgoff, name, time, ident=0):
        body = self.p("IIQQQ", pid & 0xffffffff, tid, addr, length, pgoff)
        return self.rec(MMAP, misc, body + self.cstr(name) + self.trailer(st, pid, tid, time, ident))

    def comm(self, st, misc, pid, tid, name, time, ident=0):
        body = self.p("II", pid, tid) + self.cstr(name)
        return self.rec(COMM, misc, body + self.trailer(st, pid, tid, time, ident))

    def fork(self, st, pid, ppid, tid, ptid, time, ident=0, type_=FORK):
        body = self.p("IIIIQ", pid, ppid, tid, ptid, time)
        return self.rec(type_, 0, body + self.trailer(st, pid, tid, time, ident))

    def sample(self, st, misc, ident, ip, pid, tid, time, period, chain, cpu=0):
        b = b""
        if st & IDENTIFIER:
            b += self.p("Q", ident)
        if st & IP:
            b += self.p("Q", ip)
        if st & TID:
            b += self.p("II", pid, tid)
        if st & TIME:
            b += self.p("Q", time)
        if st & ID:
            b += self.p("Q", ident)
        if st & CPU:
            b += self.p("II", cpu, 0)
        if st & PERIOD:
            b += self.p("Q", period)
        if st & CALLCHAIN:
            b += self.p("Q", len(chain)) + b"".join(self.p("Q", x) for x in chain)
        return self.rec(SAMPLE, misc, b)

    def string(self, s):
        b = s.encode() + b"\0"
        b += bytes(-len(b) % 64)
        return self.p("I", len(b)) + b

    def build_id(self, pid, bid, name, misc):
        body = self.p("i", pid) + bid + bytes(20 - len(bid)) + bytes([len(bid), 0, 0, 0]) + self.cstr(name)
        return self.p("IHH", 0, misc | (1 << 15), 8 + len(body)) + body

    def file(self, attrs, data, features, data_size=None, attr_size=None):
        """attrs: [(attr bytes, [ids])]; features: {bit: bytes}."""
        out = bytearray(104)
        ids_at = []
        for _, ids in attrs:
            ids_at.append((len(out), 8 * len(ids)))
            out += b"".join(self.p("Q", i) for i in ids)
        attrs_off = len(out)
        for (a, _), (off, size) in zip(attrs, ids_at):
            out += a + self.p("QQ", off, size)
        asz = attr_size if attr_size is not None else (len(attrs[0][0]) + 16 if attrs else 144)
        data_off = len(out)
        out += data
        dsize = len(data) if data_size is None else data_size
        table = len(out)
        bits = sorted(features)
        out += bytes(16 * len(bits))
        for i, f in enumerate(bits):
            struct.pack_into(self.o + "QQ", out, table + 16 * i, len(out), len(features[f]))
            out += features[f]
        bitmap = [0, 0, 0, 0]
        for f in bits:
            bitmap[f // 64] |= 1 << (f % 64)
        magic = b"2ELIFREP" if self.be else b"PERFILE2"
        out[0:104] = magic + self.p("QQQQQQQQ4Q", 104, asz, attrs_off, len(out[attrs_off:data_off]),
                                    data_off, dsize, 0, 0, *bitmap)
        return bytes(out)

    def pipe(self, records):
        return (b"2ELIFREP" if self.be else b"PERFILE2") + self.p("Q", 16) + b"".join(records)


ST = IDENTIFIER | IP | TID | TIME | CPU | PERIOD | CALLCHAIN
KTEXT = 0xffffffff81000000
PROG = 0x400000
LIB = 0x7f0000000000


def synthetic(e):
    """The records and metadata of the ok_synthetic files."""
    attrs = [(e.attr(1, 0, ST), [11, 12]), (e.attr(1, 2, ST, period=1, freq=False), [21])]
    names = ["cpu-clock", "page-faults"]
    t0 = 1000000000
    R = []
    # perf's synthesized records first (time 0)
    R.append(e.mmap(ST, KERNEL, -1, 0, KTEXT, 0x1000000, KTEXT, "[kernel.kallsyms]_text", 0))
    R.append(e.comm(ST, 0, 100, 100, "perf-exec", 0))
    # the exec, its mappings
    R.append(e.comm(ST, COMM_EXEC, 100, 100, "prog", t0 + 10, 11))
    R.append(e.mmap2(ST, USER, 100, 100, PROG, 0x10000, 0, "/nonexistent/prog", t0 + 20, 11))
    R.append(e.mmap2(ST, USER, 100, 100, LIB, 0x100000, 0x1000, "/nonexistent/libx.so", t0 + 30, 11))
    # a sample of the main thread: user only
    R.append(e.sample(ST, USER, 11, PROG + 0x150, 100, 100, t0 + 100, 250000,
                      [CONTEXT_USER, PROG + 0x150, PROG + 0x220, LIB + 0x5000]))
    # a thread, named by the parent's comm until its own COMM
    R.append(e.fork(ST, 100, 100, 101, 100, t0 + 200, 11))
    R.append(e.sample(ST, USER, 12, PROG + 0x300, 100, 101, t0 + 300, 250000,
                      [CONTEXT_USER, PROG + 0x300, LIB + 0x6000]))
    # this one is later in the file but earlier in time than the next COMM
    R.append(e.sample(ST, KERNEL, 12, KTEXT + 0x42, 100, 101, t0 + 500, 500000,
                      [CONTEXT_KERNEL, KTEXT + 0x42, KTEXT + 0x1000, CONTEXT_USER, PROG + 0x300, LIB + 0x6000]))
    R.append(e.comm(ST, 0, 100, 101, "worker", t0 + 400, 12))
    # a page fault sample of the main thread, in an unmapped place
    R.append(e.sample(ST, USER, 21, 0x1234, 100, 100, t0 + 600, 1, [CONTEXT_USER, 0x1234, PROG + 0x220, LIB + 0x5000]))
    # a new process: a copy of the maps, then a mapping over part of prog
    R.append(e.fork(ST, 200, 100, 200, 100, t0 + 700, 11))
    R.append(e.mmap2(ST, USER, 200, 200, PROG + 0x8000, 0x1000, 0, "/nonexistent/other", t0 + 800, 11))
    R.append(e.sample(ST, USER, 11, PROG + 0x150, 200, 200, t0 + 900, 250000,
                      [CONTEXT_USER, PROG + 0x8010, PROG + 0x150, LIB + 0x5000]))
    R.append(e.rec(FINISHED_ROUND, 0, b""))
    R.append(e.fork(ST, 200, 100, 200, 100, t0 + 950, 11, type_=EXIT))
    features = {
        F_HOSTNAME: e.string("synth"),
        F_OSRELEASE: e.string("6.1.0-test"),
        F_VERSION: e.string("6.1.99"),
        F_ARCH: e.string("x86_64"),
        F_CMDLINE: e.p("I", 3) + e.string("perf") + e.string("record") + e.string("./prog"),
        F_EVENT_DESC: e.p("II", 2, len(attrs[0][0])) + b"".join(
            a + e.p("I", len(ids)) + e.string(n) + b"".join(e.p("Q", i) for i in ids)
            for (a, ids), n in zip(attrs, names)),
        F_BUILD_ID: e.build_id(-1, bytes(range(1, 21)), "[kernel.kallsyms]", KERNEL)
        + e.build_id(100, bytes(range(0xa0, 0xb4)), "/nonexistent/prog", USER),
    }
    return attrs, names, R, features


def synthetic_file(be):
    e = Enc(be)
    attrs, _, R, features = synthetic(e)
    return e.file(attrs, b"".join(R), features)


def synthetic_compressed():
    """The file form, its records after the first two zstd-compressed into
    two COMPRESSED records (perf record -z: one stream, split anywhere)."""
    import subprocess
    e = Enc(False)
    attrs, _, R, features = synthetic(e)
    z = subprocess.run(["zstd", "-q", "-c", "--no-check"], input=b"".join(R[2:]),
                       stdout=subprocess.PIPE, check=True).stdout
    half = len(z) // 2
    # (perf does not pad these records to 8 bytes)
    comp = lambda b: e.p("IHH", COMPRESSED, 0, 8 + len(b)) + b
    data = b"".join(R[:2]) + comp(z[:half]) + comp(z[half:])
    return e.file(attrs, data, features)


def synthetic_pipe(be):
    e = Enc(be)
    attrs, names, R, features = synthetic(e)
    head = []
    for (a, ids), n in zip(attrs, names):
        head.append(e.rec(HEADER_ATTR, 0, a + b"".join(e.p("Q", i) for i in ids)))
        head.append(e.rec(EVENT_UPDATE, 0, e.p("QQ", 2, ids[0]) + e.cstr(n)))
    for f in (F_HOSTNAME, F_OSRELEASE, F_VERSION, F_ARCH, F_CMDLINE):
        head.append(e.rec(HEADER_FEATURE, 0, e.p("Q", f) + features[f]))
    bid = features[F_BUILD_ID]
    tail = []
    while bid:
        size = struct.unpack(e.o + "H", bid[6:8])[0]
        tail.append(e.p("I", HEADER_BUILD_ID) + bid[4:size])
        bid = bid[size:]
    return e.pipe(head + R + tail)


def simple(e, samples=3, st=IP | TID | TIME | PERIOD | CALLCHAIN):
    """One event, a process with one mapping, a few samples."""
    attrs = [(e.attr(1, 0, st), [7])]
    R = [e.comm(st, COMM_EXEC, 10, 10, "p", 1000),
         e.mmap2(st, USER, 10, 10, PROG, 0x1000, 0, "/nonexistent/p", 1001)]
    for i in range(samples):
        R.append(e.sample(st, USER, 7, PROG + 0x10 * i, 10, 10, 2000 + i, 100, [CONTEXT_USER, PROG + 0x10 * i, PROG + 0x800]))
    return attrs, R


def seeds(directory):
    """Fuzzing seeds (fuzz/corpus/perf_data/): samples with every field
    sample_type can ask for, and the records whose payload follows them."""
    import os
    e = Enc(False)
    every = (IDENTIFIER | IP | TID | TIME | ADDR | READ | CALLCHAIN | ID | CPU | PERIOD | (1 << 9)
             | (1 << 10) | (1 << 11) | (1 << 12) | (1 << 13) | (1 << 14) | (1 << 15) | (1 << 17)
             | (1 << 18) | (1 << 19) | (1 << 20) | (1 << 21) | (1 << 22) | (1 << 23))
    a = bytearray(e.attr(1, 0, every, read_format=1 | 2 | 4 | 8 | 16))
    struct.pack_into("<QQQ", a, 72, 1 << 17, 0b101, 0)  # branch hw_index, 2 user regs
    struct.pack_into("<Q", a, 96, 0b11)  # 2 intr regs
    b = e.p("Q", 5) + e.p("Q", PROG) + e.p("II", 10, 10) + e.p("Q", 3000) + e.p("Q", 0xdead)
    b += e.p("Q", 5) + e.p("Q", 0) + e.p("II", 0, 0) + e.p("Q", 100)
    b += e.p("QQQ", 2, 11, 12) + e.p("QQQ", 1, 5, 0) + e.p("QQQ", 2, 5, 0)  # READ group of 2
    b += e.p("QQQ", 2, CONTEXT_USER, PROG)  # CALLCHAIN
    b += e.p("I", 4) + b"raw!"  # RAW
    b += e.p("QQ", 1, 0) + e.p("QQQ", PROG, PROG + 4, 0)  # BRANCH_STACK with hw_idx
    b += e.p("Q", 1) + e.p("QQ", 1, 2)  # REGS_USER
    b += e.p("Q", 8) + b"stackdat" + e.p("Q", 8)  # STACK_USER
    b += e.p("QQQ", 1, 2, 3)  # WEIGHT, DATA_SRC, TRANSACTION
    b += e.p("Q", 1) + e.p("QQ", 1, 2)  # REGS_INTR
    b += e.p("QQQQ", 4, 5, 4096, 4096)  # PHYS_ADDR, CGROUP, page sizes
    b += e.p("Q", 8) + b"auxdata!"  # AUX
    R = [e.mmap(every, USER, 10, 10, PROG, 0x1000, 0, "/nonexistent/p", 1000, 5),
         e.rec(SAMPLE, USER, b),
         e.rec(2, 0, e.p("QQ", 5, 7) + e.trailer(every, 10, 10, 3001, 5)),  # LOST
         e.rec(13, 0, e.p("Q", 3) + e.trailer(every, 10, 10, 3002, 5))]  # LOST_SAMPLES
    os.makedirs(directory, exist_ok=True)
    write(os.path.join(directory, "every_field"), e.file([(bytes(a), [5])], b"".join(R), {}))
    # payloads after records: tracing data (padded to 8) and AUX trace
    attrs, R = simple(e)
    pipe = e.pipe([e.rec(HEADER_ATTR, 0, attrs[0][0] + e.p("Q", 7)),
                   e.rec(66, 0, e.p("I", 5)) + b"trace\0\0\0",
                   e.rec(71, 0, e.p("QQQIIII", 4, 0, 0, 0, 10, 0, 0)) + b"aux!"] + R)
    write(os.path.join(directory, "payloads"), pipe)
    # an empty COMPRESSED record, then one of zstd data
    attrs, R = simple(Enc(False))
    z = b"\x28\xb5\x2f\xfd\x00\x58\x11\x00\x00"  # a frame of nothing
    write(os.path.join(directory, "compressed_empty"),
          e.file(attrs, b"".join(R[:2]) + e.p("IHH", COMPRESSED, 0, 8) + e.p("IHH", COMPRESSED, 0, 8 + len(z)) + z, {}))
    # big-endian, old header without features
    e = Enc(True)
    attrs, R = simple(e)
    f = bytearray(e.file(attrs, b"".join(R), {}))
    struct.pack_into(">Q", f, 8, 72)
    write(os.path.join(directory, "be_old_header"), bytes(f))


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


def main():
    import sys
    if len(sys.argv) > 2 and sys.argv[1] == "--seeds":
        seeds(sys.argv[2])
        return
    for be in (False, True):
        sfx = "_be" if be else ""
        write("ok_synthetic%s.data" % sfx, synthetic_file(be))
        write("ok_synthetic_pipe%s.data" % sfx, synthetic_pipe(be))
    write("ok_synthetic_zstd.data", synthetic_compressed())

    e = Enc(False)
    attrs, R = simple(e)
    good = e.file(attrs, b"".join(R), {F_HOSTNAME: e.string("h")})
    data_off = 104 + 8 + 144

    write("bad_magic.data", b"PERFILE3" + good[8:])
    write("bad_version1.data", b"PERFFILE" + good[8:])
    write("bad_short_header.data", good[:40])
    write("bad_header_size.data", good[:8] + struct.pack("<Q", 64) + good[16:])
    write("bad_attr_size.data", good[:16] + struct.pack("<Q", 40) + good[24:])
    write("bad_attrs_past_end.data", good[:32] + struct.pack("<Q", 1 << 40) + good[40:])
    b = bytearray(good)
    struct.pack_into("<Q", b, 104 + 8 + 24, 1 << 30)  # sample_type of the attr
    write("bad_sample_type.data", bytes(b))
    b = bytearray(good)
    struct.pack_into("<Q", b, 104 + 8 + 128, 1 << 40)  # the attr's ids section
    write("bad_attr_ids.data", bytes(b))
    # a record whose size is under its own header's
    b = bytearray(good)
    struct.pack_into("<H", b, data_off + 6, 4)
    write("bad_record_size.data", bytes(b))
    # the data section says it ends inside the second record
    b = bytearray(e.file(attrs, b"".join(R), {}))
    struct.pack_into("<Q", b, 48, len(R[0]) + 8)
    write("bad_record_past_data.data", bytes(b))
    # a sample whose call chain count runs past the record
    R2 = list(R)
    s = bytearray(R2[2])
    struct.pack_into("<Q", s, 8 + 32, 1000)
    R2[2] = bytes(s)
    write("bad_sample_chain.data", e.file(attrs, b"".join(R2), {}))
    # an MMAP2 record too short for its fields
    R2 = list(R)
    R2[1] = e.rec(MMAP2, USER, e.p("IIQQ", 10, 10, PROG, 0x1000))
    write("bad_mmap_short.data", e.file(attrs, b"".join(R2), {}))
    # cut inside the third sample: the two before are kept
    whole = e.file(attrs, b"".join(R), {})
    write("bad_cut_record.data", whole[:data_off + sum(map(len, R[:4])) + 20])
    write("bad_cut_header.data", whole[:data_off + sum(map(len, R[:4])) + 5])
    # perf record killed: data size 0, no features
    write("bad_unfinished.data", e.file(attrs, b"".join(R), {}, data_size=0)[:data_off + sum(map(len, R))])
    # the features cut off after the data
    f2 = e.file(attrs, b"".join(R), {F_HOSTNAME: e.string("h"), F_OSRELEASE: e.string("r")})
    write("bad_cut_features.data", f2[:data_off + sum(map(len, R)) + 20])
    # a hostname feature whose string runs past its section
    feat = e.p("I", 64) + b"h\0"
    write("bad_feature_short.data", e.file(attrs, b"".join(R), {F_HOSTNAME: feat}))
    # two events, a sample whose identifier neither has
    st2 = IDENTIFIER | IP | TID | TIME | PERIOD | CALLCHAIN
    a2 = [(e.attr(1, 0, st2), [1]), (e.attr(1, 1, st2), [2])]
    R2 = [e.mmap2(st2, USER, 10, 10, PROG, 0x1000, 0, "/nonexistent/p", 1001, 1),
          e.sample(st2, USER, 1, PROG, 10, 10, 2000, 5, [CONTEXT_USER, PROG]),
          e.sample(st2, USER, 99, PROG, 10, 10, 2001, 5, [CONTEXT_USER, PROG]),
          e.sample(st2, USER, 99, PROG, 10, 10, 2002, 5, [CONTEXT_USER, PROG])]
    write("bad_unknown_id.data", e.file(a2, b"".join(R2), {}))
    # two events without an id: their records cannot be told apart
    st3 = IP | TID | TIME | PERIOD
    write("bad_no_ids.data", e.file([(e.attr(1, 0, st3), [1]), (e.attr(1, 1, st3), [2])], b"", {}))
    # pipe mode: cut inside a record; a sample before any attr; nothing at all
    st = IP | TID | TIME | PERIOD | CALLCHAIN
    pipe = e.pipe([e.rec(HEADER_ATTR, 0, attrs[0][0] + e.p("Q", 7))] + R)
    write("bad_pipe_cut.data", pipe[:len(pipe) - 9])
    write("bad_pipe_cut_header.data", pipe[:len(pipe) - len(R[-1]) + 3])
    write("bad_pipe_no_attr.data", e.pipe(R))
    write("bad_pipe_empty.data", e.pipe([]))
    # COMPRESSED records whose data is not zstd
    write("bad_compressed.data", e.file(attrs, b"".join(R[:2]) + e.rec(COMPRESSED, 0, b"not zstd"), {}))
    # zstd's magic, then damaged data
    write("bad_compressed_corrupt.data",
          e.file(attrs, b"".join(R[:2]) + e.rec(COMPRESSED, 0, b"\x28\xb5\x2f\xfd\x00\xff\xff\xff"), {}))
    # an attr whose own size is under the first version's 64 bytes
    b = bytearray(good)
    struct.pack_into("<I", b, 104 + 8 + 4, 32)
    write("bad_attr_struct_size.data", bytes(b))


if __name__ == "__main__":
    main()
