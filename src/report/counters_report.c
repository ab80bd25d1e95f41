/*
 * counters_report.c: `profkit counters`, each counter of a profile (Gecko
 * memory and power counters) with its statistics in a range and, in JSON,
 * its series; computed by pk_counter_stats_compute (analysis/counters.c).
 */
#include "analysis/counters.h"
#include "report/rjson.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t resolve(double v, int percent, int64_t start, int64_t end)
{
    double ns = percent ? (double)start + v / 100.0 * (double)(end - start) : (double)start + v * 1e6;
    if (ns >= 9.2e18)
        return INT64_MAX;
    if (ns <= -9.2e18)
        return INT64_MIN + 1;
    return (int64_t)llround(ns);
}

/* A range's end for a counter by operation order (the page's memory
 * graph zooms to the same operations): a time in ms is the operation's
 * index (1000ms: operation 1,000), a percentage is of the thread's
 * operations (its last sample's index + 1; a thinned series has fewer
 * samples than operations), both rounded to the nearest index. */
static int64_t resolve_ops(const profkit_profile *p, uint32_t counter, double v, int percent)
{
    double ops = v;
    if (percent) {
        pk_counter_iter it;
        pk_counter_iter_init(&it, p, counter);
        int64_t last = -1;
        while (pk_counter_next(&it))
            last = it.t;
        ops = v / 100.0 * (double)(last + 1);
    }
    if (ops >= 9.2e18)
        return INT64_MAX;
    if (ops <= -9.2e18)
        return INT64_MIN + 1;
    return (int64_t)llround(ops);
}

/* One counter's series: [time, count, number, running sum] per sample in
 * the range (time: ms from zero, or the operation index). */
static void json_series(pk_buf *out, const profkit_profile *p, uint32_t i, int64_t from, int64_t to,
                        int64_t zero)
{
    pk_counter_iter it;
    pk_counter_iter_init(&it, p, i);
    int first = 1;
    pk_buf_puts(out, "[");
    while (pk_counter_next(&it)) {
        if (it.t < from || it.t >= to)
            continue;
        pk_buf_puts(out, first ? "[" : ",[");
        first = 0;
        if (it.by_order)
            pk_buf_printf(out, "%" PRId64, it.t);
        else
            pk_rjson_ms(out, it.t - zero);
        pk_buf_printf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 "]", it.s->count, it.s->number, it.total);
    }
    pk_buf_puts(out, "]");
}

/* A site of json_sites: its call path's text and figures. */
typedef struct path_site {
    char *path;
    pk_mem_site s;
} path_site;

static int by_path(const void *a, const void *b)
{
    return strcmp(((const path_site *)a)->path, ((const path_site *)b)->path);
}

