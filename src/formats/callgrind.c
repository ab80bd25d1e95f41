/*
 * callgrind.c: writes the callgrind profile format (Valgrind's
 * callgrind_annotate and KCachegrind read it; the format is specified in
 * Valgrind's docs/callgrind-format). Write only. Rules and rulings:
 * docs/formats/callgrind.md.
 *
 * One event per value type. A function is a frame label (as `profkit top`
 * keys functions) with the file of its function; its self cost lies at the
 * lines of the leaf frames. Call edges carry inclusive costs: per stack,
 * the stack's value goes along each call of its path, with loops of
 * recursion cut out first (a function that returns to itself further down
 * gets the path from its innermost occurrence), so that a function's
 * incoming calls, and its self cost plus its outgoing calls, both sum to
 * the value of the stacks through it, recursion counted once (what `top`
 * calls cum). Readers take a called function's inclusive cost from its
 * incoming calls, so when a function that something calls is also the
 * outermost frame of another stack, the outermost frames get a caller,
 * "(root)". Names and files are compressed ("(id) name", then "(id)").
 * Functions of one name in two files are two functions (fl= tells them
 * apart), as `profkit top` keeps them.
 */
#include "formats/registry/format.h"
#include "model/ltree.h"

#include <stdlib.h>
#include <string.h>

#define NO_KEY UINT32_MAX

/* A cost line: self cost of key a at line (b == NO_KEY), or the inclusive
 * cost of a's calls from line to b. */
typedef struct cg_entry {
    uint32_t a, line, b;
    uint32_t target_line;
    int64_t calls;
} cg_entry;

typedef struct cg {
    size_t nv;
    pk_ltree tree;     /* the call tree, a node per stack; its keys are the function
                          labels, plus "(root)" */
    uint32_t *key_file;     /* per key: string id of its file, 0 = unknown */
    uint32_t *key_line;     /* per key: definition line */
    uint32_t root;          /* the key "(root)" */
    cg_entry *e;
    int64_t *cost;          /* nv per entry */
    size_t n, cap, cap_cost;
    uint32_t *slot;
    size_t n_slots;
} cg;

static uint64_t entry_hash(uint32_t a, uint32_t line, uint32_t b)
{
    return pk_hash_u64(((uint64_t)a << 32 | line) ^ pk_hash_u64(b));
}

static int cg_rehash(cg *c)
{
    size_t n = c->n_slots ? c->n_slots * 2 : 256;
    uint32_t *s = calloc(n, sizeof(uint32_t));
    if (!s)
        return -1;
    for (size_t i = 0; i < c->n; i++) {
        size_t h = (size_t)entry_hash(c->e[i].a, c->e[i].line, c->e[i].b) & (n - 1);
        while (s[h])
            h = (h + 1) & (n - 1);
        s[h] = (uint32_t)i + 1;
    }
    free(c->slot);
    c->slot = s;
    c->n_slots = n;
    return 0;
}

/* Index of the entry (a, line, b), added when new; -1 when out of memory. */
static int64_t cg_entry_get(cg *c, uint32_t a, uint32_t line, uint32_t b)
{
    if ((c->n + 1) * 2 > c->n_slots && cg_rehash(c) != 0)
        return -1;
    size_t h = (size_t)entry_hash(a, line, b) & (c->n_slots - 1);
    while (c->slot[h]) {
        cg_entry *x = &c->e[c->slot[h] - 1];
        if (x->a == a && x->line == line && x->b == b)
            return c->slot[h] - 1;
        h = (h + 1) & (c->n_slots - 1);
    }
    if (PK_VEC_RESERVE(c->e, c->n, c->cap, 1) != 0 ||
        pk_grow((void **)&c->cost, &c->cap_cost, (c->n + 1) * c->nv, sizeof(int64_t)) != 0)
        return -1;
    cg_entry *x = &c->e[c->n];
    memset(x, 0, sizeof(*x));
    x->a = a;
    x->line = line;
    x->b = b;
    memset(c->cost + c->n * c->nv, 0, c->nv * sizeof(int64_t));
    c->slot[h] = (uint32_t)++c->n;
    return (int64_t)c->n - 1;
}

