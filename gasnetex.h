/* gasnetex.h: the GASNet-EX client API (the released API, GASNet-EX.txt; started from
 * gasnet-ex-api-v0.8).
 * Layer: public. Object creation and queries are declared here; Active Messages are
 * in gasneti_am_api.h and RMA/events/barrier in gasnete_rma_api.h, both included below.
 * VIS is in gasnet_vis.h, remote atomics in gasnet_ratomic.h, collectives in
 * gasnet_coll.h, memory kinds in gasnet_mk.h (host memory only in this build). The
 * simple types and every GEX_ constant are in gasnet_fwd.h, the PLATFORM_* names in
 * gasnet_portable_platform.h; the part of the GASNet-1 API the released gasnetex.h
 * offers too (its types, gasnet_seginfo_t, barriers, wait mode, segment limits, the
 * thread-info macros) is at the end of this file. */
#ifndef GASNETEX_H
#define GASNETEX_H
#define _GASNETEX_H 1 /* the released header's guard, which clients test to tell which headers they have */

#include <limits.h>
#include <stdlib.h>
#include <gasnet_config.h>
#include "gasnet_fwd.h"
#include "gasnet_portable_platform.h"
#include "gasneti_types.h"
#include "gasnet_core_fwd.h" /* the conduit's limits and capability knobs */
#include "gasneti_sync.h"

/* _STRINGIFY, if_pf, if_pt, which the released gasnetex.h gives its clients too, are in
 * gasnet_tools.h (included by gasneti_sync.h) */

/* Features of this build a client may test (undefined: not there). This library has no
 * progress threads (GASNET_RCV_THREAD, GASNET_SND_THREAD undefined; AM handlers run only
 * inside the client's calls, GASNET_HIDDEN_AM_CONCURRENCY_LEVEL 0) and no
 * GASNET_SEGMENT_EVERYTHING mode (GASNET_SEGMENT_FAST or _LARGE is defined). */

/* GASNET_CONFIG_STRING (GASNet-1 spec): the compile-time settings, as one string a client
 * may compare with the library's (gasnet_config_string(), also embedded in the library
 * for `ident`/`strings`). */
#define _GASNETI_STR(x) #x
#define GASNETI_STR(x) _GASNETI_STR(x)
#define GASNET_CONFIG_STRING                                                                              \
    "RELEASE=" GASNETI_STR(GASNET_RELEASE_VERSION_MAJOR) "." GASNETI_STR(GASNET_RELEASE_VERSION_MINOR) "." \
    GASNETI_STR(GASNET_RELEASE_VERSION_PATCH) ",SPEC=" GASNETI_STR(GASNET_SPEC_VERSION_MAJOR) "."          \
    GASNETI_STR(GASNET_SPEC_VERSION_MINOR) ",CONDUIT=" GASNET_CONDUIT_NAME_STR                          \
    ",THREADMODEL=" GASNETI_STR(GASNETI_THREADMODEL) ",SEGMENT=" GASNETI_STR(GASNETI_SEGMENT_NAME)       \
    "," GASNETI_STR(GASNETI_DEBUG_NAME) "," GASNETI_TRACE_STR "," GASNETI_STATS_STR ",PSHM"
GASNETI_BEGIN_EXTERNC
extern const char *gasnet_config_string(void); /* the library's GASNET_CONFIG_STRING */
GASNETI_END_EXTERNC

/* with the library's tracing/statistics built in, the tools' client hooks write to the
 * trace (U records) and statistics files (docs/diagnostics.md); otherwise they stay the
 * no-ops of gasnet_tools.h */
