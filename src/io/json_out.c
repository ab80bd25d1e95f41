/* json_out.c: JSON text output; see json_out.h. */
#include "io/json_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void pk_json_double(pk_sink *k, double v)
{
    if (!isfinite(v)) {
        pk_sink_puts(k, "null");
        return;
    }
    char buf[PK_JSON_DOUBLE_MAX];
    pk_json_double_text(buf, v);
    pk_sink_puts(k, buf);
}

void pk_json_double_text(char out[PK_JSON_DOUBLE_MAX], double v)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(out, PK_JSON_DOUBLE_MAX, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            break;
    }
}
