/* list_report.c: `profkit list REGEX`, per matching function its source
 * lines with flat and cumulative values, printed like pprof -list. */
#include "analysis/analysis.h"
#include "symbols/sym_disasm.h"

#include <inttypes.h>
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

/* --disasm: a function's instructions and their values. */
typedef struct fdis {
    sym_insn *insns;
    size_t n;
    int64_t *flat, *cum;
    size_t *stamp;
    int64_t off_flat, off_cum; /* at addresses no instruction holds */
    char why[512];
} fdis;

static int row_cmp(const void *a, const void *b)
{
    const lrow *x = a, *y = b;
    if (x->function != y->function)
        return x->function < y->function ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Opens the function's source: its path, or under dir (path joined, then
 * shorter tails, then the base name). A backslash separates too, as in the
 * Windows paths BR records (`C:\ACME\INVOICE.BR`: DIR/C:/ACME/INVOICE.BR,
 * DIR/ACME/INVOICE.BR, DIR/INVOICE.BR). */
static FILE *open_source(const char *path, const char *dir)
{
    if (!path || !*path)
        return NULL;
    if (!dir)
        return fopen(path, "r");
    char buf[4096];
    for (const char *t = path; t && *t;) {
        while (*t == '/' || *t == '\\')
            t++;
        int w = snprintf(buf, sizeof(buf), "%s/%s", dir, t);
        for (size_t i = strlen(dir); w > 0 && i < (size_t)w && i < sizeof(buf); i++)
            if (buf[i] == '\\')
                buf[i] = '/';
        FILE *f = fopen(buf, "r");
        if (f)
            return f;
        t = strpbrk(t, "/\\");
    }
    return NULL;
}

/* Flat and cum; zero is "." on a line (dots), "0" in a header, as pprof. */
static void put_vals(FILE *out, int64_t flat, int64_t cum, const char *unit, int dots)
{
    char a[64] = ".", b[64] = ".";
    if (flat || !dots)
        pk_format_value(a, sizeof(a), flat, unit);
    if (cum || !dots)
        pk_format_value(b, sizeof(b), cum, unit);
    fprintf(out, "%10s %10s ", a, b);
}

/* The instruction of fd holding address a, or -1. */
static long insn_at(const fdis *fd, uint64_t a)
{
    size_t lo = 0, hi = fd->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (fd->insns[mid].address <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || a - fd->insns[lo - 1].address >= fd->insns[lo - 1].size)
        return -1;
    return (long)(lo - 1);
}

/* The instructions of line `line`, under it. */
static void put_insns(FILE *out, const fdis *fd, uint32_t line, const char *unit)
{
    if (!fd)
        return;
    for (size_t i = 0; i < fd->n; i++)
        if (fd->insns[i].line == line) {
            put_vals(out, fd->flat[i], fd->cum[i], unit, 1);
            fprintf(out, "%14s0x%" PRIx64 ": %s\n", "", fd->insns[i].vaddr, fd->insns[i].text);
        }
}

