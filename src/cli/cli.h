/*
 * cli.h: what the subcommands share. The CLI is a client of the public API
 * (profkit.h) and nothing else.
 *
 * Exit status: 0 success, 1 bad input (or a failed write), 2 bad usage,
 * 3 the diff gate failed (--fail-on-increase).
 */
#ifndef PROFKIT_CLI_H
#define PROFKIT_CLI_H

#include <getopt.h>

#include "profkit.h"

enum { CLI_OK = 0, CLI_BAD_INPUT = 1, CLI_USAGE = 2, CLI_GATE_FAILED = 3 };

/* Codes of long options without a short form (above every character). */
enum {
    CLI_OPT_NO_SYMBOLIZE = 0x100,
    CLI_OPT_SYMBOLS,
    CLI_OPT_DEMANGLE
};

/* Options every reading subcommand takes. */
#define CLI_MAX_BINARIES 32
#define CLI_MAX_WHERE 64
#define CLI_MAX_TRANSFORMS 64
typedef struct cli_input {
    const char *format; /* --format */
    int strict;         /* --strict */
    int quiet;          /* --quiet: no warnings */
    int no_symbolize;   /* --no-symbolize: keep address-only frames as they are */
    const char *binaries[CLI_MAX_BINARIES]; /* --binary PATH (repeatable) */
    size_t n_binaries;
    const char *symbol_dirs[CLI_MAX_BINARIES]; /* --symbols DIR (repeatable) */
    size_t n_symbol_dirs;
    profkit_demangle_mode demangle; /* --demangle=full|short|none */
    int skip_markers;   /* the command never shows markers: do not keep them */
    int skip_inuse;     /* nor what is still allocated at the end */
    int skip_lines;     /* nor lines */
    int skip_counters;  /* nor counters */
    int keep_mem_ops;   /* the command narrows memory by operations (records kept) */
    profkit_filter_options filter; /* --focus, --ignore, ... (applied after merging) */
    /* --merge, --root-at, ... in command-line order (cli_transform.c); the
     * filters above are one step among them, before steps[filter_at] */
    profkit_transform steps[CLI_MAX_TRANSFORMS];
    size_t n_steps, filter_at;
    int filter_at_set;
    int relative; /* --relative: percentages of the total after the transforms */
    const char *diff_base; /* list --diff-base FILE */
    /* --max-string-size, --max-depth, --max-threads, --max-inflate (0: default) */
    uint64_t max_string_size, max_inflate;
    uint32_t max_depth, max_threads;
    /* the profile store: --db DB, --where (repeatable), --since, --until;
     * diff's --base-where and --new-where */
    const char *db;
    const char *where[CLI_MAX_WHERE];
    size_t n_where;
    const char *base_where[CLI_MAX_WHERE], *new_where[CLI_MAX_WHERE];
    size_t n_base_where, n_new_where;
    int64_t since, until; /* ns; 0: no bound (set when given) */
    const char *since_arg, *until_arg; /* as given */
    int has_since, has_until;
    /* --ids, --base-ids, --new-ids ID,ID,...: only these profiles (their ids
     * as store ls prints them; the base's, the new's of a diff); as given and
     * parsed (NULL: no such bound) */
    const char *ids_arg, *base_ids_arg, *new_ids_arg;
    const uint64_t *ids, *base_ids, *new_ids;
    size_t n_ids, n_base_ids, n_new_ids;
} cli_input;

/* Option codes of the filters (above any character). */
enum { CLI_OPT_FOCUS = 0x180, CLI_OPT_IGNORE, CLI_OPT_HIDE, CLI_OPT_SHOW, CLI_OPT_SHOW_FROM,
       CLI_OPT_PRUNE_FROM, CLI_OPT_RANGE, CLI_OPT_DURING_MARKER, CLI_OPT_OUTSIDE_MARKER };
/* Option codes of the label options. */
enum { CLI_OPT_TAGFOCUS = 0x1a0, CLI_OPT_TAGIGNORE, CLI_OPT_TAGSHOW, CLI_OPT_TAGHIDE,
       CLI_OPT_TAGROOT, CLI_OPT_TAGLEAF };

