/*
 * chrome_read.c: Chrome's trace event format (the JSON that
 * chrome://tracing, Perfetto's UI and DevTools' Performance panel read and
 * save), and the format entry. The writer is chrome_write.c.
 *
 * A trace is `{"traceEvents": [EVENT...], ...}` or the bare array of
 * events. Each event is an object: `name`, `ph` (its phase: one letter),
 * `cat`, `pid`, `tid`, `ts` (microseconds), `dur` for complete events, `id`,
 * `args`. What profkit reads:
 *   - the samples of V8's CPU profiler (category
 *     disabled-by-default-v8.cpu_profiler, what DevTools records): a
 *     `Profile` event (its pid and tid are the sampled thread's;
 *     args.data.startTime, microseconds on the events' clock) and the
 *     `ProfileChunk` events with the same `id` and pid, in order, each with
 *     args.data.cpuProfile.nodes (id, callFrame {functionName, url,
 *     scriptId, 0-based lineNumber and columnNumber}, parent, the nodes new
 *     in this chunk), args.data.cpuProfile.samples (node ids) and
 *     args.data.timeDeltas (microseconds from the sample before, the first
 *     from startTime); a chunk may carry args.data.endTime. The older
 *     `CpuProfile` event holds a whole .cpuprofile in args.data.cpuProfile.
 *   - complete (`X`, with `dur`), begin and end (`B`/`E`, async `b`/`e`),
 *     and instant (`i`, `I`, `n`, `R`) events as markers: name, `cat` as the
 *     category, `args` as the payload (args.data when it is args' only
 *     key: marker_payload); a `ProfileChunk` of any phase is a chunk
 *     (profkit's writer adds an `X` one without samples: its track span);
 *   - thread and process names from `M` events (thread_name,
 *     process_name, args.name); a thread is (pid, tid);
 *   - counter (`C`) events as counters (build_counters): each numeric
 *     top-level arg a value of the counter (pid, name, id), whose running
 *     sum the value is.
 * Every other event (flows, objects, metadata other than the names) is
 * passed over. Rules and rulings: docs/formats/chrome.md.
 *
 * The reader streams the events and keeps what it needs (nodes, samples,
 * markers) as they arrive; the tree is linked and the samples timed once
 * every event is read, since chunks may come before their Profile event
 * and names after the events they name.
 */
#include "formats/chrome/chrome.h"
#include "formats/chrome/v8_callframe.h"
#include "io/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_DOC, S_TOP, S_EVENTS, S_EVENT, S_ARGS, S_END };
/* where inside `args` the parse is */
enum { A_ARGS, A_DATA, A_CPU, A_NODES, A_NODE, A_CF, A_CHILDREN, A_SAMPLES, A_DELTAS, A_DELTAS2, A_GEN };
enum { K_NONE, K_NAME, K_PH, K_CAT, K_PID, K_TID, K_TS, K_DUR, K_ID, K_OTHER };
enum { AK_NONE, AK_NAME, AK_START, AK_END, AK_ID, AK_PARENT, AK_FNAME, AK_URL, AK_LINE, AK_COL,
       AK_LABELS, AK_OTHER };

/* A node of a profile's tree (all profiles' in one array). */
typedef struct cnode {
    int64_t id, parent; /* parent: node id, or -1 none yet */
    uint32_t profile;   /* profile index */
    uint32_t name, url; /* string ids */
    int64_t line, col;  /* 0-based, -1 = unknown */
    uint32_t up;        /* parent node index, PROFKIT_NONE = none */
    uint32_t stack;     /* model stack, PROFKIT_NONE until built */
    uint32_t at_line, at_col;
    uint32_t event;     /* the event's index in traceEvents */
    int missing;        /* its parent id names no node of the trace */
} cnode;

typedef struct clink {
    uint32_t profile;
    int64_t parent, child; /* node ids */
    uint32_t line, col, event;
} clink;

typedef struct csample {
    int64_t node;
    double delta; /* microseconds */
    uint32_t profile;
} csample;

typedef struct cprofile {
    int64_t pid;
    uint32_t id;     /* string id of the `id` field's text */
    uint32_t thread; /* local thread index, PROFKIT_NONE until known */
    int64_t chunk_tid; /* the chunks' tid, for a profile without its Profile event */
    double start, end;
    int have_profile, have_start, have_end;
    int cpu;      /* a CpuProfile event's */
    size_t seq;   /* its Profile (or CpuProfile) event's place in the trace */
} cprofile;

typedef struct cthread {
    int64_t pid, tid;
} cthread;

/* A value of a counter (`C`) event: one per numeric arg. */
typedef struct cpoint {
    int64_t pid, tid;       /* tid -1: the event has none */
    uint32_t name, cat, id; /* string ids: the series' name, the event's cat and id */
    uint32_t group;         /* its counter, in the order counters first appear */
    size_t seq;             /* its place in the trace */
    double ts, value;
} cpoint;

typedef struct cname {
    int64_t pid, tid; /* tid NAME_PROCESS: a process name, NAME_LABELS: its labels */
    uint32_t name;
} cname;
#define NAME_PROCESS INT64_MIN
#define NAME_LABELS (INT64_MIN + 1)

typedef struct creader {
    profkit_profile *p;
    pk_read_ctx *ctx;
    int state, key, bare;
    size_t n_events;
    /* the event being read */
    uint32_t ev_name, ev_cat, ev_id;
    char ph;
    int ph_len, have_ts, have_dur, have_pid, have_tid, have_id;
    double ts, dur;
    int64_t pid, tid;
    uint32_t ev_line, ev_col;
    pk_buf args;      /* the args' text */
    int capture;      /* keep the args' text */
    int astate, akey, gen_depth, gen_return, list_return;
    uint32_t arg_name; /* args.name (string id, M events) */
    uint32_t arg_labels; /* args.labels (string id, a process_labels M event) */
    int have_arg_labels;
    size_t arg_keys;   /* args' own keys, and whether one is "data" (marker_payload) */
    int arg_data;
    int have_arg_name;
    int by_profkit;    /* the trace's `profkit` producer event came first: profkit wrote it (marker_payload) */
    size_t node_mark, link_mark, sample_mark, delta_count, chunk_samples;
    int have_nodes, have_samples, have_deltas;
    uint32_t samples_line, samples_col, deltas_line, deltas_col;
    /* timeDeltas at both places of an event (args.data and
     * args.data.cpuProfile): where the first list was (A_DATA, A_CPU), and
     * the second one's values and place, kept aside */
    int deltas_place, deltas2_place;
    pk_buf deltas2;
    uint32_t deltas2_line, deltas2_col;
    size_t both_deltas, both_deltas_differ;
    size_t dangling; /* children ids no node of the profile has */
    size_t missing_parents, missing_samples; /* nodes, samples naming a node the trace lacks */
    double d_start, d_end;
    int have_d_start, have_d_end;
    /* what is kept */
    cnode *nodes;
    size_t n_nodes, cap_nodes;
    clink *links;
    size_t n_links, cap_links;
    csample *samples;
    size_t n_samples, cap_samples;
    cprofile *profiles;
    size_t n_profiles, cap_profiles;
    cthread *threads;
    size_t n_threads, cap_threads;
    cname *names;
    size_t n_names, cap_names;
    profkit_marker *markers; /* thread = local thread index */
    size_t n_markers, cap_markers;
    pk_buf ckey;   /* the top-level args key being read */
    pk_buf cstage; /* the event's numeric top-level args: [u32 key length][key][double] each */
    cpoint *cpoints;
    size_t n_cpoints, cap_cpoints;
    size_t no_dur, orphan_chunks;
    int have_trace_events;
    /* the first TracingStartedInBrowser event: seen, with a ts, its ts */
    int tsib_seen, tsib_ok;
    double tsib_ts;
    pk_idset thread_set, profile_set, node_set;
} creader;

#define OOM() pk_json_fail(j, PROFKIT_ENOMEM, "out of memory")

/* ---- lookups ---- */

static uint64_t thread_hash(int64_t pid, int64_t tid)
{
    return pk_hash_u64((uint64_t)pid * 0x9e3779b97f4a7c15ull ^ (uint64_t)tid);
}

typedef struct tkey {
    int64_t pid, tid;
} tkey;

static int thread_eq(const void *c, uint32_t id, const void *key)
{
    const cthread *t = &((const cthread *)c)[id];
    const tkey *k = key;
    return t->pid == k->pid && t->tid == k->tid;
}

/* The local thread (pid, tid), added when new; PROFKIT_NONE when out of memory. */
static uint32_t thread_of(creader *r, int64_t pid, int64_t tid)
{
    tkey k = { pid, tid };
    uint64_t h = thread_hash(pid, tid);
    uint32_t t = pk_idset_find(&r->thread_set, h, thread_eq, r->threads, &k);
    if (t != PROFKIT_NONE)
        return t;
    if (r->n_threads >= UINT32_MAX - 1 ||
        pk_grow((void **)&r->threads, &r->cap_threads, r->n_threads + 1, sizeof(cthread)))
        return PROFKIT_NONE;
    t = (uint32_t)r->n_threads;
    r->threads[t].pid = pid;
    r->threads[t].tid = tid;
    if (pk_idset_insert(&r->thread_set, h, t))
        return PROFKIT_NONE;
    r->n_threads++;
    return t;
}

typedef struct pkey {
    int64_t pid;
    uint32_t id;
} pkey;

static int profile_eq(const void *c, uint32_t id, const void *key)
{
    const cprofile *q = &((const cprofile *)c)[id];
    const pkey *k = key;
    return q->pid == k->pid && q->id == k->id;
}