static int has_insns(const fdis *fd, uint32_t line)
{
    for (size_t i = 0; fd && i < fd->n; i++)
        if (fd->insns[i].line == line)
            return 1;
    return 0;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * Disassembles the shown functions (fds[i] for funcs[i]) and gives each
 * instruction its values: flat where a sample's leaf address is in it,
 * cum once per sample where any frame of the function is (a caller's
 * return address at address - 1: the call).
 */
static int disassemble(const profkit_profile *p, const profkit_report_options *o, const lfunc *funcs,
                       const uint32_t *fidx, const uint32_t *frow, const lrow *rows, fdis *fds,
                       size_t nshow, uint32_t v, uint32_t th)
{
    profkit_symbolize_options dflt;
    memset(&dflt, 0, sizeof(dflt));
    dflt.use_mapping_paths = 1;
    sym_disasm *d = pk_sym_disasm_new(p, o->symbols ? o->symbols : &dflt);
    uint64_t *addrs = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint64_t));
    uint32_t *maps = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t));
    int rc = -1;
    if (!d || !addrs || !maps)
        goto done;
    for (size_t i = 0; i < nshow; i++) {
        const profkit_function *fn = &p->functions[funcs[i].function];
        size_t n = 0;
        for (size_t f = 0; f < p->n_frames; f++) {
            const profkit_frame *fr = &p->frames[f];
            if (fr->function == funcs[i].function && fr->address && fr->mapping != PROFKIT_NONE) {
                addrs[n] = fr->address;
                maps[n++] = fr->mapping;
            }
        }
        const char *name = pk_str(p, fn->system_name);
        if (!*name)
            name = pk_str(p, fn->name);
        fdis *fd = &fds[i];
        if (n == 0) {
            snprintf(fd->why, sizeof(fd->why), "its frames carry no addresses in a mapped file");
            continue;
        }
        if (pk_sym_disasm_function(d, name, addrs, maps, n, &fd->insns, &fd->n, fd->why, sizeof(fd->why)) != 0)
            goto done;
        if (fd->n && (!(fd->flat = calloc(fd->n, sizeof(int64_t))) ||
                      !(fd->cum = calloc(fd->n, sizeof(int64_t))) ||
                      !(fd->stamp = calloc(fd->n, sizeof(size_t)))))
            goto done;
    }
    size_t nv = p->n_value_types;
    for (size_t r = 0; r < p->n_samples; r++) {
        if (th != PROFKIT_NONE && p->sample_thread[r] != th)
            continue;
        int64_t val = p->sample_values[r * nv + v];
        if (!val)
            continue;
        /* leaf: the sample's leaf frame; at_leaf: it or a frame it is inlined
         * into (same address, looked up as is, not as a return address) */
        int leaf = 1, at_leaf = 1;
        for (uint32_t s = p->sample_stack[r]; s != 0 && s < p->n_stacks; s = p->stacks[s].parent, leaf = 0) {
            uint32_t f = p->stacks[s].frame;
            int here = at_leaf;
            at_leaf = at_leaf && f < p->n_frames && p->frames[f].inline_depth > 0;
            if (f >= p->n_frames || frow[f] == PROFKIT_NONE)
                continue;
            uint32_t k = fidx[rows[frow[f]].function];
            if (k >= nshow)
                continue;
            fdis *fd = &fds[k];
            uint64_t a = p->frames[f].address;
            long at = a && fd->n ? insn_at(fd, here ? a : a - 1) : -1;
            if (at < 0) {
                fd->off_flat += leaf ? val : 0;
                fd->off_cum += val; /* shown only when some value is off the instructions */
                continue;
            }
            if (leaf)
                fd->flat[at] += val;
            if (fd->stamp[at] != r + 1) {
                fd->stamp[at] = r + 1;
                fd->cum[at] += val;
            }
        }
    }
    rc = 0;
done:
    pk_sym_disasm_free(d);
    free(addrs);
    free(maps);
    return rc;
}

