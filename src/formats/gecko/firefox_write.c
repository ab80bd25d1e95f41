/*
 * firefox_write.c: writes a profile as a processed Firefox Profiler profile
 * (what profiler.firefox.com saves and opens); docs/formats/firefox.md
 * ("Writer") has its rules.
 *
 * The output is one JSON object of the current processed version (75, the
 * version the Firefox Profiler's own loader writes; older viewers refuse
 * newer files, newer ones upgrade it):
 *   meta      interval (ms: the median time between samples of the busiest
 *             thread, 1 ms for untimed profiles), startTime (ms),
 *             categories (the profile's frame categories as they came,
 *             with colours and subcategories; then "Other", grey, the
 *             default, when none of them is grey; then one per marker
 *             category not among them), product,
 *             version 75
 *   libs      one per mapping of the profile (path, basename, build id)
 *   threads   one per thread: name, pid (a string), tid, a samples table
 *             (stack, time in ms, weight/weightType) and a markers table
 *   shared    the stack, frame, func, resource, nativeSymbol, source and
 *             sourceLocation tables and the one stringArray they index
 * Tables are struct-of-arrays. From version 71 frames and from 75 functions
 * carry a `flags` bit set saying which optional columns hold a value (the
 * others hold 0), and stacks point at their prefix through `prefixOffset`
 * (index minus prefix index, 0 for a root frame) since version 66.
 * A frame inlined into the frame above it (the model's inline_depth > 0)
 * has flags bit 1: version 71 replaced the column inlineDepth by that bit
 * (its upgrader sets it where inlineDepth > 0); the depth is the count of
 * such frames above it up to the real call, whose address they share.
 *
 * Mapping from the model:
 *   - Functions are keyed like folded labels: a named function is one
 *     Firefox function; frames of a nameless function become one function
 *     per address label ("0x4004d6"), so per-function totals in the viewer
 *     equal `profkit top` and folded output. Files become sources, modules
 *     (or else the mapping of the first frame seen) become Library resources.
 *   - One value type becomes the sample weight: --value, else the profile's
 *     default. Units count → weightType "samples", bytes → "bytes", time
 *     units → "tracing-ms" (the weight in milliseconds, written as an exact
 *     decimal). An all-ones "samples" column is left out (weight null).
 *   - Timed rows keep their time: ns → ms, relative to meta.startTime, which
 *     is the earliest sample or marker time rounded down to a millisecond;
 *     rows are sorted by time per thread (stable). Untimed (aggregated) rows
 *     become one sample each, 1 ms apart, carrying the row's value as weight;
 *     rows whose value is 0 are left out. In a timed profile a row without a
 *     time is placed at startTime.
 *   - Markers keep name, category, start/end (instant when equal; a Network
 *     marker is always an interval, which the viewer requires) and their JSON
 *     payload when it is a well-formed JSON object (else null). Beside
 *     untimed samples, marker times count from 0 (startTime 0).
 *   - Frames keep their category and subcategory (flags bit 4; a frame
 *     without one takes its caller's, as in the input), functions isJS and
 *     relevantForJS (flags bits 1 and 2) when any of their frames has it.
 * Strings are escaped and invalid UTF-8 is replaced (io/json_out.h), so the
 * output is always valid JSON.
 */
#include "formats/gecko/firefox.h"
#include "io/json_fields.h"
#include "io/json_out.h"
#include "util/map64.h"

#include <inttypes.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FF_PROCESSED_VERSION 75
#define FF_GECKO_VERSION 36
#define FF_MAX_CATEGORIES 200 /* the viewer supports at most 256 */

/* Frame and function `flags` bits (processed versions 71 and 75). */
enum {
    FRAME_INLINED = 1, /* version 71's form of inlineDepth > 0 */
    FRAME_HAS_ADDRESS = 2,
    FRAME_HAS_CATEGORY = 4,
    FRAME_HAS_LINE = 16,
    FRAME_HAS_COLUMN = 32,
    FUNC_IS_JS = 1,
    FUNC_RELEVANT_FOR_JS = 2,
    FUNC_HAS_RESOURCE = 4,
    FUNC_HAS_SOURCE = 8,
    FUNC_HAS_LINE = 16
};

/* What a marker's payload is (json_is_object). */
enum { MARKER_PAYLOAD = 1, MARKER_NETWORK = 2, MARKER_IPC = 4, MARKER_HAS_START = 8,
       MARKER_NO_TIME = 16 /* lacks the time its phase needs: not written */ };

typedef enum { W_SAMPLES, W_TRACING_MS, W_BYTES } weight_kind;

typedef struct out_func {
    uint32_t name;     /* output string */
    uint32_t resource; /* output resource or PROFKIT_NONE */
    uint32_t source;   /* output source or PROFKIT_NONE */
    uint32_t line;     /* 0 = unknown */
    uint32_t js;       /* FUNC_IS_JS, FUNC_RELEVANT_FOR_JS: from its frames */
} out_func;

typedef struct ffw {
    const profkit_profile *p;
    pk_sink *k;
    profkit_error *err;
    pk_strtab str; /* the output's stringArray */

    uint32_t value; /* weight value type, or PROFKIT_NONE */
    int value_given; /* --value chose it: no thread per other value type */
    const char *value_thread; /* a thread of another value type: its name, else NULL */
    uint32_t *rows_saved;     /* rows as bucketed (write_samples drops some): for those threads */
    weight_kind wkind;
    int ms_digits;  /* tracing-ms: weight = value / 10^ms_digits ms */
    int ms_seconds; /* tracing-ms from seconds: weight = value * 1000 */
    int timed;
    int64_t origin_ns;   /* meta.startTime in ns */
    int64_t interval_ns; /* meta.interval in ns */
    /* The input's meta (a Gecko or Firefox profile's, kept as metadata):
     * startTime, interval, profilingStartTime and profilingEndTime as they
     * came (NULL: absent or no number); with start_text, times are written
     * as the model has them (ms after that startTime, origin_ns 0). */
    const char *start_text, *interval_text, *prof_start_text, *prof_end_text;
    /* An untimed profile's wall-clock start (ms since the epoch: a bsprof's
     * start_timestamp_ms), written as meta.startTime; NULL: none. */
    const char *wall_text;

    /* A mark per string id (the generation that last met it): which
     * paused ranges a thread has written already, in one pass. */
    uint32_t *str_seen, str_gen;
    uint32_t *stack_out; /* profkit stack -> output stack (NONE: root) */
    uint32_t *stack_in;  /* output stack -> profkit stack */
    size_t n_stacks;

    uint32_t *frame_func;    /* frame -> output function */
    uint32_t *func_of_fn;    /* named profkit function -> output function */
    uint32_t *func_of_label; /* output string of an address label -> output function */
    size_t cap_func_of_label;
    out_func *funcs;
    size_t n_funcs, cap_funcs;

    uint32_t *res_of_str; /* profkit string (module/lib path) -> output resource */
    uint32_t *res_name;   /* output resource -> output string */
    size_t n_res, cap_res;
    uint32_t *src_of_str; /* profkit string (file) -> output source */
    uint32_t *src_file;   /* output source -> output string */
    size_t n_src, cap_src;

    uint32_t cat_name[FF_MAX_CATEGORIES]; /* profkit string of category i */
    size_t n_cats;
    size_t n_model_cats;  /* categories 0.. n_model_cats - 1 are the profile's frame categories */
    size_t default_cat;   /* a marker without a category: "Other" */
    size_t grey_cat;      /* the "Other" (grey) written after them, or SIZE_MAX */

    uint8_t *marker_kind; /* per marker: MARKER_* bits */
    uint32_t *rows;       /* sample rows bucketed by thread: thread t's are */
    size_t *row_start;    /* rows[row_start[t] .. row_start[t + 1]) */
    uint32_t *markers;    /* markers bucketed by thread, the same way */
    size_t *marker_start;
} ffw;

/* ------------------------------------------------------------ output */

static void put(ffw *w, const char *s) { pk_sink_puts(w->k, s); }

static void put_u64(ffw *w, uint64_t v) { pk_buf_u64(pk_sink_buf(w->k), v); }

static void put_i64(ffw *w, int64_t v) { pk_buf_i64(pk_sink_buf(w->k), v); }

