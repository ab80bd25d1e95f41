/*
 * br.c: the Business Rules! (BR) profiler's record stream (.brprof).
 *
 * A BR stream has no header and no magic: it is a sequence of records, each
 * a type byte and a big-endian body (docs/formats/br.md has every rule
 * and says how profkit reads and writes it):
 *
 *   1 module mapping   u16 module, u16 length, name[length]
 *   3 current line     u16 module, u32 line, u8 clause      (opens a group)
 *   4 time in line     u64 nanoseconds                      (inside a group)
 *   5 backtrace        u16 module, u32 line, u8 clause      (inside a group)
 *   6 end current line                                      (closes a group)
 *   7 function name    u8 length, name[length]  \
 *   8 gosub                                      > right after a 3 or a 5
 *   9 main routine                              /
 *
 * A group (3 .. 6) is one sample. Its stack, root first, is the backtrace
 * reversed (5 records come innermost first) and then the current line. A
 * frame is labelled by its 7 record, else "(main)" (9), "(gosub from
 * FILE:LINE)" (8: named by its caller's line, the GOSUB statement; "(gosub)"
 * without a caller) or "(unknown)"; its file is the module's name as mapped when the record was
 * read (mappings may be redefined mid-stream; an unmapped module is its
 * number as text); line = the record's line; clause = frame column.
 *
 * Value types: samples/count (1 per group) and time/nanoseconds (the sum of
 * the group's 4 records). Every group becomes a timed row, in stream order;
 * its time is the sum of the durations of the groups before it. One thread,
 * "main". Metadata `mode` says whether the stream was sampled or timed.
 *
 * The writer turns any profile into such a stream (see docs/formats/br.md
 * for what is lost).
 */
#include "formats/registry/format.h"
#include "util/cursor.h"

#include <inttypes.h>
#include <stdlib.h>

enum {
    BR_MAP = 1,
    BR_LINE = 3,
    BR_TIME = 4,
    BR_BACK = 5,
    BR_END = 6,
    BR_NAME = 7,
    BR_GOSUB = 8,
    BR_MAIN = 9,
};

/* ---------------------------------------------------------------- sniff */

static int printable(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] == 0x7f)
            return 0;
    return 1;
}

/*
 * A stream is recognised when its first records parse cleanly up to a whole
 * module mapping with a printable name or a whole 3..6 group. Without a magic
 * number this is a modest score, below any format that has one.
 */
