/*
 * chrome_write.c: writes a profile as a Chrome trace (the trace event
 * format; chrome_read.c describes it), so Perfetto's UI, chrome://tracing
 * and the Firefox Profiler open it.
 *
 * `{"traceEvents": [...]}` with, in this order:
 *   - `M` events naming each process (process_name) and thread
 *     (thread_name); a thread without a pid gets pid 1, one without a tid
 *     (or whose (pid, tid) an earlier thread has) the smallest free tid;
 *     and a TracingStartedInBrowser metadata event at the earliest sample
 *     or marker (the start of the Firefox Profiler's time range);
 *   - per thread with timed samples, V8's CPU profile events: one `Profile`
 *     (id 0xN, args.data.startTime = its first sample's time) and
 *     `ProfileChunk`s of up to CHUNK samples, each with the cpuProfile nodes
 *     first used in it (parents first), the samples' node ids and the
 *     timeDeltas. Node ids are unique across the whole trace (the Firefox
 *     Profiler numbers frames by node id across threads), each thread has a
 *     "(root)" node of its own, and a node is a model stack: callFrame
 *     functionName (an unnamed function's label), url (the function's
 *     file), 0-based lineNumber and columnNumber of the frame (or of the
 *     function's definition line; -1 unknown).
 *     A sampled thread without an X or I marker gets a track span after its
 *     chunks (track_span), so DevTools draws its calls.
 *   - the markers: intervals as complete `X` events (ts, dur), instants as
 *     `I` (thread scope), interval starts and ends as `B` and `E`; the
 *     category as `cat`, the payload as `args.data` (`{}` without one);
 *   - the counters (timed ones) as `C` events, one per counter sample with
 *     the running sum of its counts (write_counters).
 * Times are microseconds; sample times are rounded to whole microseconds
 * (timeDeltas are integers, as V8 writes them), marker times keep their
 * nanoseconds as three decimals. What a trace cannot hold (untimed rows,
 * weights, counters by operation order, counters' descriptions and event
 * numbers) is left out and said once. Rulings: docs/formats/chrome.md.
 */
#include "formats/chrome/chrome.h"
#include "io/json_out.h"
#include "model/counter_iter.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 500 /* samples per ProfileChunk */
#define SYNTH_MAX ((uint64_t)1 << 24) /* samples written for untimed rows, at most */

/* ns as whole microseconds, rounded half away from zero. */
static int64_t ns_to_us(int64_t ns)
{
    int64_t q = ns / 1000, r = ns % 1000;
    if (r >= 500 && q < INT64_MAX / 1000)
        q++;
    else if (r <= -500 && q > INT64_MIN / 1000 + 1)
        q--;
    return q; /* q * 1000 stays within int64 */
}

