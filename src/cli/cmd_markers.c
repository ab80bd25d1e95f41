/* cmd_markers.c: `profkit markers FILE...`. */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "Usage: profkit markers [OPTIONS] FILE...\n"
    "\n"
    "The markers of a Gecko or Firefox profile as the Firefox Profiler shows\n"
    "them: per thread, grouped by name with their count and the durations of\n"
    "the intervals (min, max, mean, median, p95), or with --list each marker in\n"
    "time order. An interval start and its end are one interval; an instant\n"
    "has no duration. Times are in ms from the Firefox Profiler's zero (the\n"
    "start of the profile's range), so a marker before it is negative; as\n"
    "there, markers wholly outside the range are not shown.\n"
    "\n"
    "Options:\n"
    "  --list               each marker in time order: start, duration,\n"
    "                       category, name and payload type\n"
    "  --search TEXT        only markers whose name, category, payload type or a\n"
    "                       payload field value holds TEXT (any case); terms\n"
    "                       separated by commas are alternatives; FIELD:TEXT\n"
    "                       looks in that payload field only; -FIELD:TEXT\n"
    "                       leaves out the markers it matches\n"
    "  --category NAME      only markers whose category holds NAME (any case)\n"
    "  --min-duration MS    only intervals at least MS milliseconds long\n"
    "  --thread NAME        only this thread (name or index from profkit info)\n"
    "  --json               one JSON document (docs/json.md): each marker's\n"
    "                       thread, name, category, start, duration, type, data\n" CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit markers profile.json\n"
    "  profkit markers --list --search DOMEvent --min-duration 1 profile.json\n";

enum { OPT_LIST = 0x300, OPT_SEARCH, OPT_CATEGORY, OPT_MIN_DURATION, OPT_THREAD, OPT_JSON };

int cmd_markers(int argc, char **argv)
{
    static const struct option opts[] = {
        { "list", no_argument, NULL, OPT_LIST },
        { "search", required_argument, NULL, OPT_SEARCH },
        { "category", required_argument, NULL, OPT_CATEGORY },
        { "min-duration", required_argument, NULL, OPT_MIN_DURATION },
        { "thread", required_argument, NULL, OPT_THREAD },
        { "json", no_argument, NULL, OPT_JSON },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    profkit_markers_options mo;
    memset(&mo, 0, sizeof mo);
    mo.min_duration_ms = -1;
    cli_input in;
    memset(&in, 0, sizeof in);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case OPT_LIST: mo.list = 1; continue;
        case OPT_SEARCH: mo.search = optarg; continue;
        case OPT_CATEGORY: mo.category = optarg; continue;
        case OPT_THREAD: mo.thread = optarg; continue;
        case OPT_JSON: mo.json = 1; continue;
        case OPT_MIN_DURATION: {
            char *end;
            double v = strtod(optarg, &end);
            if (end == optarg || *end || !(v >= 0) || !isfinite(v))
                return cli_usage("markers", "--min-duration: expected milliseconds (a number >= 0), got '%s'",
                                 optarg);
            mo.min_duration_ms = v;
            continue;
        }
        default: break;
        }
        int r = cli_input_option(&in, c, optarg);
        if (r < 0)
            return CLI_USAGE;
        if (r == 0)
            return cli_usage("markers", "unknown option");
    }
    if (in.db)
        return cli_usage("markers", "the store keeps no markers: give FILEs, not --db");
    if (!cli_has_input("markers", &in, argc - optind))
        return CLI_USAGE;
    in.skip_inuse = 1;
    in.skip_lines = 1;
    profkit_profile *p;
    int rc = cli_load(&p, argv + optind, argc - optind, &in);
    if (rc)
        return rc;
    profkit_error err;
    if (profkit_report_markers(stdout, p, &mo, &err) != 0)
        rc = cli_fail("markers", &err);
    profkit_profile_free(p);
    return rc;
}
