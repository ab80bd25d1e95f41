/* cmd_tree.c: `profkit tree FILE...`. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "Usage: profkit tree [OPTIONS] FILE...\n"
    "\n"
    "Print the call tree of each thread, callers above their callees, indented\n"
    "two spaces a level. Each line gives the node's total (itself and its\n"
    "callees), its share of the thread's total, its self value and what its\n"
    "callees took. Siblings come biggest first.\n"
    "\n"
    "Options:\n"
    "  --value NAME         value type, e.g. cpu, wall, calls, alloc_space\n"
    "                       (default: the profile's default; see profkit info)\n"
    "  --thread NAME        only this thread (name or index from profkit info)\n"
    "  --depth N            show N levels at most (0 = all, the default)\n"
    "  --min-percent P      hide nodes (and what is under them) whose total is\n"
    "                       below P percent of their thread's total\n"
    "  --by-line            label frames NAME:LINE where lines are known\n" CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit tree app.bsprof\n"
    "  profkit tree --value wall --depth 4 --min-percent 1 app.bsprof\n";

int cmd_tree(int argc, char **argv)
{
    static const struct option opts[] = {
        { "value", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        { "depth", required_argument, NULL, 'D' },
        { "min-percent", required_argument, NULL, 'P' },
        { "by-line", no_argument, NULL, 'L' },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    profkit_report_options ro;
    memset(&ro, 0, sizeof(ro));
    int c;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case 'V': ro.value = optarg; break;
        case 'T': ro.thread = optarg; break;
        case 'L': ro.by = PROFKIT_BY_LINE; break;
        case 'D':
            if (cli_parse_size(optarg, &ro.max_depth) != 0)
                return cli_usage("tree", "--depth takes a whole number, not '%s'", optarg);
            break;
        case 'P':
            ro.cutoff_pct = strtod(optarg, &end);
            if (!*optarg || *end || !(ro.cutoff_pct >= 0 && ro.cutoff_pct <= 100))
                return cli_usage("tree", "--min-percent takes a number from 0 to 100, not '%s'",
                                 optarg);
            break;
        default:
            if (!cli_input_option(&in, c, optarg))
                return cli_usage("tree", "unknown option");
        }
    }
    if (optind >= argc)
        return cli_usage("tree", "no input file");
    profkit_profile *p;
    int rc = cli_load(&p, argv + optind, argc - optind, &in);
    if (rc)
        return rc;
    profkit_error err;
    if (profkit_report_tree(stdout, p, &ro, &err) != 0)
        rc = err.code == PROFKIT_EINVAL ? cli_usage("tree", "%s", err.message) : cli_error(&err);
    profkit_profile_free(p);
    return rc;
}
