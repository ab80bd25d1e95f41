/* store_trend.c: `profkit trend`: the value of the functions a regular
 * expression matches (cumulative: a stack counts once if any of its frames
 * matches, as top's cum of one function), or the total, per value of a
 * label or per day (UTC) of the profiles' times (docs/store.md). Each group
 * is loaded as profkit_store_load loads a selection, so its figures are
 * those of the files merged, on either engine. */
#include "util/buf.h"
#include "store/store.h"

#include "analysis/analysis.h"
#include "report/rjson.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <time.h>

struct group {
    char *name;     /* the label's value, or the day YYYY-MM-DD */
    int64_t day;    /* by day: the day's first ns */
    size_t n;       /* profiles */
    int64_t value, total;
};

struct groups {
    struct group *g;
    size_t n, cap;
    int by_day;
    int failed;
};

static int row_group(void *payload, char **c, const size_t *lens, size_t n, profkit_error *err)
{
    struct groups *gs = payload;
    (void)n, (void)err;
    if (gs->by_day) {
        /* one row per profile: its time, gathered into days */
        int64_t t = pk_cell_i64(c[0]), day = t / 86400000000000LL;
        if (t < 0 && t % 86400000000000LL)
            day--;
        day *= 86400000000000LL;
        for (size_t i = 0; i < gs->n; i++)
            if (gs->g[i].day == day) {
                gs->g[i].n++;
                return 0;
            }
        if (PK_VEC_RESERVE(gs->g, gs->n, gs->cap, 1) != 0) {
            gs->failed = 1;
            return 0;
        }
        char name[32];
        time_t secs = (time_t)(day / 1000000000LL);
        struct tm tm;
        gmtime_r(&secs, &tm);
        strftime(name, sizeof(name), "%Y-%m-%d", &tm);
        gs->g[gs->n] = (struct group){ strdup(name), day, 1, 0, 0 };
        if (!gs->g[gs->n].name)
            gs->failed = 1;
        gs->n++;
        return 0;
    }
    if (PK_VEC_RESERVE(gs->g, gs->n, gs->cap, 1) != 0) {
        gs->failed = 1;
        return 0;
    }
    char *name = malloc(lens[0] + 1);
    if (!name) {
        gs->failed = 1;
        return 0;
    }
    memcpy(name, c[0] ? c[0] : "", lens[0]);
    name[lens[0]] = '\0';
    gs->g[gs->n++] = (struct group){ name, 0, (size_t)pk_cell_i64(c[1]), 0, 0 };
    return 0;
}

/* Label values in natural order: runs of digits compare as numbers, so
 * 1.9 comes before 1.10. */
static int natural(const void *a, const void *b)
{
    const char *x = ((const struct group *)a)->name, *y = ((const struct group *)b)->name;
    while (*x && *y) {
        if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
            while (*x == '0' && isdigit((unsigned char)x[1]))
                x++;
            while (*y == '0' && isdigit((unsigned char)y[1]))
                y++;
            size_t nx = 0, ny = 0;
            while (isdigit((unsigned char)x[nx]))
                nx++;
            while (isdigit((unsigned char)y[ny]))
                ny++;
            if (nx != ny)
                return nx < ny ? -1 : 1;
            int c = memcmp(x, y, nx);
            if (c)
                return c;
            x += nx;
            y += ny;
        } else {
            if (*x != *y)
                return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
            x++;
            y++;
        }
    }
    return *x ? 1 : *y ? -1 : 0;
}

static int by_day(const void *a, const void *b)
{
    int64_t x = ((const struct group *)a)->day, y = ((const struct group *)b)->day;
    return x < y ? -1 : x > y;
}

/* The thread of p that is thread t of h (the same name, process, pid and
 * tid: a thread's identity in the store), or PROFKIT_NONE. */
