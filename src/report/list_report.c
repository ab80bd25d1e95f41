/* list_report.c: `profkit list REGEX`, per matching function its source
 * lines with flat and cumulative values, printed like pprof -list. */
#include "util/buf.h"
#include "analysis/analysis.h"
#include "analysis/list.h"
#include "report/report_top.h"
#include "symbols/sym_disasm.h"

#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* --diff-base: BASE's total (what percentages are of) and NEW's. */
typedef struct list_diff_totals {
    int on;
    int64_t base, now;
} list_diff_totals;

static int list_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                    const list_diff_totals *dt, profkit_error *err);

/* --disasm: a function's instructions and their values. */
typedef struct fdis {
    sym_insn *insns;
    size_t n;
    uint64_t *addr;   /* the instructions' addresses and sizes, for the values */
    uint32_t *size;
    int64_t *flat, *cum;
    int64_t off_flat, off_cum; /* at addresses no instruction holds */
    char why[512];
} fdis;

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
static void put_vals(pk_buf *out, int64_t flat, int64_t cum, const char *unit, int dots)
{
    char a[64] = ".", b[64] = ".";
    if (flat || !dots)
        pk_format_value(a, sizeof(a), flat, unit);
    if (cum || !dots)
        pk_format_value(b, sizeof(b), cum, unit);
    pk_buf_printf(out, "%10s %10s ", a, b);
}

/* The instructions of line `line`, under it. */
static void put_insns(pk_buf *out, const fdis *fd, uint32_t line, const char *unit)
{
    if (!fd)
        return;
    for (size_t i = 0; i < fd->n; i++)
        if (fd->insns[i].line == line) {
            put_vals(out, fd->flat[i], fd->cum[i], unit, 1);
            pk_buf_printf(out, "%14s0x%" PRIx64 ": %s\n", "", fd->insns[i].vaddr, fd->insns[i].text);
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
 * The instructions of the shown functions (fds[k] for l->funcs[k]), and
 * their values (analysis/list.c). Returns 0, or -1 when out of memory.
 */
static int disassemble(const profkit_profile *p, const profkit_report_options *o, const pk_list *l,
                       fdis *fds, uint32_t v, uint32_t th)
{
    profkit_symbolize_options dflt;
    memset(&dflt, 0, sizeof(dflt));
    dflt.use_mapping_paths = 1;
    sym_disasm *d = pk_sym_disasm_new(p, o->symbols ? o->symbols : &dflt);
    uint64_t *addrs = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint64_t));
    uint32_t *maps = malloc((p->n_frames ? p->n_frames : 1) * sizeof(uint32_t));
    pk_list_code *code = calloc(l->n_shown, sizeof(pk_list_code));
    int rc = -1;
    if (!d || !addrs || !maps || !code)
        goto done;
    for (size_t i = 0; i < l->n_shown; i++) {
        const profkit_function *fn = &p->functions[l->funcs[i].function];
        size_t n = 0;
        for (size_t f = 0; f < p->n_frames; f++) {
            const profkit_frame *fr = &p->frames[f];
            if (fr->function == l->funcs[i].function && fr->address && fr->mapping != PROFKIT_NONE) {
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
        if (fd->n && (!(fd->addr = malloc(fd->n * sizeof(uint64_t))) ||
                      !(fd->size = malloc(fd->n * sizeof(uint32_t)))))
            goto done;
        for (size_t k = 0; k < fd->n; k++) {
            fd->addr[k] = fd->insns[k].address;
            fd->size[k] = fd->insns[k].size;
        }
        code[i].addr = fd->addr;
        code[i].size = fd->size;
        code[i].n = fd->n;
    }
    rc = pk_list_code_values(l, p, v, th, code) != 0 ? -1 : 0;
    for (size_t i = 0; i < l->n_shown; i++) {
        fds[i].flat = code[i].flat;
        fds[i].cum = code[i].cum;
        fds[i].off_flat = code[i].off_flat;
        fds[i].off_cum = code[i].off_cum;
    }
done:
    pk_sym_disasm_free(d);
    free(addrs);
    free(maps);
    free(code);
    return rc;
}

/* The lines a function's listing spans: those with values and, with
 * --disasm, with instructions, from its definition line on; lo > hi: none. */
static void line_span(const profkit_function *fn, const pk_list_row *lr, size_t n, const fdis *fd,
                      uint32_t *lo_out, uint32_t *hi_out)
{
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
    *lo_out = lo;
    *hi_out = hi;
}

/* Without the source: the lines with values, and with --disasm those with
 * instructions, by number. Returns 0 or PROFKIT_ENOMEM. */
static int put_line_numbers(pk_buf *out, const pk_list_row *lr, size_t n, const fdis *fd,
                            const char *unit)
{
    uint32_t *ls = malloc((n + (fd ? fd->n : 0) + 1) * sizeof(uint32_t));
    size_t nl = 0;
    if (!ls)
        return PROFKIT_ENOMEM;
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
        pk_buf_printf(out, "%6u\n", ls[j]);
        put_insns(out, fd, ls[j], unit);
    }
    free(ls);
    return 0;
}

/* With the source: its lines lo..hi with their values, then the lines with
 * values past its end (another version of the file), in order. */
static void put_source(pk_buf *out, FILE *src, const pk_list_row *lr, size_t n, const fdis *fd,
                       uint32_t lo, uint32_t hi, const char *unit)
{
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
        pk_buf_printf(out, "%6u:%s\n", no, text);
        put_insns(out, fd, no, unit);
    }
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
        const pk_list_row *hit = NULL;
        for (size_t q = j; q < n && !hit; q++)
            if (lr[q].line == next)
                hit = &lr[q];
        put_vals(out, hit ? hit->flat : 0, hit ? hit->cum : 0, unit, 1);
        pk_buf_printf(out, "%6u (past the end of the file)\n", next);
        put_insns(out, fd, next, unit);
        last = next;
    }
}

