/* gasneti_event.c: events (gex_Event_t), leaf queries, implicit-event (NBI)
 * synchronization and NBI access regions, the local completion of AMs sent through the
 * network, and remote completion of puts by flush. Layer: core (AMs and the extended
 * layer's RMA both complete through these).
 * An event is a pooled per-thread object holding a counter of operations still
 * outstanding; whoever completes an operation decrements it (possibly a handler on
 * another thread). A root may own a local-completion leaf (gasneti_event.h). NBI
 * operations count into per-thread counters, one per event category, or into the open
 * access region's root and leaf. Test never polls; Wait polls until done.
 * Handler context: the spec (gasnet-ex-api-v0.8.txt, "Calls from restricted context")
 * forbids every test/wait in an AM handler or under a handler-safe lock; debug builds
 * stop each such call with a message naming it. */
#include "gasneti_event.h"

#include <string.h>

GASNETI_THREADLOCAL gasneti_threaddata_t gasneti_td;

/* GASNET_GET_THREADINFO() (gasnetex.h): this thread's state above */
gasnet_threadinfo_t gasneti_threadinfo(void) { return &gasneti_td; }

gex_Event_t gasneti_event_new(int pending) {
    gasneti_threaddata_t *td = &gasneti_td;
    gex_Event_t ev = td->free_events;
    if (ev)
        td->free_events = ev->next;
    else if (!(ev = malloc(sizeof(*ev))))
        gasneti_fatalerror("out of memory allocating an event");
    memset(ev, 0, sizeof(*ev));
    gasneti_atomic_set(&ev->pending, pending);
    ev->live = 1;
    return ev;
}

void gasneti_event_free(gex_Event_t ev) {
    ev->live = 0;
    ev->next = gasneti_td.free_events;
    gasneti_td.free_events = ev;
}

/* Complete: nothing pending, and (a root) its leaf neither; then, if it counts puts
 * whose remote completion needs a flush, after that flush (which waits). */
static inline int event_done(gex_Event_t ev) {
    if (gasneti_atomic_read(&ev->pending)) return 0;
    if (ev->leaf && gasneti_atomic_read(&ev->leaf->pending)) return 0;
    if (GASNETC_RMA_FLUSH && ev->flush_seq) { /* its puts are locally complete: now remotely */
        gasneti_rma_flush_upto(ev->flush_seq);
        ev->flush_seq = 0;
    }
    return 1;
}

/* After a successful sync: a root goes back to the pool with its leaf; a leaf stays
 * until its root is synced (the client may still query or sync it again). */
static inline void event_retire(gex_Event_t ev) {
    if (ev->kind == GASNETI_EV_LEAF) return;
    if (ev->leaf) gasneti_event_free(ev->leaf);
    gasneti_event_free(ev);
}

#if GASNETI_DEBUG
static void check_context(const char *call, gex_Flags_t flags) {
    if (!gasneti_init_done) gasneti_fatalerror("%s called before gex_Client_Init", call);
    GASNETI_CHECK_NOT_IN_HANDLER(call);
    if (flags) gasneti_fatalerror("%s: flags must be 0 (got 0x%x)", call, (unsigned)flags);
}
/* one event of a test/wait: never NO_OP, never one already recycled */
static void check_event(gex_Event_t ev, const char *call) {
    if (ev == GEX_EVENT_NO_OP) gasneti_fatalerror("%s: GEX_EVENT_NO_OP may not be tested or waited on", call);
    if (ev != GEX_EVENT_INVALID && !ev->live)
        gasneti_fatalerror("%s: event %p was already synced (or its root was, which recycles its leaves)", call,
                           (void *)ev);
}
static void check_array(gex_Event_t *pev, size_t n, gex_Flags_t flags, const char *call) {
    check_context(call, flags);
    if (n && !pev) gasneti_fatalerror("%s: NULL array of %zu events", call, n);
    for (size_t i = 0; i < n; i++)
        check_event(pev[i], call);
}
#else
#    define check_context(call, flags) ((void)0)
#    define check_event(ev, call) ((void)0)
#    define check_array(pev, n, flags, call) ((void)0)
#endif

