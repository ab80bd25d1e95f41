/*
 * store_web.c: `profkit view --db DB`, the store browser (docs/store.md,
 * "Browsing a store"). The server is the viewer's (src/serve/,
 * pk_server_start_page_api: 127.0.0.1, the token in every path, Host and
 * Origin as for the viewer page); it serves the browser page
 * (src/store/page/, embedded by cmake/embed_page.cmake) at /TOKEN/ and
 * answers its JSON API here, GET /TOKEN/api/NAME (or POST with the
 * arguments as a form body, for a selection too long for an address):
 *
 *   profiles  the selected profiles as `store ls --json`
 *   labels    their label keys, each key's values and how many profiles
 *             have each (docs/json.md, "store labels")
 *   top       `top --json -n 0` of the selection merged (value=TYPE,
 *             thread=NAME)
 *   view      the viewer page of the selection merged (text/html; value=TYPE
 *             opens with it, thread=NAME has that thread alone)
 *   diff      the diff page of two selections, base_* against new_*
 *             (value=, thread= as view's)
 *   threads   the threads of the selection merged, as `info --db --json`
 *             lists them (index, name, process, pid, tid), each with its
 *             label (NAME (PROCESS, pid P, tid T)) and the thread=
 *             selector that picks it (its name, or t-INDEX where the name
 *             is not the thread's alone)
 *   trend     `trend --json` (by=KEY|day, function=RE, value=TYPE,
 *             thread=NAME)
 *
 * A selection is the query arguments where=TERM (repeatable: KEY=VALUE,
 * KEY!=VALUE, KEY~RE), since=T, until=T and ids=ID,ID,... (a diff's two
 * take the prefixes base_ and new_). Errors are {"error":"..."} with 400
 * (a bad argument), 404 (nothing selected, an unknown path) or 500.
 *
 * The store is used by one request at a time (a mutex): SQLite's one
 * connection is not shared between threads, and a browser sends few
 * requests.
 */
#include "serve/serve.h"
#include "store/store.h"

#include "report/rjson.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TERMS 32
#define MAX_IDS 100000

extern const unsigned char pk_store_page_head[], pk_store_page_tail[];
extern const size_t pk_store_page_head_len, pk_store_page_tail_len;

struct profkit_store_browser {
    profkit_server *http;
    pthread_mutex_t lock; /* guards store */
    profkit_store *store;
    char *title;
    char *db; /* as given but a URL's user and password: the pages' command
                 lines name it */
    double min_percent;
    size_t max_nodes;
};

/* {"error":"TEXT"}; returns status. */
static unsigned fail_text(pk_buf *a, unsigned status, const char *text)
{
    pk_buf_clear(a);
    pk_buf_puts(a, "{\"error\":");
    pk_rjson_str(a, text);
    pk_buf_puts(a, "}\n");
    return status;
}

/* An error of the library as an answer: 400, 404 or 500 by its code. */
static unsigned fail_err(pk_buf *a, int rc, const profkit_error *err)
{
    unsigned status = rc == PROFKIT_EINVAL ? 400 : rc == PROFKIT_ENOTFOUND ? 404 : 500;
    /* "profkit_X_options.NAME ..." (which the command line renames --NAME)
     * is the API's argument NAME */
    const char *m = err->message[0] ? err->message : "failed", *dot = strstr(m, "_options.");
    if (strncmp(m, "profkit_", 8) == 0 && dot && !memchr(m, ' ', (size_t)(dot - m)))
        m = dot + 9;
    return fail_text(a, status, m);
}

/* ------------------------------------------------------------- arguments */

#define MAX_FORM 256

/* A request's arguments: its query's, or a POST's form body's
 * (application/x-www-form-urlencoded, as a page's <form> sends). */
typedef struct args {
    const pk_http_request *rq;
    int post;
    char *copy; /* the body, decoded in place */
    const char *k[MAX_FORM], *v[MAX_FORM];
    size_t n;
} args;

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decodes %XX and '+' in place; -1 for a bad escape or a NUL. */
static int form_decode(char *t)
{
    char *o = t;
    for (const char *i = t; *i; i++) {
        if (*i == '+') {
            *o++ = ' ';
        } else if (*i == '%') {
            int h = hexval(i[1]), l = h < 0 ? -1 : hexval(i[2]);
            if (l < 0 || (h == 0 && l == 0))
                return -1;
            *o++ = (char)(h * 16 + l);
            i += 2;
        } else {
            *o++ = *i;
        }
    }
    *o = 0;
    return 0;
}