/* Writes mag / 10^digits (digits <= 9) as an exact decimal, trailing zeros cut. */
static void put_scaled_u64(ffw *w, uint64_t mag, int digits)
{
    uint64_t div = 1;
    for (int i = 0; i < digits; i++)
        div *= 10;
    put_u64(w, mag / div);
    uint64_t frac = mag % div;
    if (frac == 0)
        return;
    char buf[16];
    int n = digits;
    for (int i = digits - 1; i >= 0; i--) {
        buf[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    while (n > 0 && buf[n - 1] == '0')
        n--;
    pk_sink_write(w->k, ".", 1);
    pk_sink_write(w->k, buf, (size_t)n);
}

static void put_scaled(ffw *w, int64_t v, int digits)
{
    if (v < 0) {
        pk_sink_write(w->k, "-", 1);
        put_scaled_u64(w, (uint64_t)0 - (uint64_t)v, digits);
    } else {
        put_scaled_u64(w, (uint64_t)v, digits);
    }
}

/* A time in ns as ms relative to meta.startTime (never negative unless
 * the input's startTime is kept: then as the model has it). */
static void put_time(ffw *w, int64_t t)
{
    if (t == PROFKIT_NO_TIME || (t < w->origin_ns && !w->start_text))
        t = w->origin_ns;
    int64_t d;
    if (__builtin_sub_overflow(t, w->origin_ns, &d))
        d = 0;
    put_scaled(w, d, 6);
}

/* A marker's time, or null when it has none. */
static void put_marker_time(ffw *w, int64_t t)
{
    if (t == PROFKIT_NO_TIME)
        put(w, "null");
    else
        put_time(w, t);
}

/* The metadata value of key when it is a plain finite JSON number, else NULL. */
static const char *meta_number(const profkit_profile *p, const char *key)
{
    const char *v = pk_meta_get(p, key);
    if (!v || !*v || strlen(v) > 40)
        return NULL;
    const char *q = v;
    if (*q == '-')
        q++;
    if (!(*q >= '0' && *q <= '9'))
        return NULL;
    char *end;
    double d = strtod(v, &end);
    return *end == 0 && d == d && d < 1e300 && d > -1e300 ? v : NULL;
}

static void put_weight(ffw *w, int64_t v)
{
    if (w->wkind != W_TRACING_MS) {
        put_i64(w, v);
    } else if (w->ms_seconds) {
        if (v > INT64_MAX / 1000 || v < -(INT64_MAX / 1000))
            pk_json_double(w->k, (double)v * 1000.0);
        else
            put_i64(w, v * 1000);
    } else {
        put_scaled(w, v, w->ms_digits);
    }
}

static void put_str(ffw *w, const char *s) { pk_json_cstr(w->k, s); }

/* `"key":` with a leading comma unless first. */
static void put_key(ffw *w, const char *key, int first)
{
    if (!first)
        pk_sink_write(w->k, ",", 1);
    pk_json_cstr(w->k, key);
    pk_sink_write(w->k, ":", 1);
}

/* `"key":[v, v, ...]` of n zeros: the columns every row leaves empty. */
static void put_zeros(ffw *w, const char *key, size_t n, const char *zero)
{
    put_key(w, key, 0);
    put(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            pk_sink_write(w->k, ",", 1);
        put(w, zero);
    }
    put(w, "]");
}

static int oom(ffw *w) { return pk_error_set(w->err, PROFKIT_ENOMEM, NULL, -1, "out of memory writing a Firefox profile"); }

/* ------------------------------------------------- marker payloads */

static size_t skip_ws(const uint8_t *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* End of the JSON string starting at s[i] == '"', or 0 when malformed. */
static size_t json_string_end(const uint8_t *s, size_t n, size_t i)
{
    for (i++; i < n;) {
        uint8_t c = s[i];
        if (c == '"')
            return i + 1;
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (i + 1 >= n)
                return 0;
            c = s[i + 1];
            if (c == 'u') {
                if (i + 6 > n)
                    return 0;
                for (size_t h = i + 2; h < i + 6; h++)
                    if (!((s[h] >= '0' && s[h] <= '9') || ((s[h] | 0x20) >= 'a' && (s[h] | 0x20) <= 'f')))
                        return 0;
                i += 6;
            } else if (c && strchr("\"\\/bfnrt", c)) {
                i += 2;
            } else {
                return 0;
            }
            continue;
        }
        size_t step = pk_utf8_len(s + i, n - i);
        if (!step)
            return 0;
        i += step;
    }
    return 0;
}

/* End of the JSON number at s[i], or 0. */
static size_t json_number_end(const uint8_t *s, size_t n, size_t i)
{
    size_t d;
    if (i < n && s[i] == '-')
        i++;
    if (i < n && s[i] == '0')
        i++;
    else if (i < n && s[i] >= '1' && s[i] <= '9')
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    else
        return 0;
    if (i < n && s[i] == '.') {
        for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9';)
            i++;
        if (i == d)
            return 0;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        for (d = i; i < n && s[i] >= '0' && s[i] <= '9';)
            i++;
        if (i == d)
            return 0;
    }
    return i;
}

/*
 * True when s[0..n) is exactly one JSON object (surrounding white space
 * allowed), nested at most 64 deep, with valid UTF-8: only then is a marker
 * payload copied into the output verbatim. Adds to *kind the MARKER_* bits
 * for a top-level "type" of "Network" or "IPC" and a top-level "startTime":
 * the viewer needs an end time for the first and a payload startTime for
 * the second.
 */
static int json_is_object(const uint8_t *s, size_t n, unsigned *kind)
{
    char open[64]; /* '{' or '[' per level */
    size_t depth = 0;
    size_t i = skip_ws(s, n, 0);
    if (i >= n || s[i] != '{')
        return 0;
    /* state: expecting a value (or a key right after '{' / ','). */
    for (;;) {
        i = skip_ws(s, n, i);
        if (i >= n)
            return 0;
        uint8_t c = s[i];
        /* a value */
        if (c == '{' || c == '[') {
            if (depth == sizeof(open))
                return 0;
            open[depth++] = (char)c;
            i = skip_ws(s, n, i + 1);
            if (i < n && s[i] == (c == '{' ? '}' : ']')) {
                depth--;
                i++;
                goto after_value;
            }
            if (c == '[')
                continue;
            goto key;
        } else if (c == '"') {
            if (!(i = json_string_end(s, n, i)))
                return 0;
        } else if (c == 't' && n - i >= 4 && memcmp(s + i, "true", 4) == 0) {
            i += 4;
        } else if (c == 'f' && n - i >= 5 && memcmp(s + i, "false", 5) == 0) {
            i += 5;
        } else if (c == 'n' && n - i >= 4 && memcmp(s + i, "null", 4) == 0) {
            i += 4;
        } else if (!(i = json_number_end(s, n, i))) {
            return 0;
        }
    after_value:
        for (;;) {
            if (depth == 0)
                return skip_ws(s, n, i) == n;
            i = skip_ws(s, n, i);
            if (i >= n)
                return 0;
            char close = open[depth - 1] == '{' ? '}' : ']';
            if (s[i] == close) {
                depth--;
                i++;
                continue;
            }
            if (s[i] != ',')
                return 0;
            i++;
            if (open[depth - 1] == '[')
                break; /* next array element */
            goto key;
        }
        continue;
    key:
        i = skip_ws(s, n, i);
        size_t key_start = i;
        if (i >= n || s[i] != '"' || !(i = json_string_end(s, n, i)))
            return 0;
        int is_type = depth == 1 && i - key_start == 6 && memcmp(s + key_start, "\"type\"", 6) == 0;
        if (depth == 1 && i - key_start == 11 && memcmp(s + key_start, "\"startTime\"", 11) == 0)
            *kind |= MARKER_HAS_START;
        i = skip_ws(s, n, i);
        if (i >= n || s[i] != ':')
            return 0;
        i++;
        if (is_type) {
            size_t v = skip_ws(s, n, i);
            if (n - v >= 9 && memcmp(s + v, "\"Network\"", 9) == 0)
                *kind |= MARKER_NETWORK;
            if (n - v >= 5 && memcmp(s + v, "\"IPC\"", 5) == 0)
                *kind |= MARKER_IPC;
        }
    }
}

/* ------------------------------------------------------ preparation */

static uint32_t out_string(ffw *w, const char *s, size_t len)
{
    return pk_strtab_intern(&w->str, s, len);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *bslash = strrchr(path, '\\');
    if (bslash && (!slash || bslash > slash))
        slash = bslash;
    return slash && slash[1] ? slash + 1 : path;
}

/* How the weight column of value type w->value is written (its unit). */
static void value_kind(ffw *w)
{
    const profkit_profile *p = w->p;
    w->wkind = W_SAMPLES;
    w->ms_digits = 0;
    w->ms_seconds = 0;
    const char *unit = pk_str(p, p->value_types[w->value].unit);
    static const struct {
        const char *unit;
        int digits;
    } times[] = { { "nanoseconds", 6 }, { "microseconds", 3 }, { "milliseconds", 0 }, { "seconds", -1 } };
    for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
        if (strcmp(unit, times[i].unit) == 0) {
            w->wkind = W_TRACING_MS;
            w->ms_digits = times[i].digits < 0 ? 0 : times[i].digits;
            w->ms_seconds = times[i].digits < 0;
        }
    }
    if (strcmp(unit, "bytes") == 0)
        w->wkind = W_BYTES;
}

/* Chooses the weight column and how its unit is written. */
static int choose_value(ffw *w, const profkit_write_options *o)
{
    const profkit_profile *p = w->p;
    w->value = PROFKIT_NONE;
    w->wkind = W_SAMPLES;
    if (p->n_value_types == 0 && !o->value)
        return 0;
    w->value = pk_select_value(p, o->value, w->err);
    if (w->value == PROFKIT_NONE)
        return PROFKIT_EINVAL;
    w->value_given = o->value != NULL;
    value_kind(w);
    return 0;
}

/*
 * Output stack order: the model's ids minus the root when every parent
 * precedes its child (always, for hash-consed stacks); else by depth, so a
 * prefix always comes before the stacks that extend it.
 */
static int prepare_stacks(ffw *w)
{
    const profkit_profile *p = w->p;
    size_t n = p->n_stacks;
    if (!(w->stack_out = malloc((n ? n : 1) * sizeof(uint32_t))) ||
        !(w->stack_in = malloc((n ? n : 1) * sizeof(uint32_t))))
        return oom(w);
    int ordered = 1;
    for (size_t s = 1; s < n; s++) {
        if (p->stacks[s].frame >= p->n_frames || p->stacks[s].parent >= n)
            return pk_error_set(w->err, PROFKIT_EINVAL, NULL, -1,
                                     "stack %zu has no valid frame or parent", s);
        if (p->stacks[s].parent >= s)
            ordered = 0;
    }
    w->n_stacks = n ? n - 1 : 0;
    if (n)
        w->stack_out[0] = PROFKIT_NONE;
    if (ordered) {
        for (size_t s = 1; s < n; s++) {
            w->stack_out[s] = (uint32_t)(s - 1);
            w->stack_in[s - 1] = (uint32_t)s;
        }
        return 0;
    }
    /* Counting sort by depth; a cycle (depth beyond n) is a broken model. */
    size_t *count = calloc(n + 1, sizeof(size_t));
    uint32_t *depth = malloc(n * sizeof(uint32_t));
    if (!count || !depth) {
        free(count);
        free(depth);
        return oom(w);
    }
    for (size_t s = 1; s < n; s++) {
        size_t d = 0;
        for (uint32_t q = (uint32_t)s; q != 0 && d <= n; q = p->stacks[q].parent)
            d++;
        if (d > n) {
            free(count);
            free(depth);
            return pk_error_set(w->err, PROFKIT_EINVAL, NULL, -1, "stack %zu is in a cycle", s);
        }
        depth[s] = (uint32_t)d;
        count[d]++;
    }
    size_t pos = 0;
    for (size_t d = 0; d <= n; d++) {
        size_t c = count[d];
        count[d] = pos;
        pos += c;
    }
    for (size_t s = 1; s < n; s++) {
        size_t at = count[depth[s]]++;
        w->stack_in[at] = (uint32_t)s;
        w->stack_out[s] = (uint32_t)at;
    }
    free(count);
    free(depth);
    return 0;
}

/* The output resource for profkit string `path_id` (a module or a mapping path). */
static uint32_t resource_for(ffw *w, uint32_t path_id)
{
    if (w->res_of_str[path_id] != PROFKIT_NONE)
        return w->res_of_str[path_id];
    const char *path = pk_str(w->p, path_id);
    const char *base = base_name(path);
    uint32_t name = out_string(w, base, strlen(base));
    if (name == PROFKIT_NONE || PK_VEC_RESERVE(w->res_name, w->n_res, w->cap_res, 1))
        return PROFKIT_NONE;
    w->res_name[w->n_res] = name;
    return w->res_of_str[path_id] = (uint32_t)w->n_res++;
}

static uint32_t source_for(ffw *w, uint32_t file_id)
{
    if (w->src_of_str[file_id] != PROFKIT_NONE)
        return w->src_of_str[file_id];
    const char *file = pk_str(w->p, file_id);
    uint32_t name = out_string(w, file, strlen(file));
    if (name == PROFKIT_NONE || PK_VEC_RESERVE(w->src_file, w->n_src, w->cap_src, 1))
        return PROFKIT_NONE;
    w->src_file[w->n_src] = name;
    return w->src_of_str[file_id] = (uint32_t)w->n_src++;
}

/* A new output function for frame f of profkit function fn (may be invalid). */
static uint32_t new_func(ffw *w, uint32_t f, uint32_t name)
{
    const profkit_profile *p = w->p;
    const profkit_frame *fr = &p->frames[f];
    out_func of = { name, PROFKIT_NONE, PROFKIT_NONE, 0, 0 };
    if (fr->function < p->n_functions) {
        const profkit_function *fn = &p->functions[fr->function];
        if (fn->module != 0 && fn->module < p->strings.n)
            of.resource = resource_for(w, fn->module);
        if (fn->file != 0 && fn->file < p->strings.n)
            of.source = source_for(w, fn->file);
        of.line = fn->start_line;
        if ((fn->module != 0 && of.resource == PROFKIT_NONE) || (fn->file != 0 && of.source == PROFKIT_NONE))
            return PROFKIT_NONE;
    }
    if (of.resource == PROFKIT_NONE && fr->mapping < p->n_mappings && p->mappings[fr->mapping].path != 0 &&
        (of.resource = resource_for(w, p->mappings[fr->mapping].path)) == PROFKIT_NONE)
        return PROFKIT_NONE;
    if (PK_VEC_RESERVE(w->funcs, w->n_funcs, w->cap_funcs, 1))
        return PROFKIT_NONE;
    w->funcs[w->n_funcs] = of;
    return (uint32_t)w->n_funcs++;
}

static int prepare_functions(ffw *w)
{
    const profkit_profile *p = w->p;
    size_t ns = p->strings.n ? p->strings.n : 1;
    if (!(w->frame_func = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t))) ||
        !(w->func_of_fn = malloc((p->n_functions ? p->n_functions : 1) * sizeof(uint32_t))) ||
        !(w->res_of_str = malloc(ns * sizeof(uint32_t))) ||
        !(w->src_of_str = malloc(ns * sizeof(uint32_t))))
        return oom(w);
    memset(w->func_of_fn, 0xff, (p->n_functions ? p->n_functions : 1) * sizeof(uint32_t));
    memset(w->res_of_str, 0xff, ns * sizeof(uint32_t));
    memset(w->src_of_str, 0xff, ns * sizeof(uint32_t));
    char label[64];
    for (size_t f = 0; f < p->n_frames; f++) {
        uint32_t fn = p->frames[f].function;
        /* A name is its bytes by length: pprof's may begin with or hold NUL. */
        uint32_t name_id = fn < p->n_functions ? p->functions[fn].name : 0;
        size_t name_len = fn < p->n_functions ? pk_strtab_len(&p->strings, name_id) : 0;
        uint32_t of;
        if (name_len) {
            if ((of = w->func_of_fn[fn]) == PROFKIT_NONE) {
                uint32_t s = out_string(w, pk_str(p, name_id), name_len);
                if (s == PROFKIT_NONE || (of = new_func(w, (uint32_t)f, s)) == PROFKIT_NONE)
                    return oom(w);
                w->func_of_fn[fn] = of;
            }
        } else {
            /* Nameless: one function per address label, as folded labels them. */
            size_t len = pk_frame_label(p, (uint32_t)f, 0, label, sizeof(label));
            uint32_t s = out_string(w, label, len);
            if (s == PROFKIT_NONE)
                return oom(w);
            if (s >= w->cap_func_of_label) {
                size_t old = w->cap_func_of_label;
                if (pk_grow((void **)&w->func_of_label, &w->cap_func_of_label, (size_t)s + 1,
                                 sizeof(uint32_t)))
                    return oom(w);
                memset(w->func_of_label + old, 0xff, (w->cap_func_of_label - old) * sizeof(uint32_t));
            }
            if ((of = w->func_of_label[s]) == PROFKIT_NONE) {
                if ((of = new_func(w, (uint32_t)f, s)) == PROFKIT_NONE)
                    return oom(w);
                w->func_of_label[s] = of;
            }
        }
        w->frame_func[f] = of;
        uint8_t fl = p->frames[f].flags;
        w->funcs[of].js |= (fl & PROFKIT_FRAME_JS ? FUNC_IS_JS : 0) |
                           (fl & PROFKIT_FRAME_RELEVANT_FOR_JS ? FUNC_RELEVANT_FOR_JS : 0);
    }
    return 0;
}

