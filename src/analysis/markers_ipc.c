/*
 * markers_ipc.c: IPC markers as the Firefox Profiler shows them
 * (markers_ipc.h).
 *
 * Gecko records one IPC message as up to five instant markers of payload
 * type "IPC", on the threads that handled it: the sender's endpoint, the
 * start and the end of the transfer on the sender's I/O thread, the end of
 * the transfer on the receiver's I/O thread, the receiver's endpoint
 * (payload `direction` "sending" or "receiving", `phase` "endpoint",
 * "transferStart" or "transferEnd"; no phase is an endpoint). The Firefox
 * Profiler's loader puts them back together across threads: a message is
 * the sender's and receiver's pids (by direction: the thread's pid and the
 * payload's `otherPid`), `messageSeqno` and `messageType`; the first marker
 * of each phase counts. A message's endpoints are shown, each on its
 * thread; its transfer markers only when an endpoint is missing, one per
 * thread (not the sender's transfer end when its start is there). A shown
 * marker is named IPCOut (sending) or IPCIn, with "Sync" before it for a
 * `sync` message, and runs from the sender's endpoint to the receiver's
 * when both are there, else it is its own time with no length. Every
 * other IPC marker is not shown, nor any on a thread without a tid. A
 * marker's time is its own (Gecko writes the payload's startTime there
 * too).
 *
 * The loader does this only when its string table holds "IPC": here, when
 * the model does, and its reader named the four kinds (the Gecko readers
 * do, src/formats/gecko): the list's names are string ids.
 */
#include "analysis/markers_ipc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_fields.h"
#include "util/strtab.h"

enum { SEND_ENDPOINT, SEND_START, SEND_END, RECV_END, RECV_ENDPOINT, N_PHASES, NO_PHASE = 255 };

typedef struct ipc_marker {
    uint32_t marker;
    uint32_t msg;  /* index into the messages, PROFKIT_NONE: none */
    uint8_t phase; /* N_PHASES values, NO_PHASE: not shown */
    uint8_t sending, sync;
} ipc_marker;

typedef struct ipc_msg {
    uint32_t at[N_PHASES]; /* index into the IPC markers of the first of each phase */
} ipc_msg;

void pk_ipc_free(pk_ipc *x)
{
    pk_map64_free(&x->of);
    free(x->v);
    memset(x, 0, sizeof *x);
}

/* The text of payload field key: a string's contents, any other value as
 * written; "undefined" when absent (as the loader's template string has it). */
static void field_text(const char *pl, size_t n, const char *key, const char **s, size_t *len)
{
    pk_json_field f;
    if (!pk_json_find_field(pl, n, key, &f)) {
        *s = "undefined";
        *len = 9;
    } else if (!pk_json_field_string(&f, s, len)) {
        *s = f.value;
        *len = f.value_len;
    }
}

/* The phase of a marker's payload pl, NO_PHASE for one the loader refuses. */
static uint8_t phase_of(const char *pl, size_t n, int sending)
{
    pk_json_field f;
    int endpoint = !pk_json_find_field(pl, n, "phase", &f) || pk_json_field_is(pl, n, "phase", "endpoint");
    if (endpoint)
        return sending ? SEND_ENDPOINT : RECV_ENDPOINT;
    if (pk_json_field_is(pl, n, "phase", "transferStart"))
        return sending ? SEND_START : NO_PHASE;
    if (pk_json_field_is(pl, n, "phase", "transferEnd"))
        return sending ? SEND_END : RECV_END;
    return NO_PHASE;
}

/* The message of IPC marker x (payload pl): its key interned in keys;
 * the message index (key id - 1), or PROFKIT_NONE when out of memory. */
static uint32_t message_of(pk_strtab *keys, const profkit_thread *t, const ipc_marker *x, const char *pl,
                           size_t n, char **buf, size_t *cap)
{
    const char *other, *seq, *type;
    size_t lo, ls, lt;
    field_text(pl, n, "otherPid", &other, &lo);
    field_text(pl, n, "messageSeqno", &seq, &ls);
    field_text(pl, n, "messageType", &type, &lt);
    char pid[24];
    int lp = snprintf(pid, sizeof pid, "%lld", (long long)t->pid);
    size_t need = (size_t)lp + lo + ls + lt + 4;
    if (need > *cap) {
        char *b = realloc(*buf, need);
        if (!b)
            return PROFKIT_NONE;
        *buf = b;
        *cap = need;
    }
    /* sender's pid, receiver's pid, seqno, type */
    char *w = *buf;
    const char *a = x->sending ? pid : other, *b = x->sending ? other : pid;
    size_t la = x->sending ? (size_t)lp : lo, lb = x->sending ? lo : (size_t)lp;
    memcpy(w, a, la), w += la, *w++ = ',';
    memcpy(w, b, lb), w += lb, *w++ = ',';
    memcpy(w, seq, ls), w += ls, *w++ = ',';
    memcpy(w, type, lt), w += lt;
    uint32_t id = pk_strtab_intern(keys, *buf, (size_t)(w - *buf));
    return id == PROFKIT_NONE ? PROFKIT_NONE : id - 1;
}

