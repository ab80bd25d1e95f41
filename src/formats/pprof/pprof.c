/*
 * pprof.c: the pprof profile, a protocol buffers message (profile.proto of
 * github.com/google/pprof), reader. The writer is in pprof_write.c. Our
 * rulings are in docs/formats/pprof.md.
 *
 * The message (field numbers as the public schema gives them):
 *
 *   Profile   1 sample_type (ValueType)*   2 sample (Sample)*
 *             3 mapping (Mapping)*         4 location (Location)*
 *             5 function (Function)*       6 string_table (string)*
 *             7 drop_frames  8 keep_frames (string index)
 *             9 time_nanos  10 duration_nanos  11 period_type (ValueType)
 *            12 period  13 comment (string index)*  14 default_sample_type
 *   ValueType 1 type  2 unit (string indexes)
 *   Sample    1 location_id*  2 value*  (packed or not)  3 label (Label)*
 *   Label     1 key  2 str (string indexes)  3 num  4 num_unit
 *   Mapping   1 id  2 memory_start  3 memory_limit  4 file_offset
 *             5 filename  6 build_id (string indexes)  7..10 has_* flags
 *   Location  1 id  2 mapping_id  3 address  4 line (Line)*  5 is_folded
 *   Line      1 function_id  2 line  3 column
 *   Function  1 id  2 name  3 system_name  4 filename (string indexes)
 *             5 start_line
 *
 * The messages may come in any order and refer to each other by id, so the
 * reader works in two passes over the (whole, decompressed) buffer: the first
 * collects every message's fields into small arrays, each entry standing for
 * bytes that exist, so nothing is sized by a count read from the input; the
 * second resolves string indexes and ids, builds frames per location and
 * interns each sample's stack. Every unknown field of wire types 0, 1, 2 and
 * 5 is skipped; groups (3, 4) and the invalid wire types 6 and 7 are errors.
 *
 * A Location with several Lines is inlined code: Line[0] is the innermost
 * function, the last Line the outermost caller, so it becomes several frames,
 * outermost first in the root-first stack, with inline_depth 0 for the last
 * Line and one more for each Line before it. A Location without Lines becomes
 * one frame named by its address ("0x" + lowercase hex), as the gperftools
 * reader names unsymbolized PCs.
 *
 * Value types: the sample types, in order. The default is the first sample
 * type whose type name equals default_sample_type, else the last one (Go
 * pprof's SampleIndexByName). Threads: a sample with a string label `thread`
 * or `thread_name` belongs to the thread of that name, every other sample to
 * "main". Every other label is kept in the sample's label set: a string
 * label when Label.str is set, else a numeric one when num or num_unit is
 * (Go pprof's rule: a label with neither is dropped).
 */
#include "formats/pprof/pprof_wire.h"
#include "util/cursor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- wire format ---- */


typedef struct pp_field {
    size_t off;     /* where the tag starts */
    uint32_t num;
    unsigned wt;
    uint64_t v;     /* WT_VARINT, WT_I64, WT_I32 */
    size_t start;   /* WT_LEN: payload offset and length */
    size_t len;
} pp_field;

/* A scalar (string index, id, ...) with the offset of its field. */
typedef struct pp_ref {
    int64_t v;
    size_t off;
} pp_ref;

typedef struct pp_str {
    size_t start, len;
} pp_str;

typedef struct pp_vt {
    pp_ref type, unit;
} pp_vt;

typedef struct pp_mapping {
    uint64_t id, start, limit, offset;
    pp_ref file, build_id;
    size_t off;
} pp_mapping;

typedef struct pp_function {
    uint64_t id;
    int64_t start_line;
    pp_ref name, system_name, file;
    size_t off;
} pp_function;

typedef struct pp_line {
    pp_ref function_id;
    int64_t line, column;
} pp_line;

typedef struct pp_location {
    uint64_t id, address;
    pp_ref mapping_id;
    size_t first_line, n_lines; /* into lines */
    size_t first_frame, n_frames; /* into frames, root first */
    size_t off;
} pp_location;

typedef struct pp_range {
    size_t start, len;
} pp_range;

/* An id and the index of its entry, sorted by id for lookups. */
typedef struct pp_idx {
    uint64_t id;
    uint32_t idx;
} pp_idx;

#define PP_VEC(T, name) T *name; size_t n_##name, cap_##name

typedef struct pp_reader {
    pk_read_ctx *ctx;
    profkit_profile *p;
    const uint8_t *d;
    size_t n;

    PP_VEC(pp_str, strs);
    PP_VEC(pp_vt, vts);
    PP_VEC(pp_range, samples);
    PP_VEC(pp_mapping, maps);
    PP_VEC(pp_function, funcs);
    PP_VEC(pp_location, locs);
    PP_VEC(pp_line, lines);
    PP_VEC(pp_ref, comments);
    PP_VEC(uint32_t, frames);
    PP_VEC(uint32_t, ids); /* scratch: a sample's location indexes */

    pp_ref drop, keep, deflt;
    pp_vt period_type;
    int has_period_type, has_period, has_time, has_duration;
    int64_t period, time_nanos, duration_nanos;

    uint32_t *str_ids;    /* string index -> profile string id */
    uint32_t *thread_of;  /* per string index: thread of that name, or NONE */
    uint32_t *map_ids;    /* per mapping entry: profile mapping */
    uint32_t *func_ids;   /* per function entry: profile function */
    pp_idx *map_by_id, *func_by_id, *loc_by_id;
    uint32_t *loc_dense; /* location id -> entry (NONE = absent), when ids are compact */
    size_t n_loc_dense;
    int64_t *values;
    uint32_t main_thread;
    size_t expanded, max_expanded; /* frames in all sample stacks so far, and the cap */
    PP_VEC(profkit_label, lab); /* scratch: a sample's labels */
} pp_reader;

