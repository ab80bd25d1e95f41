/* cmd_info.c: `profkit info FILE...`. */
#include "cli/cli.h"

#include <stdio.h>

static const char help[] =
    "Usage: profkit info [OPTIONS] FILE...\n"
    "\n"
    "Summarize a profile: the detected format and version, the threads, the\n"
    "value types with their totals, sample and stack counts, and metadata.\n"
    "Several FILEs are merged first.\n"
    "\n"
    "Options:\n" "  --json          one JSON document (docs/json.md)\n" CLI_INPUT_HELP
    "\n"
    "Example:\n"
    "  profkit info cpu.prof\n";

int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = { { "json", no_argument, NULL, 'J' }, CLI_INPUT_OPTIONS,
                                          { NULL, 0, NULL, 0 } };
    int json = 0;
    cli_input in = { 0 };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return CLI_OK;
        }
        if (c == 'J') {
            json = 1;
            continue;
        }
        int r = cli_input_option(&in, c, optarg);
        if (r < 0)
            return CLI_USAGE;
        if (r == 0)
            return cli_usage("info", "unknown option");
    }
    if (!cli_has_input("info", &in, argc - optind))
        return CLI_USAGE;
    profkit_profile *p;
    int rc = cli_load(&p, argv + optind, argc - optind, &in);
    if (rc)
        return rc;
    profkit_error err;
    if ((json ? profkit_report_info_json : profkit_report_info)(stdout, p, &err) != 0)
        rc = cli_error(&err);
    profkit_profile_free(p);
    return rc;
}
