/*
 * time_range.c: time ranges over a timed profile, as the Firefox Profiler
 * selects them (its "zoom" or committed range), and the marker filters
 * (samples during or outside matching markers).
 *
 * The Firefox Profiler measures every time from the start of the
 * profile's root range, its zero. The root range is
 *   - meta.profilingStartTime .. meta.profilingEndTime when the profile
 *     records both (V8 .cpuprofile: startTime .. endTime);
 *   - else, over every thread: from its first sample to its last sample
 *     plus the sampling interval (the first and last rows of the thread, in
 *     the order recorded); a thread without samples counts its markers
 *     instead (an instant from its time to its time plus the interval, an
 *     interval from its start to its end plus the interval); the union of
 *     the threads' ranges.
 * The interval is meta.interval (the metadata "interval", in ms), else
 * 1 ms (what the Firefox Profiler gives a `perf script` import).
 *
 * A range keeps the samples with START <= time < END, and the markers
 * that overlap it (an instant inside it; an interval that starts before
 * END and ends at or after START). Untimed rows are outside every range.
 * docs/formats/firefox.md has the rules the loader follows.
 */
#include "analysis/analysis.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One end of a range: its text (len bytes, blanks trimmed) parsed. */
static int parse_point(const char *s, size_t len, double *v, int *percent)
{
    while (len && isspace((unsigned char)*s))
        s++, len--;
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    double scale = 1000.0; /* seconds, unless a suffix says otherwise */
    *percent = 0;
    if (len >= 1 && s[len - 1] == '%') {
        *percent = 1;
        scale = 1.0;
        len--;
    } else if (len >= 2 && s[len - 2] == 'm' && s[len - 1] == 's') {
        scale = 1.0;
        len -= 2;
    } else if (len >= 1 && s[len - 1] == 's') {
        len--;
    }
    char num[64];
    if (len == 0 || len >= sizeof num)
        return -1;
    memcpy(num, s, len);
    num[len] = '\0';
    /* digits, a sign, a point and an exponent only: no hex, inf or nan */
    for (size_t i = 0; i < len; i++)
        if (!isdigit((unsigned char)num[i]) && !strchr("+-.eE", num[i]))
            return -1;
    char *end;
    double d = strtod(num, &end);
    if (*end || !isfinite(d) || !isfinite(d * scale))
        return -1;
    *v = d * scale;
    return 0;
}

int profkit_range_parse(profkit_range *out, const char *text, profkit_error *err)
{
    memset(out, 0, sizeof *out);
    const char *comma = text ? strchr(text, ',') : NULL;
    if (!comma || strchr(comma + 1, ','))
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                            "profkit_filter_options.range: expected START,END (seconds as in "
                            "2.7,3.1, milliseconds as in 2700ms,3100ms, or percentages of the "
                            "profile as in 10%%,20%%), got '%s'",
                            text ? text : "");
    const char *part[2] = { text, comma + 1 };
    size_t plen[2] = { (size_t)(comma - text), strlen(comma + 1) };
    double v[2];
    int pc[2];
    for (int k = 0; k < 2; k++)
        if (parse_point(part[k], plen[k], &v[k], &pc[k]) != 0)
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                "profkit_filter_options.range: '%.*s' is not a time: expected "
                                "seconds (2.7), milliseconds (2700ms) or a percentage (10%%)",
                                (int)(plen[k] > 100 ? 100 : plen[k]), part[k]);
    if (pc[0] == pc[1] && v[1] < v[0])
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                            "profkit_filter_options.range: the end comes before the start in '%s'", text);
    out->start = v[0];
    out->end = v[1];
    out->start_percent = pc[0];
    out->end_percent = pc[1];
    return 0;
}

/* The sampling interval in ns: meta.interval (ms), else 1 ms. */
static int64_t interval_ns(const profkit_profile *p)
{
    const char *s = pk_meta_get(p, "interval");
    if (s) {
        char *end;
        double ms = strtod(s, &end);
        if (end != s && !*end && ms >= 0 && ms < 1e9)
            return (int64_t)llround(ms * 1e6);
    }
    return 1000000;
}

/* A metadata time in ms as ns; 0 when absent or not a number. */
static int meta_time(const profkit_profile *p, const char *key, int64_t *ns)
{
    const char *s = pk_meta_get(p, key);
    if (!s)
        return 0;
    char *end;
    double ms = strtod(s, &end);
    if (end == s || *end || !(fabs(ms) < 9e12))
        return 0;
    *ns = (int64_t)llround(ms * 1e6);
    return 1;
}