/* The profile (pid, id), added when new; PROFKIT_NONE when out of memory. */
static uint32_t profile_of(creader *r, int64_t pid, uint32_t id)
{
    pkey k = { pid, id };
    uint64_t h = thread_hash(pid, (int64_t)id + 1);
    uint32_t i = pk_idset_find(&r->profile_set, h, profile_eq, r->profiles, &k);
    if (i != PROFKIT_NONE)
        return i;
    if (r->n_profiles >= UINT32_MAX - 1 ||
        pk_grow((void **)&r->profiles, &r->cap_profiles, r->n_profiles + 1, sizeof(cprofile)))
        return PROFKIT_NONE;
    i = (uint32_t)r->n_profiles;
    memset(&r->profiles[i], 0, sizeof(cprofile));
    r->profiles[i].pid = pid;
    r->profiles[i].id = id;
    r->profiles[i].thread = PROFKIT_NONE;
    if (pk_idset_insert(&r->profile_set, h, i))
        return PROFKIT_NONE;
    r->n_profiles++;
    return i;
}

/* A profile of its own (a CpuProfile event), never looked up. */
static uint32_t profile_new(creader *r, int64_t pid)
{
    if (r->n_profiles >= UINT32_MAX - 1 ||
        pk_grow((void **)&r->profiles, &r->cap_profiles, r->n_profiles + 1, sizeof(cprofile)))
        return PROFKIT_NONE;
    uint32_t i = (uint32_t)r->n_profiles++;
    memset(&r->profiles[i], 0, sizeof(cprofile));
    r->profiles[i].pid = pid;
    r->profiles[i].thread = PROFKIT_NONE;
    return i;
}

typedef struct nkey {
    uint32_t profile;
    int64_t id;
} nkey;

static int node_eq(const void *c, uint32_t i, const void *key)
{
    const cnode *n = &((const cnode *)c)[i];
    const nkey *k = key;
    return n->profile == k->profile && n->id == k->id;
}

static uint32_t find_node(const creader *r, uint32_t profile, int64_t id)
{
    nkey k = { profile, id };
    return pk_idset_find(&r->node_set, thread_hash((int64_t)profile, id), node_eq, r->nodes, &k);
}

/* ---- values ---- */

/* A pid or tid: an integer, or a string holding one; -1 otherwise. */
static int64_t id_value(const pk_json_event *ev)
{
    int64_t v;
    if (pk_json_as_int(ev, &v))
        return v;
    if (ev->type == PK_JSON_NUMBER) {
        double d = pk_json_num(ev);
        return d >= 0 && d < 9e15 ? (int64_t)d : -1;
    }
    if (ev->type == PK_JSON_STRING && ev->len > 0 && ev->len <= 18) {
        v = 0;
        for (size_t i = 0; i < ev->len; i++) {
            if (ev->str[i] < '0' || ev->str[i] > '9')
                return -1;
            v = v * 10 + (ev->str[i] - '0');
        }
        return v;
    }
    return -1;
}

/* Microseconds as nanoseconds, rounded, clamped to int64 (NaN: 0). */
static int64_t us_to_ns(double us)
{
    double ns = us * 1000.0;
    if (!(ns > -9.2e18))
        return ns != ns ? 0 : -INT64_MAX;
    if (ns >= 9.2e18)
        return INT64_MAX;
    return (int64_t)llround(ns);
}

static int is_profile_name(const creader *r, uint32_t name, const char *what)
{
    return strcmp(pk_str(r->p, name), what) == 0;
}

/* ---- the args ---- */

static int arg_key(int astate, const pk_json_event *ev)
{
    switch (astate) {
    case A_ARGS:
        return pk_json_key_is(ev, "name")     ? AK_NAME
               : pk_json_key_is(ev, "data")   ? AK_OTHER + 1
               : pk_json_key_is(ev, "labels") ? AK_LABELS
                                              : AK_OTHER;
    case A_DATA:
    case A_CPU:
        return pk_json_key_is(ev, "cpuProfile")   ? AK_OTHER + 2
               : pk_json_key_is(ev, "nodes")      ? AK_OTHER + 3
               : pk_json_key_is(ev, "samples")    ? AK_OTHER + 4
               : pk_json_key_is(ev, "timeDeltas") ? AK_OTHER + 5
               : pk_json_key_is(ev, "startTime")  ? AK_START
               : pk_json_key_is(ev, "endTime")    ? AK_END
                                                  : AK_OTHER;
    case A_NODE:
        return pk_json_key_is(ev, "id")          ? AK_ID
               : pk_json_key_is(ev, "parent")    ? AK_PARENT
               : pk_json_key_is(ev, "callFrame") ? AK_OTHER + 6
               : pk_json_key_is(ev, "children")  ? AK_OTHER + 7
                                                 : AK_OTHER;
    case A_CF:
        return pk_json_key_is(ev, "functionName")   ? AK_FNAME
               : pk_json_key_is(ev, "url")          ? AK_URL
               : pk_json_key_is(ev, "lineNumber")   ? AK_LINE
               : pk_json_key_is(ev, "columnNumber") ? AK_COL
                                                    : AK_OTHER;
    default: return AK_OTHER;
    }
}

static int is_start(const pk_json_event *ev)
{
    return ev->type == PK_JSON_MAP_START || ev->type == PK_JSON_ARRAY_START;
}

static int is_end(const pk_json_event *ev)
{
    return ev->type == PK_JSON_MAP_END || ev->type == PK_JSON_ARRAY_END;
}

/* Enters a value nobody reads structurally (its text is still kept). */
static void enter_generic(creader *r, int back)
{
    r->gen_depth = 1;
    r->gen_return = back;
    r->astate = A_GEN;
}

static const char *cpu_where(const creader *r)
{
    return r->list_return == A_CPU ? "args.data.cpuProfile" : "args.data";
}

/* An integer field of a node or callFrame. */
static int node_int(creader *r, pk_json *j, const pk_json_event *ev, const char *field, int64_t *out)
{
    if (pk_json_as_int(ev, out))
        return 0;
    return pk_json_fail(j, PROFKIT_ECORRUPT,
                        "traceEvents[%zu].args.data.cpuProfile.nodes[%zu].%s: expected an integer, found %s",
                        r->n_events, r->n_nodes - r->node_mark - 1, field,
                        ev->type == PK_JSON_NUMBER ? "a fraction or huge number" : pk_json_type_name(ev->type));
}

