/* store_label.c: `profkit store label`: setting and removing labels of the
 * selected profiles. A profile's id is its content's hash, so labels are
 * not part of it and change in place (docs/store.md). */
#include "store/store.h"

#include <stdlib.h>

/* KEY=VALUE (set) or KEY (unset): the key as store add takes it. */
static int check(const profkit_store *s, const char *l, int with_value, profkit_error *err)
{
    const char *eq = strchr(l, '=');
    size_t kl = eq ? (size_t)(eq - l) : strlen(l);
    int ok = kl < 128 && pk_store_key_ok(l, kl);
    if (with_value && (!eq || !ok))
        return pk_error_set(err, PROFKIT_EINVAL, s->name, -1,
                            "label '%s' to set: expected KEY=VALUE (KEY of 1 to 127 letters, digits, "
                            "'_', '.', '-')", l);
    if (!with_value && (eq || !ok))
        return pk_error_set(err, PROFKIT_EINVAL, s->name, -1,
                            "label '%s' to remove: expected KEY (1 to 127 letters, digits, '_', '.', '-')", l);
    return 0;
}

/* One seq of "1,2,3" at *p, moved past it; -1 at the end. */
static int64_t next_seq(const char **p)
{
    if (!**p)
        return -1;
    char *end;
    long long v = strtoll(*p, &end, 10);
    *p = *end == ',' ? end + 1 : end;
    return v;
}

int profkit_store_label(profkit_store *s, const profkit_store_query *q, const char *const *set,
                        size_t n_set, const char *const *unset, size_t n_unset, size_t *n,
                        profkit_error *err)
{
    if (n)
        *n = 0;
    for (size_t i = 0; i < n_set; i++)
        if (check(s, set[i], 1, err))
            return PROFKIT_EINVAL;
    for (size_t i = 0; i < n_unset; i++)
        if (check(s, unset[i], 0, err))
            return PROFKIT_EINVAL;
    if (n_set + n_unset == 0)
        return pk_error_set(err, PROFKIT_EINVAL, s->name, -1, "no label to set or remove");
    pk_buf seqs = PK_BUF_INIT, keys = PK_BUF_INIT;
    size_t k = 0;
    pk_cell *cells = NULL;
    int rc = pk_store_selected_seqs(&seqs, &k, s, q, err);
    if (rc || k == 0)
        goto done;
    /* every key set or unset loses its old values */
    for (size_t i = 0; i < n_set + n_unset; i++) {
        const char *l = i < n_set ? set[i] : unset[i - n_set];
        const char *eq = strchr(l, '=');
        if (i)
            pk_buf_printf(&keys, ",");
        pk_sql_str(&keys, s, l, eq ? (size_t)(eq - l) : strlen(l));
    }
    if (pk_buf_error(&keys)) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
        goto done;
    }
    if (n_set && (k > SIZE_MAX / 3 / n_set || !(cells = calloc(k * n_set * 3, sizeof(pk_cell))))) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, s->name, -1, "out of memory");
        goto done;
    }
    size_t r = 0;
    for (const char *p = seqs.buf; n_set;) {
        int64_t seq = next_seq(&p);
        if (seq < 0)
            break;
        for (size_t i = 0; i < n_set; i++, r++) {
            const char *eq = strchr(set[i], '=');
            cells[3 * r] = (pk_cell){ .i = seq, .kind = PK_CELL_INT };
            cells[3 * r + 1] = (pk_cell){ .s = set[i], .len = (size_t)(eq - set[i]), .kind = PK_CELL_TEXT };
            cells[3 * r + 2] = (pk_cell){ .s = eq + 1, .len = strlen(eq + 1), .kind = PK_CELL_TEXT };
        }
    }
    if ((rc = s->engine->begin(s, err)) != 0)
        goto done;
    if ((rc = s->engine->unlabel(s, seqs.buf, keys.buf, err)) == 0 &&
        (rc = s->engine->insert(s, "labels", 3, cells, r, err)) == 0)
        rc = s->engine->commit(s, err);
    if (rc)
        s->engine->rollback(s);
done:
    if (rc == 0 && n)
        *n = k;
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    free(cells);
    pk_buf_free(&seqs);
    pk_buf_free(&keys);
    return rc;
}