/* Option codes of the transforms (cli_transform.c). */
enum { CLI_OPT_MERGE = 0x280, CLI_OPT_MERGE_NODE, CLI_OPT_ROOT_AT, CLI_OPT_FOCUS_SUBTREE,
       CLI_OPT_FOCUS_CATEGORY, CLI_OPT_COLLAPSE_RECURSION, CLI_OPT_COLLAPSE_DIRECT_RECURSION,
       CLI_OPT_COLLAPSE_MODULE, CLI_OPT_RELATIVE };

/* getopt values of the limit options (beyond every character) */
enum { CLI_OPT_MAX_STRING = 0x1c0, CLI_OPT_MAX_DEPTH, CLI_OPT_MAX_THREADS, CLI_OPT_MAX_INFLATE };

/* Option codes of the profile store's options. */
/* top, tree, hist --values LIST; list --diff-base FILE */
enum { CLI_OPT_VALUES = 0x2c0, CLI_OPT_DIFF_BASE };

enum { CLI_OPT_DB = 0x200, CLI_OPT_WHERE, CLI_OPT_SINCE, CLI_OPT_UNTIL, CLI_OPT_BASE_WHERE,
       CLI_OPT_NEW_WHERE, CLI_OPT_LABEL };
/* --ids (CLI_INPUT_OPTIONS), diff's and flame's --base-ids and --new-ids */
enum { CLI_OPT_IDS = 0x2f0, CLI_OPT_BASE_IDS, CLI_OPT_NEW_IDS };
/* Whether in names a diff's BASE (NEW) in the store: --base-where or --base-ids. */
#define CLI_HAS_BASE(in) ((in)->n_base_where || (in)->base_ids_arg)
#define CLI_HAS_NEW(in) ((in)->n_new_where || (in)->new_ids_arg)

/* Long options of the transforms (in CLI_INPUT_OPTIONS). */
#define CLI_TRANSFORM_OPTIONS                                                  \
    { "merge", required_argument, NULL, CLI_OPT_MERGE },                      \
    { "merge-node", required_argument, NULL, CLI_OPT_MERGE_NODE },            \
    { "root-at", required_argument, NULL, CLI_OPT_ROOT_AT },                  \
    { "focus-subtree", required_argument, NULL, CLI_OPT_FOCUS_SUBTREE },      \
    { "focus-category", required_argument, NULL, CLI_OPT_FOCUS_CATEGORY },    \
    { "collapse-recursion", required_argument, NULL, CLI_OPT_COLLAPSE_RECURSION }, \
    { "collapse-direct-recursion", required_argument, NULL, CLI_OPT_COLLAPSE_DIRECT_RECURSION }, \
    { "collapse-module", required_argument, NULL, CLI_OPT_COLLAPSE_MODULE },  \
    { "relative", no_argument, NULL, CLI_OPT_RELATIVE }

/* Help text lines for the transforms (in CLI_INPUT_HELP). */
#define CLI_TRANSFORM_HELP                                                                 \
    "  Transforms, applied in the order given (the filters above act together,\n"        \
    "  as pprof applies them, at the place of the first of them; RE matches a\n"        \
    "  function name, PATH is a call path from the root as main;run;work; e.g.\n"      \
    "  --collapse-recursion '^msort' --merge '^malloc$' --root-at '^run$'):\n"         \
    "  --merge RE      remove the matching functions from every stack; their own\n"      \
    "                  time goes to their callers\n"                                     \
    "  --merge-node PATH  the same for the one call node PATH\n"                        \
    "  --root-at RE    keep the samples through a matching function, each stack\n"      \
    "                  starting at its outermost call (all call sites combined)\n"      \
    "  --focus-subtree PATH  keep the samples through call node PATH, rooted there\n"   \
    "  --focus-category NAME  only the frames of the frame category NAME (Gecko\n"  \
    "                  and Firefox profiles); samples with none of them go\n"           \
    "  --collapse-recursion RE  a matching function called from within itself,\n"     \
    "                  directly or not, becomes its outermost call (one frame)\n"       \
    "  --collapse-direct-recursion RE  only calls straight from itself\n"             \
    "  --collapse-module RE  the frames of a library (or file) matching RE become\n"   \
    "                  one frame named after it, per run of such frames\n"             \
    "  --relative      percentages of the total left by the filters and\n"            \
    "                  transforms (default: of the whole profile's, as pprof)\n"

