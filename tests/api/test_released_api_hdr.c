/* tests/api/test_released_api_hdr.c: the header half of test_released_api, a translation
 * unit of its own so that it can include only what a client may include alone:
 *   - gasnet_fwd.h first and by itself: its types and GEX_ constants are usable, and it
 *     defines nothing outside the GEX_ / _GEX_ namespace that gasnetex.h would (checked
 *     for a few such names);
 *   - then gasnetex.h without gasnet.h: the GASNet-1 names the released gasnetex.h offers
 *     too (barriers and their flags, gasnet_barrier_result, the wait mode, the segment
 *     limits), gasnet_seginfo_t, the thread-info macros (GASNET_BEGIN_FUNCTION and
 *     friends, under -Wshadow and -Wunused made errors; one value per thread, NULL never)
 *     and its macros _STRINGIFY, if_pf, if_pt.
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

/* Every integer constant is a preprocessor constant, as in the released headers (GASNet's
 * own tests compare flags in #if); a cast would make each of these an error. */
#if (GEX_FLAG_PEER_NEVER_SELF == GEX_FLAG_PEER_NEVER_NBRHD) || (GEX_FLAG_IMMEDIATE == 0) || \
    (GEX_FLAG_TM_LOCAL_SCRATCH == GEX_FLAG_TM_GLOBAL_SCRATCH) || !(GEX_FLAG_AM_REQREP & GEX_FLAG_AM_REPLY) || \
    (GEX_FLAG_AD_FAVOR_MY_RANK & GEX_FLAG_AD_FAVOR_REMOTE) || (GEX_FLAG_HINT_ACCEL_ALL == 0) || \
    (GEX_FLAG_RANK_IS_JOBRANK == GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) || (GEX_FLAG_USES_GASNET1 == 0) || \
    (GEX_FLAG_SCRATCH_SEG_OFFSET == GEX_FLAG_GLOBALLY_QUIESCED) || (GEX_FLAG_DEFER_THREADS == 0) || \
    (GEX_FLAG_SELF_SEG_OFFSET == GEX_FLAG_PEER_SEG_OFFSET) || (GEX_FLAG_ENABLE_LEAF_LC == 0)
#  error "GEX_FLAG_* in #if"
#endif
#if (GEX_DT_I32 & GEX_DT_U32) || (GEX_DT_USER == 0) || (GEX_DT_FLT | GEX_DT_DBL | GEX_DT_I64 | GEX_DT_U64) == 0
#  error "GEX_DT_* in #if"
#endif
#if (GEX_OP_ADD == GEX_OP_FADD) || (GEX_OP_USER == GEX_OP_USER_NC) || (GEX_OP_SWAP == 0) || (GEX_OP_GET == 0) || \
    (GEX_OP_CSWAP != GEX_OP_FCAS) || (GEX_OP_INC & GEX_OP_DEC) || (GEX_OP_FMIN == GEX_OP_FMAX)
#  error "GEX_OP_* in #if"
#endif
#if (GEX_EC_GET & GEX_EC_PUT) || ((GEX_EC_AM | GEX_EC_LC | GEX_EC_RMW) & ~GEX_EC_ALL) || \
    (GEX_TI_SRCRANK & GEX_TI_EP) || ((GEX_TI_ENTRY | GEX_TI_IS_REQ | GEX_TI_IS_LONG) & ~GEX_TI_ALL)
#  error "GEX_EC_* / GEX_TI_* in #if"
#endif
#if (GEX_EP_CAPABILITY_RMA & GEX_EP_CAPABILITY_AM) || (GEX_EP_CAPABILITY_AM & ~GEX_EP_CAPABILITY_ALL) || \
    (GEX_RANK_INVALID != 0xFFFFFFFFU) || (GEX_EP_INDEX_INVALID == 0)
#  error "GEX_EP_CAPABILITY_* / GEX_RANK_INVALID in #if"
#endif
/* and in C their type is that of the gex_ type they are values of (unsigned, 32 bits):
 * no sign or width change where a client mixes them with its own variables */