/* ns as microseconds with up to three decimals, exactly. */
static void put_us(pk_sink *k, int64_t ns)
{
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    if (a % 1000 == 0) {
        pk_sink_printf(k, "%s%llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000));
        return;
    }
    char frac[4];
    unsigned f = (unsigned)(a % 1000);
    frac[0] = (char)('0' + f / 100);
    frac[1] = (char)('0' + f / 10 % 10);
    frac[2] = (char)('0' + f % 10);
    frac[3] = 0;
    int n = 3;
    while (n > 0 && frac[n - 1] == '0')
        frac[--n] = 0;
    pk_sink_printf(k, "%s%llu.%s", ns < 0 ? "-" : "", (unsigned long long)(a / 1000), frac);
}

static int is_time_unit(const char *u)
{
    return strcmp(u, "nanoseconds") == 0 || strcmp(u, "microseconds") == 0 ||
           strcmp(u, "milliseconds") == 0 || strcmp(u, "seconds") == 0;
}

typedef struct writer {
    const profkit_profile *p;
    pk_sink *k;
    int64_t *pid, *tid;   /* per thread, as written */
    uint32_t *node_of;    /* per stack: its node id for thread owner[s] */
    uint32_t *owner;      /* per stack: thread + 1 that numbered it, 0 none */
    uint32_t *fresh;      /* scratch: stacks new in the chunk, parents first */
    size_t n_fresh, cap_fresh;
    uint32_t *chain;      /* scratch: one stack's unnumbered ancestors */
    size_t cap_chain;
    uint32_t next_id;     /* the next node id */
    uint32_t root;        /* the current thread's "(root)" node id */
    uint8_t *drawn;       /* per thread: a marker is written on it as X or I (track_span) */
} writer;

static void put_int_field(pk_sink *k, const char *key, int64_t v)
{
    pk_sink_puts(k, key);
    pk_json_int(k, v);
}

/* The event's head: name, ph, cat, pid, tid (no closing brace). */
static void event_head(writer *w, const char *name, size_t name_len, const char *ph, uint32_t cat,
                       const char *cat_text, size_t t)
{
    pk_sink *k = w->k;
    pk_sink_puts(k, ",\n{\"name\":");
    pk_json_string(k, name, name_len);
    pk_sink_printf(k, ",\"ph\":\"%s\"", ph);
    if (cat_text) {
        pk_sink_puts(k, ",\"cat\":");
        pk_json_cstr(k, cat_text);
    } else if (cat) {
        pk_sink_puts(k, ",\"cat\":");
        pk_json_string(k, pk_str(w->p, cat), pk_strtab_len(&w->p->strings, cat));
    }
    put_int_field(k, ",\"pid\":", w->pid[t]);
    put_int_field(k, ",\"tid\":", w->tid[t]);
}

/* Numbers the stacks of sample stack s not numbered for thread t yet,
 * parents first, into w->fresh. */
static int number_stack(writer *w, uint32_t s, uint32_t t)
{
    const profkit_profile *p = w->p;
    size_t d = 0;
    while (s != 0 && w->owner[s] != t + 1) {
        if (d >= w->cap_chain && pk_grow((void **)&w->chain, &w->cap_chain, d + 1, sizeof(uint32_t)))
            return PROFKIT_ENOMEM;
        w->chain[d++] = s;
        s = p->stacks[s].parent;
    }
    if (pk_grow((void **)&w->fresh, &w->cap_fresh, w->n_fresh + d, sizeof(uint32_t)))
        return PROFKIT_ENOMEM;
    while (d > 0) {
        uint32_t x = w->chain[--d];
        w->owner[x] = t + 1;
        w->node_of[x] = w->next_id++;
        w->fresh[w->n_fresh++] = x;
    }
    return 0;
}

static uint32_t node_id(const writer *w, uint32_t s) { return s == 0 ? w->root : w->node_of[s]; }

static void write_node(writer *w, uint32_t s)
{
    const profkit_profile *p = w->p;
    pk_sink *k = w->k;
    const profkit_frame *fr = &p->frames[p->stacks[s].frame];
    const profkit_function *fn = &p->functions[fr->function];
    pk_sink_printf(k, "{\"id\":%u,\"parent\":%u,\"callFrame\":{\"functionName\":", w->node_of[s],
                   node_id(w, p->stacks[s].parent));
    if (pk_strtab_len(&p->strings, fn->name)) {
        pk_json_string(k, pk_str(p, fn->name), pk_strtab_len(&p->strings, fn->name));
    } else {
        char buf[64];
        pk_frame_label(p, p->stacks[s].frame, 0, buf, sizeof buf);
        pk_json_cstr(k, buf);
    }
    pk_sink_puts(k, ",\"url\":");
    pk_json_string(k, pk_str(p, fn->file), pk_strtab_len(&p->strings, fn->file));
    int64_t line = fr->line ? (int64_t)fr->line - 1 : fn->start_line ? (int64_t)fn->start_line - 1 : -1;
    int64_t col = fr->line && fr->column ? (int64_t)fr->column - 1 : -1;
    pk_sink_printf(k, ",\"scriptId\":0,\"lineNumber\":%lld,\"columnNumber\":%lld}}", (long long)line,
                   (long long)col);
}

/* DevTools' Performance panel draws a thread's JS calls only on a thread
 * with a trace event of its own (X, I, or a B/E pair); a thread with
 * samples alone gets no track. Such a thread gets one complete event
 * spanning its samples, after its chunks, that every reader takes for
 * what it is: a `ProfileChunk` of the thread's profile (same id) with no
 * samples. DevTools' trace engine keeps it among the thread's events (its
 * track) and reads it as an empty chunk; the Firefox Profiler makes no
 * marker of a ProfileChunk and skips a chunk without cpuProfile;
 * profkit's reader reads it as an empty chunk. */
static void track_span(writer *w, size_t t, uint32_t profile_id, int64_t start, int64_t end)
{
    if (w->drawn && w->drawn[t])
        return;
    pk_sink *k = w->k;
    event_head(w, "ProfileChunk", 12, "X", 0, "disabled-by-default-v8.cpu_profiler", t);
    pk_sink_printf(k, ",\"id\":\"0x%x\",\"ts\":", profile_id);
    pk_json_int(k, start);
    pk_sink_puts(k, ",\"dur\":");
    pk_json_int(k, end > start ? end - start : 0);
    pk_sink_puts(k, ",\"args\":{\"data\":{}}}");
}

/* What the written markers of each thread span, as the Firefox Profiler
 * takes a thread's range without samples (ms): lo[t] .. hi[t], each time
 * plus 0.5 ms at the end (INFINITY .. -INFINITY: none). */
static void marker_spans(const profkit_profile *p, double *lo, double *hi)
{
    const double iv = 0.5;
    for (size_t t = 0; t < p->n_threads; t++) {
        lo[t] = INFINITY;
        hi[t] = -INFINITY;
    }
    for (size_t i = 0; i < p->n_markers; i++) {
        const profkit_marker *m = &p->markers[i];
        if (m->thread >= p->n_threads)
            continue;
        int64_t x = m->phase == PROFKIT_MARKER_END ? m->end : m->start;
        if (x == PROFKIT_NO_TIME)
            continue;
        /* an interval as written: its start and its end (X's ts plus
         * dur, which may be before the start) */
        int64_t y = m->phase == PROFKIT_MARKER_INTERVAL && m->end != PROFKIT_NO_TIME ? m->end : x;
        double a = (double)(x < y ? x : y) / 1e6, b = (double)(x < y ? y : x) / 1e6;
        if (a < lo[m->thread])
            lo[m->thread] = a;
        if (b + iv > hi[m->thread])
            hi[m->thread] = b + iv;
    }
}

/* The Firefox Profiler's thread range of a written thread (ms, in *lo and
 * *hi; 0 without samples or markers), with its Chrome importer's
 * arithmetic (docs/formats/chrome.md, "Time range"): from the first to the
 * last sample its 0.5 ms rule keeps (startTime plus the deltas, in ms, a
 * sample kept 0.5 ms or more after the one kept before, the first from
 * 0) plus 0.5 ms, or without a kept sample what its markers span (m_lo ..
 * m_hi, marker_spans). *sampled: it had a kept sample. us[0..n): the
 * samples' times as written. */
static int loader_thread_range(const int64_t *us, size_t n, double m_lo, double m_hi, double *lo, double *hi,
                               int *sampled)
{
    const double iv = 0.5;
    double seen = n ? (double)us[0] / 1e3 : 0, kept = 0, a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        seen += (double)(i ? us[i] - us[i - 1] : 0) / 1e3;
        if (seen - kept >= iv) {
            kept = seen;
            if (a == INFINITY)
                a = seen;
            b = seen + iv;
        }
    }
    *sampled = a != INFINITY;
    if (!*sampled) {
        a = m_lo;
        b = m_hi;
    }
    *lo = a;
    *hi = b;
    return a != INFINITY;
}

