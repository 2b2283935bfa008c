/* gasneti_types.h: public types and constants of gasnetex.h beyond gasnet_fwd.h's (which
 * has the scalar and handle types and every GEX_ constant), plus the layouts of the core
 * objects that the public inline wrappers read.
 * Layer: core (installed; clients include it through gasnetex.h, never directly).
 * Struct members prefixed _ are internal: clients must use the gex_*_Query* calls. */
#ifndef GASNETI_TYPES_H
#define GASNETI_TYPES_H

#ifndef GASNETEX_H
#  error "include <gasnetex.h>, not gasneti_types.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include "gasnet_fwd.h"

/* ---- threading mode chosen by the client (exactly one) ---- */
#if defined(GASNET_SEQ) + defined(GASNET_PAR) + defined(GASNET_PARSYNC) != 1
#  error "define exactly one of GASNET_SEQ, GASNET_PAR, GASNET_PARSYNC (the .mak fragment and pkg-config file do)"
#endif
#if defined(GASNET_SEQ)
#  define GASNETI_THREADMODEL SEQ
#  define GASNETI_THREADS 0
#elif defined(GASNET_PAR)
#  define GASNETI_THREADMODEL PAR
#  define GASNETI_THREADS 1
#else
#  define GASNETI_THREADMODEL PARSYNC
#  define GASNETI_THREADS 1
#endif
/* PAR needs real locks; PARSYNC serializes client calls but handlers and
 * the client may still be on different threads, so it locks too. */
#define GASNETI_LOCKS GASNETI_THREADS

#if defined(GASNET_DEBUG) && GASNET_DEBUG
#  define GASNETI_DEBUG 1
#  define GASNETI_DEBUG_NAME DEBUG
#else
#  define GASNETI_DEBUG 0
#  define GASNETI_DEBUG_NAME NODEBUG
#endif
/* tracing and statistics: configured (GASNET_TRACE / GASNET_STATS in gasnet_config.h), or
 * forced by -DGASNETI_TRACE=1 / -DGASNETI_STATS=1 (the tests build such a library) */
