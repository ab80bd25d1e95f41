/*
 * store_serve.c: `profkit store serve`, profiles pushed over HTTP into a
 * store (docs/store.md, "Pushing profiles"). The server is the project's
 * own (src/serve/, pk_server_start_api: Host, Origin, the bearer token and
 * the body's size are checked there); this file answers what passes:
 *
 *   POST /ingest?name=APP{k=v,...}&from=T&until=T&format=F&sampleRate=N&spyName=S
 *
 * as Pyroscope's ingest API takes it, so its agents (and curl) can push.
 * The body is a profile of any format profkit reads, detected from its
 * bytes as a file's is, or named by `format` (Pyroscope's names pprof,
 * folded, lines and speedscope, or any of profkit's); a multipart/form-data
 * body (Pyroscope's Go agent) gives its part "profile". Labels: `name`
 * (APP), each k=v of the braces, and spyName, sampleRate, units and
 * aggregationType when given; the profile's time is its own where it has
 * one, else `from`. Each push is one profkit_store_add: atomic, so a push
 * whose body is cut short (never handed here) or whose add fails leaves
 * nothing a query sees.
 *
 * Concurrency: the server runs a thread per connection; each reads its
 * body into a profile in parallel with the others. The adds are one at a
 * time, through the one store connection (a mutex here): on SQLite rather
 * than several connections and SQLite's busy waits (which give up after
 * their timeout under a crowd of pushers, and cost each connection its
 * page cache whenever another writes); on ClickHouse, which has no
 * transaction, so that two pushes of one content at once cannot both find
 * it absent and both add it.
 */
#include "serve/serve.h"
#include "store/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_LABELS 64

struct profkit_store_server {
    profkit_server *http;
    char *db;
    char *user, *password; /* ClickHouse credentials (never printed) */
    pthread_mutex_t write; /* guards store: one add at a time */
    profkit_store *store;
    void (*on_add)(void *payload, const char *line);
    void *payload;
};

/* ------------------------------------------------------------- answers */

/* {"error":"TEXT"}, with "offset" (a byte of the profile) where the error has one. */
static unsigned answer_error(pk_buf *a, unsigned status, const char *text, const profkit_error *err)
{
    pk_buf_clear(a);
    pk_buf_puts(a, "{\"error\":");
    pk_buf_json(a, text, strlen(text), PK_JSON_REPORT);
    if (err && err->has_offset)
        pk_buf_printf(a, ",\"offset\":%llu", (unsigned long long)err->offset);
    pk_buf_puts(a, "}\n");
    return status;
}

/* -------------------------------------------------------------- labels */

typedef struct labels {
    char *v[MAX_LABELS]; /* "KEY=VALUE", allocated */
    size_t n;
} labels;

static void labels_free(labels *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
}

static int key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t'))
        (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

/* Adds KEY=VALUE; -1 for a bad key or value, -2 for too many or no memory. */
static int label_add(labels *l, const char *k, size_t kn, const char *v, size_t vn)
{
    trim(&k, &kn);
    trim(&v, &vn);
    if (kn == 0 || kn > 127 || vn == 0 || memchr(v, 0, vn))
        return -1;
    for (size_t i = 0; i < kn; i++)
        if (!key_char(k[i]))
            return -1;
    if (l->n == MAX_LABELS)
        return -2;
    char *x = malloc(kn + vn + 2);
    if (!x)
        return -2;
    memcpy(x, k, kn);
    x[kn] = '=';
    memcpy(x + kn + 1, v, vn);
    x[kn + 1 + vn] = 0;
    l->v[l->n++] = x;
    return 0;
}

/* name=APP{k=v,k2=v2}: the label name=APP and each pair. */
static int parse_name(labels *l, const char *name, profkit_error *err)
{
    const char *brace = strchr(name, '{');
    size_t an = brace ? (size_t)(brace - name) : strlen(name);
    int rc = 0;
    if (an && (rc = label_add(l, "name", 4, name, an)) != 0)
        goto bad;
    if (!brace)
        return 0;
    size_t n = strlen(brace);
    if (brace[n - 1] != '}')
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                            "name '%.200s': expected APP{KEY=VALUE,...} with the braces last", name);
    const char *p = brace + 1, *end = brace + n - 1;
    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *e = comma ? comma : end;
        const char *eq = memchr(p, '=', (size_t)(e - p));
        if (!eq) {
            rc = -1;
            goto bad;
        }
        if ((rc = label_add(l, p, (size_t)(eq - p), eq + 1, (size_t)(e - eq - 1))) != 0)
            goto bad;
        p = comma ? comma + 1 : end;
    }
    return 0;
