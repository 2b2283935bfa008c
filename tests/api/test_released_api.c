/* tests/api/test_released_api.c: the released GASNet-EX API (GASNet-EX.txt, spec 0.19).
 * At compile time, every function of GASNet-EX.txt a client can call is assigned to a
 * pointer of the prototype the spec gives it (incompatible pointer types are errors here,
 * so a signature that differs does not compile); names that are macros here are called
 * instead; feature macros, types and flag sets are checked. At run time, the calls added
 * for the released API: gex_System_{Get,Set}VerboseErrors, QueryMaxThreads,
 * QueryHiddenAMConcurrencyLevel, QueryProgressThreads (GEX_FLAG_DEFER_THREADS: none to
 * start), gex_AM_Cancel* (nothing delivered, the next AM goes), gex_AM_Commit*_v2 (the
 * right nbytes; IMMEDIATE), gex_EP_QueryBoundSegmentNB (in and out of a handler, an
 * endpoint with no segment), gex_Coll_BarrierBlocking, gasnet_barrier_result (named,
 * anonymous, unnamed, mismatched), gasnet_memvec_t with gasnet_putv/getv_bulk, gex_TM_Create
 * ranks of a parent team in reverse job order (and GEX_FLAG_RANK_IS_JOBRANK), RMA with
 * GEX_FLAG_PEER_NEVER_*, the PLATFORM_* names against the compiler's own macros, and (in
 * test_released_api_hdr.c) gasnet_fwd.h alone and gasnetex.h without gasnet.h.
 * Layer: tests (public API only). Run with 1, 2, 4 ranks. */
#include <gasnet_fwd.h>
#include <gasnet_portable_platform.h>
#include "test_util.h"
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>

#if defined(__GNUC__)
#  pragma GCC diagnostic error "-Wincompatible-pointer-types"
#endif

#define WAIT_SECS 60
#define SLOT ((size_t)64 * 1024) /* per-sender region of a segment */
enum { H_GOOD = 200, H_ACK, H_RR, H_REP, H_QB };

/* ---------------------------------------------------------------------------------------
 * Compile time: macros, types, flags
 * ------------------------------------------------------------------------------------- */
#if GEX_SPEC_VERSION_MAJOR != 0 || GASNET_SPEC_VERSION_MAJOR != 1 || GASNET_SPEC_VERSION_MINOR != 8
#  error "spec versions"
#endif
#if GASNET_SUPPORTS_AM_CANCEL != 20240418L || GASNET_SUPPORTS_AM_COMMIT_V2 != 20240906L
#  error "GASNET_SUPPORTS_AM_CANCEL / _COMMIT_V2 must have the released values"
#endif
#if GASNET_SUPPORTS_TI_SRCRANK != 1 || GASNET_SUPPORTS_TI_EP != 1
#  error "the required token-info queries"
#endif
/* what this library does not have must be undefined (a client tests with #ifdef) */
#if defined(GASNET_RCV_THREAD) || defined(GASNET_SND_THREAD) || defined(GASNET_SEGMENT_EVERYTHING)
#  error "no progress threads and no SEGMENT_EVERYTHING here"
#endif
/* the negotiated-payload hints (docs/am.md): Medium requests are native on smp (all
 * shared memory, written in place) and on ofi, ucx and ibv (built in their send memory),
 * Medium replies on ofi, ucx and ibv; Longs are copied everywhere */
#if defined(GASNET_NATIVE_NP_ALLOC_REQ_LONG) || defined(GASNET_NATIVE_NP_ALLOC_REP_LONG)
#  error "a library-buffer Long Prepare saves no copy here"
#endif
#if defined(GASNET_CONDUIT_OFI) || defined(GASNET_CONDUIT_UCX) || defined(GASNET_CONDUIT_IBV)
#  define TEST_NP_NET 1
#else
#  define TEST_NP_NET 0
#endif
#if (defined(GASNET_CONDUIT_SMP) || TEST_NP_NET) != defined(GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM)
#  error "GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM: defined exactly on smp, ofi, ucx and ibv"
#endif
#if TEST_NP_NET != defined(GASNET_NATIVE_NP_ALLOC_REP_MEDIUM)
#  error "GASNET_NATIVE_NP_ALLOC_REP_MEDIUM: defined exactly on ofi, ucx and ibv"
#endif
#if GASNET_HIDDEN_AM_CONCURRENCY_LEVEL != 0
#  error "no hidden AM concurrency"
#endif
#if !defined(GEX_THREAD_ROLE_RCV) || !defined(GEX_THREAD_ROLE_SND) || (GEX_THREAD_ROLE_RCV & GEX_THREAD_ROLE_SND)
#  error "GEX_THREAD_ROLE_*"
#endif
#if !defined(_STRINGIFY) || !defined(if_pf) || !defined(if_pt)
#  error "_STRINGIFY, if_pf, if_pt"
#endif
#if !defined(GASNET_MAXEPS) || !defined(GEX_AM_INDEX_BASE) || GEX_AM_INDEX_BASE > 128 || \
    !defined(SIZEOF_GEX_RMA_VALUE_T) || !defined(GEX_VIS_MAX_PEERCOMPLETION) || !defined(GEX_HSL_INITIALIZER)
#  error "constants of GASNet-EX.txt"
#endif

/* The flags one call accepts are distinct bits (each of these is a single bit, so they
 * are disjoint exactly when their sum equals their OR). */
#define DISJOINT2(a, b) (((a) & (b)) == 0)
#define SUM_IS_OR(s, o) ((s) == (o))
_Static_assert(SUM_IS_OR(GEX_FLAG_IMMEDIATE + GEX_FLAG_LC_COPY_YES + GEX_FLAG_LC_COPY_NO + GEX_FLAG_SELF_SEG_UNKNOWN +
                             GEX_FLAG_SELF_SEG_SOME + GEX_FLAG_SELF_SEG_BOUND + GEX_FLAG_SELF_SEG_OFFSET +
                             GEX_FLAG_PEER_SEG_UNKNOWN + GEX_FLAG_PEER_SEG_SOME + GEX_FLAG_PEER_SEG_BOUND +
                             GEX_FLAG_PEER_SEG_OFFSET + GEX_FLAG_ENABLE_LEAF_LC + GEX_FLAG_PEER_NEVER_SELF +
                             GEX_FLAG_PEER_NEVER_NBRHD,
                         GEX_FLAG_IMMEDIATE | GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO | GEX_FLAG_SELF_SEG_UNKNOWN |
                             GEX_FLAG_SELF_SEG_SOME | GEX_FLAG_SELF_SEG_BOUND | GEX_FLAG_SELF_SEG_OFFSET |
                             GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_PEER_SEG_SOME | GEX_FLAG_PEER_SEG_BOUND |
                             GEX_FLAG_PEER_SEG_OFFSET | GEX_FLAG_ENABLE_LEAF_LC | GEX_FLAG_PEER_NEVER_SELF |
                             GEX_FLAG_PEER_NEVER_NBRHD),
               "the flags of gex_RMA_* share a bit");
_Static_assert(SUM_IS_OR(GEX_FLAG_TM_SCRATCH_SIZE_MIN + GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED +
                             GEX_FLAG_TM_SYMMETRIC_SCRATCH + GEX_FLAG_TM_LOCAL_SCRATCH + GEX_FLAG_TM_GLOBAL_SCRATCH +
                             GEX_FLAG_TM_NO_SCRATCH + GEX_FLAG_SCRATCH_SEG_OFFSET + GEX_FLAG_RANK_IS_JOBRANK,
                         GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED |
                             GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_TM_GLOBAL_SCRATCH |
                             GEX_FLAG_TM_NO_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET | GEX_FLAG_RANK_IS_JOBRANK),
               "the flags of gex_TM_Create share a bit");
_Static_assert(DISJOINT2(GEX_FLAG_USES_GASNET1, GEX_FLAG_DEFER_THREADS), "the flags of gex_Client_Init share a bit");
_Static_assert(SUM_IS_OR(GEX_FLAG_IMMEDIATE + GEX_FLAG_AD_MY_RANK + GEX_FLAG_AD_MY_NBRHD + GEX_FLAG_AD_ACQ +
                             GEX_FLAG_AD_REL + GEX_FLAG_RANK_IS_JOBRANK + GEX_FLAG_SELF_SEG_OFFSET +
                             GEX_FLAG_PEER_SEG_OFFSET,
                         GEX_FLAG_IMMEDIATE | GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD | GEX_FLAG_AD_ACQ |
                             GEX_FLAG_AD_REL | GEX_FLAG_RANK_IS_JOBRANK | GEX_FLAG_SELF_SEG_OFFSET |
                             GEX_FLAG_PEER_SEG_OFFSET),
               "the flags of gex_AD_Op* share a bit");
_Static_assert(SUM_IS_OR(GEX_FLAG_AD_FAVOR_MY_RANK + GEX_FLAG_AD_FAVOR_MY_NBRHD + GEX_FLAG_AD_FAVOR_REMOTE,
                         GEX_FLAG_AD_FAVOR_MY_RANK | GEX_FLAG_AD_FAVOR_MY_NBRHD | GEX_FLAG_AD_FAVOR_REMOTE),
               "the flags of gex_AD_Create share a bit");
