/* cmd_hist.c: `profkit hist FILE...`. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "Usage: profkit hist [OPTIONS] FILE...\n"
    "\n"
    "A histogram with a column group per value type, like dcpiprof's event\n"
    "columns: for each function (or file, line, address) and each value type\n"
    "its flat value, percent of that column's total and cumulative percent down\n"
    "the listing. Several DCPI files of one image (one per event) merge into one\n"
    "profile with a column per event.\n"
    "\n"
    "Options:\n"
    "  -n, --limit N        show the top N rows (default 20; 0 = all)\n"
    "  --value NAME         the column to sort by (default: the profile's default)\n"
    "  --thread NAME        only this thread (name, index or tid:TID; profkit info)\n"
    "  --by KEY             function (default), file, line, address or module\n"
    "  --cum                sort by cumulative instead of flat value\n"
    "  --min-percent P      hide rows whose sort value (flat, or cum with --cum)\n"
    "                       is below P percent of its column's total\n"
    "  --values LIST        the columns, e.g. cpu,wall,calls (sorted by the first);\n"
    "                       default: the value types with a value, as many as fit\n"
    "                       in 100 columns with the names (the others are named)\n" CLI_JSON_HELP CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit hist cycles.dcpi imiss.dcpi\n"
    "  profkit hist --by address --value imiss -n 50 cycles.dcpi imiss.dcpi\n";

int cmd_hist(int argc, char **argv)
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
    return cli_report_main("hist", help, opts, argc, argv, &ro, profkit_report_hist);
}
