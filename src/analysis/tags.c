/*
 * tags.c: sample labels as pprof reads them (its -tags report and its
 * label options -tagfocus, -tagignore, -tagshow, -taghide, -tagroot,
 * -tagleaf), and pprof's units (its measurement package) they are printed
 * and compared in. The rulings are in docs/formats/pprof.md ("Labels").
 *
 *   - A numeric label's unit for -tags and for ranges is its key's: the
 *     first unit a label of that key gives, else "bytes" for the keys
 *     `alignment` and `request`, else the key itself (pprof's
 *     NumLabelUnits).
 *   - tagfocus/tagignore take `[KEY=]VALUE`. A VALUE that is a range
 *     (`64b`, `1kb:1mb`, `:2kb`, `2kb:`, a number and an optional unit
 *     word each) matches numeric labels (of KEY, or of any key) whose
 *     value, in the range's unit, is inside it; a label whose unit is of
 *     another kind never matches. Any other VALUE is a comma-separated list
 *     of regular expressions (POSIX extended, unanchored): with KEY, a
 *     sample matches when one of them matches one of KEY's string values;
 *     without, when each matches one "key:value" of the sample.
 *   - tagshow/taghide drop the labels whose key does not match / matches.
 *   - tagroot/tagleaf (comma-separated keys) add a frame per key above the
 *     root / below the leaf, first key outermost, named by the sample's
 *     values of that key joined by "," (its numbers scaled, when they have
 *     units); the frame's file is the key. A sample without a value gets
 *     a frame "<unknown>" without a file (pprof's frame has an empty name,
 *     which pprof's reports print so, one row for every key).
 * In pprof's order: tagroot and tagleaf first, then the samples by
 * tagfocus and tagignore, then the labels by tagshow and taghide.
 */
#include "analysis/tags.h"
#include "util/buf.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- pprof's units ---- */

typedef struct unit_def {
    const char *name;
    const char *aliases[4];
    double factor;
} unit_def;

typedef struct unit_kind {
    const unit_def *units;
    size_t n;
    unit_def deflt;
} unit_kind;

static const unit_def mem_units[] = {
    { "B", { "b", "byte" }, 1 },
    { "kB", { "kb", "kbyte", "kilobyte" }, 1024.0 },
    { "MB", { "mb", "mbyte", "megabyte" }, 1048576.0 },
    { "GB", { "gb", "gbyte", "gigabyte" }, 1073741824.0 },
    { "TB", { "tb", "tbyte", "terabyte" }, 1099511627776.0 },
    { "PB", { "pb", "pbyte", "petabyte" }, 1125899906842624.0 },
};
static const unit_def time_units[] = {
    { "ns", { "ns", "nanosecond" }, 1 },
    { "us", { "\xce\xbcs", "us", "microsecond" }, 1e3 },
    { "ms", { "ms", "millisecond" }, 1e6 },
    { "s", { "s", "sec", "second" }, 1e9 },
    { "hrs", { "hour", "hr" }, 3.6e12 },
};
static const unit_def gcu_units[] = {
    { "n*GCU", { "nanogcu" }, 1e-9 }, { "u*GCU", { "microgcu" }, 1e-6 },
    { "m*GCU", { "milligcu" }, 1e-3 }, { "GCU", { "gcu" }, 1 },
    { "k*GCU", { "kilogcu" }, 1e3 },  { "M*GCU", { "megagcu" }, 1e6 },
    { "G*GCU", { "gigagcu" }, 1e9 },  { "T*GCU", { "teragcu" }, 1e12 },
    { "P*GCU", { "petagcu" }, 1e15 },
};
static const unit_kind kinds[3] = {
    { mem_units, 6, { "B", { "b", "byte" }, 1 } },
    { time_units, 5, { "s", { NULL }, 1e9 } },
    { gcu_units, 9, { "GCU", { NULL }, 1 } },
};

/* The unit a name stands for in kind k: lower case, a plural 's' dropped
 * past two letters; NULL when none. */
