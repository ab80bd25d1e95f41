/* cmd_store.c: `profkit store add|ls|label|rm|gc|serve DB ...`, the profile store. */
#include "cli/cli.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char help[] =
    "Usage: profkit store add DB FILE... [--label KEY=VALUE]... [--keep-going] [--batch SIZE] [OPTIONS]\n"
    "       profkit store ls DB [--where K=V]... [--since T] [--until T] [--json]\n"
    "       profkit store label DB (ID... | --where K=V ...) [--set K=V]... [--unset K]...\n"
    "       profkit store rm DB (--where K=V | --since T | --until T | --older-than D)...\n"
    "       profkit store gc DB\n"
    "       profkit store serve DB [--listen ADDRESS:PORT] [--token T] [--max-body SIZE]\n"
    "\n"
    "Keep many profiles in one store and ask about all of them at once: every\n"
    "report, convert, flame and view takes --db DB with --where, --since and\n"
    "--until, and answers over the matching profiles as if they were files\n"
    "merged on its command line (docs/store.md). The engine does the sums:\n"
    "`top` over ten thousand profiles is a GROUP BY, not ten thousand reads.\n"
    "\n"
    "DB is a SQLite file (created on first use) or a ClickHouse database through\n"
    "its HTTP interface, clickhouse://HOST:PORT/DATABASE (add ?cluster=NAME for\n"
    "Distributed tables over the shards of that cluster).\n"
    "\n"
    "  add   reads each FILE (any format profkit reads; symbolized as the reports\n"
    "        do) and adds it as one profile, labelled with the --label pairs and\n"
    "        what the file knows: format, file, host (where the format records\n"
    "        one), thread (each thread's name) and value (each value type). Its\n"
    "        time is the profile's own where the format records one, else the\n"
    "        file's modification time. A profile is identified by a hash of its\n"
    "        content: adding it again does nothing (\"already in the store\").\n"
    "        Each add is atomic: one that fails or is killed leaves nothing.\n"
    "        Prints each profile it added as ls does (not with -q). Stops at\n"
    "        the first file it cannot read, unless --keep-going.\n"
    "  ls    lists the matching profiles, oldest first: id, time, format, file,\n"
    "        then their labels and their totals per value type\n"
    "  label sets (--set K=V: K's old values go) and removes (--unset K) labels\n"
    "        of the profiles named by ID (as ls prints it) or selected by\n"
    "        --where, --since, --until; a profile's id does not change\n"
    "  rm    removes the matching profiles (at least one --where, --since,\n"
    "        --until or --older-than is required; --where 'file~.' matches\n"
    "        every profile)\n"
    "\n"
    "Options:\n"
    "  --label KEY=VALUE  (add) a label (repeatable); KEY of letters, digits,\n"
    "                     '_', '.', '-'\n"
    "  --keep-going       (add) add every file it can read; name each that fails\n"
    "                     and exit 1 at the end if one did\n"
    "  --batch SIZE       (add, ClickHouse) send the rows of many files as one\n"
    "                     INSERT per table once SIZE bytes of them are held\n"
    "                     (default 16M; 0: each file at once); a file is added,\n"
    "                     and printed, once its batch is in\n"
    "  --where K=V        profiles with label K = V (repeatable: all must hold);\n"
    "                     K!=V: no label K = V; K~RE: a label K matching the\n"
    "                     POSIX extended RE (ClickHouse: its re2 syntax); a K\n"
    "                     no profile has is an error that lists the keys\n"
    "  --since T, --until T\n"
    "                     profiles whose time is T or later / before T\n"
    "                     (YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] in UTC, or seconds\n"
    "                     since 1970)\n"
    "  --older-than D     (rm) profiles whose time is more than D ago: a number\n"
    "                     and a unit, s, m, h, d or w (30d, 12h)\n"
    "  --set K=V, --unset K\n"
    "                     (label) the labels to set and remove (repeatable)\n"
    "  --json             (ls) one JSON document (docs/json.md)\n"
    "  --listen ADDRESS:PORT\n"
    "                     (serve) where to listen, a numeric address, [V6]:PORT\n"
    "                     for IPv6 (default 127.0.0.1:4040; 0.0.0.0:4040 takes\n"
    "                     pushes from other machines: anyone who can reach it\n"
    "                     and has the token can add profiles)\n"
    "  --token T          (serve) the bearer token (16 to 128 of A-Z a-z 0-9 - _);\n"
    "                     default: PROFKIT_STORE_TOKEN, else a random one\n"
    "  --max-body SIZE    (serve) the largest body taken, bytes or with k, M, G\n"
    "                     (default 64M); larger ones get 413\n"
    "  --allow-host NAME  (serve) answer requests whose Host is NAME (the DNS\n"
    "                     name agents use); by default only the address they\n"
    "                     connected to (and localhost on loopback)\n"
    "  and for add, the input options of the reports (--format, --strict, -q,\n"
    "  --no-symbolize, --binary, --symbols, --demangle, the limits)\n"
    "  -h, --help         show this help\n"
    "\n"
    "Examples:\n"
    "  profkit store add prof.sqlite --label version=1.5 --label host=web7 cpu.prof\n"
    "  profkit store add prof.sqlite runs/*.pb.gz --label ci=nightly --keep-going\n"
    "  profkit store ls prof.sqlite --where version=1.5 --since 2026-11-01\n"
    "  profkit store ls prof.sqlite --json | jq -r '.profiles[].id'\n"
    "  profkit store label prof.sqlite --where ci=nightly --set keep=yes\n"
    "  profkit store label prof.sqlite 3f2a9c01d4e5b6a7 --unset keep\n"
    "  profkit top --db prof.sqlite --where version=1.5 --since 2026-11-01\n"
    "  profkit tree --db prof.sqlite --where 'host~^web' --where version!=1.4\n"
    "  profkit diff --db prof.sqlite --base-where version=1.4 --new-where version=1.5\n"
    "  profkit flame --db prof.sqlite --where version=1.5 -o v15.html\n"
    "  profkit store rm prof.sqlite --older-than 90d\n"
    "  profkit store add clickhouse://127.0.0.1:8123/prof cpu.prof\n"
    "  profkit store gc clickhouse://127.0.0.1:8123/prof\n"
    "  profkit store serve prof.sqlite --listen 127.0.0.1:4040\n"
    "  curl -H \"Authorization: Bearer $TOKEN\" --data-binary @cpu.pb.gz \\\n"
    "    'http://127.0.0.1:4040/ingest?name=app{env=ci}&format=pprof'\n";