static int oom(pp_reader *r) { return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory"); }

/*
 * Reads one field (tag and value) of message `msg` from c. Payloads of
 * WT_LEN fields are checked to lie inside c but are not consumed further.
 */
static int pp_next(pp_reader *r, pk_cursor *c, pp_field *f, const char *msg)
{
    uint64_t tag;
    /* Running out inside a submessage is corruption (its length said
     * otherwise); only at the top level is it the input that was cut. */
    int top = c->size == r->n;
    int cut = top ? PROFKIT_ETRUNCATED : PROFKIT_ECORRUPT;
    const char *end = top ? "the input" : "its message";
    f->off = c->pos;
    int rc = pk_cursor_varint(c, &tag);
    if (rc == PROFKIT_ETRUNCATED)
        return pk_read_fail(r->ctx, cut, (int64_t)f->off, "%s: field tag runs past the end of %s",
                                 msg, end);
    if (rc)
        return pk_read_fail(r->ctx, rc, (int64_t)f->off, "%s: over-long varint in a field tag", msg);
    f->wt = (unsigned)(tag & 7);
    if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)f->off,
                                 "%s: field number %" PRIu64 " is not valid (expected 1 to 536870911)",
                                 msg, tag >> 3);
    f->num = (uint32_t)(tag >> 3);
    size_t vpos = c->pos;
    const uint8_t *b;
    switch (f->wt) {
    case WT_VARINT:
        rc = pk_cursor_varint(c, &f->v);
        break;
    case WT_I64:
        rc = pk_cursor_le64(c, &f->v);
        break;
    case WT_I32: {
        uint32_t v32 = 0;
        rc = pk_cursor_le32(c, &v32);
        f->v = v32;
        break;
    }
    case WT_LEN:
        rc = pk_cursor_varint(c, &f->v);
        if (rc)
            break;
        if (f->v > pk_cursor_left(c))
            return pk_read_fail(r->ctx, cut, (int64_t)f->off,
                                     "%s field %u: length %" PRIu64 " runs past the end of %s (%zu bytes left)",
                                     msg, f->num, f->v, end, pk_cursor_left(c));
        f->start = c->pos;
        f->len = (size_t)f->v;
        rc = pk_cursor_bytes(c, f->len, &b);
        break;
    case WT_SGROUP:
    case WT_EGROUP:
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)f->off,
                                 "%s field %u: wire type %u (group) is not used by profile.proto",
                                 msg, f->num, f->wt);
    default:
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)f->off,
                                 "%s field %u: invalid wire type %u", msg, f->num, f->wt);
    }
    if (rc == PROFKIT_ETRUNCATED)
        return pk_read_fail(r->ctx, cut, (int64_t)vpos, "%s field %u: value runs past the end of %s",
                                 msg, f->num, end);
    if (rc)
        return pk_read_fail(r->ctx, rc, (int64_t)vpos, "%s field %u: over-long varint", msg, f->num);
    return 0;
}

/* A cursor over the payload of a WT_LEN field, with absolute offsets. */
static void pp_sub(const pp_reader *r, const pp_field *f, pk_cursor *c)
{
    c->data = r->d;
    c->size = f->start + f->len;
    c->pos = f->start;
}

static int want_wt(pp_reader *r, const pp_field *f, unsigned wt, const char *what)
{
    if (f->wt == wt)
        return 0;
    return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)f->off,
                             "%s: expected wire type %u, found %u", what, wt, f->wt);
}

/* A varint scalar field (int64/uint64/bool). */
static int want_varint(pp_reader *r, const pp_field *f, const char *what, uint64_t *out)
{
    int rc = want_wt(r, f, WT_VARINT, what);
    if (!rc)
        *out = f->v;
    return rc;
}

static int want_ref(pp_reader *r, const pp_field *f, const char *what, pp_ref *out)
{
    uint64_t v = 0;
    int rc = want_varint(r, f, what, &v);
    if (!rc) {
        out->v = (int64_t)v;
        out->off = f->off;
    }
    return rc;
}

/* ---- pass 1: collecting the messages ---- */

static int read_value_type(pp_reader *r, const pp_field *outer, const char *what, pp_vt *vt)
{
    pk_cursor c;
    pp_field f;
    int rc;
    pp_sub(r, outer, &c);
    memset(vt, 0, sizeof(*vt));
    vt->type.off = vt->unit.off = outer->off;
    while (!pk_cursor_eof(&c)) {
        if ((rc = pp_next(r, &c, &f, what)))
            return rc;
        if (f.num == 1)
            rc = want_ref(r, &f, "ValueType.type", &vt->type);
        else if (f.num == 2)
            rc = want_ref(r, &f, "ValueType.unit", &vt->unit);
        if (rc)
            return rc;
    }
    return 0;
}

