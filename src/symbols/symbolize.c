/*
 * symbolize.c: names the frames of a profile that carry only an address,
 * from the ELF files its mappings name (docs/symbols.md).
 *
 * The work goes by distinct addresses, never by samples:
 *   1. the frames to name (an address, no name or only "0x<address>"),
 *      and how stacks use each: as a sample's leaf, as a caller, or both
 *      (a caller's address is a return address: it is looked up at
 *      offset - 1, so a call that ends a function is not charged to the
 *      next one);
 *   2. the file for each mapping (sym_find.c), each opened once;
 *   3. every (file, address) looked up once, in sorted order per file,
 *      into a chain of frames (the real function, then each inlined call);
 *   4. stacks rebuilt root to leaf, each old frame replaced by its chain,
 *      and the frames no stack uses any more dropped.
 * A frame nothing names keeps its address, with an empty name and its
 * mapping's file as module: reports label it FILE+0xOFFSET, which is the
 * same in every run under ASLR.
 */
#include "symbols/sym_cache.h"
#include "symbols/sym_find.h"
#include "util/map64.h"
#include "symbols/symbols.h"

#include <inttypes.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#define MAX_CHAIN 64

enum { LEAF = 1, CALLER = 2 };

typedef struct request {
    uint32_t file;
    uint32_t frame;
    uint64_t vaddr;
    uint8_t kind;
} request;

/* A looked-up frame: function and line (the address is the old frame's). */
typedef struct link {
    uint32_t function;
    uint32_t line;
} link;

/* Names already demangled and interned, keyed by the string's address. */
typedef struct name_cache {
    const char **keys;
    uint32_t *name, *system;
    size_t cap, n;
} name_cache;

typedef struct sctx {
    profkit_profile *p;
    const profkit_symbolize_options *o;
    name_cache names;
    sym_finder *finder;
} sctx;

static uint64_t ptr_hash(const void *k)
{
    return pk_hash_u64((uint64_t)(uintptr_t)k);
}

static int cache_grow(name_cache *c)
{
    size_t cap = c->cap ? c->cap * 2 : 1024;
    name_cache g = { calloc(cap, sizeof(char *)), malloc(cap * sizeof(uint32_t)),
                     malloc(cap * sizeof(uint32_t)), cap, 0 };
    if (!g.keys || !g.name || !g.system) {
        free(g.keys);
        free(g.name);
        free(g.system);
        return -1;
    }
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->keys[i])
            continue;
        size_t j = ptr_hash(c->keys[i]) & (cap - 1);
        while (g.keys[j])
            j = (j + 1) & (cap - 1);
        g.keys[j] = c->keys[i];
        g.name[j] = c->name[i];
        g.system[j] = c->system[i];
        g.n++;
    }
    free(c->keys);
    free(c->name);
    free(c->system);
    *c = g;
    return 0;
}

/* The display and system name ids of a symbol name; -1 when out of memory. */
static int intern_name(sctx *s, const char *raw, uint32_t *name, uint32_t *system)
{
    name_cache *c = &s->names;
    if ((c->n + 1) * 2 > c->cap && cache_grow(c) != 0)
        return -1;
    size_t j = ptr_hash(raw) & (c->cap - 1);
    while (c->keys[j]) {
        if (c->keys[j] == raw) {
            *name = c->name[j];
            *system = c->system[j];
            return 0;
        }
        j = (j + 1) & (c->cap - 1);
    }
    /* "memcpy@@GLIBC_2.14": the symbol version is not part of the name. */
    size_t len = strlen(raw);
    const char *at = strchr(raw, '@');
    if (at && at != raw)
        len = (size_t)(at - raw);
    char plain[4096], shown[4096];
    if (len >= sizeof(plain))
        len = sizeof(plain) - 1;
    memcpy(plain, raw, len);
    plain[len] = '\0';
    *system = profkit_string_intern(s->p, plain, len);
    int mode = s->o ? (int)s->o->demangle : 0;
    if (pk_demangle_mode_into(plain, mode, shown, sizeof(shown)))
        *name = profkit_string_intern_cstr(s->p, shown);
    else
        *name = *system;
    if (*name == PROFKIT_NONE || *system == PROFKIT_NONE)
        return -1;
    c->keys[j] = raw;
    c->name[j] = *name;
    c->system[j] = *system;
    c->n++;
    return 0;
}

static int is_unsymbolized(const profkit_profile *p, const profkit_frame *f)
{
    if (f->function >= p->n_functions)
        return 1;
    const profkit_function *fn = &p->functions[f->function];
    if (fn->file)
        return 0;
    const char *name = pk_str(p, fn->name);
    if (!name[0])
        return 1;
    if (name[0] != '0' || name[1] != 'x')
        return 0;
    char *end;
    unsigned long long v = strtoull(name + 2, &end, 16);
    return *end == '\0' && v == f->address;
}

/* Where a path's file name starts and where it ends (its C string's end),
 * found once per path string: frames of many mappings of one long path
 * would otherwise each scan it whole. */
typedef struct path_base {
    pk_map64 of;    /* path string id -> index into at */
    struct base_at {
        size_t from, end;
    } *at;
    size_t n, cap;
} path_base;

static void path_base_free(path_base *b)
{
    pk_map64_free(&b->of);
    free(b->at);
}

/* FILE+0xOFFSET for a frame with an empty name in mapping m (FILE: the
 * path's part after its last '/', the whole path when that is empty), at
 * most n - 1 bytes, in buf (*len bytes). 0, or -1 when out of memory. */
