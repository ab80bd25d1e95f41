/*
 * bsprof_gen.c: writes BrightScript profiler files (.bsprof) for tests and
 * benchmarks, with its own encoder (independent of libprofkit, so it checks
 * the reader rather than mirroring it). Format: docs/formats/bsprof.md.
 *
 *   bsprof_gen asm IN.txt OUT.bsprof
 *       Assembles a text description, one entry per line ('#' comments):
 *         header [ver=A.B.C] [lines=0|1] [mem=0|1] [start=MS] [req=F] [act=F]
 *                [hsize=N] [pad=N] [strings=a|b|c|d|e|f]
 *         string ID TEXT          module ID NAMEID
 *         pe ID V...              cpu PE V...      calls PE V...
 *         alloc PE V...           free PE V...     realloc PE V...
 *         end TS                  varint V...      bytes HEX...
 *         cut N                   (keep only the first N bytes)
 *       `pe`, `cpu`, ... write the tag and then the varints V as given, so
 *       a test spells out line offsets itself; V may be decimal or 0x hex.
 *
 *   bsprof_gen random OUT.bsprof [key=value...]
 *       A random profile: modules=20 elements=50000 cpu=1000000
 *       memops=10000000 lines=1 seed=1 leak=2 (percent of allocations never
 *       freed) unknown=1 (percent of frees of never-allocated addresses)
 *       size_mb=0 (when set, memory operations continue until the file has
 *       that many MB), uniform=0 (1: every path element and every live
 *       allocation equally likely; 0: hot paths and young objects, see
 *       pick_element), live=100000 (the live set the allocations and frees
 *       hover around, leaks apart). With expect=FILE it also writes, per (leaf path,
 *       value), what a reader must find: lines "VALUE LABEL;LABEL;... N",
 *       labels NAME:LINE when lines=1, plus "unmatched_frees N" and per
 *       module with memory operations "memory NAME FINAL PEAK OPS": its bytes
 *       in use at the end and at their highest (an allocation counts for
 *       the module that made it until freed) and its memory operations.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static uint64_t written;

static void put(const void *p, size_t n)
{
    fwrite(p, 1, n, out);
    written += n;
}

static void varint(uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    while (v >= 0x80) {
        b[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (uint8_t)v;
    put(b, n);
}

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

struct header {
    uint64_t ver[3], lines, mem, start, hsize, pad;
    float req, act;
    const char *s[6];
};

static void header(const struct header *h)
{
    size_t fixed = 8, strings = 0;
    for (int i = 0; i < 3; i++)
        fixed += varint_len(h->ver[i]);
    fixed += 8 + varint_len(h->lines) + varint_len(h->mem) + varint_len(h->start);
    for (int i = 0; i < 6; i++)
        strings += strlen(h->s[i]) + 1;
    uint64_t size = h->hsize;
    if (!size) {
        size_t szn = 1;
        while (varint_len(fixed + szn + strings + h->pad) != szn)
            szn++;
        size = fixed + szn + strings + h->pad;
    }
    put("bsprof\0\0", 8);
    for (int i = 0; i < 3; i++)
        varint(h->ver[i]);
    varint(size);
    float r[2] = { h->req, h->act };
    for (int i = 0; i < 2; i++) {
        uint32_t b;
        memcpy(&b, &r[i], 4);
        uint8_t le[4] = { (uint8_t)b, (uint8_t)(b >> 8), (uint8_t)(b >> 16), (uint8_t)(b >> 24) };
        put(le, 4);
    }
    varint(h->lines);
    varint(h->mem);
    varint(h->start);
    for (int i = 0; i < 6; i++)
        put(h->s[i], strlen(h->s[i]) + 1);
    for (uint64_t i = 0; i < h->pad; i++)
        put("", 1);
}

static void header_defaults(struct header *h)
{
    static const char *const s[6] = { "Demo App", "dev build", "1.2.3", "Roku", "4800X", "11.5.0" };
    memset(h, 0, sizeof(*h));
    h->ver[0] = 1;
    h->ver[1] = 2;
    h->ver[2] = 3;
    h->req = 1.0f;
    h->act = 0.5f;
    h->start = 1700000000000ULL;
    for (int i = 0; i < 6; i++)
        h->s[i] = s[i];
}

/* ------------------------------------------------------------ assembler */

