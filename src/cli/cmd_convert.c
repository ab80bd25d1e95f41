/* cmd_convert.c: `profkit convert FILE... --to FORMAT [-o OUT]`. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char help[] =
    "Usage: profkit convert [OPTIONS] FILE... [--to FORMAT] [-o OUT]\n"
    "\n"
    "Write the profile (several FILEs are merged) in another format. The\n"
    "format comes from --to, else from OUT's extension (.folded, .prof, ...;\n"
    "a further .gz or .zst compresses). Without -o the result goes to stdout. OUT is\n"
    "written to a temporary file and renamed, so it is never left half-written.\n"
    "\n"
    "'profkit convert IN --to folded' is a stable scripting interface: one line\n"
    "'root;caller;...;leaf N' per distinct stack, zero lines dropped, ';' and\n"
    "newlines in names replaced by '_', siblings sorted by name.\n"
    "\n"
    "Options:\n"
    "  -t, --to FORMAT   output format (profkit --formats lists them)\n"
    "  -o, --output OUT  output file (default: stdout)\n"
    "  --value NAME      value type for single-value formats such as folded\n"
    "  --thread NAME     only this thread (name, index or tid:TID; profkit info)\n"
    "  --by-line         folded: label frames NAME:LINE where lines are known\n" CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit convert cpu.prof --to folded > cpu.folded\n"
    "  profkit convert cpu.prof -o cpu.folded --value samples\n"
    "  profkit convert run.json.gz -o run.pb.gz\n"
    "  profkit convert big.bsprof -o big.folded.zst\n";

int cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {
        { "to", required_argument, NULL, 't' },
        { "output", required_argument, NULL, 'o' },
        { "value", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        { "by-line", no_argument, NULL, 'L' },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    profkit_write_options wo;
    memset(&wo, 0, sizeof(wo));
    const char *out = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "t:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case 't': wo.format = optarg; break;
        case 'o': out = optarg; break;
        case 'V': wo.value = optarg; break;
        case 'T': wo.thread = optarg; break;
        case 'L': wo.by_line = in.filter.by_line = 1; break;
        default:
            {
            int r = cli_input_option(&in, c, optarg);
            if (r < 0)
                return CLI_USAGE;
            if (r == 0)
                return cli_usage("convert", "unknown option");
        }
        }
    }
    if (!cli_has_input("convert", &in, argc - optind))
        return CLI_USAGE;
    if (!wo.format && !out)
        return cli_usage("convert", "name the output format with --to FORMAT (or give -o OUT)");
    if (wo.format) {
        const profkit_format_info *f = profkit_format_find(wo.format);
        if (!f || !f->can_write)
            return cli_usage("convert", "cannot write format '%s' (profkit --formats lists them)",
                             wo.format);
    } else if (!profkit_format_for_path(out)) {
        return cli_usage("convert", "cannot tell the format from '%s'; add --to FORMAT", out);
    }
    profkit_profile *p;
    int rc = cli_load(&p, argv + optind, argc - optind, &in);
    if (rc)
        return rc;
    profkit_error err;
    cli_write_warnings(&wo, &in);
    if (profkit_profile_write_file(p, out, &wo, &err) != 0)
        rc = cli_fail("convert", &err);
    profkit_profile_free(p);
    return rc;
}
