/* list.c: the values `profkit list` shows, per matching function, per
 * source line and per instruction (list.h). */
#include "analysis/list.h"

#include <stdlib.h>
#include <string.h>

static int row_cmp(const void *a, const void *b)
{
    const pk_list_row *x = a, *y = b;
    if (x->function != y->function)
        return x->function < y->function ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

void pk_list_free(pk_list *l)
{
    free(l->rows);
    free(l->funcs);
    free(l->frow);
    free(l->fidx);
    memset(l, 0, sizeof(*l));
}

/* One row per (function, line) of the matching functions' frames, each
 * function's rows together and by line, and each frame's row. */
static void make_rows(pk_list *l, const profkit_profile *p, const uint8_t *match)
{
    pk_list_row *rows = l->rows;
    size_t nrows = 0;
    for (size_t i = 0; i < p->n_frames; i++)
        if (p->frames[i].function < p->n_functions && match[p->frames[i].function])
            rows[nrows++] = (pk_list_row){ p->frames[i].function, p->frames[i].line, 0, 0, 0 };
    qsort(rows, nrows, sizeof(pk_list_row), row_cmp);
    size_t k = 0;
    for (size_t i = 0; i < nrows; i++)
        if (k == 0 || row_cmp(&rows[k - 1], &rows[i]) != 0)
            rows[k++] = rows[i];
    l->n_rows = nrows = k;
    for (size_t i = 0; i < p->n_functions; i++)
        l->fidx[i] = PROFKIT_NONE;
    for (size_t i = 0; i < nrows; i++) {
        if (l->fidx[rows[i].function] == PROFKIT_NONE) {
            l->fidx[rows[i].function] = (uint32_t)l->n_funcs;
            l->funcs[l->n_funcs++] = (pk_list_func){ rows[i].function, 0, 0, 0, i, 0 };
        }
        l->funcs[l->fidx[rows[i].function]].n++;
    }
    for (size_t i = 0; i < p->n_frames; i++) {
        l->frow[i] = PROFKIT_NONE;
        const profkit_frame *fr = &p->frames[i];
        if (fr->function < p->n_functions && match[fr->function]) {
            const pk_list_func *lf = &l->funcs[l->fidx[fr->function]];
            pk_list_row key = { fr->function, fr->line, 0, 0, 0 };
            pk_list_row *hit = bsearch(&key, rows + lf->first, lf->n, sizeof(pk_list_row), row_cmp);
            l->frow[i] = (uint32_t)(hit - rows);
        }
    }
}

/* The samples: flat where a line is the leaf, cum once per sample. */
static void add_samples(pk_list *l, const profkit_profile *p, uint32_t v, uint32_t th)
{
    size_t nv = p->n_value_types;
    for (size_t r = 0; r < p->n_samples; r++) {
        if (th != PROFKIT_NONE && p->sample_thread[r] != th)
            continue;
        int64_t val = p->sample_values[r * nv + v];
        if (!val)
            continue;
        l->total += val;
        int leaf = 1;
        for (uint32_t s = p->sample_stack[r]; s != 0 && s < p->n_stacks; s = p->stacks[s].parent, leaf = 0) {
            uint32_t f = p->stacks[s].frame;
            if (f >= p->n_frames || l->frow[f] == PROFKIT_NONE)
                continue;
            pk_list_row *row = &l->rows[l->frow[f]];
            pk_list_func *lf = &l->funcs[l->fidx[row->function]];
            if (leaf) {
                row->flat += val;
                lf->flat += val;
            }
            if (row->stamp != r + 1) {
                row->stamp = r + 1;
                row->cum += val;
            }
            if (lf->stamp != r + 1) {
                lf->stamp = r + 1;
                lf->cum += val;
            }
        }
    }
}

int pk_list_compute(pk_list *l, const profkit_profile *p, const regex_t *re, uint32_t value,
                    uint32_t thread, size_t limit)
{
    memset(l, 0, sizeof(*l));
    uint8_t *match = calloc(p->n_functions ? p->n_functions : 1, 1);
    l->frow = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t));
    l->fidx = malloc((p->n_functions ? p->n_functions : 1) * sizeof(uint32_t));
    l->rows = calloc(p->n_frames ? p->n_frames : 1, sizeof(pk_list_row));
    l->funcs = calloc(p->n_functions ? p->n_functions : 1, sizeof(pk_list_func));
    if (!match || !l->frow || !l->fidx || !l->rows || !l->funcs) {
        free(match);
        return PROFKIT_ENOMEM;
    }
    for (size_t i = 0; i < p->n_functions; i++)
        match[i] = regexec(re, pk_str(p, p->functions[i].name), 0, NULL, 0) == 0;
    make_rows(l, p, match);
    free(match);
    add_samples(l, p, value, thread);
    /* functions by |cum| (a difference of two profiles has negative
     * values), then name */
    pk_list_func *funcs = l->funcs;
    for (size_t i = 1; i < l->n_funcs; i++)
        for (size_t j = i; j > 0; j--) {
            pk_list_func *a = &funcs[j - 1], *b = &funcs[j];
            uint64_t ca = a->cum < 0 ? 0 - (uint64_t)a->cum : (uint64_t)a->cum;
            uint64_t cb = b->cum < 0 ? 0 - (uint64_t)b->cum : (uint64_t)b->cum;
            int sw = ca < cb ||
                     (ca == cb && strcmp(pk_str(p, p->functions[a->function].name),
                                         pk_str(p, p->functions[b->function].name)) > 0);
            if (!sw)
                break;
            pk_list_func t = *a;
            *a = *b;
            *b = t;
        }
    for (size_t i = 0; i < l->n_funcs; i++) /* the sort moved them */
        l->fidx[funcs[i].function] = (uint32_t)i;
    while (l->n_shown < l->n_funcs && (funcs[l->n_shown].cum || funcs[l->n_shown].flat) &&
           (!limit || l->n_shown < limit))
        l->n_shown++;
    return 0;
}