int pk_store_form_parse(char *text, const char **k, const char **v, size_t max, size_t *n)
{
    *n = 0;
    for (char *p = text; *p;) {
        char *amp = strchr(p, '&');
        if (amp)
            *amp = 0;
        if (*p) {
            if (*n == max)
                return -2;
            char *eq = strchr(p, '=');
            if (eq)
                *eq = 0;
            if (form_decode(p) != 0 || (eq && form_decode(eq + 1) != 0))
                return -1;
            k[*n] = p;
            v[(*n)++] = eq ? eq + 1 : "";
        }
        if (!amp)
            break;
        p = amp + 1;
    }
    return 0;
}

/* Reads rq's arguments. Returns 0, or a status with the answer written. */
static unsigned args_read(args *ar, const pk_http_request *rq, pk_buf *a)
{
    memset(ar, 0, sizeof(*ar));
    ar->rq = rq;
    if (strcmp(rq->method, "POST") != 0)
        return 0;
    ar->post = 1;
    const char *ct = pk_http_header(rq, "Content-Type");
    if (!ct || strncasecmp(ct, "application/x-www-form-urlencoded", 33) != 0 || (ct[33] && ct[33] != ';'))
        return fail_text(a, 415, "a POST's body: expected a form (Content-Type: application/x-www-form-urlencoded)");
    if (memchr(rq->body, 0, rq->len))
        return fail_text(a, 400, "a POST's body: expected a form, not a NUL byte");
    if (!(ar->copy = malloc(rq->len + 1)))
        return fail_text(a, 500, "out of memory");
    memcpy(ar->copy, rq->body, rq->len);
    ar->copy[rq->len] = 0;
    int rc = pk_store_form_parse(ar->copy, ar->k, ar->v, MAX_FORM, &ar->n);
    if (rc == -2)
        return fail_text(a, 400, "a POST's body: more than 256 arguments");
    if (rc)
        return fail_text(a, 400, "a POST's body: a bad %-escape (or %00) in the form");
    return 0;
}

static void args_free(args *ar)
{
    free(ar->copy);
    ar->copy = NULL;
}

/* Every value of key: up to max in out; returns how many there are. */
static size_t argn(const args *ar, const char *key, const char **out, size_t max)
{
    if (!ar->post)
        return pk_http_args(ar->rq, key, out, max);
    size_t n = 0;
    for (size_t i = 0; i < ar->n; i++)
        if (strcmp(ar->k[i], key) == 0) {
            if (n < max)
                out[n] = ar->v[i];
            n++;
        }
    return n;
}

/* The first value of key, or NULL. */
static const char *arg1(const args *ar, const char *key)
{
    const char *v = NULL;
    return argn(ar, key, &v, 1) ? v : NULL;
}

/* ------------------------------------------------------------- selection */

typedef struct selection {
    const char *where[MAX_TERMS];
    const char *bound[2]; /* since, until as given (NULL: none) */
    uint64_t *ids;
    char *ids_text; /* the ids as --ids takes them (16 hex digits each) */
    int resolved;   /* ids_text is the whole selection (resolve_ids) */
    profkit_store_query q;
    char text[512]; /* what it is, for a page's title */
} selection;

static void selection_free(selection *sel)
{
    free(sel->ids);
    free(sel->ids_text);
    sel->ids = NULL;
    sel->ids_text = NULL;
}

/* "ID,ID,..." of n ids, 16 hex digits each (as --ids takes them); NULL
 * when out of memory. */
static char *ids_join(const uint64_t *ids, size_t n)
{
    char *t = malloc(n * 17 + 1), *o = t;
    if (!t)
        return NULL;
    *o = 0;
    for (size_t i = 0; i < n; i++)
        o += sprintf(o, "%s%016llx", i ? "," : "", (unsigned long long)ids[i]);
    return t;
}

/* The query argument PREFIX+NAME. */
static const char *arg_name(char *buf, size_t n, const char *prefix, const char *name)
{
    snprintf(buf, n, "%s%s", prefix, name);
    return buf;
}