/* Adds values (vals[v] for v < nv) and `calls` stacks to an entry. */
static int cg_add_n(cg *c, uint32_t a, uint32_t line, uint32_t b, const int64_t *vals, int64_t calls)
{
    int64_t i = cg_entry_get(c, a, line, b);
    if (i < 0)
        return -1;
    for (size_t v = 0; v < c->nv; v++)
        pk_sat_addto(&c->cost[(size_t)i * c->nv + v], vals[v]);
    pk_sat_addto(&c->e[i].calls, calls);
    return 0;
}

/* Adds one stack's values (vals[v] for v < nv) to an entry. */
static int cg_add(cg *c, uint32_t a, uint32_t line, uint32_t b, const int64_t *vals)
{
    return cg_add_n(c, a, line, b, vals, 1);
}

/*
 * Stack t leaves the walk: its acc (values, then calls) goes to its edge,
 * the call into t from up (the entry before t on t's erased path; from
 * "(root)" when up is PROFKIT_NONE), and on to up's acc. A stack through
 * which no stack with values passed (no calls) is all zero and costs
 * nothing.
 */
static int cg_leave(cg *c, const profkit_profile *p, int64_t *acc,
                    uint32_t t, uint32_t up)
{
    size_t w = c->nv + 1;
    const int64_t *a = acc + (size_t)t * w;
    if (a[c->nv] == 0)
        return 0;
    uint32_t from = up != PROFKIT_NONE ? pk_ltree_key(&c->tree, up) : c->root;
    uint32_t line = up != PROFKIT_NONE ? p->frames[p->stacks[up].frame].line : 0;
    if (cg_add_n(c, from, line, pk_ltree_key(&c->tree, t), a, a[c->nv]) != 0)
        return -1;
    if (up != PROFKIT_NONE)
        for (size_t v = 0; v < w; v++)
            pk_sat_addto(&acc[(size_t)up * w + v], a[v]);
    return 0;
}

/*
 * The call edges of every stack, in one depth-first walk of the stack tree.
 * Each stack's path, root first with loops erased (a key seen again cuts
 * the path back to it), is the path of its parent stepped by its own frame:
 * cut back to its key's position when the key is on it, then the stack
 * appended. So the erased paths make a tree of their own, in which a
 * stack's parent ("up") is the entry before it on its erased path. A stack
 * with values adds them, and one call, along every edge of its erased
 * path: each stack's acc sums its subtree of that tree, and goes to its
 * edge (up -> it) and on to up's acc when the stack leaves the walk (up is
 * an ancestor in the stack tree, so it leaves later).
 *
 * The walk keeps the current node's erased path in pos[0..n), and where[key]
 * (the key's position on it; valid only when pos there has that key).
 * Entering a stack changes one position of pos, n, and its key's where:
 * the old values are kept in the stack's own slots and put back when it
 * leaves; a cut leaves the entries past the new n in pos as they are, for
 * the way back. So each stack costs a constant however long the path its
 * cut removes (saving and restoring the removed entries, the version
 * before, was quadratic when many siblings each cut a long path back to its
 * root). The same edges and sums as walking each stack's whole path.
 */
