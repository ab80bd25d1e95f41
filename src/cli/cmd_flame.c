/* cmd_flame.c: `profkit flame FILE... [-o OUT.html|OUT.svg]`. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The page's budgets (docs/viewer.md, "time"): past this many timed
 * samples the page holds no samples, so a --range makes a page of the
 * range alone; inputs of more than this many bytes together are read
 * without their markers (millions of them: the page could not hold them,
 * and reading them would double the time). */
#define PAGE_MAX_SAMPLES 1000000
#define PAGE_MARKER_INPUT_MAX ((long long)64 << 20)

static long long input_bytes(char *const *files, int n)
{
    long long sum = 0;
    struct stat st;
    for (int i = 0; i < n; i++)
        if (strcmp(files[i], "-") != 0 && stat(files[i], &st) == 0)
            sum += st.st_size;
    return sum;
}

static size_t timed_rows(const profkit_profile *p)
{
    profkit_samples s;
    profkit_profile_samples(p, &s);
    size_t n = 0;
    for (size_t i = 0; i < s.n; i++)
        n += s.time[i] != PROFKIT_NO_TIME;
    return n;
}
static const char help[] =
    "Usage: profkit flame [OPTIONS] FILE... [-o OUT.html|OUT.svg]\n"
    "       profkit flame --diff [OPTIONS] BASE NEW [-o OUT.html|OUT.svg]\n"
    "\n"
    "Draw the profile (several FILEs are merged) as a flame graph.\n"
    "\n"
    "OUT.html is one self-contained page: it opens from disk with no network\n"
    "access, and holds the call tree by function of all threads merged and of\n"
    "each thread, for every value type, with a stack chart for timed threads\n"
    "and, for timed profiles, a timeline of the threads and markers: dragging\n"
    "in it selects a time range that narrows every view. With --range A,B the\n"
    "page holds the whole profile and opens with that range selected (a\n"
    "profile too big for the page to hold every timed sample: the page of\n"
    "the range alone, and a note says so); with\n"
    "transform flags (--merge, --root-at, ..., --focus, --ignore, --hide,\n"
    "--show, --show-from, --prune-from) it holds the untransformed profile and\n"
    "opens with them on its stack of transforms (each can be popped).\n"
    "OUT.svg is a static flame graph in the style of flamegraph.pl (hover a\n"
    "frame for its value, click to zoom, Ctrl-F or 'Search' to highlight\n"
    "functions) of one value type, for docs and CI artifacts. The format comes\n"
    "from OUT's extension or --to; without -o the page goes to stdout. OUT is\n"
    "written to a temporary file and renamed, never left half-written.\n"
    "\n"
    "Frames too small to see are merged into one \"(other)\" frame per caller,\n"
    "so the output stays small whatever the profile's size: with the defaults\n"
    "a page holds at most 100000 frames.\n"
    "\n"
    "With --diff, BASE and NEW are read each on its own and drawn as one tree:\n"
    "frames are matched by function name and coloured by the change from\n"
    "BASE; the page sizes them by the larger of BASE and NEW (what went away\n"
    "is drawn hatched at its BASE size), the SVG by NEW. With --db, BASE and\n"
    "NEW are the store's profiles of --base-where and of --new-where (--diff\n"
    "is then implied).\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT     output file, .html or .svg (default: HTML to stdout)\n"
    "  -t, --to FORMAT      html or svg, whatever OUT's extension\n"
    "  --diff               compare two profiles, BASE then NEW\n"
    "  --base-where K=V, --new-where K=V\n"
    "                       with --db: BASE is the store's profiles with these\n"
    "                       labels, NEW those with these (repeatable; K!=V,\n"
    "                       K~RE; --where, --since and --until apply to both)\n"
    "  --base-ids ID,..., --new-ids ID,...\n"
    "                       with --db: BASE (NEW) is (also) only these profiles\n"
    "  --value NAME         the value type shown first (the SVG draws only it),\n"
    "                       e.g. cpu, wall, samples (default: the profile's\n"
    "                       default; see profkit info)\n"
    "  --thread NAME        only this thread (name, index or tid:TID; profkit info);\n"
    "                       default: all threads merged, then each thread\n"
    "  --min-percent P      merge frames whose total is below P percent of\n"
    "                       their thread's total for every value type into\n"
    "                       \"(other)\" (default 0.025: one pixel of 4000;\n"
    "                       0 keeps every frame)\n"
    "  --max-nodes N        at most N frames in all (default 100000; 0: no cap)\n"
    "  --title TEXT         the title (default: the input file names)\n"
    "  --markers            keep the markers (the page holds at most 2,000,000)\n"
    "                       and the records that narrow the memory view to a\n"
    "                       range of operations, for inputs over 64 MB together\n"
    "                       (see docs/BENCHMARKS.md for what it costs)\n" CLI_INPUT_HELP
    "\n"
    "Examples:\n"
    "  profkit flame cpu.prof -o cpu.html          # open cpu.html in a browser\n"
    "  profkit flame --value wall app.bsprof -o wall.svg\n"
    "  profkit flame --diff before.prof after.prof -o change.html\n"
    "  profkit flame --db prof.sqlite --base-where version=1.4 --new-where version=1.5 -o diff.html\n"
    "  profkit flame --thread GeckoMain firefox.json.gz > main.html\n";

