/* rjson.c: JSON output shared by the reports; see rjson.h. */
#include "report/rjson.h"

#include "util/buf.h"

#include <inttypes.h>

void pk_rjson_str(pk_buf *out, const char *s) { pk_rjson_strn(out, s, strlen(s)); }

void pk_rjson_strn(pk_buf *out, const char *s, size_t n) { pk_buf_json(out, s, n, PK_JSON_REPORT); }

void pk_rjson_open(pk_buf *out, const char *report, const profkit_profile *p, uint32_t v,
                   uint32_t thread)
{
    pk_buf_printf(out, "{\"schema\":%d,\"report\":", PK_RJSON_SCHEMA);
    pk_rjson_str(out, report);
    if (v != PROFKIT_NONE) {
        pk_buf_puts(out, ",\"value\":{\"type\":");
        pk_rjson_str(out, pk_str(p, p->value_types[v].type));
        pk_buf_puts(out, ",\"unit\":");
        pk_rjson_str(out, pk_str(p, p->value_types[v].unit));
        pk_buf_putc(out, '}');
    }
    pk_buf_puts(out, ",\"thread\":");
    if (thread == PROFKIT_NONE)
        pk_buf_puts(out, "null");
    else
        pk_rjson_str(out, pk_str(p, p->threads[thread].name));
}

void pk_rjson_by(pk_buf *out, profkit_key by)
{
    pk_buf_puts(out, ",\"by\":");
    pk_rjson_str(out, pk_key_name(by, 0));
}

static void function_json(pk_buf *out, const profkit_profile *p, uint32_t frame,
                          const char *label, size_t label_len, int mode)
{
    pk_buf_puts(out, "\"name\":");
    if (frame >= p->n_frames) {
        pk_rjson_strn(out, label, label_len);
        return;
    }
    char buf[4096];
    uint32_t fn = p->frames[frame].function;
    const profkit_function *f = fn < p->n_functions ? &p->functions[fn] : NULL;
    if (mode == 2) { /* a line: its label, the function it is in, its line */
        pk_rjson_strn(out, label, label_len);
        size_t len = pk_frame_label(p, frame, 0, buf, sizeof(buf));
        pk_buf_puts(out, ",\"function\":");
        pk_rjson_strn(out, buf, len);
    } else {
        size_t len = pk_frame_label(p, frame, mode, buf, sizeof(buf));
        pk_rjson_strn(out, buf, len);
    }
    if (!f)
        return;
    if (pk_strtab_len(&p->strings, f->file)) {
        pk_buf_puts(out, ",\"file\":");
        pk_rjson_strn(out, pk_str(p, f->file), pk_strtab_len(&p->strings, f->file));
    }
    uint32_t line = mode == 2 ? p->frames[frame].line : f->start_line;
    if (line)
        pk_buf_printf(out, ",\"line\":%u", line);
}

void pk_rjson_function(pk_buf *out, const profkit_profile *p, uint32_t frame, const char *label,
                       size_t label_len)
{
    function_json(out, p, frame, label, label_len, 0);
}

void pk_rjson_key(pk_buf *out, const profkit_profile *p, const uint32_t *key_frame, uint32_t k,
                  const char *label, size_t label_len, profkit_key by, int by_line)
{
    int known = key_frame && k && (by == PROFKIT_BY_FUNCTION || by == PROFKIT_BY_LINE);
    function_json(out, p, known ? key_frame[k] : PROFKIT_NONE, label, label_len,
                  by == PROFKIT_BY_LINE ? 2 : by_line);
}

void pk_rjson_thread(pk_buf *out, const profkit_profile *p, uint32_t t)
{
    if (t >= p->n_threads) {
        pk_buf_puts(out, "null");
        return;
    }
    const profkit_thread *th = &p->threads[t];
    pk_buf_printf(out, "{\"index\":%u,\"name\":", t);
    pk_rjson_str(out, pk_str(p, th->name));
    pk_buf_puts(out, ",\"process\":");
    pk_rjson_str(out, pk_str(p, th->process_name));
    if (th->pid >= 0)
        pk_buf_printf(out, ",\"pid\":%" PRId64, th->pid);
    else
        pk_buf_puts(out, ",\"pid\":null");
    if (th->tid >= 0)
        pk_buf_printf(out, ",\"tid\":%" PRId64 "}", th->tid);
    else
        pk_buf_puts(out, ",\"tid\":null}");
}

void pk_rjson_ms(pk_buf *out, int64_t ns)
{
    uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char frac[8];
    snprintf(frac, sizeof frac, "%06" PRIu64, m % 1000000);
    size_t n = 6;
    while (n && frac[n - 1] == '0')
        n--;
    frac[n] = 0;
    pk_buf_printf(out, "%s%" PRIu64 "%s%s", ns < 0 ? "-" : "", m / 1000000, n ? "." : "", frac);
}

