/*
 * filter.c: the sample filters of pprof (-focus, -ignore, -hide, -show,
 * -show_from, -prune_from) as a transform on the profile.
 *
 * Each regular expression (POSIX extended) is matched against a frame's
 * function name (the address as 0x... when it has none), or against
 * "file:line" when o->by_line is set. pprof also matches file and mapping
 * names; profkit matches only the label a report prints, so a pattern
 * means the same in every command. The steps run in pprof's order:
 *
 *   1. focus/ignore on the stack as recorded: a sample is kept when a frame
 *      matches focus (or focus is unset and a frame is not ignored) and no
 *      frame matches ignore;
 *   2. hide removes matching frames, show keeps only matching ones; a
 *      sample left without frames is dropped;
 *   3. show-from cuts each stack above (callers of) its outermost match and
 *      drops samples without one;
 *   4. prune-from drops the frames below (callees of) the innermost match
 *      and keeps samples without one as they are.
 *
 * With the label options, pprof's order: tagroot/tagleaf add their frames
 * first (the name filters see them), the name filters, then tagfocus,
 * tagignore, tagshow and taghide (tags.c) on the rows left. An option
 * that matched nothing is reported to o->on_warning as pprof warns.
 *
 * The new stacks are interned into the same profile (the old ones stay,
 * unreferenced) and the sample rows are rebuilt, so rows that now share a
 * stack are summed.
 */
#include "analysis/analysis.h"
#include "analysis/tags.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

enum { F_FOCUS, F_IGNORE, F_HIDE, F_SHOW, F_SHOW_FROM, F_PRUNE_FROM, F_N };

/* Each filter's API name, for messages (the command line maps them to its
 * flags). */
static const char *const option_names[F_N] = {
    "profkit_filter_options.focus", "profkit_filter_options.ignore",
    "profkit_filter_options.hide",  "profkit_filter_options.show",
    "profkit_filter_options.show_from", "profkit_filter_options.prune_from"
};

#define UNSET (PROFKIT_NONE - 1) /* newstack[] not computed yet; NONE = dropped */

struct filter {
    profkit_profile *p;
    regex_t re[F_N];
    int have[F_N];
    int by_line;
    uint8_t *frame_bits; /* per frame: bit k = matches regex k; bit 7 = computed */
    uint32_t *buf;       /* frames of one stack, root first */
    size_t cap;
};

int profkit_filter_active(const profkit_filter_options *o)
{
    return o && (o->focus || o->ignore || o->hide || o->show || o->show_from || o->prune_from ||
                 pk_tags_active(o) || o->range || o->during_marker || o->outside_marker);
}

static int names_active(const profkit_filter_options *o)
{
    return o->focus || o->ignore || o->hide || o->show || o->show_from || o->prune_from;
}

static uint8_t frame_bits(struct filter *f, uint32_t frame)
{
    uint8_t b = f->frame_bits[frame];
    if (b & 0x80)
        return b;
    char label[4096];
    if (f->by_line)
        pk_frame_key_label(f->p, frame, PROFKIT_BY_LINE, label, sizeof(label));
    else
        pk_frame_label(f->p, frame, 0, label, sizeof(label));
    b = 0x80;
    for (int k = 0; k < F_N; k++)
        if (f->have[k] && regexec(&f->re[k], label, 0, NULL, 0) == 0)
            b |= (uint8_t)(1u << k);
    return f->frame_bits[frame] = b;
}

#define HAS(bits, k) (((bits) >> (k)) & 1u)

/* The filtered stack of model stack s: its new id, or PROFKIT_NONE when
 * the sample is dropped, or UNSET when out of memory. */
static uint32_t filter_stack(struct filter *f, uint32_t s)
{
    profkit_profile *p = f->p;
    size_t n = pk_stack_depth(p, s);
    if (n > f->cap) {
        uint32_t *nb = realloc(f->buf, n * sizeof(uint32_t));
        if (!nb)
            return UNSET;
        f->buf = nb;
        f->cap = n;
    }
    uint32_t *fr = f->buf;
    size_t i = n;
    for (uint32_t c = s; c != 0; c = p->stacks[c].parent)
        fr[--i] = p->stacks[c].frame;
    if (f->have[F_FOCUS] || f->have[F_IGNORE]) {
        int focused = 0;
        for (i = 0; i < n; i++) {
            uint8_t b = frame_bits(f, fr[i]);
            if (f->have[F_IGNORE] && HAS(b, F_IGNORE))
                return PROFKIT_NONE;
            if (!f->have[F_FOCUS] || HAS(b, F_FOCUS))
                focused = 1;
        }
        if (!focused)
            return PROFKIT_NONE;
    }
    if (f->have[F_HIDE] || f->have[F_SHOW]) {
        size_t m = 0;
        for (i = 0; i < n; i++) {
            uint8_t b = frame_bits(f, fr[i]);
            if ((f->have[F_HIDE] && HAS(b, F_HIDE)) || (f->have[F_SHOW] && !HAS(b, F_SHOW)))
                continue;
            fr[m++] = fr[i];
        }
        if (m == 0)
            return PROFKIT_NONE;
        n = m;
    }
    if (f->have[F_SHOW_FROM]) {
        for (i = 0; i < n && !HAS(frame_bits(f, fr[i]), F_SHOW_FROM); i++)
            ;
        if (i == n)
            return PROFKIT_NONE;
        fr += i;
        n -= i;
    }
    if (f->have[F_PRUNE_FROM]) {
        for (i = n; i-- > 0;)
            if (HAS(frame_bits(f, fr[i]), F_PRUNE_FROM)) {
                n = i + 1;
                break;
            }
    }
    uint32_t id = pk_stack_intern_frames(p, fr, n);
    return id == PROFKIT_NONE ? UNSET : id;
}

