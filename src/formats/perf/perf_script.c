/*
 * perf_script.c: the text that `perf script` prints for a `perf record -g`
 * recording (Linux perf), the input of stackcollapse-perf.pl.
 *
 * Samples are separated by blank lines. Each starts with a header line,
 *   COMM PID[/TID] [CPU] TIME: [PERIOD] EVENT:
 * (fields vary with `perf script -F`; COMM may hold spaces), then one line
 * per frame, leaf first:
 *   ADDRESS SYMBOL[+0xOFFSET] (DSO)
 * A recording without call chains prints one line per sample, the header
 * and the sampled address on it: `COMM PID TIME: PERIOD EVENT: ADDRESS
 * SYMBOL (DSO)`. Lines starting with `#` are comments (`perf script
 * --header`).
 *
 * The rules, and where profkit follows stackcollapse-perf.pl, are in
 * docs/formats/perf_script.md:
 *   - threads: one per (pid, tid, comm), named after the comm;
 *   - value types: one per event, in order of appearance, summing each
 *     sample's period (1 when the header has none), the first event the
 *     default, in nanoseconds for cpu-clock and task-clock with or without
 *     modifiers (`cpu-clock:pppH`); then `samples` (count);
 *   - frame names are tidied as stackcollapse-perf.pl tidies them (offset
 *     stripped, `[unknown]` named after its DSO, arguments cut, quotes
 *     removed, Java's `L` prefix), the raw symbol kept as system name and
 *     the DSO as module; the address is the frame's address;
 *   - lines that are neither are skipped with one warning per kind; the end
 *     of input ends the last sample as a blank line would, unless the last
 *     line itself is cut (no newline, and not a whole frame line): that
 *     sample is dropped, with a warning.
 */
#include "formats/registry/format.h"

#include <stdlib.h>

