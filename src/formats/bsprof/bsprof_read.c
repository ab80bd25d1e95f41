/*
 * bsprof_read.c: Roku BrightScript profiler files (.bsprof): the reader and
 * the format entry (the writer is bsprof_write.c).
 *
 * The format, its rules and the choices made where its description is
 * silent are in docs/formats/bsprof.md.
 * In short: a header (magic "bsprof\0\0", version, sample ratios, line-data
 * and memory-data flags, start time, six NUL-terminated strings, padded to
 * its declared size), then a stream of entries, each a varint tag whose low
 * three bits are the type:
 *
 *   tag 0          end of entries; a varint end timestamp (the footer) follows
 *   0 string       id = tag >> 3, then a NUL-terminated string
 *   1 module       id = tag >> 3, then the name's string id (a thread)
 *   2 path element id = tag >> 3, caller id; root: module, file, line, function;
 *                  chained: [line offset in caller], file, line, function
 *   3 memory op    path element = tag bits 36..5, op = bits 4..3 (alloc, free,
 *                  free_realloc); [line offset], address, size (alloc only)
 *   4 CPU          path element = tag >> 3; [line offset], cpu, wall (increments)
 *   5 call count   path element = tag >> 3; count (increment)
 *   6, 7           reserved: their length is unknown, so they are errors
 *
 * Ids are 1-based; string id 0 is the null string (""). Everything a
 * reference names must be defined earlier in the stream.
 *
 * The reader streams the input through a small buffer, so a file of any
 * size costs only the model plus the table of live allocations: memory
 * operations become value types as they are read (alloc_*, free_objects at
 * the op's own stack; inuse_* for what is still allocated at the end).
 * Values are summed per distinct (path element, line offset) in a side
 * table and moved into the model once at the end. Data entries (memory
 * operations, CPU, call counts) are decoded by a fast path (decode_fast_*())
 * into batches that are applied together (batch_apply()), because each
 * touches memory no cache holds; every other entry, every error and the
 * last bytes of the buffer go through the checked decoder (read_entry()).
 *
 * The writer (bsprof_write.c) turns any profile into this format.
 */
#include "formats/bsprof/bsprof_reader.h"
#include "util/cursor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif
/* x86-64 with GCC or clang: batch_apply() also compiled for AVX2, picked at
 * run time. */
#if defined(__x86_64__) && defined(__GNUC__)
#define PK_APPLY_AVX2 1
#define PK_TARGET_APPLY_AVX2 __attribute__((target("avx,avx2")))
#include <immintrin.h>
#else
#define PK_APPLY_AVX2 0
#endif

static int bsprof_sniff(const uint8_t *d, size_t n, int complete)
{
    (void)complete;
    return n >= sizeof(magic) && memcmp(d, magic, sizeof(magic)) == 0 ? 100 : 0;
}

/* ------------------------------------------------------------ id tables */

static void idtab_free(idtab *t)
{
    free(t->dense);
    pk_map64_free(&t->sparse);
    memset(t, 0, sizeof(*t));
}

static inline uint32_t idtab_get(const idtab *t, uint64_t id)
{
    if (PK_LIKELY(id < t->n_dense))
        return t->dense[id];
    return pk_map64_get(&t->sparse, id);
}

/* Sets id to val. Returns 1 when id was defined before, 0, or ENOMEM. */
static int idtab_put(idtab *t, uint64_t id, uint32_t val)
{
    if (id >= t->n_dense && id < 2 * (t->count + 1) + 4096 && pk_map64_get(&t->sparse, id) == EMPTY) {
        size_t n = t->n_dense ? t->n_dense : 4096;
        while (n <= id)
            n *= 2;
        uint32_t *d = realloc(t->dense, n * sizeof(uint32_t));
        if (!d)
            return PROFKIT_ENOMEM;
        memset(d + t->n_dense, 0xff, (n - t->n_dense) * sizeof(uint32_t));
        /* Ids defined in the map that the array now covers move into it
         * (the array is looked at first; their map entries are dead). */
        for (size_t j = 0; j < t->sparse.cap; j++)
            if (t->sparse.vals[j] != EMPTY && t->sparse.keys[j] >= t->n_dense &&
                t->sparse.keys[j] < n)
                d[t->sparse.keys[j]] = t->sparse.vals[j];
        t->dense = d;
        t->n_dense = n;
    }
    if (id < t->n_dense) {
        int had = t->dense[id] != EMPTY;
        t->dense[id] = val;
        t->count += !had;
        return had;
    }
    int had = pk_map64_put(&t->sparse, id, val);
    if (had == 0)
        t->count++;
    return had;
}

/* ------------------------------------------------------ value rows */

/*
 * The value rows are touched at random, so a big array costs a TLB miss per
 * row on 4 KiB pages; on Linux it asks for transparent huge pages.
 */
static void *table_alloc(size_t bytes)
{
#if defined(MADV_HUGEPAGE)
    if (bytes >= ((size_t)4 << 20)) {
        void *p;
        if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0)
            return NULL;
        madvise(p, bytes, MADV_HUGEPAGE); /* advice only: failure is fine */
        return p;
    }
#endif
    void *p;
    return posix_memalign(&p, 64, bytes) == 0 ? p : NULL; /* rows and slots never straddle lines */
}

/* ------------------------------------------------------------------ reader */

static const char *const dup_kind[3] = { "string", "module", "path element" };

/* Makes more input available; grows the buffer when an entry fills it. */
static int input_fill(input *in, profkit_error *err)
{
    if (in->eof)
        return 0;
    if (!in->buf) {
        const uint8_t *d;
        size_t n;
        int m = pk_source_map(in->src, &d, &n, err);
        if (m < 0 || m > 1)
            return m;
        if (m == 1) {
            in->buf = (uint8_t *)(uintptr_t)d;
            in->len = n;
            in->eof = 1;
            in->mapped = 1;
            return 0;
        }
    }
    if (in->pos > 0) {
        memmove(in->buf, in->buf + in->pos, in->len - in->pos);
        in->base += in->pos;
        in->len -= in->pos;
        in->pos = 0;
    }
    if (in->len == in->cap) {
        size_t ncap = in->cap ? in->cap * 2 : (size_t)1 << 20;
        uint8_t *nb = ncap > in->cap ? realloc(in->buf, ncap) : NULL;
        if (!nb)
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        in->buf = nb;
        in->cap = ncap;
    }
    size_t got;
    int rc = pk_source_read(in->src, in->buf + in->len, in->cap - in->len, &got, err);
    if (rc)
        return rc;
    if (got == 0)
        in->eof = 1;
    in->len += got;
    return 0;
}

static inline uint64_t at_offset(const reader *r, const pk_cursor *c)
{
    return r->in.base + r->in.pos + c->pos;
}

static int out_of_memory(reader *r)
{
    return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory");
}

/* Result of decoding one field: 0, or why the entry cannot be decoded. */
enum { F_OK = 0, F_SHORT = 1, F_FAIL = 2 };

/* A varint, without per-byte bounds checks when 10 bytes are there. */
static inline int varint_fast(pk_cursor *c, uint64_t *v)
{
    if (PK_LIKELY(c->size - c->pos >= 10)) {
        const uint8_t *p = c->data + c->pos;
        uint64_t b = p[0];
        if (PK_LIKELY(b < 0x80)) {
            *v = b;
            c->pos++;
            return 0;
        }
        uint64_t r = b & 0x7f;
        for (unsigned i = 1; i < 10; i++) {
            b = p[i];
            r |= (b & 0x7f) << (7 * i);
            if (b < 0x80) {
                if (i == 9 && b > 1)
                    return PROFKIT_ECORRUPT;
                c->pos += i + 1;
                *v = r;
                return 0;
            }
        }
        return PROFKIT_ECORRUPT;
    }
    return pk_cursor_varint(c, v);
}

/* The error side of field(), kept out of the hot path. */
static PK_NOINLINE int field_fail(reader *r, pk_cursor *c, size_t pos, int rc, const char *kind,
                                  const char *what, uint64_t v)
{
    uint64_t off = r->in.base + r->in.pos + pos;
    if (rc == 0)
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)off,
                          "%s entry: %s %" PRIu64 " does not fit 32 bits", kind, what, v);
    else
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)off,
                          "%s entry: %s: varint longer than 10 bytes", kind, what);
    (void)c;
    return F_FAIL;
}

