/* profile.c: creating a profile, hash-consed tables, samples, metadata. */
#include "model/model.h"
#include "model/counter_iter.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

profkit_profile *profkit_profile_new(void)
{
    profkit_profile *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    if (pk_strtab_init(&p->strings) != 0 ||
        PK_VEC_RESERVE(p->stacks, 0, p->cap_stacks, 1) != 0) {
        profkit_profile_free(p);
        return NULL;
    }
    p->stacks[0].parent = 0;
    p->stacks[0].frame = PROFKIT_NONE;
    p->n_stacks = 1;
    p->stacks_indexed = 1;
    return p;
}

void profkit_profile_free(profkit_profile *p)
{
    if (!p)
        return;
    pk_strtab_free(&p->strings);
    free(p->functions);
    pk_idset_free(&p->function_set);
    free(p->frames);
    pk_idset_free(&p->frame_set);
    free(p->stacks);
    pk_idset_free(&p->stack_set);
    free(p->stack_depth);
    free(p->value_types);
    free(p->sample_stack);
    free(p->sample_thread);
    free(p->sample_time);
    free(p->sample_values);
    free(p->sample_labels);
    free(p->sample_cpu);
    free(p->paused);
    free(p->labels);
    free(p->labelsets);
    pk_idset_free(&p->labelset_set);
    pk_idset_free(&p->sample_set);
    pk_idset_free(&p->value_type_set);
    pk_idset_free(&p->thread_set);
    free(p->threads);
    free(p->mappings);
    free(p->metadata);
    free(p->markers);
    free(p->marker_causes);
    free(p->counters);
    free(p->counter_samples);
    pk_mem_ops_free(p->mem_ops);
    free(p->categories);
    free(p->subcategories);
    free(p->whole_totals);
    pk_sym_summary_free(p->symbols);
    free(p);
}

void pk_sym_summary_free(pk_sym_summary *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_files; i++)
        free(s->files[i].path);
    for (size_t i = 0; i < s->n_no_file; i++)
        free(s->no_file[i]);
    free(s->files);
    free(s->no_file);
    free(s);
}

const char *profkit_string(const profkit_profile *p, uint32_t id) { return pk_str(p, id); }

uint32_t profkit_string_intern(profkit_profile *p, const char *s, size_t len)
{
    return pk_strtab_intern(&p->strings, s ? s : "", s ? len : 0);
}

uint32_t profkit_string_intern_cstr(profkit_profile *p, const char *s)
{
    return profkit_string_intern(p, s, s ? strlen(s) : 0);
}

/* ---- hash-consed rows: compare the whole (padding-free) struct ---- */

struct row_ctx {
    const void *rows;
    size_t size;
};

static int row_eq(const void *ctx, uint32_t id, const void *key)
{
    const struct row_ctx *c = ctx;
    return memcmp((const char *)c->rows + (size_t)id * c->size, key, c->size) == 0;
}

/* Finds `row` (of hash h: pk_hash_bytes(row, size, 0x51ed)) in the table or
 * appends it. Returns the id or PROFKIT_NONE. */
static uint32_t intern_row_hashed(void **rows, size_t *n, size_t *cap, pk_idset *set,
                                  const void *row, size_t size, uint64_t h)
{
    struct row_ctx ctx = { *rows, size };
    size_t at;
    uint32_t id = pk_idset_find_at(set, h, row_eq, &ctx, row, &at);
    if (id != PROFKIT_NONE)
        return id;
    if (*n >= PROFKIT_NONE - 1 || pk_grow(rows, cap, *n + 1, size) != 0)
        return PROFKIT_NONE;
    id = (uint32_t)*n;
    if (pk_idset_insert_at(set, h, id, at) != 0) /* the slot the lookup ended on */
        return PROFKIT_NONE;
    memcpy((char *)*rows + (size_t)id * size, row, size);
    (*n)++;
    return id;
}

uint64_t pk_function_hash(const profkit_function *f) { return pk_hash_bytes(f, sizeof(*f), 0x51ed); }

void pk_function_prefetch(const profkit_profile *p, uint64_t hash)
{
    pk_idset_prefetch(&p->function_set, hash);
}

uint32_t pk_function_add_hashed(profkit_profile *p, const profkit_function *f, uint64_t hash)
{
    /* rows not indexed yet (pk_profile_compact leaves them to the next add) */
    for (; p->functions_indexed < p->n_functions; p->functions_indexed++)
        if (pk_idset_insert(&p->function_set, pk_function_hash(&p->functions[p->functions_indexed]),
                            (uint32_t)p->functions_indexed) != 0)
            return PROFKIT_NONE;
    uint32_t id = intern_row_hashed((void **)&p->functions, &p->n_functions, &p->cap_functions,
                                    &p->function_set, f, sizeof(*f), hash);
    if (id != PROFKIT_NONE)
        p->functions_indexed = p->n_functions;
    return id;
}

uint32_t pk_function_add(profkit_profile *p, const profkit_function *f)
{
    return pk_function_add_hashed(p, f, pk_function_hash(f));
}

uint32_t pk_function_add_named(profkit_profile *p, const char *name, const char *file,
                                    const char *module, uint32_t start_line)
{
    profkit_function f;
    memset(&f, 0, sizeof(f));
    f.name = profkit_string_intern_cstr(p, name);
    f.system_name = f.name;
    f.file = profkit_string_intern_cstr(p, file);
    f.module = profkit_string_intern_cstr(p, module);
    f.start_line = start_line;
    if (f.name == PROFKIT_NONE || f.file == PROFKIT_NONE || f.module == PROFKIT_NONE)
        return PROFKIT_NONE;
    return pk_function_add(p, &f);
}

static inline uint64_t frame_hash(const profkit_frame *f)
{
    return pk_hash_bytes(f, sizeof(*f), 0x51ed);
}

uint64_t pk_frame_hash(const profkit_frame *f) { return frame_hash(f); }

void pk_frame_prefetch(const profkit_profile *p, uint64_t hash)
{
    pk_idset_prefetch(&p->frame_set, hash);
}

/* Indexes the frames pk_frame_append added since the last lookup. */
static int frames_catch_up(profkit_profile *p)
{
    for (; p->frames_indexed < p->n_frames; p->frames_indexed++)
        if (pk_idset_insert(&p->frame_set, frame_hash(&p->frames[p->frames_indexed]),
                                 (uint32_t)p->frames_indexed) != 0)
            return PROFKIT_ENOMEM;
    return 0;
}

uint32_t pk_frame_add_hashed(profkit_profile *p, const profkit_frame *f, uint64_t hash)
{
    if (frames_catch_up(p) != 0)
        return PROFKIT_NONE;
    uint32_t id = intern_row_hashed((void **)&p->frames, &p->n_frames, &p->cap_frames,
                                    &p->frame_set, f, sizeof(*f), hash);
    if (id != PROFKIT_NONE)
        p->frames_indexed = p->n_frames;
    return id;
}

uint32_t pk_frame_add(profkit_profile *p, const profkit_frame *f)
{
    return pk_frame_add_hashed(p, f, frame_hash(f));
}