/* Reads a selection from the arguments with this prefix ("", "base_",
 * "new_"). Returns 0, or a status with the answer written. */
static unsigned selection_read(selection *sel, const args *rq, const char *prefix, pk_buf *a)
{
    char key[32], msg[300];
    memset(sel, 0, sizeof(*sel));
    sel->q.since = sel->q.until = PROFKIT_NO_TIME;
    size_t n = argn(rq, arg_name(key, sizeof(key), prefix, "where"), sel->where, MAX_TERMS);
    if (n > MAX_TERMS) {
        snprintf(msg, sizeof(msg), "%s: at most %d terms", key, MAX_TERMS);
        return fail_text(a, 400, msg);
    }
    sel->q.where = sel->where;
    sel->q.n_where = n;
    size_t used = 0;
    for (size_t i = 0; i < n && used + 2 < sizeof(sel->text); i++)
        used += (size_t)snprintf(sel->text + used, sizeof(sel->text) - used, "%s%s", i ? " " : "",
                                 sel->where[i]);
    static const char *const bounds[2] = { "since", "until" };
    for (int b = 0; b < 2; b++) {
        const char *t = arg1(rq, arg_name(key, sizeof(key), prefix, bounds[b]));
        if (!t || !*t)
            continue;
        int64_t ns;
        if (profkit_store_parse_time(t, &ns) != 0) {
            snprintf(msg, sizeof(msg),
                     "%s '%.100s': expected YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z] (UTC) or seconds since 1970",
                     key, t);
            return fail_text(a, 400, msg);
        }
        *(b ? &sel->q.until : &sel->q.since) = ns;
        sel->bound[b] = t;
        if (used + 2 < sizeof(sel->text))
            used += (size_t)snprintf(sel->text + used, sizeof(sel->text) - used, "%s%s %s",
                                     used ? " " : "", bounds[b], t);
    }
    const char *ids = arg1(rq, arg_name(key, sizeof(key), prefix, "ids"));
    if (ids && *ids) {
        size_t cap = 1;
        for (const char *p = ids; *p; p++)
            cap += *p == ',';
        if (cap > MAX_IDS) {
            snprintf(msg, sizeof(msg), "%s: at most %d profile ids", key, MAX_IDS);
            return fail_text(a, 400, msg);
        }
        if (!(sel->ids = malloc(cap * sizeof(*sel->ids))))
            return fail_text(a, 500, "out of memory");
        const char *p = ids;
        size_t k = 0;
        for (;;) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(p, &end, 16);
            if (end == p || errno || end - p > 16 || (*end && *end != ',') || *p == '-' || *p == '+') {
                snprintf(msg, sizeof(msg), "%s '%.100s': expected profile ids (16 hex digits, as store ls "
                         "prints them) separated by commas", key, ids);
                selection_free(sel);
                return fail_text(a, 400, msg);
            }
            sel->ids[k++] = v;
            if (!*end)
                break;
            p = end + 1;
        }
        sel->q.ids = sel->ids;
        sel->q.n_ids = k;
        if (!(sel->ids_text = ids_join(sel->ids, k))) {
            selection_free(sel);
            return fail_text(a, 500, "out of memory");
        }
        if (used + 2 < sizeof(sel->text))
            snprintf(sel->text + used, sizeof(sel->text) - used, "%s%zu profile%s", used ? " " : "", k,
                     k == 1 ? "" : "s");
    }
    return 0;
}

/* ------------------------------------------------------------ answers */

/* Runs a report of the library that writes to a FILE into the answer. */
typedef int (*file_report)(FILE *f, profkit_store_browser *b, const selection *sel,
                           const args *rq, profkit_error *err);

static unsigned via_file(profkit_store_browser *b, const selection *sel, const args *rq,
                         file_report fn, pk_buf *a)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return fail_text(a, 500, "out of memory");
    profkit_error err;
    memset(&err, 0, sizeof(err));
    pthread_mutex_lock(&b->lock);
    int rc = fn(f, b, sel, rq, &err);
    pthread_mutex_unlock(&b->lock);
    int bad = fclose(f) != 0;
    unsigned status = 200;
    if (rc)
        status = fail_err(a, rc, &err);
    else if (bad)
        status = fail_text(a, 500, "out of memory");
    else
        pk_buf_put(a, text, len);
    free(text);
    return status;
}

