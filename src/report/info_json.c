/* info_json.c: `profkit info --json`, the summary as one JSON document. */
#include "analysis/tags.h"
#include "util/buf.h"
#include "report/rjson.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int report_info_json_buf(pk_buf *out, const profkit_profile *p, profkit_error *err)
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
    pk_buf_puts(out, ",\"format\":");
    pk_rjson_str(out, p->format);
    pk_buf_puts(out, ",\"format_version\":");
    if (version)
        pk_rjson_str(out, version);
    else
        pk_buf_puts(out, "null");
    pk_buf_printf(out, ",\"sample_rows\":%zu,\"timed\":%s,\"stacks\":%zu,\"frames\":%zu,\"functions\":%zu,"
                  "\"mappings\":%zu,\"markers\":%zu,\"value_types\":[",
                  p->n_samples, timed ? "true" : "false", p->n_stacks ? p->n_stacks - 1 : 0, p->n_frames,
                  p->n_functions, p->n_mappings, p->n_markers);
    for (size_t v = 0; v < nv; v++) {
        pk_buf_puts(out, v ? ",\n{\"type\":" : "\n{\"type\":");
        pk_rjson_str(out, pk_str(p, p->value_types[v].type));
        pk_buf_puts(out, ",\"unit\":");
        pk_rjson_str(out, pk_str(p, p->value_types[v].unit));
        pk_buf_printf(out, ",\"total\":%" PRId64 ",\"default\":%s}", tot[v],
                      v == p->default_value ? "true" : "false");
    }
    int64_t rs, re;
    if (profkit_profile_root_range(p, &rs, &re, NULL) == 0)
        pk_buf_printf(out, "],\"time_range\":{\"start\":%.17g,\"end\":%.17g}", (double)rs / 1e6,
                      (double)re / 1e6);
    else
        pk_buf_puts(out, "],\"time_range\":null");
    pk_buf_puts(out, ",\"threads\":[");
    for (size_t t = 0; t < p->n_threads; t++) {
        const profkit_thread *th = &p->threads[t];
        pk_buf_printf(out, "%s{\"index\":%zu,\"name\":", t ? ",\n" : "\n", t);
        pk_rjson_str(out, pk_str(p, th->name));
        pk_buf_puts(out, ",\"process\":");
        pk_rjson_str(out, pk_str(p, th->process_name));
        pk_buf_printf(out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"sample_rows\":%zu}", th->pid,
                      th->tid, rows[t]);
    }
    pk_buf_puts(out, "],\"labels\":[");
    pk_tags t;
    memset(&t, 0, sizeof(t));
    if (p->sample_labels && pk_tags_compute(&t, p, p->default_value, PROFKIT_NONE) != 0) {
        free(tot);
        free(rows);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    for (size_t k = 0; k < t.n; k++) {
        pk_buf_puts(out, k ? ",\n{\"key\":" : "\n{\"key\":");
        pk_rjson_str(out, t.keys[k].text);
        pk_buf_printf(out, ",\"values\":%zu}", t.keys[k].n);
    }
    if (p->sample_labels)
        pk_tags_free(&t);
    pk_buf_puts(out, "],\"metadata\":[");
    for (size_t i = 0, shown = 0; i < p->n_metadata; i++) {
        if (pk_meta_hint(pk_str(p, p->metadata[i].key)))
            continue;
        pk_buf_puts(out, shown++ ? ",\n{\"key\":" : "\n{\"key\":");
        pk_rjson_str(out, pk_str(p, p->metadata[i].key));
        pk_buf_puts(out, ",\"value\":");
        pk_rjson_str(out, pk_str(p, p->metadata[i].value));
        pk_buf_putc(out, '}');
    }
    pk_buf_puts(out, "]}\n");
    free(tot);
    free(rows);
    return 0;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_info_json(FILE *file, const profkit_profile *p, profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_info_json_buf(&out, p, err);
    pk_buf_flush(&out);
    return rc;
}