/* How many markers of the written threads (start .. end or its one time)
 * touch lo .. hi ms, as the Firefox Profiler shows them (markers.c). */
static size_t markers_shown(const profkit_profile *p, uint32_t only, double lo, double hi)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n_markers; i++) {
        const profkit_marker *m = &p->markers[i];
        if (m->thread >= p->n_threads || (only != PROFKIT_NONE && m->thread != only))
            continue;
        int64_t a = m->start != PROFKIT_NO_TIME ? m->start : m->end;
        int64_t b = m->end != PROFKIT_NO_TIME ? m->end : m->start;
        if (a == PROFKIT_NO_TIME)
            continue;
        n += (double)b / 1e6 >= lo && (double)a / 1e6 <= hi;
    }
    return n;
}

/* One thread's samples (the stacks of rows[0..n) at us[0..n),
 * microseconds) as a Profile and its chunks. */
static int write_samples(writer *w, size_t t, const size_t *rows, const int64_t *us, size_t n,
                         uint32_t profile_id, int64_t end_us)
{
    const profkit_profile *p = w->p;
    pk_sink *k = w->k;
    int64_t start = us[0];
    w->root = w->next_id++;
    event_head(w, "Profile", 7, "P", 0, "disabled-by-default-v8.cpu_profiler", t);
    pk_sink_printf(k, ",\"id\":\"0x%x\",\"ts\":", profile_id);
    pk_json_int(k, start);
    pk_sink_puts(k, ",\"args\":{\"data\":{\"startTime\":");
    pk_json_int(k, start);
    pk_sink_puts(k, "}}}");
    int64_t prev = start;
    for (size_t c = 0; c < n; c += CHUNK) {
        size_t m = n - c < CHUNK ? n - c : CHUNK;
        w->n_fresh = 0;
        for (size_t i = c; i < c + m; i++)
            if (number_stack(w, p->sample_stack[rows[i]], (uint32_t)t))
                return PROFKIT_ENOMEM;
        int64_t last = us[c + m - 1];
        event_head(w, "ProfileChunk", 12, "P", 0, "disabled-by-default-v8.cpu_profiler", t);
        pk_sink_printf(k, ",\"id\":\"0x%x\",\"ts\":", profile_id);
        pk_json_int(k, last);
        pk_sink_puts(k, ",\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[");
        int first = 1;
        if (c == 0) {
            pk_sink_printf(k, "{\"id\":%u,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\","
                              "\"scriptId\":0,\"lineNumber\":-1,\"columnNumber\":-1}}",
                           w->root);
            first = 0;
        }
        for (size_t i = 0; i < w->n_fresh; i++) {
            if (!first)
                pk_sink_write(k, ",", 1);
            first = 0;
            write_node(w, w->fresh[i]);
        }
        pk_sink_puts(k, "],\"samples\":[");
        for (size_t i = c; i < c + m; i++)
            pk_sink_printf(k, i > c ? ",%u" : "%u", node_id(w, p->sample_stack[rows[i]]));
        pk_sink_puts(k, "]},\"timeDeltas\":[");
        for (size_t i = c; i < c + m; i++) {
            if (i > c)
                pk_sink_write(k, ",", 1);
            pk_json_int(k, pk_sat_add(us[i], -prev));
            prev = us[i];
        }
        pk_sink_puts(k, "]");
        if (c + m == n && end_us != PROFKIT_NO_TIME) {
            pk_sink_puts(k, ",\"endTime\":");
            pk_json_int(k, end_us);
        }
        pk_sink_puts(k, "}}}");
    }
    track_span(w, t, profile_id, start, end_us != PROFKIT_NO_TIME && end_us > prev ? end_us : prev);
    return 0;
}

/* The pairs (pid, tid) written so far, and the pids: an id set over the
 * threads (key.tid INT64_MIN: a pid alone). */