static int read_mapping(pp_reader *r, const pp_field *outer)
{
    if (PK_VEC_RESERVE(r->maps, r->n_maps, r->cap_maps, 1))
        return oom(r);
    pp_mapping *m = &r->maps[r->n_maps++];
    memset(m, 0, sizeof(*m));
    m->off = m->file.off = m->build_id.off = outer->off;
    pk_cursor c;
    pp_field f;
    int rc;
    pp_sub(r, outer, &c);
    while (!pk_cursor_eof(&c)) {
        if ((rc = pp_next(r, &c, &f, "Mapping")))
            return rc;
        switch (f.num) {
        case 1: rc = want_varint(r, &f, "Mapping.id", &m->id); break;
        case 2: rc = want_varint(r, &f, "Mapping.memory_start", &m->start); break;
        case 3: rc = want_varint(r, &f, "Mapping.memory_limit", &m->limit); break;
        case 4: rc = want_varint(r, &f, "Mapping.file_offset", &m->offset); break;
        case 5: rc = want_ref(r, &f, "Mapping.filename", &m->file); break;
        case 6: rc = want_ref(r, &f, "Mapping.build_id", &m->build_id); break;
        default: break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int read_function(pp_reader *r, const pp_field *outer)
{
    if (PK_VEC_RESERVE(r->funcs, r->n_funcs, r->cap_funcs, 1))
        return oom(r);
    pp_function *fn = &r->funcs[r->n_funcs++];
    memset(fn, 0, sizeof(*fn));
    fn->off = fn->name.off = fn->system_name.off = fn->file.off = outer->off;
    pk_cursor c;
    pp_field f;
    uint64_t v = 0;
    int rc;
    pp_sub(r, outer, &c);
    while (!pk_cursor_eof(&c)) {
        if ((rc = pp_next(r, &c, &f, "Function")))
            return rc;
        switch (f.num) {
        case 1: rc = want_varint(r, &f, "Function.id", &fn->id); break;
        case 2: rc = want_ref(r, &f, "Function.name", &fn->name); break;
        case 3: rc = want_ref(r, &f, "Function.system_name", &fn->system_name); break;
        case 4: rc = want_ref(r, &f, "Function.filename", &fn->file); break;
        case 5:
            rc = want_varint(r, &f, "Function.start_line", &v);
            fn->start_line = (int64_t)v;
            break;
        default: break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int read_line(pp_reader *r, const pp_field *outer)
{
    if (PK_VEC_RESERVE(r->lines, r->n_lines, r->cap_lines, 1))
        return oom(r);
    pp_line *ln = &r->lines[r->n_lines++];
    memset(ln, 0, sizeof(*ln));
    ln->function_id.off = outer->off;
    pk_cursor c;
    pp_field f;
    uint64_t v = 0;
    int rc;
    pp_sub(r, outer, &c);
    while (!pk_cursor_eof(&c)) {
        if ((rc = pp_next(r, &c, &f, "Line")))
            return rc;
        switch (f.num) {
        case 1: rc = want_ref(r, &f, "Line.function_id", &ln->function_id); break;
        case 2:
            rc = want_varint(r, &f, "Line.line", &v);
            ln->line = (int64_t)v;
            break;
        case 3:
            rc = want_varint(r, &f, "Line.column", &v);
            ln->column = (int64_t)v;
            break;
        default: break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int read_location(pp_reader *r, const pp_field *outer)
{
    if (PK_VEC_RESERVE(r->locs, r->n_locs, r->cap_locs, 1))
        return oom(r);
    size_t li = r->n_locs++;
    pp_location *l = &r->locs[li];
    memset(l, 0, sizeof(*l));
    l->off = l->mapping_id.off = outer->off;
    l->first_line = r->n_lines;
    pk_cursor c;
    pp_field f;
    int rc;
    pp_sub(r, outer, &c);
    while (!pk_cursor_eof(&c)) {
        if ((rc = pp_next(r, &c, &f, "Location")))
            return rc;
        l = &r->locs[li];
        switch (f.num) {
        case 1: rc = want_varint(r, &f, "Location.id", &l->id); break;
        case 2: rc = want_ref(r, &f, "Location.mapping_id", &l->mapping_id); break;
        case 3: rc = want_varint(r, &f, "Location.address", &l->address); break;
        case 4:
            /* Lines of one location are contiguous in r->lines: nothing
             * else is read between them. */
            if (!(rc = want_wt(r, &f, WT_LEN, "Location.line")))
                rc = read_line(r, &f);
            break;
        default: break;
        }
        if (rc)
            return rc;
    }
    r->locs[li].n_lines = r->n_lines - r->locs[li].first_line;
    return 0;
}

/* A repeated int64 string-index field, packed (WT_LEN) or not. */
static int read_refs(pp_reader *r, const pp_field *f, const char *what, pp_ref **v, size_t *n,
                     size_t *cap)
{
    if (f->wt == WT_VARINT) {
        if (PK_VEC_RESERVE(*v, *n, *cap, 1))
            return oom(r);
        (*v)[(*n)++] = (pp_ref){ (int64_t)f->v, f->off };
        return 0;
    }
    int rc = want_wt(r, f, WT_LEN, what);
    if (rc)
        return rc;
    pk_cursor c;
    pp_sub(r, f, &c);
    while (!pk_cursor_eof(&c)) {
        size_t at = c.pos;
        uint64_t x;
        if ((rc = pk_cursor_varint(&c, &x)))
            return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)at, "%s: %s", what,
                                     rc == PROFKIT_ETRUNCATED ? "packed varint runs past the end of its field"
                                                              : "over-long varint");
        if (PK_VEC_RESERVE(*v, *n, *cap, 1))
            return oom(r);
        (*v)[(*n)++] = (pp_ref){ (int64_t)x, at };
    }
    return 0;
}

static int read_profile(pp_reader *r)
{
    pk_cursor c;
    pp_field f;
    uint64_t v = 0;
    int rc;
    pk_cursor_init(&c, r->d, r->n);
    while (!pk_cursor_eof(&c)) {
        if ((rc = pp_next(r, &c, &f, "Profile")))
            return rc;
        pk_read_progress(r->ctx, c.pos, r->n);
        switch (f.num) {
        case 1:
            if ((rc = want_wt(r, &f, WT_LEN, "Profile.sample_type")))
                return rc;
            if (PK_VEC_RESERVE(r->vts, r->n_vts, r->cap_vts, 1))
                return oom(r);
            rc = read_value_type(r, &f, "Profile.sample_type", &r->vts[r->n_vts++]);
            break;
        case 2:
            if ((rc = want_wt(r, &f, WT_LEN, "Profile.sample")))
                return rc;
            if (PK_VEC_RESERVE(r->samples, r->n_samples, r->cap_samples, 1))
                return oom(r);
            r->samples[r->n_samples++] = (pp_range){ f.start, f.len };
            break;
        case 3:
            if (!(rc = want_wt(r, &f, WT_LEN, "Profile.mapping")))
                rc = read_mapping(r, &f);
            break;
        case 4:
            if (!(rc = want_wt(r, &f, WT_LEN, "Profile.location")))
                rc = read_location(r, &f);
            break;
        case 5:
            if (!(rc = want_wt(r, &f, WT_LEN, "Profile.function")))
                rc = read_function(r, &f);
            break;
        case 6:
            if ((rc = want_wt(r, &f, WT_LEN, "Profile.string_table")))
                return rc;
            if (PK_VEC_RESERVE(r->strs, r->n_strs, r->cap_strs, 1))
                return oom(r);
            r->strs[r->n_strs++] = (pp_str){ f.start, f.len };
            break;
        case 7: rc = want_ref(r, &f, "Profile.drop_frames", &r->drop); break;
        case 8: rc = want_ref(r, &f, "Profile.keep_frames", &r->keep); break;
        case 9:
            rc = want_varint(r, &f, "Profile.time_nanos", &v);
            r->time_nanos = (int64_t)v;
            r->has_time = 1;
            break;
        case 10:
            rc = want_varint(r, &f, "Profile.duration_nanos", &v);
            r->duration_nanos = (int64_t)v;
            r->has_duration = 1;
            break;
        case 11:
            if (!(rc = want_wt(r, &f, WT_LEN, "Profile.period_type")))
                rc = read_value_type(r, &f, "Profile.period_type", &r->period_type);
            r->has_period_type = 1;
            break;
        case 12:
            rc = want_varint(r, &f, "Profile.period", &v);
            r->period = (int64_t)v;
            r->has_period = 1;
            break;
        case 13:
            rc = read_refs(r, &f, "Profile.comment", &r->comments, &r->n_comments, &r->cap_comments);
            break;
        case 14: rc = want_ref(r, &f, "Profile.default_sample_type", &r->deflt); break;
        default: break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- pass 2: resolving ---- */

/* The profile string for string index s, checked against the table. */
static int pp_string(pp_reader *r, pp_ref s, const char *what, uint32_t *out)
{
    if (s.v == 0 && r->n_strs == 0) {
        *out = 0; /* an absent table still has "" at index 0 */
        return 0;
    }
    if (s.v < 0 || (uint64_t)s.v >= r->n_strs)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)s.off,
                                 "%s: string index %" PRId64 " out of range (the string table has %zu entries)",
                                 what, s.v, r->n_strs);
    *out = r->str_ids[s.v];
    return 0;
}

static const char *pp_cstr(pp_reader *r, uint32_t id) { return pk_str(r->p, id); }

static int intern_strings(pp_reader *r)
{
    if (r->n_strs > 0 && r->strs[0].len != 0)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)r->strs[0].start,
                                 "Profile.string_table: the first string must be empty (found %zu bytes)",
                                 r->strs[0].len);
    size_t n = r->n_strs ? r->n_strs : 1;
    r->str_ids = malloc(n * sizeof(uint32_t));
    r->thread_of = malloc(n * sizeof(uint32_t));
    if (!r->str_ids || !r->thread_of)
        return oom(r);
    for (size_t i = 0; i < n; i++)
        r->thread_of[i] = PROFKIT_NONE;
    for (size_t i = 0; i < r->n_strs; i++) {
        r->str_ids[i] = profkit_string_intern(r->p, (const char *)r->d + r->strs[i].start, r->strs[i].len);
        if (r->str_ids[i] == PROFKIT_NONE)
            return oom(r);
    }
    return 0;
}

static int cmp_idx(const void *a, const void *b)
{
    const pp_idx *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Builds a sorted id index over n entries whose ids and offsets get_id
 * gives. Id 0 is reserved and ids must be unique (as Go pprof checks).
 */
static int build_index(pp_reader *r, pp_idx **out, size_t n, const char *what,
                       uint64_t (*get_id)(const pp_reader *, size_t, size_t *))
{
    *out = malloc((n ? n : 1) * sizeof(pp_idx));
    if (!*out)
        return oom(r);
    for (size_t i = 0; i < n; i++) {
        size_t off;
        (*out)[i].id = get_id(r, i, &off);
        (*out)[i].idx = (uint32_t)i;
        if ((*out)[i].id == 0)
            return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)off,
                                     "%s: id 0 is reserved (expected an id > 0)", what);
    }
    qsort(*out, n, sizeof(pp_idx), cmp_idx);
    for (size_t i = 1; i < n; i++) {
        if ((*out)[i].id == (*out)[i - 1].id) {
            size_t off;
            get_id(r, (*out)[i].idx, &off);
            return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)off,
                                     "%s: id %" PRIu64 " is defined twice", what, (*out)[i].id);
        }
    }
    return 0;
}

static uint64_t map_id(const pp_reader *r, size_t i, size_t *off) { *off = r->maps[i].off; return r->maps[i].id; }
static uint64_t func_id(const pp_reader *r, size_t i, size_t *off) { *off = r->funcs[i].off; return r->funcs[i].id; }
static uint64_t loc_id(const pp_reader *r, size_t i, size_t *off) { *off = r->locs[i].off; return r->locs[i].id; }

/* The entry index of id in a sorted index, or PROFKIT_NONE. */
static uint32_t lookup(const pp_idx *ix, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ix[lo].id == id ? ix[lo].idx : PROFKIT_NONE;
}

static int resolve_mappings(pp_reader *r)
{
    int rc = build_index(r, &r->map_by_id, r->n_maps, "Mapping.id", map_id);
    if (rc)
        return rc;
    r->map_ids = malloc((r->n_maps ? r->n_maps : 1) * sizeof(uint32_t));
    if (!r->map_ids)
        return oom(r);
    for (size_t i = 0; i < r->n_maps; i++) {
        const pp_mapping *m = &r->maps[i];
        uint32_t file = 0, bid = 0;
        if ((rc = pp_string(r, m->file, "Mapping.filename", &file)) ||
            (rc = pp_string(r, m->build_id, "Mapping.build_id", &bid)))
            return rc;
        /* the strings are interned already: their ids, not their bytes
         * hashed again for each mapping (a long file name shared by many
         * mappings is a hostile shape) */
        r->map_ids[i] = pk_mapping_add(r->p, m->start, m->limit, m->offset, "", "");
        if (r->map_ids[i] == PROFKIT_NONE)
            return oom(r);
        r->p->mappings[r->map_ids[i]].path = file;
        r->p->mappings[r->map_ids[i]].build_id = bid;
    }
    return 0;
}

static uint32_t clamp_u32(int64_t v) { return v > 0 && v <= (int64_t)UINT32_MAX ? (uint32_t)v : 0; }

static int resolve_functions(pp_reader *r)
{
    int rc = build_index(r, &r->func_by_id, r->n_funcs, "Function.id", func_id);
    if (rc)
        return rc;
    r->func_ids = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(uint32_t));
    if (!r->func_ids)
        return oom(r);
    for (size_t i = 0; i < r->n_funcs; i++) {
        const pp_function *f = &r->funcs[i];
        profkit_function fn;
        memset(&fn, 0, sizeof(fn));
        if ((rc = pp_string(r, f->name, "Function.name", &fn.name)) ||
            (rc = pp_string(r, f->system_name, "Function.system_name", &fn.system_name)) ||
            (rc = pp_string(r, f->file, "Function.filename", &fn.file)))
            return rc;
        fn.start_line = clamp_u32(f->start_line);
        if ((r->func_ids[i] = pk_function_add(r->p, &fn)) == PROFKIT_NONE)
            return oom(r);
    }
    return 0;
}

/* Frames of every location, root first (the last Line is the outermost). */
static int resolve_locations(pp_reader *r)
{
    int rc = build_index(r, &r->loc_by_id, r->n_locs, "Location.id", loc_id);
    if (rc)
        return rc;
    /* Writers number locations 1..n: a direct table then replaces the
     * binary search every sample's every location id would cost. Its size
     * is bounded by the number of locations read, not by an id's value. */
    if (r->n_locs > 0 && r->loc_by_id[r->n_locs - 1].id < 2 * (uint64_t)r->n_locs + 64) {
        r->n_loc_dense = (size_t)r->loc_by_id[r->n_locs - 1].id + 1;
        if (!(r->loc_dense = malloc(r->n_loc_dense * sizeof(uint32_t))))
            return oom(r);
        for (size_t i = 0; i < r->n_loc_dense; i++)
            r->loc_dense[i] = PROFKIT_NONE;
        for (size_t i = 0; i < r->n_locs; i++)
            r->loc_dense[r->loc_by_id[i].id] = r->loc_by_id[i].idx;
    }
    for (size_t i = 0; i < r->n_locs; i++) {
        pp_location *l = &r->locs[i];
        profkit_frame fr;
        memset(&fr, 0, sizeof(fr));
        fr.address = l->address;
        fr.mapping = PROFKIT_NONE;
        if (l->mapping_id.v != 0) {
            uint32_t m = lookup(r->map_by_id, r->n_maps, (uint64_t)l->mapping_id.v);
            if (m == PROFKIT_NONE)
                return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)l->mapping_id.off,
                                         "Location.mapping_id: no mapping has id %" PRIu64,
                                         (uint64_t)l->mapping_id.v);
            fr.mapping = r->map_ids[m];
        }
        size_t nf = l->n_lines ? l->n_lines : 1;
        if (PK_VEC_RESERVE(r->frames, r->n_frames, r->cap_frames, nf))
            return oom(r);
        l->first_frame = r->n_frames;
        l->n_frames = nf;
        if (l->n_lines == 0) {
            char name[24];
            snprintf(name, sizeof(name), "0x%" PRIx64, l->address);
            fr.function = pk_function_add_named(r->p, name, NULL, NULL, 0);
            if (fr.function == PROFKIT_NONE ||
                (r->frames[r->n_frames++] = pk_frame_add(r->p, &fr)) == PROFKIT_NONE)
                return oom(r);
            continue;
        }
        for (size_t k = l->n_lines; k-- > 0;) {
            const pp_line *ln = &r->lines[l->first_line + k];
            uint32_t fi = ln->function_id.v ? lookup(r->func_by_id, r->n_funcs, (uint64_t)ln->function_id.v)
                                            : PROFKIT_NONE;
            if (fi == PROFKIT_NONE)
                return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)ln->function_id.off,
                                         "Line.function_id: no function has id %" PRIu64,
                                         (uint64_t)ln->function_id.v);
            fr.function = r->func_ids[fi];
            fr.line = clamp_u32(ln->line);
            fr.column = clamp_u32(ln->column);
            fr.inline_depth = (uint32_t)(l->n_lines - 1 - k); /* the last Line is the real call */
            if ((r->frames[r->n_frames++] = pk_frame_add(r->p, &fr)) == PROFKIT_NONE)
                return oom(r);
        }
    }
    return 0;
}