static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static int is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static int is_word(uint8_t c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* ---------------------------------------------------------------- lines */

typedef struct {
    size_t comm_len;     /* COMM is line[0, comm_len) */
    int64_t pid, tid;    /* pid -1 when only one number is given (it is the tid) */
    size_t event, event_len; /* 0 length = no event field */
    int64_t period;      /* 1 when none */
    size_t frame;        /* where a frame after `EVENT: ` starts (no call
                          * chains: one line a sample); 0 = none */
    int64_t time;        /* the sample's time in ns (`SECONDS.FRACTION:`),
                          * PROFKIT_NO_TIME when the header has none */
} perf_header;

static int64_t parse_num(const uint8_t *s, size_t n)
{
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (v > (INT64_MAX - 9) / 10)
            return INT64_MAX;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

typedef struct {
    uint64_t pc;
    size_t sym, sym_len, dso, dso_len;
} perf_frame_line;

/*
 * A frame line, as stackcollapse-perf.pl's `^\s*(\w+)\s*(.+) \((.*)\)`
 * splits it: blanks, a word (the address), then SYMBOL up to the last ` (`
 * before the last `)`, then DSO. The pattern lets SYMBOL be blanks when
 * perf printed none (`7f1e2215d058  (/lib/libc.so)`): SYMBOL is then one
 * blank, as that pattern and inferno make it.
 */
static int parse_frame(const uint8_t *l, size_t n, perf_frame_line *f)
{
    size_t i = 0;
    while (i < n && is_ws(l[i]))
        i++;
    size_t w = i;
    uint64_t pc = 0;
    int hex = 1;
    while (i < n && is_word(l[i])) {
        uint8_t c = l[i] | 0x20;
        if (is_digit(l[i]))
            pc = pc << 4 | (uint64_t)(l[i] - '0');
        else if (c >= 'a' && c <= 'f')
            pc = pc << 4 | (uint64_t)(c - 'a' + 10);
        else
            hex = 0;
        i++;
    }
    if (i == w)
        return 0;
    size_t word_end = i;
    while (i < n && is_ws(l[i]))
        i++;
    size_t close = n;
    while (close > word_end && l[close - 1] != ')')
        close--;
    if (close == word_end)
        return 0;
    close--; /* l[close] == ')' */
    /* the last ` (` before it, with at least one byte of SYMBOL before */
    size_t open = close;
    while (open > word_end + 1 && !(l[open - 1] == ' ' && l[open] == '('))
        open--;
    if (open <= word_end + 1 || l[open] != '(' || l[open - 1] != ' ')
        return 0;
    size_t sym = i < open - 1 ? i : open - 2; /* blanks only: the last of them */
    f->pc = hex ? pc : 0;
    f->sym = sym;
    f->sym_len = open - 1 - sym;
    f->dso = open + 1;
    f->dso_len = close - open - 1;
    return 1;
}

/*
 * A header that goes on after `EVENT:` (a recording without call chains):
 * the first `: [PERIOD] EVENT: ` after the pid (EVENT a run of non-blanks
 * ending in `:`, then a blank) followed by a frame whose address is hex.
 */
static void event_then_frame(const uint8_t *l, size_t e, size_t k, perf_header *h)
{
    for (size_t x = k + 1; x + 1 < e; x++) {
        if (l[x] != ':' || !is_ws(l[x + 1]))
            continue;
        size_t s = x;
        while (s > k && !is_ws(l[s - 1]))
            s--;
        size_t q = s;
        while (q > k && is_ws(l[q - 1]))
            q--;
        if (q == s || s == x)
            continue;
        size_t pd = q;
        while (pd > k && is_digit(l[pd - 1]))
            pd--;
        size_t c = pd;
        while (c > k && is_ws(l[c - 1]))
            c--;
        if (!(c > k && l[c - 1] == ':'))
            continue;
        size_t f = x + 1;
        while (f < e && is_ws(l[f]))
            f++;
        size_t a = f;
        while (a < e && ((l[a] >= '0' && l[a] <= '9') || ((l[a] | 0x20) >= 'a' && (l[a] | 0x20) <= 'f')))
            a++;
        perf_frame_line fl;
        if (a == f || a == e || !is_ws(l[a]) || !parse_frame(l + f, e - f, &fl))
            return;
        h->event = s;
        h->event_len = x - s;
        if (pd < q) {
            int64_t v = parse_num(l + pd, q - pd);
            if (v > 0)
                h->period = v;
        }
        h->frame = f;
        return;
    }
}

/*
 * The time of a header whose fields after the pid/tid are l[k, e): the
 * first blank-separated field of the form `SECONDS.FRACTION:` (perf's
 * `TIME:`, microseconds by default, nanoseconds with `--ns`), in ns.
 * PROFKIT_NO_TIME when there is none (`perf script -F` without `time`) or
 * it does not fit.
 */
static int64_t header_time(const uint8_t *l, size_t k, size_t e)
{
    size_t i = k;
    while (i < e) {
        while (i < e && is_ws(l[i]))
            i++;
        size_t f = i;
        while (i < e && !is_ws(l[i]))
            i++;
        /* l[f, i) is one field */
        size_t d = f;
        while (d < i && is_digit(l[d]))
            d++;
        if (d == f || d - f > 10 || d + 2 >= i || l[d] != '.' || l[i - 1] != ':')
            continue;
        size_t g = d + 1;
        while (g < i - 1 && is_digit(l[g]))
            g++;
        if (g != i - 1 || g == d + 1 || g - d - 1 > 9)
            continue;
        int64_t sec = parse_num(l + f, d - f);
        if (sec > INT64_MAX / 1000000000 - 1)
            return PROFKIT_NO_TIME;
        int64_t frac = parse_num(l + d + 1, g - d - 1);
        for (size_t z = g - d - 1; z < 9; z++)
            frac *= 10;
        return sec * 1000000000 + frac;
    }
    return PROFKIT_NO_TIME;
}

/*
 * A sample header: COMM (a non-blank byte and at least one more), blanks,
 * digits, optionally `/` and digits, then a blank; the shortest COMM that
 * fits, as stackcollapse-perf.pl matches it. Then, when the line ends in
 * `: [PERIOD] EVENT:`, the period and event.
 */
static int parse_header(const uint8_t *l, size_t n, perf_header *h)
{
    if (n < 2 || is_ws(l[0]))
        return 0;
    for (size_t j = 2; j < n; j++) {
        /* Every blank of one run leaves the same rest to match, so only the
         * run's first blank (or position 2) is tried: linear in the line. */
        if (!is_ws(l[j]) || (j > 2 && is_ws(l[j - 1])))
            continue;
        size_t k = j;
        while (k < n && is_ws(l[k]))
            k++;
        size_t d = k;
        while (k < n && is_digit(l[k]))
            k++;
        if (k == d)
            continue;
        size_t d_end = k, t = k, t_end = k;
        while (k < n && l[k] == '/')
            k++;
        t = k;
        while (k < n && is_digit(l[k]))
            k++;
        t_end = k;
        if (k == n || !is_ws(l[k]))
            continue;
        h->comm_len = j;
        if (t_end > t) {
            h->pid = parse_num(l + d, d_end - d);
            h->tid = parse_num(l + t, t_end - t);
        } else {
            h->pid = -1;
            h->tid = parse_num(l + d, d_end - d);
        }
        /* `:\s*(\d+)?\s+(\S+):\s*$` */
        h->event_len = 0;
        h->period = 1;
        h->frame = 0;
        size_t e = n;
        while (e > k && is_ws(l[e - 1]))
            e--;
        if (e > k && l[e - 1] == ':') {
            size_t s = e - 1;
            while (s > k && !is_ws(l[s - 1]))
                s--;
            size_t q = s;
            while (q > k && is_ws(l[q - 1]))
                q--;
            if (q < s && s < e - 1) {
                size_t pd = q;
                while (pd > k && is_digit(l[pd - 1]))
                    pd--;
                size_t c = pd;
                while (c > k && is_ws(l[c - 1]))
                    c--;
                if (c > k && l[c - 1] == ':') {
                    h->event = s;
                    h->event_len = e - 1 - s;
                    if (pd < q) {
                        int64_t v = parse_num(l + pd, q - pd);
                        if (v > 0)
                            h->period = v;
                    }
                }
            }
        } else {
            event_then_frame(l, e, k, h);
        }
        /* the time is among the fields before the event */
        h->time = header_time(l, k, h->event_len ? h->event : h->frame ? h->frame : e);
        return 1;
    }
    return 0;
}

/*
 * The header a line holds, and where it starts: at the line's start, or,
 * for a sample without call chains (whose COMM perf right-aligns in 16
 * columns), after leading blanks when the frame is on the line too.
 */
static int line_header(const uint8_t *l, size_t e, perf_header *h, size_t *at)
{
    size_t b = 0;
    while (b < e && is_ws(l[b]))
        b++;
    *at = b;
    if (b > 0) {
        /* an indented line is a frame line unless it holds `: ` (the
         * time's colon of a one-line sample): a cheap test first */
        const uint8_t *c = l + b;
        while ((c = memchr(c, ':', (size_t)(l + e - c))) != NULL && c + 1 < l + e && !is_ws(c[1]))
            c++;
        if (!c || c + 1 >= l + e)
            return 0;
    }
    if (!parse_header(l + b, e - b, h))
        return 0;
    return b == 0 || h->frame;
}

/* ---------------------------------------------------------------- names */

static const uint8_t *find(const uint8_t *s, size_t n, const char *pat)
{
    size_t k = strlen(pat);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(s + i, pat, k) == 0)
            return s + i;
    return NULL;
}

/* True when s holds `.(`, later followed by `).` (a Go method name). */
static int go_method(const uint8_t *s, size_t n)
{
    const uint8_t *a = find(s, n, ".(");
    if (!a)
        return 0;
    size_t off = (size_t)(a - s) + 2;
    for (size_t i = n; i >= off + 2; i--)
        if (s[i - 2] == ')' && s[i - 1] == '.')
            return 1;
    return 0;
}

/*
 * The frame name stackcollapse-perf.pl gives one part of a symbol (parts
 * are split at `->`): `[unknown]` becomes `[DSO basename]`; `;` becomes `:`;
 * everything from the first `(` (other than `(anonymous namespace)`) is cut
 * unless it is a Go method name; quotes go; a Java process's `L` prefix of
 * a name with `/` goes; an inlined part (not the first) gets `_[i]`.
 */
static int tidy(pk_buf *out, const uint8_t *s, size_t n, const uint8_t *dso, size_t dso_len,
                int java, int inlined)
{
    pk_buf_clear(out);
    if (n == 9 && memcmp(s, "[unknown]", 9) == 0) {
        if (!(dso_len == 9 && memcmp(dso, "[unknown]", 9) == 0)) {
            size_t b = dso_len;
            while (b > 0 && dso[b - 1] != '/')
                b--;
            pk_buf_putc(out, '[');
            pk_buf_put(out, dso + b, dso_len - b);
            pk_buf_putc(out, ']');
        } else {
            pk_buf_put(out, "[unknown]", 9);
        }
    } else {
        pk_buf_put(out, s, n);
    }
    if (pk_buf_reserve(out, 0) != 0)
        return -1;
    uint8_t *t = (uint8_t *)out->buf;
    size_t len = out->len;
    for (size_t i = 0; i < len; i++)
        if (t[i] == ';')
            t[i] = ':';
    if (!go_method(t, len)) {
        for (size_t i = 0; i < len; i++) {
            if (t[i] != '(')
                continue;
            static const char anon[] = "anonymous namespace)";
            if (len - i - 1 >= sizeof(anon) - 1 && memcmp(t + i + 1, anon, sizeof(anon) - 1) == 0)
                continue;
            len = i;
            break;
        }
    }
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        if (t[i] != '"' && t[i] != '\'')
            t[w++] = t[i];
    len = w;
    if (java && len > 0 && t[0] == 'L' && memchr(t, '/', len)) {
        memmove(t, t + 1, len - 1);
        len--;
    }
    pk_buf_truncate(out, len);
    if (inlined && !find(t, len, "_[i]"))
        pk_buf_put(out, "_[i]", 4);
    return pk_buf_error(out) ? -1 : 0;
}

/* ---------------------------------------------------------------- reader */

/* Threads by (pid, tid, comm), through an open-addressing table so many
 * threads cost no more than few. */
typedef struct {
    uint32_t *slot; /* thread id + 1, 0 = empty */
    size_t cap, used;
} thread_map;

static uint64_t thread_hash(int64_t pid, int64_t tid, const uint8_t *comm, size_t n)
{
    return pk_hash_bytes(comm, n, pk_hash_u64((uint64_t)pid * 0x9e3779b97f4a7c15u ^ (uint64_t)tid));
}

static uint32_t thread_of(profkit_profile *p, thread_map *m, const perf_header *h,
                          const uint8_t *comm)
{
    if ((m->used + 1) * 2 > m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 64;
        uint32_t *ns = calloc(ncap, sizeof(uint32_t));
        if (!ns)
            return PROFKIT_NONE;
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->slot[i])
                continue;
            const profkit_thread *t = &p->threads[m->slot[i] - 1];
            const char *name = pk_str(p, t->name);
            size_t j = thread_hash(t->pid, t->tid, (const uint8_t *)name, strlen(name)) & (ncap - 1);
            while (ns[j])
                j = (j + 1) & (ncap - 1);
            ns[j] = m->slot[i];
        }
        free(m->slot);
        m->slot = ns;
        m->cap = ncap;
    }
    size_t j = thread_hash(h->pid, h->tid, comm, h->comm_len) & (m->cap - 1);
    for (; m->slot[j]; j = (j + 1) & (m->cap - 1)) {
        const profkit_thread *t = &p->threads[m->slot[j] - 1];
        const char *name = pk_str(p, t->name);
        if (t->pid == h->pid && t->tid == h->tid && strlen(name) == h->comm_len &&
            memcmp(name, comm, h->comm_len) == 0)
            return m->slot[j] - 1;
    }
    char *name = strndup((const char *)comm, h->comm_len);
    if (!name)
        return PROFKIT_NONE;
    uint32_t th = pk_thread_add(p, name, "", h->pid, h->tid);
    free(name);
    if (th == PROFKIT_NONE)
        return PROFKIT_NONE;
    m->slot[j] = th + 1;
    m->used++;
    return th;
}