static int unnamed_label_text(profkit_profile *p, path_base *pb, const profkit_frame *fr, char *buf,
                              size_t n, size_t *out_len)
{
    const profkit_mapping *m = &p->mappings[fr->mapping];
    const char *path = pk_str(p, m->path);
    uint32_t i = pk_map64_get(&pb->of, m->path);
    if (i == PK_MAP64_EMPTY) {
        const char *base = strrchr(path, '/');
        if (PK_VEC_RESERVE(pb->at, pb->n, pb->cap, 1) != 0 || pb->n >= PK_MAP64_EMPTY - 1)
            return -1;
        i = (uint32_t)pb->n;
        pb->at[i].from = base && base[1] ? (size_t)(base + 1 - path) : 0;
        pb->at[i].end = pb->at[i].from + strlen(path + pb->at[i].from);
        if (pk_map64_put(&pb->of, m->path, i) < 0)
            return -1;
        pb->n++;
    }
    /* at most n - 20 bytes of the name, so a long one keeps its offset
     * (labels of one long path at different offsets stay apart) */
    size_t len = pb->at[i].end - pb->at[i].from;
    if (len > n - 20)
        len = n - 20;
    memcpy(buf, path + pb->at[i].from, len);
    buf[len] = '\0';
    int w = snprintf(buf + len, n - len, "+0x%" PRIx64, fr->address - m->start + m->offset);
    if (w < 0)
        return -1;
    *out_len = len + (size_t)w < n ? len + (size_t)w : n - 1;
    return 0;
}

/* Interns unnamed_label_text's label; PROFKIT_NONE when out of memory. */
static uint32_t unnamed_label(profkit_profile *p, path_base *pb, const profkit_frame *fr, char *buf,
                              size_t n)
{
    size_t len;
    if (unnamed_label_text(p, pb, fr, buf, n, &len) != 0)
        return PROFKIT_NONE;
    return profkit_string_intern(p, buf, len);
}

static int request_cmp(const void *a, const void *b)
{
    const request *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->vaddr != y->vaddr)
        return x->vaddr < y->vaddr ? -1 : 1;
    if (x->frame != y->frame)
        return x->frame < y->frame ? -1 : 1;
    return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* Turns a lookup's frames into links. Returns the count, or -1 (ENOMEM). */
static int make_links(sctx *s, const sym_frame *sf, size_t n, uint32_t module, link *out)
{
    for (size_t i = 0; i < n; i++) {
        profkit_function fn;
        memset(&fn, 0, sizeof(fn));
        if (intern_name(s, sf[i].name, &fn.name, &fn.system_name) != 0)
            return -1;
        fn.file = sf[i].file ? profkit_string_intern_cstr(s->p, sf[i].file) : 0;
        fn.module = module;
        fn.start_line = sf[i].decl_line;
        if (fn.file == PROFKIT_NONE || (out[i].function = pk_function_add(s->p, &fn)) == PROFKIT_NONE)
            return -1;
        out[i].line = sf[i].line;
    }
    return (int)n;
}

/*
 * The symbolizer's state from one step to the next; what a step alone
 * needs is its own and freed before it returns.
 */
typedef struct symbolizer {
    profkit_profile *p;
    sctx s;             /* the profile, the options, names, the files */
    size_t nf, ns;      /* frames and stacks before */
    /* 1. collect_uses */
    uint8_t *use;       /* per stack: LEAF (a sample's) | CALLER (a stack's parent) */
    uint8_t *role;      /* per frame: the uses of the stacks ending in it */
    /* 2. find_files */
    uint32_t *fmap;     /* per frame to name: its mapping (PROFKIT_NONE: none) */
    uint32_t *ffile;    /* per frame to name: the file for it (PROFKIT_NONE: none) */
    uint8_t *no_name;   /* per mapping: 1 no file found, 2 its file named none of its frames */
    request *req;       /* the lookups: (file, address) per frame and use */
    size_t n_req, cap_req;
    size_t wanted;      /* frames to name */
    /* 3. look_up */
    link *links;        /* the chains the lookups gave */
    size_t n_links, cap_links;
    uint32_t *cstart;   /* chain of frame f used as kind k: links[cstart[2f+k] .. +clen[2f+k]) */
    uint8_t *clen;
    size_t named;       /* frames named */
    path_base bases;    /* the file names of mappings' paths (FILE+0xOFFSET) */
} symbolizer;

static void symbolizer_free(symbolizer *z)
{
    pk_sym_finder_free(z->s.finder);
    free(z->s.names.keys);
    free(z->s.names.name);
    free(z->s.names.system);
    free(z->use);
    free(z->role);
    free(z->fmap);
    free(z->ffile);
    free(z->no_name);
    free(z->req);
    free(z->links);
    free(z->cstart);
    free(z->clen);
    path_base_free(&z->bases);
}

/* 1. Which frames are used, and how: as a sample's leaf, as a caller. */
static int collect_uses(symbolizer *z)
{
    const profkit_profile *p = z->p;
    size_t nf = z->nf, ns = z->ns, n_samples = p->n_samples;
    /* local copies: a byte store may alias any field */
    const profkit_stack *stacks = p->stacks;
    const uint32_t *sample_stack = p->sample_stack;
    uint8_t *use = z->use = calloc(ns + 1, 1), *role = z->role = calloc(nf + 1, 1);
    if (!use || !role)
        return PROFKIT_ENOMEM;
    for (size_t st = 1; st < ns; st++)
        if (stacks[st].parent != 0 && stacks[st].parent < ns)
            use[stacks[st].parent] |= CALLER;
    for (size_t r = 0; r < n_samples; r++)
        if (sample_stack[r] != 0 && sample_stack[r] < ns)
            use[sample_stack[r]] |= LEAF;
    for (size_t c = 0; c < p->n_marker_causes; c++) /* a marker's stack is one too */
        if (p->marker_causes[c].stack != 0 && p->marker_causes[c].stack < ns)
            use[p->marker_causes[c].stack] |= LEAF;
    for (size_t st = 1; st < ns; st++)
        if (stacks[st].frame < nf)
            role[stacks[st].frame] |= use[st];
    return 0;
}