/* Reads a varint field; errors name the entry kind and the field. */
static inline int field(reader *r, pk_cursor *c, const char *kind, const char *what,
                        uint64_t *v, int u32)
{
    size_t pos = c->pos;
    *v = 0;
    int rc = varint_fast(c, v);
    if (PK_LIKELY(rc == 0) && (!u32 || PK_LIKELY(*v <= UINT32_MAX)))
        return F_OK;
    if (rc == PROFKIT_ETRUNCATED)
        return F_SHORT;
    return field_fail(r, c, pos, rc, kind, what, *v);
}

#define FIELD(kind, what, var, u32)                               \
    do {                                                          \
        int f_ = field(r, c, kind, what, &(var), u32);            \
        if (f_)                                                   \
            return f_;                                            \
    } while (0)

/* Looks up a string reference; 0 is the null string. */
static inline int string_ref(reader *r, uint64_t off, const char *kind, const char *what, uint64_t id,
                      uint32_t *out)
{
    if (id == 0) {
        *out = 0;
        return F_OK;
    }
    *out = idtab_get(&r->strings, id);
    if (*out != EMPTY)
        return F_OK;
    pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)off,
                      "%s entry: %s string id %" PRIu64 " is not defined", kind, what, id);
    return F_FAIL;
}

static uint32_t pe_ref(reader *r, uint64_t id)
{
    uint32_t i = idtab_get(&r->pe_ids, id);
    return i;
}

static int undefined_pe(reader *r, uint64_t off, const char *kind, uint64_t id)
{
    pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)off,
                      "%s entry: path element %" PRIu64 " is not defined", kind, id);
    return F_FAIL;
}

/* Warns once per kind about a redefined id. */
static int redefined(reader *r, int kind, uint64_t off, uint64_t id)
{
    if (r->warned_dup[kind])
        return 0;
    r->warned_dup[kind] = 1;
    return pk_read_warn(r->ctx, PROFKIT_ECORRUPT, (int64_t)off,
                             "%s id %" PRIu64 " is defined twice; the later definition wins for "
                             "the entries after it (further redefinitions are not reported)",
                             dup_kind[kind], id);
}

/* line + offset - 1, or 0 (unknown) when that is not a line number. */
static uint32_t line_at(uint32_t line, uint64_t off)
{
    uint64_t l = (uint64_t)line + off;
    return l >= 2 && l - 1 < UINT32_MAX ? (uint32_t)(l - 1) : 0;
}

static uint32_t frame_of(profkit_profile *p, uint32_t function, uint32_t line)
{
    profkit_frame fr;
    memset(&fr, 0, sizeof(fr));
    fr.function = function;
    fr.line = line;
    fr.mapping = PROFKIT_NONE;
    return pk_frame_add(p, &fr);
}

/* Makes room for one more value row (stack, thread and N_VALUES sums). */
static int rows_reserve(reader *r)
{
    if (r->n_rows < r->cap_rows)
        return 0;
    size_t ncap = r->cap_rows ? r->cap_rows * 2 : 1024, cells;
    /* Rows stay below PK_LIVE_ROWS (2^28 - 1), what the live table can
     * name; that many rows' sums alone would take 17 GB. */
    if (ncap > PK_LIVE_ROWS || pk_mul_size(ncap, N_VALUES * sizeof(int64_t), &cells) != 0)
        return PROFKIT_ENOMEM;
    uint32_t *s = realloc(r->row_stack, ncap * sizeof(uint32_t));
    if (!s)
        return PROFKIT_ENOMEM;
    r->row_stack = s;
    uint32_t *t = realloc(r->row_thread, ncap * sizeof(uint32_t));
    if (!t)
        return PROFKIT_ENOMEM;
    r->row_thread = t;
    uint8_t *t8 = realloc(r->row_th8, ncap);
    if (!t8)
        return PROFKIT_ENOMEM;
    r->row_th8 = t8;
    /* Rows are 64 bytes, so an aligned array keeps each in one cache line. */
    int64_t *a = table_alloc(cells);
    if (!a)
        return PROFKIT_ENOMEM;
    if (r->n_rows)
        memcpy(a, r->acc, r->n_rows * N_VALUES * sizeof(int64_t));
    free(r->acc);
    r->acc = a;
    r->cap_rows = ncap;
    return 0;
}

static int mem_grow(reader *r, uint32_t th);

/* A new value row for (stack, thread), which has none; EMPTY on ENOMEM.
 * With the memory counters, the thread's series is there from then on
 * (so a memory operation, which always names a row's thread, need not
 * check). */
static uint32_t new_row(reader *r, uint32_t stack, uint32_t thread)
{
    uint64_t key = ((uint64_t)stack << 32) | thread;
    if (rows_reserve(r) != 0)
        return EMPTY;
    if (r->counters && thread >= r->n_mem && mem_grow(r, thread) != 0)
        return EMPTY;
    uint32_t row = (uint32_t)r->n_rows;
    if (pk_map64_put(&r->row_ids, key, row) < 0)
        return EMPTY;
    r->n_rows++;
    r->row_stack[row] = stack;
    r->row_thread[row] = thread;
    r->row_th8[row] = (uint8_t)thread;
    if (thread > UINT8_MAX)
        r->row_th8_ok = 0;
    memset(r->acc + (size_t)row * N_VALUES, 0, N_VALUES * sizeof(int64_t));
    return row;
}

/* The value row of (stack, thread), created on first use; EMPTY on ENOMEM. */
static uint32_t row_of(reader *r, uint32_t stack, uint32_t thread)
{
    uint32_t row = pk_map64_get(&r->row_ids, ((uint64_t)stack << 32) | thread);
    return row != EMPTY ? row : new_row(r, stack, thread);
}

/* Moves the memory operations counted in n into value row `row`. */
static void flush_counts(reader *r, uint32_t row, pe_counts *n)
{
    if (n->allocs | n->frees | n->space) {
        int64_t *a = r->acc + (size_t)row * N_VALUES;
        a[V_ALLOC_OBJECTS] += n->allocs;
        a[V_ALLOC_SPACE] += n->space;
        a[V_FREE_OBJECTS] += n->frees;
        memset(n, 0, sizeof(*n));
    }
}

/* Moves the memory operations counted in path element f into its row. */
static void flush_flat(reader *r, pe_flat *f)
{
    if (f->objs | f->space) {
        int64_t *a = r->acc + (size_t)f->row * N_VALUES;
        a[V_ALLOC_OBJECTS] += f->objs & 0xffff;
        a[V_ALLOC_SPACE] += (int64_t)f->space;
        a[V_FREE_OBJECTS] += f->objs >> 16;
        f->objs = 0;
        f->space = 0;
    }
}

/* The value row of path element index i at line offset off (checked
 * first in line_rows when `look`); EMPTY on ENOMEM. */
static uint32_t make_row(reader *r, uint32_t i, uint32_t off, int look)
{
    const pelem *e = &r->pe[i];
    uint32_t row = look ? pk_map64_get(&r->line_rows, ((uint64_t)i << 32) | off) : EMPTY;
    if (row != EMPTY)
        return row;
    profkit_profile *p = r->p;
    size_t frames = p->n_frames, stacks = p->n_stacks;
    uint32_t frame = frame_of(p, e->function, r->lines ? line_at(e->line, off) : e->line);
    if (frame == PROFKIT_NONE)
        return EMPTY;
    /* A new frame makes a new stack, and a new stack a new row: those need
     * no lookup. */
    uint32_t stack = p->n_frames > frames ? pk_stack_append(p, e->parent_stack, frame)
                                          : pk_stack_intern(p, e->parent_stack, frame);
    if (stack == PROFKIT_NONE)
        return EMPTY;
    return p->n_stacks > stacks ? new_row(r, stack, e->thread) : row_of(r, stack, e->thread);
}

/* The row of path element index i without lines, made on its first entry. */
static PK_NOINLINE uint32_t flat_row_slow(reader *r, uint32_t i)
{
    return r->pe_flat[i].row = make_row(r, i, 0, 0);
}

/* The row of path element index i at line offset off when it is not
 * cached, and in *slot where the cache now holds it. */
