/* cmd_trend.c: `profkit trend --db DB --by LABEL|day [--function RE] [--thread NAME]`. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "Usage: profkit trend --db DB --by LABEL|day [--function RE] [OPTIONS]\n"
    "\n"
    "The value of a function over a store's profiles (profkit store --help),\n"
    "per value of a label (--by version: one row per version, in natural\n"
    "order, 1.9 before 1.10) or per day (--by day: the profiles' times, UTC).\n"
    "Each group's profiles are merged as --db merges a selection. The value\n"
    "is that of the stacks with a frame whose function matches RE, each stack\n"
    "once (top's cum of one function; several functions are not counted\n"
    "twice where they share a stack); without --function, the total. Each row\n"
    "shows the group, its number of profiles, the value, the group's total\n"
    "and the value as a percentage of it.\n"
    "\n"
    "Options:\n"
    "  --db DB              the store (required)\n"
    "  --by LABEL|day       group by this label's values, or by day\n"
    "  --function RE        functions matching RE (POSIX extended, as top\n"
    "                       prints their names); default: the total\n"
    "  --value NAME         the value type (default: the selection's default)\n"
    "  --thread NAME        only this thread's samples (name, index or tid:TID\n"
    "                       of the selection merged, as profkit info --db\n"
    "                       lists them); a group without it counts 0\n"
    "  --where K=V, --since T, --until T, --ids ID,...\n"
    "                       only these profiles (as every --db command)\n"
    "  --json               one JSON document (docs/json.md, \"trend\")\n"
    "  -h, --help           this help\n"
    "\n"
    "Examples:\n"
    "  profkit trend --db prof.sqlite --by version --function '^main\\.parse$'\n"
    "  profkit trend --db prof.sqlite --by day --since 2026-11-01 --json\n"
    "  profkit trend --db prof.sqlite --by version --thread main\n";

int cmd_trend(int argc, char **argv)
{
    static const struct option opts[] = {
        { "by", required_argument, NULL, 'B' },
        { "function", required_argument, NULL, 'U' },
        { "value", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        { "json", no_argument, NULL, 'J' },
        { "help", no_argument, NULL, 'h' },
        { "db", required_argument, NULL, CLI_OPT_DB },
        { "where", required_argument, NULL, CLI_OPT_WHERE },
        { "since", required_argument, NULL, CLI_OPT_SINCE },
        { "until", required_argument, NULL, CLI_OPT_UNTIL },
        { "ids", required_argument, NULL, CLI_OPT_IDS },
        { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    profkit_store_trend_options o;
    memset(&o, 0, sizeof(o));
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case 'B': o.by = optarg; break;
        case 'U': o.function = optarg; break;
        case 'V': o.value = optarg; break;
        case 'T': o.thread = optarg; break;
        case 'J': o.json = 1; break;
        default:
            switch (cli_input_option(&in, c, optarg)) {
            case -1: return CLI_USAGE;
            case 0: return cli_usage("trend", "unknown option");
            }
        }
    }
    if (argc > optind)
        return cli_usage("trend", "takes no FILE: the profiles of a store, --db DB");
    if (!in.db)
        return cli_usage("trend", "needs --db DB (a store: profkit store --help)");
    if (!o.by)
        return cli_usage("trend", "needs --by LABEL or --by day");
    profkit_store *s;
    profkit_error err;
    if (cli_store_open(&s, in.db, &err) != 0)
        return cli_error(&err);
    profkit_store_query q;
    memset(&q, 0, sizeof(q));
    q.where = in.where;
    q.n_where = in.n_where;
    q.since = in.has_since ? in.since : PROFKIT_NO_TIME;
    q.until = in.has_until ? in.until : PROFKIT_NO_TIME;
    cli_query_ids(&q, &in, NULL);
    int rc = profkit_store_trend(stdout, s, &q, &o, &err);
    profkit_store_close(s);
    if (rc != 0)
        return cli_error(&err);
    return CLI_OK;
}
