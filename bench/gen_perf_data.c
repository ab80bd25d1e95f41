/*
 * gen_perf_data.c: writes a large synthetic perf.data for bench/perf_data.sh,
 * shaped like `perf record -e cpu-clock -g` of a busy multi-threaded
 * program: little-endian, file mode, one event (IP, TID, TIME, CALLCHAIN,
 * PERIOD; sample_id_all), 4 processes of 8 threads each (COMM, FORK, MMAP2
 * of an executable and 20 libraries per process, the kernel's text), then N
 * samples (default 2,000,000) drawn from S distinct user stacks per process
 * (default 20,000; depth 5 to 40, sharing prefixes like real stacks) over
 * 50,000 addresses, one in five with a kernel part of 3 to 12 frames. The
 * samples come in rounds of two CPUs' buffers whose times interleave, as
 * perf writes them, so the reader's sort by time has real work. Features:
 * hostname, OS release, command line, event name. Deterministic.
 * Usage: gen_perf_data OUT [samples [stacks]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x853c49e6748fea9bULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            exit(1);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void u64(buf *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    put(b, x, 8);
}
static void u32(buf *b, uint32_t v)
{
    unsigned char x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    put(b, x, 4);
}
static void hdr(buf *b, uint32_t type, uint16_t misc, size_t size)
{
    u32(b, type);
    unsigned char x[4] = { (unsigned char)misc, (unsigned char)(misc >> 8), (unsigned char)size,
                           (unsigned char)(size >> 8) };
    put(b, x, 4);
}
/* A NUL-terminated string padded to 8 bytes (MMAP2, COMM names). */
static size_t name_size(const char *s) { return (strlen(s) + 8) & ~(size_t)7; }
static void name(buf *b, const char *s)
{
    size_t n = name_size(s);
    char z[8] = { 0 };
    put(b, s, strlen(s));
    put(b, z, n - strlen(s));
}
/* sample_id_all trailer: pid/tid, time */
static void trailer(buf *b, uint32_t pid, uint32_t tid, uint64_t time)
{
    u32(b, pid);
    u32(b, tid);
    u64(b, time);
}
/* A feature string: length padded to 64 with the NUL, then the bytes. */
static void fstring(buf *b, const char *s)
{
    size_t n = (strlen(s) + 1 + 63) & ~(size_t)63;
    char z[64] = { 0 };
    u32(b, (uint32_t)n);
    put(b, s, strlen(s));
    put(b, z, n - strlen(s));
}