static int do_profiles(FILE *f, profkit_store_browser *b, const selection *sel, const args *rq,
                       profkit_error *err)
{
    (void)rq;
    profkit_store_list_options o = { 1, 0 };
    return profkit_store_list_opts(f, b->store, &sel->q, &o, err);
}

static int do_top(FILE *f, profkit_store_browser *b, const selection *sel, const args *rq,
                  profkit_error *err)
{
    profkit_report_options o;
    memset(&o, 0, sizeof(o));
    o.json = 1;
    o.limit = 0;
    o.value = arg1(rq, "value");
    o.thread = arg1(rq, "thread");
    if (o.value && !*o.value)
        o.value = NULL;
    if (o.thread && !*o.thread)
        o.thread = NULL;
    return profkit_store_report_top(f, b->store, &sel->q, &o, err);
}

static int do_trend(FILE *f, profkit_store_browser *b, const selection *sel, const args *rq,
                    profkit_error *err)
{
    profkit_store_trend_options o;
    memset(&o, 0, sizeof(o));
    o.by = arg1(rq, "by");
    o.function = arg1(rq, "function");
    o.value = arg1(rq, "value");
    o.thread = arg1(rq, "thread");
    o.json = 1;
    if (o.value && !*o.value)
        o.value = NULL;
    if (o.thread && !*o.thread)
        o.thread = NULL;
    if (!o.by || !*o.by)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "trend: expected by=KEY (a label key) or by=day");
    return profkit_store_trend(f, b->store, &sel->q, &o, err);
}

/* The threads of the selection merged (its header: threads in order of
 * first appearance, as profkit_store_load numbers them). */
static int do_threads(FILE *f, profkit_store_browser *b, const selection *sel, const args *rq,
                      profkit_error *err)
{
    (void)rq;
    pk_buf q = PK_BUF_INIT, out = PK_BUF_INIT;
    profkit_profile *h = NULL;
    int rc = pk_sql_select_profiles(&q, b->store, &sel->q, err);
    if (rc == 0)
        rc = pk_store_header(&h, b->store, q.buf, err);
    pk_buf_free(&q);
    if (rc)
        return rc;
    pk_buf_puts(&out, "{\"threads\":[");
    for (size_t i = 0; i < h->n_threads; i++) {
        const profkit_thread *t = &h->threads[i];
        const char *name = pk_str(h, t->name);
        char label[600], pick[32];
        pk_thread_label(h, (uint32_t)i, label, sizeof(label));
        /* the selector --thread takes for it: its name where that picks
         * this thread alone, else its index as t-N (never a tid) */
        int ok = 0;
        profkit_error e2;
        memset(&e2, 0, sizeof(e2));
        int by_name = *name && pk_select_thread(h, name, &ok, &e2) == (uint32_t)i && ok;
        snprintf(pick, sizeof(pick), "t-%zu", i);
        pk_buf_printf(&out, "%s\n{\"index\":%zu,\"name\":", i ? "," : "", i);
        pk_rjson_str(&out, name);
        pk_buf_puts(&out, ",\"process\":");
        pk_rjson_str(&out, pk_str(h, t->process_name));
        pk_buf_printf(&out, ",\"pid\":%lld,\"tid\":%lld,\"label\":", (long long)t->pid, (long long)t->tid);
        pk_rjson_str(&out, label);
        pk_buf_puts(&out, ",\"select\":");
        pk_rjson_str(&out, by_name ? name : pick);
        pk_buf_puts(&out, "}");
    }
    pk_buf_printf(&out, "],\"count\":%zu}\n", h->n_threads);
    profkit_profile_free(h);
    if (pk_buf_error(&out) || fwrite(out.buf, 1, out.len, f) != out.len)
        rc = pk_error_set(err, PROFKIT_ENOMEM, b->db, -1, "out of memory");
    pk_buf_free(&out);
    return rc;
}

/*
 * The ids of every profile sel selects, as --ids takes them, in
 * sel->ids_text (a diff's side whose time bounds the other side does not
 * share: the command line's --since and --until hold for both sides).
 * Under b->lock. Returns 0 or an error of the store.
 */
