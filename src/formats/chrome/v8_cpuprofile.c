/*
 * v8_cpuprofile.c: the `.cpuprofile` JSON that V8's CPU profiler produces:
 * what Node writes with `--cpu-prof` and what Chrome DevTools saves from its
 * JavaScript profiler (the CDP `Profiler.Profile` object). Read only.
 *
 * The document is `{nodes, startTime, endTime, samples, timeDeltas}`. `nodes`
 * is the call tree: each node has an `id`, a `callFrame` (functionName, url,
 * scriptId, 0-based lineNumber and columnNumber), a `hitCount` and the ids of
 * its `children`. `samples[i]` is the id of the node (the leaf of the stack)
 * sampled at startTime + timeDeltas[0] + ... + timeDeltas[i] (microseconds).
 * Keys come in any order, so the reader keeps the nodes and the two arrays
 * as they stream by, then links the tree and adds the samples.
 *
 * The older form (Chrome before 2016, Node up to 10 through its profiler
 * modules) is `{head, startTime, endTime, samples, timestamps}`: `head` is
 * the root node with its `children` nested as node objects, and the node's
 * functionName, url, lineNumber and columnNumber sit on the node itself;
 * `timestamps` are absolute microseconds, startTime and endTime seconds.
 * The rules and our rulings (which sample gets which delta, the "(root)"
 * node, the old form's times, truncated files):
 * docs/formats/v8_cpuprofile.md.
 */
#include "formats/registry/format.h"
#include "formats/chrome/v8_callframe.h"
#include "io/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_DOC, S_TOP, S_NODES, S_NODE, S_CF, S_CHILDREN, S_SAMPLES, S_DELTAS, S_HNODE,
       S_HCHILDREN, S_END };
enum { K_NONE, K_ID, K_HIT, K_HEAD, K_CALLFRAME, K_CHILDREN, K_NAME, K_URL, K_LINE, K_COL,
       K_SCRIPT, K_START, K_END, K_SAMPLES, K_DELTAS, K_STAMPS, K_NODES, K_OTHER };

typedef struct node {
    int64_t id;
    uint32_t name, url; /* string ids of the profile */
    int64_t line, col;  /* 0-based; -1 = unknown */
    int64_t hits;       /* hitCount (read in the old form only) */
    uint32_t parent;    /* node index, or PROFKIT_NONE */
    uint32_t stack;     /* model stack, PROFKIT_NONE until built */
    int have_id;
    uint32_t at_line, at_col; /* where the node's object starts */
} node;

typedef struct link {
    uint32_t parent; /* node index */
    int64_t child;   /* node id */
    uint32_t line, column;
} link;

typedef struct id_index {
    pk_idset set;
    const node *nodes;
} id_index;

static int id_eq(const void *ctx, uint32_t id, const void *key)
{
    return ((const node *)ctx)[id].id == *(const int64_t *)key;
}

static uint32_t find_node(const id_index *x, int64_t id)
{
    return pk_idset_find(&x->set, pk_hash_u64((uint64_t)id), id_eq, x->nodes, &id);
}

typedef struct reader {
    profkit_profile *p;
    pk_read_ctx *ctx;
    int state, key;
    node *nodes;
    size_t n_nodes, cap_nodes;
    link *links;
    size_t n_links, cap_links;
    int64_t *samples, *deltas;
    size_t n_samples, cap_samples, n_deltas, cap_deltas;
    uint32_t samples_line, samples_col, deltas_line, deltas_col;
    double start_time, end_time;
    id_index index; /* node id -> node, built when the nodes end */
    int indexed;
    int have_start, have_end, have_nodes, have_samples, have_deltas, nodes_done, samples_done,
        deltas_done;
    /* the old form: `head`'s nested nodes, open ones innermost last */
    int have_head, have_stamps, stamps_done;
    uint32_t *open;
    size_t n_open, cap_open;
} reader;

#define OOM() pk_json_fail(j, PROFKIT_ENOMEM, "out of memory")

static int expect_int(pk_json *j, const pk_json_event *ev, const char *what, size_t index,
                      int64_t *out)
{
    if (pk_json_as_int(ev, out))
        return 0;
    return pk_json_fail(j, PROFKIT_ECORRUPT, "%s[%zu]: expected an integer, found %s", what,
                        index, ev->type == PK_JSON_NUMBER ? "a fraction or huge number"
                                                          : pk_json_type_name(ev->type));
}

