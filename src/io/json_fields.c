/* json_fields.c: top-level fields of a JSON object held as text (json_fields.h). */
#include "io/json_fields.h"

#include <stdlib.h>
#include <string.h>

#include "io/json.h"

static size_t ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* Index just past the string starting at s[i] == '"', or n + 1 when unterminated. */
static size_t string_end(const char *s, size_t n, size_t i)
{
    for (i++; i < n; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '"')
            return i + 1;
    }
    return n + 1;
}

/* Index just past the value starting at s[i], or n + 1 when malformed. */
static size_t value_end(const char *s, size_t n, size_t i)
{
    if (i >= n)
        return n + 1;
    if (s[i] == '"')
        return string_end(s, n, i);
    if (s[i] == '{' || s[i] == '[') {
        size_t depth = 0;
        while (i < n) {
            char c = s[i];
            if (c == '"') {
                i = string_end(s, n, i);
                if (i > n)
                    return n + 1;
                continue;
            }
            if (c == '{' || c == '[')
                depth++;
            else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return i + 1;
            }
            i++;
        }
        return n + 1;
    }
    size_t j = i;
    while (j < n && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\n' &&
           s[j] != '\t' && s[j] != '\r')
        j++;
    return j > i ? j : n + 1;
}

int pk_json_next_field(const char *s, size_t n, size_t *pos, pk_json_field *f)
{
    size_t i = *pos;
    if (!s)
        return 0;
    if (i == 0) {
        i = ws(s, n, 0);
        if (i >= n || s[i] != '{')
            return 0;
        i++;
    }
    i = ws(s, n, i);
    if (i < n && s[i] == ',')
        i = ws(s, n, i + 1);
    if (i >= n || s[i] != '"')
        return 0;
    size_t ke = string_end(s, n, i);
    if (ke > n)
        return 0;
    f->key = s + i + 1;
    f->key_len = ke - i - 2;
    i = ws(s, n, ke);
    if (i >= n || s[i] != ':')
        return 0;
    i = ws(s, n, i + 1);
    size_t ve = value_end(s, n, i);
    if (ve > n)
        return 0;
    f->value = s + i;
    f->value_len = ve - i;
    *pos = ve;
    return 1;
}

int pk_json_find_field(const char *s, size_t n, const char *key, pk_json_field *f)
{
    size_t pos = 0, kl = strlen(key);
    while (pk_json_next_field(s, n, &pos, f))
        if (f->key_len == kl && memcmp(f->key, key, kl) == 0)
            return 1;
    return 0;
}

int pk_json_field_string(const pk_json_field *f, const char **s, size_t *len)
{
    if (f->value_len < 2 || f->value[0] != '"')
        return 0;
    *s = f->value + 1;
    *len = f->value_len - 2;
    return 1;
}

int pk_json_field_is(const char *s, size_t n, const char *key, const char *want)
{
    pk_json_field f;
    const char *v;
    size_t len;
    return pk_json_find_field(s, n, key, &f) && pk_json_field_string(&f, &v, &len) && len == strlen(want) &&
           memcmp(v, want, len) == 0;
}

int pk_json_field_number(const pk_json_field *f, double *out)
{
    if (!f->value_len || !(f->value[0] == '-' || (f->value[0] >= '0' && f->value[0] <= '9')))
        return 0;
    *out = pk_json_number(f->value, f->value_len);
    return 1;
}