static int on_arg(creader *r, pk_json *j, const pk_json_event *ev)
{
    int64_t v = 0;
    if (r->astate == A_GEN) {
        if (is_start(ev))
            r->gen_depth++;
        else if (is_end(ev) && --r->gen_depth == 0)
            r->astate = r->gen_return;
        return 0;
    }
    if (ev->type == PK_JSON_KEY) {
        r->akey = arg_key(r->astate, ev);
        if (r->astate == A_ARGS) {
            r->arg_keys++;
            r->arg_data |= r->akey == AK_OTHER + 1;
            pk_buf_clear(&r->ckey);
            pk_buf_put(&r->ckey, ev->str, ev->len);
        }
        return 0;
    }
    if (ev->type == PK_JSON_MAP_END || ev->type == PK_JSON_ARRAY_END) {
        switch (r->astate) {
        case A_ARGS: r->state = S_EVENT; return 0; /* the args end */
        case A_DATA: r->astate = A_ARGS; return 0;
        case A_CPU: r->astate = A_DATA; return 0;
        case A_NODES: r->astate = A_CPU; return 0;
        case A_NODE: r->astate = A_NODES; return 0;
        case A_CF: r->astate = A_NODE; return 0;
        case A_CHILDREN: r->astate = A_NODE; return 0;
        case A_SAMPLES:
        case A_DELTAS:
        case A_DELTAS2: r->astate = r->list_return; return 0;
        default: return 0;
        }
    }
    int key = r->akey;
    r->akey = AK_NONE;
    switch (r->astate) {
    case A_ARGS:
        if (ev->type == PK_JSON_NUMBER) { /* a counter event's value, maybe */
            uint32_t n = (uint32_t)r->ckey.len;
            double d = pk_json_num(ev);
            pk_buf_put(&r->cstage, &n, sizeof n);
            pk_buf_put(&r->cstage, r->ckey.buf, n);
            pk_buf_put(&r->cstage, &d, sizeof d);
            if (pk_buf_error(&r->cstage) || pk_buf_error(&r->ckey))
                return OOM();
            return 0;
        }
        if (key == AK_NAME && ev->type == PK_JSON_STRING) {
            uint32_t s = profkit_string_intern(r->p, ev->str, ev->len);
            if (s == PROFKIT_NONE)
                return OOM();
            r->arg_name = s;
            r->have_arg_name = 1;
        } else if (key == AK_LABELS && ev->type == PK_JSON_STRING) {
            uint32_t s = profkit_string_intern(r->p, ev->str, ev->len);
            if (s == PROFKIT_NONE)
                return OOM();
            r->arg_labels = s;
            r->have_arg_labels = 1;
        } else if (key == AK_OTHER + 1 && ev->type == PK_JSON_MAP_START) {
            r->astate = A_DATA;
        } else if (is_start(ev)) {
            enter_generic(r, A_ARGS);
        }
        return 0;
    case A_DATA:
    case A_CPU:
        if (key == AK_START || key == AK_END) {
            if (ev->type == PK_JSON_NUMBER) {
                double d = pk_json_num(ev);
                if (key == AK_START) {
                    r->d_start = d;
                    r->have_d_start = 1;
                } else {
                    r->d_end = d;
                    r->have_d_end = 1;
                }
            } else if (is_start(ev)) {
                enter_generic(r, r->astate);
            }
            return 0;
        }
        if (key == AK_OTHER + 2 && r->astate == A_DATA && ev->type == PK_JSON_MAP_START) {
            r->astate = A_CPU;
            return 0;
        }
        if (key == AK_OTHER + 3 && ev->type == PK_JSON_ARRAY_START) {
            r->have_nodes = 1;
            r->list_return = r->astate;
            r->astate = A_NODES;
            return 0;
        }
        if ((key == AK_OTHER + 4 || key == AK_OTHER + 5) && ev->type == PK_JSON_ARRAY_START) {
            r->list_return = r->astate;
            if (key == AK_OTHER + 4) {
                r->have_samples = 1;
                pk_json_where(j, &r->samples_line, &r->samples_col);
                r->astate = A_SAMPLES;
            } else if (r->have_deltas) {
                /* the event's second list (the other place): aside */
                if (r->deltas2_place)
                    return pk_json_fail(j, PROFKIT_ECORRUPT, "traceEvents[%zu].%s: timeDeltas given twice",
                                        r->n_events, cpu_where(r));
                r->deltas2_place = r->astate;
                pk_json_where(j, &r->deltas2_line, &r->deltas2_col);
                r->astate = A_DELTAS2;
            } else {
                r->have_deltas = 1;
                r->deltas_place = r->astate;
                pk_json_where(j, &r->deltas_line, &r->deltas_col);
                r->astate = A_DELTAS;
            }
            return 0;
        }
        if (is_start(ev))
            enter_generic(r, r->astate);
        return 0;
    case A_NODES:
        if (ev->type != PK_JSON_MAP_START)
            return pk_json_fail(j, PROFKIT_ECORRUPT,
                                "traceEvents[%zu].%s.nodes[%zu]: expected a node (an object), found %s",
                                r->n_events, cpu_where(r), r->n_nodes - r->node_mark,
                                pk_json_type_name(ev->type));
        if (r->n_nodes >= UINT32_MAX - 1 ||
            pk_grow((void **)&r->nodes, &r->cap_nodes, r->n_nodes + 1, sizeof(cnode)))
            return OOM();
        {
            cnode *n = &r->nodes[r->n_nodes++];
            memset(n, 0, sizeof *n);
            n->id = -1;
            n->parent = -1;
            n->line = n->col = -1;
            n->up = n->stack = PROFKIT_NONE;
            n->event = (uint32_t)(r->n_events > UINT32_MAX ? UINT32_MAX : r->n_events);
            pk_json_where(j, &n->at_line, &n->at_col);
        }
        r->astate = A_NODE;
        return 0;
    case A_NODE: {
        cnode *n = &r->nodes[r->n_nodes - 1];
        if (key == AK_ID || key == AK_PARENT) {
            if (node_int(r, j, ev, key == AK_ID ? "id" : "parent", &v))
                return PROFKIT_ECORRUPT;
            if (v < 0)
                return pk_json_fail(j, PROFKIT_ECORRUPT,
                                    "traceEvents[%zu].args.data.cpuProfile.nodes[%zu].%s: expected a node id (0 or more), found %lld",
                                    r->n_events, r->n_nodes - r->node_mark - 1,
                                    key == AK_ID ? "id" : "parent", (long long)v);
            if (key == AK_ID)
                n->id = v;
            else
                n->parent = v;
            return 0;
        }
        if (key == AK_OTHER + 6 && ev->type == PK_JSON_MAP_START) {
            r->astate = A_CF;
            return 0;
        }
        if (key == AK_OTHER + 7 && ev->type == PK_JSON_ARRAY_START) {
            r->astate = A_CHILDREN;
            return 0;
        }
        if (is_start(ev))
            enter_generic(r, A_NODE);
        return 0;
    }
    case A_CHILDREN: {
        if (node_int(r, j, ev, "children", &v))
            return PROFKIT_ECORRUPT;
        if (pk_grow((void **)&r->links, &r->cap_links, r->n_links + 1, sizeof(clink)))
            return OOM();
        clink *l = &r->links[r->n_links++];
        l->profile = PROFKIT_NONE; /* set when the event ends */
        l->parent = r->nodes[r->n_nodes - 1].id; /* the id may come after: fixed at the end */
        l->child = v;
        l->event = (uint32_t)(r->n_events > UINT32_MAX ? UINT32_MAX : r->n_events);
        pk_json_where(j, &l->line, &l->col);
        /* remember the node by its index until the event ends */
        l->parent = -(int64_t)(r->n_nodes - 1) - 2;
        return 0;
    }
    case A_CF: {
        cnode *n = &r->nodes[r->n_nodes - 1];
        if (key == AK_FNAME || key == AK_URL) {
            if (ev->type != PK_JSON_STRING)
                return pk_json_fail(j, PROFKIT_ECORRUPT,
                                    "traceEvents[%zu].args.data.cpuProfile.nodes[%zu].callFrame.%s: expected a string, found %s",
                                    r->n_events, r->n_nodes - r->node_mark - 1,
                                    key == AK_FNAME ? "functionName" : "url", pk_json_type_name(ev->type));
            uint32_t s = profkit_string_intern(r->p, ev->str, ev->len);
            if (s == PROFKIT_NONE)
                return OOM();
            if (key == AK_FNAME)
                n->name = s;
            else
                n->url = s;
            return 0;
        }
        if (key == AK_LINE || key == AK_COL) {
            if (!pk_json_as_int(ev, &v))
                return pk_json_fail(j, PROFKIT_ECORRUPT,
                                    "traceEvents[%zu].args.data.cpuProfile.nodes[%zu].callFrame.%s: expected an integer, found %s",
                                    r->n_events, r->n_nodes - r->node_mark - 1,
                                    key == AK_LINE ? "lineNumber" : "columnNumber",
                                    ev->type == PK_JSON_NUMBER ? "a fraction or huge number" : pk_json_type_name(ev->type));
            if (v < 0 || v >= UINT32_MAX - 1)
                v = -1; /* V8 writes -1 for "no position" */
            if (key == AK_LINE)
                n->line = v;
            else
                n->col = v;
            return 0;
        }
        if (is_start(ev))
            enter_generic(r, A_CF);
        return 0;
    }
    case A_SAMPLES:
        if (!pk_json_as_int(ev, &v))
            return pk_json_fail(j, PROFKIT_ECORRUPT,
                                "traceEvents[%zu].%s.samples[%zu]: expected a node id (an integer), found %s",
                                r->n_events, cpu_where(r), r->chunk_samples,
                                ev->type == PK_JSON_NUMBER ? "a fraction or huge number" : pk_json_type_name(ev->type));
        if (r->chunk_samples < r->n_samples - r->sample_mark) {
            r->samples[r->sample_mark + r->chunk_samples++].node = v;
            return 0;
        }
        if (pk_grow((void **)&r->samples, &r->cap_samples, r->n_samples + 1, sizeof(csample)))
            return OOM();
        r->samples[r->n_samples].node = v;
        r->samples[r->n_samples].delta = 0;
        r->n_samples++;
        r->chunk_samples++;
        return 0;
    case A_DELTAS2: {
        if (ev->type != PK_JSON_NUMBER)
            return pk_json_fail(j, PROFKIT_ECORRUPT,
                                "traceEvents[%zu].%s.timeDeltas[%zu]: expected a number (microseconds), found %s",
                                r->n_events, cpu_where(r), r->deltas2.len / sizeof(double),
                                pk_json_type_name(ev->type));
        double d = pk_json_num(ev);
        if (!isfinite(d))
            d = 0;
        pk_buf_put(&r->deltas2, &d, sizeof d);
        if (pk_buf_error(&r->deltas2))
            return OOM();
        return 0;
    }
    case A_DELTAS: {
        if (ev->type != PK_JSON_NUMBER)
            return pk_json_fail(j, PROFKIT_ECORRUPT,
                                "traceEvents[%zu].%s.timeDeltas[%zu]: expected a number (microseconds), found %s",
                                r->n_events, cpu_where(r), r->delta_count, pk_json_type_name(ev->type));
        double d = pk_json_num(ev);
        if (!isfinite(d))
            d = 0;
        if (r->delta_count < r->n_samples - r->sample_mark) {
            r->samples[r->sample_mark + r->delta_count++].delta = d;
            return 0;
        }
        if (pk_grow((void **)&r->samples, &r->cap_samples, r->n_samples + 1, sizeof(csample)))
            return OOM();
        r->samples[r->n_samples].node = -1;
        r->samples[r->n_samples].delta = d;
        r->n_samples++;
        r->delta_count++;
        return 0;
    }
    default:
        return 0;
    }
}

/* ---- one event ---- */

static void begin_event(creader *r, pk_json *j)
{
    r->ev_name = r->ev_cat = r->ev_id = 0;
    r->ph = 0;
    r->ph_len = 0;
    r->have_ts = r->have_dur = r->have_pid = r->have_tid = r->have_id = 0;
    r->pid = r->tid = -1;
    r->have_arg_name = r->have_arg_labels = 0;
    r->arg_name = 0;
    r->arg_keys = 0;
    r->arg_data = 0;
    r->node_mark = r->n_nodes;
    r->link_mark = r->n_links;
    r->sample_mark = r->n_samples;
    r->delta_count = r->chunk_samples = 0;
    r->have_nodes = r->have_samples = r->have_deltas = 0;
    r->deltas_place = r->deltas2_place = 0;
    pk_buf_clear(&r->deltas2);
    r->have_d_start = r->have_d_end = 0;
    pk_buf_clear(&r->args);
    pk_buf_clear(&r->cstage);
    pk_json_where(j, &r->ev_line, &r->ev_col);
}