#define TEST_SAME_TYPE(c, t) _Generic((c), t: 1, default: 0)
_Static_assert(TEST_SAME_TYPE(GEX_FLAG_PEER_NEVER_NBRHD, gex_Flags_t) && TEST_SAME_TYPE(GEX_DT_USER, gex_DT_t) &&
                   TEST_SAME_TYPE(GEX_OP_FXOR, gex_OP_t) && TEST_SAME_TYPE(GEX_RANK_INVALID, gex_Rank_t) &&
                   TEST_SAME_TYPE(GEX_EP_CAPABILITY_ALL, gex_EP_Capabilities_t) &&
                   TEST_SAME_TYPE(GEX_EP_INDEX_INVALID, gex_EP_Index_t) && TEST_SAME_TYPE(GEX_FLAG_HINT_ACCEL_ALL, gex_Flags_t),
               "a GEX_ integer constant's type differs from its gex_ type");

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

/* The thread-info macros of GASNet-1 (spec 3.6.1), which the released gasnetex.h offers:
 * at the top of any block, again in nested blocks, before other declarations, with a
 * value passed between functions; compiled here with the warnings a client's strict build
 * turns on made errors (an unused, shadowed or redefined name fails to compile). */
#if defined(__GNUC__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic error "-Wshadow"
#  pragma GCC diagnostic error "-Wunused-variable"
#  pragma GCC diagnostic error "-Wunused-but-set-variable"
#  pragma GCC diagnostic error "-Wunused-parameter"
#endif
static gasnet_threadinfo_t ti_callee(gasnet_threadinfo_t ti, int depth) {
    GASNET_POST_THREADINFO(ti);
    gasnet_threadinfo_t here = GASNET_GET_THREADINFO();
    if (depth > 0) {
        GASNET_BEGIN_FUNCTION();
        int d = depth - 1;
        {
            GASNET_POST_THREADINFO(here);
            GASNET_BEGIN_FUNCTION();
            return ti_callee(here, d) == here ? here : NULL;
        }
    }
    return here == ti ? here : NULL;
}
static int ti_blocks(void) {
    GASNET_BEGIN_FUNCTION();
    int sum = 0;
    for (int i = 0; i < 3; i++) {
        GASNET_BEGIN_FUNCTION();
        if (i) {
            GASNET_BEGIN_FUNCTION();
            sum += i;
        }
    }
    return sum;
}
#if defined(__GNUC__)
#  pragma GCC diagnostic pop
#endif
#ifdef GASNET_PAR
#  include <pthread.h>
static void *ti_thread(void *mainti) {
    GASNET_BEGIN_FUNCTION();
    gasnet_threadinfo_t mine = GASNET_GET_THREADINFO();
    /* non-NULL, its own, stable, and what a callee posting it sees */
    return (mine && mine != mainti && mine == GASNET_GET_THREADINFO() && ti_callee(mine, 2) == mine) ? mine : NULL;
}
#endif

/* 0, or the line of the first thing wrong */
static int check_threadinfo(void) {
    gasnet_threadinfo_t ti = GASNET_GET_THREADINFO();
    if (!ti) return __LINE__;
    if (GASNET_GET_THREADINFO() != ti) return __LINE__;
    if (ti_callee(ti, 3) != ti) return __LINE__;
    if (ti_blocks() != 3) return __LINE__;
#ifdef GASNET_PAR
    pthread_t th;
    void *other = NULL;
    if (pthread_create(&th, NULL, ti_thread, ti) != 0 || pthread_join(th, &other) != 0) return __LINE__;
    if (!other || other == ti) return __LINE__;
#endif
    return 0;
}

/* gasnet_seginfo_t from gasnetex.h alone: this rank's segment, as the query gives it */
static int check_seginfo(gex_TM_t tm) {
    gasnet_seginfo_t si = {NULL, 0};
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, gex_TM_QueryRank(tm), &si.addr, NULL, &si.size, 0));
    gex_Segment_t seg = gex_EP_QuerySegment(gex_TM_QueryEP(tm));
    if (!si.addr || si.addr != gex_Segment_QueryAddr(seg) || si.size != gex_Segment_QuerySize(seg)) return __LINE__;
    return 0;
}

/* Every caller runs this at once (collective): a named barrier, an anonymous one by the
 * split-phase try, and the queries; returns 0, or the line of the first thing wrong. */
int test_hdr_gasnetex_only(int id, gex_TM_t tm);
int test_hdr_gasnetex_only(int id, gex_TM_t tm) {
    int got = -1, n = 0, line;
    if ((line = check_threadinfo()) != 0) return line;
    if ((line = check_seginfo(tm)) != 0) return line;
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