static PK_NOINLINE uint32_t entry_row_slow(reader *r, uint32_t i, uint32_t off, unsigned *slot)
{
    pelem *e = &r->pe[i];
    pe_rows *c = &r->pe_row[i];
    /* line_rows holds the rows row caches let go of: while this element's
     * cache has let none go, an offset it does not hold is a new one. */
    uint32_t row = make_row(r, i, off, e->evicted);
    if (row == EMPTY)
        return EMPTY;
    uint32_t k = e->next;
    e->next = (k + 1) % PE_CACHE;
    if (c->row[k] != EMPTY) {
        flush_counts(r, c->row[k], &c->n[k]);
        if (pk_map64_put(&r->line_rows, ((uint64_t)i << 32) | c->off[k], c->row[k]) < 0)
            return EMPTY;
        e->evicted = 1;
    }
    c->row[k] = row;
    c->off[k] = off;
    *slot = k;
    return row;
}

/* The row of an entry naming path element index i at line offset off (and
 * in *slot where pe_row[i] holds it); EMPTY when out of memory. The cache
 * is searched without branches. */
static inline uint32_t entry_row(reader *r, uint32_t i, uint32_t off, unsigned *slot)
{
    const pe_rows *c = &r->pe_row[i];
    uint32_t row = EMPTY;
#if defined(__SSE2__)
    /* Which slots hold off and a row: four compares at once, so the search
     * costs no branch on the (random) slot that matches. */
    __m128i rows = _mm_load_si128((const __m128i *)(const void *)c->row);
    __m128i offs = _mm_load_si128((const __m128i *)(const void *)c->off);
    __m128i hit = _mm_andnot_si128(_mm_cmpeq_epi32(rows, _mm_set1_epi32(-1)),
                                   _mm_cmpeq_epi32(offs, _mm_set1_epi32((int)off)));
    unsigned m = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(hit));
    if (PK_LIKELY(m != 0)) {
        *slot = pk_lowest_bit(m);
        row = c->row[*slot];
    }
#else
    for (unsigned k = 0; k < PE_CACHE; k++)
        if (c->off[k] == off && c->row[k] != EMPTY) {
            row = c->row[k];
            *slot = k;
        }
#endif
    return PK_LIKELY(row != EMPTY) ? row : entry_row_slow(r, i, off, slot);
}

/*
 * Adds to a row's value, capped so that the value type's total over all
 * rows stays within 63 bits: every sum an analysis makes over any rows is
 * then free of overflow too. Only needed once the sum of every increment
 * so far could pass INT64_MAX (start_capping()).
 */
static inline void acc_add(reader *r, int64_t *a, int v, uint64_t inc)
{
    uint64_t room = (uint64_t)(INT64_MAX - r->grand[v]);
    if (PK_UNLIKELY(inc > room))
        inc = room;
    r->grand[v] += (int64_t)inc;
    a[v] += (int64_t)inc;
}

/*
 * Data entries (memory operations, CPU, call counts) are decoded into a
 * batch first and applied together (batch_apply). Each touches memory no
 * cache holds: its path element's row cache, its value row, its slot in
 * the live table. A first pass over the batch finds the rows (prefetching
 * the row caches a few entries ahead) and prefetches them and the
 * live-table slots, and a second pass applies the entries in stream order
 * (so alloc/free matching is unchanged) once their lines have arrived.
 */

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p, 1)
#else
#define PREFETCH(p) ((void)(p))
#endif

/* Adds a decoded data entry to the batch (the caller keeps room for it). */
static inline void stage(reader *r, uint32_t kind, uint32_t pe, uint32_t off, uint64_t a, uint64_t b,
                         uint64_t at)
{
    data_entry *d = &r->batch[r->n_batch++];
    d->kind = kind;
    d->pe = pe;
    d->off = off;
    d->a = a;
    d->b = b;
    d->at = at;
}

#define ROW_AHEAD 16

/* Which value each kind adds a (or 1) and b to. */
static const uint8_t value_a[4] = { V_ALLOC_OBJECTS, V_FREE_OBJECTS, V_CPU, V_CALLS };
static const uint8_t value_b[4] = { V_ALLOC_SPACE, V_FREE_OBJECTS, V_WALL, V_CALLS };

/* From now on every addition is capped (and made in the value rows): the
 * exact totals so far. */
static PK_NOINLINE void start_capping(reader *r)
{
    for (size_t i = 0; i < r->n_pe; i++) {
        if (!r->lines) {
            if (r->pe_flat[i].row != EMPTY)
                flush_flat(r, &r->pe_flat[i]);
            continue;
        }
        for (unsigned k = 0; k < PE_CACHE; k++)
            if (r->pe_row[i].row[k] != EMPTY)
                flush_counts(r, r->pe_row[i].row[k], &r->pe_row[i].n[k]);
    }
    r->capped = 1;
    for (size_t row = 0; row < r->n_rows; row++)
        for (int v = 0; v < N_VALUES; v++)
            r->grand[v] += r->acc[row * N_VALUES + (size_t)v];
}

/* Counts a memory operation in its value row (a size of 2^32 or more, or
 * once capping). */
static PK_NOINLINE void count_in_row(reader *r, const data_entry *e, int capped)
{
    unsigned alloc = e->kind == D_ALLOC;
    int64_t *a = r->acc + (size_t)e->row * N_VALUES;
    if (!capped) {
        a[alloc ? V_ALLOC_OBJECTS : V_FREE_OBJECTS] += 1;
        a[V_ALLOC_SPACE] += (int64_t)e->b;
    } else {
        acc_add(r, a, alloc ? V_ALLOC_OBJECTS : V_FREE_OBJECTS, 1);
        acc_add(r, a, V_ALLOC_SPACE, e->b);
    }
}

/*
 * Counts a memory operation at its row: in the counts n kept beside the
 * row in the path element's row cache, else (a size of 2^32 or more, or
 * once capping) in the value row.
 */
static inline void count_memory_op(reader *r, const data_entry *e, pe_counts *n, int capped)
{
    unsigned alloc = e->kind == D_ALLOC;
    if (PK_LIKELY(!capped && e->b <= UINT32_MAX)) {
        if (PK_UNLIKELY(n->allocs == UINT16_MAX || n->frees == UINT16_MAX ||
                        n->space > UINT32_MAX - e->b))
            flush_counts(r, e->row, n);
        n->allocs += (uint16_t)alloc;
        n->frees += (uint16_t)!alloc;
        n->space += (uint32_t)e->b; /* 0 for a free */
        return;
    }
    count_in_row(r, e, capped);
}

/* The same for a path element without lines (its counts in f). */
static inline void count_memory_op_flat(reader *r, const data_entry *e, pe_flat *f, int capped)
{
    if (PK_LIKELY(!capped && e->b <= UINT32_MAX)) {
        if (PK_UNLIKELY(f->objs & PE_OBJS_FULL))
            flush_flat(r, f);
        f->objs += UINT32_C(1) << (16 * e->kind); /* D_ALLOC 0, D_FREE 1 */
        f->space += e->b; /* 0 for a free */
        return;
    }
    count_in_row(r, e, capped);
}

/* ------------------------------------------- bytes in use by operation order */

/* A size as a change of bytes in use (sizes of 2^63 or more are capped). */
static inline int64_t mem_bytes(uint64_t size)
{
    return size > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)size;
}

/* a - b, saturating. */
static inline int64_t mem_sub(int64_t a, int64_t b)
{
    int64_t d;
    return __builtin_sub_overflow(a, b, &d) ? (b > 0 ? INT64_MIN : INT64_MAX) : d;
}

/* Room for the series of model thread th (new_row()). */
static PK_NOINLINE int mem_grow(reader *r, uint32_t th)
{
    size_t n = r->n_mem ? r->n_mem : 16;
    while (n <= th)
        n *= 2;
    mem_series *m = realloc(r->mem, n * sizeof(*m));
    if (!m)
        return PROFKIT_ENOMEM;
    memset(m + r->n_mem, 0, (n - r->n_mem) * sizeof(*m));
    r->mem = m;
    r->n_mem = n;
    return 0;
}

/* Closes s's open bucket (its last point: the total `last` after
 * operation `last_at`) into b[n]; -1 when out of memory. */
static int mem_close(mem_series *s, uint64_t last_at, int64_t last)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        mem_bucket *b = realloc(s->b, ncap * sizeof(*b));
        if (!b)
            return -1;
        s->b = b;
        s->cap = ncap;
    }
    s->b[s->n++] = (mem_bucket){ s->min_at, s->max_at, last_at, s->min, s->max, last };
    return 0;
}

