/*
 * folded.c: folded (collapsed) stacks, as Brendan Gregg's stackcollapse
 * scripts write them and flamegraph.pl reads them.
 *
 * One line per stack: `root;caller;...;leaf N`, N a decimal integer. The
 * rules are in docs/formats/folded.md:
 *   - reading: the count is the text after the last space; equal stacks are
 *     summed; blank lines are skipped; comment lines (`#`, `//`), lines
 *     without a count and empty frames are skipped with one warning per
 *     kind (its first line and column, and how many); a UTF-8 byte-order
 *     mark is skipped and UTF-16 with a mark is converted. One value type,
 *     samples/count; one thread.
 *   - writing: one line per distinct label path with a non-zero value of the
 *     chosen value type, `;` and newlines in labels replaced by `_`. Lines
 *     come in call-tree order with siblings sorted by label bytes, so the
 *     output is stable and diffable.
 */
#include "io/text.h"
#include "model/ltree.h"
#include "formats/registry/format.h"

#include <stdlib.h>

static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static int is_blank(uint8_t c) { return c == ' ' || c == '\t'; }

/* A comment line: `#` or `//` as its first non-blank bytes. */
static int is_comment(const uint8_t *s, size_t n)
{
    return (n >= 1 && s[0] == '#') || (n >= 2 && s[0] == '/' && s[1] == '/');
}

/*
 * Where the count of the line [a, e) (no blanks at either end) starts: the
 * digits after the last blank, with a non-blank byte before that blank.
 * Returns 0 when the line has no such count.
 */
static size_t count_start(const uint8_t *line, size_t a, size_t e)
{
    size_t k = e;
    while (k > a && is_digit(line[k - 1]))
        k--;
    if (k == e || k <= a + 1 || !is_blank(line[k - 1]))
        return 0;
    return k;
}

/*
 * A folded file is text whose lines (blank and comment lines aside) end in
 * a blank and digits: at least one does and no more lines fail than pass
 * among the first complete lines in view. A byte-order mark is skipped;
 * UTF-16 is converted first.
 */
static int sniff_utf8(const uint8_t *d, size_t n, int complete)
{
    size_t pos = 0, good = 0, bad = 0;
    int cut = 0;
    for (unsigned lines = 0; pos < n && lines < 1000;) {
        const uint8_t *nl = memchr(d + pos, '\n', n - pos);
        if (!nl && !complete) {
            cut = 1;
            break; /* a line longer than what we can see */
        }
        size_t len = nl ? (size_t)(nl - (d + pos)) : n - pos;
        const uint8_t *line = d + pos;
        pos += len + 1;
        if (memchr(line, 0, len))
            return 0; /* text has no NUL bytes (frame names may hold other controls) */
        size_t a = 0, e = len;
        while (a < e && (is_blank(line[a]) || line[a] == '\r'))
            a++;
        while (e > a && (is_blank(line[e - 1]) || line[e - 1] == '\r'))
            e--;
        if (a == e || is_comment(line + a, e - a))
            continue; /* (not counted: a file may start with many) */
        lines++;
        if (count_start(line, a, e))
            good++;
        else
            bad++;
    }
    /* Only comments, or a first stack longer than the head: read on. */
    if (!good && !bad && !complete && (cut || pos >= n))
        return PK_SNIFF_MORE;
    return good >= 1 && good >= bad ? 10 : 0;
}

static int folded_sniff(const uint8_t *d, size_t n, int complete)
{
    size_t bom;
    int enc = pk_text_bom(d, n, &bom);
    if (enc == PROFKIT_TEXT_PLAIN || enc == PROFKIT_TEXT_UTF8_BOM)
        return sniff_utf8(d + bom, n - bom, complete);
    uint8_t *u;
    size_t un, n_bad, first_bad;
    if (pk_text_utf16_to_utf8(d + bom, n - bom, enc == PROFKIT_TEXT_UTF16BE, &u, &un,
                                   &n_bad, &first_bad))
        return 0;
    int score = sniff_utf8(u, un, complete);
    free(u);
    return score;
}

