/* perf_kallsyms.h: kernel symbols for a perf.data file's kernel frames
 * (perf_kallsyms.c). */
#ifndef PROFKIT_PERF_KALLSYMS_H
#define PROFKIT_PERF_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

typedef struct pk_ksym {
    uint64_t start, end;
    uint32_t name, len; /* the name: buf + name, len bytes */
    uint32_t seq;       /* its line among the kept ones */
    uint32_t module;    /* a module's symbol (`\t[MODULE]` after it) */
} pk_ksym;

typedef struct pk_kallsyms {
    char *buf; /* the file's text (owned) */
    pk_ksym *sym; /* sorted by start, one per address */
    size_t n;
    int hidden; /* every address is 0: kernel.kptr_restrict hides them */
} pk_kallsyms;

/* Parses kallsyms text (buf, n bytes; k takes buf over, and frees it).
 * Returns 0 or -1 when out of memory. */
int pk_kallsyms_parse(pk_kallsyms *k, char *buf, size_t n);
/* The symbol holding addr, or NULL. */
const pk_ksym *pk_kallsyms_find(const pk_kallsyms *k, uint64_t addr);
void pk_kallsyms_free(pk_kallsyms *k);
/* The running kernel's build id (lowercase hex) from /sys/kernel/notes.
 * Returns 0, or -1 when it cannot be read. */
int pk_kallsyms_running_build_id(char *out, size_t size);
/* The symbols of the kernel with build_id (NULL or "" when the file
 * records none), as perf finds them, loaded once per process and path
 * (shared, read-only: never freed by the caller); `from` gets the path
 * looked at. *rc: 0, 1 when there is no such file, 2 when its addresses are
 * hidden, -1 when out of memory. Returns the symbols when *rc is 0. */
const pk_kallsyms *pk_kallsyms_load(const char *build_id, char *from, size_t from_size, int *rc);

#endif