/* Drops what the args held for a profile (the event is no profile event). */
static void drop_profile_parts(creader *r)
{
    r->n_nodes = r->node_mark;
    r->n_links = r->link_mark;
    r->n_samples = r->sample_mark;
}

/*
 * An event with timeDeltas at both places: a ProfileChunk's are those of
 * args.data, a CpuProfile's those of args.data.cpuProfile (where each
 * kind keeps them, and the Firefox Profiler's importer reads them); the
 * other list is left out (counted, and whether it differed, for one
 * warning at the end). Puts the list to use in the samples' deltas.
 */
static int use_deltas2(creader *r, int kind)
{
    int want = kind == 2 ? A_CPU : A_DATA;
    size_t n2 = r->deltas2.len / sizeof(double);
    const double *d2 = (const double *)(const void *)r->deltas2.buf;
    int differ = n2 != r->delta_count;
    for (size_t i = 0; i < n2 && !differ; i++)
        differ = r->samples[r->sample_mark + i].delta != d2[i];
    r->both_deltas++;
    r->both_deltas_differ += differ != 0;
    if (r->deltas_place == want || r->deltas2_place != want || !differ)
        return 0;
    /* the aside list is the one to use: it replaces the first */
    size_t have = r->n_samples - r->sample_mark;
    if (n2 > have) {
        if (pk_grow((void **)&r->samples, &r->cap_samples, r->sample_mark + n2, sizeof(csample)))
            return PROFKIT_ENOMEM;
        for (size_t i = have; i < n2; i++) {
            r->samples[r->sample_mark + i].node = -1;
            r->samples[r->sample_mark + i].delta = 0;
        }
        r->n_samples = r->sample_mark + n2;
        have = n2;
    }
    /* slots past the chunk's own samples and the new list are dropped */
    size_t keep = r->chunk_samples > n2 ? r->chunk_samples : n2;
    r->n_samples = r->sample_mark + keep;
    for (size_t i = 0; i < keep; i++)
        r->samples[r->sample_mark + i].delta = i < n2 ? d2[i] : 0;
    r->delta_count = n2;
    r->deltas_line = r->deltas2_line;
    r->deltas_col = r->deltas2_col;
    return 0;
}

static int end_profile_event(creader *r, pk_json *j, int kind)
{
    /* kind: 0 Profile, 1 ProfileChunk, 2 CpuProfile */
    if (kind == 1 && !r->have_id) {
        drop_profile_parts(r);
        return pk_json_warn(j, PROFKIT_ECORRUPT,
                            "traceEvents[%zu]: a ProfileChunk without an \"id\": its samples are left out",
                            r->n_events);
    }
    uint32_t pi = kind == 2 ? profile_new(r, r->pid) : profile_of(r, r->pid, r->ev_id);
    if (pi == PROFKIT_NONE)
        return OOM();
    cprofile *q = &r->profiles[pi];
    if (kind != 1) {
        uint32_t t = thread_of(r, r->pid, r->tid);
        if (t == PROFKIT_NONE)
            return OOM();
        q->thread = t;
        q->have_profile = 1;
        q->cpu = kind == 2;
        q->seq = r->n_events;
    } else if (!q->have_profile) {
        q->chunk_tid = r->tid; /* until its Profile event says */
    }
    if (r->have_d_start && (kind != 1 || !q->have_start)) {
        q->start = r->d_start;
        q->have_start = 1;
    }
    if (r->have_d_end) {
        /* a chunk whose own startTime is not its profile's (a clock of
         * its own, as rspack's traces have): its endTime on that clock */
        double e = r->d_end;
        if (kind == 1 && r->have_d_start && q->have_start && r->d_start != q->start)
            e = q->start + (r->d_end - r->d_start);
        q->end = e;
        q->have_end = 1;
    }
    if (r->deltas2_place && use_deltas2(r, kind) != 0)
        return OOM();
    if (r->chunk_samples != r->delta_count)
        return pk_read_fail_pos(r->ctx, PROFKIT_ECORRUPT, r->have_deltas ? r->deltas_line : r->samples_line,
                                r->have_deltas ? r->deltas_col : r->samples_col,
                                "traceEvents[%zu]: timeDeltas: expected one delta per sample (%zu), found %zu",
                                r->n_events, r->chunk_samples, r->delta_count);
    for (size_t i = r->sample_mark; i < r->n_samples; i++)
        r->samples[i].profile = pi;
    for (size_t i = r->node_mark; i < r->n_nodes; i++) {
        cnode *n = &r->nodes[i];
        n->profile = pi;
        if (n->id < 0)
            return pk_read_fail_pos(r->ctx, PROFKIT_ECORRUPT, n->at_line, n->at_col,
                                    "traceEvents[%u].args.data.cpuProfile.nodes[%zu]: expected an \"id\"",
                                    n->event, i - r->node_mark);
        if (find_node(r, pi, n->id) != PROFKIT_NONE)
            return pk_read_fail_pos(r->ctx, PROFKIT_ECORRUPT, n->at_line, n->at_col,
                                    "traceEvents[%u].args.data.cpuProfile.nodes[%zu]: id %lld appears twice in one profile",
                                    n->event, i - r->node_mark, (long long)n->id);
        if (pk_idset_insert(&r->node_set, thread_hash((int64_t)pi, n->id), (uint32_t)i))
            return OOM();
    }
    for (size_t i = r->link_mark; i < r->n_links; i++) {
        clink *l = &r->links[i];
        l->profile = pi;
        l->parent = r->nodes[(size_t)(-(l->parent + 2))].id;
    }
    return 0;
}

/* A counter (`C`) event: a cpoint per numeric arg, the series named by
 * the event's name, and by "NAME KEY" where the key is neither the name
 * nor "value" (Chrome draws one track per name and id, a series per key). */
static int counter_event(creader *r, pk_json *j)
{
    const char *name = pk_str(r->p, r->ev_name);
    size_t name_len = strlen(name);
    for (size_t at = 0; at + sizeof(uint32_t) <= r->cstage.len;) {
        uint32_t n;
        double v;
        memcpy(&n, r->cstage.buf + at, sizeof n);
        const char *key = r->cstage.buf + at + sizeof n;
        memcpy(&v, key + n, sizeof v);
        at += sizeof n + n + sizeof v;
        uint32_t series = r->ev_name;
        if (!(n == name_len && memcmp(key, name, n) == 0) && !(n == 5 && memcmp(key, "value", 5) == 0)) {
            pk_buf full;
            pk_buf_init(&full, 0);
            pk_buf_put(&full, name, name_len);
            pk_buf_putc(&full, ' ');
            pk_buf_put(&full, key, n);
            series = pk_buf_error(&full) ? PROFKIT_NONE : profkit_string_intern(r->p, full.buf, full.len);
            pk_buf_free(&full);
            if (series == PROFKIT_NONE)
                return OOM();
        }
        if (!isfinite(v))
            continue;
        if (pk_grow((void **)&r->cpoints, &r->cap_cpoints, r->n_cpoints + 1, sizeof(cpoint)))
            return OOM();
        cpoint *c = &r->cpoints[r->n_cpoints];
        c->pid = r->pid;
        c->tid = r->tid;
        c->name = series;
        c->cat = r->ev_cat;
        c->id = r->have_id ? r->ev_id : 0;
        c->seq = r->n_cpoints++;
        c->ts = r->ts;
        c->value = v;
    }
    return 0;
}

/* A marker's payload: args.data when it is args' only key and an object
 * (as Chrome's own events and profkit's writer carry it; the Firefox
 * Profiler reads the same), else the whole args; "{}" and an args.data
 * null carry nothing, an args.data "{}" is the payload `{}`. In a trace
 * profkit wrote (its `profkit` producer event first), args.data "{}" is
 * its form for no payload and `{"data":{},"empty":true}` its form for the
 * payload `{}` (the writer gives every marker an args.data). The args'
 * text is compact JSON, so args.data's text is args' between `{"data":`
 * and the closing brace. */
static int marker_payload(creader *r, pk_json *j, profkit_marker *m)
{
    const char *s = r->args.buf;
    size_t len = r->args.len;
    static const char head[] = "{\"data\":";
    static const char empty[] = "{\"data\":{},\"empty\":true}";
    if (r->arg_keys == 1 && r->arg_data && len > sizeof head && memcmp(s, head, sizeof head - 1) == 0 &&
        s[len - 1] == '}' && (s[sizeof head - 1] == '{' || s[sizeof head - 1] == 'n')) {
        s += sizeof head - 1;
        len -= sizeof head; /* the head and the closing brace */
        if ((len == 4 && memcmp(s, "null", 4) == 0) || (r->by_profkit && len == 2 && memcmp(s, "{}", 2) == 0))
            return 0;
    } else if (r->by_profkit && len == sizeof empty - 1 && memcmp(s, empty, len) == 0) {
        s = "{}";
        len = 2;
    } else if (len <= 2) { /* "{}" carries nothing */
        return 0;
    }
    m->payload = profkit_string_intern(r->p, s, len);
    return m->payload == PROFKIT_NONE ? OOM() : 0;
}

