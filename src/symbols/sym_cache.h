/*
 * sym_cache.h: the lookups of one ELF file, kept on disk by its build id
 * (docs/symbols.md, "The symbol cache"), so a later run that asks for the
 * same addresses does not read the file's DWARF again.
 *
 * A cache file is input like any other: it is read whole, every count,
 * offset and string is checked against its size, and anything that does
 * not check out (another version, another build id, a short or corrupt
 * file) makes the cache empty for that file: the lookups then go to the
 * file itself, as without a cache. Files are replaced by rename, never
 * written in place, so runs at the same time read one whole file or
 * another.
 */
#ifndef PROFKIT_SYM_CACHE_H
#define PROFKIT_SYM_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/symbols.h"

typedef struct sym_cache sym_cache;

/* The directory of the cache files (malloc'd), or NULL when the cache is
 * off (PROFKIT_SYMBOL_CACHE=0 or off, or no $XDG_CACHE_HOME nor $HOME). */
char *pk_sym_cache_dir(void);

/*
 * The cache of the file with this build id (lowercase hex) in dir, for
 * lookups made in this context (pk_sym_binary_cache_context; NULL: none,
 * the cache stays empty and is not written): never NULL unless out of
 * memory; empty when there is no usable cache file.
 */
sym_cache *pk_sym_cache_open(const char *dir, const char *build_id, const char *context);
void pk_sym_cache_free(sym_cache *c);

/* Where the cached lookups came from (PK_SYM_SRC_*), or -1 when empty. */
int pk_sym_cache_source(const sym_cache *c);

/*
 * The cached lookup of vaddr: returns 1 with *n frames written to out (at
 * most max; strings belong to the cache), or 0 when vaddr is not cached.
 */
int pk_sym_cache_get(const sym_cache *c, uint64_t vaddr, sym_frame *out, size_t max, size_t *n);

/* Records a lookup made from the file (vaddrs in increasing order, none of
 * them cached). Returns 0 or -1 when out of memory (the cache is then not
 * written). Strings are copied. */
int pk_sym_cache_add(sym_cache *c, uint64_t vaddr, const sym_frame *f, size_t n);

/* Writes the cached and the added lookups when there are added ones,
 * under source, with the debug file they came from ("" or NULL: the
 * file's own DWARF); failures are silent (the cache is an optimization). */
void pk_sym_cache_save(sym_cache *c, int source, const char *debug_file);

#endif