static int resolve_ids(profkit_store_browser *b, selection *sel, profkit_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return pk_error_set(err, PROFKIT_ENOMEM, b->db, -1, "out of memory");
    profkit_store_list_options o = { 1, 0 };
    int rc = profkit_store_list_opts(f, b->store, &sel->q, &o, err);
    if (fclose(f) != 0 && rc == 0)
        rc = pk_error_set(err, PROFKIT_ENOMEM, b->db, -1, "out of memory");
    /* each profile of store ls --json opens {"id":"HEX" (a '"' inside a
     * string is escaped, so the text cannot occur in one) */
    pk_buf ids = PK_BUF_INIT;
    static const char mark[] = "{\"id\":\"";
    for (const char *p = text; rc == 0 && (p = strstr(p, mark)) != NULL;) {
        p += sizeof(mark) - 1;
        size_t n = strspn(p, "0123456789abcdef");
        if (n == 16 && p[16] == '"') {
            if (ids.len)
                pk_buf_puts(&ids, ",");
            pk_buf_put(&ids, p, 16);
        }
        p += n;
    }
    free(text);
    if (rc == 0 && (pk_buf_error(&ids) || !ids.len))
        rc = pk_error_set(err, ids.len ? PROFKIT_ENOMEM : PROFKIT_ENOTFOUND, b->db, -1,
                          ids.len ? "out of memory" : "the selection lists no profile");
    if (rc == 0) {
        free(sel->ids_text);
        const char *t = pk_buf_cstr(&ids);
        if (!t || !(sel->ids_text = strdup(t)))
            rc = pk_error_set(err, PROFKIT_ENOMEM, b->db, -1, "out of memory");
        sel->resolved = 1;
    }
    pk_buf_free(&ids);
    return rc;
}

/* Whether two selections have the same time bounds. */
static int same_bounds(const selection *x, const selection *y)
{
    return x->q.since == y->q.since && x->q.until == y->q.until;
}

/* A side of a diff on the command line: --base-* or --new-* (prefix). */
static size_t side_inputs(const selection *sel, const char *where_flag, const char *ids_flag,
                          const char **in, size_t k)
{
    if (!sel->resolved)
        for (size_t i = 0; i < sel->q.n_where; i++)
            in[k++] = where_flag, in[k++] = sel->where[i];
    if (sel->ids_text)
        in[k++] = ids_flag, in[k++] = sel->ids_text;
    else if (!sel->q.n_where) /* every profile: each has a format */
        in[k++] = where_flag, in[k++] = "format~.";
    return k;
}

/*
 * The arguments that name this page's input on the command line (a page's
 * "command line" box): --db DB and the selection's --where, --since,
 * --until and --ids, or a diff's --base-where, --base-ids, --new-where and
 * --new-ids (with --since and --until where both sides share them; a side
 * bounded on its own is named by its profiles' ids, resolve_ids). The page
 * adds --value and --thread (by the thread's index in the profile loaded,
 * which the command line loads alike) itself. in: at least 12 + 4 *
 * MAX_TERMS.
 */
static size_t page_inputs(const profkit_store_browser *b, const selection *sel, const selection *base,
                          const char **in)
{
    size_t k = 0;
    in[k++] = "--db";
    in[k++] = b->db;
    if (!base)
        for (size_t i = 0; i < sel->q.n_where; i++)
            in[k++] = "--where", in[k++] = sel->where[i];
    if (!base || same_bounds(base, sel))
        for (int t = 0; t < 2; t++)
            if (sel->bound[t])
                in[k++] = t ? "--until" : "--since", in[k++] = sel->bound[t];
    if (!base) {
        if (sel->ids_text)
            in[k++] = "--ids", in[k++] = sel->ids_text;
    } else {
        k = side_inputs(base, "--base-where", "--base-ids", in, k);
        k = side_inputs(sel, "--new-where", "--new-ids", in, k);
    }
    return k;
}

