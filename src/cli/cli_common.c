/* cli_common.c: loading inputs, progress, warnings and usage errors. */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A positive count for a limit option; 0 after a usage message when not. */
static uint64_t limit_arg(const char *opt, const char *arg, uint64_t max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || v == 0 || v > max || arg[0] == '-') {
        cli_usage(NULL, "--%s: expected a whole number from 1 to %llu, got '%s'", opt,
                  (unsigned long long)max, arg);
        return 0;
    }
    return v;
}

/* Appends a --where-like term; 0, or -1 after a usage message. */
static int add_where(const char *opt, const char **list, size_t *n, const char *arg)
{
    if (*n == CLI_MAX_WHERE) {
        cli_usage(NULL, "at most %d --%s options", CLI_MAX_WHERE, opt);
        return -1;
    }
    list[(*n)++] = arg;
    return 1;
}

static int time_arg(const char *opt, const char *arg, int64_t *ns, int *has)
{
    if (profkit_store_parse_time(arg, ns) != 0) {
        cli_usage(NULL, "--%s: expected YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] (UTC) or seconds since 1970, "
                  "got '%s'", opt, arg);
        return -1;
    }
    *has = 1;
    return 1;
}

/* --ids, --base-ids, --new-ids: ID,ID,... (16 hex digits each, as store ls
 * prints them). The arrays stay reachable (a process parses a few) until
 * exit. */
static int ids_arg(const char *opt, const char *arg, const char **as_given, const uint64_t **ids,
                   size_t *n)
{
    static uint64_t *kept[8];
    static size_t n_kept;
    size_t cap = 1;
    for (const char *p = arg; *p; p++)
        cap += *p == ',';
    uint64_t *v = n_kept < sizeof(kept) / sizeof(kept[0]) ? malloc(cap * sizeof(*v)) : NULL;
    if (!v) {
        cli_usage(NULL, "--%s: out of memory (or given too often)", opt);
        return -1;
    }
    size_t k = 0;
    for (const char *p = arg;; p++) {
        size_t len = strspn(p, "0123456789abcdefABCDEF");
        uint64_t x = 0;
        for (size_t i = 0; i < len && len == 16; i++)
            x = x * 16 + (uint64_t)(p[i] <= '9' ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10);
        if (len != 16 || x == 0 || x > INT64_MAX || (p[len] && p[len] != ',')) {
            free(v);
            cli_usage(NULL, "--%s: expected profile ids (16 hex digits, as store ls prints them) "
                      "separated by commas, got '%s'", opt, arg);
            return -1;
        }
        v[k++] = x;
        p += len;
        if (!*p)
            break;
    }
    kept[n_kept++] = v;
    *as_given = arg;
    *ids = v;
    *n = k;
    return 1;
}

