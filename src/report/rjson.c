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
