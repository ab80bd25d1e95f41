/*
 * perf_data.c: the binary perf.data that `perf record` writes (Linux perf),
 * read directly; the layout is the kernel's
 * tools/perf/Documentation/perf.data-file-format.txt and
 * include/uapi/linux/perf_event.h. The rules and rulings are in
 * docs/formats/perf_data.md.
 *
 * A file starts with the magic PERFILE2 (in the writer's byte order: read
 * little-endian it is "PERFILE2", big-endian "2ELIFREP") and a header:
 *   size (104), attr_size, attrs {offset, size}, data {offset, size},
 *   event_types {offset, size} (unused), a 256-bit feature bitmap.
 * attrs holds one perf_event_attr per event, each followed by the
 * {offset, size} of its u64 ids; data holds the records (a u32 type, u16
 * misc, u16 size header each); after data, one {offset, size} per feature
 * bit set, in bit order, locating the feature sections (build ids, host
 * name, OS release, command line, event names...).
 * In pipe mode (`perf record -o -`) the header is the magic and size 16
 * only: everything else comes as records in the stream (HEADER_ATTR with
 * its ids, EVENT_UPDATE names, HEADER_FEATURE sections, HEADER_BUILD_ID).
 *
 * This file reads the header, the attributes, the features and those
 * records, checks every record's size and lists the records to replay
 * (samples, mappings, command names, forks) with their times; they are
 * replayed in time order, as perf sorts them, by perf_data_events.c.
 */
#include "formats/perf/perf_data.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define FILE_HEADER 104
#define FILE_HEADER_NO_FEATURES 72 /* perf's first PERFILE2 files */
#define PIPE_HEADER 16
#define ATTR_VER0 64

/* Feature bits (tools/perf/util/header.h). */
enum {
    F_BUILD_ID = 2,
    F_HOSTNAME = 3,
    F_OSRELEASE = 4,
    F_VERSION = 5,
    F_ARCH = 6,
    F_NRCPUS = 7,
    F_CPUDESC = 8,
    F_CPUID = 9,
    F_TOTAL_MEM = 10,
    F_CMDLINE = 11,
    F_EVENT_DESC = 12,
    N_FEATURES = 256
};

static const char *feature_name(unsigned f)
{
    static const char *const names[] = {
        "reserved", "tracing_data", "build_id", "hostname", "osrelease", "version", "arch",
        "nrcpus", "cpudesc", "cpuid", "total_mem", "cmdline", "event_desc",
    };
    return f < sizeof(names) / sizeof(names[0]) ? names[f] : "other";
}

static int oom(pk_perf *r) { return pk_read_fail(r->ctx, PROFKIT_ENOMEM, -1, "out of memory"); }

/* ------------------------------------------------------------ attributes */

/* Bit `bit` of the attribute's flag word (the bitfields after
 * read_format): a big-endian writer numbers them from each byte's top. */
static int attr_flag(const pk_perf *r, const uint8_t *flags, unsigned bit)
{
    unsigned sh = r->be ? 7 - bit % 8 : bit % 8;
    return (flags[bit / 8] >> sh) & 1;
}

static uint32_t popcount64(uint64_t v) { return (uint32_t)__builtin_popcountll(v); }

/*
 * Reads one perf_event_attr from `avail` bytes at a (offset at). *used gets
 * its size (attr.size; 0 means the first version's 64 bytes).
 */
static int parse_attr(pk_perf *r, const uint8_t *a, size_t avail, int64_t at, pk_perf_attr *out,
                      size_t *used)
{
    memset(out, 0, sizeof(*out));
    out->vt = PROFKIT_NONE;
    out->at = at;
    if (avail < ATTR_VER0)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, at,
                            "event attribute: expected at least 64 bytes, there are %zu", avail);
    uint32_t size = pk_perf_u32(r, a + 4);
    if (size == 0)
        size = ATTR_VER0;
    if (size < ATTR_VER0)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, at + 4,
                            "event attribute size: expected at least 64, got %" PRIu32, size);
    size_t use = size < avail ? size : avail;
    *used = size;
    out->type = pk_perf_u32(r, a);
    out->config = pk_perf_u64(r, a + 8);
    out->sample_period = pk_perf_u64(r, a + 16);
    out->sample_type = pk_perf_u64(r, a + 24);
    out->read_format = pk_perf_u64(r, a + 32);
    out->freq = attr_flag(r, a + 40, 10);
    out->sample_id_all = attr_flag(r, a + 40, 18);
    out->branch_sample_type = use >= 80 ? pk_perf_u64(r, a + 72) : 0;
    out->n_regs_user = use >= 88 ? popcount64(pk_perf_u64(r, a + 80)) : 0;
    out->n_regs_intr = use >= 104 ? popcount64(pk_perf_u64(r, a + 96)) : 0;
    uint64_t t = out->sample_type;
    if (t & ~(uint64_t)PK_PERF_S_KNOWN)
        return pk_read_fail(r->ctx, PROFKIT_EUNSUPPORTED, at + 24,
                            "event attribute sample_type 0x%" PRIx64 ": has bits profkit does "
                            "not know, so the layout of its samples is unknown",
                            t);
    if (out->read_format & ~(uint64_t)31)
        return pk_read_fail(r->ctx, PROFKIT_EUNSUPPORTED, at + 32,
                            "event attribute read_format 0x%" PRIx64 ": has bits profkit does "
                            "not know, so the layout of its samples is unknown",
                            out->read_format);
    /* Where the id is (perf's __evsel__calc_id_pos and _is_pos). */
    if (t & PK_PERF_S_IDENTIFIER) {
        out->id_pos = 0;
        out->is_pos = 1;
    } else if (t & PK_PERF_S_ID) {
        out->id_pos = !!(t & PK_PERF_S_IP) + !!(t & PK_PERF_S_TID) + !!(t & PK_PERF_S_TIME) +
                      !!(t & PK_PERF_S_ADDR);
        out->is_pos = 1 + !!(t & PK_PERF_S_CPU) + !!(t & PK_PERF_S_STREAM_ID);
    } else {
        out->id_pos = out->is_pos = -1;
    }
    out->trailer = 8 * (uint32_t)(!!(t & PK_PERF_S_TID) + !!(t & PK_PERF_S_TIME) +
                                  !!(t & PK_PERF_S_ID) + !!(t & PK_PERF_S_STREAM_ID) +
                                  !!(t & PK_PERF_S_CPU) + !!(t & PK_PERF_S_IDENTIFIER));
    return 0;
}

