/*
 * perf_data_events.c: the records of a perf.data file, decoded and replayed
 * in time order into the profile (the header, attributes and features are
 * read by perf_data.c; docs/formats/perf_data.md has the rulings).
 *
 * The replay keeps what `perf script` keeps while it walks the records:
 *   - address spaces: the kernel's (MMAP records in kernel mode) and one
 *     per process (its pid), each a set of non-overlapping ranges where a
 *     new mapping trims or removes the ranges it overlaps, as perf's maps
 *     do; a FORK of a new process copies its parent's;
 *   - threads by tid, each with its command name: the last COMM record,
 *     else its parent's at FORK, else ":TID" ("swapper" for tid 0);
 *   - each sample: its thread, its call chain (the PERF_CONTEXT_* markers
 *     say whether the addresses after them are kernel or user ones, and
 *     are dropped), each address a frame with the mapping that holds it
 *     in its address space, so the symbolizer names it from that file;
 *     one value per event (its period) and `samples`, at its time.
 * A sample's fields come in the order of sample_type's bits
 * (perf_output_sample in the kernel); a non-sample record ends with the
 * sample_id_all trailer (pid/tid, time, id, stream id, cpu, identifier).
 */
#include "formats/perf/perf_data.h"
#include "formats/perf/perf_kallsyms.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* PERF_CONTEXT_* markers in a call chain: every value from -4095 up. */
#define CONTEXT_MAX ((uint64_t)-4095)
#define CONTEXT_HV ((uint64_t)-32)
#define CONTEXT_KERNEL ((uint64_t)-128)
#define CONTEXT_USER ((uint64_t)-512)
#define CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define CONTEXT_GUEST_USER ((uint64_t)-2560)

/* header.misc */
enum {
    MODE_MASK = 7,
    MODE_KERNEL = 1,
    MODE_USER = 2,
    MODE_OTHER = 3, /* hypervisor, guest: no mappings of ours */
    MISC_MMAP_BUILD_ID = 1 << 14,
    MISC_FORK_EXEC = 1 << 13
};

/* ---------------------------------------------------------------- decoding */

pk_perf_attr *pk_perf_record_attr(pk_perf *r, uint32_t type, const uint8_t *rec, size_t size)
{
    pk_perf_attr *first = &r->attrs[0];
    if (r->n_attrs == 1)
        return first;
    size_t words = (size - 8) / 8;
    uint64_t id;
    if (type == PK_PERF_SAMPLE) {
        if (first->id_pos < 0 || (size_t)first->id_pos >= words)
            return first; /* too short: decoding it says so */
        id = pk_perf_u64(r, rec + 8 + 8 * (size_t)first->id_pos);
    } else {
        if (!first->sample_id_all || first->is_pos < 0 || (size_t)first->is_pos > words)
            return first;
        id = pk_perf_u64(r, rec + 8 + 8 * (words - (size_t)first->is_pos));
    }
    /* Records perf synthesizes carry id 0. */
    return id == 0 ? first : pk_perf_attr_of_id(r, id);
}

typedef struct sample {
    uint64_t ip, time, period;
    uint32_t pid, tid;
    const uint8_t *chain; /* nr u64 addresses, in the file's byte order */
    uint64_t nr;
} sample;

/* Names of the sample_type bits, for messages. */
static const char *const field_names[25] = {
    "IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
    "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
    "DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
    "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static int sample_short(pk_perf *r, int64_t at, size_t size, int bit, size_t pos)
{
    return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, at + 8 + (int64_t)pos,
                        "sample: the record (%zu bytes) ends inside its %s field", size,
                        field_names[bit]);
}

/* Skips n items of `each` bytes, n read from the record: checked against
 * what is left before anything is multiplied. */
static int skip_items(pk_cursor *c, uint64_t n, size_t each)
{
    if (n > pk_cursor_left(c) / each)
        return PROFKIT_ETRUNCATED;
    return pk_cursor_skip(c, (size_t)n * each);
}

/*
 * Decodes a sample of `a` (rec: the record, header included). With `upto`
 * a sample_type bit, stops after the fields before it (the time, for the
 * first pass); else decodes and checks every field.
 */