/* 2. The file for each frame's mapping (each mapping searched once), and
 * the lookups wanted: one per frame to name and use. */
static int find_files(symbolizer *z)
{
    profkit_profile *p = z->p;
    size_t nf = z->nf;
    int rc = PROFKIT_ENOMEM;
    uint32_t *sorted_maps = pk_mappings_by_start(p);
    uint32_t *fmap = z->fmap = malloc((nf + 1) * sizeof(uint32_t));
    uint32_t *ffile = z->ffile = malloc((nf + 1) * sizeof(uint32_t));
    uint8_t *no_name = z->no_name = calloc(p->n_mappings + 1, 1);
    const uint8_t *role = z->role;
    if (!sorted_maps || !fmap || !ffile || !no_name)
        goto done;
    for (size_t f = 0; f < nf; f++) {
        profkit_frame *fr = &p->frames[f];
        fmap[f] = ffile[f] = PROFKIT_NONE;
        if (!fr->address || !role[f] || !is_unsymbolized(p, fr))
            continue;
        uint32_t m = fr->mapping < p->n_mappings ? fr->mapping
                     : p->mappings_settled     ? PROFKIT_NONE
                                               : pk_mapping_at(p, sorted_maps, fr->address);
        fmap[f] = m;
        z->wanted++;
        uint32_t file = pk_sym_finder_file(z->s.finder, m);
        if (file == PROFKIT_NONE) {
            if (m != PROFKIT_NONE)
                no_name[m] = 1;
            continue;
        }
        ffile[f] = file;
        sym_binary *b = pk_sym_finder_binary(z->s.finder, file);
        uint64_t off = fr->address;
        if (m != PROFKIT_NONE) {
            if (fr->address < p->mappings[m].start)
                continue;
            off = fr->address - p->mappings[m].start + p->mappings[m].offset;
        }
        for (uint8_t kind = LEAF; kind <= CALLER; kind <<= 1) {
            if (!(role[f] & kind))
                continue;
            uint64_t o2 = kind == CALLER && off > 0 ? off - 1 : off;
            uint64_t vaddr = o2;
            if (m != PROFKIT_NONE && pk_sym_binary_vaddr(b, o2, &vaddr) != 0)
                continue;
            if (PK_VEC_RESERVE(z->req, z->n_req, z->cap_req, 1) != 0)
                goto done;
            z->req[z->n_req++] = (request){ file, (uint32_t)f, vaddr, kind };
        }
    }
    rc = 0;
done:
    free(sorted_maps);
    return rc;
}

/*
 * A file's lookups are over: when the symbol cache answered them all, it
 * says where its names came from (the file's DWARF is never read); else
 * the new lookups are written to it, when the file has DWARF (a file named
 * from its symbol table alone may get a debug file later).
 */
static void cache_done(symbolizer *z, uint32_t file, sym_cache *c, size_t misses)
{
    if (!c || file == PROFKIT_NONE)
        return;
    if (misses == 0) {
        pk_sym_finder_set_source(z->s.finder, file, pk_sym_cache_source(c));
        return;
    }
    sym_binary *b = pk_sym_finder_binary(z->s.finder, file);
    int source = pk_sym_binary_source(b);
    if (source == PK_SYM_SRC_DWARF)
        pk_sym_cache_save(c, source, pk_sym_binary_debug_file(b));
}

/*
 * 3. Each distinct (file, address) looked up once, in order, into a chain
 * of links. Names are interned in the profile then: the files' DWARF and
 * symbol tables go before the stacks are rebuilt, so both are not held at
 * once (the peak memory of a large profile).
 */
