/*
 * list.h: what `profkit list` shows, computed (src/analysis/list.c; the
 * report, src/report/list_report.c, formats it): per function whose name
 * matches a regular expression, its flat and cumulative values and those
 * of each of its source lines, and with --disasm of each instruction.
 */
#ifndef PROFKIT_ANALYSIS_LIST_H
#define PROFKIT_ANALYSIS_LIST_H

#include <regex.h>

#include "model/model.h"

/* A (function, line) of the matching functions' frames. */
typedef struct pk_list_row {
    uint32_t function, line;
    int64_t flat, cum;
    size_t stamp; /* the last sample counted in cum, + 1 */
} pk_list_row;

/* A matching function; its rows are rows[first .. first + n), by line. */
typedef struct pk_list_func {
    uint32_t function;
    int64_t flat, cum;
    size_t stamp;
    size_t first, n;
} pk_list_func;

typedef struct pk_list {
    pk_list_row *rows;
    size_t n_rows;
    pk_list_func *funcs; /* by cum descending, then name */
    size_t n_funcs;
    size_t n_shown;      /* the first funcs with a value (at most the limit) */
    uint32_t *frow;      /* per frame: its row, PROFKIT_NONE when its function does not match */
    uint32_t *fidx;      /* per function: its index in funcs, PROFKIT_NONE when it does not match */
    int64_t total;       /* the value over the selected samples */
} pk_list;

/*
 * The functions whose name matches re and their lines, with the flat (a
 * sample's leaf) and cumulative (once per sample) values of value type
 * `value` over thread `thread` (PROFKIT_NONE: all); limit (0: none) caps
 * n_shown. Returns 0 or PROFKIT_ENOMEM; pk_list_free in either case.
 */
int pk_list_compute(pk_list *l, const profkit_profile *p, const regex_t *re, uint32_t value,
                    uint32_t thread, size_t limit);
void pk_list_free(pk_list *l);

/* --disasm: the instructions of one shown function (addresses ascending,
 * each with its size) and the values computed for them. */
typedef struct pk_list_code {
    const uint64_t *addr;
    const uint32_t *size;
    size_t n;
    int64_t *flat, *cum;       /* n each, filled by pk_list_code_values */
    int64_t off_flat, off_cum; /* at addresses no instruction holds */
} pk_list_code;

/*
 * Gives the instructions of each shown function (code[k] for funcs[k],
 * k < n_shown) their values: flat where a sample's leaf address is in one,
 * cum once per sample where any frame of the function is (a caller's
 * return address at address - 1: the call; a frame a leaf is inlined
 * into at its own address). Returns 0 or PROFKIT_ENOMEM.
 */
int pk_list_code_values(const pk_list *l, const profkit_profile *p, uint32_t value, uint32_t thread,
                        pk_list_code *code);

#endif