/* A Label: a `thread`/`thread_name` string label names the sample's
 * thread; any other is added to r->lab. */
static int read_label(pp_reader *r, const pp_field *outer, uint32_t *thread)
{
    pk_cursor c;
    pp_field f;
    pp_ref key = { 0, outer->off }, str = { 0, outer->off }, unit = { 0, outer->off };
    uint64_t num = 0;
    int rc;
    pp_sub(r, outer, &c);
    while (!pk_cursor_eof(&c)) {
        if ((rc = pp_next(r, &c, &f, "Label")))
            return rc;
        if (f.num == 1)
            rc = want_ref(r, &f, "Label.key", &key);
        else if (f.num == 2)
            rc = want_ref(r, &f, "Label.str", &str);
        else if (f.num == 3)
            rc = want_varint(r, &f, "Label.num", &num);
        else if (f.num == 4)
            rc = want_ref(r, &f, "Label.num_unit", &unit);
        if (rc)
            return rc;
    }
    uint32_t k = 0, s = 0, u = 0;
    if ((rc = pp_string(r, key, "Label.key", &k)) || (rc = pp_string(r, str, "Label.str", &s)) ||
        (rc = pp_string(r, unit, "Label.num_unit", &u)))
        return rc;
    if (str.v != 0) {
        const char *ks = pp_cstr(r, k);
        if (strcmp(ks, "thread") == 0 || strcmp(ks, "thread_name") == 0) {
            if (r->thread_of[str.v] == PROFKIT_NONE) {
                r->thread_of[str.v] = pk_thread_get(r->p, pp_cstr(r, s), "", -1, -1);
                if (r->thread_of[str.v] == PROFKIT_NONE) /* or past the thread limit */
                    return pk_read_fail(r->ctx, PROFKIT_ENOMEM, (int64_t)outer->off, "out of memory");
            }
            *thread = r->thread_of[str.v];
            return 0;
        }
    } else if (num == 0 && unit.v == 0) {
        return 0;
    }
    if (PK_VEC_RESERVE(r->lab, r->n_lab, r->cap_lab, 1))
        return oom(r);
    profkit_label *l = &r->lab[r->n_lab++];
    memset(l, 0, sizeof(*l));
    l->key = k;
    if (str.v != 0) {
        l->str = s;
    } else {
        l->is_num = 1;
        l->num = (int64_t)num;
        l->unit = u;
    }
    return 0;
}