static int id_put(pk_perf *r, uint64_t id, uint32_t attr)
{
    if ((r->id_used + 1) * 2 > r->id_cap) {
        size_t ncap = r->id_cap ? r->id_cap * 2 : 64;
        uint64_t *nk = calloc(ncap, sizeof(uint64_t));
        uint32_t *na = calloc(ncap, sizeof(uint32_t));
        if (!nk || !na) {
            free(nk);
            free(na);
            return PROFKIT_ENOMEM;
        }
        for (size_t i = 0; i < r->id_cap; i++) {
            if (!r->id_attr[i])
                continue;
            size_t j = pk_hash_u64(r->id_key[i]) & (ncap - 1);
            while (na[j])
                j = (j + 1) & (ncap - 1);
            nk[j] = r->id_key[i];
            na[j] = r->id_attr[i];
        }
        free(r->id_key);
        free(r->id_attr);
        r->id_key = nk;
        r->id_attr = na;
        r->id_cap = ncap;
    }
    size_t mask = r->id_cap - 1, j = pk_hash_u64(id) & mask;
    for (; r->id_attr[j]; j = (j + 1) & mask)
        if (r->id_key[j] == id)
            return 0; /* the first attr with an id keeps it */
    r->id_key[j] = id;
    r->id_attr[j] = attr + 1;
    r->id_used++;
    return 0;
}

/* Adds an attr and its n ids (u64s at ids). */
static int add_attr(pk_perf *r, const pk_perf_attr *a, const uint8_t *ids, size_t n)
{
    if (r->n_attrs >= UINT32_MAX - 1 || PK_VEC_RESERVE(r->attrs, r->n_attrs, r->cap_attrs, 1))
        return oom(r);
    uint32_t idx = (uint32_t)r->n_attrs;
    r->attrs[r->n_attrs++] = *a;
    for (size_t i = 0; i < n; i++)
        if (id_put(r, pk_perf_u64(r, ids + 8 * i), idx))
            return oom(r);
    r->layout_checked = 0;
    return 0;
}

/*
 * With several events, perf tells their records apart by the id each
 * carries: every attr must put it at the same place, and agree on
 * sample_id_all (perf's evlist__valid_sample_type and _sample_id_all).
 */
static int check_layout(pk_perf *r)
{
    if (r->layout_checked)
        return 0;
    const pk_perf_attr *f = &r->attrs[0];
    r->timed = 1;
    for (size_t i = 0; i < r->n_attrs; i++) {
        const pk_perf_attr *a = &r->attrs[i];
        if (!(a->sample_type & PK_PERF_S_TIME))
            r->timed = 0;
        if (r->n_attrs == 1)
            break;
        if (a->id_pos < 0 || a->id_pos != f->id_pos || a->is_pos != f->is_pos)
            return pk_read_fail(r->ctx, PROFKIT_EUNSUPPORTED, a->at + 24,
                                "event attribute sample_type: %zu events, and this one does "
                                "not carry its id (ID or IDENTIFIER) where the first does, so "
                                "their records cannot be told apart",
                                r->n_attrs);
        if (a->sample_id_all != f->sample_id_all)
            return pk_read_fail(r->ctx, PROFKIT_EUNSUPPORTED, a->at + 40,
                                "event attribute sample_id_all: %zu events that differ in it, so "
                                "their records cannot be told apart",
                                r->n_attrs);
    }
    r->layout_checked = 1;
    return 0;
}

/* The attrs section of a file: attr_size bytes each, the attr then the
 * {offset, size} of its ids. */
static int read_attrs(pk_perf *r, uint64_t attr_size, uint64_t off, uint64_t size)
{
    if (attr_size < ATTR_VER0 + 16 || attr_size > 65536)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, 16,
                            "header attr_size: expected 80 to 65536 (an event attribute and its "
                            "ids section), got %" PRIu64,
                            attr_size);
    if (off > r->n || size > r->n - off)
        return pk_read_fail(r->ctx, PROFKIT_ETRUNCATED, 24,
                            "header attrs section (offset %" PRIu64 ", %" PRIu64 " bytes): runs "
                            "past the end of the input (%zu bytes)",
                            off, size, r->n);
    if (size == 0 || size % attr_size)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, 32,
                            "header attrs section size: expected a non-zero multiple of "
                            "attr_size %" PRIu64 ", got %" PRIu64,
                            attr_size, size);
    for (uint64_t at = off; at < off + size; at += attr_size) {
        const uint8_t *a = r->d + at;
        pk_perf_attr attr;
        size_t used;
        int rc = parse_attr(r, a, (size_t)attr_size - 16, (int64_t)at, &attr, &used);
        if (rc)
            return rc;
        const uint8_t *sec = a + attr_size - 16;
        uint64_t ids_off = pk_perf_u64(r, sec), ids_size = pk_perf_u64(r, sec + 8);
        if (ids_off > r->n || ids_size > r->n - ids_off || ids_size % 8)
            return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)(at + attr_size - 16),
                                "event attribute ids section (offset %" PRIu64 ", %" PRIu64
                                " bytes): expected whole u64 ids inside the input (%zu bytes)",
                                ids_off, ids_size, r->n);
        if ((rc = add_attr(r, &attr, r->d + ids_off, (size_t)(ids_size / 8))))
            return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------- features */

