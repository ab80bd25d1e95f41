/* rjson.c: JSON output shared by the reports; see rjson.h. */
#include "report/rjson.h"

#include "util/buf.h"

static int to_file(void *f, const void *data, size_t n)
{
    fwrite(data, 1, n, f);
    return 0; /* the stream keeps its own error, as fputs would */
}

void pk_rjson_str(pk_buf *out, const char *s) { pk_rjson_strn(out, s, strlen(s)); }

void pk_rjson_strn(pk_buf *out, const char *s, size_t n)
{
    char store[256];
    pk_buf b;
    pk_buf_init_drain(&b, store, sizeof(store), to_file, out);
    pk_buf_json(&b, s, n, PK_JSON_REPORT);
    pk_buf_flush(&b);
}

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