int cli_input_option(cli_input *in, int c, const char *arg)
{
    int t = cli_transform_option(in, c, arg);
    if (t != 0)
        return t;
    switch (c) {
    case CLI_OPT_DB:
        if (cli_need_store("--db", arg) != CLI_OK)
            return -1;
        in->db = arg;
        return 1;
    case CLI_OPT_WHERE: return add_where("where", in->where, &in->n_where, arg);
    case CLI_OPT_BASE_WHERE: return add_where("base-where", in->base_where, &in->n_base_where, arg);
    case CLI_OPT_NEW_WHERE: return add_where("new-where", in->new_where, &in->n_new_where, arg);
    case CLI_OPT_SINCE: in->since_arg = arg; return time_arg("since", arg, &in->since, &in->has_since);
    case CLI_OPT_UNTIL: in->until_arg = arg; return time_arg("until", arg, &in->until, &in->has_until);
    case CLI_OPT_IDS: return ids_arg("ids", arg, &in->ids_arg, &in->ids, &in->n_ids);
    case CLI_OPT_BASE_IDS: return ids_arg("base-ids", arg, &in->base_ids_arg, &in->base_ids, &in->n_base_ids);
    case CLI_OPT_NEW_IDS: return ids_arg("new-ids", arg, &in->new_ids_arg, &in->new_ids, &in->n_new_ids);
    case CLI_OPT_MAX_STRING:
        return (in->max_string_size = limit_arg("max-string-size", arg, UINT64_MAX)) ? 1 : -1;
    case CLI_OPT_MAX_INFLATE:
        return (in->max_inflate = limit_arg("max-inflate", arg, UINT64_MAX)) ? 1 : -1;
    case CLI_OPT_MAX_DEPTH:
        return (in->max_depth = (uint32_t)limit_arg("max-depth", arg, UINT32_MAX)) ? 1 : -1;
    case CLI_OPT_MAX_THREADS:
        return (in->max_threads = (uint32_t)limit_arg("max-threads", arg, UINT32_MAX)) ? 1 : -1;
    case 'F': in->format = arg; return 1;
    case 'S': in->strict = 1; return 1;
    case 'q': in->quiet = 1; return 1;
    case 'Y': in->no_symbolize = 0; return 1;
    case CLI_OPT_NO_SYMBOLIZE: in->no_symbolize = 1; return 1;
    case CLI_OPT_SYMBOLS:
        if (in->n_symbol_dirs == CLI_MAX_BINARIES) {
            cli_usage(NULL, "at most %d --symbols options", CLI_MAX_BINARIES);
            return -1;
        }
        in->symbol_dirs[in->n_symbol_dirs++] = arg;
        return 1;
    case CLI_OPT_DEMANGLE:
        if (strcmp(arg, "short") == 0)
            in->demangle = PROFKIT_DEMANGLE_SHORT;
        else if (strcmp(arg, "full") == 0)
            in->demangle = PROFKIT_DEMANGLE_FULL;
        else if (strcmp(arg, "none") == 0)
            in->demangle = PROFKIT_DEMANGLE_NONE;
        else {
            cli_usage(NULL, "--demangle takes full, short or none, not '%s'", arg);
            return -1;
        }
        return 1;
    case CLI_OPT_FOCUS: in->filter.focus = arg; return 1;
    case CLI_OPT_IGNORE: in->filter.ignore = arg; return 1;
    case CLI_OPT_HIDE: in->filter.hide = arg; return 1;
    case CLI_OPT_SHOW: in->filter.show = arg; return 1;
    case CLI_OPT_SHOW_FROM: in->filter.show_from = arg; return 1;
    case CLI_OPT_PRUNE_FROM: in->filter.prune_from = arg; return 1;
    case CLI_OPT_TAGFOCUS: in->filter.tagfocus = arg; return 1;
    case CLI_OPT_TAGIGNORE: in->filter.tagignore = arg; return 1;
    case CLI_OPT_TAGSHOW: in->filter.tagshow = arg; return 1;
    case CLI_OPT_TAGHIDE: in->filter.taghide = arg; return 1;
    case CLI_OPT_TAGROOT: in->filter.tagroot = arg; return 1;
    case CLI_OPT_TAGLEAF: in->filter.tagleaf = arg; return 1;
    case CLI_OPT_RANGE: {
        /* checked now, so that a typo costs no read */
        profkit_range r;
        profkit_error err;
        if (profkit_range_parse(&r, arg, &err) != 0) {
            cli_fail(NULL, &err);
            return -1;
        }
        in->filter.range = arg;
        return 1;
    }
    case CLI_OPT_DURING_MARKER: in->filter.during_marker = arg; return 1;
    case CLI_OPT_OUTSIDE_MARKER: in->filter.outside_marker = arg; return 1;
    case 'N':
        if (in->n_binaries == CLI_MAX_BINARIES) {
            cli_usage(NULL, "at most %d --binary options", CLI_MAX_BINARIES);
            return -1;
        }
        in->binaries[in->n_binaries++] = arg;
        return 1;
    default: return 0;
    }
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "profkit%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'profkit%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    return CLI_USAGE;
}

static const char *const flag_names[][2] = {
#define CLI_FLAG_NAME(api, flag) { api, flag },
#include "cli/flag_names.def"
#undef CLI_FLAG_NAME
};

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void cli_flag_names(char *text, size_t cap)
{
    for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
        const char *api = flag_names[i][0], *flag = flag_names[i][1];
        size_t alen = strlen(api), flen = strlen(flag), len = strlen(text);
        char *at = text;
        while ((at = strstr(at, api)) != NULL && name_char(at[alen]))
            at += alen;
        if (!at || len - alen + flen >= cap)
            continue;
        memmove(at + flen, at + alen, len - (size_t)(at - text) - alen + 1);
        memcpy(at, flag, flen);
    }
}

