/* cmd_hist.c: `profkit hist FILE...`. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "Usage: profkit hist [OPTIONS] FILE...\n"
    "\n"
    "A histogram with a column group per value type, like dcpiprof's event\n"
    "columns: for each function (or file, line, address) and each value type\n"
    "its flat value, percent of that column's total and cumulative percent down\n"
    "the listing. Several DCPI files of one image (one per event) merge into one\n"
    "profile with a column per event.\n"
    "\n"
    "Options:\n"
    "  -n, --limit N        show the top N rows (default 20; 0 = all)\n"
    "  --value NAME         the column to sort by (default: the profile's default)\n"
    "  --thread NAME        only this thread (name or index from profkit info)\n"
    "  --by KEY             function (default), file, line or address\n"
    "  --cum                sort by cumulative instead of flat value\n" CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit hist cycles.dcpi imiss.dcpi\n"
    "  profkit hist --by address --value imiss -n 50 cycles.dcpi imiss.dcpi\n";

int cmd_hist(int argc, char **argv)
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
                return cli_usage("hist", "-n takes a whole number, not '%s'", optarg);
            break;
        case 'V': ro.value = optarg; break;
        case 'T': ro.thread = optarg; break;
        case 'B':
            if (cli_parse_by(optarg, &ro.by) != 0)
                return cli_usage("hist", "--by takes function, file, line or address, not '%s'",
                                 optarg);
            break;
        case 'C': ro.sort_cum = 1; break;
        default:
            if (!cli_input_option(&in, c, optarg))
                return cli_usage("hist", "unknown option");
        }
    }
    if (optind >= argc)
        return cli_usage("hist", "no input file");
    profkit_profile *p;
    int rc = cli_load(&p, argv + optind, argc - optind, &in);
    if (rc)
        return rc;
    profkit_error err;
    if (profkit_report_hist(stdout, p, &ro, &err) != 0)
        rc = err.code == PROFKIT_EINVAL ? cli_usage("hist", "%s", err.message) : cli_error(&err);
    profkit_profile_free(p);
    return rc;
}