/* A feature string: u32 length (padded, with the NUL), then the bytes. */
static int feature_string(const pk_perf *r, pk_cursor *c, const char **s, size_t *len)
{
    uint32_t n;
    const uint8_t *b;
    if (pk_perf_rd32(r, c, &n) || pk_cursor_bytes(c, n, &b))
        return PROFKIT_ETRUNCATED;
    *s = (const char *)b;
    const uint8_t *z = memchr(b, 0, n);
    *len = z ? (size_t)(z - b) : n;
    return 0;
}

static int bad_feature(pk_perf *r, unsigned f, int64_t at)
{
    return pk_read_warn(r->ctx, PROFKIT_ECORRUPT, at,
                        "feature section %s: its contents run past its end; the feature is "
                        "skipped",
                        feature_name(f));
}

static void hex(char *out, const uint8_t *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = 0;
}

/*
 * Build id records (the build_id feature, HEADER_BUILD_ID records): each a
 * record header, a pid, 20 bytes of build id and its length (when misc has
 * PERF_RECORD_MISC_BUILD_ID_SIZE), then the file name.
 */
static int build_ids(pk_perf *r, const uint8_t *d, size_t n, int64_t at, int one)
{
    size_t pos = 0;
    while (pos < n) {
        if (n - pos < 36)
            return 1;
        uint16_t misc = pk_perf_u16(r, d + pos + 4), size = pk_perf_u16(r, d + pos + 6);
        if (size < 36 || size > n - pos)
            return 1;
        const uint8_t *b = d + pos;
        size_t bl = 20;
        if (misc & (1u << 15)) {
            bl = b[32] < 20 ? b[32] : 20;
        } else {
            /* Before the length was recorded, a 16-byte (MD5) id was
             * padded with zeros to 20. */
            static const uint8_t zero[4];
            if (memcmp(b + 28, zero, 4) == 0)
                bl = 16;
        }
        const uint8_t *name = b + 36;
        const uint8_t *z = memchr(name, 0, size - 36u);
        size_t name_len = z ? (size_t)(z - name) : size - 36u;
        char id[41];
        hex(id, b + 12, bl);
        if (name_len && bl) {
            pk_perf_buildid e;
            e.path = profkit_string_intern(r->p, (const char *)name, name_len);
            e.build_id = profkit_string_intern_cstr(r->p, id);
            if (e.path == PROFKIT_NONE || e.build_id == PROFKIT_NONE ||
                PK_VEC_RESERVE(r->buildids, r->n_buildids, r->cap_buildids, 1))
                return oom(r);
            r->buildids[r->n_buildids++] = e;
        }
        pos += size;
        if (one)
            break;
    }
    (void)at;
    return 0;
}

/* The event_desc feature: u32 count, u32 attr size, then per event its
 * attr, u32 id count, its name (a feature string) and its ids. */
static int event_desc(pk_perf *r, pk_cursor *c)
{
    uint32_t nr, asz;
    if (pk_perf_rd32(r, c, &nr) || pk_perf_rd32(r, c, &asz))
        return 1;
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t n_ids;
        const char *name;
        size_t len;
        const uint8_t *ids;
        if (pk_cursor_skip(c, asz) || pk_perf_rd32(r, c, &n_ids) ||
            feature_string(r, c, &name, &len) || n_ids > pk_cursor_left(c) / 8 ||
            pk_cursor_bytes(c, (size_t)n_ids * 8, &ids))
            return 1;
        /* The attr is the one holding its first id (perf matches them so);
         * an event without ids is taken in order. */
        pk_perf_attr *a = n_ids ? pk_perf_attr_of_id(r, pk_perf_u64(r, ids))
                          : i < r->n_attrs ? &r->attrs[i]
                                           : NULL;
        if (a && len && !a->name &&
            (a->name = profkit_string_intern(r->p, name, len)) == PROFKIT_NONE)
            return oom(r);
    }
    return 0;
}

/* Reads feature f from n bytes at d (offset at). Returns 0, a warning's
 * code under --strict, or an error. */
