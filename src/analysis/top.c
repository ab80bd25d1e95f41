/* top.c: flat and cumulative values per function, file, line, address or module. */
#include "analysis/analysis.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

size_t pk_frame_key_label(const profkit_profile *p, uint32_t frame, profkit_key by, char *buf,
                               size_t n)
{
    const profkit_frame *fr = &p->frames[frame];
    const profkit_function *fn = &p->functions[fr->function];
    int w = -1;
    switch (by) {
    case PROFKIT_BY_FILE:
        if (fn->file)
            w = snprintf(buf, n, "%s", pk_str(p, fn->file));
        else if (fn->module)
            w = snprintf(buf, n, "%s", pk_str(p, fn->module));
        else if (fr->mapping != PROFKIT_NONE && fr->mapping < p->n_mappings &&
                 p->mappings[fr->mapping].path)
            w = snprintf(buf, n, "%s", pk_str(p, p->mappings[fr->mapping].path));
        else
            w = snprintf(buf, n, "(unknown file)");
        break;
    case PROFKIT_BY_LINE:
        if (fn->file && fr->line) {
            w = fr->column ? snprintf(buf, n, "%s:%u:%u", pk_str(p, fn->file), fr->line, fr->column)
                           : snprintf(buf, n, "%s:%u", pk_str(p, fn->file), fr->line);
            break;
        }
        return pk_frame_label(p, frame, 1, buf, n);
    case PROFKIT_BY_MODULE: /* the binary or image: the function's, else the mapping's */
        if (fn->module)
            w = snprintf(buf, n, "%s", pk_str(p, fn->module));
        else if (fr->mapping != PROFKIT_NONE && fr->mapping < p->n_mappings &&
                 p->mappings[fr->mapping].path)
            w = snprintf(buf, n, "%s", pk_str(p, p->mappings[fr->mapping].path));
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

void pk_top_free(pk_top *t)
{
    pk_strtab_free(&t->keys);
    free(t->rows);
    free(t->frame_key);
    memset(t, 0, sizeof(*t));
}

/*
 * Flat and cumulative values in one pass over the stack tree, whatever its
 * depth: self values sit on the nodes, a node's total is its subtree's sum
 * (children before parents), and a key's cumulative value is the sum of the
 * totals of its topmost nodes, those with no ancestor of the same key
 * (recursion counts once). A depth-first walk keeps, per key, how many
 * nodes of the current path have it. Summing each sample's whole stack
 * instead costs the depth per node: quadratic on a deep chain with a value
 * at every level.
 */
static int cumulate(pk_top *t, const profkit_profile *p, const int64_t *self)
{
    size_t ns = p->n_stacks;
    int rc = PROFKIT_ENOMEM;
    uint32_t *first = NULL, *next = NULL, *on_path = NULL, *path = NULL;
    int64_t *total = NULL;
    if (ns < 2)
        return 0;
    if (!(first = malloc(ns * sizeof(uint32_t))) || !(next = malloc(ns * sizeof(uint32_t))) ||
        !(on_path = calloc(t->n, sizeof(uint32_t))) || !(path = malloc(ns * sizeof(uint32_t))) ||
        !(total = malloc(ns * sizeof(int64_t))))
        goto out;
    /* children as linked lists: first[parent], next[sibling] */
    for (size_t s = 0; s < ns; s++)
        first[s] = PROFKIT_NONE;
    for (size_t s = ns; s-- > 1;) {
        uint32_t par = p->stacks[s].parent;
        if (par >= ns || par == s) /* not in the tree: counted as a child of the root */
            par = 0;
        next[s] = first[par];
        first[par] = (uint32_t)s;
    }
    /* path[0..d) is the current path below the root; first[] is consumed as
     * each node's next child to visit. */
    size_t d = 0;
    uint32_t child = first[0];
    first[0] = PROFKIT_NONE;
    for (;;) {
        if (child != PROFKIT_NONE) {
            uint32_t s = child;
            uint32_t k = t->frame_key[p->stacks[s].frame];
            total[s] = self[s];
            if (self[s]) {
                pk_sat_addto(&t->total, self[s]);
                pk_sat_addto(&t->rows[k].flat, self[s]);
            }
            on_path[k]++;
            path[d++] = s;
            child = first[s];
            first[s] = PROFKIT_NONE;
            continue;
        }
        if (d == 0)
            break;
        uint32_t s = path[--d];
        uint32_t k = t->frame_key[p->stacks[s].frame];
        if (--on_path[k] == 0) /* no ancestor has this key: topmost */
            pk_sat_addto(&t->rows[k].cum, total[s]);
        if (d > 0)
            pk_sat_addto(&total[path[d - 1]], total[s]);
        child = next[s];
    }
    rc = 0;
out:
    free(first);
    free(next);
    free(on_path);
    free(path);
    free(total);
    return rc;
}

int pk_top_compute(pk_top *t, const profkit_profile *p, uint32_t value, uint32_t thread,
                        profkit_key by, profkit_error *err)
{
    memset(t, 0, sizeof(*t));
    int64_t *self = NULL;
    int rc = PROFKIT_ENOMEM;
    char buf[4096];
    if (pk_strtab_init(&t->keys) != 0 ||
        !(t->frame_key = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t))))
        goto done;
    for (size_t f = 0; f < p->n_frames; f++) {
        size_t len = pk_frame_key_label(p, (uint32_t)f, by, buf, sizeof(buf));
        if ((t->frame_key[f] = pk_strtab_intern(&t->keys, buf, len)) == PROFKIT_NONE)
            goto done;
    }
    /* Key 0 is "" (the string table's own); it only names frames without
     * any label, which cannot happen: labels fall back to the address. */
    t->n = t->keys.n;
    if (!(t->rows = calloc(t->n, sizeof(*t->rows))) ||
        pk_stack_self(p, value, thread, &self) != 0)
        goto done;
    for (size_t k = 0; k < t->n; k++)
        t->rows[k].key = (uint32_t)k;
    if (cumulate(t, p, self) != 0)
        goto done;
    pk_sat_addto(&t->total, self[0]); /* samples with an empty stack count in the total */
    rc = 0;
done:
    free(self);
    if (rc) {
        pk_top_free(t);
        pk_error_set(err, rc, NULL, -1, "out of memory computing top");
    }
    return rc;
}