static int decode_sample(pk_perf *r, const pk_perf_attr *a, const uint8_t *rec, size_t size,
                         int64_t at, uint64_t upto, sample *s)
{
    pk_cursor c;
    pk_cursor_init(&c, rec + 8, size - 8);
    uint64_t t = a->sample_type, v;
    uint32_t u;
    memset(s, 0, sizeof(*s));
    s->pid = s->tid = UINT32_MAX;
    size_t field = 0;
    int bit = 0;
    /* Each field: where it starts (for the message), then its reads. */
#define FIELD(b) (field = c.pos, bit = (b))
#define NEED(expr)                                        \
    do {                                                  \
        if ((expr) != 0)                                  \
            return sample_short(r, at, size, bit, field); \
    } while (0)
    if (t & PK_PERF_S_IDENTIFIER)
        NEED((FIELD(16), pk_perf_rd64(r, &c, &v)));
    if (t & PK_PERF_S_IP)
        NEED((FIELD(0), pk_perf_rd64(r, &c, &s->ip)));
    if (t & PK_PERF_S_TID) {
        NEED((FIELD(1), pk_perf_rd32(r, &c, &s->pid)));
        NEED(pk_perf_rd32(r, &c, &s->tid));
    }
    if (upto == PK_PERF_S_TIME) {
        if (t & PK_PERF_S_TIME)
            NEED((FIELD(2), pk_perf_rd64(r, &c, &s->time)));
        return 0;
    }
    if (t & PK_PERF_S_TIME)
        NEED((FIELD(2), pk_perf_rd64(r, &c, &s->time)));
    if (t & PK_PERF_S_ADDR)
        NEED((FIELD(3), pk_perf_rd64(r, &c, &v)));
    if (t & PK_PERF_S_ID)
        NEED((FIELD(6), pk_perf_rd64(r, &c, &v)));
    if (t & PK_PERF_S_STREAM_ID)
        NEED((FIELD(9), pk_perf_rd64(r, &c, &v)));
    if (t & PK_PERF_S_CPU)
        NEED((FIELD(7), pk_perf_rd64(r, &c, &v)));
    if (t & PK_PERF_S_PERIOD)
        NEED((FIELD(8), pk_perf_rd64(r, &c, &s->period)));
    if (t & PK_PERF_S_READ) {
        uint64_t rf = a->read_format;
        size_t times = ((rf & 1) ? 8u : 0u) + ((rf & 2) ? 8u : 0u);
        size_t each = 8 + ((rf & 4) ? 8u : 0u) + ((rf & 16) ? 8u : 0u);
        if (rf & 8) { /* PERF_FORMAT_GROUP: nr, times, then nr values */
            NEED((FIELD(4), pk_perf_rd64(r, &c, &v)));
            NEED(pk_cursor_skip(&c, times));
            NEED(skip_items(&c, v, each));
        } else {
            NEED(pk_cursor_skip(&c, times + each));
        }
    }
    if (t & PK_PERF_S_CALLCHAIN) {
        NEED((FIELD(5), pk_perf_rd64(r, &c, &s->nr)));
        s->chain = c.data + c.pos;
        NEED(skip_items(&c, s->nr, 8));
    }
    if (t & PK_PERF_S_RAW) {
        NEED((FIELD(10), pk_perf_rd32(r, &c, &u)));
        NEED(pk_cursor_skip(&c, u));
    }
    if (t & PK_PERF_S_BRANCH_STACK) {
        NEED((FIELD(11), pk_perf_rd64(r, &c, &v)));
        if (a->branch_sample_type & (1u << 17)) /* PERF_SAMPLE_BRANCH_HW_INDEX */
            NEED(pk_cursor_skip(&c, 8));
        NEED(skip_items(&c, v, 24));
        if (a->branch_sample_type & (1u << 19)) /* PERF_SAMPLE_BRANCH_COUNTERS */
            NEED(skip_items(&c, v, 8));
    }
    if (t & PK_PERF_S_REGS_USER) {
        NEED((FIELD(12), pk_perf_rd64(r, &c, &v)));
        if (v)
            NEED(pk_cursor_skip(&c, 8 * (size_t)a->n_regs_user));
    }
    if (t & PK_PERF_S_STACK_USER) {
        NEED((FIELD(13), pk_perf_rd64(r, &c, &v)));
        if (v) {
            NEED(skip_items(&c, v / 8, 8));
            NEED(pk_cursor_skip(&c, 8)); /* dyn_size */
        }
    }
    if (t & (PK_PERF_S_WEIGHT | PK_PERF_S_WEIGHT_STRUCT))
        NEED((FIELD((t & PK_PERF_S_WEIGHT) ? 14 : 24), pk_cursor_skip(&c, 8)));
    if (t & PK_PERF_S_DATA_SRC)
        NEED((FIELD(15), pk_cursor_skip(&c, 8)));
    if (t & PK_PERF_S_TRANSACTION)
        NEED((FIELD(17), pk_cursor_skip(&c, 8)));
    if (t & PK_PERF_S_REGS_INTR) {
        NEED((FIELD(18), pk_perf_rd64(r, &c, &v)));
        if (v)
            NEED(pk_cursor_skip(&c, 8 * (size_t)a->n_regs_intr));
    }
    if (t & PK_PERF_S_PHYS_ADDR)
        NEED((FIELD(19), pk_cursor_skip(&c, 8)));
    if (t & PK_PERF_S_CGROUP)
        NEED((FIELD(21), pk_cursor_skip(&c, 8)));
    if (t & PK_PERF_S_DATA_PAGE_SIZE)
        NEED((FIELD(22), pk_cursor_skip(&c, 8)));
    if (t & PK_PERF_S_CODE_PAGE_SIZE)
        NEED((FIELD(23), pk_cursor_skip(&c, 8)));
    if (t & PK_PERF_S_AUX) {
        NEED((FIELD(20), pk_perf_rd64(r, &c, &v)));
        NEED(skip_items(&c, v, 1));
    }
#undef NEED
#undef FIELD
    return 0;
}

/* The sample_id_all trailer's time (0 when it has none). */
static uint64_t trailer_time(const pk_perf *r, const pk_perf_attr *a, const uint8_t *rec,
                             size_t size)
{
    if (!a->sample_id_all || !(a->sample_type & PK_PERF_S_TIME))
        return 0;
    /* The trailer is the record's last a->trailer bytes: pid/tid first. */
    size_t pos = size - a->trailer + ((a->sample_type & PK_PERF_S_TID) ? 8 : 0);
    return pk_perf_u64(r, rec + pos);
}

int pk_perf_record_time(pk_perf *r, const pk_perf_attr *a, uint32_t type, const uint8_t *rec,
                        size_t size, int64_t at, uint64_t *time)
{
    *time = 0;
    if (type != PK_PERF_SAMPLE) {
        *time = trailer_time(r, a, rec, size);
        return 0;
    }
    if (!(a->sample_type & PK_PERF_S_TIME))
        return 0;
    sample s;
    int rc = decode_sample(r, a, rec, size, at, PK_PERF_S_TIME, &s);
    *time = s.time;
    return rc;
}

/* ----------------------------------------------------- address spaces */

/*
 * An address space: non-overlapping ranges in a treap (a binary search
 * tree by start, heap-ordered by random priorities, so it stays balanced
 * whatever order the file maps things in). Nodes live in one array and
 * link by index (0 = none), so copying a space for a FORK is one copy.
 */
typedef struct mnode {
    uint64_t start, end;
    uint32_t mapping, prio, l, r;
} mnode;

typedef struct space {
    mnode *node; /* node[0] unused */
    size_t n, cap;
    uint32_t root, free;
    uint64_t gen; /* its version: a new one at every change (replay.gens) */
} space;

