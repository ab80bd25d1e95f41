/* cmd_tags.c: `profkit tags FILE...`. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "Usage: profkit tags [OPTIONS] FILE...\n"
    "\n"
    "The sample labels (pprof's tags) as `pprof -tags` prints them: per label\n"
    "key its total, and per value (a string, or a number in the key's unit such\n"
    "as 64B or 1.50kB) the sum of the samples that have it and its share of the\n"
    "key's total, largest first. A sample with two values of a key counts for\n"
    "both; samples without the key do not count. The label options (--tagfocus\n"
    "...) and the filters apply first.\n"
    "\n"
    "Options:\n"
    "  --value NAME         the value type to sum (default: the profile's default)\n"
    "  --thread NAME        only this thread (name or index from profkit info)\n"
    CLI_JSON_HELP CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit tags cpu.pb.gz\n"
    "  profkit tags --tagfocus function=slow --value samples cpu.pb.gz\n"
    "  profkit tags --tagfocus bytes=1kb: heap.pb.gz\n";

int cmd_tags(int argc, char **argv)
{
    static const struct option opts[] = {
        { "value", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        { "json", no_argument, NULL, 'J' },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    profkit_report_options ro;
    memset(&ro, 0, sizeof(ro));
    return cli_report_main("tags", help, opts, argc, argv, &ro, profkit_report_tags);
}
