/* gasneti_event.h: events (gex_Event_t), NBI counters and access regions, the local
 * completion of AMs and puts, and remote completion by flush: the completion services
 * that AMs (core) and RMA (extended) both use. Layer: core, internal (never installed);
 * the code is gasneti_event.c. */
#ifndef GASNETI_EVENT_H
#define GASNETI_EVENT_H

#include "conduit_contract.h"

/* Events. A root event (what an NB call or gex_NBI_EndAccessRegion returns) counts the
 * operations it stands for in `pending`. It may own one local-completion leaf: an NB put
 * made with lc_opt=&event or GEX_FLAG_ENABLE_LEAF_LC, and every access region (the LC of
 * its GROUP puts). The leaf lives and dies with its root: syncing a leaf leaves it in
 * place, syncing the root (complete only when its leaf is) recycles both. */
enum {
    GASNETI_EV_OTHER = 0, /* no category a leaf query can name (barriers) */
    GASNETI_EV_PUT,       /* NB put */
    GASNETI_EV_GET,       /* NB get */
    GASNETI_EV_AMLC,      /* local completion of an AM sent with lc_opt=&event */
    GASNETI_EV_REGION,    /* an access region: all its NBI operations */
    GASNETI_EV_LEAF       /* a local-completion leaf, owned by a root */
};
struct gasneti_event_s {
    gasneti_counter_t pending;   /* operations (and DEFERred local completions) not yet complete */
    struct gasneti_event_s *leaf; /* root: its LC leaf while that may be incomplete, else NULL */
    struct gasneti_event_s *next; /* free list */
    uint8_t kind;                 /* GASNETI_EV_* */
    uint8_t has_lc;               /* root: has an LC leaf (complete at initiation when leaf is NULL) */
    uint8_t live;                 /* 0 once recycled: debug builds catch a second sync */
    uint32_t barrier_seq1;        /* a primordial barrier's: its number + 1 (gasneti_join_peer_exit); else 0 */
    uint64_t flush_seq;           /* the last put it counts whose remote completion needs a flush; 0: none */
};

/* NBI counters, indexed by the bit number of the GEX_EC_* category */
#define GASNETI_NBI_NCAT 5
enum { GASNETI_NBI_GET = 0, GASNETI_NBI_PUT = 1, GASNETI_NBI_AM = 2, GASNETI_NBI_LC = 3, GASNETI_NBI_RMW = 4 };

typedef struct {
    gex_Event_t free_events;
    /* Where NBI operations of each category count while an access region is open (the
     * region's root and leaf); NULL outside a region: the thread's own nbi[] below. */
    gasneti_counter_t *nbi_region[GASNETI_NBI_NCAT];
    gex_Event_t region; /* the open access region's root, or NULL */
    gasneti_counter_t nbi[GASNETI_NBI_NCAT];
    uint64_t nbi_flush_seq; /* the last NBI put outside a region needing a flush; 0: none */
} gasneti_threaddata_t;
extern GASNETI_THREADLOCAL gasneti_threaddata_t gasneti_td;

/* The counter an NBI operation of category `cat` (GASNETI_NBI_*) counts into: the
 * thread's own, or the open access region's. One thread-local load. */
static inline gasneti_counter_t *gasneti_nbi_counter(int cat) {
    gasneti_counter_t *c = gasneti_td.nbi_region[cat];
    return GASNETI_LIKELY(!c) ? &gasneti_td.nbi[cat] : c;
}

/* A live event of kind GASNETI_EV_OTHER from this thread's pool, `pending` outstanding. */
extern gex_Event_t gasneti_event_new(int pending);
/* Back to this thread's pool (no checks: for events never handed to the client). */
extern void gasneti_event_free(gex_Event_t ev);
/* The root event of an NB put (gasnete_rma.c), in three steps around starting it:
 *   gasneti_put_event: a new root and, in *lc_p, the counter the put's local completion
 *     goes to: NULL for lc_opt NOW (complete at return), the root's own for DEFER, a new
 *     leaf's for lc_opt=&event or GEX_FLAG_ENABLE_LEAF_LC;
 *   gasneti_put_event_started: drops a leaf already complete and stores the leaf (or
 *     GEX_EVENT_INVALID) in *lc_opt when that is an event pointer; returns the root;
 *   gasneti_put_event_cancel: the put did not start (IMMEDIATE): recycles root and leaf. */
extern gex_Event_t gasneti_put_event(gex_Event_t *lc_opt, gex_Flags_t flags, gasneti_counter_t **lc_p);
extern gex_Event_t gasneti_put_event_started(gex_Event_t ev, gex_Event_t *lc_opt);
extern void gasneti_put_event_cancel(gex_Event_t ev);

/* Remote completion by flush (conduit_contract.h, GASNETC_RMA_FLUSH; gasneti_event.c):
 * every native put issued while gasnetc_rma_flush_on gets a number, kept as the
 * flush_seq of what counts it (its event, the open access region's root, or the thread's
 * NBI puts); a sync that finds every counted operation complete calls
 * gasneti_rma_flush_upto(flush_seq), which returns once put number flush_seq is
 * complete at its target: at once if a flush begun after that put has returned, else
 * after one gasnetc_rma_flush covering every put issued so far. */
extern void gasneti_rma_flush_upto(uint64_t seq);
extern uint64_t gasneti_rma_flush_issued;
/* The number of a native put just issued that needs a flush (gasnetc_rma_flush_on). */
static inline uint64_t gasneti_rma_flush_number(void) {
    return __atomic_add_fetch(&gasneti_rma_flush_issued, 1, __ATOMIC_ACQ_REL);
}
/* every put numbered so far complete at its target (a normal exit's quiesce) */
extern void gasneti_rma_flush_all(void);

#endif