#if GASNETI_TRACE
#  undef GASNETT_TRACE_ENABLED
#  undef GASNETT_TRACE_PRINTF
#  undef GASNETT_TRACE_PRINTF_FORCE
#  define GASNETT_TRACE_ENABLED 1
#  define GASNETT_TRACE_PRINTF(...) gasneti_trace_printf(0, __VA_ARGS__)
#  define GASNETT_TRACE_PRINTF_FORCE(...) gasneti_trace_printf(0, __VA_ARGS__)
#endif
#if GASNETI_STATS
#  undef GASNETT_STATS_ENABLED
#  undef GASNETT_STATS_PRINTF
#  undef GASNETT_STATS_PRINTF_FORCE
#  define GASNETT_STATS_ENABLED 1
#  define GASNETT_STATS_PRINTF(...) gasneti_trace_printf(1, __VA_ARGS__)
#  define GASNETT_STATS_PRINTF_FORCE(...) gasneti_trace_printf(1, __VA_ARGS__)
#  undef GASNETT_STATS_DUMP
#  define GASNETT_STATS_DUMP(reset) gasneti_stats_dump((reset) != 0)
#endif

GASNETI_BEGIN_EXTERNC

/* ---- client, segment, team, endpoint ---- */
/* the extended layer's registration with the core (gasnet_extended/gasnete_amrma.c;
 * gasnet_core/gasneti_internal.h): the public layer hands it down at initialization */
struct gasneti_layer_s;
extern const struct gasneti_layer_s gasnete_layer;
extern int gasneti_Client_Init(int *linkconfig, const struct gasneti_layer_s *layer, gex_Client_t *client_p,
                               gex_EP_t *ep_p, gex_TM_t *tm_p,
                               const char *clientName, int *argc, char ***argv, gex_Flags_t flags);
/* Taking the address of the link-config symbol makes a mode mismatch a link error. */
#define gex_Client_Init(client_p, ep_p, tm_p, name, argc, argv, flags) \
    gasneti_Client_Init(&GASNETI_LINKCONFIG, &gasnete_layer, client_p, ep_p, tm_p, name, argc, argv, flags)

extern int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size);
extern int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                                  uintptr_t *size_p);
/* endpoints and segments beyond the primordial ones (gasnet_core/gasneti_ep.c; docs/endpoints.md) */
extern int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t caps, gex_Flags_t flags);
extern int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address, uintptr_t length,
                              gex_MK_t kind, gex_Flags_t flags);
extern void gex_Segment_Destroy(gex_Segment_t segment, gex_Flags_t flags);
extern int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags);
extern int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags);

/* gex_Segment_QueryBound's successor: every bound segment this process may address is
 * known locally, so the event is always GEX_EVENT_INVALID (done); an endpoint with no
 * segment known here gives *size_p 0. GEX_FLAG_IMMEDIATE is the only flag. */
extern gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                                              uintptr_t *size_p, gex_Flags_t flags);

extern gex_Rank_t gex_System_QueryJobRank(void);
extern gex_Rank_t gex_System_QueryJobSize(void);
/* console messages for non-fatal error returns (on by default; gasnet_core/gasneti_env.c) */
extern int gex_System_GetVerboseErrors(void);
extern void gex_System_SetVerboseErrors(int enable);
/* client threads that may use the library at once: 1 in SEQ, else the configured
 * --with-max-pthreads-per-node (GASNETI_MAX_THREADS) */
extern uint64_t gex_System_QueryMaxThreads(void);
/* 0: no thread of the library's own runs handlers (GASNET_HIDDEN_AM_CONCURRENCY_LEVEL) */
extern int gex_System_QueryHiddenAMConcurrencyLevel(void);
/* progress threads a client that passed GEX_FLAG_DEFER_THREADS must start: none here */
typedef struct {
    const char *gex_device_list;
    unsigned int gex_thread_roles; /* GEX_THREAD_ROLE_* */
    void *(*gex_progress_fn)(void *);
    void *gex_progress_arg;
} gex_ProgressThreadInfo_t;
#define GEX_THREAD_ROLE_RCV 1u
#define GEX_THREAD_ROLE_SND 2u
extern int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                           const gex_ProgressThreadInfo_t **info_p, gex_Flags_t flags);
extern void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                      gex_Rank_t *my_info_index_p);
extern void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                     gex_Rank_t *my_info_index_p);
extern void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size, gex_Rank_t *nbrhd_set_rank,
                                       gex_Rank_t *host_set_size, gex_Rank_t *host_set_rank);
