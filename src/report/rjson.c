/* rjson.c: JSON output shared by the reports; see rjson.h. */
#include "report/rjson.h"

#include "util/buf.h"

static int to_file(void *f, const void *data, size_t n)
{
    fwrite(data, 1, n, f);
    return 0; /* the stream keeps its own error, as fputs would */
}

void pk_rjson_str(FILE *out, const char *s) { pk_rjson_strn(out, s, strlen(s)); }

void pk_rjson_strn(FILE *out, const char *s, size_t n)
{
    char store[256];
    pk_buf b;
    pk_buf_init_drain(&b, store, sizeof(store), to_file, out);
    pk_buf_json(&b, s, n, PK_JSON_REPORT);
    pk_buf_flush(&b);
}

void pk_rjson_open(FILE *out, const char *report, const profkit_profile *p, uint32_t v,
                   uint32_t thread)
{
    fprintf(out, "{\"schema\":%d,\"report\":", PK_RJSON_SCHEMA);
    pk_rjson_str(out, report);
    if (v != PROFKIT_NONE) {
        fputs(",\"value\":{\"type\":", out);
        pk_rjson_str(out, pk_str(p, p->value_types[v].type));
        fputs(",\"unit\":", out);
        pk_rjson_str(out, pk_str(p, p->value_types[v].unit));
        fputc('}', out);
    }
    fputs(",\"thread\":", out);
    if (thread == PROFKIT_NONE)
        fputs("null", out);
    else
        pk_rjson_str(out, pk_str(p, p->threads[thread].name));
}

void pk_rjson_by(FILE *out, profkit_key by)
{
    fputs(",\"by\":", out);
    pk_rjson_str(out, pk_key_name(by, 0));
}