static int end_event(creader *r, pk_json *j)
{
    int rc = 0;
    if (pk_buf_error(&r->args))
        return OOM();
    const char *name = pk_str(r->p, r->ev_name);
    int kind = -1;
    if (strcmp(name, "Profile") == 0)
        kind = 0;
    else if (strcmp(name, "ProfileChunk") == 0)
        kind = 1;
    else if (strcmp(name, "CpuProfile") == 0)
        kind = 2;
    if (!r->tsib_seen && strcmp(name, "TracingStartedInBrowser") == 0) {
        r->tsib_seen = 1;
        r->tsib_ok = r->have_ts;
        r->tsib_ts = r->ts;
    }
    if (kind >= 0) {
        rc = end_profile_event(r, j, kind);
    } else {
        drop_profile_parts(r);
        if (r->ph == 'M') {
            static const char producer[] = "{\"producer\":\"profkit ";
            if (r->n_events == 0 && strcmp(name, "profkit") == 0 && r->args.len > sizeof producer - 1 &&
                memcmp(r->args.buf, producer, sizeof producer - 1) == 0)
                r->by_profkit = 1;
            int th = strcmp(name, "thread_name") == 0, pr = strcmp(name, "process_name") == 0;
            int lb = strcmp(name, "process_labels") == 0;
            if (((th || pr) && r->have_arg_name) || (lb && r->have_arg_labels)) {
                if (pk_grow((void **)&r->names, &r->cap_names, r->n_names + 1, sizeof(cname)))
                    return OOM();
                cname *c = &r->names[r->n_names++];
                c->pid = r->pid;
                c->tid = th ? r->tid : lb ? NAME_LABELS : NAME_PROCESS;
                c->name = lb ? r->arg_labels : r->arg_name;
            }
        } else if (r->ph == 'C' && r->ph_len == 1 && r->have_ts) {
            if ((rc = counter_event(r, j)) != 0)
                return rc;
        } else if (r->ph_len == 1 && strchr("XBEbeiInR", r->ph) && r->have_ts) {
            if (r->ph == 'X' && !r->have_dur) {
                r->no_dur++;
                r->n_events++;
                return 0;
            }
            uint32_t t = thread_of(r, r->pid, r->tid);
            if (t == PROFKIT_NONE ||
                pk_grow((void **)&r->markers, &r->cap_markers, r->n_markers + 1, sizeof(profkit_marker)))
                return OOM();
            profkit_marker m;
            memset(&m, 0, sizeof m);
            m.thread = t;
            m.name = r->ev_name;
            m.category = r->ev_cat;
            m.start = m.end = PROFKIT_NO_TIME;
            int64_t ts = us_to_ns(r->ts);
            switch (r->ph) {
            case 'X':
                m.phase = PROFKIT_MARKER_INTERVAL;
                m.start = ts;
                /* a negative dur ends it before its start, as the
                 * Firefox Profiler reads it (its start plus dur) */
                m.end = us_to_ns(r->ts + r->dur);
                break;
            case 'B':
            case 'b':
                m.phase = PROFKIT_MARKER_START;
                m.start = ts;
                break;
            case 'E':
            case 'e':
                m.phase = PROFKIT_MARKER_END;
                m.end = ts;
                break;
            default:
                m.phase = PROFKIT_MARKER_INSTANT;
                m.start = ts;
                break;
            }
            if ((rc = marker_payload(r, j, &m)) != 0)
                return rc;
            r->markers[r->n_markers++] = m;
        }
    }
    r->n_events++;
    return rc;
}

static int event_key(const pk_json_event *ev)
{
    switch (ev->len) {
    case 2:
        return pk_json_key_is(ev, "ph") ? K_PH : pk_json_key_is(ev, "ts") ? K_TS : pk_json_key_is(ev, "id") ? K_ID : K_OTHER;
    case 3:
        return pk_json_key_is(ev, "cat")   ? K_CAT
               : pk_json_key_is(ev, "pid") ? K_PID
               : pk_json_key_is(ev, "tid") ? K_TID
               : pk_json_key_is(ev, "dur") ? K_DUR
                                           : K_OTHER;
    case 4: return pk_json_key_is(ev, "name") ? K_NAME : pk_json_key_is(ev, "args") ? K_OTHER + 1 : K_OTHER;
    default: return K_OTHER;
    }
}

static int on_event(pk_json *j, void *payload, const pk_json_event *ev)
{
    creader *r = payload;
    switch (r->state) {
    case S_DOC:
        if (ev->type == PK_JSON_MAP_START) {
            r->state = S_TOP;
            return 0;
        }
        if (ev->type == PK_JSON_ARRAY_START) {
            r->bare = 1;
            r->have_trace_events = 1;
            r->state = S_EVENTS;
            return 0;
        }
        return pk_json_fail(j, PROFKIT_EFORMAT,
                            "the document: expected an object or an array of trace events, found %s",
                            pk_json_type_name(ev->type));
    case S_TOP:
        if (ev->type == PK_JSON_MAP_END) {
            r->state = S_END;
            return 0;
        }
        if (ev->type == PK_JSON_KEY) {
            r->key = pk_json_key_is(ev, "traceEvents") ? K_OTHER + 1 : K_OTHER;
            return 0;
        }
        if (r->key == K_OTHER + 1) {
            if (ev->type != PK_JSON_ARRAY_START)
                return pk_json_fail(j, PROFKIT_ECORRUPT, "traceEvents: expected an array, found %s",
                                    pk_json_type_name(ev->type));
            r->state = S_EVENTS;
            r->have_trace_events = 1;
            return 0;
        }
        if (is_start(ev))
            pk_json_skip_value(j);
        return 0;
    case S_EVENTS:
        if (ev->type == PK_JSON_ARRAY_END) {
            r->state = r->bare ? S_END : S_TOP;
            r->key = K_NONE;
            return 0;
        }
        if (ev->type != PK_JSON_MAP_START)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "traceEvents[%zu]: expected an event (an object), found %s",
                                r->n_events, pk_json_type_name(ev->type));
        begin_event(r, j);
        r->state = S_EVENT;
        r->key = K_NONE;
        return 0;
    case S_EVENT: {
        if (ev->type == PK_JSON_MAP_END) {
            r->state = S_EVENTS;
            return end_event(r, j);
        }
        if (ev->type == PK_JSON_KEY) {
            r->key = event_key(ev);
            return 0;
        }
        int key = r->key;
        r->key = K_NONE;
        switch (key) {
        case K_NAME:
        case K_CAT: {
            if (ev->type != PK_JSON_STRING) {
                if (ev->type == PK_JSON_NULL)
                    return 0;
                return pk_json_fail(j, PROFKIT_ECORRUPT, "traceEvents[%zu].%s: expected a string, found %s",
                                    r->n_events, key == K_NAME ? "name" : "cat", pk_json_type_name(ev->type));
            }
            uint32_t s = profkit_string_intern(r->p, ev->str, ev->len);
            if (s == PROFKIT_NONE)
                return OOM();
            if (key == K_NAME)
                r->ev_name = s;
            else
                r->ev_cat = s;
            return 0;
        }
        case K_PH:
            if (ev->type != PK_JSON_STRING)
                return pk_json_fail(j, PROFKIT_ECORRUPT, "traceEvents[%zu].ph: expected a string (the phase), found %s",
                                    r->n_events, pk_json_type_name(ev->type));
            r->ph = ev->len ? ev->str[0] : 0;
            r->ph_len = (int)(ev->len > 2 ? 2 : ev->len);
            return 0;
        case K_PID:
        case K_TID:
            if (is_start(ev))
                return pk_json_fail(j, PROFKIT_ECORRUPT, "traceEvents[%zu].%s: expected a number, found %s",
                                    r->n_events, key == K_PID ? "pid" : "tid", pk_json_type_name(ev->type));
            if (key == K_PID)
                r->pid = id_value(ev);
            else
                r->tid = id_value(ev);
            return 0;
        case K_TS:
        case K_DUR:
            if (ev->type == PK_JSON_NUMBER) {
                double d = pk_json_num(ev);
                if (!isfinite(d))
                    return 0;
                if (key == K_TS) {
                    r->ts = d;
                    r->have_ts = 1;
                } else {
                    r->dur = d;
                    r->have_dur = 1;
                }
                return 0;
            }
            if (is_start(ev))
                return pk_json_fail(j, PROFKIT_ECORRUPT, "traceEvents[%zu].%s: expected a number (microseconds), found %s",
                                    r->n_events, key == K_TS ? "ts" : "dur", pk_json_type_name(ev->type));
            return 0;
        case K_ID:
            if (ev->type == PK_JSON_STRING || ev->type == PK_JSON_NUMBER) {
                uint32_t s = profkit_string_intern(r->p, ev->str, ev->len);
                if (s == PROFKIT_NONE)
                    return OOM();
                r->ev_id = s;
                r->have_id = 1;
            } else if (is_start(ev)) {
                pk_json_skip_value(j);
            }
            return 0;
        case K_OTHER + 1: /* args */
            r->capture = !(r->ev_name && (is_profile_name(r, r->ev_name, "ProfileChunk") ||
                                          is_profile_name(r, r->ev_name, "Profile")));
            if (ev->type != PK_JSON_MAP_START) {
                if (is_start(ev))
                    pk_json_skip_value(j);
                return 0;
            }
            if (r->capture)
                pk_json_text_event(&r->args, ev);
            r->astate = A_ARGS;
            r->akey = AK_NONE;
            r->state = S_ARGS;
            return 0;
        default:
            if (is_start(ev))
                pk_json_skip_value(j);
            return 0;
        }
    }
    case S_ARGS:
        if (r->capture)
            pk_json_text_event(&r->args, ev);
        return on_arg(r, j, ev);
    case S_END:
    default:
        return 0;
    }
}

