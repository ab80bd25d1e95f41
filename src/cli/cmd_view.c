/*
 * cmd_view.c: `profkit view FILE...`: converts the profile in memory and
 * serves it with the library's local server (profkit_server_*: 127.0.0.1
 * only, a random token in every path, Host and Origin checked; see
 * docs/viewing.md), then hands its address to a browser.
 *
 * What is served and opened is a "plan": by default profkit's own viewer
 * page (the page `profkit flame` writes) at /TOKEN/, same-origin, with no
 * CORS header at all, and the server's own address is opened; with
 * --firefox the Firefox Profiler hand-off (profile.json, readable
 * cross-origin by profiler.firefox.com only, opened through its from-url
 * page).
 *
 * Ctrl-C (SIGINT) or SIGTERM stops it with status 0: both are blocked before
 * the server's threads start (they inherit the mask) and taken with sigwait,
 * so no handler runs in a server thread.
 */
#include "cli/cli.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static const char help[] =
    "Usage: profkit view [OPTIONS] FILE...\n"
    "\n"
    "Open a profile of any format in profkit's own viewer, offline: the page\n"
    "`profkit flame` writes (flame graph, icicle, stack chart, call tree,\n"
    "sandwich, top functions, search, threads and value types) is served by a\n"
    "local web server on http://127.0.0.1:PORT/TOKEN/; profkit prints that\n"
    "address and opens it with xdg-open when standard output is a terminal.\n"
    "With --firefox it hands the profile to the Firefox Profiler instead: the\n"
    "profile is converted to its processed format, served on\n"
    "http://127.0.0.1:PORT/TOKEN/profile.json, and the profiler.firefox.com\n"
    "address that loads it is printed and opened. It serves until Ctrl-C.\n"
    "\n"
    "Who can read the profile: the server listens on 127.0.0.1 only; TOKEN is\n"
    "128 random bits, new each run, and any other path is 404; requests must\n"
    "name Host 127.0.0.1:PORT or localhost:PORT (else 421), and no other web\n"
    "page may read it (403), but for profiler.firefox.com with --firefox.\n"
    "Anyone who learns\n"
    "the printed address (a local user who can see this terminal, or the\n"
    "--token argument in the process list) can read the profile until you stop\n"
    "the server. The browser must run on this machine (or reach its 127.0.0.1\n"
    "through an SSH tunnel: ssh -L PORT:127.0.0.1:PORT HOST).\n"
    "\n"
    "Options:\n"
    "  --firefox       open the profile in the Firefox Profiler (needs the\n"
    "                  internet) instead of profkit's own page\n"
    "  --min-percent P the page merges nodes below P% of their thread's total\n"
    "                  into one \"(other)\" per parent (default 0.025)\n"
    "  --max-nodes N   at most N nodes in the page's trees (default 100000)\n"
    "  --port N        listen on port N (default 0: any free port)\n"
    "  --token T       use T (16 to 128 of A-Z a-z 0-9 - _) as the secret path\n"
    "                  segment instead of a random one, for scripts\n"
    "  --no-open       only print the address, do not start a browser\n"
    "  --value NAME    value type shown first (with --firefox: the sample\n"
    "                  weight); default: the profile's default (profkit info)\n"
    "  --thread NAME   only this thread (name, index or tid:TID; profkit info)\n" CLI_INPUT_HELP
    "\n"
    "Output (one line each, for scripts): \"profile: URL\" (what is served: the\n"
    "page, or with --firefox the profile) and \"open: URL\" (the address to open).\n"
    "\n"
    "Examples:\n"
    "  profkit view cpu.prof\n"
    "  profkit view --no-open --port 8123 app.bsprof --value wall\n"
    "  profkit view --firefox gecko-profile.json.gz\n"
    "  profkit view --db prof.sqlite     # the store browser: pick, merge, diff, trend\n"
    "  profkit flame cpu.prof -o cpu.html                     # the page as a file\n"
    "  profkit convert cpu.prof --to firefox -o cpu.json.gz   # to keep the file\n";

#define FIREFOX_ORIGIN "https://profiler.firefox.com"

/* Converts the profile into the Firefox Profiler's processed format, in memory. */
static int render_firefox(const profkit_profile *p, const profkit_write_options *wo, char **out,
                          size_t *n)
{
    profkit_write_options w = *wo;
    w.format = "firefox";
    profkit_error err;
    if (profkit_profile_write_memory(out, n, p, &w, &err) != 0)
        return cli_fail("view", &err);
    return CLI_OK;
}

/* Options of the page plan (view's own options fill them in). */
static profkit_flame_options page_options;

/* Renders profkit's own viewer page, in memory. */
static int render_page(const profkit_profile *p, const profkit_write_options *wo, char **out,
                       size_t *n)
{
    profkit_flame_options o = page_options;
    o.value = wo->value;
    o.thread = wo->thread;
    profkit_error err;
    if (profkit_flame_render_html(out, n, p, &o, &err) != 0)
        return cli_fail("view", &err);
    return CLI_OK;
}

