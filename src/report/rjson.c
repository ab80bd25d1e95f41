/* rjson.c: JSON output shared by the reports; see rjson.h. */
#include "report/rjson.h"

#include "util/buf.h"

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
                          const char *label, size_t label_len, int by_line)
{
    pk_buf_puts(out, "\"name\":");
    if (frame >= p->n_frames) {
        pk_rjson_strn(out, label, label_len);
        return;
    }
    char buf[4096];
    size_t len = pk_frame_label(p, frame, by_line, buf, sizeof(buf));
    pk_rjson_strn(out, buf, len);
    uint32_t fn = p->frames[frame].function;
    if (fn >= p->n_functions)
        return;
    const profkit_function *f = &p->functions[fn];
    if (pk_strtab_len(&p->strings, f->file)) {
        pk_buf_puts(out, ",\"file\":");
        pk_rjson_strn(out, pk_str(p, f->file), pk_strtab_len(&p->strings, f->file));
    }
    if (f->start_line)
        pk_buf_printf(out, ",\"line\":%u", f->start_line);
}

void pk_rjson_function(pk_buf *out, const profkit_profile *p, uint32_t frame, const char *label,
                       size_t label_len)
{
    function_json(out, p, frame, label, label_len, 0);
}

void pk_rjson_key(pk_buf *out, const profkit_profile *p, const uint32_t *key_frame, uint32_t k,
                  const char *label, size_t label_len, int by_line)
{
    function_json(out, p, key_frame && k ? key_frame[k] : PROFKIT_NONE, label, label_len, by_line);
}
