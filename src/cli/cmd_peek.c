/* cmd_peek.c: `profkit peek RE FILE...`. */
#include "cli/cli.h"

#include <string.h>

static const char help[] =
    "Usage: profkit peek [OPTIONS] RE FILE...\n"
    "\n"
    "For each function (or file, line, address) whose name matches the POSIX\n"
    "extended regular expression RE (anywhere in the name), show its flat and\n"
    "cumulative value, its callers (above it) and its callees (below it) with the\n"
    "value that went through each call, and that value's share of its cum\n"
    "(like pprof -peek).\n"
    "\n"
    "Options:\n"
    "  -n, --limit N        show the first N matches (default 0 = all)\n"
    "  --value NAME         value type, e.g. cpu, samples, wall\n"
    "                       (default: the profile's default; see profkit info)\n"
    "  --thread NAME        only this thread (name, index or tid:TID; profkit info)\n"
    "  --by KEY             function (default), file, line, address or module\n"
    "  --cum                sort matches by cumulative instead of flat value\n"
    CLI_JSON_HELP CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit peek 'malloc|free' cpu.prof\n"
    "  profkit peek --json '^main$' cpu.prof\n";

int cmd_peek(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_RANKED_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    profkit_report_options ro;
    memset(&ro, 0, sizeof(ro));
    return cli_report_main("peek", help, opts, argc, argv, &ro, profkit_report_peek);
}