/* Lines skipped or changed without stopping the read: each kind is
 * reported once, at its first place, with how many there were. */
enum { SKIP_COMMENT, SKIP_MALFORMED, SKIP_NO_FRAME, SKIP_EMPTY_FRAME, SKIP_CUT, N_SKIP };

typedef struct {
    uint32_t count, line, column;
} skip_note;

static void note(skip_note *s, uint32_t line, size_t column)
{
    if (s->count++ == 0) {
        s->line = line;
        s->column = column + 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(column + 1);
    }
}

static int report_skips(pk_read_ctx *ctx, const skip_note *s)
{
    int rc = 0;
    if (!rc && s[SKIP_CUT].count)
        rc = pk_read_warn_pos(ctx, PROFKIT_ETRUNCATED, s[SKIP_CUT].line, s[SKIP_CUT].column,
                                   "the input ends inside this line, before its sample count "
                                   "(truncated file?); the line is skipped, the lines before it "
                                   "are kept");
    if (!rc && s[SKIP_COMMENT].count)
        rc = pk_read_warn_pos(ctx, PROFKIT_ECORRUPT, s[SKIP_COMMENT].line,
                                   s[SKIP_COMMENT].column,
                                   "comment line skipped (%u in all)",
                                   s[SKIP_COMMENT].count);
    if (!rc && s[SKIP_MALFORMED].count)
        rc = pk_read_warn_pos(ctx, PROFKIT_ECORRUPT, s[SKIP_MALFORMED].line,
                                   s[SKIP_MALFORMED].column,
                                   "expected a stack followed by a space and a sample count; "
                                   "line skipped (%u in all)",
                                   s[SKIP_MALFORMED].count);
    if (!rc && s[SKIP_NO_FRAME].count)
        rc = pk_read_warn_pos(ctx, PROFKIT_ECORRUPT, s[SKIP_NO_FRAME].line,
                                   s[SKIP_NO_FRAME].column,
                                   "expected at least one frame name before the count; line "
                                   "skipped (%u in all)",
                                   s[SKIP_NO_FRAME].count);
    if (!rc && s[SKIP_EMPTY_FRAME].count)
        rc = pk_read_warn_pos(ctx, PROFKIT_ECORRUPT, s[SKIP_EMPTY_FRAME].line,
                                   s[SKIP_EMPTY_FRAME].column,
                                   "empty frame name in stack; dropped from its stack (%u in "
                                   "all)",
                                   s[SKIP_EMPTY_FRAME].count);
    return rc;
}

