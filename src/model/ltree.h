/*
 * ltree.h: the label tree, a view of the model's stacks.
 *
 * A "label tree" (pk_ltree) is the call tree with frames merged by
 * their printed label: two frames with the same function name at different
 * addresses are one node. Folded output, the text call tree and writers that
 * want one node per function use it; it lives in model/ because writers
 * (formats/) and reports (analysis/, report/) both build on it, and it uses
 * nothing but the model.
 */
#ifndef PROFKIT_LTREE_H
#define PROFKIT_LTREE_H

#include "model/model.h"

typedef struct pk_ltree {
    size_t n;             /* nodes; node 0 is the root (no label) */
    uint32_t *parent;     /* parent[i] */
    uint32_t *label;      /* label[i]: id in labels */
    uint32_t *frame;      /* frame[i]: one frame with this label path */
    int64_t *self;        /* value at node i (leaf of a sample) */
    int64_t *total;       /* self of i and all descendants */
    uint32_t *child_start; /* children of i: children[child_start[i] .. child_start[i+1]) */
    uint32_t *children;   /* sorted by label bytes */
    int64_t grand_total;  /* total[0] */
    uint32_t *stack_node; /* stack_node[s]: the node of model stack s */
    pk_strtab labels;
} pk_ltree;

typedef struct pk_ltree_options {
    uint32_t value;  /* value type index */
    uint32_t thread; /* thread index, or PROFKIT_NONE for all */
    int by_line;     /* labels include :LINE */
    int sanitize;    /* replace ';' and newlines in labels by '_' (folded) */
} pk_ltree_options;

/* Builds the label tree. Returns 0 or PROFKIT_ENOMEM (err filled). */
int pk_ltree_build(pk_ltree *t, const profkit_profile *p,
                        const pk_ltree_options *o, profkit_error *err);
void pk_ltree_free(pk_ltree *t);
/*
 * The self value of every node of t (built from p) for another value type
 * (and thread, PROFKIT_NONE = all): a new array of t->n entries, or NULL
 * when out of memory. The same as building the tree again for that value
 * and reading its self[], without building it.
 */
int64_t *pk_ltree_self(const pk_ltree *t, const profkit_profile *p, uint32_t value,
                            uint32_t thread);

/*
 * Sums the chosen value per stack id over rows of the chosen thread
 * (PROFKIT_NONE = all). *out is a new array of p->n_stacks entries.
 */
int pk_stack_self(const profkit_profile *p, uint32_t value, uint32_t thread, int64_t **out);

#endif