static int feature(pk_perf *r, unsigned f, const uint8_t *d, size_t n, int64_t at)
{
    pk_cursor c;
    pk_cursor_init(&c, d, n);
    const char *s;
    size_t len;
    int rc = 0;
    static const char *const keys[] = {
        [F_HOSTNAME] = "hostname", [F_OSRELEASE] = "os_release", [F_VERSION] = "perf_version",
        [F_ARCH] = "arch", [F_CPUDESC] = "cpu_desc", [F_CPUID] = "cpuid",
    };
    switch (f) {
    case F_HOSTNAME:
    case F_OSRELEASE:
    case F_VERSION:
    case F_ARCH:
    case F_CPUDESC:
    case F_CPUID:
        if (feature_string(r, &c, &s, &len))
            return bad_feature(r, f, at);
        if (pk_meta_add_len(r->p, keys[f], s, len))
            return oom(r);
        return 0;
    case F_NRCPUS: {
        uint32_t avail, online;
        char buf[16];
        if (pk_perf_rd32(r, &c, &avail) || pk_perf_rd32(r, &c, &online))
            return bad_feature(r, f, at);
        snprintf(buf, sizeof(buf), "%" PRIu32, online);
        if (pk_meta_add(r->p, "nr_cpus_online", buf))
            return oom(r);
        snprintf(buf, sizeof(buf), "%" PRIu32, avail);
        if (pk_meta_add(r->p, "nr_cpus_available", buf))
            return oom(r);
        return 0;
    }
    case F_TOTAL_MEM: {
        uint64_t kb;
        char buf[24];
        if (pk_perf_rd64(r, &c, &kb))
            return bad_feature(r, f, at);
        snprintf(buf, sizeof(buf), "%" PRIu64, kb);
        return pk_meta_add(r->p, "total_memory_kb", buf) ? oom(r) : 0;
    }
    case F_CMDLINE: {
        uint32_t nr;
        if (pk_perf_rd32(r, &c, &nr))
            return bad_feature(r, f, at);
        char *line = NULL;
        size_t used = 0, cap = 0;
        for (uint32_t i = 0; i < nr && !rc; i++) {
            if (feature_string(r, &c, &s, &len)) {
                rc = 1;
                break;
            }
            if (PK_VEC_RESERVE(line, used, cap, len + 2)) {
                free(line);
                return oom(r);
            }
            if (i)
                line[used++] = ' ';
            memcpy(line + used, s, len);
            used += len;
        }
        if (rc) {
            free(line);
            return bad_feature(r, f, at);
        }
        rc = pk_meta_add_len(r->p, "cmdline", line ? line : "", used);
        free(line);
        return rc ? oom(r) : 0;
    }
    case F_EVENT_DESC:
        rc = event_desc(r, &c);
        return rc == 1 ? bad_feature(r, f, at) : rc;
    case F_BUILD_ID:
        rc = build_ids(r, d, n, at, 0);
        return rc == 1 ? bad_feature(r, f, at) : rc;
    default:
        return 0;
    }
}

/* The feature sections of a file: one {offset, size} per bit set, in bit
 * order, at `table`. Returns 0, 1 when the input ends first, or a code. */
static int read_features(pk_perf *r, const uint8_t *bitmap, uint64_t table)
{
    unsigned bits[N_FEATURES], k = 0;
    for (unsigned f = 0; f < N_FEATURES; f++)
        if ((pk_perf_u64(r, bitmap + 8 * (f / 64)) >> (f % 64)) & 1)
            bits[k++] = f;
    if (table > r->n || (uint64_t)k * 16 > r->n - table)
        return 1;
    for (unsigned i = 0; i < k; i++) {
        const uint8_t *sec = r->d + table + 16 * i;
        uint64_t off = pk_perf_u64(r, sec), size = pk_perf_u64(r, sec + 8);
        if (off > r->n || size > r->n - off)
            return 1;
        int rc = feature(r, bits[i], r->d + off, (size_t)size, (int64_t)off);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------- records */

static const char *record_name(uint32_t type)
{
    switch (type) {
    case PK_PERF_MMAP: return "MMAP";
    case PK_PERF_COMM: return "COMM";
    case PK_PERF_EXIT: return "EXIT";
    case PK_PERF_FORK: return "FORK";
    case PK_PERF_MMAP2: return "MMAP2";
    case PK_PERF_LOST: return "LOST";
    case PK_PERF_LOST_SAMPLES: return "LOST_SAMPLES";
    case PK_PERF_HEADER_ATTR: return "HEADER_ATTR";
    case PK_PERF_EVENT_UPDATE: return "EVENT_UPDATE";
    case PK_PERF_HEADER_FEATURE: return "HEADER_FEATURE";
    case PK_PERF_HEADER_TRACING_DATA: return "HEADER_TRACING_DATA";
    case PK_PERF_AUXTRACE: return "AUXTRACE";
    default: return "record";
    }
}

/* The fixed part of a replayed non-sample record's body, before its name
 * and trailer. */
static size_t fixed_size(uint32_t type)
{
    switch (type) {
    case PK_PERF_MMAP: return 32;
    case PK_PERF_MMAP2: return 64;
    case PK_PERF_COMM: return 8;
    case PK_PERF_FORK:
    case PK_PERF_EXIT: return 24;
    default: return 0;
    }
}

static int too_short(pk_perf *r, uint32_t type, size_t size, size_t need, int64_t at)
{
    return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, at,
                        "%s record: %zu bytes, too short for its fields (%zu bytes with the "
                        "record header)",
                        record_name(type), size, need);
}

/* A metadata record in the stream (pipe mode mostly). */
static int meta_record(pk_perf *r, uint32_t type, const uint8_t *rec, size_t size, int64_t at)
{
    const uint8_t *b = rec + 8;
    size_t n = size - 8;
    switch (type) {
    case PK_PERF_HEADER_ATTR: {
        pk_perf_attr a;
        size_t used;
        int rc = parse_attr(r, b, n, at + 8, &a, &used);
        if (rc)
            return rc;
        if (used > n)
            return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, at + 12,
                                "HEADER_ATTR record: the attribute's size %zu runs past the "
                                "record's %zu bytes",
                                used, n);
        return add_attr(r, &a, b + used, (n - used) / 8);
    }
    case PK_PERF_EVENT_UPDATE: {
        if (n < 16)
            return too_short(r, type, size, 24, at);
        /* u64 type (2 = the event's name), u64 id, then the name. */
        if (pk_perf_u64(r, b) != 2)
            return 0;
        pk_perf_attr *a = pk_perf_attr_of_id(r, pk_perf_u64(r, b + 8));
        const uint8_t *z = memchr(b + 16, 0, n - 16);
        size_t len = z ? (size_t)(z - (b + 16)) : n - 16;
        if (a && len && (a->name = profkit_string_intern(r->p, (const char *)b + 16, len)) == PROFKIT_NONE)
            return oom(r);
        return 0;
    }
    case PK_PERF_HEADER_FEATURE:
        if (n < 8)
            return too_short(r, type, size, 16, at);
        {
            uint64_t f = pk_perf_u64(r, b);
            return f < N_FEATURES ? feature(r, (unsigned)f, b + 8, n - 8, at + 16) : 0;
        }
    case PK_PERF_HEADER_BUILD_ID: {
        int rc = build_ids(r, rec, size, at, 1);
        return rc == 1 ? pk_read_warn(r->ctx, PROFKIT_ECORRUPT, at,
                                      "HEADER_BUILD_ID record: too short for its build id and "
                                      "file name; skipped")
                       : rc;
    }
    default:
        return 0;
    }
}