static int cg_edges(cg *c, const profkit_profile *p, int64_t *const *self, uint32_t *where)
{
    size_t ns = p->n_stacks, w = c->nv + 1; /* acc: nv values and the calls */
    uint32_t *child = NULL, *next = NULL, *pos = NULL, *todo = NULL;
    /* per stack while it is on the walk: what entering it replaced */
    uint32_t *old_pos = NULL, *old_where = NULL, *old_n = NULL;
    int64_t *acc = NULL;
    size_t n_todo = 0, cap_todo = 0;
    int rc = -1;
    if (!(child = malloc(ns * sizeof(uint32_t))) || !(next = malloc(ns * sizeof(uint32_t))) ||
        !(pos = calloc(ns, sizeof(uint32_t))) || !(acc = calloc(ns * w, sizeof(int64_t))) ||
        !(old_pos = malloc(ns * sizeof(uint32_t))) ||
        !(old_where = malloc(ns * sizeof(uint32_t))) || !(old_n = malloc(ns * sizeof(uint32_t))))
        goto out;
    for (size_t s = 0; s < ns; s++)
        child[s] = PROFKIT_NONE;
    for (size_t s = ns; s-- > 1;) { /* children in id order */
        uint32_t par = pk_ltree_parent(&c->tree, (uint32_t)s);
        next[s] = child[par];
        child[par] = (uint32_t)s;
    }
    size_t n = 0;
    /* todo holds node ids to enter, and node | top bit to leave */
    const uint32_t LEAVE = 0x80000000u;
    if (ns > LEAVE)
        goto out;
    for (uint32_t s = child[0]; s != PROFKIT_NONE; s = next[s]) {
        if (PK_VEC_RESERVE(todo, n_todo, cap_todo, 1) != 0)
            goto out;
        todo[n_todo++] = s;
    }
    while (n_todo > 0) {
        uint32_t t = todo[--n_todo];
        if (t & LEAVE) {
            /* every stack below t has left and put back what it changed:
             * t is at n - 1, after its up */
            t &= ~LEAVE;
            size_t j = n - 1;
            if (cg_leave(c, p, acc, t, j ? pos[j - 1] : PROFKIT_NONE) != 0)
                goto out;
            pos[j] = old_pos[t];
            where[pk_ltree_key(&c->tree, t)] = old_where[t];
            n = old_n[t];
            continue;
        }
        uint32_t key = pk_ltree_key(&c->tree, t);
        size_t j = where[key]; /* a loop when key is on the path: cut back to it */
        if (!(j < n && pk_ltree_key(&c->tree, pos[j]) == key))
            j = n;
        old_pos[t] = pos[j]; /* j < ns: the path holds distinct ancestors of t */
        old_where[t] = where[key];
        old_n[t] = (uint32_t)n;
        pos[j] = t;
        where[key] = (uint32_t)j;
        n = j + 1;
        int any = 0;
        int64_t *a = acc + (size_t)t * w;
        for (size_t v = 0; v < c->nv; v++)
            any |= self[v][t] != 0;
        if (any) {
            for (size_t v = 0; v < c->nv; v++)
                pk_sat_addto(&a[v], self[v][t]);
            pk_sat_addto(&a[c->nv], 1);
        }
        if (PK_VEC_RESERVE(todo, n_todo, cap_todo, 1) != 0)
            goto out;
        todo[n_todo++] = t | LEAVE;
        for (uint32_t s = child[t]; s != PROFKIT_NONE; s = next[s]) {
            if (PK_VEC_RESERVE(todo, n_todo, cap_todo, 1) != 0)
                goto out;
            todo[n_todo++] = s;
        }
    }
    rc = 0;
out:
    free(child);
    free(next);
    free(pos);
    free(todo);
    free(acc);
    free(old_pos);
    free(old_where);
    free(old_n);
    return rc;
}

