/*
 * markers.c: the markers as the Firefox Profiler shows them, filtered, and
 * their statistics per name (markers.h).
 *
 * The loader makes its marker list from each thread's raw markers in their
 * order: an instant (phase 0) and an interval (1) as they are; an interval
 * start (2) waits for the next end (3) of the same name, and the two make
 * one interval (an end with no start starts at the thread's start, a start
 * never ended ends at the thread's end); a Network payload with status
 * STATUS_START waits for the next marker of its id, and the two make one
 * request; a CompositorScreenshot lasts until the next one of its window;
 * IPC markers are correlated across threads (markers_ipc.c).
 * A thread's range is its first sample's time to its last one's plus the
 * interval, or without samples, what its markers span; the zero is the
 * earliest thread start, or the profile's profilingStartTime. A reader
 * whose importer in the Firefox Profiler keeps fewer samples than the file
 * has (Chrome traces) gives a thread's range as the metadata "threadRange"
 * ("PID TID START_MS END_MS"), which then is that thread's ("inf -inf":
 * it has none, so a start never ended ends where it starts and an end
 * without a start starts where it ends). With the metadata markerType
 * "name" (Chrome traces, whose importer sets each marker's data.type to its
 * name) a marker's type is its name, not its payload's "type".
 */
#include "analysis/markers.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/markers_ipc.h"
#include "io/json_fields.h"
#include "util/map64.h"

void pk_shown_markers_free(pk_shown_markers *s)
{
    free(s->m);
    memset(s, 0, sizeof *s);
}

/* Metadata key as ns (a number of ms): 1, or 0. */
static int meta_ms(const profkit_profile *p, const char *key, int64_t *out)
{
    const char *v = pk_meta_get(p, key);
    if (!v || !*v)
        return 0;
    char *end;
    double d = strtod(v, &end) * 1e6;
    if (*end || !(d > -9.2e18 && d < 9.2e18))
        return 0;
    *out = (int64_t)llround(d);
    return 1;
}

static int payload_is(const profkit_profile *p, uint32_t payload, const char *key, const char *want)
{
    const char *t = payload ? pk_str(p, payload) : NULL;
    return t && pk_json_field_is(t, strlen(t), key, want);
}

/* A payload field's value text hashed (0 and 1 when absent), a map key. */
static uint64_t payload_key(const profkit_profile *p, uint32_t payload, const char *key)
{
    pk_json_field f;
    const char *t = payload ? pk_str(p, payload) : NULL;
    if (!t || !pk_json_find_field(t, strlen(t), key, &f))
        return 0;
    return pk_hash_bytes(f.value, f.value_len, 0x6d61726b) | 2;
}

/* A metadata "threadRange": "PID TID START_MS END_MS" ("inf -inf": none). */
typedef struct thread_range {
    int64_t pid, tid, start, end; /* ns; INT64_MAX, INT64_MIN: no range */
} thread_range;

static int parse_range(const char *v, thread_range *r)
{
    char *e1, *e2, *e3, *e4;
    long long pid = strtoll(v, &e1, 10), tid = strtoll(e1, &e2, 10);
    double a = strtod(e2, &e3) * 1e6, b = strtod(e3, &e4) * 1e6;
    if (e1 == v || e2 == e1 || e3 == e2 || e4 == e3 || *e4)
        return 0;
    r->pid = pid;
    r->tid = tid;
    if (a == INFINITY && b == -INFINITY) {
        r->start = INT64_MAX;
        r->end = INT64_MIN;
        return 1;
    }
    if (!(a > -9.2e18 && a < 9.2e18 && b > -9.2e18 && b < 9.2e18))
        return 0;
    r->start = (int64_t)llround(a);
    r->end = (int64_t)llround(b);
    return 1;
}

static uint64_t range_key(int64_t pid, int64_t tid)
{
    return pk_hash_u64((uint64_t)pid * 0x9e3779b97f4a7c15u ^ (uint64_t)tid);
}

/* The threads' ranges the metadata gives (the first one of each pid and
 * tid), one pass over the metadata and one over the threads: t_start[t],
 * t_end[t] set where there is one. 0 or PROFKIT_ENOMEM. */