/* ---- building the profile ---- */

/* Links each node to its parent node (parent ids, then children lists). */
static int link_nodes(creader *r)
{
    for (size_t i = 0; i < r->n_nodes; i++) {
        cnode *n = &r->nodes[i];
        if (n->parent < 0)
            continue;
        uint32_t k = find_node(r, n->profile, n->parent);
        if (k == PROFKIT_NONE) {
            /* a chunk Chrome left out of the trace held it: the node is
             * kept under a frame that says so */
            n->missing = 1;
            r->missing_parents++;
            continue;
        }
        if (k == i)
            return pk_read_fail_pos(r->ctx, PROFKIT_ECORRUPT, n->at_line, n->at_col,
                                    "traceEvents[%u]: node %lld: names itself as its parent",
                                    n->event, (long long)n->id);
        n->up = k;
    }
    for (size_t i = 0; i < r->n_links; i++) {
        const clink *l = &r->links[i];
        uint32_t c = find_node(r, l->profile, l->child);
        uint32_t pa = find_node(r, l->profile, l->parent);
        if (c == PROFKIT_NONE) {
            /* Chrome lists children it left out of the nodes (real
             * traces have them): the id links nothing */
            r->dangling++;
            continue;
        }
        if (r->nodes[c].up == PROFKIT_NONE && c != pa)
            r->nodes[c].up = pa;
        else if (r->nodes[c].up != pa)
            return pk_read_fail_pos(r->ctx, PROFKIT_ECORRUPT, l->line, l->col,
                                    "traceEvents[%u]: node %lld.children: node %lld already has another parent: the links must form a tree",
                                    l->event, (long long)l->parent, (long long)l->child);
    }
    return 0;
}

/* The model stack of node i, its ancestors built first (iteratively). */
/* The stack of one frame "(missing node ID)" at the root: where the
 * nodes and samples that name a node the trace lacks go. */
static uint32_t missing_stack(profkit_profile *p, int64_t id)
{
    char name[48];
    int len = snprintf(name, sizeof name, "(missing node %lld)", (long long)id);
    uint32_t nm = profkit_string_intern(p, name, (size_t)len);
    if (nm == PROFKIT_NONE)
        return PROFKIT_NONE;
    uint32_t frame = pk_v8_callframe_frame(p, nm, 0, -1, -1);
    return frame == PROFKIT_NONE ? PROFKIT_NONE : pk_stack_intern(p, 0, frame);
}

static int build_stack(creader *r, uint32_t i, uint32_t *chain)
{
    profkit_profile *p = r->p;
    size_t depth = 0;
    uint32_t k = i;
    while (k != PROFKIT_NONE && r->nodes[k].stack == PROFKIT_NONE) {
        if (depth > r->n_nodes)
            return 1;
        chain[depth++] = k;
        k = r->nodes[k].up;
    }
    uint32_t s = k == PROFKIT_NONE ? 0 : r->nodes[k].stack;
    if (k == PROFKIT_NONE && depth > 0 && r->nodes[chain[depth - 1]].missing &&
        (s = missing_stack(p, r->nodes[chain[depth - 1]].parent)) == PROFKIT_NONE)
        return -1;
    while (depth > 0) {
        cnode *n = &r->nodes[chain[--depth]];
        if (n->up == PROFKIT_NONE && pk_v8_is_root(p, n->name)) {
            n->stack = 0;
            continue;
        }
        uint32_t frame = pk_v8_callframe_frame(p, n->name, n->url, n->line, n->col);
        if (frame == PROFKIT_NONE || (s = pk_stack_intern(p, s, frame)) == PROFKIT_NONE)
            return -1;
        n->stack = s;
    }
    return 0;
}

typedef struct gkey {
    int64_t pid;
    uint32_t name, id;
} gkey;

typedef struct gctx {
    const cpoint *points;
    const size_t *firsts; /* per group: its first point */
} gctx;

static int group_eq(const void *c, uint32_t g, const void *key)
{
    const gctx *x = c;
    const cpoint *first = &x->points[x->firsts[g]];
    const gkey *k = key;
    return first->pid == k->pid && first->name == k->name && first->id == k->id;
}

static int cpoint_cmp(const void *a, const void *b)
{
    const cpoint *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A value as an integer count, rounded and clamped. */
static int64_t value_int(double v)
{
    if (v >= 9.2e18)
        return INT64_MAX;
    if (v <= -9.2e18)
        return -INT64_MAX;
    return (int64_t)llround(v);
}

/* The counters of the `C` events: one per (pid, series name, id) in the
 * order they first appear, of the thread of its first event's pid and tid
 * where samples or markers made that thread (a counter makes no thread);
 * its samples in time order, each count the value less the
 * one before (the first: the value), so the running sum is the value. */
static int build_counters(creader *r, const uint32_t *tmap)
{
    if (!r->n_cpoints)
        return 0;
    pk_read_ctx *ctx = r->ctx;
    size_t *firsts = malloc(r->n_cpoints * sizeof(size_t));
    if (!firsts)
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    pk_idset groups;
    memset(&groups, 0, sizeof groups);
    gctx gc = { r->cpoints, firsts };
    size_t n_groups = 0;
    int rc = 0;
    for (size_t i = 0; i < r->n_cpoints && rc == 0; i++) {
        cpoint *c = &r->cpoints[i];
        gkey k = { c->pid, c->name, c->id };
        uint64_t h = pk_hash_u64((uint64_t)c->pid * 0x9e3779b97f4a7c15ull ^ ((uint64_t)c->name << 32 | c->id));
        uint32_t g = pk_idset_find(&groups, h, group_eq, &gc, &k);
        if (g == PROFKIT_NONE) {
            g = (uint32_t)n_groups;
            firsts[n_groups++] = i;
            if (pk_idset_insert(&groups, h, g))
                rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        }
        c->group = g;
    }
    pk_idset_free(&groups);
    if (rc == 0) {
        uint32_t *thread = malloc((n_groups + 1) * sizeof(uint32_t));
        if (!thread) {
            free(firsts);
            return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        }
        for (size_t g = 0; g < n_groups; g++) {
            const cpoint *c = &r->cpoints[firsts[g]];
            tkey k = { c->pid, c->tid };
            thread[g] = pk_idset_find(&r->thread_set, thread_hash(c->pid, c->tid), thread_eq, r->threads, &k);
        }
        qsort(r->cpoints, r->n_cpoints, sizeof(cpoint), cpoint_cmp);
        int64_t prev = 0;
        for (size_t i = 0; i < r->n_cpoints && rc == 0; i++) {
            const cpoint *c = &r->cpoints[i];
            if (i == 0 || c->group != r->cpoints[i - 1].group) {
                profkit_counter pc;
                memset(&pc, 0, sizeof pc);
                pc.name = c->name;
                pc.category = c->cat;
                pc.thread = thread[c->group] == PROFKIT_NONE ? PROFKIT_NONE : tmap[thread[c->group]];
                pc.pid = c->pid;
                if (profkit_counter_add(r->p, &pc) == PROFKIT_NONE) {
                    rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
                    break;
                }
                prev = 0;
            }
            int64_t v = value_int(c->value), count;
            if (__builtin_sub_overflow(v, prev, &count))
                count = v < prev ? -INT64_MAX : INT64_MAX;
            prev = v;
            if (profkit_counter_sample_add(r->p, us_to_ns(c->ts), count, 0))
                rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        }
        free(thread);
    }
    free(firsts);
    return rc;
}

/* A profile in the order the Firefox Profiler's importer takes them: the
 * Profile events in trace order, then the CpuProfile events. */
typedef struct pseq {
    int cpu;
    size_t seq;
    uint32_t q;
} pseq;

static int seq_cmp(const void *a, const void *b)
{
    const pseq *x = a, *y = b;
    if (x->cpu != y->cpu)
        return x->cpu - y->cpu;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * The root range the Firefox Profiler gives the trace (ms, in *start and
 * *end; 0 when it has none), with its Chrome importer's arithmetic (doubles,
 * ms, docs/formats/chrome.md "Time range"):
 *   - a CpuProfile event's startTime .. endTime (the last one's);
 *   - else each thread (pid, tid) ends at its last kept sample plus the
 *     0.5 ms interval, where a sample is kept when it is 0.5 ms or more
 *     after the last kept one of its thread (the clock starting at 0 and
 *     each Profile's startTime); a thread without a kept sample ends at its
 *     latest marker time plus 0.5 ms (an `E`'s end, an `X`'s start and
 *     end, others' start) and starts at its earliest;
 *   - the first TracingStartedInBrowser event's ts, when it has one, is the
 *     start and the sampled threads' latest end the end (threads without
 *     kept samples do not count there; with none sampled, all threads);
 *     else the range is the union of the threads' ranges (a sampled thread
 *     from its first kept sample).
 * Profiles without their Profile event are not the loader's (it finds
 * chunks from Profile events). Called before the deltas are reused.
 * kept_lo[t] .. kept_hi[t] (nt entries, or NULL) is then each thread's
 * range in the loader when it has a kept sample (its first kept sample to
 * its last plus 0.5 ms), else NAN: where it ends a start never ended and
 * starts an end without a start.
 */
