/* info.c: `profkit info`, a summary of what a profile holds. */
#include "util/buf.h"
#include "analysis/analysis.h"
#include "analysis/tags.h"

#include <inttypes.h>
#include <stdlib.h>

/*
 * What symbolization did: frames named, then per file used the addresses
 * it named, where its names came from and how it was found (an option by
 * its API name: the command line prints its flag instead), then the
 * mappings no file was found for.
 */
static void put_symbols(pk_buf *out, const pk_sym_summary *s)
{
    static const char *const source[] = { "no symbols", "DWARF: functions, files, lines, inlined calls",
                                          "symbol table: functions only",
                                          ".dynsym only: exported functions only" };
    static const char *const found_by[] = { "profkit_symbolize_options.binaries",
                                            "profkit_symbolize_options.symbol_dirs",
                                            "PPROF_BINARY_PATH", "the mapped path", "debuginfod" };
    pk_buf_printf(out, "symbols:      %zu of %zu address frames named (%zu frames with inlined calls)\n",
                  s->named, s->wanted, s->chain_frames);
    for (size_t i = 0; i < s->n_files; i++) {
        const pk_sym_file *f = &s->files[i];
        int src = f->source >= 0 && f->source <= 3 ? f->source : 0;
        int how = f->found_by >= 0 && f->found_by <= 4 ? f->found_by : 3;
        pk_buf_printf(out, "  %s: %zu addresses (%s; found by %s%s%s)\n", f->path, f->named, source[src],
                      found_by[how], f->build_id[0] ? ", build id " : "", f->build_id);
    }
    for (size_t i = 0; i < s->n_no_file; i++)
        pk_buf_printf(out, "%s%s", i ? ", " : "  no file for: ", s->no_file[i][0] ? s->no_file[i] : "(anonymous)");
    if (s->n_no_file)
        pk_buf_putc(out, '\n');
}

static int report_info_buf(pk_buf *out, const profkit_profile *p, profkit_error *err)
{
    const char *version = pk_meta_get(p, "format_version");
    pk_buf_printf(out, "format:       %s%s%s\n", p->format[0] ? p->format : "(unknown)",
                  version ? " version " : "", version ? version : "");
    size_t timed = 0;
    int64_t t0 = 0;
    int same = 1; /* rows kept in order, all at one time: a sampled BR stream */
    for (size_t i = 0; i < p->n_samples; i++) {
        if (p->sample_time[i] == PROFKIT_NO_TIME)
            continue;
        if (timed++ == 0)
            t0 = p->sample_time[i];
        else if (p->sample_time[i] != t0)
            same = 0;
    }
    pk_buf_printf(out, "samples:      %zu rows%s\n", p->n_samples,
                  !timed                 ? " (aggregated per stack and thread)"
                  : same && timed > 1    ? " (in recorded order, without times)"
                                         : " (timed, in time order)");
    int64_t rs, re;
    if (!(timed && same) && profkit_profile_root_range(p, &rs, &re, NULL) == 0)
        pk_buf_printf(out, "duration:     %.6g ms (from %.6g to %.6g ms; --range counts from its start)\n",
                      (double)(re - rs) / 1e6, (double)rs / 1e6, (double)re / 1e6);
    pk_buf_printf(out, "stacks:       %zu distinct (%zu frames, %zu functions)\n",
                  p->n_stacks ? p->n_stacks - 1 : 0, p->n_frames, p->n_functions);
    size_t nv = p->n_value_types;
    int64_t *tot = calloc(nv ? nv : 1, sizeof(int64_t));
    if (!tot)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    for (size_t r = 0; r < p->n_samples; r++)
        for (size_t v = 0; v < nv; v++)
            tot[v] += p->sample_values[r * nv + v];
    pk_buf_printf(out, "value types:  %zu\n", nv);
    for (size_t v = 0; v < nv; v++) {
        char h[64];
        const char *unit = pk_str(p, p->value_types[v].unit);
        pk_format_value(h, sizeof(h), tot[v], unit);
        pk_buf_printf(out, "  %-14s %-13s total %" PRId64 " (%s)%s\n", pk_str(p, p->value_types[v].type),
                      unit, tot[v], h, v == p->default_value ? "  [default]" : "");
    }
    /* rows per thread in one pass (a pass per thread was threads x rows) */
    size_t *rows_of = calloc(p->n_threads ? p->n_threads : 1, sizeof(size_t));
    if (!rows_of) {
        free(tot);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    for (size_t r = 0; r < p->n_samples; r++)
        if (p->sample_thread[r] < p->n_threads)
            rows_of[p->sample_thread[r]]++;
    pk_buf_printf(out, "threads:      %zu\n", p->n_threads);
    for (size_t t = 0; t < p->n_threads; t++) {
        const profkit_thread *th = &p->threads[t];
        size_t rows = rows_of[t];
        pk_buf_printf(out, "  %zu: %s", t, pk_str(p, th->name));
        if (th->process_name)
            pk_buf_printf(out, " (process %s)", pk_str(p, th->process_name));
        if (th->pid >= 0)
            pk_buf_printf(out, " pid %" PRId64, th->pid);
        if (th->tid >= 0)
            pk_buf_printf(out, " tid %" PRId64, th->tid);
        pk_buf_printf(out, ", %zu sample rows\n", rows);
    }
    if (p->n_mappings)
        pk_buf_printf(out, "mappings:     %zu\n", p->n_mappings);
    if (p->n_markers)
        pk_buf_printf(out, "markers:      %zu\n", p->n_markers);
    if (p->symbols)
        put_symbols(out, p->symbols);
    if (p->sample_labels) {
        pk_tags t;
        if (pk_tags_compute(&t, p, p->default_value, PROFKIT_NONE) != 0) {
            free(tot);
            free(rows_of);
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        }
        size_t labelled = 0;
        for (size_t r = 0; r < p->n_samples; r++)
            labelled += p->sample_labels[r] != 0;
        pk_buf_printf(out, "labels:       %zu keys, on %zu of %zu sample rows\n", t.n, labelled,
                      p->n_samples);
        for (size_t k = 0; k < t.n; k++)
            pk_buf_printf(out, "  %s: %zu values\n", t.keys[k].text, t.keys[k].n);
        pk_tags_free(&t);
    }
    if (p->n_metadata) {
        pk_buf_printf(out, "metadata:\n");
        for (size_t i = 0; i < p->n_metadata; i++)
            if (!pk_meta_hint(pk_str(p, p->metadata[i].key)))
                pk_buf_printf(out, "  %s: %s\n", pk_str(p, p->metadata[i].key),
                              pk_str(p, p->metadata[i].value));
    }
    free(tot);
    free(rows_of);
    return 0;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_info(FILE *file, const profkit_profile *p, profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_info_buf(&out, p, err);
    pk_buf_flush(&out);
    return rc;
}
