/*
 * counter_iter.h: one counter's samples with their running sum, the one place
 * that sum is computed, for the reports, the page and the writers
 * (src/model/counter_iter.c). Counters are model data, so this sits in the
 * model, where formats/ may use it as well as analysis/ and report/.
 */
#ifndef PROFKIT_MODEL_COUNTER_ITER_H
#define PROFKIT_MODEL_COUNTER_ITER_H

#include "model/model.h"

/*
 * One counter's samples in their order, each with its position (time, or
 * operation index for a counter by operation order) and the running sum
 * of the counts from the counter's first sample up to it (what the
 * Firefox Profiler draws for a memory counter). The sum saturates at
 * INT64_MIN / INT64_MAX rather than overflow. The one place that sum is
 * computed:
 *
 *     pk_counter_iter it;
 *     pk_counter_iter_init(&it, p, counter);
 *     while (pk_counter_next(&it))
 *         use(it.s, it.t, it.total);
 *
 * A counter index past the profile's counters, or rows past its samples,
 * give no sample.
 */
typedef struct pk_counter_iter {
    const profkit_counter_sample *rows;
    size_t first, end, k;
    int by_order;
    const profkit_counter_sample *s; /* the current sample */
    size_t index;                    /* its index in the counter (0: the first) */
    int64_t t;                       /* its time: ns, or the operation index by order */
    int64_t total;                   /* the running sum of the counts up to and with it */
} pk_counter_iter;

void pk_counter_iter_init(pk_counter_iter *it, const profkit_profile *p, uint32_t counter);
int pk_counter_next(pk_counter_iter *it);

/*
 * The memory operations behind counters by operation order (a bsprof
 * file's `Memory` counter per thread), one record per operation of the
 * counter's thread, in its order (record i is the counter's operation i),
 * so that what a range of operations did per allocation site can be told
 * (the page's Memory view, `profkit counters --range --json`):
 *
 *   stack[i]  the stack that allocated, for an allocation; PROFKIT_NONE
 *             for an operation that allocates nothing (a free)
 *   size[i]   the bytes it allocated (0 for a free)
 *   freed[i]  1 + the index (in the same thread's operations) of the
 *             allocation it frees: a free, a free_realloc, an allocation
 *             at an address still live (which frees the one there), or
 *             the operation that stands for that in the allocating
 *             thread; 0 when it frees nothing known (an allocation, or a
 *             free that matched no live allocation)
 *
 * A reader keeps them (pk_mem_ops_*) only where it builds counters by
 * operation order, for the first PK_MEM_OPS_MAX operations of the file
 * (every thread's together, in the file's order): there it stops, so each
 * thread's records are a prefix of its operations, `n` of its `ops`
 * (record i is still its operation i), and `left_out` counts the
 * operations past them. A range of a thread's operations can be told per
 * site where it lies within that prefix (pk_mem_ops_covers). They hold
 * for the profile as read: `n_stacks`, `n_counters`, `n_threads` and
 * `n_samples` are the profile's then, and pk_mem_ops_valid says whether
 * they still are (a merge, a filter or a transform changes them).
 */
#define PK_MEM_OPS_MAX ((size_t)1000000)

typedef struct pk_mem_thread_ops {
    uint32_t thread;  /* the model thread */
    uint32_t counter; /* its counter by operation order (PROFKIT_NONE until added) */
    size_t n, cap;   /* records: its operations 0 .. n - 1 */
    uint64_t ops;    /* its operations in all (n of them kept) */
    uint32_t *stack;
    uint64_t *size;
    uint32_t *freed;
} pk_mem_thread_ops;

typedef struct pk_mem_ops {
    pk_mem_thread_ops *th; /* by model thread: th[t].n == 0 for a thread without */
    size_t n_th;
    size_t total;      /* records kept, every thread's */
    uint64_t left_out; /* operations not kept (past PK_MEM_OPS_MAX), every thread's */
    size_t n_stacks, n_counters, n_threads, n_samples;
} pk_mem_ops;

void pk_mem_ops_free(pk_mem_ops *m);
/* Appends a record to thread th's operations where it has room (1), else
 * changes nothing (0): the common case, inline in a reader's loop. */
static inline int pk_mem_ops_push(pk_mem_ops *m, uint32_t th, uint32_t stack, uint64_t size,
                                  uint32_t freed)
{
    if (th >= m->n_th || m->th[th].n >= m->th[th].cap)
        return 0;
    pk_mem_thread_ops *t = &m->th[th];
    t->stack[t->n] = stack;
    t->size[t->n] = size;
    t->freed[t->n] = freed;
    t->n++;
    m->total++;
    return 1;
}
/* Room for thread th (no record). 0, or PROFKIT_ENOMEM. */
int pk_mem_ops_reserve(pk_mem_ops *m, uint32_t th);
/* Appends a record to thread th's operations, making room. 0, or PROFKIT_ENOMEM. */
int pk_mem_ops_add(pk_mem_ops *m, uint32_t th, uint32_t stack, uint64_t size, uint32_t freed);
/* p's memory operations for counter `counter` (its thread's records, of
 * which there may be none when the budget was spent before its first
 * operation), or NULL: none kept (none read, or p changed since it was
 * read). */
const pk_mem_thread_ops *pk_mem_ops_of(const profkit_profile *p, uint32_t counter);
/* Whether o's records hold every one of operations [from, to) of its
 * thread (those past its last operation need none): what a range can be
 * told per site. */
int pk_mem_ops_covers(const pk_mem_thread_ops *o, int64_t from, int64_t to);
/* Whether p keeps its memory operations and they still hold for it. */
int pk_mem_ops_valid(const profkit_profile *p);

#endif
