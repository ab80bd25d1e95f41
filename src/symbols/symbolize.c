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
#include "symbols/sym_find.h"
#include "symbols/symbols.h"

#include <inttypes.h>
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

/* Interns FILE+0xOFFSET for a frame with an empty name in mapping m. */
static uint32_t unnamed_label(profkit_profile *p, const profkit_frame *fr, char *buf, size_t n)
{
    const profkit_mapping *m = &p->mappings[fr->mapping];
    const char *path = pk_str(p, m->path);
    const char *base = strrchr(path, '/');
    int w = snprintf(buf, n, "%s+0x%" PRIx64, base && base[1] ? base + 1 : path,
                     fr->address - m->start + m->offset);
    return w < 0 ? PROFKIT_NONE : profkit_string_intern(p, buf, (size_t)w < n ? (size_t)w : n - 1);
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

/* What symbolization did, as `profkit info` prints it. */
static char *summary(const profkit_profile *p, sym_finder *fd, size_t named, size_t wanted,
                     size_t chain_frames, const uint8_t *unnamed_mapping)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "%zu of %zu address frames named (%zu frames with inlined calls)\n", named, wanted,
            chain_frames);
    pk_sym_finder_report(fd, f);
    int any = 0;
    for (size_t m = 0; m < p->n_mappings; m++) {
        if (!(unnamed_mapping[m] & 1))
            continue;
        const char *path = pk_str(p, p->mappings[m].path);
        fputs(any ? ", " : "  no file for: ", f);
        if (path[0])
            fputs(path, f);
        else /* nothing to look for: say which mapping and how to name its file */
            fprintf(f, "the mapping at 0x%" PRIx64 " without a file name (--binary names it)",
                    p->mappings[m].start);
        any = 1;
    }
    if (any)
        fputc('\n', f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int profkit_profile_symbolize(profkit_profile *p, const profkit_symbolize_options *o,
                              profkit_error *err)
{
    int rc = PROFKIT_ENOMEM;
    size_t nf = p->n_frames, ns = p->n_stacks, named = 0, wanted = 0, chain_frames = 0;
    uint8_t *role = calloc(nf + 1, 1), *use = calloc(ns + 1, 1);
    uint8_t *unnamed_mapping = calloc(p->n_mappings + 1, 1);
    uint32_t *fmap = malloc((nf + 1) * sizeof(uint32_t));
    uint32_t *ffile = malloc((nf + 1) * sizeof(uint32_t));
    uint32_t *sorted_maps = pk_mappings_by_start(p);
    /* chain of frame f used as kind k: links[cstart[2f+k] .. +clen[2f+k]) */
    uint32_t *cstart = malloc((2 * nf + 1) * sizeof(uint32_t));
    uint8_t *clen = calloc(2 * nf + 1, 1);
    request *req = NULL;
    link *links = NULL;
    size_t n_req = 0, cap_req = 0, n_links = 0, cap_links = 0;
    profkit_stack *old = NULL;
    size_t n_old = 0;
    uint32_t *new_leaf = NULL, *new_caller = NULL;
    /* the new frames of use k of frame f: sids[sstart[2f+k] .. +slen[2f+k]) */
    uint32_t *sstart = NULL, *sids = NULL, *owner = NULL;
    uint8_t *slen = NULL;
    size_t n_sids = 0, cap_sids = 0;
    sctx s = { p, o, { 0 }, NULL };
    if (!role || !use || !unnamed_mapping || !fmap || !ffile || !sorted_maps || !cstart || !clen)
        goto done;
    if (!(s.finder = pk_sym_finder_new(p, o)))
        goto done;

    /* 1. Which frames, used how. */
    for (size_t st = 1; st < ns; st++)
        if (p->stacks[st].parent != 0 && p->stacks[st].parent < ns)
            use[p->stacks[st].parent] |= CALLER;
    for (size_t r = 0; r < p->n_samples; r++)
        if (p->sample_stack[r] != 0 && p->sample_stack[r] < ns)
            use[p->sample_stack[r]] |= LEAF;
    for (size_t st = 1; st < ns; st++)
        if (p->stacks[st].frame < nf)
            role[p->stacks[st].frame] |= use[st];

    /* 2. The file for each frame's mapping; the lookups wanted. */
    for (size_t f = 0; f < nf; f++) {
        profkit_frame *fr = &p->frames[f];
        fmap[f] = ffile[f] = PROFKIT_NONE;
        if (!fr->address || !role[f] || !is_unsymbolized(p, fr))
            continue;
        uint32_t m = fr->mapping < p->n_mappings ? fr->mapping
                     : p->mappings_settled     ? PROFKIT_NONE
                                               : pk_mapping_at(p, sorted_maps, fr->address);
        fmap[f] = m;
        wanted++;
        uint32_t file = pk_sym_finder_file(s.finder, m);
        if (file == PROFKIT_NONE) {
            if (m != PROFKIT_NONE)
                unnamed_mapping[m] = 1;
            continue;
        }
        ffile[f] = file;
        sym_binary *b = pk_sym_finder_binary(s.finder, file);
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
            if (PK_VEC_RESERVE(req, n_req, cap_req, 1) != 0)
                goto done;
            req[n_req++] = (request){ file, (uint32_t)f, vaddr, kind };
        }
    }

    if (wanted == 0) { /* nothing to name: leave the stacks alone */
        rc = 0;
        goto done;
    }

    /* 3. Each distinct (file, address) once, in order. */
    if (n_req)
        qsort(req, n_req, sizeof(request), request_cmp);
    uint8_t *was_named = calloc(nf + 1, 1);
    if (!was_named)
        goto done;
    for (size_t i = 0; i < n_req;) {
        size_t j = i;
        while (j < n_req && req[j].file == req[i].file && req[j].vaddr == req[i].vaddr)
            j++;
        sym_frame sf[MAX_CHAIN];
        sym_binary *b = pk_sym_finder_binary(s.finder, req[i].file);
        size_t n = pk_sym_binary_lookup(b, req[i].vaddr, sf, MAX_CHAIN);
        if (n) {
            uint32_t m = fmap[req[i].frame];
            uint32_t module = m != PROFKIT_NONE && p->mappings[m].path ? p->mappings[m].path
                              : profkit_string_intern_cstr(p, pk_sym_finder_path(s.finder, req[i].file));
            if (module == PROFKIT_NONE || PK_VEC_RESERVE(links, n_links, cap_links, n) != 0 ||
                make_links(&s, sf, n, module, links + n_links) < 0) {
                free(was_named);
                goto done;
            }
            pk_sym_finder_count(s.finder, req[i].file, j - i);
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
    for (size_t f = 0; f < nf; f++) {
        named += was_named[f];
        if (fmap[f] != PROFKIT_NONE && role[f] && !was_named[f] && ffile[f] != PROFKIT_NONE)
            unnamed_mapping[fmap[f]] |= 2;
    }
    free(was_named);
    /* Names are interned in the profile now: the files' DWARF and symbol
     * tables go before the stacks are rebuilt, so both are not held at
     * once (the peak memory of a large profile). The name cache's keys
     * point into them: empty it. */
    pk_sym_finder_release(s.finder);
    free(s.names.keys);
    free(s.names.name);
    free(s.names.system);
    memset(&s.names, 0, sizeof(s.names));

    /* 4. Stacks again, root to leaf. First the new frames of each
     * (frame, use): its chain's frames, or itself (or its FILE+0xOFFSET
     * frame when nothing named it), made once, not once per stack. */
    if (!(sstart = malloc((2 * nf + 1) * sizeof(uint32_t))) || !(slen = calloc(2 * nf + 1, 1)))
        goto done;
    for (size_t f = 0; f < nf; f++) {
        if (!role[f])
            continue;
        uint32_t plain = PROFKIT_NONE; /* the frame as one frame: the same for both uses */
        for (uint8_t kind = LEAF; kind <= CALLER; kind <<= 1) {
            if (!(role[f] & kind))
                continue;
            size_t slot = 2 * f + (kind == CALLER);
            uint32_t n = clen[slot] ? clen[slot] : 1;
            if (PK_VEC_RESERVE(sids, n_sids, cap_sids, n) != 0)
                goto done;
            sstart[slot] = (uint32_t)n_sids;
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
                    if ((sids[n_sids++] = pk_frame_add(p, &nfr)) == PROFKIT_NONE)
                        goto done;
                }
                continue;
            }
            if (plain == PROFKIT_NONE) {
                plain = (uint32_t)f;
                if (fmap[f] != PROFKIT_NONE && p->mappings[fmap[f]].path && is_unsymbolized(p, &p->frames[f])) {
                    /* Unnamed: FILE+0xOFFSET through an empty name. */
                    profkit_function fn;
                    memset(&fn, 0, sizeof(fn));
                    fn.module = p->mappings[fmap[f]].path;
                    profkit_frame nfr = p->frames[f];
                    nfr.mapping = fmap[f];
                    /* One function per address, as readers give them (writers
                     * that list functions label a nameless one by a frame of
                     * it); its system name is that label. */
                    char label[600];
                    nfr.function = PROFKIT_NONE;
                    if ((fn.system_name = unnamed_label(p, &nfr, label, sizeof(label))) == PROFKIT_NONE ||
                        (nfr.function = pk_function_add(p, &fn)) == PROFKIT_NONE ||
                        (plain = pk_frame_add(p, &nfr)) == PROFKIT_NONE)
                        goto done;
                }
            }
            sids[n_sids++] = plain;
        }
    }
    /* When no new frame comes from two old frames, distinct old stacks
     * become distinct new ones: they are appended without a lookup (the
     * index catches up on the next lookup). Else every node is interned. */
    int append = 1;
    if (!(owner = calloc(p->n_frames + 1, sizeof(uint32_t))))
        goto done;
    for (size_t f = 0; f < nf && append; f++)
        for (size_t slot = 2 * f; slot < 2 * f + 2 && append; slot++)
            for (uint32_t k = 0; k < slen[slot]; k++) {
                uint32_t id = sids[sstart[slot] + k];
                if (owner[id] && owner[id] != f + 1) {
                    append = 0;
                    break;
                }
                owner[id] = (uint32_t)f + 1;
            }
    if (!(new_leaf = malloc(ns * sizeof(uint32_t))) || !(new_caller = malloc(ns * sizeof(uint32_t))))
        goto done;
    if (pk_profile_take_stacks(p, &old, &n_old) != 0)
        goto done;
    new_leaf[0] = new_caller[0] = 0;
    for (size_t st = 1; st < n_old; st++) {
        new_leaf[st] = new_caller[st] = PROFKIT_NONE;
        uint32_t parent = old[st].parent, f = old[st].frame;
        if (!use[st] || parent >= st || f >= nf)
            continue;
        uint32_t base = new_caller[parent];
        if (base == PROFKIT_NONE)
            continue;
        /* a stack used both ways: the common prefix of its two chains once */
        const uint32_t *a = use[st] & LEAF ? sids + sstart[2 * (size_t)f] : NULL;
        const uint32_t *c = use[st] & CALLER ? sids + sstart[2 * (size_t)f + 1] : NULL;
        uint32_t na = a ? slen[2 * (size_t)f] : 0, nc = c ? slen[2 * (size_t)f + 1] : 0, cp = 0;
        while (a && c && cp < na && cp < nc && a[cp] == c[cp])
            cp++;
        uint32_t at = base;
        for (uint32_t k = 0; k < cp && at != PROFKIT_NONE; k++)
            at = append ? pk_stack_append(p, at, a[k]) : pk_stack_intern(p, at, a[k]);
        uint32_t shared = at;
        for (uint32_t k = cp; k < na && at != PROFKIT_NONE; k++)
            at = append ? pk_stack_append(p, at, a[k]) : pk_stack_intern(p, at, a[k]);
        if (a)
            new_leaf[st] = at;
        at = shared;
        for (uint32_t k = cp; k < nc && at != PROFKIT_NONE; k++)
            at = append ? pk_stack_append(p, at, c[k]) : pk_stack_intern(p, at, c[k]);
        if (c)
            new_caller[st] = at;
        if (at == PROFKIT_NONE || (a && new_leaf[st] == PROFKIT_NONE))
            goto done;
    }
    for (size_t r = 0; r < p->n_samples; r++) {
        uint32_t st = p->sample_stack[r];
        p->sample_stack[r] = st < n_old && new_leaf[st] != PROFKIT_NONE ? new_leaf[st] : 0;
    }
    chain_frames = n_links;
    if (pk_profile_compact(p) != 0)
        goto done;
    free(p->symbols_report);
    p->symbols_report = summary(p, s.finder, named, wanted, chain_frames, unnamed_mapping);
    rc = 0;
done:
    pk_sym_finder_free(s.finder);
    free(s.names.keys);
    free(s.names.name);
    free(s.names.system);
    free(role);
    free(use);
    free(unnamed_mapping);
    free(fmap);
    free(ffile);
    free(sorted_maps);
    free(cstart);
    free(clen);
    free(req);
    free(links);
    free(old);
    free(new_leaf);
    free(new_caller);
    free(sstart);
    free(slen);
    free(sids);
    free(owner);
    if (rc)
        return pk_error_set(err, rc, NULL, -1, "out of memory while symbolizing");
    return (int)(named > INT32_MAX ? INT32_MAX : named);
}