void cli_put_flag_names(FILE *out, const char *text, size_t len, const char *before)
{
    size_t bl = strlen(before), from = 0;
    for (size_t i = 0; i + bl <= len; i++) {
        if (memcmp(text + i, before, bl) != 0)
            continue;
        for (size_t k = 0; k < sizeof(flag_names) / sizeof(flag_names[0]); k++) {
            const char *api = flag_names[k][0];
            size_t at = i + bl, al = strlen(api);
            if (len - at < al || memcmp(text + at, api, al) != 0 ||
                (at + al < len && name_char(text[at + al])))
                continue;
            fwrite(text + from, 1, at - from, out);
            fputs(flag_names[k][1], out);
            from = at + al;
            i = from - 1;
            break;
        }
    }
    fwrite(text + from, 1, len - from, out);
}

int cli_error(const profkit_error *e)
{
    char buf[1024];
    profkit_error named = *e;
    cli_flag_names(named.message, sizeof(named.message));
    fprintf(stderr, "profkit: error: %s\n", profkit_error_string(buf, sizeof(buf), &named));
    return CLI_BAD_INPUT;
}

int cli_need_part(const char *cmd, const char *part)
{
    profkit_error err;
    if (profkit_part_check(part, &err) == 0)
        return CLI_OK;
    fprintf(stderr, "profkit%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", err.message);
    return CLI_USAGE;
}

int cli_need_store(const char *cmd, const char *db)
{
    int rc = cli_need_part(cmd, "store");
    if (rc == CLI_OK && db && strncmp(db, "clickhouse://", 13) == 0)
        rc = cli_need_part(cmd, "clickhouse");
    return rc;
}

int cli_fail(const char *cmd, const profkit_error *e)
{
    if (e->code != PROFKIT_EINVAL)
        return cli_error(e);
    profkit_error named = *e;
    cli_flag_names(named.message, sizeof(named.message));
    return cli_usage(cmd, "%s", named.message);
}