static uint32_t same_thread(const profkit_profile *p, const profkit_profile *h, uint32_t t)
{
    const profkit_thread *x = &h->threads[t];
    for (size_t i = 0; i < p->n_threads; i++) {
        const profkit_thread *y = &p->threads[i];
        if (y->pid == x->pid && y->tid == x->tid &&
            strcmp(pk_str(p, y->name), pk_str(h, x->name)) == 0 &&
            strcmp(pk_str(p, y->process_name), pk_str(h, x->process_name)) == 0)
            return (uint32_t)i;
    }
    return PROFKIT_NONE;
}

/* The value of value type (type, unit) in p: the total, and that of the
 * stacks with a frame whose function re matches (re NULL: the total); of
 * thread th's samples only unless th is PROFKIT_NONE (all), and nothing
 * when p has not that thread (!has_thread). */
static int measure(const profkit_profile *p, const char *type, const char *unit, const regex_t *re,
                   uint32_t th, int has_thread, int64_t *value, int64_t *total, profkit_error *err)
{
    *value = *total = 0;
    if (!has_thread)
        return 0;
    uint32_t v = PROFKIT_NONE;
    for (size_t i = 0; i < p->n_value_types && v == PROFKIT_NONE; i++)
        if (strcmp(pk_str(p, p->value_types[i].type), type) == 0 &&
            strcmp(pk_str(p, p->value_types[i].unit), unit) == 0)
            v = (uint32_t)i;
    if (v == PROFKIT_NONE) /* this group has no such values */
        return 0;
    /* per stack: 1 when a frame of it (or of a parent) matches, parents first */
    int8_t *hit = NULL, *fhit = NULL;
    if (re && (!(hit = calloc(p->n_stacks + 1, 1)) || !(fhit = calloc(p->n_frames + 1, 1)))) {
        free(hit);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory computing a trend");
    }
    if (re) {
        char buf[4096];
        for (size_t f = 0; f < p->n_frames; f++) {
            pk_frame_label(p, (uint32_t)f, 0, buf, sizeof(buf));
            fhit[f] = regexec(re, buf, 0, NULL, 0) == 0;
        }
        for (size_t s = 1; s < p->n_stacks; s++) {
            uint32_t par = p->stacks[s].parent < s ? p->stacks[s].parent : 0;
            uint32_t fr = p->stacks[s].frame;
            hit[s] = hit[par] || (fr < p->n_frames && fhit[fr]);
        }
    }
    size_t nv = p->n_value_types;
    for (size_t r = 0; r < p->n_samples; r++) {
        int64_t x = p->sample_values[r * nv + v];
        uint32_t st = p->sample_stack[r];
        if (th != PROFKIT_NONE && p->sample_thread[r] != th)
            continue;
        pk_sat_addto(total, x);
        if (!re || (st < p->n_stacks && hit[st]))
            pk_sat_addto(value, x);
    }
    free(hit);
    free(fhit);
    return 0;
}

static void print_text(pk_buf *out, const struct groups *gs, const char *by, const char *fn,
                       const char *thread, const char *type, const char *unit, size_t n_profiles)
{
    pk_buf_printf(out, "Trend of %s (%s) by %s: ", type, unit, by);
    if (thread)
        pk_buf_printf(out, "thread %s, ", thread);
    if (fn)
        pk_buf_printf(out, "functions matching '%s' (cumulative)", fn);
    else
        pk_buf_puts(out, "the total");
    pk_buf_printf(out, ", %zu group%s, %zu profile%s\n", gs->n, gs->n == 1 ? "" : "s", n_profiles,
                  n_profiles == 1 ? "" : "s");
    size_t w = strlen(by);
    for (size_t i = 0; i < gs->n; i++)
        if (strlen(gs->g[i].name) > w)
            w = strlen(gs->g[i].name);
    pk_buf_printf(out, "%-*s  %8s  %12s  %12s  %7s\n", (int)w, by, "profiles", "value", "total", "value%");
    for (size_t i = 0; i < gs->n; i++) {
        const struct group *g = &gs->g[i];
        char v[64], t[64];
        pk_format_value(v, sizeof(v), g->value, unit);
        pk_format_value(t, sizeof(t), g->total, unit);
        pk_buf_printf(out, "%-*s  %8zu  %12s  %12s  %6.2f%%\n", (int)w, g->name, g->n, v, t,
                      g->total ? 100.0 * (double)g->value / (double)g->total : 0.0);
    }
}