static int cmp_entry(const void *ctx, uint32_t x, uint32_t y)
{
    const cg *c = ctx;
    const cg_entry *a = &c->e[x], *b = &c->e[y];
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    int sa = a->b == NO_KEY, sb = b->b == NO_KEY; /* self lines first */
    if (sa != sb)
        return sa ? -1 : 1;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* A name without line breaks, which would end the line. */
static void put_name(pk_sink *k, const char *s)
{
    for (; *s; s++) {
        char ch = *s == '\n' || *s == '\r' ? ' ' : *s;
        pk_sink_write(k, &ch, 1);
    }
}

/* `PREFIX=(id) name` the first time, `PREFIX=(id)` after. */
static void put_compressed(pk_sink *k, const char *prefix, uint32_t *ids, uint32_t *next,
                           uint32_t i, const char *name)
{
    if (ids[i]) {
        pk_sink_printf(k, "%s=(%u)\n", prefix, ids[i]);
        return;
    }
    ids[i] = ++*next;
    pk_sink_printf(k, "%s=(%u) ", prefix, ids[i]);
    put_name(k, name);
    pk_sink_write(k, "\n", 1);
}

/* An event name: letters, digits and '_', not starting with a digit. */
static void put_event(pk_sink *k, const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        pk_sink_write(k, "v", 1);
    for (; *s; s++) {
        char ch = *s;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
            ch = '_';
        pk_sink_write(k, &ch, 1);
    }
}

/* Key k's function name: its first frame's label (a key split by file is
 * labelled "NAME FILE" in the tree; callgrind names the file apart). */
static const char *key_name(const cg *c, const profkit_profile *p, uint32_t k, char *buf,
                            size_t n)
{
    if (k == c->root || k == 0 || k >= c->tree.n_keys || !c->tree.key_frame)
        return pk_strtab_get(&c->tree.labels, k);
    pk_frame_label(p, c->tree.key_frame[k], 0, buf, n);
    return buf;
}

static void cg_free(cg *c)
{
    pk_ltree_free(&c->tree);
    free(c->key_file);
    free(c->key_line);
    free(c->e);
    free(c->cost);
    free(c->slot);
}

static int cg_write(const profkit_profile *p, pk_sink *k, const profkit_write_options *o,
                    profkit_error *err)
{
    int ok;
    uint32_t th = pk_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    cg c;
    memset(&c, 0, sizeof(c));
    c.nv = p->n_value_types;
    int64_t **self = NULL;
    uint32_t *where = NULL, *ids = NULL, *order = NULL;
    int64_t *vals = NULL, *root_in = NULL;
    if (c.nv == 0)
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "the profile has no value types");
    /* One node per stack (the lines of its frames matter); keys are the
     * frames' labels, as `profkit top` keys functions: a function is its
     * name and its file, so same-named functions of two files stay apart
     * (each key is written with its plain name and its own file). */
    pk_ltree_options lo = { .by = PROFKIT_BY_FUNCTION, .files = 1 };
    int rc = pk_ltree_build(&c.tree, p, &lo, err);
    if (rc)
        return rc;
    if (!(self = calloc(c.nv, sizeof(*self))) || !(vals = calloc(c.nv, sizeof(int64_t))) ||
        !(c.key_file = malloc((p->n_frames + 2) * sizeof(uint32_t))) ||
        !(c.key_line = calloc(p->n_frames + 2, sizeof(uint32_t))))
        goto oom;
    /* Keys: "" (id 0), at most one per frame, and "(root)". */
    for (size_t i = 0; i < p->n_frames + 2; i++)
        c.key_file[i] = PROFKIT_NONE;
    for (size_t v = 0; v < c.nv; v++)
        if (!(self[v] = pk_ltree_self(&c.tree, (uint32_t)v, th)))
            goto oom;
    for (size_t f = 0; f < p->n_frames; f++) {
        uint32_t key = c.tree.frame_key[f];
        if (c.key_file[key] == PROFKIT_NONE) { /* the first frame's function decides */
            const profkit_function *fn = &p->functions[p->frames[f].function];
            c.key_file[key] = fn->file;
            c.key_line[key] = fn->start_line;
        }
    }
    if ((c.root = pk_strtab_intern(&c.tree.labels, "(root)", 6)) == PROFKIT_NONE)
        goto oom;
    size_t nk = c.tree.labels.n;
    if (!(where = calloc(nk, sizeof(uint32_t))) || !(root_in = calloc(nk, sizeof(int64_t))))
        goto oom;
    /* Self costs at the leaves' lines; call edges in one walk. */
    for (size_t s = 1; s < p->n_stacks; s++) {
        int any = 0;
        for (size_t v = 0; v < c.nv; v++)
            any |= (vals[v] = self[v][s]) != 0;
        if (any && cg_add(&c, pk_ltree_key(&c.tree, (uint32_t)s), p->frames[p->stacks[s].frame].line,
                          NO_KEY, vals) != 0)
            goto oom;
    }
    if (cg_edges(&c, p, self, where) != 0)
        goto oom;
    /* "(root)" is written only when a key it calls is called by another. */
    int need_root = 0;
    for (size_t i = 0; i < c.n; i++)
        if (c.e[i].b != NO_KEY && c.e[i].a != c.root)
            root_in[c.e[i].b] = 1;
    for (size_t i = 0; i < c.n; i++) /* a frame may be named "(root)" too: its self line has no b */
        if (c.e[i].a == c.root && c.e[i].b != NO_KEY && root_in[c.e[i].b])
            need_root = 1;
    if (!(order = malloc((c.n ? c.n : 1) * sizeof(uint32_t))) || !(ids = calloc(2 * nk + p->strings.n + 1, sizeof(uint32_t))))
        goto oom;
    size_t no = 0;
    for (size_t i = 0; i < c.n; i++)
        if (need_root || c.e[i].a != c.root)
            order[no++] = (uint32_t)i;
    if (pk_sort_u32(order, no, cmp_entry, &c) != 0)
        goto oom;

    /* The header: events and their totals (the self costs' sum). */
    pk_sink_puts(k, "# callgrind format\nversion: 1\ncreator: profkit\npositions: line\n");
    for (size_t v = 0; v < c.nv; v++) {
        pk_sink_puts(k, "event: ");
        put_event(k, pk_str(p, p->value_types[v].type));
        pk_sink_puts(k, " : ");
        put_name(k, pk_str(p, p->value_types[v].type));
        pk_sink_puts(k, " (");
        put_name(k, pk_str(p, p->value_types[v].unit));
        pk_sink_puts(k, ")\n");
    }
    pk_sink_puts(k, "events:");
    for (size_t v = 0; v < c.nv; v++) {
        pk_sink_write(k, " ", 1);
        put_event(k, pk_str(p, p->value_types[v].type));
    }
    memset(vals, 0, c.nv * sizeof(int64_t));
    for (size_t i = 0; i < c.n; i++)
        if (c.e[i].b == NO_KEY)
            for (size_t v = 0; v < c.nv; v++)
                pk_sat_addto(&vals[v], c.cost[i * c.nv + v]);
    pk_sink_puts(k, "\nsummary:");
    for (size_t v = 0; v < c.nv; v++)
        pk_sink_printf(k, " %lld", (long long)vals[v]);
    pk_sink_puts(k, "\n");

    /* ids: file name numbers by string id, then function numbers by key. */
    uint32_t *file_ids = ids, *fn_ids = ids + p->strings.n + 1;
    uint32_t next_file = 0, next_fn = 0;
    uint32_t cur = NO_KEY;
    char name[4096];
    for (size_t i = 0; i < no; i++) {
        const cg_entry *x = &c.e[order[i]];
        if (x->a != cur) {
            cur = x->a;
            uint32_t fl = c.key_file[cur] == PROFKIT_NONE || cur == c.root ? 0 : c.key_file[cur];
            pk_sink_write(k, "\n", 1);
            put_compressed(k, "fl", file_ids, &next_file, fl, fl ? pk_str(p, fl) : "???");
            put_compressed(k, "fn", fn_ids, &next_fn, cur, key_name(&c, p, cur, name, sizeof(name)));
        }
        if (x->b != NO_KEY) {
            uint32_t fl = c.key_file[x->b] == PROFKIT_NONE ? 0 : c.key_file[x->b];
            put_compressed(k, "cfl", file_ids, &next_file, fl, fl ? pk_str(p, fl) : "???");
            put_compressed(k, "cfn", fn_ids, &next_fn, x->b, key_name(&c, p, x->b, name, sizeof(name)));
            pk_sink_printf(k, "calls=%lld %u\n", (long long)x->calls, c.key_line[x->b]);
        }
        pk_sink_printf(k, "%u", x->line);
        for (size_t v = 0; v < c.nv; v++)
            pk_sink_printf(k, " %lld", (long long)c.cost[(size_t)order[i] * c.nv + v]);
        pk_sink_write(k, "\n", 1);
    }
    rc = 0;
    goto done;
oom:
    rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory writing callgrind");
done:
    if (self)
        for (size_t v = 0; v < c.nv; v++)
            free(self[v]);
    free(self);
    free(vals);
    free(where);
    free(root_in);
    free(ids);
    free(order);
    cg_free(&c);
    return rc;
}

const pk_format pk_format_callgrind = {
    { "callgrind", "callgrind profile format for KCachegrind and callgrind_annotate (write only)",
      ".callgrind", 0, 1 },
    NULL,
    NULL,
    cg_write,
};