static int loader_range(creader *r, double *start, double *end, double *kept_lo, double *kept_hi)
{
    const double iv = 0.5;
    for (size_t q = r->n_profiles; q-- > 0;)
        if (r->profiles[q].cpu) {
            const cprofile *c = &r->profiles[q];
            if (c->have_start && c->have_end && c->end != 0) {
                *start = c->start / 1000;
                *end = c->end / 1000;
                return 1;
            }
            break;
        }
    size_t np = r->n_profiles, nt = r->n_threads;
    pseq *order = malloc((np + 1) * sizeof *order);
    size_t *first = calloc(np + 2, sizeof *first);
    size_t *by_profile = malloc((r->n_samples + 1) * sizeof *by_profile);
    double *t_lo = malloc((nt + 1) * sizeof *t_lo), *t_hi = malloc((nt + 1) * sizeof *t_hi);
    double *sampled = malloc((nt + 1) * sizeof *sampled);
    int ok = -1;
    if (!order || !first || !by_profile || !t_lo || !t_hi || !sampled)
        goto done;
    for (size_t i = 0; i < r->n_samples; i++)
        first[r->samples[i].profile + 1]++;
    for (size_t q = 0; q < np; q++)
        first[q + 1] += first[q];
    for (size_t i = 0; i < r->n_samples; i++)
        by_profile[first[r->samples[i].profile]++] = i;
    for (size_t q = np; q > 0; q--) /* back to the starts */
        first[q] = first[q - 1];
    first[0] = 0;
    size_t n_order = 0;
    for (size_t q = 0; q < np; q++)
        if (r->profiles[q].have_profile)
            order[n_order++] = (pseq){ r->profiles[q].cpu, r->profiles[q].seq, (uint32_t)q };
    qsort(order, n_order, sizeof *order, seq_cmp);
    for (size_t t = 0; t < nt; t++) {
        t_lo[t] = INFINITY;
        t_hi[t] = -INFINITY;
        sampled[t] = 0; /* the thread's last kept time */
    }
    int *has = calloc(nt + 1, sizeof *has);
    if (!has)
        goto done;
    for (size_t k = 0; k < n_order; k++) {
        uint32_t q = order[k].q;
        const cprofile *c = &r->profiles[q];
        uint32_t t = c->thread;
        if (t >= nt)
            continue;
        double seen = c->have_start ? c->start / 1000 : NAN;
        for (size_t i = first[q]; i < first[q + 1]; i++) {
            seen += r->samples[by_profile[i]].delta / 1000;
            if (seen - sampled[t] >= iv) {
                sampled[t] = seen;
                if (!has[t])
                    t_lo[t] = seen;
                has[t] = 1;
                t_hi[t] = seen + iv;
            }
        }
    }
    for (size_t i = 0; i < r->n_markers; i++) {
        const profkit_marker *m = &r->markers[i];
        if (m->thread >= nt || has[m->thread])
            continue;
        double a = (double)(m->start != PROFKIT_NO_TIME ? m->start : m->end) / 1e6;
        double b = (double)(m->end != PROFKIT_NO_TIME ? m->end : m->start) / 1e6;
        double lo = a < b ? a : b, hi = a > b ? a : b;
        if (lo < t_lo[m->thread])
            t_lo[m->thread] = lo;
        if (hi + iv > t_hi[m->thread])
            t_hi[m->thread] = hi + iv;
    }
    double lo = INFINITY, hi = -INFINITY, hi_sampled = -INFINITY;
    for (size_t t = 0; t < nt; t++) {
        if (t_lo[t] < lo)
            lo = t_lo[t];
        if (t_hi[t] > hi)
            hi = t_hi[t];
        if (has[t] && t_hi[t] > hi_sampled)
            hi_sampled = t_hi[t];
    }
    /* with TracingStartedInBrowser the end is the sampled threads' alone:
     * the loader's threads without samples add nothing to it (checked
     * against it: a marker-only thread's later markers leave its end at
     * the last kept sample plus 0.5 ms; without the event they count) */
    int tsib = r->tsib_seen && r->tsib_ok;
    if (tsib) {
        lo = r->tsib_ts / 1000;
        if (isfinite(hi_sampled))
            hi = hi_sampled;
    }
    /* The loader works the threads' ranges out for that end while they
     * hold their samples but not yet their markers, and keeps them: with
     * the event, a thread without a kept sample has no range (INFINITY ..
     * -INFINITY), so a start never ended on it ends where it starts and an
     * end without a start starts where it ends (checked against it) */
    for (size_t t = 0; kept_lo && t < nt; t++) {
        kept_lo[t] = has[t] ? t_lo[t] : tsib && isfinite(hi_sampled) ? INFINITY : NAN;
        kept_hi[t] = has[t] ? t_hi[t] : tsib && isfinite(hi_sampled) ? -INFINITY : NAN;
    }
    free(has);
    ok = isfinite(lo) && isfinite(hi) && hi > lo;
    if (ok) {
        *start = lo;
        *end = hi;
    }
done:
    free(order);
    free(first);
    free(by_profile);
    free(t_lo);
    free(t_hi);
    free(sampled);
    return ok;
}

/* Metadata KEY: a time in ms, to the ns. */
static int put_meta_ms(profkit_profile *p, const char *key, double ms)
{
    char v[64];
    snprintf(v, sizeof v, "%.6f", ms);
    return pk_meta_add(p, key, v);
}

