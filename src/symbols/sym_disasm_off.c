/*
 * sym_disasm_off.c: compiled instead of sym_disasm.c when the library is
 * built without disassembly (PROFKIT_WITH_DISASM off, or no Capstone).
 * profkit_report_list refuses o->disasm before it gets here
 * (pk_part_check); these only complete the link.
 */
#include "symbols/sym_disasm.h"

sym_disasm *pk_sym_disasm_new(const profkit_profile *p, const profkit_symbolize_options *o)
{
    return NULL;
}

void pk_sym_disasm_free(sym_disasm *d) {}

int pk_sym_disasm_function(sym_disasm *d, const char *name, const uint64_t *addrs, const uint32_t *maps,
                           size_t n, sym_insn **out, size_t *n_out, char *why, size_t why_size)
{
    *out = NULL;
    *n_out = 0;
    if (why_size)
        why[0] = '\0';
    return -1;
}
