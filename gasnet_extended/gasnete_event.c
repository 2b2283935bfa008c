/* gasnete_event.c: events (gex_Event_t) and implicit-event (NBI) synchronization.
 * Layer: extended. An event is a pooled per-thread object holding a counter of
 * operations still outstanding; whoever completes an operation decrements it (possibly
 * a handler on another thread). NBI operations count into per-thread counters, one per
 * event category. Test never polls; Wait polls until done. */
#include "gasnete_internal.h"

#include <string.h>

GASNETI_THREADLOCAL gasnete_threaddata_t gasnete_td;

gex_Event_t gasnete_event_new(int pending) {
    gasnete_threaddata_t *td = &gasnete_td;
    gex_Event_t ev = td->free_events;
    if (ev)
        td->free_events = ev->next;
    else if (!(ev = malloc(sizeof(*ev))))
        gasneti_fatalerror("out of memory allocating an event");
    memset(ev, 0, sizeof(*ev));
    gasneti_atomic_set(&ev->pending, pending);
    return ev;
}

static void event_free(gex_Event_t ev) {
    ev->next = gasnete_td.free_events;
    gasnete_td.free_events = ev;
}

#if GASNETI_DEBUG
static void check_event(gex_Event_t ev, const char *call) {
    if (ev == GEX_EVENT_NO_OP) gasneti_fatalerror("%s: GEX_EVENT_NO_OP may not be tested or waited on", call);
    GASNETI_CHECK_NOT_IN_HANDLER(call);
}
#else
#  define check_event(ev, call) ((void)0)
#endif

int gasnete_event_test(gex_Event_t ev) {
    check_event(ev, "gex_Event_Test");
    if (gasneti_atomic_read(&ev->pending)) return GASNET_ERR_NOT_READY;
    event_free(ev);
    return GASNET_OK;
}

void gasnete_event_wait(gex_Event_t ev) {
    check_event(ev, "gex_Event_Wait");
    while (gasneti_atomic_read(&ev->pending)) gasneti_AMPoll();
    event_free(ev);
}

/* Completes what it can; returns how many events are still outstanding. */
static size_t test_array(gex_Event_t *pev, size_t n, size_t *completed) {
    size_t left = 0;
    *completed = 0;
    for (size_t i = 0; i < n; i++) {
        if (pev[i] == GEX_EVENT_INVALID) continue;
        if (gasnete_event_test(pev[i]) == GASNET_OK) {
            pev[i] = GEX_EVENT_INVALID;
            (*completed)++;
        } else
            left++;
    }
    return left;
}

int gex_Event_TestAll(gex_Event_t *pev, size_t n, gex_Flags_t flags) {
    size_t done;
    (void)flags;
    return test_array(pev, n, &done) ? GASNET_ERR_NOT_READY : GASNET_OK;
}

void gex_Event_WaitAll(gex_Event_t *pev, size_t n, gex_Flags_t flags) {
    size_t done;
    (void)flags;
    while (test_array(pev, n, &done)) gasneti_AMPoll();
}

int gex_Event_TestSome(gex_Event_t *pev, size_t n, gex_Flags_t flags) {
    size_t done;
    (void)flags;
    size_t left = test_array(pev, n, &done);
    return (done || !left) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gex_Event_WaitSome(gex_Event_t *pev, size_t n, gex_Flags_t flags) {
    size_t done;
    (void)flags;
    for (;;) {
        size_t left = test_array(pev, n, &done);
        if (done || !left) return;
        gasneti_AMPoll();
    }
}

static int nbi_done(gex_EC_t mask) {
    for (int c = 0; c < GASNETE_NBI_NCAT; c++)
        if ((mask & ((gex_EC_t)1 << c)) && gasneti_atomic_read(&gasnete_td.nbi[c])) return 0;
    return 1;
}

int gex_NBI_Test(gex_EC_t mask, gex_Flags_t flags) {
    (void)flags;
    if (GASNETI_DEBUG && (mask & ~GEX_EC_ALL)) gasneti_fatalerror("gex_NBI_Test: bad event mask 0x%x", (unsigned)mask);
    return nbi_done(mask) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gex_NBI_Wait(gex_EC_t mask, gex_Flags_t flags) {
    (void)flags;
    if (GASNETI_DEBUG && (mask & ~GEX_EC_ALL)) gasneti_fatalerror("gex_NBI_Wait: bad event mask 0x%x", (unsigned)mask);
    GASNETI_CHECK_NOT_IN_HANDLER("gex_NBI_Wait");
    while (!nbi_done(mask)) gasneti_AMPoll();
}

/* AMs to non-neighbors: the conduit signals local completion through a counter
 * (conduit_contract.h); this maps lc_opt onto one. NOW: the conduit finishes with the
 * source before returning. GROUP: the thread's GEX_EC_AM count. &event: a new event.
 * (smp reaches every peer through PSHM, so only network conduits come here.) */
int gasnete_am_send_network(const gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    if (m->category == GASNETI_AM_SHORT || lc_opt == GEX_EVENT_NOW) return gasnetc_am_send(m, NULL);
    if (lc_opt == GEX_EVENT_GROUP) {
        gasneti_counter_t *c = &gasnete_td.nbi[GASNETE_NBI_AM];
        gasneti_counter_add(c);
        int rc = gasnetc_am_send(m, c);
        if (rc) gasneti_counter_done(c);
        return rc;
    }
    gex_Event_t ev = gasnete_event_new(1);
    int rc = gasnetc_am_send(m, &ev->pending);
    if (rc) {
        gasneti_counter_done(&ev->pending);
        event_free(ev);
        return rc;
    }
    *lc_opt = ev;
    return 0;
}