/*
 * meta.categories begins with the profile's frame categories as they came
 * (up to FF_MAX_CATEGORIES), else with "Other", the default.
 */
static void categories_start(ffw *w)
{
    const profkit_profile *p = w->p;
    w->n_model_cats = p->n_categories < FF_MAX_CATEGORIES ? p->n_categories : FF_MAX_CATEGORIES;
    for (size_t i = 0; i < w->n_model_cats; i++)
        w->cat_name[i] = p->categories[i].name;
    w->n_cats = w->n_model_cats;
    w->grey_cat = SIZE_MAX;
    uint32_t d = pk_default_category(p);
    if (!d || d > w->n_cats) {
        /* The viewer takes the first grey category as the default one, for
         * the frames without a category; without one it fails. */
        w->grey_cat = w->n_cats;
        w->cat_name[w->n_cats++] = 0;
    }
    w->default_cat = w->grey_cat != SIZE_MAX ? w->grey_cat : d - 1;
    for (size_t i = 0; i < w->n_model_cats; i++)
        if (strcmp(pk_str(p, w->cat_name[i]), "Other") == 0) {
            w->default_cat = i;
            break;
        }
}

/* Marker category name -> index in meta.categories ("" and "Other": the default). */
static size_t category_for(ffw *w, uint32_t name_id)
{
    const char *name = pk_str(w->p, name_id);
    if (!name[0])
        return w->default_cat;
    for (size_t i = 0; i < w->n_cats; i++)
        if (w->cat_name[i] == name_id)
            return i;
    if (strcmp(name, "Other") == 0 && w->grey_cat != SIZE_MAX)
        return w->grey_cat;
    if (w->n_cats == FF_MAX_CATEGORIES)
        return w->default_cat;
    w->cat_name[w->n_cats] = name_id;
    return w->n_cats++;
}

/*
 * Buckets ids 0..n-1 by thread (thread_of(i) >= n_threads: left out), in id
 * order within a thread: *ids and *start as rows/row_start above.
 */
