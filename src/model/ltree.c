/* ltree.c: the call tree; see ltree.h. */
#include "model/ltree.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int pk_stack_self(const profkit_profile *p, uint32_t value, uint32_t thread, int64_t **out)
{
    int64_t *self = calloc(p->n_stacks ? p->n_stacks : 1, sizeof(int64_t));
    if (!self)
        return PROFKIT_ENOMEM;
    size_t nv = p->n_value_types;
    for (size_t r = 0; r < p->n_samples; r++) {
        if (thread != PROFKIT_NONE && p->sample_thread[r] != thread)
            continue;
        uint32_t s = p->sample_stack[r];
        if (s < p->n_stacks)
            pk_sat_addto(&self[s], p->sample_values[r * nv + value]);
    }
    *out = self;
    return 0;
}

size_t pk_frame_key_label(const profkit_profile *p, uint32_t frame, profkit_key by, char *buf,
                          size_t n)
{
    const profkit_frame *fr = &p->frames[frame];
    const profkit_function *fn = &p->functions[fr->function];
    int w = -1;
    /* strings are copied by their known length (pk_str_copy), so a label
     * costs at most its buffer however long the file name */
    switch (by) {
    case PROFKIT_BY_FILE:
        if (fn->file)
            return pk_str_copy(p, fn->file, buf, n);
        else if (fn->module)
            return pk_str_copy(p, fn->module, buf, n);
        else if (fr->mapping != PROFKIT_NONE && fr->mapping < p->n_mappings &&
                 p->mappings[fr->mapping].path)
            return pk_str_copy(p, p->mappings[fr->mapping].path, buf, n);
        else
            w = snprintf(buf, n, "(unknown file)");
        break;
    case PROFKIT_BY_LINE:
        if (fn->file && fr->line) {
            size_t len = pk_str_copy(p, fn->file, buf, n);
            w = fr->column ? snprintf(buf + len, n - len, ":%u:%u", fr->line, fr->column)
                           : snprintf(buf + len, n - len, ":%u", fr->line);
            if (w < 0)
                w = 0;
            return len + (size_t)w < n ? len + (size_t)w : n - 1;
        }
        return pk_frame_label(p, frame, 1, buf, n);
    case PROFKIT_BY_MODULE: /* the binary or image: the function's, else the mapping's */
        if (fn->module)
            return pk_str_copy(p, fn->module, buf, n);
        else if (fr->mapping != PROFKIT_NONE && fr->mapping < p->n_mappings &&
                 p->mappings[fr->mapping].path)
            return pk_str_copy(p, p->mappings[fr->mapping].path, buf, n);
        else
            w = snprintf(buf, n, "(unknown module)");
        break;
    case PROFKIT_BY_ADDRESS:
        if (fr->address) {
            w = snprintf(buf, n, "0x%" PRIx64, fr->address);
            break;
        }
        return pk_frame_label(p, frame, 0, buf, n);
    default:
        return pk_frame_label(p, frame, 0, buf, n);
    }
    if (w < 0)
        w = 0;
    return (size_t)w < n ? (size_t)w : n - 1;
}

void *pk_ltree_take_scratch(pk_ltree *t, size_t bytes)
{
    int best = -1;
    for (int i = 0; i < 2; i++)
        if (t->scratch[i] && t->scratch_size[i] >= bytes &&
            (best < 0 || t->scratch_size[i] < t->scratch_size[best]))
            best = i;
    if (best < 0)
        return NULL;
    void *m = t->scratch[best];
    t->scratch[best] = NULL;
    t->scratch_size[best] = 0;
    return m;
}