/* One function: its header, then its lines (fd: its instructions with
 * --disasm, else NULL). Returns 0 or PROFKIT_ENOMEM. */
static int put_function(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                        const pk_list *l, const pk_list_func *lf, const fdis *fd, const char *unit,
                        int64_t whole)
{
    const profkit_function *fn = &p->functions[lf->function];
    const char *file = pk_str(p, fn->file);
    pk_buf_printf(out, "ROUTINE ======================== %s in %s\n", pk_str(p, fn->name),
                  *file ? file : "(no file)");
    char pct[32];
    put_vals(out, lf->flat, lf->cum, unit, 0);
    (void)l;
    double cum = (double)lf->cum, w = (double)whole;
    pk_buf_printf(out, "(flat, cum) %s of Total\n",
                  pk_format_pct(pct, sizeof(pct), cum < 0 ? -cum : cum, w ? (w < 0 ? -w : w) : 1.0));
    const pk_list_row *lr = l->rows + lf->first;
    size_t n = lf->n;
    uint32_t lo, hi;
    line_span(fn, lr, n, fd, &lo, &hi);
    if (fd && !fd->n)
        pk_buf_printf(out, "%21s (no instructions: %s)\n", "", fd->why);
    if (fd && fd->n && (fd->off_flat || fd->off_cum)) {
        put_vals(out, fd->off_flat, fd->off_cum, unit, 1);
        pk_buf_puts(out, "     (at addresses outside these instructions)\n");
    }
    FILE *src = lo <= hi ? open_source(file, o->source_dir) : NULL;
    /* a line without a number (0) first */
    int line0 = n && lr[0].line == 0 && (lr[0].flat || lr[0].cum);
    if (line0 || has_insns(fd, 0)) {
        put_vals(out, line0 ? lr[0].flat : 0, line0 ? lr[0].cum : 0, unit, 1);
        pk_buf_puts(out, "     ?: (no line)\n");
        put_insns(out, fd, 0, unit);
    }
    if (!src) {
        if (*file && lo <= hi)
            pk_buf_printf(out, "%21s (source not found: %s)\n", "", file);
        return put_line_numbers(out, lr, n, fd, unit);
    }
    put_source(out, src, lr, n, fd, lo, hi, unit);
    fclose(src);
    return 0;
}

/* The same file mapped in both: one build id, or (neither has one) one path. */
static int same_file(const profkit_profile *b, const profkit_mapping *mb, const profkit_profile *p,
                     const profkit_mapping *mn)
{
    const char *ib = pk_str(b, mb->build_id), *in = pk_str(p, mn->build_id);
    if (*ib || *in)
        return strcmp(ib, in) == 0;
    return *pk_str(b, mb->path) && strcmp(pk_str(b, mb->path), pk_str(p, mn->path)) == 0;
}

