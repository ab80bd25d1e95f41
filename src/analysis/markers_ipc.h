/*
 * markers_ipc.h: IPC markers as the Firefox Profiler shows them
 * (src/analysis/markers_ipc.c), for the marker list of markers.c.
 */
#ifndef PROFKIT_ANALYSIS_MARKERS_IPC_H
#define PROFKIT_ANALYSIS_MARKERS_IPC_H

#include "model/model.h"
#include "util/map64.h"

/* What one IPC marker becomes: shown (name, start, end on the model's
 * axis) or not. */
typedef struct pk_ipc_shown {
    int64_t start, end;
    uint32_t name; /* string id of IPCIn, IPCOut, SyncIPCIn or SyncIPCOut; PROFKIT_NONE: not shown */
} pk_ipc_shown;

typedef struct pk_ipc {
    pk_map64 of;     /* marker id -> index into v, for every marker of payload type "IPC" */
    pk_ipc_shown *v;
    size_t n;
} pk_ipc;

/*
 * The IPC markers of p correlated across threads as the Firefox Profiler
 * does (the message's sender and receiver endpoints give every shown
 * marker of it its times). Nothing when the profile has no marker named
 * "IPC" or its reader did not name the shown kinds (out->n 0). Returns 0
 * or PROFKIT_ENOMEM.
 */
int pk_ipc_build(pk_ipc *out, const profkit_profile *p);
void pk_ipc_free(pk_ipc *x);

/* What marker i becomes: NULL when it is no IPC marker (shown as any other). */
static inline const pk_ipc_shown *pk_ipc_of(const pk_ipc *x, uint32_t i)
{
    if (!x->n)
        return NULL;
    uint32_t k = pk_map64_get(&x->of, i);
    return k == PK_MAP64_EMPTY ? NULL : &x->v[k];
}

#endif