uint32_t pk_frame_append(profkit_profile *p, const profkit_frame *f)
{
    if (p->n_frames >= PROFKIT_NONE - 1 ||
        PK_VEC_RESERVE(p->frames, p->n_frames, p->cap_frames, 1) != 0)
        return PROFKIT_NONE;
    p->frames[p->n_frames] = *f;
    return (uint32_t)p->n_frames++;
}

int pk_profile_reindex_frames(profkit_profile *p)
{
    pk_idset_free(&p->frame_set);
    p->frames_indexed = 0;
    return frames_catch_up(p);
}

/* A stack row's hash: its two ids packed in one word, hashed once. */
static inline uint64_t stack_key_hash(uint32_t parent, uint32_t frame)
{
    return pk_hash_u64(((uint64_t)parent << 32) | frame);
}

static inline uint64_t stack_hash(const profkit_stack *s)
{
    return stack_key_hash(s->parent, s->frame);
}

static int stack_eq(const void *ctx, uint32_t id, const void *key)
{
    const profkit_stack *a = &((const profkit_profile *)ctx)->stacks[id], *b = key;
    return a->parent == b->parent && a->frame == b->frame;
}

static uint32_t stack_intern_row(profkit_profile *p, uint32_t parent, uint32_t frame);

int pk_profile_limit(profkit_profile *p, uint32_t max_depth, uint32_t max_threads)
{
    p->limit_threads = max_threads;
    p->limit_hit = 0;
    free(p->stack_depth);
    p->stack_depth = NULL;
    p->cap_stack_depth = 0;
    p->limit_depth = 0;
    if (!max_depth)
        return 0;
    /* the depths of the stacks already there (a parent's id is smaller) */
    if (pk_grow((void **)&p->stack_depth, &p->cap_stack_depth, p->n_stacks,
                     sizeof(uint32_t)) != 0)
        return PROFKIT_ENOMEM;
    p->stack_depth[0] = 0;
    for (size_t s = 1; s < p->n_stacks; s++) {
        uint32_t par = p->stacks[s].parent;
        p->stack_depth[s] = par < s ? p->stack_depth[par] + 1 : 1;
    }
    p->limit_depth = max_depth;
    return 0;
}

/*
 * With a depth limit: the depth a new child of parent would have, or
 * PROFKIT_NONE (and limit_hit) when past the limit or out of memory for
 * the depth array. The array is grown to the stack table's capacity.
 */
static uint32_t child_depth(profkit_profile *p, uint32_t parent)
{
    uint32_t d = parent < p->n_stacks ? p->stack_depth[parent] + 1 : 1;
    if (d > p->limit_depth) {
        p->limit_hit = PROFKIT_LIMIT_DEPTH;
        return PROFKIT_NONE;
    }
    if (p->n_stacks >= p->cap_stack_depth &&
        pk_grow((void **)&p->stack_depth, &p->cap_stack_depth, p->n_stacks + 1,
                     sizeof(uint32_t)) != 0)
        return PROFKIT_NONE;
    return d;
}

uint32_t pk_stack_intern(profkit_profile *p, uint32_t parent, uint32_t frame)
{
    /* Every stack in the table is within the limit, so one past it is new:
     * refused without a lookup. */
    uint32_t d = 0;
    if (p->limit_depth && (d = child_depth(p, parent)) == PROFKIT_NONE)
        return PROFKIT_NONE;
    size_t before = p->n_stacks;
    uint32_t id = stack_intern_row(p, parent, frame);
    if (p->limit_depth && id != PROFKIT_NONE && p->n_stacks > before)
        p->stack_depth[id] = d;
    return id;
}

static uint32_t stack_intern_row(profkit_profile *p, uint32_t parent, uint32_t frame)
{
    /* A child of the row made last, which has none yet, is new: no lookup
     * (on a big table each is a cache miss, one after the other down a
     * chain of new stacks); its index entry is made with the next lookup's. */
    if (parent != 0 && parent == p->stack_childless && (size_t)parent + 1 == p->n_stacks) {
        if (p->n_stacks >= PROFKIT_NONE - 1 ||
            PK_VEC_RESERVE(p->stacks, p->n_stacks, p->cap_stacks, 1) != 0)
            return PROFKIT_NONE;
        p->stacks[p->n_stacks].parent = parent;
        p->stacks[p->n_stacks].frame = frame;
        p->stack_childless = (uint32_t)p->n_stacks;
        return (uint32_t)p->n_stacks++;
    }
    /* The key's hash once, its slot asked for now; the rows added without
     * a lookup since the last one are indexed first, the slots of the
     * first AHEAD of them asked for before any is inserted and then each
     * one's AHEAD rows early, so the misses overlap (the usual run is a
     * few rows long). A new row goes into the free slot the lookup ended
     * on (nothing else is inserted in between). */
    enum { AHEAD = 8 };
    uint64_t h = stack_key_hash(parent, frame);
    pk_idset_prefetch(&p->stack_set, h);
    size_t n = p->n_stacks;
    for (size_t k = p->stacks_indexed; k < n && k < p->stacks_indexed + AHEAD; k++)
        pk_idset_prefetch(&p->stack_set, stack_hash(&p->stacks[k]));
    for (; p->stacks_indexed < n; p->stacks_indexed++) {
        size_t k = p->stacks_indexed;
        if (k + AHEAD < n)
            pk_idset_prefetch(&p->stack_set, stack_hash(&p->stacks[k + AHEAD]));
        if (pk_idset_insert(&p->stack_set, stack_hash(&p->stacks[k]), (uint32_t)k) != 0)
            return PROFKIT_NONE;
    }
    profkit_stack s = { parent, frame };
    size_t at;
    uint32_t id = pk_idset_find_at(&p->stack_set, h, stack_eq, p, &s, &at);
    if (id != PROFKIT_NONE)
        return id;
    if (n >= PROFKIT_NONE - 1 || PK_VEC_RESERVE(p->stacks, n, p->cap_stacks, 1) != 0 ||
        pk_idset_insert_at(&p->stack_set, h, (uint32_t)n, at) != 0)
        return PROFKIT_NONE;
    p->stacks[n] = s;
    p->n_stacks = n + 1;
    p->stacks_indexed = n + 1;
    p->stack_childless = (uint32_t)n;
    return (uint32_t)n;
}

uint32_t pk_stack_append(profkit_profile *p, uint32_t parent, uint32_t frame)
{
    uint32_t d = 0;
    if (p->limit_depth && (d = child_depth(p, parent)) == PROFKIT_NONE)
        return PROFKIT_NONE;
    if (p->limit_depth)
        p->stack_depth[p->n_stacks] = d;
    if (p->n_stacks >= PROFKIT_NONE - 1 ||
        PK_VEC_RESERVE(p->stacks, p->n_stacks, p->cap_stacks, 1) != 0)
        return PROFKIT_NONE;
    p->stack_childless = PROFKIT_NONE; /* it may be anyone's child */
    p->stacks[p->n_stacks].parent = parent;
    p->stacks[p->n_stacks].frame = frame;
    return (uint32_t)p->n_stacks++;
}