static int thread_ranges(const profkit_profile *p, size_t nt, int64_t *t_start, int64_t *t_end)
{
    thread_range *r = NULL;
    size_t n = 0, cap = 0;
    pk_map64 at = { 0 };
    int rc = 0;
    for (size_t i = 0; i < p->n_metadata && !rc; i++) {
        const profkit_meta *m = &p->metadata[i];
        thread_range x;
        if (strcmp(pk_str(p, m->key), "threadRange") != 0 || !parse_range(pk_str(p, m->value), &x))
            continue;
        uint64_t k = range_key(x.pid, x.tid);
        if (pk_map64_get(&at, k) != PK_MAP64_EMPTY)
            continue;
        if (PK_VEC_RESERVE(r, n, cap, 1) != 0 || pk_map64_put(&at, k, (uint32_t)n) < 0)
            rc = PROFKIT_ENOMEM;
        else
            r[n++] = x;
    }
    for (size_t t = 0; t < nt && !rc && n; t++) {
        const profkit_thread *th = &p->threads[t];
        uint32_t k = pk_map64_get(&at, range_key(th->pid, th->tid));
        if (k != PK_MAP64_EMPTY && r[k].pid == th->pid && r[k].tid == th->tid) {
            t_start[t] = r[k].start;
            t_end[t] = r[k].end;
        }
    }
    free(r);
    pk_map64_free(&at);
    return rc;
}

/* ---- filters ---- */

static int ci_contains(const char *h, size_t hn, const char *n, size_t nn)
{
    if (nn == 0)
        return 1;
    for (size_t i = 0; i + nn <= hn; i++) {
        size_t k = 0;
        while (k < nn && tolower((unsigned char)h[i + k]) == tolower((unsigned char)n[k]))
            k++;
        if (k == nn)
            return 1;
    }
    return 0;
}

/* A scalar field value's text (a string inside its quotes). */
static void value_text(const pk_json_field *f, const char **s, size_t *n)
{
    if (!pk_json_field_string(f, s, n)) {
        *s = f->value;
        *n = f->value_len;
    }
}

/* Does the term (t, tn) match marker m? field (fn > 0): only that payload field. */
static int term_matches(const profkit_profile *p, const pk_shown_marker *m, const char *field,
                        size_t fn, const char *t, size_t tn)
{
    const char *pl = m->payload ? pk_str(p, m->payload) : NULL;
    size_t pn = pl ? strlen(pl) : 0;
    pk_json_field f;
    size_t pos = 0;
    if (fn) {
        while (pk_json_next_field(pl, pn, &pos, &f)) {
            if (f.key_len != fn || memcmp(f.key, field, fn) != 0)
                continue;
            const char *s;
            size_t n;
            value_text(&f, &s, &n);
            if (ci_contains(s, n, t, tn))
                return 1;
        }
        return 0;
    }
    const char *name = pk_str(p, m->name), *cat = m->category ? pk_str(p, m->category) : "Other";
    if (ci_contains(name, strlen(name), t, tn) || ci_contains(cat, strlen(cat), t, tn))
        return 1;
    while (pk_json_next_field(pl, pn, &pos, &f)) {
        if (f.value_len && (f.value[0] == '{' || f.value[0] == '['))
            continue;
        const char *s;
        size_t n;
        value_text(&f, &s, &n); /* the type is one of the fields */
        if (ci_contains(s, n, t, tn))
            return 1;
    }
    return 0;
}

/* Is the payload key of (f, fn) a field of m's payload? */
static int has_field(const profkit_profile *p, const pk_shown_marker *m, const char *k, size_t kn)
{
    const char *pl = m->payload ? pk_str(p, m->payload) : NULL;
    pk_json_field f;
    size_t pos = 0;
    while (pk_json_next_field(pl, pl ? strlen(pl) : 0, &pos, &f))
        if (f.key_len == kn && memcmp(f.key, k, kn) == 0)
            return 1;
    return 0;
}

