/*
 * http_server.c: the local web server behind `profkit view` (issue 18),
 * built on libmicrohttpd.
 *
 * It binds 127.0.0.1 only and serves a small table of named byte buffers
 * ("resources") under one secret path segment, /TOKEN/NAME, the way
 * Jupyter's servers put a token in every URL. Who may read them:
 *
 *   - Host must be exactly 127.0.0.1:PORT or localhost:PORT (host part
 *     case-insensitive), else 421 Misdirected Request: a page that rebinds
 *     its own DNS name to 127.0.0.1 sends its own name as Host.
 *   - An Origin header, when present, must be this server's own origin or
 *     the one cross-origin reader the caller named (cors_origin), else 403.
 *     Only that origin gets Access-Control-Allow-Origin, and only it gets an
 *     answer to an OPTIONS preflight.
 *   - Only GET and HEAD (405 with Allow otherwise); a path whose first
 *     segment is not the token, or a name not in the table, is 404. The
 *     token is compared in constant time; names are looked up as exact
 *     strings, so "..", "%2e%2e" (decoded by libmicrohttpd) and the like
 *     never reach a file system.
 *
 * Every response carries Cache-Control: no-store, X-Content-Type-Options:
 * nosniff and Referrer-Policy: no-referrer (the token must not leak through
 * a Referer or a cache).
 *
 * Concurrency: libmicrohttpd's internal event loop (epoll or poll, one
 * thread) reads every connection without blocking, so a client that sends
 * half a request holds only its own connection, which is closed after
 * timeout_s seconds without activity; max_connections bounds how many are
 * open at once. Resources live in a table under a mutex; each buffer is
 * reference-counted, so replacing one while a response is being sent frees
 * the old bytes only when the last response using them is done.
 *
 * A server started with pk_server_start_api (serve.h: the store's ingest)
 * differs: it listens on the address it is given, wants the token as
 * "Authorization: Bearer TOKEN" rather than in the path, reads request
 * bodies up to a bound, hands each request that passed the checks to its
 * handler in a thread of the connection's own, and answers in JSON.
 *
 * libmicrohttpd's threads use MSG_NOSIGNAL; this file installs no signal
 * handlers. (libmicrohttpd's panic handler, which aborts on corrupted
 * internal state, is process-wide and is left to the application.)
 */
#include "profkit.h"

#include "serve/serve.h"
#include "util/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#define DEFAULT_TIMEOUT_S 10
#define DEFAULT_MAX_CONNECTIONS 128
#define TOKEN_MIN 16
#define TOKEN_MAX 128
#define NAME_MAX_LEN 255
#define API_DEFAULT_MAX_BODY ((size_t)64 << 20)
#define API_DEFAULT_TIMEOUT_S 30
#define API_DEFAULT_MAX_CONNECTIONS 64
#define MAX_HOSTS 16
#define PAGE_API_MAX_BODY ((size_t)4 << 20) /* a POSTed selection: 4 MiB */

/* One version of a resource's bytes; responses hold references to it. */
typedef struct blob {
    atomic_size_t refs;
    char *content_type;
    size_t size;
    unsigned char data[];
} blob;

typedef struct resource {
    char *name;
    blob *b;
} resource;

struct profkit_server {
    struct MHD_Daemon *daemon;
    unsigned port;
    char token[TOKEN_MAX + 1];
    size_t token_len;
    char *cors_origin; /* NULL: no cross-origin reader */
    char origin_ip[64], origin_name[64]; /* http://127.0.0.1:PORT, http://localhost:PORT */
    char url[64 + TOKEN_MAX];
    pthread_mutex_t lock; /* guards resources and last_log */
    resource *resources;
    size_t n_resources, cap_resources;
    char last_log[256]; /* libmicrohttpd's last message (for start errors) */
    /* pk_server_start_api's: the handler, the body's bound, Host names */
    pk_http_handler handler;
    void *payload;
    size_t max_body;
    char *hosts[MAX_HOSTS];
    size_t n_hosts;
    int page_api; /* a viewer's server whose /TOKEN/api/ paths go to handler */
};

/* A request of an api server while its body comes in. */
typedef struct api_req {
    pk_buf body;
    size_t seen;  /* bytes of the body so far */
    int refused;  /* past max_body: the rest is dropped, the answer is 413 */
} api_req;

static void blob_unref(void *p)
{
    blob *b = p;
    if (b && atomic_fetch_sub(&b->refs, 1) == 1) {
        free(b->content_type);
        free(b);
    }
}

static void on_log(void *cls, const char *fmt, va_list ap)
{
    profkit_server *s = cls;
    char msg[sizeof(s->last_log)];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
        msg[--n] = 0;
    pthread_mutex_lock(&s->lock);
    memcpy(s->last_log, msg, n + 1);
    pthread_mutex_unlock(&s->lock);
}

/* ------------------------------------------------------------ responses */