/* html or svg from --to or from the path's extension; NULL when neither. */
static const char *output_kind(const char *to, const char *out)
{
    if (to)
        return strcmp(to, "html") == 0 || strcmp(to, "svg") == 0 ? to : NULL;
    if (!out || strcmp(out, "-") == 0)
        return "html";
    const char *dot = strrchr(out, '.');
    if (dot && (strcmp(dot, ".html") == 0 || strcmp(dot, ".htm") == 0))
        return "html";
    if (dot && strcmp(dot, ".svg") == 0)
        return "svg";
    return NULL;
}

int cmd_flame(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "to", required_argument, NULL, 't' },
        { "diff", no_argument, NULL, 'd' },
        { "base-where", required_argument, NULL, CLI_OPT_BASE_WHERE },
        { "new-where", required_argument, NULL, CLI_OPT_NEW_WHERE },
        { "base-ids", required_argument, NULL, CLI_OPT_BASE_IDS },
        { "new-ids", required_argument, NULL, CLI_OPT_NEW_IDS },
        { "value", required_argument, NULL, 'V' },
        { "thread", required_argument, NULL, 'T' },
        { "min-percent", required_argument, NULL, 'P' },
        { "max-nodes", required_argument, NULL, 'M' },
        { "title", required_argument, NULL, 'I' },
        { "markers", no_argument, NULL, 'K' },
        CLI_INPUT_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    cli_input in = { 0 };
    profkit_flame_options fo;
    profkit_flame_options_init(&fo);
    const char *out = NULL, *to = NULL;
    int diff = 0, c, keep_markers = 0;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:t:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(help, stdout); return CLI_OK;
        case 'o': out = optarg; break;
        case 't': to = optarg; break;
        case 'd': diff = 1; break;
        case 'V': fo.value = optarg; break;
        case 'T': fo.thread = optarg; break;
        case 'I': fo.title = optarg; break;
        case 'K': keep_markers = 1; break;
        case 'P':
            fo.min_percent = strtod(optarg, &end);
            if (!*optarg || *end || !(fo.min_percent >= 0 && fo.min_percent <= 100))
                return cli_usage("flame", "--min-percent takes a number from 0 to 100, not '%s'",
                                 optarg);
            break;
        case 'M':
            if (cli_parse_size(optarg, &fo.max_nodes) != 0)
                return cli_usage("flame", "--max-nodes takes a whole number, not '%s'", optarg);
            break;
        default:
            switch (cli_input_option(&in, c, optarg)) {
            case -1: return CLI_USAGE;
            case 0: return cli_usage("flame", "unknown option");
            }
        }
    }
    const char *kind = output_kind(to, out);
    if (!kind)
        return to ? cli_usage("flame", "--to takes html or svg, not '%s'", to)
                  : cli_usage("flame", "cannot tell the format from '%s': name it .html or .svg, or add --to html|svg",
                              out);
    int nfiles = argc - optind;
    if (!cli_has_input("flame", &in, nfiles))
        return CLI_USAGE;
    /* two selections of a store (--db): BASE and NEW of a diff page */
    int two = CLI_HAS_BASE(&in) || CLI_HAS_NEW(&in);
    if (two && (!CLI_HAS_BASE(&in) || !CLI_HAS_NEW(&in)))
        return cli_usage("flame", "with --db, name BASE and NEW with --base-where and --new-where");
    diff |= two;
    if (diff && !two && nfiles != 2)
        return cli_usage("flame", in.db ? "--diff with --db takes --base-where and --new-where"
                                        : "--diff takes two input files, BASE and NEW, not %d", nfiles);
    /* The page shows every value type and its time line's markers (the SVG
     * none), never lines. */
    int big = !keep_markers && input_bytes(argv + optind, nfiles) > PAGE_MARKER_INPUT_MAX;
    in.skip_markers = strcmp(kind, "svg") == 0 || big;
    if (big && strcmp(kind, "html") == 0 && !in.quiet)
        fprintf(stderr, "profkit flame: note: the inputs are over 64 MB: the page leaves their "
                        "markers out, and the records by which a range of a memory graph narrows "
                        "the Memory view (profkit markers and profkit counters --range list them; "
                        "--markers keeps them)\n");
    in.skip_lines = 1;
    /* the page shows counters (over time, and by operation order in the
     * Memory view, whatever the input's size: bsprof's memory graphs cost
     * little, docs/BENCHMARKS.md); an SVG none. The records of the memory
     * operations (16 bytes each, up to a million) narrow the Memory view
     * to a range: over 64 MB of input, as the markers, not kept (they
     * would take flame's peak memory further past top's) */
    in.skip_counters = strcmp(kind, "html") != 0;
    in.keep_mem_ops = !in.skip_counters && !big;
    /* --range alone: the page holds the whole profile and opens with the
     * range selected (popped, the whole is back); with a marker filter the
     * samples are filtered as every report does. */
    if (strcmp(kind, "html") == 0 && !diff && in.filter.range && !in.filter.during_marker &&
        !in.filter.outside_marker) {
        fo.range = in.filter.range;
        in.filter.range = NULL;
    }
    /* the page applies the transforms itself, each step poppable */
    profkit_transform page_steps[CLI_MAX_TRANSFORMS + 1];
    profkit_filter_options page_filter;
    if (strcmp(kind, "html") == 0) {
        fo.n_transforms = cli_page_transforms(&in, page_steps, &page_filter);
        fo.transforms = fo.n_transforms ? page_steps : NULL;
    }
    profkit_profile *p = NULL, *base = NULL;
    int rc;
    if (diff) {
        if ((rc = two ? cli_load_db(&base, &in, in.base_where, in.n_base_where)
                      : cli_load(&base, argv + optind, 1, &in)) != 0)
            return rc;
        if ((rc = two ? cli_load_db(&p, &in, in.new_where, in.n_new_where)
                      : cli_load(&p, argv + optind + 1, 1, &in)) != 0) {
            profkit_profile_free(base);
            return rc;
        }
        fo.base = base;
    } else if ((rc = cli_load(&p, argv + optind, nfiles, &in)) != 0) {
        return rc;
    }
    if (fo.n_transforms) { /* the page's steps: their arguments' errors now, as a report gives them */
        profkit_error terr;
        if (profkit_transform_check(p, fo.transforms, fo.n_transforms, &terr) != 0) {
            rc = cli_fail("flame", &terr);
            profkit_profile_free(p);
            profkit_profile_free(base);
            return rc;
        }
    }
    /* the page will hold no samples to narrow its views with (past its
     * budget of samples, or of their columns' bytes): it is made of the
     * range alone */
    size_t timed = fo.range ? timed_rows(p) : 0;
    int exact = 1;
    if (fo.range && timed <= PAGE_MAX_SAMPLES) {
        profkit_error eerr;
        if ((rc = profkit_flame_page_exact(p, &fo, &exact, &eerr)) != 0) {
            rc = cli_fail("flame", &eerr);
            profkit_profile_free(p);
            return rc;
        }
    }
    if (fo.range && (timed > PAGE_MAX_SAMPLES || !exact)) {
        profkit_filter_options fl;
        memset(&fl, 0, sizeof fl);
        fl.range = fo.range;
        profkit_error ferr;
        if (profkit_profile_filter(p, &fl, &ferr) != 0) {
            rc = cli_fail("flame", &ferr);
            profkit_profile_free(p);
            return rc;
        }
        if (!in.quiet && timed > PAGE_MAX_SAMPLES)
            fprintf(stderr, "profkit flame: note: more than %d timed samples: the page is of the range "
                            "%s alone\n", PAGE_MAX_SAMPLES, fo.range);
        else if (!in.quiet)
            fprintf(stderr, "profkit flame: note: the timed samples' columns are over the page's "
                            "budget: the page is of the range %s alone\n", fo.range);
        fo.range = NULL;
    }
    char *title = NULL;
    if (!fo.title) {
        char *const db[1] = { (char *)in.db };
        if (!(title = in.db ? cli_title(db, 1, " ") : cli_title(argv + optind, nfiles, diff ? " vs " : " "))) {
            profkit_profile_free(p);
            profkit_profile_free(base);
            fprintf(stderr, "profkit: error: out of memory\n");
            return CLI_BAD_INPUT;
        }
        fo.title = title;
    }
    const char **inputs = cli_input_args(&in, argv + optind, nfiles, &fo.n_inputs);
    fo.inputs = inputs; /* (out of memory: the page splits its title) */
    profkit_error err;
    int wr = strcmp(kind, "svg") == 0 ? profkit_flame_write_svg(p, out, &fo, &err)
                                      : profkit_flame_write_html(p, out, &fo, &err);
    if (wr != 0)
        rc = cli_fail("flame", &err);
    free(title);
    free(inputs);
    profkit_profile_free(p);
    profkit_profile_free(base);
    return rc;
}