static int br_sniff(const uint8_t *d, size_t n, int complete)
{
    (void)complete;
    size_t i = 0;
    int in_group = 0, can_tag = 0;
    while (i < n) {
        uint8_t t = d[i++];
        size_t left = n - i;
        switch (t) {
        case BR_MAP: {
            if (left < 4)
                return 0;
            size_t len = pk_load_be16(d + i + 2);
            if (len == 0 || left - 4 < len || !printable(d + i + 4, len))
                return 0;
            i += 4 + len;
            if (!in_group)
                return 30;
            can_tag = 0;
            break;
        }
        case BR_LINE:
        case BR_BACK:
            if (left < 7 || (t == BR_LINE) == in_group)
                return 0;
            i += 7;
            in_group = 1;
            can_tag = 1;
            break;
        case BR_TIME:
            if (left < 8 || !in_group)
                return 0;
            i += 8;
            can_tag = 0;
            break;
        case BR_END:
            return in_group ? 30 : 0;
        case BR_NAME:
            if (!can_tag || left < 1 || left - 1 < d[i] || !printable(d + i + 1, d[i]))
                return 0;
            i += 1 + (size_t)d[i];
            can_tag = 0;
            break;
        case BR_GOSUB:
        case BR_MAIN:
            if (!can_tag)
                return 0;
            can_tag = 0;
            break;
        default:
            return 0;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- reader */

/* One 3 or 5 record of the open group, with what tags it. */
typedef struct br_frame {
    uint32_t file; /* string id of the module's name at read time */
    uint32_t line;
    uint8_t clause;
    uint8_t tag; /* 0, BR_NAME, BR_GOSUB or BR_MAIN */
    uint8_t name_len;
    const uint8_t *name;
} br_frame;

typedef struct br_reader {
    profkit_profile *p;
    pk_read_ctx *ctx;
    const uint8_t *d;
    size_t n;
    uint32_t module_name[65536]; /* string id, 0 = never mapped */
    uint32_t module_num[65536];  /* string id of the number as text, 0 = not yet */
    br_frame *frames;
    size_t n_frames, cap_frames;
    uint32_t labels[4];          /* "(unknown)", "(gosub)", "(main)" by tag */
    /*
     * Groups repeat: a cache from a group's record bytes (without its 4
     * records) to its stack saves re-interning every frame. Valid only while
     * no module is remapped, so a mapping empties it.
     */
    uint8_t *key;                /* the open group's cache key */
    size_t key_len, key_cap;
    uint64_t key_hash;           /* running hash of key[0 .. key_len) */
    uint8_t *keys;               /* cached keys, back to back */
    size_t keys_len, keys_cap;
    struct br_cached { uint32_t off, size, stack; } *cached;
    size_t n_keys, cap_keys;
    pk_idset cache;
} br_reader;

typedef struct br_key {
    const uint8_t *bytes;
    size_t len;
} br_key;

static int key_eq(const void *vr, uint32_t id, const void *vk)
{
    const br_reader *r = vr;
    const br_key *k = vk;
    return r->cached[id].size == k->len &&
           memcmp(r->keys + r->cached[id].off, k->bytes, k->len) == 0;
}

static void cache_clear(br_reader *r)
{
    pk_idset_free(&r->cache);
    memset(&r->cache, 0, sizeof(r->cache));
    r->n_keys = 0;
    r->keys_len = 0;
}

/* Folds 8 bytes into the key's running hash. */
static inline uint64_t key_mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

/* Appends a record to the open group's key, hashing as it goes so a group
 * costs one pass over its bytes. 8-byte records (3 and 5) take the fast path. */
static int key_append(br_reader *r, const uint8_t *b, size_t len)
{
    if (PK_UNLIKELY(r->key_cap - r->key_len < len) &&
        PK_VEC_RESERVE(r->key, r->key_len, r->key_cap, len))
        return PROFKIT_ENOMEM;
    uint64_t w;
    if (len == 8) {
        memcpy(r->key + r->key_len, b, 8);
        memcpy(&w, b, 8);
        r->key_hash = key_mix(r->key_hash, w);
    } else {
        memcpy(r->key + r->key_len, b, len);
        for (size_t i = 0; i < len; i += 8) {
            w = 0;
            memcpy(&w, b + i, len - i < 8 ? len - i : 8);
            r->key_hash = key_mix(r->key_hash, w ^ (uint64_t)len << 56);
        }
    }
    r->key_len += len;
    return 0;
}

static int oom(br_reader *r) { return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory"); }

/* The string id of module `m`'s file name, as mapped right now. */
static uint32_t module_file(br_reader *r, uint16_t m)
{
    if (r->module_name[m])
        return r->module_name[m];
    if (!r->module_num[m]) {
        char buf[8];
        int len = snprintf(buf, sizeof(buf), "%u", (unsigned)m);
        r->module_num[m] = profkit_string_intern(r->p, buf, (size_t)len);
    }
    return r->module_num[m];
}

/*
 * The label of a GOSUB routine: the records name no routine, but its
 * caller's frame (the next backtrace entry, innermost first) is at the
 * GOSUB statement, so `(gosub from FILE:LINE)` (FILE without its
 * directories, `/` or `\`) tells the routines apart by where they are
 * called from; `(gosub)` when nothing calls it in the records.
 */
static uint32_t gosub_label(br_reader *r, size_t i)
{
    if (i + 1 >= r->n_frames)
        return r->labels[1];
    const br_frame *c = &r->frames[i + 1];
    const char *file = pk_str(r->p, c->file);
    const char *base = file;
    for (const char *s = file; *s; s++)
        if (*s == '/' || *s == '\\')
            base = s + 1;
    char buf[320];
    int w = snprintf(buf, sizeof(buf), "(gosub from %.256s:%" PRIu32 ")", base, c->line);
    return w < 0 ? PROFKIT_NONE
                 : profkit_string_intern(r->p, buf, (size_t)w < sizeof(buf) ? (size_t)w : sizeof(buf) - 1);
}

static uint32_t frame_id(br_reader *r, size_t i)
{
    const br_frame *f = &r->frames[i];
    profkit_function fn;
    memset(&fn, 0, sizeof(fn));
    if (f->tag == BR_NAME && f->name_len > 0)
        fn.name = profkit_string_intern(r->p, (const char *)f->name, f->name_len);
    else if (f->tag == BR_GOSUB)
        fn.name = gosub_label(r, i);
    else
        fn.name = r->labels[f->tag == BR_MAIN ? 2 : 0];
    if (fn.name == PROFKIT_NONE || f->file == PROFKIT_NONE)
        return PROFKIT_NONE;
    fn.system_name = fn.name;
    fn.file = f->file;
    profkit_frame fr;
    memset(&fr, 0, sizeof(fr));
    fr.mapping = PROFKIT_NONE;
    fr.line = f->line;
    fr.column = f->clause;
    if ((fr.function = pk_function_add(r->p, &fn)) == PROFKIT_NONE)
        return PROFKIT_NONE;
    return pk_frame_add(r->p, &fr);
}

/* The stack of the open group: the cached one, or built and cached. */
static uint32_t group_stack(br_reader *r, int cacheable)
{
    br_key k = { r->key, r->key_len };
    uint64_t h = pk_hash_u64(r->key_hash ^ r->key_len);
    if (cacheable) {
        uint32_t id = pk_idset_find(&r->cache, h, key_eq, r, &k);
        if (id != PROFKIT_NONE)
            return r->cached[id].stack;
    }
    uint32_t stack = 0;
    for (size_t i = r->n_frames; i-- > 0;) {
        uint32_t fr = frame_id(r, i);
        if (fr == PROFKIT_NONE || (stack = pk_stack_intern(r->p, stack, fr)) == PROFKIT_NONE)
            return PROFKIT_NONE;
    }
    /* Bounded: a stream of ever-new groups must not grow the cache forever. */
    if (cacheable && r->n_keys < (1u << 20) && r->keys_len + r->key_len <= ((size_t)64 << 20)) {
        if (PK_VEC_RESERVE(r->keys, r->keys_len, r->keys_cap, r->key_len) ||
            PK_VEC_RESERVE(r->cached, r->n_keys, r->cap_keys, 1))
            return PROFKIT_NONE;
        memcpy(r->keys + r->keys_len, r->key, r->key_len);
        r->cached[r->n_keys].off = (uint32_t)r->keys_len;
        r->cached[r->n_keys].size = (uint32_t)r->key_len;
        r->cached[r->n_keys].stack = stack;
        r->keys_len += r->key_len;
        if (pk_idset_insert(&r->cache, h, (uint32_t)r->n_keys))
            return PROFKIT_NONE;
        r->n_keys++;
    }
    return stack;
}

static const char *type_name(uint8_t t)
{
    switch (t) {
    case BR_MAP: return "module mapping (1)";
    case BR_LINE: return "current line (3)";
    case BR_TIME: return "time in line (4)";
    case BR_BACK: return "backtrace (5)";
    case BR_END: return "end current line (6)";
    case BR_NAME: return "function name (7)";
    case BR_GOSUB: return "gosub (8)";
    default: return "main routine (9)";
    }
}

static int br_parse(br_reader *r)
{
    profkit_profile *p = r->p;
    pk_read_ctx *ctx = r->ctx;
    uint32_t vt_samples = pk_value_type_add(p, "samples", "count");
    uint32_t vt_time = pk_value_type_add(p, "time", "nanoseconds");
    uint32_t th = pk_thread_add(p, "main", "", -1, -1);
    r->labels[0] = profkit_string_intern_cstr(p, "(unknown)");
    r->labels[1] = profkit_string_intern_cstr(p, "(gosub)");
    r->labels[2] = profkit_string_intern_cstr(p, "(main)");
    if (vt_samples == PROFKIT_NONE || vt_time == PROFKIT_NONE || th == PROFKIT_NONE ||
        r->labels[0] == PROFKIT_NONE || r->labels[1] == PROFKIT_NONE || r->labels[2] == PROFKIT_NONE)
        return oom(r);

    pk_cursor c;
    pk_cursor_init(&c, r->d, r->n);
    int in_group = 0, can_tag = 0, cacheable = 1, timed = 0, group_timed = 0;
    size_t group_start = 0;
    uint64_t group_time = 0, clock = 0, n_records = 0;
    while (!pk_cursor_eof(&c)) {
        size_t at = c.pos;
        uint8_t t;
        (void)pk_cursor_u8(&c, &t); /* cannot fail: not at the end */
        if ((++n_records & 0xfffff) == 0)
            pk_read_progress(ctx, at, r->n);
        uint16_t mod, len16;
        uint32_t line;
        uint8_t clause, len8;
        uint64_t ns;
        const uint8_t *name;
        switch (t) {
        case BR_MAP:
            if (pk_cursor_be16(&c, &mod) || pk_cursor_be16(&c, &len16))
                goto cut;
            if (pk_cursor_bytes(&c, len16, &name)) {
                if (in_group)
                    goto cut;
                return pk_read_fail(ctx, PROFKIT_ETRUNCATED, (int64_t)at + 5,
                                         "module mapping (1): name of %u bytes runs past the end "
                                         "of the input (%zu bytes left)",
                                         (unsigned)len16, r->n - at - 5);
            }
            if ((r->module_name[mod] = profkit_string_intern(p, (const char *)name, len16)) ==
                PROFKIT_NONE)
                return oom(r);
            cache_clear(r);
            cacheable = !in_group;
            can_tag = 0;
            break;
        case BR_LINE:
        case BR_BACK:
            if (t == BR_LINE && in_group)
                return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                         "current line (3): a group is already open (it starts "
                                         "at offset %zu and has no end record 6)",
                                         group_start);
            if (t == BR_BACK && !in_group)
                return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                         "backtrace (5): outside a current-line group (expected "
                                         "a current line record 3 first)");
            if (pk_cursor_be16(&c, &mod) || pk_cursor_be32(&c, &line) ||
                pk_cursor_u8(&c, &clause)) {
                if (t == BR_LINE)
                    group_start = at;
                goto cut;
            }
            if (t == BR_LINE) {
                in_group = 1;
                group_start = at;
                group_time = 0;
                group_timed = 0;
                r->n_frames = 0;
                r->key_len = 0;
                r->key_hash = 0x6272;
                cacheable = 1;
            }
            if ((PK_UNLIKELY(r->n_frames == r->cap_frames) &&
                 PK_VEC_RESERVE(r->frames, r->n_frames, r->cap_frames, 1)) ||
                key_append(r, r->d + at, 8))
                return oom(r);
            br_frame *f = &r->frames[r->n_frames++];
            f->file = module_file(r, mod);
            f->line = line;
            f->clause = clause;
            f->tag = 0;
            f->name_len = 0;
            f->name = NULL;
            can_tag = 1;
            break;
        case BR_TIME:
            if (!in_group)
                return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                         "time in line (4): outside a current-line group "
                                         "(expected a current line record 3 first)");
            if (pk_cursor_be64(&c, &ns))
                goto cut;
            if (ns > (uint64_t)INT64_MAX - group_time)
                return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at + 1,
                                         "time in line (4): the group's time exceeds 2^63-1 ns");
            group_time += ns;
            group_timed = 1;
            can_tag = 0;
            break;
        case BR_END:
            if (!in_group)
                return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                         "end current line (6): no current-line group is open");
            {
                uint32_t stack = group_stack(r, cacheable);
                if (stack == PROFKIT_NONE)
                    return oom(r);
                if (clock > (uint64_t)INT64_MAX - group_time)
                    return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                             "time in line (4): total time exceeds 2^63-1 ns");
                int64_t vals[2];
                vals[vt_samples] = 1;
                vals[vt_time] = (int64_t)group_time;
                if (pk_sample_add_timed(p, stack, th, (int64_t)clock, vals))
                    return oom(r);
                clock += group_time;
                timed |= group_timed;
            }
            in_group = 0;
            can_tag = 0;
            break;
        case BR_NAME:
        case BR_GOSUB:
        case BR_MAIN:
            if (!can_tag)
                return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                         "%s: expected right after a current line (3) or "
                                         "backtrace (5) record",
                                         type_name(t));
            br_frame *tf = &r->frames[r->n_frames - 1];
            if (t == BR_NAME) {
                if (pk_cursor_u8(&c, &len8) || pk_cursor_bytes(&c, len8, &name))
                    goto cut;
                tf->name = name;
                tf->name_len = len8;
            }
            tf->tag = t;
            if (key_append(r, r->d + at, c.pos - at))
                return oom(r);
            can_tag = 0;
            break;
        default:
            return pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                     "record type: expected 1 or 3 to 9, got %u", (unsigned)t);
        }
        continue;
    cut:
        /* The record at `at` is cut off by the end of the input. */
        if (!in_group && t != BR_LINE)
            return pk_read_fail(ctx, PROFKIT_ETRUNCATED, (int64_t)at,
                                     "%s: the input ends inside the record", type_name(t));
        in_group = 1;
        break;
    }
    if (in_group) {
        int rc = pk_read_warn(ctx, PROFKIT_ETRUNCATED, (int64_t)r->n,
                                   "the input ends inside the group that starts at offset %zu; "
                                   "that group is dropped",
                                   group_start);
        if (rc)
            return rc;
    }
    p->default_value = timed ? vt_time : vt_samples;
    if (pk_meta_add(p, "mode", timed ? "timed" : "sampled"))
        return oom(r);
    return 0;
}

