/*
 * speedscope_write.c: writes speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), so a profile of any
 * format opens in speedscope.app.
 *
 * One "sampled" profile per thread (only the selected one with --thread):
 * each sample row becomes one sample (its stack as frame indexes, root
 * first) with the chosen value type as its weight (--value; default: the
 * profile's default). Timed rows keep their time order. Frames are shared
 * across profiles, one per function (name, file, definition line), so two
 * addresses of one function are one speedscope frame, as in folded output;
 * a function without a name gets one frame per address, labelled as folded
 * output labels it.
 * Rows whose weight is 0 are left out. Units map to speedscope's
 * (nanoseconds, microseconds, milliseconds, seconds, bytes); any other unit
 * is "none".
 */
#include "formats/speedscope/speedscope.h"
#include "io/json_out.h"

#include <stdlib.h>

static const char *speedscope_unit(const char *unit)
{
    static const char *const known[] = { "nanoseconds", "microseconds", "milliseconds", "seconds",
                                         "bytes" };
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (strcmp(unit, known[i]) == 0)
            return known[i];
    return "none";
}

/*
 * The speedscope frame of each model frame: one per named function, and one
 * per frame of a function without a name (labelled by its address, as
 * folded output labels it, so two addresses stay two frames). *rep gets,
 * per speedscope frame, a model frame standing for it.
 */
static int frame_index(const profkit_profile *p, uint32_t **idx_out, uint32_t **rep_out, size_t *n_out)
{
    uint32_t *idx = malloc((p->n_frames + 1) * sizeof(uint32_t));
    uint32_t *rep = malloc((p->n_frames + 1) * sizeof(uint32_t));
    uint32_t *fmap = malloc((p->n_functions + 1) * sizeof(uint32_t));
    if (!idx || !rep || !fmap) {
        free(idx);
        free(rep);
        free(fmap);
        return PROFKIT_ENOMEM;
    }
    for (size_t f = 0; f < p->n_functions; f++)
        fmap[f] = PROFKIT_NONE;
    size_t n = 0;
    for (size_t i = 0; i < p->n_frames; i++) {
        uint32_t f = p->frames[i].function;
        if (pk_str(p, p->functions[f].name)[0]) {
            if (fmap[f] == PROFKIT_NONE) {
                fmap[f] = (uint32_t)n;
                rep[n++] = (uint32_t)i;
            }
            idx[i] = fmap[f];
        } else {
            idx[i] = (uint32_t)n;
            rep[n++] = (uint32_t)i;
        }
    }
    free(fmap);
    *idx_out = idx;
    *rep_out = rep;
    *n_out = n;
    return 0;
}

static void write_frames(const profkit_profile *p, pk_sink *k, const uint32_t *rep, size_t n)
{
    pk_sink_puts(k, "\"shared\":{\"frames\":[");
    for (size_t e = 0; e < n; e++) {
        const profkit_function *fn = &p->functions[p->frames[rep[e]].function];
        if (e)
            pk_sink_write(k, ",", 1);
        pk_sink_puts(k, "{\"name\":");
        const char *name = pk_str(p, fn->name);
        if (pk_strtab_len(&p->strings, fn->name)) { /* a name may start with NUL (pprof) */
            pk_json_string(k, name, pk_strtab_len(&p->strings, fn->name));
        } else {
            char buf[64];
            pk_frame_label(p, rep[e], 0, buf, sizeof(buf));
            pk_json_cstr(k, buf);
        }
        if (fn->file) {
            pk_sink_puts(k, ",\"file\":");
            pk_json_string(k, pk_str(p, fn->file), pk_strtab_len(&p->strings, fn->file));
        }
        if (fn->start_line)
            pk_sink_printf(k, ",\"line\":%u", fn->start_line);
        pk_sink_write(k, "}", 1);
    }
    pk_sink_puts(k, "]},");
}