uint32_t pk_stack_intern_frames(profkit_profile *p, const uint32_t *frames, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i < n && s != PROFKIT_NONE; i++)
        s = pk_stack_intern(p, s, frames[i]);
    return s;
}

int pk_profile_take_stacks(profkit_profile *p, profkit_stack **old, size_t *n_old)
{
    profkit_stack *fresh = malloc(sizeof(*fresh));
    if (!fresh)
        return PROFKIT_ENOMEM;
    fresh->parent = 0;
    fresh->frame = PROFKIT_NONE;
    *old = p->stacks;
    *n_old = p->n_stacks;
    p->stacks = fresh;
    p->n_stacks = p->cap_stacks = 1;
    p->stacks_indexed = 1;
    p->stack_childless = PROFKIT_NONE;
    pk_idset_free(&p->stack_set);
    /* Rows are found by (stack, thread): index them again on the next lookup. */
    pk_idset_free(&p->sample_set);
    p->samples_indexed = 0;
    return 0;
}

void pk_profile_stacks_rewritten(profkit_profile *p, size_t n)
{
    if (n < 1)
        n = 1;
    if (n < p->n_stacks)
        p->n_stacks = n;
    p->stacks_indexed = 1;
    p->stack_childless = PROFKIT_NONE;
    pk_idset_free(&p->stack_set);
    /* Rows are found by (stack, thread): index them again on the next lookup. */
    pk_idset_free(&p->sample_set);
    p->samples_indexed = 0;
}

int pk_profile_compact(profkit_profile *p)
{
    uint32_t *fmap = malloc((p->n_frames + 1) * sizeof(uint32_t));
    uint32_t *umap = malloc((p->n_functions + 1) * sizeof(uint32_t));
    if (!fmap || !umap) {
        free(fmap);
        free(umap);
        return PROFKIT_ENOMEM;
    }
    for (size_t f = 0; f < p->n_frames; f++)
        fmap[f] = PROFKIT_NONE;
    for (size_t u = 0; u < p->n_functions; u++)
        umap[u] = PROFKIT_NONE;
    for (size_t s = 1; s < p->n_stacks; s++)
        if (p->stacks[s].frame < p->n_frames)
            fmap[p->stacks[s].frame] = 0;
    size_t nf = 0, nu = 0;
    for (size_t f = 0; f < p->n_frames; f++) {
        if (fmap[f] == PROFKIT_NONE)
            continue;
        fmap[f] = (uint32_t)nf;
        p->frames[nf++] = p->frames[f];
    }
    for (size_t f = 0; f < nf; f++)
        if (p->frames[f].function < p->n_functions)
            umap[p->frames[f].function] = 0;
    for (size_t u = 0; u < p->n_functions; u++) {
        if (umap[u] == PROFKIT_NONE)
            continue;
        umap[u] = (uint32_t)nu;
        p->functions[nu++] = p->functions[u];
    }
    for (size_t f = 0; f < nf; f++)
        if (p->frames[f].function < p->n_functions)
            p->frames[f].function = umap[p->frames[f].function];
    for (size_t s = 1; s < p->n_stacks; s++)
        if (p->stacks[s].frame < p->n_frames)
            p->stacks[s].frame = fmap[p->stacks[s].frame];
    p->n_frames = nf;
    p->n_functions = nu;
    free(fmap);
    free(umap);
    /* Every index hashes rows by content or id: each is built again by the
     * next lookup that needs it (a report never looks one up). */
    pk_idset_free(&p->function_set);
    p->functions_indexed = 0;
    pk_idset_free(&p->frame_set);
    p->frames_indexed = 0;
    pk_idset_free(&p->stack_set);
    p->stacks_indexed = 1;
    return 0;
}

size_t pk_stack_depth(const profkit_profile *p, uint32_t stack)
{
    size_t d = 0;
    while (stack != 0 && stack < p->n_stacks) {
        d++;
        stack = p->stacks[stack].parent;
    }
    return d;
}

/* ---- value types and samples ---- */

static int vt_eq(const void *ctx, uint32_t id, const void *key)
{
    const profkit_profile *p = ctx;
    const uint32_t *k = key;
    return p->value_types[id].type == k[0] && p->value_types[id].unit == k[1];
}

static uint64_t vt_hash(uint32_t t, uint32_t u) { return pk_hash_u64(((uint64_t)t << 32) | u); }

uint32_t pk_value_type_add(profkit_profile *p, const char *type, const char *unit)
{
    uint32_t t = profkit_string_intern_cstr(p, type);
    uint32_t u = profkit_string_intern_cstr(p, unit);
    if (t == PROFKIT_NONE || u == PROFKIT_NONE)
        return PROFKIT_NONE;
    /* an index, not a scan: a file may declare hundreds of thousands */
    if (p->value_types_indexed > p->n_value_types) {
        pk_idset_free(&p->value_type_set);
        p->value_types_indexed = 0;
    }
    for (; p->value_types_indexed < p->n_value_types; p->value_types_indexed++) {
        const profkit_value_type *v = &p->value_types[p->value_types_indexed];
        uint32_t k[2] = { v->type, v->unit };
        uint64_t h = vt_hash(v->type, v->unit);
        if (pk_idset_find(&p->value_type_set, h, vt_eq, p, k) == PROFKIT_NONE &&
            pk_idset_insert(&p->value_type_set, h, (uint32_t)p->value_types_indexed) != 0)
            return PROFKIT_NONE;
    }
    {
        uint32_t k[2] = { t, u };
        uint32_t id = pk_idset_find(&p->value_type_set, vt_hash(t, u), vt_eq, p, k);
        if (id != PROFKIT_NONE)
            return id;
    }
    if (PK_VEC_RESERVE(p->value_types, p->n_value_types, p->cap_value_types, 1) != 0)
        return PROFKIT_NONE;
    size_t old = p->n_value_types;
    if (p->n_samples > 0) {
        size_t cells;
        if (pk_mul_size(p->cap_samples, old + 1, &cells) != 0 ||
            pk_mul_size(cells, sizeof(int64_t), &cells) != 0)
            return PROFKIT_NONE;
        int64_t *nv = calloc(1, cells);
        if (!nv)
            return PROFKIT_NONE;
        for (size_t r = 0; r < p->n_samples; r++)
            memcpy(nv + r * (old + 1), p->sample_values + r * old, old * sizeof(int64_t));
        free(p->sample_values);
        p->sample_values = nv;
    } else {
        free(p->sample_values);
        p->sample_values = NULL;
        p->cap_samples = 0;
        free(p->sample_stack);
        free(p->sample_thread);
        free(p->sample_time);
        free(p->sample_labels);
        free(p->sample_cpu);
        p->sample_cpu = NULL;
        p->sample_stack = p->sample_thread = p->sample_labels = NULL;
        p->sample_time = NULL;
    }
    p->value_types[old].type = t;
    p->value_types[old].unit = u;
    p->n_value_types = old + 1;
    return (uint32_t)old;
}

