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
    "  --thread NAME        only this thread (name, index or tid:TID; profkit info)\n"
    "  --by KEY             function (default), file, line, address or module\n"
    "  --cum                sort by cumulative instead of flat value\n"
    "  --min-percent P      hide rows whose sort value (flat, or cum with --cum)\n"
    "                       is below P percent of the total\n"
    "  --values LIST        value types side by side, e.g. cpu,wall,calls: each\n"
    "                       one's flat and cum (rows sorted by the first)\n" CLI_JSON_HELP CLI_INPUT_HELP
    "\n"
    "When the value is cpu or wall time and the profile counts calls (bsprof),\n"
    "two more columns follow cum%: calls (where the row is the leaf) and\n"
    "cum/call, the cumulative time per call (--by line: the calls of the line's\n"
    "function, and the line's cumulative time per call of it).\n"
    "\n"
    "Examples:\n"
    "  profkit top cpu.prof\n"
    "  profkit top -n 50 --cum --by file cpu.prof\n"
    "  profkit top --range 25%,75% --thread t-2 firefox.json   (the middle half,\n"
    "      as the Firefox Profiler's zoom push 25%,75% shows it)\n"
    "  profkit top --during-marker Reflow firefox.json   (samples inside Reflow markers)\n";

int cmd_top(int argc, char **argv)
{
    static const struct option opts[] = {
        { "min-percent", required_argument, NULL, 'P' },
        { "values", required_argument, NULL, CLI_OPT_VALUES },
        CLI_RANKED_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    profkit_report_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.limit = 20;
    return cli_report_main("top", help, opts, argc, argv, &ro, profkit_report_top);
}
