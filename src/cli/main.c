/* main.c: the profkit command: dispatches to one cmd_<verb>.c per subcommand. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

struct command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
#define PROFKIT_COMMAND(name, summary) { #name, summary, cmd_##name },
#include "cli/commands.def"
#undef PROFKIT_COMMAND
};

static void print_formats(FILE *out)
{
    fprintf(out, "Formats (read = r, write = w; input is detected from its content):\n");
    for (size_t i = 0; i < profkit_format_count(); i++) {
        const profkit_format_info *f = profkit_format_get(i);
        fprintf(out, "  %-11s %c%c  %s\n", f->name, f->can_read ? 'r' : '-', f->can_write ? 'w' : '-',
                f->description);
    }
}

/* The version, and which optional parts the library has (docs/api.md). */
static void print_version(FILE *out)
{
    fprintf(out, "profkit %s\n", PROFKIT_VERSION_STRING);
    fprintf(out, "libprofkit %s, optional parts:\n", profkit_version());
    for (size_t i = 0; i < profkit_part_count(); i++) {
        const profkit_part_info *pt = profkit_part_get(i);
        fprintf(out, "  %-11s %-4s %s\n", pt->name, pt->built ? "yes" : "no", pt->description);
    }
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: profkit COMMAND [OPTIONS] FILE...\n"
            "\n"
            "Read profiles of many formats, analyse them, and write them out for the\n"
            "viewer you like. Input formats are detected from the content (gzip and\n"
            "zstd too); several FILEs are merged into one profile; '-' is stdin.\n"
            "\n"
            "Commands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "Options:\n"
            "  --formats   list the formats profkit reads and writes\n"
            "  --version   print the version and the optional parts this build has\n"
            "  -h, --help  show this help; 'profkit COMMAND --help' for a command\n"
            "\n"
            "Examples:\n"
            "  profkit info cpu.prof\n"
            "  profkit top -n 20 cpu.prof\n"
            "  profkit convert cpu.prof --to folded | flamegraph.pl > cpu.svg\n"
            "\n"
            "Exit status: 0 success, 1 bad input or failed write, 2 bad usage.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        print_version(stdout);
        return CLI_OK;
    }
    if (strcmp(cmd, "--formats") == 0 || strcmp(cmd, "formats") == 0) {
        print_formats(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    return cli_usage(NULL, "unknown command '%s'", cmd);
}
