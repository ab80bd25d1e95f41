/* flame_out.c: where the page and the SVG are written: a file (through a
 * temporary name), standard output, or memory; see flame.h. */
#include "report/flame/flame.h"

#include <stdlib.h>

void pk_flame_out_init(flame_out *o, const char *path, char **out, size_t *len)
{
    memset(o, 0, sizeof(*o));
    o->path = path;
    o->out = out;
    o->len = len;
    if (out)
        *out = NULL;
    if (len)
        *len = 0;
}

int pk_flame_out_open(flame_out *o, profkit_error *err)
{
    if (o->out)
        return pk_sink_open_memory(&o->k, &o->mem, PROFKIT_SINK_PLAIN, err);
    return pk_sink_open(&o->k, o->path, PROFKIT_SINK_PLAIN, err);
}

int pk_flame_out_close(flame_out *o, int rc, profkit_error *err)
{
    if (!o->k)
        return rc;
    if (rc == 0 && pk_buf_error(pk_sink_buf(o->k)) == PROFKIT_ENOMEM)
        rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory rendering the flame graph");
    int rc2 = pk_sink_close(o->k, rc == 0, rc == 0 ? err : NULL);
    o->k = NULL;
    if (rc == 0)
        rc = rc2;
    if (rc == 0 && o->out)
        rc = pk_buf_take(&o->mem, o->out, o->len) == 0
                 ? 0
                 : pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory rendering the flame graph");
    pk_buf_free(&o->mem);
    return rc;
}