void pk_ltree_free(pk_ltree *t)
{
    free(t->scratch[0]);
    free(t->scratch[1]);
    free(t->parent);
    free(t->key);
    free(t->stack_node);
    free(t->base_node);
    free(t->frame_key);
    free(t->key_frame);
    free(t->self);
    free(t->total);
    free(t->child_start);
    free(t->children);
    pk_strtab_free(&t->labels);
    memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------------ keys */

typedef struct keyer {
    pk_ltree *t;
    const pk_ltree_options *o;
    size_t cap_key_frame;
} keyer;

/* Notes frame f of the profile as key k's first frame when k is new. */
static int key_seen(keyer *k, uint32_t key, uint32_t f)
{
    pk_ltree *t = k->t;
    if (key < t->n_keys)
        return 0;
    if (PK_VEC_RESERVE(t->key_frame, key, k->cap_key_frame, 1) != 0)
        return PROFKIT_ENOMEM;
    t->key_frame[key] = f;
    t->n_keys = (size_t)key + 1;
    return 0;
}

/* The file of frame f's function (a string of q), 0 without one. */
static uint32_t frame_file(const profkit_profile *q, uint32_t f)
{
    uint32_t fn = q->frames[f].function;
    return fn < q->n_functions ? q->functions[fn].file : 0;
}

/*
 * With files: the frames of a label that stands for functions of two or
 * more files get a key per file, "LABEL FILE" (a frame without a file
 * keeps the label, and is not counted as another file; a label of one file
 * is named by a frame of that file). One pass notes each label's file; only when two differ does a
 * second pass relabel, so a profile without such names pays one array.
 */
static int split_by_file(keyer *k, const profkit_profile *q, uint32_t *fk)
{
    pk_ltree *t = k->t;
    size_t n = t->n_keys;
    const uint32_t MANY = PROFKIT_NONE - 1;
    uint32_t *file = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!file)
        return PROFKIT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        file[i] = PROFKIT_NONE;
    int any = 0;
    for (size_t f = 0; f < q->n_frames; f++) {
        uint32_t fl = frame_file(q, (uint32_t)f), *slot = &file[fk[f]];
        if (pk_strtab_len(&q->strings, fl) == 0)
            continue; /* no file: no second function */
        if (*slot == PROFKIT_NONE) {
            *slot = fl;
            /* the key's row names its file: a frame with one names it
             * rather than the first frame seen, which may have none (a
             * folded "main" merged with a speedscope "main" of app.py) */
            uint32_t kf = fk[f] < t->n_keys ? t->key_frame[fk[f]] : PROFKIT_NONE;
            if (fk[f] != 0 && kf < q->n_frames && pk_strtab_len(&q->strings, frame_file(q, kf)) == 0)
                t->key_frame[fk[f]] = (uint32_t)f;
        } else if (*slot != fl && *slot != MANY)
            *slot = MANY, any = 1;
    }
    int rc = 0;
    char buf[4096];
    for (size_t f = 0; any && f < q->n_frames; f++) {
        uint32_t key = fk[f], fl = frame_file(q, (uint32_t)f);
        /* a frame without a name (a label's pseudo-frame for samples
         * without it) is no function: kept whole, as pprof's -top does */
        if (key >= n || file[key] != MANY || pk_strtab_len(&q->strings, fl) == 0 ||
            pk_strtab_len(&t->labels, key) == 0)
            continue;
        size_t len = pk_strtab_len(&t->labels, key);
        if (len > sizeof(buf) - 2)
            len = sizeof(buf) - 2;
        memcpy(buf, pk_strtab_get(&t->labels, key), len);
        buf[len++] = ' ';
        len += pk_str_copy(q, fl, buf + len, sizeof(buf) - len);
        uint32_t id = pk_strtab_intern(&t->labels, buf, len);
        if (id == PROFKIT_NONE || key_seen(k, id, (uint32_t)f) != 0) {
            rc = PROFKIT_ENOMEM;
            break;
        }
        fk[f] = id;
    }
    free(file);
    return rc;
}

/*
 * FUNCTIONS: each named function's first function of the same name and
 * file (as the reports key a function: the page's rows are top's), into
 * canon; a function without a name is its own. Names and files are string
 * ids of q's interned table, so equal ids are equal strings.
 */
