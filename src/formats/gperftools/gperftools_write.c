/*
 * gperftools_write.c: writes any profile as a gperftools CPU profile, in
 * the 64-bit little-endian form (the format is described at the top of
 * gperftools_read.c and in docs/formats/gperftools.md). Frames without an
 * address get synthetic ones (write_addresses below).
 */
#include "formats/gperftools/gperftools.h"
#include "model/ltree.h"
#include "util/cursor.h"

#include <inttypes.h>
#include <stdlib.h>

static int parse_pc_label(const char *s, uint64_t *pc)
{
    if (s[0] != '0' || s[1] != 'x' || !s[2])
        return 0;
    uint64_t v = 0;
    size_t i = 2;
    for (; s[i]; i++) {
        int h = (s[i] >= '0' && s[i] <= '9') ? s[i] - '0' : (s[i] >= 'a' && s[i] <= 'f') ? s[i] - 'a' + 10 : -1;
        if (h < 0 || i >= 18)
            return 0;
        v = (v << 4) | (uint64_t)h;
    }
    *pc = v;
    return 1;
}

/*
 * The address each frame is written with. A frame's own address when it
 * has one; else the PC its name spells when the name is an unsymbolized
 * label ("0x" + lowercase hex, what this reader makes, including 0x0);
 * else a synthetic address: each function without one gets the next
 * 16-byte slot above every real address (at least 0x100000, aligned to
 * 1 MiB), numbered in frame-id order. Stable for a given profile, and
 * distinct per function, so reading the output back keeps stacks apart.
 */
static int write_addresses(const profkit_profile *p, uint64_t **out)
{
    uint64_t *addr = calloc(p->n_frames ? p->n_frames : 1, sizeof(uint64_t));
    uint64_t *fn_addr = calloc(p->n_functions ? p->n_functions : 1, sizeof(uint64_t));
    unsigned char *need = calloc(p->n_frames ? p->n_frames : 1, 1);
    if (!addr || !fn_addr || !need) {
        free(addr);
        free(fn_addr);
        free(need);
        return PROFKIT_ENOMEM;
    }
    uint64_t top = 0;
    for (size_t f = 0; f < p->n_frames; f++) {
        const profkit_frame *fr = &p->frames[f];
        uint64_t pc;
        if (fr->address != 0)
            addr[f] = fr->address;
        else if (fr->function < p->n_functions &&
                 parse_pc_label(pk_str(p, p->functions[fr->function].name), &pc))
            addr[f] = pc;
        else {
            need[f] = 1;
            continue;
        }
        if (addr[f] > top)
            top = addr[f];
    }
    uint64_t base = 0x100000;
    if (top >= base)
        base = top > UINT64_MAX - 0x200000 ? 0 : (top + 0x100000) & ~(uint64_t)0xfffff;
    uint64_t next = base;
    for (size_t f = 0; f < p->n_frames; f++) {
        if (!need[f])
            continue;
        uint32_t fn = p->frames[f].function;
        if (fn < p->n_functions && fn_addr[fn]) {
            addr[f] = fn_addr[fn];
            continue;
        }
        addr[f] = next ? next : 0x10; /* wrapped: nothing sensible left */
        if (fn < p->n_functions)
            fn_addr[fn] = addr[f];
        next = next > UINT64_MAX - 16 ? 0 : next + 16;
    }
    free(fn_addr);
    free(need);
    *out = addr;
    return 0;
}

static void put_word(pk_sink *s, uint64_t v)
{
    uint8_t b[8];
    pk_put_le64(b, v);
    pk_sink_write(s, b, 8);
}

/*
 * The counts to write, per stack: the `samples` value when the profile has
 * one (and no other --value was asked for); else the chosen value, divided
 * by the period when it is in nanoseconds (rounded to nearest, at least 1
 * for a positive value), or taken as a count otherwise. Negative values are
 * dropped: gperftools counts are unsigned.
 */