/* Appends the location ids of a location_id field (packed or not). */
static int sample_location(pp_reader *r, const pp_field *f, pk_cursor *c)
{
    uint64_t id = f->v;
    size_t at = f->off;
    int rc;
    if (c) {
        at = c->pos;
        if ((rc = pk_cursor_varint(c, &id)))
            return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)at, "Sample.location_id: %s",
                                     rc == PROFKIT_ETRUNCATED ? "packed varint runs past the end of its field"
                                                              : "over-long varint");
    }
    uint32_t li = id < r->n_loc_dense ? r->loc_dense[id] : r->loc_dense ? PROFKIT_NONE
                                                                        : lookup(r->loc_by_id, r->n_locs, id);
    if (li == PROFKIT_NONE)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                 "Sample.location_id: no location has id %" PRIu64, id);
    if (PK_VEC_RESERVE(r->ids, r->n_ids, r->cap_ids, 1))
        return oom(r);
    r->ids[r->n_ids++] = li;
    return 0;
}

static int sample_value(pp_reader *r, const pp_field *f, pk_cursor *c, size_t *nv)
{
    uint64_t v = f->v;
    size_t at = f->off;
    int rc;
    if (c) {
        at = c->pos;
        if ((rc = pk_cursor_varint(c, &v)))
            return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)at, "Sample.value: %s",
                                     rc == PROFKIT_ETRUNCATED ? "packed varint runs past the end of its field"
                                                              : "over-long varint");
    }
    if (*nv >= r->n_vts)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)at,
                                 "Sample.value: more values than the %zu sample types", r->n_vts);
    r->values[(*nv)++] = (int64_t)v;
    return 0;
}