struct progress {
    const char *file;
    int shown;
    double last;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Shown only on a terminal; at most ten updates a second. */
static void on_progress(uint64_t done, uint64_t total, void *payload)
{
    struct progress *pr = payload;
    double t = now();
    if (t - pr->last < 0.1)
        return;
    pr->last = t;
    if (total)
        fprintf(stderr, "\rprofkit: reading %s: %3.0f%% of %.1f MB ", pr->file,
                100.0 * (double)done / (double)total, (double)total / 1e6);
    else
        fprintf(stderr, "\rprofkit: reading %s: %.1f MB ", pr->file, (double)done / 1e6);
    pr->shown = 1;
}

static void on_warning(const profkit_error *w, void *payload)
{
    struct progress *pr = payload;
    char buf[1024];
    if (pr->shown) {
        fprintf(stderr, "\r\033[K");
        pr->shown = 0;
    }
    profkit_error named = *w;
    cli_flag_names(named.message, sizeof(named.message));
    fprintf(stderr, "profkit: warning: %s\n", profkit_error_string(buf, sizeof(buf), &named));
}

static void ignore_warning(const profkit_error *w, void *payload) { (void)w, (void)payload; }

void cli_write_warnings(profkit_write_options *wo, const cli_input *in)
{
    static struct progress none;
    wo->on_warning = in->quiet ? ignore_warning : on_warning;
    wo->payload = &none;
}

/* Where the symbolizer (and list --disasm) finds files: the input options. */
static void symbolize_options(const cli_input *in, profkit_symbolize_options *so)
{
    memset(so, 0, sizeof(*so));
    so->binaries = in->binaries;
    so->n_binaries = in->n_binaries;
    so->use_mapping_paths = 1;
    so->symbol_dirs = in->symbol_dirs;
    so->n_symbol_dirs = in->n_symbol_dirs;
    so->use_environment = 1;
    so->demangle = in->demangle;
}

int cli_has_input(const char *cmd, const cli_input *in, int n)
{
    if (in->db && n > 0) {
        cli_usage(cmd, "takes FILEs or --db, not both");
        return 0;
    }
    if (!in->db && (in->n_where || in->has_since || in->has_until || in->n_base_where ||
                    in->n_new_where)) {
        cli_usage(cmd, "--where, --since and --until select profiles of a store: add --db DB");
        return 0;
    }
    if (!in->db && (in->ids_arg || in->base_ids_arg || in->new_ids_arg)) {
        cli_usage(cmd, "--ids, --base-ids and --new-ids select profiles of a store: add --db DB");
        return 0;
    }
    if (in->ids_arg && (in->base_ids_arg || in->new_ids_arg)) {
        cli_usage(cmd, "--ids applies to both sides: give each its own --base-ids and --new-ids instead");
        return 0;
    }
    if (!in->db && n < 1) {
        cli_usage(cmd, "no input file");
        return 0;
    }
    return 1;
}

/* The filters of in over p (which it frees on failure). */
static int apply_filters(profkit_profile **p, const cli_input *in)
{
    return cli_apply_transforms(p, in);
}

int cli_store_open(profkit_store **s, const char *db, profkit_error *err)
{
    /* ClickHouse credentials from the environment, so that they need not
     * be in a URL on the command line (where ps shows them) */
    profkit_store_options o = { getenv("PROFKIT_CLICKHOUSE_USER"), getenv("PROFKIT_CLICKHOUSE_PASSWORD") };
    return profkit_store_open_opts(s, db, &o, err);
}

void cli_query_ids(profkit_store_query *q, const cli_input *in, const char *const *extra)
{
    /* (cli_has_input refuses --ids beside --base-ids or --new-ids) */
    if (in->base_ids && extra == in->base_where)
        q->ids = in->base_ids, q->n_ids = in->n_base_ids;
    else if (in->new_ids && extra == in->new_where)
        q->ids = in->new_ids, q->n_ids = in->n_new_ids;
    else
        q->ids = in->ids, q->n_ids = in->n_ids;
}

/* The store query of in's --where/--since/--until and `extra`; `terms`
 * holds the where terms (CLI_MAX_WHERE * 2). */
static void db_query(profkit_store_query *q, const char **terms, const cli_input *in,
                     const char *const *extra, size_t n_extra)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n_where; i++)
        terms[n++] = in->where[i];
    for (size_t i = 0; i < n_extra; i++)
        terms[n++] = extra[i];
    memset(q, 0, sizeof(*q));
    q->where = terms;
    q->n_where = n;
    q->since = in->has_since ? in->since : PROFKIT_NO_TIME;
    q->until = in->has_until ? in->until : PROFKIT_NO_TIME;
    cli_query_ids(q, in, extra);
}

int cli_load_db(profkit_profile **out, const cli_input *in, const char *const *extra, size_t n_extra)
{
    *out = NULL;
    profkit_store *s;
    profkit_error err;
    if (cli_store_open(&s, in->db, &err) != 0)
        return cli_error(&err);
    const char *terms[CLI_MAX_WHERE * 2];
    profkit_store_query q;
    db_query(&q, terms, in, extra, n_extra);
    int rc = profkit_store_load(out, s, &q, &err);
    profkit_store_close(s);
    if (rc != 0)
        return cli_error(&err);
    return apply_filters(out, in);
}

/* Whether a time filter (--range, --during-marker, --outside-marker) is on. */
static int timefilter(const cli_input *in)
{
    return in->filter.range || in->filter.during_marker || in->filter.outside_marker;
}

/* A time filter needs times: an untimed FILE is a usage error naming it. */
static int need_times(const profkit_profile *p, const char *file)
{
    int64_t s, e;
    profkit_error err;
    if (profkit_profile_root_range(p, &s, &e, &err) == 0)
        return CLI_OK;
    cli_flag_names(err.message, sizeof(err.message));
    return cli_usage(NULL, "%s: %s", file, err.message);
}