/* Long options for cli_input, to splice into a getopt_long table. */
#define CLI_INPUT_OPTIONS                                  \
    { "format", required_argument, NULL, 'F' },           \
    { "strict", no_argument, NULL, 'S' },                 \
    { "quiet", no_argument, NULL, 'q' },                  \
    { "symbolize", no_argument, NULL, 'Y' },              \
    { "no-symbolize", no_argument, NULL, CLI_OPT_NO_SYMBOLIZE }, \
    { "binary", required_argument, NULL, 'N' },           \
    { "symbols", required_argument, NULL, CLI_OPT_SYMBOLS }, \
    { "demangle", required_argument, NULL, CLI_OPT_DEMANGLE }, \
    { "focus", required_argument, NULL, CLI_OPT_FOCUS },  \
    { "ignore", required_argument, NULL, CLI_OPT_IGNORE }, \
    { "hide", required_argument, NULL, CLI_OPT_HIDE },    \
    { "show", required_argument, NULL, CLI_OPT_SHOW },    \
    { "show-from", required_argument, NULL, CLI_OPT_SHOW_FROM }, \
    { "prune-from", required_argument, NULL, CLI_OPT_PRUNE_FROM }, \
    { "tagfocus", required_argument, NULL, CLI_OPT_TAGFOCUS }, \
    { "tagignore", required_argument, NULL, CLI_OPT_TAGIGNORE }, \
    { "tagshow", required_argument, NULL, CLI_OPT_TAGSHOW }, \
    { "taghide", required_argument, NULL, CLI_OPT_TAGHIDE }, \
    { "tagroot", required_argument, NULL, CLI_OPT_TAGROOT }, \
    { "tagleaf", required_argument, NULL, CLI_OPT_TAGLEAF }, \
    CLI_TRANSFORM_OPTIONS, \
    { "range", required_argument, NULL, CLI_OPT_RANGE },  \
    { "during-marker", required_argument, NULL, CLI_OPT_DURING_MARKER }, \
    { "outside-marker", required_argument, NULL, CLI_OPT_OUTSIDE_MARKER }, \
    { "max-string-size", required_argument, NULL, CLI_OPT_MAX_STRING }, \
    { "max-depth", required_argument, NULL, CLI_OPT_MAX_DEPTH }, \
    { "max-threads", required_argument, NULL, CLI_OPT_MAX_THREADS }, \
    { "max-inflate", required_argument, NULL, CLI_OPT_MAX_INFLATE }, \
    { "db", required_argument, NULL, CLI_OPT_DB },        \
    { "where", required_argument, NULL, CLI_OPT_WHERE },  \
    { "since", required_argument, NULL, CLI_OPT_SINCE },  \
    { "until", required_argument, NULL, CLI_OPT_UNTIL },  \
    { "ids", required_argument, NULL, CLI_OPT_IDS },      \
    { "help", no_argument, NULL, 'h' }

/* The options of the ranked reports (top, hist, diff), CLI_INPUT_OPTIONS
 * included. */
#define CLI_RANKED_OPTIONS                                 \
    { "limit", required_argument, NULL, 'n' },            \
    { "value", required_argument, NULL, 'V' },            \
    { "thread", required_argument, NULL, 'T' },           \
    { "by", required_argument, NULL, 'B' },               \
    { "cum", no_argument, NULL, 'C' },                    \
    { "json", no_argument, NULL, 'J' },                   \
    CLI_INPUT_OPTIONS

/* Help text line for --json. */
#define CLI_JSON_HELP "  --json               one JSON document with raw values (docs/json.md)\n"

