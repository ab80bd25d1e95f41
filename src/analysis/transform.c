/*
 * transform.c: the ordered stack of transforms (docs/transforms.md), each
 * a rewrite of the profile's stacks, with the meaning of the Firefox
 * Profiler's transforms of the same names:
 *
 *   merge RE             the matching functions' frames leave every stack;
 *                        their self time goes to their caller
 *   merge-node PATH      the one call node at PATH leaves the tree; its
 *                        children hang from its parent
 *   root-at RE           samples through a matching frame, each stack cut
 *                        above its outermost match (all call sites combined)
 *   focus-subtree PATH   samples through the call node PATH, re-rooted at it
 *   focus-category NAME  only the frames of the category NAME stay (a
 *                        stack's category is its frame's, else its
 *                        caller's, as the Firefox Profiler's); samples
 *                        with none of them go
 *   collapse-recursion RE       a matching function called from within
 *                        itself (directly or through others) becomes its
 *                        outermost call: the frames between leave
 *   collapse-direct-recursion RE  only a call straight from itself
 *   collapse-module RE   a run of frames of one module (library, else the
 *                        mapping's file, else the source file) matching RE
 *                        becomes one frame named after it (its base name)
 *   filter               pprof's filters (filter.c) as one step
 *
 * A PATH is function labels from the root joined with ';' ("main;run;f"),
 * each compared whole with the label reports print. Each step maps every
 * stack a sample uses to a new one in one pass over the stack table in id
 * order (a parent precedes its children), from its parent's new stack and
 * its own frame, so a step is linear in the stacks whatever their depth.
 * The new stacks are interned into the same profile and the sample rows
 * rebuilt, as the filters do.
 */
#include "analysis/analysis.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[PROFKIT_TRANSFORM_N] = {
    "filter", "merge", "merge-node", "root-at", "focus-subtree", "focus-category",
    "collapse-recursion", "collapse-direct-recursion", "collapse-module",
};

const char *profkit_transform_name(profkit_transform_kind k)
{
    return (unsigned)k < PROFKIT_TRANSFORM_N ? kind_names[k] : NULL;
}

int profkit_transform_kind_of(const char *name)
{
    for (int k = 0; name && k < PROFKIT_TRANSFORM_N; k++)
        if (strcmp(name, kind_names[k]) == 0)
            return k;
    return -1;
}

#define DROP (PROFKIT_NONE - 1) /* ns[]: the sample is dropped (PROFKIT_NONE at the end) */

/* The stack (parent, frame), with out of memory in *rc: old stack `self`
 * when that is what it is (most stacks of most steps: no lookup, so the
 * stack index is not built when nothing changes), else interned. */
static uint32_t child(profkit_profile *p, size_t self, uint32_t parent, uint32_t frame, int *rc)
{
    if (p->stacks[self].parent == parent && p->stacks[self].frame == frame)
        return (uint32_t)self;
    uint32_t id = pk_stack_intern(p, parent, frame);
    if (id == PROFKIT_NONE) {
        *rc = PROFKIT_ENOMEM;
        return DROP;
    }
    return id;
}

struct step {
    profkit_profile *p;
    const profkit_transform *t;
    size_t n0;         /* stacks before the step: the ones mapped */
    size_t nf0;        /* frames before the step: the ones matched */
    regex_t re;
    int have_re;
    uint8_t *fbits;    /* per frame: 0x80 computed, 1 matches RE */
    uint32_t *fextra;  /* per frame: path component + 1 (0 = not computed), or the
                          frame a module collapses into (fbits says computed) */
    uint16_t *cat;     /* focus-category: each stack's category (1 + index) */
    uint16_t want_cat; /* ... and the one kept */
    char **comp;       /* PATH's components */
    uint32_t *first;   /* first[j]: the first component equal to comp[j] */
    size_t k;          /* components */
    char *pathbuf;
};

/* The label a frame matches: its function's name (as the filters match). */
static void frame_text(const profkit_profile *p, uint32_t frame, char *buf, size_t n)
{
    pk_frame_label(p, frame, 0, buf, n);
}

