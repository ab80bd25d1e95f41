/*
 * merge.c: merging one profile into another. Every id of the source is
 * remapped through the destination's hash-consed tables, so equal functions,
 * frames and stacks become one, and equal untimed sample rows are summed.
 */
#include "model/model.h"

#include <stdlib.h>

struct remap {
    uint32_t *str, *func, *frame, *stack, *thread, *value, *mapping, *labelset, *category;
};

static void remap_free(struct remap *m)
{
    free(m->str);
    free(m->func);
    free(m->frame);
    free(m->stack);
    free(m->thread);
    free(m->value);
    free(m->mapping);
    free(m->labelset);
    free(m->category);
}

/* Each of src's label sets as a set of dst (m->str already made). */
static int remap_labelsets(profkit_profile *dst, const profkit_profile *src, struct remap *m)
{
    if (src->n_labelsets == 0)
        return 0;
    if (!(m->labelset = malloc(src->n_labelsets * sizeof(uint32_t))))
        return PROFKIT_ENOMEM;
    profkit_label *tmp = NULL;
    size_t cap = 0;
    m->labelset[0] = 0;
    for (size_t i = 1; i < src->n_labelsets; i++) {
        size_t n = 0;
        const profkit_label *l = profkit_profile_labelset(src, (uint32_t)i, &n);
        if (PK_VEC_RESERVE(tmp, 0, cap, n) != 0) {
            free(tmp);
            return PROFKIT_ENOMEM;
        }
        for (size_t k = 0; k < n; k++) {
            tmp[k] = l[k];
            tmp[k].key = m->str[l[k].key];
            tmp[k].str = m->str[l[k].str];
            tmp[k].unit = m->str[l[k].unit];
        }
        if ((m->labelset[i] = pk_labelset_intern(dst, tmp, n)) == PROFKIT_NONE) {
            free(tmp);
            return PROFKIT_ENOMEM;
        }
    }
    free(tmp);
    return 0;
}

static uint32_t *alloc_ids(size_t n)
{
    return malloc((n ? n : 1) * sizeof(uint32_t));
}