/* Help text lines for CLI_INPUT_OPTIONS. */
#define CLI_INPUT_HELP                                                                     \
    "  --format NAME   read the input as format NAME instead of detecting it\n"          \
    "                  (profkit --formats lists the names)\n"                            \
    "  --strict        treat every warning as an error\n"                                \
    "  -q, --quiet     do not print warnings\n"                                          \
    "  --no-symbolize  keep address-only frames as they are (by default they\n"      \
    "                  are named, with source files, lines and inlined calls,\n"       \
    "                  from the binaries the profile's mappings name, when they\n"     \
    "                  are on this machine; docs/symbols.md)\n"                        \
    "  --symbolize     accepted; symbolizing is the default\n"                        \
    "  --binary PATH   name address-only frames from this ELF file (matched to a\n"     \
    "                  mapping by file name; repeatable)\n"                             \
    "  --symbols DIR   look for binaries and debug files in DIR, by build id and\n"    \
    "                  by file name (repeatable; also PPROF_BINARY_PATH)\n"           \
    "  --demangle=MODE C++/Rust names: short (default: no parameters or template\n"  \
    "                  arguments, as pprof shows them), full or none\n"              \
    "  --focus RE      keep only samples with a frame matching RE (POSIX extended,\n"   \
    "                  on the function name, or file:line with --by line)\n"           \
    "  --ignore RE     drop samples with a frame matching RE\n"                         \
    "  --hide RE       remove frames matching RE from the stacks, keep the samples\n"   \
    "  --show RE       keep only frames matching RE\n"                                  \
    "  --show-from RE  cut each stack above its outermost frame matching RE\n"         \
    "  --prune-from RE drop the frames below the innermost frame matching RE\n"        \
    "  --tagfocus [KEY=]V, --tagignore [KEY=]V\n"                                      \
    "                  keep / drop samples with a label matching V: comma-separated\n" \
    "                  regular expressions, or a numeric range (64b, 1kb:1mb, 2kb:)\n" \
    "  --tagshow RE, --taghide RE\n"                                                     \
    "                  keep / drop the labels whose key matches RE\n"                   \
    "  --tagroot KEYS, --tagleaf KEYS\n"                                                 \
    "                  a frame per label key (comma-separated) named by the sample's\n" \
    "                  value, above the root / below the leaf (pprof -tagroot)\n"     \
    CLI_TRANSFORM_HELP                                                                 \
    "  --range A,B     keep the samples (and markers) from A to B of a timed profile,\n"  \
    "                  counted from its start as the Firefox Profiler counts them:\n"   \
    "                  seconds (--range 2.7,3.1), milliseconds (--range 2700ms,3100ms)\n" \
    "                  or percentages of the whole (--range 25%,75%)\n"                 \
    "  --during-marker TEXT, --outside-marker TEXT\n"                                    \
    "                  keep the samples inside (outside) the markers of their thread\n"   \
    "                  whose name, category or payload holds TEXT (case ignored)\n"      \
    "  --max-string-size BYTES, --max-depth N, --max-threads N, --max-inflate R\n"  \
    "                  raise the limits on absurd inputs (256 MiB per JSON string\n" \
    "                  or number, 1 M frames per stack, 1 M threads, 1000:1\n"      \
    "                  decompression past 1 GiB; docs/formats/README.md)\n"           \
    "  --db DB         read the profiles of a store (profkit store --help) instead\n" \
    "                  of FILEs, merged as if they were files\n"                      \
    "  --where K=V     only profiles with label K = V (repeatable; also K!=V, and\n"  \
    "                  K~RE: a label K matching the POSIX extended RE)\n"             \
    "  --since T, --until T\n"                                                        \
    "                  only profiles from T on / before T (YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS],\n" \
    "                  UTC, or seconds since 1970)\n"                                  \
    "  --ids ID,ID...  only these profiles (their ids as store ls prints them)\n"   \
    "  -h, --help      show this help\n"

/* A transform's option (or a filter's, whose place it notes: then 0);
 * returns 1 when `c` was one, -1 after a usage message, 0 otherwise. */
int cli_transform_option(cli_input *in, int c, const char *arg);
/* Applies the filters and transforms of in to *p (which it frees on
 * failure). Returns CLI_OK or the exit status of the error it printed. */
int cli_apply_transforms(profkit_profile **p, const cli_input *in);
/* Whether in has any filter or transform. */
int cli_transforms_active(const cli_input *in);
/* The transforms moved to the page (cli_transform.c); their count. */
size_t cli_page_transforms(cli_input *in, profkit_transform *steps, profkit_filter_options *filter);

/* Handles a cli_input option; returns 1 when `c` was one, -1 when its
 * argument is bad (a message was printed). */
int cli_input_option(cli_input *in, int c, const char *arg);

/*
 * Reads every file (several are merged into one profile) and prints
 * warnings and errors to stderr. Returns CLI_OK or CLI_BAD_INPUT.
 */
int cli_load(profkit_profile **out, char *const *files, int n, const cli_input *in);

/* Whether there is input: FILEs (n of them) or --db; prints the usage
 * error and returns 0 when there is none, or both. */
int cli_has_input(const char *cmd, const cli_input *in, int n);

/* Sets q's ids: --ids, or with extra == in->base_where (new_where) the
 * diff side's --base-ids (--new-ids). */
