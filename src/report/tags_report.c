/*
 * tags_report.c: `profkit tags`, what `pprof -tags` prints: per label key
 * its total and each value's sum and share, computed by pk_tags_compute
 * (analysis/tags.c). The text is pprof's to the byte: its right-aligned
 * columns (a tab writer with padding 1) in pprof's units.
 */
#include "analysis/tags.h"
#include "report/rjson.h"

#include <stdlib.h>
#include <string.h>

/* Characters (UTF-8 code points) of s, as a tab writer counts them. */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

static void pad_right_aligned(pk_buf *out, const char *cell, size_t w)
{
    for (size_t i = width(cell); i < w; i++)
        pk_buf_putc(out, ' ');
    pk_buf_puts(out, cell);
}

static int report_tags_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                           profkit_error *err)
{
    uint32_t v, th;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    pk_tags t;
    if (pk_tags_compute(&t, p, v, th) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    const char *unit = pk_str(p, p->value_types[v].unit);
    if (o->json) {
        pk_rjson_open(out, "tags", p, v, th);
        pk_buf_puts(out, ",\"keys\":[");
        for (size_t k = 0; k < t.n; k++) {
            const pk_tag_key *tk = &t.keys[k];
            pk_buf_puts(out, k ? ",\n{\"key\":" : "\n{\"key\":");
            pk_rjson_strn(out, tk->text, pk_strtab_len(&p->strings, tk->key));
            pk_buf_printf(out, ",\"total\":%lld,\"values\":[", (long long)tk->total);
            for (size_t i = 0; i < tk->n; i++) {
                pk_buf_puts(out, i ? ",{\"value\":" : "{\"value\":");
                pk_rjson_strn(out, tk->values[i].text,
                              pk_strtab_len(&t.names, tk->values[i].name));
                pk_buf_printf(out, ",\"total\":%lld}", (long long)tk->values[i].value);
            }
            pk_buf_puts(out, "]}");
        }
        pk_buf_puts(out, "]}\n");
        pk_tags_free(&t);
        return 0;
    }
    char cell[256], pct[32];
    for (size_t k = 0; k < t.n; k++) {
        const pk_tag_key *tk = &t.keys[k];
        const char *u;
        /* the columns: "KEY:" and " " (col 0), "V (P%):" (col 1) */
        size_t w0 = width(tk->text) + 1 + 1, w1 = 0;
        for (size_t i = 0; i < tk->n; i++) {
            double x = pk_pprof_scale(tk->values[i].value, unit, "minimum", &u);
            if (tk->total > 0)
                snprintf(cell, sizeof(cell), "%.1f%s (%s):", x, u,
                         pk_pprof_percentage(pct, sizeof(pct), tk->values[i].value, tk->total));
            else
                snprintf(cell, sizeof(cell), "%.1f%s:", x, u);
            if (width(cell) + 1 > w1)
                w1 = width(cell) + 1;
        }
        if (w0 < 2)
            w0 = 2;
        snprintf(cell, sizeof(cell), "%s:", tk->text);
        pad_right_aligned(out, cell, w0);
        double x = pk_pprof_scale(tk->total, unit, "minimum", &u);
        pk_buf_printf(out, " Total %.1f%s\n", x, u);
        for (size_t i = 0; i < tk->n; i++) {
            pad_right_aligned(out, " ", w0);
            x = pk_pprof_scale(tk->values[i].value, unit, "minimum", &u);
            if (tk->total > 0)
                snprintf(cell, sizeof(cell), "%.1f%s (%s):", x, u,
                         pk_pprof_percentage(pct, sizeof(pct), tk->values[i].value, tk->total));
            else
                snprintf(cell, sizeof(cell), "%.1f%s:", x, u);
            pad_right_aligned(out, cell, w1);
            pk_buf_printf(out, " %s\n", tk->values[i].text);
        }
        pk_buf_putc(out, '\n');
    }
    pk_tags_free(&t);
    return 0;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_tags(FILE *file, const profkit_profile *p, const profkit_report_options *o,
                        profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_tags_buf(&out, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