/* Rebuilds the sample rows from the old ones with stacks newstack[] (of
 * row_stack[r] when the label options gave rows new stacks, and label sets
 * row_labels[r] then; both NULL otherwise). */
int pk_filter_rebuild_samples(profkit_profile *p, const uint32_t *newstack, const uint32_t *row_stack,
                              const uint32_t *row_labels)
{
    uint32_t *stack = p->sample_stack, *thread = p->sample_thread, *labels = p->sample_labels;
    int64_t *time = p->sample_time, *values = p->sample_values, *cpu = p->sample_cpu;
    size_t n = p->n_samples, nv = p->n_value_types;
    p->sample_cpu = NULL;
    p->sample_stack = p->sample_thread = p->sample_labels = NULL;
    p->sample_time = p->sample_values = NULL;
    p->n_samples = p->cap_samples = p->samples_indexed = 0;
    pk_idset_free(&p->sample_set);
    memset(&p->sample_set, 0, sizeof(p->sample_set));
    int rc = 0;
    for (size_t r = 0; r < n && rc == 0; r++) {
        uint32_t s = row_stack ? row_stack[r] : stack[r];
        if (s == PROFKIT_NONE || (newstack && (s = newstack[s]) == PROFKIT_NONE))
            continue;
        uint32_t ls = row_labels ? row_labels[r] : labels ? labels[r] : 0;
        rc = time[r] == PROFKIT_NO_TIME
                 ? pk_sample_add_labeled(p, s, thread[r], ls, values + r * nv)
                 : pk_sample_add_timed_labeled(p, s, thread[r], time[r], ls, values + r * nv);
        /* a timed row is a row of its own: its CPU delta goes with it */
        if (rc == 0 && cpu && time[r] != PROFKIT_NO_TIME && cpu[r] != PK_NO_CPU)
            rc = pk_sample_set_cpu(p, p->n_samples - 1, cpu[r]);
    }
    free(cpu);
    free(labels);
    free(stack);
    free(thread);
    free(time);
    free(values);
    return rc;
}

/* pprof's warnings for the name filters that matched nothing: each
 * regular expression against every frame of the rows' stacks (stacks
 * row_stack[r]) before any is dropped, as pprof matches its locations:
 * Focus a frame that Ignore does not match, ShowFrom a frame that Hide
 * and Show leave. */
static int warn_names(struct filter *f, const profkit_filter_options *o, const uint32_t *row_stack)
{
    profkit_profile *p = f->p;
    uint8_t *seen = calloc(p->n_stacks ? p->n_stacks : 1, 1);
    if (!seen)
        return PROFKIT_ENOMEM;
    enum { M_FOCUS = 1, M_IGNORE = 2, M_HIDE = 4, M_SHOW = 8, M_SHOW_FROM = 16 };
    unsigned m = 0;
    for (size_t r = 0; r < p->n_samples; r++)
        for (uint32_t c = row_stack[r]; c != PROFKIT_NONE && c != 0 && !seen[c];
             c = p->stacks[c].parent) {
            seen[c] = 1;
            uint8_t b = frame_bits(f, p->stacks[c].frame);
            int ign = f->have[F_IGNORE] && HAS(b, F_IGNORE);
            int gone = (f->have[F_HIDE] && HAS(b, F_HIDE)) || (f->have[F_SHOW] && !HAS(b, F_SHOW));
            m |= (HAS(b, F_FOCUS) && !ign ? M_FOCUS : 0) | (ign ? M_IGNORE : 0) |
                 (HAS(b, F_HIDE) ? M_HIDE : 0) | (HAS(b, F_SHOW) ? M_SHOW : 0) |
                 (HAS(b, F_SHOW_FROM) && !gone ? M_SHOW_FROM : 0);
        }
    free(seen);
    static const char *const what[] = { "Focus", "Ignore", "Hide", "Show", "ShowFrom" };
    const char *pat[] = { o->focus, o->ignore, o->hide, o->show, o->show_from };
    for (int k = 0; k <= F_SHOW_FROM; k++)
        if (f->have[k] && !(m & (1u << k)))
            pk_filter_warn_no_match(o, what[k], option_names[k], pat[k]);
    return 0;
}