int profkit_report_list(FILE *out, const profkit_profile *p, const profkit_report_options *o,
                        profkit_error *err)
{
    uint32_t v, th;
    if (o->disasm && pk_part_check(PK_PART_DISASM, err) != 0)
        return PROFKIT_EUNSUPPORTED;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    regex_t re;
    int rc = regcomp(&re, o->list_regex ? o->list_regex : "", REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &re, msg, sizeof(msg));
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "bad regular expression '%s': %s",
                                 o->list_regex ? o->list_regex : "", msg);
    }
    /* matching functions, and one row per (function, line) of their frames */
    uint8_t *match = calloc(p->n_functions ? p->n_functions : 1, 1);
    uint32_t *frow = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t));
    uint32_t *fidx = malloc((p->n_functions ? p->n_functions : 1) * sizeof(uint32_t));
    lrow *rows = calloc(p->n_frames ? p->n_frames : 1, sizeof(lrow));
    lfunc *funcs = calloc(p->n_functions ? p->n_functions : 1, sizeof(lfunc));
    size_t nrows = 0, nfuncs = 0, nshow = 0;
    fdis *fds = NULL;
    rc = 0;
    if (!match || !frow || !fidx || !rows || !funcs) {
        rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < p->n_functions; i++)
        match[i] = regexec(&re, pk_str(p, p->functions[i].name), 0, NULL, 0) == 0;
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
                     (a->cum == b->cum && strcmp(pk_str(p, p->functions[a->function].name),
                                                 pk_str(p, p->functions[b->function].name)) > 0);
            if (!sw)
                break;
            lfunc t = *a;
            *a = *b;
            *b = t;
        }
    while (nshow < nfuncs && (funcs[nshow].cum || funcs[nshow].flat) && (!o->limit || nshow < o->limit))
        nshow++;
    if (o->disasm && nshow) {
        for (size_t i = 0; i < nfuncs; i++) /* the sort moved them */
            fidx[funcs[i].function] = (uint32_t)i;
        if (!(fds = calloc(nshow, sizeof(fdis))) ||
            disassemble(p, o, funcs, fidx, frow, rows, fds, nshow, v, th) != 0) {
            rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
            goto done;
        }
    }
    const char *unit = pk_str(p, p->value_types[v].unit);
    char tot[64];
    pk_format_value(tot, sizeof(tot), total, unit);
    fprintf(out, "Value: %s (%s), total %s", pk_str(p, p->value_types[v].type), unit, tot);
    if (th != PROFKIT_NONE)
        fprintf(out, ", thread %s", pk_str(p, p->threads[th].name));
    fputc('\n', out);
    size_t shown = 0;
    for (size_t i = 0; i < nshow; i++) {
        const lfunc *lf = &funcs[i];
        const fdis *fd = fds ? &fds[i] : NULL;
        shown++;
        const profkit_function *fn = &p->functions[lf->function];
        const char *file = pk_str(p, fn->file);
        fprintf(out, "ROUTINE ======================== %s in %s\n", pk_str(p, fn->name),
                *file ? file : "(no file)");
        char pct[32];
        put_vals(out, lf->flat, lf->cum, unit, 0);
        fprintf(out, "(flat, cum) %s of Total\n",
                pk_format_pct(pct, sizeof(pct), (double)lf->cum, total ? (double)total : 1.0));
        const lrow *lr = rows + lf->first;
        size_t n = lf->n;
        uint32_t lo = UINT32_MAX, hi = 0;
        for (size_t j = 0; j < n; j++)
            if (lr[j].line && (lr[j].flat || lr[j].cum)) {
                lo = lr[j].line < lo ? lr[j].line : lo;
                hi = lr[j].line > hi ? lr[j].line : hi;
            }
        for (size_t j = 0; fd && j < fd->n; j++)
            if (fd->insns[j].line) {
                lo = fd->insns[j].line < lo ? fd->insns[j].line : lo;
                hi = fd->insns[j].line > hi ? fd->insns[j].line : hi;
            }
        if (fn->start_line && fn->start_line < lo)
            lo = fn->start_line;
        if (fd && !fd->n)
            fprintf(out, "%21s (no instructions: %s)\n", "", fd->why);
        if (fd && fd->n && (fd->off_flat || fd->off_cum)) {
            put_vals(out, fd->off_flat, fd->off_cum, unit, 1);
            fputs("     (at addresses outside these instructions)\n", out);
        }
        FILE *src = lo <= hi ? open_source(file, o->source_dir) : NULL;
        /* a line without a number (0) first */
        int line0 = n && lr[0].line == 0 && (lr[0].flat || lr[0].cum);
        if (line0 || has_insns(fd, 0)) {
            put_vals(out, line0 ? lr[0].flat : 0, line0 ? lr[0].cum : 0, unit, 1);
            fputs("     ?: (no line)\n", out);
            put_insns(out, fd, 0, unit);
        }
        if (!src) {
            if (*file && lo <= hi)
                fprintf(out, "%21s (source not found: %s)\n", "", file);
            /* the lines with values, and with --disasm those with instructions */
            uint32_t *ls = malloc((n + (fd ? fd->n : 0) + 1) * sizeof(uint32_t));
            size_t nl = 0;
            if (!ls) {
                rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
                goto done;
            }
            for (size_t j = 0; j < n; j++)
                if (lr[j].line && (lr[j].flat || lr[j].cum))
                    ls[nl++] = lr[j].line;
            for (size_t j = 0; fd && j < fd->n; j++)
                if (fd->insns[j].line)
                    ls[nl++] = fd->insns[j].line;
            qsort(ls, nl, sizeof(uint32_t), u32_cmp);
            for (size_t j = 0, r = 0; j < nl; j++) {
                if (j && ls[j] == ls[j - 1])
                    continue;
                while (r < n && lr[r].line < ls[j])
                    r++;
                int hit = r < n && lr[r].line == ls[j];
                put_vals(out, hit ? lr[r].flat : 0, hit ? lr[r].cum : 0, unit, 1);
                fprintf(out, "%6u\n", ls[j]);
                put_insns(out, fd, ls[j], unit);
            }
            free(ls);
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
            put_insns(out, fd, no, unit);
        }
        fclose(src);
        /* lines past the end of the file (another version of it), in order */
        for (uint32_t last = no;;) {
            uint32_t next = UINT32_MAX;
            for (size_t q = j; q < n; q++)
                if (lr[q].line > last && (lr[q].flat || lr[q].cum)) {
                    next = lr[q].line;
                    break;
                }
            for (size_t q = 0; fd && q < fd->n; q++)
                if (fd->insns[q].line > last && fd->insns[q].line < next)
                    next = fd->insns[q].line;
            if (next == UINT32_MAX)
                break;
            const lrow *hit = NULL;
            for (size_t q = j; q < n && !hit; q++)
                if (lr[q].line == next)
                    hit = &lr[q];
            put_vals(out, hit ? hit->flat : 0, hit ? hit->cum : 0, unit, 1);
            fprintf(out, "%6u (past the end of the file)\n", next);
            put_insns(out, fd, next, unit);
            last = next;
        }
    }
    if (shown == 0)
        fprintf(out, "no function matches '%s'\n", o->list_regex ? o->list_regex : "");
done:
    for (size_t i = 0; fds && i < nshow; i++) {
        free(fds[i].insns);
        free(fds[i].flat);
        free(fds[i].cum);
        free(fds[i].stamp);
    }
    free(fds);
    regfree(&re);
    free(match);
    free(frow);
    free(fidx);
    free(rows);
    free(funcs);
    return rc;
}