/* Indexes the nodes by id once they are all read; a repeated id is an error at its node. */
static int index_nodes(reader *r, pk_json *j)
{
    r->index.nodes = r->nodes;
    for (uint32_t i = 0; i < r->n_nodes; i++) {
        const node *n = &r->nodes[i];
        if (!n->have_id)
            continue; /* the old form's nodes may have none */
        if (find_node(&r->index, n->id) != PROFKIT_NONE)
            return pk_read_fail_pos(r->ctx, PROFKIT_ECORRUPT, n->at_line, n->at_col,
                                         "nodes[%u]: id %lld appears twice", i, (long long)n->id);
        if (pk_idset_insert(&r->index.set, pk_hash_u64((uint64_t)n->id), i))
            return pk_json_fail(j, PROFKIT_ENOMEM, "out of memory");
    }
    r->indexed = 1;
    return 0;
}

/* Starts a node object (at the parse position); PROFKIT_NONE when out of memory. */
static uint32_t new_node(reader *r, pk_json *j)
{
    if (r->n_nodes >= UINT32_MAX - 1 ||
        pk_grow((void **)&r->nodes, &r->cap_nodes, r->n_nodes + 1, sizeof(node)))
        return PROFKIT_NONE;
    node *n = &r->nodes[r->n_nodes];
    memset(n, 0, sizeof(node));
    n->line = n->col = -1;
    n->parent = PROFKIT_NONE;
    n->stack = PROFKIT_NONE;
    pk_json_where(j, &n->at_line, &n->at_col);
    return (uint32_t)r->n_nodes++;
}

/* Opens a node of the old form: a child of the innermost open one. */
static int open_head_node(reader *r, pk_json *j)
{
    uint32_t i = new_node(r, j);
    if (i == PROFKIT_NONE ||
        pk_grow((void **)&r->open, &r->cap_open, r->n_open + 1, sizeof(uint32_t)))
        return OOM();
    r->nodes[i].parent = r->n_open ? r->open[r->n_open - 1] : PROFKIT_NONE;
    r->open[r->n_open++] = i;
    r->state = S_HNODE;
    return 0;
}

/* A node's functionName, url, lineNumber or columnNumber (on the callFrame
 * in the current form, on the node itself in the old one). */
static int node_field(reader *r, pk_json *j, const pk_json_event *ev, node *n, size_t ni,
                      const char *where)
{
    int64_t v = 0;
    switch (r->key) {
    case K_NAME:
    case K_URL: {
        if (ev->type != PK_JSON_STRING)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "nodes[%zu]%s.%s: expected a string, found %s",
                                ni, where, r->key == K_NAME ? "functionName" : "url",
                                pk_json_type_name(ev->type));
        uint32_t s = profkit_string_intern(r->p, ev->str, ev->len);
        if (s == PROFKIT_NONE)
            return OOM();
        if (r->key == K_NAME)
            n->name = s;
        else
            n->url = s;
        return 0;
    }
    case K_LINE:
    case K_COL:
        if (!pk_json_as_int(ev, &v))
            return pk_json_fail(j, PROFKIT_ECORRUPT, "nodes[%zu]%s.%s: expected an integer, found %s",
                                ni, where, r->key == K_LINE ? "lineNumber" : "columnNumber",
                                ev->type == PK_JSON_NUMBER ? "a fraction or huge number" : pk_json_type_name(ev->type));
        if (v < 0 || v >= UINT32_MAX - 1)
            v = -1; /* V8 writes -1 for "no position" */
        if (r->key == K_LINE)
            n->line = v;
        else
            n->col = v;
        return 0;
    default:
        if (ev->type == PK_JSON_MAP_START || ev->type == PK_JSON_ARRAY_START)
            pk_json_skip_value(j);
        return 0;
    }
}

static int frame_key(const pk_json_event *ev)
{
    return pk_json_key_is(ev, "functionName")   ? K_NAME
           : pk_json_key_is(ev, "url")          ? K_URL
           : pk_json_key_is(ev, "lineNumber")   ? K_LINE
           : pk_json_key_is(ev, "columnNumber") ? K_COL
                                                : K_OTHER;
}

