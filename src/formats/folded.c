/*
 * folded.c: folded (collapsed) stacks, as Brendan Gregg's stackcollapse
 * scripts write them and flamegraph.pl reads them.
 *
 * One line per stack: `root;caller;...;leaf N`, N a decimal integer. The
 * rules are in docs/formats/folded.md:
 *   - reading: the count is the text after the last space; equal stacks are
 *     summed; blank lines are skipped; a line without a count is an error
 *     with its line and column. One value type, samples/count; one thread.
 *   - writing: one line per distinct label path with a non-zero value of the
 *     chosen value type, `;` and newlines in labels replaced by `_`. Lines
 *     come in call-tree order with siblings sorted by label bytes, so the
 *     output is stable and diffable.
 */
#include "model/ltree.h"
#include "formats/registry/format.h"

#include <stdlib.h>

static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

/* A folded file is text whose first non-blank line ends in " <digits>". */
static int folded_sniff(const uint8_t *d, size_t n, int complete)
{
    size_t i = 0;
    while (i < n && (d[i] == '\n' || d[i] == '\r'))
        i++;
    size_t start = i;
    while (i < n && d[i] != '\n') {
        if (d[i] == 0)
            return 0;
        i++;
    }
    if (i == n && !complete)
        return 0; /* first line longer than what we can see */
    size_t end = i;
    if (end > start && d[end - 1] == '\r')
        end--;
    size_t k = end;
    while (k > start && is_digit(d[k - 1]))
        k--;
    if (k == end || k == start || d[k - 1] != ' ' || k - 1 == start)
        return 0;
    return 10;
}

static int folded_read(profkit_profile *p, profkit_read_ctx *ctx)
{
    const uint8_t *d;
    size_t n;
    int rc = profkit_source_all(ctx->src, &d, &n, ctx->err);
    if (rc)
        return rc;
    uint32_t vt = profkit_value_type_add(p, "samples", "count");
    uint32_t th = profkit_thread_add(p, "main", "", -1, -1);
    if (vt == PROFKIT_NONE || th == PROFKIT_NONE)
        return profkit_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    p->default_value = vt;
    uint32_t line_no = 0;
    size_t pos = 0;
    while (pos < n) {
        line_no++;
        const uint8_t *line = d + pos;
        const uint8_t *nl = memchr(line, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - line) : n - pos;
        pos += len + (nl ? 1 : 0);
        if ((line_no & 0xffff) == 0)
            profkit_read_progress(ctx, pos, n);
        if (len > 0 && line[len - 1] == '\r')
            len--;
        size_t a = 0;
        while (a < len && (line[a] == ' ' || line[a] == '\t'))
            a++;
        if (a == len)
            continue; /* blank line */
        size_t e = len;
        while (e > a && (line[e - 1] == ' ' || line[e - 1] == '\t'))
            e--;
        size_t k = e;
        while (k > a && is_digit(line[k - 1]))
            k--;
        if (k == e || k == a || (line[k - 1] != ' ' && line[k - 1] != '\t'))
            return profkit_read_fail_pos(ctx, PROFKIT_ECORRUPT, line_no, (uint32_t)(e + 1),
                                         "expected a stack followed by a space and a sample count");
        uint64_t count = 0;
        for (size_t i = k; i < e; i++) {
            if (count > (UINT64_MAX - 9) / 10 || count * 10 + (uint64_t)(line[i] - '0') > INT64_MAX)
                return profkit_read_fail_pos(ctx, PROFKIT_ECORRUPT, line_no, (uint32_t)(k + 1),
                                             "sample count does not fit in 63 bits");
            count = count * 10 + (uint64_t)(line[i] - '0');
        }
        size_t se = k - 1;
        while (se > a && (line[se - 1] == ' ' || line[se - 1] == '\t'))
            se--;
        uint32_t stack = 0;
        size_t f = a;
        while (f <= se) {
            const uint8_t *semi = memchr(line + f, ';', se - f);
            size_t fe = semi ? (size_t)(semi - line) : se;
            if (fe == f)
                return profkit_read_fail_pos(ctx, PROFKIT_ECORRUPT, line_no, (uint32_t)(f + 1),
                                             "empty frame name in stack");
            profkit_function fn;
            memset(&fn, 0, sizeof(fn));
            fn.name = profkit_string_intern(p, (const char *)line + f, fe - f);
            fn.system_name = fn.name;
            profkit_frame fr;
            memset(&fr, 0, sizeof(fr));
            fr.mapping = PROFKIT_NONE;
            if (fn.name == PROFKIT_NONE ||
                (fr.function = profkit_function_add(p, &fn)) == PROFKIT_NONE)
                return profkit_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            uint32_t frame = profkit_frame_add(p, &fr);
            if (frame == PROFKIT_NONE || (stack = profkit_stack_intern(p, stack, frame)) == PROFKIT_NONE)
                return profkit_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            f = fe + 1;
        }
        int64_t v = (int64_t)count;
        if (count > 0 && profkit_sample_add(p, stack, th, &v) != 0)
            return profkit_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    }
    return 0;
}

