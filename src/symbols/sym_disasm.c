/*
 * sym_disasm.c: the instructions of a function for `profkit list --disasm`.
 *
 * The file is the one the symbolizer would use for the mapping
 * (sym_find.c); the function's address range comes from its DWARF (else its
 * symbol), the bytes from the file's executable section holding them, the
 * instructions from Capstone, and each instruction's source line from the
 * same lookup the symbolizer makes (pk_sym_binary_lookup): the line of the
 * listed function in the chain of inlined calls at that address. Every
 * size and offset read from the file is checked against the section's
 * bytes; a range is at most 1 MiB; bytes Capstone cannot decode become
 * ".byte" data (its SKIPDATA mode), so a corrupt file lists garbage, not a
 * crash.
 */
#include "symbols/sym_disasm.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_find.h"
#include "symbols/symbols.h"
#include "util/util.h"

#define MAX_CHAIN 64

struct sym_disasm {
    const profkit_profile *p;
    sym_finder *finder;
};

sym_disasm *pk_sym_disasm_new(const profkit_profile *p, const profkit_symbolize_options *o)
{
    sym_disasm *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->p = p;
    if (!(d->finder = pk_sym_finder_new(p, o))) {
        free(d);
        return NULL;
    }
    return d;
}

void pk_sym_disasm_free(sym_disasm *d)
{
    if (!d)
        return;
    pk_sym_finder_free(d->finder);
    free(d);
}

/* Why a function has no instructions (list prints it in their place). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void say(char *why, size_t why_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
}

/* Capstone's architecture and mode for an ELF machine; -1 when none. */
static int cs_target(int machine, int big, cs_arch *arch, cs_mode *mode)
{
    switch (machine) {
    case EM_X86_64:
        *arch = CS_ARCH_X86;
        *mode = CS_MODE_64;
        return 0;
    case EM_386:
        *arch = CS_ARCH_X86;
        *mode = CS_MODE_32;
        return 0;
    case EM_AARCH64:
        *arch = CS_ARCH_ARM64;
        *mode = big ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN;
        return 0;
    default:
        return -1;
    }
}

/* Whether a symbolizer name (maybe "name@@VERSION") is `want`. */
static int same_name(const char *raw, const char *want)
{
    size_t len = strlen(raw);
    const char *at = strchr(raw, '@');
    if (at && at != raw)
        len = (size_t)(at - raw);
    return strlen(want) == len && memcmp(raw, want, len) == 0;
}

static int insn_cmp(const void *a, const void *b)
{
    const sym_insn *x = a, *y = b;
    return x->address < y->address ? -1 : x->address > y->address;
}

typedef struct span {
    uint32_t file;
    uint64_t lo, hi, delta; /* vaddr range; profile address = vaddr + delta */
} span;