/* Largest in use first, then largest allocated, then by path. */
static int by_inuse(const void *a, const void *b)
{
    const path_site *x = a, *y = b;
    if (x->s.inuse_space != y->s.inuse_space)
        return x->s.inuse_space > y->s.inuse_space ? -1 : 1;
    if (x->s.alloc_space != y->s.alloc_space)
        return x->s.alloc_space > y->s.alloc_space ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* A counter by operation order's "sites": what its operations [from, to)
 * did per allocating call path (analysis/counters.h; paths by function
 * name, as the page's memory table, so stacks of one path are one site),
 * and the frees that matched nothing. When the reader kept the records
 * of only the file's first operations (its budget), "ops_left_out" the
 * operations past them and "ops_kept" [0, K]: the counter's operations
 * 0 .. K - 1 have records; a range reaching past them has "sites" null.
 * Nothing for a counter without records. */
static int json_sites(pk_buf *out, const profkit_profile *p, uint32_t i, int64_t from, int64_t to)
{
    if (!p->counters[i].by_order || !p->mem_ops)
        return 0;
    const pk_mem_thread_ops *o = pk_mem_ops_of(p, i);
    if (!o)
        return 0;
    if (p->mem_ops->left_out) {
        pk_buf_printf(out, ",\"ops_left_out\":%" PRIu64 ",\"ops_kept\":[0,%zu]", p->mem_ops->left_out, o->n);
        if (!pk_mem_ops_covers(o, from, to)) {
            pk_buf_puts(out, ",\"sites\":null");
            return 0;
        }
    }
    pk_mem_site *s;
    size_t n;
    int64_t unmatched;
    if (pk_mem_sites_compute(p, i, from, to, &s, &n, &unmatched) != 0)
        return PROFKIT_ENOMEM;
    path_site *ps = calloc(n ? n : 1, sizeof(*ps));
    int rc = ps ? 0 : PROFKIT_ENOMEM;
    for (size_t k = 0; k < n && !rc; k++) {
        size_t cap = 0;
        ps[k].s = s[k];
        if (pk_mem_site_path(p, s[k].stack, &ps[k].path, &cap) == (size_t)-1)
            rc = PROFKIT_ENOMEM;
    }
    size_t m = 0;
    if (!rc) {
        qsort(ps, n, sizeof(*ps), by_path);
        for (size_t k = 0; k < n; k++) {
            if (m && strcmp(ps[m - 1].path, ps[k].path) == 0) {
                pk_mem_site *a = &ps[m - 1].s, *b = &ps[k].s;
                a->alloc_objects += b->alloc_objects, a->alloc_space += b->alloc_space;
                a->free_objects += b->free_objects, a->freed_space += b->freed_space;
                a->inuse_objects += b->inuse_objects, a->inuse_space += b->inuse_space;
                free(ps[k].path);
                ps[k].path = NULL;
                continue;
            }
            path_site t = ps[k];
            ps[k].path = NULL;
            ps[m++] = t;
        }
        qsort(ps, m, sizeof(*ps), by_inuse);
        pk_buf_puts(out, ",\"sites\":[");
        for (size_t k = 0; k < m; k++) {
            const pk_mem_site *x = &ps[k].s;
            pk_buf_puts(out, k ? ",{\"path\":" : "{\"path\":");
            pk_rjson_str(out, ps[k].path);
            pk_buf_printf(out, ",\"alloc_objects\":%" PRId64 ",\"alloc_space\":%" PRId64
                          ",\"free_objects\":%" PRId64 ",\"freed_space\":%" PRId64
                          ",\"inuse_objects\":%" PRId64 ",\"inuse_space\":%" PRId64 "}",
                          x->alloc_objects, x->alloc_space, x->free_objects, x->freed_space,
                          x->inuse_objects, x->inuse_space);
        }
        pk_buf_printf(out, "],\"unmatched_frees\":%" PRId64, unmatched);
    }
    for (size_t k = 0; ps && k < n; k++)
        free(ps[k].path);
    free(ps);
    free(s);
    return rc;
}

static int report_counters_buf(pk_buf *out, const profkit_profile *p, const profkit_counters_options *o,
                               profkit_error *err)
{
    int ok = 1;
    uint32_t only = pk_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    /* zero and the range: the root range, else (no sample has a time: a
     * profile whose samples all lack a stack, which the model drops) the
     * counters' first and last times, the last widened by the sampling
     * interval as the Firefox Profiler widens a thread's last sample: its
     * root range where the counters are sampled with the samples */
    int64_t zero = INT64_MAX, root_end = INT64_MIN;
    profkit_error ignore;
    if (profkit_profile_root_range(p, &zero, &root_end, &ignore) != 0) {
        zero = INT64_MAX, root_end = INT64_MIN;
        int64_t iv = 1000000;
        const char *ms = pk_meta_get(p, "interval");
        char *e;
        double v = ms ? strtod(ms, &e) : 0;
        if (ms && e != ms && !*e && v > 0 && v < 1e9)
            iv = (int64_t)llround(v * 1e6);
        for (uint32_t i = 0; i < p->n_counters; i++) {
            pk_counter_iter it;
            pk_counter_iter_init(&it, p, i);
            while (!it.by_order && pk_counter_next(&it)) {
                if (it.t < zero)
                    zero = it.t;
                if (it.t > root_end)
                    root_end = it.t;
            }
        }
        if (zero == INT64_MAX)
            zero = 0, root_end = 0;
        else if (__builtin_add_overflow(root_end, iv, &root_end))
            root_end = INT64_MAX;
    }
    int64_t from = INT64_MIN, to = INT64_MAX;
    profkit_range r;
    if (o->range) {
        if (profkit_range_parse(&r, o->range, err) != 0)
            return PROFKIT_EINVAL;
        from = resolve(r.start, r.start_percent, zero, root_end);
        to = resolve(r.end, r.end_percent, zero, root_end);
    }
    size_t shown = 0;
    if (o->json) {
        pk_buf_puts(out, "{\"schema\":1,\"report\":\"counters\",\"thread\":");
        if (only != PROFKIT_NONE)
            pk_rjson_str(out, pk_str(p, p->threads[only].name));
        else
            pk_buf_puts(out, "null");
        pk_buf_puts(out, ",\"zero\":");
        pk_rjson_ms(out, zero);
        pk_buf_puts(out, ",\"counters\":[");
    }
    for (uint32_t i = 0; i < p->n_counters; i++) {
        const profkit_counter *c = &p->counters[i];
        if (only != PROFKIT_NONE && c->thread != only)
            continue;
        int64_t f = from, t = to;
        if (c->by_order && o->range) { /* a range of operations: no zero */
            f = resolve_ops(p, i, r.start, r.start_percent);
            t = resolve_ops(p, i, r.end, r.end_percent);
        }
        pk_counter_stats st;
        pk_counter_stats_compute(p, i, f, t, &st);
        int64_t pid = c->pid >= 0 ? c->pid : c->thread < p->n_threads ? p->threads[c->thread].pid : -1;
        if (o->json) {
            pk_buf_puts(out, shown ? ",{\"index\":" : "{\"index\":");
            pk_buf_printf(out, "%u,\"name\":", i);
            pk_rjson_str(out, pk_str(p, c->name));
            pk_buf_puts(out, ",\"category\":");
            pk_rjson_str(out, pk_str(p, c->category));
            pk_buf_puts(out, ",\"description\":");
            pk_rjson_str(out, pk_str(p, c->description));
            pk_buf_puts(out, ",\"thread\":");
            pk_rjson_thread(out, p, c->thread);
            if (pid >= 0)
                pk_buf_printf(out, ",\"pid\":%" PRId64, pid);
            else
                pk_buf_puts(out, ",\"pid\":null");
            pk_buf_printf(out, ",\"by_order\":%s,\"samples\":%zu", c->by_order ? "true" : "false", st.n);
            pk_buf_printf(out, ",\"count\":{\"min\":%" PRId64 ",\"max\":%" PRId64 ",\"mean\":%.9g,\"sum\":%" PRId64 "}",
                          st.count_min, st.count_max, st.count_mean, st.count_sum);
            pk_buf_printf(out, ",\"total\":{\"start\":%" PRId64 ",\"min\":%" PRId64 ",\"max\":%" PRId64
                          ",\"range\":%" PRId64 "}",
                          st.start, st.total_min, st.total_max, st.range);
            pk_buf_puts(out, ",\"series\":");
            json_series(out, p, i, f, t, zero);
            if (json_sites(out, p, i, f, t) != 0)
                return PROFKIT_ENOMEM;
            pk_buf_puts(out, "}");
        } else {
            pk_buf_printf(out, "%scounter %u: %s (%s)", shown ? "\n" : "", i, pk_str(p, c->name),
                          c->category ? pk_str(p, c->category) : "no category");
            if (c->description && pk_str(p, c->description)[0])
                pk_buf_printf(out, ": %s", pk_str(p, c->description));
            pk_buf_puts(out, "\n  thread: ");
            if (c->thread < p->n_threads) {
                char label[512];
                pk_thread_label(p, c->thread, label, sizeof label);
                pk_buf_printf(out, "%u %s\n", c->thread, label);
            } else if (pid >= 0) {
                pk_buf_printf(out, "none (pid %" PRId64 ")\n", pid);
            } else {
                pk_buf_puts(out, "none\n");
            }
            pk_buf_printf(out, "  samples: %zu%s\n", st.n, c->by_order ? " (by operation order)" : "");
            if (st.n)
                pk_buf_printf(out, "  count:   min %" PRId64 "  max %" PRId64 "  mean %.6g  sum %" PRId64 "\n",
                              st.count_min, st.count_max, st.count_mean, st.count_sum);
            if (st.has_total)
                pk_buf_printf(out, "  total:   start %" PRId64 "  min %" PRId64 "  max %" PRId64 "  range %" PRId64 "\n",
                              st.start, st.total_min, st.total_max, st.range);
        }
        shown++;
    }
    if (o->json)
        pk_buf_puts(out, "]}\n");
    else if (!shown)
        pk_buf_puts(out, p->n_counters ? "no counter on this thread\n" : "no counters\n");
    return pk_buf_error(out) ? PROFKIT_ENOMEM : 0;
}

int profkit_report_counters(FILE *file, const profkit_profile *p, const profkit_counters_options *o,
                            profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_counters_buf(&out, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
