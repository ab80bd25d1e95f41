/* inline_marks.c: which keys the reports mark inlined; see analysis.h. */
#include "analysis/analysis.h"

#include <stdlib.h>

int pk_key_inline(const profkit_profile *p, const uint32_t *frame_key, size_t n_keys, uint32_t value,
                  uint32_t thread, unsigned char **out)
{
    *out = NULL;
    int any = 0;
    for (size_t f = 0; f < p->n_frames && !any; f++)
        any = p->frames[f].inline_depth > 0;
    if (!any || !frame_key)
        return 0;
    unsigned char *seen = calloc(p->n_stacks ? p->n_stacks : 1, 1);
    unsigned char *flags = calloc(n_keys ? n_keys : 1, 1);
    if (!seen || !flags) {
        free(seen);
        free(flags);
        return PROFKIT_ENOMEM;
    }
    /* the stacks of rows with a value, and their prefixes: the calls made */
    size_t nv = p->n_value_types;
    for (size_t r = 0; r < p->n_samples; r++) {
        if ((thread != PROFKIT_NONE && p->sample_thread[r] != thread) ||
            p->sample_values[r * nv + value] == 0)
            continue;
        for (uint32_t s = p->sample_stack[r]; s != 0 && s < p->n_stacks && !seen[s];
             s = p->stacks[s].parent)
            seen[s] = 1;
    }
    /* each call into a key: inlined (1) or a real call (2) */
    for (size_t s = 1; s < p->n_stacks; s++) {
        uint32_t f = p->stacks[s].frame;
        if (!seen[s] || p->stacks[s].parent == 0 || f >= p->n_frames || frame_key[f] >= n_keys)
            continue;
        flags[frame_key[f]] |= p->frames[f].inline_depth > 0 ? 1 : 2;
    }
    for (size_t k = 0; k < n_keys; k++)
        flags[k] = flags[k] == 1 ? PK_INLINE_ALL : flags[k] == 3 ? PK_INLINE_SOME : 0;
    free(seen);
    *out = flags;
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