static void widen(int64_t *lo, int64_t *hi, int64_t a, int64_t b)
{
    if (a < *lo)
        *lo = a;
    if (b > *hi)
        *hi = b;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

int profkit_profile_root_range(const profkit_profile *p, int64_t *start, int64_t *end,
                               profkit_error *err)
{
    int64_t ps, pe;
    if (meta_time(p, "profilingStartTime", &ps) && meta_time(p, "profilingEndTime", &pe) &&
        pe != 0) {
        *start = ps;
        *end = pe;
        return 0;
    }
    int64_t iv = interval_ns(p);
    size_t nt = p->n_threads;
    int64_t *first = malloc((nt ? nt : 1) * sizeof(int64_t));
    int64_t *last = malloc((nt ? nt : 1) * sizeof(int64_t));
    if (!first || !last) {
        free(first);
        free(last);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory finding the time range");
    }
    for (size_t t = 0; t < nt; t++)
        first[t] = last[t] = PROFKIT_NO_TIME;
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t t = p->sample_thread[r];
        int64_t tm = p->sample_time[r];
        if (t >= nt || tm == PROFKIT_NO_TIME)
            continue;
        if (first[t] == PROFKIT_NO_TIME)
            first[t] = tm;
        last[t] = tm;
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t t = 0; t < nt; t++)
        if (first[t] != PROFKIT_NO_TIME)
            widen(&lo, &hi, first[t], add_sat(last[t], iv));
    for (size_t m = 0; m < p->n_markers; m++) {
        const profkit_marker *mk = &p->markers[m];
        if (mk->thread < nt && first[mk->thread] != PROFKIT_NO_TIME)
            continue; /* a thread with samples: its markers do not count */
        /* an end before the start is no interval: an instant (the model
         * keeps no phase; Gecko writes 0 as an instant's end) */
        int64_t b = mk->end > mk->start ? mk->end : mk->start;
        /* an end whose start the input does not give (an IntervalEnd):
         * only its end is a time */
        int64_t a = mk->start != PROFKIT_NO_TIME ? mk->start : b;
        if (b == PROFKIT_NO_TIME)
            continue;
        widen(&lo, &hi, a, add_sat(b, iv));
    }
    free(first);
    free(last);
    if (lo > hi)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                            "profkit_filter_options.range: the profile has no times (its samples "
                            "are aggregated per stack), so it has no time range");
    *start = lo;
    *end = hi;
    return 0;
}

/* A point of a range in ns: ms from the root range's start, or a percent
 * of its length. */
static int64_t resolve(double v, int percent, int64_t root_start, int64_t root_end)
{
    double ns = percent ? (double)root_start + v / 100.0 * (double)(root_end - root_start)
                        : (double)root_start + v * 1e6;
    if (ns >= 9.2e18)
        return INT64_MAX;
    if (ns <= -9.2e18)
        return INT64_MIN + 1;
    return (int64_t)llround(ns);
}