/* Lines skipped without stopping the read, each kind reported once. */
enum { SKIP_LINE, SKIP_CUT, N_SKIP };

typedef struct {
    uint32_t count;
    uint32_t line;
    size_t offset;
} skip_note;

typedef struct {
    profkit_profile *p;
    pk_read_ctx *ctx;
    thread_map threads;
    uint32_t samples_vt;
    int64_t *values;  /* one per value type */
    size_t cap_values;
    uint32_t *frames; /* the open sample's frames, leaf first */
    size_t n_frames, cap_frames;
    pk_buf name;
    /* the open sample */
    int open;
    uint32_t thread, vt;
    int64_t period;
    int64_t time;
    int java;
    /* Times: kept (timed rows, one per sample) while every sample so far
     * has one; the first sample without one makes the whole profile
     * untimed (TIMES_NONE), the rows so far aggregated again. */
    enum { TIMES_UNKNOWN, TIMES_KEPT, TIMES_NONE } times;
    size_t n_timed, n_untimed; /* samples with and without a time */
    uint32_t line, mixed_line; /* the open sample's header line; the first
                                * one whose time-ness differs from the first */
    /* The time column's kind (fix_deltas): the first time, the one before,
     * the line of the first time below the one before it, of the first
     * nonzero time equal to the one before it, and how many are */
    int64_t first_time, prev_time;
    uint32_t back_line, same_line;
    size_t n_same;
    skip_note skips[N_SKIP];
} perf_reader;

