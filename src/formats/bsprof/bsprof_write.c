/*
 * bsprof_write.c: writes any profile as a Roku BrightScript profiler file
 * (.bsprof). The format is described at the top of bsprof_read.c;
 * docs/formats/bsprof.md says how values without a bsprof counterpart,
 * lines and memory are written.
 */
#include "formats/bsprof/bsprof.h"
#include "util/buf.h"
#include "util/cursor.h"
#include "util/map64.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#define EMPTY PK_MAP64_EMPTY

/* A path element as the writer emits it; hash-consed on all fields. */
typedef struct welem {
    uint32_t caller; /* element id, 0 = root */
    uint32_t module; /* root only */
    uint32_t call_off;
    uint32_t file, line, name; /* bsprof string ids and definition line */
} welem;

/* A freed allocation waiting for its free entry. */
typedef struct pending_free {
    uint64_t addr;
    uint32_t elem, off;
} pending_free;

typedef struct writer {
    const profkit_profile *p;
    pk_buf *out; /* the sink's buffer */
    int line_data;
    uint32_t *str_id; /* model string id -> bsprof id (0 = not yet written) */
    uint32_t next_str;
    welem *el;        /* el[0] unused: ids are 1-based */
    size_t n_el, cap_el;
    pk_idset el_set;
    pk_map64 stack_elem; /* (stack << 32 | thread) -> memo index */
    uint32_t *memo_elem, *memo_off;
    size_t n_memo, cap_memo, cap_memo2;
    uint32_t *chain;
    size_t cap_chain;
    /* what is written: the rows of thread `th` (PROFKIT_NONE: all), value
     * v[i] of the model (PROFKIT_NONE: none) as bsprof value i, times scale[i] */
    uint32_t th;
    uint32_t v[N_VALUES];
    double scale[N_VALUES];
    uint32_t fallback; /* the module of rows without a known thread */
    uint64_t next_addr; /* of the next allocation written */
    pending_free *pend; /* freed allocations, in order, waiting for their frees */
    size_t n_pend, cap_pend;
} writer;

/* Writes no more than this many memory operations (a bound for hostile counts). */
#define MAX_WRITE_OPS ((uint64_t)200 * 1000 * 1000)

static void put_varint(pk_buf *out, uint64_t v)
{
    uint8_t b[10];
    pk_buf_put(out, b, pk_varint_encode(b, v));
}

static uint32_t wstring(writer *w, uint32_t sid)
{
    if (sid == 0 || sid >= w->p->strings.n)
        return 0;
    if (!w->str_id[sid]) {
        w->str_id[sid] = ++w->next_str;
        put_varint(w->out, (uint64_t)w->str_id[sid] << 3);
        const char *s = pk_str(w->p, sid);
        pk_buf_put(w->out, s, strlen(s) + 1);
    }
    return w->str_id[sid];
}

static int welem_eq(const void *ctx, uint32_t id, const void *key)
{
    const writer *w = ctx;
    return memcmp(&w->el[id], key, sizeof(welem)) == 0;
}

/* The element id for e, written on first use; 0 when out of memory. */
static uint32_t welem_get(writer *w, const welem *e)
{
    uint64_t h = pk_hash_bytes(e, sizeof(*e), 0xb5);
    uint32_t id = pk_idset_find(&w->el_set, h, welem_eq, w, e);
    if (id != PROFKIT_NONE)
        return id;
    if (w->n_el >= EMPTY - 1 || PK_VEC_RESERVE(w->el, w->n_el, w->cap_el, 1) != 0)
        return 0;
    id = (uint32_t)w->n_el++;
    w->el[id] = *e;
    if (pk_idset_insert(&w->el_set, h, id) != 0)
        return 0;
    put_varint(w->out, ((uint64_t)id << 3) | 2);
    put_varint(w->out, e->caller);
    if (e->caller == 0)
        put_varint(w->out, e->module);
    else if (w->line_data)
        put_varint(w->out, e->call_off);
    put_varint(w->out, e->file);
    put_varint(w->out, e->line);
    put_varint(w->out, e->name);
    return id;
}