enum { OPT_KEEP_GOING = 0x300, OPT_SET, OPT_UNSET, OPT_OLDER_THAN, OPT_JSON, OPT_LISTEN, OPT_TOKEN,
       OPT_MAX_BODY, OPT_ALLOW_HOST, OPT_BATCH };

struct store_args {
    cli_input in;
    const char *labels[CLI_MAX_WHERE], *set[CLI_MAX_WHERE], *unset[CLI_MAX_WHERE];
    size_t n_labels, n_set, n_unset;
    int keep_going, json;
    size_t batch; /* add: profkit_store_add_options.batch */
    int has_batch;
    /* serve */
    const char *listen, *token, *hosts[16];
    size_t n_hosts, max_body;
    int serve_opts; /* one of them was given */
};

/* The query of the command's --where, --since, --until (and ids). */
static void query_of(profkit_store_query *q, const cli_input *in, const uint64_t *ids, size_t n_ids)
{
    memset(q, 0, sizeof(*q));
    q->where = in->where;
    q->n_where = in->n_where;
    q->since = in->has_since ? in->since : PROFKIT_NO_TIME;
    q->until = in->has_until ? in->until : PROFKIT_NO_TIME;
    q->ids = ids;
    q->n_ids = n_ids;
    if (!ids) /* --ids (label's ID arguments are its own) */
        cli_query_ids(q, in, NULL);
}

