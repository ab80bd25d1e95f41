/* units.c: values in their units, the way people read them (pprof style). */
#include "analysis/analysis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static size_t scaled(char *buf, size_t n, double v, const char *const *names,
                     const double *factors, size_t k)
{
    double a = fabs(v);
    size_t i = 0;
    while (i + 1 < k && a >= factors[i + 1])
        i++;
    double x = v / factors[i];
    int w;
    if (x == floor(x) && fabs(x) < 1e15)
        w = snprintf(buf, n, "%.0f%s", x, names[i]);
    else
        w = snprintf(buf, n, "%.*f%s", fabs(x) >= 100 ? 1 : 2, x, names[i]);
    return w < 0 ? 0 : (size_t)w;
}

size_t pk_format_value(char *buf, size_t n, int64_t value, const char *unit)
{
    static const char *const tnames[] = { "ns", "us", "ms", "s" };
    static const double tf[] = { 1, 1e3, 1e6, 1e9 };
    static const char *const bnames[] = { "B", "kB", "MB", "GB", "TB" };
    static const double bf[] = { 1, 1024.0, 1048576.0, 1073741824.0, 1099511627776.0 };
    double v = (double)value;
    if (value == 0)
        return (size_t)snprintf(buf, n, "0");
    if (strcmp(unit, "nanoseconds") == 0)
        return scaled(buf, n, v, tnames, tf, 4);
    if (strcmp(unit, "microseconds") == 0)
        return scaled(buf, n, v * 1e3, tnames, tf, 4);
    if (strcmp(unit, "milliseconds") == 0)
        return scaled(buf, n, v * 1e6, tnames, tf, 4);
    if (strcmp(unit, "seconds") == 0)
        return scaled(buf, n, v * 1e9, tnames, tf, 4);
    if (strcmp(unit, "bytes") == 0)
        return scaled(buf, n, v, bnames, bf, 5);
    int w = snprintf(buf, n, "%lld", (long long)value);
    return w < 0 ? 0 : (size_t)w;
}

const char *pk_format_pct(char *buf, size_t n, double part, double total)
{
    snprintf(buf, n, "%.2f", total != 0 ? 100.0 * part / total : 0.0);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *e = buf + strlen(buf);
        while (e > dot + 1 && e[-1] == '0')
            *--e = '\0';
        if (e == dot + 1)
            *dot = '\0';
    }
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, n, "0");
    size_t len = strlen(buf);
    if (len + 1 < n) {
        buf[len] = '%';
        buf[len + 1] = '\0';
    }
    return buf;
}

const char *pk_key_name(profkit_key by, int plural)
{
    switch (by) {
    case PROFKIT_BY_FILE: return plural ? "files" : "file";
    case PROFKIT_BY_LINE: return plural ? "lines" : "line";
    case PROFKIT_BY_ADDRESS: return plural ? "addresses" : "address";
    case PROFKIT_BY_MODULE: return plural ? "modules" : "module";
    default: return plural ? "functions" : "function";
    }
}