static int on_event(pk_json *j, void *payload, const pk_json_event *ev)
{
    reader *r = payload;
    int64_t v = 0; /* set by expect_int before any use; 0 quiets -O3 */
    switch (r->state) {
    case S_DOC:
        if (ev->type != PK_JSON_MAP_START)
            return pk_json_fail(j, PROFKIT_EFORMAT, "the document: expected an object, found %s",
                                pk_json_type_name(ev->type));
        r->state = S_TOP;
        return 0;
    case S_TOP:
        if (ev->type == PK_JSON_MAP_END) {
            r->state = S_END;
            return 0;
        }
        if (ev->type == PK_JSON_KEY) {
            r->key = pk_json_key_is(ev, "nodes")        ? K_NODES
                     : pk_json_key_is(ev, "samples")    ? K_SAMPLES
                     : pk_json_key_is(ev, "timeDeltas") ? K_DELTAS
                     : pk_json_key_is(ev, "startTime")  ? K_START
                     : pk_json_key_is(ev, "endTime")    ? K_END
                     : pk_json_key_is(ev, "timestamps") ? K_STAMPS
                     : pk_json_key_is(ev, "head")       ? K_HEAD /* the old tree shape */
                                                : K_OTHER;
            return 0;
        }
        switch (r->key) {
        case K_NODES:
            if (ev->type != PK_JSON_ARRAY_START)
                return pk_json_fail(j, PROFKIT_ECORRUPT, "nodes: expected an array, found %s",
                                    pk_json_type_name(ev->type));
            if (r->have_head || r->have_nodes)
                return pk_json_fail(j, PROFKIT_ECORRUPT, "nodes: expected one tree, found a second "
                                    "(\"nodes\" after %s)", r->have_head ? "\"head\"" : "\"nodes\"");
            r->have_nodes = 1;
            r->state = S_NODES;
            return 0;
        case K_SAMPLES:
        case K_DELTAS:
        case K_STAMPS:
            if (ev->type != PK_JSON_ARRAY_START)
                return pk_json_fail(j, PROFKIT_ECORRUPT, "%s: expected an array, found %s",
                                    r->key == K_SAMPLES  ? "samples"
                                    : r->key == K_DELTAS ? "timeDeltas"
                                                         : "timestamps",
                                    pk_json_type_name(ev->type));
            if ((r->key == K_DELTAS && r->have_stamps) || (r->key == K_STAMPS && r->have_deltas))
                return pk_json_fail(j, PROFKIT_ECORRUPT, "%s: expected one kind of sample times, "
                                    "found both \"timeDeltas\" and \"timestamps\"",
                                    r->key == K_DELTAS ? "timeDeltas" : "timestamps");
            if (r->key == K_STAMPS) {
                r->have_stamps = 1; /* absolute times: kept where the deltas go */
                pk_json_where(j, &r->deltas_line, &r->deltas_col);
            } else if (r->key == K_SAMPLES) {
                r->have_samples = 1;
                pk_json_where(j, &r->samples_line, &r->samples_col);
            } else {
                r->have_deltas = 1;
                pk_json_where(j, &r->deltas_line, &r->deltas_col);
            }
            r->state = r->key == K_SAMPLES ? S_SAMPLES : S_DELTAS;
            return 0;
        case K_START:
        case K_END:
            if (ev->type != PK_JSON_NUMBER)
                return pk_json_fail(j, PROFKIT_ECORRUPT, "%s: expected a number (microseconds), found %s",
                                    r->key == K_START ? "startTime" : "endTime", pk_json_type_name(ev->type));
            if (r->key == K_START) {
                r->start_time = pk_json_num(ev);
                r->have_start = 1;
            } else {
                r->end_time = pk_json_num(ev);
                r->have_end = 1;
            }
            return 0;
        case K_HEAD:
            if (ev->type != PK_JSON_MAP_START)
                return pk_json_fail(j, PROFKIT_ECORRUPT, "head: expected an object (the root node), found %s",
                                    pk_json_type_name(ev->type));
            if (r->have_head || r->have_nodes)
                return pk_json_fail(j, PROFKIT_ECORRUPT, "head: expected one tree, found a second "
                                    "(\"head\" after %s)", r->have_head ? "\"head\"" : "\"nodes\"");
            r->have_head = 1;
            return open_head_node(r, j);
        default:
            if (ev->type == PK_JSON_MAP_START || ev->type == PK_JSON_ARRAY_START)
                pk_json_skip_value(j);
            return 0;
        }
    case S_NODES:
        if (ev->type == PK_JSON_ARRAY_END) {
            r->nodes_done = 1;
            r->state = S_TOP;
            return index_nodes(r, j);
        }
        if (ev->type != PK_JSON_MAP_START)
            return pk_json_fail(j, PROFKIT_ECORRUPT, "nodes[%zu]: expected an object, found %s",
                                r->n_nodes, pk_json_type_name(ev->type));
        if (new_node(r, j) == PROFKIT_NONE)
            return OOM();
        r->state = S_NODE;
        return 0;
    case S_NODE: {
        node *n = &r->nodes[r->n_nodes - 1];
        size_t ni = r->n_nodes - 1;
        if (ev->type == PK_JSON_MAP_END) {
            if (!n->have_id)
                return pk_json_fail(j, PROFKIT_ECORRUPT, "nodes[%zu]: expected an \"id\"", ni);
            r->state = S_NODES;
            return 0;
        }
        if (ev->type == PK_JSON_KEY) {
            r->key = pk_json_key_is(ev, "id")          ? K_ID
                     : pk_json_key_is(ev, "callFrame") ? K_CALLFRAME
                     : pk_json_key_is(ev, "children")  ? K_CHILDREN
                                               : K_OTHER;
            return 0;
        }
        switch (r->key) {
        case K_ID:
            if (!pk_json_as_int(ev, &v))
                return pk_json_fail(j, PROFKIT_ECORRUPT, "nodes[%zu].id: expected an integer, found %s",
                                    ni, ev->type == PK_JSON_NUMBER ? "a fraction or huge number"
                                                                   : pk_json_type_name(ev->type));
            n->id = v;
            n->have_id = 1;
            return 0;
        case K_CALLFRAME:
            if (ev->type != PK_JSON_MAP_START)
                return pk_json_fail(j, PROFKIT_ECORRUPT,
                                    "nodes[%zu].callFrame: expected an object, found %s", ni,
                                    pk_json_type_name(ev->type));
            r->state = S_CF;
            return 0;
        case K_CHILDREN:
            if (ev->type != PK_JSON_ARRAY_START)
                return pk_json_fail(j, PROFKIT_ECORRUPT,
                                    "nodes[%zu].children: expected an array, found %s", ni,
                                    pk_json_type_name(ev->type));
            r->state = S_CHILDREN;
            return 0;
        default:
            if (ev->type == PK_JSON_MAP_START || ev->type == PK_JSON_ARRAY_START)
                pk_json_skip_value(j);
            return 0;
        }
    }
    case S_CF: {
        node *n = &r->nodes[r->n_nodes - 1];
        if (ev->type == PK_JSON_MAP_END) {
            r->state = S_NODE;
            return 0;
        }
        if (ev->type == PK_JSON_KEY) {
            r->key = frame_key(ev);
            return 0;
        }
        return node_field(r, j, ev, n, r->n_nodes - 1, ".callFrame");
    }
    case S_HNODE: {
        uint32_t ni = r->open[r->n_open - 1];
        node *n = &r->nodes[ni];
        if (ev->type == PK_JSON_MAP_END) {
            r->n_open--;
            r->state = r->n_open ? S_HCHILDREN : S_TOP;
            if (!r->n_open) {
                r->nodes_done = 1;
                return index_nodes(r, j);
            }
            return 0;
        }
        if (ev->type == PK_JSON_KEY) {
            r->key = pk_json_key_is(ev, "id")         ? K_ID
                     : pk_json_key_is(ev, "hitCount") ? K_HIT
                     : pk_json_key_is(ev, "children") ? K_CHILDREN
                                                      : frame_key(ev);
            return 0;
        }
        switch (r->key) {
        case K_ID:
        case K_HIT:
            if (!pk_json_as_int(ev, &v))
                return pk_json_fail(j, PROFKIT_ECORRUPT, "nodes[%u].%s: expected an integer, found %s",
                                    ni, r->key == K_ID ? "id" : "hitCount",
                                    ev->type == PK_JSON_NUMBER ? "a fraction or huge number"
                                                               : pk_json_type_name(ev->type));
            if (r->key == K_ID) {
                n->id = v;
                n->have_id = 1;
            } else {
                n->hits = v > 0 ? v : 0;
            }
            return 0;
        case K_CHILDREN:
            if (ev->type != PK_JSON_ARRAY_START)
                return pk_json_fail(j, PROFKIT_ECORRUPT,
                                    "nodes[%u].children: expected an array of nodes, found %s", ni,
                                    pk_json_type_name(ev->type));
            r->state = S_HCHILDREN;
            return 0;
        default:
            return node_field(r, j, ev, n, ni, "");
        }
    }
    case S_HCHILDREN:
        if (ev->type == PK_JSON_ARRAY_END) {
            r->state = S_HNODE;
            return 0;
        }
        if (ev->type != PK_JSON_MAP_START)
            return pk_json_fail(j, PROFKIT_ECORRUPT,
                                "nodes[%u].children: expected a node (an object), found %s",
                                r->open[r->n_open - 1], pk_json_type_name(ev->type));
        return open_head_node(r, j);
    case S_CHILDREN:
        if (ev->type == PK_JSON_ARRAY_END) {
            r->state = S_NODE;
            return 0;
        }
        if (!pk_json_as_int(ev, &v))
            return pk_json_fail(j, PROFKIT_ECORRUPT, "nodes[%zu].children: expected a node id (an integer), found %s",
                                r->n_nodes - 1, ev->type == PK_JSON_NUMBER ? "a fraction or huge number"
                                                                           : pk_json_type_name(ev->type));
        if (pk_grow((void **)&r->links, &r->cap_links, r->n_links + 1, sizeof(link)))
            return OOM();
        r->links[r->n_links].parent = (uint32_t)(r->n_nodes - 1);
        r->links[r->n_links].child = v;
        pk_json_where(j, &r->links[r->n_links].line, &r->links[r->n_links].column);
        r->n_links++;
        return 0;
    case S_SAMPLES:
    case S_DELTAS: {
        int s = r->state == S_SAMPLES;
        if (ev->type == PK_JSON_ARRAY_END) {
            if (s)
                r->samples_done = 1;
            else
                r->deltas_done = 1;
            r->state = S_TOP;
            return 0;
        }
        if (expect_int(j, ev, s ? "samples" : r->have_stamps ? "timestamps" : "timeDeltas",
                       s ? r->n_samples : r->n_deltas, &v))
            return PROFKIT_ECORRUPT;
        if (s && r->indexed && find_node(&r->index, v) == PROFKIT_NONE)
            return pk_json_fail(j, PROFKIT_ECORRUPT,
                                "samples[%zu]: expected the id of a node, found %lld (no node has it)",
                                r->n_samples, (long long)v);
        if (s) {
            if (pk_grow((void **)&r->samples, &r->cap_samples, r->n_samples + 1, sizeof(int64_t)))
                return OOM();
            r->samples[r->n_samples++] = v;
        } else {
            if (pk_grow((void **)&r->deltas, &r->cap_deltas, r->n_deltas + 1, sizeof(int64_t)))
                return OOM();
            r->deltas[r->n_deltas++] = v;
        }
        return 0;
    }
    default:
        return 0;
    }
}