/* Writes the frames of stack s root first; path is scratch of depth+1. */
static int write_stack(const profkit_profile *p, pk_sink *k, uint32_t s, const uint32_t *idx,
                       uint32_t **path, size_t *cap)
{
    size_t d = pk_stack_depth(p, s);
    if (d > *cap) {
        uint32_t *np = realloc(*path, d * sizeof(uint32_t));
        if (!np)
            return PROFKIT_ENOMEM;
        *path = np;
        *cap = d;
    }
    for (size_t i = d; i-- > 0; s = p->stacks[s].parent)
        (*path)[i] = idx[p->stacks[s].frame];
    pk_sink_write(k, "[", 1);
    for (size_t i = 0; i < d; i++)
        pk_sink_printf(k, i ? ",%u" : "%u", (*path)[i]);
    pk_sink_write(k, "]", 1);
    return 0;
}

int pk_speedscope_write(const profkit_profile *p, pk_sink *k, const profkit_write_options *o,
                        profkit_error *err)
{
    int ok;
    uint32_t v = pk_select_value(p, o->value, err);
    if (v == PROFKIT_NONE && (p->n_value_types || o->value))
        return PROFKIT_EINVAL;
    uint32_t only = pk_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    const char *unit = v == PROFKIT_NONE ? "none" : speedscope_unit(pk_str(p, p->value_types[v].unit));
    uint32_t *path = NULL;
    size_t cap = 0;
    int rc = 0;

    uint32_t *idx, *rep;
    size_t n_entries;
    if (frame_index(p, &idx, &rep, &n_entries))
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory writing speedscope");
    pk_sink_puts(k, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",");
    write_frames(p, k, rep, n_entries);
    pk_sink_puts(k, "\"profiles\":[");
    int first_profile = 1;
    /* Weights are 0 or more: a negative value (a delta profile's) is left
     * out, said once. */
    size_t negative = 0;
    for (size_t t = 0; t < p->n_threads && v != PROFKIT_NONE && rc == 0; t++) {
        if (only != PROFKIT_NONE && t != only)
            continue;
        int64_t total = 0;
        size_t nv = p->n_value_types;
        for (size_t r = 0; r < p->n_samples; r++) {
            if (p->sample_thread[r] != t)
                continue;
            if (p->sample_values[r * nv + v] > 0)
                total += p->sample_values[r * nv + v];
            else if (p->sample_values[r * nv + v] < 0)
                negative++;
        }
        if (!first_profile)
            pk_sink_write(k, ",", 1);
        first_profile = 0;
        pk_sink_puts(k, "{\"type\":\"sampled\",\"name\":");
        pk_json_cstr(k, pk_str(p, p->threads[t].name));
        pk_sink_printf(k, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":", unit);
        pk_json_int(k, total);
        pk_sink_puts(k, ",\"samples\":[");
        int first = 1;
        for (size_t r = 0; r < p->n_samples && rc == 0; r++) {
            if (p->sample_thread[r] != t || p->sample_values[r * nv + v] <= 0)
                continue;
            if (!first)
                pk_sink_write(k, ",", 1);
            first = 0;
            rc = write_stack(p, k, p->sample_stack[r], idx, &path, &cap);
        }
        pk_sink_puts(k, "],\"weights\":[");
        first = 1;
        for (size_t r = 0; r < p->n_samples; r++) {
            if (p->sample_thread[r] != t || p->sample_values[r * nv + v] <= 0)
                continue;
            if (!first)
                pk_sink_write(k, ",", 1);
            first = 0;
            pk_json_int(k, p->sample_values[r * nv + v]);
        }
        pk_sink_puts(k, "]}");
    }
    pk_sink_puts(k, "],\"name\":");
    pk_json_cstr(k, p->format[0] ? p->format : "profile");
    pk_sink_puts(k, ",\"activeProfileIndex\":0,\"exporter\":\"profkit " PROFKIT_VERSION_STRING "\"}\n");
    free(path);
    free(idx);
    free(rep);
    if (rc)
        return pk_error_set(err, rc, NULL, -1, "out of memory writing speedscope");
    if (negative && o->on_warning) {
        profkit_error w;
        pk_error_set(&w, PROFKIT_EUNSUPPORTED, NULL, -1,
                     "speedscope weights are 0 or more: %zu sample rows with a negative value "
                     "(a delta profile's) are left out",
                     negative);
        o->on_warning(&w, o->payload);
    }
    return 0;
}