static int same_functions(const profkit_profile *q, uint32_t *canon)
{
    size_t cap = 16;
    while (cap < 2 * (q->n_functions + 1))
        cap *= 2;
    uint32_t *slot = malloc(cap * sizeof(uint32_t));
    if (!slot)
        return PROFKIT_ENOMEM;
    for (size_t i = 0; i < cap; i++)
        slot[i] = PROFKIT_NONE;
    for (size_t fn = 0; fn < q->n_functions; fn++) {
        const profkit_function *f = &q->functions[fn];
        canon[fn] = (uint32_t)fn;
        if (!pk_strtab_len(&q->strings, f->name))
            continue;
        uint64_t h = ((uint64_t)f->name * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)f->file * 0xc2b2ae3d27d4eb4full);
        size_t at = (size_t)(h ^ (h >> 29)) & (cap - 1);
        for (; slot[at] != PROFKIT_NONE; at = (at + 1) & (cap - 1)) {
            const profkit_function *g = &q->functions[slot[at]];
            if (g->name == f->name && g->file == f->file) {
                canon[fn] = slot[at];
                break;
            }
        }
        if (slot[at] == PROFKIT_NONE)
            slot[at] = (uint32_t)fn;
    }
    free(slot);
    return 0;
}

/* The key of every frame of q into fk (q is p, or the base). */
static int frame_keys(keyer *k, const profkit_profile *q, uint32_t *fk)
{
    pk_ltree *t = k->t;
    const pk_ltree_options *o = k->o;
    char buf[4096];
    int with_files = o->files && o->keys == PK_LTREE_LABELS && o->by == PROFKIT_BY_FUNCTION &&
                     q == t->p;
    /* by line too, each key's first frame names its function */
    int key_frames = with_files || (o->files && o->keys == PK_LTREE_LABELS &&
                                    o->by == PROFKIT_BY_LINE && q == t->p);
    if (o->keys == PK_LTREE_FUNCTIONS) {
        uint32_t *fn_key = malloc((q->n_functions ? q->n_functions : 1) * sizeof(uint32_t));
        uint32_t *canon = malloc((q->n_functions ? q->n_functions : 1) * sizeof(uint32_t));
        if (!fn_key || !canon || same_functions(q, canon) != 0) {
            free(fn_key);
            free(canon);
            return PROFKIT_ENOMEM;
        }
        for (size_t i = 0; i < q->n_functions; i++)
            fn_key[i] = PROFKIT_NONE;
        for (size_t f = 0; f < q->n_frames; f++) {
            uint32_t fn = q->frames[f].function;
            if (fn < q->n_functions)
                fn = canon[fn]; /* one key per name and file */
            int named = fn < q->n_functions && pk_strtab_len(&q->strings, q->functions[fn].name) > 0;
            /* one key per named function; a frame without a name is its own */
            uint32_t key = named && fn_key[fn] != PROFKIT_NONE ? fn_key[fn] : (uint32_t)t->n_keys;
            if (t->n_keys >= PROFKIT_NONE - 1 || key_seen(k, key, (uint32_t)f) != 0) {
                free(fn_key);
                free(canon);
                return PROFKIT_ENOMEM;
            }
            if (named)
                fn_key[fn] = key;
            fk[f] = key;
        }
        free(fn_key);
        free(canon);
        return 0;
    }
    for (size_t f = 0; f < q->n_frames; f++) {
        const char *label = buf;
        size_t len;
        if (o->keys == PK_LTREE_NAMES) {
            uint32_t fn = q->frames[f].function;
            uint32_t name = fn < q->n_functions ? q->functions[fn].name : 0;
            label = pk_str(q, name);
            if (!(len = pk_strtab_len(&q->strings, name))) {
                int w = snprintf(buf, sizeof(buf), "0x%" PRIx64, q->frames[f].address);
                label = buf;
                len = w > 0 ? (size_t)w : 0;
            }
        } else {
            len = o->by == PROFKIT_BY_FUNCTION
                      ? pk_frame_label(q, (uint32_t)f, o->by_line, buf, sizeof(buf))
                      : pk_frame_key_label(q, (uint32_t)f, o->by, buf, sizeof(buf));
            if (o->sanitize)
                for (size_t i = 0; i < len; i++)
                    if (buf[i] == ';' || buf[i] == '\n' || buf[i] == '\r')
                        buf[i] = '_';
        }
        if ((fk[f] = pk_strtab_intern(&t->labels, label, len)) == PROFKIT_NONE)
            return PROFKIT_ENOMEM;
        if ((o->keys == PK_LTREE_NAMES || key_frames) && key_seen(k, fk[f], (uint32_t)f) != 0)
            return PROFKIT_ENOMEM;
    }
    if (o->keys == PK_LTREE_LABELS)
        t->n_keys = t->labels.n;
    if (with_files)
        return split_by_file(k, q, fk);
    return 0;
}