/* Prints "added" and the profile as ls does (one line). */
static int print_added(profkit_store *s, uint64_t id)
{
    profkit_store_query q;
    profkit_store_list_options lo = { 0, 1 };
    profkit_error err;
    query_of(&q, &(cli_input){ 0 }, &id, 1);
    fputs("added ", stdout);
    if (profkit_store_list_opts(stdout, s, &q, &lo, &err) != 0)
        return cli_error(&err);
    return CLI_OK;
}

/* The files whose rows wait in the store's batch (--batch): printed once
 * the batch is in, named as not added when it failed. */
struct held {
    int *file;
    uint64_t *id;
    size_t n, cap;
};

static int held_push(struct held *h, int file, uint64_t id)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        int *f = realloc(h->file, cap * sizeof(int));
        if (!f)
            return -1;
        h->file = f;
        uint64_t *i = realloc(h->id, cap * sizeof(uint64_t));
        if (!i)
            return -1;
        h->id = i;
        h->cap = cap;
    }
    h->file[h->n] = file;
    h->id[h->n++] = id;
    return 0;
}

/* The batch is in (ok) or lost: prints or names each file held. */
static int held_done(struct held *h, profkit_store *s, char **files, int ok, int quiet, int *failed)
{
    int rc = CLI_OK;
    for (size_t k = 0; k < h->n; k++) {
        if (!ok) {
            fprintf(stderr, "profkit store: %s: not added\n", files[h->file[k]]);
            ++*failed;
        } else if (!quiet && rc == CLI_OK) {
            rc = print_added(s, h->id[k]);
        }
    }
    h->n = 0;
    fflush(stdout); /* what is printed is in the store: a kill after it loses no line */
    return rc;
}

static int add(struct store_args *a, char **files, int n)
{
    cli_input *in = &a->in;
    profkit_store *s;
    profkit_error err;
    if (cli_store_open(&s, in->db, &err) != 0)
        return cli_error(&err);
    int rc = CLI_OK, failed = 0;
    struct held held = { 0 };
    in->skip_markers = 1; /* the store keeps no markers; lines and in-use values it keeps */
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        profkit_profile *p;
        const char *db = in->db;
        in->db = NULL;
        int r = cli_load(&p, files + i, 1, in);
        in->db = db;
        if (r != CLI_OK) {
            if (a->keep_going && r == CLI_BAD_INPUT) {
                fprintf(stderr, "profkit store: %s: not added\n", files[i]);
                failed++;
                continue;
            }
            rc = r;
            break;
        }
        profkit_store_add_options ao;
        memset(&ao, 0, sizeof(ao));
        ao.labels = a->labels;
        ao.n_labels = a->n_labels;
        ao.source = files[i];
        ao.time = PROFKIT_NO_TIME;
        ao.batch = a->has_batch ? a->batch : (size_t)16 << 20;
        struct stat st;
        if (strcmp(files[i], "-") != 0 && stat(files[i], &st) == 0)
            ao.time = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        uint64_t id;
        r = profkit_store_add(s, p, &ao, &id, &err);
        profkit_profile_free(p);
        if (r < 0) {
            /* the files held with it are lost too */
            int f = 0;
            held_done(&held, s, files, 0, in->quiet, &f);
            failed += f;
            if (a->keep_going && err.code != PROFKIT_EINVAL) {
                cli_error(&err);
                fprintf(stderr, "profkit store: %s: not added\n", files[i]);
                failed++;
                continue;
            }
            rc = cli_fail("store", &err);
        } else if (r == 2) { /* held: printed once its batch is in */
            if (held_push(&held, i, id) != 0) {
                fprintf(stderr, "profkit: error: out of memory\n");
                rc = CLI_BAD_INPUT;
            }
        } else if (r == 1) {
            if (!in->quiet)
                fprintf(stderr, "profkit store: %s: already in the store (profile %016llx), not added again\n",
                        files[i], (unsigned long long)id);
        } else {
            /* in, with every file held before it */
            rc = held_done(&held, s, files, 1, in->quiet, &failed);
            if (rc == CLI_OK && !in->quiet)
                rc = print_added(s, id);
            fflush(stdout);
        }
    }
    if (held.n) { /* the files read before the end, or before one that stopped it */
        int r = profkit_store_flush(s, &err);
        if (r != 0)
            cli_error(&err);
        int printed = held_done(&held, s, files, r == 0, in->quiet, &failed);
        if (rc == CLI_OK && r != 0 && !a->keep_going)
            rc = CLI_BAD_INPUT;
        if (rc == CLI_OK)
            rc = printed;
    }
    free(held.file);
    free(held.id);
    profkit_store_close(s);
    if (rc == CLI_OK && failed) {
        fprintf(stderr, "profkit store: %d of %d file%s not added\n", failed, n, n == 1 ? "" : "s");
        rc = CLI_BAD_INPUT;
    }
    return rc;
}