struct names_step {
    struct filter *f;
    const profkit_filter_options *o;
};

/* The name filters on the rows: row_stack[r] becomes the filtered stack
 * (PROFKIT_NONE: dropped). 0 or PROFKIT_ENOMEM. */
static int names_step(void *ctx, uint32_t *row_stack)
{
    struct names_step *ns = ctx;
    struct filter *f = ns->f;
    profkit_profile *p = f->p;
    if (!names_active(ns->o))
        return 0;
    /* frames and stacks as they are now (tagroot's frames added) */
    size_t n_stacks = p->n_stacks;
    f->frame_bits = calloc(p->n_frames ? p->n_frames : 1, 1);
    uint32_t *newstack = malloc((n_stacks ? n_stacks : 1) * sizeof(uint32_t));
    int rc = !f->frame_bits || !newstack ? PROFKIT_ENOMEM : 0;
    if (rc == 0 && ns->o->on_warning)
        rc = warn_names(f, ns->o, row_stack);
    for (size_t s = 0; rc == 0 && s < n_stacks; s++)
        newstack[s] = UNSET;
    for (size_t r = 0; rc == 0 && r < p->n_samples; r++) {
        uint32_t s = row_stack[r];
        if (s == PROFKIT_NONE)
            continue;
        if (newstack[s] == UNSET && (newstack[s] = filter_stack(f, s)) == UNSET)
            rc = PROFKIT_ENOMEM;
        row_stack[r] = newstack[s];
    }
    free(newstack);
    return rc;
}

int profkit_profile_filter(profkit_profile *p, const profkit_filter_options *o, profkit_error *err)
{
    if (!profkit_filter_active(o))
        return 0;
    /* A time range chooses the profile looked at: the whole totals the
     * percentages are of are those inside it. */
    if (o->range || o->during_marker || o->outside_marker) {
        int trc = pk_profile_filter_time(p, o, err);
        if (trc != 0 || !(names_active(o) || pk_tags_active(o)))
            return trc;
    }
    if (pk_note_whole_totals(p) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory filtering the profile");
    struct filter f;
    memset(&f, 0, sizeof(f));
    f.p = p;
    f.by_line = o->by_line;
    const char *pat[F_N] = { o->focus, o->ignore, o->hide, o->show, o->show_from, o->prune_from };
    int rc = 0;
    for (int k = 0; k < F_N && rc == 0; k++) {
        if (!pat[k])
            continue;
        int e = regcomp(&f.re[k], pat[k], REG_EXTENDED | REG_NOSUB);
        if (e != 0) {
            char msg[256];
            regerror(e, &f.re[k], msg, sizeof(msg));
            rc = pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                   "%s: bad regular expression '%s': %s", option_names[k], pat[k],
                                   msg);
            break;
        }
        f.have[k] = 1;
    }
    /* Each row's stack as it goes through the steps, in pprof's order:
     * tagroot and tagleaf add frames (which the name filters see), the
     * name filters, then tagfocus/tagignore and tagshow/taghide. */
    size_t n = p->n_samples ? p->n_samples : 1;
    uint32_t *row_stack = NULL, *row_labels = NULL;
    struct names_step ns = { &f, o };
    int tags = pk_tags_active(o);
    if (rc == 0) {
        row_stack = malloc(n * sizeof(uint32_t));
        row_labels = tags ? malloc(n * sizeof(uint32_t)) : NULL;
        if (!row_stack || (tags && !row_labels))
            rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory filtering the profile");
        for (size_t r = 0; rc == 0 && r < p->n_samples; r++)
            row_stack[r] = p->sample_stack[r];
    }
    if (rc == 0) {
        if (tags)
            rc = pk_tags_apply(p, o, row_stack, row_labels, names_step, &ns, err);
        else if ((rc = names_step(&ns, row_stack)) != 0)
            pk_error_set(err, rc, NULL, -1, "out of memory filtering the profile");
    }
    if (rc == 0 && (rc = pk_filter_rebuild_samples(p, NULL, row_stack, row_labels)) != 0)
        pk_error_set(err, rc, NULL, -1, "out of memory filtering the profile");
    for (int k = 0; k < F_N; k++)
        if (f.have[k])
            regfree(&f.re[k]);
    free(f.frame_bits);
    free(f.buf);
    free(row_stack);
    free(row_labels);
    return rc;
}