/* ----------------------------------------------------------------- nodes */

/*
 * A node's children are found in two ways. While a node has one child,
 * that child's id is kept beside the node (`child`): its first child is
 * made and its only child found without a lookup, reading memory the
 * build has just written (a stack's parent is usually a stack made just
 * before it). Once a second key comes, the node "spills": its children
 * go into a table by (parent node, key), and its later children are
 * looked up there. Most nodes of a call tree have one child, so the table
 * (one random slot per lookup, a cache miss each) holds a fraction of the
 * nodes; it grows by doubling. A slot is the key and the id, 8 bytes; a
 * hit reads the node's parent from its array.
 */
typedef struct node_slot {
    uint32_t key, id; /* id 0: empty (the root is never looked up) */
} node_slot;

#define SPILLED UINT32_MAX /* child[n]: n's children are in the table */

typedef struct nodes {
    pk_ltree *t;
    node_slot *slots;
    size_t n_slots, n_used;
    uint32_t *child; /* per node: its only child (0: none yet), or SPILLED */
} nodes;

static inline size_t node_home(const nodes *u, uint32_t parent, uint32_t key)
{
    /* a multiplicative hash, mapped onto [0, n_slots) by a multiply-shift */
    uint64_t h = ((((uint64_t)parent << 32) | key) * 0x9e3779b97f4a7c15ull) >> 32;
    return (size_t)((h * (uint64_t)u->n_slots) >> 32);
}

static inline void node_prefetch(const nodes *u, uint32_t parent, uint32_t key)
{
#if defined(__GNUC__)
    __builtin_prefetch(&u->slots[node_home(u, parent, key)]);
#else
    (void)u, (void)parent, (void)key;
#endif
}

/* Puts node id (its parent and key) in a slot of the table, which has room. */
static inline void node_place(nodes *u, uint32_t parent, uint32_t key, uint32_t id)
{
    size_t i = node_home(u, parent, key);
    while (u->slots[i].id != 0)
        i = i + 1 == u->n_slots ? 0 : i + 1;
    u->slots[i].key = key;
    u->slots[i].id = id;
    u->n_used++;
}

/* Room for one more entry in the table (at most 2/3 full). Returns 0 or -1. */
static int nodes_room(nodes *u)
{
    if ((u->n_used + 1) * 3 <= u->n_slots * 2)
        return 0;
    size_t cap = u->n_slots ? u->n_slots * 2 : 4096;
    node_slot *old = u->slots;
    size_t n_old = u->n_slots;
    if (!(u->slots = calloc(cap, sizeof(node_slot)))) {
        u->slots = old;
        return -1;
    }
    u->n_slots = cap;
    u->n_used = 0;
    for (size_t i = 0; i < n_old; i++)
        if (old[i].id)
            node_place(u, u->t->parent[old[i].id], old[i].key, old[i].id);
    free(old);
    return 0;
}

static inline uint32_t node_new(nodes *u, uint32_t parent, uint32_t key)
{
    pk_ltree *t = u->t;
    uint32_t id = (uint32_t)t->n++;
    t->parent[id] = parent;
    t->key[id] = key;
    u->child[id] = 0;
    return id;
}

/* The node (parent, key), made when new (the arrays hold a node per stack);
 * PROFKIT_NONE when out of memory. */
static inline uint32_t node_intern(nodes *u, uint32_t parent, uint32_t key)
{
    uint32_t c = u->child[parent];
    if (c == 0) {
        uint32_t id = node_new(u, parent, key);
        u->child[parent] = id;
        return id;
    }
    if (c != SPILLED) {
        if (u->t->key[c] == key)
            return c;
        if (nodes_room(u) != 0)
            return PROFKIT_NONE;
        node_place(u, parent, u->t->key[c], c);
        u->child[parent] = SPILLED;
    }
    size_t i = node_home(u, parent, key);
    for (;; i = i + 1 == u->n_slots ? 0 : i + 1) {
        node_slot *sl = &u->slots[i];
        if (sl->id == 0)
            break;
        if (sl->key == key && u->t->parent[sl->id] == parent)
            return sl->id;
    }
    if (nodes_room(u) != 0)
        return PROFKIT_NONE;
    uint32_t id = node_new(u, parent, key);
    node_place(u, parent, key, id);
    return id;
}

