/* test_serve.c: the local web server (profkit_server_*), through plain
 * sockets: options checked, the token in every path, Host, Origin and
 * method refused with the documented statuses, bytes served exactly and
 * replaced while serving, half-open connections that neither block other
 * clients nor outlive the idle timeout, and a stop that does not wait for
 * them. Every wait is bounded by poll timeouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "profkit.h"

static const char token[] = "test-token_0123456789abcdef";
static const char firefox[] = "https://profiler.firefox.com";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int connect_to(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

static void send_str(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        assert_true(w > 0);
        s += w;
        n -= (size_t)w;
    }
}

/* Reads until the server closes or `limit_s` pass; returns the bytes read
 * (NUL-terminated, caller frees) and sets *closed when the server closed. */
static char *read_all(int fd, double limit_s, size_t *len, int *closed)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    assert_non_null(buf);
    double end = now_s() + limit_s;
    *closed = 0;
    for (;;) {
        int left = (int)((end - now_s()) * 1000);
        if (left <= 0)
            break;
        struct pollfd p = { fd, POLLIN, 0 };
        int r = poll(&p, 1, left);
        if (r <= 0)
            continue;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
        ssize_t got = recv(fd, buf + n, cap - n, 0);
        if (got <= 0) {
            *closed = 1;
            break;
        }
        n += (size_t)got;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

typedef struct reply {
    int status;
    char *raw;       /* the whole response */
    const char *body;
    size_t body_len;
} reply;

/* Sends `request` (a whole request head, and perhaps a body) and reads the
 * response; the request asks for Connection: close, so EOF ends it. */
static reply ask(unsigned port, const char *request)
{
    int fd = connect_to(port);
    send_str(fd, request);
    reply r = { 0, NULL, NULL, 0 };
    size_t n;
    int closed;
    r.raw = read_all(fd, 5.0, &n, &closed);
    close(fd);
    assert_true(closed);
    assert_int_equal(sscanf(r.raw, "HTTP/1.%*d %d", &r.status), 1);
    char *end = strstr(r.raw, "\r\n\r\n");
    assert_non_null(end);
    r.body = end + 4;
    r.body_len = n - (size_t)(r.body - r.raw);
    return r;
}

/* A request with this method, path and extra header lines ("" for none). */
static reply req(unsigned port, const char *method, const char *path, const char *headers)
{
    char buf[2048];
    snprintf(buf, sizeof(buf), "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n%sConnection: close\r\n\r\n",
             method, path, port, headers);
    return ask(port, buf);
}

/* The value of header `name` in the response head, or "" (static buffer). */
static const char *header(const reply *r, const char *name)
{
    static char value[512];
    value[0] = 0;
    size_t nl = strlen(name);
    for (const char *line = strstr(r->raw, "\r\n"); line && line + 2 < r->body; line = strstr(line + 2, "\r\n")) {
        const char *h = line + 2;
        if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
            const char *v = h + nl + 1;
            while (*v == ' ')
                v++;
            size_t len = strcspn(v, "\r");
            if (len >= sizeof(value))
                len = sizeof(value) - 1;
            memcpy(value, v, len);
            value[len] = 0;
            return value;
        }
    }
    return value;
}

static profkit_server *start(const char *cors, unsigned timeout_s)
{
    profkit_server_options o;
    memset(&o, 0, sizeof(o));
    o.token = token;
    o.cors_origin = cors;
    o.timeout_s = timeout_s;
    profkit_server *s;
    profkit_error err;
    int rc = profkit_server_start(&s, &o, &err);
    if (rc != 0)
        fail_msg("start: %s", err.message);
    return s;
}

static void path_of(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "/%s/%s", token, name);
}

