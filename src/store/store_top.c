/* store_top.c: `top` over the store: the selected profiles' sums per
 * stack, thread and value type loaded as one profile (store_load.c), then
 * top's own code, so that a function is its name and its file (labelled
 * NAME FILE where a name stands for functions of two or more files, JSON
 * rows with file, line and inline marks) exactly as `top` of the files
 * merged. The grouping in the engine by each frame's key (its label by
 * name only) could not tell same-named functions of different files
 * apart, nor give a row's file and line; docs/store.md. */
#include "util/buf.h"
#include "store/store.h"

#include "report/report_top.h"

#include <stdlib.h>

static int report_store_report_top_buf(pk_buf *out, profkit_store *s, const profkit_store_query *q,
                                       const profkit_report_options *o, profkit_error *err)
{
    profkit_profile *p;
    int rc = profkit_store_load(&p, s, q, err);
    if (rc != 0)
        return rc;
    rc = pk_report_top_buf(out, p, o, err);
    profkit_profile_free(p);
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    return rc;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_store_report_top(FILE *file, profkit_store *s, const profkit_store_query *q,
                             const profkit_report_options *o, profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_store_report_top_buf(&out, s, q, o, err);
    pk_buf_flush(&out);
    return rc;
}
