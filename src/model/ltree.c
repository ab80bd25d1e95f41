/* ltree.c: the call tree with frames merged by label; see ltree.h. */
#include "model/ltree.h"

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

struct node_key {
    uint32_t parent, label;
};

static int node_eq(const void *ctx, uint32_t id, const void *key)
{
    const pk_ltree *t = ctx;
    const struct node_key *k = key;
    return t->parent[id] == k->parent && t->label[id] == k->label;
}

static int by_label(const void *ctx, uint32_t x, uint32_t y)
{
    const pk_ltree *t = ctx;
    const pk_strtab *l = &t->labels;
    uint32_t lx = t->label[x], ly = t->label[y];
    size_t nx = pk_strtab_len(l, lx), ny = pk_strtab_len(l, ly);
    int c = memcmp(pk_strtab_get(l, lx), pk_strtab_get(l, ly), nx < ny ? nx : ny);
    if (c)
        return c;
    return nx < ny ? -1 : nx > ny;
}

void pk_ltree_free(pk_ltree *t)
{
    free(t->parent);
    free(t->label);
    free(t->frame);
    free(t->self);
    free(t->total);
    free(t->child_start);
    free(t->children);
    free(t->stack_node);
    pk_strtab_free(&t->labels);
    memset(t, 0, sizeof(*t));
}

int pk_ltree_build(pk_ltree *t, const profkit_profile *p,
                        const pk_ltree_options *o, profkit_error *err)
{
    memset(t, 0, sizeof(*t));
    int64_t *stack_self = NULL;
    uint32_t *frame_label = NULL, *stack_node = NULL;
    pk_idset set = { 0 };
    int rc = PROFKIT_ENOMEM;
    size_t ns = p->n_stacks;
    char buf[4096];

    if (pk_strtab_init(&t->labels) != 0 ||
        pk_stack_self(p, o->value, o->thread, &stack_self) != 0 ||
        !(frame_label = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t))) ||
        !(stack_node = malloc(ns * sizeof(uint32_t))))
        goto done;
    for (size_t f = 0; f < p->n_frames; f++) {
        size_t len = pk_frame_label(p, (uint32_t)f, o->by_line, buf, sizeof(buf));
        if (o->sanitize)
            for (size_t i = 0; i < len; i++)
                if (buf[i] == ';' || buf[i] == '\n' || buf[i] == '\r')
                    buf[i] = '_';
        if ((frame_label[f] = pk_strtab_intern(&t->labels, buf, len)) == PROFKIT_NONE)
            goto done;
    }
    /* Nodes are at most the stacks; allocate once. */
    if (!(t->parent = malloc(ns * sizeof(uint32_t))) || !(t->label = malloc(ns * sizeof(uint32_t))) ||
        !(t->frame = malloc(ns * sizeof(uint32_t))) || !(t->self = calloc(ns, sizeof(int64_t))) ||
        !(t->total = calloc(ns, sizeof(int64_t))))
        goto done;
    t->parent[0] = 0;
    t->label[0] = 0;
    t->frame[0] = PROFKIT_NONE;
    t->n = 1;
    stack_node[0] = 0;
    /* Interning appends, so a stack's parent always has a smaller id. */
    for (size_t s = 1; s < ns; s++) {
        const profkit_stack *st = &p->stacks[s];
        struct node_key k = { stack_node[st->parent], frame_label[st->frame] };
        uint64_t h = pk_hash_u64(((uint64_t)k.parent << 32) | k.label);
        uint32_t id = pk_idset_find(&set, h, node_eq, t, &k);
        if (id == PROFKIT_NONE) {
            id = (uint32_t)t->n++;
            t->parent[id] = k.parent;
            t->label[id] = k.label;
            t->frame[id] = st->frame;
            if (pk_idset_insert(&set, h, id) != 0)
                goto done;
        }
        stack_node[s] = id;
    }
    for (size_t s = 0; s < ns; s++)
        pk_sat_addto(&t->self[stack_node[s]], stack_self[s]);
    /* Parents precede children, so one backward pass sums totals. */
    for (size_t i = t->n; i-- > 0;) {
        pk_sat_addto(&t->total[i], t->self[i]);
        if (i)
            pk_sat_addto(&t->total[t->parent[i]], t->total[i]);
    }
    t->grand_total = t->total[0];
    /* Children lists (CSR), sorted by label. */
    if (!(t->child_start = calloc(t->n + 1, sizeof(uint32_t))) ||
        !(t->children = malloc(t->n * sizeof(uint32_t))))
        goto done;
    for (size_t i = 1; i < t->n; i++)
        t->child_start[t->parent[i] + 1]++;
    for (size_t i = 0; i < t->n; i++)
        t->child_start[i + 1] += t->child_start[i];
    {
        /* a cursor per node */
        uint32_t *fill = malloc(t->n * sizeof(uint32_t));
        if (!fill)
            goto done;
        for (size_t i = 0; i < t->n; i++)
            fill[i] = t->child_start[i];
        for (size_t i = 1; i < t->n; i++)
            t->children[fill[t->parent[i]]++] = (uint32_t)i;
        free(fill);
    }
    for (size_t i = 0; i < t->n; i++) {
        size_t a = t->child_start[i], b = t->child_start[i + 1];
        if (b - a > 1 && pk_sort_u32(t->children + a, b - a, by_label, t) != 0)
            goto done;
    }
    t->stack_node = stack_node;
    stack_node = NULL;
    rc = 0;
done:
    free(stack_self);
    free(frame_label);
    free(stack_node);
    pk_idset_free(&set);
    if (rc) {
        pk_ltree_free(t);
        pk_error_set(err, rc, NULL, -1, "out of memory building the call tree");
    }
    return rc;
}

int64_t *pk_ltree_self(const pk_ltree *t, const profkit_profile *p, uint32_t value,
                            uint32_t thread)
{
    int64_t *stack_self = NULL, *self = calloc(t->n ? t->n : 1, sizeof(int64_t));
    if (!self || pk_stack_self(p, value, thread, &stack_self) != 0) {
        free(self);
        return NULL;
    }
    for (size_t s = 0; s < p->n_stacks; s++)
        pk_sat_addto(&self[t->stack_node[s]], stack_self[s]);
    free(stack_self);
    return self;
}