#ifndef GASNETI_TRACE
#  if defined(GASNET_TRACE) && GASNET_TRACE
#    define GASNETI_TRACE 1
#  else
#    define GASNETI_TRACE 0
#  endif
#endif
#ifndef GASNETI_STATS
#  if defined(GASNET_STATS) && GASNET_STATS
#    define GASNETI_STATS 1
#  else
#    define GASNETI_STATS 0
#  endif
#endif
#if GASNETI_TRACE
#  define GASNETI_TRACE_STR "trace"
#else
#  define GASNETI_TRACE_STR "notrace"
#endif
#if GASNETI_STATS
#  define GASNETI_STATS_STR "stats"
#else
#  define GASNETI_STATS_STR "nostats"
#endif
/* the kinds of events traced and counted (gasneti_trace.c) */
enum {
    GASNETI_TK_AMREQ_SHORT, GASNETI_TK_AMREQ_MEDIUM, GASNETI_TK_AMREQ_LONG,
    GASNETI_TK_AMREP_SHORT, GASNETI_TK_AMREP_MEDIUM, GASNETI_TK_AMREP_LONG,
    GASNETI_TK_AMRUN_REQ, GASNETI_TK_AMRUN_REP,
    GASNETI_TK_PUT_BLOCKING, GASNETI_TK_PUT_NB, GASNETI_TK_PUT_NBI,
    GASNETI_TK_GET_BLOCKING, GASNETI_TK_GET_NB, GASNETI_TK_GET_NBI,
    GASNETI_TK_BARRIER_NOTIFY, GASNETI_TK_BARRIER_WAIT, GASNETI_TK_WAIT, GASNETI_TK_AMO,
    GASNETI_TK_SEGMENT,
    GASNETI_TK_COUNT
};
#if GASNETI_TRACE || GASNETI_STATS
#  ifdef __cplusplus
extern "C" {
#  endif
extern void gasneti_trace_op(int kind, uint32_t peer, size_t bytes, unsigned handler);
extern void gasneti_trace_time(int kind, uint64_t ns);
extern uint64_t gasneti_trace_now_ns(void);
extern void gasneti_trace_printf(int to_stats, const char *fmt, ...) __attribute__((__format__(__printf__, 2, 3)));
extern void gasneti_stats_dump(int reset);
/* The source line of the API call being made, recorded by the wrapper macros at the end
 * of gasnete_rma_api.h (trace builds only) for the records that call emits; internal: 1
 * when the call is the library's own (GASNETI_TRACE_INTERNAL, set by the library's build) */
extern void gasneti_trace_setsrc(const char *file, int line, int internal);
/* a barrier wait: its start (time, source line), then its record (gasneti_trace.c) */
typedef struct {
    uint64_t t0;
    const char *file;
    int line, internal;
} gasneti_trace_mark_t;
extern gasneti_trace_mark_t gasneti_trace_mark(void);
extern void gasneti_trace_barrier_wait(const gasneti_trace_mark_t *mark);
#  ifdef __cplusplus
}
#  endif
#  ifndef GASNETI_TRACE_INTERNAL
#    define GASNETI_TRACE_INTERNAL 0 /* a client's call */
#  endif
#  define GASNETI_TRACE_SRC() gasneti_trace_setsrc(__FILE__, __LINE__, GASNETI_TRACE_INTERNAL)
#  define GASNETI_TRACE_OP(kind, peer, bytes, handler) gasneti_trace_op(kind, peer, bytes, handler)
#  define GASNETI_TRACE_TIMER(var) uint64_t var = gasneti_trace_now_ns()
#  define GASNETI_TRACE_TIME(kind, var) gasneti_trace_time(kind, gasneti_trace_now_ns() - (var))
#  define GASNETI_TRACE_BARRIER_BEGIN(var) gasneti_trace_mark_t var = gasneti_trace_mark()
#  define GASNETI_TRACE_BARRIER_END(var) gasneti_trace_barrier_wait(&(var))
#else
#  define GASNETI_TRACE_OP(kind, peer, bytes, handler) ((void)0)
#  define GASNETI_TRACE_TIMER(var) ((void)0)
#  define GASNETI_TRACE_TIME(kind, var) ((void)0)
#  define GASNETI_TRACE_BARRIER_BEGIN(var) ((void)0)
#  define GASNETI_TRACE_BARRIER_END(var) ((void)0)
#endif
#if defined(GASNET_SEGMENT_LARGE) && GASNET_SEGMENT_LARGE
#  define GASNETI_SEGMENT_NAME SEGLARGE
#else
#  ifndef GASNET_SEGMENT_FAST
#    define GASNET_SEGMENT_FAST 1
#  endif
#  define GASNETI_SEGMENT_NAME SEGFAST
#endif

#define _GASNETI_PASTE3(a, b, c, d) a##_##b##_##c##_##d
#define GASNETI_PASTE4(a, b, c, d) _GASNETI_PASTE3(a, b, c, d)
/* A client of one mode cannot link a library of another: the init calls take the
 * address of this symbol, which only the matching library defines. */
#define GASNETI_LINKCONFIG GASNETI_PASTE4(gasneti_linkconfig, GASNETI_THREADMODEL, GASNETI_DEBUG_NAME, GASNETI_SEGMENT_NAME)
extern int GASNETI_LINKCONFIG;

#ifdef __cplusplus
#  define GASNETI_BEGIN_EXTERNC extern "C" {
#  define GASNETI_END_EXTERNC }
#else
#  define GASNETI_BEGIN_EXTERNC
#  define GASNETI_END_EXTERNC
#endif

#if defined(__GNUC__)
#  define GASNETI_LIKELY(x) __builtin_expect(!!(x), 1)
#  define GASNETI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define GASNETI_NORETURN __attribute__((__noreturn__))
#  define GASNETI_COLD __attribute__((__cold__, __noinline__))
#  define GASNETI_NOINLINE __attribute__((__noinline__))
#  define GASNETI_FORMAT_PRINTF(f, a) __attribute__((__format__(__printf__, f, a)))
#  define GASNETI_ALWAYS_INLINE static inline __attribute__((__always_inline__))
#else
#  define GASNETI_LIKELY(x) (x)
#  define GASNETI_UNLIKELY(x) (x)
#  define GASNETI_NORETURN
#  define GASNETI_COLD
#  define GASNETI_NOINLINE
#  define GASNETI_FORMAT_PRINTF(f, a)
#  define GASNETI_ALWAYS_INLINE static inline
#endif

GASNETI_BEGIN_EXTERNC

/* ---- versions ---- */
#define GEX_SPEC_VERSION_MAJOR GASNETI_EX_SPEC_VERSION_MAJOR /* gasnet_config.h */
#define GEX_SPEC_VERSION_MINOR GASNETI_EX_SPEC_VERSION_MINOR
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 20 /* as gasnet_tools.h */
#define GASNET_VERSION GASNET_SPEC_VERSION_MAJOR