static uint64_t num(const char *s)
{
    return strtoull(s, NULL, 0);
}

static int assemble(const char *in_path, const char *out_path)
{
    FILE *in = fopen(in_path, "r");
    if (!in) {
        perror(in_path);
        return 1;
    }
    /* Assemble into memory so that `cut` can truncate anywhere. */
    char *mem = NULL;
    size_t mem_len = 0;
    out = open_memstream(&mem, &mem_len);
    uint64_t cut = UINT64_MAX;
    char line[4096], strbuf[6][256];
    while (fgets(line, sizeof(line), in)) {
        line[strcspn(line, "\r\n")] = 0;
        char *hash = strchr(line, '#');
        if (hash && strncmp(line, "string", 6) != 0)
            *hash = 0;
        char *save, *w = strtok_r(line, " \t", &save);
        if (!w)
            continue;
        if (strcmp(w, "header") == 0) {
            struct header h;
            header_defaults(&h);
            for (char *a; (a = strtok_r(NULL, " \t", &save));) {
                char *eq = strchr(a, '=');
                if (!eq)
                    continue;
                *eq++ = 0;
                if (!strcmp(a, "ver"))
                    sscanf(eq, "%" SCNu64 ".%" SCNu64 ".%" SCNu64, &h.ver[0], &h.ver[1], &h.ver[2]);
                else if (!strcmp(a, "lines")) h.lines = num(eq);
                else if (!strcmp(a, "mem")) h.mem = num(eq);
                else if (!strcmp(a, "start")) h.start = num(eq);
                else if (!strcmp(a, "req")) h.req = strtof(eq, NULL);
                else if (!strcmp(a, "act")) h.act = strtof(eq, NULL);
                else if (!strcmp(a, "hsize")) h.hsize = num(eq);
                else if (!strcmp(a, "pad")) h.pad = num(eq);
                else if (!strcmp(a, "strings")) {
                    char *ss, *p = strtok_r(eq, "|", &ss);
                    for (int i = 0; i < 6; i++) {
                        snprintf(strbuf[i], sizeof(strbuf[i]), "%s", p ? p : "");
                        h.s[i] = strbuf[i];
                        p = p ? strtok_r(NULL, "|", &ss) : NULL;
                    }
                }
            }
            header(&h);
            continue;
        }
        if (strcmp(w, "string") == 0) {
            char *id = strtok_r(NULL, " \t", &save);
            char *text = save ? save : "";
            varint(num(id) << 3);
            put(text, strlen(text) + 1);
            continue;
        }
        if (strcmp(w, "cut") == 0) {
            cut = num(strtok_r(NULL, " \t", &save));
            continue;
        }
        if (strcmp(w, "bytes") == 0) {
            for (char *a; (a = strtok_r(NULL, " \t", &save));) {
                uint8_t b = (uint8_t)strtoul(a, NULL, 16);
                put(&b, 1);
            }
            continue;
        }
        static const struct { const char *name; int type, op; } kinds[] = {
            { "module", 1, -1 }, { "pe", 2, -1 },     { "cpu", 4, -1 },       { "calls", 5, -1 },
            { "alloc", 3, 0 },   { "free", 3, 1 },    { "realloc", 3, 2 },    { "end", -1, -1 },
            { "varint", -2, -1 },
        };
        int k = -1;
        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
            if (strcmp(w, kinds[i].name) == 0)
                k = (int)i;
        if (k < 0) {
            fprintf(stderr, "%s: unknown directive '%s'\n", in_path, w);
            return 1;
        }
        if (kinds[k].type == -1)
            varint(0);
        else if (kinds[k].type >= 0) {
            uint64_t id = num(strtok_r(NULL, " \t", &save));
            if (kinds[k].type == 3)
                varint((id << 5) | ((uint64_t)kinds[k].op << 3) | 3);
            else
                varint((id << 3) | (uint64_t)kinds[k].type);
        }
        for (char *a; (a = strtok_r(NULL, " \t", &save));)
            varint(num(a));
    }
    fclose(in);
    fclose(out);
    if (cut < mem_len)
        mem_len = (size_t)cut;
    FILE *f = fopen(out_path, "wb");
    if (!f || fwrite(mem, 1, mem_len, f) != mem_len || fclose(f) != 0) {
        perror(out_path);
        return 1;
    }
    free(mem);
    return 0;
}