static int add_common_headers(struct MHD_Response *r, const profkit_server *s)
{
    int ok = MHD_add_response_header(r, "Cache-Control", "no-store") == MHD_YES &&
             MHD_add_response_header(r, "X-Content-Type-Options", "nosniff") == MHD_YES &&
             MHD_add_response_header(r, "Referrer-Policy", "no-referrer") == MHD_YES;
    if (ok && s->cors_origin)
        ok = MHD_add_response_header(r, "Vary", "Origin") == MHD_YES;
    else if (ok) /* no page elsewhere may even embed these bytes */
        ok = MHD_add_response_header(r, "Cross-Origin-Resource-Policy", "same-origin") == MHD_YES;
    return ok;
}

/* Queues `r` (adding the common headers) and drops the caller's reference. */
static enum MHD_Result queue(struct MHD_Connection *c, const profkit_server *s, unsigned status,
                             struct MHD_Response *r)
{
    if (!r)
        return MHD_NO; /* out of memory: libmicrohttpd closes the connection */
    enum MHD_Result ret = MHD_NO;
    if (add_common_headers(r, s))
        ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* A short answer of `len` bytes with this Content-Type; `mode` is how
 * libmicrohttpd holds them (PERSISTENT: static text; MUST_COPY: the
 * caller's buffer); `extra` is one more header name and value, or NULL. */
static enum MHD_Result respond(struct MHD_Connection *c, const profkit_server *s, unsigned status,
                               const char *content_type, const char *body, size_t len,
                               enum MHD_ResponseMemoryMode mode, const char *extra,
                               const char *extra_value)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, mode);
    if (!r)
        return MHD_NO;
    if (MHD_add_response_header(r, "Content-Type", content_type) != MHD_YES ||
        (extra && MHD_add_response_header(r, extra, extra_value) != MHD_YES)) {
        MHD_destroy_response(r);
        return MHD_NO;
    }
    return queue(c, s, status, r);
}

/* A short text/plain answer of static text. */
static enum MHD_Result refuse(struct MHD_Connection *c, const profkit_server *s, unsigned status,
                              const char *text, const char *extra, const char *extra_value)
{
    return respond(c, s, status, "text/plain; charset=utf-8", text, strlen(text), MHD_RESPMEM_PERSISTENT,
                   extra, extra_value);
}

/* -------------------------------------------------------------- checks */

typedef struct header_count {
    const char *name;
    unsigned n;
} header_count;

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    header_count *hc = cls;
    (void)kind;
    (void)value;
    if (key && strcasecmp(key, hc->name) == 0)
        hc->n++;
    return MHD_YES;
}

/* The value of header `name` when it appears exactly once; NULL when it is
 * absent; *dup set when it appears more than once. */
static const char *single_header(struct MHD_Connection *c, const char *name, int *dup)
{
    header_count hc = { name, 0 };
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, &hc);
    *dup = hc.n > 1;
    return hc.n == 1 ? MHD_lookup_connection_value(c, MHD_HEADER_KIND, name) : NULL;
}

/* The one parser of a Host header, for both kinds of server: HOST[:PORT],
 * where HOST may be a bracketed IPv6 address ("[::1]", whose colons are not
 * the port's). Returns the length of HOST when PORT is this server's port
 * (left out only when it is 80, as browsers do), else 0. */
static size_t host_name_len(const profkit_server *s, const char *host)
{
    if (!host || !*host)
        return 0;
    const char *colon = strrchr(host, ':');
    if (colon && strchr(colon, ']')) /* "[::1]" without a port */
        colon = NULL;
    if (colon) {
        char port[16];
        snprintf(port, sizeof(port), "%u", s->port);
        if (strcmp(colon + 1, port) != 0)
            return 0;
        return (size_t)(colon - host);
    }
    return s->port == 80 ? strlen(host) : 0;
}

/* HOST (hlen bytes) is name, ignoring case. */
static int host_is(const char *host, size_t hlen, const char *name)
{
    return hlen == strlen(name) && strncasecmp(host, name, hlen) == 0;
}

/* Host: exactly 127.0.0.1:PORT or localhost:PORT (PORT may be left out
 * only when it is 80, as browsers do). */
static int host_ok(const profkit_server *s, const char *host)
{
    size_t hlen = host_name_len(s, host);
    return hlen && (host_is(host, hlen, "127.0.0.1") || host_is(host, hlen, "localhost"));
}

/* 1: this server's own origin; 2: the allowed cross-origin reader; 0: neither. */
static int origin_kind(const profkit_server *s, const char *origin)
{
    if (strcasecmp(origin, s->origin_ip) == 0 || strcasecmp(origin, s->origin_name) == 0)
        return 1;
    if (s->cors_origin && strcasecmp(origin, s->cors_origin) == 0)
        return 2;
    return 0;
}

/* Compares the first path segment with the token in time that depends only
 * on the token's length. Returns the length of "/TOKEN" on a match, else 0. */