bad:
    if (rc == -2)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "name '%.200s': more than %d labels", name,
                            MAX_LABELS);
    return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                        "name '%.200s': expected APP{KEY=VALUE,...} (KEY of letters, digits, '_', '.', "
                        "'-'; VALUE not empty)", name);
}

/* from/until: seconds since 1970 (Pyroscope's unit), or milliseconds,
 * microseconds or nanoseconds told apart by their size. */
static int parse_time(const char *t, int64_t *ns)
{
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (!*t || *end || errno || v < 0)
        return -1;
    if (v < 100000000000LL) /* seconds until the year 5138 */
        *ns = (int64_t)v * 1000000000LL;
    else if (v < 100000000000000LL) /* milliseconds */
        *ns = (int64_t)v * 1000000LL;
    else if (v < 100000000000000000LL) /* microseconds */
        *ns = (int64_t)v * 1000LL;
    else
        *ns = (int64_t)v;
    return 0;
}

/* ----------------------------------------------------------- multipart */

/* The first nn bytes n in the hn bytes h, or NULL. */
static const char *find(const char *h, size_t hn, const char *n, size_t nn)
{
    if (nn == 0 || nn > hn)
        return NULL;
    const char *end = h + (hn - nn) + 1;
    for (const char *p = h; p < end;) {
        p = memchr(p, n[0], (size_t)(end - p));
        if (!p)
            return NULL;
        if (memcmp(p, n, nn) == 0)
            return p;
        p++;
    }
    return NULL;
}

/* "boundary=" in a Content-Type, in any case. */
static const char *find_boundary(const char *ctype)
{
    for (const char *p = ctype; *p; p++)
        if (strncasecmp(p, "boundary=", 9) == 0)
            return p;
    return NULL;
}

/* The part named `want` of a multipart/form-data body (RFC 7578), or -1. */
int pk_store_multipart_part(const char *ctype, const char *body, size_t len, const char *want,
                          const char **out, size_t *out_len)
{
    const char *b = find_boundary(ctype);
    if (!b)
        return -1;
    b += 9;
    char delim[80] = "\r\n--";
    size_t bn;
    if (*b == '"') {
        const char *q = strchr(b + 1, '"');
        if (!q)
            return -1;
        bn = (size_t)(q - b - 1);
        b++;
    } else {
        bn = strcspn(b, "; \t");
    }
    if (bn == 0 || bn > 70)
        return -1;
    memcpy(delim + 4, b, bn);
    size_t dn = 4 + bn;
    char named[140];
    int nl = snprintf(named, sizeof(named), "name=\"%s\"", want);
    /* the first delimiter may open the body without its CRLF */
    const char *p = len >= dn - 2 && memcmp(body, delim + 2, dn - 2) == 0
                        ? body + dn - 2
                        : find(body, len, delim, dn);
    if (p && p != body + dn - 2)
        p += dn;
    const char *end = body + len;
    while (p && end - p >= 2) {
        if (p[0] == '-' && p[1] == '-')
            return -1; /* the closing delimiter: no such part */
        const char *eol = find(p, (size_t)(end - p), "\r\n", 2);
        if (!eol)
            return -1;
        const char *heads = eol + 2;
        const char *hend = find(heads, (size_t)(end - heads), "\r\n\r\n", 4);
        const char *content;
        if (hend) {
            content = hend + 4;
        } else if (end - heads >= 2 && heads[0] == '\r' && heads[1] == '\n') {
            hend = heads; /* no header at all */
            content = heads + 2;
        } else {
            return -1;
        }
        const char *next = find(content, (size_t)(end - content), delim, dn);
        if (!next)
            return -1;
        /* Content-Disposition: form-data; name="profile"; filename="..." */
        const char *cd = find(heads, (size_t)(hend - heads), named, (size_t)nl);
        if (cd && cd > heads && (cd[-1] == ' ' || cd[-1] == ';' || cd[-1] == '\t')) {
            *out = content;
            *out_len = (size_t)(next - content);
            return 0;
        }
        p = next + dn;
    }
    return -1;
}

int pk_store_name_labels(const char *name, size_t *n, profkit_error *err)
{
    labels l = { { 0 }, 0 };
    int rc = parse_name(&l, name, err);
    *n = l.n;
    labels_free(&l);
    return rc;
}

/* ---------------------------------------------------------------- push */

/* Pyroscope's "lines": one stack a line, each line one sample; as folded
 * text (each line followed by " 1"). */
static int lines_to_folded(const char *body, size_t len, pk_buf *out)
{
    const char *p = body, *end = body + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        size_t n = (size_t)(e - p);
        if (n && p[n - 1] == '\r')
            n--;
        if (n) {
            pk_buf_put(out, p, n);
            pk_buf_puts(out, " 1\n");
        }
        p = nl ? nl + 1 : end;
    }
    return pk_buf_error(out) ? -1 : 0;
}