int cli_load(profkit_profile **out, char *const *files, int n, const cli_input *in)
{
    *out = NULL;
    if (in->db)
        return cli_load_db(out, in, NULL, 0);
    profkit_profile *all = NULL;
    int tty = isatty(STDERR_FILENO);
    for (int i = 0; i < n; i++) {
        struct progress pr = { files[i], 0, now() };
        profkit_read_options ro;
        memset(&ro, 0, sizeof(ro));
        ro.format = in->format;
        ro.strict = in->strict;
        ro.on_warning = in->quiet ? ignore_warning : on_warning;
        ro.on_progress = tty ? on_progress : NULL;
        ro.payload = &pr;
        ro.skip_markers = in->skip_markers && !timefilter(in);
        ro.skip_inuse = in->skip_inuse;
        ro.skip_lines = in->skip_lines;
        ro.skip_counters = in->skip_counters;
        ro.keep_mem_ops = in->keep_mem_ops;
        ro.max_string_size = in->max_string_size;
        ro.max_depth = in->max_depth;
        ro.max_threads = in->max_threads;
        ro.max_inflate = in->max_inflate;
        profkit_error err;
        profkit_profile *p;
        int rc = profkit_profile_read_file(&p, files[i], &ro, &err);
        if (pr.shown)
            fprintf(stderr, "\r\033[K");
        if (rc) {
            profkit_profile_free(all);
            return cli_error(&err);
        }
        if (timefilter(in) && (rc = need_times(p, files[i])) != CLI_OK) {
            profkit_profile_free(p);
            profkit_profile_free(all);
            return rc;
        }
        if (!all) {
            all = p;
            continue;
        }
        rc = profkit_profile_merge(all, p, &err);
        profkit_profile_free(p);
        if (rc) {
            profkit_profile_free(all);
            return cli_error(&err);
        }
    }
    if (all && !in->no_symbolize) {
        struct progress pr = { "", 0, now() };
        profkit_symbolize_options so;
        symbolize_options(in, &so);
        so.on_warning = in->quiet ? ignore_warning : on_warning;
        so.payload = &pr;
        profkit_error err;
        if (profkit_profile_symbolize(all, &so, &err) < 0) {
            profkit_profile_free(all);
            return cli_error(&err);
        }
    }
    int rc = apply_filters(&all, in);
    *out = all;
    return rc;
}

int cli_parse_by(const char *s, profkit_key *out)
{
    static const char *const names[] = { "function", "file", "line", "address", "module" };
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (profkit_key)i;
            return 0;
        }
    return -1;
}