typedef struct replay replay;

static uint32_t node_new(space *s, uint64_t start, uint64_t end, uint32_t mapping, uint32_t prio)
{
    uint32_t x;
    if (s->free) {
        x = s->free;
        s->free = s->node[x].l;
    } else {
        if (s->n == 0)
            s->n = 1;
        if (s->n >= UINT32_MAX || PK_VEC_RESERVE(s->node, s->n, s->cap, 1))
            return 0;
        x = (uint32_t)s->n++;
    }
    mnode *m = &s->node[x];
    m->start = start;
    m->end = end;
    m->mapping = mapping;
    m->prio = prio;
    m->l = m->r = 0;
    return x;
}

/* Splits t into the nodes starting before key (*a) and the rest (*b). */
static void split(space *s, uint32_t t, uint64_t key, uint32_t *a, uint32_t *b)
{
    if (!t) {
        *a = *b = 0;
    } else if (s->node[t].start < key) {
        split(s, s->node[t].r, key, &s->node[t].r, b);
        *a = t;
    } else {
        split(s, s->node[t].l, key, a, &s->node[t].l);
        *b = t;
    }
}

static uint32_t merge(space *s, uint32_t a, uint32_t b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (s->node[a].prio > s->node[b].prio) {
        s->node[a].r = merge(s, s->node[a].r, b);
        return a;
    }
    s->node[b].l = merge(s, a, s->node[b].l);
    return b;
}

/* The node with the greatest start <= key (strict: < key), or 0. */
static uint32_t floor_node(const space *s, uint64_t key, int strict)
{
    uint32_t best = 0;
    for (uint32_t t = s->root; t;) {
        if (s->node[t].start < key || (!strict && s->node[t].start == key)) {
            best = t;
            t = s->node[t].r;
        } else {
            t = s->node[t].l;
        }
    }
    return best;
}

static uint32_t space_find(const space *s, uint64_t addr)
{
    uint32_t x = floor_node(s, addr, 0);
    return x && addr < s->node[x].end ? s->node[x].mapping : PROFKIT_NONE;
}

static void space_remove(space *s, uint64_t start)
{
    uint32_t a, b, m, c;
    split(s, s->root, start, &a, &b);
    split(s, b, start + 1, &m, &c);
    s->root = merge(s, a, c);
    if (m) {
        s->node[m].l = s->free;
        s->free = m;
    }
}

static int space_put(space *s, uint64_t start, uint64_t end, uint32_t mapping, uint32_t prio)
{
    uint32_t x = node_new(s, start, end, mapping, prio);
    if (!x)
        return PROFKIT_ENOMEM;
    uint32_t a, b;
    split(s, s->root, start, &a, &b);
    s->root = merge(s, merge(s, a, x), b);
    return 0;
}

static void space_free(space *s)
{
    free(s->node);
    memset(s, 0, sizeof(*s));
}

/* ---------------------------------------------------------------- replay */

/* An address of a call chain and whether it is a kernel or user one. */
typedef struct level {
    uint64_t ip;
    uint32_t mode;
} level;

typedef struct pthread {
    uint32_t tid;
    int64_t pid;   /* -1 = not known yet */
    uint32_t comm; /* string id */
    int comm_set;
    uint32_t model; /* its profile thread for this comm, PROFKIT_NONE = not made */
} pthread;

typedef struct process {
    int64_t pid;
    space maps;
} process;

/* u64 -> u32 open-addressing map (values + 1 in slots; 0 = empty). */
typedef struct u64map {
    uint64_t *key;
    uint32_t *val;
    size_t cap, used;
} u64map;

static uint32_t u64map_get(const u64map *m, uint64_t k)
{
    if (!m->cap)
        return PROFKIT_NONE;
    size_t mask = m->cap - 1;
    for (size_t j = pk_hash_u64(k) & mask; m->val[j]; j = (j + 1) & mask)
        if (m->key[j] == k)
            return m->val[j] - 1;
    return PROFKIT_NONE;
}

static int u64map_put(u64map *m, uint64_t k, uint32_t v)
{
    if ((m->used + 1) * 2 > m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 64;
        uint64_t *nk = calloc(ncap, sizeof(uint64_t));
        uint32_t *nv = calloc(ncap, sizeof(uint32_t));
        if (!nk || !nv) {
            free(nk);
            free(nv);
            return PROFKIT_ENOMEM;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->val[i])
                continue;
            size_t j = pk_hash_u64(m->key[i]) & (ncap - 1);
            while (nv[j])
                j = (j + 1) & (ncap - 1);
            nk[j] = m->key[i];
            nv[j] = m->val[i];
        }
        free(m->key);
        free(m->val);
        m->key = nk;
        m->val = nv;
        m->cap = ncap;
    }
    size_t mask = m->cap - 1, j = pk_hash_u64(k) & mask;
    for (; m->val[j]; j = (j + 1) & mask) {
        if (m->key[j] == k) {
            m->val[j] = v + 1;
            return 0;
        }
    }
    m->key[j] = k;
    m->val[j] = v + 1;
    m->used++;
    return 0;
}

static void u64map_free(u64map *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof(*m));
}

/* Frames by (address, mapping). */
typedef struct fentry {
    uint64_t addr;
    uint32_t mapping, frame; /* frame + 1; 0 = empty slot */
} fentry;

/* Stacks by (parent, frame): every stack of the profile, since only this
 * reader makes them, so one not here is new (pk_stack_append, no lookup
 * in the model's index). */
typedef struct sentry {
    uint32_t parent, frame, stack; /* stack + 1; 0 = empty slot */
} sentry;

/* Stacks by call chain: the chain's bytes (in the input), the address
 * spaces' versions it was resolved in, its stack. */
typedef struct centry {
    uint64_t hash;
    const uint8_t *chain;
    uint64_t nr;
    uint64_t ugen, kgen;
    uint32_t stack;
} centry;

