/* cmd_mem.c: `profkit mem FILE...`. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "Usage: profkit mem [OPTIONS] FILE...\n"
    "\n"
    "The memory report: objects and bytes allocated, freed and still live at\n"
    "the end (leaks), in total, per thread and per allocating call path\n"
    "(largest leaks first), and how many frees matched no allocation (memory\n"
    "allocated before profiling started or while it was paused). Works on\n"
    "any profile with alloc_objects/alloc_space/inuse_objects/inuse_space\n"
    "values (bsprof, pprof heap profiles). 'freed' is allocated minus live;\n"
    "'frees' counts free operations where they happened.\n"
    "\n"
    "Options:\n"
    "  -n, --limit N        show the top N call paths (default 20; 0 = all)\n"
    "  --thread NAME        only this thread (name, index or tid:TID; profkit info)\n"
    "  --by-line            label frames NAME:LINE where lines are known\n" CLI_JSON_HELP CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit mem app.bsprof\n"
    "  profkit mem -n 0 --by-line --thread MainScene app.bsprof\n";

int cmd_mem(int argc, char **argv)
{
    static const struct option opts[] = {
        { "limit", required_argument, NULL, 'n' },
        { "thread", required_argument, NULL, 'T' },
        { "by-line", no_argument, NULL, 'L' },
        { "json", no_argument, NULL, 'J' },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    profkit_report_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.limit = 20;
    return cli_report_main("mem", help, opts, argc, argv, &ro, profkit_report_mem);
}
