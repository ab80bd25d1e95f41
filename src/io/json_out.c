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
    char buf[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    pk_sink_puts(k, buf);
}