void cli_query_ids(profkit_store_query *q, const cli_input *in, const char *const *extra);
/*
 * The profiles of --db selected by --where/--since/--until/--ids and the extra
 * terms (diff's --base-where or --new-where), merged, with the filters
 * applied. extra == in->base_where (in->new_where) names the diff's BASE
 * (NEW): its --base-ids (--new-ids) apply too. Returns CLI_OK or
 * CLI_BAD_INPUT (or CLI_USAGE).
 */
int cli_load_db(profkit_profile **out, const cli_input *in, const char *const *extra, size_t n_extra);

/* Prints "profkit CMD: MESSAGE" and a pointer to --help; returns CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prints an error; returns CLI_BAD_INPUT. */
int cli_error(const profkit_error *e);
/* Opens the store DB with the ClickHouse credentials of the environment
 * (PROFKIT_CLICKHOUSE_USER, PROFKIT_CLICKHOUSE_PASSWORD). */
int cli_store_open(profkit_store **s, const char *db, profkit_error *err);

/*
 * The optional parts of the library (profkit_part_check): CLI_OK when it
 * has `part`; else prints "profkit CMD: MESSAGE" (which part is missing,
 * how to get it) and returns CLI_USAGE.
 */
int cli_need_part(const char *cmd, const char *part);
/* cli_need_part for the store DB (NULL: any store): the part "store", and
 * "clickhouse" for a clickhouse:// DB. */
int cli_need_store(const char *cmd, const char *db);
/* A library call's failure: a usage error for PROFKIT_EINVAL (a bad option
 * or argument), else an error. Returns CLI_USAGE or CLI_BAD_INPUT. */
int cli_fail(const char *cmd, const profkit_error *e);
/* Rewrites the API names of options in a library message (text, of cap
 * bytes) into the command's flags (flag_names.def). */
void cli_flag_names(char *text, size_t cap);
/* Writes text (len bytes) with every API name of flag_names.def that
 * follows `before` (and is not part of a longer name) as its flag. */
void cli_put_flag_names(FILE *out, const char *text, size_t len, const char *before);

/*
 * Report options every report command spells the same way; a command lists
 * the ones it takes in its getopt table with these codes:
 *   -n/--limit N ('n'), --value NAME ('V'), --thread NAME ('T'),
 *   --by KEY ('B'), --cum ('C'), --by-line ('L'), --depth N ('D'),
 *   --min-percent P ('P').
 */
typedef int (*cli_report_fn)(FILE *out, const profkit_profile *p,
                             const profkit_report_options *o, profkit_error *err);

/*
 * The whole of a report command: parses argv with `opts` (report options
 * above plus CLI_INPUT_OPTIONS), prints `help` for --help, loads the FILEs
 * and runs `report` with *ro (whose defaults the caller set). Returns the
 * exit status.
 */
int cli_report_main(const char *cmd, const char *help, const struct option *opts, int argc,
                    char **argv, profkit_report_options *ro, cli_report_fn report);

/* A report over two profiles (diff): base, then new. */
typedef int (*cli_report2_fn)(FILE *out, const profkit_profile *base, const profkit_profile *p,
                              const profkit_report_options *o, profkit_error *err);
/* cli_report_main for commands that take exactly two files, BASE and NEW,
 * each read on its own (not merged). */
int cli_report2_main(const char *cmd, const char *help, const struct option *opts, int argc,
                     char **argv, profkit_report_options *ro, cli_report2_fn report);

/* The FILEs joined by sep, the default title of a page (flame, view); a
 * new string the caller frees, or NULL when out of memory. */
char *cli_title(char *const *files, int n, const char *sep);
/* The arguments that name the input, for a page's command line box
 * (profkit_flame_options.inputs): the files, or --db DB with its --where,
 * --since, --until, --base-where and --new-where as given. A new array of
 * pointers into files and in (free it; its strings are not copied), or
 * NULL when out of memory. */
const char **cli_input_args(const cli_input *in, char *const *files, int nfiles, size_t *n);

/* Parses --by; returns 0 or -1. */
int cli_parse_by(const char *s, profkit_key *out);
/* Warnings of a writer go where the reading's go (none under -q). */
void cli_write_warnings(profkit_write_options *wo, const cli_input *in);
/* Parses a non-negative integer; returns 0 or -1. */
int cli_parse_size(const char *s, size_t *out);

#define PROFKIT_COMMAND(name, summary) int cmd_##name(int argc, char **argv);
#include "cli/commands.def"
#undef PROFKIT_COMMAND

#endif