static const unit_def *sniff(const unit_kind *k, const char *name)
{
    char low[64];
    size_t n = strlen(name);
    if (n >= sizeof(low))
        return NULL;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[n] = '\0';
    if (n > 2 && low[n - 1] == 's')
        low[n - 1] = '\0';
    for (size_t i = 0; i < k->n; i++)
        for (size_t a = 0; a < 4 && k->units[i].aliases[a]; a++)
            if (strcmp(low, k->units[i].aliases[a]) == 0)
                return &k->units[i];
    return NULL;
}

double pk_pprof_scale(int64_t value, const char *from, const char *to, const char **unit)
{
    if (value < 0 && value != INT64_MIN) {
        double v = pk_pprof_scale(-value, from, to, unit);
        return -v;
    }
    for (int k = 0; k < 3; k++) {
        const unit_def *f = sniff(&kinds[k], from);
        if (!f)
            continue;
        double v = (double)value * f->factor;
        if (strcmp(to, "minimum") == 0 || strcmp(to, "auto") == 0) {
            double best = 0;
            const char *name = NULL;
            for (size_t i = 0; i < kinds[k].n; i++)
                if (kinds[k].units[i].factor >= best && v / kinds[k].units[i].factor >= 1.0) {
                    best = kinds[k].units[i].factor;
                    name = kinds[k].units[i].name;
                }
            if (name) {
                *unit = name;
                return v / best;
            }
            *unit = kinds[k].deflt.name;
            return v / kinds[k].deflt.factor;
        }
        const unit_def *t = sniff(&kinds[k], to);
        if (!t)
            t = &kinds[k].deflt;
        *unit = t->name;
        return v / t->factor;
    }
    if (!strcmp(to, "count") || !strcmp(to, "sample") || !strcmp(to, "unit") ||
        !strcmp(to, "minimum") || !strcmp(to, "auto"))
        *unit = "";
    else
        *unit = to;
    return (double)value;
}

size_t pk_pprof_label(char *buf, size_t n, int64_t value, const char *from, const char *to)
{
    const char *u;
    double v = pk_pprof_scale(value, from, to, &u);
    char num[64];
    snprintf(num, sizeof(num), "%.2f", v);
    size_t len = strlen(num);
    if (len >= 3 && strcmp(num + len - 3, ".00") == 0)
        num[len -= 3] = '\0';
    int w = strcmp(num, "0") == 0 || strcmp(num, "-0") == 0 ? snprintf(buf, n, "0")
                                                            : snprintf(buf, n, "%s%s", num, u);
    return w < 0 ? 0 : (size_t)w < n ? (size_t)w : n ? n - 1 : 0;
}

const char *pk_pprof_percentage(char *buf, size_t n, int64_t value, int64_t total)
{
    double r = total != 0 ? fabs((double)value / (double)total) * 100 : 0;
    if (r >= 99.95 && r <= 100.05)
        snprintf(buf, n, "  100%%");
    else if (r >= 1.0)
        snprintf(buf, n, "%5.2f%%", r);
    else
        snprintf(buf, n, "%5.2g%%", r);
    return buf;
}

/* ---- the unit of each key ---- */

const char *pk_label_key_unit(const profkit_profile *p, uint32_t key)
{
    for (size_t i = 0; i < p->n_labels; i++)
        if (p->labels[i].key == key && p->labels[i].is_num && p->labels[i].unit)
            return pk_str(p, p->labels[i].unit);
    const char *k = pk_str(p, key);
    if (strcmp(k, "alignment") == 0 || strcmp(k, "request") == 0)
        return "bytes";
    return k;
}

/* ---- ranges ---- */

/* The next "[+-]?DIGITS[ALPHA]*" in s from *pos: its start and end, the
 * number (the digits, saturated) and the unit word; 0 when none. */
static int next_number(const char *s, size_t *pos, size_t *start, size_t *end, int64_t *v,
                       char *unit, size_t unit_cap, int *overflow)
{
    size_t i = *pos;
    for (; s[i]; i++) {
        size_t j = i;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (!isdigit((unsigned char)s[j]))
            continue;
        int neg = s[i] == '-';
        uint64_t acc = 0;
        *overflow = 0;
        for (; isdigit((unsigned char)s[j]); j++) {
            if (acc > (UINT64_MAX - 9) / 10)
                *overflow = 1;
            acc = acc * 10 + (uint64_t)(s[j] - '0');
        }
        if (acc > (uint64_t)INT64_MAX + (neg ? 1 : 0))
            *overflow = 1;
        *v = neg ? (acc > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)acc) : (int64_t)acc;
        size_t u = j;
        while (isalpha((unsigned char)s[j]))
            j++;
        size_t ul = j - u < unit_cap - 1 ? j - u : unit_cap - 1;
        memcpy(unit, s + u, ul);
        unit[ul] = '\0';
        *start = i;
        *end = j;
        *pos = j;
        return 1;
    }
    return 0;
}