static int oom(perf_reader *r) { return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory"); }

static uint32_t event_type(perf_reader *r, const uint8_t *ev, size_t n)
{
    char *name = strndup((const char *)ev, n);
    if (!name)
        return PROFKIT_NONE;
    /* `cpu-clock:pppH`: the modifiers after the first `:` leave the unit */
    size_t base = strcspn(name, ":");
    int ns = (base == 9 && memcmp(name, "cpu-clock", 9) == 0) ||
             (base == 10 && memcmp(name, "task-clock", 10) == 0);
    uint32_t vt = pk_value_type_add(r->p, name, ns ? "nanoseconds" : "count");
    free(name);
    if (vt == PROFKIT_NONE)
        return vt;
    if (r->samples_vt == PROFKIT_NONE) {
        r->p->default_value = vt;
        if ((r->samples_vt = pk_value_type_add(r->p, "samples", "count")) == PROFKIT_NONE)
            return PROFKIT_NONE;
    }
    return vt;
}

/* The `samples` value type, made (and the default) when a header without an
 * event comes first. */
static uint32_t samples_type(perf_reader *r)
{
    if (r->samples_vt == PROFKIT_NONE) {
        r->samples_vt = pk_value_type_add(r->p, "samples", "count");
        r->p->default_value = r->samples_vt;
    }
    return r->samples_vt;
}

/*
 * Turns the timed rows read so far into untimed ones, aggregated per stack
 * and thread, in place (an aggregated row never lands after the row it
 * comes from). Only timed rows exist at this point, so the model's index
 * of untimed rows is empty.
 */
static int drop_times(perf_reader *r)
{
    profkit_profile *p = r->p;
    size_t n = p->n_samples, nv = p->n_value_types;
    int64_t *v = malloc((nv ? nv : 1) * sizeof(int64_t));
    if (!v)
        return oom(r);
    p->n_samples = 0;
    p->samples_indexed = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(v, p->sample_values + i * nv, nv * sizeof(int64_t));
        if (pk_sample_add(p, p->sample_stack[i], p->sample_thread[i], v)) {
            free(v);
            return oom(r);
        }
    }
    free(v);
    return 0;
}