static size_t token_prefix(const profkit_server *s, const char *url)
{
    if (url[0] != '/')
        return 0;
    const char *seg = url + 1;
    size_t seg_len = strcspn(seg, "/");
    unsigned char diff = seg_len != s->token_len;
    for (size_t i = 0; i < s->token_len; i++) {
        unsigned char c = i < seg_len ? (unsigned char)seg[i] : 0;
        diff |= c ^ (unsigned char)s->token[i];
    }
    return diff ? 0 : 1 + s->token_len;
}

/* Takes a reference to the named resource's current bytes, or NULL. */
static blob *find_blob(profkit_server *s, const char *name)
{
    blob *b = NULL;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n_resources; i++) {
        if (strcmp(s->resources[i].name, name) == 0) {
            b = s->resources[i].b;
            atomic_fetch_add(&b->refs, 1);
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return b;
}

/* -------------------------------------------------------------- requests */

static enum MHD_Result refuse_json(struct MHD_Connection *c, const profkit_server *s, unsigned status,
                                   const char *text, const char *extra, const char *extra_value);
static enum MHD_Result queue_json(struct MHD_Connection *c, const profkit_server *s, unsigned status,
                                  const char *json, size_t len, const char *extra,
                                  const char *extra_value);

/* A refusal of the viewer's server: text, or {"error":...} on a path of its
 * JSON API ("/TOKEN/api/...", whatever the token); `text` is
 * "profkit: WHAT\n", and the JSON has WHAT. */
static enum MHD_Result deny(struct MHD_Connection *c, const profkit_server *s, int api,
                            unsigned status, const char *text, const char *extra,
                            const char *extra_value)
{
    if (!api)
        return refuse(c, s, status, text, extra, extra_value);
    char what[256];
    snprintf(what, sizeof(what), "%s", text + (strncmp(text, "profkit: ", 9) == 0 ? 9 : 0));
    size_t n = strlen(what);
    if (n && what[n - 1] == '\n')
        what[n - 1] = 0;
    return refuse_json(c, s, status, what, extra, extra_value);
}

/* Whether url is a path of the page's JSON API: /SEGMENT/api/... */
static int api_path(const profkit_server *s, const char *url)
{
    if (!s->page_api || url[0] != '/')
        return 0;
    if (strncmp(url, "/api/", 5) == 0) /* no token at all */
        return 1;
    const char *slash = strchr(url + 1, '/');
    return slash && strncmp(slash, "/api/", 5) == 0;
}

/* Answers a request of the page's JSON API (GET /TOKEN/api/NAME) with the
 * handler: JSON, or the content type the handler set. */
static enum MHD_Result page_api_request(struct MHD_Connection *c, profkit_server *s,
                                        const char *method, const char *path, const char *body,
                                        size_t len)
{
    const char *ctype = NULL;
    pk_http_request hr = { method, path, body, len, c, &ctype };
    pk_buf answer = PK_BUF_INIT;
    unsigned status = s->handler(s->payload, &hr, &answer);
    if (pk_buf_error(&answer)) {
        pk_buf_free(&answer);
        return refuse_json(c, s, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory", NULL, NULL);
    }
    const char *out = answer.buf ? answer.buf : "{}";
    size_t out_len = answer.buf ? answer.len : 2;
    enum MHD_Result ret = ctype ? respond(c, s, status, ctype, out, out_len, MHD_RESPMEM_MUST_COPY, NULL, NULL)
                                : queue_json(c, s, status, out, out_len, NULL, NULL);
    pk_buf_free(&answer);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **req_cls)
{
    profkit_server *s = cls;
    (void)version;
    /* Called first once the request head is complete: every answer is
     * decided from the head, and a body (which no allowed request has) is
     * never looked at; but for a POST to the page's API, whose body (at
     * most PAGE_API_MAX_BODY) is read here and handed to its handler. */
    api_req *rq = *req_cls;
    if (rq) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (n) {
            rq->seen += n;
            if (rq->seen > PAGE_API_MAX_BODY) {
                pk_buf_free(&rq->body);
                rq->refused = 1;
                return rq->seen / 4 > PAGE_API_MAX_BODY ? MHD_NO : MHD_YES;
            }
            pk_buf_put(&rq->body, upload_data, n);
            return pk_buf_error(&rq->body) ? MHD_NO : MHD_YES;
        }
        if (rq->refused)
            return refuse_json(c, s, MHD_HTTP_CONTENT_TOO_LARGE, "the body is larger than the API takes",
                               NULL, NULL);
        return page_api_request(c, s, method, url + 1 + s->token_len + 4,
                                rq->body.buf ? rq->body.buf : "", rq->body.len);
    }
    *upload_data_size = 0;

    int dup, api = api_path(s, url);
    const char *host = single_header(c, "Host", &dup);
    if (dup || !host_ok(s, host))
        return deny(c, s, api, MHD_HTTP_MISDIRECTED_REQUEST,
                      "profkit: this server answers only requests for Host 127.0.0.1:PORT or "
                      "localhost:PORT\n",
                      NULL, NULL);
    const char *origin = single_header(c, "Origin", &dup);
    int okind = origin ? origin_kind(s, origin) : 1;
    if (dup || okind == 0)
        return deny(c, s, api, MHD_HTTP_FORBIDDEN,
                    "profkit: requests from this origin are refused\n", NULL, NULL);

    int is_get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
    int is_head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    if (strcmp(method, MHD_HTTP_METHOD_OPTIONS) == 0 && origin && okind == 2) {
        struct MHD_Response *r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
        if (!r)
            return MHD_NO;
        const char *pna = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                      "Access-Control-Request-Private-Network");
        if (MHD_add_response_header(r, "Access-Control-Allow-Origin", s->cors_origin) != MHD_YES ||
            MHD_add_response_header(r, "Access-Control-Allow-Methods", "GET, HEAD") != MHD_YES ||
            MHD_add_response_header(r, "Access-Control-Max-Age", "600") != MHD_YES ||
            (pna && strcasecmp(pna, "true") == 0 &&
             MHD_add_response_header(r, "Access-Control-Allow-Private-Network", "true") != MHD_YES)) {
            MHD_destroy_response(r);
            return MHD_NO;
        }
        return queue(c, s, MHD_HTTP_NO_CONTENT, r);
    }
    int is_post = api && strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    if (!is_get && !is_head && !is_post)
        return deny(c, s, api, MHD_HTTP_METHOD_NOT_ALLOWED,
                    api ? "profkit: the API answers only GET and POST\n" : "profkit: only GET and HEAD\n",
                    "Allow", api ? "GET, POST" : "GET, HEAD");

    size_t skip = token_prefix(s, url);
    if (skip == 0)
        return deny(c, s, api, MHD_HTTP_NOT_FOUND,
                    api ? "profkit: not found (the API's paths are /TOKEN/api/NAME)\n"
                        : "profkit: not found\n", NULL, NULL);
    if (api && strncmp(url + skip, "/api/", 5) == 0) { /* the handler answers /TOKEN/api/NAME */
        if (is_get)
            return page_api_request(c, s, method, url + skip + 4, "", 0);
        if (!is_post)
            return deny(c, s, api, MHD_HTTP_METHOD_NOT_ALLOWED,
                        "profkit: the API answers only GET and POST\n", "Allow", "GET, POST");
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(cl, &end, 10);
            if (errno || end == cl || *end || v > PAGE_API_MAX_BODY)
                return refuse_json(c, s, MHD_HTTP_CONTENT_TOO_LARGE, "the body is larger than the API takes",
                                   NULL, NULL);
        }
        if (!(rq = calloc(1, sizeof(*rq))))
            return MHD_NO;
        pk_buf_init(&rq->body, PAGE_API_MAX_BODY + 1);
        *req_cls = rq; /* the body comes in the next calls */
        return MHD_YES;
    }
    if (url[skip] == 0) { /* /TOKEN: relative links need the slash */
        char loc[TOKEN_MAX + 3];
        snprintf(loc, sizeof(loc), "/%s/", s->token);
        return refuse(c, s, MHD_HTTP_MOVED_PERMANENTLY, "profkit: moved\n", "Location", loc);
    }
    const char *name = url + skip + 1;
    blob *b = find_blob(s, name);
    if (!b && strcmp(name, "index.html") == 0)
        b = find_blob(s, "");
    if (!b)
        return refuse(c, s, MHD_HTTP_NOT_FOUND, "profkit: not found\n", NULL, NULL);
    struct MHD_Response *r =
        MHD_create_response_from_buffer_with_free_callback_cls(b->size, b->data, blob_unref, b);
    if (!r) {
        blob_unref(b);
        return MHD_NO;
    }
    if (MHD_add_response_header(r, "Content-Type", b->content_type) != MHD_YES ||
        (okind == 2 &&
         MHD_add_response_header(r, "Access-Control-Allow-Origin", s->cors_origin) != MHD_YES)) {
        MHD_destroy_response(r);
        return MHD_NO;
    }
    return queue(c, s, MHD_HTTP_OK, r);
}