/* ASCII case-insensitive search of needle (n bytes) in hay (h bytes). */
static int has_text(const char *hay, size_t h, const char *needle, size_t n)
{
    if (n == 0)
        return 1;
    for (size_t i = 0; i + n <= h; i++) {
        size_t k = 0;
        while (k < n && tolower((unsigned char)hay[i + k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

/* Whether a marker's name, category or a string value of its JSON payload
 * (its type and fields; not the keys) holds `text`. */
static int marker_matches(const profkit_profile *p, const profkit_marker *m, const char *text)
{
    size_t n = strlen(text);
    const char *s = pk_str(p, m->name);
    if (has_text(s, strlen(s), text, n))
        return 1;
    s = pk_str(p, m->category);
    if (has_text(s, strlen(s), text, n))
        return 1;
    if (!m->payload)
        return 0;
    s = pk_str(p, m->payload);
    size_t len = strlen(s);
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '"')
            continue;
        size_t j = i + 1;
        while (j < len && s[j] != '"')
            j += s[j] == '\\' ? 2 : 1;
        if (j >= len)
            break;
        size_t k = j + 1;
        while (k < len && isspace((unsigned char)s[k]))
            k++;
        if ((k >= len || s[k] != ':') && has_text(s + i + 1, j - i - 1, text, n))
            return 1;
        i = j;
    }
    return 0;
}

/* The intervals [start, end) of the markers matching text, per thread:
 * sorted by (thread, start). */
struct span {
    uint32_t thread;
    int64_t start, end;
};

static int span_cmp(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* Whether time t of thread th lies in one of the spans (sorted); spans of
 * a thread may overlap, so the ones starting at or before t are checked
 * through the longest end so far (max_end). */
static int in_spans(const struct span *sp, const int64_t *max_end, size_t n, uint32_t th, int64_t t)
{
    size_t lo = 0, hi = n; /* first span after (th, t) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp[mid].thread < th || (sp[mid].thread == th && sp[mid].start <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && sp[lo - 1].thread == th && max_end[lo - 1] > t;
}

int pk_profile_filter_time(profkit_profile *p, const profkit_filter_options *o, profkit_error *err)
{
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    if (o->range) {
        profkit_range r;
        int64_t rs, re;
        int rc = profkit_range_parse(&r, o->range, err);
        if (rc == 0)
            rc = profkit_profile_root_range(p, &rs, &re, err);
        if (rc != 0)
            return rc;
        lo = resolve(r.start, r.start_percent, rs, re);
        hi = resolve(r.end, r.end_percent, rs, re);
        if (hi < lo)
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                "profkit_filter_options.range: the end comes before the start in '%s'", o->range);
        if (hi == lo)
            hi++; /* an empty range holds its one instant, as in the Firefox Profiler */
    }
    const char *text = o->during_marker ? o->during_marker : o->outside_marker;
    const char *which = o->during_marker ? "profkit_filter_options.during_marker"
                                         : "profkit_filter_options.outside_marker";
    if (o->during_marker && o->outside_marker)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                            "profkit_filter_options.during_marker and outside_marker: give one "
                            "of them, not both");
    struct span *sp = NULL;
    int64_t *max_end = NULL;
    size_t n_sp = 0;
    if (text) {
        if (!pk_profile_is_timed(p))
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                "%s: the profile has no times (its samples are aggregated per "
                                "stack), so no sample is during a marker", which);
        sp = malloc((p->n_markers ? p->n_markers : 1) * sizeof *sp);
        max_end = malloc((p->n_markers ? p->n_markers : 1) * sizeof *max_end);
        if (!sp || !max_end) {
            free(sp);
            free(max_end);
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory filtering the profile");
        }
        for (size_t m = 0; m < p->n_markers; m++) {
            const profkit_marker *mk = &p->markers[m];
            if (mk->end > mk->start && marker_matches(p, mk, text))
                sp[n_sp++] = (struct span){ mk->thread, mk->start, mk->end };
        }
        qsort(sp, n_sp, sizeof *sp, span_cmp);
        for (size_t i = 0; i < n_sp; i++)
            max_end[i] = i > 0 && sp[i - 1].thread == sp[i].thread && max_end[i - 1] > sp[i].end
                             ? max_end[i - 1]
                             : sp[i].end;
    }
    /* the rows kept, in place and in order: only timed rows are in a range */
    size_t nv = p->n_value_types, w = 0;
    for (size_t r = 0; r < p->n_samples; r++) {
        int64_t t = p->sample_time[r];
        if (t == PROFKIT_NO_TIME || t < lo || t >= hi)
            continue;
        if (text && in_spans(sp, max_end, n_sp, p->sample_thread[r], t) != (o->during_marker != NULL))
            continue;
        if (w != r) {
            p->sample_stack[w] = p->sample_stack[r];
            p->sample_thread[w] = p->sample_thread[r];
            p->sample_time[w] = t;
            if (p->sample_cpu)
                p->sample_cpu[w] = p->sample_cpu[r];
            memmove(p->sample_values + w * nv, p->sample_values + r * nv, nv * sizeof(int64_t));
        }
        w++;
    }
    if (w != p->n_samples) {
        /* untimed rows were dropped: the index of (stack, thread) rows is void */
        p->n_samples = w;
        pk_idset_free(&p->sample_set);
        memset(&p->sample_set, 0, sizeof(p->sample_set));
        p->samples_indexed = 0;
    }
    free(sp);
    free(max_end);
    if (o->range) {
        size_t k = 0;
        for (size_t m = 0; m < p->n_markers; m++) {
            const profkit_marker *mk = &p->markers[m];
            int keep = mk->end > mk->start ? mk->start < hi && mk->end >= lo
                                           : mk->start >= lo && mk->start < hi;
            if (keep)
                p->markers[k++] = *mk;
        }
        p->n_markers = k;
    }
    return 0;
}