/* Adds the open sample (frames leaf first) and closes it. */
static int close_sample(perf_reader *r)
{
    if (!r->open)
        return 0;
    r->open = 0;
    for (size_t i = 0, j = r->n_frames; i < j / 2; i++) {
        uint32_t t = r->frames[i];
        r->frames[i] = r->frames[j - 1 - i];
        r->frames[j - 1 - i] = t;
    }
    uint32_t stack = pk_stack_intern_frames(r->p, r->frames, r->n_frames);
    if (stack == PROFKIT_NONE)
        return oom(r);
    size_t nv = r->p->n_value_types;
    if (PK_VEC_RESERVE(r->values, 0, r->cap_values, nv))
        return oom(r);
    memset(r->values, 0, nv * sizeof(int64_t));
    r->values[r->vt] = r->period;
    r->values[r->samples_vt] = 1;
    if (r->time != PROFKIT_NO_TIME) {
        if (r->n_timed == 0)
            r->first_time = r->time;
        else if (r->time < r->prev_time && !r->back_line)
            r->back_line = r->line;
        else if (r->time == r->prev_time && r->time != 0 && r->n_same++ == 0)
            r->same_line = r->line;
        r->prev_time = r->time;
        r->n_timed++;
    } else {
        r->n_untimed++;
    }
    if (!r->mixed_line && r->n_timed && r->n_untimed)
        r->mixed_line = r->line;
    if (r->times == TIMES_UNKNOWN)
        r->times = r->time != PROFKIT_NO_TIME ? TIMES_KEPT : TIMES_NONE;
    else if (r->times == TIMES_KEPT && r->time == PROFKIT_NO_TIME) {
        r->times = TIMES_NONE;
        if (drop_times(r))
            return PROFKIT_ENOMEM;
    }
    if (r->times == TIMES_KEPT ? pk_sample_add_timed(r->p, stack, r->thread, r->time, r->values)
                               : pk_sample_add(r->p, stack, r->thread, r->values))
        return oom(r);
    return 0;
}