static int look_up(symbolizer *z)
{
    profkit_profile *p = z->p;
    size_t nf = z->nf;
    request *req = z->req;
    size_t n_req = z->n_req;
    const uint32_t *fmap = z->fmap;
    uint8_t *was_named = calloc(nf + 1, 1);
    uint32_t *cstart = z->cstart = malloc((2 * nf + 1) * sizeof(uint32_t));
    uint8_t *clen = z->clen = calloc(2 * nf + 1, 1);
    size_t n_links = 0;
    int rc = PROFKIT_ENOMEM;
    /* The symbol cache (sym_cache.h): a file's lookups from an earlier run,
     * by build id; one cache per file, kept until the names are interned
     * (its strings are the names' keys). */
    char *cache_dir = NULL;
    sym_cache **caches = NULL, *cache = NULL;
    size_t n_caches = 0, cap_caches = 0, misses = 0;
    uint32_t cache_file = PROFKIT_NONE;
    if (!was_named || !cstart || !clen)
        goto done;
    if (n_req)
        qsort(req, n_req, sizeof(request), request_cmp);
    if (n_req && z->s.o && z->s.o->use_environment)
        cache_dir = pk_sym_cache_dir();
    for (size_t i = 0; i < n_req;) {
        size_t j = i;
        while (j < n_req && req[j].file == req[i].file && req[j].vaddr == req[i].vaddr)
            j++;
        sym_frame sf[MAX_CHAIN];
        sym_binary *b = pk_sym_finder_binary(z->s.finder, req[i].file);
        if (cache_dir && req[i].file != cache_file) {
            cache_done(z, cache_file, cache, misses);
            cache_file = req[i].file;
            misses = 0;
            char *context = pk_sym_binary_cache_context(b);
            cache = PK_VEC_RESERVE(caches, n_caches, cap_caches, 1) == 0
                        ? pk_sym_cache_open(cache_dir, pk_sym_binary_build_id(b), context) : NULL;
            free(context);
            if (cache)
                caches[n_caches++] = cache;
        }
        size_t n = 0;
        if (!cache || !pk_sym_cache_get(cache, req[i].vaddr, sf, MAX_CHAIN, &n)) {
            n = pk_sym_binary_lookup(b, req[i].vaddr, sf, MAX_CHAIN);
            misses++;
            if (cache)
                pk_sym_cache_add(cache, req[i].vaddr, sf, n);
        }
        if (n) {
            uint32_t m = fmap[req[i].frame];
            uint32_t module = m != PROFKIT_NONE && p->mappings[m].path ? p->mappings[m].path
                              : profkit_string_intern_cstr(p, pk_sym_finder_path(z->s.finder, req[i].file));
            if (module == PROFKIT_NONE || PK_VEC_RESERVE(z->links, n_links, z->cap_links, n) != 0 ||
                make_links(&z->s, sf, n, module, z->links + n_links) < 0)
                goto done;
            pk_sym_finder_count(z->s.finder, req[i].file, j - i);
            for (size_t k = i; k < j; k++) {
                size_t slot = 2 * (size_t)req[k].frame + (req[k].kind == CALLER);
                cstart[slot] = (uint32_t)n_links;
                clen[slot] = (uint8_t)n;
                was_named[req[k].frame] = 1;
            }
            n_links += n;
        }
        i = j;
    }
    size_t named = 0;
    for (size_t f = 0; f < nf; f++) {
        named += was_named[f];
        if (fmap[f] != PROFKIT_NONE && z->role[f] && !was_named[f] && z->ffile[f] != PROFKIT_NONE)
            z->no_name[fmap[f]] |= 2;
    }
    z->named = named;
    cache_done(z, cache_file, cache, misses);
    /* The name cache's keys point into the files and the symbol caches: it
     * goes with them. */
    pk_sym_finder_release(z->s.finder);
    free(z->s.names.keys);
    free(z->s.names.name);
    free(z->s.names.system);
    memset(&z->s.names, 0, sizeof(z->s.names));
    free(z->req);
    z->req = NULL;
    z->n_req = z->cap_req = 0;
#if defined(__GLIBC__)
    /* The files' DWARF (libdw's inflated sections, our indexes) was freed
     * in many small blocks that stay resident in the heap; the stack table
     * rebuilt next is one large block elsewhere. Give those pages back, so
     * the two do not add up in the peak (RSS). */
    malloc_trim(0);
#endif
    rc = 0;
done:
    z->n_links = n_links;
    free(was_named);
    for (size_t c = 0; c < n_caches; c++)
        pk_sym_cache_free(caches[c]);
    free(caches);
    free(cache_dir);
    return rc;
}

/* The new frames of each (frame, use): sids[sstart[2f+k] .. +slen[2f+k]). */
typedef struct new_frames {
    uint32_t *sstart, *sids;
    uint8_t *slen;
    size_t n_sids, cap_sids;
} new_frames;

static void new_frames_free(new_frames *n)
{
    free(n->sstart);
    free(n->sids);
    free(n->slen);
}

/* A frame nothing named, in a mapping with a file path: its FILE+0xOFFSET
 * frame, through an empty name. PROFKIT_NONE when out of memory. */
static uint32_t unnamed_frame(profkit_profile *p, path_base *pb, uint32_t f, uint32_t m)
{
    profkit_function fn;
    memset(&fn, 0, sizeof(fn));
    fn.module = p->mappings[m].path;
    profkit_frame nfr = p->frames[f];
    nfr.mapping = m;
    /* One function per address, as readers give them (writers that list
     * functions label a nameless one by a frame of it); its system name is
     * that label. */
    char label[600];
    nfr.function = PROFKIT_NONE;
    if ((fn.system_name = unnamed_label(p, pb, &nfr, label, sizeof(label))) == PROFKIT_NONE ||
        (nfr.function = pk_function_add(p, &fn)) == PROFKIT_NONE)
        return PROFKIT_NONE;
    return pk_frame_add(p, &nfr);
}

/* An unnamed frame being made (make_unnamed). */
typedef struct unnamed_job {
    uint32_t f;
    size_t len;
    uint64_t h; /* the label's hash, then the function's, then the frame's */
    profkit_function fn;
    profkit_frame fr;
    char label[600];
} unnamed_job;

/*
 * When nothing was named (no chain's frames are added among them): the
 * FILE+0xOFFSET frames make_new_frames makes through unnamed_frame, made
 * the same way a block of frames at a time, and over a block a step at a
 * time (the labels and their hashes; the labels interned and the
 * functions' hashes; the functions added and the frames' hashes; the
 * frames added), each step's index slots asked for in the step before,
 * so the misses overlap. Each table gets its rows in unnamed_frame's
 * order. out[f]: frame f's new frame, or PROFKIT_NONE when it keeps
 * itself. Returns 0 or PROFKIT_ENOMEM.
 */