/* ---- linking the tree ---- */

static int is_root_marker(const profkit_profile *p, const node *n)
{
    return n->parent == PROFKIT_NONE && pk_v8_is_root(p, n->name);
}

/* The model stack of node i: its parent's (built first, iteratively) plus its frame. */
static int build_stack(reader *r, uint32_t i, uint32_t *chain)
{
    profkit_profile *p = r->p;
    size_t depth = 0;
    uint32_t k = i;
    while (k != PROFKIT_NONE && r->nodes[k].stack == PROFKIT_NONE) {
        if (depth > r->n_nodes)
            return 1; /* a cycle: more ancestors than nodes */
        chain[depth++] = k;
        k = r->nodes[k].parent;
    }
    uint32_t s = k == PROFKIT_NONE ? 0 : r->nodes[k].stack;
    while (depth > 0) {
        node *n = &r->nodes[chain[--depth]];
        if (is_root_marker(p, n)) {
            n->stack = 0;
            continue;
        }
        uint32_t frame = pk_v8_callframe_frame(p, n->name, n->url, n->line, n->col);
        if (frame == PROFKIT_NONE)
            return -1;
        s = pk_stack_intern(p, s, frame);
        if (s == PROFKIT_NONE)
            return -1;
        n->stack = s;
    }
    return 0;
}