int gasneti_event_test(gex_Event_t ev) {
    check_context("gex_Event_Test", 0);
    check_event(ev, "gex_Event_Test");
    if (ev == GEX_EVENT_INVALID) return GASNET_OK; /* debug builds come here for the checks */
    if (!event_done(ev)) return GASNET_ERR_NOT_READY;
    event_retire(ev);
    return GASNET_OK;
}

void gasneti_event_wait(gex_Event_t ev) {
    check_context("gex_Event_Wait", 0);
    check_event(ev, "gex_Event_Wait");
    if (ev == GEX_EVENT_INVALID) return;
    GASNETI_TRACE_TIMER(t0);
    GASNETI_TRACE_BARRIER_BEGIN(mark);
    const int barrier = ev->barrier_seq1 != 0; /* the primordial team's barrier */
    GASNETI_WAITING("gex_Event_Wait", GASNETI_WAIT_EVENT, ev);
    while (!event_done(ev)) {
        gasneti_AMPoll();
        if (barrier && !event_done(ev)) gasneti_join_peer_exit(ev->barrier_seq1 - 1);
    }
    GASNETI_TRACE_TIME(GASNETI_TK_WAIT, t0);
    if (barrier) GASNETI_TRACE_BARRIER_END(mark);
    event_retire(ev);
}

/* Completes what it can, overwriting those entries with GEX_EVENT_INVALID; returns how
 * many events are still outstanding and sets *completed to how many completed now. */
static size_t test_array(gex_Event_t *pev, size_t n, size_t *completed) {
    size_t left = 0;
    *completed = 0;
    for (size_t i = 0; i < n; i++) {
        gex_Event_t ev = pev[i];
        if (ev == GEX_EVENT_INVALID) continue;
        if (event_done(ev)) {
            event_retire(ev);
            pev[i] = GEX_EVENT_INVALID;
            (*completed)++;
        } else
            left++;
    }
    return left;
}

int gex_Event_TestAll(gex_Event_t *pev, size_t n, gex_Flags_t flags) {
    size_t done;
    check_array(pev, n, flags, "gex_Event_TestAll");
    return test_array(pev, n, &done) ? GASNET_ERR_NOT_READY : GASNET_OK;
}

void gex_Event_WaitAll(gex_Event_t *pev, size_t n, gex_Flags_t flags) {
    size_t done;
    check_array(pev, n, flags, "gex_Event_WaitAll");
    GASNETI_WAITING("gex_Event_WaitAll", GASNETI_WAIT_EVENTS, pev);
    GASNETI_TRACE_TIMER(t0);
    while (test_array(pev, n, &done))
        gasneti_AMPoll();
    GASNETI_TRACE_TIME(GASNETI_TK_WAIT, t0);
}

