/*
 * sym_disasm.h: the instructions of a function with the source line of
 * each, for `profkit list --disasm` (Capstone, for the machines it covers:
 * x86-64, i386, AArch64).
 */
#ifndef PROFKIT_SYM_DISASM_H
#define PROFKIT_SYM_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef struct sym_insn {
    uint64_t address; /* in the profile's address space */
    uint64_t vaddr;   /* the file's own virtual address */
    uint32_t size;
    uint32_t line;    /* the function's source line it belongs to; 0 unknown */
    char text[112];   /* "add eax, edx" */
} sym_insn;

typedef struct sym_disasm sym_disasm;

/* NULL when out of memory. The files are found as the symbolizer finds
 * them (o: its options; warnings go to o->on_warning). */
sym_disasm *pk_sym_disasm_new(const profkit_profile *p, const profkit_symbolize_options *o);
void pk_sym_disasm_free(sym_disasm *d);

/*
 * The instructions of the function named `name` (its system name, as the
 * symbolizer gave it) around the profile addresses addrs[0..n) of mapping
 * maps[i] each: for each address, the function range holding it in the
 * mapping's file is disassembled, and its instructions whose chain of
 * inlined calls includes `name` are kept, each with the line of `name` it
 * belongs to (the line a call inlined into it was made from, or the line
 * table's). *out (sorted by address, no duplicates; free it) and *n_out.
 * Returns 0, or -1 when out of memory. When no instruction is found, why
 * says what was missing (the file, the machine, the code), naming the file.
 */
int pk_sym_disasm_function(sym_disasm *d, const char *name, const uint64_t *addrs, const uint32_t *maps,
                        size_t n, sym_insn **out, size_t *n_out, char *why, size_t why_size);

#endif