/* A JSON time (any double) as whole microseconds, clamped to int64. */
static int64_t to_i64(double x)
{
    if (!(x > -9.2e18))
        return x != x ? 0 : -INT64_MAX;
    return x >= 9.2e18 ? INT64_MAX : (int64_t)x;
}

/* A time in microseconds as nanoseconds, clamped to int64. */
static int64_t us_to_ns(int64_t t)
{
    return t > INT64_MAX / 1000 ? INT64_MAX : t < INT64_MIN / 1000 + 1 ? INT64_MIN + 1 : t * 1000;
}

/* Metadata KEY: microseconds `us` as an exact decimal number of ms. */
static int put_ms(profkit_profile *p, const char *key, int64_t us)
{
    char v[40];
    uint64_t a = us < 0 ? 0 - (uint64_t)us : (uint64_t)us;
    snprintf(v, sizeof v, "%s%" PRIu64 ".%03u", us < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
    return pk_meta_add(p, key, v);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * The old form records no range of its own (its startTime and endTime are
 * whole seconds), so the profile's root range is its samples' extent: from
 * the first sample to the last plus the sampling interval, which is kept as
 * the metadata "interval" (ms): the median positive gap between the first
 * 100 000 sample times, sorted, as the Firefox writer estimates it for
 * meta.interval. The loader then shows profkit's Firefox output with the
 * root range profkit's --range counts from (docs/formats/v8_cpuprofile.md).
 * Nothing is kept with fewer than two gaps (the 1 ms default).
 */
static int old_interval(reader *r, size_t n)
{
    if (n > 100000)
        n = 100000;
    if (n < 2)
        return 0;
    int64_t *t = malloc(n * sizeof *t);
    if (!t)
        return -1;
    memcpy(t, r->deltas, n * sizeof *t);
    qsort(t, n, sizeof *t, cmp_i64);
    size_t m = 0;
    for (size_t i = 1; i < n; i++) /* positive gaps, in place */
        if (t[i] > t[i - 1] && (uint64_t)t[i] - (uint64_t)t[i - 1] <= INT64_MAX / 1000)
            t[m++] = t[i] - t[i - 1];
    int rc = 0;
    if (m > 0) {
        qsort(t, m, sizeof *t, cmp_i64);
        rc = put_ms(r->p, "interval", t[m / 2]);
    }
    free(t);
    return rc;
}

/*
 * The samples of the old form: `timestamps` are absolute microseconds, one
 * per sample and sometimes one more, which ends the last sample (else
 * endTime, in seconds, does). Without timestamps the samples are counted
 * untimed; without samples, each node's hitCount is.
 */
static int old_samples(reader *r, int truncated, size_t *kept)
{
    profkit_profile *p = r->p;
    pk_read_ctx *ctx = r->ctx;
    int64_t vals[2] = { 0, 0 };
    uint32_t thread = pk_thread_add(p, "main", "", -1, -1);
    uint32_t vs = pk_value_type_add(p, "samples", "count");
    if (thread == PROFKIT_NONE || vs == PROFKIT_NONE)
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    p->default_value = vs;
    *kept = 0;
    if (!r->have_samples) {
        for (size_t i = 0; i < r->n_nodes; i++) {
            if (r->nodes[i].hits == 0)
                continue;
            vals[vs] = r->nodes[i].hits;
            if (pk_sample_add(p, r->nodes[i].stack, thread, vals))
                return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            *kept += (size_t)r->nodes[i].hits;
        }
        return 0;
    }
    size_t n = r->n_samples;
    uint32_t vw = PROFKIT_NONE;
    if (r->have_stamps) {
        if (!truncated && r->n_deltas != n && r->n_deltas != n + 1)
            return pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, r->deltas_line, r->deltas_col,
                                    "timestamps: expected one timestamp per sample (%zu) or one "
                                    "more, found %zu", n, r->n_deltas);
        if (r->n_deltas < n)
            n = r->n_deltas; /* cut: only samples whose time is known */
        if ((vw = pk_value_type_add(p, "wall", "microseconds")) == PROFKIT_NONE)
            return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        p->default_value = vw;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t k = find_node(&r->index, r->samples[i]);
        if (k == PROFKIT_NONE)
            return pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, r->samples_line, r->samples_col,
                                    "samples[%zu]: expected the id of a node, found %lld (no node has it)",
                                    i, (long long)r->samples[i]);
        vals[vs] = 1;
        int rc;
        if (vw != PROFKIT_NONE) {
            int64_t t = r->deltas[i], next = t;
            if (i + 1 < r->n_deltas)
                next = r->deltas[i + 1];
            else if (r->have_end && !truncated)
                next = to_i64(r->end_time * 1e6);
            int64_t gap = pk_sat_add(next, -t);
            vals[vw] = gap > 0 ? gap : 0;
            rc = pk_sample_add_timed(p, r->nodes[k].stack, thread, us_to_ns(t), vals);
        } else {
            rc = pk_sample_add(p, r->nodes[k].stack, thread, vals);
        }
        if (rc)
            return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        pk_read_progress(ctx, i, n);
    }
    *kept = n;
    if (vw != PROFKIT_NONE && old_interval(r, n) != 0)
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    return 0;
}