static int make_unnamed(symbolizer *z, uint32_t *out)
{
    enum { BLOCK = 16 };
    profkit_profile *p = z->p;
    unnamed_job *jobs = malloc(BLOCK * sizeof *jobs);
    if (!jobs)
        return PROFKIT_ENOMEM;
    int rc = 0;
    for (size_t f = 0; f < z->nf && !rc;) {
        size_t nj = 0;
        for (; f < z->nf && nj < BLOCK; f++) {
            uint32_t m = z->fmap[f];
            out[f] = PROFKIT_NONE;
            if (!z->role[f] || m == PROFKIT_NONE || !p->mappings[m].path)
                continue;
            unnamed_job *j = &jobs[nj++];
            j->f = (uint32_t)f;
            j->fr = p->frames[f];
            j->fr.mapping = m;
            j->fr.function = PROFKIT_NONE;
            if (unnamed_label_text(p, &z->bases, &j->fr, j->label, sizeof j->label, &j->len) != 0) {
                rc = PROFKIT_ENOMEM;
                break;
            }
            j->h = pk_strtab_hash(j->label, j->len);
            pk_strtab_prefetch(&p->strings, j->h);
        }
        for (size_t k = 0; k < nj && !rc; k++) {
            unnamed_job *j = &jobs[k];
            memset(&j->fn, 0, sizeof j->fn);
            j->fn.module = p->mappings[j->fr.mapping].path;
            j->fn.system_name = pk_strtab_intern_hashed(&p->strings, j->label, j->len, j->h);
            if (j->fn.system_name == PROFKIT_NONE)
                rc = PROFKIT_ENOMEM;
            j->h = pk_function_hash(&j->fn);
            pk_function_prefetch(p, j->h);
        }
        for (size_t k = 0; k < nj && !rc; k++) {
            unnamed_job *j = &jobs[k];
            if ((j->fr.function = pk_function_add_hashed(p, &j->fn, j->h)) == PROFKIT_NONE)
                rc = PROFKIT_ENOMEM;
            j->h = pk_frame_hash(&j->fr);
            pk_frame_prefetch(p, j->h);
        }
        for (size_t k = 0; k < nj && !rc; k++)
            if ((out[jobs[k].f] = pk_frame_add_hashed(p, &jobs[k].fr, jobs[k].h)) == PROFKIT_NONE)
                rc = PROFKIT_ENOMEM;
    }
    free(jobs);
    return rc;
}

/*
 * The new frames of each (frame, use): its chain's frames, or itself (or
 * its FILE+0xOFFSET frame when nothing named it), made once, not once per
 * stack.
 */
static int make_new_frames(symbolizer *z, new_frames *nw)
{
    profkit_profile *p = z->p;
    size_t nf = z->nf;
    const uint8_t *role = z->role, *clen = z->clen;
    const uint32_t *cstart = z->cstart, *fmap = z->fmap;
    const link *links = z->links;
    uint32_t *sstart = nw->sstart = malloc((2 * nf + 1) * sizeof(uint32_t));
    uint8_t *slen = nw->slen = calloc(2 * nf + 1, 1);
    if (!sstart || !slen)
        return PROFKIT_ENOMEM;
    /* nothing named: the unnamed frames first, all in a row */
    uint32_t *unnamed = z->n_links == 0 ? malloc((nf + 1) * sizeof(uint32_t)) : NULL;
    if (z->n_links == 0 && (!unnamed || make_unnamed(z, unnamed) != 0)) {
        free(unnamed);
        return PROFKIT_ENOMEM;
    }
    for (size_t f = 0; f < nf; f++) {
        if (!role[f])
            continue;
        uint32_t plain = PROFKIT_NONE; /* the frame as one frame: the same for both uses */
        for (uint8_t kind = LEAF; kind <= CALLER; kind <<= 1) {
            if (!(role[f] & kind))
                continue;
            size_t slot = 2 * f + (kind == CALLER);
            uint32_t n = clen[slot] ? clen[slot] : 1;
            if (PK_VEC_RESERVE(nw->sids, nw->n_sids, nw->cap_sids, n) != 0) {
                free(unnamed);
                return PROFKIT_ENOMEM;
            }
            sstart[slot] = (uint32_t)nw->n_sids;
            slen[slot] = (uint8_t)n;
            if (clen[slot]) {
                const profkit_frame of = p->frames[f]; /* frame_add may move the table */
                for (uint32_t k = 0; k < clen[slot]; k++) {
                    const link *l = &links[cstart[slot] + k];
                    profkit_frame nfr;
                    memset(&nfr, 0, sizeof(nfr));
                    nfr.address = of.address;
                    nfr.function = l->function;
                    nfr.line = l->line;
                    nfr.mapping = fmap[f] != PROFKIT_NONE ? fmap[f] : of.mapping;
                    nfr.inline_depth = k;
                    if ((nw->sids[nw->n_sids++] = pk_frame_add(p, &nfr)) == PROFKIT_NONE) {
                        free(unnamed);
                        return PROFKIT_ENOMEM;
                    }
                }
                continue;
            }
            if (plain == PROFKIT_NONE) {
                plain = (uint32_t)f;
                /* a frame to name (find_files) that stayed unnamed */
                if (unnamed) {
                    if (unnamed[f] != PROFKIT_NONE)
                        plain = unnamed[f];
                } else if (fmap[f] != PROFKIT_NONE && p->mappings[fmap[f]].path &&
                           (plain = unnamed_frame(p, &z->bases, (uint32_t)f, fmap[f])) == PROFKIT_NONE) {
                    return PROFKIT_ENOMEM;
                }
            }
            nw->sids[nw->n_sids++] = plain;
        }
    }
    free(unnamed);
    return 0;
}

/*
 * Whether no new frame comes from two old frames: then distinct old stacks
 * become distinct new ones, which are appended without a lookup (the index
 * catches up on the next lookup). 1, 0, or PROFKIT_ENOMEM.
 */
static int frames_distinct(const symbolizer *z, const new_frames *nw)
{
    uint32_t *owner = calloc(z->p->n_frames + 1, sizeof(uint32_t));
    if (!owner)
        return PROFKIT_ENOMEM;
    int distinct = 1;
    for (size_t f = 0; f < z->nf && distinct; f++)
        for (size_t slot = 2 * f; slot < 2 * f + 2 && distinct; slot++)
            for (uint32_t k = 0; k < nw->slen[slot]; k++) {
                uint32_t id = nw->sids[nw->sstart[slot] + k];
                if (owner[id] && owner[id] != f + 1) {
                    distinct = 0;
                    break;
                }
                owner[id] = (uint32_t)f + 1;
            }
    free(owner);
    return distinct;
}