/* Operation `at` of s (its total now s->total, `before` it) opens a
 * bucket, the first after the open one (which ends at `before`): that one
 * closes, and when MEM_BUCKETS are closed neighbours merge in pairs (a
 * bucket then covers twice as many operations). */
static PK_NOINLINE int mem_open(mem_series *s, uint64_t at, int64_t before)
{
    if (at && mem_close(s, at - 1, before) != 0)
        return -1;
    if (s->n == MEM_BUCKETS) {
        for (size_t i = 0; i < s->n / 2; i++) {
            mem_bucket a = s->b[2 * i], b = s->b[2 * i + 1];
            if (b.min < a.min)
                a.min = b.min, a.min_at = b.min_at;
            if (b.max > a.max)
                a.max = b.max, a.max_at = b.max_at;
            a.last = b.last;
            a.last_at = b.last_at;
            s->b[i] = a;
        }
        s->n /= 2;
        s->shift++; /* at, the first operation after them, opens bucket n */
    }
    /* the closed buckets cover [0, n << shift): this one the next 2^shift */
    s->next = (uint64_t)(s->n + 1) << s->shift;
    s->min = s->max = s->total;
    s->min_at = s->max_at = at;
    return 0;
}

/* One memory operation of thread th (a row's: its series is there,
 * new_row()), changing its bytes in use by delta. */
static inline int mem_op(reader *r, uint32_t th, int64_t delta)
{
    mem_series *s = &r->mem[th];
    int64_t before = s->total, v;
    if (PK_UNLIKELY(__builtin_add_overflow(before, delta, &v)))
        v = delta < 0 ? INT64_MIN : INT64_MAX;
    s->total = v;
    uint64_t at = s->ops++;
    if (PK_LIKELY(at < s->next)) {
        /* without a branch: whether an operation makes a new low or high
         * is as random as the sizes */
        int64_t lo = s->min, hi = s->max;
        uint64_t lo_at = s->min_at, hi_at = s->max_at;
        s->min = v < lo ? v : lo;
        s->min_at = v < lo ? at : lo_at;
        s->max = v > hi ? v : hi;
        s->max_at = v > hi ? at : hi_at;
        return 0;
    }
    return mem_open(s, at, before) != 0 ? PROFKIT_ENOMEM : 0;
}

/* ------------------------------------------- each operation's record */

/* The live table's slots hold rows again, not indexes into r->alloc
 * (past the budget, or at the end), and r->alloc goes. */
static void live_rows_back(reader *r)
{
    for (size_t i = 0; i < r->live.n_buckets; i++) {
        pk_live_bucket *b = &r->live.b[i];
        for (unsigned k = 0; k < PK_LIVE_WAYS; k++) {
            uint32_t a = pk_live_row(b, k);
            if (a != PK_LIVE_ROWS)
                pk_live_set_row(b, k, r->alloc[a].row);
        }
    }
    free(r->alloc);
    r->alloc = NULL;
    r->n_alloc = r->cap_alloc = 0;
}

/* Keeps the record of thread th's operation just counted (mem_op), or,
 * at PK_MEM_OPS_MAX records, stops keeping them: those kept stay, each
 * thread's a prefix of its operations, and the rest are counted as left
 * out (finish). */
static PK_NOINLINE int keep_op_slow(reader *r, uint32_t th, uint32_t stack, uint64_t size, uint32_t freed)
{
    if (r->ops->total >= PK_MEM_OPS_MAX) {
        live_rows_back(r);
        r->p->mem_ops = r->ops; /* the records so far, for the profile */
        r->ops = NULL;
        return 0;
    }
    return pk_mem_ops_add(r->ops, th, stack, size, freed);
}

static inline int keep_op(reader *r, uint32_t th, uint32_t stack, uint64_t size, uint32_t freed)
{
    if (PK_LIKELY(r->ops->total < PK_MEM_OPS_MAX && pk_mem_ops_push(r->ops, th, stack, size, freed)))
        return 0;
    return keep_op_slow(r, th, stack, size, freed);
}

/* An index into r->alloc for a new allocation of `row`, operation `op`
 * of its thread; PK_LIVE_ROWS when out of memory. */
static PK_NOINLINE uint32_t keep_alloc_slow(reader *r, uint32_t row, uint64_t op)
{
    if (r->n_alloc == r->cap_alloc) {
        size_t cap = r->cap_alloc ? r->cap_alloc * 2 : 4096;
        struct kept_alloc *a = realloc(r->alloc, cap * sizeof(*a));
        if (!a)
            return PK_LIVE_ROWS;
        r->alloc = a;
        r->cap_alloc = cap;
    }
    r->alloc[r->n_alloc] = (struct kept_alloc){ row, (uint32_t)op };
    return (uint32_t)r->n_alloc++;
}

static inline uint32_t keep_alloc(reader *r, uint32_t row, uint64_t op)
{
    if (PK_LIKELY(r->n_alloc < r->cap_alloc)) {
        r->alloc[r->n_alloc] = (struct kept_alloc){ row, (uint32_t)op };
        return (uint32_t)r->n_alloc++;
    }
    return keep_alloc_slow(r, row, op);
}

/*
 * The memory counters: per thread with memory operations, its series of
 * bytes in use, each sample at an operation index (time) with the change
 * since the previous sample (count) and the operations since it (number).
 */
static int mem_counters(reader *r)
{
    profkit_profile *p = r->p;
    uint32_t name = profkit_string_intern(p, "Memory", 6);
    uint32_t cat = name;
    const char *d = "bytes in use by the thread's allocations, by operation order: an allocation adds its "
                    "size, a free subtracts the size of what it frees (0 for a free of memory "
                    "allocated before profiling)";
    uint32_t desc = profkit_string_intern(p, d, strlen(d));
    if (name == PROFKIT_NONE || desc == PROFKIT_NONE)
        return PROFKIT_ENOMEM;
    for (size_t th = 0; th < r->n_mem; th++) {
        mem_series *s = &r->mem[th];
        if (!s->ops)
            continue;
        if (mem_close(s, s->ops - 1, s->total) != 0) /* the open bucket ends here */
            return PROFKIT_ENOMEM;
        profkit_counter c;
        memset(&c, 0, sizeof c);
        c.name = name;
        c.category = cat;
        c.description = desc;
        c.thread = (uint32_t)th;
        c.pid = -1;
        c.by_order = 1;
        uint32_t ci = profkit_counter_add(p, &c);
        if (ci == PROFKIT_NONE)
            return PROFKIT_ENOMEM;
        pk_mem_ops *m = r->ops ? r->ops : p->mem_ops;
        if (m) { /* its records (none when the budget was spent before its first) */
            if (pk_mem_ops_reserve(m, (uint32_t)th) != 0)
                return PROFKIT_ENOMEM;
            m->th[th].counter = ci;
            m->th[th].ops = s->ops;
        }
        int64_t prev = 0;
        uint64_t prev_at = 0; /* operations before the next sample's */
        for (size_t i = 0; i < s->n; i++) {
            const mem_bucket *b = &s->b[i];
            /* its lowest, highest and last points, in order, once each */
            uint64_t at[3] = { b->min_at, b->max_at, b->last_at };
            int64_t v[3] = { b->min, b->max, b->last };
            if (at[1] < at[0]) {
                uint64_t ta = at[0]; at[0] = at[1]; at[1] = ta;
                int64_t tv = v[0]; v[0] = v[1]; v[1] = tv;
            }
            for (int k = 0; k < 3; k++) {
                if (k < 2 && at[k] >= b->last_at)
                    continue; /* the last point comes last */
                if (k == 1 && at[1] == at[0])
                    continue;
                int64_t count;
                if (__builtin_sub_overflow(v[k], prev, &count))
                    count = v[k] < prev ? INT64_MIN : INT64_MAX;
                if (profkit_counter_sample_add(p, (int64_t)at[k], count, (int64_t)(at[k] + 1 - prev_at)) != 0)
                    return PROFKIT_ENOMEM;
                prev = v[k];
                prev_at = at[k] + 1;
            }
        }
    }
    return 0;
}

/* The thread of value row `row`. */
static inline uint32_t row_thread(const reader *r, uint32_t row)
{
    return PK_LIKELY(r->row_th8_ok) ? r->row_th8[row] : r->row_thread[row];
}