static void options_are_checked(void **state)
{
    (void)state;
    profkit_server *s = (profkit_server *)1;
    profkit_error err;
    profkit_server_options o;
    memset(&o, 0, sizeof(o));
    o.token = "short";
    assert_int_equal(profkit_server_start(&s, &o, &err), PROFKIT_EINVAL);
    assert_null(s);
    assert_non_null(strstr(err.message, "token"));
    o.token = "sixteen-chars/../xx";
    assert_int_equal(profkit_server_start(&s, &o, &err), PROFKIT_EINVAL);
    o.token = NULL;
    o.cors_origin = "*";
    assert_int_equal(profkit_server_start(&s, &o, &err), PROFKIT_EINVAL);
    o.cors_origin = "https://example.com/path";
    assert_int_equal(profkit_server_start(&s, &o, &err), PROFKIT_EINVAL);
    o.cors_origin = NULL;
    o.port = 70000;
    assert_int_equal(profkit_server_start(&s, &o, &err), PROFKIT_EINVAL);

    /* A random token: 32 hex digits, new each start; the URL names it. */
    profkit_server *a, *b;
    assert_int_equal(profkit_server_start(&a, NULL, &err), 0);
    assert_int_equal(profkit_server_start(&b, NULL, &err), 0);
    const char *t = profkit_server_token(a);
    assert_int_equal(strlen(t), 32);
    assert_int_equal(strspn(t, "0123456789abcdef"), 32);
    assert_string_not_equal(t, profkit_server_token(b));
    char want[128];
    snprintf(want, sizeof(want), "http://127.0.0.1:%u/%s/", profkit_server_port(a), t);
    assert_string_equal(profkit_server_url(a), want);
    assert_true(profkit_server_port(a) != 0);

    /* A port in use is an error that says so. */
    o.port = profkit_server_port(a);
    assert_int_equal(profkit_server_start(&s, &o, &err), PROFKIT_EIO);
    assert_non_null(strstr(err.message, "127.0.0.1"));

    /* Resource names. */
    assert_int_equal(profkit_server_set(a, "../x", "text/plain", "x", 1, &err), PROFKIT_EINVAL);
    assert_int_equal(profkit_server_set(a, "..", "text/plain", "x", 1, &err), PROFKIT_EINVAL);
    assert_int_equal(profkit_server_set(a, "a b", "text/plain", "x", 1, &err), PROFKIT_EINVAL);
    assert_int_equal(profkit_server_set(a, "x", "text/plain\r\nX: y", "x", 1, &err), PROFKIT_EINVAL);
    assert_int_equal(profkit_server_set(a, "ok.json", "application/json", "{}", 2, &err), 0);
    profkit_server_stop(a);
    profkit_server_stop(b);
    profkit_server_stop(NULL);
}