/* "30d", "12h", "90m", "45s", "2w" as ns. */
static int parse_duration(const char *t, int64_t *ns)
{
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (end == t || v < 0 || errno || !end[0] || end[1])
        return -1;
    int64_t unit = end[0] == 's' ? 1 : end[0] == 'm' ? 60 : end[0] == 'h' ? 3600
                 : end[0] == 'd' ? 86400 : end[0] == 'w' ? 604800 : 0;
    if (!unit || v > INT64_MAX / 1000000000LL / unit)
        return -1;
    *ns = (int64_t)v * unit * 1000000000LL;
    return 0;
}

static int ls_rm_label(struct store_args *a, const char *verb, char **rest, int n_rest)
{
    const cli_input *in = &a->in;
    int rm = strcmp(verb, "rm") == 0, label = strcmp(verb, "label") == 0;
    uint64_t ids[CLI_MAX_WHERE];
    if (n_rest > CLI_MAX_WHERE)
        return cli_usage("store", "at most %d profile ids", CLI_MAX_WHERE);
    for (int i = 0; i < n_rest; i++) {
        char *end;
        size_t len = strlen(rest[i]);
        errno = 0;
        ids[i] = strtoull(rest[i], &end, 16);
        if (len != 16 || *end || errno || ids[i] == 0 || ids[i] > INT64_MAX)
            return cli_usage("store", "'%s': expected a profile id, 16 hexadecimal digits as store ls "
                                      "prints it", rest[i]);
    }
    if (rm && !in->n_where && !in->has_since && !in->has_until)
        return cli_usage("store", "rm needs --where, --since, --until or --older-than (--where 'file~.' "
                                  "matches all)");
    if (label && !n_rest && !in->n_where && !in->has_since && !in->has_until)
        return cli_usage("store", "label needs profile ids or --where, --since, --until (--where 'file~.' "
                                  "matches all)");
    if (label && !a->n_set && !a->n_unset)
        return cli_usage("store", "label needs --set K=V or --unset K");
    profkit_store *s;
    profkit_error err;
    if (cli_store_open(&s, in->db, &err) != 0)
        return cli_error(&err);
    profkit_store_query q;
    query_of(&q, in, n_rest ? ids : NULL, (size_t)n_rest);
    profkit_store_list_options lo = { a->json, 0 };
    size_t n = 0;
    int r = rm      ? profkit_store_remove(s, &q, &n, &err)
          : label   ? profkit_store_label(s, &q, a->set, a->n_set, a->unset, a->n_unset, &n, &err)
                    : profkit_store_list_opts(stdout, s, &q, &lo, &err);
    profkit_store_close(s);
    if (r != 0)
        return cli_fail("store", &err);
    if (rm)
        printf("removed %zu profile%s\n", n, n == 1 ? "" : "s");
    if (label)
        printf("labelled %zu profile%s\n", n, n == 1 ? "" : "s");
    return CLI_OK;
}