/* Shows IPC marker k of a message (the endpoints' times when both are there). */
static void show(pk_ipc *out, const profkit_profile *p, const ipc_marker *xs, uint32_t k, const ipc_msg *g,
                 const uint32_t names[4])
{
    const ipc_marker *x = &xs[k];
    int64_t t = p->markers[x->marker].start;
    if (t == PROFKIT_NO_TIME)
        return;
    if (x->sending && x->phase == SEND_END && g->at[SEND_START] != PROFKIT_NONE)
        return; /* the transfer's start shows it on this thread */
    pk_ipc_shown *s = &out->v[k];
    s->name = names[x->sync * 2 + !x->sending];
    s->start = s->end = t;
    uint32_t a = g->at[SEND_ENDPOINT], b = g->at[RECV_ENDPOINT];
    if (a != PROFKIT_NONE && b != PROFKIT_NONE) {
        int64_t ta = p->markers[xs[a].marker].start, tb = p->markers[xs[b].marker].start;
        if (ta != PROFKIT_NO_TIME && tb != PROFKIT_NO_TIME)
            s->start = ta, s->end = tb;
    }
}

int pk_ipc_build(pk_ipc *out, const profkit_profile *p)
{
    memset(out, 0, sizeof *out);
    static const char *const kinds[4] = { "IPCOut", "IPCIn", "SyncIPCOut", "SyncIPCIn" };
    uint32_t names[4];
    if (pk_strtab_find(&p->strings, "IPC", 3) == PROFKIT_NONE)
        return 0;
    for (int i = 0; i < 4; i++)
        if ((names[i] = pk_strtab_find(&p->strings, kinds[i], strlen(kinds[i]))) == PROFKIT_NONE)
            return 0;
    ipc_marker *xs = NULL;
    ipc_msg *msgs = NULL;
    size_t nx = 0, cx = 0, nm = 0, cm = 0, cap = 0;
    char *buf = NULL;
    pk_strtab keys;
    int rc = PROFKIT_ENOMEM;
    if (pk_strtab_init(&keys) != 0)
        return PROFKIT_ENOMEM;
    for (size_t i = 0; i < p->n_markers; i++) {
        const profkit_marker *m = &p->markers[i];
        if (!m->payload || m->payload >= p->strings.n)
            continue;
        const char *pl = pk_str(p, m->payload);
        size_t n = p->strings.len[m->payload];
        if (!pk_json_field_is(pl, n, "type", "IPC"))
            continue;
        if (PK_VEC_RESERVE(xs, nx, cx, 1) != 0 || pk_map64_put(&out->of, i, (uint32_t)nx) < 0)
            goto done;
        ipc_marker *x = &xs[nx++];
        x->marker = (uint32_t)i;
        x->msg = PROFKIT_NONE;
        x->sending = (uint8_t)pk_json_field_is(pl, n, "direction", "sending");
        pk_json_field f;
        x->sync = (uint8_t)(pk_json_find_field(pl, n, "sync", &f) && f.value_len == 4 &&
                            memcmp(f.value, "true", 4) == 0);
        x->phase = phase_of(pl, n, x->sending);
        const profkit_thread *t = m->thread < p->n_threads ? &p->threads[m->thread] : NULL;
        if (x->phase == NO_PHASE || !t || t->tid < 0)
            continue; /* not shown */
        uint32_t g = message_of(&keys, t, x, pl, n, &buf, &cap);
        if (g == PROFKIT_NONE)
            goto done;
        while (nm <= g) {
            if (PK_VEC_RESERVE(msgs, nm, cm, 1) != 0)
                goto done;
            for (int k = 0; k < N_PHASES; k++)
                msgs[nm].at[k] = PROFKIT_NONE;
            nm++;
        }
        x->msg = g;
        if (msgs[g].at[x->phase] == PROFKIT_NONE)
            msgs[g].at[x->phase] = (uint32_t)(nx - 1); /* the first of a phase counts */
    }
    if (nx && !(out->v = malloc(nx * sizeof *out->v)))
        goto done;
    for (size_t k = 0; k < nx; k++)
        out->v[k] = (pk_ipc_shown){ PROFKIT_NO_TIME, PROFKIT_NO_TIME, PROFKIT_NONE };
    for (size_t g = 0; g < nm; g++) {
        const ipc_msg *mg = &msgs[g];
        uint32_t a = mg->at[SEND_ENDPOINT], b = mg->at[RECV_ENDPOINT];
        int64_t tids[N_PHASES];
        size_t nt = 0;
        if (a != PROFKIT_NONE) {
            show(out, p, xs, a, mg, names);
            tids[nt++] = p->threads[p->markers[xs[a].marker].thread].tid;
        }
        if (b != PROFKIT_NONE) {
            show(out, p, xs, b, mg, names);
            tids[nt++] = p->threads[p->markers[xs[b].marker].thread].tid;
        }
        if (a != PROFKIT_NONE && b != PROFKIT_NONE)
            continue; /* the transfer's markers stay on their I/O threads */
        for (int ph = SEND_START; ph <= RECV_END; ph++) {
            uint32_t k = mg->at[ph];
            if (k == PROFKIT_NONE)
                continue;
            int64_t tid = p->threads[p->markers[xs[k].marker].thread].tid;
            int seen = 0;
            for (size_t j = 0; j < nt; j++)
                seen |= tids[j] == tid;
            if (seen)
                continue;
            show(out, p, xs, k, mg, names);
            tids[nt++] = tid;
        }
    }
    out->n = nx;
    rc = 0;
done:
    free(xs);
    free(msgs);
    free(buf);
    pk_strtab_free(&keys);
    if (rc)
        pk_ipc_free(out);
    return rc;
}
