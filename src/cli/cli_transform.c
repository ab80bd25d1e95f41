/*
 * cli_transform.c: the transform flags (--merge, --root-at, ...) as an
 * ordered stack of steps, with pprof's filters (--focus, --ignore, ...)
 * as one step among them at the place of the first filter flag.
 */
#include "cli/cli.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

static int is_filter_option(int c)
{
    return c >= CLI_OPT_FOCUS && c <= CLI_OPT_PRUNE_FROM;
}

int cli_transform_option(cli_input *in, int c, const char *arg)
{
    if (is_filter_option(c)) {
        if (!in->filter_at_set) {
            in->filter_at = in->n_steps;
            in->filter_at_set = 1;
        }
        return 0; /* cli_input_option keeps the pattern */
    }
    if (c == CLI_OPT_RELATIVE) {
        in->relative = 1;
        return 1;
    }
    if (c < CLI_OPT_MERGE || c > CLI_OPT_COLLAPSE_MODULE)
        return 0;
    profkit_transform_kind kind = (profkit_transform_kind)(PROFKIT_TRANSFORM_MERGE + (c - CLI_OPT_MERGE));
    if (in->n_steps == CLI_MAX_TRANSFORMS) {
        cli_usage(NULL, "at most %d transforms", CLI_MAX_TRANSFORMS);
        return -1;
    }
    profkit_transform *t = &in->steps[in->n_steps++];
    memset(t, 0, sizeof(*t));
    t->kind = kind;
    t->arg = arg;
    return 1;
}

/* A filter option that matched no sample: pprof's warning, printed once
 * per option and expression however many inputs are filtered (the
 * library's message names the option by its flag here). Under --strict
 * the first becomes the error. pprof's note that a --tagfocus/--tagignore
 * value is a numeric range ("Interpreted '64b' as range, not regexp") is
 * printed alike, but --strict leaves it a note: the range is what was
 * asked for. */
struct tag_warnings {
    char seen[16][512];
    size_t n_seen;
    int strict, quiet, failed;
    profkit_error first;
};

static void on_tag_warning(const profkit_error *w, void *payload)
{
    struct tag_warnings *tw = payload;
    int note = strncmp(w->message, "Interpreted '", 13) == 0;
    if (note && tw->quiet)
        return;
    if (tw->strict && !note) {
        if (!tw->failed)
            tw->first = *w;
        tw->failed = 1;
        return;
    }
    for (size_t i = 0; i < tw->n_seen; i++)
        if (strcmp(tw->seen[i], w->message) == 0)
            return;
    if (tw->n_seen < sizeof(tw->seen) / sizeof(tw->seen[0]))
        snprintf(tw->seen[tw->n_seen++], sizeof(tw->seen[0]), "%s", w->message);
    char msg[sizeof(w->message)];
    snprintf(msg, sizeof(msg), "%s", w->message);
    cli_flag_names(msg, sizeof(msg));
    fprintf(stderr, "profkit: warning: %s\n", msg);
}

int cli_transforms_active(const cli_input *in)
{
    return in->n_steps > 0 || profkit_filter_active(&in->filter);
}

int cli_apply_transforms(profkit_profile **p, const cli_input *in)
{
    if (!*p || !cli_transforms_active(in))
        return CLI_OK;
    profkit_transform steps[CLI_MAX_TRANSFORMS + 1];
    size_t n = 0, at = in->filter_at_set ? in->filter_at : 0;
    static struct tag_warnings tw; /* (one process, one command) */
    profkit_filter_options filter = in->filter;
    tw.strict = in->strict;
    tw.quiet = in->quiet;
    if (!in->quiet || in->strict) {
        filter.on_warning = on_tag_warning;
        filter.payload = &tw;
    }
    for (size_t i = 0; i <= in->n_steps; i++) {
        if (i == at && profkit_filter_active(&in->filter)) {
            memset(&steps[n], 0, sizeof(steps[n]));
            steps[n].kind = PROFKIT_TRANSFORM_FILTER;
            steps[n++].filter = &filter;
        }
        if (i < in->n_steps)
            steps[n++] = in->steps[i];
    }
    profkit_error err;
    if (profkit_profile_transform(*p, steps, n, &err) != 0) {
        profkit_profile_free(*p);
        *p = NULL;
        return cli_fail(NULL, &err);
    }
    if (tw.failed) { /* --strict: a label option that matched nothing is the error */
        profkit_profile_free(*p);
        *p = NULL;
        return cli_fail(NULL, &tw.first);
    }
    if (in->relative) /* percentages of what is left */
        profkit_profile_drop_whole_total(*p);
    return CLI_OK;
}

/* The page applies the transform stack itself (flame, view): the steps and
 * the filter's name patterns (--focus, --ignore, --hide, --show,
 * --show-from, --prune-from) move from in to steps[] (in the order
 * cli_apply_transforms gives them; *filter holds the patterns), so the
 * profile loads untransformed and the page opens with every step poppable.
 * 0, with in unchanged, when there is none or a pattern is bad (the load
 * then reports it, as every report's). */
size_t cli_page_transforms(cli_input *in, profkit_transform *steps, profkit_filter_options *filter)
{
    profkit_filter_options *f = &in->filter;
    const char *pat[6] = { f->focus, f->ignore, f->hide, f->show, f->show_from, f->prune_from };
    int any = 0;
    for (int k = 0; k < 6; k++) {
        regex_t re;
        if (!pat[k])
            continue;
        if (regcomp(&re, pat[k], REG_EXTENDED | REG_NOSUB) != 0)
            return 0;
        regfree(&re);
        any = 1;
    }
    if (!in->n_steps && !any)
        return 0;
    memset(filter, 0, sizeof(*filter));
    filter->focus = f->focus;
    filter->ignore = f->ignore;
    filter->hide = f->hide;
    filter->show = f->show;
    filter->show_from = f->show_from;
    filter->prune_from = f->prune_from;
    size_t n = 0, at = in->filter_at_set ? in->filter_at : 0;
    for (size_t i = 0; i <= in->n_steps; i++) {
        if (i == at && any) {
            memset(&steps[n], 0, sizeof(steps[n]));
            steps[n].kind = PROFKIT_TRANSFORM_FILTER;
            steps[n++].filter = filter;
        }
        if (i < in->n_steps)
            steps[n++] = in->steps[i];
    }
    in->n_steps = 0;
    in->filter_at_set = 0;
    f->focus = f->ignore = f->hide = f->show = f->show_from = f->prune_from = NULL;
    return n;
}
