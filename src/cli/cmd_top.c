/* cmd_top.c: `profkit top FILE...`. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "Usage: profkit top [OPTIONS] FILE...\n"
    "\n"
    "Show where the value goes: for each function (or file, line, address) its\n"
    "flat value (as the leaf of a stack) and cumulative value (anywhere in the\n"
    "stack; recursion counted once), with percentages of the total, sorted.\n"
    "\n"
    "Options:\n"
    "  -n, --limit N        show the top N rows (default 20; 0 = all)\n"
    "  --value NAME         value type to rank by, e.g. cpu, samples, wall\n"
    "                       (default: the profile's default; see profkit info)\n"
    "  --thread NAME        only this thread (name or index from profkit info)\n"
    "  --by KEY             function (default), file, line or address\n"
    "  --cum                sort by cumulative instead of flat value\n" CLI_INPUT_HELP
    "\n"
    "When the value is cpu or wall time and the profile counts calls (bsprof),\n"
    "two more columns follow cum%: calls (where the row is the leaf) and\n"
    "cum/call, the cumulative time per call.\n"
    "\n"
    "Examples:\n"
    "  profkit top cpu.prof\n"
    "  profkit top -n 50 --cum --by file cpu.prof\n";

int cmd_top(int argc, char **argv)
{
    static const struct option opts[] = {
        { "limit", required_argument, NULL, 'n' },
        { "value", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        { "by", required_argument, NULL, 'B' },
        { "cum", no_argument, NULL, 'C' },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    profkit_report_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.limit = 20;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case 'n':
            if (cli_parse_size(optarg, &ro.limit) != 0)
                return cli_usage("top", "-n takes a whole number, not '%s'", optarg);
            break;
        case 'V': ro.value = optarg; break;
        case 'T': ro.thread = optarg; break;
        case 'B':
            if (cli_parse_by(optarg, &ro.by) != 0)
                return cli_usage("top", "--by takes function, file, line or address, not '%s'", optarg);
            break;
        case 'C': ro.sort_cum = 1; break;
        default:
            if (cli_input_option(&in, c, optarg) <= 0)
                return cli_usage("top", "unknown option");
        }
    }
    if (optind >= argc)
        return cli_usage("top", "no input file");
    profkit_profile *p;
    int rc = cli_load(&p, argv + optind, argc - optind, &in);
    if (rc)
        return rc;
    profkit_error err;
    if (profkit_report_top(stdout, p, &ro, &err) != 0)
        rc = err.code == PROFKIT_EINVAL ? cli_usage("top", "%s", err.message) : cli_error(&err);
    profkit_profile_free(p);
    return rc;
}
