/* cmd_counters.c: `profkit counters FILE...`. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "Usage: profkit counters [OPTIONS] FILE...\n"
    "\n"
    "The counters of a profile: a Gecko or Firefox profile's memory and power\n"
    "counters, each a series of samples of an amount counted since the sample\n"
    "before (bytes allocated minus bytes freed, picowatt-hours, ...). Per\n"
    "counter: its name, category and description, the thread and process it\n"
    "belongs to, and of its samples (in the range, with --range): how many,\n"
    "the counts' min, max, mean and sum, and the running sum of the counts\n"
    "(\"total\": the bytes in use relative to the first sample, what the\n"
    "Firefox Profiler's memory track draws) at its lowest and highest, and\n"
    "the difference (the track's \"memory range in graph\").\n"
    "\n"
    "Options:\n"
    "  --range A,B     only the samples from A to B: seconds (2.7,3.1),\n"
    "                  milliseconds (2700ms,3100ms) or percentages (10%,20%),\n"
    "                  from the start of the profile's range as profiler-cli\n"
    "                  (a counter by operation order, bsprof's: 1000ms is its\n"
    "                  operation 1,000, a percentage of its operations)\n"
    "  --thread NAME   only the counters of this thread (name or index from\n"
    "                  profkit info)\n"
    "  --json          one JSON document (docs/json.md) with each counter's\n"
    "                  series: [time ms, count, number, total] per sample\n"
    "  -q              no progress or warnings\n"
    "  --format NAME   the input's format when detection is wrong\n"
    "\n"
    "Examples:\n"
    "  profkit counters profile.json\n"
    "  profkit counters --range 10%,20% --json profile.json.gz\n";

enum { OPT_RANGE = 0x300, OPT_THREAD, OPT_JSON };

int cmd_counters(int argc, char **argv)
{
    /* --range is this command's own (before the input options, which would
     * filter the samples and so move the range's zero) */
    static const struct option opts[] = {
        { "range", required_argument, NULL, OPT_RANGE },
        { "thread", required_argument, NULL, OPT_THREAD },
        { "json", no_argument, NULL, OPT_JSON },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    profkit_counters_options co;
    memset(&co, 0, sizeof co);
    cli_input in;
    memset(&in, 0, sizeof in);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case OPT_RANGE: {
            profkit_range r;
            profkit_error err;
            if (profkit_range_parse(&r, optarg, &err) != 0) {
                cli_flag_names(err.message, sizeof(err.message));
                return cli_usage("counters", "%s", err.message);
            }
            co.range = optarg;
            continue;
        }
        case OPT_THREAD: co.thread = optarg; continue;
        case OPT_JSON: co.json = 1; continue;
        default: break;
        }
        int r = cli_input_option(&in, c, optarg);
        if (r < 0)
            return CLI_USAGE;
        if (r == 0)
            return cli_usage("counters", "unknown option");
    }
    if (in.db)
        return cli_usage("counters", "the store keeps no counters: give FILEs, not --db");
    if (!cli_has_input("counters", &in, argc - optind))
        return CLI_USAGE;
    /* no skip_inuse: a bsprof's memory counters need its frees matched */
    in.skip_lines = 1;
    in.keep_mem_ops = 1; /* --json's sites of a range of operations */
    profkit_profile *p;
    int rc = cli_load(&p, argv + optind, argc - optind, &in);
    if (rc)
        return rc;
    profkit_error err;
    if (profkit_report_counters(stdout, p, &co, &err) != 0)
        rc = cli_fail("counters", &err);
    profkit_profile_free(p);
    return rc;
}