/* The format to read the body as: profkit's name, or NULL to detect;
 * *lines for Pyroscope's "lines". -1: unknown; -2: known, not readable. */
static int body_format(const char *f, const char **out, int *lines)
{
    *out = NULL;
    *lines = 0;
    if (!f || !*f)
        return 0;
    if (strcmp(f, "lines") == 0) {
        *out = "folded";
        *lines = 1;
        return 0;
    }
    if (strcmp(f, "trie") == 0 || strcmp(f, "tree") == 0 || strcmp(f, "jfr") == 0)
        return -2;
    const profkit_format_info *fi = profkit_format_find(f);
    if (!fi)
        return -1;
    if (!fi->can_read)
        return -2;
    *out = fi->name;
    return 0;
}

static void ignore_warning(const profkit_error *w, void *payload) { (void)w, (void)payload; }

/* The query's other labels: spyName, sampleRate, units, aggregationType. */
static const char *const query_labels[] = { "spyName", "sampleRate", "units", "aggregationType" };

static unsigned ingest(profkit_store_server *sv, const pk_http_request *rq, pk_buf *a)
{
    profkit_error err;
    memset(&err, 0, sizeof(err));
    labels l = { { 0 }, 0 };
    unsigned status = 400;
    pk_buf converted = PK_BUF_INIT;
    profkit_profile *p = NULL;

    const char *name = pk_http_arg(rq, "name");
    if (name && parse_name(&l, name, &err) != 0)
        goto fail;
    for (size_t i = 0; i < sizeof(query_labels) / sizeof(query_labels[0]); i++) {
        const char *v = pk_http_arg(rq, query_labels[i]);
        if (v && *v && label_add(&l, query_labels[i], strlen(query_labels[i]), v, strlen(v)) != 0) {
            pk_error_set(&err, PROFKIT_EINVAL, NULL, -1, "%s '%.100s': expected a value without a NUL "
                         "(and at most 64 labels in all)", query_labels[i], v);
            goto fail;
        }
    }
    int64_t from = PROFKIT_NO_TIME, until = PROFKIT_NO_TIME;
    const char *t;
    if ((t = pk_http_arg(rq, "from")) && parse_time(t, &from) != 0) {
        pk_error_set(&err, PROFKIT_EINVAL, NULL, -1, "from '%.100s': expected seconds since 1970", t);
        goto fail;
    }
    if ((t = pk_http_arg(rq, "until")) && parse_time(t, &until) != 0) {
        pk_error_set(&err, PROFKIT_EINVAL, NULL, -1, "until '%.100s': expected seconds since 1970", t);
        goto fail;
    }
    if (from != PROFKIT_NO_TIME && until != PROFKIT_NO_TIME && until < from) {
        pk_error_set(&err, PROFKIT_EINVAL, NULL, -1, "until is before from");
        goto fail;
    }
    const char *fmt = pk_http_arg(rq, "format"), *read_as;
    int lines, fr = body_format(fmt, &read_as, &lines);
    if (fr == -1) {
        pk_error_set(&err, PROFKIT_EINVAL, NULL, -1, "format '%.100s': expected pprof, folded, lines, "
                     "speedscope or a format profkit reads (profkit --formats)", fmt);
        goto fail;
    }
    if (fr == -2) {
        status = 415;
        pk_error_set(&err, PROFKIT_EUNSUPPORTED, NULL, -1, "format '%.100s': profkit does not read it", fmt);
        goto fail;
    }
    const char *data = rq->body;
    size_t len = rq->len;
    const char *ctype = pk_http_header(rq, "Content-Type");
    if (ctype && strncasecmp(ctype, "multipart/form-data", 19) == 0 &&
        pk_store_multipart_part(ctype, rq->body, rq->len, "profile", &data, &len) != 0) {
        pk_error_set(&err, PROFKIT_EINVAL, NULL, -1,
                     "a multipart/form-data body without a part named \"profile\"");
        goto fail;
    }
    if (len == 0) {
        pk_error_set(&err, PROFKIT_EINVAL, NULL, -1, "the body is empty: expected a profile");
        goto fail;
    }
    if (lines) {
        if (lines_to_folded(data, len, &converted) != 0) {
            status = 500;
            pk_error_set(&err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
            goto fail;
        }
        data = converted.buf ? converted.buf : "";
        len = converted.len;
    }
    profkit_read_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.format = read_as;
    ro.on_warning = ignore_warning;
    ro.skip_markers = 1; /* the store keeps none */
    if (profkit_profile_read_memory(&p, data, len, "body", &ro, &err) != 0) {
        status = err.code == PROFKIT_ENOMEM ? 500 : err.code == PROFKIT_EUNSUPPORTED ? 415 : 400;
        goto fail;
    }
    profkit_store_add_options ao;
    memset(&ao, 0, sizeof(ao));
    ao.labels = (const char *const *)l.v;
    ao.n_labels = l.n;
    ao.time = from;
    uint64_t id = 0;
    pthread_mutex_lock(&sv->write);
    int r = profkit_store_add(sv->store, p, &ao, &id, &err);
    pthread_mutex_unlock(&sv->write);
    if (r < 0) {
        status = r == PROFKIT_EINVAL ? 400 : 500;
        goto fail;
    }
    pk_buf_printf(a, "{\"id\":\"%016llx\",\"added\":%s,\"format\":", (unsigned long long)id,
                  r == 0 ? "true" : "false");
    pk_buf_json(a, profkit_profile_format(p), strlen(profkit_profile_format(p)), PK_JSON_REPORT);
    pk_buf_puts(a, ",\"labels\":[");
    for (size_t i = 0; i < l.n; i++) {
        if (i)
            pk_buf_putc(a, ',');
        pk_buf_json(a, l.v[i], strlen(l.v[i]), PK_JSON_REPORT);
    }
    pk_buf_puts(a, "]}\n");
    if (sv->on_add) {
        char line[512];
        snprintf(line, sizeof(line), "%s %016llx %s %zu bytes%s%.300s", r == 0 ? "added" : "known",
                 (unsigned long long)id, profkit_profile_format(p), len, name ? " " : "",
                 name ? name : "");
        sv->on_add(sv->payload, line);
    }
    status = 200;
    goto done;
fail:
    answer_error(a, status, err.message[0] ? err.message : "bad request", &err);
done:
    profkit_profile_free(p);
    pk_buf_free(&converted);
    labels_free(&l);
    return status;
}

static unsigned handle(void *payload, const pk_http_request *rq, pk_buf *a)
{
    profkit_store_server *sv = payload;
    if (strcmp(rq->path, "/ingest") != 0)
        return answer_error(a, 404, "not found: profiles are pushed with POST /ingest", NULL);
    if (strcmp(rq->method, "POST") != 0)
        return answer_error(a, 405, "only POST /ingest", NULL);
    return ingest(sv, rq, a);
}

/* ------------------------------------------------------------ public API */

static void server_free(profkit_store_server *sv)
{
    profkit_store_close(sv->store);
    free(sv->db);
    free(sv->user);
    if (sv->password) {
        memset(sv->password, 0, strlen(sv->password));
        free(sv->password);
    }
    pthread_mutex_destroy(&sv->write);
    free(sv);
}

static char *dup_or_null(const char *s, int *bad)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        *bad = 1;
    return d;
}