/*
 * The stack node at + ids[0..n) (PROFKIT_NONE when out of memory).
 * append 2: the nodes are written in place, the table having room for
 * them (new_stacks makes it per old stack): what pk_stack_append does
 * without a depth limit, minus a call and a capacity check per node
 * (a fifth of the rebuild's instructions on the gperftools benchmark).
 */
static inline uint32_t extend(profkit_profile *p, uint32_t at, const uint32_t *ids, uint32_t n, int append)
{
    if (append == 2) {
        profkit_stack *s = p->stacks + p->n_stacks;
        uint32_t next = (uint32_t)p->n_stacks;
        for (uint32_t k = 0; k < n; k++) {
            s[k].parent = at;
            s[k].frame = ids[k];
            at = next++;
        }
        p->n_stacks = next;
        return at;
    }
    for (uint32_t k = 0; k < n && at != PROFKIT_NONE; k++)
        at = append ? pk_stack_append(p, at, ids[k]) : pk_stack_intern(p, at, ids[k]);
    return at;
}

/*
 * The new stacks of the old ones, for each use: one id per old stack, its
 * new stack as a parent when it is one (CALLER), else as a sample's leaf;
 * the leaf of a stack used both ways (a sample on a stack that has
 * children, the fewer) in a map beside. One array rather than two: it is
 * the size of the stack table, at the symbolizer's peak.
 */
typedef struct new_ids {
    uint32_t *id;   /* per old stack; PROFKIT_NONE: none */
    pk_map64 leaf2; /* old stack used both ways -> its new stack as a leaf */
} new_ids;

static inline uint32_t new_caller_of(const new_ids *m, const uint8_t *use, uint32_t st)
{
    return st == 0 ? 0 : (use[st] & CALLER) ? m->id[st] : PROFKIT_NONE;
}

static inline uint32_t new_leaf_of(const new_ids *m, const uint8_t *use, uint32_t st)
{
    if (st == 0)
        return 0;
    if (!(use[st] & LEAF))
        return PROFKIT_NONE;
    if (!(use[st] & CALLER))
        return m->id[st];
    uint32_t x = pk_map64_get(&m->leaf2, st);
    return x == PK_MAP64_EMPTY ? PROFKIT_NONE : x;
}

/* Writes the chain of frames f[from..to) below stack `at` at s[*next...]
 * (room made); returns its last stack (`at` when the chain is empty). */
static inline uint32_t append_chain(profkit_stack *s, uint32_t *next, uint32_t at, const uint32_t *f,
                                    uint32_t from, uint32_t to)
{
    for (uint32_t k = from; k < to; k++) {
        s[*next].parent = at;
        s[*next].frame = f[k];
        at = (*next)++;
    }
    return at;
}

/*
 * new_stacks' loop when the new nodes are written in place (append 2):
 * the same nodes in the same order, each old stack's chains written
 * straight into the table (the common prefix of a stack used both ways
 * once, then the rest of each), with its tests once per stack (a third
 * of the rebuild's instructions on the gperftools benchmark went to
 * extend's calls and new_caller_of's tests, most chains being one frame).
 */
static int new_stacks_in_place(profkit_profile *p, const profkit_stack *old, size_t n_old,
                               const uint8_t *use, size_t nf, const new_frames *nw, new_ids *m)
{
    const uint32_t *sids = nw->sids, *sstart = nw->sstart;
    const uint8_t *slen = nw->slen;
    uint32_t *id = m->id;
    for (size_t st = 1; st < n_old; st++) {
        uint32_t parent = old[st].parent, f = old[st].frame;
        unsigned u = use[st] & (LEAF | CALLER);
        uint32_t leaf = PROFKIT_NONE, caller = PROFKIT_NONE;
        /* the parent's new stack as a parent (new_caller_of) */
        uint32_t at = parent == 0 ? 0 : parent < st && (use[parent] & CALLER) ? id[parent] : PROFKIT_NONE;
        if (u && parent < st && f < nf && at != PROFKIT_NONE) {
            const uint32_t *a = u & LEAF ? sids + sstart[2 * (size_t)f] : NULL;
            const uint32_t *c = u & CALLER ? sids + sstart[2 * (size_t)f + 1] : NULL;
            uint32_t na = a ? slen[2 * (size_t)f] : 0, nc = c ? slen[2 * (size_t)f + 1] : 0, cp = 0;
            size_t more = (size_t)na + nc;
            if (p->cap_stacks - p->n_stacks < more &&
                (p->n_stacks + more >= PROFKIT_NONE - 1 ||
                 PK_VEC_RESERVE(p->stacks, p->n_stacks, p->cap_stacks, more) != 0))
                return PROFKIT_ENOMEM;
            profkit_stack *s = p->stacks;
            uint32_t next = (uint32_t)p->n_stacks;
            if (a && c) { /* a stack used both ways: the common prefix once */
                while (cp < na && cp < nc && a[cp] == c[cp])
                    cp++;
                at = append_chain(s, &next, at, a, 0, cp);
            }
            if (a)
                leaf = append_chain(s, &next, at, a, cp, na);
            if (c)
                caller = append_chain(s, &next, at, c, cp, nc);
            p->n_stacks = next;
        }
        id[st] = u & CALLER ? caller : leaf;
        if (u == (LEAF | CALLER) && leaf != PROFKIT_NONE && pk_map64_put(&m->leaf2, st, leaf) < 0)
            return PROFKIT_ENOMEM;
    }
    return 0;
}

/*
 * The new stack of each old stack st, for each of its uses (new_ids);
 * parents come before their children. append: no new frame comes from two
 * old frames (frames_distinct). Returns 0 or PROFKIT_ENOMEM.
 */
