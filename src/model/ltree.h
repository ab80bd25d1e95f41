/*
 * ltree.h: the call tree, the one view of a profile's stacks that every
 * report, writer and the viewer page reads.
 *
 * A node is a path of keys from the root: each frame has a key (its label
 * as reports print it, by function, file, line or address; or, for the
 * page, the model's function) and the tree's nodes are the stacks with
 * their frames replaced by keys. It is built once from a profile (after its
 * filters) with the options below; what a reader needs beyond the nodes
 * (values, children in label order, a second profile's stacks mapped onto
 * the same nodes) is an option of the one build, not a builder of its own.
 *
 * Two shapes of one tree:
 *   - merged: stacks whose key paths are equal are one node (what `tree`,
 *     `traces`, folded output, `mem` and the page show: two frames printed
 *     alike are one node). The nodes are arrays of their own.
 *   - unmerged (merge = 0): every stack of the profile is a node, node id =
 *     stack id, and nothing per node is allocated (parent and key come from
 *     the stack table): what sums per key need (`top`, `peek`, `diff`,
 *     `hist`, the callgrind writer), as they add the same values either way.
 *
 * It lives in model/ because writers (formats/) and analyses (analysis/) both
 * read it, and it uses nothing but the model. What is computed from it for
 * the reports (flat and cumulative values, callers and callees, the traces,
 * the diff's rows, the walk `tree` prints) is in analysis/.
 */
#ifndef PROFKIT_LTREE_H
#define PROFKIT_LTREE_H

#include "model/model.h"

/* What a frame's key is. */
typedef enum pk_ltree_keys {
    PK_LTREE_LABELS = 0, /* its label by `by` (pk_frame_key_label; with by_line, NAME:LINE) */
    PK_LTREE_FUNCTIONS,  /* the model's function; a frame of a function without a
                            name is a key of its own (the page) */
    PK_LTREE_NAMES       /* the function's name, or 0xADDRESS without one (the page's
                            diff, which matches two profiles' functions by name) */
} pk_ltree_keys;

typedef struct pk_ltree_options {
    pk_ltree_keys keys;
    profkit_key by;    /* LABELS: function (default), file, line or address */
    int by_line;       /* LABELS by function: NAME:LINE where the frame has a line */
    int sanitize;      /* LABELS: ';' and line breaks in labels become '_' (folded) */
    /* LABELS by function: a function is its name and its file; where one
     * label stands for functions of several files, each gets a key of its
     * own, labelled "LABEL FILE" (as pprof's -filefunctions names them);
     * and key_frame notes each key's first frame (the reports' file, line;
     * by line too: the function a line row names) */
    int files;
    int merge;         /* one node per distinct key path (else one per stack) */
    int children;      /* merged: child lists, each sorted by label bytes */
    /* merged, LABELS or NAMES: this profile's stacks mapped onto the same
     * nodes too, keys matched by label (base_node) */
    const profkit_profile *base;
    int values;        /* self and total per node of value type `value` over */
    uint32_t value;    /* rows of thread `thread` (PROFKIT_NONE = all) */
    uint32_t thread;
    /* merged: keep the mapping's table and child array (their pages are
     * touched already) for pk_ltree_take_scratch, not freed */
    int keep_scratch;
} pk_ltree_options;