struct sort_ctx {
    const pk_top *t;
    int by_cum;
};

static int row_cmp(const void *ctx, uint32_t a, uint32_t b)
{
    const struct sort_ctx *c = ctx;
    const pk_top_row *x = &c->t->rows[a], *y = &c->t->rows[b];
    int64_t vx = c->by_cum ? x->cum : x->flat, vy = c->by_cum ? y->cum : y->flat;
    if (vx != vy)
        return vx > vy ? -1 : 1;
    int64_t wx = c->by_cum ? x->flat : x->cum, wy = c->by_cum ? y->flat : y->cum;
    if (wx != wy)
        return wx > wy ? -1 : 1;
    return strcmp(pk_strtab_get(&c->t->keys, x->key), pk_strtab_get(&c->t->keys, y->key));
}

int pk_top_sort(const pk_top *t, uint32_t *order, int by_cum)
{
    for (size_t i = 0; i < t->n; i++)
        order[i] = (uint32_t)i;
    struct sort_ctx c = { t, by_cum };
    return pk_sort_u32(order, t->n, row_cmp, &c);
}

/* Max-heap of row indexes by row_cmp (the row that sorts last on top). */
static void heap_down(uint32_t *h, size_t n, size_t i, const struct sort_ctx *c)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && row_cmp(c, h[l], h[m]) > 0)
            m = l;
        if (l + 1 < n && row_cmp(c, h[l + 1], h[m]) > 0)
            m = l + 1;
        if (m == i)
            return;
        uint32_t x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

int pk_top_sort_first(const pk_top *t, uint32_t *order, int by_cum, size_t first)
{
    size_t n = t->n;
    if (first >= n / 4)
        return pk_top_sort(t, order, by_cum);
    struct sort_ctx c = { t, by_cum };
    /* order[0..first) is the heap of the best rows seen so far; a row that
     * sorts before its top replaces the top, which goes to the back part. */
    size_t back = first;
    for (size_t i = 0; i < first; i++)
        order[i] = (uint32_t)i;
    for (size_t i = first / 2; i-- > 0;)
        heap_down(order, first, i, &c);
    for (size_t i = first; i < n; i++) {
        uint32_t x = (uint32_t)i;
        if (first > 0 && row_cmp(&c, x, order[0]) < 0) {
            uint32_t out = order[0];
            order[0] = x;
            heap_down(order, first, 0, &c);
            x = out;
        }
        order[back++] = x;
    }
    return pk_sort_u32(order, first, row_cmp, &c);
}