/* "64M", "512k", "1G" or bytes. */
static int parse_bytes(const char *t, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(t, &end, 10);
    if (end == t || errno || t[0] == '-')
        return -1;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'M')
        shift = 20;
    else if (*end == 'G')
        shift = 30;
    else if (*end)
        return -1;
    if (shift && end[1])
        return -1;
    if (v == 0 || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

static void print_push(void *payload, const char *line)
{
    (void)payload;
    printf("%s\n", line);
    fflush(stdout);
}

/* store serve: starts the ingest server, prints where and the token, and
 * waits for SIGINT or SIGTERM (blocked before the server's threads start,
 * which inherit the mask, and taken with sigwait). */
static int serve(struct store_args *a)
{
    profkit_store_serve_options o;
    memset(&o, 0, sizeof(o));
    o.listen = a->listen ? a->listen : "127.0.0.1:4040";
    o.token = a->token ? a->token : getenv("PROFKIT_STORE_TOKEN");
    if (o.token && !*o.token)
        o.token = NULL;
    o.hosts = a->hosts;
    o.n_hosts = a->n_hosts;
    o.max_body = a->max_body;
    o.user = getenv("PROFKIT_CLICKHOUSE_USER");
    o.password = getenv("PROFKIT_CLICKHOUSE_PASSWORD");
    o.on_add = a->in.quiet ? NULL : print_push;
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    profkit_store_server *sv;
    profkit_error err;
    if (profkit_store_serve_start(&sv, a->in.db, &o, &err) != 0) {
        pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
        return cli_fail("store", &err);
    }
    printf("ingest: %singest\n", profkit_store_serve_url(sv));
    if (!o.token) /* a token the caller gave is not printed */
        printf("token:  %s\n", profkit_store_serve_token(sv));
    printf("Serving until Ctrl-C.\n");
    fflush(stdout);
    int sig;
    while (sigwait(&stop, &sig) != 0)
        ;
    profkit_store_serve_stop(sv);
    fprintf(stderr, "profkit store: stopped\n");
    return CLI_OK;
}

static int gc(struct store_args *a)
{
    profkit_store *s;
    profkit_error err;
    if (cli_store_open(&s, a->in.db, &err) != 0)
        return cli_error(&err);
    size_t n = 0;
    int r = profkit_store_gc(s, &n, &err);
    profkit_store_close(s);
    if (r != 0)
        return cli_fail("store", &err);
    printf("removed %zu unused shared row%s\n", n, n == 1 ? "" : "s");
    return CLI_OK;
}

/* Appends v to one of a's lists of at most CLI_MAX_WHERE. */
static int push(const char **list, size_t *n, const char *v, const char *opt)
{
    if (*n == CLI_MAX_WHERE)
        return cli_usage("store", "at most %d %s options", CLI_MAX_WHERE, opt);
    list[(*n)++] = v;
    return CLI_OK;
}

int cmd_store(int argc, char **argv)
{
    static const struct option opts[] = {
        { "label", required_argument, NULL, CLI_OPT_LABEL },
        { "keep-going", no_argument, NULL, OPT_KEEP_GOING },
        { "set", required_argument, NULL, OPT_SET },
        { "unset", required_argument, NULL, OPT_UNSET },
        { "older-than", required_argument, NULL, OPT_OLDER_THAN },
        { "json", no_argument, NULL, OPT_JSON },
        { "listen", required_argument, NULL, OPT_LISTEN },
        { "token", required_argument, NULL, OPT_TOKEN },
        { "max-body", required_argument, NULL, OPT_MAX_BODY },
        { "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
        { "batch", required_argument, NULL, OPT_BATCH },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    struct store_args a;
    memset(&a, 0, sizeof(a));
    cli_input *in = &a.in;
    int c, older = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        int r = CLI_OK;
        switch (c) {
        case 'h':
            fputs(help, stdout);
            return CLI_OK;
        case CLI_OPT_LABEL:
            r = push(a.labels, &a.n_labels, optarg, "--label");
            break;
        case OPT_SET:
            r = push(a.set, &a.n_set, optarg, "--set");
            break;
        case OPT_UNSET:
            r = push(a.unset, &a.n_unset, optarg, "--unset");
            break;
        case OPT_KEEP_GOING:
            a.keep_going = 1;
            break;
        case OPT_JSON:
            a.json = 1;
            break;
        case OPT_LISTEN:
            a.listen = optarg;
            a.serve_opts = 1;
            break;
        case OPT_TOKEN:
            a.token = optarg;
            a.serve_opts = 1;
            break;
        case OPT_MAX_BODY:
            if (parse_bytes(optarg, &a.max_body) != 0)
                return cli_usage("store", "--max-body '%s': expected a number of bytes, or with k, M "
                                          "or G (64M)", optarg);
            a.serve_opts = 1;
            break;
        case OPT_BATCH:
            a.batch = 0;
            if (strcmp(optarg, "0") != 0 && parse_bytes(optarg, &a.batch) != 0)
                return cli_usage("store", "--batch '%s': expected a number of bytes, or with k, M or G "
                                          "(16M), or 0", optarg);
            a.has_batch = 1;
            break;
        case OPT_ALLOW_HOST:
            if (a.n_hosts == 16)
                return cli_usage("store", "at most 16 --allow-host options");
            a.hosts[a.n_hosts++] = optarg;
            a.serve_opts = 1;
            break;
        case OPT_OLDER_THAN: {
            int64_t d;
            if (parse_duration(optarg, &d) != 0)
                return cli_usage("store", "--older-than '%s': expected a number and a unit, s, m, h, d "
                                          "or w (30d, 12h)", optarg);
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            int64_t t = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec - d;
            if (!in->has_until || t < in->until)
                in->until = t;
            in->has_until = 1;
            older = 1;
            break;
        }
        case CLI_OPT_DB:
            return cli_usage("store", "the store is the argument after the verb: profkit store add DB FILE...");
        default:
            r = cli_input_option(in, c, optarg);
            if (r < 0)
                return CLI_USAGE;
            if (r == 0)
                return cli_usage("store", "unknown option");
            r = CLI_OK;
        }
        if (r != CLI_OK)
            return r;
    }
    if (cli_need_store("store", NULL) != CLI_OK)
        return CLI_USAGE;
    if (argc - optind < 2)
        return cli_usage("store", "expected add, ls, label, rm, gc or serve, then the store DB");
    const char *verb = argv[optind];
    in->db = argv[optind + 1];
    if (cli_need_store("store", in->db) != CLI_OK)
        return CLI_USAGE;
    char **rest = argv + optind + 2;
    int n_rest = argc - optind - 2;
    int is_add = strcmp(verb, "add") == 0, is_label = strcmp(verb, "label") == 0;
    int is_serve = strcmp(verb, "serve") == 0, is_gc = strcmp(verb, "gc") == 0;
    if (!is_add && !is_label && !is_serve && !is_gc && strcmp(verb, "ls") != 0 && strcmp(verb, "rm") != 0)
        return cli_usage("store", "unknown verb '%s': expected add, ls, label, rm, gc or serve", verb);
    if (!is_serve && a.serve_opts)
        return cli_usage("store", "--listen, --token, --max-body and --allow-host are for serve");
    if (is_serve || is_gc) {
        if (n_rest > 0 || in->n_where || in->has_since || in->has_until || older || a.json || a.n_labels ||
            a.keep_going || a.n_set || a.n_unset)
            return cli_usage("store", "%s takes the store DB and no FILE or other verb's option", verb);
        if (is_gc)
            return gc(&a);
        if (cli_need_part("store serve", "server") != CLI_OK)
            return CLI_USAGE;
        return serve(&a);
    }
    if (!is_add && (a.n_labels || a.keep_going || a.has_batch))
        return cli_usage("store", "%s is for add", a.n_labels ? "--label" : a.keep_going ? "--keep-going" : "--batch");
    if (!is_label && (a.n_set || a.n_unset))
        return cli_usage("store", "%s is for label", a.n_set ? "--set" : "--unset");
    if (older && strcmp(verb, "rm") != 0)
        return cli_usage("store", "--older-than is for rm");
    if (a.json && strcmp(verb, "ls") != 0)
        return cli_usage("store", "--json is for ls");
    if (is_add) {
        if (n_rest < 1)
            return cli_usage("store", "add: no input file");
        if (in->n_where || in->has_since || in->has_until)
            return cli_usage("store", "add takes --label, not --where, --since or --until");
        return add(&a, rest, n_rest);
    }
    if (n_rest > 0 && !is_label)
        return cli_usage("store", "%s takes no FILE, only the store and --where, --since, --until", verb);
    return ls_rm_label(&a, verb, rest, n_rest);
}