int pk_tag_range_parse(const char *s, pk_tag_range *r)
{
    memset(r, 0, sizeof(*r));
    size_t pos = 0, s0, e0, s1, e1;
    int64_t v0, v1;
    char u0[32], u1[32];
    int of0 = 0, of1 = 0;
    if (!next_number(s, &pos, &s0, &e0, &v0, u0, sizeof(u0), &of0))
        return 0;
    int two = next_number(s, &pos, &s1, &e1, &v1, u1, sizeof(u1), &of1);
    size_t len = strlen(s);
    const char *unit;
    r->lo = pk_pprof_scale(v0, u0, u0, &unit);
    snprintf(r->unit, sizeof(r->unit), "%s", unit);
    if (!two) {
        if (s0 == 0 && e0 == len) {
            r->has_lo = r->has_hi = 1;
            r->hi = r->lo;
        } else if (s0 == 0 && e0 + 1 == len && s[e0] == ':') {
            r->has_lo = 1;
        } else if (s0 == 1 && s[0] == ':' && e0 == len) {
            r->has_hi = 1;
            r->hi = r->lo;
        } else {
            return 0;
        }
    } else {
        if (!(s0 == 0 && s[e0] == ':' && s1 == e0 + 1 && e1 == len))
            return 0;
        const char *unit2;
        r->hi = pk_pprof_scale(v1, u1, r->unit, &unit2);
        if (strcmp(unit2, r->unit) != 0)
            return 0;
        r->has_lo = r->has_hi = 1;
    }
    if (of0 || (two && of1))
        return -1;
    return 1;
}

int pk_tag_range_match(const pk_tag_range *r, int64_t v, const char *unit)
{
    const char *u;
    double x = pk_pprof_scale(v, unit, r->unit, &u);
    if (strcmp(u, r->unit) != 0)
        return 0;
    return (!r->has_lo || x >= r->lo) && (!r->has_hi || x <= r->hi);
}

/* ---- the filters ---- */

enum { TF_MAX_RE = 16 };

typedef struct tag_filter {
    int active;
    uint32_t key;      /* wanted key's string id; PROFKIT_NONE: absent from the profile */
    int has_key;
    int is_range;
    pk_tag_range range;
    regex_t re[TF_MAX_RE];
    size_t n_re;
} tag_filter;

static void tag_filter_free(tag_filter *f)
{
    for (size_t i = 0; i < f->n_re; i++)
        regfree(&f->re[i]);
    f->n_re = 0;
}

static int bad_re(profkit_error *err, const char *opt, const char *pat, regex_t *re, int e)
{
    char msg[256];
    regerror(e, re, msg, sizeof(msg));
    return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "%s: bad regular expression '%s': %s",
                             opt, pat, msg);
}

static int tag_filter_compile(tag_filter *f, const profkit_profile *p, const char *opt,
                              const char *spec, profkit_error *err)
{
    memset(f, 0, sizeof(*f));
    if (!spec || !*spec)
        return 0;
    f->active = 1;
    const char *eq = strchr(spec, '=');
    const char *value = spec;
    if (eq) {
        f->has_key = 1;
        f->key = pk_strtab_find(&p->strings, spec, (size_t)(eq - spec));
        value = eq + 1;
    }
    int rr = pk_tag_range_parse(value, &f->range);
    if (rr < 0)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                 "%s: the number in '%s' does not fit in 64 bits", opt, value);
    if (rr > 0) {
        f->is_range = 1;
        return 0;
    }
    const char *s = value;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (f->n_re == TF_MAX_RE)
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                     "%s: more than %d comma-separated regular expressions", opt,
                                     TF_MAX_RE);
        char *pat = malloc(len + 1);
        if (!pat)
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        memcpy(pat, s, len);
        pat[len] = '\0';
        int e = regcomp(&f->re[f->n_re], pat, REG_EXTENDED | REG_NOSUB);
        if (e != 0) {
            int rc = bad_re(err, opt, pat, &f->re[f->n_re], e);
            free(pat);
            return rc;
        }
        free(pat);
        f->n_re++;
        if (!comma)
            break;
        s = comma + 1;
    }
    return 0;
}