/* Mappings by what they are, so equal MMAP records share one. */
typedef struct mentry {
    uint64_t start, end, pgoff;
    uint32_t path, build_id, mapping; /* mapping + 1; 0 = empty */
} mentry;

struct replay {
    pk_perf *r;
    profkit_profile *p;
    space kernel;
    process *procs;
    size_t n_procs, cap_procs;
    u64map proc_of_pid;
    pthread *threads;
    size_t n_threads, cap_threads;
    u64map thread_of_tid;
    fentry *fcache;
    size_t fcap, fused;
    mentry *mcache;
    size_t mcap, mused;
    level *chain; /* the sample's addresses and modes, leaf first */
    size_t cap_chain;
    int64_t *values;
    size_t cap_values;
    uint32_t samples_vt;
    sentry *scache;
    size_t scap, sused;
    centry *ccache; /* direct-mapped, ccap entries */
    size_t ccap;
    uint64_t gens;        /* the last address-space version given out */
    uint64_t prio;        /* treap priorities: hashes of a counter */
    uint64_t map_budget;  /* address-space nodes a FORK may still copy */
    const pk_kallsyms *ks; /* kernel symbols (perf_kallsyms.c, shared) */
    int ks_state;         /* 0 not looked for yet, 1 loaded, -1 none */
    uint32_t ks_module;   /* "[kernel.kallsyms]" */
};

static int oom(replay *x) { return pk_read_fail(x->r->ctx, PROFKIT_ENOMEM, -1, "out of memory"); }

static uint32_t next_prio(replay *x) { return (uint32_t)pk_hash_u64(++x->prio); }

/* The process (address space) of pid, made empty when new. */
static process *process_of(replay *x, int64_t pid)
{
    uint32_t i = u64map_get(&x->proc_of_pid, (uint64_t)pid);
    if (i != PROFKIT_NONE)
        return &x->procs[i];
    if (x->n_procs >= UINT32_MAX - 1 || PK_VEC_RESERVE(x->procs, x->n_procs, x->cap_procs, 1) ||
        u64map_put(&x->proc_of_pid, (uint64_t)pid, (uint32_t)x->n_procs))
        return NULL;
    process *pr = &x->procs[x->n_procs++];
    memset(pr, 0, sizeof(*pr));
    pr->pid = pid;
    pr->maps.gen = ++x->gens;
    return pr;
}

static pthread *thread_of(replay *x, uint32_t tid)
{
    uint32_t i = u64map_get(&x->thread_of_tid, tid);
    if (i != PROFKIT_NONE)
        return &x->threads[i];
    if (x->n_threads >= UINT32_MAX - 1 ||
        PK_VEC_RESERVE(x->threads, x->n_threads, x->cap_threads, 1) ||
        u64map_put(&x->thread_of_tid, tid, (uint32_t)x->n_threads))
        return NULL;
    pthread *t = &x->threads[x->n_threads++];
    memset(t, 0, sizeof(*t));
    t->tid = tid;
    t->pid = -1;
    t->model = PROFKIT_NONE;
    char name[16];
    int len = tid == 0 ? snprintf(name, sizeof(name), "swapper")
                       : snprintf(name, sizeof(name), ":%d", (int32_t)tid);
    if ((t->comm = profkit_string_intern(x->p, name, (size_t)len)) == PROFKIT_NONE)
        return NULL;
    t->comm_set = tid == 0;
    return t;
}

/* A thread's address space: its process's (its own when the pid is not
 * known, as perf does). */
static process *space_of(replay *x, const pthread *t)
{
    return process_of(x, t->pid >= 0 ? t->pid : (int64_t)(int32_t)t->tid);
}

static uint32_t mapping_get(replay *x, uint64_t start, uint64_t end, uint64_t pgoff,
                            const char *path, size_t path_len, const char *build_id)
{
    profkit_profile *p = x->p;
    uint32_t ps = profkit_string_intern(p, path, path_len);
    uint32_t bs = profkit_string_intern_cstr(p, build_id);
    if (ps == PROFKIT_NONE || bs == PROFKIT_NONE)
        return PROFKIT_NONE;
    if ((x->mused + 1) * 2 > x->mcap) {
        size_t ncap = x->mcap ? x->mcap * 2 : 64;
        mentry *nt = calloc(ncap, sizeof(mentry));
        if (!nt)
            return PROFKIT_NONE;
        for (size_t i = 0; i < x->mcap; i++) {
            mentry *e = &x->mcache[i];
            if (!e->mapping)
                continue;
            size_t j = pk_hash_u64(e->start ^ pk_hash_u64(e->end ^ ((uint64_t)e->path << 32))) & (ncap - 1);
            while (nt[j].mapping)
                j = (j + 1) & (ncap - 1);
            nt[j] = *e;
        }
        free(x->mcache);
        x->mcache = nt;
        x->mcap = ncap;
    }
    size_t mask = x->mcap - 1;
    size_t j = pk_hash_u64(start ^ pk_hash_u64(end ^ ((uint64_t)ps << 32))) & mask;
    for (; x->mcache[j].mapping; j = (j + 1) & mask) {
        mentry *e = &x->mcache[j];
        if (e->start == start && e->end == end && e->pgoff == pgoff && e->path == ps &&
            e->build_id == bs)
            return e->mapping - 1;
    }
    if (p->n_mappings >= UINT32_MAX - 1 || PK_VEC_RESERVE(p->mappings, p->n_mappings, p->cap_mappings, 1))
        return PROFKIT_NONE;
    profkit_mapping *m = &p->mappings[p->n_mappings];
    memset(m, 0, sizeof(*m));
    m->start = start;
    m->end = end;
    m->offset = pgoff;
    m->path = ps;
    m->build_id = bs;
    uint32_t id = (uint32_t)p->n_mappings++;
    mentry *e = &x->mcache[j];
    e->start = start;
    e->end = end;
    e->pgoff = pgoff;
    e->path = ps;
    e->build_id = bs;
    e->mapping = id + 1;
    x->mused++;
    return id;
}