/* The offset that encodes a frame's line against its definition line. */
static uint32_t line_offset(const profkit_profile *p, uint32_t frame)
{
    const profkit_frame *fr = &p->frames[frame];
    uint32_t start = p->functions[fr->function].start_line;
    if (fr->line == 0 || fr->line < start)
        return 1; /* unknown lines read back as the definition line */
    uint64_t off = (uint64_t)fr->line - start + 1;
    return off > UINT32_MAX ? 1 : (uint32_t)off;
}

/* Remembers (stack, module) -> (element, leaf line offset); 0 on ENOMEM. */
static int memo_put(writer *w, uint32_t stack, uint32_t module, uint32_t elem, uint32_t off)
{
    if (PK_VEC_RESERVE(w->memo_elem, w->n_memo, w->cap_memo, 1) != 0 ||
        PK_VEC_RESERVE(w->memo_off, w->n_memo, w->cap_memo2, 1) != 0 ||
        pk_map64_put(&w->stack_elem, ((uint64_t)stack << 32) | module, (uint32_t)w->n_memo) < 0)
        return 0;
    w->memo_elem[w->n_memo] = elem;
    w->memo_off[w->n_memo] = off;
    w->n_memo++;
    return 1;
}

/*
 * Element and leaf line offset of (stack, module); returns 0 on ENOMEM.
 * The walk up stops at the nearest ancestor already written for this
 * module, and every node on the way down is remembered, so each stack node
 * is walked once per module however deep the tree (a prefix chain with a
 * value at every level was quadratic).
 */
static int welem_of_stack(writer *w, uint32_t stack, uint32_t module, uint32_t *elem, uint32_t *off)
{
    const profkit_profile *p = w->p;
    uint32_t m = pk_map64_get(&w->stack_elem, ((uint64_t)stack << 32) | module);
    if (m != EMPTY) {
        *elem = w->memo_elem[m];
        *off = w->memo_off[m];
        return 1;
    }
    size_t depth = 0;
    uint32_t e = 0, prev_frame = PROFKIT_NONE;
    for (uint32_t s = stack; s != 0 && s < p->n_stacks; s = p->stacks[s].parent) {
        if (s != stack && (m = pk_map64_get(&w->stack_elem, ((uint64_t)s << 32) | module)) != EMPTY) {
            e = w->memo_elem[m];
            prev_frame = p->stacks[s].frame;
            break;
        }
        if (PK_VEC_RESERVE(w->chain, depth, w->cap_chain, 1) != 0)
            return 0;
        w->chain[depth++] = s;
    }
    for (size_t d = depth; d-- > 0;) {
        uint32_t frame = p->stacks[w->chain[d]].frame;
        const profkit_function *fn = &p->functions[p->frames[frame].function];
        welem we;
        memset(&we, 0, sizeof(we));
        we.caller = e;
        we.module = e ? 0 : module;
        we.call_off = e && w->line_data ? line_offset(p, prev_frame) : 0;
        we.file = wstring(w, fn->file);
        we.line = fn->start_line;
        we.name = wstring(w, fn->name);
        if (we.name == 0) {
            /* A nameless frame (an unsymbolized address) gets its label. */
            char buf[64];
            size_t len = pk_frame_label(p, frame, 0, buf, sizeof(buf));
            uint32_t sid = pk_strtab_find(&p->strings, buf, len);
            if (sid != PROFKIT_NONE)
                we.name = wstring(w, sid);
            else {
                we.name = ++w->next_str;
                put_varint(w->out, (uint64_t)we.name << 3);
                pk_buf_put(w->out, buf, len + 1);
            }
        }
        if ((e = welem_get(w, &we)) == 0)
            return 0;
        prev_frame = frame;
        if (!memo_put(w, w->chain[d], module, e, w->line_data ? line_offset(p, frame) : 0))
            return 0;
    }
    *elem = e;
    *off = e && w->line_data ? line_offset(p, prev_frame) : 0;
    return 1;
}

/* Value type index by type name, or PROFKIT_NONE. */
static uint32_t find_type(const profkit_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_value_types; i++)
        if (strcmp(pk_str(p, p->value_types[i].type), name) == 0)
            return (uint32_t)i;
    return PROFKIT_NONE;
}