/* ------------------------------------------------------------ api server */

static enum MHD_Result queue_json(struct MHD_Connection *c, const profkit_server *s, unsigned status,
                                  const char *json, size_t len, const char *extra,
                                  const char *extra_value)
{
    return respond(c, s, status, "application/json", json, len, MHD_RESPMEM_MUST_COPY, extra,
                   extra_value);
}

/* A refusal as {"error":"TEXT"}. */
static enum MHD_Result refuse_json(struct MHD_Connection *c, const profkit_server *s, unsigned status,
                                   const char *text, const char *extra, const char *extra_value)
{
    pk_buf b = PK_BUF_INIT;
    pk_buf_puts(&b, "{\"error\":");
    pk_buf_json(&b, text, strlen(text), PK_JSON_REPORT);
    pk_buf_puts(&b, "}\n");
    enum MHD_Result ret = pk_buf_error(&b) ? MHD_NO
                          : queue_json(c, s, status, b.buf, b.len, extra, extra_value);
    pk_buf_free(&b);
    return ret;
}

/* The address the client connected to, as a Host names it ("10.0.0.5",
 * "[::1]"), and whether it is a loopback address. */
static int local_host(struct MHD_Connection *c, char *out, size_t n, int *loopback)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (!ci || getsockname(ci->connect_fd, (struct sockaddr *)&ss, &len) != 0)
        return -1;
    char ip[INET6_ADDRSTRLEN];
    if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
        *loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
        snprintf(out, n, "%s", ip);
    } else if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
        *loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
        if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) { /* a v4 client on a v6 socket */
            const char *v4 = strrchr(ip, ':') + 1;
            *loopback = strncmp(v4, "127.", 4) == 0;
            snprintf(out, n, "%s", v4);
        } else {
            snprintf(out, n, "[%s]", ip);
        }
    } else {
        return -1;
    }
    return 0;
}

