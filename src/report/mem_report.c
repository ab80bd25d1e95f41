/* mem_report.c: `profkit mem`, allocations, frees and leaks. */
#include "util/buf.h"
#include "analysis/analysis.h"
#include "report/rjson.h"

#include <inttypes.h>
#include <stdlib.h>

static int64_t sub_sat(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* Largest live bytes first, then live objects, then allocated bytes; ties
 * keep the order in which the paths first appear in the profile. */
static int by_leak(const void *ctx, uint32_t a, uint32_t b)
{
    const pk_mem *m = ctx;
    const pk_mem_row *x = &m->paths[a], *y = &m->paths[b];
    if (x->inuse_space != y->inuse_space)
        return x->inuse_space > y->inuse_space ? -1 : 1;
    if (x->inuse_objects != y->inuse_objects)
        return x->inuse_objects > y->inuse_objects ? -1 : 1;
    if (x->alloc_space != y->alloc_space)
        return x->alloc_space > y->alloc_space ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Sifts heap slot i down in a heap of n whose top is the path by_leak puts
 * last (the worst of those kept). */
static void sift_down(uint32_t *h, size_t n, size_t i, const pk_mem *m)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && by_leak(m, h[c + 1], h[c]) > 0)
            c++;
        if (by_leak(m, h[c], h[i]) <= 0)
            return;
        uint32_t t = h[i];
        h[i] = h[c];
        h[c] = t;
        i = c;
    }
}

/*
 * order[0..limit) = the first `limit` paths in by_leak's order, which is
 * total (ties end at the key), so they are those a sort of all n would
 * put first: a heap of the best `limit` seen, then a sort of those. For a
 * few of many paths (`-n 5` of 50,000) that costs n log limit, not n log n.
 */
static int top_paths(uint32_t *order, size_t n, size_t limit, const pk_mem *m)
{
    if (limit == 0 || limit >= n / 4)
        return pk_sort_u32(order, n, by_leak, m);
    for (size_t i = 0; i < limit; i++)
        order[i] = (uint32_t)i;
    for (size_t i = limit / 2; i-- > 0;)
        sift_down(order, limit, i, m);
    for (size_t i = limit; i < n; i++)
        if (by_leak(m, (uint32_t)i, order[0]) < 0) {
            order[0] = (uint32_t)i;
            sift_down(order, limit, 0, m);
        }
    return pk_sort_u32(order, limit, by_leak, m);
}

/* One table line: live, allocated and freed (allocated - live). */
static void row_line(pk_buf *out, const pk_mem_row *r, const char *name, int frees)
{
    char lb[32], ab[32], fb[32];
    pk_format_value(lb, sizeof(lb), r->inuse_space, "bytes");
    pk_format_value(ab, sizeof(ab), r->alloc_space, "bytes");
    pk_format_value(fb, sizeof(fb), sub_sat(r->alloc_space, r->inuse_space), "bytes");
    pk_buf_printf(out, "%10s %9" PRId64 " %10s %9" PRId64 " %10s %9" PRId64, lb, r->inuse_objects, ab,
                  r->alloc_objects, fb, sub_sat(r->alloc_objects, r->inuse_objects));
    if (frees)
        pk_buf_printf(out, " %9" PRId64, r->free_objects);
    pk_buf_printf(out, "  %s\n", name);
}

/* {"alloc_objects":..,"alloc_space":..,"free_objects":..,"inuse_objects":..,"inuse_space":..,
 *  "freed_objects":..,"freed_space":..}: freed = allocated - live, the text's freed columns */
static void row_json(pk_buf *out, const pk_mem_row *r)
{
    pk_buf_printf(out, "\"alloc_objects\":%" PRId64 ",\"alloc_space\":%" PRId64 ",\"free_objects\":%" PRId64
                  ",\"inuse_objects\":%" PRId64 ",\"inuse_space\":%" PRId64, r->alloc_objects, r->alloc_space,
                  r->free_objects, r->inuse_objects, r->inuse_space);
    pk_buf_printf(out, ",\"freed_objects\":%" PRId64 ",\"freed_space\":%" PRId64,
                  sub_sat(r->alloc_objects, r->inuse_objects), sub_sat(r->alloc_space, r->inuse_space));
}