static void serves_bytes_and_replaces_them(void **state)
{
    (void)state;
    profkit_server *s = start(NULL, 0);
    unsigned port = profkit_server_port(s);
    profkit_error err;
    /* Every byte value, and more than a socket buffer. */
    size_t n = 3 << 20;
    unsigned char *data = malloc(n);
    assert_non_null(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 131 + (i >> 11));
    assert_int_equal(profkit_server_set(s, "profile.json", "application/json", data, n, &err), 0);
    char path[256];
    path_of(path, sizeof(path), "profile.json");
    reply r = req(port, "GET", path, "");
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, n);
    assert_memory_equal(r.body, data, n);
    assert_string_equal(header(&r, "Content-Type"), "application/json");
    assert_string_equal(header(&r, "Cache-Control"), "no-store");
    assert_string_equal(header(&r, "X-Content-Type-Options"), "nosniff");
    assert_string_equal(header(&r, "Referrer-Policy"), "no-referrer");
    assert_string_equal(header(&r, "Cross-Origin-Resource-Policy"), "same-origin");
    assert_string_equal(header(&r, "Access-Control-Allow-Origin"), "");
    free(r.raw);

    /* HEAD: the length, no body. */
    r = req(port, "HEAD", path, "");
    assert_int_equal(r.status, 200);
    char len[32];
    snprintf(len, sizeof(len), "%zu", n);
    assert_string_equal(header(&r, "Content-Length"), len);
    assert_int_equal(r.body_len, 0);
    free(r.raw);

    /* Replaced while a client is still reading the old bytes: it gets all
     * of the old ones, the next client the new ones. */
    int slow = connect_to(port);
    char head[512];
    snprintf(head, sizeof(head), "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n\r\n",
             path, port);
    send_str(slow, head);
    struct pollfd p = { slow, POLLIN, 0 };
    assert_int_equal(poll(&p, 1, 5000), 1); /* the response has started */
    assert_int_equal(profkit_server_set(s, "profile.json", "application/json", "{\"new\":1}", 9, &err), 0);
    size_t got;
    int closed;
    char *old = read_all(slow, 10.0, &got, &closed);
    close(slow);
    assert_true(closed);
    char *body = strstr(old, "\r\n\r\n");
    assert_non_null(body);
    assert_int_equal(got - (size_t)(body + 4 - old), n);
    assert_memory_equal(body + 4, data, n);
    free(old);
    r = req(port, "GET", path, "");
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, 9);
    assert_memory_equal(r.body, "{\"new\":1}", 9);
    free(r.raw);

    /* The page: "" is /TOKEN/ and /TOKEN/index.html; /TOKEN redirects. */
    path_of(path, sizeof(path), "");
    r = req(port, "GET", path, "");
    assert_int_equal(r.status, 404);
    free(r.raw);
    assert_int_equal(profkit_server_set(s, "", "text/html; charset=utf-8", "<p>hi", 5, &err), 0);
    r = req(port, "GET", path, "");
    assert_int_equal(r.status, 200);
    assert_string_equal(header(&r, "Content-Type"), "text/html; charset=utf-8");
    assert_memory_equal(r.body, "<p>hi", 5);
    free(r.raw);
    path_of(path, sizeof(path), "index.html");
    r = req(port, "GET", path, "");
    assert_int_equal(r.status, 200);
    free(r.raw);
    snprintf(path, sizeof(path), "/%s", token);
    r = req(port, "GET", path, "");
    assert_int_equal(r.status, 301);
    char loc[256];
    snprintf(loc, sizeof(loc), "/%s/", token);
    assert_string_equal(header(&r, "Location"), loc);
    free(r.raw);
    free(data);
    profkit_server_stop(s);
}

static void paths_need_the_token(void **state)
{
    (void)state;
    profkit_server *s = start(NULL, 0);
    unsigned port = profkit_server_port(s);
    profkit_error err;
    assert_int_equal(profkit_server_set(s, "profile.json", "application/json", "{}", 2, &err), 0);
    char wrong[sizeof(token)];
    memcpy(wrong, token, sizeof(token));
    wrong[5] ^= 1; /* same length, one bit off */
    char t_short[sizeof(token)];
    memcpy(t_short, token, sizeof(token));
    t_short[sizeof(token) - 2] = 0;
    const char *paths[] = { "/profile.json", "/", "/%s/profile.json", "/%s/profile.json",
                            "/%sx/profile.json", "/%s/../%s/profile.json",
                            "/%s/%%2e%%2e/%%2e%%2e/etc/passwd", "/%s/..%%2fprofile.json",
                            "/%s/%%2E%%2E/profile.json", "/%s/nosuch", "/%s/profile.json/",
                            "/%s//profile.json" };
    const char *args[] = { NULL, NULL, wrong, t_short, token, token, token, token, token, token, token, token };
    for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
        char path[512];
        snprintf(path, sizeof(path), paths[i], args[i], args[i]);
        reply r = req(port, "GET", path, "");
        if (r.status != 404)
            fail_msg("%s: status %d, expected 404", path, r.status);
        assert_string_equal(header(&r, "Cache-Control"), "no-store");
        free(r.raw);
    }
    /* The query string is not part of the name. */
    char path[512];
    snprintf(path, sizeof(path), "/%s/profile.json?x=1", token);
    reply r = req(port, "GET", path, "");
    assert_int_equal(r.status, 200);
    free(r.raw);
    profkit_server_stop(s);
}

