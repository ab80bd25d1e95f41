/* cmd_info.c: `profkit info FILE...`. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>

static const char help[] =
    "Usage: profkit info [OPTIONS] FILE...\n"
    "\n"
    "Summarize a profile: the detected format and version, the threads, the\n"
    "value types with their totals, sample and stack counts, and metadata.\n"
    "Several FILEs are merged first.\n"
    "\n"
    "Options:\n" "  --json          one JSON document (docs/json.md)\n" CLI_INPUT_HELP
    "\n"
    "Example:\n"
    "  profkit info cpu.prof\n";

/*
 * The report says how symbolization found each file it used by the
 * option's API name ("found by profkit_symbolize_options.binaries"); the
 * command prints its flag, as in its messages.
 */
static int report_info(const profkit_profile *p, profkit_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        fprintf(stderr, "profkit: error: out of memory\n");
        return CLI_BAD_INPUT;
    }
    int rc = profkit_report_info(mem, p, err);
    if (fclose(mem) != 0 && rc == 0) {
        free(text);
        fprintf(stderr, "profkit: error: out of memory\n");
        return CLI_BAD_INPUT;
    }
    /* two places name an option: how a file was found, and how to name
     * the file of a mapping that has no file name */
    char *text2 = NULL;
    size_t len2 = 0;
    FILE *mem2 = text ? open_memstream(&text2, &len2) : NULL;
    if (mem2) {
        cli_put_flag_names(mem2, text, len, "found by ");
        if (fclose(mem2) == 0 && text2)
            cli_put_flag_names(stdout, text2, len2, "without a file name (");
        else
            cli_put_flag_names(stdout, text, len, "found by ");
    } else if (text) {
        cli_put_flag_names(stdout, text, len, "found by ");
    }
    free(text2);
    free(text);
    return rc ? cli_error(err) : CLI_OK;
}

int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = { { "json", no_argument, NULL, 'J' }, CLI_INPUT_OPTIONS,
                                          { NULL, 0, NULL, 0 } };
    int json = 0;
    cli_input in = { 0 };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return CLI_OK;
        }
        if (c == 'J') {
            json = 1;
            continue;
        }
        int r = cli_input_option(&in, c, optarg);
        if (r < 0)
            return CLI_USAGE;
        if (r == 0)
            return cli_usage("info", "unknown option");
    }
    if (!cli_has_input("info", &in, argc - optind))
        return CLI_USAGE;
    profkit_profile *p;
    int rc = cli_load(&p, argv + optind, argc - optind, &in);
    if (rc)
        return rc;
    profkit_error err;
    if (!json)
        rc = report_info(p, &err);
    else if (profkit_report_info_json(stdout, p, &err) != 0)
        rc = cli_error(&err);
    profkit_profile_free(p);
    return rc;
}
