/*
 * cmd_view.c: `profkit view FILE...`: opens a profile in the Firefox
 * Profiler the way other tools hand it a recording. The profile is converted
 * to the processed format in memory and served by a tiny HTTP/1.1 server on
 * 127.0.0.1 (never another interface); profiler.firefox.com/from-url/<URL>/
 * fetches it from there, which the browser allows because every response
 * carries Access-Control-Allow-Origin. One connection at a time, each closed
 * after its response; Ctrl-C (SIGINT) or SIGTERM stops it with status 0.
 */
#include "cli/cli.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

extern char **environ;

static const char help[] =
    "Usage: profkit view [OPTIONS] FILE...\n"
    "\n"
    "Open a profile of any format in the Firefox Profiler (profiler.firefox.com).\n"
    "The profile (several FILEs are merged) is converted to the Firefox\n"
    "Profiler's processed format and served on http://127.0.0.1:PORT/profile.json\n"
    "by a small local web server; profkit prints the profiler.firefox.com\n"
    "address that loads it, and opens it with xdg-open when standard output is\n"
    "a terminal. The server only listens on 127.0.0.1 and serves until Ctrl-C.\n"
    "The browser must run on this machine (or reach its 127.0.0.1 through an\n"
    "SSH tunnel: ssh -L PORT:127.0.0.1:PORT HOST).\n"
    "\n"
    "Options:\n"
    "  --port N        listen on port N (default 0: any free port)\n"
    "  --no-open       only print the address, do not start a browser\n"
    "  --value NAME    value type that becomes the sample weight (default: the\n"
    "                  profile's default; profkit info lists them)\n"
    "  --thread NAME   only this thread (name or index from profkit info)\n" CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit view cpu.prof\n"
    "  profkit view --no-open --port 8123 app.bsprof --value wall\n"
    "  profkit convert cpu.prof --to firefox -o cpu.json.gz   # to keep the file\n";

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* Converts the profile into the processed format, in memory. */
static int render(const profkit_profile *p, const profkit_write_options *wo, char **out, size_t *n)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof(dir), "%s/profkit-view-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "profkit view: cannot create a temporary directory in %s: %s\n",
                tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
        return CLI_BAD_INPUT;
    }
    snprintf(path, sizeof(path), "%s/profile.json", dir);
    profkit_error err;
    int rc = CLI_OK;
    if (profkit_profile_write_file(p, path, wo, &err) != 0) {
        rc = err.code == PROFKIT_EINVAL ? cli_usage("view", "%s", err.message) : cli_error(&err);
    } else {
        FILE *f = fopen(path, "rb");
        struct stat st;
        memset(&st, 0, sizeof(st));
        *out = NULL;
        if (!f || fstat(fileno(f), &st) != 0 || !(*out = malloc(st.st_size ? (size_t)st.st_size : 1)) ||
            fread(*out, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
            fprintf(stderr, "profkit view: cannot read back %s: %s\n", path, strerror(errno));
            free(*out);
            *out = NULL;
            rc = CLI_BAD_INPUT;
        }
        *n = (size_t)st.st_size;
        if (f)
            fclose(f);
    }
    unlink(path);
    rmdir(dir);
    return rc;
}

/* Percent-encodes everything but RFC 3986 unreserved characters. */
static void url_encode(char *dst, size_t cap, const char *src)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t j = 0;
    for (const unsigned char *s = (const unsigned char *)src; *s && j + 4 < cap; s++) {
        if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
            *s == '-' || *s == '.' || *s == '_' || *s == '~') {
            dst[j++] = (char)*s;
        } else {
            dst[j++] = '%';
            dst[j++] = hex[*s >> 4];
            dst[j++] = hex[*s & 15];
        }
    }
    dst[j] = 0;
}

static int send_all(int fd, const char *data, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, data, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR && !stop_requested)
            continue;
        if (w <= 0)
            return -1;
        data += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Headers every response carries; the CORS ones let profiler.firefox.com fetch. */
static int send_head(int fd, const char *status, const char *type, size_t length)
{
    char head[512];
    int n = snprintf(head, sizeof(head),
                     "HTTP/1.1 %s\r\n"
                     "Content-Type: %s\r\n"
                     "Content-Length: %zu\r\n"
                     "Access-Control-Allow-Origin: *\r\n"
                     "Access-Control-Allow-Methods: GET, HEAD, OPTIONS\r\n"
                     "Access-Control-Allow-Headers: *\r\n"
                     "Cache-Control: no-store\r\n"
                     "Connection: close\r\n"
                     "\r\n",
                     status, type, length);
    return send_all(fd, head, (size_t)n);
}

static void send_text(int fd, const char *status, const char *body, int head_only)
{
    if (send_head(fd, status, "text/plain; charset=utf-8", strlen(body)) == 0 && !head_only)
        send_all(fd, body, strlen(body));
}

