/*
 * flame_tree1.h: between flame_tree.c, which builds each scope's tree
 * after --min-percent ("tree 1"), flame_runs.c, which lays its timed
 * samples out as runs, and flame_cap.c, which cuts it to its share of
 * --max-nodes.
 */
#ifndef PROFKIT_FLAME_TREE1_H
#define PROFKIT_FLAME_TREE1_H

#include "report/flame/flame.h"

/* A scope's tree after --min-percent ("tree 1"): parents first, "(other)"
 * nodes are leaves. */
typedef struct tree1 {
    size_t n;
    int32_t *parent, *func;
    int64_t *self, *bself; /* [v * n + i]; bself only in a diff */
    size_t n_runs;
    int64_t *run_start;
    uint32_t *run_node;
    int64_t run_end;
    int timed;
    /* every timed sample in time order (the page's time ranges): ns since
     * time0, its node, its row of the profile */
    size_t n_samp;
    int64_t *samp_time;
    uint32_t *samp_node, *samp_row;
    /* per node: 1 when a frame of it was inlined into its caller, 2 when
     * one was a real call (3: both); NULL when no frame of the profile is
     * inlined */
    uint8_t *inl;
    /* inl per value type ([v * n + i], from the rows with a value of it);
     * NULL when every value type's are inl */
    uint8_t *inlv;
} tree1;

void pk_flame_tree1_free(tree1 *t);

/*
 * The runs of the timed rows among rows[0..n) (all rows when rows is
 * NULL) of p, over t: node_map[stack_node[s]] is the tree 1 node of stack
 * s (stack_node: the call tree's node of each stack). Equal
 * consecutive nodes are one run; a run shorter than min_pct percent of the
 * time range merges with what follows into their deepest common ancestor.
 * Starts are ns since time0. Sets t->timed when there was a timed row.
 * Returns 0 or PROFKIT_ENOMEM.
 */
int pk_flame_runs(tree1 *t, const profkit_profile *p, const uint32_t *rows, size_t n,
                  const uint32_t *stack_node, const uint32_t *node_map, double min_pct,
                  int64_t time0);

/*
 * The scope s from tree 1 in at most `cap` nodes (0 = no cap), "(other)"
 * nodes counted; t's arrays move into s or are freed with t.
 * Returns 0 or PROFKIT_ENOMEM.
 */
int pk_flame_shrink(flame_scope *s, tree1 *t, size_t nv, size_t cap);
/* Each tree's cap out of max_nodes (see docs/viewer.md); 0 or ENOMEM. */
/* The cap of the merged tree (of n0 nodes), the first of `trees` trees,
 * as pk_flame_share_caps gives it: known before the other trees are. */
size_t pk_flame_merged_cap(size_t n0, size_t trees, size_t max_nodes);
int pk_flame_share_caps(size_t *cap, const tree1 *t, size_t n, int merged, size_t max_nodes);

#endif