static int write_counts(const profkit_profile *p, const profkit_write_options *o, uint32_t thread,
                        uint64_t period_us, int64_t **out, profkit_error *err)
{
    uint32_t v = PROFKIT_NONE;
    if (!o->value) {
        for (size_t i = 0; i < p->n_value_types; i++)
            if (strcmp(pk_str(p, p->value_types[i].type), "samples") == 0)
                v = (uint32_t)i;
    }
    if (v == PROFKIT_NONE) {
        v = pk_select_value(p, o->value, err);
        if (v == PROFKIT_NONE)
            return PROFKIT_EINVAL;
    }
    if (pk_stack_self(p, v, thread, out) != 0)
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    int is_ns = strcmp(pk_str(p, p->value_types[v].unit), "nanoseconds") == 0 &&
                strcmp(pk_str(p, p->value_types[v].type), "samples") != 0;
    int64_t period_ns = (int64_t)period_us * 1000;
    for (size_t s = 0; s < p->n_stacks; s++) {
        int64_t x = (*out)[s];
        if (x <= 0)
            (*out)[s] = 0;
        else if (is_ns) {
            int64_t c = x / period_ns + (x % period_ns >= period_ns - period_ns / 2 ? 1 : 0);
            (*out)[s] = c > 0 ? c : 1;
        }
    }
    return 0;
}

static uint64_t write_period(const profkit_profile *p)
{
    const char *s = pk_meta_get(p, "period_us");
    uint64_t v = 0;
    if (s && *s) {
        for (; *s >= '0' && *s <= '9' && v < UINT64_MAX / 10 / 1000; s++)
            v = v * 10 + (uint64_t)(*s - '0');
        if (*s)
            v = 0;
    }
    return v > 0 ? v : 10000; /* gperftools' default, 100 Hz */
}

int pk_gperftools_write(const profkit_profile *p, pk_sink *sink, const profkit_write_options *o,
                        profkit_error *err)
{
    int ok;
    uint32_t thread = pk_select_thread(p, o->thread, &ok, err);
    if (!ok)
        return PROFKIT_EINVAL;
    uint64_t period = write_period(p);
    int64_t *count = NULL;
    uint64_t *addr = NULL;
    uint32_t *path = NULL;
    size_t cap_path = 0;
    int rc = 0;
    if (p->n_value_types == 0) {
        count = calloc(1, sizeof(int64_t));
        if (!count)
            return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    } else if ((rc = write_counts(p, o, thread, period, &count, err)) != 0) {
        return rc;
    }
    if (write_addresses(p, &addr) != 0) {
        free(count);
        return pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    }
    put_word(sink, 0);
    put_word(sink, 3);
    put_word(sink, 0);
    put_word(sink, period);
    put_word(sink, 0);
    for (size_t s = 1; s < p->n_stacks && p->n_value_types > 0; s++) {
        if (count[s] <= 0)
            continue;
        size_t depth = 0;
        for (uint32_t t = (uint32_t)s; t != 0; t = p->stacks[t].parent) {
            if (depth >= cap_path && pk_grow((void **)&path, &cap_path, depth + 1, sizeof(uint32_t))) {
                rc = PROFKIT_ENOMEM;
                break;
            }
            path[depth++] = t;
        }
        if (rc)
            break;
        put_word(sink, (uint64_t)count[s]);
        put_word(sink, depth);
        for (size_t i = 0; i < depth; i++) /* path[0] is the leaf */
            put_word(sink, addr[p->stacks[path[i]].frame]);
    }
    put_word(sink, 0);
    put_word(sink, 1);
    put_word(sink, 0);
    for (size_t m = 0; m < p->n_mappings; m++) {
        const profkit_mapping *mp = &p->mappings[m];
        if (mp->start >= mp->end)
            continue;
        const char *mpath = pk_str(p, mp->path);
        pk_sink_printf(sink, "%08" PRIx64 "-%08" PRIx64 " r-xp %08" PRIx64 " 00:00 0", mp->start,
                            mp->end, mp->offset);
        if (*mpath && !strchr(mpath, '\n'))
            pk_sink_printf(sink, " %s", mpath);
        pk_sink_puts(sink, "\n");
    }
    /* Last, so it cannot substitute into the (already expanded) paths. */
    const char *build = pk_meta_get(p, "build");
    if (build && *build && !strchr(build, '\n'))
        pk_sink_printf(sink, "build=%s\n", build);
    free(path);
    free(count);
    free(addr);
    if (rc)
        return pk_error_set(err, rc, NULL, -1, "out of memory writing a gperftools profile");
    return 0;
}
