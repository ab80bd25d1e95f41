/*
 * flame_runs.c: a timed thread's samples as runs for the page's stack chart
 * (docs/viewer.md): one pass over the rows in time order; merging a narrow
 * run into its deepest common ancestor costs O(log depth) with jump
 * pointers, so deep stacks never make it quadratic.
 */
#include "report/flame/flame_tree1.h"

#include <stdlib.h>

/* Jump pointers over a parents-first tree: level ancestors and common
 * ancestors in O(log depth). The jump of a node depends only on its depth,
 * so two nodes at one depth jump to one depth. */
typedef struct jumps {
    uint32_t *depth, *jump;
    const int32_t *parent;
} jumps;

static int jumps_build(jumps *j, const int32_t *parent, size_t n)
{
    j->parent = parent;
    j->depth = malloc((n ? n : 1) * sizeof(uint32_t));
    j->jump = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!j->depth || !j->jump)
        return PROFKIT_ENOMEM;
    j->depth[0] = 0;
    j->jump[0] = 0;
    for (size_t i = 1; i < n; i++) {
        uint32_t p = (uint32_t)parent[i], jp = j->jump[p], jjp = j->jump[jp];
        j->depth[i] = j->depth[p] + 1;
        j->jump[i] = j->depth[p] - j->depth[jp] == j->depth[jp] - j->depth[jjp] ? jjp : p;
    }
    return 0;
}

static void jumps_free(jumps *j)
{
    free(j->depth);
    free(j->jump);
}

static uint32_t common_ancestor(const jumps *j, uint32_t a, uint32_t b)
{
    if (j->depth[a] < j->depth[b]) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    while (j->depth[a] > j->depth[b])
        a = j->depth[j->jump[a]] >= j->depth[b] ? j->jump[a] : (uint32_t)j->parent[a];
    while (a != b) {
        if (j->jump[a] != j->jump[b]) {
            a = j->jump[a];
            b = j->jump[b];
        } else {
            a = (uint32_t)j->parent[a];
            b = (uint32_t)j->parent[b];
        }
    }
    return a;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int time_cmp(const void *ctx, uint32_t a, uint32_t b)
{
    const int64_t *t = ctx;
    return t[a] < t[b] ? -1 : t[a] > t[b];
}

int pk_flame_runs(tree1 *t, const profkit_profile *p, const uint32_t *rows, size_t nrows,
                  const uint32_t *stack_node, const uint32_t *node_map, double min_pct,
                  int64_t time0)
{
    uint32_t *order = NULL;
    size_t n = 0;
    int rc = PROFKIT_ENOMEM;
    jumps j = { 0 };
    int sorted = 1;
    int64_t prev = INT64_MIN;
    if (!(order = malloc((nrows ? nrows : 1) * sizeof(uint32_t))))
        goto done;
    for (size_t i = 0; i < nrows; i++) {
        uint32_t r = rows ? rows[i] : (uint32_t)i;
        if (p->sample_time[r] == PROFKIT_NO_TIME)
            continue;
        sorted &= p->sample_time[r] >= prev;
        prev = p->sample_time[r];
        order[n++] = r;
    }
    if (n == 0) {
        rc = 0;
        goto done;
    }
    if (!sorted && pk_sort_u32(order, n, time_cmp, p->sample_time) != 0)
        goto done;
    int64_t first = p->sample_time[order[0]], last = p->sample_time[order[n - 1]];
    size_t n_keep = n;
    double span = (double)last - (double)first;
    /* hostile times can span more than int64: clamp before converting */
    double mean = n > 1 ? span / (double)(n - 1) : 0;
    int64_t interval = mean >= 1 ? (mean < 9e18 ? (int64_t)mean : INT64_C(9000000000000000000)) : 1;
    double pixel = (span + (double)interval) * min_pct / 100.0;
    if (jumps_build(&j, t->parent, t->n) != 0)
        goto done;
    /* Every sample as it is, for the page's time ranges (its totals over a
     * range are exact) and the stack chart zoomed in (it refines the runs
     * from the samples); samples of a stack past the table are left out,
     * as they are of the runs. */
    /* A thread past the page's budget alone records none (flame_html.c
     * draws its activity from the runs then). */
    if (n > PK_FLAME_MAX_SAMPLES)
        n_keep = 0;
    else if (!(t->samp_time = malloc(n * sizeof(int64_t))) || !(t->samp_node = malloc(n * sizeof(uint32_t))) ||
             !(t->samp_row = malloc(n * sizeof(uint32_t))))
        goto done;
    /* one pass: each sample as it is (when kept), and the runs */
    t->n_samp = 0;
    size_t cap_start = 0, cap_node = 0;
    int64_t cur_start = 0;
    uint32_t cur = PROFKIT_NONE;
    for (size_t i = 0; i <= n; i++) {
        uint32_t node = 0;
        int64_t time = 0;
        if (i < n) {
            uint32_t r = order[i];
            time = p->sample_time[r];
            if (p->sample_stack[r] >= p->n_stacks)
                continue;
            node = node_map[stack_node[p->sample_stack[r]]];
            if (n_keep) {
                t->samp_time[t->n_samp] = sat_sub(time, time0);
                t->samp_node[t->n_samp] = node;
                t->samp_row[t->n_samp++] = r;
            }
            if (node == cur)
                continue;
            if (cur != PROFKIT_NONE && (double)time - (double)cur_start < pixel) {
                /* nothing is above the root: no need to look */
                if (cur != 0)
                    cur = common_ancestor(&j, cur, node);
                continue;
            }
        }
        if (cur != PROFKIT_NONE && !(t->n_runs && t->run_node[t->n_runs - 1] == cur)) {
            if (PK_VEC_RESERVE(t->run_start, t->n_runs, cap_start, 1) != 0 ||
                PK_VEC_RESERVE(t->run_node, t->n_runs, cap_node, 1) != 0)
                goto done;
            t->run_start[t->n_runs] = sat_sub(cur_start, time0);
            t->run_node[t->n_runs] = cur;
            t->n_runs++;
        }
        cur = node;
        cur_start = time;
    }
    t->run_end = sat_sub(pk_sat_add(last, interval), time0);
    t->timed = 1;
    rc = 0;
done:
    jumps_free(&j);
    free(order);
    return rc;
}