static void print_json(pk_buf *out, const struct groups *gs, const char *by, const char *fn,
                       const char *thread, const char *type, const char *unit)
{
    pk_buf_printf(out, "{\"schema\":%d,\"report\":\"trend\",\"by\":", PK_RJSON_SCHEMA);
    pk_rjson_str(out, by);
    pk_buf_puts(out, ",\"function\":");
    if (fn)
        pk_rjson_str(out, fn);
    else
        pk_buf_puts(out, "null");
    if (thread) { /* only with a thread: the document is as before without one */
        pk_buf_puts(out, ",\"thread\":");
        pk_rjson_str(out, thread);
    }
    pk_buf_puts(out, ",\"value_type\":{\"type\":");
    pk_rjson_str(out, type);
    pk_buf_puts(out, ",\"unit\":");
    pk_rjson_str(out, unit);
    pk_buf_puts(out, "},\"points\":[");
    for (size_t i = 0; i < gs->n; i++) {
        const struct group *g = &gs->g[i];
        pk_buf_puts(out, i ? ",{\"group\":" : "{\"group\":");
        pk_rjson_str(out, g->name);
        pk_buf_printf(out, ",\"profiles\":%zu,\"value\":%lld,\"total\":%lld}", g->n, (long long)g->value,
                      (long long)g->total);
    }
    pk_buf_printf(out, "],\"count\":%zu}\n", gs->n);
}