enum { CUT_NONE, CUT_HEADER, CUT_RECORD, CUT_DATA, CUT_FEATURES };

typedef struct scan_state {
    int cut;         /* CUT_*: how the input ended early */
    int64_t cut_at;  /* where */
    size_t cut_size; /* the cut record's size */
    size_t cut_have; /* how much of it there is */
    int unfinished;  /* the header's data size is 0: perf record did not finish */
    uint64_t last_time;
} scan_state;

/* Records to list: the input's, or what its COMPRESSED records decompress
 * to (listed at offsets n.. of the input's: pk_perf_record_at). */
typedef struct segment {
    const uint8_t *d;
    size_t n;
    uint64_t index_base; /* added to a record's position in the list */
    int64_t at;          /* the offset messages give; -1: the record's own */
} segment;

/*
 * Lists the records of [start, end) of g (end: the data section's end by
 * the header, or the input's) and reads the metadata ones.
 */
static int scan(pk_perf *r, const segment *g, size_t start, size_t end, scan_state *st)
{
    size_t pos = start;
    uint64_t count = 0;
    while (pos < end) {
        int64_t at = g->at >= 0 ? g->at : (int64_t)pos;
        if ((++count & 0xffff) == 0 && g->at < 0)
            pk_read_progress(r->ctx, pos, r->n);
        if (g->n - pos < 8) {
            st->cut = CUT_HEADER;
            st->cut_at = at;
            st->cut_have = g->n - pos;
            return 0;
        }
        const uint8_t *rec = g->d + pos;
        uint32_t type = pk_perf_u32(r, rec);
        size_t size = pk_perf_u16(r, rec + 6);
        if (size < 8)
            return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, g->at >= 0 ? at : at + 6,
                                "record size: expected at least 8 (the record header), got %zu",
                                size);
        if (size > g->n - pos) {
            st->cut = CUT_RECORD;
            st->cut_at = at;
            st->cut_size = size;
            st->cut_have = g->n - pos;
            return 0;
        }
        if (size > end - pos)
            return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, at,
                                "record of %zu bytes: runs past the end of the data section "
                                "(offset %zu)",
                                size, end);
        size_t next = pos + size;
        /* Records whose payload follows them in the stream. */
        if (type == PK_PERF_HEADER_TRACING_DATA || type == PK_PERF_AUXTRACE) {
            uint64_t extra;
            if (type == PK_PERF_HEADER_TRACING_DATA) {
                if (size < 12)
                    return too_short(r, type, size, 12, at);
                extra = ((uint64_t)pk_perf_u32(r, rec + 8) + 7) & ~(uint64_t)7;
            } else {
                if (size < 16)
                    return too_short(r, type, size, 16, at);
                extra = pk_perf_u64(r, rec + 8);
            }
            if (extra > g->n - next) {
                st->cut = CUT_RECORD;
                st->cut_at = at;
                st->cut_size = extra > SIZE_MAX - size ? SIZE_MAX : size + (size_t)extra;
                st->cut_have = g->n - pos;
                return 0;
            }
            if (extra > end - next)
                return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, at,
                                    "%s record: its %" PRIu64 " bytes of data run past the end "
                                    "of the data section (offset %zu)",
                                    record_name(type), extra, end);
            next += (size_t)extra;
        }
        int rc = 0;
        switch (type) {
        case PK_PERF_SAMPLE:
        case PK_PERF_MMAP:
        case PK_PERF_MMAP2:
        case PK_PERF_COMM:
        case PK_PERF_FORK:
        case PK_PERF_EXIT: {
            if (r->n_attrs == 0)
                return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, at,
                                    "%s record: comes before any event attribute (HEADER_ATTR)",
                                    type == PK_PERF_SAMPLE ? "SAMPLE" : record_name(type));
            if ((rc = check_layout(r)))
                return rc;
            const pk_perf_attr *a = pk_perf_record_attr(r, type, rec, size);
            if (type != PK_PERF_SAMPLE) {
                if (!a)
                    a = &r->attrs[0];
                size_t need = 8 + fixed_size(type) + (a->sample_id_all ? a->trailer : 0);
                if (size < need)
                    return too_short(r, type, size, need, at);
            }
            uint64_t time = 0;
            if (a && (rc = pk_perf_record_time(r, a, type, rec, size, at, &time)))
                return rc;
            if (type == PK_PERF_EXIT)
                break; /* nothing of it is kept */
            /* A record without a time stays where it is among the others. */
            if (time)
                st->last_time = time;
            else
                time = st->last_time;
            if (PK_VEC_RESERVE(r->recs, r->n_recs, r->cap_recs, 1))
                return oom(r);
            r->recs[r->n_recs].time = time;
            r->recs[r->n_recs].off = g->index_base + pos;
            r->n_recs++;
            break;
        }
        case PK_PERF_LOST:
            if (size >= 24)
                r->lost += pk_perf_u64(r, rec + 16);
            break;
        case PK_PERF_LOST_SAMPLES:
            if (size >= 16)
                r->lost_samples += pk_perf_u64(r, rec + 8);
            break;
        case PK_PERF_COMPRESSED:
            /* perf record -z: the payloads of all of them are one zstd
             * stream of records, decompressed after this listing */
            if (g->at >= 0)
                return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, at,
                                    "COMPRESSED record: inside the compressed records");
            if (!r->zlen)
                r->z_at = at;
            if (size == 8)
                break; /* no payload */
            if (PK_VEC_RESERVE(r->zbuf, r->zlen, r->zcap, size - 8))
                return oom(r);
            memcpy(r->zbuf + r->zlen, rec + 8, size - 8);
            r->zlen += size - 8;
            break;
        default:
            rc = meta_record(r, type, rec, size, at);
            break;
        }
        if (rc)
            return rc;
        pos = next;
    }
    return 0;
}