/* A memory operation of the batch, in stream order, where the counters
 * are built: its free matched with its allocation, its thread's bytes in
 * use changed, and with `keep` (while the records are kept: r->ops) its
 * record kept. Inline twice, so that the common reading without records
 * carries none of their code. 0, or PROFKIT_ENOMEM. */
static PK_ALWAYS_INLINE int mem_entry(reader *r, const data_entry *e, const int keep,
                                      pk_live_eq_fn eq)
{
    uint32_t orow = PK_LIVE_ROWS, th;
    uint64_t osize = 0;
    int64_t delta;
    uint32_t freed = 0; /* for the record: 1 + the operation freed */
    if (e->kind == D_ALLOC) {
        th = row_thread(r, e->row);
        uint32_t put = e->row;
        if (keep && PK_UNLIKELY(r->ops != NULL) &&
            (put = keep_alloc(r, e->row, th < r->n_mem ? r->mem[th].ops : 0)) == PK_LIVE_ROWS)
            return PROFKIT_ENOMEM;
        if (PK_UNLIKELY(pk_live_put_old_with(&r->live, e->a, e->b, put, &orow, &osize, eq) != 0))
            return PROFKIT_ENOMEM;
        delta = mem_bytes(e->b);
        /* an allocation already live at this address was freed
         * unseen: out of its own thread's bytes */
        if (PK_UNLIKELY(orow != PK_LIVE_ROWS)) {
            if (keep && r->ops) {
                freed = r->alloc[orow].op + 1;
                orow = r->alloc[orow].row;
            }
            uint32_t oth = row_thread(r, orow);
            if (oth == th)
                delta = mem_sub(delta, mem_bytes(osize));
            else if (mem_op(r, oth, -mem_bytes(osize)) != 0 ||
                     (keep && r->ops && keep_op(r, oth, PROFKIT_NONE, 0, freed) != 0))
                return PROFKIT_ENOMEM;
            else
                freed = 0;
        }
    } else if (pk_live_take_old_with(&r->live, e->a, &orow, &osize, eq)) {
        if (keep && r->ops) {
            freed = r->alloc[orow].op + 1;
            orow = r->alloc[orow].row;
        }
        /* out of the bytes of the thread that allocated it */
        th = row_thread(r, orow);
        delta = -mem_bytes(osize);
    } else {
        th = row_thread(r, e->row);
        delta = 0; /* allocated before profiling: its size is unknown */
        if (r->unmatched_frees++ == 0)
            r->first_unmatched = e->at;
    }
    if (PK_UNLIKELY(mem_op(r, th, delta) != 0))
        return PROFKIT_ENOMEM;
    if (keep && PK_UNLIKELY(r->ops != NULL) &&
        keep_op(r, th, e->kind == D_ALLOC ? r->row_stack[e->row] : PROFKIT_NONE,
                e->kind == D_ALLOC ? e->b : 0, freed) != 0)
        return PROFKIT_ENOMEM;
    return 0;
}

/* Applies the batch in order and empties it; eq: the live table's address
 * compare (inlined: batch_apply_sse2() and batch_apply_avx2() each pass
 * their own). */
static PK_ALWAYS_INLINE int batch_apply_body(reader *r, pk_live_eq_fn eq)
{
    data_entry *d = r->batch;
    size_t n = r->n_batch;
    r->n_batch = 0;
    /* The batch's increments: when they cannot take any total past
     * INT64_MAX (no increment over 2^56, so their sum fits 64 bits, and
     * the sum so far has room), they are added uncapped. */
    uint64_t sum = 0, over = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t inc = d[k].kind <= D_FREE ? 1 : d[k].a;
        over |= inc | d[k].b;
        sum += inc + d[k].b;
    }
    if (!r->capped && (over >> 56 != 0 || sum > (uint64_t)INT64_MAX - r->sum))
        start_capping(r);
    int capped = r->capped;
    if (!capped)
        r->sum += sum;
    /* First pass: each entry's row, found in its path element's row cache
     * (prefetched ROW_AHEAD entries ahead: prefetching them while decoding
     * stalled the decoder instead); memory operations are counted there
     * and then, while the line is at hand. */
    /* read once: stores through the batch's pointers would make the
     * compiler load them again for every entry */
    int lines = r->lines, counters = r->counters, match_frees = r->match_frees;
    int keep = r->ops != NULL; /* the records (r->ops may end in the batch, never start) */
    for (size_t k = 0; k < n && k < ROW_AHEAD; k++)
        PREFETCH(lines ? (const void *)&r->pe_row[d[k].pe] : (const void *)&r->pe_flat[d[k].pe]);
    for (size_t k = 0; k < n; k++) {
        if (k + ROW_AHEAD < n) {
            uint32_t ahead = d[k + ROW_AHEAD].pe;
            PREFETCH(lines ? (const void *)&r->pe_row[ahead] : (const void *)&r->pe_flat[ahead]);
        }
        uint32_t row;
        int mem = d[k].kind <= D_FREE;
        if (lines) {
            unsigned slot = 0;
            row = entry_row(r, d[k].pe, d[k].off, &slot);
            if (PK_UNLIKELY(row == EMPTY))
                return out_of_memory(r);
            d[k].row = row;
            if (PK_LIKELY(mem))
                count_memory_op(r, &d[k], &r->pe_row[d[k].pe].n[slot], capped);
        } else {
            pe_flat *f = &r->pe_flat[d[k].pe];
            row = PK_LIKELY(f->row != EMPTY) ? f->row : flat_row_slow(r, d[k].pe);
            if (PK_UNLIKELY(row == EMPTY))
                return out_of_memory(r);
            d[k].row = row;
            if (PK_LIKELY(mem))
                count_memory_op_flat(r, &d[k], f, capped);
        }
        if (PK_LIKELY(mem)) {
            if (counters)
                PREFETCH(r->row_th8 + row); /* for its memory counter */
        }
        else
            PREFETCH(r->acc + (size_t)row * N_VALUES);
        /* Without a branch on the kind (it is random), CPU entries too
         * prefetch the bucket their first value would hash to: harmless. */
        if (match_frees)
            PREFETCH(pk_live_home(&r->live, d[k].a));
    }
    /* Second pass, in stream order: frees matched with allocations, CPU
     * and call counts added to their value rows. */
    for (size_t k = 0; k < n; k++) {
        const data_entry *e = &d[k];
        if (PK_LIKELY(e->kind <= D_FREE)) {
            r->n_mem_ops++;
            if (!match_frees)
                continue;
            if (!counters) {
                if (e->kind == D_ALLOC) {
                    if (PK_UNLIKELY(pk_live_put_with(&r->live, e->a, e->b, e->row, eq) != 0))
                        return out_of_memory(r);
                } else if (!pk_live_take_with(&r->live, e->a, eq) && r->unmatched_frees++ == 0) {
                    r->first_unmatched = e->at;
                }
                continue;
            }
            if (PK_UNLIKELY((keep ? mem_entry(r, e, 1, eq) : mem_entry(r, e, 0, eq)) != 0))
                return out_of_memory(r);
        } else {
            /* a call count's b is 0: adding it changes nothing */
            int64_t *a = r->acc + (size_t)e->row * N_VALUES;
            if (PK_LIKELY(!capped)) {
                a[value_a[e->kind]] += (int64_t)e->a;
                a[value_b[e->kind]] += (int64_t)e->b;
            } else {
                acc_add(r, a, value_a[e->kind], e->a);
                acc_add(r, a, value_b[e->kind], e->b);
            }
        }
    }
    return 0;
}

static int batch_apply_sse2(reader *r)
{
    return batch_apply_body(r, pk_live_eq);
}

#if PK_APPLY_AVX2
/* With AVX2, the four addresses of a bucket in one compare. */
static PK_ALWAYS_INLINE PK_TARGET_APPLY_AVX2 unsigned live_eq_avx2(const pk_live_bucket *b,
                                                                   uint64_t addr)
{
    __m256i a = _mm256_load_si256((const __m256i *)(const void *)b->addr);
    __m256i eq = _mm256_cmpeq_epi64(a, _mm256_set1_epi64x((long long)addr));
    return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(eq));
}

static PK_TARGET_APPLY_AVX2 int batch_apply_avx2(reader *r)
{
    return batch_apply_body(r, live_eq_avx2);
}
#endif

/* The batch_apply the reader uses: with AVX2 where the CPU has it and the
 * fastest decoder is asked for (the unit tests' --generic and --bmi2 runs
 * take the other). */