/* Maps [start, end) to `mapping` in s: the ranges it overlaps are trimmed
 * to what lies outside it, or removed (perf's maps__fixup_overlappings). */
static int space_map(replay *x, space *s, uint64_t start, uint64_t end, uint32_t mapping)
{
    s->gen = ++x->gens;
    for (;;) {
        uint32_t o = floor_node(s, end, 1);
        if (!o || s->node[o].end <= start)
            break;
        mnode old = s->node[o];
        space_remove(s, old.start);
        if (old.start < start && space_put(s, old.start, start, old.mapping, next_prio(x)))
            return PROFKIT_ENOMEM;
        if (old.end > end && space_put(s, end, old.end, old.mapping, next_prio(x)))
            return PROFKIT_ENOMEM;
    }
    return space_put(s, start, end, mapping, next_prio(x));
}

/* The length of the NUL-terminated string at s, at most n. */
static size_t str_len(const uint8_t *s, size_t n)
{
    const uint8_t *z = memchr(s, 0, n);
    return z ? (size_t)(z - s) : n;
}

static const pk_perf_attr *first_attr(const replay *x) { return &x->r->attrs[0]; }

/* The body of a non-sample record without its trailer (sizes were checked
 * when the records were listed). */
static size_t body_size(const replay *x, const pk_perf_attr *a, size_t size)
{
    (void)x;
    return size - 8 - (a->sample_id_all ? a->trailer : 0);
}

static int do_mmap(replay *x, uint32_t type, uint16_t misc, const uint8_t *rec, size_t size)
{
    pk_perf *r = x->r;
    const pk_perf_attr *a = pk_perf_record_attr(r, type, rec, size);
    if (!a)
        a = first_attr(x);
    const uint8_t *b = rec + 8;
    size_t n = body_size(x, a, size);
    uint32_t pid = pk_perf_u32(r, b);
    uint64_t start = pk_perf_u64(r, b + 8), len = pk_perf_u64(r, b + 16),
             pgoff = pk_perf_u64(r, b + 24);
    size_t name_at = type == PK_PERF_MMAP ? 32 : 64;
    char build_id[2 * 20 + 1] = "";
    if (type == PK_PERF_MMAP2 && (misc & MISC_MMAP_BUILD_ID)) {
        unsigned bl = b[32] <= 20 ? b[32] : 20;
        for (unsigned i = 0; i < bl; i++)
            snprintf(build_id + 2 * i, 3, "%02x", b[36 + i]);
    }
    const char *name = (const char *)b + name_at;
    size_t name_len = str_len(b + name_at, n - name_at);
    unsigned mode = misc & MODE_MASK;
    space *s;
    if (mode == MODE_KERNEL) {
        s = &x->kernel;
        /* perf names the kernel's own text [kernel.kallsyms] (the record
         * says [kernel.kallsyms]_text, after the symbol it is relative to),
         * as its build id list does. */
        if (name_len >= 17 && memcmp(name, "[kernel.kallsyms]", 17) == 0)
            name_len = 17;
    } else if (mode == MODE_USER) {
        pthread *t = thread_of(x, pk_perf_u32(r, b + 4));
        if (!t)
            return oom(x);
        if (t->pid < 0)
            t->pid = (int32_t)pid;
        process *pr = process_of(x, (int32_t)pid >= 0 ? (int64_t)(int32_t)pid : (int64_t)(int32_t)t->tid);
        if (!pr)
            return oom(x);
        s = &pr->maps;
    } else {
        return 0; /* guest or hypervisor: no frame of ours uses it */
    }
    uint64_t end = start + len < start ? UINT64_MAX : start + len;
    if (end <= start)
        return 0;
    uint32_t m = mapping_get(x, start, end, pgoff, name, name_len, build_id);
    if (m == PROFKIT_NONE || space_map(x, s, start, end, m))
        return oom(x);
    return 0;
}

static int do_comm(replay *x, uint32_t type, const uint8_t *rec, size_t size)
{
    pk_perf *r = x->r;
    const pk_perf_attr *a = pk_perf_record_attr(r, type, rec, size);
    if (!a)
        a = first_attr(x);
    const uint8_t *b = rec + 8;
    size_t n = body_size(x, a, size);
    pthread *t = thread_of(x, pk_perf_u32(r, b + 4));
    if (!t)
        return oom(x);
    uint32_t comm = profkit_string_intern(x->p, (const char *)b + 8, str_len(b + 8, n - 8));
    if (comm == PROFKIT_NONE)
        return oom(x);
    t->pid = (int32_t)pk_perf_u32(r, b);
    if (comm != t->comm || !t->comm_set)
        t->model = PROFKIT_NONE;
    t->comm = comm;
    t->comm_set = 1;
    return 0;
}