/* Whether the labels l[0..n) match f. */
static int tag_filter_match(const tag_filter *f, const profkit_profile *p,
                            const char *const *key_unit, const profkit_label *l, size_t n)
{
    if (f->has_key && f->key == PROFKIT_NONE)
        return 0;
    if (f->is_range) {
        for (size_t i = 0; i < n; i++)
            if (l[i].is_num && (!f->has_key || l[i].key == f->key) &&
                pk_tag_range_match(&f->range, l[i].num, key_unit[l[i].key]))
                return 1;
        return 0;
    }
    if (f->has_key) {
        for (size_t i = 0; i < n; i++)
            if (!l[i].is_num && l[i].key == f->key)
                for (size_t k = 0; k < f->n_re; k++)
                    if (regexec(&f->re[k], pk_str(p, l[i].str), 0, NULL, 0) == 0)
                        return 1;
        return 0;
    }
    char buf[4096];
    for (size_t k = 0; k < f->n_re; k++) {
        int hit = 0;
        for (size_t i = 0; i < n && !hit; i++) {
            if (l[i].is_num)
                continue;
            snprintf(buf, sizeof(buf), "%s:%s", pk_str(p, l[i].key), pk_str(p, l[i].str));
            hit = regexec(&f->re[k], buf, 0, NULL, 0) == 0;
        }
        if (!hit)
            return 0;
    }
    return 1;
}

int pk_tags_active(const profkit_filter_options *o)
{
    return o && ((o->tagfocus && *o->tagfocus) || (o->tagignore && *o->tagignore) ||
                 (o->tagshow && *o->tagshow) || (o->taghide && *o->taghide) ||
                 (o->tagroot && *o->tagroot) || (o->tagleaf && *o->tagleaf));
}

/* The string id of each key of tagroot / tagleaf (spec split at ','; empty
 * names dropped), interned: the key is the file of its frames. */
static int split_keys(profkit_profile *p, const char *spec, uint32_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!spec)
        return 0;
    size_t cap = 1;
    for (const char *c = spec; *c; c++)
        cap += *c == ',';
    if (!(*out = malloc(cap * sizeof(uint32_t))))
        return PROFKIT_ENOMEM;
    const char *s = spec;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len && ((*out)[(*n)++] = profkit_string_intern(p, s, len)) == PROFKIT_NONE)
            return PROFKIT_ENOMEM;
        if (!comma)
            break;
        s = comma + 1;
    }
    return 0;
}

/* The name of the frame key k gives a sample of labels l[0..n): its string
 * values, then its numbers (scaled when the key's labels in this sample
 * have units, left out when none has), joined by ','. *has: whether the
 * sample has a value of k there (pprof's match of -tagroot/-tagleaf). */
static int label_frame_name(const profkit_profile *p, uint32_t k, const profkit_label *l, size_t n,
                            pk_buf *b, int *has)
{
    pk_buf_clear(b);
    int any_unit = 0;
    *has = 0;
    for (size_t i = 0; i < n; i++) {
        if (l[i].key != k)
            continue;
        if (!l[i].is_num) {
            *has = 1;
            if (b->len)
                pk_buf_putc(b, ',');
            pk_buf_put(b, pk_str(p, l[i].str), pk_strtab_len(&p->strings, l[i].str));
        } else if (l[i].unit) {
            any_unit = 1;
        }
    }
    if (any_unit) {
        char num[96];
        *has = 1;
        for (size_t i = 0; i < n; i++) {
            if (l[i].key != k || !l[i].is_num)
                continue;
            size_t w = pk_pprof_label(num, sizeof(num), l[i].num, pk_str(p, l[i].unit), "minimum");
            if (b->len)
                pk_buf_putc(b, ',');
            pk_buf_put(b, num, w);
        }
    }
    return pk_buf_error(b) ? PROFKIT_ENOMEM : 0;
}