static int trend_buf(pk_buf *out, profkit_store *s, const profkit_store_query *q,
                     const profkit_store_trend_options *o, profkit_error *err)
{
    const char *by = o && o->by ? o->by : "";
    const char *fn = o && o->function && *o->function ? o->function : NULL;
    int day = strcmp(by, "day") == 0;
    if (!day && !pk_store_key_ok(by, strlen(by)))
        return pk_error_set(err, PROFKIT_EINVAL, s->name, -1,
                            "profkit_store_trend_options.by '%s': expected a label key (letters, digits, "
                            "'_', '.', '-') or day", by);
    regex_t re;
    if (fn) {
        int rc = regcomp(&re, fn, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &re, msg, sizeof(msg));
            return pk_error_set(err, PROFKIT_EINVAL, s->name, -1,
                                "profkit_store_trend_options.function '%s': bad regular expression: %s", fn,
                                msg);
        }
    }
    pk_buf sel = PK_BUF_INIT, qs = PK_BUF_INIT;
    profkit_profile *h = NULL;
    struct groups gs;
    memset(&gs, 0, sizeof(gs));
    gs.by_day = day;
    const char **where = NULL;
    char *term = NULL;
    char thread[512] = "";
    int rc = pk_sql_select_profiles(&sel, s, q, err);
    if (rc == 0)
        rc = pk_store_header(&h, s, sel.buf, err);
    uint32_t v = PROFKIT_NONE, th = PROFKIT_NONE;
    if (rc == 0 && pk_select(h, o ? o->value : NULL, o ? o->thread : NULL, &v, &th, err) != 0)
        rc = PROFKIT_EINVAL;
    if (rc)
        goto done;
    /* the thread as `profkit info` of the selection merged names it */
    if (th != PROFKIT_NONE)
        pk_thread_label(h, th, thread, sizeof(thread));
    if (day) {
        pk_buf_printf(&qs, "SELECT time FROM profiles WHERE seq %s (%s)", pk_sql_in(s), sel.buf);
    } else {
        pk_buf_printf(&qs, "SELECT value, count(DISTINCT seq) FROM labels WHERE key = ");
        pk_sql_str(&qs, s, by, strlen(by));
        pk_buf_printf(&qs, " AND seq %s (%s) GROUP BY value", pk_sql_in(s), sel.buf);
    }
    if ((rc = pk_sql_query(s, &qs, row_group, &gs, err)) != 0)
        goto done;
    if (gs.failed) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory computing a trend");
        goto done;
    }
    if (gs.n == 0) {
        /* a key no profile of the store has: the error names the keys it has */
        profkit_store_query kq;
        memset(&kq, 0, sizeof(kq));
        kq.since = kq.until = PROFKIT_NO_TIME;
        char *t = malloc(strlen(by) + 2);
        if (t) {
            snprintf(t, strlen(by) + 2, "%s=", by);
            const char *w[1] = { t };
            kq.where = w;
            kq.n_where = 1;
            pk_buf ks = PK_BUF_INIT;
            rc = pk_sql_select_profiles(&ks, s, &kq, err);
            pk_buf_free(&ks);
            free(t);
            if (rc)
                goto done;
        }
        rc = pk_error_set(err, PROFKIT_ENOTFOUND, NULL, -1,
                          "no selected profile has a label '%s' (store ls shows the labels)", by);
        goto done;
    }
    qsort(gs.g, gs.n, sizeof(*gs.g), day ? by_day : natural);
    size_t nw = q ? q->n_where : 0, n_profiles = 0;
    if (!(where = calloc(nw + 1, sizeof(*where)))) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory computing a trend");
        goto done;
    }
    for (size_t i = 0; i < nw; i++)
        where[i] = q->where[i];
    const char *type = pk_str(h, h->value_types[v].type), *unit = pk_str(h, h->value_types[v].unit);
    for (size_t i = 0; i < gs.n && rc == 0; i++) {
        struct group *g = &gs.g[i];
        profkit_store_query gq;
        memset(&gq, 0, sizeof(gq));
        if (q)
            gq = *q;
        else
            gq.since = gq.until = PROFKIT_NO_TIME;
        gq.where = where;
        gq.n_where = nw;
        if (day) {
            int64_t end = g->day + 86400000000000LL;
            if (gq.since == PROFKIT_NO_TIME || gq.since < g->day)
                gq.since = g->day;
            if (gq.until == PROFKIT_NO_TIME || gq.until > end)
                gq.until = end;
        } else {
            free(term);
            size_t len = strlen(by) + strlen(g->name) + 2;
            if (!(term = malloc(len))) {
                rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory computing a trend");
                break;
            }
            snprintf(term, len, "%s=%s", by, g->name);
            where[nw] = term;
            gq.n_where = nw + 1;
        }
        profkit_profile *p = NULL;
        if ((rc = profkit_store_load(&p, s, &gq, err)) != 0)
            break;
        /* the group's own index of the thread (its threads are in the
         * order its profiles have them); a group without it has 0 */
        uint32_t gt = th == PROFKIT_NONE ? PROFKIT_NONE : same_thread(p, h, th);
        rc = measure(p, type, unit, fn ? &re : NULL, gt, th == PROFKIT_NONE || gt != PROFKIT_NONE, &g->value,
                     &g->total, err);
        profkit_profile_free(p);
        n_profiles += g->n;
    }
    if (rc == 0) {
        const char *tl = th != PROFKIT_NONE ? thread : NULL;
        if (o && o->json)
            print_json(out, &gs, by, fn, tl, type, unit);
        else
            print_text(out, &gs, by, fn, tl, type, unit, n_profiles);
    }
done:
    if (rc && err->file[0] == '\0')
        snprintf(err->file, sizeof(err->file), "%s", s->name);
    if (fn)
        regfree(&re);
    for (size_t i = 0; i < gs.n; i++)
        free(gs.g[i].name);
    free(gs.g);
    free(where);
    free(term);
    profkit_profile_free(h);
    pk_buf_free(&sel);
    pk_buf_free(&qs);
    return rc;
}

int profkit_store_trend(FILE *file, profkit_store *s, const profkit_store_query *q,
                        const profkit_store_trend_options *o, profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = trend_buf(&out, s, q, o, err);
    pk_buf_flush(&out);
    return rc;
}
