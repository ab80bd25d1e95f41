/* list_report.c: `profkit list REGEX`, per matching function its source
 * lines with flat and cumulative values, printed like pprof -list. */
#include "analysis/analysis.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

typedef struct lrow {
    uint32_t function, line;
    int64_t flat, cum;
    size_t stamp;
} lrow;

typedef struct lfunc {
    uint32_t function;
    int64_t flat, cum;
    size_t stamp;
    size_t first, n; /* its rows (sorted by line) */
} lfunc;

static int row_cmp(const void *a, const void *b)
{
    const lrow *x = a, *y = b;
    if (x->function != y->function)
        return x->function < y->function ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Opens the function's source: its path, or under dir (path joined, then
 * shorter tails, then the base name). */
static FILE *open_source(const char *path, const char *dir)
{
    if (!path || !*path)
        return NULL;
    if (!dir)
        return fopen(path, "r");
    char buf[4096];
    for (const char *t = path; t && *t;) {
        while (*t == '/')
            t++;
        snprintf(buf, sizeof(buf), "%s/%s", dir, t);
        FILE *f = fopen(buf, "r");
        if (f)
            return f;
        t = strchr(t, '/');
    }
    return NULL;
}

/* Flat and cum; zero is "." on a line (dots), "0" in a header, as pprof. */
static void put_vals(FILE *out, int64_t flat, int64_t cum, const char *unit, int dots)
{
    char a[64] = ".", b[64] = ".";
    if (flat || !dots)
        profkit_format_value(a, sizeof(a), flat, unit);
    if (cum || !dots)
        profkit_format_value(b, sizeof(b), cum, unit);
    fprintf(out, "%10s %10s ", a, b);
}