_Static_assert(GEX_FLAG_AM_MEDLONG == (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG) &&
                   GEX_FLAG_AM_REQREP == (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY),
               "registration flags");
_Static_assert(sizeof(gasnet_memvec_t) == sizeof(gex_Memvec_t), "the two memvecs have one layout");

/* The types of the released structures' fields: each assignment compiles only if the
 * field has (or converts from) the released type; pointers to fields are exact. */
static void field_types(void) {
    gasnet_memvec_t mv1;
    gex_Memvec_t mv;
    gex_ProgressThreadInfo_t pti;
    gex_Token_Info_t ti;
    gex_EP_Location_t loc;
    gex_AM_Entry_t ent;
    void **pv;
    size_t *psz;
    const char **pcs;
    unsigned int *pu;
    void *(**pfn)(void *);
    pv = &mv1.addr, psz = &mv1.len;
    pv = &mv.gex_addr, psz = &mv.gex_len;
    pcs = &pti.gex_device_list, pu = &pti.gex_thread_roles, pfn = &pti.gex_progress_fn, pv = &pti.gex_progress_arg;
    gex_Rank_t *pr = &ti.gex_srcrank;
    gex_EP_t *pep = &ti.gex_ep;
    const gex_AM_Entry_t **pent = &ti.gex_entry;
    pr = &loc.gex_rank;
    gex_EP_Index_t *pidx = &loc.gex_ep_index;
    gex_AM_Index_t *paidx = &ent.gex_index;
    gex_AM_Fn_t *pf = &ent.gex_fnptr;
    gex_Flags_t *pfl = &ent.gex_flags;
    pu = &ent.gex_nargs;
    const void **pcd = &ent.gex_cdata;
    pcs = &ent.gex_name;
    gex_RankInfo_t *ri = NULL;
    const gex_Rank_t *pjr = ri ? &ri->gex_jobrank : NULL;
    gex_Coll_ReduceFn_t rf = (void (*)(const void *, void *, size_t, const void *))NULL;
    gex_HSL_t hsl = GEX_HSL_INITIALIZER;
    (void)pv, (void)psz, (void)pcs, (void)pu, (void)pfn, (void)pr, (void)pep, (void)pent, (void)pidx, (void)paidx;
    (void)pf, (void)pfl, (void)pcd, (void)pjr, (void)rf, (void)hsl;
    unsigned long long is_req = ti.gex_is_req = 1, is_long = ti.gex_is_long = 0; /* some integral type */
    (void)is_req, (void)is_long;
}

/* ---------------------------------------------------------------------------------------
 * The signature audit: every callable function of GASNet-EX.txt, by its released prototype
 * ------------------------------------------------------------------------------------- */
static int audited;
#define SIG(ret, fn, args)                    \
    do {                                      \
        ret(*volatile audit_p) args = fn;     \
        audited += audit_p != 0;              \
    } while (0)