/*
 * BASE's copy b with each binary that NEW maps too moved to NEW's load
 * address, its frames' addresses with it: two runs of one PIE binary (or
 * library) are loaded at other addresses under ASLR, and without this no
 * instruction of BASE would be NEW's. The file offset is what stays: an
 * address a of mapping mb is at offset a - mb.start + mb.offset, which NEW's
 * mapping of that offset places at mn.start + (that - mn.offset). Returns 0
 * or PROFKIT_ENOMEM.
 */
static int rebase_mappings(profkit_profile *b, const profkit_profile *p)
{
    size_t n = b->n_mappings;
    if (!n || !p->n_mappings)
        return 0;
    uint64_t *delta = calloc(n, sizeof(uint64_t));
    if (!delta)
        return PROFKIT_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const profkit_mapping *mb = &b->mappings[i];
        for (size_t j = 0; j < p->n_mappings; j++) {
            const profkit_mapping *mn = &p->mappings[j];
            if (mn->end > mn->start && mb->offset >= mn->offset &&
                mb->offset - mn->offset < mn->end - mn->start && same_file(b, mb, p, mn)) {
                delta[i] = (mn->start - mn->offset) - (mb->start - mb->offset); /* mod 2^64 */
                break;
            }
        }
    }
    for (size_t f = 0; f < b->n_frames; f++) {
        profkit_frame *fr = &b->frames[f];
        uint32_t m = fr->mapping;
        if (m >= n && fr->address) /* not resolved yet: the mapping that holds it */
            for (size_t i = 0; i < n && m >= n; i++)
                if (fr->address >= b->mappings[i].start && fr->address < b->mappings[i].end)
                    m = fr->mapping = (uint32_t)i;
        if (m < n && delta[m] && fr->address >= b->mappings[m].start &&
            fr->address < b->mappings[m].end)
            fr->address += delta[m];
    }
    for (size_t i = 0; i < n; i++) {
        b->mappings[i].start += delta[i];
        b->mappings[i].end += delta[i];
    }
    free(delta);
    return 0;
}

/*
 * --diff-base: NEW with BASE's rows negated, as one profile (as Go pprof's
 * -diff_base), so every line's and instruction's flat and cum are NEW's
 * minus BASE's; BASE's binaries at NEW's load addresses (rebase_mappings).
 * Returns 0, or an error (err filled).
 */
static int diff_profile(profkit_profile **out, const profkit_profile *base, const profkit_profile *p,
                        profkit_error *err)
{
    profkit_profile *d = profkit_profile_new(), *b = profkit_profile_new();
    int rc = PROFKIT_ENOMEM;
    if (!d || !b)
        goto fail;
    if ((rc = profkit_profile_merge(d, p, err)) != 0 || (rc = profkit_profile_merge(b, base, err)) != 0)
        goto fail;
    if ((rc = rebase_mappings(b, p)) != 0)
        goto fail;
    for (size_t i = 0; i < b->n_samples * b->n_value_types; i++)
        b->sample_values[i] = b->sample_values[i] == INT64_MIN ? INT64_MAX : -b->sample_values[i];
    if ((rc = profkit_profile_merge(d, b, err)) != 0)
        goto fail;
    profkit_profile_free(b);
    *out = d;
    return 0;
fail:
    profkit_profile_free(d);
    profkit_profile_free(b);
    if (rc == PROFKIT_ENOMEM)
        pk_error_set(err, rc, NULL, -1, "out of memory");
    return rc;
}

static int report_list_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                           profkit_error *err);

/* list --diff-base: the listing of NEW minus BASE, its percentages of
 * BASE's total (as pprof's, and as diff's). */