int profkit_profile_merge(profkit_profile *dst, const profkit_profile *src, profkit_error *err)
{
    struct remap m = { 0 };
    int rc = PROFKIT_ENOMEM;
    int64_t *vals = NULL;
    uint32_t *src_maps = NULL;

    /* Each side's frames without a mapping get one of that side's own
     * mappings, before the mappings of both are in one table (mapping.c). */
    if ((rc = pk_profile_settle_mappings(dst)) != 0)
        goto done;
    rc = PROFKIT_ENOMEM;
    if (!(m.str = alloc_ids(src->strings.n)) || !(m.func = alloc_ids(src->n_functions)) ||
        !(m.frame = alloc_ids(src->n_frames)) || !(m.stack = alloc_ids(src->n_stacks)) ||
        !(m.thread = alloc_ids(src->n_threads)) || !(m.value = alloc_ids(src->n_value_types)) ||
        !(m.mapping = alloc_ids(src->n_mappings)))
        goto done;

    for (size_t i = 0; i < src->strings.n; i++) {
        m.str[i] = pk_strtab_intern(&dst->strings, src->strings.ptr[i], src->strings.len[i]);
        if (m.str[i] == PROFKIT_NONE)
            goto done;
    }
    if (remap_labelsets(dst, src, &m) != 0)
        goto done;
    for (size_t i = 0; i < src->n_functions; i++) {
        profkit_function f = src->functions[i];
        f.name = m.str[f.name];
        f.system_name = m.str[f.system_name];
        f.file = m.str[f.file];
        f.module = m.str[f.module];
        if ((m.func[i] = pk_function_add(dst, &f)) == PROFKIT_NONE)
            goto done;
    }
    for (size_t i = 0; i < src->n_mappings; i++) {
        const profkit_mapping *mp = &src->mappings[i];
        m.mapping[i] = pk_mapping_add(dst, mp->start, mp->end, mp->offset,
                                           pk_str(src, mp->path), pk_str(src, mp->build_id));
        if (m.mapping[i] == PROFKIT_NONE)
            goto done;
    }
    if (!src->mappings_settled && src->n_mappings && !(src_maps = pk_mappings_by_start(src)))
        goto done;
    /* Frame categories: by name; one dst lacks is added with its subcategories. */
    if (src->n_categories && !(m.category = alloc_ids(src->n_categories)))
        goto done;
    for (size_t i = 0; i < src->n_categories; i++) {
        const profkit_category *c = &src->categories[i];
        uint32_t k = profkit_profile_category_find(dst, pk_str(src, c->name));
        if (k == PROFKIT_NONE) {
            uint32_t *subs = alloc_ids(c->n_subcategories);
            if (!subs)
                goto done;
            for (uint32_t j = 0; j < c->n_subcategories; j++)
                subs[j] = m.str[src->subcategories[c->first_subcategory + j]];
            k = pk_category_add(dst, m.str[c->name], m.str[c->color], subs, c->n_subcategories);
            free(subs);
        }
        m.category[i] = k;
    }
    for (size_t i = 0; i < src->n_frames; i++) {
        profkit_frame f = src->frames[i];
        f.function = m.func[f.function];
        if (f.category) {
            uint32_t k = f.category <= src->n_categories ? m.category[f.category - 1] : PROFKIT_NONE;
            f.category = k == PROFKIT_NONE ? 0 : (uint16_t)(k + 1);
            if (!f.category)
                f.subcategory = 0;
        }
        if (src_maps && f.address && f.mapping >= src->n_mappings)
            f.mapping = pk_mapping_at(src, src_maps, f.address);
        if (f.mapping < src->n_mappings)
            f.mapping = m.mapping[f.mapping];
        if ((m.frame[i] = pk_frame_add(dst, &f)) == PROFKIT_NONE)
            goto done;
    }
    /* Parents always precede children (interning appends), so one pass works. */
    m.stack[0] = 0;
    for (size_t i = 1; i < src->n_stacks; i++) {
        const profkit_stack *s = &src->stacks[i];
        m.stack[i] = pk_stack_intern(dst, m.stack[s->parent], m.frame[s->frame]);
        if (m.stack[i] == PROFKIT_NONE)
            goto done;
    }
    for (size_t i = 0; i < src->n_threads; i++) {
        const profkit_thread *t = &src->threads[i];
        m.thread[i] = pk_thread_get(dst, pk_str(src, t->name),
                                         pk_str(src, t->process_name), t->pid, t->tid);
        if (m.thread[i] == PROFKIT_NONE)
            goto done;
        profkit_thread *d = &dst->threads[m.thread[i]];
        if (d->process_start == PROFKIT_NO_TIME)
            d->process_start = t->process_start;
        if (d->register_time == PROFKIT_NO_TIME)
            d->register_time = t->register_time;
        if (d->process_type == 0 && t->process_type != 0 &&
            (d->process_type = m.str[t->process_type]) == PROFKIT_NONE)
            goto done;
    }
    int dst_had_values = dst->n_value_types > 0;
    for (size_t i = 0; i < src->n_value_types; i++) {
        m.value[i] = pk_value_type_add(dst, pk_str(src, src->value_types[i].type),
                                            pk_str(src, src->value_types[i].unit));
        if (m.value[i] == PROFKIT_NONE)
            goto done;
    }
    if (!dst_had_values && src->n_value_types)
        dst->default_value = m.value[src->default_value < src->n_value_types ? src->default_value : 0];

    size_t nv = dst->n_value_types;
    vals = calloc(nv ? nv : 1, sizeof(int64_t));
    if (!vals)
        goto done;
    for (size_t r = 0; r < src->n_samples; r++) {
        memset(vals, 0, (nv ? nv : 1) * sizeof(int64_t));
        for (size_t v = 0; v < src->n_value_types; v++)
            vals[m.value[v]] = src->sample_values[r * src->n_value_types + v];
        uint32_t st = m.stack[src->sample_stack[r]], th = m.thread[src->sample_thread[r]];
        int64_t t = src->sample_time[r];
        uint32_t ls = src->sample_labels ? m.labelset[src->sample_labels[r]] : 0;
        if ((t == PROFKIT_NO_TIME ? pk_sample_add_labeled(dst, st, th, ls, vals)
                                  : pk_sample_add_timed_labeled(dst, st, th, t, ls, vals)) != 0)
            goto done;
    }
    for (size_t i = 0; i < src->n_metadata; i++) {
        const profkit_meta *md = &src->metadata[i];
        if (pk_meta_add_len(dst, pk_str(src, md->key), pk_str(src, md->value),
                                 pk_strtab_len(&src->strings, md->value)) != 0)
            goto done;
    }
    for (size_t i = 0; i < src->n_markers; i++) {
        profkit_marker mk = src->markers[i];
        mk.thread = mk.thread < src->n_threads ? m.thread[mk.thread] : mk.thread;
        mk.name = m.str[mk.name];
        mk.category = m.str[mk.category];
        mk.payload = m.str[mk.payload];
        if (mk.cause) {
            const profkit_marker_cause *c =
                mk.cause <= src->n_marker_causes ? &src->marker_causes[mk.cause - 1] : NULL;
            mk.cause = c && c->stack < src->n_stacks ? pk_marker_cause_add(dst, c->time, m.stack[c->stack]) : 0;
            if (c && !mk.cause)
                goto done;
        }
        if (pk_marker_add(dst, &mk) != 0)
            goto done;
    }
    for (size_t i = 0; i < src->n_counters; i++) { /* counters, with their samples */
        profkit_counter c = src->counters[i];
        c.name = m.str[c.name];
        c.category = m.str[c.category];
        c.description = m.str[c.description];
        c.display = m.str[c.display];
        c.thread = c.thread < src->n_threads ? m.thread[c.thread] : PROFKIT_NONE;
        if (profkit_counter_add(dst, &c) == PROFKIT_NONE)
            goto done;
        for (size_t k = c.first; k < c.first + c.n && k < src->n_counter_samples; k++) {
            const profkit_counter_sample *cs = &src->counter_samples[k];
            if (profkit_counter_sample_add(dst, cs->time, cs->count, cs->number) != 0)
                goto done;
        }
    }
    if (dst->format[0] == '\0')
        pk_profile_set_format(dst, src->format);
    dst->mappings_settled = 1;
    rc = 0;
done:
    free(vals);
    free(src_maps);
    remap_free(&m);
    if (rc != 0)
        pk_error_set(err, rc, NULL, -1, "out of memory while merging profiles");
    return rc;
}