/* The viewer page of one selection, or with base the diff page. */
static unsigned page(profkit_store_browser *b, selection *sel, selection *base, const args *rq,
                     pk_buf *a)
{
    profkit_profile *p = NULL, *bp = NULL;
    profkit_error err;
    memset(&err, 0, sizeof(err));
    pthread_mutex_lock(&b->lock);
    int rc = profkit_store_load(&p, b->store, &sel->q, &err);
    if (rc == 0 && base && (rc = profkit_store_load(&bp, b->store, &base->q, &err)) != 0) {
        char m[sizeof(err.message)];
        memcpy(m, err.message, sizeof(m));
        m[sizeof(m) - 1] = 0;
        snprintf(err.message, sizeof(err.message), "the base: %.*s", (int)(sizeof(m) - 11), m);
    }
    /* a side bounded in time on its own: named by its ids */
    for (int side = 0; rc == 0 && base && !same_bounds(base, sel) && side < 2; side++) {
        selection *x = side ? sel : base;
        if (x->bound[0] || x->bound[1])
            rc = resolve_ids(b, x, &err);
    }
    pthread_mutex_unlock(&b->lock);
    if (rc) {
        profkit_profile_free(p);
        profkit_profile_free(bp);
        return fail_err(a, rc, &err);
    }
    const char *v = arg1(rq, "value"), *t = arg1(rq, "thread");
    t = t && *t ? t : NULL;
    char title[1600];
    if (base)
        snprintf(title, sizeof(title), "%.300s: %s vs %s%s%.100s%s", b->title, base->text[0] ? base->text : "all",
                 sel->text[0] ? sel->text : "all", t ? " (thread " : "", t ? t : "", t ? ")" : "");
    else
        snprintf(title, sizeof(title), "%.300s%s%s%s%.100s%s", b->title, sel->text[0] ? ": " : "", sel->text,
                 t ? " (thread " : "", t ? t : "", t ? ")" : "");
    profkit_flame_options o;
    profkit_flame_options_init(&o);
    o.min_percent = b->min_percent;
    o.max_nodes = b->max_nodes;
    o.title = title;
    o.base = bp;
    o.value = v && *v ? v : NULL;
    o.thread = t;
    const char *inputs[12 + 4 * MAX_TERMS];
    o.n_inputs = page_inputs(b, sel, base, inputs);
    o.inputs = inputs;
    char *html = NULL;
    size_t len = 0;
    rc = profkit_flame_render_html(&html, &len, p, &o, &err);
    profkit_profile_free(p);
    profkit_profile_free(bp);
    if (rc)
        return fail_err(a, rc, &err);
    pk_buf_put(a, html, len);
    free(html);
    *rq->rq->content_type = "text/html; charset=utf-8";
    return 200;
}

static unsigned answer(profkit_store_browser *b, const args *rq, pk_buf *a);

static unsigned handle(void *payload, const pk_http_request *hr, pk_buf *a)
{
    args ar;
    unsigned st = args_read(&ar, hr, a);
    if (st == 0)
        st = answer(payload, &ar, a);
    args_free(&ar);
    return st;
}

static unsigned answer(profkit_store_browser *b, const args *rq, pk_buf *a)
{
    const char *path = rq->rq->path;
    selection sel, base;
    unsigned st;
    if (strcmp(path, "/diff") == 0) {
        if ((st = selection_read(&base, rq, "base_", a)) != 0)
            return st;
        if ((st = selection_read(&sel, rq, "new_", a)) != 0) {
            selection_free(&base);
            return st;
        }
        st = page(b, &sel, &base, rq, a);
        selection_free(&base);
        selection_free(&sel);
        return st;
    }
    file_report fn = strcmp(path, "/profiles") == 0 ? do_profiles
                     : strcmp(path, "/top") == 0     ? do_top
                     : strcmp(path, "/trend") == 0   ? do_trend
                     : strcmp(path, "/threads") == 0 ? do_threads
                                                     : NULL;
    int labels = strcmp(path, "/labels") == 0, view = strcmp(path, "/view") == 0;
    if (!fn && !labels && !view)
        return fail_text(a, 404, "no such API path: expected /TOKEN/api/ and one of profiles, labels, "
                                 "threads, top, view, diff, trend");
    if ((st = selection_read(&sel, rq, "", a)) != 0)
        return st;
    if (view) {
        st = page(b, &sel, NULL, rq, a);
    } else if (labels) {
        profkit_error err;
        memset(&err, 0, sizeof(err));
        pthread_mutex_lock(&b->lock);
        int rc = pk_store_label_index(a, b->store, &sel.q, &err);
        pthread_mutex_unlock(&b->lock);
        st = rc ? fail_err(a, rc, &err) : 200;
    } else {
        st = via_file(b, &sel, rq, fn, a);
    }
    selection_free(&sel);
    return st;
}

