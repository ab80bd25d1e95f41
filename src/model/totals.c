/*
 * totals.c: the whole profile's totals, kept before its first filter or
 * transform (analysis/filter.c, analysis/transform.c), which the reports'
 * percentages are of, as pprof's are (docs/transforms.md).
 */
#include "model/model.h"

#include <stdlib.h>

int pk_note_whole_totals(profkit_profile *p)
{
    if (p->whole_totals)
        return 0;
    size_t nt = p->n_threads, nv = p->n_value_types;
    int64_t *w = calloc((nt + 1) * (nv ? nv : 1), sizeof(int64_t));
    if (!w)
        return PROFKIT_ENOMEM;
    for (size_t r = 0; r < p->n_samples; r++) {
        const int64_t *v = p->sample_values + r * nv;
        uint32_t t = p->sample_thread[r];
        for (size_t k = 0; k < nv; k++) {
            if (t < nt)
                pk_sat_addto(&w[t * nv + k], v[k]);
            pk_sat_addto(&w[nt * nv + k], v[k]);
        }
    }
    p->whole_totals = w;
    p->whole_threads = nt;
    p->whole_values = nv;
    return 0;
}

int64_t pk_percent_total(const profkit_profile *p, uint32_t value, uint32_t thread, int64_t total)
{
    if (!p->whole_totals || value >= p->whole_values)
        return total;
    if (thread == PROFKIT_NONE)
        return p->whole_totals[p->whole_threads * p->whole_values + value];
    if (thread >= p->whole_threads)
        return total;
    return p->whole_totals[thread * p->whole_values + value];
}

int profkit_profile_whole_total(const profkit_profile *p, uint32_t value, uint32_t thread,
                                int64_t *out)
{
    if (!p->whole_totals || value >= p->whole_values ||
        (thread != PROFKIT_NONE && thread >= p->whole_threads))
        return 0;
    *out = pk_percent_total(p, value, thread, 0);
    return 1;
}

void profkit_profile_drop_whole_total(profkit_profile *p)
{
    free(p->whole_totals);
    p->whole_totals = NULL;
    p->whole_threads = p->whole_values = 0;
}
