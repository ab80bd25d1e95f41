/* cmd_tree.c: `profkit tree FILE...`. */
#include "cli/cli.h"

#include <stdio.h>
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
    "  --thread NAME        only this thread (name, index or tid:TID; profkit info)\n"
    "  --depth N            show N levels at most (0 = all, the default)\n"
    "  --min-percent P      hide nodes (and what is under them) whose total is\n"
    "                       below P percent of their thread's total\n"
    "  --by-line            label frames NAME:LINE where lines are known\n"
    "  --values LIST        value types side by side, e.g. cpu,wall,calls: the\n"
    "                       tree by the first, each other's total and self beside\n" CLI_JSON_HELP CLI_INPUT_HELP
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
        { "values", required_argument, NULL, CLI_OPT_VALUES },
        { "json", no_argument, NULL, 'J' },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    profkit_report_options ro;
    memset(&ro, 0, sizeof(ro));
    return cli_report_main("tree", help, opts, argc, argv, &ro, profkit_report_tree);
}