static int read_lines(profkit_profile *p, pk_read_ctx *ctx, const uint8_t *d, size_t n,
                      uint32_t th, skip_note *skips)
{
    uint32_t line_no = 0;
    size_t pos = 0;
    while (pos < n) {
        line_no++;
        const uint8_t *line = d + pos;
        const uint8_t *nl = memchr(line, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - line) : n - pos;
        pos += len + (nl ? 1 : 0);
        if ((line_no & 0xffff) == 0)
            pk_read_progress(ctx, pos, n);
        if (len > 0 && line[len - 1] == '\r')
            len--;
        size_t a = 0;
        while (a < len && is_blank(line[a]))
            a++;
        if (a == len)
            continue; /* blank line */
        if (is_comment(line + a, len - a)) {
            note(&skips[SKIP_COMMENT], line_no, a);
            continue;
        }
        size_t e = len;
        while (e > a && is_blank(line[e - 1]))
            e--;
        size_t k = count_start(line, a, e);
        if (!k) {
            note(&skips[nl ? SKIP_MALFORMED : SKIP_CUT], line_no, nl ? e : a);
            continue;
        }
        uint64_t count = 0;
        for (size_t i = k; i < e; i++) {
            if (count > (UINT64_MAX - 9) / 10 || count * 10 + (uint64_t)(line[i] - '0') > INT64_MAX)
                return pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, line_no, (uint32_t)(k + 1),
                                             "sample count does not fit in 63 bits");
            count = count * 10 + (uint64_t)(line[i] - '0');
        }
        size_t se = k - 1;
        while (se > a && is_blank(line[se - 1]))
            se--;
        uint32_t stack = 0, empty_at = UINT32_MAX, frames = 0;
        size_t f = a;
        while (f <= se) {
            const uint8_t *semi = memchr(line + f, ';', se - f);
            size_t fe = semi ? (size_t)(semi - line) : se;
            if (fe == f) {
                /* An empty frame: dropped; noted below once the line is kept. */
                if (empty_at == UINT32_MAX)
                    empty_at = (uint32_t)f;
                f = fe + 1;
                continue;
            }
            frames++;
            profkit_function fn;
            memset(&fn, 0, sizeof(fn));
            fn.name = profkit_string_intern(p, (const char *)line + f, fe - f);
            fn.system_name = fn.name;
            profkit_frame fr;
            memset(&fr, 0, sizeof(fr));
            fr.mapping = PROFKIT_NONE;
            if (fn.name == PROFKIT_NONE ||
                (fr.function = pk_function_add(p, &fn)) == PROFKIT_NONE)
                return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            uint32_t frame = pk_frame_add(p, &fr);
            if (frame == PROFKIT_NONE || (stack = pk_stack_intern(p, stack, frame)) == PROFKIT_NONE)
                return pk_read_fail_pos(ctx, PROFKIT_ENOMEM, line_no, (uint32_t)(f + 1),
                                             "out of memory");
            f = fe + 1;
        }
        if (frames == 0) {
            note(&skips[SKIP_NO_FRAME], line_no, a);
            continue;
        }
        if (empty_at != UINT32_MAX)
            note(&skips[SKIP_EMPTY_FRAME], line_no, empty_at);
        int64_t v = (int64_t)count;
        if (count > 0 && pk_sample_add(p, stack, th, &v) != 0)
            return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    }
    return 0;
}

static int folded_read(profkit_profile *p, pk_read_ctx *ctx)
{
    const uint8_t *d;
    size_t n;
    int rc = pk_source_all(ctx->src, &d, &n, ctx->err);
    if (rc)
        return rc;
    uint32_t vt = pk_value_type_add(p, "samples", "count");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    if (vt == PROFKIT_NONE || th == PROFKIT_NONE)
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    p->default_value = vt;
    size_t bom;
    int enc = pk_text_bom(d, n, &bom);
    uint8_t *u = NULL;
    if (enc == PROFKIT_TEXT_UTF16LE || enc == PROFKIT_TEXT_UTF16BE) {
        size_t un, n_bad, first_bad;
        if (pk_text_utf16_to_utf8(d + bom, n - bom, enc == PROFKIT_TEXT_UTF16BE, &u, &un,
                                       &n_bad, &first_bad))
            return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        if (n_bad &&
            (rc = pk_read_warn(ctx, PROFKIT_ECORRUPT, (int64_t)(first_bad + bom),
                                    "UTF-16: unpaired surrogate or odd last byte, read as U+FFFD "
                                    "(%zu in all)",
                                    n_bad)) != 0) {
            free(u);
            return rc;
        }
        d = u;
        n = un;
    } else {
        d += bom;
        n -= bom;
    }
    skip_note skips[N_SKIP];
    memset(skips, 0, sizeof(skips));
    rc = read_lines(p, ctx, d, n, th, skips);
    free(u);
    return rc ? rc : report_skips(ctx, skips);
}

int pk_folded_write_tree(const pk_ltree *t, pk_sink *sink);

/* Writes one line per node with a non-zero self value, depth first. A
 * subtree is skipped only when no node in it has one: in a delta profile
 * (-32768 under one child, +32768 under another) a subtree whose values
 * sum to 0 still holds lines. */