static int read_sample(pp_reader *r, const pp_range *s)
{
    pk_cursor c, pc;
    pp_field f;
    size_t nv = 0;
    uint32_t thread = PROFKIT_NONE;
    int rc;
    c.data = r->d;
    c.size = s->start + s->len;
    c.pos = s->start;
    r->n_ids = 0;
    r->n_lab = 0;
    while (!pk_cursor_eof(&c)) {
        if ((rc = pp_next(r, &c, &f, "Sample")))
            return rc;
        if (f.num == 1 || f.num == 2) {
            const char *what = f.num == 1 ? "Sample.location_id" : "Sample.value";
            if (f.wt == WT_VARINT) {
                rc = f.num == 1 ? sample_location(r, &f, NULL) : sample_value(r, &f, NULL, &nv);
            } else if (!(rc = want_wt(r, &f, WT_LEN, what))) {
                pp_sub(r, &f, &pc);
                while (!rc && !pk_cursor_eof(&pc))
                    rc = f.num == 1 ? sample_location(r, &f, &pc) : sample_value(r, &f, &pc, &nv);
            }
        } else if (f.num == 3) {
            if (!(rc = want_wt(r, &f, WT_LEN, "Sample.label")))
                rc = read_label(r, &f, &thread);
        }
        if (rc)
            return rc;
    }
    if (nv != r->n_vts)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)s->start,
                                 "Sample: %zu value(s), expected %zu (one per sample type)", nv, r->n_vts);
    uint32_t stack = 0;
    for (size_t k = r->n_ids; k-- > 0;) {
        const pp_location *l = &r->locs[r->ids[k]];
        /* Each id byte may stand for a location of many Lines: bound the
         * total work, or a small file could ask for billions of frames. */
        r->expanded += l->n_frames;
        if (r->expanded > r->max_expanded)
            return pk_read_fail(r->ctx, PROFKIT_EUNSUPPORTED, (int64_t)s->start,
                                     "Sample: the stacks expand to more than %zu frames in all "
                                     "(8 per input byte); refusing", r->max_expanded);
        for (size_t j = 0; j < l->n_frames; j++)
            if ((stack = pk_stack_intern(r->p, stack, r->frames[l->first_frame + j])) == PROFKIT_NONE)
                return pk_read_fail(r->ctx, PROFKIT_ENOMEM, (int64_t)s->start,
                                         "out of memory"); /* or past the depth limit */
    }
    if (thread == PROFKIT_NONE) {
        if (r->main_thread == PROFKIT_NONE &&
            (r->main_thread = pk_thread_get(r->p, "main", "", -1, -1)) == PROFKIT_NONE)
            return oom(r);
        thread = r->main_thread;
    }
    uint32_t labels = 0;
    if (r->n_lab && (labels = pk_labelset_intern(r->p, r->lab, r->n_lab)) == PROFKIT_NONE)
        return oom(r);
    if (pk_sample_add_labeled(r->p, stack, thread, labels, r->values))
        return oom(r);
    return 0;
}