static int do_fork(replay *x, uint16_t misc, const uint8_t *rec, int64_t at)
{
    pk_perf *r = x->r;
    const uint8_t *b = rec + 8;
    int64_t pid = (int32_t)pk_perf_u32(r, b), ppid = (int32_t)pk_perf_u32(r, b + 4);
    uint32_t tid = pk_perf_u32(r, b + 8), ptid = pk_perf_u32(r, b + 12);
    pthread *parent = thread_of(x, ptid);
    if (!parent)
        return oom(x);
    if (parent->pid < 0)
        parent->pid = ppid;
    uint32_t pcomm = parent->comm;
    int pset = parent->comm_set;
    int64_t parent_pid = parent->pid;
    pthread *t = thread_of(x, tid); /* may move parent */
    if (!t)
        return oom(x);
    /* A tid seen before is a new thread now (perf removes the old one). */
    char name[16];
    int len = snprintf(name, sizeof(name), ":%d", (int32_t)tid);
    t->pid = pid;
    t->model = PROFKIT_NONE;
    t->comm_set = pset;
    if (pset) {
        t->comm = pcomm;
    } else if ((t->comm = profkit_string_intern(x->p, name, (size_t)len)) == PROFKIT_NONE) {
        return oom(x);
    }
    if (pid == parent_pid || pid != (int64_t)(int32_t)tid)
        return 0; /* a thread of a process we know: it shares its maps */
    /* A new process: its own copy of the parent's maps (not when perf
     * synthesized the fork: the MMAP records of the process follow). */
    process *pr = process_of(x, pid);
    if (!pr)
        return oom(x);
    space_free(&pr->maps);
    pr->maps.gen = ++x->gens;
    if (misc & MISC_FORK_EXEC)
        return 0;
    uint32_t pi = u64map_get(&x->proc_of_pid, (uint64_t)parent_pid);
    if (pi == PROFKIT_NONE || !x->procs[pi].maps.n)
        return 0;
    const space *from = &x->procs[pi].maps;
    if (from->n > x->map_budget)
        return pk_read_fail(r->ctx, PROFKIT_EUNSUPPORTED, at,
                            "FORK: copying the parent's mappings would pass the limit of "
                            "mappings all processes may hold (one per 4 bytes of input)");
    x->map_budget -= from->n;
    if (!(pr->maps.node = malloc(from->n * sizeof(mnode))))
        return oom(x);
    memcpy(pr->maps.node, from->node, from->n * sizeof(mnode));
    pr->maps.n = pr->maps.cap = from->n;
    pr->maps.root = from->root;
    pr->maps.free = from->free;
    return 0;
}

/* The value type of a's event: made (with `samples` after the first one,
 * the first the default) at its first sample, as the perf script reader
 * makes them. */
static uint32_t event_vt(replay *x, pk_perf_attr *a)
{
    if (a->vt != PROFKIT_NONE)
        return a->vt;
    const char *name = pk_str(x->p, a->name);
    /* cpu-clock and task-clock count nanoseconds; modifiers (`:u`, `:ppp`)
     * change which samples, not the unit. */
    size_t base = strcspn(name, ":");
    int ns = (base == 9 && memcmp(name, "cpu-clock", 9) == 0) ||
             (base == 10 && memcmp(name, "task-clock", 10) == 0);
    uint32_t vt = pk_value_type_add(x->p, name, ns ? "nanoseconds" : "count");
    if (vt == PROFKIT_NONE)
        return vt;
    if (x->samples_vt == PROFKIT_NONE) {
        x->p->default_value = vt;
        if ((x->samples_vt = pk_value_type_add(x->p, "samples", "count")) == PROFKIT_NONE)
            return PROFKIT_NONE;
    }
    /* Equal names share a value type; samples may be it too. */
    return a->vt = vt;
}

/* The kernel's build id: its mapping's own (MMAP2), else the one the file
 * records for [kernel.kallsyms]; NULL when there is none. */
static const char *kernel_build_id(replay *x, uint32_t mapping)
{
    profkit_profile *p = x->p;
    const char *own = pk_str(p, p->mappings[mapping].build_id);
    if (own[0])
        return own;
    for (size_t i = 0; i < x->r->n_buildids; i++)
        if (strcmp(pk_str(p, x->r->buildids[i].path), "[kernel.kallsyms]") == 0)
            return pk_str(p, x->r->buildids[i].build_id);
    return NULL;
}

/* Loads the kernel's symbols at the first kernel frame, as perf finds
 * them; says where they came from (or why none) in the metadata, and once
 * as a warning when the kernel hides their addresses. Returns 0 or an error. */
static int kernel_symbols(replay *x, uint32_t mapping)
{
    char from[4200];
    from[0] = 0;
    const char *bid = kernel_build_id(x, mapping);
    int rc;
    x->ks = pk_kallsyms_load(bid, from, sizeof(from), &rc);
    x->ks_state = x->ks && x->ks->n ? 1 : -1;
    if (rc < 0)
        return oom(x);
    char note[4400];
    if (rc == 0)
        snprintf(note, sizeof(note), "%s", from);
    else if (rc == 2)
        snprintf(note, sizeof(note), "none: %s shows no addresses (kernel.kptr_restrict)", from);
    else if (from[0])
        snprintf(note, sizeof(note), "none: the file's kernel (build id %s) is not the running one, and %s is missing", bid, from);
    else
        snprintf(note, sizeof(note), "none: the file's kernel (build id %s) is not the running one", bid);
    if (pk_meta_add(x->p, "kernel_symbols", note))
        return oom(x);
    if (rc == 2)
        return pk_read_warn(x->r->ctx, PROFKIT_EUNSUPPORTED, -1,
                            "kernel frames are not named: %s shows no addresses "
                            "(kernel.kptr_restrict; as root, or with kptr_restrict 0, they are named)",
                            from);
    if (x->ks_state > 0 && (x->ks_module = profkit_string_intern(x->p, "[kernel.kallsyms]", 17)) == PROFKIT_NONE)
        return oom(x);
    return 0;
}