typedef struct pk_ltree {
    const profkit_profile *p;
    size_t n;             /* nodes; node 0 is the root (key 0) */
    /* merged only (NULL when unmerged: see pk_ltree_parent, pk_ltree_key) */
    uint32_t *parent;     /* parent[i] < i */
    uint32_t *key;        /* key[i] */
    uint32_t *stack_node; /* stack_node[s]: the node of p's stack s */
    uint32_t *base_node;  /* the node of o->base's stack s (with a base) */
    void *scratch[2];     /* keep_scratch: the blocks not taken yet (freed with the tree) */
    size_t scratch_size[2];
    int scattered;        /* merged: over a quarter of p's stacks come later than right after
                           * their parent (a tree grown at random, as Gecko's): a node's parent
                           * is anywhere before it, and walks over nodes ask for it ahead */
    /* keys: 1 .. n_keys - 1 (0 is the root's) */
    uint32_t *frame_key;  /* frame_key[f]: the key of p's frame f */
    size_t n_keys;
    pk_strtab labels;     /* LABELS, NAMES: key k's label is string k */
    /* FUNCTIONS, NAMES (and LABELS with files): the first frame with key k, in p when k <
     * n_keys_p, else in the base */
    uint32_t *key_frame;
    size_t n_keys_p;
    /* with values */
    int64_t *self;        /* value of rows whose stack ends at the node */
    int64_t *total;       /* self of the node and all below it */
    int64_t grand_total;  /* total[0] */
    /* with children: children of i are children[child_start[i] .. child_start[i+1]) */
    uint32_t *child_start;
    uint32_t *children;
} pk_ltree;

/*
 * Builds the tree of p as o says (a base and children need merge; children
 * need labels: without them these options are not used). Returns 0,
 * PROFKIT_ENOMEM or PROFKIT_ECORRUPT (merged, from a stack table whose
 * parents do not precede their children), with err filled; t is empty then.
 */
int pk_ltree_build(pk_ltree *t, const profkit_profile *p, const pk_ltree_options *o,
                   profkit_error *err);
void pk_ltree_free(pk_ltree *t);
/* A block of at least `bytes` bytes kept by keep_scratch (the smallest
 * that is big enough), now the caller's to free; NULL when none is. Its
 * contents are left over. */
void *pk_ltree_take_scratch(pk_ltree *t, size_t bytes);

/* The parent and key of node i (i >= 1), either shape. */
static inline uint32_t pk_ltree_parent(const pk_ltree *t, uint32_t i)
{
    if (t->parent)
        return t->parent[i];
    uint32_t par = t->p->stacks[i].parent;
    return par < i ? par : 0; /* not in the tree: a child of the root */
}
static inline uint32_t pk_ltree_key(const pk_ltree *t, uint32_t i)
{
    if (t->key)
        return t->key[i];
    uint32_t f = t->p->stacks[i].frame;
    return f < t->p->n_frames ? t->frame_key[f] : 0;
}
/* The node of p's stack s. */
static inline uint32_t pk_ltree_node(const pk_ltree *t, uint32_t s)
{
    return t->stack_node ? t->stack_node[s] : s;
}
/* Key k's label (LABELS, NAMES) and its length. */
static inline const char *pk_ltree_label(const pk_ltree *t, uint32_t k)
{
    return pk_strtab_get(&t->labels, k);
}
static inline size_t pk_ltree_label_len(const pk_ltree *t, uint32_t k)
{
    return pk_strtab_len(&t->labels, k);
}

/*
 * The self value of every node for value type `value` over rows of thread
 * `thread` (PROFKIT_NONE = all): a new array of t->n entries, or NULL when
 * out of memory.
 */
int64_t *pk_ltree_self(const pk_ltree *t, uint32_t value, uint32_t thread);
/*
 * (Re)computes t->self, t->total and t->grand_total for value type `value`
 * over thread `thread`: one tree, its values for one thread after another.
 * Returns 0 or PROFKIT_ENOMEM.
 */
int pk_ltree_set_values(pk_ltree *t, uint32_t value, uint32_t thread);

/*
 * The key label of a frame for a `by` mode, written into buf (always
 * NUL-terminated); returns its length. By function it is pk_frame_label's;
 * by file the function's file (else its module, else the mapping's file);
 * by line FILE:LINE[:COLUMN] (NAME:LINE without a file); by address 0xHEX.
 */
size_t pk_frame_key_label(const profkit_profile *p, uint32_t frame, profkit_key by, char *buf,
                          size_t n);

/*
 * Sums the chosen value per stack id over rows of the chosen thread
 * (PROFKIT_NONE = all). *out is a new array of p->n_stacks entries.
 */
int pk_stack_self(const profkit_profile *p, uint32_t value, uint32_t thread, int64_t **out);

#endif