static int resolve_value_types(pp_reader *r)
{
    int rc;
    for (size_t i = 0; i < r->n_vts; i++) {
        uint32_t t = 0, u = 0;
        if ((rc = pp_string(r, r->vts[i].type, "ValueType.type", &t)) ||
            (rc = pp_string(r, r->vts[i].unit, "ValueType.unit", &u)))
            return rc;
        size_t before = r->p->n_value_types;
        uint32_t v = pk_value_type_add(r->p, pp_cstr(r, t), pp_cstr(r, u));
        if (v == PROFKIT_NONE)
            return oom(r);
        if (r->p->n_value_types == before)
            return pk_read_fail(r->ctx, PROFKIT_EUNSUPPORTED, (int64_t)r->vts[i].type.off,
                                     "Profile.sample_type: %s/%s appears twice", pp_cstr(r, t), pp_cstr(r, u));
    }
    r->p->default_value = r->n_vts ? (uint32_t)(r->n_vts - 1) : 0;
    if (r->deflt.v != 0) {
        uint32_t ds = 0;
        if ((rc = pp_string(r, r->deflt, "Profile.default_sample_type", &ds)))
            return rc;
        for (size_t i = 0; i < r->n_vts; i++) {
            if (r->p->value_types[i].type == ds) {
                r->p->default_value = (uint32_t)i;
                break;
            }
        }
    }
    r->values = calloc(r->n_vts ? r->n_vts : 1, sizeof(int64_t));
    return r->values ? 0 : oom(r);
}

static int meta_i64(profkit_profile *p, const char *key, int64_t v)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%" PRId64, v);
    return pk_meta_add(p, key, buf);
}

static int resolve_metadata(pp_reader *r)
{
    profkit_profile *p = r->p;
    uint32_t s = 0, t = 0;
    int rc;
    if (r->has_period_type) {
        if ((rc = pp_string(r, r->period_type.type, "Profile.period_type.type", &s)) ||
            (rc = pp_string(r, r->period_type.unit, "Profile.period_type.unit", &t)))
            return rc;
        char buf[512];
        snprintf(buf, sizeof(buf), "%s/%s", pp_cstr(r, s), pp_cstr(r, t));
        if (pk_meta_add(p, "period_type", buf))
            return oom(r);
    }
    if ((r->has_period && meta_i64(p, "period", r->period)) ||
        (r->has_time && meta_i64(p, "time_nanos", r->time_nanos)) ||
        (r->has_duration && meta_i64(p, "duration_nanos", r->duration_nanos)))
        return oom(r);
    static const char *const keys[3] = { "drop_frames", "keep_frames", "default_sample_type" };
    const pp_ref *refs[3] = { &r->drop, &r->keep, &r->deflt };
    for (int i = 0; i < 3; i++) {
        if (refs[i]->v == 0)
            continue;
        if ((rc = pp_string(r, *refs[i], keys[i], &s)))
            return rc;
        if (pk_meta_add(p, keys[i], pp_cstr(r, s)))
            return oom(r);
    }
    for (size_t i = 0; i < r->n_comments; i++) {
        if ((rc = pp_string(r, r->comments[i], "Profile.comment", &s)))
            return rc;
        if (pk_meta_add(p, "comment", pp_cstr(r, s)))
            return oom(r);
    }
    return 0;
}