static void host_origin_and_method(void **state)
{
    (void)state;
    profkit_server *s = start(firefox, 0);
    unsigned port = profkit_server_port(s);
    profkit_error err;
    assert_int_equal(profkit_server_set(s, "profile.json", "application/json", "{}", 2, &err), 0);
    char path[256], buf[1024];
    path_of(path, sizeof(path), "profile.json");

    /* Host. */
    struct {
        const char *host; /* %u = the port */
        int status;
    } hosts[] = {
        { "Host: 127.0.0.1:%u\r\n", 200 },
        { "Host: localhost:%u\r\n", 200 },
        { "Host: LocalHost:%u\r\n", 200 },
        { "Host: evil.example:%u\r\n", 421 },
        { "Host: 127.0.0.1.evil.example:%u\r\n", 421 },
        { "Host: 127.0.0.1\r\n", 421 },
        { "Host: localhost\r\n", 421 },
        { "Host: 127.0.0.1:%u0\r\n", 421 },
        { "Host: 127.0.0.2:%u\r\n", 421 },
        { "Host: [::1]:%u\r\n", 421 },
        { "Host: 127.0.0.1:%u\r\nHost: evil.example\r\n", 421 },
    };
    for (size_t i = 0; i < sizeof(hosts) / sizeof(*hosts); i++) {
        char h[256];
        snprintf(h, sizeof(h), hosts[i].host, port);
        snprintf(buf, sizeof(buf), "GET %s HTTP/1.1\r\n%sConnection: close\r\n\r\n", path, h);
        reply r = ask(port, buf);
        /* libmicrohttpd itself may answer a doubled Host with 400. */
        if (r.status != hosts[i].status && !(i == 10 && r.status == 400))
            fail_msg("%s: status %d, expected %d", h, r.status, hosts[i].status);
        free(r.raw);
    }
    /* HTTP/1.0 may leave Host out; it is refused all the same. */
    snprintf(buf, sizeof(buf), "GET %s HTTP/1.0\r\n\r\n", path);
    reply r = ask(port, buf);
    assert_int_equal(r.status, 421);
    free(r.raw);

    /* Origin: only ours and the CORS origin; only the latter gets CORS. */
    struct {
        const char *origin;
        int status;
        const char *acao;
    } origins[] = {
        { "https://profiler.firefox.com", 200, "https://profiler.firefox.com" },
        { "http://127.0.0.1:%u", 200, "" },
        { "http://localhost:%u", 200, "" },
        { "https://evil.example", 403, "" },
        { "https://profiler.firefox.com.evil.example", 403, "" },
        { "http://profiler.firefox.com", 403, "" },
        { "null", 403, "" },
        { "http://127.0.0.1:1", 403, "" },
    };
    for (size_t i = 0; i < sizeof(origins) / sizeof(*origins); i++) {
        char o[256], h[300];
        snprintf(o, sizeof(o), origins[i].origin, port);
        snprintf(h, sizeof(h), "Origin: %s\r\n", o);
        r = req(port, "GET", path, h);
        if (r.status != origins[i].status)
            fail_msg("Origin %s: status %d, expected %d", o, r.status, origins[i].status);
        assert_string_equal(header(&r, "Access-Control-Allow-Origin"), origins[i].acao);
        assert_string_equal(header(&r, "Vary"), "Origin");
        free(r.raw);
    }

    /* Methods. */
    r = req(port, "POST", path, "Content-Length: 4\r\n");
    assert_int_equal(r.status, 405);
    assert_string_equal(header(&r, "Allow"), "GET, HEAD");
    free(r.raw);
    const char *methods[] = { "PUT", "DELETE", "PATCH", "TRACE", "OPTIONS", "CONNECT" };
    for (size_t i = 0; i < sizeof(methods) / sizeof(*methods); i++) {
        r = req(port, methods[i], path, "");
        if (r.status != 405 && !(strcmp(methods[i], "CONNECT") == 0 && r.status == 400))
            fail_msg("%s: status %d, expected 405", methods[i], r.status);
        free(r.raw);
    }
    /* A preflight from the CORS origin, and only from it. */
    r = req(port, "OPTIONS", path,
            "Origin: https://profiler.firefox.com\r\nAccess-Control-Request-Method: GET\r\n"
            "Access-Control-Request-Private-Network: true\r\n");
    assert_int_equal(r.status, 204);
    assert_string_equal(header(&r, "Access-Control-Allow-Origin"), firefox);
    assert_string_equal(header(&r, "Access-Control-Allow-Methods"), "GET, HEAD");
    assert_string_equal(header(&r, "Access-Control-Allow-Private-Network"), "true");
    free(r.raw);
    r = req(port, "OPTIONS", path, "Origin: https://evil.example\r\nAccess-Control-Request-Method: GET\r\n");
    assert_int_equal(r.status, 403);
    assert_string_equal(header(&r, "Access-Control-Allow-Origin"), "");
    free(r.raw);
    profkit_server_stop(s);
}