static batch_apply_fn batch_apply_pick(void)
{
#if PK_APPLY_AVX2
    __builtin_cpu_init();
    if (pk_bsprof_decoder == PK_BSPROF_DECODE_FASTEST && __builtin_cpu_supports("avx2"))
        return batch_apply_avx2;
#endif
    return batch_apply_sse2;
}

static int batch_apply(reader *r)
{
    return r->apply(r);
}


static int read_string(reader *r, pk_cursor *c, uint64_t start, uint64_t id)
{
    const char *s;
    size_t len;
    if (id > UINT32_MAX) {
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)start,
                          "string entry: id %" PRIu64 " does not fit 32 bits", id);
        return F_FAIL;
    }
    if (pk_cursor_cstr(c, &s, &len) != 0)
        return F_SHORT;
    uint32_t sid = profkit_string_intern(r->p, s, len);
    if (sid == PROFKIT_NONE)
        return out_of_memory(r), F_FAIL;
    int had = idtab_put(&r->strings, id, sid);
    if (had < 0)
        return out_of_memory(r), F_FAIL;
    if (had && redefined(r, 0, start, id))
        return F_FAIL;
    return F_OK;
}

static int read_module(reader *r, pk_cursor *c, uint64_t start, uint64_t id)
{
    static const char kind[] = "module";
    uint64_t name;
    uint64_t off = at_offset(r, c);
    FIELD(kind, "name", name, 1);
    if (id == 0 || id > UINT32_MAX) {
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)start,
                          "module entry: id %" PRIu64 " %s", id,
                          id ? "does not fit 32 bits" : "is not valid (ids start at 1)");
        return F_FAIL;
    }
    uint32_t sid;
    if (string_ref(r, off, kind, "name", name, &sid))
        return F_FAIL;
    uint32_t th = pk_thread_add(r->p, pk_str(r->p, sid), "", -1, (int64_t)id);
    if (th == PROFKIT_NONE) /* or past the thread limit: the entry's offset */
        return pk_read_fail(r->ctx, PROFKIT_ENOMEM, (int64_t)start, "out of memory"), F_FAIL;
    int had = idtab_put(&r->modules, id, th);
    if (had < 0)
        return out_of_memory(r), F_FAIL;
    if (had && redefined(r, 1, start, id))
        return F_FAIL;
    return F_OK;
}

/* Room for one more pe_rows or pe_flat (aligned, so not PK_VEC_RESERVE's
 * realloc), and path element n_pe's set empty. */
static int pe_rows_reserve(reader *r)
{
    size_t size = r->lines ? sizeof(pe_rows) : sizeof(pe_flat);
    void **arr = r->lines ? (void **)&r->pe_row : (void **)&r->pe_flat;
    if (r->n_pe >= r->cap_pe_row) {
        size_t ncap = r->cap_pe_row ? r->cap_pe_row * 2 : 1024;
        void *n = ncap > SIZE_MAX / size ? NULL : table_alloc(ncap * size);
        if (!n)
            return PROFKIT_ENOMEM;
        if (r->n_pe)
            memcpy(n, *arr, r->n_pe * size);
        free(*arr);
        *arr = n;
        r->cap_pe_row = ncap;
    }
    if (r->lines) {
        pe_rows *pr = &r->pe_row[r->n_pe];
        memset(pr, 0, sizeof(*pr));
        memset(pr->row, 0xff, sizeof(pr->row));
        memset(pr->off, 0xff, sizeof(pr->off));
    } else {
        memset(&r->pe_flat[r->n_pe], 0, sizeof(pe_flat));
        r->pe_flat[r->n_pe].row = EMPTY;
    }
    return 0;
}

static int read_path_element(reader *r, pk_cursor *c, uint64_t start, uint64_t id)
{
    static const char kind[] = "path element";
    uint64_t caller, module = 0, call_off = 0, file, line, fn;
    uint64_t caller_at = at_offset(r, c), module_at = 0, file_at, fn_at;
    if (id == 0 || id > UINT32_MAX) {
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)start,
                          "path element entry: id %" PRIu64 " %s", id,
                          id ? "does not fit 32 bits" : "is not valid (ids start at 1)");
        return F_FAIL;
    }
    FIELD(kind, "caller id", caller, 1);
    if (caller == 0) {
        module_at = at_offset(r, c);
        FIELD(kind, "module id", module, 1);
    } else if (r->line_data) {
        FIELD(kind, "line offset in caller", call_off, 1);
    }
    file_at = at_offset(r, c);
    FIELD(kind, "file string id", file, 1);
    FIELD(kind, "line", line, 1);
    fn_at = at_offset(r, c);
    FIELD(kind, "function string id", fn, 1);

    pelem e;
    memset(&e, 0, sizeof(e));
    e.line = (uint32_t)line;
    uint32_t caller_i = EMPTY;
    if (caller == 0) {
        e.thread = idtab_get(&r->modules, module);
        if (e.thread == EMPTY) {
            pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)module_at,
                              "path element entry: module %" PRIu64 " is not defined", module);
            return F_FAIL;
        }
    } else if ((caller_i = pe_ref(r, caller)) == EMPTY) {
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)caller_at,
                          "path element entry: caller path element %" PRIu64 " is not defined",
                          caller);
        return F_FAIL;
    }
    profkit_function f;
    memset(&f, 0, sizeof(f));
    if (string_ref(r, file_at, kind, "file", file, &f.file) ||
        string_ref(r, fn_at, kind, "function", fn, &f.name))
        return F_FAIL;
    f.system_name = f.name;
    f.start_line = (uint32_t)line;
    if ((e.function = pk_function_add(r->p, &f)) == PROFKIT_NONE)
        return out_of_memory(r), F_FAIL;
    if (caller == 0) {
        e.parent_stack = 0;
    } else {
        const pelem *ce = &r->pe[caller_i];
        uint32_t frame = frame_of(r->p, ce->function,
                                  r->lines ? line_at(ce->line, call_off) : ce->line);
        e.thread = ce->thread;
        e.parent_stack = frame == PROFKIT_NONE ? PROFKIT_NONE
                                               : pk_stack_intern(r->p, ce->parent_stack, frame);
        if (e.parent_stack == PROFKIT_NONE)
            return out_of_memory(r), F_FAIL;
    }
    if (r->n_pe >= EMPTY - 1 || PK_VEC_RESERVE(r->pe, r->n_pe, r->cap_pe, 1) != 0 ||
        pe_rows_reserve(r) != 0)
        return out_of_memory(r), F_FAIL;
    r->pe[r->n_pe] = e;
    int had = idtab_put(&r->pe_ids, id, (uint32_t)r->n_pe);
    if (had < 0)
        return out_of_memory(r), F_FAIL;
    if (id != r->n_pe + 1)
        r->pe_in_order = 0;
    r->n_pe++;
    if (had && redefined(r, 2, start, id))
        return F_FAIL;
    return F_OK;
}

static int read_memory_op(reader *r, pk_cursor *c, uint64_t start, uint64_t tag)
{
    static const char kind[] = "memory operation";
    uint64_t off = 0, addr, size = 0;
    if (tag >> 37) {
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)start,
                          "memory operation entry: path element id %" PRIu64
                          " does not fit 32 bits (tag bits 36..5)",
                          tag >> 5);
        return F_FAIL;
    }
    unsigned op = (unsigned)(tag >> 3) & 3;
    if (op == 3) {
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)start,
                          "memory operation entry: operation 3 is not alloc (0), free (1) or "
                          "free_realloc (2)");
        return F_FAIL;
    }
    uint32_t i = pe_ref(r, tag >> 5);
    if (i == EMPTY)
        return undefined_pe(r, start, kind, tag >> 5);
    if (r->line_data)
        FIELD(kind, "line offset", off, 1);
    FIELD(kind, "address", addr, 0);
    if (op == OP_ALLOC)
        FIELD(kind, "size", size, 0);
    stage(r, op == OP_ALLOC ? D_ALLOC : D_FREE, i, r->lines ? (uint32_t)off : 0, addr, size, start);
    return F_OK;
}