int pk_tags_frame_name(const profkit_profile *p, uint32_t key, const profkit_label *l, size_t n,
                       pk_buf *b, int *has)
{
    return label_frame_name(p, key, l, n, b, has);
}

/* tagroot / tagleaf: new stacks for every row (newstack per row).
 * *rootm / *leafm: whether a row had a value of a root / leaf key. */
static int add_label_frames(profkit_profile *p, const uint32_t *roots, size_t n_roots,
                            const uint32_t *leaves, size_t n_leaves, uint32_t *row_stack, int *rootm,
                            int *leafm)
{
    pk_buf name;
    pk_buf_init(&name, 0);
    uint32_t *frames = NULL;
    size_t cap = 0;
    int rc = 0;
    for (size_t r = 0; r < p->n_samples && rc == 0; r++) {
        size_t nl = 0;
        const profkit_label *l = profkit_profile_labelset(p, pk_sample_labels(p, r), &nl);
        uint32_t st = p->sample_stack[r];
        size_t depth = pk_stack_depth(p, st), n = n_roots + depth + n_leaves;
        if (PK_VEC_RESERVE(frames, 0, cap, n) != 0) {
            rc = PROFKIT_ENOMEM;
            break;
        }
        size_t at = n_roots + depth;
        for (uint32_t c = st; c != 0; c = p->stacks[c].parent)
            frames[--at] = p->stacks[c].frame;
        for (size_t k = 0; k < n_roots + n_leaves && rc == 0; k++) {
            uint32_t key = k < n_roots ? roots[k] : leaves[k - n_roots];
            size_t slot = k < n_roots ? k : n_roots + depth + (k - n_roots);
            int has;
            if ((rc = label_frame_name(p, key, l, nl, &name, &has)) != 0)
                break;
            if (has)
                *(k < n_roots ? rootm : leafm) = 1;
            int none = !name.len;
            if (none) /* no value (or numbers without a unit): pprof's name for it */
                pk_buf_puts(&name, PK_TAG_NO_VALUE);
            profkit_function f;
            memset(&f, 0, sizeof(f));
            f.name = profkit_string_intern(p, pk_buf_cstr(&name), name.len);
            f.system_name = f.name;
            f.file = none ? 0 : key; /* one <unknown> of every key, as pprof's reports show it */
            if (f.name == PROFKIT_NONE) {
                rc = PROFKIT_ENOMEM;
                break;
            }
            profkit_frame fr;
            memset(&fr, 0, sizeof(fr));
            fr.mapping = PROFKIT_NONE;
            if ((fr.function = pk_function_add(p, &f)) == PROFKIT_NONE ||
                (frames[slot] = pk_frame_add(p, &fr)) == PROFKIT_NONE)
                rc = PROFKIT_ENOMEM;
        }
        if (rc == 0 && (row_stack[r] = pk_stack_intern_frames(p, frames, n)) == PROFKIT_NONE)
            rc = PROFKIT_ENOMEM;
    }
    free(frames);
    pk_buf_free(&name);
    return rc;
}

/* pprof's warning for a label option that matched no sample (its
 * warnNoMatches), naming the option and its expression. */
void pk_filter_warn_no_match(const profkit_filter_options *o, const char *what, const char *opt,
                             const char *expr)
{
    profkit_error w;
    pk_error_set(&w, 0, NULL, -1, "%s expression matched no samples (%s '%s')", what, opt, expr);
    o->on_warning(&w, o->payload);
}

/* pprof's note that a -tagfocus/-tagignore value is a numeric range (it
 * prints "tagfocus:Interpreted '64b' as range, not regexp"). */
static void warn_range(const profkit_filter_options *o, const char *opt, const char *spec)
{
    const char *eq = strchr(spec, '=');
    profkit_error w;
    pk_error_set(&w, 0, NULL, -1, "Interpreted '%s' as range, not regexp (%s '%s')",
                 eq ? eq + 1 : spec, opt, spec);
    o->on_warning(&w, o->payload);
}