typedef struct pair_key {
    const writer *w;
    int64_t pid, tid;
} pair_key;

static uint64_t pair_hash(int64_t pid, int64_t tid)
{
    return pk_hash_u64((uint64_t)pid * 0x9e3779b97f4a7c15ull ^ (uint64_t)tid);
}

static int pair_eq(const void *ctx, uint32_t t, const void *key)
{
    const pair_key *k = key;
    (void)ctx;
    return k->w->pid[t] == k->pid && (k->tid == INT64_MIN || k->w->tid[t] == k->tid);
}

static int taken(const writer *w, const pk_idset *set, int64_t pid, int64_t tid)
{
    pair_key key = { w, pid, tid };
    return pk_idset_find(set, pair_hash(pid, tid), pair_eq, NULL, &key) != PROFKIT_NONE;
}

static void write_marker(writer *w, const profkit_marker *m, size_t t)
{
    const profkit_profile *p = w->p;
    pk_sink *k = w->k;
    const char *ph;
    int64_t at;
    int interval = 0;
    switch (m->phase) {
    case PROFKIT_MARKER_INTERVAL:
        interval = m->end != PROFKIT_NO_TIME;
        ph = interval ? "X" : "I";
        at = m->start;
        break;
    case PROFKIT_MARKER_START: ph = "B"; at = m->start; break;
    case PROFKIT_MARKER_END: ph = "E"; at = m->end; break;
    default: ph = "I"; at = m->start; break;
    }
    event_head(w, pk_str(p, m->name), pk_strtab_len(&p->strings, m->name), ph, m->category, NULL, t);
    pk_sink_puts(k, ",\"ts\":");
    put_us(k, at);
    if (interval) {
        pk_sink_puts(k, ",\"dur\":");
        /* an end before the start is a negative dur, which every reader
         * (profkit's, the Firefox Profiler's) takes as that end */
        put_us(k, pk_sat_add(m->end, -m->start));
    }
    if (ph[0] == 'i')
        pk_sink_puts(k, ",\"s\":\"t\"");
    /* the payload under args.data, as Chrome's own events carry theirs,
     * and `{}` for a marker without one: DevTools' trace engine reads
     * args.data of the events it knows by name (a Paint without it stops
     * the engine), the Firefox Profiler turns args.data into the marker's
     * data, and the reader takes args.data back as the payload when it is
     * args' only key (in profkit's traces `{}`: none); the payload `{}`
     * itself is `{"data":{},"empty":true}`, which the reader takes back as
     * `{}` in profkit's traces */
    const char *s = m->payload ? pk_str(p, m->payload) : "";
    size_t len = m->payload ? pk_strtab_len(&p->strings, m->payload) : 0;
    size_t i = 0, e = len;
    while (i < len && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'))
        i++;
    while (e > i && (s[e - 1] == ' ' || s[e - 1] == '\n' || s[e - 1] == '\t' || s[e - 1] == '\r'))
        e--;
    int is_empty = 0;
    if (e - i >= 2 && s[i] == '{' && s[e - 1] == '}') {
        size_t a = i + 1;
        while (a < e - 1 && (s[a] == ' ' || s[a] == '\n' || s[a] == '\t' || s[a] == '\r'))
            a++;
        is_empty = a == e - 1;
    }
    if (is_empty) {
        pk_sink_puts(k, ",\"args\":{\"data\":{},\"empty\":true}}");
        return;
    }
    pk_sink_puts(k, ",\"args\":{\"data\":");
    if (i < len && strncmp(s + i, "null", 4) != 0)
        pk_sink_write(k, s, len);
    else
        pk_sink_puts(k, "{}");
    pk_sink_puts(k, "}");
    pk_sink_puts(k, "}");
}

/* (pid, name) of counter c as written, for telling apart counters a
 * trace would merge */
typedef struct ckey {
    const profkit_profile *p;
    const int64_t *pid;
} ckey;

static int counter_eq(const void *ctx, uint32_t i, const void *key)
{
    const ckey *c = ctx;
    uint32_t j = *(const uint32_t *)key;
    return c->pid[i] == c->pid[j] && c->p->counters[i].name == c->p->counters[j].name;
}

/*
 * The counters as `C` events, one per counter sample: args {NAME: the
 * running sum of the counts} (what Perfetto and chrome://tracing draw as
 * the counter's track: for memory the bytes in use relative to the first
 * sample), `cat` its category, pid and tid its thread's (a counter of no
 * thread: its pid, tid 0); a counter whose (pid, name) an earlier one has
 * gets an `id` (its index) so the viewers keep them apart. A counter by
 * operation order has no times: left out, counted in *by_order. *lost:
 * counters whose description or event numbers the trace cannot hold.
 */
static int write_counters(writer *w, uint32_t only, size_t *by_order, size_t *lost)
{
    const profkit_profile *p = w->p;
    pk_sink *k = w->k;
    size_t nc = p->n_counters;
    int64_t *pid = malloc((nc + 1) * sizeof(int64_t));
    if (!pid)
        return PROFKIT_ENOMEM;
    pk_idset seen;
    memset(&seen, 0, sizeof seen);
    ckey ck = { p, pid };
    int rc = 0;
    for (uint32_t i = 0; i < nc && rc == 0; i++) {
        const profkit_counter *c = &p->counters[i];
        int has_thread = c->thread < p->n_threads;
        pid[i] = has_thread ? w->pid[c->thread] : c->pid >= 0 ? c->pid : 1;
        if (only != PROFKIT_NONE && c->thread != only)
            continue;
        if (c->by_order) {
            (*by_order)++;
            continue;
        }
        uint64_t h = ((uint64_t)pid[i] * 0x9E3779B97F4A7C15ull) ^ c->name;
        int dup = pk_idset_find(&seen, h, counter_eq, &ck, &i) != PROFKIT_NONE;
        if (!dup && pk_idset_insert(&seen, h, i)) {
            rc = PROFKIT_ENOMEM;
            break;
        }
        int lost_here = c->description && pk_str(p, c->description)[0];
        const char *name = pk_str(p, c->name);
        size_t name_len = pk_strtab_len(&p->strings, c->name);
        pk_counter_iter it;
        pk_counter_iter_init(&it, p, i);
        while (pk_counter_next(&it)) {
            const profkit_counter_sample *cs = it.s;
            if (cs->number)
                lost_here = 1;
            if (has_thread) {
                event_head(w, name, name_len, "C", c->category, NULL, c->thread);
            } else {
                pk_sink_puts(k, ",\n{\"name\":");
                pk_json_string(k, name, name_len);
                pk_sink_puts(k, ",\"ph\":\"C\"");
                if (c->category) {
                    pk_sink_puts(k, ",\"cat\":");
                    pk_json_string(k, pk_str(p, c->category), pk_strtab_len(&p->strings, c->category));
                }
                put_int_field(k, ",\"pid\":", pid[i]);
                pk_sink_puts(k, ",\"tid\":0");
            }
            if (dup)
                pk_sink_printf(k, ",\"id\":\"%u\"", i);
            pk_sink_puts(k, ",\"ts\":");
            put_us(k, cs->time);
            pk_sink_puts(k, ",\"args\":{");
            pk_json_string(k, name, name_len);
            pk_sink_puts(k, ":");
            pk_json_int(k, it.total);
            pk_sink_puts(k, "}}");
        }
        if (lost_here)
            (*lost)++;
    }
    pk_idset_free(&seen);
    free(pid);
    return rc;
}

int pk_chrome_write(const profkit_profile *p, pk_sink *k, const profkit_write_options *o,
                    profkit_error *err)
{
    int ok;
    uint32_t only = pk_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    writer w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.k = k;
    w.next_id = 1;
    int rc = 0;
    size_t nt = p->n_threads, nv = p->n_value_types;
    size_t *count = calloc(nt + 1, sizeof(size_t));
    size_t *start = calloc(nt + 2, sizeof(size_t));
    size_t *rows = malloc((p->n_samples + 1) * sizeof(size_t));
    int64_t *us = NULL;
    size_t *xrows = NULL;
    w.pid = malloc((nt + 1) * sizeof(int64_t));
    w.tid = malloc((nt + 1) * sizeof(int64_t));
    w.node_of = malloc((p->n_stacks + 1) * sizeof(uint32_t));
    w.owner = calloc(p->n_stacks + 1, sizeof(uint32_t));
    if (!count || !start || !rows || !w.pid || !w.tid || !w.node_of || !w.owner) {
        rc = PROFKIT_ENOMEM;
        goto out;
    }
    /* the timed rows of each thread, in the model's order, then the untimed ones */
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t t = p->sample_thread[r];
        if ((only == PROFKIT_NONE || t == only) && p->sample_time[r] != PROFKIT_NO_TIME)
            count[t]++;
    }
    for (size_t t = 0; t < nt; t++)
        start[t + 1] = start[t] + count[t];
    size_t n_timed = start[nt];
    memset(count, 0, (nt + 1) * sizeof(size_t));
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t t = p->sample_thread[r];
        if ((only == PROFKIT_NONE || t == only) && p->sample_time[r] != PROFKIT_NO_TIME)
            rows[start[t] + count[t]++] = r;
    }
    size_t n_rows = n_timed; /* rows[n_timed..n_rows): the untimed rows written */
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t t = p->sample_thread[r];
        if ((only == PROFKIT_NONE || t == only) && p->sample_time[r] == PROFKIT_NO_TIME)
            rows[n_rows++] = r; /* in row order; each thread's picked below */
    }
    /* An aggregated thread (no timed rows) is written one sample per count
     * of a count value type (--value's, the default, or the first), 1 ms
     * apart from 1 ms (the Firefox Profiler drops a sample at 0), so that its counts arrive; its times are not the
     * profile's, which the warning says. */
    uint32_t cv = PROFKIT_NONE;
    if (o->value) {
        cv = pk_select_value(p, o->value, err);
        if (cv == PROFKIT_NONE) {
            rc = PROFKIT_EINVAL;
            goto out;
        }
        if (strcmp(pk_str(p, p->value_types[cv].unit), "count") != 0)
            cv = PROFKIT_NONE;
    } else if (p->default_value < nv && strcmp(pk_str(p, p->value_types[p->default_value].unit), "count") == 0) {
        cv = p->default_value;
    } else {
        for (size_t v = 0; v < nv && cv == PROFKIT_NONE; v++)
            if (strcmp(pk_str(p, p->value_types[v].unit), "count") == 0)
                cv = (uint32_t)v;
    }
    size_t untimed_left = 0, synthetic = 0;
    uint64_t synth_total = 0;
    for (size_t i = n_timed; i < n_rows; i++) {
        size_t r = rows[i];
        uint32_t t = p->sample_thread[r];
        if (only != PROFKIT_NONE && t != only)
            continue;
        if (count[t] || cv == PROFKIT_NONE) {
            untimed_left++;
            continue;
        }
        int64_t c = p->sample_values[r * nv + cv];
        if (c > 0)
            synth_total += (uint64_t)c;
    }
    int synth = cv != PROFKIT_NONE && synth_total > 0 && synth_total <= SYNTH_MAX;
    if (!synth)
        for (size_t i = n_timed; i < n_rows; i++)
            if (!count[p->sample_thread[rows[i]]] && cv != PROFKIT_NONE)
                untimed_left++;
    /* pid and tid of each thread, unique pairs; the first thread of each pid */
    pk_idset pairs, pids;
    memset(&pairs, 0, sizeof pairs);
    memset(&pids, 0, sizeof pids);
    uint8_t *first_of_pid = calloc(nt + 1, 1);
    if (!first_of_pid) {
        rc = PROFKIT_ENOMEM;
        goto out;
    }
    for (size_t t = 0; t < nt && rc == 0; t++) {
        const profkit_thread *th = &p->threads[t];
        w.pid[t] = th->pid >= 0 ? th->pid : 1;
        int64_t tid = th->tid;
        if (tid < 0 || taken(&w, &pairs, w.pid[t], tid))
            for (tid = (int64_t)t + 1; taken(&w, &pairs, w.pid[t], tid); tid++)
                ;
        w.tid[t] = tid;
        if (pk_idset_insert(&pairs, pair_hash(w.pid[t], tid), (uint32_t)t))
            rc = PROFKIT_ENOMEM;
        if (only != PROFKIT_NONE && t != only)
            continue;
        if (!taken(&w, &pids, w.pid[t], INT64_MIN)) {
            first_of_pid[t] = 1;
            if (pk_idset_insert(&pids, pair_hash(w.pid[t], INT64_MIN), (uint32_t)t))
                rc = PROFKIT_ENOMEM;
        }
    }
    pk_idset_free(&pairs);
    pk_idset_free(&pids);
    if (rc) {
        free(first_of_pid);
        goto out;
    }
    pk_sink_puts(k, "{\"traceEvents\":[\n{\"name\":\"profkit\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
                    "\"args\":{\"producer\":\"profkit " PROFKIT_VERSION_STRING "\"}}");
    for (size_t t = 0; t < nt; t++) {
        if (only != PROFKIT_NONE && t != only)
            continue;
        const profkit_thread *th = &p->threads[t];
        if (first_of_pid[t] && th->process_name && pk_str(p, th->process_name)[0]) {
            event_head(&w, "process_name", 12, "M", 0, NULL, t);
            pk_sink_puts(k, ",\"args\":{\"name\":");
            pk_json_string(k, pk_str(p, th->process_name), pk_strtab_len(&p->strings, th->process_name));
            pk_sink_puts(k, "}}");
        }
        event_head(&w, "thread_name", 11, "M", 0, NULL, t);
        pk_sink_puts(k, ",\"args\":{\"name\":");
        pk_json_string(k, pk_str(p, th->name), pk_strtab_len(&p->strings, th->name));
        pk_sink_puts(k, "}}");
    }
    /* Where the recording starts: the earliest sample or marker. The
     * Firefox Profiler takes a TracingStartedInBrowser event's time as the
     * start of its root range (else its first sample's, which would leave
     * out a marker before it); as a metadata event it is no marker. */
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < n_timed; i++)
        if (ns_to_us(p->sample_time[rows[i]]) * 1000 < first)
            first = ns_to_us(p->sample_time[rows[i]]) * 1000;
    if (synth && first > 1000000)
        first = 1000000;
    for (size_t i = 0; i < p->n_markers; i++) {
        const profkit_marker *m = &p->markers[i];
        if (m->thread >= nt || (only != PROFKIT_NONE && m->thread != only))
            continue;
        int64_t at = m->phase == PROFKIT_MARKER_END ? m->end : m->start;
        if (at != PROFKIT_NO_TIME && at < first)
            first = at;
        /* an interval that ends before its start */
        if (at != PROFKIT_NO_TIME && m->phase == PROFKIT_MARKER_INTERVAL && m->end != PROFKIT_NO_TIME &&
            m->end < first)
            first = m->end;
    }
    int tsib = first != INT64_MAX;
    if (tsib) {
        /* With that event the Firefox Profiler's root range ends at the
         * sampled threads' end (their last kept sample plus 0.5 ms): the
         * markers of a thread without samples after it are not shown.
         * Without it, the range runs from the earliest thread start (a
         * sampled thread's first kept sample) to the latest thread end.
         * The event is written when its range shows as many markers. */
        double t_lo = INFINITY, t_hi = -INFINITY, s_hi = -INFINITY;
        int64_t *tus = malloc((p->n_samples + 2) * sizeof *tus);
        double *m_lo = malloc((nt + 1) * sizeof *m_lo), *m_hi = malloc((nt + 1) * sizeof *m_hi);
        uint64_t *counts = calloc(nt + 1, sizeof *counts); /* an aggregated thread's samples */
        if (!tus || !m_lo || !m_hi || !counts) {
            free(tus);
            free(counts);
            free(m_lo);
            free(m_hi);
            free(first_of_pid);
            rc = PROFKIT_ENOMEM;
            goto out;
        }
        marker_spans(p, m_lo, m_hi);
        for (size_t i = n_timed; synth && i < n_rows; i++)
            if (p->sample_thread[rows[i]] < nt && p->sample_values[rows[i] * nv + cv] > 0)
                counts[p->sample_thread[rows[i]]] += (uint64_t)p->sample_values[rows[i] * nv + cv];
        for (size_t t = 0; t < nt; t++) {
            if (only != PROFKIT_NONE && t != only)
                continue;
            size_t n = 0;
            if (start[t + 1] > start[t]) {
                for (size_t i = start[t]; i < start[t + 1]; i++)
                    tus[n++] = ns_to_us(p->sample_time[rows[i]]);
            } else if (synth) {
                /* one sample per count, 1 ms apart from 1 ms (all kept):
                 * the first and the last give the range */
                uint64_t c = counts[t];
                tus[0] = 1000;
                tus[1] = (int64_t)c * 1000;
                n = c > 1 ? 2 : c;
            }
            double a, b;
            int sampled;
            if (!loader_thread_range(tus, n, m_lo[t], m_hi[t], &a, &b, &sampled))
                continue;
            t_lo = a < t_lo ? a : t_lo;
            t_hi = b > t_hi ? b : t_hi;
            if (sampled && b > s_hi)
                s_hi = b;
        }
        free(tus);
        free(counts);
        free(m_lo);
        free(m_hi);
        tsib = markers_shown(p, only, (double)first / 1e6, s_hi) >= markers_shown(p, only, t_lo, t_hi);
    }
    if (tsib) {
        pk_sink_puts(k, ",\n{\"name\":\"TracingStartedInBrowser\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
                        "\"cat\":\"disabled-by-default-devtools.timeline\",\"ts\":");
        put_us(k, first);
        /* DevTools' trace engine needs args.data (it throws without it)
         * and, once this event marks the trace as Chrome's, keeps only the
         * processes a frame with a URL names: one frame per process. */
        pk_sink_puts(k, ",\"args\":{\"data\":{\"frames\":[");
        int sep = 0;
        for (size_t t = 0; t < nt; t++) {
            if (!first_of_pid[t])
                continue;
            char buf[96];
            snprintf(buf, sizeof buf, "%s{\"frame\":\"%" PRId64 "\",\"processId\":%" PRId64 ",\"url\":\"about:blank\"}",
                     sep ? "," : "", w.pid[t], w.pid[t]);
            pk_sink_puts(k, buf);
            sep = 1;
        }
        pk_sink_puts(k, "]}}}");
    }
    free(first_of_pid);
    /* the threads DevTools draws for a marker of their own (track_span) */
    w.drawn = calloc(nt + 1, 1);
    if (!w.drawn) {
        rc = PROFKIT_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < p->n_markers; i++) {
        const profkit_marker *m = &p->markers[i];
        if (m->thread < nt && m->start != PROFKIT_NO_TIME &&
            (m->phase != PROFKIT_MARKER_START && m->phase != PROFKIT_MARKER_END))
            w.drawn[m->thread] = 1;
    }
    /* the last sample's end: its time plus its time value, when it has one */
    uint32_t vt = PROFKIT_NONE;
    if (p->default_value < nv && is_time_unit(pk_str(p, p->value_types[p->default_value].unit)))
        vt = p->default_value;
    uint32_t profile_id = 1;
    size_t most = 0;
    for (size_t t = 0; t < nt; t++)
        if (start[t + 1] - start[t] > most)
            most = start[t + 1] - start[t];
    us = malloc(((synth ? (size_t)synth_total : 0) + most + 1) * sizeof(int64_t));
    if (synth)
        xrows = malloc(((size_t)synth_total + 1) * sizeof(size_t));
    if (!us || (synth && !xrows)) {
        rc = PROFKIT_ENOMEM;
        goto out;
    }
    for (size_t t = 0; t < nt && rc == 0; t++) {
        size_t n = start[t + 1] - start[t];
        if (n == 0) {
            if (!synth)
                continue;
            /* the thread's untimed rows, one sample per count, 1 ms apart */
            size_t x = 0;
            for (size_t i = n_timed; i < n_rows; i++) {
                size_t r = rows[i];
                if (p->sample_thread[r] != t)
                    continue;
                for (int64_t c = p->sample_values[r * nv + cv]; c > 0; c--) {
                    xrows[x] = r;
                    us[x] = (int64_t)(x + 1) * 1000;
                    x++;
                }
            }
            if (x == 0)
                continue;
            synthetic += x;
            rc = write_samples(&w, t, xrows, us, x, profile_id++, (int64_t)(x + 1) * 1000);
            continue;
        }
        int64_t end_us = PROFKIT_NO_TIME;
        size_t lr = rows[start[t] + n - 1];
        if (vt != PROFKIT_NONE) {
            const char *u = pk_str(p, p->value_types[vt].unit);
            int64_t v = p->sample_values[lr * nv + vt], mul = u[0] == 'n' ? 1 : u[0] == 'm' && u[1] == 'i' ? 1000
                                                                : u[0] == 'm' ? 1000000 : 1000000000;
            if (v > 0 && v < INT64_MAX / mul)
                end_us = ns_to_us(pk_sat_add(p->sample_time[lr], v * mul));
        }
        for (size_t i = 0; i < n; i++)
            us[i] = ns_to_us(p->sample_time[rows[start[t] + i]]);
        rc = write_samples(&w, t, rows + start[t], us, n, profile_id++, end_us);
    }
    size_t no_time = 0;
    for (size_t i = 0; i < p->n_markers && rc == 0; i++) {
        const profkit_marker *m = &p->markers[i];
        if (m->thread >= nt || (only != PROFKIT_NONE && m->thread != only))
            continue;
        int64_t at = m->phase == PROFKIT_MARKER_END ? m->end : m->start;
        if (at == PROFKIT_NO_TIME) {
            no_time++;
            continue;
        }
        write_marker(&w, m, m->thread);
    }
    size_t counters_by_order = 0, counters_lost = 0;
    if (rc == 0)
        rc = write_counters(&w, only, &counters_by_order, &counters_lost);
    pk_sink_puts(k, "\n],\"displayTimeUnit\":\"ms\"}\n");
    if (rc)
        goto out;
    if (o->on_warning) {
        /* what the trace cannot hold, said once */
        pk_buf msg;
        pk_buf_init(&msg, 0);
        if (synthetic)
            pk_buf_printf(&msg, "the aggregated (untimed) samples are written as %zu samples, one per "
                          "count of %s, 1 ms apart from 1 ms: their times are not the profile's",
                          synthetic, pk_str(p, p->value_types[cv].type));
        if (untimed_left)
            pk_buf_printf(&msg, "%s%zu untimed sample row%s left out (%s)", msg.len ? "; " : "",
                          untimed_left, untimed_left == 1 ? "" : "s",
                          cv == PROFKIT_NONE ? "no count value type to write them by"
                          : synth_total > SYNTH_MAX ? "more than 16777216 samples"
                                                    : "their thread has timed samples");
        /* values other than time and a count of 1 per row */
        int listed = 0;
        for (size_t v = 0; v < nv; v++) {
            const char *u = pk_str(p, p->value_types[v].unit);
            if (is_time_unit(u) && !synthetic)
                continue; /* the timeline holds it */
            int lost = strcmp(u, "count") != 0 && !(synth && v == cv && !n_timed);
            for (size_t r = 0; r < p->n_samples && !lost; r++)
                if (p->sample_time[r] != PROFKIT_NO_TIME && p->sample_values[r * nv + v] != 1 &&
                    (only == PROFKIT_NONE || p->sample_thread[r] == only))
                    lost = 1;
            if (!lost)
                continue;
            pk_buf_printf(&msg, "%s%s (%s)", listed ? ", " : msg.len ? "; the values of " : "the values of ",
                          pk_str(p, p->value_types[v].type), u);
            listed = 1;
        }
        if (listed)
            pk_buf_puts(&msg, " (a trace holds one sample per timed row, without weights) left out");
        if (no_time)
            pk_buf_printf(&msg, "%s%zu marker%s without a time left out", msg.len ? "; " : "", no_time,
                          no_time == 1 ? "" : "s");
        if (counters_by_order)
            pk_buf_printf(&msg, "%s%zu counter%s by operation order (no times) left out", msg.len ? "; " : "",
                          counters_by_order, counters_by_order == 1 ? "" : "s");
        if (counters_lost)
            pk_buf_printf(&msg, "%sthe descriptions and event numbers of %zu counter%s left out (a `C` event "
                          "holds a value)", msg.len ? "; " : "", counters_lost, counters_lost == 1 ? "" : "s");
        if (pk_buf_error(&msg)) {
            pk_buf_free(&msg);
            rc = PROFKIT_ENOMEM;
            goto out;
        }
        if (msg.len) {
            profkit_error wn;
            pk_error_set(&wn, PROFKIT_EUNSUPPORTED, NULL, -1, "Chrome trace: %s", pk_buf_cstr(&msg));
            o->on_warning(&wn, o->payload);
        }
        pk_buf_free(&msg);
    }
out:
    free(count);
    free(start);
    free(rows);
    free(w.pid);
    free(w.tid);
    free(w.node_of);
    free(w.owner);
    free(w.fresh);
    free(us);
    free(xrows);
    free(w.chain);
    free(w.drawn);
    if (rc)
        return pk_error_set(err, rc, NULL, -1, "out of memory writing a Chrome trace");
    return 0;
}
