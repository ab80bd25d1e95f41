/*
 * json_fields.h: the top-level fields of a JSON object held as text (a
 * marker's payload), without building a tree: each key with the raw text
 * of its value. Bounds-checked; text that is no object gives no field.
 */
#ifndef PROFKIT_JSON_FIELDS_H
#define PROFKIT_JSON_FIELDS_H

#include <stddef.h>

typedef struct pk_json_field {
    const char *key;   /* inside the quotes, escapes as written */
    size_t key_len;
    const char *value; /* the value's JSON text: a string with its quotes */
    size_t value_len;
} pk_json_field;

/*
 * The field after *pos in the object s[0..n) (start with *pos = 0): fills
 * *f and returns 1, or returns 0 at the end or at anything malformed.
 */
int pk_json_next_field(const char *s, size_t n, size_t *pos, pk_json_field *f);
/* The field named key (first of equal ones): 1 and *f, or 0. */
int pk_json_find_field(const char *s, size_t n, const char *key, pk_json_field *f);
/* A field's value as a string (inside the quotes, escapes as written): 1, or 0 when no string. */
int pk_json_field_string(const pk_json_field *f, const char **s, size_t *len);
/* 1 when the object's field named key is the string want (as written, no
 * escape undone), else 0. */
int pk_json_field_is(const char *s, size_t n, const char *key, const char *want);
/* A field's value as a number: 1, or 0 when no number. */
int pk_json_field_number(const pk_json_field *f, double *out);

#endif