/* Host: this server's PORT after the address the client connected to,
 * localhost (on loopback), or a name the caller allowed. */
static int api_host_ok(const profkit_server *s, struct MHD_Connection *c, const char *host)
{
    size_t hlen = host_name_len(s, host);
    if (!hlen)
        return 0;
    char local[INET6_ADDRSTRLEN + 2];
    int loopback = 0;
    if (local_host(c, local, sizeof(local), &loopback) == 0 && host_is(host, hlen, local))
        return 1;
    if (loopback && (host_is(host, hlen, "localhost") || host_is(host, hlen, "127.0.0.1")))
        return 1;
    for (size_t i = 0; i < s->n_hosts; i++)
        if (host_is(host, hlen, s->hosts[i]))
            return 1;
    return 0;
}

/* 0: the bearer token; 1: no Authorization header (or another scheme);
 * 2: another token. Compared in time that depends only on the token's length. */
static int bearer_check(const profkit_server *s, struct MHD_Connection *c)
{
    int dup;
    const char *h = single_header(c, "Authorization", &dup);
    if (dup)
        return 2;
    if (!h || strncasecmp(h, "Bearer ", 7) != 0)
        return 1;
    const char *t = h + 7;
    while (*t == ' ')
        t++;
    size_t n = strlen(t);
    while (n > 0 && t[n - 1] == ' ')
        n--;
    unsigned char diff = n != s->token_len;
    for (size_t i = 0; i < s->token_len; i++) {
        unsigned char ch = i < n ? (unsigned char)t[i] : 0;
        diff |= ch ^ (unsigned char)s->token[i];
    }
    return diff ? 2 : 0;
}

static enum MHD_Result api_request(void *cls, struct MHD_Connection *c, const char *url,
                                   const char *method, const char *version,
                                   const char *upload_data, size_t *upload_data_size,
                                   void **req_cls)
{
    profkit_server *s = cls;
    (void)version;
    api_req *rq = *req_cls;
    if (!rq) { /* the head is complete: every check but the body's size */
        int dup;
        const char *host = single_header(c, "Host", &dup);
        if (dup || !api_host_ok(s, c, host))
            return refuse_json(c, s, MHD_HTTP_MISDIRECTED_REQUEST,
                               "this server answers only requests for its own address "
                               "(Host ADDRESS:PORT, or a name given with --allow-host)",
                               NULL, NULL);
        const char *origin = single_header(c, "Origin", &dup);
        if (dup || origin) /* agents and curl send none; a browser always does */
            return refuse_json(c, s, MHD_HTTP_FORBIDDEN, "requests from web pages are refused",
                               NULL, NULL);
        int auth = bearer_check(s, c);
        if (auth == 1)
            return refuse_json(c, s, MHD_HTTP_UNAUTHORIZED,
                               "a token is required: Authorization: Bearer TOKEN", "WWW-Authenticate",
                               "Bearer");
        if (auth == 2)
            return refuse_json(c, s, MHD_HTTP_FORBIDDEN, "wrong token", NULL, NULL);
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(cl, &end, 10);
            if (errno || end == cl || *end || v > s->max_body)
                return refuse_json(c, s, MHD_HTTP_CONTENT_TOO_LARGE, "the body is larger than the "
                                   "server takes (--max-body)", NULL, NULL);
        }
        if (!(rq = calloc(1, sizeof(*rq))))
            return MHD_NO;
        pk_buf_init(&rq->body, s->max_body + 1);
        *req_cls = rq;
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        /* A chunked body past the bound: libmicrohttpd answers only once
         * the body is in, so the rest is read and dropped (never kept),
         * up to three times the bound more, then the connection is closed. */
        rq->seen += n;
        if (rq->seen > s->max_body) {
            pk_buf_free(&rq->body);
            rq->refused = 1;
            return rq->seen / 4 > s->max_body ? MHD_NO : MHD_YES;
        }
        pk_buf_put(&rq->body, upload_data, n);
        return pk_buf_error(&rq->body) ? MHD_NO : MHD_YES;
    }
    if (rq->refused)
        return refuse_json(c, s, MHD_HTTP_CONTENT_TOO_LARGE, "the body is larger than the "
                           "server takes (--max-body)", NULL, NULL);
    /* the whole body is here */
    const char *ctype = NULL; /* an ingest answers JSON only */
    pk_http_request hr = { method, url, rq->body.buf ? rq->body.buf : "", rq->body.len, c, &ctype };
    pk_buf answer = PK_BUF_INIT;
    unsigned status = s->handler(s->payload, &hr, &answer);
    pk_buf_free(&rq->body);
    if (pk_buf_error(&answer)) {
        pk_buf_free(&answer);
        return refuse_json(c, s, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory", NULL, NULL);
    }
    enum MHD_Result ret = queue_json(c, s, status, answer.buf ? answer.buf : "{}", answer.buf ? answer.len : 2,
                                     NULL, NULL);
    pk_buf_free(&answer);
    return ret;
}