static int bucket(size_t n, size_t n_threads, uint32_t (*thread_of)(const profkit_profile *, size_t),
                  const profkit_profile *p, uint32_t **ids, size_t **start)
{
    size_t *fill = NULL;
    if (!(*start = calloc(n_threads + 1, sizeof(size_t))) ||
        !(*ids = malloc((n ? n : 1) * sizeof(uint32_t))) ||
        !(fill = malloc((n_threads ? n_threads : 1) * sizeof(size_t)))) {
        free(fill);
        return PROFKIT_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        if (thread_of(p, i) < n_threads)
            (*start)[thread_of(p, i) + 1]++;
    for (size_t t = 0; t < n_threads; t++)
        (*start)[t + 1] += (*start)[t];
    memcpy(fill, *start, n_threads * sizeof(size_t));
    for (size_t i = 0; i < n; i++)
        if (thread_of(p, i) < n_threads)
            (*ids)[fill[thread_of(p, i)]++] = (uint32_t)i;
    free(fill);
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * The sampling interval: the median gap between consecutive sample times of
 * the thread with the most rows (its first 100 000), 1 ms when unknown. The
 * viewer multiplies unweighted sample counts by it to show durations.
 */
static int estimate_interval(ffw *w, size_t n_threads)
{
    const profkit_profile *p = w->p;
    size_t best = 0;
    w->interval_ns = 1000000;
    for (size_t t = 1; t < n_threads; t++)
        if (w->row_start[t + 1] - w->row_start[t] > w->row_start[best + 1] - w->row_start[best])
            best = t;
    size_t n = w->row_start[best + 1] - w->row_start[best], k = 0;
    if (!w->timed || n < 2)
        return 0;
    if (n > 100000)
        n = 100000;
    int64_t *t = malloc(n * sizeof(int64_t));
    if (!t)
        return oom(w);
    for (size_t i = 0; i < n; i++) {
        int64_t v = p->sample_time[w->rows[w->row_start[best] + i]];
        if (v != PROFKIT_NO_TIME)
            t[k++] = v;
    }
    qsort(t, k, sizeof(int64_t), cmp_i64);
    size_t m = 0;
    for (size_t i = 1; i < k; i++) /* positive gaps, in place */
        if (t[i] > t[i - 1] && (uint64_t)t[i] - (uint64_t)t[i - 1] <= INT64_MAX)
            t[m++] = t[i] - t[i - 1];
    if (m > 0) {
        qsort(t, m, sizeof(int64_t), cmp_i64);
        w->interval_ns = t[m / 2];
    }
    free(t);
    return 0;
}

static uint32_t sample_thread(const profkit_profile *p, size_t i) { return p->sample_thread[i]; }
static uint32_t marker_thread(const profkit_profile *p, size_t i) { return p->markers[i].thread; }

static int recorded_range(const profkit_profile *p, int64_t *a, int64_t *b);

/* Buckets sample rows and markers by thread and finds the time origin. */
static int prepare_samples(ffw *w, size_t n_threads)
{
    const profkit_profile *p = w->p;
    if (bucket(p->n_samples, n_threads, sample_thread, p, &w->rows, &w->row_start) ||
        bucket(p->n_markers, n_threads, marker_thread, p, &w->markers, &w->marker_start))
        return oom(w);
    w->timed = pk_profile_is_timed(p);
    int64_t t0 = INT64_MAX;
    for (size_t i = 0; i < p->n_samples; i++)
        if (p->sample_time[i] != PROFKIT_NO_TIME && p->sample_time[i] < t0)
            t0 = p->sample_time[i];
    for (size_t i = 0; i < p->n_markers; i++) {
        const profkit_marker *m = &p->markers[i];
        if (m->start != PROFKIT_NO_TIME && m->start < t0)
            t0 = m->start;
        if (m->end != PROFKIT_NO_TIME && m->end < t0)
            t0 = m->end;
    }
    for (size_t i = 0; i < p->n_counters; i++) { /* counter samples too */
        const profkit_counter *c = &p->counters[i];
        for (size_t k = c->first; !c->by_order && k < c->first + c->n && k < p->n_counter_samples; k++)
            if (p->counter_samples[k].time < t0)
                t0 = p->counter_samples[k].time;
    }
    int64_t ra, rb; /* a recorded range starts the written time line */
    if (w->timed && !meta_number(p, "startTime") && recorded_range(p, &ra, &rb) && ra < t0)
        t0 = ra;
    /* The input's startTime is kept (its times are relative to it) when
     * samples are timed or absent. Else round down to a whole millisecond
     * unless that would overflow. Untimed samples get synthetic times from
     * 0, so markers then keep theirs. */
    w->start_text = (w->timed || p->n_samples == 0) ? meta_number(p, "startTime") : NULL;
    if (w->start_text) {
        w->origin_ns = 0;
        w->interval_text = meta_number(p, "interval");
        w->prof_start_text = meta_number(p, "profilingStartTime");
        w->prof_end_text = meta_number(p, "profilingEndTime");
    } else if (t0 == INT64_MAX || (!w->timed && p->n_samples > 0)) {
        w->origin_ns = (t0 == INT64_MAX || t0 > 0) ? 0 : t0;
        if (!w->timed && w->origin_ns == 0)
            w->wall_text = meta_number(p, "start_timestamp_ms");
    } else {
        int64_t mod = ((t0 % 1000000) + 1000000) % 1000000;
        w->origin_ns = t0 >= INT64_MIN + mod ? t0 - mod : t0;
    }
    return estimate_interval(w, n_threads);
}

static int cmp_row_time(const void *ctx, uint32_t a, uint32_t b)
{
    const ffw *w = ctx;
    int64_t ta = w->p->sample_time[a], tb = w->p->sample_time[b];
    if (ta == PROFKIT_NO_TIME)
        ta = w->origin_ns;
    if (tb == PROFKIT_NO_TIME)
        tb = w->origin_ns;
    return ta < tb ? -1 : ta > tb;
}

/* ------------------------------------------------------------ writing */

static int64_t row_value(const ffw *w, uint32_t row)
{
    if (w->value == PROFKIT_NONE)
        return 1;
    return w->p->sample_values[(size_t)row * w->p->n_value_types + w->value];
}

/* The samples' threadCPUDelta column (null for a row without), when a row
 * of the thread has one. */
static void put_cpu_deltas(ffw *w, const uint32_t *rows, size_t n)
{
    const profkit_profile *p = w->p;
    size_t i = 0;
    while (i < n && pk_sample_cpu(p, rows[i]) == PK_NO_CPU)
        i++;
    if (i == n)
        return;
    put_key(w, "threadCPUDelta", 0);
    put(w, "[");
    for (i = 0; i < n; i++) {
        if (i)
            put(w, ",");
        int64_t d = pk_sample_cpu(p, rows[i]);
        if (d == PK_NO_CPU)
            put(w, "null");
        else
            put_i64(w, d);
    }
    put(w, "]");
}

/* meta.sampleUnits when the samples have CPU deltas in a known unit. */
static void put_sample_units(ffw *w)
{
    const profkit_profile *p = w->p;
    if (!p->sample_cpu || !p->sample_cpu_unit)
        return;
    put(w, ",\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\",\"threadCPUDelta\":");
    put_str(w, pk_str(p, p->sample_cpu_unit));
    put(w, "}");
}

static int write_samples(ffw *w, uint32_t t)
{
    const profkit_profile *p = w->p;
    uint32_t *rows = w->rows + w->row_start[t];
    size_t n = w->row_start[t + 1] - w->row_start[t];
    if (w->timed) {
        int sorted = 1;
        for (size_t i = 1; i < n && sorted; i++)
            sorted = cmp_row_time(w, rows[i - 1], rows[i]) <= 0;
        if (!sorted && pk_sort_u32(rows, n, cmp_row_time, w))
            return oom(w);
    }
    /* Untimed rows without weight say nothing: leave them out. */
    size_t kept = 0;
    int all_ones = 1;
    for (size_t i = 0; i < n; i++) {
        int64_t v = row_value(w, rows[i]);
        if (!w->timed && v == 0)
            continue;
        rows[kept++] = rows[i];
        all_ones &= v == 1;
    }
    n = kept;
    int with_weight = !(all_ones && w->wkind == W_SAMPLES);
    static const char *const kinds[] = { "samples", "tracing-ms", "bytes" };
    put(w, "\"samples\":{\"weightType\":");
    put_str(w, kinds[w->wkind]);
    put_key(w, "weight", 0);
    if (with_weight) {
        put(w, "[");
        for (size_t i = 0; i < n; i++) {
            if (i)
                put(w, ",");
            put_weight(w, row_value(w, rows[i]));
        }
        put(w, "]");
    } else {
        put(w, "null");
    }
    put_key(w, "stack", 0);
    put(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            put(w, ",");
        uint32_t s = p->sample_stack[rows[i]];
        uint32_t o = s < p->n_stacks ? w->stack_out[s] : PROFKIT_NONE;
        if (o == PROFKIT_NONE)
            put(w, "null");
        else
            put_u64(w, o);
    }
    put(w, "]");
    put_key(w, "time", 0);
    put(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            put(w, ",");
        if (w->timed)
            put_time(w, p->sample_time[rows[i]]);
        else
            put_u64(w, i);
    }
    put(w, "]");
    put_cpu_deltas(w, rows, n);
    put_key(w, "length", 0);
    put_u64(w, n);
    put(w, "}");
    return 0;
}

/*
 * A marker's payload, verbatim, or null. An IPC payload without startTime
 * (raw Gecko keeps the times in the marker) gets the marker's start and end
 * as "startTime"/"endTime", which the viewer reads from IPC payloads.
 */
/* `"key":value` of a field as it came, after a comma unless *first. */
static void put_field(ffw *w, const pk_json_field *f, int *first)
{
    if (!*first)
        put(w, ",");
    *first = 0;
    put(w, "\"");
    pk_sink_write(w->k, f->key, f->key_len);
    put(w, "\":");
    pk_sink_write(w->k, f->value, f->value_len);
}

static int key_is(const pk_json_field *f, const char *key)
{
    return f->key_len == strlen(key) && memcmp(f->key, key, f->key_len) == 0;
}

/*
 * A payload with a cause: its fields as they came but the cause (a raw
 * Gecko `stack` object, a processed `cause`), then `cause` with the
 * written stack and time (the other fields of a processed cause kept).
 */
static void write_caused(ffw *w, const profkit_marker *m, const profkit_marker_cause *c, const char *s,
                         size_t n)
{
    size_t pos = 0;
    pk_json_field f, old = { NULL, 0, NULL, 0 };
    int first = 1;
    put(w, "{");
    if ((w->marker_kind[m - w->p->markers] & (MARKER_IPC | MARKER_HAS_START)) == MARKER_IPC) {
        put(w, "\"startTime\":");
        put_time(w, m->start);
        put(w, ",\"endTime\":");
        put_time(w, m->end == PROFKIT_NO_TIME ? m->start : m->end);
        first = 0;
    }
    while (pk_json_next_field(s, n, &pos, &f)) {
        int object = f.value_len && f.value[0] == '{';
        if (key_is(&f, "cause") && object)
            old = f;
        if ((key_is(&f, "cause") || key_is(&f, "stack")) && object)
            continue;
        put_field(w, &f, &first);
    }
    if (!first)
        put(w, ",");
    put(w, "\"cause\":{");
    first = 1;
    for (pos = 0; old.value && pk_json_next_field(old.value, old.value_len, &pos, &f);)
        if (!key_is(&f, "time") && !key_is(&f, "stack"))
            put_field(w, &f, &first);
    if (c->time != PROFKIT_NO_TIME) {
        put(w, first ? "\"time\":" : ",\"time\":");
        put_time(w, c->time);
        first = 0;
    }
    put(w, first ? "\"stack\":" : ",\"stack\":");
    put_u64(w, w->stack_out[c->stack]);
    put(w, "}}");
}

static void write_payload(ffw *w, size_t i)
{
    const profkit_marker *m = &w->p->markers[i];
    unsigned kind = w->marker_kind[i];
    if (!(kind & MARKER_PAYLOAD)) {
        put(w, "null");
        return;
    }
    const uint8_t *s = (const uint8_t *)pk_str(w->p, m->payload);
    size_t n = w->p->strings.len[m->payload];
    const profkit_profile *p = w->p;
    if (m->cause && m->cause <= p->n_marker_causes) {
        const profkit_marker_cause *c = &p->marker_causes[m->cause - 1];
        if (c->stack != 0 && c->stack < p->n_stacks) {
            write_caused(w, m, c, (const char *)s, n);
            return;
        }
    }
    if (!(kind & MARKER_IPC) || (kind & MARKER_HAS_START)) {
        pk_sink_write(w->k, s, n);
        return;
    }
    size_t open = skip_ws(s, n, 0) + 1; /* just past the '{' */
    put(w, "{\"startTime\":");
    put_time(w, m->start);
    put(w, ",\"endTime\":");
    put_time(w, m->end == PROFKIT_NO_TIME ? m->start : m->end);
    if (s[skip_ws(s, n, open)] != '}')
        put(w, ",");
    pk_sink_write(w->k, s + open, n - open);
}

static void write_markers(ffw *w, uint32_t t)
{
    const profkit_profile *p = w->p;
    static const char *const cols[] = { "data", "name", "startTime", "endTime", "phase", "category" };
    const uint32_t *ids = w->markers + w->marker_start[t];
    size_t n = w->marker_start[t + 1] - w->marker_start[t];
    put(w, "\"markers\":{");
    size_t written = 0;
    for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
        put_key(w, cols[c], c == 0);
        put(w, "[");
        written = 0;
        for (size_t k = 0; k < n; k++) {
            size_t i = ids[k];
            const profkit_marker *m = &p->markers[i];
            if (w->marker_kind[i] & MARKER_NO_TIME)
                continue;
            if (written++)
                put(w, ",");
            /* The phase as it came; the viewer pairs Network markers by
             * start and end: never instants. */
            unsigned phase = m->phase <= PROFKIT_MARKER_END ? m->phase
                             : m->end == PROFKIT_NO_TIME || m->end == m->start ? PROFKIT_MARKER_INSTANT
                                                                                : PROFKIT_MARKER_INTERVAL;
            int64_t start = m->start, end = m->end;
            if (phase == PROFKIT_MARKER_INSTANT && (w->marker_kind[i] & MARKER_NETWORK)) {
                phase = PROFKIT_MARKER_INTERVAL;
                end = start;
            }
            if (phase == PROFKIT_MARKER_INSTANT || phase == PROFKIT_MARKER_START)
                end = PROFKIT_NO_TIME;
            else if (phase == PROFKIT_MARKER_END)
                start = PROFKIT_NO_TIME;
            else if (end == PROFKIT_NO_TIME)
                end = start;
            switch (c) {
            case 0: write_payload(w, i); break;
            case 1: {
                /* interned by write_all before any output */
                const char *name = pk_str(p, m->name);
                put_u64(w, pk_strtab_find(&w->str, name, strlen(name)));
                break;
            }
            case 2: put_marker_time(w, start); break;
            case 3: put_marker_time(w, end); break;
            case 4: put_u64(w, phase); break;
            case 5: put_u64(w, category_for(w, m->category)); break;
            }
        }
        put(w, "]");
    }
    put_key(w, "length", 0);
    put_u64(w, written);
    put(w, "}");
}

/* 1 when string id s was met before in this generation (str_gen, one per
 * list written), else marks it and 0. */
static int seen_before(ffw *w, uint32_t s)
{
    if (w->str_seen[s] == w->str_gen)
        return 1;
    w->str_seen[s] = w->str_gen;
    return 0;
}

/* Thread th's process's own paused ranges (profkit_profile.paused: those
 * of its pid, and those of no known process), each once; else none. */
static void write_paused_of(ffw *w, const profkit_thread *th)
{
    const profkit_profile *p = w->p;
    int first = 1;
    w->str_gen++;
    put(w, "[");
    for (size_t i = 0; w->start_text && i < p->n_paused; i++) {
        const struct pk_paused_range *r = &p->paused[i];
        unsigned kind = 0;
        if ((th && r->pid >= 0 && r->pid != th->pid) ||
            !json_is_object((const uint8_t *)pk_str(p, r->range), p->strings.len[r->range], &kind))
            continue;
        if (seen_before(w, r->range))
            continue;
        if (!first)
            put(w, ",");
        first = 0;
        put(w, pk_str(p, r->range));
    }
    put(w, "]");
}

/* The input's paused ranges (JSON objects as they came, each once) when
 * its times are kept (the input's startTime), else none. */
static void write_paused(ffw *w)
{
    const profkit_profile *p = w->p;
    int first = 1;
    w->str_gen++;
    put(w, "[");
    for (size_t i = 0; w->start_text && i < p->n_metadata; i++) {
        const profkit_meta *m = &p->metadata[i];
        unsigned kind = 0;
        if (strcmp(pk_str(p, m->key), "pausedRange") != 0 ||
            !json_is_object((const uint8_t *)pk_str(p, m->value), p->strings.len[m->value], &kind))
            continue;
        if (seen_before(w, m->value))
            continue;
        if (!first)
            put(w, ",");
        first = 0;
        put(w, pk_str(p, m->value));
    }
    put(w, "]");
}

/* A thread's name; a thread of another value type is "NAME (VALUE)". */
static void put_thread_name(ffw *w, const char *name)
{
    if (!w->value_thread) {
        put_str(w, name);
        return;
    }
    size_t n = strlen(name), m = strlen(w->value_thread);
    char *s = malloc(n + m + 4);
    if (!s) { /* the name alone: still a valid profile */
        put_str(w, name);
        return;
    }
    memcpy(s, name, n);
    memcpy(s + n, " (", 2);
    memcpy(s + n + 2, w->value_thread, m);
    memcpy(s + n + 2 + m, ")", 2);
    put_str(w, s);
    free(s);
}

static int write_thread(ffw *w, uint32_t t, int main_thread)
{
    const profkit_profile *p = w->p;
    const profkit_thread *th = t < p->n_threads ? &p->threads[t] : NULL;
    put(w, "{\"processType\":");
    put_str(w, th && th->process_type && pk_str(p, th->process_type)[0] ? pk_str(p, th->process_type)
                                                                      : "default");
    put(w, ",\"processStartupTime\":");
    if (th && th->process_start != PROFKIT_NO_TIME)
        put_time(w, th->process_start);
    else
        put(w, "0");
    put(w, ",\"processShutdownTime\":null,\"registerTime\":");
    if (th && th->register_time != PROFKIT_NO_TIME)
        put_time(w, th->register_time);
    else
        put(w, "0");
    put(w, ",\"unregisterTime\":null,\"pausedRanges\":");
    if (p->n_paused)
        write_paused_of(w, th);
    else
        write_paused(w);
    put(w, ",\"name\":");
    put_thread_name(w, th && pk_str(p, th->name)[0] ? pk_str(p, th->name) : "main");
    put(w, main_thread ? ",\"isMainThread\":true" : ",\"isMainThread\":false");
    if (th && pk_str(p, th->process_name)[0]) {
        put_key(w, "processName", 0);
        put_str(w, pk_str(p, th->process_name));
    }
    if (th && th->pid >= 0) { /* a pid the input had; none is invented */
        put_key(w, "pid", 0);
        put(w, "\"");
        put_i64(w, th->pid);
        put(w, "\"");
    }
    if (th && th->tid >= 0) { /* a tid the input had; none is invented */
        put_key(w, "tid", 0);
        put_i64(w, th->tid);
    }
    put(w, ",");
    int rc = write_samples(w, t);
    if (rc)
        return rc;
    put(w, ",");
    write_markers(w, t);
    put(w, "}");
    return 0;
}

static void write_libs(ffw *w)
{
    const profkit_profile *p = w->p;
    put(w, "\"libs\":[");
    for (size_t i = 0; i < p->n_mappings; i++) {
        const profkit_mapping *m = &p->mappings[i];
        const char *path = pk_str(p, m->path);
        put(w, i ? ",{\"arch\":\"\",\"name\":" : "{\"arch\":\"\",\"name\":");
        put_str(w, base_name(path));
        put_key(w, "path", 0);
        put_str(w, path);
        put_key(w, "debugName", 0);
        put_str(w, base_name(path));
        put_key(w, "debugPath", 0);
        put_str(w, path);
        put_key(w, "breakpadId", 0);
        put_str(w, pk_str(p, m->build_id));
        put(w, ",\"codeId\":null}");
    }
    put(w, "]");
}

/*
 * Untimed samples are 1 ms apart from 0, and a counter by operation order
 * (a bsprof's memory) has its operations 1 ms apart from 0 too: with such
 * a counter the profile's range (profilingStartTime/EndTime, the viewer's
 * root range) covers the samples and every operation, so the whole
 * counter is in view even where it has more operations than the threads
 * have samples.
 */
static void write_order_range(ffw *w)
{
    const profkit_profile *p = w->p;
    if (w->timed || w->start_text)
        return;
    int64_t end = -1;
    for (size_t i = 0; i < p->n_counters; i++) {
        const profkit_counter *c = &p->counters[i];
        if (c->by_order && c->n && c->first + c->n <= p->n_counter_samples &&
            p->counter_samples[c->first + c->n - 1].time >= end)
            end = p->counter_samples[c->first + c->n - 1].time + 1;
    }
    if (end < 0)
        return;
    for (size_t t = 0; t < (p->n_threads ? p->n_threads : 1); t++) {
        int64_t n = 0; /* the rows write_samples keeps: those with a value */
        for (size_t i = w->row_start[t]; i < w->row_start[t + 1]; i++)
            n += row_value(w, w->rows[i]) != 0;
        if (n > end)
            end = n;
    }
    put(w, ",\"profilingStartTime\":0,\"profilingEndTime\":");
    put_i64(w, end);
}

/*
 * The range a timed profile's input recorded (speedscope's start and end
 * values, a V8 .cpuprofile's startTime and endTime: the metadata
 * profilingStartTime/EndTime in ms on the model's time axis), in ns; 0
 * when there is none (an end of 0 is none, as the reports take it).
 */
static int recorded_range(const profkit_profile *p, int64_t *a, int64_t *b)
{
    const char *ta = meta_number(p, "profilingStartTime");
    const char *tb = meta_number(p, "profilingEndTime");
    if (!ta || !tb)
        return 0;
    double ms_a = strtod(ta, NULL), ms_b = strtod(tb, NULL);
    if (!(ms_b != 0 && ms_b >= ms_a && fabs(ms_a) < 9e12 && fabs(ms_b) < 9e12))
        return 0;
    *a = (int64_t)llround(ms_a * 1e6);
    *b = (int64_t)llround(ms_b * 1e6);
    return 1;
}

/* Such a range, when the input had no Firefox startTime (whose own range
 * is written as it came), moved to the written zero: the loader's root
 * range (its zero and its percentages) is then profkit's. Without it the
 * loader takes the samples' extent, which starts later and ends earlier
 * than the recording did. */
static void write_timed_range(ffw *w)
{
    int64_t a, b;
    if (!w->timed || w->start_text || !recorded_range(w->p, &a, &b))
        return;
    put(w, ",\"profilingStartTime\":");
    put_time(w, a);
    put(w, ",\"profilingEndTime\":");
    put_time(w, b);
}

static void write_meta(ffw *w)
{
    static const char *const colors[] = { "blue", "green", "orange", "purple", "yellow",
                                          "lightblue", "red", "brown", "magenta", "darkgrey" };
    const char *fmt = profkit_profile_format(w->p);
    put(w, "\"meta\":{\"interval\":");
    if (w->start_text && w->interval_text)
        put(w, w->interval_text);
    else
        put_scaled(w, w->interval_ns, 6);
    put(w, ",\"startTime\":");
    if (w->start_text)
        put(w, w->start_text);
    else if (w->wall_text)
        put(w, w->wall_text);
    else
        put_scaled(w, w->origin_ns, 6);
    if (w->start_text && w->prof_start_text && w->prof_end_text) {
        put(w, ",\"profilingStartTime\":");
        put(w, w->prof_start_text);
        put(w, ",\"profilingEndTime\":");
        put(w, w->prof_end_text);
    }
    write_timed_range(w);
    write_order_range(w);
    /* What made the profile: the input's product (Gecko), else an app's
     * name, version and device (bsprof's header), else the format. */
    const char *product = pk_meta_get(w->p, "product");
    if (!product || !*product)
        product = pk_meta_get(w->p, "target_name");
    put(w, ",\"processType\":0,\"product\":");
    put_str(w, product && *product ? product : fmt[0] ? fmt : "profkit");
    static const char *const app_meta[][2] = { { "appBuildID", "target_version" },
                                               { "oscpu", "device_firmware" } };
    for (size_t i = 0; i < sizeof app_meta / sizeof app_meta[0]; i++) {
        const char *v = pk_meta_get(w->p, app_meta[i][1]);
        if (v && *v) {
            put(w, ",\"");
            put(w, app_meta[i][0]);
            put(w, "\":");
            put_str(w, v);
        }
    }
    const char *vendor = pk_meta_get(w->p, "device_vendor"), *model = pk_meta_get(w->p, "device_model");
    if ((vendor && *vendor) || (model && *model)) {
        char dev[512];
        snprintf(dev, sizeof dev, "%s%s%s", vendor ? vendor : "", vendor && *vendor && model && *model ? " " : "",
                 model ? model : "");
        put(w, ",\"device\":");
        put_str(w, dev);
    }
    put(w, ",\"importedFrom\":\"profkit\",\"stackwalk\":1,\"symbolicated\":true,"
           "\"usesOnlyOneStackType\":true,\"keepProfileThreadOrder\":true,\"markerSchema\":[],"
           "\"version\":");
    put_u64(w, FF_GECKO_VERSION);
    put(w, ",\"preprocessedProfileVersion\":");
    put_u64(w, FF_PROCESSED_VERSION);
    put_sample_units(w);
    put(w, ",\"categories\":[");
    const profkit_profile *p = w->p;
    for (size_t i = 0; i < w->n_cats; i++) {
        const profkit_category *c = i < w->n_model_cats ? &p->categories[i] : NULL;
        put(w, i ? ",{\"name\":" : "{\"name\":");
        put_str(w, i == w->grey_cat ? "Other" : pk_str(p, w->cat_name[i]));
        put(w, ",\"color\":");
        if (c && c->color && pk_str(p, c->color)[0])
            put_str(w, pk_str(p, c->color));
        else if (i == w->grey_cat)
            put_str(w, "grey");
        else
            put_str(w, colors[(i ? i - 1 : 0) % (sizeof(colors) / sizeof(colors[0]))]);
        put(w, ",\"subcategories\":[");
        if (c && c->n_subcategories) {
            for (uint32_t k = 0; k < c->n_subcategories; k++) {
                if (k)
                    put(w, ",");
                put_str(w, pk_str(p, p->subcategories[c->first_subcategory + k]));
            }
        } else {
            put(w, "\"Other\"");
        }
        put(w, "]}");
    }
    put(w, "]}");
}

/* ---- shared tables: one column at a time ---- */

/* The value of row i of a column. */
typedef uint64_t (*column_fn)(const ffw *w, size_t i);

/* `,"key":[v0,v1,...]` over rows 0..n-1. */
static void put_column(ffw *w, const char *key, size_t n, column_fn fn)
{
    put_key(w, key, 0);
    put(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            pk_sink_write(w->k, ",", 1);
        put_u64(w, fn(w, i));
    }
    put(w, "]");
}

/* `"name":{"length":n` opening a table; columns follow with put_column. */
static void open_table(ffw *w, const char *name, size_t n, int first)
{
    put_key(w, name, first);
    put(w, "{\"length\":");
    put_u64(w, n);
}

static uint64_t stack_frame(const ffw *w, size_t i) { return w->p->stacks[w->stack_in[i]].frame; }
static uint64_t stack_prefix_offset(const ffw *w, size_t i)
{
    uint32_t parent = w->p->stacks[w->stack_in[i]].parent;
    return parent == 0 ? 0 : i - w->stack_out[parent];
}

/* Address and lib only where the frame's mapping is known. */
static int frame_in_lib(const ffw *w, size_t i)
{
    const profkit_frame *fr = &w->p->frames[i];
    return fr->address != 0 && fr->mapping < w->p->n_mappings;
}
/* A frame's category as written: 1 + its index, 0 = none (it takes its caller's). */
static size_t frame_cat(const ffw *w, size_t i)
{
    uint16_t c = w->p->frames[i].category;
    return c <= w->n_model_cats ? c : 0;
}
static uint64_t frame_category(const ffw *w, size_t i)
{
    size_t c = frame_cat(w, i);
    return c ? c - 1 : 0;
}
static uint64_t frame_subcategory(const ffw *w, size_t i)
{
    size_t c = frame_cat(w, i);
    uint8_t s = w->p->frames[i].subcategory;
    return c && s < w->p->categories[c - 1].n_subcategories ? s : 0;
}
static uint64_t frame_flags(const ffw *w, size_t i)
{
    const profkit_frame *fr = &w->p->frames[i];
    return (fr->inline_depth ? FRAME_INLINED : 0) | (fr->line ? FRAME_HAS_LINE : 0) |
           (frame_cat(w, i) ? FRAME_HAS_CATEGORY : 0) |
           (fr->column ? FRAME_HAS_COLUMN : 0) |
           (frame_in_lib(w, i) ? FRAME_HAS_ADDRESS : 0);
}
static uint64_t frame_address(const ffw *w, size_t i)
{
    const profkit_frame *fr = &w->p->frames[i];
    if (!frame_in_lib(w, i))
        return 0;
    const profkit_mapping *m = &w->p->mappings[fr->mapping];
    return fr->address >= m->start && fr->address < m->end ? fr->address - m->start + m->offset
                                                           : fr->address;
}
static uint64_t frame_lib(const ffw *w, size_t i) { return frame_in_lib(w, i) ? w->p->frames[i].mapping : 0; }
static uint64_t frame_function(const ffw *w, size_t i) { return w->frame_func[i]; }
static uint64_t frame_line(const ffw *w, size_t i) { return w->p->frames[i].line; }
static uint64_t frame_column(const ffw *w, size_t i) { return w->p->frames[i].column; }

static uint64_t func_name(const ffw *w, size_t i) { return w->funcs[i].name; }
static uint64_t func_flags(const ffw *w, size_t i)
{
    const out_func *f = &w->funcs[i];
    return f->js | (f->resource != PROFKIT_NONE ? FUNC_HAS_RESOURCE : 0) |
           (f->source != PROFKIT_NONE ? FUNC_HAS_SOURCE : 0) | (f->line ? FUNC_HAS_LINE : 0);
}
static uint64_t func_resource(const ffw *w, size_t i)
{
    return w->funcs[i].resource != PROFKIT_NONE ? w->funcs[i].resource : 0;
}
static uint64_t func_source(const ffw *w, size_t i)
{
    return w->funcs[i].source != PROFKIT_NONE ? w->funcs[i].source : 0;
}
static uint64_t func_line(const ffw *w, size_t i) { return w->funcs[i].line; }
static uint64_t resource_name(const ffw *w, size_t i) { return w->res_name[i]; }
static uint64_t source_file(const ffw *w, size_t i) { return w->src_file[i]; }

static void write_shared(ffw *w)
{
    size_t nf = w->p->n_frames, nfn = w->n_funcs;
    put(w, "\"shared\":{");
    open_table(w, "stackTable", w->n_stacks, 1);
    put_column(w, "frame", w->n_stacks, stack_frame);
    put_column(w, "prefixOffset", w->n_stacks, stack_prefix_offset);
    put(w, "}");

    open_table(w, "frameTable", nf, 0);
    put_column(w, "flags", nf, frame_flags);
    put_column(w, "address", nf, frame_address);
    put_column(w, "lib", nf, frame_lib);
    put_column(w, "func", nf, frame_function);
    put_column(w, "line", nf, frame_line);
    put_column(w, "column", nf, frame_column);
    put_column(w, "category", nf, frame_category);
    put_column(w, "subcategory", nf, frame_subcategory);
    put_zeros(w, "nativeSymbol", nf, "0");
    put_zeros(w, "innerWindowID", nf, "0");
    put_zeros(w, "originalLocation", nf, "0");
    put(w, "}");

    open_table(w, "funcTable", nfn, 0);
    put_column(w, "name", nfn, func_name);
    put_column(w, "flags", nfn, func_flags);
    put_column(w, "resource", nfn, func_resource);
    put_column(w, "source", nfn, func_source);
    put_column(w, "lineNumber", nfn, func_line);
    put_zeros(w, "columnNumber", nfn, "0");
    put_zeros(w, "originalLocation", nfn, "0");
    put(w, "}");

    open_table(w, "resourceTable", w->n_res, 0);
    put_column(w, "name", w->n_res, resource_name);
    put_zeros(w, "host", w->n_res, "null");
    put_zeros(w, "type", w->n_res, "1"); /* Library */
    put(w, "}");

    open_table(w, "sources", w->n_src, 0);
    put_column(w, "filename", w->n_src, source_file);
    put_zeros(w, "id", w->n_src, "null");
    put_zeros(w, "startLine", w->n_src, "1");
    put_zeros(w, "startColumn", w->n_src, "1");
    put_zeros(w, "sourceMapURL", w->n_src, "null");
    put_zeros(w, "content", w->n_src, "null");
    put(w, "},\"nativeSymbols\":{\"length\":0,\"libIndex\":[],\"address\":[],\"name\":[],"
           "\"functionSize\":[]},"
           "\"sourceLocationTable\":{\"length\":0,\"source\":[],\"line\":[],\"column\":[]},"
           "\"stringArray\":[");
    for (size_t i = 0; i < w->str.n; i++) {
        if (i)
            put(w, ",");
        pk_json_string(w->k, pk_strtab_get(&w->str, (uint32_t)i),
                            pk_strtab_len(&w->str, (uint32_t)i));
    }
    put(w, "]}");
}

/*
 * How the viewer draws a counter that came without its own `display`
 * (raw Gecko, older processed files): what the viewer gives such a counter
 * when it processes or upgrades the file, by category: a memory graph
 * (the running sum of the counts, in bytes), a power graph (picowatt-
 * hours per sample), else a plain rate graph named after the counter.
 */
static void put_counter_display(ffw *w, const char *category, const char *name)
{
    if (strcmp(category, "Memory") == 0) {
        put(w, "{\"graphType\":\"line-accumulated\",\"unit\":\"bytes\",\"color\":\"orange\","
               "\"markerSchemaLocation\":\"timeline-memory\",\"sortWeight\":20,\"label\":\"Memory\","
               "\"tooltipRows\":[{\"type\":\"value\",\"source\":\"accumulated\",\"format\":{\"unit\":\"bytes\"},"
               "\"label\":\"relative memory at this time\",\"labelKey\":\"memory-relative\"},"
               "{\"type\":\"value\",\"source\":\"count-range\",\"format\":{\"unit\":\"bytes\"},"
               "\"label\":\"memory range in graph\",\"labelKey\":\"memory-range\"},"
               "{\"type\":\"value\",\"source\":\"sample-number\",\"format\":{\"unit\":\"number\"},"
               "\"label\":\"allocations and deallocations since the previous sample\","
               "\"labelKey\":\"memory-operations\"}]}");
        return;
    }
    int power = strcmp(category, "power") == 0;
    put(w, power ? "{\"graphType\":\"line-rate\",\"unit\":\"pWh\",\"color\":\"grey\","
                   "\"markerSchemaLocation\":null,\"sortWeight\":30,\"label\":"
                 : "{\"graphType\":\"line-rate\",\"unit\":\"\",\"color\":\"grey\","
                   "\"markerSchemaLocation\":null,\"sortWeight\":50,\"label\":");
    put_str(w, name);
    if (power) {
        put(w, ",\"tooltipRows\":[{\"type\":\"value\",\"source\":\"count\",\"format\":{\"unit\":\"number\","
               "\"co2\":\"per-watthour\",\"scale\":\"power\"},\"label\":\"Power\",\"labelKey\":\"power\"},"
               "{\"type\":\"value\",\"source\":\"selection-total\",\"format\":{\"unit\":\"number\","
               "\"co2\":\"per-watthour\",\"scale\":\"energy\"},\"label\":\"Energy used in the current selection\","
               "\"labelKey\":\"power-energy-preview\",\"requiresPreviewSelection\":true},"
               "{\"type\":\"value\",\"source\":\"selection-rate\",\"format\":{\"unit\":\"number\","
               "\"co2\":\"per-watthour\",\"scale\":\"power\"},\"label\":\"Average power in the current selection\","
               "\"labelKey\":\"power-average-preview\",\"requiresPreviewSelection\":true},"
               "{\"type\":\"value\",\"source\":\"committed-range-total\",\"format\":{\"unit\":\"number\","
               "\"co2\":\"per-watthour\",\"scale\":\"energy\"},\"label\":\"Energy used in the visible range\","
               "\"labelKey\":\"power-energy-range\"}]}");
        return;
    }
    put(w, ",\"tooltipRows\":[{\"type\":\"value\",\"source\":\"count\",\"format\":{\"unit\":\"number\"},"
           "\"label\":");
    put_str(w, name);
    put(w, "}]}");
}

/*
 * The counters (processed form: samples with time, count and number
 * columns), each on its thread's output index (mainThreadIndex); a
 * counter of a thread left out (--thread) is left out. A counter by
 * operation order (bsprof) gets a time of 1 ms per operation, as untimed
 * samples do.
 */
static void write_counters(ffw *w, uint32_t only)
{
    const profkit_profile *p = w->p;
    put(w, "\"counters\":[");
    int first = 1;
    for (size_t i = 0; i < p->n_counters; i++) {
        const profkit_counter *c = &p->counters[i];
        if (c->thread >= p->n_threads || (only != PROFKIT_NONE && c->thread != only))
            continue; /* a counter belongs to a thread's process in the viewer */
        size_t out_thread = 0;
        for (uint32_t t = 0; c->thread != PROFKIT_NONE && t < c->thread && t < p->n_threads; t++)
            out_thread += only == PROFKIT_NONE || t == only;
        put(w, first ? "{\"name\":" : ",{\"name\":");
        first = 0;
        put_str(w, pk_str(p, c->name));
        put_key(w, "category", 0);
        put_str(w, pk_str(p, c->category));
        put_key(w, "description", 0);
        put_str(w, pk_str(p, c->description));
        /* the pid of its thread as written (none when the thread has none:
         * the viewer matches the two) */
        int64_t pid = p->threads[c->thread].pid;
        if (pid >= 0) {
            put_key(w, "pid", 0);
            put(w, "\"");
            put_i64(w, pid);
            put(w, "\"");
        }
        put_key(w, "display", 0);
        unsigned kind = 0;
        if (c->display && c->display < p->strings.n &&
            json_is_object((const uint8_t *)pk_str(p, c->display), p->strings.len[c->display], &kind))
            put(w, pk_str(p, c->display));
        else
            put_counter_display(w, pk_str(p, c->category), pk_str(p, c->name));
        put_key(w, "mainThreadIndex", 0);
        put_u64(w, out_thread);
        put(w, ",\"samples\":{\"time\":[");
        size_t end = c->first + c->n <= p->n_counter_samples ? c->first + c->n : c->first;
        for (size_t k = c->first; k < end; k++) {
            if (k > c->first)
                put(w, ",");
            if (c->by_order) /* its operation index, as 1 ms each */
                put_scaled(w, p->counter_samples[k].time < INT64_MAX / 1000000 ? p->counter_samples[k].time * 1000000 : INT64_MAX, 6);
            else
                put_time(w, p->counter_samples[k].time);
        }
        put(w, "],\"count\":[");
        for (size_t k = c->first; k < end; k++) {
            if (k > c->first)
                put(w, ",");
            put_i64(w, p->counter_samples[k].count);
        }
        put(w, "],\"number\":[");
        for (size_t k = c->first; k < end; k++) {
            if (k > c->first)
                put(w, ",");
            put_i64(w, p->counter_samples[k].number);
        }
        put(w, "],\"length\":");
        put_u64(w, end - c->first);
        put(w, "}}");
    }
    put(w, "],");
}

/*
 * Whether value v of thread t says more than the default value def: a row
 * with v other than 0, and v not the same multiple of def on every row (a
 * pprof CPU profile's cpu is its samples times the period: a thread of it
 * would be the same samples again).
 */
static int thread_has_value(const ffw *w, uint32_t t, uint32_t v, uint32_t def)
{
    const profkit_profile *p = w->p;
    size_t nv = p->n_value_types;
    int ref = 0;
    __int128 rv = 0, rd = 0; /* a row's (v, def), def != 0: the ratio */
    for (size_t i = w->row_start[t]; i < w->row_start[t + 1]; i++) {
        const int64_t *x = &p->sample_values[(size_t)w->rows_saved[i] * nv];
        if (x[def] == 0) {
            if (x[v] != 0)
                return 1; /* a value where the default has none */
            continue;
        }
        if (!ref) {
            ref = 1, rv = x[v], rd = x[def];
            continue;
        }
        if ((__int128)x[v] * rd != rv * (__int128)x[def])
            return 1;
    }
    return 0;
}

/* Whether threads of other value types are written (write_value_threads). */
static int value_threads_wanted(const ffw *w)
{
    return !w->timed && !w->value_given && w->value != PROFKIT_NONE && w->p->n_value_types >= 2;
}

/* Keeps the rows as bucketed for write_value_threads. */
static int save_rows(ffw *w)
{
    if (!value_threads_wanted(w) || w->p->n_samples == 0)
        return 0;
    if (!(w->rows_saved = malloc(w->p->n_samples * sizeof(uint32_t))))
        return oom(w);
    memcpy(w->rows_saved, w->rows, w->p->n_samples * sizeof(uint32_t));
    return 0;
}

/*
 * Every other value type of an untimed profile (a bsprof's wall, calls and
 * memory values, a pprof's several sample types): a Firefox thread's
 * samples have one weight, so each (thread, value type) with a value
 * that is not the default one's times a constant becomes one more thread, "NAME (VALUE)", with that value as
 * its weight, after every thread of the default value type (so their
 * indexes, and the counters' mainThreadIndex, stay as they were), as the
 * Firefox Profiler's own importers do for DHAT's several measures. Not
 * when --value chose one value type, for timed samples (a sample is one
 * event in time) or for a thread with markers (they are written once).
 */
static int write_value_threads(ffw *w, uint32_t only, int *first)
{
    const profkit_profile *p = w->p;
    uint32_t def = w->value;
    if (!value_threads_wanted(w) || !w->rows_saved)
        return 0;
    int rc = 0;
    for (uint32_t t = 0; t < p->n_threads && !rc; t++) {
        if ((only != PROFKIT_NONE && t != only) || w->marker_start[t + 1] != w->marker_start[t])
            continue;
        for (uint32_t v = 0; v < p->n_value_types && !rc; v++) {
            if (v == def || !thread_has_value(w, t, v, def))
                continue;
            memcpy(w->rows + w->row_start[t], w->rows_saved + w->row_start[t],
                   (w->row_start[t + 1] - w->row_start[t]) * sizeof(uint32_t));
            w->value = v;
            value_kind(w);
            w->value_thread = pk_str(p, p->value_types[v].type);
            if (!*first)
                put(w, ",");
            *first = 0;
            rc = write_thread(w, t, 0);
        }
    }
    w->value = def;
    value_kind(w);
    w->value_thread = NULL;
    return rc;
}

static int write_all(ffw *w, const profkit_write_options *o)
{
    const profkit_profile *p = w->p;
    int ok, rc;
    if ((rc = choose_value(w, o)) != 0)
        return rc;
    uint32_t only = pk_select_thread(p, o->thread, &ok, w->err);
    if (!ok)
        return PROFKIT_EINVAL;
    if ((rc = prepare_stacks(w)) || (rc = prepare_functions(w)) || (rc = prepare_samples(w, p->n_threads ? p->n_threads : 1)))
        return rc;
    /* Marker categories and names must be known before meta and stringArray. */
    size_t no_time = 0;
    categories_start(w);
    if (!(w->marker_kind = calloc(p->n_markers ? p->n_markers : 1, 1)))
        return oom(w);
    for (size_t i = 0; i < p->n_markers; i++) {
        const profkit_marker *m = &p->markers[i];
        const char *name = pk_str(p, m->name);
        unsigned kind = 0;
        category_for(w, m->category);
        if (out_string(w, name, strlen(name)) == PROFKIT_NONE)
            return oom(w);
        if (m->payload != 0 && m->payload < p->strings.n &&
            json_is_object((const uint8_t *)pk_str(p, m->payload), p->strings.len[m->payload], &kind))
            w->marker_kind[i] = (uint8_t)(MARKER_PAYLOAD | kind);
        int64_t needed = m->phase == PROFKIT_MARKER_END ? m->end : m->start;
        if (needed == PROFKIT_NO_TIME && (only == PROFKIT_NONE || m->thread == only)) {
            w->marker_kind[i] |= MARKER_NO_TIME;
            no_time++;
        }
    }
    if (no_time && o->on_warning) {
        profkit_error warn;
        pk_error_set(&warn, PROFKIT_EUNSUPPORTED, NULL, -1,
                     "a Firefox profile's markers have times: %zu markers without one are left out", no_time);
        o->on_warning(&warn, o->payload);
    }

    if (!(w->str_seen = calloc(p->strings.n ? p->strings.n : 1, sizeof(uint32_t))))
        return oom(w);
    put(w, "{");
    write_meta(w);
    put(w, ",");
    write_libs(w);
    put(w, ",\"threads\":[");
    if (p->n_threads == 0) {
        /* A profile without threads still opens: one empty thread. */
        if ((rc = write_thread(w, 0, 1)) != 0)
            return rc;
    }
    if ((rc = save_rows(w)) != 0)
        return rc;
    int first = 1;
    pk_map64 pids = { 0 }; /* the processes whose main thread is written */
    for (uint32_t t = 0; t < p->n_threads; t++) {
        if (only != PROFKIT_NONE && t != only)
            continue;
        /* The first thread of each process is its main thread. */
        int main_thread = pk_map64_put(&pids, (uint64_t)p->threads[t].pid, 0);
        if (main_thread < 0) {
            pk_map64_free(&pids);
            return oom(w);
        }
        if (!first)
            put(w, ",");
        first = 0;
        if ((rc = write_thread(w, t, !main_thread)) != 0) {
            pk_map64_free(&pids);
            return rc;
        }
    }
    pk_map64_free(&pids);
    if ((rc = write_value_threads(w, only, &first)) != 0)
        return rc;
    put(w, "],");
    write_counters(w, only);
    if (w->str.n == 0 || w->str.n > (size_t)UINT32_MAX - 1)
        return oom(w);
    write_shared(w);
    put(w, "}\n");
    return 0;
}

int pk_firefox_write(const profkit_profile *p, pk_sink *sink, const profkit_write_options *o,
                          profkit_error *err)
{
    ffw w;
    memset(&w, 0, sizeof(w));
    w.p = p;
    w.k = sink;
    w.err = err;
    if (pk_strtab_init(&w.str))
        return oom(&w);
    int rc = write_all(&w, o);
    pk_strtab_free(&w.str);
    free(w.rows_saved);
    free(w.str_seen);
    free(w.stack_out);
    free(w.stack_in);
    free(w.frame_func);
    free(w.func_of_fn);
    free(w.func_of_label);
    free(w.funcs);
    free(w.res_of_str);
    free(w.res_name);
    free(w.src_of_str);
    free(w.src_file);
    free(w.rows);
    free(w.marker_kind);
    free(w.row_start);
    free(w.markers);
    free(w.marker_start);
    return rc;
}