int profkit_folded_write_tree(const profkit_ltree *t, profkit_sink *sink);

/* Writes one line per node with a non-zero self value, depth first. */
int profkit_folded_write_tree(const profkit_ltree *t, profkit_sink *sink)
{
    size_t cap = 64, depth = 0;
    uint32_t *path = malloc(cap * sizeof(uint32_t)); /* node ids, root excluded */
    size_t *next = malloc(cap * sizeof(size_t));     /* next child index per level */
    if (!path || !next) {
        free(path);
        free(next);
        return PROFKIT_ENOMEM;
    }
    /* Iterative DFS: level d holds path[d-1] (d >= 1); next[d] is the next
     * child of that level's node to visit. */
    next[0] = t->child_start[0];
    for (;;) {
        uint32_t cur = depth ? path[depth - 1] : 0;
        if (next[depth] < t->child_start[cur + 1]) {
            uint32_t c = t->children[next[depth]++];
            if (t->total[c] == 0 && t->self[c] == 0)
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
                    return PROFKIT_ENOMEM;
                }
                cap = ncap;
            }
            path[depth++] = c;
            next[depth] = t->child_start[c];
            if (t->self[c] != 0) {
                for (size_t i = 0; i < depth; i++) {
                    if (i)
                        profkit_sink_write(sink, ";", 1);
                    uint32_t l = t->label[path[i]];
                    profkit_sink_write(sink, profkit_strtab_get(&t->labels, l),
                                       profkit_strtab_len(&t->labels, l));
                }
                profkit_sink_printf(sink, " %lld\n", (long long)t->self[c]);
            }
        } else if (depth == 0) {
            break;
        } else {
            depth--;
        }
    }
    free(path);
    free(next);
    return 0;
}

static int folded_write(const profkit_profile *p, profkit_sink *sink,
                        const profkit_write_options *o, profkit_error *err)
{
    int ok;
    profkit_ltree_options lo = { 0 };
    lo.value = profkit_select_value(p, o->value, err);
    if (lo.value == PROFKIT_NONE)
        return p->n_value_types == 0 && !o->value ? 0 : PROFKIT_EINVAL;
    lo.thread = profkit_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    lo.by_line = o->by_line;
    lo.sanitize = 1;
    profkit_ltree t;
    int rc = profkit_ltree_build(&t, p, &lo, err);
    if (rc)
        return rc;
    rc = profkit_folded_write_tree(&t, sink);
    profkit_ltree_free(&t);
    if (rc)
        return profkit_error_set(err, rc, NULL, -1, "out of memory writing folded stacks");
    return 0;
}

const profkit_format profkit_format_folded = {
    { "folded", "folded (collapsed) stacks: one 'root;...;leaf COUNT' line per stack",
      ".folded .collapsed", 1, 1 },
    folded_sniff,
    folded_read,
    folded_write,
};