/* Several half-open connections: every complete request is still answered
 * within a second, and each half-open one is closed after the timeout. */
static void half_open_connections(void **state)
{
    (void)state;
    profkit_server *s = start(NULL, 1);
    unsigned port = profkit_server_port(s);
    profkit_error err;
    assert_int_equal(profkit_server_set(s, "profile.json", "application/json", "{}", 2, &err), 0);
    char path[256];
    path_of(path, sizeof(path), "profile.json");
    enum { HALF = 8 };
    int held[HALF];
    double opened = now_s();
    for (int i = 0; i < HALF; i++) {
        held[i] = connect_to(port);
        send_str(held[i], i % 2 ? "GET /" : ""); /* half a request line, or nothing */
    }
    for (int i = 0; i < 20; i++) {
        double t0 = now_s();
        reply r = req(port, "GET", path, "");
        assert_int_equal(r.status, 200);
        free(r.raw);
        if (now_s() - t0 > 1.0)
            fail_msg("request %d took %.2f s with %d half-open connections", i, now_s() - t0, HALF);
    }
    for (int i = 0; i < HALF; i++) {
        size_t n;
        int closed;
        char *got = read_all(held[i], 5.0, &n, &closed);
        if (!closed)
            fail_msg("half-open connection %d still open after 5 s (timeout 1 s)", i);
        free(got);
        close(held[i]);
    }
    double took = now_s() - opened;
    assert_true(took >= 0.9); /* closed by the timeout, not at once */

    /* Stopping does not wait for a connection that sends nothing. */
    int idle = connect_to(port);
    send_str(idle, "GE");
    double t0 = now_s();
    profkit_server_stop(s);
    assert_true(now_s() - t0 < 2.0);
    close(idle);
}

/* Past max_connections the server accepts no more connections (they wait
 * in the kernel's queue) until one of the open ones goes. */
static void connection_limit(void **state)
{
    (void)state;
    profkit_server_options o;
    memset(&o, 0, sizeof(o));
    o.token = token;
    o.max_connections = 4;
    o.timeout_s = 30;
    profkit_server *s;
    profkit_error err;
    assert_int_equal(profkit_server_start(&s, &o, &err), 0);
    unsigned port = profkit_server_port(s);
    assert_int_equal(profkit_server_set(s, "p", "text/plain", "ok", 2, &err), 0);
    int held[4];
    for (int i = 0; i < 4; i++) {
        held[i] = connect_to(port);
        send_str(held[i], "GET /");
    }
    usleep(200000); /* let the server accept them */
    char head[256];
    snprintf(head, sizeof(head), "GET /%s/p HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n\r\n",
             token, port);
    int extra = connect_to(port);
    send_str(extra, head);
    struct pollfd p = { extra, POLLIN, 0 };
    assert_int_equal(poll(&p, 1, 1500), 0); /* no answer while 4 are open */
    close(held[0]);
    size_t n;
    int closed;
    double t0 = now_s();
    char *got = read_all(extra, 5.0, &n, &closed);
    assert_true(closed);
    assert_true(now_s() - t0 < 1.0);
    assert_true(strncmp(got, "HTTP/1.1 200", 12) == 0);
    free(got);
    close(extra);
    for (int i = 1; i < 4; i++)
        close(held[i]);
    profkit_server_stop(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(options_are_checked),
        cmocka_unit_test(serves_bytes_and_replaces_them),
        cmocka_unit_test(paths_need_the_token),
        cmocka_unit_test(host_origin_and_method),
        cmocka_unit_test(half_open_connections),
        cmocka_unit_test(connection_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
