/*
 * symbols.h: the symbolizer's internals. One sym_binary is one ELF file
 * opened through elfutils' libdwfl (which finds its detached debug file:
 * .build-id trees, .gnu_debuglink, dwz's .gnu_debugaltlink, debuginfod),
 * with an index of its DWARF built one compile unit at a time and its
 * symbol table sorted, so every lookup is a binary search.
 */
#ifndef PROFKIT_SYMBOLS_H
#define PROFKIT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sym_binary sym_binary;

/* One frame of an address's chain. Strings belong to the binary. */
typedef struct sym_frame {
    const char *name;    /* the linkage (mangled) name, else the plain name */
    const char *file;    /* source file, or NULL */
    uint32_t line;       /* 0 = unknown */
    uint32_t decl_line;  /* the function's definition line, 0 = unknown */
} sym_frame;

/*
 * Opens path through libdwfl. debuginfo_path is elfutils' search path for
 * detached debug files (":.debug:/usr/lib/debug:DIR..."; kept, not
 * copied). Returns NULL when the file cannot be opened as ELF; *why then
 * says what failed (static text).
 */
sym_binary *pk_sym_binary_open(const char *path, char *debuginfo_path, const char **why);
void pk_sym_binary_close(sym_binary *b);

/* The file's GNU build id in lowercase hex ("" when it has none). */
const char *pk_sym_binary_build_id(const sym_binary *b);
/* For the symbol cache (sym_cache.h): what must be the same for another
 * run's lookups to be ours (the file's path, size and change time, the
 * debug file search path; malloc'd, NULL when the file is gone), and the
 * detached debug file the DWARF came from ("" for none; reads the DWARF). */
char *pk_sym_binary_cache_context(const sym_binary *b);
const char *pk_sym_binary_debug_file(sym_binary *b);
/* PK_SYM_SRC_DWARF (model.h) when it has DWARF, else where its symbols
 * come from. */
int pk_sym_binary_source(sym_binary *b);

/*
 * Translates a file offset (address - mapping start + mapping offset) to
 * the binary's own virtual address through the loadable segment holding
 * it (pprof's load bias). Returns 0, or -1 when no segment holds it.
 */
int pk_sym_binary_vaddr(const sym_binary *b, uint64_t file_offset, uint64_t *vaddr);

/*
 * Looks up a virtual address: writes at most max frames, outermost caller
 * first (the real function, then each inlined call), and returns how many
 * (0: nothing names it). Lookups in increasing address order are fastest.
 */
size_t pk_sym_binary_lookup(sym_binary *b, uint64_t vaddr, sym_frame *out, size_t max);

/*
 * For `profkit list --disasm`: the address range [lo, hi) of the function
 * holding vaddr (its DWARF range holding it, else its symbol), at most
 * 1 MiB; -1 when nothing covers vaddr.
 */
int pk_sym_binary_func_range(sym_binary *b, uint64_t vaddr, uint64_t *lo, uint64_t *hi);
/* The bytes at vaddr in the file's executable sections, at most len
 * (*avail of them), or NULL when no such section holds vaddr. */
const unsigned char *pk_sym_binary_code(sym_binary *b, uint64_t vaddr, uint64_t len, size_t *avail);
/* The ELF machine (EM_*), -1 when unreadable; *big_endian set. */
int pk_sym_binary_machine(sym_binary *b, int *big_endian);

/* demangle.cc: writes the demangled name (mode as profkit_demangle_mode);
 * returns 1 when `mangled` was a C++ or Rust name, else 0. */
int pk_demangle_mode_into(const char *mangled, int mode, char *buf, size_t n);

#endif
