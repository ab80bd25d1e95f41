/*
 * sym_find.h: which file names the addresses of each mapping, found where
 * users keep them (docs/symbols.md gives the order), each opened once.
 */
#ifndef PROFKIT_SYM_FIND_H
#define PROFKIT_SYM_FIND_H

#include <stdio.h>

#include "model/model.h"
#include "symbols/symbols.h"

typedef struct sym_finder sym_finder;

/* NULL when out of memory. o may be NULL (no files: nothing is found). */
sym_finder *pk_sym_finder_new(const profkit_profile *p, const profkit_symbolize_options *o);
void pk_sym_finder_free(sym_finder *f);

/*
 * The file (an index for the calls below) for mapping m (PROFKIT_NONE: a
 * profile without mappings, which only --binary covers), or PROFKIT_NONE
 * when none is found. Searched once per mapping; a file whose build id
 * differs from the mapping's is skipped with a warning.
 */
uint32_t pk_sym_finder_file(sym_finder *f, uint32_t m);
sym_binary *pk_sym_finder_binary(sym_finder *f, uint32_t file);
/* Closes every file (their DWARF and symbol tables: tens of MB for libc),
 * keeping what pk_sym_finder_files says; strings a lookup returned die with
 * them. pk_sym_finder_binary gives NULL afterwards. */
void pk_sym_finder_release(sym_finder *f);
const char *pk_sym_finder_path(sym_finder *f, uint32_t file);
/* Counts n addresses named from file (for the summary). */
void pk_sym_finder_count(sym_finder *f, uint32_t file, size_t n);
/* Where file's names came from, when the symbol cache answered every
 * lookup (pk_sym_finder_release then does not read its DWARF to say). */
void pk_sym_finder_set_source(sym_finder *f, uint32_t file, int source);
/* The files used, for the summary (pk_sym_summary.files): *out (n of them,
 * malloc'd, each path too). Returns 0 or PROFKIT_ENOMEM. */
int pk_sym_finder_files(sym_finder *f, pk_sym_file **out, size_t *n);

/* Whether a profile's build id (hex, any case; or a Breakpad id, which
 * is the first 16 bytes as a GUID plus an age) names the file's. */
int pk_sym_build_id_matches(const char *profile_id, const char *file_id);

#endif