/* Microseconds per unit of a time unit, 0 for a unit that is not time. */
static double usec_per(const char *unit)
{
    if (strcmp(unit, "nanoseconds") == 0)
        return 1e-3;
    if (strcmp(unit, "microseconds") == 0)
        return 1;
    if (strcmp(unit, "milliseconds") == 0)
        return 1e3;
    if (strcmp(unit, "seconds") == 0)
        return 1e6;
    return 0;
}

static uint64_t cell(const profkit_profile *p, size_t row, uint32_t v, double scale)
{
    if (v == PROFKIT_NONE)
        return 0;
    int64_t x = p->sample_values[row * p->n_value_types + v];
    if (x <= 0)
        return 0;
    if (scale == 1)
        return (uint64_t)x;
    double d = floor((double)x * scale + 0.5);
    return d >= 9.2e18 ? (uint64_t)INT64_MAX : (uint64_t)d;
}

static void put_memop(writer *w, uint32_t elem, uint32_t off, unsigned op, uint64_t addr,
                      uint64_t size)
{
    put_varint(w->out, ((uint64_t)elem << 5) | (op << 3) | 3);
    if (w->line_data)
        put_varint(w->out, off);
    put_varint(w->out, addr);
    if (op == OP_ALLOC)
        put_varint(w->out, size);
}

static int parse_version(const char *s, uint64_t v[3])
{
    if (!s)
        return -1;
    for (int i = 0; i < 3; i++) {
        char *end;
        if (*s < '0' || *s > '9')
            return -1;
        v[i] = strtoull(s, &end, 10);
        if (i < 2 && *end != '.')
            return -1;
        if (i == 2 && *end)
            return -1;
        s = end + 1;
    }
    return 0;
}

static uint64_t meta_num(const profkit_profile *p, const char *key)
{
    const char *s = pk_meta_get(p, key);
    return s && *s >= '0' && *s <= '9' ? strtoull(s, NULL, 10) : 0;
}

static void write_header(writer *w, int mem)
{
    const profkit_profile *p = w->p;
    uint8_t buf[64];
    size_t n = 0;
    uint64_t ver[3] = { 1, 0, 0 };
    parse_version(pk_meta_get(p, "format_version"), ver);
    /* The header size is the first thing that depends on the total, so the
     * fixed part is measured first and the strings added after. */
    size_t strings = 0;
    const char *s[6];
    for (int i = 0; i < 6; i++) {
        s[i] = pk_meta_get(p, header_strings[i]);
        if (!s[i])
            s[i] = "";
        strings += strlen(s[i]) + 1;
    }
    uint8_t tail[64];
    size_t t = 0;
    for (int i = 0; i < 2; i++) {
        const char *r = pk_meta_get(p, i ? "actual_sample_ratio" : "requested_sample_ratio");
        float f = r ? strtof(r, NULL) : 1.0f;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        pk_put_le32(tail + t, bits);
        t += 4;
    }
    t += pk_varint_encode(tail + t, (uint64_t)w->line_data);
    t += pk_varint_encode(tail + t, (uint64_t)mem);
    t += pk_varint_encode(tail + t, meta_num(p, "start_timestamp_ms"));
    memcpy(buf, magic, 8);
    n = 8;
    for (int i = 0; i < 3; i++)
        n += pk_varint_encode(buf + n, ver[i]);
    /* The header size counts its own varint, whose length depends on it. */
    uint8_t sz[10];
    size_t szn = 1;
    for (;;) {
        size_t got = pk_varint_encode(sz, n + szn + t + strings);
        if (got == szn)
            break;
        szn = got;
    }
    pk_buf_put(w->out, buf, n);
    pk_buf_put(w->out, sz, szn);
    pk_buf_put(w->out, tail, t);
    for (int i = 0; i < 6; i++)
        pk_buf_put(w->out, s[i], strlen(s[i]) + 1);
}

/* Which model values become which bsprof values: those of the same name;
 * else, for cpu, the default value when no other bsprof value has it.
 * Times are written in microseconds. */
