/* inline_marks.c: which keys and nodes the reports mark inlined; see
 * analysis.h. */
#include "analysis/analysis.h"

#include <stdlib.h>

int pk_inline_any(const profkit_profile *p)
{
    for (size_t f = 0; f < p->n_frames; f++)
        if (p->frames[f].inline_depth > 0)
            return 1;
    return 0;
}

void pk_inline_calls(const profkit_profile *p, const uint32_t *rows, size_t n_rows, uint32_t value,
                     uint32_t thread, uint8_t *seen, pk_inline_visit visit, void *ctx)
{
    size_t nv = p->n_value_types;
    if (!rows)
        n_rows = p->n_samples;
    if (value != PROFKIT_NONE && value >= nv)
        return;
    for (size_t i = 0; i < n_rows; i++) {
        size_t r = rows ? rows[i] : i;
        if (r >= p->n_samples || (thread != PROFKIT_NONE && p->sample_thread[r] != thread) ||
            (value != PROFKIT_NONE && p->sample_values[r * nv + value] == 0))
            continue;
        /* the row's stack and its prefixes: the calls made (a stack met
         * before had its prefixes met then) */
        for (uint32_t s = p->sample_stack[r]; s != 0 && s < p->n_stacks && !(seen[s >> 3] & (1u << (s & 7)));
             s = p->stacks[s].parent) {
            seen[s >> 3] |= (uint8_t)(1u << (s & 7));
            uint32_t f = p->stacks[s].frame;
            if (f < p->n_frames)
                visit(ctx, s, p->frames[f].inline_depth > 0 ? PK_CALL_INLINED : PK_CALL_REAL);
        }
    }
}

struct key_ctx {
    const profkit_profile *p;
    const uint32_t *frame_key;
    size_t n_keys;
    unsigned char *flags;
};

/* a call into a key from a caller (not at the root) */
static void key_visit(void *ctx, uint32_t s, unsigned bits)
{
    struct key_ctx *c = ctx;
    uint32_t f = c->p->stacks[s].frame;
    if (c->p->stacks[s].parent != 0 && c->frame_key[f] < c->n_keys)
        c->flags[c->frame_key[f]] |= (unsigned char)bits;
}

int pk_key_inline(const profkit_profile *p, const uint32_t *frame_key, size_t n_keys, uint32_t value,
                  uint32_t thread, unsigned char **out)
{
    *out = NULL;
    if (!frame_key || !pk_inline_any(p))
        return 0;
    uint8_t *seen = calloc(p->n_stacks / 8 + 1, 1);
    unsigned char *flags = calloc(n_keys ? n_keys : 1, 1);
    if (!seen || !flags) {
        free(seen);
        free(flags);
        return PROFKIT_ENOMEM;
    }
    struct key_ctx c = { p, frame_key, n_keys, flags };
    pk_inline_calls(p, NULL, 0, value, thread, seen, key_visit, &c);
    for (size_t k = 0; k < n_keys; k++)
        flags[k] = pk_inline_flag(flags[k]);
    free(seen);
    *out = flags;
    return 0;
}

struct node_ctx {
    const pk_ltree *t;
    unsigned char *m;
};

static void node_visit(void *ctx, uint32_t s, unsigned bits)
{
    struct node_ctx *c = ctx;
    uint32_t u = pk_ltree_node(c->t, s);
    if (u < c->t->n)
        c->m[u] |= (unsigned char)bits;
}

int pk_node_inline(const profkit_profile *p, const pk_ltree *t, uint32_t value, uint32_t thread,
                   unsigned char **out)
{
    *out = NULL;
    if (!pk_inline_any(p))
        return 0;
    uint8_t *seen = calloc(p->n_stacks / 8 + 1, 1);
    unsigned char *m = calloc(t->n ? t->n : 1, 1);
    if (!seen || !m) {
        free(seen);
        free(m);
        return PROFKIT_ENOMEM;
    }
    struct node_ctx c = { t, m };
    pk_inline_calls(p, NULL, 0, value, thread, seen, node_visit, &c);
    for (size_t u = 0; u < t->n; u++)
        m[u] = pk_inline_flag(m[u]);
    free(seen);
    *out = m;
    return 0;
}

const char *pk_inline_mark(const unsigned char *marks, uint32_t k)
{
    if (!marks)
        return "";
    return marks[k] == PK_INLINE_ALL ? " (inline)" : marks[k] == PK_INLINE_SOME ? " (partial-inline)" : "";
}

const char *pk_inline_json(const unsigned char *marks, uint32_t k)
{
    if (!marks)
        return NULL;
    return marks[k] == PK_INLINE_ALL ? "all" : marks[k] == PK_INLINE_SOME ? "partial" : NULL;
}