static int br_read(profkit_profile *p, pk_read_ctx *ctx)
{
    const uint8_t *d;
    size_t n;
    int rc = pk_source_all(ctx->src, &d, &n, ctx->err);
    if (rc)
        return rc;
    br_reader *r = calloc(1, sizeof(*r));
    if (!r)
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    r->p = p;
    r->ctx = ctx;
    r->d = d;
    r->n = n;
    rc = br_parse(r);
    free(r->frames);
    free(r->key);
    free(r->keys);
    free(r->cached);
    pk_idset_free(&r->cache);
    free(r);
    return rc;
}

/* ---------------------------------------------------------------- writer */

typedef struct br_writer {
    const profkit_profile *p;
    pk_sink *sink;
    uint32_t *module_of; /* string id of a file -> module number, 0 = none yet */
    uint32_t n_modules;
    uint32_t *path;      /* frames of one stack, leaf first */
    size_t cap_path;
} br_writer;

static int put_frame(br_writer *w, uint8_t type, uint32_t frame, profkit_error *err)
{
    const profkit_profile *p = w->p;
    const profkit_frame *fr = &p->frames[frame];
    const profkit_function *fn = &p->functions[fr->function];
    uint32_t file = fn->file ? fn->file : fn->module;
    if (!file && fr->mapping != PROFKIT_NONE && fr->mapping < p->n_mappings)
        file = p->mappings[fr->mapping].path;
    uint32_t mod = 0;
    if (file) {
        if (!w->module_of[file]) {
            if (w->n_modules == 0xffff)
                return pk_error_set(err, PROFKIT_EUNSUPPORTED, NULL, -1,
                                         "br: more than 65535 distinct files do not fit "
                                         "16-bit module numbers");
            w->module_of[file] = ++w->n_modules;
            size_t len = strlen(pk_str(p, file));
            if (len > 0xffff)
                len = 0xffff;
            uint8_t h[5] = { BR_MAP, (uint8_t)(w->n_modules >> 8), (uint8_t)w->n_modules,
                             (uint8_t)(len >> 8), (uint8_t)len };
            pk_sink_write(w->sink, h, 5);
            pk_sink_write(w->sink, pk_str(p, file), len);
        }
        mod = w->module_of[file];
    }
    uint8_t rec[8];
    rec[0] = type;
    rec[1] = (uint8_t)(mod >> 8);
    rec[2] = (uint8_t)mod;
    pk_put_be32(rec + 3, fr->line);
    rec[7] = fr->column <= 0xff ? (uint8_t)fr->column : 0;
    pk_sink_write(w->sink, rec, 8);
    char label[256];
    size_t len = pk_frame_label(p, frame, 0, label, sizeof(label));
    if (strcmp(label, "(main)") == 0) {
        uint8_t t = BR_MAIN;
        pk_sink_write(w->sink, &t, 1);
    } else if (strcmp(label, "(gosub)") == 0 || strncmp(label, "(gosub from ", 12) == 0) {
        uint8_t t = BR_GOSUB; /* the routine's name comes back from its caller */
        pk_sink_write(w->sink, &t, 1);
    } else if (strcmp(label, "(unknown)") != 0 && len > 0) {
        uint8_t t[2] = { BR_NAME, (uint8_t)(len > 255 ? 255 : len) };
        pk_sink_write(w->sink, t, 2);
        pk_sink_write(w->sink, label, t[1]);
    }
    return 0;
}