static int samples_reserve(profkit_profile *p, size_t extra)
{
    size_t need = p->n_samples + extra;
    if (need <= p->cap_samples)
        return 0;
    size_t ncap = p->cap_samples ? p->cap_samples : 64;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return PROFKIT_ENOMEM;
        ncap *= 2;
    }
    size_t nv = p->n_value_types ? p->n_value_types : 1, cells, bytes;
    if (pk_mul_size(ncap, nv, &cells) != 0 || pk_mul_size(cells, 8, &bytes) != 0 ||
        pk_mul_size(ncap, 8, &cells) != 0)
        return PROFKIT_ENOMEM;
    void *a = realloc(p->sample_stack, ncap * sizeof(uint32_t));
    if (!a)
        return PROFKIT_ENOMEM;
    p->sample_stack = a;
    a = realloc(p->sample_thread, ncap * sizeof(uint32_t));
    if (!a)
        return PROFKIT_ENOMEM;
    p->sample_thread = a;
    a = realloc(p->sample_time, ncap * sizeof(int64_t));
    if (!a)
        return PROFKIT_ENOMEM;
    p->sample_time = a;
    a = realloc(p->sample_values, bytes);
    if (!a)
        return PROFKIT_ENOMEM;
    p->sample_values = a;
    if (p->sample_labels) {
        a = realloc(p->sample_labels, ncap * sizeof(uint32_t));
        if (!a)
            return PROFKIT_ENOMEM;
        p->sample_labels = a;
    }
    if (p->sample_cpu) {
        a = realloc(p->sample_cpu, ncap * sizeof(int64_t));
        if (!a)
            return PROFKIT_ENOMEM;
        p->sample_cpu = a;
    }
    p->cap_samples = ncap;
    return 0;
}

int pk_paused_add(profkit_profile *p, uint32_t range, int64_t pid)
{
    if (PK_VEC_RESERVE(p->paused, p->n_paused, p->cap_paused, 1) != 0)
        return PROFKIT_ENOMEM;
    p->paused[p->n_paused].range = range;
    p->paused[p->n_paused].pid = pid;
    p->n_paused++;
    return 0;
}

int pk_sample_set_cpu(profkit_profile *p, size_t r, int64_t delta)
{
    if (r >= p->n_samples)
        return 0;
    if (!p->sample_cpu) {
        /* made when the first row has one: until then no row pays */
        size_t cap = p->cap_samples ? p->cap_samples : 1;
        p->sample_cpu = malloc(cap * sizeof(int64_t));
        if (!p->sample_cpu)
            return PROFKIT_ENOMEM;
        for (size_t k = 0; k < p->n_samples; k++)
            p->sample_cpu[k] = PK_NO_CPU;
    }
    p->sample_cpu[r] = delta;
    return 0;
}

struct sample_key {
    uint32_t stack, thread, labels;
};

static int sample_eq(const void *ctx, uint32_t id, const void *key)
{
    const profkit_profile *p = ctx;
    const struct sample_key *k = key;
    return p->sample_stack[id] == k->stack && p->sample_thread[id] == k->thread &&
           p->sample_time[id] == PROFKIT_NO_TIME && pk_sample_labels(p, id) == k->labels;
}

/* The per-row label array, made when the first row with a set other than
 * 0 comes: until then no row pays for labels. */
static int labels_column(profkit_profile *p)
{
    size_t cap = p->cap_samples ? p->cap_samples : 1;
    p->sample_labels = calloc(cap, sizeof(uint32_t));
    return p->sample_labels ? 0 : PROFKIT_ENOMEM;
}

static int append_row(profkit_profile *p, uint32_t stack, uint32_t thread, int64_t time,
                      uint32_t labels, const int64_t *values)
{
    if (p->n_samples >= PROFKIT_NONE - 1 || samples_reserve(p, 1) != 0)
        return PROFKIT_ENOMEM;
    if (labels && !p->sample_labels && labels_column(p) != 0)
        return PROFKIT_ENOMEM;
    size_t r = p->n_samples++;
    p->sample_stack[r] = stack;
    p->sample_thread[r] = thread;
    p->sample_time[r] = time;
    if (p->sample_labels)
        p->sample_labels[r] = labels;
    if (p->sample_cpu)
        p->sample_cpu[r] = PK_NO_CPU;
    size_t nv = p->n_value_types;
    for (size_t v = 0; v < nv; v++)
        p->sample_values[r * nv + v] = values ? values[v] : 0;
    return 0;
}

static inline uint64_t sample_hash(uint32_t stack, uint32_t thread, uint32_t labels)
{
    uint64_t h = pk_hash_u64(((uint64_t)stack << 32) | thread);
    return labels ? h ^ pk_hash_u64(0x9e3779b97f4a7c15ull * labels) : h;
}

int pk_sample_add(profkit_profile *p, uint32_t stack, uint32_t thread, const int64_t *values)
{
    return pk_sample_add_labeled(p, stack, thread, 0, values);
}

int pk_sample_add_labeled(profkit_profile *p, uint32_t stack, uint32_t thread, uint32_t labels,
                               const int64_t *values)
{
    /* Index the untimed rows pk_sample_append added since the last
     * lookup (timed rows are never looked up). */
    if (p->samples_indexed > p->n_samples)
        p->samples_indexed = p->n_samples;
    for (; p->samples_indexed < p->n_samples; p->samples_indexed++) {
        size_t r = p->samples_indexed;
        if (p->sample_time[r] == PROFKIT_NO_TIME &&
            pk_idset_insert(&p->sample_set,
                                 sample_hash(p->sample_stack[r], p->sample_thread[r],
                                             pk_sample_labels(p, r)),
                                 (uint32_t)r) != 0)
            return PROFKIT_ENOMEM;
    }
    struct sample_key k = { stack, thread, labels };
    uint64_t h = sample_hash(stack, thread, labels);
    uint32_t row = pk_idset_find(&p->sample_set, h, sample_eq, p, &k);
    size_t nv = p->n_value_types;
    if (row != PROFKIT_NONE) {
        int64_t *dst = p->sample_values + (size_t)row * nv;
        for (size_t v = 0; v < nv; v++)
            dst[v] = pk_sat_add(dst[v], values[v]);
        return 0;
    }
    int rc = append_row(p, stack, thread, PROFKIT_NO_TIME, labels, values);
    if (rc != 0)
        return rc;
    if ((rc = pk_idset_insert(&p->sample_set, h, (uint32_t)(p->n_samples - 1))) != 0)
        return rc;
    p->samples_indexed = p->n_samples;
    return 0;
}

int pk_sample_append(profkit_profile *p, uint32_t stack, uint32_t thread,
                          const int64_t *values)
{
    return append_row(p, stack, thread, PROFKIT_NO_TIME, 0, values);
}

int pk_sample_add_timed(profkit_profile *p, uint32_t stack, uint32_t thread, int64_t time,
                             const int64_t *values)
{
    return append_row(p, stack, thread, time == PROFKIT_NO_TIME ? 0 : time, 0, values);
}

