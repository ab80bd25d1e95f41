/*
 * counters.c: a counter's statistics in a time range
 * (analysis/counters.h).
 */
#include "analysis/counters.h"

#include <stdlib.h>
#include <string.h>

#include "util/map64.h"

static void extend(pk_counter_stats *out, int64_t v)
{
    if (!out->has_total) {
        out->has_total = 1;
        out->total_min = out->total_max = v;
    } else if (v < out->total_min) {
        out->total_min = v;
    } else if (v > out->total_max) {
        out->total_max = v;
    }
}

void pk_counter_stats_compute(const profkit_profile *p, uint32_t counter, int64_t from, int64_t to,
                              pk_counter_stats *out)
{
    memset(out, 0, sizeof *out);
    pk_counter_iter it;
    pk_counter_iter_init(&it, p, counter);
    /* the last sample before the range, its running sum and the one
     * before it (the first sample has none: the Firefox Profiler counts
     * from it, its count a baseline) */
    int before = 0, after = 0, has_base = 0, has_prev = 0;
    int64_t before_total = 0, base = 0, prev = 0;
    while (pk_counter_next(&it)) {
        const profkit_counter_sample *s = it.s;
        if (it.t < from) {
            before = 1, before_total = it.total, has_base = has_prev, base = prev;
        } else if (it.t < to) {
            if (out->n == 0)
                out->count_min = out->count_max = s->count;
            if (s->count < out->count_min)
                out->count_min = s->count;
            if (s->count > out->count_max)
                out->count_max = s->count;
            if (__builtin_add_overflow(out->count_sum, s->count, &out->count_sum))
                out->count_sum = s->count < 0 ? INT64_MIN : INT64_MAX;
            extend(out, it.total);
            out->n++;
        } else if (!after) {
            after = 1;
            extend(out, it.total);
        }
        prev = it.total, has_prev = 1;
    }
    if (before) {
        out->start = before_total;
        extend(out, before_total);
    }
    if (has_base)
        extend(out, base);
    if (out->n)
        out->count_mean = (double)out->count_sum / (double)out->n;
    if (out->has_total && __builtin_sub_overflow(out->total_max, out->total_min, &out->range))
        out->range = INT64_MAX;
}

static int64_t sat_add(int64_t a, uint64_t b)
{
    int64_t d = b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)b, v;
    return __builtin_add_overflow(a, d, &v) ? (d < 0 ? INT64_MIN : INT64_MAX) : v;
}

int pk_mem_sites_compute(const profkit_profile *p, uint32_t counter, int64_t from, int64_t to,
                         pk_mem_site **out, size_t *n, int64_t *unmatched)
{
    *out = NULL;
    *n = 0;
    *unmatched = 0;
    const pk_mem_thread_ops *o = pk_mem_ops_of(p, counter);
    if (!pk_mem_ops_covers(o, from, to)) /* none, or the range reaches past them */
        return 0;
    size_t a = from < 0 ? 0 : (uint64_t)from > o->n ? o->n : (size_t)from;
    size_t b = to < 0 ? 0 : (uint64_t)to > o->n ? o->n : (size_t)to;
    pk_map64 at;
    memset(&at, 0, sizeof at);
    pk_mem_site *s = NULL;
    size_t ns = 0, cap = 0;
    for (size_t i = a; i < b; i++) {
        for (int part = 0; part < 2; part++) {
            /* part 0: what it allocates; part 1: what it frees */
            uint32_t st;
            size_t k = i;
            if (part == 0) {
                if ((st = o->stack[i]) == PROFKIT_NONE)
                    continue;
            } else {
                if (!o->freed[i]) {
                    if (o->stack[i] == PROFKIT_NONE)
                        ++*unmatched;
                    continue;
                }
                k = o->freed[i] - 1;
                if (k >= o->n || (st = o->stack[k]) == PROFKIT_NONE)
                    continue;
            }
            uint32_t x = pk_map64_get(&at, st);
            if (x == PK_MAP64_EMPTY) {
                if (ns == cap) {
                    size_t nc = cap ? cap * 2 : 64;
                    pk_mem_site *g = realloc(s, nc * sizeof(*g));
                    if (!g)
                        goto oom;
                    s = g;
                    cap = nc;
                }
                x = (uint32_t)ns;
                memset(&s[ns], 0, sizeof(s[ns]));
                s[ns++].stack = st;
                if (pk_map64_put(&at, st, x) < 0)
                    goto oom;
            }
            pk_mem_site *e = &s[x];
            if (part == 0) {
                e->alloc_objects++;
                e->alloc_space = sat_add(e->alloc_space, o->size[i]);
                e->inuse_objects++;
                e->inuse_space = sat_add(e->inuse_space, o->size[i]);
            } else {
                e->free_objects++;
                e->freed_space = sat_add(e->freed_space, o->size[k]);
                if (k >= a) { /* allocated in the range: not live at its end */
                    e->inuse_objects--;
                    e->inuse_space -= o->size[k] > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)o->size[k];
                }
            }
        }
    }
    pk_map64_free(&at);
    *out = s;
    *n = ns;
    return 0;
oom:
    pk_map64_free(&at);
    free(s);
    return PROFKIT_ENOMEM;
}

size_t pk_mem_site_path(const profkit_profile *p, uint32_t stack, char **buf, size_t *cap)
{
    size_t len = 0;
    /* leaf first into the buffer's end would need the length: count first */
    for (uint32_t s = stack; s && s < p->n_stacks; s = p->stacks[s].parent) {
        const profkit_frame *f = &p->frames[p->stacks[s].frame];
        const char *name = f->function < p->n_functions ? pk_str(p, p->functions[f->function].name) : "";
        len += (*name ? strlen(name) : 9) + 1;
    }
    if (*cap < len + 1) {
        char *g = realloc(*buf, len + 1);
        if (!g)
            return (size_t)-1;
        *buf = g;
        *cap = len + 1;
    }
    size_t end = len ? len - 1 : 0;
    (*buf)[end] = '\0';
    for (uint32_t s = stack; s && s < p->n_stacks; s = p->stacks[s].parent) {
        const profkit_frame *f = &p->frames[p->stacks[s].frame];
        const char *name = f->function < p->n_functions ? pk_str(p, p->functions[f->function].name) : "";
        if (!*name)
            name = "(unknown)";
        size_t l = strlen(name);
        end -= l;
        memcpy(*buf + end, name, l);
        if (end)
            (*buf)[--end] = ';';
    }
    return len ? len - 1 : 0;
}