static uint32_t frame_of(replay *x, uint64_t addr, uint32_t mapping, int kernel)
{
    if ((x->fused + 1) * 2 > x->fcap) {
        size_t ncap = x->fcap ? x->fcap * 2 : 1024;
        fentry *nt = calloc(ncap, sizeof(fentry));
        if (!nt)
            return PROFKIT_NONE;
        for (size_t i = 0; i < x->fcap; i++) {
            fentry *e = &x->fcache[i];
            if (!e->frame)
                continue;
            size_t j = pk_hash_u64(e->addr ^ ((uint64_t)e->mapping << 40)) & (ncap - 1);
            while (nt[j].frame)
                j = (j + 1) & (ncap - 1);
            nt[j] = *e;
        }
        free(x->fcache);
        x->fcache = nt;
        x->fcap = ncap;
    }
    size_t mask = x->fcap - 1;
    size_t j = pk_hash_u64(addr ^ ((uint64_t)mapping << 40)) & mask;
    for (; x->fcache[j].frame; j = (j + 1) & mask)
        if (x->fcache[j].addr == addr && x->fcache[j].mapping == mapping)
            return x->fcache[j].frame - 1;
    char name[2 + 16 + 1];
    int len = snprintf(name, sizeof(name), "0x%" PRIx64, addr);
    profkit_function fn;
    memset(&fn, 0, sizeof(fn));
    fn.name = profkit_string_intern(x->p, name, (size_t)len);
    if (kernel && mapping != PROFKIT_NONE && x->ks_state > 0) {
        /* named from the kernel's symbols, as perf script names it */
        const pk_ksym *k = pk_kallsyms_find(x->ks, addr);
        if (k) {
            fn.name = profkit_string_intern(x->p, x->ks->buf + k->name, k->len);
            fn.module = x->ks_module;
        }
    }
    fn.system_name = fn.name;
    profkit_frame fr;
    memset(&fr, 0, sizeof(fr));
    fr.address = addr;
    fr.mapping = mapping;
    uint32_t f; /* new: only this reader makes frames, one per (address, mapping) */
    if (fn.name == PROFKIT_NONE || (fr.function = pk_function_add(x->p, &fn)) == PROFKIT_NONE ||
        (f = pk_frame_append(x->p, &fr)) == PROFKIT_NONE)
        return PROFKIT_NONE;
    x->fcache[j].addr = addr;
    x->fcache[j].mapping = mapping;
    x->fcache[j].frame = f + 1;
    x->fused++;
    return f;
}

static uint64_t stack_key_hash(uint32_t parent, uint32_t frame)
{
    return pk_hash_u64(((uint64_t)parent << 32) | frame);
}

/* The stack (parent, frame), made when new. */
static uint32_t stack_of(replay *x, uint32_t parent, uint32_t frame)
{
    if ((x->sused + 1) * 2 > x->scap) {
        size_t ncap = x->scap ? x->scap * 2 : 1024;
        sentry *nt = calloc(ncap, sizeof(sentry));
        if (!nt)
            return PROFKIT_NONE;
        for (size_t i = 0; i < x->scap; i++) {
            sentry *e = &x->scache[i];
            if (!e->stack)
                continue;
            size_t j = stack_key_hash(e->parent, e->frame) & (ncap - 1);
            while (nt[j].stack)
                j = (j + 1) & (ncap - 1);
            nt[j] = *e;
        }
        free(x->scache);
        x->scache = nt;
        x->scap = ncap;
    }
    size_t mask = x->scap - 1;
    size_t j = stack_key_hash(parent, frame) & mask;
    for (; x->scache[j].stack; j = (j + 1) & mask)
        if (x->scache[j].parent == parent && x->scache[j].frame == frame)
            return x->scache[j].stack - 1;
    uint32_t st = pk_stack_append(x->p, parent, frame);
    if (st == PROFKIT_NONE)
        return PROFKIT_NONE;
    x->scache[j].parent = parent;
    x->scache[j].frame = frame;
    x->scache[j].stack = st + 1;
    x->sused++;
    return st;
}

static int push_ip(replay *x, size_t *n, uint64_t ip, unsigned mode)
{
    if (PK_VEC_RESERVE(x->chain, *n, x->cap_chain, 1))
        return PROFKIT_ENOMEM;
    x->chain[*n].ip = ip;
    x->chain[*n].mode = mode;
    (*n)++;
    return 0;
}

/* The frame of addr in its mode's address space. */
static uint32_t frame_in(replay *x, uint64_t addr, unsigned mode, const space *user, int *rc)
{
    uint32_t m = mode == MODE_KERNEL ? space_find(&x->kernel, addr)
                 : mode == MODE_USER ? space_find(user, addr)
                                     : PROFKIT_NONE;
    if (mode == MODE_KERNEL && m != PROFKIT_NONE && x->ks_state == 0 &&
        (*rc = kernel_symbols(x, m)) != 0)
        return PROFKIT_NONE;
    return frame_of(x, addr, m, mode == MODE_KERNEL);
}