int pk_tags_apply(profkit_profile *p, const profkit_filter_options *o, uint32_t *row_stack,
                  uint32_t *row_labels, int (*between)(void *ctx, uint32_t *row_stack), void *ctx,
                  profkit_error *err)
{
    tag_filter focus, ignore;
    regex_t show, hide;
    int have_show = 0, have_hide = 0, rc = 0;
    memset(&focus, 0, sizeof(focus));
    memset(&ignore, 0, sizeof(ignore));
    uint32_t *roots = NULL, *leaves = NULL, *keep = NULL;
    uint8_t *hits = NULL; /* per label set: HIT_* it matched */
    enum { HIT_FOCUS = 1, HIT_IGNORE = 2, HIT_SHOW = 4, HIT_HIDE = 8 };
    const char **key_unit = NULL;
    size_t n_roots = 0, n_leaves = 0;

    if ((rc = tag_filter_compile(&focus, p, "profkit_filter_options.tagfocus", o->tagfocus, err)) ||
        (rc = tag_filter_compile(&ignore, p, "profkit_filter_options.tagignore", o->tagignore, err)))
        goto done;
    if (o->tagshow && *o->tagshow) {
        int e = regcomp(&show, o->tagshow, REG_EXTENDED | REG_NOSUB);
        if (e) {
            rc = bad_re(err, "profkit_filter_options.tagshow", o->tagshow, &show, e);
            goto done;
        }
        have_show = 1;
    }
    if (o->taghide && *o->taghide) {
        int e = regcomp(&hide, o->taghide, REG_EXTENDED | REG_NOSUB);
        if (e) {
            rc = bad_re(err, "profkit_filter_options.taghide", o->taghide, &hide, e);
            goto done;
        }
        have_hide = 1;
    }
    rc = PROFKIT_ENOMEM;
    if (split_keys(p, o->tagroot, &roots, &n_roots) || split_keys(p, o->tagleaf, &leaves, &n_leaves))
        goto done;
    /* The unit of each key (the labels' keys are strings already there). */
    size_t n_strings = p->strings.n;
    if (!(key_unit = calloc(n_strings ? n_strings : 1, sizeof(*key_unit))))
        goto done;
    for (size_t i = 0; i < p->n_labels; i++)
        if (p->labels[i].is_num && !key_unit[p->labels[i].key])
            key_unit[p->labels[i].key] = pk_label_key_unit(p, p->labels[i].key);
    for (size_t i = 0; i < p->n_samples; i++)
        row_labels[i] = pk_sample_labels(p, i);
    int rootm = 0, leafm = 0;
    if ((n_roots || n_leaves) &&
        (rc = add_label_frames(p, roots, n_roots, leaves, n_leaves, row_stack, &rootm, &leafm)) != 0)
        goto done;
    if (o->on_warning) { /* in pprof's order: its tagroot step, then its filters */
        if (n_roots && !rootm)
            pk_filter_warn_no_match(o, "TagRoot", "profkit_filter_options.tagroot", o->tagroot);
        if (n_leaves && !leafm)
            pk_filter_warn_no_match(o, "TagLeaf", "profkit_filter_options.tagleaf", o->tagleaf);
        if (focus.is_range)
            warn_range(o, "profkit_filter_options.tagfocus", o->tagfocus);
        if (ignore.is_range)
            warn_range(o, "profkit_filter_options.tagignore", o->tagignore);
    }
    /* pprof filters by name before by label: what the label options
     * matched is of the rows the name filters left */
    if (between && (rc = between(ctx, row_stack)) != 0)
        goto done;
    rc = PROFKIT_ENOMEM;
    /* per label set: kept (bit 0), its set after tagshow/taghide + 1 (rest) */
    size_t n_sets = p->n_labelsets ? p->n_labelsets : 1;
    if (!(keep = calloc(n_sets, sizeof(uint32_t))) || !(hits = calloc(n_sets, 1)))
        goto done;
    profkit_label *tmp = NULL;
    size_t cap = 0;
    for (size_t s = 0; s < n_sets; s++) {
        size_t n = 0;
        const profkit_label *l = profkit_profile_labelset(p, (uint32_t)s, &n);
        int fhit = !focus.active || tag_filter_match(&focus, p, key_unit, l, n);
        int ihit = ignore.active && tag_filter_match(&ignore, p, key_unit, l, n);
        int in = fhit && !ihit;
        uint32_t set = (uint32_t)s;
        hits[s] = (uint8_t)((fhit ? HIT_FOCUS : 0) | (ihit ? HIT_IGNORE : 0));
        if (in && (have_show || have_hide) && n) {
            if (PK_VEC_RESERVE(tmp, 0, cap, n) != 0)
                break;
            size_t m = 0;
            for (size_t i = 0; i < n; i++) {
                const char *k = pk_str(p, l[i].key);
                int shown = !have_show || regexec(&show, k, 0, NULL, 0) == 0;
                int hidden = have_hide && regexec(&hide, k, 0, NULL, 0) == 0;
                hits[s] |= (uint8_t)((shown ? HIT_SHOW : 0) | (hidden ? HIT_HIDE : 0));
                if (shown && !hidden)
                    tmp[m++] = l[i];
            }
            /* l may move when the set table grows: tmp is a copy */
            if ((set = pk_labelset_intern(p, tmp, m)) == PROFKIT_NONE)
                break;
        }
        keep[s] = in ? set + 1 : 0;
        if (s + 1 == n_sets)
            rc = 0;
    }
    free(tmp);
    if (rc)
        goto done;
    int any = 0; /* what matched some row (show and hide: of a row kept) */
    for (size_t i = 0; i < p->n_samples; i++) {
        size_t s = row_labels[i] < n_sets ? row_labels[i] : 0;
        uint32_t k = keep[s];
        if (row_stack[i] == PROFKIT_NONE) /* dropped by the name filters */
            continue;
        any |= hits[s] & (HIT_FOCUS | HIT_IGNORE);
        if (!k) {
            row_stack[i] = PROFKIT_NONE;
        } else {
            any |= hits[s];
            row_labels[i] = k - 1;
        }
    }
    if (o->on_warning) { /* in pprof's order */
        if (focus.active && !(any & HIT_FOCUS))
            pk_filter_warn_no_match(o, "TagFocus", "profkit_filter_options.tagfocus", o->tagfocus);
        if (ignore.active && !(any & HIT_IGNORE))
            pk_filter_warn_no_match(o, "TagIgnore", "profkit_filter_options.tagignore", o->tagignore);
        if (have_show && !(any & HIT_SHOW))
            pk_filter_warn_no_match(o, "TagShow", "profkit_filter_options.tagshow", o->tagshow);
        if (have_hide && !(any & HIT_HIDE))
            pk_filter_warn_no_match(o, "TagHide", "profkit_filter_options.taghide", o->taghide);
    }
done:
    if (rc == PROFKIT_ENOMEM)
        pk_error_set(err, rc, NULL, -1, "out of memory filtering the profile");
    tag_filter_free(&focus);
    tag_filter_free(&ignore);
    if (have_show)
        regfree(&show);
    if (have_hide)
        regfree(&hide);
    free(roots);
    free(leaves);
    free(keep);
    free(hits);
    free(key_unit);
    return rc;
}