/* ------------------------------------------------------------ lifetime */

void profkit_store_browse_options_init(profkit_store_browse_options *o)
{
    memset(o, 0, sizeof(*o));
    profkit_flame_options fo;
    profkit_flame_options_init(&fo);
    o->min_percent = fo.min_percent;
    o->max_nodes = fo.max_nodes;
}

static void browser_free(profkit_store_browser *b)
{
    profkit_store_close(b->store);
    pthread_mutex_destroy(&b->lock);
    free(b->title);
    free(b->db);
    free(b);
}

/* The browser page: the template around {"title":...,"db":...} (the data
 * marker; db as given, for the command lines the page shows). */
static int render(pk_buf *out, const char *title, const char *db)
{
    pk_buf_put(out, pk_store_page_head, pk_store_page_head_len);
    pk_buf_puts(out, "{\"title\":");
    pk_buf_json(out, title, strlen(title), PK_JSON_PAGE);
    pk_buf_puts(out, ",\"db\":");
    pk_buf_json(out, db, strlen(db), PK_JSON_PAGE);
    pk_buf_puts(out, "}");
    pk_buf_put(out, pk_store_page_tail, pk_store_page_tail_len);
    return pk_buf_error(out) ? PROFKIT_ENOMEM : 0;
}

/* db without a URL's USER[:PASSWORD]@ (the pages show db: the command
 * line takes the credentials from the environment); NULL: out of memory. */
static char *db_shown(const char *db)
{
    const char *p = strstr(db, "://");
    if (!p || strncmp(db, "clickhouse", 10) != 0)
        return strdup(db);
    p += 3;
    const char *end = p + strcspn(p, "/?#"), *at = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == '@')
            at = q;
    if (!at)
        return strdup(db);
    size_t head = (size_t)(p - db), tail = strlen(at + 1);
    char *t = malloc(head + tail + 1);
    if (t) {
        memcpy(t, db, head);
        memcpy(t + head, at + 1, tail + 1);
    }
    return t;
}

int profkit_store_browse_start(profkit_store_browser **out, const char *db,
                               const profkit_store_browse_options *o, profkit_error *err)
{
    *out = NULL;
    profkit_store_browse_options def;
    if (!o) {
        profkit_store_browse_options_init(&def);
        o = &def;
    }
    profkit_store_browser *b = calloc(1, sizeof(*b));
    if (!b)
        return pk_error_set(err, PROFKIT_ENOMEM, db, -1, "out of memory");
    if (pthread_mutex_init(&b->lock, NULL) != 0) {
        free(b);
        return pk_error_set(err, PROFKIT_ENOMEM, db, -1, "cannot create a mutex");
    }
    b->min_percent = o->min_percent;
    b->max_nodes = o->max_nodes;
    if (!(b->db = db_shown(db)) || !(b->title = strdup(o->title ? o->title : b->db))) {
        browser_free(b);
        return pk_error_set(err, PROFKIT_ENOMEM, db, -1, "out of memory");
    }
    profkit_store_options so = { o->user, o->password };
    int rc = profkit_store_open_opts(&b->store, db, &so, err);
    if (rc) {
        browser_free(b);
        return rc;
    }
    profkit_server_options vo;
    memset(&vo, 0, sizeof(vo));
    vo.port = o->port;
    vo.token = o->token;
    if ((rc = pk_server_start_page_api(&b->http, &vo, handle, b, err)) != 0) {
        browser_free(b);
        return rc;
    }
    pk_buf html = PK_BUF_INIT;
    if ((rc = render(&html, b->title, b->db)) != 0)
        pk_error_set(err, rc, db, -1, "out of memory");
    else
        rc = profkit_server_set(b->http, "", "text/html; charset=utf-8", html.buf, html.len, err);
    if (rc) {
        pk_buf_free(&html);
        profkit_store_browse_stop(b);
        return rc;
    }
    pk_buf_free(&html);
    *out = b;
    return 0;
}

const char *profkit_store_browse_url(const profkit_store_browser *b) { return profkit_server_url(b->http); }

void profkit_store_browse_stop(profkit_store_browser *b)
{
    if (!b)
        return;
    profkit_server_stop(b->http); /* waits for the threads of requests in flight */
    browser_free(b);
}