/* What `view` serves and which address it opens. */
typedef struct view_plan {
    const char *name;         /* resource under /TOKEN/ ("" for the page) */
    const char *content_type;
    const char *cors_origin;  /* the one other origin that may read it, or NULL */
    int firefox_from_url;     /* open profiler.firefox.com/from-url/<URL>/, else the URL */
    const char *write_format; /* a writer render() needs, checked before reading */
    int (*render)(const profkit_profile *p, const profkit_write_options *wo, char **out,
                  size_t *n);
} view_plan;

static const view_plan plan_firefox = {
    "profile.json", "application/json", FIREFOX_ORIGIN, 1, "firefox", render_firefox,
};
static const view_plan plan_page = {
    "", "text/html; charset=utf-8", NULL, 0, NULL, render_page,
};

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

/* Starts xdg-open without waiting for it, with the default signal mask and
 * dispositions (this process blocks SIGINT/SIGTERM and ignores SIGCHLD). */
static void open_browser(const char *url)
{
    char *const argv[] = { (char *)"xdg-open", (char *)url, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    pid_t pid;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return;
    if (posix_spawnattr_init(&attr) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return;
    }
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGCHLD);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawnp(&pid, "xdg-open", &fa, &attr, argv, environ) != 0)
        fprintf(stderr, "profkit view: could not run xdg-open; open the address above yourself\n");
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
}

/* Serves *body (freed here) as the plan says on the running server, prints
 * the addresses and waits for SIGINT or SIGTERM (blocked by the caller). */
static int publish(profkit_server *srv, const view_plan *plan, char **body, size_t n,
                   int no_open, const sigset_t *stop)
{
    profkit_error err;
    int set = profkit_server_set(srv, plan->name, plan->content_type, *body, n, &err);
    free(*body); /* the server keeps its own copy */
    *body = NULL;
    if (set != 0) {
        cli_flag_names(err.message, sizeof(err.message));
        fprintf(stderr, "profkit view: %s\n", err.message);
        return CLI_BAD_INPUT;
    }
    const char *base = profkit_server_url(srv);
    size_t cap = strlen(base) + strlen(plan->name) + 1, ocap = 3 * cap + 64;
    char *local = malloc(cap), *open = malloc(ocap);
    if (!local || !open) {
        free(local);
        free(open);
        fprintf(stderr, "profkit view: out of memory\n");
        return CLI_BAD_INPUT;
    }
    snprintf(local, cap, "%s%s", base, plan->name);
    if (plan->firefox_from_url) {
        int k = snprintf(open, ocap, FIREFOX_ORIGIN "/from-url/");
        url_encode(open + k, ocap - (size_t)k - 1, local);
        strcat(open, "/");
    } else {
        snprintf(open, ocap, "%s", base);
    }
    printf("profile: %s\nopen:    %s\nServing until Ctrl-C.\n", local, open);
    fflush(stdout);
    if (!no_open && isatty(STDOUT_FILENO))
        open_browser(open);
    free(local);
    free(open);
    int sig;
    while (sigwait(stop, &sig) != 0)
        ;
    fprintf(stderr, "profkit view: stopped\n");
    return CLI_OK;
}

/* ---- view --db DB (no --where, --since, --until): the store browser
 * (docs/store.md, "Browsing a store"), served until SIGINT or SIGTERM. */
static int view_store(const cli_input *in, const profkit_server_options *so, int no_open)
{
    profkit_store_browse_options bo;
    profkit_store_browse_options_init(&bo);
    bo.port = so->port;
    bo.token = so->token;
    bo.user = getenv("PROFKIT_CLICKHOUSE_USER");
    bo.password = getenv("PROFKIT_CLICKHOUSE_PASSWORD");
    bo.min_percent = page_options.min_percent;
    bo.max_nodes = page_options.max_nodes;
    char *const db[1] = { (char *)in->db };
    char *title = cli_title(db, 1, " ");
    bo.title = title;
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, SIG_IGN); /* xdg-open is not waited for */
    pthread_sigmask(SIG_BLOCK, &stop, NULL); /* the server's threads inherit the mask */
    profkit_store_browser *b;
    profkit_error err;
    int rc = profkit_store_browse_start(&b, in->db, &bo, &err);
    free(title);
    if (rc != 0) {
        pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
        cli_flag_names(err.message, sizeof(err.message));
        if (rc == PROFKIT_EINVAL && !err.file[0])
            return cli_usage("view", "%s", err.message);
        return cli_error(&err);
    }
    const char *url = profkit_store_browse_url(b);
    printf("store: %s\nopen:  %s\nServing until Ctrl-C.\n", url, url);
    fflush(stdout);
    if (!no_open && isatty(STDOUT_FILENO))
        open_browser(url);
    int sig;
    while (sigwait(&stop, &sig) != 0)
        ;
    fprintf(stderr, "profkit view: stopped\n");
    profkit_store_browse_stop(b);
    return CLI_OK;
}