static int search_matches(const profkit_profile *p, const pk_shown_marker *m, const char *search)
{
    int positives = 0, hit = 0;
    const char *s = search;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        const char *t = s;
        s = e ? e + 1 : s + n;
        while (n && isspace((unsigned char)*t))
            t++, n--;
        while (n && isspace((unsigned char)t[n - 1]))
            n--;
        if (!n)
            continue;
        const char *colon = memchr(t, ':', n);
        int negative = t[0] == '-' && colon && colon > t + 1;
        const char *field = negative ? t + 1 : t;
        size_t fn = colon ? (size_t)(colon - field) : 0;
        if (colon && !has_field(p, m, field, fn) && !negative) {
            /* no such field: the term is matched as it is */
            positives++;
            hit |= term_matches(p, m, NULL, 0, t, n);
            continue;
        }
        if (negative) {
            if (term_matches(p, m, field, fn, colon + 1, n - (size_t)(colon + 1 - t)))
                return 0;
            continue;
        }
        positives++;
        hit |= colon ? term_matches(p, m, field, fn, colon + 1, n - (size_t)(colon + 1 - t))
                     : term_matches(p, m, NULL, 0, t, n);
    }
    return positives == 0 || hit;
}

/* ---- the list ---- */

typedef struct derive {
    const profkit_profile *p;
    int type_is_name; /* metadata markerType "name": a marker's type is its name */
    pk_shown_marker *out;
    size_t n, cap;
    int oom;
    pk_ipc ipc; /* the IPC markers, correlated across threads (markers_ipc.c) */
} derive;

static void emit(derive *d, const profkit_marker *m, int64_t start, int64_t end, uint32_t payload,
                 size_t order)
{
    if (d->oom)
        return;
    if (PK_VEC_RESERVE(d->out, d->n, d->cap, 1) != 0) {
        d->oom = 1;
        return;
    }
    pk_shown_marker *s = &d->out[d->n++];
    s->start = start;
    s->end = end;
    s->thread = m->thread;
    s->name = m->name;
    s->category = m->category;
    s->payload = payload;
    s->order = order;
}

