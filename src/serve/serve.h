/*
 * serve.h: the server's internal face for a layer above it that answers
 * requests itself (the store's ingest, src/store/store_serve.c), where
 * profkit_server_* (profkit.h) serves fixed resources under a path token.
 *
 * A server started with pk_server_start_api:
 *   - listens on the address it is given (any address, v4 or v6; the
 *     command's default is loopback);
 *   - checks Host as `view`'s server does, against the address the client
 *     connected to (and "localhost" on loopback) and the names the caller
 *     allows: a page that rebinds its own DNS name sends that name (421);
 *   - refuses a request with an Origin header other than its own (403):
 *     no web page may push;
 *   - wants "Authorization: Bearer TOKEN" on every request (401 without
 *     one, 403 with another token; compared in constant time);
 *   - refuses a body larger than max_body (413: from Content-Length before
 *     a byte of it is read, or as soon as a chunked body passes it);
 *   - hands every other request, with its whole body, to the handler, in a
 *     thread per connection (many clients at once); a body cut short never
 *     reaches it.
 * Every answer, refusals included, is JSON: {"error": "..."} for these.
 */
#ifndef PROFKIT_SERVE_H
#define PROFKIT_SERVE_H

#include "profkit.h"
#include "util/buf.h"

/* A request the checks let through. */
typedef struct pk_http_request {
    const char *method;
    const char *path; /* decoded, without the query */
    const char *body; /* the whole body (NUL after it), len bytes */
    size_t len;
    void *conn;       /* for pk_http_arg and pk_http_header */
    const char **content_type; /* the handler may set *content_type (static text);
                                  left NULL the answer is JSON */
} pk_http_request;

/* A query argument (decoded; "" for a key without '='), or NULL. */
const char *pk_http_arg(const pk_http_request *rq, const char *key);
/* Every value of query argument `key`, in order: up to max in out; returns
 * how many there are. */
size_t pk_http_args(const pk_http_request *rq, const char *key, const char **out, size_t max);
/* A request header, or NULL. */
const char *pk_http_header(const pk_http_request *rq, const char *name);

/* Answers rq: writes a JSON document to `answer` and returns the status. */
typedef unsigned (*pk_http_handler)(void *payload, const pk_http_request *rq, pk_buf *answer);

typedef struct pk_server_api {
    const char *listen;   /* "ADDRESS:PORT" or "[V6ADDRESS]:PORT"; port 0: any free one */
    const char *token;    /* NULL: 128 random bits as 32 hex digits */
    const char *const *hosts; /* more Host names to answer to (an agent's DNS name) */
    size_t n_hosts;
    size_t max_body;      /* bytes; 0: 64 MiB */
    unsigned timeout_s;   /* a connection idle this long is closed; 0: 30 */
    unsigned max_connections; /* 0: 64 */
    pk_http_handler handler;
    void *payload;
} pk_server_api;

/* Starts it; profkit_server_port/_token/_url and _stop work on it (its URL
 * is http://ADDRESS:PORT/, the token is not in paths). Returns 0,
 * PROFKIT_EINVAL (a bad address or token), PROFKIT_EIO, PROFKIT_ENOMEM, or
 * PROFKIT_EUNSUPPORTED without the part "server". */
int pk_server_start_api(profkit_server **out, const pk_server_api *o, profkit_error *err);

/*
 * A viewer's server (profkit_server_start: 127.0.0.1, the token in every
 * path, Host and Origin as there) whose paths /TOKEN/api/NAME go to
 * `handler` (GET, or POST with a body of at most 4 MiB; rq->path is
 * "/NAME"), in a thread per connection; its refusals on such paths are JSON. Resources are served as by
 * profkit_server_set. Returns as profkit_server_start.
 */
int pk_server_start_page_api(profkit_server **out, const profkit_server_options *o,
                             pk_http_handler handler, void *payload, profkit_error *err);

#endif