/* ---- return codes ---- */
#define GASNET_OK 0
#define _GASNET_ERR_BASE 10000
#define GASNET_ERR_NOT_INIT (_GASNET_ERR_BASE + 1)
#define GASNET_ERR_RESOURCE (_GASNET_ERR_BASE + 2)
#define GASNET_ERR_BAD_ARG (_GASNET_ERR_BASE + 3)
#define GASNET_ERR_NOT_READY (_GASNET_ERR_BASE + 4)
#define GASNET_ERR_BARRIER_MISMATCH (_GASNET_ERR_BASE + 5)

/* ---- basic types (the scalar ones, the handles and every GEX_ constant are in gasnet_fwd.h) ---- */
#define GASNET_MAXNODES 0x7FFFFFFFu
typedef void (*gex_AM_Fn_t)();
typedef uint64_t gex_RMA_Value_t;
#define SIZEOF_GEX_RMA_VALUE_T 8

#define GASNET_PAGESIZE 4096
#define GASNET_ALIGNED_SEGMENTS 0
#define GEX_AM_INDEX_BASE 128
#define GASNET_HIDDEN_AM_CONCURRENCY_LEVEL 0
#define GASNETI_MAX_ARGS 16
/* endpoints a process may have (gex_EP_Create); an AM carries the sender's and the
 * receiver's index in a few bits of each transport's header */
#define GASNET_MAXEPS 32

typedef struct {
    void *gex_addr;
    size_t gex_len;
} gex_Memvec_t;

typedef struct {
    gex_Rank_t gex_rank;
    gex_EP_Index_t gex_ep_index;
} gex_EP_Location_t;

/* The operation finished with its source before returning: an event pointer passed as
 * lc_opt receives GEX_EVENT_INVALID (already complete); NOW/DEFER/GROUP need nothing. */
#define gasneti_lc_done_at_once(lc_opt) \
    do { if ((uintptr_t)(lc_opt) > (uintptr_t)GEX_EVENT_GROUP) *(lc_opt) = GEX_EVENT_INVALID; } while (0)

typedef struct {
    gex_AM_Index_t gex_index;
    gex_AM_Fn_t gex_fnptr;
    gex_Flags_t gex_flags;
    unsigned int gex_nargs;
    const void *gex_cdata;
    const char *gex_name;
} gex_AM_Entry_t;

typedef struct {
    gex_Rank_t gex_srcrank;
    gex_EP_t gex_ep;
    const gex_AM_Entry_t *gex_entry;
    unsigned int gex_is_req;
    unsigned int gex_is_long;
} gex_Token_Info_t;

typedef const struct {
    gex_Rank_t gex_jobrank;
} gex_RankInfo_t;

/* ---- object layouts (internal; read by inline wrappers) ---- */
struct gasneti_segment_s {
    gex_Client_t _client;
    void *_addr;
    uintptr_t _size;
    gex_Flags_t _flags;
    void *_cdata;
    /* the library's (gasnet_core/gasneti_segment.c, gasneti_epseg.c) */
    gex_MK_t _kind;
    uint32_t _id;        /* this process's segment number (names its shared-memory object) */
    uint8_t _shm;        /* in shared memory: neighbours map it */
    uint8_t _owned;      /* allocated by the library (freed by gex_Segment_Destroy) */
    uint32_t _bound;     /* endpoints bound to it */
    void *_creg;         /* the conduit's registration (gasnetc_segment_register), or NULL */
    struct gasneti_segkey_s *_key; /* the key peers reach it by (gasneti_internal.h), or NULL */
};

struct gasneti_client_s {
    const char *_name;
    gex_Flags_t _flags;
    void *_cdata;
    gex_EP_t _ep0;  /* primordial endpoint */
    gex_TM_t _tm0;  /* primordial team */
};

struct gasneti_ep_s {
    gex_Client_t _client;
    gex_EP_Index_t _index;
    gex_Flags_t _flags;
    gex_Segment_t _segment;
    void *_cdata;
    gex_AM_Entry_t *_handlers; /* 256 entries; gex_fnptr NULL when unregistered */
    gex_EP_Capabilities_t _caps;
    struct gasneti_tm_s *_pairs; /* [GASNET_MAXEPS]: gex_TM_Pair(this, i) */
};