/* How many stacks ahead map_stacks asks for what a stack will read. */
#define PF_A 32
#define PF_B 20
#define PF_C 10

static inline void prefetch(const void *p)
{
#if defined(__GNUC__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

/*
 * *out[s] = the node of q's stack s, its frames keyed by fk. One pass over
 * the stack table: it relies on parents preceding children (pk_stack_intern
 * and _append only ever append a row whose parent exists), and refuses a
 * table that breaks it rather than walk it.
 */
static int map_stacks(nodes *u, const profkit_profile *q, const uint32_t *fk, int scattered,
                      uint32_t **out, profkit_error *err)
{
    uint32_t *stack_node = malloc((q->n_stacks ? q->n_stacks : 1) * sizeof(uint32_t));
    if (!stack_node)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory building the call tree");
    stack_node[0] = 0;
    for (size_t s = 1; s < q->n_stacks; s++) {
        const profkit_stack *st = &q->stacks[s];
        if (st->parent >= s || st->frame >= q->n_frames) {
            free(stack_node);
            return pk_error_set(err, PROFKIT_ECORRUPT, NULL, -1,
                                "stack %zu: parent %u or frame %u out of order or range", s,
                                st->parent, st->frame);
        }
        if (!scattered) {
            /* The slot of a stack further on is a cache miss: ask for it
             * now when its parent's node is known and looks in the table. */
            if (s + 16 < q->n_stacks) {
                const profkit_stack *ahead = &q->stacks[s + 16];
                if (ahead->parent < s && ahead->frame < q->n_frames &&
                    u->child[stack_node[ahead->parent]] == SPILLED)
                    node_prefetch(u, stack_node[ahead->parent], fk[ahead->frame]);
            }
        } else {
            /* Scattered, a stack's parent's node, that node's only child
             * (or its slot in the table) and the frame's key are anywhere:
             * cache misses, one after the other. Ask for them in stages:
             * PF_A stacks ahead its parent's node and frame's key, PF_B
             * ahead the parent node's child, PF_C ahead the child's key or
             * the table's slot. */
            if (s + PF_A < q->n_stacks) {
                const profkit_stack *x = &q->stacks[s + PF_A];
                if (x->parent < s)
                    prefetch(&stack_node[x->parent]);
                if (x->frame < q->n_frames)
                    prefetch(&fk[x->frame]);
            }
            if (s + PF_B < q->n_stacks) {
                const profkit_stack *x = &q->stacks[s + PF_B];
                if (x->parent < s)
                    prefetch(&u->child[stack_node[x->parent]]);
            }
            if (s + PF_C < q->n_stacks) {
                const profkit_stack *x = &q->stacks[s + PF_C];
                if (x->parent < s && x->frame < q->n_frames) {
                    uint32_t pn = stack_node[x->parent], c = u->child[pn];
                    if (c == SPILLED)
                        node_prefetch(u, pn, fk[x->frame]);
                    else if (c != 0)
                        prefetch(&u->t->key[c]);
                }
            }
        }
        uint32_t n = node_intern(u, stack_node[st->parent], fk[st->frame]);
        if (n == PROFKIT_NONE) {
            free(stack_node);
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory building the call tree");
        }
        stack_node[s] = n;
    }
    *out = stack_node;
    return 0;
}

static int by_label(const void *ctx, uint32_t x, uint32_t y)
{
    const pk_ltree *t = ctx;
    const pk_strtab *l = &t->labels;
    uint32_t lx = t->key[x], ly = t->key[y];
    size_t nx = pk_strtab_len(l, lx), ny = pk_strtab_len(l, ly);
    int c = memcmp(pk_strtab_get(l, lx), pk_strtab_get(l, ly), nx < ny ? nx : ny);
    if (c)
        return c;
    return nx < ny ? -1 : nx > ny;
}

/* Children lists (CSR), each sorted by label. */
static int build_children(pk_ltree *t)
{
    if (!(t->child_start = calloc(t->n + 1, sizeof(uint32_t))) ||
        !(t->children = malloc((t->n ? t->n : 1) * sizeof(uint32_t))))
        return PROFKIT_ENOMEM;
    for (size_t i = 1; i < t->n; i++)
        t->child_start[t->parent[i] + 1]++;
    for (size_t i = 0; i < t->n; i++)
        t->child_start[i + 1] += t->child_start[i];
    uint32_t *fill = malloc((t->n ? t->n : 1) * sizeof(uint32_t)); /* a cursor per node */
    if (!fill)
        return PROFKIT_ENOMEM;
    memcpy(fill, t->child_start, t->n * sizeof(uint32_t));
    for (size_t i = 1; i < t->n; i++)
        t->children[fill[t->parent[i]]++] = (uint32_t)i;
    free(fill);
    for (size_t i = 0; i < t->n; i++) {
        size_t a = t->child_start[i], b = t->child_start[i + 1];
        if (b - a > 1 && pk_sort_u32(t->children + a, b - a, by_label, t) != 0)
            return PROFKIT_ENOMEM;
    }
    return 0;
}

int pk_ltree_build(pk_ltree *t, const profkit_profile *p, const pk_ltree_options *o,
                   profkit_error *err)
{
    memset(t, 0, sizeof(*t));
    t->p = p;
    const profkit_profile *base = o->base;
    keyer k = { t, o, 0 };
    nodes u = { t, NULL, 0, 0, NULL };
    uint32_t *base_fk = NULL;
    int rc = PROFKIT_ENOMEM;
    /* a base and children need merged nodes; children need labels */
    if (!o->merge || o->keys == PK_LTREE_FUNCTIONS)
        base = NULL;
    if ((o->keys != PK_LTREE_FUNCTIONS && pk_strtab_init(&t->labels) != 0) ||
        !(t->frame_key = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t))))
        goto done;
    /* key 0 is the root's (the labels' ""), no frame's */
    if ((o->keys != PK_LTREE_LABELS ||
         (o->files && (o->by == PROFKIT_BY_FUNCTION || o->by == PROFKIT_BY_LINE))) &&
        key_seen(&k, 0, PROFKIT_NONE) != 0)
        goto done;
    if (frame_keys(&k, p, t->frame_key) != 0)
        goto done;
    t->n_keys_p = t->n_keys;
    if (base) {
        if (!(base_fk = malloc((base->n_frames ? base->n_frames : 1) * sizeof(uint32_t))) ||
            frame_keys(&k, base, base_fk) != 0)
            goto done;
    }
    if (!o->merge) {
        t->n = p->n_stacks;
    } else {
        /* a node per stack at most, the root shared */
        size_t max = (p->n_stacks ? p->n_stacks : 1) + (base ? base->n_stacks : 0);
        /* Nodes spill into the table where a stack comes later than
         * right after its parent (where stacks are made depth first, a
         * parent's first child does): each such stack's node is about a
         * second child, and spills it and its first sibling, so the
         * table is sized for two entries per such stack (BASE's too) at
         * two thirds full: the benchmarks' trees spill 1.3 to 1.6 entries
         * per such stack (6% of the nodes of a gperftools profile of
         * random stacks, 18% of the gperftools benchmark's, 35% of the
         * Gecko benchmark's), and a tree grown at random (Gecko's) spills
         * most of its nodes. Growing the table rehashes all it holds; it
         * grows only past that. */
        size_t later = 0, later_p = 0;
        for (int side = 0; side < (base ? 2 : 1); side++) {
            const profkit_profile *q = side ? base : p;
            uint32_t ns = q->n_stacks < PROFKIT_NONE ? (uint32_t)q->n_stacks : 0; /* (else refused below) */
            for (uint32_t s = 1; s < ns; s++)
                later += q->stacks[s].parent + 1u != s;
            if (!side)
                later_p = later;
        }
        size_t want = later < max / 3 ? 3 * later : max;
        u.n_slots = want + 4096;
        t->scattered = later_p > p->n_stacks / 4;
        if (max >= PROFKIT_NONE || !(u.slots = calloc(u.n_slots, sizeof(node_slot))) ||
            !(u.child = malloc(max * sizeof(uint32_t))) ||
            !(t->parent = malloc(max * sizeof(uint32_t))) ||
            !(t->key = malloc(max * sizeof(uint32_t))))
            goto done;
        t->parent[0] = 0;
        t->key[0] = 0;
        u.child[0] = 0;
        t->n = 1;
        if ((rc = map_stacks(&u, p, t->frame_key, t->scattered, &t->stack_node, err)) != 0 ||
            (base && (rc = map_stacks(&u, base, base_fk, t->scattered, &t->base_node, err)) != 0))
            goto fail;
        rc = PROFKIT_ENOMEM;
        if (o->keep_scratch) {
            t->scratch[0] = u.slots;
            t->scratch_size[0] = u.n_slots * sizeof(node_slot);
            t->scratch[1] = u.child;
            t->scratch_size[1] = max * sizeof(uint32_t);
        } else {
            free(u.slots);
            free(u.child);
        }
        u.slots = NULL;
        u.child = NULL;
        /* give back the arrays' unused part (nodes are often far fewer than stacks) */
        uint32_t *x;
        if (t->n < max && (x = realloc(t->parent, t->n * sizeof(uint32_t))))
            t->parent = x;
        if (t->n < max && (x = realloc(t->key, t->n * sizeof(uint32_t))))
            t->key = x;
#if defined(__GLIBC__)
        /* The table and the child array were freed last: give their pages
         * back now, not when the heap's top is free again (glibc keeps
         * freed blocks below its dynamic mmap threshold in the heap, and
         * the page's arrays come next). Only after a large tree: the
         * trim walks the heap. */
        if (max >= (1u << 18))
            malloc_trim(0);
#endif
        if (o->children && o->keys != PK_LTREE_FUNCTIONS && build_children(t) != 0)
            goto done;
    }
    if (o->values && pk_ltree_set_values(t, o->value, o->thread) != 0)
        goto done;
    rc = 0;
    goto fail;