static int finish(creader *r, int truncated)
{
    profkit_profile *p = r->p;
    pk_read_ctx *ctx = r->ctx;
    int rc = 0;
    uint32_t *chain = NULL, *tmap = NULL;
    int64_t *times = NULL, *wall = NULL;
    double *now = NULL;

    if (!r->have_trace_events)
        return pk_read_fail(ctx, PROFKIT_EFORMAT, -1,
                            "expected the key \"traceEvents\" of a Chrome trace (or an array of trace events)");
    for (size_t q = 0; q < r->n_profiles; q++) {
        cprofile *c = &r->profiles[q];
        if (c->thread != PROFKIT_NONE)
            continue;
        r->orphan_chunks++;
        if ((c->thread = thread_of(r, c->pid, c->chunk_tid)) == PROFKIT_NONE)
            return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    }
    if ((rc = link_nodes(r)) != 0)
        goto out;
    chain = malloc((r->n_nodes + 2) * sizeof(uint32_t));
    tmap = malloc((r->n_threads + 1) * sizeof(uint32_t));
    times = malloc((r->n_samples + 1) * sizeof(int64_t));
    wall = malloc((r->n_profiles + 1) * sizeof(int64_t));
    now = malloc((r->n_profiles + 1) * sizeof(double));
    if (!chain || !tmap || !times || !wall || !now) {
        rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < r->n_nodes; i++) {
        int b = build_stack(r, i, chain);
        if (b > 0) {
            rc = pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, r->nodes[i].at_line, r->nodes[i].at_col,
                                  "traceEvents[%u]: node %lld: the parent links form a cycle",
                                  r->nodes[i].event, (long long)r->nodes[i].id);
            goto out;
        }
        if (b < 0) {
            rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            goto out;
        }
    }
    /* the threads, in the order they first appear, named by the M events */
    for (size_t t = 0; t < r->n_threads; t++) {
        const cthread *c = &r->threads[t];
        uint32_t name = 0, process = 0, labels = 0;
        for (size_t i = 0; i < r->n_names; i++) {
            if (r->names[i].pid != c->pid)
                continue;
            if (r->names[i].tid == NAME_PROCESS)
                process = r->names[i].name;
            else if (r->names[i].tid == NAME_LABELS)
                labels = r->names[i].name;
            else if (r->names[i].tid == c->tid)
                name = r->names[i].name;
        }
        char fallback[48];
        const char *nm = pk_str(p, name);
        if (!name) {
            snprintf(fallback, sizeof fallback, "thread %lld", (long long)c->tid);
            nm = fallback;
        }
        /* a process's labels (a renderer's page title) follow its name,
         * as Chrome's own and the Firefox Profiler's views show them */
        pk_buf_clear(&r->ckey);
        if (labels && process)
            pk_buf_printf(&r->ckey, "%s (%s)", pk_str(p, process), pk_str(p, labels));
        else if (labels)
            pk_buf_printf(&r->ckey, "Process %lld (%s)", (long long)c->pid, pk_str(p, labels));
        else
            pk_buf_printf(&r->ckey, "%s", pk_str(p, process));
        pk_buf_put(&r->ckey, "", 1);
        if (pk_buf_error(&r->ckey)) {
            rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            goto out;
        }
        tmap[t] = pk_thread_add(p, nm, r->ckey.buf, c->pid, c->tid);
        if (tmap[t] == PROFKIT_NONE) {
            rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            goto out;
        }
    }
    uint32_t vs = pk_value_type_add(p, "samples", "count");
    uint32_t vw = pk_value_type_add(p, "wall", "microseconds");
    if (vs == PROFKIT_NONE || vw == PROFKIT_NONE) {
        rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        goto out;
    }
    p->default_value = vw;
    /* each sample's time: its profile's start plus the deltas so far */
    for (size_t q = 0; q < r->n_profiles; q++)
        now[q] = r->profiles[q].have_start ? r->profiles[q].start : 0;
    for (size_t i = 0; i < r->n_samples; i++) {
        csample *s = &r->samples[i];
        now[s->profile] += s->delta;
        times[i] = us_to_ns(now[s->profile]);
    }
    /* the loader's interval and root range, which --range, the markers
     * shown and the Firefox output then share with it */
    {
        double a = 0, b = 0;
        double *klo = malloc((r->n_threads + 1) * sizeof *klo), *khi = malloc((r->n_threads + 1) * sizeof *khi);
        for (size_t t = 0; klo && khi && t < r->n_threads; t++)
            klo[t] = khi[t] = NAN;
        int got = klo && khi ? loader_range(r, &a, &b, klo, khi) : -1;
        /* markerType "name": the importer gives every marker with data
         * the type of its name (a Network or CompositorScreenshot payload
         * is no request or screenshot there) */
        if (got < 0 || pk_meta_add(p, "interval", "0.5") || pk_meta_add(p, "markerType", "name") ||
            (got > 0 && fabs(a) < 9e12 && fabs(b) < 9e12 &&
             (put_meta_ms(p, "profilingStartTime", a) || put_meta_ms(p, "profilingEndTime", b)))) {
            free(klo);
            free(khi);
            rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            goto out;
        }
        /* each sampled thread's range in the loader, which holds only the
         * samples its 0.5 ms rule keeps: a start never ended runs to its
         * end (docs/formats/chrome.md, "Time range") */
        for (size_t t = 0; t < r->n_threads && rc == 0; t++) {
            int none = klo[t] == INFINITY && khi[t] == -INFINITY; /* no range: "inf -inf" */
            if (!none && (!isfinite(klo[t]) || !isfinite(khi[t]) || fabs(klo[t]) >= 9e12 || fabs(khi[t]) >= 9e12))
                continue;
            char v[160];
            if (none)
                snprintf(v, sizeof v, "%lld %lld inf -inf", (long long)r->threads[t].pid,
                         (long long)r->threads[t].tid);
            else
                snprintf(v, sizeof v, "%lld %lld %.6f %.6f", (long long)r->threads[t].pid,
                         (long long)r->threads[t].tid, klo[t], khi[t]);
            if (pk_meta_add(p, "threadRange", v))
                rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        }
        free(klo);
        free(khi);
        if (rc)
            goto out;
    }
    /* the wall time of a sample: the gap to the next of its profile; the
     * last one's runs to the profile's endTime */
    for (size_t q = 0; q < r->n_profiles; q++)
        wall[q] = r->profiles[q].have_end && !truncated ? us_to_ns(r->profiles[q].end) : PROFKIT_NO_TIME;
    for (size_t i = r->n_samples; i-- > 0;) {
        csample *s = &r->samples[i];
        int64_t next = wall[s->profile];
        wall[s->profile] = times[i];
        int64_t gap = next == PROFKIT_NO_TIME ? 0 : pk_sat_add(next, -times[i]);
        s->delta = gap > 0 ? (double)(gap / 1000) : 0; /* whole microseconds */
    }
    for (size_t i = 0; i < r->n_samples; i++) {
        csample *s = &r->samples[i];
        uint32_t k = find_node(r, s->profile, s->node), st;
        if (k != PROFKIT_NONE) {
            st = r->nodes[k].stack;
        } else {
            /* its node was in a chunk the trace lacks: kept, its time too */
            r->missing_samples++;
            if ((st = missing_stack(p, s->node)) == PROFKIT_NONE) {
                rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
                goto out;
            }
        }
        int64_t vals[2];
        vals[vs] = 1;
        vals[vw] = (int64_t)s->delta;
        if (pk_sample_add_timed(p, st, tmap[r->profiles[s->profile].thread], times[i], vals)) {
            rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            goto out;
        }
    }
    for (size_t i = 0; i < r->n_markers; i++) {
        profkit_marker m = r->markers[i];
        m.thread = tmap[m.thread];
        if (pk_marker_add(p, &m)) {
            rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            goto out;
        }
    }
    if ((rc = build_counters(r, tmap)) != 0)
        goto out;
    if (truncated) {
        profkit_error cut = *ctx->err;
        rc = pk_read_warn_pos(ctx, PROFKIT_ETRUNCATED, cut.line, cut.column,
                              "%s; kept the %zu events before the cut (%zu samples, %zu markers)",
                              cut.message, r->n_events, r->n_samples, r->n_markers);
        if (rc)
            goto out;
    }
    if (r->no_dur &&
        (rc = pk_read_warn(ctx, PROFKIT_ECORRUPT, -1,
                           "%zu complete (\"X\") event%s without a \"dur\" left out", r->no_dur,
                           r->no_dur == 1 ? "" : "s")) != 0)
        goto out;
    if (r->both_deltas_differ &&
        (rc = pk_read_warn(ctx, PROFKIT_ECORRUPT, -1,
                           "%zu profile event%s with timeDeltas in both args.data and args.data.cpuProfile that differ: "
                           "a ProfileChunk's args.data ones are used, a CpuProfile's args.data.cpuProfile ones",
                           r->both_deltas_differ, r->both_deltas_differ == 1 ? "" : "s")) != 0)
        goto out;
    if (r->missing_parents &&
        (rc = pk_read_warn(ctx, PROFKIT_ECORRUPT, -1,
                           "%zu cpuProfile node%s name%s a parent node the trace does not hold (a chunk left out): "
                           "kept under a \"(missing node ID)\" frame",
                           r->missing_parents, r->missing_parents == 1 ? "" : "s",
                           r->missing_parents == 1 ? "s" : "")) != 0)
        goto out;
    if (r->missing_samples &&
        (rc = pk_read_warn(ctx, PROFKIT_ECORRUPT, -1,
                           "%zu sample%s name%s a node the trace does not hold (a chunk left out): "
                           "kept on a \"(missing node ID)\" frame",
                           r->missing_samples, r->missing_samples == 1 ? "" : "s",
                           r->missing_samples == 1 ? "s" : "")) != 0)
        goto out;
    if (r->dangling &&
        (rc = pk_read_warn(ctx, PROFKIT_ECORRUPT, -1,
                           "%zu \"children\" id%s of cpuProfile nodes name no node of their profile: left out",
                           r->dangling, r->dangling == 1 ? "" : "s")) != 0)
        goto out;
    if (r->orphan_chunks &&
        (rc = pk_read_warn(ctx, PROFKIT_ECORRUPT, -1,
                           "%zu profile%s of ProfileChunk events without their Profile event: "
                           "their samples are timed from 0 on the chunks' thread",
                           r->orphan_chunks, r->orphan_chunks == 1 ? "" : "s")) != 0)
        goto out;
out:
    free(chain);
    free(tmap);
    free(times);
    free(wall);
    free(now);
    return rc;
}

static int chrome_read(profkit_profile *p, pk_read_ctx *ctx)
{
    creader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.ctx = ctx;
    int rc = pk_json_parse_source(ctx, on_event, &r);
    if (!rc) {
        rc = finish(&r, 0);
    } else if (rc == PROFKIT_ETRUNCATED && r.state != S_DOC) {
        /* the event being read when the input ended is left out */
        if (r.state == S_EVENT || r.state == S_ARGS)
            drop_profile_parts(&r);
        profkit_error cut = *ctx->err;
        if (r.n_events == 0) {
            *ctx->err = cut;
        } else {
            rc = finish(&r, 1);
            if (rc == PROFKIT_ETRUNCATED)
                *ctx->err = cut;
        }
    }
    pk_idset_free(&r.thread_set);
    pk_idset_free(&r.profile_set);
    pk_idset_free(&r.node_set);
    pk_buf_free(&r.args);
    pk_buf_free(&r.ckey);
    pk_buf_free(&r.cstage);
    pk_buf_free(&r.deltas2);
    free(r.cpoints);
    free(r.nodes);
    free(r.links);
    free(r.samples);
    free(r.profiles);
    free(r.threads);
    free(r.names);
    free(r.markers);
    return rc;
}

/*
 * A trace: an object whose head has "traceEvents", or an array whose first
 * element is an object with a "ph" key among its first fields (the bare
 * form). The .cpuprofile's own sniff scores 90 on a trace of V8 samples
 * ("timeDeltas"), so a trace scores above it.
 */
static int chrome_sniff(const uint8_t *d, size_t n, int complete)
{
    (void)complete;
    size_t i = 0;
    while (i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t'))
        i++;
    if (i + 3 > n)
        return 0;
    if (d[i] == '{') {
        /* "traceEvents" as a key near the start (before 4 KiB of other keys) */
        size_t lim = n < i + 4096 ? n : i + 4096;
        for (size_t k = i; k + 14 <= lim; k++)
            if (d[k] == '"' && memcmp(d + k, "\"traceEvents\"", 13) == 0)
                return 95;
        return 0;
    }
    if (d[i] != '[')
        return 0;
    i++;
    while (i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t'))
        i++;
    if (i >= n || d[i] != '{')
        return 0;
    /* "ph" as a key of the first event itself (its own keys, not those
     * of an object nested in it such as "args", which may come first) */
    size_t lim = n < i + 4096 ? n : i + 4096;
    int depth = 0;
    for (size_t k = i; k < lim; k++) {
        if (d[k] == '"') {
            if (depth == 1 && k + 4 <= lim && memcmp(d + k, "\"ph\"", 4) == 0)
                return 95;
            for (k++; k < lim && d[k] != '"'; k++)
                if (d[k] == '\\')
                    k++;
        } else if (d[k] == '{' || d[k] == '[') {
            depth++;
        } else if ((d[k] == '}' || d[k] == ']') && --depth == 0) {
            break;
        }
    }
    return 0;
}

const pk_format pk_format_chrome = {
    { "chrome", "Chrome trace event format (chrome://tracing, Perfetto, DevTools Performance)",
      ".trace.json", 1, 1 },
    chrome_sniff,
    chrome_read,
    pk_chrome_write,
};