/* The samples of the current form: sample i is at startTime + timeDeltas[0]
 * + ... + timeDeltas[i]; its wall time is the gap up to the next sample
 * (negative gaps count 0); the last one's runs to endTime. */
static int new_samples(reader *r, int truncated, size_t *kept)
{
    profkit_profile *p = r->p;
    pk_read_ctx *ctx = r->ctx;
    const id_index *x = &r->index;
    int rc = 0;
    size_t n = r->n_samples;
    if (!truncated && r->n_deltas != r->n_samples) {
        rc = pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, r->deltas_line, r->deltas_col,
                                   "timeDeltas: expected one delta per sample (%zu), found %zu",
                                   r->n_samples, r->n_deltas);
        return rc;
    }
    if (r->n_deltas < n)
        n = r->n_deltas; /* cut: only samples whose time is known */
    uint32_t thread = pk_thread_add(p, "main", "", -1, -1);
    uint32_t vs = pk_value_type_add(p, "samples", "count");
    uint32_t vw = pk_value_type_add(p, "wall", "microseconds");
    if (thread == PROFKIT_NONE || vs == PROFKIT_NONE || vw == PROFKIT_NONE) {
        rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        return rc;
    }
    p->default_value = vw;
    int64_t t = to_i64(r->start_time), next = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = find_node(x, r->samples[i]);
        if (k == PROFKIT_NONE) {
            rc = pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, r->samples_line, r->samples_col,
                                       "samples[%zu]: expected the id of a node, found %lld (no node has it)",
                                       i, (long long)r->samples[i]);
            return rc;
        }
        if (i == 0)
            t = pk_sat_add(t, r->deltas[0]);
        else
            t = next;
        int64_t gap;
        if (i + 1 < n) {
            next = pk_sat_add(t, r->deltas[i + 1]);
            gap = next - t;
        } else {
            gap = r->have_end && !truncated ? pk_sat_add(to_i64(r->end_time), -t) : 0;
        }
        if (gap < 0)
            gap = 0;
        int64_t vals[2];
        vals[vs] = 1;
        vals[vw] = gap;
        if (pk_sample_add_timed(p, r->nodes[k].stack, thread, us_to_ns(t), vals)) {
            rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            return rc;
        }
        pk_read_progress(ctx, i, n);
    }
    /* The recording's bounds, which the Firefox Profiler takes as the
     * profile's root range (docs/formats/firefox.md, "Time ranges"), in ms
     * on the samples' time line as Gecko's meta writes them. */
    if (r->have_start && r->have_end && !truncated && r->end_time >= r->start_time &&
        (rc = put_ms(p, "profilingStartTime", to_i64(r->start_time))) == 0)
        rc = put_ms(p, "profilingEndTime", to_i64(r->end_time));
    if (rc)
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    *kept = n;
    return 0;
}