static void note(skip_note *s, uint32_t line, size_t offset)
{
    if (s->count++ == 0) {
        s->line = line;
        s->offset = offset;
    }
}

static int open_sample(perf_reader *r, const uint8_t *l, const perf_header *h)
{
    if ((r->thread = thread_of(r->p, &r->threads, h, l)) == PROFKIT_NONE)
        return -1;
    r->vt = h->event_len ? event_type(r, l + h->event, h->event_len) : samples_type(r);
    if (r->vt == PROFKIT_NONE)
        return -1;
    r->period = h->period;
    r->time = h->time;
    r->java = h->comm_len >= 4 && memcmp(l, "java", 4) == 0;
    r->n_frames = 0;
    r->open = 1;
    return 0;
}

/* Adds the frames of one frame line (several when perf shows inlined
 * functions as `a->b`). Returns 0, 1 when the line is not a frame line, or
 * an error code. */
static int add_frames(perf_reader *r, const uint8_t *l, size_t n)
{
    perf_frame_line f;
    if (!parse_frame(l, n, &f))
        return 1;
    const uint8_t *sym = l + f.sym, *dso = l + f.dso;
    size_t sn = f.sym_len;
    /* `+0x<lowercase hex>` at the end is the offset into the symbol. */
    size_t k = sn;
    while (k > 0 && (is_digit(sym[k - 1]) || (sym[k - 1] >= 'a' && sym[k - 1] <= 'f')))
        k--;
    if (k < sn && k >= 3 && memcmp(sym + k - 3, "+0x", 3) == 0)
        sn = k - 3;
    if (sn > 0 && sym[0] == '(')
        return 0; /* a process name, not a frame */
    size_t first = r->n_frames;
    for (size_t a = 0, part = 0; a <= sn; part++) {
        const uint8_t *arrow = find(sym + a, sn - a, "->");
        size_t e = arrow ? (size_t)(arrow - sym) : sn;
        if (tidy(&r->name, sym + a, e - a, dso, f.dso_len, r->java, part > 0))
            return oom(r);
        profkit_function fn;
        memset(&fn, 0, sizeof(fn));
        fn.name = profkit_string_intern(r->p, r->name.buf, r->name.len);
        fn.system_name = profkit_string_intern(r->p, (const char *)sym + a, e - a);
        fn.module = profkit_string_intern(r->p, (const char *)dso, f.dso_len);
        profkit_frame fr;
        memset(&fr, 0, sizeof(fr));
        fr.address = f.pc;
        fr.mapping = PROFKIT_NONE;
        if (fn.name == PROFKIT_NONE || fn.system_name == PROFKIT_NONE ||
            fn.module == PROFKIT_NONE ||
            (fr.function = pk_function_add(r->p, &fn)) == PROFKIT_NONE)
            return oom(r);
        uint32_t frame = pk_frame_add(r->p, &fr);
        if (frame == PROFKIT_NONE || PK_VEC_RESERVE(r->frames, r->n_frames, r->cap_frames, 1))
            return oom(r);
        r->frames[r->n_frames++] = frame;
        a = e + 2;
    }
    /* The parts of one line go root-ward in their written order: reversed
     * here, since the whole list is reversed when the sample closes. */
    for (size_t i = first, j = r->n_frames; i < j; i++, j--) {
        uint32_t t = r->frames[i];
        r->frames[i] = r->frames[j - 1];
        r->frames[j - 1] = t;
    }
    return 0;
}