/* Writes one group for the sample stack `stack`, with a 4 record when time > 0. */
static int put_group(br_writer *w, uint32_t stack, int64_t time, profkit_error *err)
{
    size_t depth = 0;
    for (uint32_t s = stack; s != 0; s = w->p->stacks[s].parent) {
        if (PK_VEC_RESERVE(w->path, depth, w->cap_path, 1))
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
        w->path[depth++] = w->p->stacks[s].frame;
    }
    if (depth == 0)
        return 0; /* an empty stack has no current line to write */
    for (size_t i = 0; i < depth; i++) {
        int rc = put_frame(w, i == 0 ? BR_LINE : BR_BACK, w->path[i], err);
        if (rc)
            return rc;
        if (i == 0 && time > 0) {
            uint8_t rec[9] = { BR_TIME };
            pk_put_be64(rec + 1, (uint64_t)time);
            pk_sink_write(w->sink, rec, 9);
        }
    }
    uint8_t end = BR_END;
    pk_sink_write(w->sink, &end, 1);
    return 0;
}

/*
 * A value in nanoseconds becomes one group per row with a time record; any
 * other unit is a count: N groups for a row of value N, without time.
 */
static int br_write(const profkit_profile *p, pk_sink *sink, const profkit_write_options *o,
                    profkit_error *err)
{
    int ok;
    uint32_t v = pk_select_value(p, o->value, err);
    if (v == PROFKIT_NONE)
        return p->n_value_types == 0 && !o->value ? 0 : PROFKIT_EINVAL;
    uint32_t th = pk_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    int is_time = strcmp(pk_str(p, p->value_types[v].unit), "nanoseconds") == 0;
    uint32_t counts = profkit_profile_find_value(p, "samples/count");
    br_writer w;
    memset(&w, 0, sizeof(w));
    w.p = p;
    w.sink = sink;
    if (!(w.module_of = calloc(p->strings.n ? p->strings.n : 1, sizeof(uint32_t))))
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    int rc = 0;
    const size_t nv = p->n_value_types;
    uint64_t budget = 1000000000; /* groups; a count this large is not a profile to expand */
    for (size_t i = 0; i < p->n_samples && !rc; i++) {
        if (th != PROFKIT_NONE && p->sample_thread[i] != th)
            continue;
        int64_t val = p->sample_values[i * nv + v];
        if (is_time) {
            int has_count = counts != PROFKIT_NONE && p->sample_values[i * nv + counts] > 0;
            if (val > 0 || has_count)
                rc = put_group(&w, p->sample_stack[i], val, err);
            continue;
        }
        if (val <= 0)
            continue;
        if ((uint64_t)val > budget) {
            rc = pk_error_set(err, PROFKIT_EUNSUPPORTED, NULL, -1,
                                   "br: value '%s' would expand to more than 10^9 groups; "
                                   "choose a time value with profkit_write_options.value",
                                   pk_str(p, p->value_types[v].type));
            break;
        }
        budget -= (uint64_t)val;
        for (int64_t k = 0; k < val && !rc; k++)
            rc = put_group(&w, p->sample_stack[i], 0, err);
    }
    free(w.module_of);
    free(w.path);
    return rc;
}

const pk_format pk_format_br = {
    { "br", "Business Rules! profiler record stream (sampled or timed)", ".brprof", 1, 1 },
    br_sniff,
    br_read,
    br_write,
};