/* Disassembles one span into *out; returns 0, -1 (ENOMEM), 1 (said why). */
static int disasm_span(sym_disasm *d, const span *sp, const char *name, sym_insn **out, size_t *n,
                       size_t *cap, char *why, size_t why_size)
{
    sym_binary *b = pk_sym_finder_binary(d->finder, sp->file);
    const char *path = pk_sym_finder_path(d->finder, sp->file);
    int big = 0, machine = pk_sym_binary_machine(b, &big);
    cs_arch arch;
    cs_mode mode;
    if (cs_target(machine, big, &arch, &mode) != 0) {
        say(why, why_size, "%s: ELF machine %d has no disassembler here (x86-64, i386, AArch64)",
                 path, machine);
        return 1;
    }
    size_t avail = 0;
    const unsigned char *code = pk_sym_binary_code(b, sp->lo, sp->hi - sp->lo, &avail);
    if (!code || avail == 0) {
        say(why, why_size, "%s: no code at 0x%" PRIx64 " (expected an executable section holding it)",
                 path, sp->lo);
        return 1;
    }
    csh h;
    if (cs_open(arch, mode, &h) != CS_ERR_OK) {
        say(why, why_size, "%s: Capstone cannot open a disassembler for ELF machine %d", path, machine);
        return 1;
    }
    cs_option(h, CS_OPT_SKIPDATA, CS_OPT_ON);
    cs_insn *in = cs_malloc(h);
    if (!in) {
        cs_close(&h);
        return -1;
    }
    const uint8_t *c = code;
    size_t left = avail;
    uint64_t at = sp->lo;
    int rc = 0;
    sym_frame chain[MAX_CHAIN];
    while (left > 0 && cs_disasm_iter(h, &c, &left, &at, in)) {
        size_t k = pk_sym_binary_lookup(b, in->address, chain, MAX_CHAIN);
        size_t hit = k;
        for (size_t i = k; i-- > 0;)
            if (chain[i].name && same_name(chain[i].name, name)) {
                hit = i;
                break;
            }
        if (hit == k) /* not this function's (another inlined into the range) */
            continue;
        if (PK_VEC_RESERVE(*out, *n, *cap, 1) != 0) {
            rc = -1;
            break;
        }
        sym_insn *o = &(*out)[(*n)++];
        o->vaddr = in->address;
        o->address = in->address + sp->delta;
        o->size = in->size;
        o->line = chain[hit].line;
        size_t ml = strnlen(in->mnemonic, sizeof(in->mnemonic));
        snprintf(o->text, sizeof(o->text), "%.*s%s%.*s", (int)ml, in->mnemonic, in->op_str[0] ? " " : "",
                 (int)(sizeof(o->text) - 2 - ml), in->op_str);
    }
    cs_free(in, 1);
    cs_close(&h);
    return rc;
}

int pk_sym_disasm_function(sym_disasm *d, const char *name, const uint64_t *addrs, const uint32_t *maps,
                        size_t n, sym_insn **out, size_t *n_out, char *why, size_t why_size)
{
    const profkit_profile *p = d->p;
    span *spans = NULL;
    size_t n_spans = 0, cap_spans = 0, cap = 0;
    *out = NULL;
    *n_out = 0;
    why[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        uint32_t m = maps[i];
        if (m >= p->n_mappings || addrs[i] < p->mappings[m].start)
            continue;
        const profkit_mapping *mp = &p->mappings[m];
        uint32_t file = pk_sym_finder_file(d->finder, m);
        if (file == PROFKIT_NONE) {
            say(why, why_size, "no file for %s", pk_str(p, mp->path)[0] ? pk_str(p, mp->path)
                                                                                    : "(anonymous mapping)");
            continue;
        }
        sym_binary *b = pk_sym_finder_binary(d->finder, file);
        uint64_t off = addrs[i] - mp->start + mp->offset, vaddr, lo, hi;
        if (!b || pk_sym_binary_vaddr(b, off, &vaddr) != 0 || pk_sym_binary_func_range(b, vaddr, &lo, &hi) != 0) {
            say(why, why_size, "%s: no function holds 0x%" PRIx64, pk_sym_finder_path(d->finder, file),
                     off);
            continue;
        }
        int seen = 0;
        for (size_t k = 0; k < n_spans && !seen; k++)
            seen = spans[k].file == file && spans[k].lo == lo;
        if (seen)
            continue;
        if (PK_VEC_RESERVE(spans, n_spans, cap_spans, 1) != 0)
            goto oom;
        spans[n_spans++] = (span){ file, lo, hi, addrs[i] - vaddr };
    }
    for (size_t k = 0; k < n_spans; k++)
        if (disasm_span(d, &spans[k], name, out, n_out, &cap, why, why_size) < 0)
            goto oom;
    free(spans);
    if (*n_out) {
        qsort(*out, *n_out, sizeof(sym_insn), insn_cmp);
        size_t k = 0;
        for (size_t i = 0; i < *n_out; i++)
            if (k == 0 || (*out)[k - 1].address != (*out)[i].address)
                (*out)[k++] = (*out)[i];
        *n_out = k;
        why[0] = '\0';
    } else if (!why[0] && n_spans) {
        say(why, why_size, "%s: no instruction of the function's range is named %s",
                 pk_sym_finder_path(d->finder, spans[0].file), name);
    }
    return 0;
oom:
    free(spans);
    free(*out);
    *out = NULL;
    *n_out = 0;
    return -1;
}