/* ---- the -tags report ---- */

void pk_tags_free(pk_tags *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->keys[i].values);
    free(t->keys);
    pk_strtab_free(&t->names);
    memset(t, 0, sizeof(*t));
}

typedef struct tag_entry {
    uint32_t key, name;
    int64_t value;
} tag_entry;

static int by_key_name(const void *a, const void *b)
{
    const pk_tag_key *x = a, *y = b;
    return strcmp(x->text, y->text);
}

static int by_value(const void *a, const void *b)
{
    const pk_tag_value *x = a, *y = b;
    uint64_t ax = x->value < 0 ? -(uint64_t)x->value : (uint64_t)x->value;
    uint64_t ay = y->value < 0 ? -(uint64_t)y->value : (uint64_t)y->value;
    if (ax != ay)
        return ax > ay ? -1 : 1;
    return strcmp(x->text, y->text);
}

int pk_tags_compute(pk_tags *t, const profkit_profile *p, uint32_t value, uint32_t thread)
{
    memset(t, 0, sizeof(*t));
    if (pk_strtab_init(&t->names) != 0)
        return PROFKIT_ENOMEM;
    size_t n_sets = p->n_labelsets, nv = p->n_value_types;
    if (n_sets < 2)
        return 0;
    int rc = PROFKIT_ENOMEM;
    int64_t *set_sum = calloc(n_sets, sizeof(int64_t));
    uint8_t *set_seen = calloc(n_sets, 1);
    tag_entry *e = NULL;
    size_t n_e = 0, cap_e = 0;
    pk_strtab pairs;            /* "key id:name id" to find a pair's entry */
    int pairs_ok = pk_strtab_init(&pairs) == 0;
    if (!set_sum || !set_seen || !pairs_ok)
        goto done;
    for (size_t r = 0; r < p->n_samples; r++) {
        if (thread != PROFKIT_NONE && p->sample_thread[r] != thread)
            continue;
        uint32_t s = pk_sample_labels(p, r);
        set_sum[s] = pk_sat_add(set_sum[s], p->sample_values[r * nv + value]);
        set_seen[s] = 1;
    }
    for (size_t s = 1; s < n_sets; s++) {
        if (!set_seen[s])
            continue;
        size_t n = 0;
        const profkit_label *l = profkit_profile_labelset(p, (uint32_t)s, &n);
        for (size_t i = 0; i < n; i++) {
            char text[96];
            uint32_t name;
            if (l[i].is_num) {
                size_t w = pk_pprof_label(text, sizeof(text), l[i].num,
                                               pk_label_key_unit(p, l[i].key), "minimum");
                name = pk_strtab_intern(&t->names, text, w);
            } else {
                name = pk_strtab_intern(&t->names, pk_str(p, l[i].str),
                                             pk_strtab_len(&p->strings, l[i].str));
            }
            if (name == PROFKIT_NONE)
                goto done;
            char pk[32];
            int pw = snprintf(pk, sizeof(pk), "%u:%u", l[i].key, name);
            size_t before = pairs.n;
            uint32_t id = pk_strtab_intern(&pairs, pk, (size_t)pw);
            if (id == PROFKIT_NONE)
                goto done;
            if (pairs.n > before) {
                if (PK_VEC_RESERVE(e, n_e, cap_e, 1) != 0)
                    goto done;
                e[n_e].key = l[i].key;
                e[n_e].name = name;
                e[n_e].value = 0;
                n_e++;
            }
            /* pair ids are dense from 1 ("" is 0), in entry order */
            tag_entry *x = &e[id - 1];
            x->value = pk_sat_add(x->value, set_sum[s]);
        }
    }
    /* group the entries by key */
    for (size_t i = 0; i < n_e; i++) {
        size_t k = 0;
        while (k < t->n && t->keys[k].key != e[i].key)
            k++;
        if (k == t->n) {
            pk_tag_key *nk = realloc(t->keys, (t->n + 1) * sizeof(*nk));
            if (!nk)
                goto done;
            t->keys = nk;
            memset(&t->keys[t->n++], 0, sizeof(*nk));
            t->keys[k].key = e[i].key;
            t->keys[k].text = pk_str(p, e[i].key);
        }
        pk_tag_key *tk = &t->keys[k];
        pk_tag_value *nv2 = realloc(tk->values, (tk->n + 1) * sizeof(*nv2));
        if (!nv2)
            goto done;
        tk->values = nv2;
        tk->values[tk->n].name = e[i].name;
        tk->values[tk->n].value = e[i].value;
        tk->values[tk->n].text = pk_strtab_get(&t->names, e[i].name);
        tk->n++;
        tk->total = pk_sat_add(tk->total, e[i].value);
    }
    if (t->n)
        qsort(t->keys, t->n, sizeof(*t->keys), by_key_name);
    for (size_t k = 0; k < t->n; k++)
        qsort(t->keys[k].values, t->keys[k].n, sizeof(pk_tag_value), by_value);
    rc = 0;
done:
    free(set_sum);
    free(set_seen);
    free(e);
    if (pairs_ok)
        pk_strtab_free(&pairs);
    if (rc)
        pk_tags_free(t);
    return rc;
}