static int do_sample(replay *x, uint16_t misc, const uint8_t *rec, size_t size, int64_t at)
{
    pk_perf *r = x->r;
    pk_perf_attr *a = pk_perf_record_attr(r, PK_PERF_SAMPLE, rec, size);
    if (!a) {
        if (r->unknown_id++ == 0)
            r->unknown_id_at = at;
        return 0;
    }
    sample s;
    int rc = decode_sample(r, a, rec, size, at, 0, &s);
    if (rc)
        return rc;
    pthread *t = thread_of(x, s.tid);
    if (!t)
        return oom(x);
    if (t->pid < 0 && s.pid != UINT32_MAX)
        t->pid = (int32_t)s.pid;
    if (t->model == PROFKIT_NONE &&
        (t->model = pk_thread_get(x->p, pk_str(x->p, t->comm), "", t->pid,
                                  (int64_t)(int32_t)t->tid)) == PROFKIT_NONE)
        return pk_read_fail(r->ctx, PROFKIT_ENOMEM, at, "out of memory"); /* or a limit */
    uint32_t thread = t->model;
    const process *pr = space_of(x, t);
    if (!pr)
        return oom(x);
    const space *user = &pr->maps;
    uint32_t stack;
    centry *e = NULL;
    uint64_t h = 0;
    if (s.chain && x->ccap) {
        /* A chain seen before in the same versions of its address spaces
         * is the same stack: no frame or stack lookups. */
        h = pk_hash_bytes(s.chain, (size_t)s.nr * 8, user->gen * 0x9e3779b97f4a7c15u ^ x->kernel.gen);
        e = &x->ccache[h & (x->ccap - 1)];
        if (e->chain && e->hash == h && e->nr == s.nr && e->ugen == user->gen &&
            e->kgen == x->kernel.gen && memcmp(e->chain, s.chain, (size_t)s.nr * 8) == 0) {
            stack = e->stack;
            goto have_stack;
        }
    }
    size_t n = 0;
    if (s.chain) {
        /* perf starts a chain in user mode; its markers switch. */
        unsigned mode = MODE_USER;
        for (uint64_t i = 0; i < s.nr; i++) {
            uint64_t ip = pk_perf_u64(r, s.chain + 8 * i);
            if (ip >= CONTEXT_MAX)
                mode = ip == CONTEXT_KERNEL ? MODE_KERNEL : ip == CONTEXT_USER ? MODE_USER : MODE_OTHER;
            else if (push_ip(x, &n, ip, mode))
                return oom(x);
        }
    }
    if (n == 0)
        e = NULL; /* (the stack is the IP's, not the chain's: not cached) */
    if (n == 0 && (a->sample_type & PK_PERF_S_IP)) {
        /* No call chain, or an empty one (`--call-graph dwarf` leaves the
         * user part to unwinding from the copied stack, which profkit does
         * not do): the IP alone, as perf script shows a sample it does not
         * unwind. */
        unsigned mode = misc & MODE_MASK;
        if (push_ip(x, &n, s.ip, mode == MODE_KERNEL || mode == MODE_USER ? mode : MODE_OTHER))
            return oom(x);
    }
    /* root first */
    stack = 0;
    while (n-- > 0) {
        int frc = 0;
        uint32_t f = frame_in(x, x->chain[n].ip, x->chain[n].mode, user, &frc);
        if (f == PROFKIT_NONE)
            return frc ? frc : oom(x);
        if ((stack = stack_of(x, stack, f)) == PROFKIT_NONE) /* (the registry names a limit hit here) */
            return pk_read_fail(r->ctx, PROFKIT_ENOMEM, at, "out of memory");
    }
    if (e) {
        e->hash = h;
        e->chain = s.chain;
        e->nr = s.nr;
        e->ugen = user->gen;
        e->kgen = x->kernel.gen;
        e->stack = stack;
    }
have_stack:;
    uint32_t vt = event_vt(x, a);
    if (vt == PROFKIT_NONE)
        return oom(x);
    size_t nv = x->p->n_value_types;
    if (PK_VEC_RESERVE(x->values, 0, x->cap_values, nv))
        return oom(x);
    memset(x->values, 0, nv * sizeof(int64_t));
    uint64_t period = (a->sample_type & PK_PERF_S_PERIOD) ? s.period
                      : a->freq                            ? 1
                                                           : a->sample_period;
    x->values[vt] = period > INT64_MAX ? INT64_MAX : (int64_t)period;
    x->values[x->samples_vt] += 1;
    if (r->timed) {
        int64_t time = s.time > INT64_MAX ? INT64_MAX : (int64_t)s.time;
        rc = pk_sample_add_timed(x->p, stack, thread, time, x->values);
    } else {
        rc = pk_sample_add(x->p, stack, thread, x->values);
    }
    return rc ? oom(x) : 0;
}

/* Gives each mapping without a build id the one the file records for its
 * path (the first, when several do). */
static int apply_build_ids(replay *x)
{
    pk_perf *r = x->r;
    u64map first;
    memset(&first, 0, sizeof(first));
    for (size_t i = 0; i < r->n_buildids; i++)
        if (u64map_get(&first, r->buildids[i].path) == PROFKIT_NONE &&
            u64map_put(&first, r->buildids[i].path, (uint32_t)i)) {
            u64map_free(&first);
            return oom(x);
        }
    profkit_profile *p = x->p;
    for (size_t m = 0; m < p->n_mappings && r->n_buildids; m++) {
        profkit_mapping *mp = &p->mappings[m];
        uint32_t i = u64map_get(&first, mp->path);
        if (!pk_str(p, mp->build_id)[0] && i != PROFKIT_NONE)
            mp->build_id = r->buildids[i].build_id;
    }
    u64map_free(&first);
    return 0;
}

int pk_perf_replay(pk_perf *r)
{
    replay x;
    memset(&x, 0, sizeof(x));
    x.r = r;
    x.p = r->p;
    x.samples_vt = PROFKIT_NONE;
    x.map_budget = r->n / 4 + 4096;
    /* the chain cache: up to 64 Ki entries, fewer for fewer records */
    for (x.ccap = 16; x.ccap < 65536 && x.ccap < r->n_recs; x.ccap *= 2)
        ;
    if (!(x.ccache = calloc(x.ccap, sizeof(centry))))
        return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < r->n_recs && !rc; i++) {
        if ((i & 0xffff) == 0)
            pk_read_progress(r->ctx, i, r->n_recs);
        const uint8_t *rec = pk_perf_record_at(r, r->recs[i].off);
        /* (a record of the compressed ones is named by the first of them) */
        int64_t at = r->recs[i].off < r->n ? (int64_t)r->recs[i].off : r->z_at;
        uint32_t type = pk_perf_u32(r, rec);
        uint16_t misc = pk_perf_u16(r, rec + 4);
        size_t size = pk_perf_u16(r, rec + 6);
        switch (type) {
        case PK_PERF_SAMPLE:
            rc = do_sample(&x, misc, rec, size, at);
            break;
        case PK_PERF_MMAP:
        case PK_PERF_MMAP2:
            rc = do_mmap(&x, type, misc, rec, size);
            break;
        case PK_PERF_COMM:
            rc = do_comm(&x, type, rec, size);
            break;
        case PK_PERF_FORK:
            rc = do_fork(&x, misc, rec, at);
            break;
        default:
            break;
        }
    }
    if (!rc)
        rc = apply_build_ids(&x);
    x.p->mappings_settled = 1; /* each frame has its process's mapping */
    space_free(&x.kernel);
    for (size_t i = 0; i < x.n_procs; i++)
        space_free(&x.procs[i].maps);
    free(x.procs);
    u64map_free(&x.proc_of_pid);
    free(x.threads);
    u64map_free(&x.thread_of_tid);
    free(x.fcache);
    free(x.mcache);
    free(x.ccache);
    free(x.scache);
    free(x.chain);
    free(x.values);
    return rc;
}