static int rec_less(const pk_perf_rec *a, const pk_perf_rec *b)
{
    return a->time < b->time || (a->time == b->time && a->off < b->off);
}

/* Sorts the records by (time, offset): a merge of the runs already in
 * order (a file holds each CPU's buffer in order, a few at a time). */
static int sort_recs(pk_perf *r)
{
    size_t n = r->n_recs, i;
    for (i = 1; i < n && !rec_less(&r->recs[i], &r->recs[i - 1]); i++)
        ;
    if (i >= n)
        return 0;
    pk_perf_rec *tmp = malloc(n * sizeof(pk_perf_rec));
    if (!tmp)
        return oom(r);
    pk_perf_rec *src = r->recs, *dst = tmp;
    for (;;) {
        size_t runs = 0;
        for (i = 0; i < n;) {
            size_t a = i, m = i + 1;
            while (m < n && !rec_less(&src[m], &src[m - 1]))
                m++;
            size_t b = m;
            if (b < n)
                for (b = m + 1; b < n && !rec_less(&src[b], &src[b - 1]); b++)
                    ;
            size_t x = a, y = m, o = a;
            while (x < m && y < b)
                dst[o++] = rec_less(&src[y], &src[x]) ? src[y++] : src[x++];
            while (x < m)
                dst[o++] = src[x++];
            while (y < b)
                dst[o++] = src[y++];
            runs++;
            i = b;
        }
        pk_perf_rec *t = src;
        src = dst;
        dst = t;
        if (runs == 1)
            break;
    }
    if (src != r->recs)
        memcpy(r->recs, src, n * sizeof(pk_perf_rec));
    free(tmp);
    return 0;
}

/* The name perf gives an event no name was recorded for (evsel__name). */
static int fallback_name(pk_perf *r, pk_perf_attr *a)
{
    static const char *const hw[] = {
        "cycles", "instructions", "cache-references", "cache-misses", "branches",
        "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
        "ref-cycles",
    };
    static const char *const sw[] = {
        "cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
        "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
        "bpf-output", "cgroup-switches",
    };
    char buf[64];
    if (a->type == 0 && a->config < sizeof(hw) / sizeof(hw[0]))
        snprintf(buf, sizeof(buf), "%s", hw[a->config]);
    else if (a->type == 1 && a->config < sizeof(sw) / sizeof(sw[0]))
        snprintf(buf, sizeof(buf), "%s", sw[a->config]);
    else if (a->type == 4)
        snprintf(buf, sizeof(buf), "r%" PRIx64, a->config);
    else
        snprintf(buf, sizeof(buf), "event-%" PRIu32 "-0x%" PRIx64, a->type, a->config);
    return (a->name = profkit_string_intern_cstr(r->p, buf)) == PROFKIT_NONE ? oom(r) : 0;
}