int pk_sample_add_timed_labeled(profkit_profile *p, uint32_t stack, uint32_t thread,
                                     int64_t time, uint32_t labels, const int64_t *values)
{
    return append_row(p, stack, thread, time == PROFKIT_NO_TIME ? 0 : time, labels, values);
}

/* ---- label sets ---- */

struct labelset_key {
    const profkit_label *l;
    size_t n;
};

static int label_same(const profkit_label *a, const profkit_label *b)
{
    return a->key == b->key && a->is_num == b->is_num &&
           (a->is_num ? a->num == b->num && a->unit == b->unit : a->str == b->str);
}

static uint64_t labelset_hash(const profkit_label *l, size_t n)
{
    uint64_t h = 0x7ab31;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = l[i].is_num ? ((uint64_t)l[i].num ^ ((uint64_t)l[i].unit << 40) ^ 1) : l[i].str;
        h = pk_hash_u64(h ^ (((uint64_t)l[i].key << 32) | (v & 0xffffffffu)) ^ (v >> 32) * 31);
    }
    return h;
}

static int labelset_eq(const void *ctx, uint32_t id, const void *key)
{
    const profkit_profile *p = ctx;
    const struct labelset_key *k = key;
    const struct pk_labelset *s = &p->labelsets[id];
    if (s->n != k->n)
        return 0;
    for (size_t i = 0; i < k->n; i++)
        if (!label_same(&p->labels[s->first + i], &k->l[i]))
            return 0;
    return 1;
}

uint32_t pk_labelset_intern(profkit_profile *p, profkit_label *l, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 1; i < n; i++) { /* insertion sort by key: stable, sets are small */
        profkit_label t = l[i];
        size_t j = i;
        for (; j > 0 && l[j - 1].key > t.key; j--)
            l[j] = l[j - 1];
        l[j] = t;
    }
    for (size_t i = 0; i < n; i++) { /* one form per label: hash and compare it whole */
        if (l[i].is_num)
            l[i].str = 0;
        else
            l[i].num = 0, l[i].unit = 0;
    }
    if (p->n_labelsets == 0) { /* set 0, the empty one */
        if (PK_VEC_RESERVE(p->labelsets, 0, p->cap_labelsets, 1) != 0)
            return PROFKIT_NONE;
        p->labelsets[0].first = p->labelsets[0].n = 0;
        p->n_labelsets = 1;
    }
    struct labelset_key k = { l, n };
    uint64_t h = labelset_hash(l, n);
    uint32_t id = pk_idset_find(&p->labelset_set, h, labelset_eq, p, &k);
    if (id != PROFKIT_NONE)
        return id;
    if (p->n_labelsets >= PROFKIT_NONE - 1 || p->n_labels + n >= PROFKIT_NONE ||
        PK_VEC_RESERVE(p->labelsets, p->n_labelsets, p->cap_labelsets, 1) != 0 ||
        PK_VEC_RESERVE(p->labels, p->n_labels, p->cap_labels, n) != 0)
        return PROFKIT_NONE;
    id = (uint32_t)p->n_labelsets;
    if (pk_idset_insert(&p->labelset_set, h, id) != 0)
        return PROFKIT_NONE;
    p->labelsets[id].first = (uint32_t)p->n_labels;
    p->labelsets[id].n = (uint32_t)n;
    memcpy(p->labels + p->n_labels, l, n * sizeof(*l));
    p->n_labels += n;
    p->n_labelsets++;
    return id;
}

const profkit_label *profkit_profile_labelset(const profkit_profile *p, uint32_t set, size_t *n)
{
    if (set == 0 || set >= p->n_labelsets) {
        *n = 0;
        return NULL;
    }
    *n = p->labelsets[set].n;
    return p->labels + p->labelsets[set].first;
}

size_t profkit_profile_n_labelsets(const profkit_profile *p) { return p->n_labelsets; }

int pk_profile_is_timed(const profkit_profile *p)
{
    for (size_t i = 0; i < p->n_samples; i++)
        if (p->sample_time[i] != PROFKIT_NO_TIME)
            return 1;
    return 0;
}

/* ---- threads, mappings, metadata, markers ---- */

uint32_t pk_thread_add(profkit_profile *p, const char *name, const char *process_name,
                            int64_t pid, int64_t tid)
{
    uint32_t n = profkit_string_intern_cstr(p, name);
    uint32_t pn = profkit_string_intern_cstr(p, process_name);
    if (p->limit_threads && p->n_threads >= p->limit_threads) {
        p->limit_hit = PROFKIT_LIMIT_THREADS;
        return PROFKIT_NONE;
    }
    if (n == PROFKIT_NONE || pn == PROFKIT_NONE ||
        PK_VEC_RESERVE(p->threads, p->n_threads, p->cap_threads, 1) != 0)
        return PROFKIT_NONE;
    profkit_thread *t = &p->threads[p->n_threads];
    memset(t, 0, sizeof(*t));
    t->name = n;
    t->process_name = pn;
    t->pid = pid;
    t->tid = tid;
    t->process_start = t->register_time = PROFKIT_NO_TIME;
    return (uint32_t)p->n_threads++;
}

static int thread_eq(const void *ctx, uint32_t id, const void *key)
{
    const profkit_profile *p = ctx;
    const profkit_thread *a = &p->threads[id], *b = key;
    return a->name == b->name && a->process_name == b->process_name && a->pid == b->pid &&
           a->tid == b->tid;
}

static uint64_t thread_hash(const profkit_thread *t)
{
    uint64_t k[3] = { ((uint64_t)t->name << 32) | t->process_name, (uint64_t)t->pid,
                      (uint64_t)t->tid };
    return pk_hash_bytes(k, sizeof k, 0);
}

uint32_t pk_thread_get(profkit_profile *p, const char *name, const char *process_name,
                            int64_t pid, int64_t tid)
{
    /* through an index: a file may hold a million threads (or pprof samples,
     * each with a thread label of its own) */
    if (p->threads_indexed > p->n_threads) {
        pk_idset_free(&p->thread_set);
        p->threads_indexed = 0;
    }
    for (; p->threads_indexed < p->n_threads; p->threads_indexed++) {
        const profkit_thread *t = &p->threads[p->threads_indexed];
        uint64_t h = thread_hash(t);
        if (pk_idset_find(&p->thread_set, h, thread_eq, p, t) == PROFKIT_NONE &&
            pk_idset_insert(&p->thread_set, h, (uint32_t)p->threads_indexed) != 0)
            return PROFKIT_NONE;
    }
    profkit_thread key;
    memset(&key, 0, sizeof key);
    key.name = pk_strtab_find(&p->strings, name ? name : "", name ? strlen(name) : 0);
    key.process_name = pk_strtab_find(&p->strings, process_name ? process_name : "",
                                           process_name ? strlen(process_name) : 0);
    key.pid = pid;
    key.tid = tid;
    if (key.name != PROFKIT_NONE && key.process_name != PROFKIT_NONE) {
        uint32_t id = pk_idset_find(&p->thread_set, thread_hash(&key), thread_eq, p, &key);
        if (id != PROFKIT_NONE)
            return id;
    }
    return pk_thread_add(p, name, process_name, pid, tid);
}