static void map_values(writer *w)
{
    const profkit_profile *p = w->p;
    for (int i = 0; i < N_VALUES; i++) {
        w->v[i] = find_type(p, value_names[i][0]);
        w->scale[i] = 1;
    }
    if (w->v[V_CPU] == PROFKIT_NONE && p->n_value_types) {
        uint32_t d = p->default_value < p->n_value_types ? p->default_value : 0;
        int other = 0;
        for (int i = 1; i < N_VALUES; i++)
            other |= w->v[i] == d;
        if (!other)
            w->v[V_CPU] = d;
    }
    for (int i = V_CPU; i <= V_WALL; i++)
        if (w->v[i] != PROFKIT_NONE) {
            double u = usec_per(pk_str(p, p->value_types[w->v[i]].unit));
            w->scale[i] = u ? u : 1;
        }
}

/* Whether any row has memory values (*mem); PROFKIT_EUNSUPPORTED when the
 * memory operations to write would pass MAX_WRITE_OPS. */
static int count_memory(const writer *w, int *mem, profkit_error *err)
{
    const profkit_profile *p = w->p;
    uint64_t n_ops = 0;
    *mem = 0;
    for (size_t r = 0; r < p->n_samples; r++) {
        if (w->th != PROFKIT_NONE && p->sample_thread[r] != w->th)
            continue;
        uint64_t a = cell(p, r, w->v[V_ALLOC_OBJECTS], 1), i = cell(p, r, w->v[V_INUSE_OBJECTS], 1);
        uint64_t f = cell(p, r, w->v[V_FREE_OBJECTS], 1);
        *mem |= a || i || f;
        n_ops += (a > i ? a : i) + f;
        if (n_ops > MAX_WRITE_OPS)
            return pk_error_set(err, PROFKIT_EUNSUPPORTED, NULL, -1,
                                     "bsprof: more than %" PRIu64
                                     " memory operations to write (one per allocated object)",
                                     MAX_WRITE_OPS);
    }
    return 0;
}

/* Modules: one per thread; a row without a known thread gets "main". */
static void write_modules(writer *w)
{
    const profkit_profile *p = w->p;
    pk_buf *out = w->out;
    int need_fallback = 0;
    w->fallback = (uint32_t)p->n_threads + 1;
    for (size_t r = 0; r < p->n_samples; r++)
        need_fallback |= p->sample_thread[r] >= p->n_threads;
    for (size_t t = 0; t < p->n_threads; t++) {
        uint32_t name = wstring(w, p->threads[t].name);
        put_varint(out, ((uint64_t)(t + 1) << 3) | 1);
        put_varint(out, name);
    }
    if (need_fallback) {
        put_varint(out, ((uint64_t)++w->next_str) << 3);
        pk_buf_put(out, "main", 5);
        put_varint(out, ((uint64_t)w->fallback << 3) | 1);
        put_varint(out, w->next_str);
    }
}

/* A row's allocations, at its element and line offset: the live ones
 * share the in-use bytes, the freed ones the rest (their frees wait in
 * pend). 0, or PROFKIT_ENOMEM. */
static int write_allocs(writer *w, const uint64_t *val, uint32_t elem, uint32_t off)
{
    uint64_t live = val[V_INUSE_OBJECTS];
    uint64_t all = val[V_ALLOC_OBJECTS] > live ? val[V_ALLOC_OBJECTS] : live;
    uint64_t freed = all - live;
    uint64_t live_bytes = val[V_INUSE_SPACE];
    uint64_t freed_bytes = val[V_ALLOC_SPACE] > live_bytes ? val[V_ALLOC_SPACE] - live_bytes : 0;
    for (uint64_t k = 0; k < all; k++) {
        int is_live = k < live;
        uint64_t cnt = is_live ? live : freed, bytes = is_live ? live_bytes : freed_bytes;
        uint64_t idx = is_live ? k : k - live;
        uint64_t size = bytes / cnt + (idx == 0 ? bytes % cnt : 0);
        put_memop(w, elem, off, OP_ALLOC, w->next_addr, size);
        if (!is_live) {
            if (PK_VEC_RESERVE(w->pend, w->n_pend, w->cap_pend, 1) != 0)
                return PROFKIT_ENOMEM;
            w->pend[w->n_pend].addr = w->next_addr;
            w->pend[w->n_pend].elem = elem;
            w->pend[w->n_pend++].off = off;
        }
        w->next_addr += 16;
    }
    return 0;
}

/* Each row's CPU, call count and allocations at its stack's element. 0,
 * or PROFKIT_ENOMEM. */