static int report_cut(pk_perf *r, const scan_state *st, size_t n_samples)
{
    int rc = 0;
    if (st->unfinished)
        rc = pk_read_warn(r->ctx, PROFKIT_ETRUNCATED, 48,
                          "header data size: 0, as perf record leaves it until it finishes "
                          "(killed?); the records up to the end of the input are read, and "
                          "there are no feature sections");
    if (rc)
        return rc;
    switch (st->cut) {
    case CUT_HEADER:
        if (!r->pipe && !st->unfinished)
            return pk_read_warn(r->ctx, PROFKIT_ETRUNCATED, st->cut_at,
                                "record header: the input ends after %zu of its 8 bytes "
                                "(truncated file?); the %zu samples before it are kept, the "
                                "feature sections after the data (event names, build ids) are "
                                "missing",
                                st->cut_have, n_samples);
        return pk_read_warn(r->ctx, PROFKIT_ETRUNCATED, st->cut_at,
                            "record header: the input ends after %zu of its 8 bytes (truncated "
                            "file?); the %zu samples before it are kept",
                            st->cut_have, n_samples);
    case CUT_RECORD:
        if (!r->pipe && !st->unfinished)
            return pk_read_warn(r->ctx, PROFKIT_ETRUNCATED, st->cut_at,
                                "record of %zu bytes: the input ends after %zu of them "
                                "(truncated file?); the %zu samples before it are kept, the "
                                "feature sections after the data (event names, build ids) are "
                                "missing",
                                st->cut_size, st->cut_have, n_samples);
        return pk_read_warn(r->ctx, PROFKIT_ETRUNCATED, st->cut_at,
                            "record of %zu bytes: the input ends after %zu of them (truncated "
                            "file?); the %zu samples before it are kept",
                            st->cut_size, st->cut_have, n_samples);
    case CUT_DATA:
        return pk_read_warn(r->ctx, PROFKIT_ETRUNCATED, st->cut_at,
                            "the input ends inside the data section, which the header says "
                            "runs to offset %zu (truncated file?); the %zu samples before the "
                            "cut are kept, the feature sections after the data (event names, "
                            "build ids) are missing",
                            st->cut_size, n_samples);
    case CUT_FEATURES:
        return pk_read_warn(r->ctx, PROFKIT_ETRUNCATED, st->cut_at,
                            "the input ends inside the feature sections after the data "
                            "(truncated file?); every sample is kept, the features cut "
                            "(event names, build ids, host) are missing");
    default:
        return 0;
    }
}

static int add_metadata(pk_perf *r)
{
    profkit_profile *p = r->p;
    if (pk_meta_add(p, "format_version", "2") ||
        pk_meta_add(p, "mode", r->pipe ? "pipe" : "file") ||
        pk_meta_add(p, "byte_order", r->be ? "big-endian" : "little-endian"))
        return oom(r);
    return 0;
}

/* perf never ends its zstd frame: the end of the payloads is its end. */
static int zstd_end(void *payload, const char *comp, uint64_t raw, uint64_t decoded)
{
    (void)payload;
    (void)comp;
    (void)raw;
    (void)decoded;
    return 0;
}

/* Lists the records the COMPRESSED records hold (perf record -z). */
static int decompress(pk_perf *r, scan_state *st)
{
    int rc = pk_source_open_memory(&r->zsrc, r->zbuf, r->zlen, r->ctx->name, r->ctx->err);
    if (rc)
        return rc;
    pk_source_set_max_ratio(r->zsrc, r->ctx->opts->max_inflate);
    pk_source_set_on_cut(r->zsrc, zstd_end, NULL);
    if ((rc = pk_source_all(r->zsrc, &r->dd, &r->dn, r->ctx->err))) {
        /* (the decoder's message, at the first COMPRESSED record) */
        r->ctx->err->has_offset = 1;
        r->ctx->err->offset = (uint64_t)r->z_at;
        return rc;
    }
    if (pk_source_compression(r->zsrc) != PROFKIT_COMP_ZSTD)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, r->z_at,
                            "COMPRESSED record: expected zstd data (28 b5 2f fd), as perf "
                            "record -z writes");
    segment g = { r->dd, r->dn, r->n, r->z_at };
    scan_state input = *st; /* a cut of the input is the one to report */
    rc = scan(r, &g, 0, r->dn, st);
    if (input.cut != CUT_NONE) {
        input.last_time = st->last_time;
        *st = input;
    }
    return rc;
}

static int finish(pk_perf *r, scan_state *st)
{
    int rc;
    if (r->zlen && (rc = decompress(r, st)))
        return rc;
    if (r->n_attrs == 0)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, (int64_t)r->n,
                            "expected at least one event attribute (HEADER_ATTR record)");
    if ((rc = check_layout(r)))
        return rc;
    for (size_t i = 0; i < r->n_attrs; i++)
        if (!r->attrs[i].name && (rc = fallback_name(r, &r->attrs[i])))
            return rc;
    if ((rc = sort_recs(r)) || (rc = pk_perf_replay(r)))
        return rc;
    profkit_profile *p = r->p;
    if (p->n_value_types == 0) {
        /* No sample at all: the first event's value type, so the profile
         * still says what was recorded. */
        const char *name = pk_str(p, r->attrs[0].name);
        size_t base = strcspn(name, ":");
        int ns = (base == 9 && memcmp(name, "cpu-clock", 9) == 0) ||
                 (base == 10 && memcmp(name, "task-clock", 10) == 0);
        uint32_t vt = pk_value_type_add(p, name, ns ? "nanoseconds" : "count");
        if (vt == PROFKIT_NONE || pk_value_type_add(p, "samples", "count") == PROFKIT_NONE)
            return oom(r);
        p->default_value = vt;
    }
    for (size_t i = 0; i < r->n_attrs; i++)
        if (pk_meta_add(p, "event", pk_str(p, r->attrs[i].name)))
            return oom(r);
    char buf[24];
    if (r->lost) {
        snprintf(buf, sizeof(buf), "%" PRIu64, r->lost);
        if (pk_meta_add(p, "lost_events", buf))
            return oom(r);
    }
    if (r->lost_samples) {
        snprintf(buf, sizeof(buf), "%" PRIu64, r->lost_samples);
        if (pk_meta_add(p, "lost_samples", buf))
            return oom(r);
    }
    size_t n_samples = 0;
    for (size_t i = 0; i < r->n_recs; i++)
        n_samples += pk_perf_u32(r, pk_perf_record_at(r, r->recs[i].off)) == PK_PERF_SAMPLE;
    if ((rc = report_cut(r, st, n_samples - (size_t)r->unknown_id)))
        return rc;
    if (r->unknown_id)
        return pk_read_warn(r->ctx, PROFKIT_ECORRUPT, r->unknown_id_at,
                            "SAMPLE record: its id is no event attribute's; %" PRIu64
                            " such samples are skipped",
                            r->unknown_id);
    return 0;
}