int profkit_store_serve_start(profkit_store_server **out, const char *db,
                              const profkit_store_serve_options *o, profkit_error *err)
{
    *out = NULL;
    profkit_store_serve_options def;
    if (!o) {
        memset(&def, 0, sizeof(def));
        o = &def;
    }
    profkit_store_server *sv = calloc(1, sizeof(*sv));
    if (!sv)
        return pk_error_set(err, PROFKIT_ENOMEM, db, -1, "out of memory");
    pthread_mutex_init(&sv->write, NULL);
    int bad = 0;
    sv->db = dup_or_null(db, &bad);
    sv->user = dup_or_null(o->user, &bad);
    sv->password = dup_or_null(o->password, &bad);
    sv->on_add = o->on_add;
    sv->payload = o->payload;
    if (bad) {
        server_free(sv);
        return pk_error_set(err, PROFKIT_ENOMEM, db, -1, "out of memory");
    }
    /* the store opens (and its tables are made) before the first push */
    profkit_store_options so = { sv->user, sv->password };
    int rc = profkit_store_open_opts(&sv->store, sv->db, &so, err);
    if (rc) {
        server_free(sv);
        return rc;
    }
    pk_server_api api;
    memset(&api, 0, sizeof(api));
    api.listen = o->listen;
    api.token = o->token;
    api.hosts = o->hosts;
    api.n_hosts = o->n_hosts;
    api.max_body = o->max_body;
    api.max_connections = o->max_connections;
    api.handler = handle;
    api.payload = sv;
    if ((rc = pk_server_start_api(&sv->http, &api, err)) != 0) {
        server_free(sv);
        return rc;
    }
    *out = sv;
    return 0;
}

const char *profkit_store_serve_url(const profkit_store_server *sv) { return profkit_server_url(sv->http); }
const char *profkit_store_serve_token(const profkit_store_server *sv) { return profkit_server_token(sv->http); }
unsigned profkit_store_serve_port(const profkit_store_server *sv) { return profkit_server_port(sv->http); }

void profkit_store_serve_stop(profkit_store_server *sv)
{
    if (!sv)
        return;
    profkit_server_stop(sv->http); /* waits for every request under way */
    server_free(sv);
}
