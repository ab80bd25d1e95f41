/* rjson.c: JSON output shared by the reports; see rjson.h. */
#include "report/rjson.h"

#include "io/json_out.h"

void pk_rjson_str(FILE *out, const char *s) { pk_rjson_strn(out, s, strlen(s)); }

void pk_rjson_strn(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc(c, out);
            i++;
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
            i++;
        } else {
            size_t len = pk_utf8_len((const uint8_t *)s + i, n - i);
            if (len == 0) {
                fputs("\\ufffd", out);
                i++;
            } else {
                fwrite(s + i, 1, len, out);
                i += len;
            }
        }
    }
    fputc('"', out);
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