int cli_parse_size(const char *s, size_t *out)
{
    char *end;
    if (!*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* Handles one report option; 1 done, 0 not a report option, -1 usage error. */
static int report_option(const char *cmd, profkit_report_options *ro, int c, const char *arg)
{
    char *end;
    switch (c) {
    case 'n':
        if (cli_parse_size(arg, &ro->limit) != 0)
            return cli_usage(cmd, "-n takes a whole number, not '%s'", arg), -1;
        return 1;
    case 'V': ro->value = arg; return 1;
    case 'T': ro->thread = arg; return 1;
    case 'B':
        if (cli_parse_by(arg, &ro->by) != 0)
            return cli_usage(cmd, "--by takes function, file, line, address or module, not '%s'", arg), -1;
        return 1;
    case 'C': ro->sort_cum = 1; return 1;
    case 'J': ro->json = 1; return 1;
    case 'Z': ro->normalize = 1; return 1;
    case 'G':
        ro->gate = 1;
        ro->fail_on_increase = strtod(arg, &end);
        if (!*arg || *end || !(ro->fail_on_increase >= 0))
            return cli_usage(cmd, "--fail-on-increase takes a percentage of at least 0, not '%s'", arg), -1;
        return 1;
    case 'L': ro->by = PROFKIT_BY_LINE; return 1;
    case 'D':
        if (cli_parse_size(arg, &ro->max_depth) != 0)
            return cli_usage(cmd, "--depth takes a whole number, not '%s'", arg), -1;
        return 1;
    case 'P':
        ro->cutoff_pct = strtod(arg, &end);
        if (!*arg || *end || !(ro->cutoff_pct >= 0 && ro->cutoff_pct <= 100))
            return cli_usage(cmd, "--min-percent takes a number from 0 to 100, not '%s'", arg), -1;
        return 1;
    case CLI_OPT_VALUES: ro->values = arg; return 1;
    default: return 0;
    }
}

/*
 * Whether a report reads what is still allocated at the end (inuse_*
 * values): `mem` does, the others only when --value names one. (A format
 * whose reader skips them, bsprof, defaults to cpu.)
 */
static int reads_inuse(const char *cmd, const profkit_report_options *ro)
{
    /* mem shows leaks; hist shows every value type, inuse_* among them */
    return strcmp(cmd, "mem") == 0 || strcmp(cmd, "hist") == 0 ||
           (ro->value && strncmp(ro->value, "inuse_", 6) == 0) ||
           (ro->values && strstr(ro->values, "inuse_"));
}

/*
 * Parses a report command's options into *ro and *in, and says in *in what
 * the report never shows, so the readers need not keep it: markers,
 * inuse_* values (reads_inuse()), lines (unless keyed by line). Returns -1 when the
 * command should go on (optind is at the first file), else the exit status
 * to return (--help printed, or a usage error).
 */
static int parse_report_args(const char *cmd, const char *help, const struct option *opts,
                             int argc, char **argv, profkit_report_options *ro, cli_input *in)
{
    memset(in, 0, sizeof(*in));
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:qh", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return CLI_OK;
        }
        /* The short options are shared; take only what this command lists. */
        int listed = 0;
        for (const struct option *o = opts; o->name; o++)
            listed |= o->val == c;
        if (!listed)
            return cli_usage(cmd, "unknown option");
        if (c == CLI_OPT_DIFF_BASE) { /* list: loaded as the inputs are */
            in->diff_base = optarg;
            continue;
        }
        int r = report_option(cmd, ro, c, optarg);
        if (r < 0)
            return CLI_USAGE;
        if (r == 0) {
            r = cli_input_option(in, c, optarg);
            if (r < 0)
                return CLI_USAGE;
            if (r == 0)
                return cli_usage(cmd, "unknown option");
        }
    }
    in->skip_markers = 1;
    in->skip_inuse = !reads_inuse(cmd, ro);
    in->skip_lines = ro->by != PROFKIT_BY_LINE;
    in->skip_counters = 1; /* no report of these shows counters */
    in->filter.by_line = ro->by == PROFKIT_BY_LINE;
    return -1;
}

/* Exit status for a report's failure: bad usage (EINVAL) or bad input. */
static int report_failed(const char *cmd, const profkit_error *err)
{
    return cli_fail(cmd, err);
}

int cli_report_main(const char *cmd, const char *help, const struct option *opts, int argc,
                    char **argv, profkit_report_options *ro, cli_report_fn report)
{
    cli_input in;
    int rc = parse_report_args(cmd, help, opts, argc, argv, ro, &in);
    if (rc >= 0)
        return rc;
    if (strcmp(cmd, "peek") == 0) { /* peek RE FILE...: the pattern comes first */
        if (optind >= argc)
            return cli_usage(cmd, "no regular expression");
        ro->pattern = argv[optind++];
    }
    if (!cli_has_input(cmd, &in, argc - optind))
        return CLI_USAGE;
    profkit_error err;
    if (in.db && strcmp(cmd, "top") == 0 && !cli_transforms_active(&in)) {
        /* the engine aggregates: only the rows top prints are read */
        profkit_store *s;
        if (cli_store_open(&s, in.db, &err) != 0)
            return cli_error(&err);
        const char *terms[CLI_MAX_WHERE * 2];
        profkit_store_query q;
        db_query(&q, terms, &in, NULL, 0);
        if (profkit_store_report_top(stdout, s, &q, ro, &err) != 0)
            rc = report_failed(cmd, &err);
        else
            rc = CLI_OK;
        profkit_store_close(s);
        return rc;
    }
    profkit_profile *p, *base = NULL;
    if ((rc = cli_load(&p, argv + optind, argc - optind, &in)) != 0)
        return rc;
    if (in.diff_base) { /* list --diff-base: read, symbolized and filtered as NEW */
        char *files[1] = { (char *)in.diff_base };
        if ((rc = cli_load(&base, files, 1, &in)) != 0) {
            profkit_profile_free(p);
            return rc;
        }
        ro->base = base;
    }
    profkit_symbolize_options so; /* list --disasm finds the binaries again */
    symbolize_options(&in, &so);
    if (!ro->symbols)
        ro->symbols = &so; /* warned about while symbolizing: no warnings now */
    if (report(stdout, p, ro, &err) != 0)
        rc = report_failed(cmd, &err);
    profkit_profile_free(p);
    profkit_profile_free(base);
    return rc;
}