static void api_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                          enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)c, (void)toe;
    api_req *rq = *req_cls;
    if (rq) { /* a body cut short ends here too, never seen by the handler */
        pk_buf_free(&rq->body);
        free(rq);
        *req_cls = NULL;
    }
}

const char *pk_http_arg(const pk_http_request *rq, const char *key)
{
    return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, key);
}

typedef struct arg_list {
    const char *key;
    const char **out;
    size_t n, max;
} arg_list;

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    arg_list *l = cls;
    (void)kind;
    if (key && strcmp(key, l->key) == 0) {
        if (l->n < l->max)
            l->out[l->n] = value ? value : "";
        l->n++;
    }
    return MHD_YES;
}

size_t pk_http_args(const pk_http_request *rq, const char *key, const char **out, size_t max)
{
    arg_list l = { key, out, 0, max };
    MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, collect_arg, &l);
    return l.n;
}

const char *pk_http_header(const pk_http_request *rq, const char *name)
{
    return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, name);
}

/* ------------------------------------------------------------ public API */

static int valid_token(const char *t)
{
    size_t n = strlen(t);
    if (n < TOKEN_MIN || n > TOKEN_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_'))
            return 0;
    }
    return 1;
}

/* An origin as browsers serialize it: scheme://host[:port], nothing after. */
static int valid_origin(const char *o)
{
    const char *rest = strncmp(o, "https://", 8) == 0 ? o + 8
                       : strncmp(o, "http://", 7) == 0 ? o + 7
                                                       : NULL;
    if (!rest || !*rest || strlen(o) > 200)
        return 0;
    for (; *rest; rest++)
        if (*rest == '/' || *rest == '*' || (unsigned char)*rest <= ' ' || *rest == 0x7f)
            return 0;
    return 1;
}

static int random_token(char *out, profkit_error *err)
{
    unsigned char bytes[16];
    size_t got = 0;
    while (got < sizeof(bytes)) {
        ssize_t r = getrandom(bytes + got, sizeof(bytes) - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return pk_error_set(err, PROFKIT_EIO, NULL, -1, "getrandom: %s", strerror(errno));
        got += (size_t)r;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof(bytes); i++) {
        out[2 * i] = hex[bytes[i] >> 4];
        out[2 * i + 1] = hex[bytes[i] & 15];
    }
    out[2 * sizeof(bytes)] = 0;
    return 0;
}

/* A listening TCP socket on 127.0.0.1:port (0: any free port); sets *bound
 * to the port it got. Returns the socket or a negative code with err set. */
static int listen_socket(unsigned port, unsigned *bound, profkit_error *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return pk_error_set(err, PROFKIT_EIO, NULL, -1, "socket: %s", strerror(errno));
    int one = 1; /* a restart on the same port need not wait for TIME_WAIT */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof(addr);
    if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &alen) != 0) {
        int e = errno;
        close(fd);
        return pk_error_set(err, PROFKIT_EIO, NULL, -1, "cannot listen on 127.0.0.1:%u: %s",
                                 port, strerror(e));
    }
    *bound = ntohs(addr.sin_port);
    return fd;
}