int pk_profile_renumber_threads(profkit_profile *p, const uint32_t *to)
{
    size_t n = p->n_threads;
    if (n < 2)
        return 0;
    profkit_thread *nt = malloc(n * sizeof *nt);
    pk_mem_thread_ops *mo = NULL;
    int64_t *wt = NULL;
    size_t nv = p->whole_values;
    if (p->mem_ops && p->mem_ops->n_th <= n)
        mo = calloc(n, sizeof *mo);
    if (p->whole_totals && p->whole_threads == n)
        wt = malloc((n + 1) * (nv ? nv : 1) * sizeof *wt);
    if (!nt || (p->mem_ops && p->mem_ops->n_th <= n && !mo) ||
        (p->whole_totals && p->whole_threads == n && !wt)) {
        free(nt);
        free(mo);
        free(wt);
        return PROFKIT_ENOMEM;
    }
    for (size_t t = 0; t < n; t++)
        nt[to[t]] = p->threads[t];
    free(p->threads);
    p->threads = nt;
    p->cap_threads = n;
    for (size_t r = 0; r < p->n_samples; r++)
        if (p->sample_thread[r] < n)
            p->sample_thread[r] = to[p->sample_thread[r]];
    for (size_t i = 0; i < p->n_markers; i++)
        if (p->markers[i].thread < n)
            p->markers[i].thread = to[p->markers[i].thread];
    for (size_t i = 0; i < p->n_counters; i++)
        if (p->counters[i].thread < n)
            p->counters[i].thread = to[p->counters[i].thread];
    if (mo) {
        for (size_t t = 0; t < p->mem_ops->n_th; t++)
            mo[to[t]] = p->mem_ops->th[t];
        for (size_t t = 0; t < n; t++)
            mo[t].thread = (uint32_t)t;
        free(p->mem_ops->th);
        p->mem_ops->th = mo;
        p->mem_ops->n_th = n;
    }
    if (wt) {
        for (size_t t = 0; t < n; t++)
            memcpy(wt + to[t] * nv, p->whole_totals + t * nv, nv * sizeof *wt);
        memcpy(wt + n * nv, p->whole_totals + n * nv, nv * sizeof *wt);
        free(p->whole_totals);
        p->whole_totals = wt;
    }
    /* rows are found by (stack, thread) and threads by their identity:
     * both indexes are built again at the next lookup */
    pk_idset_free(&p->thread_set);
    p->threads_indexed = 0;
    pk_idset_free(&p->sample_set);
    p->samples_indexed = 0;
    return 0;
}

uint32_t pk_mapping_add(profkit_profile *p, uint64_t start, uint64_t end, uint64_t offset,
                             const char *path, const char *build_id)
{
    uint32_t ps = profkit_string_intern_cstr(p, path);
    uint32_t b = profkit_string_intern_cstr(p, build_id);
    if (ps == PROFKIT_NONE || b == PROFKIT_NONE ||
        PK_VEC_RESERVE(p->mappings, p->n_mappings, p->cap_mappings, 1) != 0)
        return PROFKIT_NONE;
    profkit_mapping *m = &p->mappings[p->n_mappings];
    memset(m, 0, sizeof(*m));
    m->start = start;
    m->end = end;
    m->offset = offset;
    m->path = ps;
    m->build_id = b;
    return (uint32_t)p->n_mappings++;
}

int pk_meta_add_len(profkit_profile *p, const char *key, const char *value, size_t len)
{
    uint32_t k = profkit_string_intern_cstr(p, key);
    uint32_t v = profkit_string_intern(p, value, len);
    if (k == PROFKIT_NONE || v == PROFKIT_NONE ||
        PK_VEC_RESERVE(p->metadata, p->n_metadata, p->cap_metadata, 1) != 0)
        return PROFKIT_ENOMEM;
    p->metadata[p->n_metadata].key = k;
    p->metadata[p->n_metadata].value = v;
    p->n_metadata++;
    return 0;
}

int pk_meta_add(profkit_profile *p, const char *key, const char *value)
{
    return pk_meta_add_len(p, key, value, value ? strlen(value) : 0);
}

const char *pk_meta_get(const profkit_profile *p, const char *key)
{
    uint32_t k = pk_strtab_find(&p->strings, key, strlen(key));
    if (k == PROFKIT_NONE)
        return NULL;
    for (size_t i = p->n_metadata; i-- > 0;)
        if (p->metadata[i].key == k)
            return pk_str(p, p->metadata[i].value);
    return NULL;
}

uint32_t pk_category_add(profkit_profile *p, uint32_t name, uint32_t color, const uint32_t *subs,
                         size_t n_subs)
{
    if (p->n_categories >= PK_MAX_CATEGORIES || n_subs > UINT32_MAX - p->n_subcategories ||
        PK_VEC_RESERVE(p->categories, p->n_categories, p->cap_categories, 1) != 0 ||
        PK_VEC_RESERVE(p->subcategories, p->n_subcategories, p->cap_subcategories, n_subs) != 0)
        return PROFKIT_NONE;
    profkit_category *c = &p->categories[p->n_categories];
    c->name = name;
    c->color = color;
    c->first_subcategory = (uint32_t)p->n_subcategories;
    c->n_subcategories = (uint32_t)n_subs;
    if (n_subs)
        memcpy(p->subcategories + p->n_subcategories, subs, n_subs * sizeof *subs);
    p->n_subcategories += n_subs;
    return (uint32_t)p->n_categories++;
}

uint32_t pk_default_category(const profkit_profile *p)
{
    for (size_t i = 0; i < p->n_categories; i++)
        if (strcmp(pk_str(p, p->categories[i].color), "grey") == 0)
            return (uint32_t)i + 1;
    return 0;
}

const profkit_category *profkit_profile_categories(const profkit_profile *p, size_t *n)
{
    *n = p ? p->n_categories : 0;
    return p ? p->categories : NULL;
}

const uint32_t *profkit_profile_subcategories(const profkit_profile *p, size_t *n)
{
    *n = p ? p->n_subcategories : 0;
    return p ? p->subcategories : NULL;
}

uint32_t profkit_profile_category_find(const profkit_profile *p, const char *name)
{
    for (size_t i = 0; p && name && i < p->n_categories; i++)
        if (strcmp(pk_str(p, p->categories[i].name), name) == 0)
            return (uint32_t)i;
    return PROFKIT_NONE;
}

int profkit_profile_stack_categories(const profkit_profile *p, uint16_t *out)
{
    if (!p || !out)
        return PROFKIT_EINVAL;
    uint16_t def = (uint16_t)pk_default_category(p);
    /* parents precede children: one pass */
    for (size_t s = 0; s < p->n_stacks; s++) {
        const profkit_stack *st = &p->stacks[s];
        uint16_t c = s && st->frame < p->n_frames ? p->frames[st->frame].category : 0;
        if (c > p->n_categories)
            c = 0;
        if (!c)
            c = s && st->parent && st->parent < s ? out[st->parent] : def;
        out[s] = c;
    }
    return 0;
}

