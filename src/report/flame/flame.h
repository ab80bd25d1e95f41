/*
 * flame.h: the flame graph's data inside the library (docs/viewer.md).
 *
 * flame_tree.c aggregates a profile (or BASE and NEW for a diff) into one
 * bounded call tree by function per "scope" (all threads merged, then each
 * thread); flame_html.c writes the viewer page around it and flame_svg.c a
 * static SVG. Everything is parallel arrays indexed by node, parents before
 * children, so each writer walks the arrays once.
 */
#ifndef PROFKIT_FLAME_H
#define PROFKIT_FLAME_H

#include "io/io.h"
#include "model/model.h"
#include "util/strtab.h"

/* func values of a node that are no function. */
#define FLAME_ROOT (-1)
#define FLAME_OTHER (-2)

/* A function as the page shows it: its name, file and module as string ids of
 * its profile (NEW or BASE: `base`), the name of flame_data.strings
 * instead when `own` (a name made here: an address's label, or a diff's);
 * PROFKIT_NONE is "". 20 bytes: a Gecko page has hundreds of thousands. */
typedef struct flame_func {
    uint32_t name, file, module, line;
    uint16_t category; /* its first frame's: 1 + category index, 0 = none */
    uint8_t base, own;
} flame_func;

/* What the page embeds of a profile's time line (docs/viewer.md, "time"):
 * every timed sample while the page's threads have at most this many
 * together (past it, an activity histogram per thread and no range
 * narrowing), markers up to this many, their payloads up to this many
 * bytes together. */
#define PK_FLAME_MAX_SAMPLES ((size_t)1000000)
/* ... and while their columns take at most this many bytes of the page
 * (docs/viewer.md, "timeline"): with the tree of the default 100,000
 * nodes (3.7 MB) and the rest the page stays under 10 MB. */
#define PK_FLAME_SAMPLE_BYTES ((size_t)5500000)
#define PK_FLAME_MAX_MARKERS ((size_t)2000000)
#define PK_FLAME_MAX_PAYLOAD ((size_t)8 << 20)
#define PK_FLAME_BINS 4000
/* ... bins for the page's threads together: past PK_FLAME_BINS per timed
 * thread, fewer per thread (at least one), so that tens of thousands of
 * threads do not make the page grow with threads times bins. */
#define PK_FLAME_ACTIVITY_CELLS ((size_t)1000000)

/* One scope's tree (and, for timed threads, its runs of samples). */
typedef struct flame_scope {
    uint32_t thread;     /* thread index in NEW, or PROFKIT_NONE for all threads */
    int merged;          /* the synthetic all-threads entry */
    size_t n;            /* nodes; node 0 is the root */
    int32_t *parent;     /* -1 for the root; parent[i] < i */
    int32_t *func;       /* index into flame_data.funcs, FLAME_ROOT or FLAME_OTHER */
    int64_t *self;       /* self[v * n + i] */
    int64_t *base_self;  /* diff only: BASE's, same shape */
    int timed;           /* a timed thread: the runs below are its samples */
    size_t n_runs;       /* runs of samples */
    int64_t *run_start;  /* ns since the profile's first sample */
    uint32_t *run_node;
    int64_t run_end;
    /* every timed sample in time order (the page's time ranges,
     * flame_runs.c): ns since the profile's first sample, node, row */
    size_t n_samp;
    int64_t *samp_time;
    uint32_t *samp_node, *samp_row;
    /* per node: 1 inlined, 2 a real call, 3 both (as tree1's); NULL when
     * no frame of the profile is inlined */
    uint8_t *inl;
    /* inl per value type ([v * n + i]); NULL when every value type's are inl */
    uint8_t *inlv;
    /* a label's scope (the page's label picker): every thread's rows whose
     * values of label key lkey join to lvalue ("," between several; ""
     * for rows without the key), as --tagfocus and --tagroot group them */
    int label;
    const char *lkey, *lvalue;
    uint32_t lkey_len, lvalue_len;
    /* a numeric key's: the rows whose number is in [llo, lhi] (lnum), the
     * key's unit, and the name --tagroot gives the number llo ("" for a
     * string key's scope); thread: the one thread whose rows these are,
     * PROFKIT_NONE for every thread's */
    int lnum;
    int64_t llo, lhi;
    const char *lunit, *lframe;
    uint32_t lframe_len;
    /* a numeric key's single number (lgroup): the key's numbers have a
     * unit and are more than the picker lists, so "group by" has a frame
     * per number (as --tagroot) and "KEY = VALUE" the buckets, which the
     * page makes of these (every thread's; each thread's are scopes) */
    int lgroup;
    const char *lbucket; /* its bucket's value (lgroup), for "KEY = VALUE" */
    uint32_t lbucket_len;
} flame_scope;