static int read_values(reader *r, pk_cursor *c, uint64_t start, uint64_t id, int type)
{
    const char *kind = type == 4 ? "CPU" : "call count";
    uint64_t off = 0, v1, v2 = 0;
    if (id > UINT32_MAX) {
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)start,
                          "%s entry: path element id %" PRIu64 " does not fit 32 bits", kind, id);
        return F_FAIL;
    }
    uint32_t i = pe_ref(r, id);
    if (i == EMPTY)
        return undefined_pe(r, start, kind, id);
    if (type == 4) {
        if (r->line_data)
            FIELD(kind, "line offset", off, 1);
        FIELD(kind, "cpu", v1, 0);
        FIELD(kind, "wall time", v2, 0);
    } else {
        FIELD(kind, "count", v1, 0);
        off = 1; /* a call count is the function's: its definition line */
    }
    stage(r, type == 4 ? D_CPU : D_CALLS, i, r->lines ? (uint32_t)off : 0, v1, v2, start);
    return F_OK;
}

static const char *const entry_kind[8] = { "string", "module", "path element", "memory operation",
                                           "CPU", "call count", "type 6", "type 7" };

/* Decodes one entry at the cursor. *end is set on the end marker. */
static int read_entry(reader *r, pk_cursor *c, int *end, const char **kind)
{
    uint64_t start = at_offset(r, c), tag;
    *kind = "next";
    FIELD("next", "tag", tag, 0);
    if (tag == 0) {
        *end = 1;
        return F_OK;
    }
    unsigned type = (unsigned)tag & 7;
    *kind = entry_kind[type];
    switch (type) {
    case 0: return read_string(r, c, start, tag >> 3);
    case 1: return read_module(r, c, start, tag >> 3);
    case 2: return read_path_element(r, c, start, tag >> 3);
    case 3: return read_memory_op(r, c, start, tag);
    case 4:
    case 5: return read_values(r, c, start, tag >> 3, (int)type);
    default:
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)start,
                          "entry type %u is reserved: its length is unknown, so nothing after "
                          "it can be read",
                          type);
        return F_FAIL;
    }
}

static int meta_u64(profkit_profile *p, const char *key, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%" PRIu64, v);
    return pk_meta_add(p, key, buf);
}

static int read_header(reader *r, pk_cursor *c, uint64_t *hsize, uint64_t *hsize_at)
{
    static const char kind[] = "header";
    uint64_t major, minor, patch, lines, mem, ts;
    const uint8_t *m;
    if (pk_cursor_bytes(c, 8, &m) != 0)
        return F_SHORT;
    if (memcmp(m, magic, 8) != 0) {
        pk_read_fail(r->ctx, PROFKIT_EFORMAT, 0,
                          "header: magic: expected \"bsprof\\0\\0\" (not a BrightScript profile)");
        return F_FAIL;
    }
    FIELD(kind, "major version", major, 1);
    FIELD(kind, "minor version", minor, 1);
    FIELD(kind, "patch version", patch, 1);
    *hsize_at = at_offset(r, c);
    FIELD(kind, "header size", *hsize, 0);
    uint32_t ratio[2];
    if (pk_cursor_le32(c, &ratio[0]) || pk_cursor_le32(c, &ratio[1]))
        return F_SHORT;
    FIELD(kind, "line-data flag", lines, 0);
    FIELD(kind, "memory-data flag", mem, 0);
    FIELD(kind, "start timestamp", ts, 0);
    const char *s[6];
    size_t len[6];
    for (int i = 0; i < 6; i++)
        if (pk_cursor_cstr(c, &s[i], &len[i]) != 0)
            return F_SHORT;
    uint64_t read = at_offset(r, c);
    if (*hsize < read) {
        pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)*hsize_at,
                          "header: header size %" PRIu64 " is smaller than the %" PRIu64
                          " header bytes it holds",
                          *hsize, read);
        return F_FAIL;
    }
    r->line_data = lines != 0;
    r->lines = r->line_data && !r->ctx->opts->skip_lines;
    pk_bsprof_build_shapes(r->shapes, (unsigned)r->line_data, (unsigned)r->lines);
    char buf[64];
    snprintf(buf, sizeof(buf), "%" PRIu64 ".%" PRIu64 ".%" PRIu64, major, minor, patch);
    profkit_profile *p = r->p;
    int rc = pk_meta_add(p, "format_version", buf);
    for (int i = 0; i < 2 && !rc; i++) {
        float f;
        memcpy(&f, &ratio[i], 4);
        snprintf(buf, sizeof(buf), "%.9g", (double)f);
        rc = pk_meta_add(p, i ? "actual_sample_ratio" : "requested_sample_ratio", buf);
    }
    if (rc || meta_u64(p, "line_data", lines != 0) || meta_u64(p, "memory_data", mem != 0) ||
        meta_u64(p, "start_timestamp_ms", ts))
        return out_of_memory(r), F_FAIL;
    for (int i = 0; i < 6; i++)
        if (pk_meta_add_len(p, header_strings[i], s[i], len[i]) != 0)
            return out_of_memory(r), F_FAIL;
    return F_OK;
}

/*
 * Called when a decoder reported F_SHORT: fetches more input so the caller
 * can decode the same bytes again (*status 0), or says the input has ended
 * (*status F_SHORT). Decoders have no side effects before they succeed, so
 * a retry is safe.
 */
static int decode_more(reader *r, int *status)
{
    input *in = &r->in;
    if (in->eof) {
        *status = F_SHORT;
        return 0;
    }
    int rc = input_fill(in, r->ctx->err);
    *status = 0;
    return rc;
}

/* Reads the header, then skips to its declared size. */
static int read_header_all(reader *r)
{
    pk_read_ctx *ctx = r->ctx;
    pk_cursor cur;
    uint64_t hsize = 0, hsize_at = 0;
    int rc, more;
    for (;;) {
        pk_cursor_init(&cur, r->in.buf + r->in.pos, r->in.len - r->in.pos);
        int st = read_header(r, &cur, &hsize, &hsize_at);
        if (st == F_OK) {
            r->in.pos += cur.pos;
            break;
        }
        if (st == F_FAIL)
            return ctx->err->code;
        if ((rc = decode_more(r, &more)) != 0)
            return rc;
        if (more == F_SHORT)
            return pk_read_fail(ctx, PROFKIT_ETRUNCATED, (int64_t)(r->in.base + r->in.len),
                                "header: the input ends inside the header");
    }
    while (r->in.base + r->in.pos < hsize) {
        uint64_t want = hsize - (r->in.base + r->in.pos);
        size_t have = r->in.len - r->in.pos;
        if (want <= have) {
            r->in.pos += (size_t)want;
            break;
        }
        r->in.pos = r->in.len;
        if ((rc = decode_more(r, &more)) != 0)
            return rc;
        if (more == F_SHORT)
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)hsize_at,
                                "header: header size %" PRIu64
                                " is past the end of the input (%" PRIu64 " bytes)",
                                hsize, r->in.base + r->in.len);
    }
    return 0;
}

/* The input ended before the end-of-entries marker, at the cursor or inside
 * an entry of `kind`: what was read is kept, with a warning. */
static int entries_cut(reader *r, const char *kind)
{
    uint64_t at = r->in.base + r->in.pos;
    r->cut = 1;
    if (r->in.pos == r->in.len)
        return pk_read_warn(r->ctx, PROFKIT_ETRUNCATED, (int64_t)at,
                            "the input ends without the end-of-entries marker; the %" PRIu64
                            " entries before it are kept",
                            r->n_entries);
    return pk_read_warn(r->ctx, PROFKIT_ETRUNCATED, (int64_t)at,
                        "%s entry cut off by the end of the input; the %" PRIu64
                        " complete entries before it are kept",
                        kind, r->n_entries);
}

/*
 * Reads the entries up to the end marker (*end = 1) or the end of the
 * input: data entries through the fast decoder while the buffer holds
 * FAST_MARGIN bytes past them, everything else through read_entry().
 */