uint32_t pk_marker_cause_add(profkit_profile *p, int64_t time, uint32_t stack)
{
    if (p->n_marker_causes >= UINT32_MAX - 1 ||
        PK_VEC_RESERVE(p->marker_causes, p->n_marker_causes, p->cap_marker_causes, 1) != 0)
        return 0;
    p->marker_causes[p->n_marker_causes] = (profkit_marker_cause){ time, stack, 0 };
    return (uint32_t)++p->n_marker_causes;
}

const profkit_marker_cause *profkit_profile_marker_causes(const profkit_profile *p, size_t *n)
{
    *n = p ? p->n_marker_causes : 0;
    return p ? p->marker_causes : NULL;
}

int pk_marker_add(profkit_profile *p, const profkit_marker *m)
{
    if (PK_VEC_RESERVE(p->markers, p->n_markers, p->cap_markers, 1) != 0)
        return PROFKIT_ENOMEM;
    p->markers[p->n_markers++] = *m;
    return 0;
}

uint32_t profkit_counter_add(profkit_profile *p, const profkit_counter *c)
{
    if (!p || !c || p->n_counters >= UINT32_MAX - 1 ||
        PK_VEC_RESERVE(p->counters, p->n_counters, p->cap_counters, 1) != 0)
        return PROFKIT_NONE;
    profkit_counter *n = &p->counters[p->n_counters];
    *n = *c;
    n->first = p->n_counter_samples;
    n->n = 0;
    return (uint32_t)p->n_counters++;
}

int profkit_counter_sample_add(profkit_profile *p, int64_t time, int64_t count, int64_t number)
{
    if (!p || p->n_counters == 0)
        return PROFKIT_EINVAL;
    if (PK_VEC_RESERVE(p->counter_samples, p->n_counter_samples, p->cap_counter_samples, 1) != 0)
        return PROFKIT_ENOMEM;
    p->counter_samples[p->n_counter_samples++] = (profkit_counter_sample){ time, count, number };
    p->counters[p->n_counters - 1].n++;
    return 0;
}

void pk_profile_set_format(profkit_profile *p, const char *name)
{
    snprintf(p->format, sizeof(p->format), "%s", name ? name : "");
}

/* ---- public read-only views ---- */

#define VIEW(fn, type, field)                                        \
    const type *fn(const profkit_profile *p, size_t *n)              \
    {                                                                \
        *n = p->n_##field;                                           \
        return p->field;                                             \
    }
VIEW(profkit_profile_functions, profkit_function, functions)
VIEW(profkit_profile_frames, profkit_frame, frames)
VIEW(profkit_profile_stacks, profkit_stack, stacks)
VIEW(profkit_profile_value_types, profkit_value_type, value_types)
VIEW(profkit_profile_threads, profkit_thread, threads)
VIEW(profkit_profile_mappings, profkit_mapping, mappings)
VIEW(profkit_profile_metadata, profkit_meta, metadata)
VIEW(profkit_profile_markers, profkit_marker, markers)
VIEW(profkit_profile_counters, profkit_counter, counters)
VIEW(profkit_profile_counter_samples, profkit_counter_sample, counter_samples)
#undef VIEW

void profkit_profile_samples(const profkit_profile *p, profkit_samples *out)
{
    out->n = p->n_samples;
    out->n_values = p->n_value_types;
    out->stack = p->sample_stack;
    out->thread = p->sample_thread;
    out->time = p->sample_time;
    out->values = p->sample_values;
    out->labels = p->sample_labels;
}

const char *profkit_profile_format(const profkit_profile *p) { return p->format; }
uint32_t profkit_profile_default_value(const profkit_profile *p) { return p->default_value; }

uint32_t profkit_profile_find_value(const profkit_profile *p, const char *name)
{
    const char *slash = strchr(name, '/');
    size_t tlen = slash ? (size_t)(slash - name) : strlen(name);
    for (size_t i = 0; i < p->n_value_types; i++) {
        const char *t = pk_str(p, p->value_types[i].type);
        if (strlen(t) != tlen || memcmp(t, name, tlen) != 0)
            continue;
        if (slash && strcmp(pk_str(p, p->value_types[i].unit), slash + 1) != 0)
            continue;
        return (uint32_t)i;
    }
    /* A reader may name an alias: metadata `value_alias.NAME` = the type
     * NAME stands for (DCPI: `samples` = the event). The first one counts. */
    if (!slash) {
        for (size_t i = 0; i < p->n_metadata; i++) {
            const char *k = pk_str(p, p->metadata[i].key);
            if (strncmp(k, "value_alias.", 12) != 0 || strcmp(k + 12, name) != 0)
                continue;
            const char *target = pk_str(p, p->metadata[i].value);
            for (size_t v = 0; v < p->n_value_types; v++)
                if (strcmp(pk_str(p, p->value_types[v].type), target) == 0)
                    return (uint32_t)v;
        }
    }
    return PROFKIT_NONE;
}

/* ---- selection ---- */

uint32_t pk_select_value(const profkit_profile *p, const char *name, profkit_error *err)
{
    if (p->n_value_types == 0) {
        pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "the profile has no value types");
        return PROFKIT_NONE;
    }
    if (!name)
        return p->default_value < p->n_value_types ? p->default_value : 0;
    uint32_t v = profkit_profile_find_value(p, name);
    if (v != PROFKIT_NONE)
        return v;
    char list[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < p->n_value_types && used < sizeof(list); i++)
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
                                 pk_str(p, p->value_types[i].type));
    pk_error_set(err, PROFKIT_EINVAL, NULL, -1, "no value type '%s' (this profile has: %s)",
                      name, list);
    return PROFKIT_NONE;
}

size_t pk_thread_label(const profkit_profile *p, uint32_t t, char *buf, size_t n)
{
    if (n == 0)
        return 0;
    buf[0] = '\0';
    if (t >= p->n_threads)
        return 0;
    const profkit_thread *th = &p->threads[t];
    const char *proc = pk_str(p, th->process_name);
    char parts[3][140];
    int k = 0;
    if (*proc)
        snprintf(parts[k++], sizeof parts[0], "%.120s", proc);
    if (th->pid >= 0)
        snprintf(parts[k++], sizeof parts[0], "pid %" PRId64, th->pid);
    if (th->tid >= 0)
        snprintf(parts[k++], sizeof parts[0], "tid %" PRId64, th->tid);
    int w = snprintf(buf, n, "%s%s%s%s%s%s%s", pk_str(p, th->name), k ? " (" : "",
                     k > 0 ? parts[0] : "", k > 1 ? ", " : "", k > 1 ? parts[1] : "",
                     k > 2 ? ", " : "", k > 2 ? parts[2] : "");
    size_t len = w < 0 ? 0 : (size_t)w < n ? (size_t)w : n - 1;
    if (k && len + 1 < n) {
        buf[len++] = ')';
        buf[len] = '\0';
    }
    return len;
}