int cli_report2_main(const char *cmd, const char *help, const struct option *opts, int argc,
                     char **argv, profkit_report_options *ro, cli_report2_fn report)
{
    cli_input in;
    int rc = parse_report_args(cmd, help, opts, argc, argv, ro, &in);
    if (rc >= 0)
        return rc;
    profkit_profile *a = NULL, *b = NULL;
    if (in.db) {
        /* BASE and NEW: the profiles of --base-where and of --new-where */
        if (argc > optind)
            return cli_usage(cmd, "takes BASE and NEW FILEs or --db, not both");
        if (!cli_has_input(cmd, &in, 0))
            return CLI_USAGE;
        if (!CLI_HAS_BASE(&in) || !CLI_HAS_NEW(&in))
            return cli_usage(cmd, "with --db, name BASE and NEW with --base-where and --new-where");
        if ((rc = cli_load_db(&a, &in, in.base_where, in.n_base_where)) != 0 ||
            (rc = cli_load_db(&b, &in, in.new_where, in.n_new_where)) != 0) {
            profkit_profile_free(a);
            return rc;
        }
    } else {
        if (in.ids_arg || in.base_ids_arg || in.new_ids_arg)
            return cli_usage(cmd, "--ids, --base-ids and --new-ids select profiles of a store: add --db DB");
        if (in.n_base_where || in.n_new_where || in.n_where || in.has_since || in.has_until)
            return cli_usage(cmd, "--where, --base-where and --new-where select profiles of a store: add --db DB");
        if (argc - optind != 2)
            return cli_usage(cmd, argc - optind < 2 ? "needs two input files, BASE and NEW"
                                                    : "takes two input files, BASE and NEW, not %d",
                             argc - optind);
        if ((rc = cli_load(&a, argv + optind, 1, &in)) != 0 ||
            (rc = cli_load(&b, argv + optind + 1, 1, &in)) != 0) {
            profkit_profile_free(a);
            return rc;
        }
    }
    profkit_error err;
    int r = report(stdout, a, b, ro, &err);
    if (r < 0)
        rc = report_failed(cmd, &err);
    else if (r > 0)
        rc = CLI_GATE_FAILED;
    profkit_profile_free(a);
    profkit_profile_free(b);
    return rc;
}

char *cli_title(char *const *files, int n, const char *sep)
{
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(files[i]) + strlen(sep);
    char *t = malloc(len);
    if (!t)
        return NULL;
    t[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(t, sep);
        strcat(t, files[i]);
    }
    return t;
}

const char **cli_input_args(const cli_input *in, char *const *files, int nfiles, size_t *n)
{
    size_t cap = (size_t)(nfiles > 0 ? nfiles : 0) + 6 +
                 2 * (in->n_where + in->n_base_where + in->n_new_where) + 6;
    const char **a = malloc(cap * sizeof(*a));
    if (!a)
        return NULL;
    size_t k = 0;
    if (in->db) {
        a[k++] = "--db";
        a[k++] = in->db;
        for (size_t i = 0; i < in->n_where; i++)
            a[k++] = "--where", a[k++] = in->where[i];
        if (in->has_since && in->since_arg)
            a[k++] = "--since", a[k++] = in->since_arg;
        if (in->has_until && in->until_arg)
            a[k++] = "--until", a[k++] = in->until_arg;
        if (in->ids_arg)
            a[k++] = "--ids", a[k++] = in->ids_arg;
        for (size_t i = 0; i < in->n_base_where; i++)
            a[k++] = "--base-where", a[k++] = in->base_where[i];
        if (in->base_ids_arg)
            a[k++] = "--base-ids", a[k++] = in->base_ids_arg;
        for (size_t i = 0; i < in->n_new_where; i++)
            a[k++] = "--new-where", a[k++] = in->new_where[i];
        if (in->new_ids_arg)
            a[k++] = "--new-ids", a[k++] = in->new_ids_arg;
    } else {
        for (int i = 0; i < nfiles; i++)
            a[k++] = files[i];
    }
    *n = k;
    return a;
}
