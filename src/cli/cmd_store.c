/* cmd_store.c: `profkit store add|ls|rm DB ...`, the profile store. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char help[] =
    "Usage: profkit store add DB FILE... [--label KEY=VALUE]... [OPTIONS]\n"
    "       profkit store ls DB [--where K=V]... [--since T] [--until T]\n"
    "       profkit store rm DB (--where K=V | --since T | --until T)...\n"
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
    "  ls    lists the matching profiles, oldest first: id, time, format, file,\n"
    "        then their labels and their totals per value type\n"
    "  rm    removes the matching profiles (at least one --where, --since or\n"
    "        --until is required; --where 'file~.' matches every profile)\n"
    "\n"
    "Options:\n"
    "  --label KEY=VALUE  (add) a label (repeatable); KEY of letters, digits,\n"
    "                     '_', '.', '-'\n"
    "  --where K=V        profiles with label K = V (repeatable: all must hold);\n"
    "                     K!=V: no label K = V; K~RE: a label K matching the\n"
    "                     POSIX extended RE (ClickHouse: its re2 syntax)\n"
    "  --since T, --until T\n"
    "                     profiles whose time is T or later / before T\n"
    "                     (YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] in UTC, or seconds\n"
    "                     since 1970)\n"
    "  and for add, the input options of the reports (--format, --strict, -q,\n"
    "  --no-symbolize, --binary, --symbols, --demangle, the limits)\n"
    "  -h, --help         show this help\n"
    "\n"
    "Examples:\n"
    "  profkit store add prof.sqlite --label version=1.5 --label host=web7 cpu.prof\n"
    "  profkit store add prof.sqlite runs/*.pb.gz --label ci=nightly\n"
    "  profkit store ls prof.sqlite --where version=1.5 --since 2026-11-01\n"
    "  profkit top --db prof.sqlite --where version=1.5 --since 2026-11-01\n"
    "  profkit tree --db prof.sqlite --where 'host~^web' --where version!=1.4\n"
    "  profkit diff --db prof.sqlite --base-where version=1.4 --new-where version=1.5\n"
    "  profkit flame --db prof.sqlite --where version=1.5 -o v15.html\n"
    "  profkit store rm prof.sqlite --until 2026-10-01\n"
    "  profkit store add clickhouse://127.0.0.1:8123/prof cpu.prof\n";

static int add(cli_input *in, const char *const *labels, size_t n_labels, char **files, int n)
{
    profkit_store *s;
    profkit_error err;
    if (profkit_store_open(&s, in->db, &err) != 0)
        return cli_error(&err);
    int rc = CLI_OK;
    in->skip_markers = 1; /* the store keeps no markers; lines and in-use values it keeps */
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        profkit_profile *p;
        const char *db = in->db;
        in->db = NULL;
        rc = cli_load(&p, files + i, 1, in);
        in->db = db;
        if (rc != CLI_OK)
            break;
        profkit_store_add_options ao;
        memset(&ao, 0, sizeof(ao));
        ao.labels = labels;
        ao.n_labels = n_labels;
        ao.source = files[i];
        ao.time = PROFKIT_NO_TIME;
        struct stat st;
        if (strcmp(files[i], "-") != 0 && stat(files[i], &st) == 0)
            ao.time = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
        uint64_t id;
        int r = profkit_store_add(s, p, &ao, &id, &err);
        profkit_profile_free(p);
        if (r < 0)
            rc = cli_fail("store", &err);
        else if (r == 1 && !in->quiet)
            fprintf(stderr, "profkit store: %s: already in the store (profile %016llx), not added again\n",
                    files[i], (unsigned long long)id);
    }
    profkit_store_close(s);
    return rc;
}

static int ls_rm(const cli_input *in, int rm)
{
    if (rm && !in->n_where && !in->has_since && !in->has_until)
        return cli_usage("store", "rm needs --where, --since or --until (--where 'file~.' matches all)");
    profkit_store *s;
    profkit_error err;
    if (profkit_store_open(&s, in->db, &err) != 0)
        return cli_error(&err);
    profkit_store_query q;
    q.where = in->where;
    q.n_where = in->n_where;
    q.since = in->has_since ? in->since : PROFKIT_NO_TIME;
    q.until = in->has_until ? in->until : PROFKIT_NO_TIME;
    size_t n = 0;
    int r = rm ? profkit_store_remove(s, &q, &n, &err) : profkit_store_list(stdout, s, &q, &err);
    profkit_store_close(s);
    if (r != 0)
        return cli_fail("store", &err);
    if (rm)
        printf("removed %zu profile%s\n", n, n == 1 ? "" : "s");
    return CLI_OK;
}

int cmd_store(int argc, char **argv)
{
    static const struct option opts[] = {
        { "label", required_argument, NULL, CLI_OPT_LABEL },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    cli_input in;
    memset(&in, 0, sizeof(in));
    const char *labels[CLI_MAX_WHERE];
    size_t n_labels = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return CLI_OK;
        }
        if (c == CLI_OPT_LABEL) {
            if (n_labels == CLI_MAX_WHERE)
                return cli_usage("store", "at most %d --label options", CLI_MAX_WHERE);
            labels[n_labels++] = optarg;
            continue;
        }
        if (c == CLI_OPT_DB)
            return cli_usage("store", "the store is the argument after the verb: profkit store add DB FILE...");
        int r = cli_input_option(&in, c, optarg);
        if (r < 0)
            return CLI_USAGE;
        if (r == 0)
            return cli_usage("store", "unknown option");
    }
    if (argc - optind < 2)
        return cli_usage("store", "expected add, ls or rm, then the store DB");
    const char *verb = argv[optind];
    in.db = argv[optind + 1];
    char **rest = argv + optind + 2;
    int n_rest = argc - optind - 2;
    if (strcmp(verb, "add") == 0) {
        if (n_rest < 1)
            return cli_usage("store", "add: no input file");
        if (in.n_where || in.has_since || in.has_until)
            return cli_usage("store", "add takes --label, not --where, --since or --until");
        return add(&in, labels, n_labels, rest, n_rest);
    }
    if (strcmp(verb, "ls") != 0 && strcmp(verb, "rm") != 0)
        return cli_usage("store", "unknown verb '%s': expected add, ls or rm", verb);
    if (n_rest > 0)
        return cli_usage("store", "%s takes no FILE, only the store and --where, --since, --until", verb);
    if (n_labels)
        return cli_usage("store", "--label is for add");
    return ls_rm(&in, strcmp(verb, "rm") == 0);
}