static int report_list_diff(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                            profkit_error *err)
{
    uint32_t v, th, bv, bth;
    if (pk_select(p, o->value, o->thread, &v, &th, err) != 0)
        return PROFKIT_EINVAL;
    const char *vname = pk_str(p, p->value_types[v].type);
    if (pk_select(o->base, vname, o->thread, &bv, &bth, err) != 0)
        return PROFKIT_EINVAL;
    profkit_profile *d;
    int rc = diff_profile(&d, o->base, p, err);
    if (rc)
        return rc;
    profkit_report_options od = *o;
    od.base = NULL;
    od.value = vname;
    list_diff_totals dt = { 1, 0, 0 };
    int64_t bt = 0, nt = 0;
    size_t nv = p->n_value_types, bnv = o->base->n_value_types;
    for (size_t r = 0; r < p->n_samples; r++)
        if (th == PROFKIT_NONE || p->sample_thread[r] == th)
            pk_sat_addto(&nt, p->sample_values[r * nv + v]);
    for (size_t r = 0; r < o->base->n_samples; r++)
        if (bth == PROFKIT_NONE || o->base->sample_thread[r] == bth)
            pk_sat_addto(&bt, o->base->sample_values[r * bnv + bv]);
    dt.base = pk_percent_total(o->base, bv, bth, bt);
    dt.now = nt;
    rc = list_buf(out, d, &od, &dt, err);
    profkit_profile_free(d);
    return rc;
}

static int report_list_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                           profkit_error *err)
{
    if (o->base)
        return report_list_diff(out, p, o, err);
    return list_buf(out, p, o, NULL, err);
}

static int list_buf(pk_buf *out, const profkit_profile *p, const profkit_report_options *o,
                    const list_diff_totals *dt, profkit_error *err)
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
    pk_list l;
    fdis *fds = NULL;
    rc = pk_list_compute(&l, p, &re, v, th, o->limit);
    regfree(&re);
    if (rc == 0 && o->disasm && l.n_shown &&
        (!(fds = calloc(l.n_shown, sizeof(fdis))) || disassemble(p, o, &l, fds, v, th) != 0))
        rc = PROFKIT_ENOMEM;
    if (rc == 0) {
        const char *unit = pk_str(p, p->value_types[v].unit);
        char tot[64];
        /* percentages of the whole profile's total (as top's; --relative:
         * of what the filters left), or with --diff-base of BASE's */
        int64_t whole = dt ? dt->base : pk_percent_total(p, v, th, l.total);
        if (dt) {
            char nw[64], ch[64];
            pk_format_value(tot, sizeof(tot), dt->base, unit);
            pk_format_value(nw, sizeof(nw), dt->now, unit);
            pk_format_value(ch, sizeof(ch), pk_sat_add(dt->now, dt->base == INT64_MIN ? INT64_MAX : -dt->base), unit);
            pk_buf_printf(out, "Value: %s (%s), base total %s, new total %s, change %s (new - base on every line)",
                          pk_str(p, p->value_types[v].type), unit, tot, nw, ch);
        } else {
            pk_format_value(tot, sizeof(tot), whole, unit);
            pk_buf_printf(out, "Value: %s (%s), total %s", pk_str(p, p->value_types[v].type), unit, tot);
        }
        if (th != PROFKIT_NONE) {
            char label[300];
            pk_thread_label(p, th, label, sizeof label);
            pk_buf_printf(out, ", thread %s", label);
        }
        if (!dt)
            pk_report_kept(out, p, v, th, l.total, unit, o);
        pk_buf_putc(out, '\n');
        for (size_t i = 0; i < l.n_shown && rc == 0; i++)
            rc = put_function(out, p, o, &l, &l.funcs[i], fds ? &fds[i] : NULL, unit, whole);
        if (l.n_shown == 0)
            pk_buf_printf(out, "no function matches '%s'\n", o->list_regex ? o->list_regex : "");
    }
    for (size_t i = 0; fds && i < l.n_shown; i++) {
        free(fds[i].insns);
        free(fds[i].addr);
        free(fds[i].size);
        free(fds[i].flat);
        free(fds[i].cum);
    }
    free(fds);
    pk_list_free(&l);
    if (rc)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    return 0;
}

/* The entry points: each report drains into the caller's FILE. */
int profkit_report_list(FILE *file, const profkit_profile *p, const profkit_report_options *o,
                        profkit_error *err)
{
    char storage[PK_BUF_STREAM_STORAGE];
    pk_buf out;
    pk_buf_init_stream(&out, storage, sizeof(storage), file);
    int rc = report_list_buf(&out, p, o, err);
    pk_buf_flush(&out);
    return rc;
}