static void server_free(profkit_server *s)
{
    for (size_t i = 0; i < s->n_hosts; i++)
        free(s->hosts[i]);
    for (size_t i = 0; i < s->n_resources; i++) {
        free(s->resources[i].name);
        blob_unref(s->resources[i].b);
    }
    free(s->resources);
    free(s->cors_origin);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static int viewer_start(profkit_server **out, const profkit_server_options *o, pk_http_handler handler,
                        void *payload, profkit_error *err);

int profkit_server_start(profkit_server **out, const profkit_server_options *o, profkit_error *err)
{
    return viewer_start(out, o, NULL, NULL, err);
}

int pk_server_start_page_api(profkit_server **out, const profkit_server_options *o,
                             pk_http_handler handler, void *payload, profkit_error *err)
{
    return viewer_start(out, o, handler, payload, err);
}

static int viewer_start(profkit_server **out, const profkit_server_options *o, pk_http_handler handler,
                        void *payload, profkit_error *err)
{
    *out = NULL;
    profkit_server_options def;
    if (!o) {
        memset(&def, 0, sizeof(def));
        o = &def;
    }
    if (o->port > 65535)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                 "port %u: expected a number from 0 to 65535", o->port);
    if (o->token && !valid_token(o->token))
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                 "token: expected %d to %d characters from A-Z a-z 0-9 - _",
                                 TOKEN_MIN, TOKEN_MAX);
    if (o->cors_origin && !valid_origin(o->cors_origin))
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                 "CORS origin \"%.100s\": expected http(s)://HOST[:PORT]",
                                 o->cors_origin);
    profkit_server *s = calloc(1, sizeof(*s));
    if (!s)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "cannot create a mutex");
    }
    int rc = 0;
    if (o->token)
        memcpy(s->token, o->token, strlen(o->token) + 1);
    else if ((rc = random_token(s->token, err)) != 0)
        goto fail;
    s->token_len = strlen(s->token);
    s->handler = handler;
    s->payload = payload;
    s->page_api = handler != NULL;
    if (o->cors_origin && !(s->cors_origin = strdup(o->cors_origin))) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        goto fail;
    }

    /* The socket is bound here, not by libmicrohttpd, so that the port (and
     * what depends on it) is known before its thread reads a request. */
    int fd = listen_socket(o->port, &s->port, err);
    if (fd < 0) {
        rc = fd;
        goto fail;
    }
    snprintf(s->origin_ip, sizeof(s->origin_ip), "http://127.0.0.1:%u", s->port);
    snprintf(s->origin_name, sizeof(s->origin_name), "http://localhost:%u", s->port);
    snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%u/%s/", s->port, s->token);
    unsigned timeout = o->timeout_s ? o->timeout_s : DEFAULT_TIMEOUT_S;
    unsigned limit = o->max_connections ? o->max_connections : DEFAULT_MAX_CONNECTIONS;
    /* with an API, a thread per connection: a slow query holds up no other
     * request; api_completed frees a POST's body */
    s->daemon = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
                                     (handler ? MHD_USE_THREAD_PER_CONNECTION : 0), 0, NULL, NULL,
                                 on_request, s, MHD_OPTION_LISTEN_SOCKET, fd,
                                 MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                                 MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_STRICT_FOR_CLIENT,
                                 (int)1, MHD_OPTION_NOTIFY_COMPLETED, api_completed, s,
                                 MHD_OPTION_EXTERNAL_LOGGER, on_log, s, MHD_OPTION_END);
    if (!s->daemon) {
        close(fd);
        rc = pk_error_set(err, PROFKIT_EIO, NULL, -1, "cannot serve on 127.0.0.1:%u: %s",
                               s->port, s->last_log[0] ? s->last_log : "libmicrohttpd failed to start");
        goto fail;
    }
    *out = s;
    return 0;
fail:
    server_free(s);
    return rc;
}


/* "ADDRESS:PORT" or "[V6ADDRESS]:PORT" as a socket address. */
static int parse_listen(const char *l, struct sockaddr_storage *ss, socklen_t *len)
{
    char host[INET6_ADDRSTRLEN + 1];
    const char *colon, *hs = l;
    size_t hl;
    if (l[0] == '[') {
        const char *close = strchr(l, ']');
        if (!close || close[1] != ':')
            return -1;
        hs = l + 1;
        hl = (size_t)(close - hs);
        colon = close + 1;
    } else {
        colon = strrchr(l, ':');
        if (!colon || memchr(l, ':', (size_t)(colon - l)))
            return -1;
        hl = (size_t)(colon - l);
    }
    if (hl == 0 || hl >= sizeof(host))
        return -1;
    memcpy(host, hs, hl);
    host[hl] = 0;
    char *end;
    errno = 0;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (!colon[1] || *end || errno || port > 65535 || colon[1] == '-' || colon[1] == '+')
        return -1;
    memset(ss, 0, sizeof(*ss));
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (l[0] != '[' && inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        *len = sizeof(*a4);
    } else if (l[0] == '[' && inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*a6);
    } else {
        return -1;
    }
    return 0;
}

