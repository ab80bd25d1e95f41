/*
 * speedscope.c: writes speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), so a profile of any
 * format opens in speedscope.app.
 *
 * One "sampled" profile per thread (only the selected one with --thread):
 * each sample row becomes one sample (its stack as frame indexes, root
 * first) with the chosen value type as its weight (--value; default: the
 * profile's default). Timed rows keep their time order. Frames are shared
 * across profiles, one per function (name, file, definition line), so two
 * addresses of one function are one speedscope frame, as in folded output.
 * Rows whose weight is 0 are left out. Units map to speedscope's
 * (nanoseconds, microseconds, milliseconds, seconds, bytes); any other unit
 * is "none".
 */
#include "formats/registry/format.h"
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

static void write_frames(const profkit_profile *p, profkit_sink *k)
{
    profkit_sink_puts(k, "\"shared\":{\"frames\":[");
    for (size_t f = 0; f < p->n_functions; f++) {
        const profkit_function *fn = &p->functions[f];
        if (f)
            profkit_sink_write(k, ",", 1);
        profkit_sink_puts(k, "{\"name\":");
        const char *name = profkit_str(p, fn->name);
        if (name[0]) {
            profkit_json_string(k, name, profkit_strtab_len(&p->strings, fn->name));
        } else {
            /* No name: label it by the address of a frame of it, as folded does. */
            char buf[32] = "(unknown)";
            for (size_t i = 0; i < p->n_frames; i++)
                if (p->frames[i].function == f) {
                    profkit_frame_label(p, (uint32_t)i, 0, buf, sizeof(buf));
                    break;
                }
            profkit_json_cstr(k, buf);
        }
        if (fn->file) {
            profkit_sink_puts(k, ",\"file\":");
            profkit_json_string(k, profkit_str(p, fn->file), profkit_strtab_len(&p->strings, fn->file));
        }
        if (fn->start_line)
            profkit_sink_printf(k, ",\"line\":%u", fn->start_line);
        profkit_sink_write(k, "}", 1);
    }
    profkit_sink_puts(k, "]},");
}

/* Writes the frames of stack s root first; path is scratch of depth+1. */
static int write_stack(const profkit_profile *p, profkit_sink *k, uint32_t s, uint32_t **path,
                       size_t *cap)
{
    size_t d = profkit_stack_depth(p, s);
    if (d > *cap) {
        uint32_t *np = realloc(*path, d * sizeof(uint32_t));
        if (!np)
            return PROFKIT_ENOMEM;
        *path = np;
        *cap = d;
    }
    for (size_t i = d; i-- > 0; s = p->stacks[s].parent)
        (*path)[i] = p->frames[p->stacks[s].frame].function;
    profkit_sink_write(k, "[", 1);
    for (size_t i = 0; i < d; i++)
        profkit_sink_printf(k, i ? ",%u" : "%u", (*path)[i]);
    profkit_sink_write(k, "]", 1);
    return 0;
}

static int speedscope_write(const profkit_profile *p, profkit_sink *k,
                            const profkit_write_options *o, profkit_error *err)
{
    int ok;
    uint32_t v = profkit_select_value(p, o->value, err);
    if (v == PROFKIT_NONE && (p->n_value_types || o->value))
        return PROFKIT_EINVAL;
    uint32_t only = profkit_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    const char *unit = v == PROFKIT_NONE ? "none" : speedscope_unit(profkit_str(p, p->value_types[v].unit));
    uint32_t *path = NULL;
    size_t cap = 0;
    int rc = 0;

    profkit_sink_puts(k, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",");
    write_frames(p, k);
    profkit_sink_puts(k, "\"profiles\":[");
    int first_profile = 1;
    for (size_t t = 0; t < p->n_threads && v != PROFKIT_NONE && rc == 0; t++) {
        if (only != PROFKIT_NONE && t != only)
            continue;
        int64_t total = 0;
        size_t nv = p->n_value_types;
        for (size_t r = 0; r < p->n_samples; r++)
            if (p->sample_thread[r] == t)
                total += p->sample_values[r * nv + v];
        if (!first_profile)
            profkit_sink_write(k, ",", 1);
        first_profile = 0;
        profkit_sink_puts(k, "{\"type\":\"sampled\",\"name\":");
        profkit_json_cstr(k, profkit_str(p, p->threads[t].name));
        profkit_sink_printf(k, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":", unit);
        profkit_json_int(k, total);
        profkit_sink_puts(k, ",\"samples\":[");
        int first = 1;
        for (size_t r = 0; r < p->n_samples && rc == 0; r++) {
            if (p->sample_thread[r] != t || p->sample_values[r * nv + v] == 0)
                continue;
            if (!first)
                profkit_sink_write(k, ",", 1);
            first = 0;
            rc = write_stack(p, k, p->sample_stack[r], &path, &cap);
        }
        profkit_sink_puts(k, "],\"weights\":[");
        first = 1;
        for (size_t r = 0; r < p->n_samples; r++) {
            if (p->sample_thread[r] != t || p->sample_values[r * nv + v] == 0)
                continue;
            if (!first)
                profkit_sink_write(k, ",", 1);
            first = 0;
            profkit_json_int(k, p->sample_values[r * nv + v]);
        }
        profkit_sink_puts(k, "]}");
    }
    profkit_sink_puts(k, "],\"name\":");
    profkit_json_cstr(k, p->format[0] ? p->format : "profile");
    profkit_sink_puts(k, ",\"activeProfileIndex\":0,\"exporter\":\"profkit " PROFKIT_VERSION_STRING "\"}\n");
    free(path);
    if (rc)
        return profkit_error_set(err, rc, NULL, -1, "out of memory writing speedscope");
    return 0;
}

const profkit_format profkit_format_speedscope = {
    { "speedscope", "speedscope.app JSON (write only)", ".speedscope.json", 0, 1 },
    NULL,
    NULL,
    speedscope_write,
};
