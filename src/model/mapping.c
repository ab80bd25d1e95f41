/*
 * mapping.c: which mapping holds an address, for frames that name none.
 *
 * Some readers give frames an address but no mapping (raw Gecko's native
 * frames, pprof locations with mapping_id 0); symbolization then looks the
 * address up among the profile's mappings. After a merge that lookup would
 * search every input's mappings, and a frame of one program could land in
 * another program's mapping (two binaries both loaded at 0x400000). So a
 * merge settles each input's frames against that input's own mappings
 * first (pk_profile_settle_mappings) and marks the result: a frame's
 * mapping is then final, and no later step guesses one.
 */
#include <stdlib.h>

#include "model/model.h"

static int by_start(const void *ctx, uint32_t a, uint32_t b)
{
    const profkit_profile *p = ctx;
    uint64_t x = p->mappings[a].start, y = p->mappings[b].start;
    return x < y ? -1 : x > y;
}

uint32_t *pk_mappings_by_start(const profkit_profile *p)
{
    uint32_t *ids = malloc((p->n_mappings + 1) * sizeof(uint32_t));
    if (!ids)
        return NULL;
    for (size_t m = 0; m < p->n_mappings; m++)
        ids[m] = (uint32_t)m;
    if (pk_sort_u32(ids, p->n_mappings, by_start, p) != 0) {
        free(ids);
        return NULL;
    }
    return ids;
}

uint32_t pk_mapping_at(const profkit_profile *p, const uint32_t *sorted, uint64_t addr)
{
    size_t lo = 0, hi = p->n_mappings;
    while (lo < hi) { /* the first mapping that starts past addr */
        size_t mid = lo + (hi - lo) / 2;
        if (p->mappings[sorted[mid]].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Mappings may overlap: the few that start before addr, nearest first. */
    for (size_t k = lo; k-- > 0;) {
        const profkit_mapping *m = &p->mappings[sorted[k]];
        if (addr >= m->start && addr < m->end)
            return sorted[k];
        if (lo - k > 4)
            break;
    }
    return PROFKIT_NONE;
}

int pk_profile_settle_mappings(profkit_profile *p)
{
    if (p->mappings_settled)
        return 0;
    if (p->n_mappings) {
        uint32_t *sorted = pk_mappings_by_start(p);
        if (!sorted)
            return PROFKIT_ENOMEM;
        int changed = 0;
        for (size_t f = 0; f < p->n_frames; f++) {
            profkit_frame *fr = &p->frames[f];
            if (fr->address && fr->mapping >= p->n_mappings) {
                uint32_t m = pk_mapping_at(p, sorted, fr->address);
                if (m != PROFKIT_NONE) {
                    fr->mapping = m;
                    changed = 1;
                }
            }
        }
        free(sorted);
        if (changed && pk_profile_reindex_frames(p) != 0)
            return PROFKIT_ENOMEM;
    }
    p->mappings_settled = 1;
    return 0;
}