int cmd_view(int argc, char **argv)
{
    static const struct option opts[] = {
        { "port", required_argument, NULL, 'P' },
        { "token", required_argument, NULL, 'K' },
        { "firefox", no_argument, NULL, 'X' },
        { "min-percent", required_argument, NULL, 'M' },
        { "max-nodes", required_argument, NULL, 'm' },
        { "no-open", no_argument, NULL, 'O' },
        { "value", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    profkit_write_options wo;
    memset(&wo, 0, sizeof(wo));
    profkit_server_options so;
    memset(&so, 0, sizeof(so));
    const view_plan *plan = &plan_page;
    profkit_flame_options_init(&page_options);
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
        case 'K': so.token = optarg; break;
        case 'X': plan = &plan_firefox; break;
        case 'M': {
            char *end;
            page_options.min_percent = strtod(optarg, &end);
            if (!*optarg || *end || !(page_options.min_percent >= 0 && page_options.min_percent <= 100))
                return cli_usage("view", "--min-percent needs a number from 0 to 100");
            break;
        }
        case 'm':
            if (cli_parse_size(optarg, &page_options.max_nodes) != 0)
                return cli_usage("view", "--max-nodes needs a number");
            break;
        case 'O': no_open = 1; break;
        case 'V': wo.value = optarg; break;
        case 'T': wo.thread = optarg; break;
        default:
            switch (cli_input_option(&in, c, optarg)) {
            case -1: return CLI_USAGE;
            case 0: return cli_usage("view", "unknown option");
            }
        }
    }
    if (cli_need_part("view", "server") != CLI_OK || !cli_has_input("view", &in, argc - optind))
        return CLI_USAGE;
    if (in.db && !in.n_where && !in.has_since && !in.has_until && plan == &plan_page) {
        so.port = (unsigned)port;
        return view_store(&in, &so, no_open);
    }
    /* --range alone: the page holds the whole profile and opens with the
     * range selected (as flame does) */
    if (plan == &plan_page && in.filter.range && !in.filter.during_marker && !in.filter.outside_marker) {
        page_options.range = in.filter.range;
        in.filter.range = NULL;
    }
    /* the page applies the transforms itself, each step poppable */
    static profkit_transform page_steps[CLI_MAX_TRANSFORMS + 1];
    static profkit_filter_options page_filter;
    if (plan == &plan_page) {
        page_options.n_transforms = cli_page_transforms(&in, page_steps, &page_filter);
        page_options.transforms = page_options.n_transforms ? page_steps : NULL;
    }
    so.port = (unsigned)port;
    so.cors_origin = plan->cors_origin;
    const profkit_format_info *ff = plan->write_format ? profkit_format_find(plan->write_format) : NULL;
    if (plan->write_format && (!ff || !ff->can_write)) {
        fprintf(stderr, "profkit view: this build cannot write %s profiles\n", plan->write_format);
        return CLI_BAD_INPUT;
    }

    /* The server starts first, so a bad --token or a busy port is reported
     * before a long read. Its threads start with SIGINT and SIGTERM blocked
     * (they inherit the mask); the read runs with them unblocked (Ctrl-C
     * ends it at once), and the wait takes them with sigwait. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, SIG_IGN); /* xdg-open is not waited for */
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    profkit_server *srv;
    profkit_error err;
    if (profkit_server_start(&srv, &so, &err) != 0) {
        pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
        cli_flag_names(err.message, sizeof(err.message));
        if (err.code == PROFKIT_EINVAL)
            return cli_usage("view", "%s", err.message);
        fprintf(stderr, "profkit view: %s\n", err.message);
        return CLI_BAD_INPUT;
    }
    pthread_sigmask(SIG_UNBLOCK, &stop, NULL);

    char *const db[1] = { (char *)in.db };
    char *title = in.db ? cli_title(db, 1, " ") : cli_title(argv + optind, argc - optind, " ");
    page_options.title = title;
    const char **inputs = cli_input_args(&in, argv + optind, argc - optind, &page_options.n_inputs);
    page_options.inputs = inputs; /* (out of memory: the page splits its title) */
    in.keep_mem_ops = plan == &plan_page; /* the page's Memory view narrowed by a range */
    profkit_profile *p;
    int rc = CLI_BAD_INPUT;
    if (!title)
        fprintf(stderr, "profkit view: out of memory\n");
    else
        rc = cli_load(&p, argv + optind, argc - optind, &in);
    char *body = NULL;
    size_t n = 0;
    if (rc == 0 && page_options.n_transforms) { /* the page's steps: their arguments' errors now */
        profkit_error terr;
        if (profkit_transform_check(p, page_options.transforms, page_options.n_transforms, &terr) != 0) {
            rc = cli_fail("view", &terr);
            profkit_profile_free(p);
        }
    }
    if (rc == 0) {
        rc = plan->render(p, &wo, &body, &n);
        profkit_profile_free(p);
    }
    if (rc == 0) {
        pthread_sigmask(SIG_BLOCK, &stop, NULL);
        rc = publish(srv, plan, &body, n, no_open, &stop);
    }
    profkit_server_stop(srv);
    free(body);
    free(title);
    free(inputs);
    return rc;
}