/* Reads one request head (bounded in size and time) and answers it. */
static void serve_one(int fd, const char *body, size_t n)
{
    struct timeval tv = { 10, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    char req[8192];
    size_t got = 0;
    while (got < sizeof(req) - 1) {
        ssize_t r = recv(fd, req + got, sizeof(req) - 1 - got, 0);
        if (r < 0 && errno == EINTR && !stop_requested)
            continue;
        if (r <= 0)
            return;
        got += (size_t)r;
        req[got] = 0;
        if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
            break;
    }
    req[got] = 0;
    /* Request line: METHOD SP TARGET SP VERSION */
    char method[16], target[2048];
    if (sscanf(req, "%15s %2047s", method, target) != 2) {
        send_text(fd, "400 Bad Request", "bad request\n", 0);
        return;
    }
    char *q = strpbrk(target, "?#");
    if (q)
        *q = 0;
    int head_only = strcmp(method, "HEAD") == 0;
    if (strcmp(method, "OPTIONS") == 0) {
        send_head(fd, "204 No Content", "text/plain", 0);
    } else if (strcmp(method, "GET") != 0 && !head_only) {
        send_text(fd, "405 Method Not Allowed", "only GET, HEAD and OPTIONS\n", 0);
    } else if (strcmp(target, "/profile.json") == 0) {
        if (send_head(fd, "200 OK", "application/json", n) == 0 && !head_only)
            send_all(fd, body, n);
    } else {
        send_text(fd, "404 Not Found", "not found: the profile is /profile.json\n", head_only);
    }
}

static void open_browser(const char *url)
{
    char *const argv[] = { (char *)"xdg-open", (char *)url, NULL };
    posix_spawn_file_actions_t fa;
    pid_t pid;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return;
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ) != 0)
        fprintf(stderr, "profkit view: could not run xdg-open; open the address above yourself\n");
    posix_spawn_file_actions_destroy(&fa);
}

static int serve(const char *body, size_t n, unsigned port, int no_open)
{
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ls < 0) {
        fprintf(stderr, "profkit view: socket: %s\n", strerror(errno));
        return CLI_BAD_INPUT;
    }
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof(addr);
    if (bind(ls, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(ls, 16) != 0 ||
        getsockname(ls, (struct sockaddr *)&addr, &alen) != 0) {
        fprintf(stderr, "profkit view: cannot listen on 127.0.0.1:%u: %s\n", port, strerror(errno));
        close(ls);
        return CLI_BAD_INPUT;
    }
    char local[64], enc[256], url[512];
    snprintf(local, sizeof(local), "http://127.0.0.1:%u/profile.json", (unsigned)ntohs(addr.sin_port));
    url_encode(enc, sizeof(enc), local);
    snprintf(url, sizeof(url), "https://profiler.firefox.com/from-url/%s/", enc);
    printf("profile: %s\nopen:    %s\nServing until Ctrl-C.\n", local, url);
    fflush(stdout);
    if (!no_open && isatty(STDOUT_FILENO))
        open_browser(url);

    while (!stop_requested) {
        struct pollfd pfd = { ls, POLLIN, 0 };
        /* A timeout bounds the wait should a signal land just before poll. */
        int r = poll(&pfd, 1, 1000);
        if (r <= 0)
            continue;
        int fd = accept(ls, NULL, NULL);
        if (fd < 0)
            continue;
        serve_one(fd, body, n);
        close(fd);
    }
    close(ls);
    fprintf(stderr, "profkit view: stopped\n");
    return CLI_OK;
}

int cmd_view(int argc, char **argv)
{
    static const struct option opts[] = {
        { "port", required_argument, NULL, 'P' },
        { "no-open", no_argument, NULL, 'N' },
        { "value", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    profkit_write_options wo;
    memset(&wo, 0, sizeof(wo));
    wo.format = "firefox";
    size_t port = 0;
    int no_open = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case 'P':
            if (cli_parse_size(optarg, &port) != 0 || port > 65535)
                return cli_usage("view", "--port needs a number from 0 to 65535");
            break;
        case 'N': no_open = 1; break;
        case 'V': wo.value = optarg; break;
        case 'T': wo.thread = optarg; break;
        default:
            switch (cli_input_option(&in, c, optarg)) {
            case -1: return CLI_USAGE;
            case 0: return cli_usage("view", "unknown option");
            }
        }
    }
    if (optind >= argc)
        return cli_usage("view", "no input file");
    const profkit_format_info *ff = profkit_format_find("firefox");
    if (!ff || !ff->can_write) {
        fprintf(stderr, "profkit view: this build cannot write Firefox profiles\n");
        return CLI_BAD_INPUT;
    }
    profkit_profile *p;
    int rc = cli_load(&p, argv + optind, argc - optind, &in);
    if (rc)
        return rc;
    char *body = NULL;
    size_t n = 0;
    rc = render(p, &wo, &body, &n);
    profkit_profile_free(p);
    if (rc)
        return rc;

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop; /* no SA_RESTART: poll returns at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, SIG_IGN); /* xdg-open is not waited for */
    rc = serve(body, n, (unsigned)port, no_open);
    free(body);
    return rc;
}