static int frame_matches(struct step *s, uint32_t frame)
{
    uint8_t b = s->fbits[frame];
    if (!(b & 0x80)) {
        char label[4096];
        frame_text(s->p, frame, label, sizeof(label));
        b = (uint8_t)(0x80 | (regexec(&s->re, label, 0, NULL, 0) == 0));
        s->fbits[frame] = b;
    }
    return b & 1;
}

/* The first PATH component equal to the frame's label, or s->k. */
static uint32_t frame_component(struct step *s, uint32_t frame)
{
    uint32_t c = s->fextra[frame];
    if (c)
        return c - 1;
    char label[4096];
    frame_text(s->p, frame, label, sizeof(label));
    for (c = 0; c < s->k && strcmp(label, s->comp[c]) != 0; c++)
        ;
    s->fextra[frame] = c + 1;
    return c;
}

/* The name of a frame's module: the function's module, else the mapping's
 * file, else the function's source file; "" when none. */
static const char *frame_module(const profkit_profile *p, uint32_t frame)
{
    const profkit_frame *f = &p->frames[frame];
    const profkit_function *fn = f->function < p->n_functions ? &p->functions[f->function] : NULL;
    if (fn && fn->module)
        return pk_str(p, fn->module);
    if (f->mapping != PROFKIT_NONE && f->mapping < p->n_mappings && p->mappings[f->mapping].path)
        return pk_str(p, p->mappings[f->mapping].path);
    if (fn && fn->file)
        return pk_str(p, fn->file);
    return "";
}

/* The frame a module's frames collapse into, PROFKIT_NONE when the frame's
 * module does not match, or PROFKIT_NONE - 1 when out of memory. */
static uint32_t module_frame(struct step *s, uint32_t frame)
{
    if (s->fbits[frame] & 0x80) /* computed: fextra holds the frame, or none */
        return (s->fbits[frame] & 1) ? s->fextra[frame] : PROFKIT_NONE;
    const char *mod = frame_module(s->p, frame);
    uint32_t out = PROFKIT_NONE;
    if (*mod && regexec(&s->re, mod, 0, NULL, 0) == 0) {
        /* named by the module's base name; one function and frame per
         * module: both tables are hash-consed */
        const char *slash = strrchr(mod, '/');
        uint32_t fn = pk_function_add_named(s->p, slash && slash[1] ? slash + 1 : mod, NULL, mod, 0);
        if (fn == PROFKIT_NONE)
            return PROFKIT_NONE - 1;
        profkit_frame fr;
        memset(&fr, 0, sizeof(fr));
        fr.function = fn;
        fr.mapping = PROFKIT_NONE;
        out = pk_frame_add(s->p, &fr);
        if (out == PROFKIT_NONE)
            return PROFKIT_NONE - 1;
        s->fextra[frame] = out;
    }
    s->fbits[frame] = (uint8_t)(0x80 | (out != PROFKIT_NONE));
    return out;
}

static int split_path(struct step *s, profkit_error *err)
{
    const char *path = s->t->arg;
    size_t len = strlen(path);
    if (len == 0)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "profkit_transform.%s: empty call path",
                            kind_names[s->t->kind]);
    s->pathbuf = malloc(len + 1);
    size_t parts = 1;
    for (size_t i = 0; i < len; i++)
        parts += path[i] == ';';
    s->comp = malloc(parts * sizeof(char *));
    s->first = malloc(parts * sizeof(uint32_t));
    if (!s->pathbuf || !s->comp || !s->first)
        return PROFKIT_ENOMEM;
    memcpy(s->pathbuf, path, len + 1);
    char *at = s->pathbuf;
    for (size_t j = 0; j < parts; j++) {
        char *semi = strchr(at, ';');
        if (semi)
            *semi = 0;
        if (!*at)
            return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                                "profkit_transform.%s: empty function name in call path '%s'",
                                kind_names[s->t->kind], path);
        s->comp[j] = at;
        at = semi ? semi + 1 : at + strlen(at);
    }
    s->k = parts;
    for (size_t j = 0; j < parts; j++) {
        size_t i = 0;
        while (strcmp(s->comp[i], s->comp[j]) != 0)
            i++;
        s->first[j] = (uint32_t)i;
    }
    return 0;
}