static int cmp_shown(const void *a, const void *b)
{
    const pk_shown_marker *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

#define CLOSED (PK_MAP64_EMPTY - 1)

/* Is m's type `want`? Its payload's "type", or where the Firefox
 * Profiler's importer gives every marker with data the type of its name
 * (Chrome traces: metadata markerType "name"), its name when it has a
 * payload. */
static int type_is(const derive *d, const profkit_marker *m, const char *want)
{
    if (d->type_is_name)
        return m->payload && strcmp(pk_str(d->p, m->name), want) == 0;
    return payload_is(d->p, m->payload, "type", want);
}

/* One thread's markers ids[0..n) (in their order) into d. */
static void derive_thread(derive *d, const uint32_t *ids, size_t n, int64_t t_start, int64_t t_end,
                          uint32_t *open_head, uint32_t *open_prev)
{
    const profkit_profile *p = d->p;
    const profkit_marker *mk = p->markers;
    pk_map64 net = { 0 }, shots = { 0 };
    for (size_t k = 0; k < n && !d->oom; k++) {
        uint32_t i = ids[k];
        const profkit_marker *m = &mk[i];
        const pk_ipc_shown *ipc = pk_ipc_of(&d->ipc, i);
        if (ipc) {
            if (ipc->name != PROFKIT_NONE) {
                emit(d, m, ipc->start, ipc->end, m->payload, k);
                if (!d->oom)
                    d->out[d->n - 1].name = ipc->name;
            }
            continue;
        }
        if (type_is(d, m, "Network")) {
            if (m->start == PROFKIT_NO_TIME || m->end == PROFKIT_NO_TIME)
                continue; /* the loader needs both */
            uint64_t id = payload_key(p, m->payload, "id");
            if (payload_is(p, m->payload, "status", "STATUS_START")) {
                if (pk_map64_put(&net, id, i) < 0)
                    d->oom = 1;
                continue;
            }
            uint32_t s = pk_map64_get(&net, id);
            if (s != PK_MAP64_EMPTY && s != CLOSED) {
                if (pk_map64_put(&net, id, CLOSED) < 0)
                    d->oom = 1;
                emit(d, m, mk[s].start, m->end, m->payload, k);
            } else {
                emit(d, m, m->start < t_start ? m->start : t_start, m->end, m->payload, k);
            }
            continue;
        }
        if (type_is(d, m, "CompositorScreenshot")) {
            uint64_t w = payload_key(p, m->payload, "windowID");
            uint32_t s = pk_map64_get(&shots, w);
            if (s != PK_MAP64_EMPTY && s != CLOSED && m->start != PROFKIT_NO_TIME) {
                emit(d, &mk[s], mk[s].start, m->start, mk[s].payload, k);
                if (pk_map64_put(&shots, w, CLOSED) < 0)
                    d->oom = 1;
            }
            if (strcmp(pk_str(p, m->name), "CompositorScreenshotWindowDestroyed") != 0) {
                if (m->start != PROFKIT_NO_TIME && pk_map64_put(&shots, w, i) < 0)
                    d->oom = 1;
                continue;
            }
        }
        switch (m->phase) {
        case PROFKIT_MARKER_INSTANT:
            if (m->start != PROFKIT_NO_TIME)
                emit(d, m, m->start, PROFKIT_NO_TIME, m->payload, k);
            break;
        case PROFKIT_MARKER_INTERVAL:
            if (m->start != PROFKIT_NO_TIME && m->end != PROFKIT_NO_TIME)
                emit(d, m, m->start, m->end, m->payload, k);
            break;
        case PROFKIT_MARKER_START:
            if (m->name < p->strings.n && m->start != PROFKIT_NO_TIME) {
                open_prev[i] = open_head[m->name];
                open_head[m->name] = i;
            }
            break;
        case PROFKIT_MARKER_END: {
            if (m->end == PROFKIT_NO_TIME || m->name >= p->strings.n)
                break;
            uint32_t s = open_head[m->name];
            if (s != PROFKIT_NONE) {
                open_head[m->name] = open_prev[s];
                open_prev[s] = CLOSED;
                emit(d, m, mk[s].start, m->end, m->payload ? m->payload : mk[s].payload, k);
            } else {
                emit(d, m, m->end < t_start ? m->end : t_start, m->end, m->payload, k);
            }
            break;
        }
        default: break;
        }
    }
    /* starts never ended, requests never stopped, the last screenshots */
    for (size_t k = 0; k < n && !d->oom; k++) {
        uint32_t i = ids[k];
        const profkit_marker *m = &mk[i];
        if (m->phase == PROFKIT_MARKER_START && m->name < p->strings.n && m->start != PROFKIT_NO_TIME &&
            open_prev[i] != CLOSED && !type_is(d, m, "Network") && !type_is(d, m, "CompositorScreenshot"))
            emit(d, m, m->start, t_end > m->start ? t_end : m->start, m->payload, n + k);
    }
    for (size_t c = 0; c < net.cap && !d->oom; c++) {
        uint32_t s = net.vals[c];
        if (s != PK_MAP64_EMPTY && s != CLOSED)
            emit(d, &mk[s], mk[s].start, t_end > mk[s].start ? t_end : mk[s].start, mk[s].payload, 2 * n + s);
    }
    for (size_t c = 0; c < shots.cap && !d->oom; c++) {
        uint32_t s = shots.vals[c];
        if (s != PK_MAP64_EMPTY && s != CLOSED)
            emit(d, &mk[s], mk[s].start, t_end > mk[s].start ? t_end : mk[s].start, mk[s].payload, 2 * n + s);
    }
    /* the open lists are left empty for the next thread */
    for (size_t k = 0; k < n; k++) {
        const profkit_marker *m = &mk[ids[k]];
        if (m->name < p->strings.n)
            open_head[m->name] = PROFKIT_NONE;
    }
    pk_map64_free(&net);
    pk_map64_free(&shots);
}

int pk_markers_shown(pk_shown_markers *out, const profkit_profile *p, uint32_t thread,
                     const char *search, const char *category, int64_t min_duration_ns)
{
    memset(out, 0, sizeof *out);
    size_t nt = p->n_threads, nm = p->n_markers;
    int64_t interval = 1000000;
    meta_ms(p, "interval", &interval);
    int has_ranges = pk_meta_get(p, "threadRange") != NULL;
    int64_t *t_start = malloc((nt + 1) * sizeof *t_start), *t_end = malloc((nt + 1) * sizeof *t_end);
    size_t *first = calloc(nt + 2, sizeof *first);
    uint32_t *ids = malloc((nm + 1) * sizeof *ids);
    uint32_t *open_head = malloc((p->strings.n + 1) * sizeof *open_head);
    uint32_t *open_prev = malloc((nm + 1) * sizeof *open_prev);
    const char *mt = pk_meta_get(p, "markerType");
    derive d = { p, mt && strcmp(mt, "name") == 0, NULL, 0, 0, 0, { { 0 }, NULL, 0 } };
    int rc = PROFKIT_ENOMEM;
    if (!t_start || !t_end || !first || !ids || !open_head || !open_prev || pk_ipc_build(&d.ipc, p) != 0)
        goto done;
    for (size_t t = 0; t < nt; t++)
        t_start[t] = INT64_MAX, t_end[t] = INT64_MIN;
    /* thread ranges: the samples' (first and last + interval) */
    for (size_t i = 0; i < p->n_samples; i++) {
        uint32_t t = p->sample_thread[i];
        int64_t s = p->sample_time[i];
        if (t >= nt || s == PROFKIT_NO_TIME)
            continue;
        if (t_start[t] == INT64_MAX)
            t_start[t] = s;
        t_end[t] = s > INT64_MAX - interval ? INT64_MAX : s + interval;
    }
    /* ... or, without samples, what the markers span */
    int64_t *m_start = malloc((nt + 1) * sizeof *m_start), *m_end = malloc((nt + 1) * sizeof *m_end);
    if (!m_start || !m_end) {
        free(m_start);
        free(m_end);
        goto done;
    }
    for (size_t t = 0; t < nt; t++)
        m_start[t] = INT64_MAX, m_end[t] = INT64_MIN;
    for (size_t i = 0; i < nm; i++) {
        const profkit_marker *m = &p->markers[i];
        if (m->thread >= nt)
            continue;
        first[m->thread + 1]++;
        int64_t a = m->start != PROFKIT_NO_TIME ? m->start : m->end;
        int64_t b = m->end != PROFKIT_NO_TIME ? m->end : m->start;
        if (a == PROFKIT_NO_TIME)
            continue;
        if (a < m_start[m->thread])
            m_start[m->thread] = a;
        if (b < m_start[m->thread])
            m_start[m->thread] = b;
        int64_t e = (b > a ? b : a);
        e = e > INT64_MAX - interval ? INT64_MAX : e + interval;
        if (e > m_end[m->thread])
            m_end[m->thread] = e;
    }
    int64_t zero = INT64_MAX, root_end = INT64_MIN;
    for (size_t t = 0; t < nt; t++) {
        if (t_start[t] == INT64_MAX) {
            t_start[t] = m_start[t];
            t_end[t] = m_end[t];
        }
    }
    if (has_ranges && thread_ranges(p, nt, t_start, t_end) != 0) {
        free(m_start);
        free(m_end);
        goto done;
    }
    for (size_t t = 0; t < nt; t++) {
        if (t_start[t] < zero)
            zero = t_start[t];
        if (t_end[t] > root_end)
            root_end = t_end[t];
    }
    free(m_start);
    free(m_end);
    int64_t ps, pe;
    if (meta_ms(p, "profilingStartTime", &ps) && meta_ms(p, "profilingEndTime", &pe))
        zero = ps, root_end = pe;
    out->zero = zero == INT64_MAX ? 0 : zero;
    out->end = root_end == INT64_MIN ? out->zero : root_end;
    /* markers bucketed by thread, in their order */
    for (size_t t = 0; t < nt; t++)
        first[t + 1] += first[t];
    {
        size_t *fill = calloc(nt + 1, sizeof *fill);
        if (!fill)
            goto done;
        for (size_t i = 0; i < nm; i++) {
            uint32_t t = p->markers[i].thread;
            if (t < nt)
                ids[first[t] + fill[t]++] = (uint32_t)i;
        }
        free(fill);
    }
    for (size_t s = 0; s < p->strings.n; s++)
        open_head[s] = PROFKIT_NONE;
    for (size_t t = 0; t < nt && !d.oom; t++) {
        if (thread != PROFKIT_NONE && t != thread)
            continue;
        size_t before = d.n;
        derive_thread(&d, ids + first[t], first[t + 1] - first[t], t_start[t], t_end[t], open_head,
                      open_prev);
        /* filters */
        size_t kept = before;
        for (size_t k = before; k < d.n; k++) {
            pk_shown_marker *m = &d.out[k];
            /* the loader shows the markers that touch the root range */
            if ((m->end != PROFKIT_NO_TIME ? m->end : m->start) < out->zero || m->start > out->end)
                continue;
            if (min_duration_ns >= 0 && (m->end == PROFKIT_NO_TIME || m->end - m->start < min_duration_ns))
                continue;
            if (category) {
                const char *c = m->category ? pk_str(p, m->category) : "Other";
                if (!ci_contains(c, strlen(c), category, strlen(category)))
                    continue;
            }
            if (search && !search_matches(p, m, search))
                continue;
            d.out[kept++] = *m;
        }
        d.n = kept;
    }
    if (d.oom)
        goto done;
    if (d.n > 1)
        qsort(d.out, d.n, sizeof *d.out, cmp_shown);
    for (size_t k = 0; k < d.n; k++) {
        pk_shown_marker *m = &d.out[k];
        m->start -= out->zero; /* both on the model's axis: no overflow in practice */
        if (m->end != PROFKIT_NO_TIME)
            m->end -= out->zero;
    }
    out->m = d.out;
    out->n = d.n;
    d.out = NULL;
    rc = 0;
done:
    free(d.out);
    pk_ipc_free(&d.ipc);
    free(t_start);
    free(t_end);
    free(first);
    free(ids);
    free(open_head);
    free(open_prev);
    return rc;
}

/* ---- statistics ---- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

void pk_duration_stats_compute(int64_t *d, size_t n, pk_duration_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!n)
        return;
    qsort(d, n, sizeof *d, cmp_i64);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)d[i];
    out->min = d[0];
    out->max = d[n - 1];
    out->mean = sum / (double)n;
    out->median = d[n / 2];
    out->p95 = d[(size_t)floor((double)n * 0.95)];
}

static int cmp_group(const void *a, const void *b)
{
    const pk_marker_group *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->label, y->label);
}

int pk_marker_groups(const pk_shown_markers *s, const profkit_profile *p, pk_marker_group **out,
                     size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    /* markers sorted by (thread, name) through an index, then one run per group */
    size_t n = s->n;
    uint32_t *idx = malloc((n + 1) * sizeof *idx);
    int64_t *dur = malloc((n + 1) * sizeof *dur);
    pk_marker_group *g = NULL;
    size_t ng = 0, cap = 0;
    int rc = PROFKIT_ENOMEM;
    if (!idx || !dur)
        goto done;
    /* counting by name per thread: names are string ids, sort pairs */
    uint64_t *key = malloc((n + 1) * sizeof *key);
    if (!key)
        goto done;
    for (size_t i = 0; i < n; i++)
        key[i] = ((uint64_t)s->m[i].thread << 32) | s->m[i].name;
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    /* stable order: by key, then by time (index): a bottom-up merge sort */
    uint32_t *tmp = malloc((n + 1) * sizeof *tmp);
    if (!tmp) {
        free(key);
        goto done;
    }
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                tmp[o++] = key[idx[b]] < key[idx[a]] ? idx[b++] : idx[a++];
            while (a < mid)
                tmp[o++] = idx[a++];
            while (b < hi)
                tmp[o++] = idx[b++];
        }
        if (n)
            memcpy(idx, tmp, n * sizeof *tmp);
    }
    free(tmp);
    for (size_t i = 0; i < n;) {
        size_t j = i, nd = 0;
        while (j < n && key[idx[j]] == key[idx[i]]) {
            const pk_shown_marker *m = &s->m[idx[j]];
            if (m->end != PROFKIT_NO_TIME)
                dur[nd++] = m->end - m->start;
            j++;
        }
        if (PK_VEC_RESERVE(g, ng, cap, 1) != 0) {
            free(key);
            goto done;
        }
        pk_marker_group *x = &g[ng++];
        memset(x, 0, sizeof *x);
        x->thread = s->m[idx[i]].thread;
        x->name = s->m[idx[i]].name;
        x->count = j - i;
        x->intervals = nd;
        x->first = s->m[idx[i]].start;
        x->label = pk_str(p, x->name);
        pk_duration_stats_compute(dur, nd, &x->stats);
        i = j;
    }
    free(key);
    if (ng > 1)
        qsort(g, ng, sizeof *g, cmp_group);
    *out = g;
    *n_out = ng;
    g = NULL;
    rc = 0;
done:
    free(g);
    free(idx);
    free(dur);
    return rc;
}