static int read_file_mode(pk_perf *r)
{
    const uint8_t *d = r->d;
    uint64_t hsize = pk_perf_u64(r, d + 8);
    if (hsize != FILE_HEADER && hsize != FILE_HEADER_NO_FEATURES)
        return pk_read_fail(r->ctx, PROFKIT_ECORRUPT, 8,
                            "header size: expected 104 (a file) or 16 (a pipe), got %" PRIu64,
                            hsize);
    if (r->n < hsize)
        return pk_read_fail(r->ctx, PROFKIT_ETRUNCATED, (int64_t)r->n,
                            "header: expected %" PRIu64 " bytes, the input ends after %zu",
                            hsize, r->n);
    int rc = read_attrs(r, pk_perf_u64(r, d + 16), pk_perf_u64(r, d + 24),
                        pk_perf_u64(r, d + 32));
    if (rc)
        return rc;
    uint64_t data_off = pk_perf_u64(r, d + 40), data_size = pk_perf_u64(r, d + 48);
    if (data_off > r->n)
        return pk_read_fail(r->ctx, PROFKIT_ETRUNCATED, 40,
                            "header data section: starts at offset %" PRIu64 ", past the end of "
                            "the input (%zu bytes)",
                            data_off, r->n);
    scan_state st = { CUT_NONE, 0, 0, 0, 0, 0 };
    uint64_t data_end = data_size > UINT64_MAX - data_off ? UINT64_MAX : data_off + data_size;
    size_t end = data_end > r->n ? r->n : (size_t)data_end;
    if (data_size == 0 && r->n > data_off) {
        st.unfinished = 1;
        end = r->n;
    }
    if ((rc = add_metadata(r)))
        return rc;
    /* The features first: they name the events the records use. */
    if (data_size && data_end <= r->n && hsize == FILE_HEADER) {
        rc = read_features(r, d + 72, data_end);
        if (rc == 1) {
            st.cut = CUT_FEATURES;
            st.cut_at = (int64_t)r->n;
        } else if (rc) {
            return rc;
        }
    }
    segment g = { r->d, r->n, 0, -1 };
    if ((rc = scan(r, &g, (size_t)data_off, end, &st)))
        return rc;
    if (st.cut == CUT_NONE && !st.unfinished && data_end > r->n) {
        st.cut = CUT_DATA;
        st.cut_at = (int64_t)r->n;
        st.cut_size = data_end > SIZE_MAX ? SIZE_MAX : (size_t)data_end;
    }
    return finish(r, &st);
}

static int perf_data_read(profkit_profile *p, pk_read_ctx *ctx)
{
    const uint8_t *d;
    size_t n;
    int rc = pk_source_all(ctx->src, &d, &n, ctx->err);
    if (rc)
        return rc;
    pk_perf r;
    memset(&r, 0, sizeof(r));
    r.p = p;
    r.ctx = ctx;
    r.d = d;
    r.n = n;
    if (n < 16) {
        rc = pk_read_fail(ctx, PROFKIT_ETRUNCATED, (int64_t)n,
                          "header: expected the magic PERFILE2 and the header size (16 bytes "
                          "at least), the input ends after %zu",
                          n);
    } else if (memcmp(d, "PERFILE2", 8) == 0 || memcmp(d, "2ELIFREP", 8) == 0) {
        r.be = d[0] == '2';
        if (pk_perf_u64(&r, d + 8) == PIPE_HEADER) {
            r.pipe = 1;
            scan_state st = { CUT_NONE, 0, 0, 0, 0, 0 };
            segment g = { d, n, 0, -1 };
            if (!(rc = add_metadata(&r)) && !(rc = scan(&r, &g, PIPE_HEADER, n, &st)))
                rc = finish(&r, &st);
        } else {
            rc = read_file_mode(&r);
        }
    } else if (memcmp(d, "PERFFILE", 8) == 0 || memcmp(d, "ELIFFREP", 8) == 0) {
        rc = pk_read_fail(ctx, PROFKIT_EUNSUPPORTED, 0,
                          "header magic PERFFILE: the first perf.data version (perf before "
                          "Linux 2.6.37), which profkit does not read");
    } else {
        rc = pk_read_fail(ctx, PROFKIT_EFORMAT, 0,
                          "header magic: expected PERFILE2 (a perf.data file, either byte "
                          "order)");
    }
    free(r.attrs);
    free(r.id_key);
    free(r.id_attr);
    free(r.buildids);
    free(r.recs);
    free(r.zbuf);
    if (r.zsrc)
        pk_source_close(r.zsrc);
    return rc;
}

static int perf_data_sniff(const uint8_t *d, size_t n, int complete)
{
    (void)complete;
    if (n < 8)
        return 0;
    return memcmp(d, "PERFILE2", 8) == 0 || memcmp(d, "2ELIFREP", 8) == 0 ||
                   memcmp(d, "PERFFILE", 8) == 0 || memcmp(d, "ELIFFREP", 8) == 0
               ? 100
               : 0;
}

const pk_format pk_format_perf_data = {
    { "perf_data", "Linux perf.data, what `perf record` writes (file or pipe mode, either "
                   "byte order)",
      ".data", 1, 0 },
    perf_data_sniff,
    perf_data_read,
    NULL,
};
