/* cmd_traces.c: `profkit traces FILE...`. */
#include "cli/cli.h"

#include <string.h>

static const char help[] =
    "Usage: profkit traces [OPTIONS] FILE...\n"
    "\n"
    "Show each distinct stack with its value, largest first, frames leaf first\n"
    "(like pprof -traces, with stacks that print alike merged).\n"
    "\n"
    "Options:\n"
    "  -n, --limit N        show the N largest stacks (default 0 = all)\n"
    "  --value NAME         value type, e.g. cpu, samples, wall\n"
    "                       (default: the profile's default; see profkit info)\n"
    "  --thread NAME        only this thread (name, index or tid:TID; profkit info)\n"
    "  --by KEY             label frames by function (default), file, line, address or\n"
    "                       module\n"
    CLI_JSON_HELP CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit traces cpu.prof\n"
    "  profkit traces -n 10 --by line --json cpu.prof\n";

int cmd_traces(int argc, char **argv)
{
    static const struct option opts[] = {
        { "limit", required_argument, NULL, 'n' },
        { "value", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        { "by", required_argument, NULL, 'B' },
        { "json", no_argument, NULL, 'J' },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    profkit_report_options ro;
    memset(&ro, 0, sizeof(ro));
    return cli_report_main("traces", help, opts, argc, argv, &ro, profkit_report_traces);
}