static int finish(reader *r, int truncated)
{
    pk_read_ctx *ctx = r->ctx;
    int rc = 0;
    const id_index *x = &r->index;
    uint32_t *chain = NULL;
    size_t dangling = 0; /* children ids no node has */

    if (r->have_head ? 0 : !r->have_nodes || !r->have_samples || (!r->have_deltas && !truncated)) {
        if (truncated)
            return PROFKIT_ETRUNCATED;
        return pk_read_fail(ctx, PROFKIT_EFORMAT, -1,
                                 "expected the keys \"nodes\", \"samples\" and \"timeDeltas\" of a V8 CPU profile "
                                 "(or \"head\" of the old form)");
    }
    if (!r->nodes_done)
        return PROFKIT_ETRUNCATED; /* a tree cut short: no stack can be trusted */
    for (size_t l = 0; l < r->n_links; l++) {
        const link *k = &r->links[l];
        uint32_t c = find_node(x, k->child);
        if (c == PROFKIT_NONE) {
            /* Chrome lists children it left out of the nodes: the id
             * links nothing (the Firefox Profiler ignores it too) */
            dangling++;
            continue;
        }
        if (r->nodes[c].parent != PROFKIT_NONE || c == k->parent) {
            rc = pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, k->line, k->column,
                                       "nodes[%u].children: node id %lld already has a parent (node id %lld): the children links must form a tree",
                                       k->parent, (long long)k->child,
                                       (long long)r->nodes[c == k->parent ? c : r->nodes[c].parent].id);
            goto out;
        }
        r->nodes[c].parent = k->parent;
    }
    chain = malloc((r->n_nodes + 2) * sizeof(uint32_t));
    if (!chain) {
        rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < r->n_nodes; i++) {
        int b = build_stack(r, i, chain);
        if (b > 0) {
            rc = pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, r->nodes[i].at_line, r->nodes[i].at_col,
                                       "nodes[%u]: the children links form a cycle through node id %lld",
                                       i, (long long)r->nodes[i].id);
            goto out;
        }
        if (b < 0) {
            rc = pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            goto out;
        }
    }

    size_t n = 0;
    rc = r->have_head ? old_samples(r, truncated, &n) : new_samples(r, truncated, &n);
    if (rc)
        goto out;
    if (dangling &&
        (rc = pk_read_warn(ctx, PROFKIT_ECORRUPT, -1, "%zu \"children\" id%s name no node: left out", dangling,
                           dangling == 1 ? "" : "s")) != 0)
        goto out;
    if (truncated) {
        profkit_error cut = *ctx->err;
        rc = pk_read_warn_pos(ctx, PROFKIT_ETRUNCATED, cut.line, cut.column,
                                   "%s; kept the %zu sample%s before the cut", cut.message, n,
                                   n == 1 ? "" : "s");
    }