static void reader_free(pp_reader *r)
{
    free(r->strs);
    free(r->vts);
    free(r->samples);
    free(r->maps);
    free(r->funcs);
    free(r->locs);
    free(r->lines);
    free(r->comments);
    free(r->frames);
    free(r->ids);
    free(r->str_ids);
    free(r->thread_of);
    free(r->map_ids);
    free(r->func_ids);
    free(r->map_by_id);
    free(r->func_by_id);
    free(r->loc_by_id);
    free(r->loc_dense);
    free(r->values);
    free(r->lab);
}

static int pprof_read(profkit_profile *p, pk_read_ctx *ctx)
{
    pp_reader r;
    memset(&r, 0, sizeof(r));
    r.ctx = ctx;
    r.p = p;
    r.main_thread = PROFKIT_NONE;
    int rc = pk_source_all(ctx->src, &r.d, &r.n, ctx->err);
    if (rc)
        return rc;
    r.max_expanded = r.n > (SIZE_MAX - (1u << 20)) / 8 ? SIZE_MAX : r.n * 8 + (1u << 20);
    if (r.n == 0) {
        rc = pk_read_fail(ctx, PROFKIT_EFORMAT, -1, "empty input: expected a pprof Profile message");
        goto out;
    }
    if ((rc = read_profile(&r)) || (rc = intern_strings(&r)) || (rc = resolve_value_types(&r)) ||
        (rc = resolve_mappings(&r)) || (rc = resolve_functions(&r)) || (rc = resolve_locations(&r)))
        goto out;
    if (r.n_samples && !r.n_vts) {
        rc = pk_read_fail(ctx, PROFKIT_ECORRUPT, (int64_t)r.samples[0].start,
                               "Profile: samples but no sample_type");
        goto out;
    }
    for (size_t i = 0; i < r.n_samples; i++)
        if ((rc = read_sample(&r, &r.samples[i])))
            goto out;
    if (r.main_thread == PROFKIT_NONE && p->n_threads == 0 &&
        pk_thread_add(p, "main", "", -1, -1) == PROFKIT_NONE) {
        rc = oom(&r);
        goto out;
    }
    if ((rc = resolve_metadata(&r)))
        goto out;
out:
    reader_free(&r);
    return rc;
}

/* True when d[0..n) is a ValueType: only fields 1 and 2, small varints.
 * An empty one (neither type nor unit: a Go goroutine profile as Parca
 * stores it) is one too; Go reads it. */
static int sniff_value_type(const uint8_t *d, size_t n)
{
    pk_cursor c;
    uint8_t tag;
    uint64_t v;
    pk_cursor_init(&c, d, n);
    while (!pk_cursor_eof(&c))
        if (pk_cursor_u8(&c, &tag) || (tag != 0x08 && tag != 0x10) ||
            pk_cursor_varint(&c, &v) || v > 0x7fffffff)
            return 0;
    return 1;
}

/*
 * A raw Profile is a run of top-level fields with the numbers and wire types
 * of the schema; writers differ in their order (Go pprof starts with the
 * sample types, the Go runtime with time_nanos or period_type). The head
 * must hold only such fields, as far as it goes (at most 16 of them), and at
 * least one sample_type that is a well-formed ValueType. Other protobufs can
 * look like that, hence the modest score; `--format pprof` forces the reader.
 */
static int pprof_sniff(const uint8_t *d, size_t n, int complete)
{
    pk_cursor c;
    uint64_t tag, v;
    int seen_type = 0, whole = 1;
    pk_cursor_init(&c, d, n);
    /* The first 16 fields; all of them when the head is the whole input,
     * so a complete message without a sample type can still be told. */
    for (int i = 0; !pk_cursor_eof(&c); i++) {
        if (i >= 16 && !complete)
            break;
        whole = 0;
        if (pk_cursor_varint(&c, &tag))
            break;
        uint64_t num = tag >> 3;
        unsigned wt = (unsigned)(tag & 7);
        int want_len = (num >= 1 && num <= 6) || num == 11 || num == 13;
        int want_var = (num >= 7 && num <= 10) || (num >= 12 && num <= 14);
        if (i >= 16 && (wt == 1 || wt == 5)) {
            /* Past the first 16 fields, unknown fields are skipped as the
             * reader skips them. */
            if (pk_cursor_skip(&c, wt == 1 ? 8 : 4))
                break;
            whole = 1;
            continue;
        }
        if (i >= 16 && wt != WT_LEN && wt != WT_VARINT)
            break;
        if (i < 16 && !((wt == WT_LEN && want_len) || (wt == WT_VARINT && want_var)))
            return 0;
        if (wt == WT_VARINT) {
            if (pk_cursor_varint(&c, &v))
                break;
            whole = 1;
            continue;
        }
        if (pk_cursor_varint(&c, &v))
            break;
        if (v > pk_cursor_left(&c))
            break; /* runs past what we can see */
        const uint8_t *sub;
        pk_cursor_bytes(&c, (size_t)v, &sub);
        if (i < 16 && (num == 1 || num == 11) && !sniff_value_type(sub, (size_t)v))
            return 0;
        seen_type |= i < 16 && num == 1;
        whole = 1;
    }
    if (seen_type)
        return 40;
    /* A whole input that is nothing but fields of the schema, without a
     * sample type: the weakest claim, below every text format. */
    return complete && whole && pk_cursor_eof(&c) ? 5 : 0;
}

const pk_format pk_format_pprof = {
    { "pprof", "pprof protocol buffers profile (profile.proto; gzipped or raw)", ".pb .pprof", 1, 1 },
    pprof_sniff,
    pprof_read,
    pk_pprof_write,
};