/* The instruction of c holding address a, or -1. */
static long insn_at(const pk_list_code *c, uint64_t a)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->addr[mid] <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || a - c->addr[lo - 1] >= c->size[lo - 1])
        return -1;
    return (long)(lo - 1);
}

int pk_list_code_values(const pk_list *l, const profkit_profile *p, uint32_t v, uint32_t th,
                        pk_list_code *code)
{
    size_t **stamps = calloc(l->n_shown ? l->n_shown : 1, sizeof(size_t *));
    int rc = PROFKIT_ENOMEM;
    if (!stamps)
        return rc;
    for (size_t k = 0; k < l->n_shown; k++) {
        pk_list_code *c = &code[k];
        c->off_flat = c->off_cum = 0;
        if (c->n && (!(c->flat = calloc(c->n, sizeof(int64_t))) ||
                     !(c->cum = calloc(c->n, sizeof(int64_t))) ||
                     !(stamps[k] = calloc(c->n, sizeof(size_t)))))
            goto done;
    }
    size_t nv = p->n_value_types;
    for (size_t r = 0; r < p->n_samples; r++) {
        if (th != PROFKIT_NONE && p->sample_thread[r] != th)
            continue;
        int64_t val = p->sample_values[r * nv + v];
        if (!val)
            continue;
        /* leaf: the sample's leaf frame; at_leaf: it or a frame it is inlined
         * into (same address, looked up as is, not as a return address) */
        int leaf = 1, at_leaf = 1;
        for (uint32_t s = p->sample_stack[r]; s != 0 && s < p->n_stacks; s = p->stacks[s].parent, leaf = 0) {
            uint32_t f = p->stacks[s].frame;
            int here = at_leaf;
            at_leaf = at_leaf && f < p->n_frames && p->frames[f].inline_depth > 0;
            if (f >= p->n_frames || l->frow[f] == PROFKIT_NONE)
                continue;
            uint32_t k = l->fidx[l->rows[l->frow[f]].function];
            if (k >= l->n_shown)
                continue;
            pk_list_code *c = &code[k];
            uint64_t a = p->frames[f].address;
            long at = a && c->n ? insn_at(c, here ? a : a - 1) : -1;
            if (at < 0) {
                c->off_flat += leaf ? val : 0;
                c->off_cum += val; /* shown only when some value is off the instructions */
                continue;
            }
            if (leaf)
                c->flat[at] += val;
            if (stamps[k][at] != r + 1) {
                stamps[k][at] = r + 1;
                c->cum[at] += val;
            }
        }
    }
    rc = 0;
done:
    for (size_t k = 0; k < l->n_shown; k++)
        free(stamps[k]);
    free(stamps);
    return rc;
}
