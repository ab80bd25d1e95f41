/* cmd_diff.c: `profkit diff BASE NEW`. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "Usage: profkit diff [OPTIONS] BASE NEW\n"
    "\n"
    "Show what changed from BASE to NEW (two runs of the same program, before\n"
    "and after a change): for each function (or file, line, address) the change\n"
    "of its flat and cumulative value, NEW minus BASE, with the change as a\n"
    "percentage of BASE's total and both values beside it, biggest change first\n"
    "(growth and shrinkage alike). Functions are matched by name, so the files\n"
    "may be in different formats; one found in only one of them counts 0 in the\n"
    "other. The same as `pprof -diff_base=BASE NEW -top`, with the values shown.\n"
    "Frames are named from the binaries first (docs/symbols.md); what stays\n"
    "unnamed is FILE+0xOFFSET, the same in every run under ASLR.\n"
    "\n"
    "Options:\n"
    "  -n, --limit N        show the top N rows (default 20; 0 = all)\n"
    "  --value NAME         value type to compare, e.g. cpu, samples, wall\n"
    "                       (default: NEW's default); BASE must have it too,\n"
    "                       in the same unit\n"
    "  --thread NAME        only this thread, in both (name, index or tid:TID)\n"
    "  --by KEY             function (default), file, line, address or module\n"
    "  --cum                sort by the change of the cumulative value\n"
    "  --min-percent P      hide rows whose change (flat, or cum with --cum) is\n"
    "                       below P percent of BASE's total (the gate sees them)\n"
    "  --fail-on-increase PCT\n"
    "                       a gate for CI: exit 3 when the total, or a function's\n"
    "                       flat or cumulative value, grew by more than PCT percent\n"
    "                       of BASE's total; the lines that failed are printed\n"
    "  --normalize          scale BASE to NEW's total first (profiles of different\n"
    "                       lengths), like pprof -normalize\n"
    "  --base-where K=V, --new-where K=V\n"
    "                       with --db: BASE is the profiles of the store with these\n"
    "                       labels, NEW those with these (repeatable; K!=V, K~RE;\n"
    "                       --where, --since and --until apply to both)\n"
    "  --base-ids ID,..., --new-ids ID,...\n"
    "                       with --db: BASE (NEW) is (also) only these profiles\n" CLI_JSON_HELP CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit diff before.prof after.prof\n"
    "  profkit diff --normalize --fail-on-increase 5 base.prof new.prof || exit\n"
    "  profkit diff -n 50 --cum --value samples base.json.gz new.json.gz\n"
    "  profkit diff --db prof.sqlite --base-where version=1.4 --new-where version=1.5\n";

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        { "fail-on-increase", required_argument, NULL, 'G' },
        { "normalize", no_argument, NULL, 'Z' },
        { "min-percent", required_argument, NULL, 'P' },
        { "base-where", required_argument, NULL, CLI_OPT_BASE_WHERE },
        { "new-where", required_argument, NULL, CLI_OPT_NEW_WHERE },
        { "base-ids", required_argument, NULL, CLI_OPT_BASE_IDS },
        { "new-ids", required_argument, NULL, CLI_OPT_NEW_IDS },
        CLI_RANKED_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    profkit_report_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.limit = 20;
    return cli_report2_main("diff", help, opts, argc, argv, &ro, profkit_report_diff);
}