/* the numbered AM families: forms 0, 1 and 16 */
#define A1 , gex_AM_Arg_t
#define A16 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1
#define SIG_AM(ret, fam, suffix, ...)                                     \
    do {                                                                  \
        SIG(ret, fam##0##suffix, (__VA_ARGS__));                          \
        SIG(ret, fam##1##suffix, (__VA_ARGS__ A1));                       \
        SIG(ret, fam##16##suffix, (__VA_ARGS__ A16));                     \
    } while (0)
#define SIG_AD(NAME, T)                                                                                         \
    do {                                                                                                        \
        SIG(gex_Event_t, gex_AD_OpNB_##NAME, (gex_AD_t, T *, gex_Rank_t, void *, gex_OP_t, T, T, gex_Flags_t)); \
        SIG(int, gex_AD_OpNBI_##NAME, (gex_AD_t, T *, gex_Rank_t, void *, gex_OP_t, T, T, gex_Flags_t));        \
    } while (0)

static int signature_audit(void) {
    audited = 0;
    /* gasnet.h */
    SIG(void, gasnet_QueryGexObjects, (gex_Client_t *, gex_EP_t *, gex_TM_t *, gex_Segment_t *));
    /* system */
    SIG(gex_Rank_t, gex_System_QueryJobRank, (void));
    SIG(gex_Rank_t, gex_System_QueryJobSize, (void));
    SIG(int, gex_System_GetVerboseErrors, ());
    SIG(void, gex_System_SetVerboseErrors, (int));
    SIG(uint64_t, gex_System_QueryMaxThreads, (void));
    SIG(int, gex_System_QueryHiddenAMConcurrencyLevel, (void));
    SIG(int, gex_System_QueryProgressThreads, (gex_Client_t, unsigned int *, const gex_ProgressThreadInfo_t **,
                                               gex_Flags_t));
    SIG(void, gex_System_QueryNbrhdInfo, (gex_RankInfo_t **, gex_Rank_t *, gex_Rank_t *));
    SIG(void, gex_System_QueryHostInfo, (gex_RankInfo_t **, gex_Rank_t *, gex_Rank_t *));
    SIG(void, gex_System_QueryMyPosition, (gex_Rank_t *, gex_Rank_t *, gex_Rank_t *, gex_Rank_t *));
    /* client data and queries */
    SIG(void, gex_Client_SetCData, (gex_Client_t, const void *));
    SIG(void *, gex_Client_QueryCData, (gex_Client_t));
    SIG(void, gex_Segment_SetCData, (gex_Segment_t, const void *));
    SIG(void *, gex_Segment_QueryCData, (gex_Segment_t));
    SIG(void, gex_TM_SetCData, (gex_TM_t, const void *));
    SIG(void *, gex_TM_QueryCData, (gex_TM_t));
    SIG(void, gex_EP_SetCData, (gex_EP_t, const void *));
    SIG(void *, gex_EP_QueryCData, (gex_EP_t));
    SIG(gex_Flags_t, gex_Client_QueryFlags, (gex_Client_t));
    SIG(const char *, gex_Client_QueryName, (gex_Client_t));
    SIG(gex_Client_t, gex_Segment_QueryClient, (gex_Segment_t));
    SIG(gex_Flags_t, gex_Segment_QueryFlags, (gex_Segment_t));
    SIG(void *, gex_Segment_QueryAddr, (gex_Segment_t));
    SIG(uintptr_t, gex_Segment_QuerySize, (gex_Segment_t));
    SIG(int, gex_Segment_Attach, (gex_Segment_t *, gex_TM_t, uintptr_t));
    SIG(gex_Client_t, gex_TM_QueryClient, (gex_TM_t));
    SIG(gex_EP_t, gex_TM_QueryEP, (gex_TM_t));
    SIG(gex_Flags_t, gex_TM_QueryFlags, (gex_TM_t));
    SIG(gex_Rank_t, gex_TM_QueryRank, (gex_TM_t));
    SIG(gex_Rank_t, gex_TM_QuerySize, (gex_TM_t));
    /* teams */
    SIG(size_t, gex_TM_Split, (gex_TM_t *, gex_TM_t, int, int, void *, size_t, gex_Flags_t));
    SIG(size_t, gex_TM_Create, (gex_TM_t *, size_t, gex_TM_t, gex_EP_Location_t *, size_t, gex_Addr_t *, size_t,
                                gex_Flags_t));
    SIG(int, gex_TM_Destroy, (gex_TM_t, gex_Memvec_t *, gex_Flags_t));
    SIG(gex_TM_t, gex_TM_Pair, (gex_EP_t, gex_EP_Index_t));
    SIG(gex_Rank_t, gex_TM_TranslateRankToJobrank, (gex_TM_t, gex_Rank_t));
    SIG(gex_Rank_t, gex_TM_TranslateJobrankToRank, (gex_TM_t, gex_Rank_t));
    SIG(gex_EP_Location_t, gex_TM_TranslateRankToEP, (gex_TM_t, gex_Rank_t, gex_Flags_t));
    /* endpoints and bound segments */
    SIG(gex_Client_t, gex_EP_QueryClient, (gex_EP_t));
    SIG(gex_Flags_t, gex_EP_QueryFlags, (gex_EP_t));
    SIG(gex_Segment_t, gex_EP_QuerySegment, (gex_EP_t));
    SIG(gex_EP_Index_t, gex_EP_QueryIndex, (gex_EP_t));
    SIG(gex_Event_t, gex_EP_QueryBoundSegmentNB, (gex_TM_t, gex_Rank_t, void **, void **, uintptr_t *, gex_Flags_t));
    SIG(int, gex_Segment_QueryBound, (gex_TM_t, gex_Rank_t, void **, void **, uintptr_t *));
    SIG(int, gex_EP_PublishBoundSegment, (gex_TM_t, gex_EP_t *, size_t, gex_Flags_t));
    /* AM: handlers, limits, token */
    SIG(int, gex_EP_RegisterHandlers, (gex_EP_t, gex_AM_Entry_t *, size_t));
    SIG(unsigned int, gex_AM_MaxArgs, (void));
    SIG(size_t, gex_AM_MaxRequestLong, (gex_TM_t, gex_Rank_t, const gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(size_t, gex_AM_MaxReplyLong, (gex_TM_t, gex_Rank_t, const gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(size_t, gex_AM_MaxRequestMedium, (gex_TM_t, gex_Rank_t, const gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(size_t, gex_AM_MaxReplyMedium, (gex_TM_t, gex_Rank_t, const gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(size_t, gex_Token_MaxReplyLong, (gex_Token_t, const gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(size_t, gex_Token_MaxReplyMedium, (gex_Token_t, const gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(size_t, gex_AM_LUBRequestLong, (void));
    SIG(size_t, gex_AM_LUBReplyLong, (void));
    SIG(size_t, gex_AM_LUBRequestMedium, (void));
    SIG(size_t, gex_AM_LUBReplyMedium, (void));
    SIG(gex_TI_t, gex_Token_Info, (gex_Token_t, gex_Token_Info_t *, gex_TI_t));
    /* AM: fixed payload */
    SIG_AM(int, gex_AM_RequestLong, , gex_TM_t, gex_Rank_t, gex_AM_Index_t, const void *, size_t, void *,
           gex_Event_t *, gex_Flags_t);
    SIG_AM(int, gex_AM_ReplyLong, , gex_Token_t, gex_AM_Index_t, const void *, size_t, void *, gex_Event_t *,
           gex_Flags_t);
    SIG_AM(int, gex_AM_RequestMedium, , gex_TM_t, gex_Rank_t, gex_AM_Index_t, const void *, size_t, gex_Event_t *,
           gex_Flags_t);
    SIG_AM(int, gex_AM_ReplyMedium, , gex_Token_t, gex_AM_Index_t, const void *, size_t, gex_Event_t *,
           gex_Flags_t);
    SIG_AM(int, gex_AM_RequestShort, , gex_TM_t, gex_Rank_t, gex_AM_Index_t, gex_Flags_t);
    SIG_AM(int, gex_AM_ReplyShort, , gex_Token_t, gex_AM_Index_t, gex_Flags_t);
    /* AM: negotiated payload */
    SIG(void *, gex_AM_SrcDescAddr, (gex_AM_SrcDesc_t));
    SIG(size_t, gex_AM_SrcDescSize, (gex_AM_SrcDesc_t));
    SIG(gex_AM_SrcDesc_t, gex_AM_PrepareRequestMedium, (gex_TM_t, gex_Rank_t, const void *, size_t, size_t,
                                                        gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(gex_AM_SrcDesc_t, gex_AM_PrepareReplyMedium, (gex_Token_t, const void *, size_t, size_t, gex_Event_t *,
                                                      gex_Flags_t, unsigned int));
    SIG(gex_AM_SrcDesc_t, gex_AM_PrepareRequestLong, (gex_TM_t, gex_Rank_t, const void *, size_t, size_t, void *,
                                                      gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(gex_AM_SrcDesc_t, gex_AM_PrepareReplyLong, (gex_Token_t, const void *, size_t, size_t, void *,
                                                    gex_Event_t *, gex_Flags_t, unsigned int));
    SIG_AM(void, gex_AM_CommitRequestMedium, , gex_AM_SrcDesc_t, gex_AM_Index_t, size_t);
    SIG_AM(void, gex_AM_CommitReplyMedium, , gex_AM_SrcDesc_t, gex_AM_Index_t, size_t);
    SIG_AM(void, gex_AM_CommitRequestLong, , gex_AM_SrcDesc_t, gex_AM_Index_t, size_t, void *);
    SIG_AM(void, gex_AM_CommitReplyLong, , gex_AM_SrcDesc_t, gex_AM_Index_t, size_t, void *);
    SIG_AM(int, gex_AM_CommitRequestMedium, _v2, gex_AM_SrcDesc_t, gex_AM_Index_t, size_t, gex_Flags_t);
    SIG_AM(int, gex_AM_CommitReplyMedium, _v2, gex_AM_SrcDesc_t, gex_AM_Index_t, size_t, gex_Flags_t);
    SIG_AM(int, gex_AM_CommitRequestLong, _v2, gex_AM_SrcDesc_t, gex_AM_Index_t, size_t, void *, gex_Flags_t);
    SIG_AM(int, gex_AM_CommitReplyLong, _v2, gex_AM_SrcDesc_t, gex_AM_Index_t, size_t, void *, gex_Flags_t);
    SIG(int, gex_AM_CancelRequestMedium, (gex_AM_SrcDesc_t, gex_Flags_t));
    SIG(int, gex_AM_CancelReplyMedium, (gex_AM_SrcDesc_t, gex_Flags_t));
    SIG(int, gex_AM_CancelRequestLong, (gex_AM_SrcDesc_t, gex_Flags_t));
    SIG(int, gex_AM_CancelReplyLong, (gex_AM_SrcDesc_t, gex_Flags_t));
    /* RMA */
    SIG(int, gex_RMA_PutBlocking, (gex_TM_t, gex_Rank_t, void *, const void *, size_t, gex_Flags_t));
    SIG(int, gex_RMA_PutNBI, (gex_TM_t, gex_Rank_t, void *, const void *, size_t, gex_Event_t *, gex_Flags_t));
    SIG(gex_Event_t, gex_RMA_PutNB, (gex_TM_t, gex_Rank_t, void *, const void *, size_t, gex_Event_t *,
                                     gex_Flags_t));
    SIG(int, gex_RMA_GetBlocking, (gex_TM_t, void *, gex_Rank_t, void *, size_t, gex_Flags_t));
    SIG(int, gex_RMA_GetNBI, (gex_TM_t, void *, gex_Rank_t, void *, size_t, gex_Flags_t));
    SIG(gex_Event_t, gex_RMA_GetNB, (gex_TM_t, void *, gex_Rank_t, void *, size_t, gex_Flags_t));
    SIG(gex_RMA_Value_t, gex_RMA_GetBlockingVal, (gex_TM_t, gex_Rank_t, void *, size_t, gex_Flags_t));
    SIG(int, gex_RMA_PutBlockingVal, (gex_TM_t, gex_Rank_t, void *, gex_RMA_Value_t, size_t, gex_Flags_t));
    SIG(int, gex_RMA_PutNBIVal, (gex_TM_t, gex_Rank_t, void *, gex_RMA_Value_t, size_t, gex_Flags_t));
    SIG(gex_Event_t, gex_RMA_PutNBVal, (gex_TM_t, gex_Rank_t, void *, gex_RMA_Value_t, size_t, gex_Flags_t));
    /* events and NBI */
    SIG(void, gex_NBI_BeginAccessRegion, (gex_Flags_t));
    SIG(gex_Event_t, gex_NBI_EndAccessRegion, (gex_Flags_t));
    SIG(int, gex_Event_Test, (gex_Event_t));
    SIG(void, gex_Event_Wait, (gex_Event_t));
    SIG(int, gex_Event_TestSome, (gex_Event_t *, size_t, gex_Flags_t));
    SIG(void, gex_Event_WaitSome, (gex_Event_t *, size_t, gex_Flags_t));
    SIG(int, gex_Event_TestAll, (gex_Event_t *, size_t, gex_Flags_t));
    SIG(void, gex_Event_WaitAll, (gex_Event_t *, size_t, gex_Flags_t));
    SIG(int, gex_NBI_Test, (gex_EC_t, gex_Flags_t));
    SIG(void, gex_NBI_Wait, (gex_EC_t, gex_Flags_t));
    SIG(gex_Event_t, gex_Event_QueryLeaf, (gex_Event_t, gex_EC_t));
    /* handler-safe locks */
    SIG(void, gex_HSL_Init, (gex_HSL_t *));
    SIG(void, gex_HSL_Destroy, (gex_HSL_t *));
    SIG(void, gex_HSL_Lock, (gex_HSL_t *));
    SIG(void, gex_HSL_Unlock, (gex_HSL_t *));
    SIG(int, gex_HSL_Trylock, (gex_HSL_t *));
    /* gasnet_ratomic.h */
    SIG(void, gex_AD_Create, (gex_AD_t *, gex_TM_t, gex_DT_t, gex_OP_t, gex_Flags_t));
    SIG(void, gex_AD_Destroy, (gex_AD_t));
    SIG(gex_Flags_t, gex_AD_QueryFlags, (gex_AD_t));
    SIG(gex_TM_t, gex_AD_QueryTM, (gex_AD_t));
    SIG(gex_DT_t, gex_AD_QueryDT, (gex_AD_t));
    SIG(gex_OP_t, gex_AD_QueryOps, (gex_AD_t));
    SIG(void, gex_AD_SetCData, (gex_AD_t, const void *));
    SIG(void *, gex_AD_QueryCData, (gex_AD_t));
    SIG_AD(I32, int32_t);
    SIG_AD(U32, uint32_t);
    SIG_AD(I64, int64_t);
    SIG_AD(U64, uint64_t);
    SIG_AD(FLT, float);
    SIG_AD(DBL, double);
    /* gasnet_vis.h (the VIS calls themselves are macros here: called in test_vis) */
    SIG(void, gex_VIS_SetPeerCompletionHandler, (gex_AM_Index_t, const void *, size_t, gex_Flags_t));
    /* collectives */
    SIG(gex_Event_t, gex_Coll_BarrierNB, (gex_TM_t, gex_Flags_t));
    SIG(gex_Event_t, gex_Coll_BroadcastNB, (gex_TM_t, gex_Rank_t, void *, const void *, size_t, gex_Flags_t));
    SIG(gex_Event_t, gex_Coll_ReduceToOneNB, (gex_TM_t, gex_Rank_t, void *, const void *, gex_DT_t, size_t, size_t,
                                              gex_OP_t, gex_Coll_ReduceFn_t, void *, gex_Flags_t));
    SIG(gex_Event_t, gex_Coll_ReduceToAllNB, (gex_TM_t, void *, const void *, gex_DT_t, size_t, size_t, gex_OP_t,
                                              gex_Coll_ReduceFn_t, void *, gex_Flags_t));
    /* released, named in the reference's README, not in GASNet-EX.txt: a blocking barrier */
    SIG(void, gex_Coll_BarrierBlocking, (gex_TM_t, gex_Flags_t));
    return audited;
}
/* 10 system + 20 object queries + 7 teams + 7 endpoint/segment + 13 AM limits/token +
 * 6*3 fixed-payload + 6 Prepare/SrcDesc + 8*3 Commit + 4 Cancel + 10 RMA + 11 events +
 * 5 HSL + 8 AD + 12 AD ops + 1 VIS + 4 coll + 1 gasnet.h + 1 BarrierBlocking */
#define AUDITED (10 + 20 + 7 + 7 + 13 + 18 + 6 + 24 + 4 + 10 + 11 + 5 + 8 + 12 + 1 + 4 + 1 + 1)

/* ---------------------------------------------------------------------------------------
 * Handlers
 * ------------------------------------------------------------------------------------- */
static uint8_t **peer_seg; /* [rank]: base of each rank's segment, in its own address space */
static uint8_t *my_seg;
static size_t max_med;
static volatile long good_runs, acks, rr_replies, qb_ok;
static uint8_t *handler_buf;

/* Medium or Long request: a0 seed, a1 nbytes, a2 1 when Long; acknowledged by a Short reply */
static void good_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2) {
    gex_Token_Info_t info;
    gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK((got & GEX_TI_ALL) == GEX_TI_ALL); /* GASNET_SUPPORTS_TI_* all 1 */
    CHECK_EQ(info.gex_is_req, 1u);
    CHECK_EQ((int)info.gex_is_long, (int)a2);
    CHECK(info.gex_ep == test_ep);
    CHECK(info.gex_entry && info.gex_entry->gex_index == H_GOOD);
    CHECKF(n == (size_t)(uint32_t)a1, "handler got %zu bytes, the Commit said %u", n, (unsigned)a1);
    CHECK_PAT(buf, n, (uint64_t)(uint32_t)a0, "payload of %zu bytes from rank %u", n, (unsigned)info.gex_srcrank);
    good_runs++;
    gex_AM_ReplyShort0(t, H_ACK, 0);
}

static void ack_handler(gex_Token_t t) {
    (void)t;
    acks++;
}

/* Short request: a0 = reply mode. Prepares replies it cancels, then replies through
 * Commit*_v2 with half of what was prepared (a1 = seed). */
static void rr_handler(gex_Token_t t, gex_AM_Arg_t mode, gex_AM_Arg_t seed) {
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    gex_Rank_t from = info.gex_srcrank;
    void *dest = peer_seg[from] + ((size_t)test_size + test_rank) * SLOT;
    /* cancelled: a library-buffer Medium, a client-buffer Medium, a library-buffer Long */
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, 64, 1000, NULL, 0, 2);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    memset(gex_AM_SrcDescAddr(sd), 0x5a, gex_AM_SrcDescSize(sd));
    CHECK_EQ(gex_AM_CancelReplyMedium(sd, 0), 0);
    sd = gex_AM_PrepareReplyMedium(t, handler_buf, 64, 1000, GEX_EVENT_NOW, 0, 2);
    CHECK(gex_AM_SrcDescAddr(sd) == handler_buf);
    CHECK_EQ(gex_AM_CancelReplyMedium(sd, 0), 0);
    sd = gex_AM_PrepareReplyLong(t, NULL, 64, 4096, dest, NULL, 0, 2);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    CHECK_EQ(gex_AM_CancelReplyLong(sd, 0), 0);
    /* then the reply that goes */
    size_t n;
    int rc;
    switch (mode) {
    case 0: /* Medium, numbered _v2 form */
        sd = gex_AM_PrepareReplyMedium(t, NULL, 64, 1000, NULL, 0, 2);
        n = gex_AM_SrcDescSize(sd) / 2;
        test_pat_fill(gex_AM_SrcDescAddr(sd), n, (uint32_t)seed);
        rc = gex_AM_CommitReplyMedium2_v2(sd, H_REP, n, 0, seed, (gex_AM_Arg_t)n);
        CHECK_EQ(rc, 0);
        break;
    case 1: /* Long, variadic _v2 form, destination only at Commit */
        sd = gex_AM_PrepareReplyLong(t, NULL, 64, 4096, NULL, NULL, 0, 2);
        n = gex_AM_SrcDescSize(sd) / 2;
        test_pat_fill(gex_AM_SrcDescAddr(sd), n, (uint32_t)seed);
        rc = gex_AM_CommitReplyLong_v2(sd, H_REP, n, dest, 0, seed, (gex_AM_Arg_t)n);
        CHECK_EQ(rc, 0);
        break;
    default: /* Medium from a client buffer, IMMEDIATE: a decline leaves the descriptor for another try */
        n = 300;
        test_pat_fill(handler_buf, n, (uint32_t)seed);
        sd = gex_AM_PrepareReplyMedium(t, handler_buf, n, n, GEX_EVENT_NOW, 0, 2);
        CHECK_EQ(gex_AM_SrcDescSize(sd), n);
        if (gex_AM_CommitReplyMedium_v2(sd, H_REP, n, GEX_FLAG_IMMEDIATE, seed, (gex_AM_Arg_t)n))
            CHECK_EQ(gex_AM_CommitReplyMedium2_v2(sd, H_REP, n, 0, seed, (gex_AM_Arg_t)n), 0);
        break;
    }
}

static void rep_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed, gex_AM_Arg_t nbytes) {
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK_EQ(info.gex_is_req, 0u);
    CHECKF(n == (size_t)(uint32_t)nbytes, "reply of %zu bytes, the Commit said %u", n, (unsigned)nbytes);
    if (info.gex_is_long) CHECK(buf == my_seg + ((size_t)test_size + info.gex_srcrank) * SLOT);
    CHECK_PAT(buf, n, (uint64_t)(uint32_t)seed, "reply payload of %zu bytes", n);
    rr_replies++;
}

/* Short request: the bound-segment query, legal here with IMMEDIATE (a0: expected size) */
static void qb_handler(gex_Token_t t, gex_AM_Arg_t size) {
    void *owner = NULL, *local = NULL;
    uintptr_t sz = 0;
    gex_Event_t ev = gex_EP_QueryBoundSegmentNB(test_tm, test_rank, &owner, &local, &sz, GEX_FLAG_IMMEDIATE);
    CHECK(ev == GEX_EVENT_INVALID); /* our own endpoint: always answered at once */
    CHECK_EQ(sz, (uintptr_t)(uint32_t)size);
    CHECK(owner == my_seg && local == my_seg);
    qb_ok++;
    gex_AM_ReplyShort0(t, H_ACK, 0);
}

/* ---------------------------------------------------------------------------------------
 * Run-time checks
 * ------------------------------------------------------------------------------------- */
static void wait_acks(long want, const char *what) {
    TEST_POLL_UNTIL(acks >= want, WAIT_SECS, "no acknowledgement of %s (%ld of %ld)", what, acks, want);
    CHECK_EQ(acks, want);
}

static void check_system(void) {
    CHECK_EQ(gex_System_GetVerboseErrors(), 1); /* on by default */
    gex_System_SetVerboseErrors(0);
    CHECK_EQ(gex_System_GetVerboseErrors(), 0);
    unsigned int cnt = 99;
    const gex_ProgressThreadInfo_t *info = NULL;
    /* the spec's errors (quietly: verbose errors are off) */
    CHECK_EQ(gex_System_QueryProgressThreads(test_client, NULL, &info, 0), GASNET_ERR_BAD_ARG);
    CHECK_EQ(gex_System_QueryProgressThreads(test_client, &cnt, NULL, 0), GASNET_ERR_BAD_ARG);
    CHECK_EQ(gex_System_QueryProgressThreads(test_client, &cnt, &info, 1), GASNET_ERR_BAD_ARG);
    gex_System_SetVerboseErrors(1);
    CHECK_EQ(gex_System_GetVerboseErrors(), 1);
    /* this client passed GEX_FLAG_DEFER_THREADS: the library has no thread to start */
    CHECK(gex_Client_QueryFlags(test_client) & GEX_FLAG_DEFER_THREADS);
    CHECK_EQ(gex_System_QueryProgressThreads(test_client, &cnt, &info, 0), GASNET_OK);
    CHECK_EQ(cnt, 0u);
    uint64_t mt = gex_System_QueryMaxThreads();
    CHECK(mt >= 1);
#if defined(GASNET_SEQ)
    CHECK_EQ(mt, 1); /* "In a SEQ build ... always returns 1" */
#endif
    CHECK_EQ(gex_System_QueryHiddenAMConcurrencyLevel(), 0);
    CHECK_EQ(gex_System_QueryJobRank(), test_rank);
    CHECK_EQ(gex_System_QueryJobSize(), test_size);
}

/* Prepares of every kind cancelled, with real messages in between; nothing cancelled may
 * arrive, and every real one must (a claimed same-host slot given back must not stall
 * the lane or queue behind it). */
static void check_cancel(gex_Rank_t peer) {
    enum { ROUNDS = 100 };
    uint8_t *buf = malloc(8192);
    CHECK(buf);
    long sent = 0;
    acks = 0;
    size_t big = max_med < 4000 ? max_med : 4000;
    for (int i = 0; i < ROUNDS; i++) {
        gex_AM_SrcDesc_t sd;
        void *dest = peer_seg[peer] + (size_t)test_rank * SLOT;
        switch (i % 4) {
        case 0: /* small, library buffer: a neighbor's lane slot */
            sd = gex_AM_PrepareRequestMedium(test_tm, peer, NULL, 16, 100, NULL, 0, 3);
            CHECK(sd != GEX_AM_SRCDESC_NO_OP);
            memset(gex_AM_SrcDescAddr(sd), 0xA5, gex_AM_SrcDescSize(sd));
            CHECK_EQ(gex_AM_CancelRequestMedium(sd, 0), 0);
            break;
        case 1: /* larger, library buffer: a neighbor's queue slot */
            sd = gex_AM_PrepareRequestMedium(test_tm, peer, NULL, big / 2, big, NULL, 0, 3);
            CHECK(sd != GEX_AM_SRCDESC_NO_OP);
            memset(gex_AM_SrcDescAddr(sd), 0xA5, gex_AM_SrcDescSize(sd));
            CHECK_EQ(gex_AM_CancelRequestMedium(sd, 0), 0);
            break;
        case 2: /* client buffer */
            sd = gex_AM_PrepareRequestMedium(test_tm, peer, buf, 100, 100, GEX_EVENT_NOW, 0, 3);
            CHECK(gex_AM_SrcDescAddr(sd) == buf);
            CHECK_EQ(gex_AM_CancelRequestMedium(sd, 0), 0);
            break;
        default: /* Long */
            sd = gex_AM_PrepareRequestLong(test_tm, peer, NULL, 100, 4096, dest, NULL, 0, 3);
            CHECK(sd != GEX_AM_SRCDESC_NO_OP);
            CHECK_EQ(gex_AM_CancelRequestLong(sd, 0), 0);
            break;
        }
        if (i % 10 == 9) { /* a message that goes, the next moment */
            uint64_t seed = (uint32_t)(test_rank * 1000 + i);
            sd = gex_AM_PrepareRequestMedium(test_tm, peer, NULL, 16, 100, NULL, 0, 3);
            size_t n = gex_AM_SrcDescSize(sd);
            test_pat_fill(gex_AM_SrcDescAddr(sd), n, seed);
            gex_AM_CommitRequestMedium3(sd, H_GOOD, n, (gex_AM_Arg_t)seed, (gex_AM_Arg_t)n, 0);
            sent++;
            wait_acks(sent, "a Medium after cancelled ones");
        }
    }
    /* a Cancel with flags other than 0 is an error and leaves the descriptor pending */
    gex_System_SetVerboseErrors(0);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, peer, NULL, 16, 100, NULL, 0, 0);
    CHECK(gex_AM_CancelRequestMedium(sd, GEX_FLAG_IMMEDIATE) != 0);
    CHECK_EQ(gex_AM_CancelRequestMedium(sd, 0), 0);
    gex_System_SetVerboseErrors(1);
    /* and a fixed-payload message after all that */
    test_pat_fill(buf, 500, 77);
    gex_AM_RequestMedium3(test_tm, peer, H_GOOD, buf, 500, GEX_EVENT_NOW, 0, 77, 500, 0);
    sent++;
    wait_acks(sent, "a fixed-payload Medium after cancelled ones");
    /* every rank sent `sent` to its right and saw them acknowledged: exactly that many
     * ran here, and no more come (the second barrier keeps the next phase's out) */
    test_barrier();
    for (int k = 0; k < 100; k++) gasnet_AMPoll();
    CHECK_EQ(good_runs, sent);
    good_runs = 0;
    test_barrier();
    free(buf);
}

/* Commit*_v2 requests with fewer bytes than prepared, flags 0 and IMMEDIATE */
static void check_commit_v2(gex_Rank_t peer) {
    uint8_t *buf = malloc(8192);
    CHECK(buf);
    acks = 0;
    long sent = 0;
    for (int i = 0; i < 12; i++) {
        uint64_t seed = (uint32_t)(0x10000 + test_rank * 100 + i);
        void *dest = peer_seg[peer] + (size_t)test_rank * SLOT;
        gex_Flags_t cf = (i & 1) ? GEX_FLAG_IMMEDIATE : 0;
        gex_AM_SrcDesc_t sd;
        size_t n;
        int rc;
        if (i % 3 != 2) { /* Medium, library buffer, variadic */
            sd = gex_AM_PrepareRequestMedium(test_tm, peer, NULL, 64, 3000 < max_med ? 3000 : max_med, NULL, 0, 3);
            n = gex_AM_SrcDescSize(sd) / 2 + (size_t)i;
            test_pat_fill(gex_AM_SrcDescAddr(sd), n, seed);
            rc = gex_AM_CommitRequestMedium_v2(sd, H_GOOD, n, cf, (gex_AM_Arg_t)seed, (gex_AM_Arg_t)n, 0);
            if (rc) { /* declined (IMMEDIATE only): nothing sent, the same descriptor again */
                CHECK(cf);
                rc = gex_AM_CommitRequestMedium3_v2(sd, H_GOOD, n, 0, (gex_AM_Arg_t)seed, (gex_AM_Arg_t)n, 0);
            }
            CHECK_EQ(rc, 0);
        } else { /* Long, client buffer, destination at Prepare, numbered */
            n = 1000 + (size_t)i * 7;
            test_pat_fill(buf, 2 * n, seed);
            sd = gex_AM_PrepareRequestLong(test_tm, peer, buf, n, 2 * n, dest, GEX_EVENT_NOW, 0, 3);
            CHECK(gex_AM_SrcDescAddr(sd) == buf);
            CHECK_EQ(gex_AM_SrcDescSize(sd), 2 * n);
            rc = gex_AM_CommitRequestLong3_v2(sd, H_GOOD, n, dest, cf, (gex_AM_Arg_t)seed, (gex_AM_Arg_t)n, 1);
            if (rc) {
                CHECK(cf);
                rc = gex_AM_CommitRequestLong_v2(sd, H_GOOD, n, dest, 0, (gex_AM_Arg_t)seed, (gex_AM_Arg_t)n, 1);
            }
            CHECK_EQ(rc, 0);
        }
        sent++;
        wait_acks(sent, "a Commit*_v2 request");
    }
    /* replies: each mode of rr_handler (cancelled replies, then one by Commit*_v2) */
    for (int mode = 0; mode < 3; mode++) {
        long before = rr_replies;
        gex_AM_RequestShort2(test_tm, peer, H_RR, 0, mode, (gex_AM_Arg_t)(0x20000 + mode));
        TEST_POLL_UNTIL(rr_replies == before + 1, WAIT_SECS, "no reply in mode %d from rank %u", mode,
                        (unsigned)peer);
    }
    test_barrier();
    CHECK_EQ(good_runs, sent);
    good_runs = 0;
    test_barrier();
    free(buf);
}

/* A Commit*_v2 with GEX_FLAG_IMMEDIATE that declines: rank 0 floods rank 1, which sleeps
 * without polling, with IMMEDIATE Medium commits from a client buffer until one is refused
 * (at most while rank 1 sleeps); the refused descriptor is committed again without the flag
 * (it waits for room), and every message is delivered exactly once. With
 * TEST_REQUIRE_DECLINE=1 (a case with a tiny queue: GASNET_PSHM_NETWORK_DEPTH=2) a decline
 * must have happened. */
static void check_commit_decline(void) {
    const long base = acks;
    long sent = 0, declined = 0;
    test_barrier();
    if (test_rank == 1) gasnett_nsleep(300 * 1000 * 1000); /* no poll */
    if (test_rank == 0 && test_size > 1) {
        const uint64_t t0 = gasnett_ticks_to_ns(gasnett_ticks_now());
        uint8_t *buf = malloc(300);
        CHECK(buf);
        while (!declined && gasnett_ticks_to_ns(gasnett_ticks_now()) - t0 < 200 * 1000 * 1000 && sent < 100000) {
            uint32_t seed = 0xdec0000u + (uint32_t)sent;
            test_pat_fill(buf, 300, seed);
            gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, 1, buf, 300, 300, GEX_EVENT_NOW, 0, 3);
            CHECK(sd != GEX_AM_SRCDESC_NO_OP);
            if (gex_AM_CommitRequestMedium3_v2(sd, H_GOOD, 300, GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)seed, 300, 0)) {
                declined++; /* nothing sent: the same descriptor again, waiting for room */
                CHECK_EQ(gex_AM_CommitRequestMedium_v2(sd, H_GOOD, 300, 0, (gex_AM_Arg_t)seed, 300, 0), 0);
            }
            sent++;
        }
        free(buf);
        wait_acks(base + sent, "a Commit*_v2 after a decline");
        if (getenv("TEST_REQUIRE_DECLINE"))
            CHECKF(declined == 1, "no IMMEDIATE Commit*_v2 was declined in %ld commits to a rank not polling", sent);
        printf("test_released_api: %ld IMMEDIATE commits, %ld declined and committed again\n", sent, declined);
    }
    test_barrier();
}

static void check_query_bound(gex_Segment_t seg, uintptr_t segsize, gex_Rank_t peer) {
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *owner = NULL, *local = NULL, *o2 = NULL, *l2 = NULL;
        uintptr_t size = 0, s2 = 0;
        gex_Event_t ev = gex_EP_QueryBoundSegmentNB(test_tm, r, &owner, &local, &size, 0);
        CHECK(ev != GEX_EVENT_NO_OP);
        gex_Event_Wait(ev);
        CHECK_EQ(size, segsize);
        CHECK(owner == peer_seg[r]);
        CHECK_EQ(gex_Segment_QueryBound(test_tm, r, &o2, &l2, &s2), 0);
        CHECK(owner == o2 && local == l2 && size == s2);
        if (r == test_rank) {
            CHECK(owner == gex_Segment_QueryAddr(seg) && local == owner);
            CHECK(gex_EP_QueryBoundSegmentNB(test_tm, r, NULL, NULL, &size, GEX_FLAG_IMMEDIATE) == GEX_EVENT_INVALID);
        }
        size = 0;
        ev = gex_EP_QueryBoundSegmentNB(test_tm, r, NULL, NULL, &size, GEX_FLAG_IMMEDIATE);
        if (ev != GEX_EVENT_NO_OP) CHECK_EQ(size, segsize); /* INVALID: answered */
    }
    /* an endpoint with no bound segment (index 1 in every process): unsuccessful */
    gex_EP_t ep1;
    CHECK_EQ(gex_EP_Create(&ep1, test_client, GEX_EP_CAPABILITY_ALL, 0), GASNET_OK);
    CHECK_EQ(gex_EP_QueryIndex(ep1), 1);
    test_barrier();
    gex_TM_t pair = gex_TM_Pair(test_ep, 1);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        uintptr_t size = 12345;
        void *owner = (void *)&size;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(pair, r, &owner, NULL, &size, 0));
        CHECK_EQ(size, 0);
        CHECK(gex_Segment_QueryBound(pair, r, &owner, NULL, &size) != 0);
        CHECK(owner == (void *)&size && size == 0); /* untouched by the deprecated call */
    }
    /* the primordial endpoint through a TM-pair: the same answer as through the team */
    uintptr_t size = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(test_ep, 0), gex_TM_TranslateRankToJobrank(test_tm, peer),
                                              NULL, NULL, &size, 0));
    CHECK_EQ(size, segsize);
    /* in a handler, with IMMEDIATE */
    acks = 0;
    gex_AM_RequestShort1(test_tm, peer, H_QB, 0, (gex_AM_Arg_t)segsize);
    wait_acks(1, "the bound-segment query in a handler");
    test_barrier();
    CHECK_EQ(qb_ok, 1);
}

/* each rank puts into its right neighbor's slot, then a blocking barrier over tm */
static void check_barrier_blocking(gex_TM_t tm, int round) {
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    gex_Rank_t right = (me + 1) % n, left = (me + n - 1) % n;
    void *owner = NULL;
    uintptr_t size = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, right, &owner, NULL, &size, 0));
    CHECK(size >= 2 * test_size * SLOT + 64);
    uint64_t v = (uint64_t)gex_TM_TranslateRankToJobrank(tm, me) << 32 | (uint32_t)round;
    uint8_t *slot = (uint8_t *)owner + 2 * test_size * SLOT; /* after the AM regions */
    gex_RMA_PutBlocking(tm, right, slot, &v, sizeof v, 0);
    gex_Coll_BarrierBlocking(tm, 0);
    uint64_t got;
    memcpy(&got, my_seg + 2 * test_size * SLOT, sizeof got);
    uint64_t want = (uint64_t)gex_TM_TranslateRankToJobrank(tm, left) << 32 | (uint32_t)round;
    CHECKF(got == want, "round %d: 0x%llx in my slot, expected 0x%llx", round, (unsigned long long)got,
           (unsigned long long)want);
    gex_Coll_BarrierBlocking(tm, 0); /* nobody writes the slot again before everyone read it */
}

static void check_legacy_barriers(void) {
    int id = -1;
    /* all named alike */
    gasnet_barrier_notify(7, 0);
    CHECK_EQ(gasnet_barrier_wait(7, 0), GASNET_OK);
    CHECK_EQ(gasnet_barrier_result(&id), 0);
    CHECK_EQ(id, 7);
    /* all anonymous */
    CHECK_EQ(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS), GASNET_OK);
    CHECK_EQ(gasnet_barrier_result(&id), GASNET_BARRIERFLAG_ANONYMOUS);
    /* one names it, the others anonymous: its name, everywhere */
    int f = test_rank == 0 ? 0 : GASNET_BARRIERFLAG_ANONYMOUS;
    id = -1;
    CHECK_EQ(gasnet_barrier(9, f), GASNET_OK);
    CHECK_EQ(gasnet_barrier_result(&id), 0);
    CHECK_EQ(id, 9);
    /* unnamed (the id ignored), alone and with one named */
    CHECK_EQ(gasnet_barrier((int)test_rank, GASNET_BARRIERFLAG_UNNAMED), GASNET_OK);
    CHECK_EQ(gasnet_barrier_result(&id), GASNET_BARRIERFLAG_ANONYMOUS);
    f = test_rank == 0 ? 0 : GASNET_BARRIERFLAG_UNNAMED;
    id = -1;
    gasnet_barrier_notify(11, f);
    int rc;
    while ((rc = gasnet_barrier_try(11, f)) == GASNET_ERR_NOT_READY) {}
    CHECK_EQ(rc, GASNET_OK);
    CHECK_EQ(gasnet_barrier_result(&id), 0);
    CHECK_EQ(id, 11);
    /* different names: a mismatch, on every rank */
    if (test_size > 1) {
        gasnet_barrier_notify(100 + (int)test_rank, 0);
        CHECK_EQ(gasnet_barrier_wait(100 + (int)test_rank, 0), GASNET_ERR_BARRIER_MISMATCH);
        CHECK_EQ(gasnet_barrier_result(&id) & GASNET_BARRIERFLAG_MISMATCH, GASNET_BARRIERFLAG_MISMATCH);
    }
    /* a barrier after a mismatch works */
    CHECK_EQ(gasnet_barrier(5, 0), GASNET_OK);
    CHECK_EQ(gasnet_barrier_result(&id), 0);
    CHECK_EQ(id, 5);
}

/* gasnet_memvec_t (addr, len) with the GASNet-1 vector calls */
static void check_memvec(gex_Rank_t peer) {
    uint8_t src[300];
    test_pat_fill(src, sizeof src, 4242 + test_rank);
    uint8_t *rbase = peer_seg[peer] + 2 * test_size * SLOT + 128; /* this rank's scratch at the peer */
    gasnet_memvec_t d[3] = {{rbase, 100}, {rbase + 200, 50}, {rbase + 400, 150}};
    gasnet_memvec_t s[2] = {{src, 120}, {src + 120, 180}};
    gasnet_node_t node = gex_TM_TranslateRankToJobrank(test_tm, peer);
    gasnet_putv_bulk(node, 3, d, 2, s);
    uint8_t back[300];
    memset(back, 0, sizeof back);
    gasnet_memvec_t bd[1] = {{back, 300}};
    gasnet_getv_bulk(1, bd, node, 3, d);
    CHECK(memcmp(back, src, 300) == 0);
    test_barrier();
    /* what the left neighbor put here */
    gex_Rank_t left = (test_rank + test_size - 1) % test_size;
    uint8_t want[300];
    test_pat_fill(want, sizeof want, 4242 + left);
    uint8_t *mine = my_seg + 2 * test_size * SLOT + 128;
    CHECK(memcmp(mine, want, 100) == 0 && memcmp(mine + 200, want + 100, 50) == 0 &&
          memcmp(mine + 400, want + 150, 150) == 0);
    test_barrier();
}

/* gex_TM_Create: args name members by their rank in the parent (reversed job order
 * here), or by jobrank with GEX_FLAG_RANK_IS_JOBRANK. Each team gets scratch space of
 * its own in the segment (collectives over a team without any are prohibited), handed
 * back by gex_TM_Destroy. */
#define SCRATCH ((size_t)4096)
static void *scratch_at(int k) { return my_seg + 2 * test_size * SLOT + 16384 + (size_t)k * SCRATCH; }

static void destroy_with_scratch(gex_TM_t tm, int k) {
    gex_Memvec_t back = {NULL, 0};
    CHECK(gex_TM_Destroy(tm, &back, 0) != 0);
    CHECK(back.gex_addr == scratch_at(k) && back.gex_len == SCRATCH);
}

/* gex_TM_Destroy returns non-zero if and only if it writes *scratch_p, and writes exactly
 * when the client granted space: space granted by offset (GEX_FLAG_SCRATCH_SEG_OFFSET,
 * offset 0 included) comes back as an address, or as the offset when Destroy is given the
 * flag; a team made with GEX_FLAG_TM_NO_SCRATCH has none, whatever address came along. */
static void check_scratch_offsets(gex_EP_Location_t *args) {
    const gex_Rank_t n = test_size;
    const uintptr_t off4 = (uintptr_t)((uint8_t *)scratch_at(4) - my_seg);
    gex_TM_t at0 = GEX_TM_INVALID, at4 = GEX_TM_INVALID, none = GEX_TM_INVALID;
    gex_Addr_t sc = (gex_Addr_t)0; /* offset 0: the segment's first byte */
    gex_TM_Create(&at0, 1, test_tm, args, n, &sc, SCRATCH, GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET);
    sc = (gex_Addr_t)off4;
    gex_TM_Create(&at4, 1, test_tm, args, n, &sc, SCRATCH, GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET);
    gex_TM_Split(&none, test_tm, 0, 0, scratch_at(5), SCRATCH, GEX_FLAG_TM_NO_SCRATCH);
    CHECK(at0 != GEX_TM_INVALID && at4 != GEX_TM_INVALID && none != GEX_TM_INVALID);
    check_barrier_blocking(at4, 104);
    gex_Coll_BarrierBlocking(test_tm, 0);
    gex_Memvec_t back = {(void *)(uintptr_t)0x5a5a, 77};
    CHECK(gex_TM_Destroy(none, &back, 0) == 0);
    CHECK(back.gex_addr == (void *)(uintptr_t)0x5a5a && back.gex_len == 77); /* not written */
    CHECK(gex_TM_Destroy(at0, &back, GEX_FLAG_SCRATCH_SEG_OFFSET) != 0);
    CHECK(back.gex_addr == (void *)0 && back.gex_len == SCRATCH);
    back.gex_addr = NULL, back.gex_len = 0;
    CHECK(gex_TM_Destroy(at4, &back, 0) != 0);
    CHECK(back.gex_addr == scratch_at(4) && back.gex_len == SCRATCH);
    /* UPC++ 2020.10's way: grant the recommended size (0 here: none is needed) at an
     * address it allocated, and on destroy expect that address back to free it */
    gex_TM_t rec = GEX_TM_INVALID;
    size_t recsz = gex_TM_Split(&rec, test_tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    CHECK(rec == GEX_TM_INVALID); /* a query creates nothing */
    gex_TM_Split(&rec, test_tm, 0, 0, scratch_at(6), recsz, 0);
    CHECK(rec != GEX_TM_INVALID);
    back.gex_addr = NULL, back.gex_len = 77;
    CHECK(gex_TM_Destroy(rec, &back, GEX_FLAG_GLOBALLY_QUIESCED) != 0);
    CHECK(back.gex_addr == scratch_at(6) && back.gex_len == recsz);
}

/* gex_EP_PublishBoundSegment with the primordial endpoint (whose segment
 * gex_Segment_Attach published) and with one that has no bound segment: allowed, nothing
 * changes for the first, nothing is published for the second (released text) */
static void check_publish_primordial(gex_Rank_t right) {
    gex_EP_t eps[2] = {test_ep, GEX_EP_INVALID};
    CHECK_EQ(gex_EP_Create(&eps[1], test_client, GEX_EP_CAPABILITY_RMA, 0), GASNET_OK);
    CHECK_EQ(gex_EP_PublishBoundSegment(test_tm, eps, 1, 0), GASNET_OK);
    CHECK_EQ(gex_EP_PublishBoundSegment(test_tm, eps, 2, 0), GASNET_OK);
    void *owner = NULL;
    uintptr_t size = 0;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(test_tm, right, &owner, NULL, &size, 0));
    CHECK(owner == peer_seg[right] && size > 0);
    /* the new endpoint has no segment anywhere */
    size = 1;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(test_ep, gex_EP_QueryIndex(eps[1])),
                                              gex_TM_TranslateRankToJobrank(test_tm, right), NULL, NULL, &size, 0));
    CHECK_EQ(size, 0);
    /* and RMA to the primordial segments works as before */
    uint64_t v = 0x1234000000000000ull + test_rank, got = 0;
    uint8_t *slot = (uint8_t *)peer_seg[right] + 2 * test_size * SLOT + 8192;
    gex_RMA_PutBlocking(test_tm, right, slot, &v, sizeof v, 0);
    gex_RMA_GetBlocking(test_tm, &got, right, slot, sizeof got, 0);
    CHECK(got == v);
    test_barrier();
}

static void check_tm_create(void) {
    gex_Rank_t n = test_size, me = test_rank;
    gex_TM_t rev;
    gex_TM_Split(&rev, test_tm, 0, -(int)me, scratch_at(0), SCRATCH, 0);
    CHECK_EQ(gex_TM_QueryRank(rev), n - 1 - me);
    gex_EP_Location_t *args = malloc(n * sizeof *args);
    CHECK(args);
    for (gex_Rank_t i = 0; i < n; i++) args[i].gex_rank = i, args[i].gex_ep_index = 0;
    gex_TM_t byparent = GEX_TM_INVALID, byjob = GEX_TM_INVALID, solo = GEX_TM_INVALID;
    gex_Addr_t sc = scratch_at(1);
    /* LOCAL_SCRATCH: a barrier over the new team (released text), so no member returns
     * before the last one (rank 0, late by 300 ms here) has called */
    test_barrier();
    double t0 = test_now();
    if (me == 0) test_sleep_ms(300);
    gex_TM_Create(&byparent, 1, rev, args, n, &sc, SCRATCH, GEX_FLAG_TM_LOCAL_SCRATCH);
    double waited = test_now() - t0;
    CHECKF(waited >= 0.25, "gex_TM_Create(GEX_FLAG_TM_LOCAL_SCRATCH) returned after %.3f s, before rank 0 called",
           waited);
    CHECK(byparent != GEX_TM_INVALID);
    CHECK_EQ(gex_TM_QuerySize(byparent), n);
    CHECK_EQ(gex_TM_QueryRank(byparent), n - 1 - me); /* my parent rank */
    for (gex_Rank_t i = 0; i < n; i++) {
        CHECK_EQ(gex_TM_TranslateRankToJobrank(byparent, i), n - 1 - i);
        CHECK_EQ(gex_TM_TranslateJobrankToRank(byparent, n - 1 - i), i);
    }
    sc = scratch_at(2);
    gex_TM_Create(&byjob, 1, rev, args, n, &sc, SCRATCH, GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_RANK_IS_JOBRANK);
    CHECK_EQ(gex_TM_QueryRank(byjob), me);
    for (gex_Rank_t i = 0; i < n; i++) CHECK_EQ(gex_TM_TranslateRankToJobrank(byjob, i), i);
    /* one team per caller, each of its own parent rank; the one address of SYMMETRIC */
    gex_EP_Location_t mine = {gex_TM_QueryRank(rev), 0};
    sc = scratch_at(3);
    gex_TM_Create(&solo, 1, rev, &mine, 1, &sc, SCRATCH, GEX_FLAG_TM_SYMMETRIC_SCRATCH);
    CHECK_EQ(gex_TM_QuerySize(solo), 1);
    CHECK_EQ(gex_TM_TranslateRankToJobrank(solo, 0), me);
    /* communication over the new teams lands on the right processes */
    check_barrier_blocking(byparent, 100);
    check_barrier_blocking(byjob, 101);
    check_barrier_blocking(rev, 102);
    check_barrier_blocking(solo, 103);
    gex_Coll_BarrierBlocking(test_tm, 0);
    destroy_with_scratch(solo, 3);
    destroy_with_scratch(byjob, 2);
    destroy_with_scratch(byparent, 1);
    destroy_with_scratch(rev, 0);
    check_scratch_offsets(args);
    free(args);
}

/* RMA with the PEER_NEVER assertions, where they hold */
static void check_peer_never(void) {
    gex_RankInfo_t *nb;
    gex_Rank_t nbn, myidx;
    gex_System_QueryNbrhdInfo(&nb, &nbn, &myidx);
    int checked = 0;
    for (gex_Rank_t r = 0; r < test_size; r++) {
        if (r == test_rank) continue;
        int in_nbrhd = 0;
        for (gex_Rank_t i = 0; i < nbn; i++) in_nbrhd |= nb[i].gex_jobrank == r;
        gex_Flags_t fl = in_nbrhd ? GEX_FLAG_PEER_NEVER_SELF : GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD;
        uint8_t *at = peer_seg[r] + 2 * test_size * SLOT + 1024 + 8 * test_rank;
        uint64_t v = 0xC0DE0000u + test_rank, back = 0;
        CHECK_EQ(gex_RMA_PutBlocking(test_tm, r, at, &v, 8, fl), 0);
        CHECK_EQ(gex_RMA_GetBlocking(test_tm, &back, r, at, 8, fl), 0);
        CHECK_EQ(back, v);
        gex_Event_Wait(gex_RMA_PutNB(test_tm, r, at, &v, 8, GEX_EVENT_NOW, fl));
        CHECK_EQ(gex_RMA_GetBlockingVal(test_tm, r, at, 8, fl), v);
        checked++;
    }
    CHECK_EQ(checked, (int)test_size - 1);
    test_barrier();
}

/* PLATFORM_* against the compiler's own predefined macros */
static void check_platform(void) {
    const char *fam = _STRINGIFY(PLATFORM_COMPILER_FAMILYNAME);
#if defined(__clang__) && !defined(__INTEL_LLVM_COMPILER)
#  if !defined(PLATFORM_COMPILER_CLANG) || defined(PLATFORM_COMPILER_GNU)
#    error "clang is PLATFORM_COMPILER_CLANG"
#  endif
    CHECK(strcmp(fam, "CLANG") == 0);
    CHECK_EQ(PLATFORM_COMPILER_VERSION, PLATFORM_COMPILER_VERSION_INT(__clang_major__, __clang_minor__,
                                                                      __clang_patchlevel__));
    CHECK(PLATFORM_COMPILER_VERSION_EQ(__clang_major__, __clang_minor__, __clang_patchlevel__));
    CHECK(PLATFORM_COMPILER_VERSION_GE(__clang_major__, 0, 0) && PLATFORM_COMPILER_VERSION_LT(__clang_major__ + 1, 0, 0));
#elif defined(__GNUC__) && !defined(__INTEL_COMPILER) && !defined(__NVCOMPILER) && !defined(__INTEL_LLVM_COMPILER)
#  if !defined(PLATFORM_COMPILER_GNU) || defined(PLATFORM_COMPILER_CLANG) || defined(PLATFORM_COMPILER_UNKNOWN)
#    error "gcc is PLATFORM_COMPILER_GNU"
#  endif
    CHECK(strcmp(fam, "GNU") == 0);
    CHECK_EQ(PLATFORM_COMPILER_FAMILYID, 1);
    CHECK_EQ(PLATFORM_COMPILER_VERSION, PLATFORM_COMPILER_VERSION_INT(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__));
    CHECK(PLATFORM_COMPILER_VERSION_EQ(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__));
    CHECK(PLATFORM_COMPILER_VERSION_GE(__GNUC__, __GNUC_MINOR__, 0));
    CHECK(PLATFORM_COMPILER_VERSION_GT(__GNUC__ - 1, 99, 99) && !PLATFORM_COMPILER_VERSION_GT(__GNUC__ + 1, 0, 0));
    CHECK(PLATFORM_COMPILER_VERSION_LT(__GNUC__ + 1, 0, 0) && !PLATFORM_COMPILER_VERSION_LT(__GNUC__, 0, 0));
    CHECK(strcmp(PLATFORM_COMPILER_VERSION_STR, _STRINGIFY(__GNUC__) "." _STRINGIFY(__GNUC_MINOR__) "." _STRINGIFY(
                                                    __GNUC_PATCHLEVEL__)) == 0);
#endif
    CHECK(PLATFORM_COMPILER_VERSION_INT(1, 2, 3) == 0x010203);
    CHECK(PLATFORM_COMPILER_ID == PLATFORM_COMPILER_FAMILYID * 0x100000000LL + PLATFORM_COMPILER_VERSION);
    CHECK(strncmp(PLATFORM_COMPILER_IDSTR, fam, strlen(fam)) == 0);
#if defined(__STDC_VERSION__)
    CHECK_EQ(PLATFORM_COMPILER_C_LANGLVL, __STDC_VERSION__);
#endif
#if defined(PLATFORM_COMPILER_CXX_LANGLVL)
#  error "C, not C++"
#endif
    /* the target */
#if defined(__linux__)
#  if !defined(PLATFORM_OS_LINUX)
#    error "Linux is PLATFORM_OS_LINUX"
#  endif
    CHECK(strcmp(_STRINGIFY(PLATFORM_OS_FAMILYNAME), "LINUX") == 0);
#endif
#if defined(__x86_64__)
#  if !defined(PLATFORM_ARCH_X86_64) || defined(PLATFORM_ARCH_X86)
#    error "x86-64 is PLATFORM_ARCH_X86_64"
#  endif
    CHECK(strcmp(_STRINGIFY(PLATFORM_ARCH_FAMILYNAME), "X86_64") == 0);
#elif defined(__aarch64__)
#  if !defined(PLATFORM_ARCH_AARCH64)
#    error "aarch64 is PLATFORM_ARCH_AARCH64"
#  endif
    CHECK(strcmp(_STRINGIFY(PLATFORM_ARCH_FAMILYNAME), "AARCH64") == 0);
#endif
#if defined(PLATFORM_ARCH_64) == defined(PLATFORM_ARCH_32)
#  error "exactly one of PLATFORM_ARCH_64, PLATFORM_ARCH_32"
#endif
#if defined(PLATFORM_ARCH_64)
    CHECK_EQ(sizeof(void *), 8);
#else
    CHECK_EQ(sizeof(void *), 4);
#endif
#if defined(PLATFORM_ARCH_LITTLE_ENDIAN) == defined(PLATFORM_ARCH_BIG_ENDIAN)
#  error "exactly one byte order"
#endif
    const uint32_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
#if defined(PLATFORM_ARCH_LITTLE_ENDIAN)
    CHECK_EQ(first, 1);
#else
    CHECK_EQ(first, 0);
#endif
}

/* test_released_api_hdr.c */
extern unsigned long long test_hdr_fwd_view(int what);
extern int test_hdr_gasnetex_only(int id, gex_TM_t tm);

static void check_headers(void) {
    struct {
        gex_Rank_t rank;
        gex_EP_Index_t ep_index;
        gex_Addr_t addr;
        gex_Event_t event;
        gex_Flags_t flags;
        gex_DT_t dt;
        gex_OP_t op;
        gex_EP_Capabilities_t caps;
    } u;
    const unsigned long long want[9] = {
        sizeof u, GEX_RANK_INVALID, GEX_FLAG_IMMEDIATE | GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD,
        GEX_FLAG_DEFER_THREADS | GEX_FLAG_USES_GASNET1, (unsigned long long)(uintptr_t)GEX_EVENT_NO_OP,
        GEX_DT_I32 | GEX_DT_U64 | GEX_DT_DBL, GEX_OP_FADD | GEX_OP_CAS, GEX_EP_CAPABILITY_ALL,
        sizeof(gex_Event_t) + sizeof(gex_Addr_t)};
    for (int i = 0; i < 9; i++)
        CHECKF(test_hdr_fwd_view(i) == want[i], "gasnet_fwd.h alone says %llu for item %d, gasnetex.h %llu",
               test_hdr_fwd_view(i), i, want[i]);
    int line = test_hdr_gasnetex_only(1000 + 1, test_tm);
    CHECKF(line == 0, "test_released_api_hdr.c:%d failed (gasnetex.h without gasnet.h)", line);
}

int main(int argc, char **argv) {
    /* test_init, with GEX_FLAG_DEFER_THREADS added */
    test_name = "test_released_api";
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = gex_Client_Init(&test_client, &test_ep, &test_tm, "gasnet_tests", &argc, &argv,
                             GEX_FLAG_USES_GASNET1 | GEX_FLAG_DEFER_THREADS);
    CHECKF(rc == GASNET_OK, "gex_Client_Init returned %d", rc);
    test_rank = gex_TM_QueryRank(test_tm);
    test_size = gex_TM_QuerySize(test_tm);
    test_inited = 1;

    field_types();
    CHECK_EQ(signature_audit(), AUDITED);
    check_system();
    check_platform();

    gex_AM_Entry_t tab[] = {
        {H_GOOD, (gex_AM_Fn_t)good_handler, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQUEST, 3, NULL, "good"},
        {H_ACK, (gex_AM_Fn_t)ack_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "ack"},
        {H_RR, (gex_AM_Fn_t)rr_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "rr"},
        {H_REP, (gex_AM_Fn_t)rep_handler, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REPLY, 2, NULL, "rep"},
        {H_QB, (gex_AM_Fn_t)qb_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "qb"},
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, sizeof tab / sizeof tab[0]), GASNET_OK);
    uintptr_t segsize = 2 * (uintptr_t)test_size * SLOT + 64 * 1024;
    gex_Segment_t seg = test_attach(segsize);
    segsize = gex_Segment_QuerySize(seg);
    my_seg = gex_Segment_QueryAddr(seg);
    peer_seg = calloc(test_size, sizeof *peer_seg);
    handler_buf = malloc(8192);
    CHECK(peer_seg && handler_buf);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *owner = NULL;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(test_tm, r, &owner, NULL, NULL, 0));
        peer_seg[r] = owner;
    }
    max_med = gex_AM_MaxRequestMedium(test_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 3);
    gex_Rank_t right = (test_rank + 1) % test_size;
    test_barrier();

    check_headers();
    check_query_bound(seg, segsize, right);
    check_cancel(right);
    check_commit_v2(right);
    check_commit_decline();
    check_barrier_blocking(test_tm, 1);
    check_barrier_blocking(test_tm, 2);
    check_legacy_barriers();
    check_memvec(right);
    check_tm_create();
    check_publish_primordial(right);
    check_peer_never();

    test_finish("%d signatures, Cancel, Commit_v2, system queries, bound-segment queries, barriers, memvec, "
                "TM_Create, platform",
                AUDITED);
    return 0;
}