/* The page's label scopes: label keys of at most this many values each (a
 * numeric key's bucketed into as many), at most this many keys, at most
 * PK_FLAME_LABEL_SCOPES scopes with those of each thread (else every
 * thread's only). */
#define PK_FLAME_LABEL_KEYS 8
#define PK_FLAME_LABEL_VALUES 32
#define PK_FLAME_LABEL_SCOPES 512
/* A bucketed numeric key whose numbers have a unit also has a scope per
 * number (every thread's rows) for the grouping, up to this many numbers
 * (above it the grouping merges each bucket into one frame "LO to HI"). */
#define PK_FLAME_LABEL_GROUP_VALUES 2048

typedef struct flame_data {
    const profkit_profile *p;    /* NEW */
    const profkit_profile *base; /* BASE, or NULL */
    uint32_t value;              /* the value type shown first */
    pk_strtab strings;      /* names made here (addresses) or matched by (diff) */
    flame_func *funcs;
    size_t n_funcs;
    flame_scope *scopes;
    size_t n_scopes;
    /* frame_func[f]: p's frame f's function (index into funcs), for the
     * memory operations' allocation sites (flame_html.c); only when p
     * keeps its memory operations (pk_mem_ops_valid) and is no diff, else
     * NULL */
    int32_t *frame_func;
} flame_data;

/* Function fi's name, file and module (*len: their lengths). */
const char *pk_flame_func_name(const flame_data *d, size_t fi, size_t *len);
const char *pk_flame_func_file(const flame_data *d, size_t fi, size_t *len);
const char *pk_flame_func_module(const flame_data *d, size_t fi, size_t *len);

/*
 * Builds the trees for p (and o->base) as o says; o must be complete (no
 * NULL). With one_tree only the first (all threads, or o->thread) is built. Returns 0, PROFKIT_EINVAL (unknown value type or thread) or
 * PROFKIT_ENOMEM, with err filled; pk_flame_data_free releases d either way.
 */
int pk_flame_build(flame_data *d, const profkit_profile *p, const profkit_flame_options *o,
                int one_tree, profkit_error *err);
void pk_flame_data_free(flame_data *d);

/* ---- where a render goes ---- */

/* A file (through a temporary name renamed when complete; NULL or "-" is
 * standard output) or, with out set, memory handed over as *out
 * (NUL-terminated, the caller frees it) and *len. The render writes into
 * pk_sink_buf(k) with the pk_buf_* calls (util/buf.h). */
typedef struct flame_out {
    const char *path;
    char **out;
    size_t *len;
    pk_sink *k; /* open from pk_flame_out_open on */
    pk_buf mem;
} flame_out;

/* Sets *out to NULL (when given) until a render succeeds. */
void pk_flame_out_init(flame_out *o, const char *path, char **out, size_t *len);
/* Opens the output. A render calls it once its data is built, so a render
 * that fails before writing leaves no file. Returns 0, PROFKIT_EIO or
 * PROFKIT_ENOMEM. */
int pk_flame_out_open(flame_out *o, profkit_error *err);
/* Ends a render whose result was rc: keeps the output when rc is 0 and
 * every write succeeded, else drops it. Returns rc or the output's failure
 * (PROFKIT_ENOMEM, PROFKIT_EIO). */
int pk_flame_out_close(flame_out *o, int rc, profkit_error *err);

/* The page template, split at the data marker, with CSS and JS already in
 * (generated at build time from src/report/flame/page/ by cmake/embed_page.cmake). */
extern const unsigned char pk_flame_page_head[];
extern const size_t pk_flame_page_head_len;
extern const unsigned char pk_flame_page_tail[];
extern const size_t pk_flame_page_tail_len;

/* flame_pack.c: the markers' packed columns (docs/viewer.md, "markers"). */
/* Appends the bytes as base85 text: 5 characters per 4 bytes (big-endian,
 * the last group padded with zero bytes), none of them '"', '\\' or '<'. */
void pk_flame_put_base85(pk_buf *b, const unsigned char *p, size_t n);
/* *out (malloc'd, *out_n bytes): the gzip stream of in[0..n). 0 or PROFKIT_ENOMEM. */
int pk_flame_gzip(const unsigned char *in, size_t n, unsigned char **out, size_t *out_n);
/* Appends u as an unsigned LEB128 varint (raw bytes). */
void pk_flame_raw_varint(pk_buf *b, uint64_t u);
/* The low bytes of v[0..n) to write as planes: those of the median's length. */
int pk_flame_planes_for(const uint64_t *v, size_t n);
/* Appends v[0..n) as s planes (byte k of every value, k < s) and then each
 * value shifted right by 8 s bits as a varint. 0 or the buffer's error. */
int pk_flame_put_planes(pk_buf *b, const uint64_t *v, size_t n, int s);

#endif