/* "I: LABEL" into the message at *at (bounded by end). */
static void put_thread(char **at, char *end, const profkit_profile *p, size_t t)
{
    char label[300];
    pk_thread_label(p, (uint32_t)t, label, sizeof label);
    int n = snprintf(*at, (size_t)(end - *at), "%zu: %s", t, label);
    if (n > 0)
        *at += (size_t)n < (size_t)(end - *at) ? (size_t)n : (size_t)(end - *at) - 1;
}

/* Fails with the threads of `which` (n of them) listed: a selector that
 * matches several. */
static uint32_t ambiguous(const profkit_profile *p, const char *sel, const uint32_t *which,
                          size_t total, int *ok, profkit_error *err)
{
    *ok = 0;
    char list[400];
    char *at = list, *end = list + sizeof list;
    list[0] = '\0';
    size_t n = total < 8 ? total : 8;
    for (size_t i = 0; i < n && at + 1 < end; i++) {
        if (i && at + 3 < end) {
            memcpy(at, "; ", 3);
            at += 2;
        }
        put_thread(&at, end, p, which[i]);
    }
    pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                 "thread '%.60s' matches %zu threads: %s%s (pick one by index or tid:TID)", sel, total,
                 list, total > n ? "; ..." : "");
    return PROFKIT_NONE;
}

/* The threads whose tid is `tid` (at most 8 listed, *n counts all). */
static size_t find_tid(const profkit_profile *p, int64_t tid, uint32_t *which, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n_threads; i++)
        if (p->threads[i].tid == tid) {
            if (n < cap)
                which[n] = (uint32_t)i;
            n++;
        }
    return n;
}

uint32_t pk_select_thread(const profkit_profile *p, const char *sel, int *ok, profkit_error *err)
{
    *ok = 1;
    if (!sel)
        return PROFKIT_NONE;
    uint32_t which[8];
    size_t n = 0;
    for (size_t i = 0; i < p->n_threads; i++)
        if (strcmp(pk_str(p, p->threads[i].name), sel) == 0) {
            if (n < 8)
                which[n] = (uint32_t)i;
            n++;
        }
    if (n == 1)
        return which[0];
    if (n > 1)
        return ambiguous(p, sel, which, n, ok, err);
    /* an index ("3", or the Firefox Profiler's handle "t-3"), a tid
     * ("tid:1234", or a number that is no index) */
    const char *num = sel;
    int form = 0; /* 0: index or tid, 1: index, 2: tid */
    if (strncmp(sel, "t-", 2) == 0)
        num = sel + 2, form = 1;
    else if (strncmp(sel, "tid:", 4) == 0)
        num = sel + 4, form = 2;
    char *end;
    errno = 0;
    long long v = strtoll(num, &end, 10);
    if (*num && *end == '\0' && errno == 0 && (form == 2 || *num != '-')) {
        if (form != 2 && v >= 0 && (unsigned long long)v < p->n_threads)
            return (uint32_t)v;
        if (form != 1) {
            n = find_tid(p, v, which, 8);
            if (n == 1)
                return which[0];
            if (n > 1)
                return ambiguous(p, sel, which, n, ok, err);
        }
    }
    *ok = 0;
    pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                      "no thread '%s' (use a thread name, an index 0..%zu or tid:TID; 'profkit info' lists them)",
                      sel, p->n_threads ? p->n_threads - 1 : 0);
    return PROFKIT_NONE;
}

size_t pk_str_copy(const profkit_profile *p, uint32_t id, char *buf, size_t n)
{
    if (n == 0)
        return 0;
    size_t len = pk_strtab_len(&p->strings, id);
    if (len > n - 1)
        len = n - 1;
    const char *s = pk_str(p, id);
    const char *nul = memchr(s, '\0', len); /* as "%s" prints it */
    if (nul)
        len = (size_t)(nul - s);
    memcpy(buf, s, len);
    buf[len] = '\0';
    return len;
}

size_t pk_frame_label(const profkit_profile *p, uint32_t frame, int by_line, char *buf,
                           size_t n)
{
    if (n == 0)
        return 0;
    if (frame >= p->n_frames) {
        buf[0] = '\0';
        return 0;
    }
    const profkit_frame *fr = &p->frames[frame];
    uint32_t name = fr->function < p->n_functions ? p->functions[fr->function].name : 0;
    size_t name_len = pk_strtab_len(&p->strings, name); /* may hold NUL bytes (pprof) */
    const profkit_mapping *m = fr->mapping < p->n_mappings ? &p->mappings[fr->mapping] : NULL;
    const char *path = m ? pk_str(p, m->path) : "";
    size_t len;
    if (name_len) {
        len = name_len < n - 1 ? name_len : n - 1;
        memcpy(buf, pk_str(p, name), len);
        buf[len] = '\0';
    } else if (!fr->address && !m && fr->function < p->n_functions &&
               p->functions[fr->function].file) {
        /* a named nothing: the frame of a label a sample does not have
         * (--tagroot), whose file is the label's key */
        buf[0] = '\0';
        len = 0;
    } else {
        int w;
        if (path[0] && fr->address >= m->start) {
            /* The base name, the part after the last '/', looked for in the
             * last n bytes only, so that a label costs at most its buffer: a
             * base name longer than that (none is real: a file name is at
             * most 255 bytes) shows the path's first bytes, which is the
             * same when the path has no '/'. */
            size_t plen = pk_strtab_len(&p->strings, m->path), b = plen;
            while (b > 0 && plen - b < n && path[b - 1] != '/')
                b--;
            const char *base = b > 0 && path[b - 1] == '/' && b < plen ? path + b : path;
            size_t blen = plen - (size_t)(base - path);
            int shown = (int)(blen < n ? blen : n);
            w = snprintf(buf, n, "%.*s+0x%" PRIx64, shown, base, fr->address - m->start + m->offset);
        } else {
            w = snprintf(buf, n, "0x%" PRIx64, fr->address);
        }
        if (w < 0)
            w = 0;
        len = (size_t)w < n ? (size_t)w : n - 1;
    }
    if (by_line && fr->line) {
        int w2 = fr->column ? snprintf(buf + len, n - len, ":%u:%u", fr->line, fr->column)
                            : snprintf(buf + len, n - len, ":%u", fr->line);
        if (w2 > 0)
            len = len + (size_t)w2 < n ? len + (size_t)w2 : n - 1;
    }
    return len;
}

int pk_select(const profkit_profile *p, const char *value, const char *thread,
                   uint32_t *value_out, uint32_t *thread_out, profkit_error *err)
{
    int ok;
    if ((*value_out = pk_select_value(p, value, err)) == PROFKIT_NONE)
        return PROFKIT_EINVAL;
    *thread_out = pk_select_thread(p, thread, &ok, err);
    return ok ? 0 : PROFKIT_EINVAL;
}
