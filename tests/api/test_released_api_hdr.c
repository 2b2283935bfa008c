/* tests/api/test_released_api_hdr.c: the header half of test_released_api, a translation
 * unit of its own so that it can include only what a client may include alone:
 *   - gasnet_fwd.h first and by itself: its types and GEX_ constants are usable, and it
 *     defines nothing outside the GEX_ / _GEX_ namespace that gasnetex.h would (checked
 *     for a few such names);
 *   - then gasnetex.h without gasnet.h: the GASNet-1 names the released gasnetex.h offers
 *     too (barriers and their flags, gasnet_barrier_result, the wait mode, the segment
 *     limits) and its macros _STRINGIFY, if_pf, if_pt.
 * Layer: tests (public API only). Called by test_released_api.c, which checks the results. */
#include <gasnet_fwd.h>

#if defined(GASNETEX_H) || defined(GASNET_OK) || defined(GASNET_PAGESIZE) || defined(GASNETI_ALWAYS_INLINE) || \
    defined(_STRINGIFY) || defined(PLATFORM_COMPILER_FAMILYID) || defined(gex_Client_Init)
#  error "gasnet_fwd.h defines a name outside the GEX_ namespace"
#endif
#if !defined(GEX_RANK_INVALID) || !defined(GEX_EVENT_INVALID) || !defined(GEX_EVENT_NO_OP) || \
    !defined(GEX_EVENT_NOW) || !defined(GEX_EVENT_DEFER) || !defined(GEX_EVENT_GROUP) || \
    !defined(GEX_FLAG_IMMEDIATE) || !defined(GEX_FLAG_PEER_NEVER_NBRHD) || !defined(GEX_FLAG_DEFER_THREADS) || \
    !defined(GEX_DT_DBL) || !defined(GEX_OP_FXOR) || !defined(GEX_EP_CAPABILITY_ALL)
#  error "gasnet_fwd.h lacks a constant the spec says it has"
#endif

/* what a client header sees through gasnet_fwd.h alone (compared with gasnetex.h's view) */
struct fwd_user {
    gex_Rank_t rank;
    gex_EP_Index_t ep_index;
    gex_Addr_t addr;
    gex_Event_t event;
    gex_Flags_t flags;
    gex_DT_t dt;
    gex_OP_t op;
    gex_EP_Capabilities_t caps;
};
unsigned long long test_hdr_fwd_view(int what);
unsigned long long test_hdr_fwd_view(int what) {
    struct fwd_user u;
    switch (what) {
    case 0: return sizeof u;
    case 1: return GEX_RANK_INVALID;
    case 2: return GEX_FLAG_IMMEDIATE | GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD;
    case 3: return GEX_FLAG_DEFER_THREADS | GEX_FLAG_USES_GASNET1;
    case 4: return (unsigned long long)(uintptr_t)GEX_EVENT_NO_OP;
    case 5: return GEX_DT_I32 | GEX_DT_U64 | GEX_DT_DBL;
    case 6: return GEX_OP_FADD | GEX_OP_CAS;
    case 7: return GEX_EP_CAPABILITY_ALL;
    case 8: return sizeof(gex_Event_t) + sizeof(gex_Addr_t);
    }
    return 0;
}

#include <gasnetex.h> /* and not gasnet.h */
#include <string.h>

#ifdef GASNET_H
#  error "gasnetex.h must not pull in gasnet.h"
#endif
#if !defined(GASNET_BARRIERFLAG_ANONYMOUS) || !defined(GASNET_BARRIERFLAG_MISMATCH) || \
    !defined(GASNET_BARRIERFLAG_UNNAMED) || !defined(GASNET_WAIT_SPIN) || !defined(GASNET_WAIT_BLOCK) || \
    !defined(GASNET_WAIT_SPINBLOCK)
#  error "gasnetex.h lacks a GASNet-1 constant the released one has"
#endif
#if !defined(INT_MAX) || !defined(EXIT_SUCCESS)
#  error "gasnetex.h includes <limits.h> and <stdlib.h>"
#endif