/* Some: success when at least one event completed in this call, or none was left. */
int gex_Event_TestSome(gex_Event_t *pev, size_t n, gex_Flags_t flags) {
    size_t done;
    check_array(pev, n, flags, "gex_Event_TestSome");
    size_t left = test_array(pev, n, &done);
    return (done || !left) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gex_Event_WaitSome(gex_Event_t *pev, size_t n, gex_Flags_t flags) {
    size_t done;
    check_array(pev, n, flags, "gex_Event_WaitSome");
    GASNETI_WAITING("gex_Event_WaitSome", GASNETI_WAIT_EVENTS, pev);
    for (;;) {
        size_t left = test_array(pev, n, &done);
        if (done || !left) return;
        gasneti_AMPoll();
    }
}

/* ---- remote completion by flush (conduit_contract.h, GASNETC_RMA_FLUSH) ----
 * Puts needing a flush are numbered 1, 2, ... in the order their gasnetc_put returned
 * (gasneti_rma_flush_issued); flush_done: every put up to that number is complete at its
 * target. A flush covers what was issued when it began, so concurrent syncs of many puts
 * share one. */
uint64_t gasneti_rma_flush_issued;
#if GASNETC_RMA_FLUSH
static uint64_t flush_done;
#endif

void gasneti_rma_flush_upto(uint64_t seq) {
#if GASNETC_RMA_FLUSH
    if (__atomic_load_n(&flush_done, __ATOMIC_ACQUIRE) >= seq) return;
    uint64_t upto = __atomic_load_n(&gasneti_rma_flush_issued, __ATOMIC_ACQUIRE);
    gasnetc_rma_flush();
    uint64_t d = __atomic_load_n(&flush_done, __ATOMIC_RELAXED);
    while (d < upto && !__atomic_compare_exchange_n(&flush_done, &d, upto, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
#else
    (void)seq;
#endif
}

void gasneti_rma_flush_all(void) {
    uint64_t last = __atomic_load_n(&gasneti_rma_flush_issued, __ATOMIC_ACQUIRE);
    if (last) gasneti_rma_flush_upto(last);
}

/* ---- the events of NB puts (see gasneti_event.h) ---- */
#define LC_IS_EVENT(lc_opt) ((uintptr_t)(lc_opt) > (uintptr_t)GEX_EVENT_GROUP)

gex_Event_t gasneti_put_event(gex_Event_t *lc_opt, gex_Flags_t flags, gasneti_counter_t **lc_p) {
    gex_Event_t ev = gasneti_event_new(0);
    ev->kind = GASNETI_EV_PUT;
    *lc_p = NULL;
    if (LC_IS_EVENT(lc_opt) || (flags & GEX_FLAG_ENABLE_LEAF_LC)) {
        ev->has_lc = 1;
        if (lc_opt != GEX_EVENT_NOW) { /* NOW with the flag: the leaf is complete at return */
            gex_Event_t leaf = gasneti_event_new(0);
            leaf->kind = GASNETI_EV_LEAF;
            ev->leaf = leaf;
            *lc_p = &leaf->pending;
        }
    } else if (lc_opt == GEX_EVENT_DEFER) {
        *lc_p = &ev->pending; /* folded into operation completion */
    }
    return ev;
}

gex_Event_t gasneti_put_event_started(gex_Event_t ev, gex_Event_t *lc_opt) {
    gex_Event_t leaf = ev->leaf;
    if (leaf && !gasneti_atomic_read(&leaf->pending)) { /* complete already: nothing to keep */
        gasneti_event_free(leaf);
        ev->leaf = leaf = NULL;
    }
    if (LC_IS_EVENT(lc_opt)) *lc_opt = leaf ? leaf : GEX_EVENT_INVALID;
    return ev;
}

void gasneti_put_event_cancel(gex_Event_t ev) {
    if (ev->leaf) gasneti_event_free(ev->leaf);
    gasneti_event_free(ev);
}

/* ---- leaf events ---- */
/* the categories for which a root is its own leaf */
static gex_EC_t kind_categories(int kind) {
    switch (kind) {
    case GASNETI_EV_PUT:
        return GEX_EC_PUT;
    case GASNETI_EV_GET:
        return GEX_EC_GET;
    case GASNETI_EV_AMLC:
        return GEX_EC_LC;
    default:
        return 0;
    }
}

#if GASNETI_DEBUG
static const char *kind_name(int kind) {
    static const char *const names[] = {"a barrier",        "a put", "a get", "an AM local-completion",
                                        "an access-region", "a leaf"};
    return kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "an unknown";
}
static const char *ec_name(gex_EC_t ec) {
    switch (ec) {
    case GEX_EC_GET:
        return "GEX_EC_GET";
    case GEX_EC_PUT:
        return "GEX_EC_PUT";
    case GEX_EC_AM:
        return "GEX_EC_AM";
    case GEX_EC_LC:
        return "GEX_EC_LC";
    case GEX_EC_RMW:
        return "GEX_EC_RMW";
    default:
        return "?";
    }
}
#endif

/* QueryLeaf communicates nothing and never polls, but the spec's list of calls allowed
 * in handler context is exhaustive and does not name it, so debug builds refuse it there
 * like every other event call (a portable client must not rely on it). */
gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t category) {
#if GASNETI_DEBUG
    static const char call[] = "gex_Event_QueryLeaf";
    check_context(call, 0);
    if (root == GEX_EVENT_NO_OP) gasneti_fatalerror("%s: the root may not be GEX_EVENT_NO_OP", call);
    if (!category || (category & (category - 1)) || (category & ~GEX_EC_ALL))
        gasneti_fatalerror("%s: event_category 0x%x is not exactly one GEX_EC_* category (not GEX_EC_ALL, not an OR)",
                           call, (unsigned)category);
    if (root != GEX_EVENT_INVALID) {
        if (!root->live) gasneti_fatalerror("%s: root event %p was already synced", call, (void *)root);
        if (root->kind == GASNETI_EV_LEAF) gasneti_fatalerror("%s: event %p is a leaf, not a root", call, (void *)root);
        if (category == GEX_EC_LC && !root->has_lc && !(kind_categories(root->kind) & GEX_EC_LC))
            gasneti_fatalerror("%s: %s event has no GEX_EC_LC (0x%x) leaf: local completion was not requested (lc_opt "
                               "GEX_EVENT_NOW or GEX_EVENT_DEFER without GEX_FLAG_ENABLE_LEAF_LC, or not a put)",
                               call, kind_name(root->kind), (unsigned)category);
        if (category != GEX_EC_LC && !(kind_categories(root->kind) & category))
            gasneti_fatalerror("%s: %s event has no %s (0x%x) leaf", call, kind_name(root->kind), ec_name(category),
                               (unsigned)category);
    }
#endif
    if (root == GEX_EVENT_INVALID) return GEX_EVENT_INVALID;
    if (category == GEX_EC_LC && root->has_lc) return root->leaf ? root->leaf : GEX_EVENT_INVALID;
    /* its own category; anything else is undefined (debug builds stop above), and the root,
     * complete no earlier than any of its parts, is the least harmful answer */
    return root;
}

/* ---- NBI synchronization ---- */
static int nbi_done(gex_EC_t mask) {
    for (int c = 0; c < GASNETI_NBI_NCAT; c++)
        if ((mask & ((gex_EC_t)1 << c)) && gasneti_atomic_read(&gasneti_td.nbi[c])) return 0;
    if (GASNETC_RMA_FLUSH && (mask & GEX_EC_PUT) && gasneti_td.nbi_flush_seq) { /* see event_done */
        gasneti_rma_flush_upto(gasneti_td.nbi_flush_seq);
        gasneti_td.nbi_flush_seq = 0;
    }
    return 1;
}

#if GASNETI_DEBUG
/* The GASNet-1 spec (3.3.6.1), whose semantics gex access regions share, makes any
 * implicit-handle synchronization inside an access region erroneous: stop it. */
static void check_nbi(gex_EC_t mask, gex_Flags_t flags, const char *call) {
    check_context(call, flags);
    if (mask & ~GEX_EC_ALL) gasneti_fatalerror("%s: bad event mask 0x%x", call, (unsigned)mask);
    if (gasneti_td.region)
        gasneti_fatalerror("%s called inside an NBI access region (between gex_NBI_BeginAccessRegion and "
                           "gex_NBI_EndAccessRegion), where implicit-event synchronization is erroneous",
                           call);
}
#else
#    define check_nbi(mask, flags, call) ((void)0)
#endif

int gex_NBI_Test(gex_EC_t mask, gex_Flags_t flags) {
    check_nbi(mask, flags, "gex_NBI_Test");
    return nbi_done(mask) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gex_NBI_Wait(gex_EC_t mask, gex_Flags_t flags) {
    check_nbi(mask, flags, "gex_NBI_Wait");
    GASNETI_WAITING("gex_NBI_Wait", GASNETI_WAIT_NBI, (uintptr_t)mask);
    GASNETI_TRACE_TIMER(t0);
    while (!nbi_done(mask))
        gasneti_AMPoll();
    GASNETI_TRACE_TIME(GASNETI_TK_WAIT, t0);
}

/* ---- NBI access regions ----
 * Begin points this thread's NBI counters (gasneti_nbi_counter) at a new root, whose
 * leaf takes the local completion of GROUP puts; End points them back and returns the
 * root, or GEX_EVENT_INVALID when everything in the region is already complete. */
void gex_NBI_BeginAccessRegion(gex_Flags_t flags) {
    gasneti_threaddata_t *td = &gasneti_td;
#if GASNETI_DEBUG
    check_context("gex_NBI_BeginAccessRegion", flags);
    if (td->region)
        gasneti_fatalerror("gex_NBI_BeginAccessRegion: an access region is already open on this thread (regions do "
                           "not nest)");
#else
    (void)flags;
#endif
    gex_Event_t root = gasneti_event_new(0), leaf = gasneti_event_new(0);
    root->kind = GASNETI_EV_REGION;
    root->has_lc = 1;
    root->leaf = leaf;
    leaf->kind = GASNETI_EV_LEAF;
    td->region = root;
    for (int c = 0; c < GASNETI_NBI_NCAT; c++)
        td->nbi_region[c] = c == GASNETI_NBI_LC ? &leaf->pending : &root->pending;
}

gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags) {
    gasneti_threaddata_t *td = &gasneti_td;
    gex_Event_t root = td->region;
#if GASNETI_DEBUG
    check_context("gex_NBI_EndAccessRegion", flags);
    if (!root) gasneti_fatalerror("gex_NBI_EndAccessRegion: no access region is open on this thread");
#else
    (void)flags;
    if (!root) return GEX_EVENT_INVALID;
#endif
    td->region = NULL;
    for (int c = 0; c < GASNETI_NBI_NCAT; c++)
        td->nbi_region[c] = NULL;
    /* nothing can count into them any more: what is complete now stays complete (puts
     * needing a flush are not: the client's sync of the root flushes, not this call) */
    if (!root->flush_seq && event_done(root)) {
        event_retire(root);
        return GEX_EVENT_INVALID;
    }
    if (!gasneti_atomic_read(&root->leaf->pending)) { /* LC complete: the leaf query answers INVALID */
        gasneti_event_free(root->leaf);
        root->leaf = NULL;
    }
    return root;
}

/* AMs to non-neighbors: the conduit signals local completion through a counter
 * (conduit_contract.h); this maps lc_opt onto one. NOW: the conduit finishes with the
 * source before returning. GROUP: the thread's (or open region's) GEX_EC_AM count.
 * &event: a new event. (smp reaches every peer through PSHM, so only network conduits
 * come here.) */
int gasneti_am_send_network(const gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    if (m->category == GASNETI_AM_SHORT || lc_opt == GEX_EVENT_NOW) return gasnetc_am_send(m, NULL);
    if (lc_opt == GEX_EVENT_GROUP) {
        gasneti_counter_t *c = gasneti_nbi_counter(GASNETI_NBI_AM);
        gasneti_counter_add(c);
        int rc = gasnetc_am_send(m, c);
        if (rc) gasneti_counter_done(c);
        return rc;
    }
    gex_Event_t ev = gasneti_event_new(1);
    ev->kind = GASNETI_EV_AMLC;
    int rc = gasnetc_am_send(m, &ev->pending);
    if (rc) {
        gasneti_counter_done(&ev->pending);
        gasneti_event_free(ev);
        return rc;
    }
    *lc_opt = ev;
    return 0;
}