int profkit_report_list(FILE *out, const profkit_profile *p, const profkit_report_options *o,
                        profkit_error *err)
{
    uint32_t v, th;
    if (profkit_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    regex_t re;
    int rc = regcomp(&re, o->list_regex ? o->list_regex : "", REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &re, msg, sizeof(msg));
        return profkit_error_set(err, PROFKIT_EINVAL, NULL, -1, "bad regular expression '%s': %s",
                                 o->list_regex ? o->list_regex : "", msg);
    }
    /* matching functions, and one row per (function, line) of their frames */
    uint8_t *match = calloc(p->n_functions ? p->n_functions : 1, 1);
    uint32_t *frow = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t));
    uint32_t *fidx = malloc((p->n_functions ? p->n_functions : 1) * sizeof(uint32_t));
    lrow *rows = calloc(p->n_frames ? p->n_frames : 1, sizeof(lrow));
    lfunc *funcs = calloc(p->n_functions ? p->n_functions : 1, sizeof(lfunc));
    size_t nrows = 0, nfuncs = 0;
    rc = 0;
    if (!match || !frow || !fidx || !rows || !funcs) {
        rc = profkit_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < p->n_functions; i++)
        match[i] = regexec(&re, profkit_str(p, p->functions[i].name), 0, NULL, 0) == 0;
    for (size_t i = 0; i < p->n_frames; i++)
        if (p->frames[i].function < p->n_functions && match[p->frames[i].function])
            rows[nrows++] = (lrow){ p->frames[i].function, p->frames[i].line, 0, 0, 0 };
    qsort(rows, nrows, sizeof(lrow), row_cmp);
    size_t k = 0;
    for (size_t i = 0; i < nrows; i++)
        if (k == 0 || row_cmp(&rows[k - 1], &rows[i]) != 0)
            rows[k++] = rows[i];
    nrows = k;
    for (size_t i = 0; i < p->n_functions; i++)
        fidx[i] = PROFKIT_NONE;
    for (size_t i = 0; i < nrows; i++) {
        if (fidx[rows[i].function] == PROFKIT_NONE) {
            fidx[rows[i].function] = (uint32_t)nfuncs;
            funcs[nfuncs++] = (lfunc){ rows[i].function, 0, 0, 0, i, 0 };
        }
        funcs[fidx[rows[i].function]].n++;
    }
    for (size_t i = 0; i < p->n_frames; i++) {
        frow[i] = PROFKIT_NONE;
        const profkit_frame *fr = &p->frames[i];
        if (fr->function < p->n_functions && match[fr->function]) {
            const lfunc *lf = &funcs[fidx[fr->function]];
            lrow key = { fr->function, fr->line, 0, 0, 0 };
            lrow *hit = bsearch(&key, rows + lf->first, lf->n, sizeof(lrow), row_cmp);
            frow[i] = (uint32_t)(hit - rows);
        }
    }
    /* the samples: flat where a line is the leaf, cum once per sample */
    size_t nv = p->n_value_types;
    int64_t total = 0;
    for (size_t r = 0; r < p->n_samples; r++) {
        if (th != PROFKIT_NONE && p->sample_thread[r] != th)
            continue;
        int64_t val = p->sample_values[r * nv + v];
        if (!val)
            continue;
        total += val;
        int leaf = 1;
        for (uint32_t s = p->sample_stack[r]; s != 0 && s < p->n_stacks; s = p->stacks[s].parent, leaf = 0) {
            uint32_t f = p->stacks[s].frame;
            if (f >= p->n_frames || frow[f] == PROFKIT_NONE)
                continue;
            lrow *row = &rows[frow[f]];
            lfunc *lf = &funcs[fidx[row->function]];
            if (leaf) {
                row->flat += val;
                lf->flat += val;
            }
            if (row->stamp != r + 1) {
                row->stamp = r + 1;
                row->cum += val;
            }
            if (lf->stamp != r + 1) {
                lf->stamp = r + 1;
                lf->cum += val;
            }
        }
    }
    /* functions by cum, then name */
    for (size_t i = 1; i < nfuncs; i++)
        for (size_t j = i; j > 0; j--) {
            lfunc *a = &funcs[j - 1], *b = &funcs[j];
            int sw = a->cum < b->cum ||
                     (a->cum == b->cum && strcmp(profkit_str(p, p->functions[a->function].name),
                                                 profkit_str(p, p->functions[b->function].name)) > 0);
            if (!sw)
                break;
            lfunc t = *a;
            *a = *b;
            *b = t;
        }
    const char *unit = profkit_str(p, p->value_types[v].unit);
    char tot[64];
    profkit_format_value(tot, sizeof(tot), total, unit);
    fprintf(out, "Value: %s (%s), total %s", profkit_str(p, p->value_types[v].type), unit, tot);
    if (th != PROFKIT_NONE)
        fprintf(out, ", thread %s", profkit_str(p, p->threads[th].name));
    fputc('\n', out);
    size_t shown = 0;
    for (size_t i = 0; i < nfuncs; i++) {
        const lfunc *lf = &funcs[i];
        if (lf->cum == 0 && lf->flat == 0)
            continue;
        if (o->limit && shown >= o->limit)
            break;
        shown++;
        const profkit_function *fn = &p->functions[lf->function];
        const char *file = profkit_str(p, fn->file);
        fprintf(out, "ROUTINE ======================== %s in %s\n", profkit_str(p, fn->name),
                *file ? file : "(no file)");
        char pct[32];
        put_vals(out, lf->flat, lf->cum, unit, 0);
        fprintf(out, "(flat, cum) %s of Total\n",
                profkit_format_pct(pct, sizeof(pct), (double)lf->cum, total ? (double)total : 1.0));
        const lrow *lr = rows + lf->first;
        size_t n = lf->n;
        uint32_t lo = UINT32_MAX, hi = 0;
        for (size_t j = 0; j < n; j++)
            if (lr[j].line && (lr[j].flat || lr[j].cum)) {
                lo = lr[j].line < lo ? lr[j].line : lo;
                hi = lr[j].line > hi ? lr[j].line : hi;
            }
        if (fn->start_line && fn->start_line < lo)
            lo = fn->start_line;
        FILE *src = lo <= hi ? open_source(file, o->source_dir) : NULL;
        /* a line without a number (0) first */
        if (n && lr[0].line == 0 && (lr[0].flat || lr[0].cum)) {
            put_vals(out, lr[0].flat, lr[0].cum, unit, 1);
            fputs("     ?: (no line)\n", out);
        }
        if (!src) {
            if (*file && lo <= hi)
                fprintf(out, "%21s (source not found: %s)\n", "", file);
            for (size_t j = 0; j < n; j++)
                if (lr[j].line && (lr[j].flat || lr[j].cum)) {
                    put_vals(out, lr[j].flat, lr[j].cum, unit, 1);
                    fprintf(out, "%6u\n", lr[j].line);
                }
            continue;
        }
        char text[4096];
        uint32_t no = 0;
        size_t j = 0;
        while (no < hi && fgets(text, sizeof(text), src)) {
            size_t len = strlen(text);
            int whole = len && text[len - 1] == '\n';
            if (whole)
                text[--len] = 0;
            else {
                int c; /* a longer line: the rest is skipped */
                while ((c = fgetc(src)) != EOF && c != '\n')
                    ;
            }
            no++;
            if (no < lo)
                continue;
            while (j < n && lr[j].line < no)
                j++;
            int64_t fl = 0, cu = 0;
            if (j < n && lr[j].line == no) {
                fl = lr[j].flat;
                cu = lr[j].cum;
            }
            put_vals(out, fl, cu, unit, 1);
            fprintf(out, "%6u:%s\n", no, text);
        }
        fclose(src);
        /* lines past the end of the file (another version of it) */
        for (; j < n; j++)
            if (lr[j].line > no && (lr[j].flat || lr[j].cum)) {
                put_vals(out, lr[j].flat, lr[j].cum, unit, 1);
                fprintf(out, "%6u (past the end of the file)\n", lr[j].line);
            }
    }
    if (shown == 0)
        fprintf(out, "no function matches '%s'\n", o->list_regex ? o->list_regex : "");
done:
    regfree(&re);
    free(match);
    free(frow);
    free(fidx);
    free(rows);
    free(funcs);
    return rc;
}