/* The released implementation's optional preprocessor identifiers (its
 * implementation_defined.md), which clients test with #ifdef: exactly one
 * GASNET_<NET>_CONDUIT, exactly one of GASNET_DEBUG and GASNET_NDEBUG, GASNET_TRACE and
 * GASNET_STATS defined (to 1) only in builds that have them, GASNET_PSHM 1. */
#if (defined(GASNET_SMP_CONDUIT) + defined(GASNET_UDP_CONDUIT) + defined(GASNET_MPI_CONDUIT) + \
     defined(GASNET_IBV_CONDUIT) + defined(GASNET_OFI_CONDUIT) + defined(GASNET_UCX_CONDUIT)) != 1
#  error "gasnetex.h must define exactly one GASNET_<NET>_CONDUIT"
#endif
#if (defined(GASNET_SMP_CONDUIT) && !defined(GASNET_CONDUIT_SMP)) || \
    (defined(GASNET_UDP_CONDUIT) && !defined(GASNET_CONDUIT_UDP)) || \
    (defined(GASNET_MPI_CONDUIT) && !defined(GASNET_CONDUIT_MPI)) || \
    (defined(GASNET_IBV_CONDUIT) && !defined(GASNET_CONDUIT_IBV)) || \
    (defined(GASNET_OFI_CONDUIT) && !defined(GASNET_CONDUIT_OFI)) || \
    (defined(GASNET_UCX_CONDUIT) && !defined(GASNET_CONDUIT_UCX))
#  error "GASNET_<NET>_CONDUIT and GASNET_CONDUIT_<NET> name different conduits"
#endif
#if defined(GASNET_DEBUG) == defined(GASNET_NDEBUG)
#  error "exactly one of GASNET_DEBUG and GASNET_NDEBUG must be defined"
#endif
#if (defined(GASNET_TRACE) && GASNET_TRACE != 1) || (defined(GASNET_STATS) && GASNET_STATS != 1)
#  error "GASNET_TRACE and GASNET_STATS are 1 when built in and undefined otherwise"
#endif
#if !defined(GASNET_PSHM) || GASNET_PSHM != 1
#  error "GASNET_PSHM must be 1 (shared memory between same-host processes is always built)"
#endif

/* Every caller runs this at once (collective): a named barrier, an anonymous one by the
 * split-phase try, and the queries; returns 0, or the line of the first thing wrong. */
int test_hdr_gasnetex_only(int id);
int test_hdr_gasnetex_only(int id) {
    int got = -1, n = 0;
    if (gasnet_set_waitmode(GASNET_WAIT_SPIN) != GASNET_OK) return __LINE__;
    if (gasnet_getMaxLocalSegmentSize() == 0 || gasnet_getMaxGlobalSegmentSize() == 0) return __LINE__;
    if (gasnet_getMaxGlobalSegmentSize() > gasnet_getMaxLocalSegmentSize()) return __LINE__;
    gasnet_barrier_notify(id, 0);
    if (gasnet_barrier_wait(id, 0) != GASNET_OK) return __LINE__;
    if (gasnet_barrier_result(&got) != 0 || got != id) return __LINE__;
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    int rc;
    while ((rc = gasnet_barrier_try(0, GASNET_BARRIERFLAG_ANONYMOUS)) == GASNET_ERR_NOT_READY) n++;
    if (rc != GASNET_OK) return __LINE__;
    if (gasnet_barrier_result(&got) != GASNET_BARRIERFLAG_ANONYMOUS) return __LINE__;
    if (gasnet_barrier(id + 1, 0) != GASNET_OK) return __LINE__;
    /* the macros */
    if (strcmp(_STRINGIFY(GASNET_BARRIERFLAG_UNNAMED), "4") != 0) return __LINE__;
    int taken = 0;
    if_pf(n < 0) return __LINE__;
    if_pt(n >= 0) taken = 1;
    if (!taken) return __LINE__;
    return 0;
}