/* Marks the stacks the samples use and their ancestors. */
static void mark_needed(const profkit_profile *p, uint8_t *need)
{
    need[0] = 1;
    for (size_t r = 0; r < p->n_samples; r++)
        for (uint32_t c = p->sample_stack[r]; !need[c]; c = p->stacks[c].parent)
            need[c] = 1;
}

/* Maps every needed stack to its new id in ns[] (DROP: the sample goes). */
static int map_stacks(struct step *s, const uint8_t *need, uint32_t *ns)
{
    profkit_profile *p = s->p;
    profkit_transform_kind kind = s->t->kind;
    size_t n0 = s->n0;
    /* per stack state: matched path components (paths), whether the path
     * went through the focus (root-at, focus-subtree), the list of
     * recursion entries (collapse-recursion) */
    int32_t *m = NULL;
    uint8_t *in = NULL;
    uint32_t *head = NULL, *next = NULL;
    if (kind == PROFKIT_TRANSFORM_MERGE_NODE || kind == PROFKIT_TRANSFORM_FOCUS_SUBTREE)
        if (!(m = malloc(n0 * sizeof(int32_t))))
            return PROFKIT_ENOMEM;
    if (kind == PROFKIT_TRANSFORM_ROOT_AT || kind == PROFKIT_TRANSFORM_FOCUS_SUBTREE)
        if (!(in = calloc(n0, 1))) {
            free(m);
            return PROFKIT_ENOMEM;
        }
    if (kind == PROFKIT_TRANSFORM_COLLAPSE_RECURSION) {
        head = malloc(n0 * sizeof(uint32_t));
        next = malloc(n0 * sizeof(uint32_t));
        if (!head || !next) {
            free(head);
            free(next);
            return PROFKIT_ENOMEM;
        }
        head[0] = PROFKIT_NONE;
    }
    if (m)
        m[0] = 0;
    ns[0] = 0;
    int rc = 0;
    for (size_t i = 1; i < n0 && rc == 0; i++) {
        if (!need[i])
            continue;
        uint32_t par = p->stacks[i].parent, fr = p->stacks[i].frame, np = ns[par];
        uint32_t out = DROP;
        switch (kind) {
        case PROFKIT_TRANSFORM_MERGE:
            out = np == DROP ? DROP : frame_matches(s, fr) ? np : child(p, i, np, fr, &rc);
            break;
        case PROFKIT_TRANSFORM_FOCUS_CATEGORY:
            out = s->cat[i] != s->want_cat ? np : child(p, i, np, fr, &rc);
            break;
        case PROFKIT_TRANSFORM_MERGE_NODE: {
            int32_t mp = m[par];
            m[i] = (mp >= 0 && (size_t)mp < s->k && frame_component(s, fr) == s->first[mp]) ? mp + 1 : -1;
            out = np == DROP ? DROP : (size_t)m[i] == s->k ? np : child(p, i, np, fr, &rc);
            break;
        }
        case PROFKIT_TRANSFORM_ROOT_AT:
            if (in[par]) {
                in[i] = 1;
                out = child(p, i, np, fr, &rc);
            } else if (frame_matches(s, fr)) {
                in[i] = 1;
                out = child(p, i, 0, fr, &rc);
            }
            break;
        case PROFKIT_TRANSFORM_FOCUS_SUBTREE: {
            int32_t mp = m[par];
            m[i] = (mp >= 0 && (size_t)mp < s->k && frame_component(s, fr) == s->first[mp]) ? mp + 1 : -1;
            if (in[par]) {
                in[i] = 1;
                out = child(p, i, np, fr, &rc);
            } else if ((size_t)m[i] == s->k) {
                in[i] = 1;
                out = child(p, i, 0, fr, &rc);
            }
            break;
        }
        case PROFKIT_TRANSFORM_COLLAPSE_RECURSION: {
            /* head[i]: the innermost stack of this path whose frame matched
             * and was the outermost of its function; next[] links them */
            head[i] = head[par];
            if (np == DROP)
                break;
            int found = 0;
            if (frame_matches(s, fr)) {
                uint32_t fn = p->frames[fr].function;
                for (uint32_t e = head[par]; e != PROFKIT_NONE && !found; e = next[e])
                    if (p->frames[p->stacks[e].frame].function == fn) {
                        out = ns[e];
                        found = 1;
                    }
                if (!found) {
                    next[i] = head[par];
                    head[i] = (uint32_t)i;
                }
            }
            if (!found)
                out = child(p, i, np, fr, &rc);
            break;
        }
        case PROFKIT_TRANSFORM_COLLAPSE_DIRECT_RECURSION:
            if (np == DROP)
                break;
            if (np != 0 && frame_matches(s, fr) &&
                p->frames[p->stacks[np].frame].function == p->frames[fr].function)
                out = np;
            else
                out = child(p, i, np, fr, &rc);
            break;
        case PROFKIT_TRANSFORM_COLLAPSE_MODULE: {
            if (np == DROP)
                break;
            uint32_t cf = module_frame(s, fr);
            if (cf == PROFKIT_NONE - 1) {
                rc = PROFKIT_ENOMEM;
                break;
            }
            if (cf == PROFKIT_NONE)
                out = child(p, i, np, fr, &rc);
            else if (np != 0 && p->stacks[np].frame == cf)
                out = np;
            else
                out = child(p, i, np, cf, &rc);
            break;
        }
        default: break;
        }
        ns[i] = out;
    }
    /* root-at and focus-subtree drop what did not go through the focus;
     * focus-category the samples left with no frame */
    if (in || kind == PROFKIT_TRANSFORM_FOCUS_CATEGORY)
        ns[0] = DROP;
    if (kind == PROFKIT_TRANSFORM_FOCUS_CATEGORY)
        for (size_t i = 1; i < n0; i++)
            if (need[i] && ns[i] == 0)
                ns[i] = DROP;
    for (size_t i = 0; i < n0; i++)
        if (need[i] && (ns[i] == DROP || (in && !in[i])))
            ns[i] = PROFKIT_NONE;
    free(m);
    free(in);
    free(head);
    free(next);
    return rc;
}