/* The public half of a negotiated-payload source descriptor (gex_AM_SrcDescAddr and
 * gex_AM_SrcDescSize read it inline); the library's per-thread descriptor begins with it. */
struct gasneti_srcdesc_s {
    void *_addr;
    size_t _size;
};

struct gasneti_tm_s {
    gex_EP_t _ep;
    gex_Rank_t _rank;
    gex_Rank_t _size;
    /* team rank -> 1 + the delta of that member's bound segment (see gasneti_peerseg_t)
     * for the members RMA has reached by load/store so far, 0 for the others (a delta is
     * a multiple of the page size, never -1): the neighbor fast path reads only this
     * (gasneti_tm_nbr_delta). Never NULL: every team starts on the shared all-zero
     * gasneti_nbr_none; gasneti_tm_nbr_learn gives it its own on its first neighbor. */
    intptr_t *_nbr;
    const gex_Rank_t *_jobranks; /* team rank -> jobrank; NULL means identity */
    const gex_EP_Index_t *_epidx; /* team rank -> endpoint index; NULL means _rem_ep for all */
    gex_EP_Index_t _rem_ep;
    gex_Flags_t _flags;
    void *_cdata;
    /* the library's (gasnet_extended/gasnete_team.c, gasnete_coll.c) */
    uint32_t _id;        /* names the team in collective messages; 0: primordial */
    uint32_t _coll_seq;  /* collectives started on this team */
    uint32_t _splits;    /* teams created from this one */
    int _coll_on_host;   /* every member shares this host's memory: 0 not known yet, 1 yes, 2 no */
    gex_Memvec_t _scratch; /* scratch space the client granted at creation */
    void *_bar1;           /* a GASNet-1 team barrier in progress (gasnete_coll1.c), or NULL */
};
#define GASNETI_TM_PAIR ((gex_Flags_t)1u << 31) /* _flags of a gex_TM_Pair() value */

/* per-jobrank view of every peer's bound segment, filled at attach */
typedef struct {
    void *_owner_addr;  /* base in the owner's address space */
    uintptr_t _size;
    intptr_t _nbr_delta;  /* RMA: add to an owner address to get ours; GASNETI_NOT_NBR if not a load/store peer */
    intptr_t _pshm_delta; /* the same for the mapping itself (AM Long), whatever the RMA policy */
    const void *_rkey;    /* the conduit's unpacked key (gasnetc_segkey_unpack): RDMA reaches it; NULL: AMs */
} gasneti_peerseg_t;
#define GASNETI_NOT_NBR ((intptr_t)INTPTR_MIN)

extern gex_Rank_t gasneti_mynode;
extern gex_Rank_t gasneti_nodes;
extern gasneti_peerseg_t *gasneti_peerseg; /* [gasneti_nodes], NULL before attach */
/* [endpoint index][jobrank]: the bound segment of every endpoint published so far
 * (gex_EP_PublishBoundSegment); [0] is gasneti_peerseg, an index no process has
 * published is NULL */
extern gasneti_peerseg_t *gasneti_epseg[GASNET_MAXEPS];
extern const gasneti_peerseg_t gasneti_noseg; /* no segment: sizes 0, not a neighbour's */
extern int gasneti_rma_bypass;             /* same-host RMA by load/store (default 1) */

GASNETI_ALWAYS_INLINE gex_Rank_t gasneti_tm_jobrank(gex_TM_t _tm, gex_Rank_t _rank) {
    return _tm->_jobranks ? _tm->_jobranks[_rank] : _rank;
}
/* A rank a client passed, checked in every build (one compare): a rank outside the team
 * is fatal, naming the call, the rank and the team size, never a message to some other
 * process. Every public call that takes a team rank translates it with this. */