extern gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank);
extern gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank);
/* teams (gasnet_extended/gasnete_team.c; docs/teams.md) */
extern size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key, void *scratch_addr,
                           size_t scratch_size, gex_Flags_t flags);
extern size_t gex_TM_Dup(gex_TM_t *new_tm_p, gex_TM_t orig_tm, void *scratch_addr, size_t scratch_size,
                         gex_Flags_t flags);
extern int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags);
extern gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index);
extern size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm, gex_EP_Location_t *args,
                            size_t numargs, gex_Addr_t *scratch_addrs, size_t scratch_size, gex_Flags_t flags);
extern gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags);

/* queries and client data: plain field reads */
#define GASNETI_QUERY(ret, name, type, field) \
    GASNETI_ALWAYS_INLINE ret name(type _o) { return _o->field; }
#define GASNETI_CDATA(name, type)                                                             \
    GASNETI_ALWAYS_INLINE void gex_##name##_SetCData(type _o, const void *_v) { _o->_cdata = (void *)_v; } \
    GASNETI_ALWAYS_INLINE void *gex_##name##_QueryCData(type _o) { return _o->_cdata; }
GASNETI_CDATA(Client, gex_Client_t)
GASNETI_CDATA(Segment, gex_Segment_t)
GASNETI_CDATA(TM, gex_TM_t)
GASNETI_CDATA(EP, gex_EP_t)
GASNETI_QUERY(gex_Flags_t, gex_Client_QueryFlags, gex_Client_t, _flags)
GASNETI_QUERY(const char *, gex_Client_QueryName, gex_Client_t, _name)
GASNETI_QUERY(gex_Client_t, gex_Segment_QueryClient, gex_Segment_t, _client)
GASNETI_QUERY(gex_Flags_t, gex_Segment_QueryFlags, gex_Segment_t, _flags)
GASNETI_QUERY(void *, gex_Segment_QueryAddr, gex_Segment_t, _addr)
GASNETI_QUERY(uintptr_t, gex_Segment_QuerySize, gex_Segment_t, _size)
GASNETI_QUERY(gex_Client_t, gex_TM_QueryClient, gex_TM_t, _ep->_client)
GASNETI_QUERY(gex_EP_t, gex_TM_QueryEP, gex_TM_t, _ep)
GASNETI_QUERY(gex_Flags_t, gex_TM_QueryFlags, gex_TM_t, _flags)
GASNETI_QUERY(gex_Rank_t, gex_TM_QueryRank, gex_TM_t, _rank)
GASNETI_QUERY(gex_Rank_t, gex_TM_QuerySize, gex_TM_t, _size)
GASNETI_QUERY(gex_Client_t, gex_EP_QueryClient, gex_EP_t, _client)
GASNETI_QUERY(gex_Flags_t, gex_EP_QueryFlags, gex_EP_t, _flags)
GASNETI_QUERY(gex_Segment_t, gex_EP_QuerySegment, gex_EP_t, _segment)
GASNETI_QUERY(gex_EP_Index_t, gex_EP_QueryIndex, gex_EP_t, _index)
GASNETI_QUERY(gex_MK_t, gex_Segment_QueryKind, gex_Segment_t, _kind)
#undef GASNETI_QUERY
#undef GASNETI_CDATA

/* ---- errors ---- */
extern const char *gasnet_ErrorName(int errval);
extern const char *gasnet_ErrorDesc(int errval);

/* ---- the GASNet-1 names gasnetex.h provides too (the rest are in gasnet.h) ---- */
typedef gex_Rank_t gasnet_node_t;
typedef gex_AM_Index_t gasnet_handler_t;
typedef gex_AM_Arg_t gasnet_handlerarg_t;
typedef gex_Token_t gasnet_token_t;
typedef gex_Event_t gasnet_handle_t;
typedef gex_RMA_Value_t gasnet_register_value_t;
/* the GASNet-1 memvec: the layout of gex_Memvec_t under the field names of GASNet-1 (a
 * pointer to one may be cast to a pointer to the other; gasnet_vis.h's legacy calls do) */