out:
    free(chain);
    return rc;
}

static int v8_read(profkit_profile *p, pk_read_ctx *ctx)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.ctx = ctx;
    int rc = pk_json_parse_source(ctx, on_event, &r);
    if (!rc)
        rc = finish(&r, 0);
    else if (rc == PROFKIT_ETRUNCATED && r.state != S_DOC) {
        profkit_error cut = *ctx->err;
        rc = finish(&r, 1);
        if (rc == PROFKIT_ETRUNCATED)
            *ctx->err = cut; /* nothing could be kept: the cut is the error */
    }
    pk_idset_free(&r.index.set);
    free(r.nodes);
    free(r.links);
    free(r.samples);
    free(r.deltas);
    free(r.open);
    return rc;
}

/* A JSON object whose head holds "timeDeltas", or "nodes" and "callFrame"
 * (Node writes the nodes first; DevTools may write the samples first), or
 * the old form's "head" and "functionName" with "callUID" or "timestamps".
 * The keys may come in any order, after megabytes of "samples" and
 * "timestamps": while the head ends with a profile's own keys met
 * ("samples", "timestamps", "startTime", "endTime") and none of the
 * above, more of it is asked for (PK_SNIFF_MORE). */
static int v8_sniff(const uint8_t *d, size_t n, int complete)
{
    size_t i = 0;
    while (i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t'))
        i++;
    if (i == n || d[i] != '{')
        return 0;
    int nodes = 0, cf = 0, deltas = 0, head = 0, fname = 0, old = 0, own = 0;
    for (size_t k = i; k < n; k++) {
        if (d[k] != '"')
            continue;
        if (k + 8 <= n && memcmp(d + k, "\"nodes\"", 7) == 0)
            nodes = 1;
        else if (k + 12 <= n && memcmp(d + k, "\"callFrame\"", 11) == 0)
            cf = 1;
        else if (k + 13 <= n && memcmp(d + k, "\"timeDeltas\"", 12) == 0)
            deltas = 1;
        else if (k + 7 <= n && memcmp(d + k, "\"head\"", 6) == 0)
            head = 1;
        else if (k + 15 <= n && memcmp(d + k, "\"functionName\"", 14) == 0)
            fname = 1;
        else if ((k + 10 <= n && memcmp(d + k, "\"callUID\"", 9) == 0) ||
                 (k + 13 <= n && memcmp(d + k, "\"timestamps\"", 12) == 0))
            old = own = 1;
        else if ((k + 10 <= n && memcmp(d + k, "\"samples\"", 9) == 0) ||
                 (k + 12 <= n && memcmp(d + k, "\"startTime\"", 11) == 0) ||
                 (k + 10 <= n && memcmp(d + k, "\"endTime\"", 9) == 0))
            own = 1;
    }
    if (deltas || (nodes && cf) || (head && fname && old))
        return 90;
    return own && !complete ? PK_SNIFF_MORE : 0;
}

const pk_format pk_format_v8_cpuprofile = {
    { "v8_cpuprofile", "V8 / Chrome DevTools .cpuprofile (Node --cpu-prof)", ".cpuprofile", 1, 0 },
    v8_sniff,
    v8_read,
    NULL,
};