extern void gasneti_bad_rank(gex_TM_t tm, gex_Rank_t rank, const char *call) GASNETI_COLD GASNETI_NORETURN;
GASNETI_ALWAYS_INLINE gex_Rank_t gasneti_tm_jobrank_checked(gex_TM_t _tm, gex_Rank_t _rank, const char *_call) {
    if (GASNETI_UNLIKELY(_rank >= _tm->_size)) gasneti_bad_rank(_tm, _rank, _call);
    return gasneti_tm_jobrank(_tm, _rank);
}
GASNETI_ALWAYS_INLINE gex_EP_Index_t gasneti_tm_epidx(gex_TM_t _tm, gex_Rank_t _rank) {
    return _tm->_epidx ? _tm->_epidx[_rank] : _tm->_rem_ep;
}
/* the bound segment of endpoint `_ep` of process `_jobrank` */
GASNETI_ALWAYS_INLINE const gasneti_peerseg_t *gasneti_peerseg_of(gex_Rank_t _jobrank, gex_EP_Index_t _ep) {
    if (GASNETI_LIKELY(_ep == 0)) return &gasneti_peerseg[_jobrank];
    const gasneti_peerseg_t *_t = gasneti_epseg[_ep];
    return _t ? &_t[_jobrank] : &gasneti_noseg;
}
/* The neighbor fast path of the RMA wrappers: 1 + team member `_rank`'s delta (add the
 * delta to an address in that member's bound segment to get ours), or 0 when it is not a
 * load/store peer or RMA has not reached it by load/store yet (a test against 0, and the
 * -1 folds into the address arithmetic). The rank is checked in every build (as
 * gasneti_tm_jobrank_checked does); segment bounds are the debug checks'. An entry only
 * ever goes from 0 to its final value (a bound segment is never unbound), so a relaxed
 * read is enough; the table pointer is published with a release store (the CAS of
 * gasneti_tm_nbr_learn) and read with an acquire load. */
extern intptr_t *gasneti_nbr_none; /* [gasneti_nodes] zeros */
/* member _rank's entry (unchecked): the table pointer by an acquire load (a plain move on
 * x86 and what ThreadSanitizer needs to see the table's zeroing), the entry relaxed */
GASNETI_ALWAYS_INLINE intptr_t gasneti_tm_nbr_entry(gex_TM_t _tm, gex_Rank_t _rank) {
    const intptr_t *_t = __atomic_load_n(&_tm->_nbr, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&_t[_rank], __ATOMIC_RELAXED);
}
GASNETI_ALWAYS_INLINE intptr_t gasneti_tm_nbr_delta(gex_TM_t _tm, gex_Rank_t _rank, const char *_call) {
    if (GASNETI_UNLIKELY(_rank >= _tm->_size)) gasneti_bad_rank(_tm, _rank, _call);
    return gasneti_tm_nbr_entry(_tm, _rank);
}
/* Records the delta the slow path found for member `_rank` (cold: once per member). */
extern void gasneti_tm_nbr_learn(gex_TM_t tm, gex_Rank_t rank, intptr_t delta) GASNETI_COLD;
/* a new team's table, all zeros (once its _size is set) */
extern void gasneti_tm_nbr_init(gex_TM_t tm);
/* frees a team's own table (gex_TM_Destroy) */
extern void gasneti_tm_nbr_free(gex_TM_t tm);

/* the bound segment of team member `_rank` (jobrank `_jr`) */
GASNETI_ALWAYS_INLINE const gasneti_peerseg_t *gasneti_tm_peerseg(gex_TM_t _tm, gex_Rank_t _rank, gex_Rank_t _jr) {
    return gasneti_peerseg_of(_jr, gasneti_tm_epidx(_tm, _rank));
}

/* Segment disposition (spec "SEGMENT DISPOSITION"): at most one of each group per call. */
#define GASNETI_FLAG_SELF_SEG_ALL \
    (GEX_FLAG_SELF_SEG_UNKNOWN | GEX_FLAG_SELF_SEG_SOME | GEX_FLAG_SELF_SEG_BOUND | GEX_FLAG_SELF_SEG_OFFSET)
#define GASNETI_FLAG_PEER_SEG_ALL \
    (GEX_FLAG_PEER_SEG_UNKNOWN | GEX_FLAG_PEER_SEG_SOME | GEX_FLAG_PEER_SEG_BOUND | GEX_FLAG_PEER_SEG_OFFSET)
#define GASNETI_FLAG_SEG_OFFSET (GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET)
/* A *_SEG_OFFSET argument made an address: the offset from the base of a bound segment
 * (the peer endpoint's, or for a SELF offset the local endpoint's), in the owner's address
 * space. Wrappers translate before anything else, so every later path sees real
 * addresses; the debug checks (gasneti_check_seg_flags) look at the untranslated offset. */
GASNETI_ALWAYS_INLINE void *gasneti_seg_offset_addr(const gasneti_peerseg_t *_seg, const void *_addr_or_offset) {
    return (void *)((uintptr_t)_seg->_owner_addr + (uintptr_t)_addr_or_offset);
}

GASNETI_END_EXTERNC
#endif