int pk_folded_write_tree(const pk_ltree *t, pk_sink *sink)
{
    size_t cap = 64, depth = 0;
    uint32_t *path = malloc(cap * sizeof(uint32_t)); /* node ids, root excluded */
    size_t *next = malloc(cap * sizeof(size_t));     /* next child index per level */
    uint8_t *live = calloc(t->n ? t->n : 1, 1);      /* a non-zero self in the subtree */
    if (!path || !next || !live) {
        free(path);
        free(next);
        free(live);
        return PROFKIT_ENOMEM;
    }
    /* parents precede children in the tree's numbering */
    for (size_t i = t->n; i-- > 1;) {
        live[i] |= t->self[i] != 0;
        live[t->parent[i]] |= live[i];
    }
    /* Iterative DFS: level d holds path[d-1] (d >= 1); next[d] is the next
     * child of that level's node to visit. */
    next[0] = t->child_start[0];
    for (;;) {
        uint32_t cur = depth ? path[depth - 1] : 0;
        if (next[depth] < t->child_start[cur + 1]) {
            uint32_t c = t->children[next[depth]++];
            if (!live[c])
                continue;
            if (depth + 2 > cap) {
                size_t ncap = cap * 2;
                uint32_t *np = realloc(path, ncap * sizeof(uint32_t));
                if (np)
                    path = np;
                size_t *nn = realloc(next, ncap * sizeof(size_t));
                if (nn)
                    next = nn;
                if (!np || !nn) {
                    free(path);
                    free(next);
                    free(live);
                    return PROFKIT_ENOMEM;
                }
                cap = ncap;
            }
            path[depth++] = c;
            next[depth] = t->child_start[c];
            if (t->self[c] != 0) {
                for (size_t i = 0; i < depth; i++) {
                    if (i)
                        pk_sink_write(sink, ";", 1);
                    uint32_t l = t->key[path[i]];
                    pk_sink_write(sink, pk_strtab_get(&t->labels, l),
                                       pk_strtab_len(&t->labels, l));
                }
                pk_sink_printf(sink, " %lld\n", (long long)t->self[c]);
            }
        } else if (depth == 0) {
            break;
        } else {
            depth--;
        }
    }
    free(path);
    free(next);
    free(live);
    return 0;
}

static int folded_write(const profkit_profile *p, pk_sink *sink,
                        const profkit_write_options *o, profkit_error *err)
{
    int ok;
    pk_ltree_options lo = { .by = PROFKIT_BY_FUNCTION, .merge = 1, .children = 1, .values = 1 };
    lo.value = pk_select_value(p, o->value, err);
    if (lo.value == PROFKIT_NONE)
        return p->n_value_types == 0 && !o->value ? 0 : PROFKIT_EINVAL;
    lo.thread = pk_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    lo.by_line = o->by_line;
    lo.sanitize = 1;
    pk_ltree t;
    int rc = pk_ltree_build(&t, p, &lo, err);
    if (rc)
        return rc;
    rc = pk_folded_write_tree(&t, sink);
    /* samples without a stack (Gecko's null stacks) sit on the root, which
     * no line can name: said once */
    int64_t rootless = t.n ? t.self[0] : 0;
    pk_ltree_free(&t);
    if (rc)
        return pk_error_set(err, rc, NULL, -1, "out of memory writing folded stacks");
    if (rootless && o->on_warning) {
        profkit_error w;
        pk_error_set(&w, PROFKIT_EUNSUPPORTED, NULL, -1,
                     "folded stacks: samples without a stack (a value of %lld) left out: a line needs a frame",
                     (long long)rootless);
        o->on_warning(&w, o->payload);
    }
    return 0;
}

const pk_format pk_format_folded = {
    { "folded", "folded (collapsed) stacks: one 'root;...;leaf COUNT' line per stack",
      ".folded .collapsed", 1, 1 },
    folded_sniff,
    folded_read,
    folded_write,
};