#define PROCS 4
#define THREADS 8
#define LIBS 21
#define KTEXT 0xffffffff81000000ULL
#define CONTEXT_KERNEL ((uint64_t)-128)
#define CONTEXT_USER ((uint64_t)-512)

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT [samples [stacks]]\n", argv[0]);
        return 2;
    }
    long samples = argc > 2 ? atol(argv[2]) : 2000000;
    long nstacks = argc > 3 ? atol(argv[3]) : 20000;
    if (samples < 1 || nstacks < 1)
        return 2;
    enum { PCS = 50000 };
    /* addresses: library l holds PCs spread over its 1 MB of text */
    static uint64_t pc[PCS];
    for (int i = 0; i < PCS; i++)
        pc[i] = ((uint64_t)(i % LIBS) << 24) + 0x1000 + (next() % 0xff000);
    /* stacks per process: each extends a random earlier one (shared
     * prefixes), root first; depth 5..40 */
    typedef struct {
        int depth;
        uint32_t pc[40];
    } stack;
    stack *st = malloc((size_t)nstacks * sizeof(stack));
    if (!st)
        return 1;
    for (long s = 0; s < nstacks; s++) {
        int d = 5 + (int)(next() % 36);
        if (s > 0 && next() % 4) {
            const stack *from = &st[next() % (uint64_t)s];
            int keep = from->depth < d ? from->depth : d - 1;
            memcpy(st[s].pc, from->pc, (size_t)keep * sizeof(uint32_t));
            for (int k = keep; k < d; k++)
                st[s].pc[k] = (uint32_t)(next() % PCS);
        } else {
            for (int k = 0; k < d; k++)
                st[s].pc[k] = (uint32_t)(next() % PCS);
        }
        st[s].depth = d;
    }
    buf data = { 0 };
    uint64_t t = 1000000000ULL;
    /* the kernel's text */
    hdr(&data, 1, 1, 8 + 32 + name_size("[kernel.kallsyms]_text") + 16);
    u32(&data, UINT32_MAX);
    u32(&data, 0);
    u64(&data, KTEXT);
    u64(&data, 0x2000000);
    u64(&data, KTEXT);
    name(&data, "[kernel.kallsyms]_text");
    trailer(&data, UINT32_MAX, 0, 0);
    /* processes: exec, mappings, threads */
    for (int p = 0; p < PROCS; p++) {
        uint32_t pid = 1000 + 100 * (uint32_t)p;
        char path[64];
        snprintf(path, sizeof(path), "app%d", p);
        hdr(&data, 3, 1 << 13, 8 + 8 + name_size(path) + 16);
        u32(&data, pid);
        u32(&data, pid);
        name(&data, path);
        trailer(&data, pid, pid, t++);
        for (int l = 0; l < LIBS; l++) {
            if (l == 0)
                snprintf(path, sizeof(path), "/opt/bench/bin/app%d", p);
            else
                snprintf(path, sizeof(path), "/opt/bench/lib/libbench%02d.so", l);
            hdr(&data, 10, 2, 8 + 64 + name_size(path) + 16);
            u32(&data, pid);
            u32(&data, pid);
            u64(&data, 0x7f0000000000ULL + ((uint64_t)l << 24)); /* addr */
            u64(&data, 0x100000);                                 /* len */
            u64(&data, 0x1000);                                   /* pgoff */
            u32(&data, 8);
            u32(&data, 1);
            u64(&data, 1000 + (uint64_t)l);
            u64(&data, 0);
            u32(&data, 5);
            u32(&data, 2);
            name(&data, path);
            trailer(&data, pid, pid, t++);
        }
        for (int th = 1; th < THREADS; th++) {
            uint32_t tid = pid + (uint32_t)th;
            hdr(&data, 7, 0, 8 + 24 + 16);
            u32(&data, pid);
            u32(&data, pid);
            u32(&data, tid);
            u32(&data, pid);
            u64(&data, t);
            trailer(&data, pid, tid, t++);
            snprintf(path, sizeof(path), "worker-%d", th);
            hdr(&data, 3, 0, 8 + 8 + name_size(path) + 16);
            u32(&data, pid);
            u32(&data, tid);
            name(&data, path);
            trailer(&data, pid, tid, t++);
        }
    }
    /* samples: rounds of two CPUs' buffers, 500 samples each, times
     * interleaved (CPU 0 even, CPU 1 odd ticks) */
    uint64_t base = t + 1000;
    long done = 0;
    while (done < samples) {
        for (int cpu = 0; cpu < 2 && done < samples; cpu++) {
            for (int i = 0; i < 500 && done < samples; i++, done++) {
                uint64_t time = base + (uint64_t)(2 * i + cpu) * 250000;
                int p = (int)(next() % PROCS);
                uint32_t pid = 1000 + 100 * (uint32_t)p;
                uint32_t tid = pid + (uint32_t)(next() % THREADS);
                /* skewed: a few stacks are hot */
                uint64_t r = next();
                long s = (long)((r % 8 < 5) ? (r >> 8) % (uint64_t)(nstacks / 50 + 1) : (r >> 8) % (uint64_t)nstacks);
                const stack *k = &st[s];
                int kern = next() % 5 == 0 ? 3 + (int)(next() % 10) : 0;
                size_t nr = (size_t)k->depth + 1 + (kern ? (size_t)kern + 1 : 0);
                hdr(&data, 9, kern ? 1 : 2, 8 + 8 + 8 + 8 + 8 + 8 + 8 * nr);
                uint64_t leaf = 0x7f0000000000ULL + pc[k->pc[k->depth - 1]];
                uint64_t kaddr[12];
                for (int j = 0; j < kern; j++)
                    kaddr[j] = KTEXT + 0x1000 + ((uint64_t)(s * 7 + j * 131) % 0x100000) * 16;
                u64(&data, kern ? kaddr[0] : leaf);
                u32(&data, pid);
                u32(&data, tid);
                u64(&data, time);
                u64(&data, 250000);
                u64(&data, nr);
                if (kern) {
                    u64(&data, CONTEXT_KERNEL);
                    for (int j = 0; j < kern; j++)
                        u64(&data, kaddr[j]);
                }
                u64(&data, CONTEXT_USER);
                for (int d = k->depth - 1; d >= 0; d--)
                    u64(&data, 0x7f0000000000ULL + pc[k->pc[d]]);
            }
        }
        base += 1000 * 250000;
        hdr(&data, 68, 0, 8); /* FINISHED_ROUND */
    }
    /* features: hostname 3, osrelease 4, cmdline 11, event_desc 12 */
    buf attr = { 0 };
    u32(&attr, 1);   /* PERF_TYPE_SOFTWARE */
    u32(&attr, 128); /* size */
    u64(&attr, 0);   /* cpu-clock */
    u64(&attr, 4000);
    u64(&attr, 1 | 2 | 4 | 32 | 256);
    u64(&attr, 0);
    u64(&attr, (1u << 10) | (1u << 18)); /* freq, sample_id_all */
    while (attr.n < 128)
        u64(&attr, 0);
    buf f3 = { 0 }, f4 = { 0 }, f11 = { 0 }, f12 = { 0 };
    fstring(&f3, "bench");
    fstring(&f4, "6.1.0-bench");
    u32(&f11, 3);
    fstring(&f11, "perf");
    fstring(&f11, "record");
    fstring(&f11, "-g");
    u32(&f12, 1);
    u32(&f12, 128);
    put(&f12, attr.p, attr.n);
    u32(&f12, 1);
    fstring(&f12, "cpu-clock");
    u64(&f12, 1);
    /* layout: header, ids, attrs, data, feature table, features */
    uint64_t ids_off = 104, attrs_off = ids_off + 8, data_off = attrs_off + 144;
    uint64_t table = data_off + data.n, feat = table + 4 * 16;
    FILE *out = fopen(argv[1], "wb");
    if (!out)
        return 1;
    buf h = { 0 };
    put(&h, "PERFILE2", 8);
    u64(&h, 104);
    u64(&h, 144);
    u64(&h, attrs_off);
    u64(&h, 144);
    u64(&h, data_off);
    u64(&h, data.n);
    u64(&h, 0);
    u64(&h, 0);
    u64(&h, (1u << 3) | (1u << 4) | (1u << 11) | (1u << 12));
    u64(&h, 0);
    u64(&h, 0);
    u64(&h, 0);
    u64(&h, 1); /* the id */
    put(&h, attr.p, attr.n);
    u64(&h, ids_off);
    u64(&h, 8);
    fwrite(h.p, 1, h.n, out);
    fwrite(data.p, 1, data.n, out);
    buf tb = { 0 };
    const buf *fs[4] = { &f3, &f4, &f11, &f12 };
    for (int i = 0; i < 4; i++) {
        u64(&tb, feat);
        u64(&tb, fs[i]->n);
        feat += fs[i]->n;
    }
    fwrite(tb.p, 1, tb.n, out);
    for (int i = 0; i < 4; i++)
        fwrite(fs[i]->p, 1, fs[i]->n, out);
    fclose(out);
    return 0;
}