static int new_stacks(profkit_profile *p, const profkit_stack *old, size_t n_old, const uint8_t *use,
                      size_t nf, const new_frames *nw, int append, new_ids *m)
{
    const uint32_t *sids = nw->sids, *sstart = nw->sstart;
    const uint8_t *slen = nw->slen;
    m->id[0] = 0;
    if (append && !p->limit_depth) {
        append = 2;
        p->stack_childless = PROFKIT_NONE; /* as pk_stack_append leaves it */
        /* Room for every new node at once: at most each used stack's
         * chains (a stack used both ways shares their common prefix, so
         * this may be a few more). Growing the table by doubling instead
         * copied it and touched fresh pages at each step, a fifth of the
         * rebuild's time with the symbol cache warm. */
        /* more[4f + use]: the new nodes of a stack ending in f (0..128),
         * one load per stack in the pass over them */
        uint8_t *more = malloc(4 * (nf ? nf : 1));
        if (more) {
            for (size_t f = 0; f < nf; f++) {
                more[4 * f] = 0;
                more[4 * f + LEAF] = slen[2 * f];
                more[4 * f + CALLER] = slen[2 * f + 1];
                more[4 * f + (LEAF | CALLER)] = (uint8_t)(slen[2 * f] + slen[2 * f + 1]);
            }
            size_t bound = 0;
            for (size_t st = 1; st < n_old; st++) {
                uint32_t f = old[st].frame;
                bound += f < nf ? more[4 * (size_t)f + (use[st] & 3)] : 0u;
            }
            free(more);
            /* on failure the loop below grows the table as it goes */
            if (bound < PROFKIT_NONE - 1 - p->n_stacks)
                (void)PK_VEC_RESERVE(p->stacks, p->n_stacks, p->cap_stacks, bound);
        }
    }
    if (append == 2)
        return new_stacks_in_place(p, old, n_old, use, nf, nw, m);
    for (size_t st = 1; st < n_old; st++) {
        uint32_t parent = old[st].parent, f = old[st].frame;
        uint32_t leaf = PROFKIT_NONE, caller = PROFKIT_NONE;
        if (use[st] && parent < st && f < nf && new_caller_of(m, use, parent) != PROFKIT_NONE) {
            const uint32_t *a = use[st] & LEAF ? sids + sstart[2 * (size_t)f] : NULL;
            const uint32_t *c = use[st] & CALLER ? sids + sstart[2 * (size_t)f + 1] : NULL;
            uint32_t na = a ? slen[2 * (size_t)f] : 0, nc = c ? slen[2 * (size_t)f + 1] : 0, cp = 0;
            /* a stack used both ways: the common prefix of its two chains once */
            while (a && c && cp < na && cp < nc && a[cp] == c[cp])
                cp++;
            size_t more = (size_t)na + nc;
            if (append == 2 && p->cap_stacks - p->n_stacks < more &&
                (p->n_stacks + more >= PROFKIT_NONE - 1 ||
                 PK_VEC_RESERVE(p->stacks, p->n_stacks, p->cap_stacks, more) != 0))
                return PROFKIT_ENOMEM;
            uint32_t shared = extend(p, new_caller_of(m, use, parent), a, cp, append);
            if (a && (leaf = extend(p, shared, a + cp, na - cp, append)) == PROFKIT_NONE)
                return PROFKIT_ENOMEM;
            if (c && (caller = extend(p, shared, c + cp, nc - cp, append)) == PROFKIT_NONE)
                return PROFKIT_ENOMEM;
        }
        m->id[st] = use[st] & CALLER ? caller : leaf;
        if ((use[st] & (LEAF | CALLER)) == (LEAF | CALLER) && leaf != PROFKIT_NONE &&
            pk_map64_put(&m->leaf2, st, leaf) < 0)
            return PROFKIT_ENOMEM;
    }
    return 0;
}

/*
 * Step 4 when nothing was named (no chains): each old frame becomes one
 * frame, the same for both uses (itself, or its FILE+0xOFFSET frame), and
 * no two old frames the same one (frames_distinct). Each stack that a
 * sample, a marker or a child uses then becomes one new stack, the one
 * new_stacks would append, in the same order; a new id is never above the
 * old one and parents come first, so the table is rewritten in place:
 * no second table, no map of the stacks used both ways. Without a depth
 * limit only (it keeps no depths). Returns 0 or PROFKIT_ENOMEM.
 */
static int relabel_stacks(symbolizer *z, const new_frames *nw)
{
    profkit_profile *p = z->p;
    size_t nf = z->nf, n_old = p->n_stacks, n = 1;
    const uint8_t *use = z->use;
    const uint32_t *sids = nw->sids, *sstart = nw->sstart;
    uint32_t *id = malloc((n_old ? n_old : 1) * sizeof(uint32_t));
    if (!id)
        return PROFKIT_ENOMEM;
    profkit_stack *stacks = p->stacks;
    id[0] = 0;
    for (size_t st = 1; st < n_old; st++) {
        uint32_t parent = stacks[st].parent, f = stacks[st].frame;
        id[st] = PROFKIT_NONE;
        if (use[st] && parent < st && f < nf && id[parent] != PROFKIT_NONE) {
            /* either use's slot: both hold the one new frame */
            size_t slot = 2 * (size_t)f + !(use[st] & LEAF);
            stacks[n].parent = id[parent];
            stacks[n].frame = sids[sstart[slot]];
            id[st] = (uint32_t)n++;
        }
    }
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t st = p->sample_stack[r];
        uint32_t x = st == 0 ? 0 : st < n_old && (use[st] & LEAF) ? id[st] : PROFKIT_NONE;
        p->sample_stack[r] = x != PROFKIT_NONE ? x : 0;
    }
    for (size_t c = 0; c < p->n_marker_causes; c++) {
        uint32_t st = p->marker_causes[c].stack;
        uint32_t x = st == 0 ? 0 : st < n_old && (use[st] & LEAF) ? id[st] : PROFKIT_NONE;
        p->marker_causes[c].stack = x != PROFKIT_NONE ? x : 0;
    }
    free(id);
    pk_profile_stacks_rewritten(p, n);
    return pk_profile_compact(p);
}