typedef struct {
    void *addr;
    size_t len;
} gasnet_memvec_t;
/* a segment: gasnet_getSegmentInfo (gasnet.h) fills a table of them */
typedef struct {
    void *addr;
    uintptr_t size;
} gasnet_seginfo_t;
#define SIZEOF_GASNET_REGISTER_VALUE_T SIZEOF_GEX_RMA_VALUE_T
#define GASNET_INVALID_HANDLE GEX_EVENT_INVALID
extern gex_TM_t gasneti_tm0; /* the primordial team, for the legacy API */
extern void gasnet_exit(int exitcode) GASNETI_NORETURN;

/* segment limits (gex_Segment_Attach's size is at most the local one) */
extern uintptr_t gasnet_getMaxLocalSegmentSize(void);
extern uintptr_t gasnet_getMaxGlobalSegmentSize(void);

/* The thread-identification optimization (GASNet-1 spec 3.6.1). GASNET_GET_THREADINFO()
 * is the calling thread's library state (gasnet_core/gasneti_event.c: its events and
 * NBI counters), never NULL, the same value every time on one thread. Posting it has no
 * run-time effect (the library reaches that state through thread-local storage at the
 * same cost): GASNET_POST_THREADINFO(info) and GASNET_BEGIN_FUNCTION() are a block-scope
 * declaration of a function that is never defined or called, so they may open any block,
 * repeat in nested blocks and precede other declarations, in C and C++, with no unused,
 * shadowed or redefined name; `info` is not evaluated, only checked to be a
 * gasnet_threadinfo_t (the undefined gasnete_threadinfo_check is only named in sizeof). */
typedef void *gasnet_threadinfo_t;
extern gasnet_threadinfo_t gasneti_threadinfo(void);
extern char gasnete_threadinfo_check(gasnet_threadinfo_t _info);
#define GASNET_GET_THREADINFO() gasneti_threadinfo()
#define GASNET_POST_THREADINFO(info) \
    extern void gasnete_threadinfo_posted(char (*)[sizeof(gasnete_threadinfo_check(info))])
#define GASNET_BEGIN_FUNCTION() GASNET_POST_THREADINFO(GASNET_GET_THREADINFO())

/* how a waiting call waits (advisory here: waits always poll) */
#define GASNET_WAIT_SPIN 0
#define GASNET_WAIT_BLOCK 1
#define GASNET_WAIT_SPINBLOCK 2
extern int gasnet_set_waitmode(int wait_mode);

/* the GASNet-1 split-phase barrier over the primordial team (gasnet_extended/gasnete_barrier.c).
 * UNNAMED: the caller gives no name, like ANONYMOUS. gasnet_barrier_result, after a wait
 * or try that completed the barrier: GASNET_BARRIERFLAG_MISMATCH when it mismatched, else
 * GASNET_BARRIERFLAG_ANONYMOUS when no caller named it, else 0 (and *id receives the name). */
#define GASNET_BARRIERFLAG_ANONYMOUS 1
#define GASNET_BARRIERFLAG_MISMATCH 2
#define GASNET_BARRIERFLAG_UNNAMED 4
#define GASNET_BARRIERFLAGS_ANONYMOUS GASNET_BARRIERFLAG_ANONYMOUS
#define GASNET_BARRIERFLAGS_MISMATCH GASNET_BARRIERFLAG_MISMATCH
extern void gasnet_barrier_notify(int id, int flags);
extern int gasnet_barrier_wait(int id, int flags);
extern int gasnet_barrier_try(int id, int flags);
extern int gasnet_barrier(int id, int flags);
extern int gasnet_barrier_result(int *id);

GASNETI_END_EXTERNC

#include "gasneti_am_api.h"
#include "gasnete_rma_api.h"
#endif