/*
 * Gives each sample row its new stack ns[old] (PROFKIT_NONE: dropped). Timed
 * rows are never summed, so a profile of timed rows only is rewritten in
 * place (no second copy of its rows: they are most of a Gecko profile's
 * memory); rows without a time, which rows of one stack and thread share,
 * are rebuilt as the filters do.
 */
static int rewrite_samples(profkit_profile *p, const uint32_t *ns)
{
    size_t n = p->n_samples, nv = p->n_value_types, w = 0;
    for (size_t r = 0; r < n; r++)
        if (p->sample_time[r] == PROFKIT_NO_TIME)
            return pk_filter_rebuild_samples(p, ns, NULL, NULL);
    for (size_t r = 0; r < n; r++) {
        uint32_t st = ns[p->sample_stack[r]];
        if (st == PROFKIT_NONE)
            continue;
        p->sample_stack[w] = st;
        p->sample_thread[w] = p->sample_thread[r];
        p->sample_time[w] = p->sample_time[r];
        if (p->sample_cpu)
            p->sample_cpu[w] = p->sample_cpu[r];
        if (w != r)
            memmove(p->sample_values + w * nv, p->sample_values + r * nv, nv * sizeof(int64_t));
        w++;
    }
    p->n_samples = w;
    if (p->samples_indexed > w)
        p->samples_indexed = w;
    return 0;
}

/* focus-category of a name no category has: the error lists the profile's. */
static int category_error(const profkit_profile *p, const char *name, profkit_error *err)
{
    if (p->n_categories == 0)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                            "profkit_transform.focus-category: no frame categories in this profile "
                            "(only Gecko and Firefox profiles have them)");
    char list[512];
    size_t len = 0;
    list[0] = 0;
    for (size_t i = 0; i < p->n_categories && len + 8 < sizeof list; i++) {
        int k = snprintf(list + len, sizeof list - len, "%s'%s'", i ? ", " : "",
                         pk_str(p, p->categories[i].name));
        if (k < 0 || (size_t)k >= sizeof list - len) {
            list[len] = 0;
            break;
        }
        len += (size_t)k;
    }
    return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                        "profkit_transform.focus-category: no category named '%s' (the profile's: %s)",
                        name, list);
}