done:
    pk_error_set(err, rc, NULL, -1, "out of memory building the call tree");
fail:
    free(u.slots);
    free(u.child);
    free(base_fk);
    if (rc)
        pk_ltree_free(t);
    return rc;
}

int64_t *pk_ltree_self(const pk_ltree *t, uint32_t value, uint32_t thread)
{
    const profkit_profile *p = t->p;
    if (!t->stack_node) {
        int64_t *self;
        return pk_stack_self(p, value, thread, &self) == 0 ? self : NULL;
    }
    int64_t *self = calloc(t->n ? t->n : 1, sizeof(int64_t));
    if (!self)
        return NULL;
    size_t nv = p->n_value_types;
    for (size_t r = 0; r < p->n_samples; r++) {
        if (thread != PROFKIT_NONE && p->sample_thread[r] != thread)
            continue;
        uint32_t s = p->sample_stack[r];
        if (s < p->n_stacks)
            pk_sat_addto(&self[t->stack_node[s]], p->sample_values[r * nv + value]);
    }
    return self;
}

int pk_ltree_set_values(pk_ltree *t, uint32_t value, uint32_t thread)
{
    int64_t *self = pk_ltree_self(t, value, thread);
    if (!self)
        return PROFKIT_ENOMEM;
    if (!t->total && !(t->total = malloc((t->n ? t->n : 1) * sizeof(int64_t)))) {
        free(self);
        return PROFKIT_ENOMEM;
    }
    free(t->self);
    t->self = self;
    memcpy(t->total, self, t->n * sizeof(int64_t));
    /* Parents precede children, so one backward pass sums totals. */
    for (size_t i = t->n; i-- > 1;)
        pk_sat_addto(&t->total[pk_ltree_parent(t, (uint32_t)i)], t->total[i]);
    t->grand_total = t->n ? t->total[0] : 0;
    return 0;
}