/*
 * 4. The stacks again, root to leaf, each old frame replaced by its new
 * frames for its use; the samples moved to the new stacks, and the frames
 * no stack uses any more dropped.
 */
static int rebuild_stacks(symbolizer *z)
{
    profkit_profile *p = z->p;
    size_t nf = z->nf, ns = z->ns, n_old = 0;
    new_frames nw = { 0 };
    profkit_stack *old = NULL;
    new_ids m = { NULL, { 0 } };
    const uint8_t *use = z->use;
    int rc = make_new_frames(z, &nw);
    int append = rc ? rc : frames_distinct(z, &nw);
    if (append < 0) {
        rc = append;
        goto done;
    }
    if (append && z->n_links == 0 && !p->limit_depth && p->n_stacks <= ns) {
        rc = relabel_stacks(z, &nw);
        goto done;
    }
    rc = PROFKIT_ENOMEM;
    if (!(m.id = malloc((ns ? ns : 1) * sizeof(uint32_t))))
        goto done;
    if (pk_profile_take_stacks(p, &old, &n_old) != 0 || n_old > ns)
        goto done;
    if (new_stacks(p, old, n_old, use, nf, &nw, append, &m) != 0)
        goto done;
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t st = p->sample_stack[r], x = st < n_old ? new_leaf_of(&m, use, st) : PROFKIT_NONE;
        p->sample_stack[r] = x != PROFKIT_NONE ? x : 0;
    }
    for (size_t c = 0; c < p->n_marker_causes; c++) {
        uint32_t st = p->marker_causes[c].stack;
        uint32_t x = st < n_old ? new_leaf_of(&m, use, st) : PROFKIT_NONE;
        p->marker_causes[c].stack = x != PROFKIT_NONE ? x : 0;
    }
    if (pk_profile_compact(p) != 0)
        goto done;
    rc = 0;
done:
    new_frames_free(&nw);
    free(old);
    free(m.id);
    pk_map64_free(&m.leaf2);
    return rc;
}

/* What symbolization did, as data in the profile (the info report prints
 * it): counts, the files used, the mappings no file was found for. */
static int summarize(symbolizer *z)
{
    profkit_profile *p = z->p;
    pk_sym_summary *sum = calloc(1, sizeof(*sum));
    if (!sum)
        return PROFKIT_ENOMEM;
    sum->named = z->named;
    sum->wanted = z->wanted;
    sum->chain_frames = z->n_links;
    /* Each path once: mappings of one file (the segments of a library, or
     * one path mapped many times) name it once (`listed`: the path string
     * ids named so far; a list of every mapping would grow as their number
     * times the path's length). Anonymous mappings are each their own. */
    pk_map64 listed = { 0 };
    size_t n = 0;
    for (size_t m = 0; m < p->n_mappings; m++) {
        if (!(z->no_name[m] & 1))
            continue;
        uint32_t path = p->mappings[m].path;
        int r = path && pk_strtab_len(&p->strings, path) ? pk_map64_put(&listed, path, 1) : 0;
        if (r < 0) {
            pk_map64_free(&listed);
            pk_sym_summary_free(sum);
            return PROFKIT_ENOMEM;
        }
        if (r == 1)
            z->no_name[m] |= 4; /* its path is listed by an earlier mapping */
        else
            n++;
    }
    pk_map64_free(&listed);
    if (pk_sym_finder_files(z->s.finder, &sum->files, &sum->n_files) != 0 ||
        !(sum->no_file = calloc(n ? n : 1, sizeof(char *)))) {
        pk_sym_summary_free(sum);
        return PROFKIT_ENOMEM;
    }
    for (size_t m = 0; m < p->n_mappings; m++) {
        if ((z->no_name[m] & 5) != 1)
            continue;
        /* a mapping without a file name has nothing to look for: say which
         * one and how to name its file (the command prints the flag) */
        const char *path = pk_str(p, p->mappings[m].path);
        char what[160];
        if (!path[0])
            snprintf(what, sizeof(what),
                     "the mapping at 0x%" PRIx64 " without a file name (profkit_symbolize_options.binaries names it)",
                     p->mappings[m].start);
        if (!(sum->no_file[sum->n_no_file] = strdup(path[0] ? path : what))) {
            pk_sym_summary_free(sum);
            return PROFKIT_ENOMEM;
        }
        sum->n_no_file++;
    }
    pk_sym_summary_free(p->symbols);
    p->symbols = sum;
    return 0;
}

int profkit_profile_symbolize(profkit_profile *p, const profkit_symbolize_options *o,
                              profkit_error *err)
{
    symbolizer z;
    memset(&z, 0, sizeof(z));
    z.p = p;
    z.s = (sctx){ p, o, { 0 }, NULL };
    z.nf = p->n_frames;
    z.ns = p->n_stacks;
    int rc = (z.s.finder = pk_sym_finder_new(p, o)) ? 0 : PROFKIT_ENOMEM;
    if (!rc)
        rc = collect_uses(&z);
    if (!rc)
        rc = find_files(&z);
    if (!rc && z.wanted) { /* nothing to name: the stacks stay as they are */
        rc = look_up(&z);
        if (!rc)
            rc = rebuild_stacks(&z);
        if (!rc)
            rc = summarize(&z);
    }
    size_t named = z.named;
    symbolizer_free(&z);
    if (rc)
        return pk_error_set(err, rc, NULL, -1, "out of memory while symbolizing");
    return (int)(named > INT32_MAX ? INT32_MAX : named);
}