/*
 * `perf script --deltatime` prints in the time column each sample's time
 * since the sample before (the first: 0), `--reltime` the time since the
 * first sample; the text looks the same. perf prints samples in time
 * order, so times that start at 0 and go back are deltas: the samples'
 * times are their running sums, and the reader says so. Times that start
 * at 0 and never go back are read as relative times. Where two samples
 * in a row have the same nonzero time (what equal deltas give) the reader
 * says it cannot tell, if the file is short (fewer than SHORT_STEPS steps
 * from one sample to the next: few deltas often never go back) or at
 * least half its steps keep the time (a run of equal deltas); a few equal
 * times among many are two threads sampled in the same microsecond, as
 * --reltime prints them on any busy recording, and no warning.
 */
enum { SHORT_STEPS = 8 };

static int fix_deltas(perf_reader *r)
{
    if (r->times != TIMES_KEPT || r->n_timed < 2 || r->first_time != 0)
        return 0;
    if (r->back_line) {
        profkit_profile *p = r->p;
        int64_t sum = 0;
        for (size_t i = 0; i < p->n_samples; i++) {
            sum = pk_sat_add(sum, p->sample_time[i]);
            p->sample_time[i] = sum;
        }
        return pk_read_warn_pos(r->ctx, PROFKIT_ECORRUPT, r->back_line, 1,
                                "the times start at 0 and go back here: read as deltas "
                                "(perf script --deltatime), each sample's time the sum of "
                                "the deltas up to it");
    }
    size_t steps = r->n_timed - 1;
    if (r->n_same && (steps < SHORT_STEPS || 2 * r->n_same >= steps))
        return pk_read_warn_pos(r->ctx, PROFKIT_ECORRUPT, r->same_line, 1,
                                "the times start at 0 and this sample's equals the one before: "
                                "read as times since the first sample (perf script --reltime), "
                                "though they may be deltas (--deltatime), which cannot be told "
                                "apart here");
    return 0;
}

static int report_skips(perf_reader *r)
{
    skip_note *s = r->skips;
    int rc = 0;
    if (!rc && s[SKIP_CUT].count)
        rc = pk_read_warn_pos(r->ctx, PROFKIT_ETRUNCATED, s[SKIP_CUT].line, 1,
                                   "the input ends in the middle of a line of the sample that "
                                   "starts here (truncated file?); that sample is dropped, the "
                                   "samples before it are kept");
    if (!rc && r->n_timed && r->n_untimed)
        rc = pk_read_warn_pos(r->ctx, PROFKIT_ECORRUPT, r->mixed_line, 1,
                              "%zu of %zu samples have a time (TIME: in the header), the "
                              "others none; times are not kept (samples aggregated per stack "
                              "and thread)",
                              r->n_timed, r->n_timed + r->n_untimed);
    if (!rc && s[SKIP_LINE].count)
        rc = pk_read_warn_pos(r->ctx, PROFKIT_ECORRUPT, s[SKIP_LINE].line, 1,
                                   "expected a sample header (COMM PID[/TID] ...) or a frame line "
                                   "(ADDRESS SYMBOL (DSO)); line skipped (%u in all)",
                                   s[SKIP_LINE].count);
    return rc;
}