/* check: only the set-up (the argument's errors), the profile unchanged */
static int apply_step(profkit_profile *p, const profkit_transform *t, int check, profkit_error *err)
{
    if (t->kind == PROFKIT_TRANSFORM_FILTER) {
        if (!t->filter || check)
            return 0;
        /* its time filters ran first (profkit_profile_transform) */
        profkit_filter_options rest = *t->filter;
        rest.range = rest.during_marker = rest.outside_marker = NULL;
        return profkit_profile_filter(p, &rest, err);
    }
    if ((unsigned)t->kind >= PROFKIT_TRANSFORM_N)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "profkit_transform.kind: unknown transform %d",
                            (int)t->kind);
    if (!t->arg)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "profkit_transform.%s: no argument",
                            kind_names[t->kind]);
    struct step s;
    memset(&s, 0, sizeof(s));
    s.p = p;
    s.t = t;
    s.n0 = p->n_stacks;
    s.nf0 = p->n_frames;
    int rc = 0;
    if (t->kind == PROFKIT_TRANSFORM_FOCUS_CATEGORY) {
        uint32_t c = profkit_profile_category_find(p, t->arg);
        if (c == PROFKIT_NONE)
            return category_error(p, t->arg, err);
        s.want_cat = (uint16_t)(c + 1);
        if (!(s.cat = malloc((s.n0 ? s.n0 : 1) * sizeof *s.cat)))
            rc = PROFKIT_ENOMEM;
        else
            profkit_profile_stack_categories(p, s.cat);
    } else if (t->kind == PROFKIT_TRANSFORM_MERGE_NODE || t->kind == PROFKIT_TRANSFORM_FOCUS_SUBTREE) {
        rc = split_path(&s, err);
    } else {
        int e = regcomp(&s.re, t->arg, REG_EXTENDED | REG_NOSUB);
        if (e != 0) {
            char msg[256];
            regerror(e, &s.re, msg, sizeof(msg));
            rc = pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "profkit_transform.%s: bad regular expression '%s': %s",
                              kind_names[t->kind], t->arg, msg);
        } else {
            s.have_re = 1;
        }
    }
    uint8_t *need = NULL;
    uint32_t *ns = NULL;
    if (rc == 0 && !check) {
        s.fbits = calloc(s.nf0 ? s.nf0 : 1, 1);
        s.fextra = calloc(s.nf0 ? s.nf0 : 1, sizeof(uint32_t));
        need = calloc(s.n0 ? s.n0 : 1, 1);
        ns = malloc((s.n0 ? s.n0 : 1) * sizeof(uint32_t));
        if (!s.fbits || !s.fextra || !need || !ns)
            rc = PROFKIT_ENOMEM;
    }
    if (rc == 0 && !check) {
        mark_needed(p, need);
        rc = map_stacks(&s, need, ns);
    }
    if (rc == 0 && !check)
        rc = rewrite_samples(p, ns);
    if (rc == PROFKIT_ENOMEM)
        pk_error_set(err, rc, NULL, -1, "out of memory transforming the profile");
    if (s.have_re)
        regfree(&s.re);
    free(s.fbits);
    free(s.fextra);
    free(s.comp);
    free(s.cat);
    free(s.first);
    free(s.pathbuf);
    free(need);
    free(ns);
    return rc;
}

int profkit_profile_transform(profkit_profile *p, const profkit_transform *steps, size_t n,
                              profkit_error *err)
{
    /* A time filter chooses the profile looked at, wherever its step is
     * (no transform moves a sample in time): it runs before the whole
     * totals, which percentages are of, are noted. */
    for (size_t i = 0; i < n; i++) {
        const profkit_filter_options *f = steps[i].filter;
        if (steps[i].kind == PROFKIT_TRANSFORM_FILTER && f &&
            (f->range || f->during_marker || f->outside_marker)) {
            int rc = pk_profile_filter_time(p, f, err);
            if (rc != 0)
                return rc;
        }
    }
    if (n > 0 && pk_note_whole_totals(p) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory transforming the profile");
    for (size_t i = 0; i < n; i++) {
        int rc = apply_step(p, &steps[i], 0, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int profkit_transform_check(const profkit_profile *p, const profkit_transform *steps, size_t n,
                            profkit_error *err)
{
    for (size_t i = 0; i < n; i++) {
        int rc = apply_step((profkit_profile *)p, &steps[i], 1, err); /* check: p is only read */
        if (rc != 0)
            return rc;
    }
    return 0;
}
