/* info_json.c: `profkit info --json`, the summary as one JSON document. */
#include "report/rjson.h"

#include <inttypes.h>
#include <stdlib.h>

int profkit_report_info_json(FILE *out, const profkit_profile *p, profkit_error *err)
{
    size_t nv = p->n_value_types, timed = 0;
    int64_t *tot = calloc(nv ? nv : 1, sizeof(int64_t));
    size_t *rows = calloc(p->n_threads + 1, sizeof(size_t));
    if (!tot || !rows) {
        free(tot);
        free(rows);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    for (size_t r = 0; r < p->n_samples; r++) {
        timed += p->sample_time[r] != PROFKIT_NO_TIME;
        uint32_t t = p->sample_thread[r];
        rows[t < p->n_threads ? t : p->n_threads]++;
        for (size_t v = 0; v < nv; v++)
            tot[v] = pk_sat_add(tot[v], p->sample_values[r * nv + v]);
    }
    pk_rjson_open(out, "info", p, PROFKIT_NONE, PROFKIT_NONE);
    const char *version = pk_meta_get(p, "format_version");
    fputs(",\"format\":", out);
    pk_rjson_str(out, p->format);
    fputs(",\"format_version\":", out);
    if (version)
        pk_rjson_str(out, version);
    else
        fputs("null", out);
    fprintf(out, ",\"sample_rows\":%zu,\"timed\":%s,\"stacks\":%zu,\"frames\":%zu,\"functions\":%zu,"
            "\"mappings\":%zu,\"markers\":%zu,\"value_types\":[",
            p->n_samples, timed ? "true" : "false", p->n_stacks ? p->n_stacks - 1 : 0, p->n_frames,
            p->n_functions, p->n_mappings, p->n_markers);
    for (size_t v = 0; v < nv; v++) {
        fputs(v ? ",\n{\"type\":" : "\n{\"type\":", out);
        pk_rjson_str(out, pk_str(p, p->value_types[v].type));
        fputs(",\"unit\":", out);
        pk_rjson_str(out, pk_str(p, p->value_types[v].unit));
        fprintf(out, ",\"total\":%" PRId64 ",\"default\":%s}", tot[v],
                v == p->default_value ? "true" : "false");
    }
    int64_t rs, re;
    if (profkit_profile_root_range(p, &rs, &re, NULL) == 0)
        fprintf(out, "],\"time_range\":{\"start\":%.17g,\"end\":%.17g}", (double)rs / 1e6,
                (double)re / 1e6);
    else
        fputs("],\"time_range\":null", out);
    fputs(",\"threads\":[", out);
    for (size_t t = 0; t < p->n_threads; t++) {
        const profkit_thread *th = &p->threads[t];
        fprintf(out, "%s{\"index\":%zu,\"name\":", t ? ",\n" : "\n", t);
        pk_rjson_str(out, pk_str(p, th->name));
        fputs(",\"process\":", out);
        pk_rjson_str(out, pk_str(p, th->process_name));
        fprintf(out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"sample_rows\":%zu}", th->pid,
                th->tid, rows[t]);
    }
    fputs("],\"metadata\":[", out);
    for (size_t i = 0; i < p->n_metadata; i++) {
        fputs(i ? ",\n{\"key\":" : "\n{\"key\":", out);
        pk_rjson_str(out, pk_str(p, p->metadata[i].key));
        fputs(",\"value\":", out);
        pk_rjson_str(out, pk_str(p, p->metadata[i].value));
        fputc('}', out);
    }
    fputs("]}\n", out);
    free(tot);
    free(rows);
    return 0;
}
