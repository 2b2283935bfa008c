/* gasnete_diag.c: the extended layer's words in the state dump (issue 46): what a wait
 * marked with GASNETI_WAITING in this layer waits for (an event and what it stands for:
 * a barrier's round, a collective's sequence number and team, an NB operation; the NBI
 * counters of a gex_NBI_Wait). Registered with the core as gasnete_layer.describe;
 * called by gasneti_watchdog.c from a poll of the waiting thread. Layer: extended. */
#include "gasnete_internal.h"

#include <stdio.h>

static void describe_event(gex_Event_t ev, char *buf, size_t len) {
    static const char *const kinds[] = {"", "NB put", "NB get", "AM local completion", "NBI access region",
                                        "local-completion leaf"};
    if (ev->barrier_seq1) {
        gasnete_barrier_describe(buf, len);
        return;
    }
    if (gasnete_coll_describe(ev, buf, len)) return;
    snprintf(buf, len, "%s%sevent %p with %u operations outstanding%s", kinds[ev->kind % 6], ev->kind ? " " : "",
             (void *)ev, (unsigned)gasneti_atomic_read(&ev->pending),
             ev->leaf && gasneti_atomic_read(&ev->leaf->pending) ? " and its local completion" : "");
}

void gasnete_describe(const gasneti_waitrec_t *w, char *buf, size_t len) {
    static const char *const cats[GASNETI_NBI_NCAT] = {"gets", "puts", "AMs", "local completions", "atomics"};
    buf[0] = 0;
    switch (w->kind) {
    case GASNETI_WAIT_EVENT: describe_event((gex_Event_t)w->obj, buf, len); break;
    case GASNETI_WAIT_LEGACY_BARRIER: gasnete_barrier_describe(buf, len); break;
    case GASNETI_WAIT_NBI: {
        unsigned mask = (unsigned)(uintptr_t)w->obj;
        size_t at = (size_t)snprintf(buf, len, "this thread's NBI operations (mask 0x%x):", mask);
        for (int c = 0; c < GASNETI_NBI_NCAT && at < len; c++)
            if (mask & (1u << c))
                at += (size_t)snprintf(buf + at, len - at, " %s %u outstanding", cats[c],
                                       (unsigned)gasneti_atomic_read(&gasneti_td.nbi[c]));
        break;
    }
    default: break;
    }
}