int pk_server_start_api(profkit_server **out, const pk_server_api *o, profkit_error *err)
{
    *out = NULL;
    struct sockaddr_storage ss;
    socklen_t alen = 0;
    const char *listen_at = o->listen ? o->listen : "127.0.0.1:0";
    if (parse_listen(listen_at, &ss, &alen) != 0)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                            "listen address '%.100s': expected ADDRESS:PORT or [IPV6ADDRESS]:PORT "
                            "(a numeric address)", listen_at);
    if (o->token && !valid_token(o->token))
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                            "token: expected %d to %d characters from A-Z a-z 0-9 - _", TOKEN_MIN,
                            TOKEN_MAX);
    if (o->n_hosts > MAX_HOSTS)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "at most %d host names", MAX_HOSTS);
    for (size_t i = 0; i < o->n_hosts; i++)
        if (!*o->hosts[i] || strlen(o->hosts[i]) > 253 || strpbrk(o->hosts[i], ":/ \t\r\n"))
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                "host name '%.100s': expected a DNS name without a port", o->hosts[i]);
    profkit_server *s = calloc(1, sizeof(*s));
    if (!s)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "cannot create a mutex");
    }
    int rc = 0, fd = -1;
    s->handler = o->handler;
    s->payload = o->payload;
    s->max_body = o->max_body ? o->max_body : API_DEFAULT_MAX_BODY;
    for (size_t i = 0; i < o->n_hosts; i++) {
        if (!(s->hosts[i] = strdup(o->hosts[i]))) {
            rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
            goto fail;
        }
        s->n_hosts++;
    }
    if (o->token)
        memcpy(s->token, o->token, strlen(o->token) + 1);
    else if ((rc = random_token(s->token, err)) != 0)
        goto fail;
    s->token_len = strlen(s->token);

    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        rc = pk_error_set(err, PROFKIT_EIO, NULL, -1, "socket: %s", strerror(errno));
        goto fail;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&ss, alen) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &alen) != 0) {
        rc = pk_error_set(err, PROFKIT_EIO, NULL, -1, "cannot listen on %.100s: %s", listen_at,
                          strerror(errno));
        goto fail;
    }
    char ip[INET6_ADDRSTRLEN];
    if (ss.ss_family == AF_INET) {
        s->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ip, sizeof(ip));
        snprintf(s->url, sizeof(s->url), "http://%s:%u/", ip, s->port);
    } else {
        s->port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, ip, sizeof(ip));
        snprintf(s->url, sizeof(s->url), "http://[%s]:%u/", ip, s->port);
    }
    unsigned timeout = o->timeout_s ? o->timeout_s : API_DEFAULT_TIMEOUT_S;
    unsigned limit = o->max_connections ? o->max_connections : API_DEFAULT_MAX_CONNECTIONS;
    /* a thread per connection: a handler that takes its time (an add)
     * holds up no other client */
    s->daemon = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                                     MHD_USE_ERROR_LOG | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
                                 0, NULL, NULL, api_request, s, MHD_OPTION_LISTEN_SOCKET, fd,
                                 MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                                 MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_STRICT_FOR_CLIENT,
                                 (int)1, MHD_OPTION_NOTIFY_COMPLETED, api_completed, s,
                                 MHD_OPTION_EXTERNAL_LOGGER, on_log, s, MHD_OPTION_END);
    if (!s->daemon) {
        rc = pk_error_set(err, PROFKIT_EIO, NULL, -1, "cannot serve on %.100s: %s", listen_at,
                          s->last_log[0] ? s->last_log : "libmicrohttpd failed to start");
        goto fail;
    }
    *out = s;
    return 0;
fail:
    if (fd >= 0)
        close(fd);
    server_free(s);
    return rc;
}

static int valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n > NAME_MAX_LEN || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (name[i] == '/' || (unsigned char)name[i] <= ' ' || name[i] == 0x7f)
            return 0;
    return 1;
}

int profkit_server_set(profkit_server *s, const char *name, const char *content_type,
                       const void *data, size_t size, profkit_error *err)
{
    if (!valid_name(name))
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                 "resource name \"%.100s\": expected no '/', space or control "
                                 "character, not . or ..",
                                 name);
    if (!content_type || !*content_type || strpbrk(content_type, "\r\n"))
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                 "resource %.100s: expected a one-line content type", name);
    if (size > SIZE_MAX - sizeof(blob))
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "resource %.100s: too large", name);
    blob *b = malloc(sizeof(blob) + (size ? size : 1));
    char *type = strdup(content_type);
    char *copy = strdup(name);
    if (!b || !type || !copy) {
        free(b);
        free(type);
        free(copy);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    atomic_init(&b->refs, 1);
    b->content_type = type;
    b->size = size;
    if (size)
        memcpy(b->data, data, size);

    blob *old = NULL;
    int rc = 0;
    pthread_mutex_lock(&s->lock);
    size_t i = 0;
    while (i < s->n_resources && strcmp(s->resources[i].name, name) != 0)
        i++;
    if (i < s->n_resources) {
        old = s->resources[i].b;
        s->resources[i].b = b;
        free(copy);
    } else if (pk_grow((void **)&s->resources, &s->cap_resources, s->n_resources + 1,
                            sizeof(resource)) != 0) {
        rc = PROFKIT_ENOMEM;
    } else {
        s->resources[s->n_resources].name = copy;
        s->resources[s->n_resources].b = b;
        s->n_resources++;
    }
    pthread_mutex_unlock(&s->lock);
    if (rc) {
        free(copy);
        blob_unref(b);
        return pk_error_set(err, rc, NULL, -1, "out of memory");
    }
    blob_unref(old);
    return 0;
}

unsigned profkit_server_port(const profkit_server *s) { return s->port; }
const char *profkit_server_token(const profkit_server *s) { return s->token; }
const char *profkit_server_url(const profkit_server *s) { return s->url; }

void profkit_server_stop(profkit_server *s)
{
    if (!s)
        return;
    /* Closes every connection and waits for the server's thread; responses
     * still holding bytes release them here. */
    MHD_stop_daemon(s->daemon);
    server_free(s);
}