static int read_lines(perf_reader *r, const uint8_t *d, size_t n)
{
    uint32_t line_no = 0, sample_line = 0;
    size_t pos = 0;
    int cut = 0; /* the last line has no newline and is no whole line */
    while (pos < n) {
        line_no++;
        const uint8_t *l = d + pos;
        const uint8_t *nl = memchr(l, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - l) : n - pos;
        pos += len + (nl ? 1 : 0);
        if ((line_no & 0xffff) == 0)
            pk_read_progress(r->ctx, pos, n);
        size_t e = len;
        while (e > 0 && is_ws(l[e - 1]))
            e--;
        if (e == 0) {
            int rc = close_sample(r); /* a blank line ends a sample */
            if (rc)
                return rc;
            continue;
        }
        if (l[0] == '#')
            continue;
        perf_header h;
        size_t at;
        if (line_header(l, e, &h, &at)) {
            /* A header; one while a sample is open also ends that one. */
            int rc = close_sample(r);
            if (rc)
                return rc;
            l += at;
            e -= at;
            if (open_sample(r, l, &h))
                return oom(r);
            sample_line = line_no;
            r->line = line_no;
            /* a header with its frame on it is whole; one without, last
             * and without a newline, may be cut */
            if (h.frame && (rc = add_frames(r, l + h.frame, e - h.frame)) > 1)
                return rc;
            cut = !nl && !h.frame;
            continue;
        }
        if (!r->open) {
            /* A frame line outside a sample, or neither kind. */
            note(&r->skips[SKIP_LINE], line_no, (size_t)(l - d));
            continue;
        }
        int rc = add_frames(r, l, e);
        if (rc > 1)
            return rc;
        if (rc == 1 && !nl)
            cut = 1; /* the last line, cut short of a whole frame line */
        else if (rc == 1)
            note(&r->skips[SKIP_LINE], line_no, (size_t)(l - d));
    }
    if (r->open && cut) {
        r->open = 0;
        note(&r->skips[SKIP_CUT], sample_line, 0);
    }
    /* the end of input ends the last sample, as a blank line would */
    return close_sample(r);
}

static int perf_script_read(profkit_profile *p, pk_read_ctx *ctx)
{
    const uint8_t *d;
    size_t n;
    int rc = pk_source_all(ctx->src, &d, &n, ctx->err);
    if (rc)
        return rc;
    perf_reader r;
    memset(&r, 0, sizeof(r));
    r.p = p;
    r.ctx = ctx;
    r.samples_vt = PROFKIT_NONE;
    rc = read_lines(&r, d, n);
    if (!rc && r.samples_vt == PROFKIT_NONE)
        rc = pk_read_fail(ctx, PROFKIT_ECORRUPT, 0,
                               "expected at least one sample header (COMM PID[/TID] ... EVENT:)");
    if (!rc)
        rc = fix_deltas(&r);
    if (!rc)
        rc = report_skips(&r);
    free(r.threads.slot);
    free(r.values);
    free(r.frames);
    pk_buf_free(&r.name);
    return rc;
}

/*
 * Detection: after comment and blank lines, a sample header, then frame
 * lines up to a blank line (or the end of the head); the header ending in
 * `EVENT:`, or in `EVENT: ` and a frame, or followed by a frame line makes
 * it sure.
 */
static int perf_script_sniff(const uint8_t *d, size_t n, int complete)
{
    size_t pos = 0;
    int header = 0, frames = 0, event = 0, comments = 0;
    while (pos < n) {
        const uint8_t *nl = memchr(d + pos, '\n', n - pos);
        if (!nl && !complete)
            break;
        size_t len = nl ? (size_t)(nl - (d + pos)) : n - pos;
        const uint8_t *l = d + pos;
        pos += len + 1;
        for (size_t i = 0; i < len; i++)
            if (l[i] == 0)
                return 0;
        size_t e = len;
        while (e > 0 && is_ws(l[e - 1]))
            e--;
        if (!header) {
            comments |= e > 0;
            if (e == 0 || l[0] == '#')
                continue;
            perf_header h;
            size_t at;
            if (!line_header(l, e, &h, &at))
                return 0;
            if (h.frame)
                return 60; /* one line a sample, without call chains */
            header = 1;
            event = h.event_len > 0;
            continue;
        }
        if (e == 0)
            break;
        perf_frame_line f;
        if (!parse_frame(l, e, &f)) {
            if (!nl)
                break; /* the last line of a cut file */
            return 0;
        }
        frames++;
    }
    if (!header) /* `perf script --header`'s comments may be long: read on */
        return comments && !complete ? PK_SNIFF_MORE : 0;
    return frames > 0 || event ? 60 : 0;
}

const pk_format pk_format_perf_script = {
    { "perf_script", "Linux `perf script` text output (with call stacks, `perf record -g`)",
      ".perf .perf-script", 1, 0 },
    perf_script_sniff,
    perf_script_read,
    NULL,
};
