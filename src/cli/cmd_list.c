/* cmd_list.c: `profkit list REGEX FILE...`. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "Usage: profkit list [OPTIONS] REGEX FILE...\n"
    "\n"
    "For each function whose name matches REGEX (POSIX extended), as pprof\n"
    "-list: its flat and cumulative value, then its source lines, each with its\n"
    "flat value (samples whose leaf is that line) and cumulative value (samples\n"
    "with the line anywhere in the stack), \".\" for zero. The source comes from\n"
    "the function's file (the DWARF path) or from --source-dir; without it the\n"
    "lines that have values are listed alone. With --disasm, each line's\n"
    "instructions follow it; a caller's return address counts for the call.\n"
    "\n"
    "Options:\n"
    "  --source-dir DIR     look for source files under DIR (the recorded path\n"
    "                       joined to DIR, then shorter tails of it)\n"
    "  --disasm             under each line its instructions, each with its\n"
    "                       address in the binary and its flat and cumulative\n"
    "                       value (x86-64, i386, AArch64; the binary is found as\n"
    "                       for symbols)\n"
    "  -n, --limit N        at most N functions (default 0 = all)\n"
    "  --value NAME         value type, e.g. cpu, samples (default: the profile's)\n"
    "  --thread NAME        only this thread (name, index or tid:TID; profkit info)\n"
    "  --diff-base BASE     every value is FILE's minus BASE's (as pprof\n"
    "                       -diff_base): the functions, lines and instructions\n"
    "                       that changed, percentages of BASE's total\n" CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit list 'hot|warm' cpu.prof\n"
    "  profkit list --source-dir ~/src/app '^parse_' cpu.prof\n"
    "  profkit list --disasm '^hot$' cpu.prof\n"
    "  profkit list --diff-base old.prof 'hot' new.prof\n";

/* Options that take an argument in the next word (for finding REGEX). */
static int takes_arg(const char *a)
{
    static const char *const with[] = { "-n", "--limit", "--value", "--thread", "--format", "--binary",
                                        "--symbols", "--demangle", "--focus", "--ignore", "--hide",
                                        "--show", "--show-from", "--prune-from", "--source-dir", "--max-string-size",
                                        "--max-depth", "--max-threads", "--max-inflate", "--diff-base",
                                        "--merge", "--merge-node", "--root-at", "--focus-subtree",
                                        "--focus-category", "--collapse-recursion",
                                        "--collapse-direct-recursion", "--collapse-module", "--tagfocus",
                                        "--tagignore", "--tagshow", "--taghide", "--tagroot", "--tagleaf",
                                        "--range", "--during-marker", "--outside-marker", NULL };
    if (strchr(a, '='))
        return 0;
    for (int i = 0; with[i]; i++)
        if (strcmp(a, with[i]) == 0)
            return 1;
    return 0;
}

int cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {
        { "limit", required_argument, NULL, 'n' },
        { "value", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        { "diff-base", required_argument, NULL, CLI_OPT_DIFF_BASE },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    profkit_report_options ro;
    memset(&ro, 0, sizeof(ro));
    ro.by = PROFKIT_BY_LINE; /* the readers keep lines */
    /* Takes REGEX (the first word that is not an option) and --source-dir
     * out of argv; the rest is a report command's. */
    char **av = calloc((size_t)argc + 1, sizeof(char *));
    if (!av)
        return CLI_BAD_INPUT;
    int ac = 0, help_only = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i > 0 && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0))
            help_only = 1;
        if (i > 0 && strcmp(a, "--source-dir") == 0) {
            if (i + 1 >= argc) {
                free(av);
                return cli_usage("list", "--source-dir needs a directory");
            }
            ro.source_dir = argv[++i];
            continue;
        }
        if (i > 0 && strcmp(a, "--disasm") == 0) {
            ro.disasm = 1;
            continue;
        }
        if (i > 0 && strncmp(a, "--source-dir=", 13) == 0) {
            ro.source_dir = a + 13;
            continue;
        }
        if (i > 0 && !ro.list_regex && a[0] != '-') {
            ro.list_regex = a;
            continue;
        }
        av[ac++] = argv[i];
        if (i > 0 && a[0] == '-' && takes_arg(a) && i + 1 < argc)
            av[ac++] = argv[++i];
    }
    int rc;
    if (!ro.list_regex && !help_only)
        rc = cli_usage("list", "no REGEX");
    else if (ro.disasm && !help_only && cli_need_part("list", "disasm") != CLI_OK)
        rc = CLI_USAGE;
    else
        rc = cli_report_main("list", help, opts, ac, av, &ro, profkit_report_list);
    free(av);
    return rc;
}