static int write_rows(writer *w)
{
    const profkit_profile *p = w->p;
    pk_buf *out = w->out;
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t t = p->sample_thread[r];
        if (w->th != PROFKIT_NONE && t != w->th)
            continue;
        uint32_t module = t < p->n_threads ? t + 1 : w->fallback, elem, off;
        uint64_t val[N_VALUES];
        int nz = 0;
        for (int i = 0; i < N_VALUES; i++)
            nz |= (val[i] = cell(p, r, w->v[i], w->scale[i])) != 0;
        if (!nz)
            continue;
        if (!welem_of_stack(w, p->sample_stack[r], module, &elem, &off))
            return PROFKIT_ENOMEM;
        if (elem == 0)
            continue; /* the empty stack has no path element to carry values */
        if (val[V_CPU] || val[V_WALL]) {
            put_varint(out, ((uint64_t)elem << 3) | 4);
            if (w->line_data)
                put_varint(out, off);
            put_varint(out, val[V_CPU]);
            put_varint(out, val[V_WALL]);
        }
        if (val[V_CALLS]) {
            put_varint(out, ((uint64_t)elem << 3) | 5);
            put_varint(out, val[V_CALLS]);
        }
        if (write_allocs(w, val, elem, off) != 0)
            return PROFKIT_ENOMEM;
    }
    return 0;
}

/* Frees at the freeing stacks, matched against the freed allocations in
 * order; frees beyond them name addresses never allocated; then the frees
 * of the freed allocations left. 0, or PROFKIT_ENOMEM. */
static int write_frees(writer *w)
{
    const profkit_profile *p = w->p;
    size_t next = 0;
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t t = p->sample_thread[r];
        if (w->th != PROFKIT_NONE && t != w->th)
            continue;
        uint64_t f = cell(p, r, w->v[V_FREE_OBJECTS], 1);
        if (!f)
            continue;
        uint32_t elem, off;
        if (!welem_of_stack(w, p->sample_stack[r], t < p->n_threads ? t + 1 : w->fallback, &elem, &off))
            return PROFKIT_ENOMEM;
        if (elem == 0)
            continue;
        for (uint64_t k = 0; k < f; k++) {
            uint64_t addr;
            if (next < w->n_pend)
                addr = w->pend[next++].addr;
            else {
                addr = w->next_addr;
                w->next_addr += 16;
            }
            put_memop(w, elem, off, OP_FREE, addr, 0);
        }
    }
    for (; next < w->n_pend; next++)
        put_memop(w, w->pend[next].elem, w->pend[next].off, OP_FREE, w->pend[next].addr, 0);
    return 0;
}

int pk_bsprof_write(const profkit_profile *p, pk_sink *sink, const profkit_write_options *o,
                    profkit_error *err)
{
    writer w;
    memset(&w, 0, sizeof(w));
    w.p = p;
    w.out = pk_sink_buf(sink);
    w.next_addr = 0x10000;
    int ok, mem, rc;
    w.th = pk_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    map_values(&w);
    for (size_t f = 0; f < p->n_frames && !w.line_data; f++) {
        const profkit_frame *fr = &p->frames[f];
        w.line_data = fr->line != 0 && fr->line != p->functions[fr->function].start_line;
    }
    if ((rc = count_memory(&w, &mem, err)) != 0)
        return rc;
    rc = PROFKIT_ENOMEM;
    if ((w.str_id = calloc(p->strings.n ? p->strings.n : 1, sizeof(uint32_t))) &&
        PK_VEC_RESERVE(w.el, 0, w.cap_el, 1) == 0) {
        w.n_el = 1;
        write_header(&w, mem);
        write_modules(&w);
        if (write_rows(&w) == 0 && write_frees(&w) == 0) {
            put_varint(w.out, 0);
            put_varint(w.out, meta_num(p, "end_timestamp_ms"));
            rc = 0;
        }
    }
    free(w.str_id);
    free(w.el);
    pk_idset_free(&w.el_set);
    pk_map64_free(&w.stack_elem);
    free(w.memo_elem);
    free(w.memo_off);
    free(w.chain);
    free(w.pend);
    if (rc)
        pk_error_set(err, rc, NULL, -1, "out of memory writing bsprof");
    return rc;
}