/* ------------------------------------------------------- random profiles */

static uint64_t rng_state = 1;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

/*
 * Hot paths: by default the element of an entry follows a power law (the
 * cube of a uniform number), spread over the ids by a multiplicative
 * permutation; uniform=1 picks every element alike (the worst case for
 * caches).
 */
static uint64_t pick_element(uint64_t n, uint64_t uniform)
{
    if (uniform)
        return 1 + below(n);
    double u = (double)(rnd() >> 11) / 9007199254740992.0;
    uint64_t k = (uint64_t)(u * u * u * (double)n);
    return 1 + (k * 40503) % n;
}

#define N_OFF 3 /* line offsets used per path element: 1..N_OFF */
enum { CPU, WALL, CALLS, AOBJ, ASPACE, FOBJ, IOBJ, ISPACE, NV };
static const char *const vnames[NV] = { "cpu", "wall", "calls", "alloc_objects", "alloc_space",
                                        "free_objects", "inuse_objects", "inuse_space" };

struct elem {
    uint32_t caller, fn, line, call_off;
};

struct live {
    uint64_t addr, size;
    uint32_t slot; /* elem * N_OFF + off - 1 */
};

static int random_profile(const char *path, int argc, char **argv)
{
    uint64_t modules = 20, elements = 50000, cpu = 1000000, memops = 10000000, lines = 1;
    uint64_t leak = 2, unknown = 1, size_mb = 0, seed = 1, uniform = 0, target = 100000;
    const char *expect = NULL;
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq)
            continue;
        *eq++ = 0;
        uint64_t v = num(eq);
        if (!strcmp(argv[i], "modules")) modules = v ? v : 1;
        else if (!strcmp(argv[i], "elements")) elements = v ? v : 1;
        else if (!strcmp(argv[i], "cpu")) cpu = v;
        else if (!strcmp(argv[i], "memops")) memops = v;
        else if (!strcmp(argv[i], "lines")) lines = v;
        else if (!strcmp(argv[i], "leak")) leak = v;
        else if (!strcmp(argv[i], "unknown")) unknown = v;
        else if (!strcmp(argv[i], "size_mb")) size_mb = v;
        else if (!strcmp(argv[i], "uniform")) uniform = v;
        else if (!strcmp(argv[i], "live")) target = v;
        else if (!strcmp(argv[i], "seed")) rng_state = seed = v ? v : 1;
        else if (!strcmp(argv[i], "expect")) expect = eq;
    }
    out = fopen(path, "wb");
    if (!out) {
        perror(path);
        return 1;
    }
    static char obuf[1 << 20];
    setvbuf(out, obuf, _IOFBF, sizeof(obuf));
    struct header h;
    header_defaults(&h);
    h.lines = lines != 0;
    h.mem = 1;
    header(&h);

    /* Strings: 1 = file name, then module names, then function names. */
    uint64_t n_fn = elements / 4 + 1;
    varint(1 << 3);
    put("pkg:/source/main.brs", 21);
    char name[64];
    for (uint64_t m = 0; m < modules; m++) {
        int n = snprintf(name, sizeof(name), "Component%" PRIu64, m);
        varint((2 + m) << 3);
        put(name, (size_t)n + 1);
        varint(((m + 1) << 3) | 1);
        varint(2 + m);
    }
    uint64_t fn_base = 2 + modules;
    for (uint64_t f = 0; f < n_fn; f++) {
        int n = snprintf(name, sizeof(name), "func_%" PRIu64, f);
        varint((fn_base + f) << 3);
        put(name, (size_t)n + 1);
    }
    /* Path elements: the first `modules` are roots, one per module; each
     * later one calls a random earlier one. */
    struct elem *el = calloc(elements + 1, sizeof(*el));
    /* each element's module, and per module its bytes in use by operation
     * order (the allocating module's), their peak and its operations */
    uint32_t *mod = calloc(elements + 1, sizeof(uint32_t));
    int64_t *m_total = calloc(modules + 1, sizeof(int64_t)), *m_peak = calloc(modules + 1, sizeof(int64_t));
    uint64_t *m_ops = calloc(modules + 1, sizeof(uint64_t));
    for (uint64_t e = 1; e <= elements; e++) {
        struct elem *x = &el[e];
        x->fn = (uint32_t)below(n_fn);
        x->line = 10 + (uint32_t)(x->fn % 500) * 20;
        varint((e << 3) | 2);
        if (e <= modules) {
            mod[e] = (uint32_t)e;
            varint(0);
            varint(e);
        } else {
            x->caller = (uint32_t)(1 + below(e - 1));
            mod[e] = mod[x->caller];
            x->call_off = 1 + (uint32_t)below(9);
            varint(x->caller);
            if (lines)
                varint(x->call_off);
        }
        varint(1);
        varint(x->line);
        varint(fn_base + x->fn);
    }
    uint64_t n_slots = (elements + 1) * N_OFF;
    int64_t *val = calloc(n_slots * NV, sizeof(int64_t));
    int64_t *in_obj = calloc(n_slots, sizeof(int64_t)), *in_space = calloc(n_slots, sizeof(int64_t));
    size_t cap_live = 1 << 16, n_live = 0;
    struct live *live = malloc(cap_live * sizeof(*live));
    size_t cap_freed = 1 << 16, n_freed = 0;
    uint64_t *freed = malloc(cap_freed * sizeof(uint64_t)); /* addresses to reuse */
    uint64_t next_addr = 0x40000000, unmatched = 0, ops = 0, cpu_done = 0;
    uint64_t size_goal = size_mb * 1000000;
    for (;;) {
        int more_mem = size_goal ? written < size_goal : ops < memops;
        if (!more_mem && cpu_done >= cpu)
            break;
        /* Interleave CPU entries evenly with memory operations. */
        int do_cpu = cpu_done < cpu && (!more_mem || below(memops / (cpu ? cpu : 1) + 1) == 0);
        uint64_t e = pick_element(elements, uniform);
        uint32_t off = 1 + (uint32_t)below(N_OFF);
        uint64_t slot = e * N_OFF + off - 1;
        int64_t *v = val + slot * NV;
        if (do_cpu) {
            uint64_t c = 1 + below(5000), w = c + below(3000), calls = 1 + below(20);
            varint((e << 3) | 4);
            if (lines)
                varint(off);
            varint(c);
            varint(w);
            varint((e << 3) | 5);
            varint(calls);
            v[CPU] += (int64_t)c;
            v[WALL] += (int64_t)w;
            /* A call count has no line offset: it is the function's, at its
             * definition line (offset 1). */
            val[(e * N_OFF) * NV + CALLS] += (int64_t)calls;
            cpu_done++;
            continue;
        }
        ops++;
        /* The live set hovers around `target` objects; leaks grow apart. */
        int alloc = n_live == 0 || below(100) < (n_live < target ? 60 : 40);
        if (alloc) {
            uint64_t size = 16 + below(4096), addr;
            if (n_freed && below(2)) {
                addr = freed[--n_freed];
            } else {
                addr = next_addr;
                next_addr += 16 * (1 + below(4));
            }
            varint((e << 5) | 3);
            if (lines)
                varint(off);
            varint(addr);
            varint(size);
            v[AOBJ]++;
            v[ASPACE] += (int64_t)size;
            m_ops[mod[e]]++;
            if ((m_total[mod[e]] += (int64_t)size) > m_peak[mod[e]])
                m_peak[mod[e]] = m_total[mod[e]];
            if (below(100) < leak) {
                in_obj[slot]++; /* leaked: never offered to a free */
                in_space[slot] += (int64_t)size;
                continue;
            }
            if (n_live == cap_live)
                live = realloc(live, (cap_live *= 2) * sizeof(*live));
            live[n_live].addr = addr;
            live[n_live].size = size;
            live[n_live++].slot = (uint32_t)slot;
        } else {
            uint64_t addr;
            int op = below(4) == 0 ? 2 : 1;
            if (below(100) < unknown) {
                addr = 0x10 + 16 * below(0x1000); /* below every real address */
                unmatched++;
                m_ops[mod[e]]++;
            } else {
                /* Most objects die young: usually one of the newest. */
                size_t k = uniform || n_live < 64 || below(5) == 0 ? (size_t)below(n_live)
                                                                   : n_live - 1 - (size_t)below(64);
                addr = live[k].addr;
                uint32_t am = mod[live[k].slot / N_OFF];
                m_ops[am]++;
                m_total[am] -= (int64_t)live[k].size;
                live[k] = live[--n_live];
                if (n_freed == cap_freed)
                    freed = realloc(freed, (cap_freed *= 2) * sizeof(uint64_t));
                freed[n_freed++] = addr;
            }
            varint((e << 5) | ((uint64_t)op << 3) | 3);
            if (lines)
                varint(off);
            varint(addr);
            v[FOBJ]++;
        }
    }
    varint(0);
    varint(1700000000000ULL + 60000);
    fclose(out);
    uint64_t leaked = 0;
    for (uint64_t k = 0; k < n_slots; k++)
        leaked += (uint64_t)in_obj[k];
    fprintf(stderr,
            "bsprof_gen: %" PRIu64 " bytes: %" PRIu64 " modules, %" PRIu64 " path elements, %" PRIu64
            " CPU entries (+ as many call counts), %" PRIu64 " memory operations; at the end %zu "
            "allocations are live and %" PRIu64 " leaked; %" PRIu64 " frees of unknown addresses\n",
            written, modules, elements, cpu_done, ops, n_live, leaked, unmatched);
    if (!expect)
        return 0;

    for (size_t i = 0; i < n_live; i++) {
        in_obj[live[i].slot]++;
        in_space[live[i].slot] += (int64_t)live[i].size;
    }
    FILE *x = fopen(expect, "w");
    if (!x) {
        perror(expect);
        return 1;
    }
    fprintf(x, "unmatched_frees %" PRIu64 "\n", unmatched);
    for (uint64_t m = 1; m <= modules; m++)
        if (m_ops[m])
            fprintf(x, "memory Component%" PRIu64 " %" PRId64 " %" PRId64 " %" PRIu64 "\n", m - 1, m_total[m],
                    m_peak[m], m_ops[m]);
    for (uint64_t s = N_OFF; s < n_slots; s++) {
        const int64_t *v = val + s * NV;
        uint64_t e = s / N_OFF;
        uint32_t off = (uint32_t)(s % N_OFF) + 1;
        /* Label path, root first. */
        char labels[64][48];
        size_t depth = 0;
        uint32_t child_off = off;
        for (uint64_t c = e; c && depth < 64; c = el[c].caller) {
            const struct elem *ce = &el[c];
            if (lines)
                snprintf(labels[depth++], 48, "func_%u:%u", ce->fn, ce->line + child_off - 1);
            else
                snprintf(labels[depth++], 48, "func_%u", ce->fn);
            child_off = ce->call_off;
        }
        for (int k = 0; k < NV; k++) {
            int64_t n = k == IOBJ ? in_obj[s] : k == ISPACE ? in_space[s] : v[k];
            if (!n)
                continue;
            fprintf(x, "%s ", vnames[k]);
            for (size_t d = depth; d-- > 0;)
                fprintf(x, "%s%s", labels[d], d ? ";" : "");
            fprintf(x, " %" PRId64 "\n", n);
        }
    }
    fclose(x);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "asm") == 0)
        return assemble(argv[2], argv[3]);
    if (argc >= 3 && strcmp(argv[1], "random") == 0)
        return random_profile(argv[2], argc - 3, argv + 3);
    fprintf(stderr, "usage: bsprof_gen asm IN.txt OUT.bsprof\n"
                    "       bsprof_gen random OUT.bsprof [key=value...]\n");
    return 2;
}
