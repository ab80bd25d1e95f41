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

#include "model/model.h"
#include "util/strtab.h"

/* func values of a node that are no function. */
#define FLAME_ROOT (-1)
#define FLAME_OTHER (-2)

/* A function as the page shows it. The strings belong to a profile's or
 * flame_data's string table (whose strings never move). */
typedef struct flame_func {
    const char *name, *file, *module;
    uint32_t name_len, file_len, module_len, line;
} flame_func;

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
} flame_scope;

typedef struct flame_data {
    const profkit_profile *p;    /* NEW */
    const profkit_profile *base; /* BASE, or NULL */
    uint32_t value;              /* the value type shown first */
    pk_strtab strings;      /* names made here (addresses) or matched by (diff) */
    flame_func *funcs;
    size_t n_funcs;
    flame_scope *scopes;
    size_t n_scopes;
} flame_data;

/*
 * Builds the trees for p (and o->base) as o says; o must be complete (no
 * NULL). With one_tree only the first (all threads, or o->thread) is built. Returns 0, PROFKIT_EINVAL (unknown value type or thread) or
 * PROFKIT_ENOMEM, with err filled; pk_flame_data_free releases d either way.
 */
int pk_flame_build(flame_data *d, const profkit_profile *p, const profkit_flame_options *o,
                int one_tree, profkit_error *err);
void pk_flame_data_free(flame_data *d);

/* ---- a growable output buffer (the page is rendered into memory) ---- */

typedef struct flame_buf {
    char *p;
    size_t n, cap;
    int oom; /* sticky: a growth failed */
} flame_buf;

void pk_flame_put(flame_buf *b, const void *s, size_t n);
static inline void flame_puts(flame_buf *b, const char *s) { pk_flame_put(b, s, strlen(s)); }
void pk_flame_printf(flame_buf *b, const char *fmt, ...) PK_PRINTF(2, 3);
void pk_flame_put_i64(flame_buf *b, int64_t v);
/*
 * s[0..len) as a JSON string literal that is also safe inside an HTML
 * <script> element: '<' is written \u003c (so no "</script>" or "<!--"),
 * invalid UTF-8 becomes U+FFFD.
 */
void pk_flame_put_json_string(flame_buf *b, const char *s, size_t len);
/* s[0..len) as XML character data or attribute text (&<>"' escaped,
 * invalid UTF-8 and control characters replaced). */
void pk_flame_put_xml(flame_buf *b, const char *s, size_t len);
/*
 * Hands the buffer to the caller (NUL-terminated) or writes it to path
 * through an atomic sink, then frees it. Returns 0, PROFKIT_ENOMEM or
 * PROFKIT_EIO.
 */
int pk_flame_buf_finish(flame_buf *b, char **out, size_t *len, profkit_error *err);
int pk_flame_buf_write(flame_buf *b, const char *path, profkit_error *err);
/* Ends a render whose result was rc: on failure frees b and returns rc;
 * else hands b over as *out (path NULL) or writes it to path. */
int pk_flame_buf_deliver(flame_buf *b, int rc, const char *path, char **out, size_t *len,
                      profkit_error *err);

/* The page template, split at the data marker, with CSS and JS already in
 * (generated at build time from src/report/flame/page/ by cmake/embed_page.cmake). */
extern const unsigned char pk_flame_page_head[];
extern const size_t pk_flame_page_head_len;
extern const unsigned char pk_flame_page_tail[];
extern const size_t pk_flame_page_tail_len;

#endif