static int mem_json(pk_buf *out, const profkit_profile *p, const pk_mem *m,
                    const uint32_t *order, size_t limit, uint32_t th, profkit_error *err)
{
    pk_rjson_open(out, "mem", p, PROFKIT_NONE, th);
    pk_buf_puts(out, ",\"total\":{");
    row_json(out, &m->total);
    pk_buf_printf(out, "},\"unmatched_frees\":%" PRId64 ",\"threads\":[", m->unmatched_frees);
    int first = 1;
    for (size_t i = 0; i < m->n_threads; i++) {
        const pk_mem_row *r = &m->threads[i];
        if (!r->alloc_objects && !r->alloc_space && !r->free_objects && !r->inuse_objects &&
            !r->inuse_space)
            continue;
        pk_buf_printf(out, "%s{\"index\":%zu,\"name\":", first ? "\n" : ",\n", i);
        first = 0;
        pk_rjson_str(out, pk_str(p, p->threads[i].name));
        pk_buf_putc(out, ',');
        row_json(out, r);
        pk_buf_putc(out, '}');
    }
    pk_buf_puts(out, "],\"paths\":[");
    char *label = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < limit; i++) {
        const pk_mem_row *r = &m->paths[order[i]];
        if (pk_mem_path_label(m, r->key, &label, &cap) == (size_t)-1) {
            free(label);
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        }
        pk_buf_puts(out, i ? ",\n{\"path\":" : "\n{\"path\":");
        pk_rjson_str(out, label);
        pk_buf_putc(out, ',');
        row_json(out, r);
        pk_buf_putc(out, '}');
    }
    pk_buf_puts(out, "]}\n");
    free(label);
    return 0;
}

static int report_mem_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                          profkit_error *err)
{
    int ok;
    uint32_t th = pk_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    pk_mem m;
    int rc = pk_mem_compute(&m, p, th, o->by == PROFKIT_BY_LINE, err);
    if (rc)
        return rc;
    uint32_t *order = malloc((m.n_paths ? m.n_paths : 1) * sizeof(uint32_t));
    size_t n = m.n_paths;
    for (size_t i = 0; order && i < n; i++)
        order[i] = (uint32_t)i;
    if (!order || top_paths(order, n, o->limit, &m) != 0) {
        free(order);
        pk_mem_free(&m);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    if (o->json) {
        rc = mem_json(out, p, &m, order, o->limit && o->limit < n ? o->limit : n, th, err);
        free(order);
        pk_mem_free(&m);
        return rc;
    }
    const pk_mem_row *t = &m.total;
    char a[32], f[32], l[32];
    pk_format_value(a, sizeof(a), t->alloc_space, "bytes");
    pk_format_value(f, sizeof(f), sub_sat(t->alloc_space, t->inuse_space), "bytes");
    pk_format_value(l, sizeof(l), t->inuse_space, "bytes");
    if (th != PROFKIT_NONE)
        pk_buf_printf(out, "Thread %u: %s\n", th, pk_str(p, p->threads[th].name));
    pk_buf_printf(out, "Allocated: %" PRId64 " objects, %s\n", t->alloc_objects, a);
    pk_buf_printf(out, "Freed:     %" PRId64 " objects, %s (%" PRId64 " free operations)\n",
                  sub_sat(t->alloc_objects, t->inuse_objects), f, t->free_objects);
    /* a cut stream (metadata "truncated") shows what was live at the cut,
     * not what leaked */
    int cut = pk_meta_get(p, "truncated") != NULL;
    pk_buf_printf(out, "Live:      %" PRId64 " objects, %s (%s)\n", t->inuse_objects, l,
                  cut ? "live when the stream ended: it was cut short, so not known to leak"
                      : "still allocated at the end: leaks");
    if (m.unmatched_frees >= 0)
        pk_buf_printf(out, "Frees that matched no allocation: %" PRId64 "\n", m.unmatched_frees);

    static const char head[] = "%10s %9s %10s %9s %10s %9s";
    pk_buf_printf(out, "\nBy thread:\n");
    pk_buf_printf(out, head, "live", "objects", "allocated", "objects", "freed", "objects");
    pk_buf_printf(out, " %9s  %s\n", "frees", "thread");
    for (size_t i = 0; i < m.n_threads; i++) {
        const pk_mem_row *r = &m.threads[i];
        if (!r->alloc_objects && !r->alloc_space && !r->free_objects && !r->inuse_objects &&
            !r->inuse_space)
            continue;
        char name[300];
        snprintf(name, sizeof(name), "%zu: %s", i, pk_str(p, p->threads[i].name));
        row_line(out, r, name, 1);
    }
    size_t limit = o->limit && o->limit < n ? o->limit : n;
    pk_buf_printf(out, "\nBy allocating call path, largest %s first (%zu of %zu):\n",
                  cut ? "live at the cut" : "leaks", limit, n);
    pk_buf_printf(out, head, "live", "objects", "allocated", "objects", "freed", "objects");
    pk_buf_printf(out, "  %s\n", "path");
    char *label = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < limit; i++) {
        const pk_mem_row *r = &m.paths[order[i]];
        if (pk_mem_path_label(&m, r->key, &label, &cap) == (size_t)-1) {
            free(label);
            free(order);
            pk_mem_free(&m);
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        }
        row_line(out, r, label, 0);
    }
    free(label);
    free(order);
    pk_mem_free(&m);
    return 0;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_mem(FILE *file, const profkit_profile *p, const profkit_report_options *o,
                       profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_mem_buf(&out, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