static int read_entries(reader *r, int *end)
{
    pk_read_ctx *ctx = r->ctx;
    decode_fast_fn decode = pk_bsprof_decode_pick();
    uint64_t progress_at = 0;
    pk_cursor cur;
    int rc;
    *end = 0;
    while (!*end) {
        if (r->n_batch == BATCH && batch_apply(r) != 0)
            return PROFKIT_ENOMEM;
        size_t avail = r->in.len - r->in.pos;
        if (avail >= FAST_MARGIN + 1) {
            size_t used = decode(r, r->in.buf + r->in.pos, avail, r->in.base + r->in.pos);
            r->in.pos += used;
            if (PK_UNLIKELY(r->n_entries - progress_at >= 65536)) {
                progress_at = r->n_entries;
                /* a mapped file's size is known: the share read */
                pk_read_progress(ctx, r->in.base + r->in.pos, r->in.mapped ? r->in.len : 0);
                if (r->in.mapped) /* its pages behind leave the process's memory */
                    pk_source_map_done(r->in.src, r->in.pos);
            }
            if (used)
                continue;
        } else if (!r->in.eof) {
            if ((rc = input_fill(&r->in, ctx->err)) != 0)
                return rc;
            continue;
        }
        /* One entry the checked way; the batch goes first, so entries
         * apply in stream order. */
        if (r->n_batch && batch_apply(r) != 0)
            return PROFKIT_ENOMEM;
        const char *kind = "next";
        pk_cursor_init(&cur, r->in.buf + r->in.pos, r->in.len - r->in.pos);
        int st = cur.size ? read_entry(r, &cur, end, &kind) : F_SHORT;
        if (PK_LIKELY(st == F_OK)) {
            r->in.pos += cur.pos;
            r->n_entries += !*end;
            continue;
        }
        if (st == F_FAIL)
            return ctx->err->code;
        int more;
        if ((rc = decode_more(r, &more)) != 0)
            return rc;
        if (more == F_SHORT)
            return entries_cut(r, kind);
    }
    return 0;
}

/* The footer after the end marker: the end timestamp, and nothing after it. */
static int read_footer(reader *r)
{
    pk_read_ctx *ctx = r->ctx;
    pk_cursor cur;
    uint64_t ts = 0;
    int st, rc, more;
    for (;;) {
        pk_cursor_init(&cur, r->in.buf + r->in.pos, r->in.len - r->in.pos);
        st = pk_cursor_varint(&cur, &ts);
        if (st != PROFKIT_ETRUNCATED)
            break;
        if ((rc = decode_more(r, &more)) != 0)
            return rc;
        if (more == F_SHORT)
            break;
    }
    uint64_t at = r->in.base + r->in.pos;
    if (st == PROFKIT_ECORRUPT)
        return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                            "footer: end timestamp: varint longer than 10 bytes");
    if (st == PROFKIT_ETRUNCATED) {
        r->cut = 1;
        return pk_read_warn(ctx, PROFKIT_ETRUNCATED, (int64_t)at,
                            "footer: the input ends before the end timestamp");
    }
    r->in.pos += cur.pos;
    if (meta_u64(r->p, "end_timestamp_ms", ts) != 0)
        return out_of_memory(r);
    /* Anything after the footer is not part of the profile. */
    uint64_t extra = r->in.len - r->in.pos;
    while (!r->in.eof) {
        r->in.pos = r->in.len;
        if ((rc = input_fill(&r->in, ctx->err)) != 0)
            return rc;
        extra += r->in.len - r->in.pos;
    }
    if (extra)
        return pk_read_warn(ctx, PROFKIT_ECORRUPT, (int64_t)at + (int64_t)cur.pos,
                            "%" PRIu64 " bytes after the footer are ignored", extra);
    return 0;
}

/*
 * After the last entry: the batch applied, what is still allocated as
 * in-use values at its allocating row (it leaked), the frees that matched
 * nothing reported, and the value rows moved into the model.
 */
static int finish(reader *r)
{
    profkit_profile *p = r->p;
    int rc;
    if (batch_apply(r) != 0)
        return PROFKIT_ENOMEM;
    /* In a cut stream what is still allocated was live when it ended, not
     * known to leak: metadata "truncated" tells the reports. */
    if (r->cut && pk_meta_add(p, "truncated", "the stream ends before its end-of-entries marker and footer") != 0)
        return out_of_memory(r);
    if (!r->capped)
        start_capping(r);
    if (r->alloc)
        live_rows_back(r);
    for (size_t i = 0; i < r->live.n_buckets; i++) {
        const pk_live_bucket *b = &r->live.b[i];
        for (unsigned k = 0; k < PK_LIVE_WAYS; k++) {
            uint32_t row = pk_live_row(b, k);
            if (row == PK_LIVE_ROWS)
                continue;
            int64_t *a = r->acc + (size_t)row * N_VALUES;
            acc_add(r, a, V_INUSE_OBJECTS, 1);
            acc_add(r, a, V_INUSE_SPACE, pk_live_size(&r->live, b->size[k]));
        }
    }
    pk_live_free(&r->live);
    if (mem_counters(r) != 0)
        return out_of_memory(r);
    if (r->match_frees && r->n_mem_ops && meta_u64(p, "unmatched_frees", r->unmatched_frees) != 0)
        return out_of_memory(r);
    if (r->unmatched_frees &&
        (rc = pk_read_warn(r->ctx, PROFKIT_ECORRUPT, (int64_t)r->first_unmatched,
                           "%" PRIu64 " free%s matched no live allocation (allocated before "
                           "profiling started or while it was paused); the first is here; "
                           "counted in free_objects only",
                           r->unmatched_frees, r->unmatched_frees == 1 ? "" : "s")) != 0)
        return rc;
    for (size_t i = 0; i < r->n_rows; i++) {
        const int64_t *a = r->acc + i * N_VALUES;
        int nz = 0;
        for (int v = 0; v < N_VALUES; v++)
            nz |= a[v] != 0;
        if (nz && pk_sample_add(p, r->row_stack[i], r->row_thread[i], a) != 0)
            return out_of_memory(r);
    }
    /* the operations' records hold for the profile as it is now */
    pk_mem_ops *m = r->ops ? r->ops : p->mem_ops;
    if (m) {
        uint64_t all = 0;
        for (size_t th = 0; th < r->n_mem; th++)
            all += r->mem[th].ops;
        m->left_out = all - m->total; /* past the budget */
        m->n_stacks = p->n_stacks;
        m->n_counters = p->n_counters;
        m->n_threads = p->n_threads;
        m->n_samples = p->n_samples;
        p->mem_ops = m;
        r->ops = NULL;
    }
    return 0;
}

static void reader_free(reader *r)
{
    if (!r->in.mapped)
        free(r->in.buf);
    idtab_free(&r->strings);
    idtab_free(&r->modules);
    idtab_free(&r->pe_ids);
    pk_map64_free(&r->line_rows);
    pk_map64_free(&r->row_ids);
    free(r->pe);
    free(r->pe_row);
    free(r->pe_flat);
    free(r->row_stack);
    free(r->row_thread);
    free(r->row_th8);
    free(r->acc);
    pk_live_free(&r->live);
    pk_mem_ops_free(r->ops);
    free(r->alloc);
    for (size_t i = 0; i < r->n_mem; i++)
        free(r->mem[i].b);
    free(r->mem);
}

static int bsprof_read(profkit_profile *p, pk_read_ctx *ctx)
{
    reader r;
    memset(&r, 0, sizeof(r));
    r.p = p;
    r.ctx = ctx;
    r.in.src = ctx->src;
    r.pe_in_order = 1;
    r.row_th8_ok = 1;
    int rc = 0;
    r.match_frees = !ctx->opts->skip_inuse;
    r.counters = r.match_frees && !ctx->opts->skip_counters;
    if (r.counters && ctx->opts->keep_mem_ops && !(r.ops = calloc(1, sizeof(*r.ops))))
        rc = out_of_memory(&r);
    int end = 0;
    for (int v = 0; v < N_VALUES && !rc; v++)
        if (pk_value_type_add(p, value_names[v][0], value_names[v][1]) != (uint32_t)v)
            rc = out_of_memory(&r);
    p->default_value = V_CPU;
    r.apply = batch_apply_pick();
    /* The live table always exists, so prefetching a slot needs no check. */
    if (!rc && pk_live_init(&r.live) != 0)
        rc = out_of_memory(&r);
    if (!rc)
        rc = input_fill(&r.in, ctx->err);
    if (!rc)
        rc = read_header_all(&r);
    if (!rc)
        rc = read_entries(&r, &end);
    if (!rc && end)
        rc = read_footer(&r);
    if (!rc)
        rc = finish(&r);
    reader_free(&r);
    return rc;
}

const pk_format pk_format_bsprof = {
    { "bsprof", "Roku BrightScript profiler (.bsprof): cpu, wall, calls, memory", ".bsprof", 1, 1 },
    bsprof_sniff,
    bsprof_read,
    pk_bsprof_write,
};
